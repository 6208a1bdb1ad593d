"""Engine processes for batch work: one per worker thread, spoken to through the protocol.

A worker thread (a local thread or a Dask worker's thread) keeps one `python main.py` process
and sends it `set_board` and then each asked command, every line with an id that the answer
must echo. An engine that dies, hangs past the timeout or answers out of step is killed and
replaced, and the position is tried once more; a second death marks it failed.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kernel.batch_keep import Filter

#: The repository root, where main.py lives next to the kernel package.
REPO = Path(__file__).resolve().parent.parent
#: Seconds an engine may take to start and answer its first command.
START_TIMEOUT = 60.0
#: How much of a dead engine's stderr goes into the failure message.
STDERR_TAIL = 300


@dataclass(frozen=True, slots=True)
class Job:
    """One position to examine: its id, its board text and the side to move (w or b)."""

    id: int | str
    board: str
    side: str


@dataclass(frozen=True, slots=True)
class Outcome:
    """What the engine said about one position; `failed` is set when no engine survived it."""

    id: int | str
    board: str
    side: str
    answers: dict[str, str] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    failed: str | None = None
    #: The filter ruled it out before every command was asked; never written.
    rejected: bool = False

    def record(self) -> dict[str, Any]:
        """Return the JSON object written for this position."""
        data: dict[str, Any] = {
            "id": self.id,
            "board": self.board,
            "side": self.side,
            "answers": self.answers,
            "errors": self.errors,
        }
        if self.failed is not None:
            data["failed"] = self.failed
        return data


@dataclass(frozen=True, slots=True)
class EngineSpec:
    """How to start an engine: the command (None: this machine's python main.py), the log
    folder (None: a fresh temporary one per engine, removed with it) and the seconds one
    answer may take (None: no limit)."""

    command: tuple[str, ...] | None = None
    log_dir: str | None = None
    timeout: float | None = None

    def argv(self) -> list[str]:
        """Return the command line without the log option, resolved on this machine."""
        if self.command is not None:
            return list(self.command)
        return [sys.executable, str(REPO / "main.py")]


class EngineDied(Exception):
    """The engine exited, hung past the timeout or answered out of step."""


class Stopped(Exception):
    """The run was interrupted; the rest of the chunk is not examined."""


class EngineProcess:
    """One engine process on pipes, answering one command at a time."""

    def __init__(self, spec: EngineSpec) -> None:
        self.spec = spec
        self.own_log_dir: str | None = None
        log_dir = spec.log_dir
        if log_dir is None:
            self.own_log_dir = log_dir = tempfile.mkdtemp(prefix="cubemate-batch-logs-")
        # Closed in close(): the engine writes to it for as long as it lives.
        self.stderr: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115
        try:
            # A session of its own: Ctrl-C at the terminal reaches the batch, which then
            # stops its engines itself, instead of every engine dying at once under it.
            self.process = subprocess.Popen(
                [*spec.argv(), "--log-dir", log_dir],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self.stderr,
                cwd=REPO,
                start_new_session=True,
            )
        except OSError as error:
            self.close()
            raise EngineDied(f"cannot start the engine {spec.argv()!r}: {error}") from error
        self.sequence = 0
        self.pending = b""
        # Wait for the engine to be up before the per-answer timeout applies: start-up on a
        # loaded machine may take longer than any one answer should.
        try:
            self.ask("protocol_version", max(START_TIMEOUT, spec.timeout or 0))
        except EngineDied:
            self.close()
            raise

    def ask(self, command: str, timeout: float | None = None) -> tuple[bool, str]:
        """Send one command with a fresh id; return (accepted, result or message)."""
        self.sequence += 1
        number = self.sequence
        stdin = self.process.stdin
        assert stdin is not None
        try:
            stdin.write(f"{number} {command}\n".encode())
            stdin.flush()
        except (BrokenPipeError, ValueError) as error:
            raise self.death(f"its input is closed ({error})") from error
        response = self.read_response(command, self.spec.timeout if timeout is None else timeout)
        for mark, accepted in ((b"=", True), (b"?", False)):
            prefix = mark + str(number).encode() + b" "
            if response.startswith(prefix):
                return accepted, response[len(prefix) :].decode("utf-8", errors="replace")
        raise self.death(f"answered {response[:80]!r} to command {number} ({command[:60]!r})")

    def read_response(self, command: str, timeout: float | None) -> bytes:
        """Read up to the empty line that ends a response, within the timeout."""
        stdout = self.process.stdout
        assert stdout is not None
        fd = stdout.fileno()
        deadline = None if timeout is None else time.monotonic() + timeout
        while b"\n\n" not in self.pending:
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                raise self.death(f"no answer to {command[:60]!r} within {timeout:g} s")
            ready, _, _ = select.select([fd], [], [], remaining)
            if not ready:
                continue
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise self.death(f"it closed its output during {command[:60]!r}")
            self.pending += chunk
        response, _, self.pending = self.pending.partition(b"\n\n")
        return response

    def death(self, why: str) -> EngineDied:
        """Kill the engine and describe its end: why, its exit code and its last stderr."""
        self.kill()
        self.stderr.seek(0, os.SEEK_END)
        self.stderr.seek(max(0, self.stderr.tell() - STDERR_TAIL))
        tail = self.stderr.read().decode("utf-8", errors="replace").strip()
        code = self.process.returncode
        message = f"engine {self.process.pid} failed: {why}; exit code {code}"
        if tail:
            message += f"; stderr: {' | '.join(tail.splitlines()[-3:])}"
        return EngineDied(message)

    def kill(self) -> None:
        """Stop the process at once and wait for it."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()

    def close(self) -> None:
        """End the engine politely (end of input), by force if it lingers, and tidy up."""
        process = getattr(self, "process", None)
        if process is not None:
            with contextlib.suppress(OSError, ValueError):
                if process.stdin is not None:
                    process.stdin.close()
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.kill()
            if process.stdout is not None:
                process.stdout.close()
        self.stderr.close()
        if self.own_log_dir is not None:
            shutil.rmtree(self.own_log_dir, ignore_errors=True)


# One engine per (thread, spec): a thread never shares its engine, so no lock is needed to
# talk to it; the registry itself is shared by the threads and guarded.
_ENGINES: dict[tuple[int, EngineSpec], EngineProcess] = {}
_REGISTRY_LOCK = threading.Lock()


def engine_for(spec: EngineSpec) -> EngineProcess:
    """Return this thread's engine for `spec`, starting it if there is none."""
    key = (threading.get_ident(), spec)
    with _REGISTRY_LOCK:
        engine = _ENGINES.get(key)
    if engine is None:
        engine = EngineProcess(spec)
        with _REGISTRY_LOCK:
            _ENGINES[key] = engine
    return engine


def discard_engine(spec: EngineSpec) -> None:
    """Forget this thread's engine for `spec` (it has died); the next call starts a new one."""
    with _REGISTRY_LOCK:
        engine = _ENGINES.pop((threading.get_ident(), spec), None)
    if engine is not None:
        engine.close()


def close_engines() -> int:
    """Close every engine this process keeps; return how many there were."""
    with _REGISTRY_LOCK:
        engines = list(_ENGINES.values())
        _ENGINES.clear()
    for engine in engines:
        engine.close()
    return len(engines)


atexit.register(close_engines)


def examine(
    engine: EngineProcess, job: Job, asks: Sequence[str], keep: Filter | None = None
) -> Outcome:
    """Set the position, then ask each command in turn; a refused set_board skips the asks.

    With a filter, stop asking as soon as the answers so far rule the position out: a mining
    run then skips the costly mate_in 2 of every position that already mates in 1.
    """
    side = " b" if job.side == "b" else ""
    accepted, text = engine.ask(f"set_board {job.board}{side}")
    if not accepted:
        return Outcome(job.id, job.board, job.side, errors={"set_board": text})
    outcome = Outcome(job.id, job.board, job.side)
    asked: set[str] = set()
    for ask in asks:
        accepted, text = engine.ask(ask)
        (outcome.answers if accepted else outcome.errors)[ask] = text
        asked.add(ask)
        if keep is not None and len(asked) < len(asks) and keep.rejects(outcome, asked):
            return replace(outcome, rejected=True)
    return outcome


def run_job(job: Job, asks: Sequence[str], spec: EngineSpec, keep: Filter | None = None) -> Outcome:
    """Examine one position, replacing a dead engine and retrying once before giving up."""
    deaths: list[str] = []
    for _attempt in range(2):
        try:
            return examine(engine_for(spec), job, asks, keep)
        except EngineDied as death:
            deaths.append(str(death))
            discard_engine(spec)
    reason = "the engine died on this position twice: " + " / ".join(deaths)
    return Outcome(job.id, job.board, job.side, failed=reason)


def run_chunk(
    jobs: Sequence[Job],
    asks: Sequence[str],
    spec: EngineSpec,
    stop: threading.Event | None = None,
    keep_source: str | None = None,
) -> list[Outcome]:
    """Examine several positions in order on this thread's engine; the unit of scheduling.

    The filter travels as its text (a parsed one holds closures, which do not pickle for
    Dask) and is parsed here, once per process.
    """
    keep = None if keep_source is None else parsed_filter(keep_source)
    outcomes: list[Outcome] = []
    for job in jobs:
        if stop is not None and stop.is_set():
            raise Stopped
        outcomes.append(run_job(job, asks, spec, keep))
    return outcomes


@functools.cache
def parsed_filter(source: str) -> Filter:
    """Parse a filter once per process."""
    from kernel.batch_keep import parse_filter  # here: batch_keep imports this module

    return parse_filter(source)
