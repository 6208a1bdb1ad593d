"""Engine against floor: the same workloads through both, alternating, over several rounds."""

from __future__ import annotations

import statistics
import sys
from collections.abc import Callable
from dataclasses import dataclass, field

from bench.peer import Run, latency, throughput
from bench.workloads import Workload

KINDS = ("engine", "floor")


@dataclass(slots=True)
class Comparison:
    """Every round of one workload through the engine and through the floor."""

    workload: Workload
    #: True: positions one at a time, timed each; False: streamed, timed as a whole.
    one_by_one: bool
    runs: dict[str, list[Run]] = field(default_factory=lambda: {kind: [] for kind in KINDS})

    def cost(self, run: Run) -> float:
        """Seconds per position of one run: its median latency, or its mean when streamed."""
        if self.one_by_one:
            return run.median_latency
        return run.seconds / len(self.workload.positions)

    def median_cost(self, kind: str) -> float:
        """The median over rounds of one process's seconds per position."""
        return statistics.median(self.cost(run) for run in self.runs[kind])

    def rate(self, kind: str) -> float:
        """The median positions per second of one process."""
        return 1.0 / self.median_cost(kind)

    @property
    def ratio(self) -> float:
        """The median over rounds of engine time / floor time within the round."""
        pairs = zip(self.runs["engine"], self.runs["floor"], strict=True)
        return statistics.median(self.cost(engine) / self.cost(floor) for engine, floor in pairs)

    @property
    def cpu_ratio(self) -> float | None:
        """The median over rounds of engine CPU time / floor CPU time within the round: what
        the wall clock's ratio is on an idle machine, little moved by other processes."""
        pairs = [
            (engine.cpu, floor.cpu)
            for engine, floor in zip(self.runs["engine"], self.runs["floor"], strict=True)
        ]
        ratios = [engine / floor for engine, floor in pairs if engine and floor]
        return statistics.median(ratios) if ratios else None

    @property
    def mates(self) -> int:
        """How many positions the engine answered `true` (the same in every round)."""
        return self.runs["engine"][0].answers.count(b"= true")

    def problems(self) -> list[str]:
        """Describe failed commands, stderr output and, for known positions, wrong answers."""
        found: list[str] = []
        for kind, runs in self.runs.items():
            for run in runs:
                found.extend(
                    f"{kind}: {error.decode(errors='replace')[:120]}" for error in run.errors
                )
                if run.stderr:
                    found.append(f"{kind} stderr: {run.stderr[:200]}")
        expected = self.workload.expected
        if expected is not None:
            wanted = [b"= true" if answer else b"= false" for answer in expected]
            for run in self.runs["engine"]:
                wrong = sum(got != want for got, want in zip(run.answers, wanted, strict=True))
                if wrong:
                    found.append(f"engine: {wrong} wrong checkmate answers")
        return sorted(set(found))


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
