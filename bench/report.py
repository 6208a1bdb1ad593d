"""Plain-text tables and the goals, as the benchmark prints them."""

from __future__ import annotations

import os
import platform
from dataclasses import dataclass
from pathlib import Path

from bench.inprocess import Timing
from bench.peer import Comparison
from bench.startup import StartUp
from bench.workloads import LARGE_PIECES
from client.cores import usable_cores

#: Throughput workloads may cost at most this many times the floor.
FLOOR_GOAL = 1.2
#: set_board + checkmate on n = 64 with 300 pieces, one by one through the process, may cost
#: at most this many times the floor.
LATENCY_FLOOR_GOAL = 1.5
#: set_board + checkmate on n = 64 with 300 pieces in process, in seconds per position.
LATENCY_GOAL = 0.0004
#: Perft leaves per second, as a multiple of python-chess's on Kiwipete.
PERFT_GOAL = 1.0
#: Start-up may take at most this many times a bare `import structlog`.
STARTUP_GOAL = 1.15


@dataclass(frozen=True, slots=True)
class Goal:
    """One goal, what was measured against it and whether it was met."""

    name: str
    measured: str
    limit: str
    met: bool

    @property
    def verdict(self) -> str:
        return "PASS" if self.met else "MISS"


def table(header: list[str], rows: list[list[str]]) -> str:
    """Lay out rows under a header: the first column to the left, the others to the right."""
    widths = [max(len(line[column]) for line in [header, *rows]) for column in range(len(header))]

    def layout(line: list[str]) -> str:
        cells = [
            cell.ljust(width) if column == 0 else cell.rjust(width)
            for column, (cell, width) in enumerate(zip(line, widths, strict=True))
        ]
        return "  ".join(cells).rstrip()

    rule = "  ".join("-" * width for width in widths)
    return "\n".join([layout(header), rule, *(layout(line) for line in rows)])


def cpu_model() -> str:
    """Read the CPU model name from /proc/cpuinfo, or ask platform where there is none."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name":
                return value.strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def machine() -> str:
    """Describe the machine: CPU, cores, Python, and how busy it was at the start."""
    usable = usable_cores()
    python = f"{platform.python_implementation()} {platform.python_version()}"
    load = " ".join(f"{value:.2f}" for value in os.getloadavg())
    return (
        f"machine: {cpu_model()}, {os.cpu_count()} cores ({usable} usable), {python}, "
        f"load average {load} at start"
    )


def per_position(comparison: Comparison, kind: str) -> str:
    """Show one process's speed: positions per second, or milliseconds when one by one."""
    if comparison.one_by_one:
        return f"{comparison.median_cost(kind) * 1e3:.2f} ms"
    return f"{comparison.rate(kind):,.0f}/s"


def floor_goal(comparison: Comparison) -> Goal | None:
    """The floor goal of a throughput workload; the latency workload has its own goal."""
    if comparison.one_by_one:
        return None
    return Goal(
        f"{comparison.workload.label}: engine / floor",
        f"{comparison.ratio:.2f}×",
        f"≤ {FLOOR_GOAL}×",
        comparison.ratio <= FLOOR_GOAL,
    )


def latency_goal(comparison: Comparison) -> Goal:
    """The n = 64 workload one by one through the process, against the floor."""
    return Goal(
        f"{comparison.workload.label}: engine / floor",
        f"{comparison.ratio:.2f}×",
        f"≤ {LATENCY_FLOOR_GOAL}×",
        comparison.ratio <= LATENCY_FLOOR_GOAL,
    )


def inprocess_goal(timings: list[Timing]) -> Goal:
    """The n = 64, 300 pieces row in process: set_board + checkmate per position."""
    timing = next(t for t in timings if t.row.size == 64 and t.row.pieces == LARGE_PIECES)
    return Goal(
        f"n = 64, {LARGE_PIECES} pieces, in process: set_board + checkmate",
        f"{timing.kernel * 1e3:.2f} ms",
        f"≤ {LATENCY_GOAL * 1e3:.1f} ms",
        timing.kernel <= LATENCY_GOAL,
    )


def startup_goal(startup: StartUp) -> Goal:
    """The start-up goal: the engine's first answer against a bare `import structlog`."""
    return Goal(
        "start-up: main.py / import structlog",
        f"{startup.ratio:.2f}×",
        f"≤ {STARTUP_GOAL}×",
        startup.ratio <= STARTUP_GOAL,
    )


def perft_goal(ratio: float | None) -> Goal:
    """Perft leaves per second at least python-chess's on Kiwipete."""
    measured = "python-chess missing" if ratio is None else f"{ratio:.2f}×"
    return Goal(
        "perft leaves/s vs python-chess",
        measured,
        f"≥ {PERFT_GOAL:.1f}×",
        (ratio or 0) >= PERFT_GOAL,
    )


def goals(comparisons: list[Comparison], timings: list[Timing], startup: StartUp) -> list[Goal]:
    """Collect the goals of the process, in-process and start-up sections, in that order."""
    found = [goal for goal in map(floor_goal, comparisons) if goal is not None]
    found.extend(latency_goal(comparison) for comparison in comparisons if comparison.one_by_one)
    found.append(inprocess_goal(timings))
    found.append(startup_goal(startup))
    return found


def process_section(comparisons: list[Comparison], rounds: int) -> str:
    """The engine-against-floor table."""
    rows = []
    for comparison in comparisons:
        goal = floor_goal(comparison)
        rows.append(
            [
                comparison.workload.label + (" (one by one)" if comparison.one_by_one else ""),
                str(len(comparison.workload.positions)),
                str(comparison.mates),
                per_position(comparison, "engine"),
                per_position(comparison, "floor"),
                f"{comparison.ratio:.2f}×",
                "-" if comparison.cpu_ratio is None else f"{comparison.cpu_ratio:.2f}×",
                "" if goal is None else f"{goal.limit} {goal.verdict}",
            ]
        )
    header = ["workload", "positions", "mates", "engine", "floor", "engine/floor", "CPU", "goal"]
    notes = [
        f"{problem} ({comparison.workload.label})"
        for comparison in comparisons
        for problem in comparison.problems()
    ]
    lines = [
        "Through the process: set_board + checkmate per position, both logs on (temp --log-dir)",
        "  engine = python main.py; floor = python -m bench.floor (answers without thinking,",
        "  logs the same fields through a plain structlog set-up, bench.floor.PlainExchangeLog);",
        "  the clock starts after the first answer, so start-up is excluded; median of",
        f"  {rounds} rounds, engine and floor alternating; engine/floor =",
        "  median of the per-round ratios; streamed workloads in positions per second, the",
        "  one-by-one workload in median milliseconds per position (round trip, pipes included);",
        "  CPU = the same ratio of the two processes' CPU time (/proc/PID/schedstat) over the",
        "  same span, which other processes on the machine move far less than the wall clock",
        "",
        table(header, rows),
    ]
    if notes:
        lines += ["", "PROBLEMS:", *(f"  {note}" for note in notes)]
    return "\n".join(lines)


def microseconds(seconds: float | None) -> str:
    """Show a time in microseconds, or a dash when it was not measured."""
    return "-" if seconds is None else f"{seconds * 1e6:,.1f}"


def inprocess_section(timings: list[Timing], repeats: int) -> str:
    """The in-process table: set_board, checkmate and the brute force, per size."""
    header = [
        "n",
        "positions",
        "pieces",
        "mates",
        "kernel µs",
        "checkmate µs",
        "brute µs",
        "brute n",
        "brute/checkmate",
    ]
    rows = [
        [
            timing.row.label,
            str(timing.positions),
            f"{timing.pieces:g}",
            str(timing.mates),
            microseconds(timing.kernel),
            microseconds(timing.checkmate),
            microseconds(timing.reference),
            str(timing.reference_positions),
            "-" if timing.speedup is None else f"{timing.speedup:,.0f}×",
        ]
        for timing in timings
    ]
    lines = [
        f"In process: no pipes, no logs; each time is the best of {repeats} on one position,",
        "  then the median over positions (pieces: the median count)",
        '  kernel = Kernel.execute("set_board", [board]) then Kernel.execute("checkmate", []):',
        "  what the process does per position, less protocol text and logs",
        "  checkmate = Analysis(board).is_checkmate() alone, on the board set_board built",
        "  brute = tests.reference.is_checkmate(position), position parsed beforehand, on the",
        "  first `brute n` boards (while a time budget lasts); brute/checkmate = the median of",
        "  the per-board ratios; the answers are checked to agree",
        "",
        table(header, rows),
    ]
    return "\n".join(lines)


def startup_section(startup: StartUp) -> str:
    """The start-up table."""
    rows = [
        ["python main.py, until it answers protocol_version", f"{startup.engine * 1e3:.1f}"],
        ['python -c "import structlog", until it exits', f"{startup.structlog * 1e3:.1f}"],
    ]
    return "\n".join(
        [
            f"Start-up: median of {startup.runs} launches each, alternating",
            "",
            table(["launch", "ms"], rows),
            "",
            f"ratio {startup.ratio:.2f}×",
        ]
    )


def goals_table(found: list[Goal]) -> str:
    """Lay out goals, each with what was measured, its limit, and PASS or MISS."""
    rows = [[goal.name, goal.measured, goal.limit, goal.verdict] for goal in found]
    return table(["goal", "measured", "limit", "verdict"], rows)


def goals_section(found: list[Goal]) -> str:
    """The goals, each with PASS or MISS."""
    return "\n".join(
        ["Goals (reported only: a timing never fails the run)", "", goals_table(found)]
    )
