"""One engine process spoken to over the protocol: the layer every client shares.

    with Engine("python main.py --config levels/exposure-0.toml", timeout=10) as engine:
        engine.ask("boardsize 4")      # sent with a fresh id, which the answer must echo
        engine.send("7 showboard")     # sent as it is, its own id or none

The process starts on first use (or `start()`). Each call writes one line and reads one
whole response, up to the empty line that ends it, within the timeout, in time linear in its
length and at most `max_answer` bytes long (client/answers.py: 64 MiB unless told). An
engine that exits, hangs past the timeout, answers too long or out of step is killed and
`EngineDied` says why, with its exit code and the last lines of its stderr; the next call
starts a new process. Every line the engine writes on stderr can be handed to a callback (a
GUI shows the "thinking" lines of a long search); the last few are kept for messages either
way. A reader thread hands them on as they come, and every answer first hands on what the
engine wrote on stderr before it, so that a search's last thinking line has reached the
callback when its move is returned.

A command line is a string (split as a shell would) or a list of words; a leading `python`
means this interpreter, so that "python main.py" runs in the same virtual environment.
None means this project's engine. By default each engine logs into a temporary folder of its
own (`--log-dir` is added to its command line), which goes when the engine goes, also when
the client is killed (client/logs.py); `log_dir` names a folder to keep the logs in, or
`ENGINE_DEFAULT` leaves them where the engine's own configuration puts them and adds nothing
to its command line (for an engine that takes no `--log-dir`).

For engines written elsewhere (the arena's players): `ids=False` sends lines without ids and
takes answers without them (GoGui's way; many engines mishandle ids); `skip_banner` drops the
lines an engine writes on stdout before its first answer, keeping them in `banner` for a
warning; `quit_on_close` makes `close` send `quit` first, GTP's way to end, before closing the
input and, EXIT_GRACE later, killing. Whatever ends the engine, its whole process group goes
(it runs in a session of its own), so that no child of it outlives the client.
"""

from __future__ import annotations

import contextlib
import enum
import os
import re
import select
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO

from client.answers import MAX_ANSWER_BYTES, Answers, AnswerTooLong
from client.logs import TemporaryLogs

#: The engine of this checkout or installation: main.py sits beside the client package.
MAIN = Path(__file__).resolve().parent.parent / "main.py"
#: Seconds a fresh engine may take to answer its first line: start-up on a loaded machine
#: may take longer than any one answer should.
START_TIMEOUT = 60.0
#: Seconds a closed engine may take to exit by itself before it is killed.
EXIT_GRACE = 5.0
#: Seconds an idle engine may take to answer `quit` when closed politely.
QUIT_TIMEOUT = 2.0
#: Lines skipped before the first answer that are kept for a warning, and their longest.
BANNER_KEPT = 5
BANNER_CHARS = 200
#: Lines of stderr kept for messages, and how many of them a message quotes.
STDERR_KEPT = 20
STDERR_QUOTED = 3
#: What ends a stderr line, and the longest line kept whole (memory stays bounded).
STDERR_LINE_END = re.compile(rb"\r\n?|\n")
STDERR_LINE_BYTES = 1 << 20
#: Where a response starts: its mark, the id it echoes and the space before the text.
HEAD = re.compile(r"([=?])([0-9]*) ?")
#: The most read from the engine's output at once, and how many reads look for output
#: written unasked before a line is sent.
READ_BYTES = 1 << 20
UNASKED_READS = 4
#: Ids longer than this are not read as numbers (int() refuses over 4,300 digits).
MAX_ID_DIGITS = 4000


class Logs(enum.Enum):
    """Where an engine's logs go, when not into a named folder."""

    TEMPORARY = "a temporary folder, removed with the engine"
    ENGINE_DEFAULT = "where the engine's configuration says"


TEMPORARY = Logs.TEMPORARY
ENGINE_DEFAULT = Logs.ENGINE_DEFAULT


class Failure(enum.Enum):
    """How an engine failed."""

    START = "did not start"
    EXIT = "exited"
    TIMEOUT = "timed out"
    GARBLED = "answered out of step"
    TOO_LONG = "answered too long"


class EngineDied(Exception):
    """The engine could not start, exited, hung or answered out of step; it is gone now."""

    def __init__(
        self,
        failure: Failure,
        why: str,
        *,
        delivered: bool,
        exit_code: int | None = None,
        killed: bool = False,
        stderr: Sequence[str] = (),
    ) -> None:
        self.failure = failure
        self.why = why
        #: Whether the line reached the engine: one that did not may safely be sent again.
        self.delivered = delivered
        self.exit_code = exit_code
        self.killed = killed
        self.stderr = list(stderr)
        message = why
        if killed:
            message += "; killed"
        elif exit_code is not None:
            message += f"; exit code {exit_code}"
        if self.stderr:
            message += f"; stderr: {' | '.join(self.stderr[-STDERR_QUOTED:])}"
        super().__init__(message)


@dataclass(frozen=True, slots=True)
class Response:
    """One whole response: accepted (`=`) or refused (`?`), the id it echoed, its text."""

    ok: bool
    id: int | None
    #: Everything after the mark, the id and one space: a result, perhaps of several lines.
    text: str
    #: The response as written, ending in its empty line (CR line ends made LF).
    raw: str


def parse_response(raw: str) -> Response:
    """Read a response's mark, id and text; a response without a mark has ok False."""
    body = raw.removesuffix("\n\n")
    head = HEAD.match(body)
    if head is None:
        return Response(False, None, body, raw)
    digits = head.group(2)
    number = int(digits) if digits and len(digits) <= MAX_ID_DIGITS else None
    return Response(head.group(1) == "=", number, body[head.end() :], raw)


def command_line(command: str | Sequence[str] | None) -> list[str]:
    """Turn a command line into words: None is this project's engine, a string is split as
    a shell would, and a leading `python` or `python3` is this interpreter."""
    if command is None:
        return [sys.executable, str(MAIN)]
    words = shlex.split(command) if isinstance(command, str) else list(command)
    if words and words[0] in ("python", "python3"):
        words[0] = sys.executable
    return words


def command_name(line: str) -> str:
    """The command name of a protocol line, after its id if it has one."""
    words = line.split()
    if words and words[0].isdigit():
        words = words[1:]
    return words[0] if words else ""


class Engine:
    """One engine process on pipes, answering one line at a time; not shared by threads."""

    def __init__(
        self,
        command: str | Sequence[str] | None = None,
        *,
        log_dir: str | os.PathLike[str] | Logs = TEMPORARY,
        timeout: float | None = None,
        start_timeout: float = START_TIMEOUT,
        handshake: bool = False,
        on_stderr: Callable[[str], None] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        env: dict[str, str] | None = None,
        ids: bool = True,
        skip_banner: bool = False,
        quit_on_close: bool = False,
        max_answer: int = MAX_ANSWER_BYTES,
    ) -> None:
        """Remember how to start the engine; nothing starts until it is first used.

        `timeout` bounds each answer (None: no limit), and `start_timeout` the first answer
        of a fresh process when it is longer; `handshake` makes every fresh process answer
        `protocol_version` before it is used, so that a command line that is no engine fails
        at once; `max_answer` bounds each answer's bytes (more: the engine is killed, and
        `EngineDied` says TOO_LONG).
        """
        self.argv = command_line(command)
        if not self.argv:
            raise ValueError("empty engine command line")
        self.log_dir = log_dir
        self.timeout = timeout
        self.start_timeout = start_timeout
        self.handshake = handshake
        self.on_stderr = on_stderr
        self.cwd = cwd
        self.env = env
        self.ids = ids
        self.skip_banner = skip_banner
        self.quit_on_close = quit_on_close
        #: The first lines the last process wrote before its first answer, skipped, and
        #: how many there were.
        self.banner: list[str] = []
        self.banner_lines = 0
        #: Whether a line was written whose answer has not been read: the engine is then
        #: out of step (a read interrupted), and only a kill ends it safely.
        self._busy = False
        #: Whether `close` is asking `quit`: it then closes the input at once, rather than
        #: first waiting for the engine to exit on the answer alone.
        self._closing = False
        #: Fresh processes started after the first one: replacements of dead engines.
        self.restarts = 0
        self._process: subprocess.Popen[bytes] | None = None
        self._logs: TemporaryLogs | None = None
        self._stderr_reader: threading.Thread | None = None
        self._stderr_tail: deque[str] = deque(maxlen=STDERR_KEPT)
        #: Held by whichever thread reads stderr: the reader, or an answer catching up.
        self._stderr_lock = threading.Lock()
        self._stderr_partial = b""
        self._answers = Answers(max_answer)
        self._fresh = False
        self._sequence = 0
        self._started_once = False

    # -- the process

    @property
    def pid(self) -> int | None:
        """The running process's id, or the last one's; None before the first start."""
        return None if self._process is None else self._process.pid

    @property
    def alive(self) -> bool:
        """Tell whether the process is running."""
        return self._process is not None and self._process.poll() is None

    @property
    def returncode(self) -> int | None:
        """The last process's exit code once it has ended; None while it runs."""
        return None if self._process is None else self._process.poll()

    @property
    def log_folder(self) -> str | None:
        """The folder the engine logs into; None when its configuration decides."""
        if self._logs is not None:
            return self._logs.folder
        return None if isinstance(self.log_dir, Logs) else os.fspath(self.log_dir)

    def stderr_tail(self) -> list[str]:
        """The last lines the engine wrote on stderr."""
        return list(self._stderr_tail)

    def start(self) -> None:
        """Start a process unless one is running (a dead one is replaced)."""
        if self.alive:
            return
        if self._process is not None:
            self._finish(kill=True)
        argv = self.argv
        pass_fds: tuple[int, ...] = ()
        self._stderr_tail.clear()
        self._stderr_partial = b""
        self.banner, self.banner_lines = [], 0
        try:
            if self.log_dir is TEMPORARY:
                self._logs = TemporaryLogs()
                argv, pass_fds = [*argv, "--log-dir", self._logs.folder], (self._logs.hold,)
            elif not isinstance(self.log_dir, Logs):
                argv = [*argv, "--log-dir", os.fspath(self.log_dir)]
            # A session of its own: Ctrl-C at a terminal reaches the client, which then ends
            # its engines itself, rather than every engine dying under it at once.
            self._process = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                bufsize=0,
                cwd=self.cwd,
                env=self.env,
                pass_fds=pass_fds,
                start_new_session=True,
            )
        except OSError as error:
            self._drop_logs()
            raise EngineDied(
                Failure.START,
                f"cannot start the engine {shlex.join(self.argv)}: {error.strerror or error}",
                delivered=False,
            ) from error
        try:
            self._begin(self._process)
        except EngineDied:
            raise
        except BaseException:
            # Ctrl-C or SIGTERM while it starts (even while its reader thread starts, which
            # waits on a loaded machine): the caller holds no engine to end yet.
            self._finish(kill=True)
            raise

    def _begin(self, process: subprocess.Popen[bytes]) -> None:
        """Set up a process just started: its pipes, its stderr reader, the handshake."""
        if self._logs is not None:
            self._logs.engine_started()
        assert process.stdin is not None
        os.set_blocking(process.stdin.fileno(), False)
        self._answers.clear()
        self._fresh = True
        self._busy = False
        if self._started_once:
            self.restarts += 1
        self._started_once = True
        reader = threading.Thread(target=self._read_stderr, args=(process.stderr,), daemon=True)
        reader.start()
        # Kept only once started: _finish joins it, and a thread never started cannot be.
        self._stderr_reader = reader
        if self.handshake:
            try:
                self._question("protocol_version", None)
            except EngineDied as death:
                raise EngineDied(
                    Failure.START, f"the engine did not answer protocol_version: {death.why}",
                    delivered=True, exit_code=death.exit_code, killed=death.killed,
                    stderr=death.stderr,
                ) from death  # fmt: skip

    def _read_stderr(self, stream: IO[bytes]) -> None:
        """Hand on stderr lines as they come, on this thread of its own, until the end."""
        fd = stream.fileno()
        os.set_blocking(fd, False)
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        while True:
            try:
                poller.poll()
            except OSError:
                return  # the stream was closed under us: the process is gone
            with self._stderr_lock:
                # Closed (under the lock) by _finish: its number may already name another file.
                if stream.closed or not self._drain_stderr(fd, chunks=1):
                    return

    def _catch_up_stderr(self) -> None:
        """Hand on every stderr line the engine has written so far, on the calling thread."""
        process = self._process
        if process is None or process.stderr is None:
            return
        with self._stderr_lock:
            if not process.stderr.closed:
                # Bounded, so that an engine writing on and on cannot hold the answer back.
                self._drain_stderr(process.stderr.fileno(), chunks=16)

    def _drain_stderr(self, fd: int, chunks: int) -> bool:
        """Read what stderr holds now, up to `chunks` reads, and hand on its whole lines (the
        lock held); return False at its end. CR ends a line too, so that a progress line
        redrawn in place arrives as drawn; a line longer than STDERR_LINE_BYTES is handed on
        in pieces."""
        for _ in range(chunks):
            try:
                chunk = os.read(fd, 1 << 16)
            except BlockingIOError:
                return True
            except OSError:
                chunk = b""
            if not chunk:
                self._hand_on_stderr(self._stderr_partial)
                self._stderr_partial = b""
                return False
            *lines, partial = STDERR_LINE_END.split(self._stderr_partial + chunk)
            if len(partial) > STDERR_LINE_BYTES:
                lines.append(partial)
                partial = b""
            self._stderr_partial = partial
            for raw in lines:
                self._hand_on_stderr(raw)
        return True

    def _hand_on_stderr(self, raw: bytes) -> None:
        """Keep one stderr line and give it to the callback."""
        if not raw:
            return
        piece = raw.decode("utf-8", errors="replace")
        self._stderr_tail.append(piece)
        if self.on_stderr is not None:
            with contextlib.suppress(Exception):  # the callback's trouble is not ours
                self.on_stderr(piece)

    # -- talking

    def ask(self, command: str, timeout: float | None = None) -> Response:
        """Send `command` with a fresh id and return the response, which must echo it (with
        `ids` off: send it bare, and take a response of either mark)."""
        self.start()
        return self._question(command, timeout)

    def send(self, line: str, timeout: float | None = None) -> Response:
        """Send one line as it is and return its response (of any id, or none)."""
        self.start()
        return self._exchange(line, timeout)

    def _question(self, command: str, timeout: float | None) -> Response:
        """Ask the running engine `command`, with an id or without, as `ids` says."""
        if self.ids:
            return self._ask(command, timeout)
        response = self._exchange(command, timeout)
        if response.raw[:1] not in ("=", "?"):
            raise self._death(
                Failure.GARBLED,
                f"the engine answered {response.raw[:80]!r} to {command[:60]!r}",
                delivered=True,
            )
        return response

    def _ask(self, command: str, timeout: float | None) -> Response:
        """Send `command` to the running engine with a fresh id; check the echo."""
        self._sequence += 1
        number = self._sequence
        response = self._exchange(f"{number} {command}", timeout)
        if response.id != number or response.raw[:1] not in ("=", "?"):
            raise self._death(
                Failure.GARBLED,
                f"the engine answered {response.raw[:80]!r} to command {number} ({command[:60]!r})",
                delivered=True,
            )
        return response

    def _exchange(self, line: str, timeout: float | None) -> Response:
        """Write one line to the running engine and read its whole response."""
        if "\n" in line or "\r" in line:
            # A second line would get a response of its own, and every answer after it
            # would belong to the line before.
            raise ValueError(f"one protocol line at a time, not {line[:60]!r}")
        limit = self.timeout if timeout is None else timeout
        if self._fresh:
            limit = None if limit is None else max(limit, self.start_timeout)
        deadline = None if limit is None else time.monotonic() + limit
        if not self._fresh:
            self._check_unasked(f"before {line[:60]!r}", delivered=False)
        self._busy = True
        self._write(line.encode("utf-8", errors="surrogateescape") + b"\n", line, deadline)
        raw = self._read_response(line, limit, deadline)
        # Whatever came with the answer is an answer to no line (an engine that answered
        # twice); read as the next line's, every answer after it would be the line before's.
        self._check_unasked(f"after its answer to {line[:60]!r}", delivered=True)
        self._busy = False
        self._fresh = False
        self._catch_up_stderr()
        response = parse_response(raw)
        if command_name(line) == "quit" and response.ok and not self._closing:
            # Let it exit now, so that the next line finds it gone and starts a new one.
            self._wait_for_exit()
        return response

    def _write(self, data: bytes, line: str, deadline: float | None) -> None:
        """Write the whole line, waiting for room in the pipe until the deadline."""
        process = self._process
        assert process is not None and process.stdin is not None
        fd = process.stdin.fileno()
        view = memoryview(data)
        while view:
            try:
                written = os.write(fd, view)
            except BlockingIOError:
                written = 0
            except OSError as error:
                raise self._death(
                    Failure.EXIT, f"the engine stopped reading its input ({error.strerror})",
                    delivered=False,
                ) from error  # fmt: skip
            view = view[written:]
            if view:
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    raise self._death(
                        Failure.TIMEOUT, f"the engine took no input for {line[:60]!r} in time",
                        delivered=True,
                    )  # fmt: skip
                select.select([], [fd], [], remaining)

    def _read_response(self, line: str, limit: float | None, deadline: float | None) -> str:
        """Read up to the empty line that ends a response, within the deadline and the
        answer limit."""
        process = self._process
        assert process is not None and process.stdout is not None
        fd = process.stdout.fileno()
        while True:
            try:
                if self._fresh and self.skip_banner:
                    self._skip_banner()
                raw = self._answers.response()
            except AnswerTooLong as error:
                raise self._death(
                    Failure.TOO_LONG, f"the engine wrote {error} to {line[:60]!r}", delivered=True
                ) from None
            if raw is not None:
                text = raw.decode("utf-8", errors="replace").replace("\r\n", "\n")
                return text + "\n\n"
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                raise self._death(
                    Failure.TIMEOUT,
                    f"the engine gave no answer to {line[:60]!r} within {limit:g} s",
                    delivered=True,
                )
            ready, _, _ = select.select([fd], [], [], remaining)
            if not ready:
                continue
            chunk = os.read(fd, READ_BYTES)
            if not chunk:
                raise self._death(Failure.EXIT, "the engine closed its output", delivered=True)
            self._answers.feed(chunk)

    def _check_unasked(self, when: str, *, delivered: bool) -> None:
        """Fail as out of step when the engine wrote more than stray line ends unasked: what
        came with the last answer, or since (read without waiting)."""
        process = self._process
        assert process is not None and process.stdout is not None
        fd = process.stdout.fileno()
        # A few reads at most: stray line ends are short, and an engine writing on and on
        # is out of step as soon as its first other byte is seen.
        for _ in range(UNASKED_READS):
            if self._answers.unasked() or not select.select([fd], [], [], 0)[0]:
                break
            chunk = os.read(fd, READ_BYTES)
            if not chunk:
                break  # it ended: the next read says so, with its exit code
            self._answers.feed(chunk)
        unasked = self._answers.unasked()
        if unasked:
            raise self._death(
                Failure.GARBLED,
                f"the engine wrote {unasked.decode('utf-8', errors='replace')!r} unasked, {when}",
                delivered=delivered,
            )

    def _skip_banner(self) -> None:
        """Drop whole lines before the first answer that are no answer (a greeting)."""
        while (line := self._answers.banner_line()) is not None:
            self.banner_lines += 1
            if len(self.banner) < BANNER_KEPT:
                self.banner.append(line[:BANNER_CHARS].decode("utf-8", errors="replace"))

    def _death(self, failure: Failure, why: str, *, delivered: bool) -> EngineDied:
        """End the process and describe its end: why, its exit code and its last stderr."""
        process = self._process
        assert process is not None
        # A closed output is an engine on its way out: let it finish, so its exit code is
        # its own; a hung one is killed at once.
        killed = False
        if failure is Failure.EXIT:
            self._wait_for_exit()
        if process.poll() is None:
            killed = True
        code = self._finish(kill=True)
        return EngineDied(
            failure, why, delivered=delivered, exit_code=code, killed=killed,
            stderr=self.stderr_tail(),
        )  # fmt: skip

    def _wait_for_exit(self) -> None:
        """Give an engine that is ending a moment to exit by itself."""
        assert self._process is not None
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._process.wait(timeout=EXIT_GRACE)

    # -- ending

    def _finish(self, kill: bool) -> int | None:
        """End the process (closing its input, or killing it), reap it, tidy up; return its
        exit code."""
        process = self._process
        if process is None:
            return None
        if process.stdin is not None:
            with contextlib.suppress(OSError):
                process.stdin.close()
        if not kill:
            self._wait_for_exit()
        if process.poll() is None:
            self._kill_group(process)
        code = process.wait()
        # What the engine started goes with it: its group outlives it only by a moment.
        self._kill_group(process)
        if self._stderr_reader is not None:
            # Its last lines come after the exit; a grandchild holding stderr open cannot
            # keep us waiting long.
            self._stderr_reader.join(timeout=EXIT_GRACE)
            self._stderr_reader = None
        if process.stdout is not None:
            with contextlib.suppress(OSError):
                process.stdout.close()
        if process.stderr is not None:
            with self._stderr_lock, contextlib.suppress(OSError):
                process.stderr.close()
        self._drop_logs()
        self._busy = False
        return code

    @staticmethod
    def _kill_group(process: subprocess.Popen[bytes]) -> None:
        """Kill the engine's process group (its session's: the engine and its children)."""
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            if process.poll() is None:
                process.kill()

    def _drop_logs(self) -> None:
        """Remove this engine's temporary log folder, if it has one."""
        if self._logs is not None:
            self._logs.remove()
            self._logs = None

    def kill(self) -> None:
        """Kill the process at once (the next line starts a new one)."""
        self._finish(kill=True)

    def close(self) -> None:
        """End the engine politely (`quit` if asked to send it, then end of input), by force
        if it lingers, and tidy up; an engine out of step is killed."""
        if self._busy:
            self._finish(kill=True)
            return
        if self.quit_on_close and self.alive and not self._fresh:
            self._closing = True
            try:
                with contextlib.suppress(EngineDied):
                    self._exchange("quit", QUIT_TIMEOUT)
            finally:
                self._closing = False
        self._finish(kill=False)

    def interrupt(self) -> bool:
        """Send SIGUSR1 to the running process, from any thread: cubemate stops the search of
        the command it runs (genmove answers its best move so far). Return whether a process
        was there to receive it."""
        process = self._process
        if process is None or process.poll() is not None:
            return False
        process.send_signal(signal.SIGUSR1)
        return True

    def abort(self) -> None:
        """Kill the process from another thread: the call waiting on it there then fails as
        the engine's death (a match runner giving up on a player that hangs)."""
        process = self._process
        if process is not None and process.poll() is None:
            self._kill_group(process)

    def __enter__(self) -> Engine:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
