"""The two exchange logs: a console log for people and a JSON log for programs.

Both go through one structlog logger, set up as structlog's performance guidance says: a
filtering bound logger (a disabled level costs nothing), `cache_logger_on_first_use`, and a
chain of a single processor that stamps the event once and renders it twice, the console
line as text and the JSON line with orjson, straight to bytes. The "logger" at the end of
the chain is a pair of kernel.logfile files, each written one whole line at a time, shared
safely by several engines, and kept whole through a full disk.

Events (every one carries `timestamp`, `level`, `event` and `pid`):

- `start`: `version`, `config` (the file), `log_dir`, `board_size`;
- `input`, as the line arrives: `id`, `command`, `line` (a line refused for its length:
  `truncated`, `bytes`);
- `output` (level info) or `error` (level warning for a refused command, error for an
  internal error, which also carries `traceback`), as the answer leaves: `id`, `command`,
  `response` or `error`, and `duration_us`, the microseconds the engine took to answer;
- `exit`: `reason` (`quit`, `end of input`, `signal`, `output closed`), and `signal` (its name)
  when a signal ended the engine;
- `dropped` (level warning), in one file only, when it can be written again after it could not:
  `count`, the events lost, and `reason`.

A line that a full disk cut short is overwritten by `{"pid":…,"event":"torn"}` (or `{}`, or
spaces, whichever fits) in the JSON log, `(torn line)` or spaces in the console log.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import time
import types
from collections.abc import Callable, Iterator, MutableMapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson

# The files, and the stderr warning, are logfile's; they are found here too.
from kernel.logfile import AppendOnlyFile as AppendOnlyFile
from kernel.logfile import LogWarning as LogWarning
from kernel.logfile import write_stderr as write_stderr

#: The most digits an id may have to be logged as a JSON number.
MAX_INT_DIGITS = 4000

#: How much of a refused over-long line the logs keep.
LOGGED_PREFIX = 200


class DeferredModule(types.ModuleType):
    """Stand in for a module not yet imported: import it on the first use of a name in it."""

    def __getattr__(self, name: str) -> Any:
        # The stand-in leaves sys.modules first, so that the import finds the real module.
        if sys.modules.get(self.__name__) is self:
            del sys.modules[self.__name__]
        return getattr(importlib.import_module(self.__name__), name)


@contextmanager
def asyncio_deferred() -> Iterator[None]:
    """Let what is imported inside take `asyncio` without importing it until first used.

    structlog imports asyncio for its `a`-prefixed log methods, which the engine never
    calls, and asyncio brings ssl, sockets and event loops: a sixth of an engine's start-up
    (0.035 of 0.21 CPU-s here). Inside, `import asyncio` gives a stand-in; outside, the
    stand-in is gone from sys.modules, so every other import gets the real module, and the
    stand-in imports it for the modules that hold it if they ever use it.
    """
    if "asyncio" in sys.modules:
        yield
        return
    stand_in = DeferredModule("asyncio")
    sys.modules["asyncio"] = stand_in
    try:
        yield
    finally:
        if sys.modules.get("asyncio") is stand_in:
            del sys.modules["asyncio"]


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
        # Imported here, not above: structlog is a third of an engine's start-up, which an
        # engine refusing its options or its config need not pay.
        import logging

        with asyncio_deferred():
            import structlog

        self.trouble = LogWarning()
        pid = os.getpid()
        self.pid = pid
        renderer = Renderer(pid, dumps)
        self.stamper = renderer.stamper
        self.dumps = dumps
        self.console_file = AppendOnlyFile(
            log_dir / console_name,
            self.trouble,
            echo_stderr,
            markers=(b"(torn line)",),
            gap_note=self.console_gap_note,
        )
        torn = dumps({"pid": pid, "event": "torn"}).rstrip(b"\n")
        self.json_file = AppendOnlyFile(
            log_dir / json_name, self.trouble, markers=(torn, b"{}"), gap_note=self.json_gap_note
        )
        self.log = structlog.wrap_logger(
            BothFiles(self.console_file, self.json_file),
            processors=[renderer],
            wrapper_class=structlog.make_filtering_bound_logger(logging.INFO),
            cache_logger_on_first_use=True,
        ).bind(pid=pid)

    def console_gap_note(self, count: int, reason: str) -> bytes:
        """The console line that says how many events a log lost, and why."""
        text = f"{self.stamper.now()} [{self.pid}] dropped: {count} events not written ({reason})"
        return (text + "\n").encode("utf-8", errors="replace")

    def json_gap_note(self, count: int, reason: str) -> bytes:
        """The JSON line that says how many events a log lost, and why."""
        return self.dumps(
            {
                "pid": self.pid,
                "count": count,
                "reason": reason,
                "event": "dropped",
                "level": "warning",
                "timestamp": self.stamper.now(),
            }
        )

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
