"""A player's clock under GTP's time control: main time, then Canadian byo-yomi.

`time_settings MAIN BYO_TIME BYO_STONES`: MAIN seconds for the whole game, then periods of
BYO_TIME seconds in which BYO_STONES moves must be played (a fresh period after each
BYO_STONES moves). BYO_STONES 0 means no byo-yomi: the game is lost when MAIN runs out. A fixed
time a move of S seconds is `time_settings 0 S 1`. Before each `genmove` the arena sends
`time_left COLOR TIME STONES` (STONES 0 while in main time), as GoGui and KGS do.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class TimeControl:
    """GTP's three numbers: main time, byo-yomi period and the moves to play in it."""

    main: float
    byo_time: float
    byo_stones: int

    def __post_init__(self) -> None:
        if self.main < 0 or self.byo_time < 0 or self.byo_stones < 0:
            raise ValueError("time settings cannot be negative")
        if self.byo_stones and not self.byo_time:
            raise ValueError("a byo-yomi period of 0 seconds leaves no time to move")
        if not self.byo_stones and not self.main:
            raise ValueError("no main time and no byo-yomi leaves no time to move")

    @property
    def per_move(self) -> float | None:
        """The seconds of a fixed time a move (`0 S 1`); None for any other control."""
        return self.byo_time if self.main == 0 and self.byo_stones == 1 else None

    def command(self) -> str:
        return f"time_settings {self.main:g} {self.byo_time:g} {self.byo_stones}"

    def describe(self) -> str:
        """Say it for people and for a record's TimeControl header."""
        if self.main == 0 and self.byo_stones == 1:
            return f"{self.byo_time:g} s a move"
        if not self.byo_stones:
            return f"{self.main:g} s a game"
        return f"{self.main:g} s, then {self.byo_time:g} s per {self.byo_stones} moves"


class Clock:
    """One player's time in one game."""

    def __init__(self, control: TimeControl) -> None:
        self.control = control
        self.main_left = control.main
        #: Seconds and moves left in the current byo-yomi period, once main time is spent
        #: (at once when there is none: a fixed time a move is byo-yomi from the first move).
        self.in_byo_yomi = control.main == 0 and control.byo_stones > 0
        self.period_left = control.byo_time
        self.stones_left = control.byo_stones

    def available(self) -> float:
        """The most this move may take: what is left, and a period if main time overflows."""
        if self.in_byo_yomi:
            return self.period_left
        return self.main_left + (self.control.byo_time if self.control.byo_stones else 0.0)

    def time_left(self, colour: str) -> str:
        """The `time_left` line for this player."""
        if self.in_byo_yomi:
            return f"time_left {colour} {self.period_left:.3f} {self.stones_left}"
        return f"time_left {colour} {self.main_left:.3f} 0"

    def spend(self, seconds: float) -> None:
        """Take a move's time off (the caller has checked it was within `available`)."""
        if not self.in_byo_yomi:
            if seconds <= self.main_left or not self.control.byo_stones:
                self.main_left = max(0.0, self.main_left - seconds)
                return
            seconds -= self.main_left
            self.main_left = 0.0
            self.in_byo_yomi = True
        self.period_left = max(0.0, self.period_left - seconds)
        self.stones_left -= 1
        if self.stones_left == 0:
            self.period_left = self.control.byo_time
            self.stones_left = self.control.byo_stones
