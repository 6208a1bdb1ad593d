"""Whatever answers protocol lines: an engine process, or a built-in player in this process.

The match logic speaks to players and to the referee only through `Speaker`, so a fake in a
test, a baseline and a real engine are driven the same way. Engine processes run on the
project's one engine-process layer, `client/`: `ProcessSpeaker` is the only place that
knows it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

from client.answers import MAX_ANSWER_BYTES
from client.engine import (
    ENGINE_DEFAULT,
    START_TIMEOUT,
    TEMPORARY,
    Engine,
    EngineDied,
    Failure,
    Logs,
)

#: The most of an engine's name and version kept for a record's header.
IDENTITY_CHARS = 100
#: How a process can fail a player: it died, kept silent past its time, wrote an answer over
#: the client's limit (client/answers.py), or answered out of step (twice to one line).
Failure_ = Literal["crashed", "timed out", "answered too long", "answered out of step"]
#: The words for each failure of the engine layer; any other is a crash.
FAILURES: dict[Failure, Failure_] = {
    Failure.TIMEOUT: "timed out",
    Failure.TOO_LONG: "answered too long",
    Failure.GARBLED: "answered out of step",
}


@dataclass(frozen=True, slots=True)
class Reply:
    """One answer: accepted (`=`) or refused (`?`), and its text without the mark and id."""

    ok: bool
    text: str


class SpeakerDied(Exception):
    """The process behind a speaker crashed, timed out or answered wrongly; it is dead now."""

    def __init__(self, failure: Failure_, detail: str) -> None:
        super().__init__(detail)
        self.failure: Failure_ = failure
        self.detail = detail


class Speaker(Protocol):
    """Anything asked protocol lines that answers each with one reply."""

    def ask(self, line: str, timeout: float | None = None) -> Reply:
        """Answer one line within `timeout` seconds (None: no limit); raise SpeakerDied."""
        ...

    def knows(self, command: str) -> bool:
        """Whether it knows a command (`known_command`); raise SpeakerDied."""
        ...

    def identity(self) -> str:
        """Which engine it is, for the records: its name and version."""
        ...

    def kill(self) -> None:
        """Stop at once, from any thread: a pending `ask` then fails."""
        ...

    def close(self) -> None:
        """End politely and free everything."""
        ...


@dataclass(frozen=True, slots=True)
class Launch:
    """How to start one engine process: plain data, so that it travels to Dask workers.

    `cubemate_logs` adds cubemate's own `--log-dir` (a temporary folder, or `log_dir`) to the
    command line; no other engine ever gets it. `ids` numbers every line (GTP's optional id).
    """

    command: tuple[str, ...]
    ids: bool = False
    cubemate_logs: bool = False
    log_dir: str | None = None
    cwd: str | None = None
    #: The longest answer read, in bytes; longer is the engine's failure (answered too long).
    max_answer: int = MAX_ANSWER_BYTES


class ProcessSpeaker:
    """An engine process on pipes; it is started at once and checked to answer.

    A command starting with `python` runs with this interpreter (the layer's rule), so that
    `python main.py` finds the packages of the environment the arena runs in. Every question
    is bounded: by the caller's timeout, else by `timeout` (also the first answer's bound). A
    greeting written before the first answer is skipped and kept in `banner`; closing sends
    `quit`, closes the input, then kills.
    """

    def __init__(self, launch: Launch, timeout: float | None) -> None:
        logs: Path | Logs = ENGINE_DEFAULT
        if launch.cubemate_logs:
            logs = TEMPORARY if launch.log_dir is None else Path(launch.log_dir)
        self.engine = Engine(
            list(launch.command),
            log_dir=logs,
            timeout=timeout,
            start_timeout=START_TIMEOUT if timeout is None else timeout,
            handshake=True,
            cwd=launch.cwd,
            ids=launch.ids,
            skip_banner=True,
            quit_on_close=True,
            max_answer=launch.max_answer,
        )
        self.timeout = timeout
        self._known: dict[str, bool] = {}
        self._identity: str | None = None
        try:
            self.engine.start()
        except EngineDied as error:
            raise SpeakerDied("crashed", str(error)) from None

    @property
    def pid(self) -> int:
        pid = self.engine.pid
        assert pid is not None  # started in __init__
        return pid

    @property
    def banner(self) -> tuple[int, list[str]]:
        """How many lines the engine wrote before its first answer, and the first of them."""
        return self.engine.banner_lines, list(self.engine.banner)

    def ask(self, line: str, timeout: float | None = None) -> Reply:
        try:
            response = self.engine.ask(line, timeout)
        except EngineDied as error:
            raise SpeakerDied(FAILURES.get(error.failure, "crashed"), str(error)) from None
        return Reply(response.ok, response.text)

    def knows(self, command: str) -> bool:
        """Whether the engine knows a command (`known_command`, asked once per process)."""
        known = self._known.get(command)
        if known is None:
            reply = self.ask(f"known_command {command}")
            known = self._known[command] = reply.ok and reply.text.strip() == "true"
        return known

    def identity(self) -> str:
        """The engine's `name` and `version`, as it answers them (asked once per process)."""
        if self._identity is None:
            words = []
            for command in ("name", "version"):
                reply = self.ask(command)
                text = " ".join(reply.text.split())[:IDENTITY_CHARS]
                if reply.ok and text:
                    words.append(text)
            self._identity = " ".join(words) or "unnamed"
        return self._identity

    def kill(self) -> None:
        self.engine.abort()

    def close(self) -> None:
        self.engine.close()
