"""The standing of a match under way: its tally, its SPRT decision, and the records file
every finished game goes to as it comes."""

from __future__ import annotations

from arena.game import GameOutcome
from arena.match import MatchSettings
from arena.records import RecordsError, RecordsFile, white_points
from arena.referee import DEFAULT_VARIANT
from arena.report import Progress, progress_line, sprt_state, table
from arena.tally import Tally


class Scoreboard:
    """A match under way: the tally, the SPRT, and where finished games go."""

    def __init__(self, settings: MatchSettings, records: RecordsFile | None, progress: Progress):
        self.settings = settings
        self.records = records
        #: Why the records file could not be written: the match then stops, and what
        #: finishes after is neither written nor counted.
        self.failure: str | None = None
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
        if self.failure is not None:
            return True
        if self.records is not None:
            # One write per record: a kill leaves at most the last one unfinished.
            try:
                self.records.write(outcome.record)
            except RecordsError as error:
                self.failure = (
                    f"{error} (game {outcome.number} is not in it, nor counted; the games "
                    "before it are, whole: --resume continues once it can be written)"
                )
                return True
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
        if settings.setup.variant != DEFAULT_VARIANT:
            title = f"{settings.setup.variant} {title}"
        return table(players, title, self.tally, settings.games, settings.sprt, end)
