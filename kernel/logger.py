"""The two exchange logs: a console log for people and a JSON log for programs.

Both go through one structlog logger, set up as structlog's performance guidance says: a
filtering bound logger (a disabled level costs nothing), `cache_logger_on_first_use`, and a
chain of a single processor that stamps the event once and renders it twice, the console
line as text and the JSON line with orjson, straight to bytes. The "logger" at the end of
the chain writes each rendered event with a single `write` on a file opened with O_APPEND,
so several engines can share one log folder without ever interleaving inside a line, and a
crash or a signal never leaves half an event behind: nothing is buffered.

Events (every one carries `timestamp`, `level`, `event` and `pid`):

- `start`: `version`, `config` (the file), `log_dir`, `board_size`;
- `input`: `id`, `command`, `line` (a line refused for its length: `truncated`, `bytes`);
- `output` (level info) or `error` (level warning for a refused command, error for an
  internal error, which also carries `traceback`): `id`, `command`, `response` or `error`,
  and `duration_us`, the microseconds the engine took to answer;
- `exit`: `reason` (`quit`, `end of input`, `signal`, `output closed`), and `signal` (its name)
  when a signal ended the engine.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sys
import time
from collections.abc import Callable, MutableMapping
from pathlib import Path
from typing import Any

import orjson
import structlog

_OPEN_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_CLOEXEC", 0)

#: The most digits an id may have to be logged as a JSON number.
MAX_INT_DIGITS = 4000

#: How much of a refused over-long line the logs keep.
LOGGED_PREFIX = 200


def write_stderr(text: str) -> None:
    """Write a line to stderr if there is one; a closed or broken stderr is no reason to fail."""
    if sys.stderr is None:  # fd 2 was closed when the engine started
        return
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.write(text + "\n")
        sys.stderr.flush()


class LogWarning:
    """Print at most one warning on stderr for all the logs of one engine."""

    def __init__(self) -> None:
        self.given = False

    def warn(self, message: str) -> None:
        """Warn about a log that cannot be written, unless a warning was given already."""
        if not self.given:
            self.given = True
            write_stderr(f"cubemate: warning: {message}; answering without this log")


class AppendOnlyFile:
    """A log file written one whole event at a time, appended, never buffered."""

    def __init__(self, path: Path, warning: LogWarning, echo: bool = False) -> None:
        self.path = path
        self.trouble = warning
        self.echo = echo
        self.fd: int | None = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.fd = os.open(path, _OPEN_FLAGS, 0o644)
        except OSError as error:
            warning.warn(f"cannot open log {path}: {error.strerror}")

    def write(self, data: bytes) -> None:
        """Append one rendered event, newline included; a failure disables this log after
        a single warning."""
        if self.echo:
            write_stderr(data.decode("utf-8", errors="replace").rstrip("\n"))
        if self.fd is None:
            return
        try:
            # One write holds the whole event; the loop only matters for a short write,
            # which O_APPEND on a local file does not give short of a full disk.
            while data:
                written = os.write(self.fd, data)
                data = data[written:]
        except OSError as error:
            self.trouble.warn(f"cannot write log {self.path}: {error.strerror}")
            self.close()

    def msg(self, message: str) -> None:
        """Append one event rendered as text (the structlog logger interface)."""
        self.write((message + "\n").encode("utf-8", errors="replace"))

    info = warning = error = msg

    def close(self) -> None:
        if self.fd is not None:
            fd, self.fd = self.fd, None
            with contextlib.suppress(OSError):
                os.close(fd)


class BothFiles:
    """The end of the processor chain: write an event's console and JSON renderings."""

    def __init__(self, console: AppendOnlyFile, json_file: AppendOnlyFile) -> None:
        self.console = console
        self.json = json_file

    def write(self, console: bytes, json_line: bytes) -> None:
        """Append the console lines to one file and the JSON line to the other."""
        self.console.write(console)
        self.json.write(json_line)

    info = warning = error = write


class Stamper:
    """ISO 8601 UTC timestamps with microseconds, the date and time part cached per second."""

    def __init__(self) -> None:
        self.second = -1
        self.prefix = ""

    def now(self) -> str:
        """Return the current time as `2026-11-29T21:07:37.295455Z`."""
        second, nanoseconds = divmod(time.time_ns(), 1_000_000_000)
        if second != self.second:
            self.second = second
            self.prefix = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
        return f"{self.prefix}.{nanoseconds // 1000:06d}Z"


def dump_json(event: MutableMapping[str, Any]) -> bytes:
    """Render an event as one JSON line with orjson; the standard library takes what orjson
    refuses (an id beyond 64 bits, a lone surrogate), so the content is always the same."""
    try:
        return orjson.dumps(event, option=orjson.OPT_APPEND_NEWLINE)
    except TypeError:  # orjson.JSONEncodeError is a TypeError
        return dump_json_stdlib(event)


def dump_json_stdlib(event: MutableMapping[str, Any]) -> bytes:
    """Render an event as one JSON line with the standard library's json."""
    return (json.dumps(event, ensure_ascii=False) + "\n").encode("utf-8", errors="replace")


class Renderer:
    """The one processor: stamp the event, then render the console text and the JSON line."""

    def __init__(self, pid: int, dumps: Callable[[MutableMapping[str, Any]], bytes] = dump_json):
        self.stamper = Stamper()
        self.dumps = dumps
        # The console log names the engine in every line, as the JSON log does with `pid`.
        self.tag = f" [{pid}] "

    def __call__(
        self, _logger: Any, method_name: str, event: MutableMapping[str, Any]
    ) -> tuple[tuple[bytes, bytes], dict[str, Any]]:
        stamp = self.stamper.now()
        text: str = event.pop("text")
        event["level"] = method_name
        event["timestamp"] = stamp
        prefix = stamp + self.tag
        if "\n" in text:
            console = "\n".join(prefix + line for line in text.split("\n")) + "\n"
        else:
            console = prefix + text + "\n"
        return (console.encode("utf-8", errors="replace"), self.dumps(event)), {}


def json_id(command_id: str | None) -> int | str | None:
    """Give the id as the number it is, for programs that read the JSON log."""
    if command_id is None:
        return None
    # An absurdly long id stays text: int() refuses numbers of over 4300 digits.
    return int(command_id) if len(command_id) <= MAX_INT_DIGITS else command_id


class ExchangeLog:
    """Write every exchange of the engine, and its start and exit, to both logs."""

    def __init__(
        self,
        log_dir: Path,
        console_name: str,
        json_name: str,
        echo_stderr: bool = False,
        dumps: Callable[[MutableMapping[str, Any]], bytes] = dump_json,
    ) -> None:
        """Open both logs; `dumps` renders the JSON line (another only to measure it)."""
        self.trouble = LogWarning()
        self.console_file = AppendOnlyFile(log_dir / console_name, self.trouble, echo_stderr)
        self.json_file = AppendOnlyFile(log_dir / json_name, self.trouble)
        pid = os.getpid()
        self.log = structlog.wrap_logger(
            BothFiles(self.console_file, self.json_file),
            processors=[Renderer(pid, dumps)],
            wrapper_class=structlog.make_filtering_bound_logger(logging.INFO),
            cache_logger_on_first_use=True,
        ).bind(pid=pid)

    def start(self, version: str, config: Path, log_dir: Path, board_size: int) -> None:
        """Log the engine's start: what it is and what it was set up with."""
        self.log.info(
            "start",
            text=f"start: cubemate {version}, config {config}, logs in {log_dir}, "
            f"board size {board_size}",
            version=version,
            config=str(config),
            log_dir=str(log_dir),
            board_size=board_size,
        )

    def exit(self, reason: str, signal_name: str | None = None) -> None:
        """Log the engine's exit and why: quit, end of input, a signal, or output closed."""
        if signal_name is None:
            self.log.info("exit", text=f"exit: {reason}", reason=reason)
        else:
            self.log.info(
                "exit", text=f"exit: {reason} {signal_name}", reason=reason, signal=signal_name
            )

    def input(self, line: str, command_id: str | None, command: str | None) -> None:
        """Log a line that came in."""
        self.log.info("input", text=f"# {line}", id=json_id(command_id), command=command, line=line)

    def too_long(self, prefix: str, size: int, command_id: str | None = None) -> None:
        """Log a line refused for its length, keeping only its beginning."""
        shown = prefix[:LOGGED_PREFIX]
        self.log.info(
            "input",
            text=f"# {shown}... ({size} bytes)",
            id=json_id(command_id),
            command=None,
            line=shown,
            truncated=True,
            bytes=size,
        )

    def output(
        self,
        response: str,
        command_id: str | None,
        command: str | None,
        ok: bool,
        traceback: str | None = None,
        duration_us: int | None = None,
    ) -> None:
        """Log a response that went out: `output` for a success, `error` for a refusal
        (level warning) or an internal error (level error, with the traceback)."""
        text = response.rstrip("\n")
        number = json_id(command_id)
        if ok:
            self.log.info(
                "output",
                text=text,
                id=number,
                command=command,
                response=text,
                duration_us=duration_us,
            )
        elif traceback is None:
            self.log.warning(
                "error", text=text, id=number, command=command, error=text, duration_us=duration_us
            )
        else:
            self.log.error(
                "error",
                text=f"{text}\n{traceback.rstrip()}",
                id=number,
                command=command,
                error=text,
                traceback=traceback,
                duration_us=duration_us,
            )

    def event(self, name: str, fields: dict[str, Any]) -> None:
        """Log an event beside the exchanges, such as genmove's `search`, with its fields."""
        summary = " ".join(f"{key} {value}" for key, value in fields.items() if key != "pv")
        self.log.info(name, text=f"{name}: {summary}", **fields)

    def close(self) -> None:
        """Close both files; nothing is buffered, so nothing can be lost here."""
        self.console_file.close()
        self.json_file.close()
