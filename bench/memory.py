"""Peak memory of `mate_in 3` and `perft 3` at n = 64, at the default settings (issue 24).

Each command runs in a fresh engine process (`python main.py`) with the shipped settings:
`search.max_nodes` 5,000,000, and the mate search's table of at most 1,000,000 entries. Two
boards of n = 64: two kings and a queen (the board that once took the engine to 4.8 GB), and a
board of 300 pieces scattered at random (white has about 30,000 moves). None of the four
searches can finish, so each runs until the node limit refuses it; what is measured is the
process's peak resident memory (VmHWM, the interpreter included) and the time to the answer.
Goal: every search, at any n, under 500 MB.

`python -m bench.memory [--quick]`: `--quick` caps the searches at 1,000 positions (a smoke
test, not the default settings); `run(quick)` returns the section for bench/__main__.py.
"""

from __future__ import annotations

import argparse
import random
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench.report import Goal, goals_table, table
from tests.positions import noise_game_position
from tests.reference import WHITE, Position, board_text

ROOT = Path(__file__).resolve().parent.parent
#: The goal of issue 24: any search, at any n, at the default settings.
PEAK_GOAL_MB = 500.0
#: The node limit of the quick run (the full run keeps the shipped 5,000,000).
QUICK_NODES = 1_000
SIZE = 64


@dataclass(frozen=True, slots=True)
class Measured:
    """One command on one board in a fresh engine: its answer, time and peak memory."""

    board: str
    command: str
    answer: str
    seconds: float
    peak_mb: float


def boards() -> list[tuple[str, str]]:
    """Return the two n = 64 boards, named: two kings and a queen, and a crowded board."""
    lone_queen = Position(SIZE, {(0, 0, 0): "K", (20, 30, 10): "Q", (40, 40, 40): "k"}, WHITE)
    crowded = noise_game_position(random.Random("memory-64"), SIZE, WHITE, 300)
    return [
        ("two kings and a queen", board_text(lone_queen)),
        ("300 pieces scattered", board_text(crowded)),
    ]


def peak_mb(pid: int) -> float:
    """Read a process's peak resident memory, in MB, from /proc."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM in /proc: this measurement needs Linux")


def measure(name: str, board: str, command: str, nodes: int | None) -> Measured:
    """Run one command in a fresh engine and read its peak memory before it quits."""
    folder = Path(tempfile.mkdtemp(prefix="cubemate-bench-memory-"))
    options = ["--log-dir", str(folder)]
    if nodes is not None:
        config = folder / "engine_config.toml"
        config.write_text(f"[search]\nmax_nodes = {nodes}\n", encoding="utf-8")
        options += ["--config", str(config)]
    engine = subprocess.Popen(
        [sys.executable, str(ROOT / "main.py"), *options],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:

        def ask(line: str) -> str:
            assert engine.stdin is not None and engine.stdout is not None
            engine.stdin.write(line + "\n")
            engine.stdin.flush()
            lines = []
            while (answer := engine.stdout.readline()) not in ("\n", ""):
                lines.append(answer.rstrip("\n"))
            return "\n".join(lines)

        if ask(f"set_board {board}") != "= ":
            raise RuntimeError(f"set_board refused the {name} board")
        start = time.perf_counter()
        answer = ask(command)
        seconds = time.perf_counter() - start
        peak = peak_mb(engine.pid)
        ask("quit")
        engine.wait(timeout=30)
    finally:
        if engine.poll() is None:
            engine.kill()
        shutil.rmtree(folder, ignore_errors=True)
    return Measured(name, command, answer, seconds, peak)


def section(quick: bool) -> tuple[str, list[Goal]]:
    """Measure both commands on both boards; return the section's text and its goals."""
    nodes = QUICK_NODES if quick else None
    results = []
    for name, board in boards():
        for command in ("mate_in 3", "perft 3"):
            print(f"memory: {command} on the n = {SIZE} board, {name}", file=sys.stderr)
            results.append(measure(name, board, command, nodes))
    limit = f"search.max_nodes = {nodes:,}" if nodes else "the default settings"
    rows = [
        [
            m.command,
            m.board,
            m.answer if len(m.answer) < 50 else m.answer[:47] + "...",
            f"{m.seconds:,.1f}",
            f"{m.peak_mb:,.0f}",
        ]
        for m in results
    ]
    found = [
        Goal(
            f"n = {SIZE}, {m.board}: {m.command} peak memory",
            f"{m.peak_mb:,.0f} MB",
            f"< {PEAK_GOAL_MB:,.0f} MB",
            m.peak_mb < PEAK_GOAL_MB,
        )
        for m in results
    ]
    text = "\n".join(
        [
            f"Memory at n = {SIZE}: each command in a fresh engine at {limit};",
            "  peak = the process's peak resident memory (VmHWM), the interpreter included",
            "",
            table(["command", "board", "answer", "seconds", "peak MB"], rows),
            "",
            goals_table(found),
        ]
    )
    return text, found


def run(quick: bool) -> str:
    """Measure and return the section's text."""
    return section(quick)[0]


def main(argv: list[str] | None = None) -> int:
    """Print the memory section."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.memory", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--quick", action="store_true", help=f"cap at {QUICK_NODES:,} positions")
    print(run(parser.parse_args(argv).quick))
    return 0


if __name__ == "__main__":
    sys.exit(main())
