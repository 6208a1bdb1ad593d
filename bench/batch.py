"""Batch throughput: positions per second through 1 and 2 local workers and a local Dask
cluster on the same input, and the rate of mining unique-key mates in 2.

python -m bench.batch [--quick]; bench/__main__.py calls `run(quick)` and prints its text.
Engines are started and warmed up before the clock starts, so start-up is excluded; each
figure is the median of several rounds; the three runs' outputs are checked to be equal.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from batch.generate import family, generate
from batch.jobs import Id, Job
from batch.keep import parse_filter
from batch.runners import DaskRunner, LocalRunner, Runner
from batch.runners import run as run_batch
from batch.work import EngineSpec
from bench.report import table

SEED = 20240601
ASKS = ("status", "legal_moves")
MINING_FILTER = "mate_in 1 = no key and mate_in 2 = one key"
CHUNK = 8
#: Dask pays about a millisecond per task: larger chunks amortise it.
DASK_CHUNK = 64


@dataclass(frozen=True, slots=True)
class Settings:
    """How much to measure."""

    positions: int
    mining_positions: int
    rounds: int
    #: Workers of the Dask cluster (threads of this process) and of the mining run.
    dask_workers: int
    mining_workers: int


FULL = Settings(positions=3000, mining_positions=400, rounds=3, dask_workers=2, mining_workers=2)
# Enough positions for two chunks of 64 (the Dask run's largest) and for mining to keep one
# (the 30th), and one engine each where a worker count is not what the row is about: every
# engine start costs 0.2 CPU-s.
QUICK = Settings(positions=72, mining_positions=30, rounds=1, dask_workers=1, mining_workers=1)


def workers_text(count: int) -> str:
    """Write a number of workers: `1 worker`, `2 workers`."""
    return f"{count} worker{'s' * (count != 1)}"


@dataclass(frozen=True, slots=True)
class Row:
    """One measured way of running the batch."""

    name: str
    seconds: float
    positions: int
    kept: int

    @property
    def rate(self) -> float:
        return self.positions / self.seconds


class Collected:
    """The batch's output, kept in memory."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def write(self, lines: Sequence[str], ids: Sequence[Id]) -> None:
        self.lines.extend(lines)

    def getvalue(self) -> bytes:
        return "".join(self.lines).encode("utf-8")


def warm_up(runner: Runner, asks: Sequence[str]) -> None:
    """Start every worker's engine with a few throw-away chunks."""
    jobs = list(generate(family("crowded"), 4 * runner.workers, seed=SEED + 1))
    run_batch(jobs, asks, runner, Collected(), chunk_size=1)


def measure(
    name: str,
    make_runner: Callable[[], Runner],
    jobs: list[Job],
    asks: Sequence[str],
    rounds: int,
    keep_source: str | None = None,
    chunk: int = CHUNK,
) -> tuple[Row, bytes]:
    """Time the batch over `jobs`, the median of `rounds`; return the row and the output."""
    keep = parse_filter(keep_source) if keep_source is not None else None
    runner = make_runner()
    times: list[float] = []
    output = b""
    kept = 0
    try:
        warm_up(runner, asks)
        for _ in range(rounds):
            sink = Collected()
            began = time.perf_counter()
            tally = run_batch(jobs, asks, runner, sink, keep, chunk)
            times.append(time.perf_counter() - began)
            output, kept = sink.getvalue(), tally.kept
    finally:
        runner.stop()
    return Row(name, statistics.median(times), len(jobs), kept), output


def run(quick: bool) -> str:
    """Measure and return the section's text."""
    from distributed import LocalCluster

    settings = QUICK if quick else FULL
    spec = EngineSpec()
    jobs = list(generate(family("crowded"), settings.positions, seed=SEED))
    rows: list[Row] = []
    outputs: list[bytes] = []
    for workers in (1, 2):
        row, output = measure(
            f"local, {workers_text(workers)}",
            lambda workers=workers: LocalRunner(workers, ASKS, spec),  # type: ignore[misc]
            jobs,
            ASKS,
            settings.rounds,
        )
        rows.append(row)
        outputs.append(output)
    cluster = LocalCluster(
        n_workers=settings.dask_workers,
        threads_per_worker=1,
        processes=False,
        dashboard_address=":0",
    )
    try:
        address = cluster.scheduler_address
        for chunk in (CHUNK, DASK_CHUNK):
            row, output = measure(
                f"Dask LocalCluster, {workers_text(settings.dask_workers)}, chunks of {chunk}",
                lambda: DaskRunner(address, ASKS, spec),
                jobs,
                ASKS,
                settings.rounds,
                chunk=chunk,
            )
            rows.append(row)
            outputs.append(output)
    finally:
        cluster.close()
    agree = "yes" if len(set(outputs)) == 1 else "NO: THE OUTPUTS DIFFER"

    keep = parse_filter(MINING_FILTER)
    mining_jobs = list(generate(family("crowded"), settings.mining_positions, seed=SEED))
    mining, _ = measure(
        f"mining, local, {workers_text(settings.mining_workers)}",
        lambda: LocalRunner(settings.mining_workers, keep.asks, spec, MINING_FILTER),
        mining_jobs,
        keep.asks,
        settings.rounds,
        MINING_FILTER,
    )

    base = rows[0].rate
    lines = [
        "Batch work: python -m batch on the same generated positions",
        f"  family crowded (n = 4, 4 attackers, 2 defenders), seed {SEED}; asks {', '.join(ASKS)}",
        f"  local chunks of {CHUNK}; engines warmed up before the clock; median of"
        f" {settings.rounds} round(s)",
        f"  the Dask cluster's {workers_text(settings.dask_workers)}"
        f" {'are threads' if settings.dask_workers > 1 else 'is a thread'} of this process"
        " (processes=False)",
        "",
        table(
            ["runner", "positions", "seconds", "positions/s", "vs 1 worker"],
            [
                [
                    r.name,
                    str(r.positions),
                    f"{r.seconds:.2f}",
                    f"{r.rate:,.0f}",
                    f"{r.rate / base:.2f}×",
                ]
                for r in rows
            ],
        ),
        f"outputs identical: {agree}",
        "",
        f'Mining: --generate crowded --keep "{MINING_FILTER}"',
        "",
        table(
            ["runner", "examined", "kept", "seconds", "examined/s", "kept per minute"],
            [
                [
                    mining.name,
                    str(mining.positions),
                    str(mining.kept),
                    f"{mining.seconds:.2f}",
                    f"{mining.rate:,.1f}",
                    f"{mining.kept / mining.seconds * 60:,.0f}",
                ]
            ],
        ),
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Print the batch section."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.batch", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--quick", action="store_true", help="small counts, for a smoke test")
    print(run(parser.parse_args(argv).quick))
    return 0


if __name__ == "__main__":
    sys.exit(main())
