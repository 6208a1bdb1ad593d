"""Whatever answers protocol lines: an engine process, or a built-in player in this process.

The match logic speaks to players and to the referee only through `Speaker`, so a fake in a
test, a baseline and a real engine are driven the same way. Engine processes run on the
project's one engine-process layer (today `kernel.batch_engine`; `client/` when it lands):
`ProcessSpeaker` is the only place that knows it.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

from kernel.batch_engine import EngineDied, EngineProcess, EngineSpec

#: How a process can fail a player: it died, or it kept silent past its time.
Failure = Literal["crashed", "timed out"]
#: Words that mean "this interpreter" at the head of a command, so that a player command
#: such as `python main.py` runs with the packages of the environment the arena runs in.
PYTHON_WORDS = frozenset({"python", "python3"})


@dataclass(frozen=True, slots=True)
class Reply:
    """One answer: accepted (`=`) or refused (`?`), and its text without the mark and id."""

    ok: bool
    text: str


class SpeakerDied(Exception):
    """The process behind a speaker crashed or timed out; it is dead now."""

    def __init__(self, failure: Failure, detail: str) -> None:
        super().__init__(detail)
        self.failure: Failure = failure
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


def resolve_command(words: Sequence[str]) -> tuple[str, ...]:
    """Run `python ...` with this interpreter, so the engine finds this environment's packages."""
    if words and words[0] in PYTHON_WORDS:
        return (sys.executable, *words[1:])
    return tuple(words)


class ProcessSpeaker:
    """An engine process on pipes; it is started at once and checked to answer."""

    def __init__(self, command: Sequence[str], log_dir: Path | None = None) -> None:
        spec = EngineSpec(resolve_command(command), None if log_dir is None else str(log_dir))
        try:
            self.engine = EngineProcess(spec)
        except EngineDied as error:
            raise SpeakerDied("crashed", str(error)) from None

    @property
    def pid(self) -> int:
        return self.engine.process.pid

    def ask(self, line: str, timeout: float | None = None) -> Reply:
        started = time.monotonic()
        try:
            ok, text = self.engine.ask(line, timeout)
        except EngineDied as error:
            # The layer says "died" either way; silence is told apart by the clock: an answer
            # missing at the deadline is a timeout, an end of output before it a crash.
            late = timeout is not None and time.monotonic() - started >= timeout
            raise SpeakerDied("timed out" if late else "crashed", str(error)) from None
        return Reply(ok, text)

    def kill(self) -> None:
        if self.engine.process.poll() is None:
            self.engine.process.kill()

    def close(self) -> None:
        self.engine.close()
