"""Profile the engine's serve loop on one benchmark workload, in process, logs on.

python -m bench.hotspots WORKLOAD [--count N] [--top N] [--cpu]

WORKLOAD: reference, crowded8, mixed16, large64 (the engine-against-floor rows of `make
bench`), or cube5, raumschach, cube5-page, raumschach-page (bench.raumschach's: game
positions from each 5³ start, asked checkmate or the GUI page's batch).

The loop is main.serve itself, fed from memory and writing both logs to a temporary folder,
so the profile covers protocol, parsing, rules and logging as the real process runs them.
With --cpu, no profile: the CPU time of a position through main.serve, through the floor's
loop (bench.floor.serve) and through Kernel.execute alone (no protocol text, no logs), the
best of three passes each, and the ratio of the first two: the engine-against-floor figure
without pipes, which a machine shared with other processes moves little.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench.workloads import Workload, crowded_8, large_64, mixed_16, reference_cases
from kernel.config import EngineConfig
from kernel.kernel import Kernel
from kernel.logger import ExchangeLog
from main import pipe_lines, serve


def games(variant_name: str, page: bool) -> Callable[[int], Workload]:
    """Make bench.raumschach's workload of one start's game positions."""

    def make(count: int) -> Workload:
        from bench.raumschach import PAGE_ASKS, games_workload

        return games_workload(variant_name, PAGE_ASKS if page else ("checkmate",), count)

    return make


WORKLOADS: dict[str, tuple[Callable[[int], Workload], int]] = {
    "reference": (reference_cases, 6000),
    "crowded8": (crowded_8, 1500),
    "mixed16": (mixed_16, 1500),
    "large64": (large_64, 50),
    "cube5": (games("cube", page=False), 1000),
    "raumschach": (games("raumschach", page=False), 1000),
    "cube5-page": (games("cube", page=True), 300),
    "raumschach-page": (games("raumschach", page=True), 300),
}


def profile(workload: Workload) -> pstats.Stats:
    """Serve the workload once under cProfile and return the statistics."""
    config = EngineConfig()
    with tempfile.TemporaryDirectory(prefix="cubemate-hotspots-") as folder:
        log = ExchangeLog(Path(folder), config.console_log, config.json_log)
        kernel = Kernel(config)
        # pipe_lines reads a file descriptor, as the engine reads stdin.
        script = Path(folder) / "input"
        script.write_bytes(workload.preamble_lines() + workload.payload())
        fd = os.open(script, os.O_RDONLY)
        lines = pipe_lines(fd, config.max_line_bytes)
        out = io.BytesIO()
        profiler = cProfile.Profile()
        profiler.enable()
        serve(kernel, log, lines, out)
        profiler.disable()
        os.close(fd)
        log.close()
    return pstats.Stats(profiler, stream=sys.stdout)


def serve_cpu(workload: Workload, floor: bool) -> float:
    """The CPU seconds (this thread's) of one pass of the workload through the engine's serve
    loop, or the floor's, each writing its logs to a temporary folder."""
    from bench.floor import PlainExchangeLog
    from bench.floor import serve as floor_serve

    config = EngineConfig()
    with tempfile.TemporaryDirectory(prefix="cubemate-hotspots-") as folder:
        script = Path(folder) / "input"
        script.write_bytes(workload.preamble_lines() + workload.payload())
        if floor:
            plain = PlainExchangeLog(Path(folder), config.console_log, config.json_log)
            with script.open("rb") as lines:
                began = time.thread_time()
                floor_serve(plain, lines, io.BytesIO())
                spent = time.thread_time() - began
            plain.close()
            return spent
        log = ExchangeLog(Path(folder), config.console_log, config.json_log)
        kernel = Kernel(config)
        fd = os.open(script, os.O_RDONLY)
        began = time.thread_time()
        serve(kernel, log, pipe_lines(fd, config.max_line_bytes), io.BytesIO())
        spent = time.thread_time() - began
        os.close(fd)
        log.close()
        return spent


def kernel_cpu(workload: Workload) -> float:
    """The CPU seconds (this thread's) of one pass of the workload through Kernel.execute: the
    chess alone, without protocol text or logs."""
    kernel = Kernel(EngineConfig())
    for line in workload.preamble:
        name, *args = line.split()
        kernel.execute(name, args)
    asked = [(line.split()[0], line.split()[1:]) for line in workload.asks]
    began = time.thread_time()
    for board in workload.positions:
        kernel.execute("set_board", board.split(" "))
        for name, args in asked:
            kernel.execute(name, args)
    return time.thread_time() - began


def main(argv: list[str] | None = None) -> int:
    """Profile one workload and print the top functions by own time and by total time."""
    parser = argparse.ArgumentParser(prog="python -m bench.hotspots", description=__doc__)
    parser.add_argument("workload", choices=sorted(WORKLOADS))
    parser.add_argument("--count", type=int, help="positions (default: as in the full bench)")
    parser.add_argument("--top", type=int, default=20, help="functions to show per listing")
    parser.add_argument(
        "--cpu", action="store_true", help="CPU time a position, engine and floor, no profile"
    )
    arguments = parser.parse_args(argv)
    make, default_count = WORKLOADS[arguments.workload]
    workload = make(arguments.count or default_count)
    if arguments.cpu:
        count = len(workload.positions)
        engine = min(serve_cpu(workload, floor=False) for _ in range(3)) / count
        plain = min(serve_cpu(workload, floor=True) for _ in range(3)) / count
        chess = min(kernel_cpu(workload) for _ in range(3)) / count
        print(
            f"{workload.label}: {count} positions, CPU a position (best of 3): engine "
            f"{engine * 1e6:,.1f} µs, floor {plain * 1e6:,.1f} µs, "
            f"engine/floor {engine / plain:.2f}×; Kernel.execute alone {chess * 1e6:,.1f} µs"
        )
        return 0
    stats = profile(workload)
    print(f"{workload.label}: {len(workload.positions)} positions\n")
    for key in ("tottime", "cumulative"):
        stats.sort_stats(key).print_stats(arguments.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
