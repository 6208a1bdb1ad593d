"""The two exchange logs: a console log for people and a JSON log for programs.

Both go through structlog. Each event is rendered to one complete line (or block of lines)
and written with a single `write` on a file opened with O_APPEND, so several engines can
share one log folder without ever interleaving inside a line, and a crash or a signal never
leaves half an event behind: nothing is buffered.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any

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
    """A structlog logger that appends each rendered event to a file in one write."""

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

    def msg(self, message: str) -> None:
        """Write one event; a failure disables this log after a single warning."""
        data = (message + "\n").encode("utf-8", errors="replace")
        if self.echo:
            write_stderr(message)
        if self.fd is None:
            return
        try:
            while data:
                written = os.write(self.fd, data)
                data = data[written:]
        except OSError as error:
            self.trouble.warn(f"cannot write log {self.path}: {error.strerror}")
            self.close()

    info = error = warning = msg

    def close(self) -> None:
        if self.fd is not None:
            fd, self.fd = self.fd, None
            with contextlib.suppress(OSError):
                os.close(fd)


def render_console(_: Any, __: str, event: MutableMapping[str, Any]) -> str:
    """Render an event as timestamped text: input as `# line`, output as the response."""
    stamp = event["timestamp"]
    text: str = event["text"]
    return "\n".join(f"{stamp} {line}" for line in text.split("\n"))


def json_id(command_id: str | None) -> int | str | None:
    """Give the id as the number it is, for programs that read the JSON log."""
    if command_id is None:
        return None
    # An absurdly long id stays text: int() refuses numbers of over 4300 digits.
    return int(command_id) if len(command_id) <= MAX_INT_DIGITS else command_id


class ExchangeLog:
    """Write every exchange of the engine to the console log and the JSON log."""

    def __init__(
        self, log_dir: Path, console_name: str, json_name: str, echo_stderr: bool = False
    ) -> None:
        self.trouble = LogWarning()
        self.console_file = AppendOnlyFile(log_dir / console_name, self.trouble, echo_stderr)
        self.json_file = AppendOnlyFile(log_dir / json_name, self.trouble)
        stamper = structlog.processors.TimeStamper(fmt="iso", utc=True)
        wrapper = structlog.make_filtering_bound_logger(logging.INFO)
        self.console = structlog.wrap_logger(
            self.console_file,
            processors=[stamper, render_console],
            wrapper_class=wrapper,
            cache_logger_on_first_use=True,
        )
        self.json = structlog.wrap_logger(
            self.json_file,
            processors=[
                structlog.processors.add_log_level,
                stamper,
                structlog.processors.JSONRenderer(),
            ],
            wrapper_class=wrapper,
            cache_logger_on_first_use=True,
        ).bind(pid=os.getpid())

    def input(self, line: str, command_id: str | None, command: str | None) -> None:
        """Log a line that came in."""
        self.console.info("input", text=f"# {line}")
        self.json.info("input", id=json_id(command_id), command=command, line=line)

    def too_long(self, prefix: str, size: int) -> None:
        """Log a line refused for its length, keeping only its beginning."""
        shown = prefix[:LOGGED_PREFIX]
        self.console.info("input", text=f"# {shown}... ({size} bytes)")
        self.json.info("input", id=None, command=None, line=shown, truncated=True, bytes=size)

    def output(
        self,
        response: str,
        command_id: str | None,
        command: str | None,
        ok: bool,
        traceback: str | None = None,
    ) -> None:
        """Log a response that went out; a failure is an `error` event."""
        text = response.rstrip("\n")
        if traceback is not None:
            self.console.error("error", text=f"{text}\n{traceback.rstrip()}")
        else:
            self.console.info("output", text=text)
        number = json_id(command_id)
        if ok:
            self.json.info("output", id=number, command=command, response=text)
        elif traceback is not None:
            self.json.error("error", id=number, command=command, error=text, traceback=traceback)
        else:
            self.json.error("error", id=number, command=command, error=text)

    def close(self) -> None:
        """Close both files; nothing is buffered, so nothing can be lost here."""
        self.console_file.close()
        self.json_file.close()
