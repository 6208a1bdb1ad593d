"""cubemate benchmarks: python -m bench [--quick]

Throughput and latency through the engine process against a floor that only reads, answers
and logs; the logging cost; checkmate in process against the brute force of
tests/reference.py; perft against python-chess; mate in 2 and 3 against the brute force, and
mate in 3, 4 and 5 by df-pn against the AND/OR search; selfmates and helpmates in 3 beside
the brute force; an endgame table's probe in process and `tb_probe` through the engine
beside `status`; the peak memory of mate_in 3 and perft 3 at n = 64; the memory and time of
a game's history at n = 8 and 64; batch positions per second on 1 and 2 workers and on Dask;
the player (`genmove`): its compiled search's speed and depth beside the Python one's, a
move at n = 64, its time use under a clock, its memory, and mates; start-up against a bare
`import structlog`; the GUI's 3D view in Chromium. Each goal is reported PASS or MISS; a
timing never makes the run fail. Progress goes to stderr, the tables to stdout.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from kernel.dependencies import refuse_missing

try:
    from bench import batch as batch_bench
    from bench import (
        compare,
        gui3d,
        history,
        inprocess,
        logcost,
        mate,
        memory,
        perft,
        play,
        report,
        startup,
        stipulations,
    )
    from bench import raumschach as raumschach_bench
    from bench import tablebase as tablebase_bench
    from bench.workloads import SEED, crowded_8, large_64, mixed_16, reference_cases
except ModuleNotFoundError as missing:  # a Python without the set-up's packages: one line
    refuse_missing("bench", missing)


@dataclass(frozen=True, slots=True)
class Settings:
    """How much to measure."""

    name: str
    rounds: int
    reference_positions: int
    crowded_positions: int
    mixed_positions: int
    large_positions: int
    positions_per_size: int
    repeats: int
    #: Seconds of brute force allowed per in-process row.
    reference_budget: float
    startup_runs: int
    #: Plies taken off each perft case's depth (the quick run counts shallower trees).
    perft_shallower: int


FULL = Settings(
    name="full run",
    rounds=9,
    reference_positions=6000,
    crowded_positions=1500,
    mixed_positions=1500,
    large_positions=50,
    positions_per_size=30,
    repeats=5,
    reference_budget=2.0,
    startup_runs=9,
    perft_shallower=0,
)
# Each count is the least that still runs its section's whole path: twenty reference
# positions check all ten answers twice, one brute-force board per row checks checkmate.
QUICK = Settings(
    name="quick run (small counts: a smoke test, not a measurement)",
    rounds=1,
    reference_positions=20,
    crowded_positions=10,
    mixed_positions=10,
    large_positions=2,
    positions_per_size=2,
    repeats=1,
    reference_budget=0.01,
    startup_runs=1,
    perft_shallower=1,
)


def progress(message: str) -> None:
    """Tell the person waiting what is being measured."""
    print(message, file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    """Run every benchmark and print the tables."""
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small counts, for a smoke test")
    parser.add_argument("--sunfish", type=Path, help="sunfish.py, measured beside the player")
    args = parser.parse_args(argv)
    settings = QUICK if args.quick else FULL
    began = time.perf_counter()
    print(f"cubemate benchmarks: {settings.name}, seed {SEED}")
    print(report.machine())
    print(flush=True)

    progress("generating positions")
    workloads = [
        (reference_cases(settings.reference_positions), False),
        (crowded_8(settings.crowded_positions), False),
        (mixed_16(settings.mixed_positions), False),
        (large_64(settings.large_positions), True),
    ]
    progress("engine against floor")
    comparisons = compare.compare(workloads, settings.rounds)
    print(report.process_section(comparisons, settings.rounds), end="\n\n", flush=True)

    progress("logging cost")
    print(logcost.run(quick=settings is QUICK), end="\n\n", flush=True)

    progress("in process")
    timings = inprocess.measure(
        settings.positions_per_size,
        settings.repeats,
        settings.reference_budget,
        quick=settings is QUICK,
    )
    print(report.inprocess_section(timings, settings.repeats), end="\n\n", flush=True)

    progress("perft")
    perft_text, perft_ratio = perft.section(
        perft.engine_perft(perft.shallower(settings.perft_shallower), settings.repeats),
        perft.python_chess_perft(settings.repeats),
        settings.repeats,
    )
    print(perft_text, end="\n\n", flush=True)

    progress("mate in N")
    mate_text, mate_goals = mate.section(quick=settings is QUICK)
    print(mate_text, end="\n\n", flush=True)

    progress("selfmates and helpmates")
    stipulation_text, stipulation_goals = stipulations.section(quick=settings is QUICK)
    print(stipulation_text, end="\n\n", flush=True)

    progress("endgame tables")
    tablebase_text, tablebase_goals = tablebase_bench.section(quick=settings is QUICK)
    print(tablebase_text, end="\n\n", flush=True)

    progress("memory at n = 64")
    memory_text, memory_goals = memory.section(quick=settings is QUICK)
    print(memory_text, end="\n\n", flush=True)

    progress("history")
    history_text, history_goals = history.section(quick=settings is QUICK)
    print(history_text, end="\n\n", flush=True)

    progress("batch")
    print(batch_bench.run(quick=settings is QUICK), end="\n\n", flush=True)

    progress("player")
    play_text, play_goals = play.section(quick=settings is QUICK, sunfish=args.sunfish)
    print(play_text, end="\n\n", flush=True)

    progress("raumschach")
    raumschach_text, raumschach_goals = raumschach_bench.section(quick=settings is QUICK)
    print(raumschach_text, end="\n\n", flush=True)

    progress("the GUI's 3D view")
    gui_text, gui_goals = gui3d.section(quick=settings is QUICK)
    print(gui_text, end="\n\n", flush=True)

    progress("start-up")
    launches = startup.measure(settings.startup_runs)
    print(report.startup_section(launches), end="\n\n")
    found = report.goals(comparisons, timings, launches)
    found.append(report.perft_goal(perft_ratio))
    found.extend(mate_goals)
    found.extend(stipulation_goals)
    found.extend(tablebase_goals)
    found.extend(history_goals)
    found.extend(play_goals)
    found.extend(memory_goals)
    found.extend(raumschach_goals)
    found.extend(gui_goals)
    print(report.goals_section(found), end="\n\n")
    print(f"total time {time.perf_counter() - began:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
