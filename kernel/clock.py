"""Game clocks as GTP sets them, and how long the player may think about one move.

`time_settings MAIN BYO_TIME BYO_STONES` sets the clock of both sides: MAIN seconds, then
periods of BYO_TIME seconds for BYO_STONES moves (Canadian byo-yomi); BYO_TIME 0 is absolute
time, and BYO_TIME > 0 with BYO_STONES 0 means no limit (GTP's convention). `time_left COLOR
TIME STONES` tells the engine its clock now: STONES 0 means TIME is main time left, else TIME
is left for STONES moves of the current period. Between `time_left`s the engine keeps its own
clock, taking off the time each of its moves took.

The budget of a move leaves a reserve for answering, so the engine never loses on time: main
time is spread over `MOVES_TO_GO` moves, and no move of main time plans beyond `SAFE_SHARE` of
what is left (the search may stop a little past its budget, and later moves need time too); a
byo-yomi period is spread over its moves, its last move taking all that is left. From either
the reserve is taken off: what answering took beyond the search in the last moves
(`Overhead`, measured by genmove), and `PIPE_MARGIN` for the line to cross the pipes; before
the first move is measured, `RESERVE`.

A move of main time stops deepening once half its budget is gone (the next depth would not
end in time, and what is saved serves later moves); a move of a period searches until its
budget is spent, since a period's time not used is lost (`Clocks.in_period`).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

#: The moves main time is spread over, however many are left in fact.
MOVES_TO_GO = 25
#: Of the time left, the most one move may use.
SAFE_SHARE = 0.8
#: Seconds kept back for answering, before the engine has measured what it takes.
RESERVE = 0.05
#: Seconds kept back, beyond the engine's own measured overhead, for the line and the answer
#: to cross the pipes (well under a millisecond on one machine: bench/play.py measures it).
PIPE_MARGIN = 0.005
#: The moves whose overhead is remembered: the reserve covers the largest of them.
OVERHEAD_MOVES = 8
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

    def budget(self, side: int, reserve: float = RESERVE) -> float | None:
        """Return the seconds a move of `side` may take, or None with no time limit.

        `reserve` is kept back for answering (Overhead.reserve, measured).
        """
        settings = self.settings
        if settings is None or settings.unlimited:
            return None
        clock = self.sides[side]
        if clock.stones > 0:
            # A period: its time over its moves, and all of it for its last move.
            most, share = clock.time, clock.time / clock.stones
        elif clock.time > 0:
            period = settings.byo_time / settings.byo_stones if settings.byo_stones else 0.0
            # Main time spread over the moves to come, and a period's share on top only when
            # there is a period to fall back on.
            available = clock.time + (settings.byo_time if settings.byo_stones else 0.0)
            most, share = SAFE_SHARE * available, clock.time / MOVES_TO_GO + SAFE_SHARE * period
        elif settings.byo_stones:
            most, share = settings.byo_time, settings.byo_time / settings.byo_stones
        else:
            return SHORTEST  # absolute time, and none left: answer at once
        return max(SHORTEST, min(share, most) - reserve)

    def in_period(self, side: int) -> bool:
        """Tell whether a move of `side` is played from a byo-yomi period (main time over)."""
        settings = self.settings
        if settings is None or settings.unlimited or not settings.byo_stones:
            return False
        return self.sides[side].stones > 0 or self.sides[side].time <= 0

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


class Overhead:
    """What answering a move costs beyond its search (naming it, playing it, letting go of the
    search's memory), as genmove measures it; the reserve kept back covers the largest of the
    last `OVERHEAD_MOVES` moves, and the pipes."""

    def __init__(self) -> None:
        self.recent: deque[float] = deque(maxlen=OVERHEAD_MOVES)

    def note(self, seconds: float) -> None:
        """Remember one move's overhead."""
        self.recent.append(max(0.0, seconds))

    @property
    def reserve(self) -> float:
        """The seconds to keep back from a move's budget."""
        return max(self.recent) + PIPE_MARGIN if self.recent else RESERVE
