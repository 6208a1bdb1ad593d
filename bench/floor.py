"""The floor: a bare protocol loop that answers without thinking but logs like the engine.

python -m bench.floor [--log-dir DIR]

It reads each line, answers `checkmate` with `= false`, `protocol_version` with `= 2` and
everything else with `= `, and writes both exchange logs through a plain structlog set-up
(PlainExchangeLog: one logger per file, structlog's own TimeStamper, add_log_level and
JSONRenderer, the same fields per event). What it costs is what a Python engine with these
logs pays per line when it logs the ordinary way; the benchmark divides the engine's time by
it, so an engine that logs faster than the plain set-up can come in under 1.0×.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any, BinaryIO

import structlog

from kernel.config import load_config
from kernel.logger import AppendOnlyFile, LogWarning, json_id

CONFIG = Path(__file__).resolve().parent.parent / "engine_config.toml"
ANSWERS = {"checkmate": "false", "protocol_version": "2"}


def render_console(_: Any, __: str, event: MutableMapping[str, Any]) -> str:
    """Render an event as timestamped text: input as `# line`, output as the response."""
    prefix = f"{event['timestamp']} [{event['pid']}] "
    text: str = event["text"]
    return "\n".join(prefix + line for line in text.split("\n"))


class PlainExchangeLog:
    """Both exchange logs the plain structlog way: a processor chain per file."""

    def __init__(self, log_dir: Path, console_name: str, json_name: str) -> None:
        trouble = LogWarning()
        self.console_file = AppendOnlyFile(log_dir / console_name, trouble)
        self.json_file = AppendOnlyFile(log_dir / json_name, trouble)
        stamper = structlog.processors.TimeStamper(fmt="iso", utc=True)
        wrapper = structlog.make_filtering_bound_logger(logging.INFO)
        pid = os.getpid()
        self.console = structlog.wrap_logger(
            self.console_file,
            processors=[stamper, render_console],
            wrapper_class=wrapper,
            cache_logger_on_first_use=True,
        ).bind(pid=pid)
        self.json = structlog.wrap_logger(
            self.json_file,
            processors=[
                structlog.processors.add_log_level,
                stamper,
                structlog.processors.JSONRenderer(),
            ],
            wrapper_class=wrapper,
            cache_logger_on_first_use=True,
        ).bind(pid=pid)

    def input(self, line: str, command_id: str | None, command: str | None) -> None:
        """Log a line that came in."""
        self.console.info("input", text=f"# {line}")
        self.json.info("input", id=json_id(command_id), command=command, line=line)

    def output(
        self, response: str, command_id: str | None, command: str | None, duration_us: int
    ) -> None:
        """Log a successful response that went out, with the time it took."""
        text = response.rstrip("\n")
        self.console.info("output", text=text)
        self.json.info(
            "output",
            id=json_id(command_id),
            command=command,
            response=text,
            duration_us=duration_us,
        )

    def close(self) -> None:
        self.console_file.close()
        self.json_file.close()


def serve(log: PlainExchangeLog, lines: BinaryIO, out: BinaryIO) -> None:
    """Answer every line until `quit` or the end of input, logging each exchange."""
    for raw in lines:
        line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
        # No id handling: the benchmark sends none, and a floor should do no more than needed.
        name = line.split(" ", 1)[0]
        if not name:
            continue
        response = f"= {ANSWERS.get(name, '')}\n\n"
        log.input(line, None, name)
        out.write(response.encode())
        out.flush()
        log.output(response, None, name, 0)
        if name == "quit":
            return


def main() -> int:
    """Read the engine's config and serve stdin with the engine's logs."""
    parser = argparse.ArgumentParser(prog="bench.floor", description=__doc__)
    parser.add_argument("--log-dir", type=Path, help="folder for both logs")
    arguments = parser.parse_args()
    config = load_config(CONFIG)
    log_dir: Path = arguments.log_dir or CONFIG.parent / config.log_dir
    log = PlainExchangeLog(log_dir, config.console_log, config.json_log)
    try:
        serve(log, sys.stdin.buffer, sys.stdout.buffer)
    finally:
        log.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
