"""Engine against floor: the same workloads through both, alternating, over several rounds."""

from __future__ import annotations

import sys
from collections.abc import Callable

from bench.peer import KINDS, Comparison, Run, latency, throughput
from bench.workloads import Workload


def compare(workloads: list[tuple[Workload, bool]], rounds: int) -> list[Comparison]:
    """Run every workload through engine and floor in each round, swapping who goes first."""
    comparisons = [Comparison(workload, one_by_one) for workload, one_by_one in workloads]
    for number in range(rounds):
        # Swapping the order each round spreads any drift in machine load over both.
        order = KINDS if number % 2 == 0 else KINDS[::-1]
        for comparison in comparisons:
            print(
                f"  round {number + 1}/{rounds}: {comparison.workload.label}",
                file=sys.stderr,
                flush=True,
            )
            runner: Callable[[str, Workload], Run] = (
                latency if comparison.one_by_one else throughput
            )
            for kind in order:
                comparison.runs[kind].append(runner(kind, comparison.workload))
    return comparisons


def main(argv: list[str] | None = None) -> int:
    """Measure the rows of the floor table and start-up alone, as `make bench` measures them."""
    import argparse

    from bench import report, startup
    from bench.workloads import SEED, crowded_8, large_64, mixed_16, reference_cases

    parser = argparse.ArgumentParser(
        prog="python -m bench.compare",
        description="The engine against the floor, and start-up, as in `make bench` (issue 60)",
    )
    parser.add_argument("--rounds", type=int, default=9, help="rounds of each workload")
    parser.add_argument("--launches", type=int, default=9, help="start-up launches of each")
    arguments = parser.parse_args(argv)
    print(f"cubemate engine against floor, seed {SEED}")
    print(report.machine(), end="\n\n", flush=True)
    workloads = [
        (reference_cases(6000), False),
        (crowded_8(1500), False),
        (mixed_16(1500), False),
        (large_64(50), True),
    ]
    comparisons = compare(workloads, arguments.rounds)
    print(report.process_section(comparisons, arguments.rounds), end="\n\n", flush=True)
    launches = startup.measure(arguments.launches)
    print(report.startup_section(launches), end="\n\n")
    found = [goal for goal in map(report.floor_goal, comparisons) if goal is not None]
    found.extend(report.latency_goal(each) for each in comparisons if each.one_by_one)
    found.append(report.startup_goal(launches))
    print(report.goals_table(found))
    return 0


if __name__ == "__main__":
    sys.exit(main())
