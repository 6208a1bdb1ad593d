"""What logging costs per exchange: the engine's logger against a plain structlog set-up.

python -m bench.logcost [--quick]

One exchange is what the engine logs for one answered line: an `input` event and an `output`
event, each in both logs (four lines, four writes). The exchanges are those of the streamed
benchmark (`set_board <board>` answered `= `, then `checkmate` answered `= true`), written to
files in a temporary folder, in the same process, with nothing else going on. Rounds
alternate between the set-ups; each figure is the median over the rounds.

- plain: bench.floor.PlainExchangeLog, structlog as usually set up: one logger per file,
  TimeStamper, add_log_level and JSONRenderer (the standard library's json);
- engine: kernel.logger.ExchangeLog: one structlog logger, one processor that stamps once
  and renders both lines, orjson for the JSON line;
- engine, stdlib json: the same with the standard library's json instead of orjson, to show
  what orjson itself wins (it is a dependency only because it does).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, MutableMapping
from pathlib import Path
from typing import Any

from bench.floor import PlainExchangeLog
from kernel.logger import ExchangeLog, dump_json, dump_json_stdlib
from tests.cases import REFERENCE_CASES

#: (line, response) pairs, cycled: the streamed benchmark's two lines per position.
EXCHANGES = [
    pair
    for case in REFERENCE_CASES
    for pair in ((f"set_board {case.board}", "= \n\n"), ("checkmate", "= true\n\n"))
]

Run = Callable[[Path, int], float]


def time_plain(folder: Path, count: int) -> float:
    """Seconds to log `count` exchanges through the plain set-up."""
    log = PlainExchangeLog(folder, "plain.log", "plain.jsonl")
    exchanges = (EXCHANGES * (count // len(EXCHANGES) + 1))[:count]
    began = time.perf_counter()
    for line, response in exchanges:
        name = line.split(" ", 1)[0]
        log.input(line, None, name)
        log.output(response, None, name, 12)
    elapsed = time.perf_counter() - began
    log.close()
    return elapsed


def engine_timer(name: str, dumps: Callable[[MutableMapping[str, Any]], bytes] = dump_json) -> Run:
    """A timer for the engine's ExchangeLog, rendering JSON with `dumps`."""

    def run(folder: Path, count: int) -> float:
        log = ExchangeLog(folder, f"{name}.log", f"{name}.jsonl", dumps=dumps)
        exchanges = (EXCHANGES * (count // len(EXCHANGES) + 1))[:count]
        began = time.perf_counter()
        for line, response in exchanges:
            command = line.split(" ", 1)[0]
            log.input(line, None, command)
            log.output(response, None, command, True, None, 12)
        elapsed = time.perf_counter() - began
        log.close()
        return elapsed

    return run


SETUPS: list[tuple[str, Run]] = [
    ("plain structlog (the floor's)", time_plain),
    ("engine: one chain, orjson", engine_timer("engine")),
    ("engine, stdlib json", engine_timer("stdlib", dumps=dump_json_stdlib)),
]


def run(quick: bool = False) -> str:
    """Measure every set-up and return the table, with the engine's ratio to plain."""
    rounds, count = (1, 500) if quick else (9, 20_000)
    times: dict[str, list[float]] = {name: [] for name, _ in SETUPS}
    with tempfile.TemporaryDirectory(prefix="cubemate-logcost-") as folder:
        for _name, timer in SETUPS:  # warm up: imports, caches, the first file creation
            timer(Path(folder), 200)
        for _ in range(rounds):
            for name, timer in SETUPS:
                times[name].append(timer(Path(folder), count) / count * 1e6)
    plain = statistics.median(times[SETUPS[0][0]])
    lines = [
        f"Logging cost per exchange (input + output, both logs), median of {rounds} rounds "
        f"of {count:,} exchanges",
        "",
        f"{'set-up':<32}  {'µs/exchange':>11}  {'vs plain':>8}",
        f"{'-' * 32}  {'-' * 11}  {'-' * 8}",
    ]
    for name, _ in SETUPS:
        cost = statistics.median(times[name])
        lines.append(f"{name:<32}  {cost:>11.2f}  {cost / plain:>7.2f}×")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Print the table."""
    parser = argparse.ArgumentParser(prog="python -m bench.logcost", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small counts, for a smoke test")
    print(run(parser.parse_args(argv).quick))
    return 0


if __name__ == "__main__":
    sys.exit(main())
