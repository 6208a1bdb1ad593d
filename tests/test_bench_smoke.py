"""`python -m bench --quick` still runs end to end and reports every goal (no timing checked),
the batch section included: every runner measured, their outputs the same."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_quick_benchmark_reports_every_goal() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "bench", "--quick"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    goals = [
        line for line in result.stdout.splitlines() if line.rstrip().endswith(("PASS", "MISS"))
    ]
    # Three throughput workloads, the n = 64 latency and start-up, each with its verdict.
    assert len(goals) >= 5, result.stdout
    # Every other section printed its table.
    for heading in (
        "Logging cost per exchange",
        "In process:",
        "perft:",
        "Memory at n = 64",
        "History:",
        "The player:",
        "The player through the process:",
        "Time use:",
        "Endgame tables:",
        "Raumschach beside the cube",
        "Against the floor (issue 60)",
        "The GUI's 3D view",
        "Start-up:",
    ):
        assert heading in result.stdout, heading
    for workload in ("ten reference cases", "crowded n = 8", "mixed n = 16", "n = 64", "start-up"):
        assert any(workload in line for line in goals), workload
    # The engine's answers on the reference cases were checked against rules.md.
    assert "wrong" not in result.stdout.lower(), result.stdout
    # The batch section measured every runner and found their outputs equal.
    for name in ("local, 1 worker", "local, 2 workers", "Dask LocalCluster", "mining"):
        assert name in result.stdout, name
    assert "outputs identical: yes" in result.stdout
    # The player's goals: the compiled search against the Python one, the move at n = 64, the
    # time used under a clock.
    for figure in (
        "compiled / Python positions/s",
        "genmove n = 64",
        "mean thinking / S",
        "probe in process",
        "tb_probe round trip",
        "perft leaves/s, cube 5³ ÷ Raumschach",
        "genmove nps, cube 5³ ÷ Raumschach",
        "engine/floor, checkmate: Raumschach ÷ cube 5³",
        "engine/floor, page's batch: Raumschach ÷ cube 5³",
    ):
        assert any(figure in line for line in goals), figure
    # The mate section solved its problems, against the brute force and AND/OR.
    for figure in (
        "mate in 2: median",
        "mate in 3: median",
        "brute force / engine",
        "mate in 3: df-pn median",
        "mate in 4: df-pn median",
        "mate in 4: AND/OR / df-pn",
    ):
        assert figure in result.stdout, figure


def test_a_mate_child_reports_its_own_peak_memory() -> None:
    """The deep-mate section's child process reports its own peak memory, not its parent's
    (getrusage's ru_maxrss survives fork and exec on Linux; /proc's VmHWM does not)."""
    from bench.mate import DFPN, solve_in_child

    ballast = bytearray(160 * 1024 * 1024)
    ballast[::4096] = b"\1" * len(range(0, len(ballast), 4096))  # every page resident
    run = solve_in_child(DFPN, 3, 100_000, "[###,###,k##],[###,###,#R#],[###,#K#,#R#]", 1)
    assert run.keys == [] and run.nodes > 0
    assert 5 < run.peak_mb < 100, run.peak_mb
    del ballast
