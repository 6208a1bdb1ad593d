"""Endgame tables: a probe in process and `tb_probe` through the engine, beside `status`.

The tables of 3 and 4 pieces on the 3-cube (and, in a full run, the 4-cube) are built into a
temporary folder by the compiled solver (`python -m tablebase build`), then:

- in process: `Tablebases.probe` on seeded random positions of every ending, each a game
  position (the side not to move not in check); the median and slowest of the per-ending
  medians. Goal of issue 37: a probe under 20 µs.
- through the process: `status` and `tb_probe` on the same KQK position, each asked one at a
  time (a reply read before the next line is sent: a GUI's wait) and piped in a stream (a
  script's rate); medians of a few rounds. Goal: `tb_probe` as fast as `status`, read as a
  round trip within 25 % of status's.

`python -m bench.tablebase [--quick]` prints the section; `section(quick)` returns it for
bench/__main__.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.peer import ROOT, Peer
from bench.report import Goal, goals_table, table
from kernel.config import EngineConfig
from kernel.kernel import Kernel
from kernel.rules import is_game_position
from kernel.tablebase import Tablebases, endings, letters_of

SEED = 37
#: Goal of issue 37: one probe in process, in seconds.
PROBE_GOAL = 20e-6
#: tb_probe's round trip against status's (1.25: within a quarter).
ROUND_TRIP_GOAL = 1.25
#: A KQK position of the 3-cube, white to move (win 1).
KQK = "[K##,###,###],[###,###,Q##],[###,###,##k] w"


def build(folder: Path, size: int) -> float:
    """Build every table of 3 and 4 pieces on the size-cube; return the seconds it took."""
    began = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "tablebase", "build", "--size", str(size), "--pieces", "4",
         "--out", str(folder)],
        cwd=ROOT, check=True, capture_output=True,
    )  # fmt: skip
    return time.perf_counter() - began


def board_text(size: int, letters: str, cells: list[int], side: int) -> str:
    """The set_board notation of pieces on table cells (x + n (y + n z))."""
    grid = [["#"] * size**2 for _ in range(size)]
    for letter, cell in zip(letters, cells, strict=True):
        x, y, z = cell % size, cell // size % size, cell // size**2
        grid[z][y * size + x] = letter
    layers = (
        "[" + ",".join("".join(layer[row * size : (row + 1) * size]) for row in range(size)) + "]"
        for layer in grid
    )
    return ",".join(layers) + (" w" if side == 0 else " b")


def ending_positions(size: int, name: str, count: int, rng: random.Random) -> list[str]:
    """Seeded random game positions of an ending, as set_board texts."""
    kernel = Kernel(EngineConfig())
    letters = letters_of(name)
    found: list[str] = []
    for _ in range(count * 50):
        if len(found) == count:
            break
        cells = rng.sample(range(size**3), len(letters))
        text = board_text(size, letters, cells, rng.randrange(2))
        # Not every placement is a game position: the side not to move may be in check.
        if kernel.execute("set_board", text.split()).ok and is_game_position(kernel.position):
            found.append(text)
    return found


def probe_times(folder: Path, size: int, per_ending: int) -> list[tuple[str, float]]:
    """Each ending's median seconds a probe, over its positions (best of three each)."""
    rng = random.Random(SEED)
    tables = Tablebases(folder)
    kernel = Kernel(EngineConfig())
    results = []
    for name in endings(3) + endings(4):
        times = []
        for text in ending_positions(size, name, per_ending, rng):
            kernel.execute("set_board", text.split())
            position = kernel.position
            tables.probe(position)  # the file mapped and checked once, as in the engine
            best = float("inf")
            for _ in range(3):
                began = time.perf_counter()
                tables.probe(position)
                best = min(best, time.perf_counter() - began)
            times.append(best)
        if times:
            results.append((f"{name} n={size}", statistics.median(times)))
    return results


def process_times(folder: Path, rounds: int, count: int) -> dict[str, tuple[float, float]]:
    """Median seconds of `status` and `tb_probe` through the engine: one at a time (round
    trip) and piped (a stream of `count`), each the median of `rounds` rounds."""
    found: dict[str, tuple[float, float]] = {}
    with Peer("engine", ["--tablebases", str(folder)]) as engine:
        engine.send(f"set_board {KQK}\n".encode())
        assert engine.receive(1)[0].startswith(b"=")
        samples: dict[str, tuple[list[float], list[float]]] = {
            command: ([], []) for command in ("status", "tb_probe")
        }
        for _ in range(rounds):
            for command, (trips, streams) in samples.items():
                line = f"{command}\n".encode()
                began = time.perf_counter()
                for _ in range(count // 10):
                    engine.send(line)
                    engine.receive(1)
                trips.append((time.perf_counter() - began) / (count // 10))
                began = time.perf_counter()
                engine.send(line * count)
                replies = engine.receive(count)
                streams.append((time.perf_counter() - began) / count)
                assert replies[-1] == (b"= win 1" if command == "tb_probe" else b"= normal")
        for command, (trips, streams) in samples.items():
            found[command] = (statistics.median(trips), statistics.median(streams))
    return found


def section(quick: bool = False) -> tuple[str, list[Goal]]:
    """The section's text and its goals."""
    sizes = (3,) if quick else (3, 4)
    per_ending = 5 if quick else 60
    rounds, count = (1, 200) if quick else (5, 5000)
    with tempfile.TemporaryDirectory(prefix="cubemate-bench-tables-") as name:
        folder = Path(name)
        built = {size: build(folder, size) for size in sizes}
        probes = [row for size in sizes for row in probe_times(folder, size, per_ending)]
        through = process_times(folder, rounds, count)
    medians = [seconds for _, seconds in probes]
    slowest_name, slowest = max(probes, key=lambda row: row[1])
    lines = [
        "Endgame tables: a probe in process (median of each ending's positions) and through "
        "the engine",
        "",
        "built: " + ", ".join(f"n = {size} in {seconds:.1f} s" for size, seconds in built.items()),
        f"probe in process: median {statistics.median(medians) * 1e6:.1f} µs over "
        f"{len(probes)} endings, slowest {slowest * 1e6:.1f} µs ({slowest_name})",
        "",
        table(
            ["through the engine", "round trip", "piped"],
            [
                [command, f"{trip * 1e6:.0f} µs", f"{stream * 1e6:.1f} µs"]
                for command, (trip, stream) in through.items()
            ],
        ),
    ]
    ratio = through["tb_probe"][0] / through["status"][0]
    goals = [
        Goal(
            "probe in process: slowest ending's median",
            f"{slowest * 1e6:.1f} µs",
            f"< {PROBE_GOAL * 1e6:.0f} µs",
            slowest < PROBE_GOAL,
        ),
        Goal(
            "tb_probe round trip / status round trip",
            f"{ratio:.2f}",
            f"≤ {ROUND_TRIP_GOAL:.2f}",
            ratio <= ROUND_TRIP_GOAL,
        ),
    ]
    return "\n".join(lines), goals


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.tablebase", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small counts, for a smoke test")
    arguments = parser.parse_args(argv)
    text, goals = section(arguments.quick)
    print(text, end="\n\n")
    print(goals_table(goals))
    return 0


if __name__ == "__main__":
    sys.exit(main())
