"""The standing of a match under way: its tally, its SPRT decision, and the records file
every finished game goes to as it comes."""

from __future__ import annotations

from typing import IO

from arena.game import GameOutcome
from arena.match import MatchSettings
from arena.records import white_points
from arena.report import Progress, progress_line, sprt_state, table
from arena.tally import Tally


class Scoreboard:
    """A match under way: the tally, the SPRT, and where finished games go."""

    def __init__(self, settings: MatchSettings, records: IO[str] | None, progress: Progress):
        self.settings = settings
        self.records = records
        self.progress = progress
        self.tally = Tally()
        self.decision: str | None = None
        #: Whether games began: a stop before reports nothing.
        self.started = False

    def decided(self) -> bool:
        """Whether the SPRT has accepted a hypothesis; remember which."""
        if self.settings.sprt is not None and self.decision is None:
            self.decision = sprt_state(self.tally, self.settings.sprt)[1]
        return self.decision is not None

    def finish(self, outcome: GameOutcome) -> bool:
        """Write and count a finished game; answer whether the match should stop."""
        if self.records is not None:
            # One write per record: a kill leaves at most the last one unfinished.
            self.records.write(outcome.record)
            self.records.flush()
        points = white_points(outcome.result)
        assert points is not None, outcome.result
        self.tally.add(outcome.number, points, outcome.result)
        if outcome.warning is not None:
            self.progress.say(outcome.warning)
        stop = self.decided()
        self.progress.draw(progress_line(self.tally, self.settings.games, self.settings.sprt))
        return stop

    def report(self, end: str) -> str:
        settings = self.settings
        players = (settings.players[0].label, settings.players[1].label)
        size = settings.size
        title = f"{size}x{size}x{size}, openings {settings.opening.describe()}"
        return table(players, title, self.tally, settings.games, settings.sprt, end)
