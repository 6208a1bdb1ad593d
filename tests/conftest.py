"""Shared helpers: start the real engine as a process, talk to it, and read its two logs."""

from __future__ import annotations

import contextlib
import json
import os
import re
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from kernel.kernel import Kernel
from tests.cases import REFERENCE_CASES
from tests.reference import BLACK, Position, board_text, to_notation
from tests.sweep import SWEEP

# No per-example deadline: on a loaded 2-core machine a slow example is not a failure, and a
# timing that can fail at random is a flaky test. Failures print how to reproduce them.
# `make test` draws the same examples every run, so that it passes or fails alike each time;
# `make sweep` (CUBEMATE_SWEEP above 1) draws fresh ones, to find what those never meet.
settings.register_profile("cubemate", deadline=None, print_blob=True, derandomize=SWEEP == 1)
settings.load_profile("cubemate")

REPO = Path(__file__).resolve().parent.parent
MAIN = REPO / "main.py"
CONSOLE_LOG = "cubemate.log"
JSON_LOG = "cubemate.jsonl"
#: Generous: nothing here should take more than a fraction of this on a quiet machine.
TIMEOUT = 30.0

#: The browser the GUI tests drive; without it tests/test_gui.py skips its modules.
CHROMIUM = Path("/usr/bin/chromium")
#: The modules that need it, run apart by `make test` (one worker).
BROWSER_MODULES = frozenset({"test_gui.py", "test_gui_game.py"})


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Without Chromium a run of only the browser modules collects nothing (each skips
    itself, saying why), which pytest reports as exit code 5 and `make test` would take for a
    failure; there the skip is the expected outcome, so the run passes."""
    asked = {Path(argument.split("::")[0]).name for argument in session.config.args}
    collected_nothing = exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED
    if collected_nothing and not CHROMIUM.exists() and asked and asked <= BROWSER_MODULES:
        session.exitstatus = pytest.ExitCode.OK


#: Reference case 1 of rules.md: a real position, white checkmated.
CASE_1 = REFERENCE_CASES[0].board
#: Reference case 2: white in check, not mated.
CASE_2 = REFERENCE_CASES[1].board
#: A console log line: an ISO timestamp, the engine's pid in brackets, then the text.
CONSOLE_LINE = re.compile(
    r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)) \[(\d+)\] (.*)"
)
#: The JSON log events that are not part of an exchange: the engine's start and exit.
SESSION_EVENTS = ("start", "exit")


def engine_command(log_dir: Path, *options: str) -> list[str]:
    """The command line that starts the engine with its logs in `log_dir`."""
    return [sys.executable, str(MAIN), "--log-dir", str(log_dir), *options]


def engine_env(**extra: str) -> dict[str, str]:
    """The environment for an engine: this one, plus `extra`."""
    env = dict(os.environ)
    env.update(extra)
    return env


def run_engine(
    data: bytes, log_dir: Path, *options: str, timeout: float = TIMEOUT
) -> subprocess.CompletedProcess[bytes]:
    """Pipe `data` through a fresh engine and return what it wrote and its exit code."""
    return subprocess.run(
        engine_command(log_dir, *options),
        input=data,
        capture_output=True,
        cwd=REPO,
        timeout=timeout,
        check=False,
    )


def split_responses(output: bytes) -> list[bytes]:
    """Cut stdout into responses, each ending in the empty line; fail on a trailing fragment."""
    parts = output.split(b"\n\n")
    assert parts[-1] == b"", f"output does not end with an empty line: {parts[-1][-200:]!r}"
    return [part + b"\n\n" for part in parts[:-1]]


def default_signals() -> None:
    """In the child: take the default of SIGINT and SIGHUP, even if this test run was
    started ignoring them (in the background, under nohup), which the engine keeps."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


class Engine:
    """One engine process on pipes, answered line by line; stderr is kept for the end.

    `preexec` runs in the child before the engine starts (its signal set-up, its limits)."""

    def __init__(
        self, log_dir: Path, *options: str, preexec: Callable[[], None] = default_signals
    ) -> None:
        self.log_dir = log_dir
        self.process = subprocess.Popen(
            engine_command(log_dir, *options),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=REPO,
            preexec_fn=preexec,
        )
        self.pending = b""

    @property
    def pid(self) -> int:
        return self.process.pid

    def send(self, data: bytes) -> None:
        """Write raw bytes to the engine's stdin."""
        stdin = self.process.stdin
        assert stdin is not None
        stdin.write(data)
        stdin.flush()

    def read_response(self, timeout: float = TIMEOUT) -> bytes:
        """Read one whole response (up to and including its empty line)."""
        stdout = self.process.stdout
        assert stdout is not None
        fd = stdout.fileno()
        deadline = time.monotonic() + timeout
        while b"\n\n" not in self.pending:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"no response within {timeout} s; got {self.pending[:200]!r}")
            ready, _, _ = select.select([fd], [], [], remaining)
            if ready:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    raise EOFError(f"engine closed stdout; pending {self.pending[:200]!r}")
                self.pending += chunk
        response, _, self.pending = self.pending.partition(b"\n\n")
        return response + b"\n\n"

    def ask(self, line: str | bytes) -> bytes:
        """Send one line and return its response."""
        data = line.encode() if isinstance(line, str) else line
        self.send(data + b"\n")
        return self.read_response()

    def signal(self, signum: signal.Signals) -> None:
        self.process.send_signal(signum)

    def finish(self, timeout: float = TIMEOUT) -> tuple[int, bytes, bytes]:
        """Close stdin, wait for the exit; return the exit code, the rest of stdout, stderr."""
        if self.process.stdin is not None and self.process.stdin.closed:
            self.process.stdin = None
        try:
            out, err = self.process.communicate(timeout=timeout)
        except BrokenPipeError:  # the engine is gone; its stdin could not be flushed
            self.process.stdin = None
            out, err = self.process.communicate(timeout=timeout)
        return self.process.returncode, self.pending + (out or b""), err or b""

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def discard(self) -> None:
        """Kill the engine if it still runs, and close its pipes."""
        self.kill()
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None and not stream.closed:
                with contextlib.suppress(BrokenPipeError):  # stdin's unsent bytes
                    stream.close()


@pytest.fixture
def engines() -> Iterator[list[Engine]]:
    """Engines a test starts; any left running is killed."""
    started: list[Engine] = []
    try:
        yield started
    finally:
        for engine in started:
            engine.discard()


@pytest.fixture
def log_dir(tmp_path: Path) -> Path:
    """A fresh log folder for one test."""
    return tmp_path / "logs"


@pytest.fixture
def engine(log_dir: Path) -> Iterator[Engine]:
    """A running engine with its logs in a fresh folder; killed if the test leaves it alive."""
    process = Engine(log_dir)
    try:
        yield process
    finally:
        process.discard()


@pytest.fixture(scope="module")
def shared_engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    """One engine for the tests of a module that need an engine in a known state, not a
    fresh process (each start costs a fifth of a CPU-second): each test sets the position it
    needs and checks with `assert_still_running` that the engine survived it. At the end
    the engine must exit 0 with nothing on stderr."""
    process = Engine(tmp_path_factory.mktemp("shared-engine-logs"))
    try:
        yield process
        assert process.finish() == (0, b"", b"")
    finally:
        process.discard()


def claim_one_worker(request: pytest.FixtureRequest) -> None:
    """Fail when a module-scoped resource of an xdist group (the module's `xdist_group`
    mark) is set up on a second pytest worker: `--dist loadgroup` must keep the group on one
    (pytest-xdist 3.8 under pytest 9.2 silently stopped doing so, and every browser module
    started its browser twice)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker is None:
        return
    mark = request.node.get_closest_marker("xdist_group")
    assert mark is not None, f"{request.node.name} has no xdist_group mark"
    group = mark.args[0]
    # The base temporary folder of each worker sits in one folder shared by the whole run.
    factory: pytest.TempPathFactory = request.getfixturevalue("tmp_path_factory")
    claim = factory.getbasetemp().parent / f"xdist-group-{group}"
    try:
        with claim.open("x") as file:
            file.write(worker)
        return
    except FileExistsError:
        first = claim.read_text()
    pytest.fail(
        f"xdist group {group!r} runs on {first} and on {worker}: run pytest -n with "
        "--dist loadgroup (as make test does), under pytest below 9.2"
    )


def assert_still_running(engine: Engine) -> None:
    """The engine is alive and answers in turn (no response left over from the test)."""
    assert engine.pending == b"", engine.pending[:200]
    assert engine.ask("99 name") == b"=99 cubemate\n\n"
    assert engine.process.poll() is None


@dataclass(frozen=True)
class ConsoleLine:
    """One line of the console log."""

    timestamp: datetime
    pid: int
    text: str


def read_console_log(log_dir: Path, session: bool = False) -> list[ConsoleLine]:
    """Read the console log, failing on any line without a timestamp and a pid; leave out
    the start and exit lines unless `session`."""
    lines: list[ConsoleLine] = []
    for raw in (log_dir / CONSOLE_LOG).read_text(encoding="utf-8").split("\n")[:-1]:
        match = CONSOLE_LINE.fullmatch(raw)
        assert match is not None, f"console log line without a timestamp: {raw[:200]!r}"
        stamp, pid, text = match.groups()
        if session or not text.startswith(("start: cubemate ", "exit: ")):
            lines.append(ConsoleLine(datetime.fromisoformat(stamp), int(pid), text))
    return lines


def read_json_log(log_dir: Path, session: bool = False) -> list[dict[str, Any]]:
    """Read the JSON log, failing on any line that is not one whole JSON object; leave out
    the start and exit events unless `session`."""
    events: list[dict[str, Any]] = []
    text = (log_dir / JSON_LOG).read_text(encoding="utf-8")
    assert text == "" or text.endswith("\n"), "JSON log ends inside a line"
    for raw in text.split("\n")[:-1]:
        event = json.loads(raw)
        assert isinstance(event, dict), raw[:200]
        if session or event["event"] not in SESSION_EVENTS:
            events.append(event)
    return events


def expected_console_texts(exchanges: list[tuple[str, str]]) -> list[str]:
    """The console log texts for (input line, framed response) pairs, in order."""
    texts: list[str] = []
    for line, response in exchanges:
        texts.append(f"# {line}")
        texts.extend(response.rstrip("\n").split("\n"))
    return texts


def check_logs(log_dir: Path, exchanges: list[tuple[str, str]], exit_reason: str) -> None:
    """Check that both logs hold the engine's start, exactly these exchanges in order, and
    its exit for `exit_reason`, all from one pid, and nothing else."""
    console = read_console_log(log_dir, session=True)
    assert console[0].text.startswith("start: cubemate ")
    assert console[-1].text == f"exit: {exit_reason}"
    assert [line.text for line in console[1:-1]] == expected_console_texts(exchanges)
    stamps = [line.timestamp for line in console]
    assert stamps == sorted(stamps), "console log timestamps go backwards"
    assert len({line.pid for line in console}) == 1

    events = read_json_log(log_dir, session=True)
    start, *events, end = events
    assert (start["event"], end["event"], end["reason"]) == ("start", "exit", exit_reason)
    assert start["pid"] == end["pid"] == console[0].pid
    assert len(events) == 2 * len(exchanges)
    for (line, response), event_in, event_out in zip(
        exchanges, events[0::2], events[1::2], strict=True
    ):
        for event in (event_in, event_out):
            assert {"timestamp", "level", "event", "id", "command", "pid"} <= event.keys()
            assert event["pid"] == start["pid"]
            datetime.fromisoformat(event["timestamp"])
        assert isinstance(event_out["duration_us"], int) and event_out["duration_us"] >= 0
        words = line.split()
        has_id = bool(words) and words[0].isascii() and words[0].isdigit()
        command_id = int(words[0]) if has_id else None
        name = (words[1] if len(words) > 1 else "") if has_id else words[0]
        assert event_in["event"] == "input"
        assert event_in["level"] == "info"
        assert event_in["line"] == line
        assert event_in["id"] == command_id
        assert event_in["command"] == name
        text = response.rstrip("\n")
        assert event_out["id"] == command_id
        assert event_out["command"] == name
        if response.startswith("="):
            assert (event_out["event"], event_out["level"]) == ("output", "info")
            assert event_out["response"] == text
        else:
            # A refused command is a warning; an internal error (tested apart) an error.
            assert (event_out["event"], event_out["level"]) == ("error", "warning")
            assert event_out["error"] == text


# --- the kernel in process ------------------------------------------------------------------


def ask(kernel: Kernel, line: str) -> str:
    """Run one command line in process; a refusal comes back as `? message`."""
    name, *args = line.split(" ")
    reply = kernel.execute(name, args)
    return reply.text if reply.ok else f"? {reply.text}"


def set_position(kernel: Kernel, pos: Position, sized: bool = False) -> None:
    """Set pos in the kernel, with its side to move (`b` or, alternately, `black`)."""
    words = [str(pos.n)] if sized else []
    words.append(to_notation(pos.n, pos.pieces))
    if pos.side == BLACK:
        words.append("b" if sized else "black")
    elif sized:
        words.append("w")
    reply = kernel.execute("set_board", words)
    assert reply.ok, (board_text(pos), reply.text)
