"""The floor: a bare protocol loop that answers without thinking but logs like the engine.

python -m bench.floor [--log-dir DIR]

It reads each line, answers `checkmate` with `= false`, `protocol_version` with `= 2` and
everything else with `= `, and writes both exchange logs through kernel.logger.ExchangeLog,
configured and called exactly as main.py does. What it costs is the least any Python engine
with these logs pays per line; the benchmark divides the engine's time by it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import BinaryIO

from kernel.config import load_config
from kernel.logger import ExchangeLog

CONFIG = Path(__file__).resolve().parent.parent / "engine_config.toml"
ANSWERS = {"checkmate": "false", "protocol_version": "2"}


def serve(log: ExchangeLog, lines: BinaryIO, out: BinaryIO) -> None:
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
        log.output(response, None, name, True)
        if name == "quit":
            return


def main() -> int:
    """Read the engine's config and serve stdin with the engine's logs."""
    parser = argparse.ArgumentParser(prog="bench.floor", description=__doc__)
    parser.add_argument("--log-dir", type=Path, help="folder for both logs")
    arguments = parser.parse_args()
    config = load_config(CONFIG)
    log_dir: Path = arguments.log_dir or CONFIG.parent / config.log_dir
    log = ExchangeLog(log_dir, config.console_log, config.json_log, config.echo_stderr)
    try:
        serve(log, sys.stdin.buffer, sys.stdout.buffer)
    finally:
        log.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
