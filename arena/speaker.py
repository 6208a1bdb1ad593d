"""Whatever answers protocol lines: an engine process, or a built-in player in this process.

The match logic speaks to players and to the referee only through `Speaker`, so a fake in a
test, a baseline and a real engine are driven the same way. Engine processes run on the
project's one engine-process layer, `client/`: `ProcessSpeaker` is the only place that
knows it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

from client.engine import TEMPORARY, Engine, EngineDied, Failure

#: How a process can fail a player: it died, or it kept silent past its time.
Failure_ = Literal["crashed", "timed out"]


@dataclass(frozen=True, slots=True)
class Reply:
    """One answer: accepted (`=`) or refused (`?`), and its text without the mark and id."""

    ok: bool
    text: str


class SpeakerDied(Exception):
    """The process behind a speaker crashed or timed out; it is dead now."""

    def __init__(self, failure: Failure_, detail: str) -> None:
        super().__init__(detail)
        self.failure: Failure_ = failure
        self.detail = detail


class Speaker(Protocol):
    """Anything asked protocol lines that answers each with one reply."""

    def ask(self, line: str, timeout: float | None = None) -> Reply:
        """Answer one line within `timeout` seconds (None: no limit); raise SpeakerDied."""
        ...

    def kill(self) -> None:
        """Stop at once, from any thread: a pending `ask` then fails."""
        ...

    def close(self) -> None:
        """End politely and free everything."""
        ...


class ProcessSpeaker:
    """An engine process on pipes; it is started at once and checked to answer.

    A command starting with `python` runs with this interpreter (the layer's rule), so that
    `python main.py` finds the packages of the environment the arena runs in.
    """

    def __init__(self, command: Sequence[str], log_dir: Path | None = None) -> None:
        self.engine = Engine(
            list(command), log_dir=TEMPORARY if log_dir is None else log_dir, handshake=True
        )
        try:
            self.engine.start()
        except EngineDied as error:
            raise SpeakerDied("crashed", str(error)) from None

    @property
    def pid(self) -> int:
        pid = self.engine.pid
        assert pid is not None  # started in __init__
        return pid

    def ask(self, line: str, timeout: float | None = None) -> Reply:
        try:
            response = self.engine.ask(line, timeout)
        except EngineDied as error:
            failure: Failure_ = "timed out" if error.failure is Failure.TIMEOUT else "crashed"
            raise SpeakerDied(failure, str(error)) from None
        return Reply(response.ok, response.text)

    def kill(self) -> None:
        self.engine.abort()

    def close(self) -> None:
        self.engine.close()
