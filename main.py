"""cubemate: read protocol lines on stdin, answer each on stdout, log every exchange.

python main.py [--config FILE] [--log-dir DIR]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from types import FrameType
from typing import BinaryIO, NamedTuple, NoReturn

from kernel.config import ConfigError, EngineConfig, load_config
from kernel.kernel import COMMANDS, Kernel
from kernel.logger import LOGGED_PREFIX, ExchangeLog
from kernel.protocol import frame, line_too_long, prepare_line

HERE = Path(__file__).resolve().parent
DEFAULT_CONFIG = HERE / "engine_config.toml"
HISTORY_FILE = Path.home() / ".cubemate_history"
#: How much of an over-long line is read at a time while it is thrown away.
DISCARD_CHUNK = 1 << 16


class OneLineErrorParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr and exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"cubemate: {message} (try --help)\n")


def parse_arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = OneLineErrorParser(
        prog="main.py", description="cubemate: is the white king checkmated on an n×n×n board?"
    )
    parser.add_argument("--config", type=Path, default=DEFAULT_CONFIG, help="config file")
    parser.add_argument("--log-dir", type=Path, help="folder for both logs (overrides config)")
    return parser.parse_args(argv)


class TooLong(NamedTuple):
    """A line that exceeded the limit: its first bytes and its full size."""

    prefix: bytes
    size: int


def pipe_lines(stream: BinaryIO, limit: int) -> Iterator[bytes | TooLong]:
    """Yield input lines without their newline, holding at most about `limit` bytes."""
    while True:
        chunk = stream.readline(limit + 1)
        if not chunk:
            return
        if chunk.endswith(b"\n") or len(chunk) <= limit:
            yield chunk.removesuffix(b"\n")
            continue
        # Too long: keep only the beginning for the logs and throw the rest away in pieces.
        prefix, size = chunk[:LOGGED_PREFIX], len(chunk)
        while not chunk.endswith(b"\n"):
            chunk = stream.readline(DISCARD_CHUNK)
            if not chunk:
                break
            size += len(chunk)
        yield TooLong(prefix, size)


def terminal_lines(limit: int) -> Iterator[bytes | TooLong]:
    """Yield lines typed at a terminal, with line editing, history and tab-completion."""
    import readline

    names = [spec.name for spec in COMMANDS]

    def complete(text: str, state: int) -> str | None:
        matches = [name + " " for name in names if name.startswith(text)]
        return matches[state] if state < len(matches) else None

    readline.set_completer(complete)
    readline.set_completer_delims(" ")
    readline.parse_and_bind("tab: complete")
    with contextlib.suppress(OSError):
        readline.read_history_file(HISTORY_FILE)
    try:
        while True:
            try:
                line = input().encode("utf-8", errors="surrogateescape")
            except EOFError:
                return
            yield line if len(line) <= limit else TooLong(line[:LOGGED_PREFIX], len(line))
    finally:
        with contextlib.suppress(OSError):
            readline.write_history_file(HISTORY_FILE)


def serve(
    kernel: Kernel, log: ExchangeLog, lines: Iterator[bytes | TooLong], out: BinaryIO
) -> None:
    """Answer every line until `quit` or the end of input."""
    limit = kernel.config.max_line_bytes
    for raw in lines:
        if isinstance(raw, TooLong):
            log.too_long(prepare_line(raw.prefix), raw.size)
            response = frame(None, line_too_long(limit))
            out.write(response.encode())
            out.flush()
            log.output(response, None, None, ok=False)
            continue
        line = prepare_line(raw)
        exchange = kernel.respond(line)
        if exchange is None:
            continue
        command, reply = exchange.command, exchange.reply
        log.input(line, command.id, command.name)
        out.write(exchange.response.encode())
        out.flush()
        log.output(exchange.response, command.id, command.name, reply.ok, reply.traceback)
        if kernel.quit_requested:
            return


class Terminated(Exception):
    """SIGTERM arrived: end quietly, like Ctrl-C."""


def on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise Terminated


def silence_stdout() -> None:
    """Point stdout at /dev/null so that the exit's flush of a closed pipe stays quiet."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def main(argv: list[str] | None = None) -> int:
    arguments = parse_arguments(argv)
    config_path: Path = arguments.config
    try:
        config: EngineConfig = load_config(config_path)
    except ConfigError as error:
        print(f"cubemate: config error: {error}", file=sys.stderr)
        return 2
    # A log folder in the config is relative to the config file, one on the command line to
    # the current folder, as each reader would expect.
    log_dir = arguments.log_dir or (config_path.resolve().parent / config.log_dir)
    config = replace(config, log_dir=str(log_dir))
    log = ExchangeLog(Path(config.log_dir), config.console_log, config.json_log, config.echo_stderr)
    kernel = Kernel(config)
    signal.signal(signal.SIGTERM, on_sigterm)
    interactive = sys.stdin.isatty()
    limit = config.max_line_bytes
    lines = terminal_lines(limit) if interactive else pipe_lines(sys.stdin.buffer, limit)
    try:
        serve(kernel, log, lines, sys.stdout.buffer)
    except (KeyboardInterrupt, Terminated):
        pass
    except BrokenPipeError:
        silence_stdout()
    finally:
        log.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
