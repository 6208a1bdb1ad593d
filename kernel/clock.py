"""Game clocks as GTP sets them, and how long the player may think about one move.

`time_settings MAIN BYO_TIME BYO_STONES` sets the clock of both sides: MAIN seconds, then
periods of BYO_TIME seconds for BYO_STONES moves (Canadian byo-yomi); BYO_TIME 0 is absolute
time, and BYO_TIME > 0 with BYO_STONES 0 means no limit (GTP's convention). `time_left COLOR
TIME STONES` tells the engine its clock now: STONES 0 means TIME is main time left, else TIME
is left for STONES moves of the current period. Between `time_left`s the engine keeps its own
clock, taking off the time each of its moves took.

The budget of a move leaves a reserve for answering and for the controller's own overhead,
so the engine never loses on time: main time is spread over `MOVES_TO_GO` moves, a period
over its moves; nothing is ever planned beyond `SAFE_SHARE` of what is left, less
`RESERVE` seconds: even a move that overran its budget by the most the search allows (10 %
and 50 ms) ends inside the clock.
"""

from __future__ import annotations

from dataclasses import dataclass

#: The moves main time is spread over, however many are left in fact.
MOVES_TO_GO = 25
#: Of the time left, the most one move may use.
SAFE_SHARE = 0.8
#: Seconds kept back for the answer to travel and the controller to stop its clock.
RESERVE = 0.05
#: The least a move is given, so that the search can always finish its first iteration.
SHORTEST = 0.01


@dataclass(frozen=True)
class TimeSettings:
    """A time control: main time, then byo-yomi periods (seconds, moves)."""

    main: float
    byo_time: float
    byo_stones: int

    @property
    def unlimited(self) -> bool:
        """GTP: byo-yomi time with no stones means no time limit at all."""
        return self.byo_time > 0 and self.byo_stones == 0


@dataclass
class SideClock:
    """One side's clock: main time left, or time and moves left of the current period."""

    time: float
    stones: int = 0


class Clocks:
    """Both sides' clocks under one time control."""

    def __init__(self, settings: TimeSettings | None = None) -> None:
        self.settings = settings
        main = settings.main if settings is not None else 0.0
        self.sides = [SideClock(main), SideClock(main)]

    @property
    def running(self) -> bool:
        """Tell whether a time limit applies."""
        return self.settings is not None and not self.settings.unlimited

    def set_left(self, side: int, time: float, stones: int) -> None:
        """Take the controller's word for a side's clock."""
        self.sides[side] = SideClock(time, stones)

    def budget(self, side: int) -> float | None:
        """Return the seconds a move of `side` may take, or None with no time limit."""
        settings = self.settings
        if settings is None or settings.unlimited:
            return None
        clock = self.sides[side]
        if clock.stones > 0:
            available, share = clock.time, clock.time / clock.stones
        elif clock.time > 0:
            period = settings.byo_time / settings.byo_stones if settings.byo_stones else 0.0
            # Main time spread over the moves to come, and a period's share on top only when
            # there is a period to fall back on.
            available = clock.time + (settings.byo_time if settings.byo_stones else 0.0)
            share = clock.time / MOVES_TO_GO + SAFE_SHARE * period
        elif settings.byo_stones:
            available = settings.byo_time
            share = settings.byo_time / settings.byo_stones
        else:
            return SHORTEST  # absolute time, and none left: answer at once
        return max(SHORTEST, min(share, SAFE_SHARE * available) - RESERVE)

    def spend(self, side: int, seconds: float) -> None:
        """Take a move's time off a side's clock, moving on to byo-yomi when main time ends."""
        settings = self.settings
        if settings is None or settings.unlimited:
            return
        clock = self.sides[side]
        if clock.stones == 0:
            clock.time -= seconds
            if clock.time > 0 or not settings.byo_stones:
                clock.time = max(0.0, clock.time)
                return
            # Main time is over: the overflow is taken from the first period.
            clock.time += settings.byo_time
            clock.stones = settings.byo_stones
            seconds = 0.0
        clock.time -= seconds
        clock.stones -= 1
        if clock.stones == 0:  # the period is done: a fresh one starts
            clock.time, clock.stones = settings.byo_time, settings.byo_stones
