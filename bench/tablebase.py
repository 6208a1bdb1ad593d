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
- compressed files (format version 4, issue 52): the same tables compressed (`python -m
  tablebase compress`), a probe in process with its block not yet read (the cache of blocks
  emptied before each, the file's bytes in the page cache) and already read, beside the
  plain file's. Goals of issue 52: at most 50 µs and 10 µs.

`python -m bench.tablebase [--quick]` prints the section; `section(quick)` returns it for
bench/__main__. `python -m bench.tablebase --plain DIR --compressed DIR [--endings KRRRK,...]`
measures the compressed probe alone on tables built and compressed by hand (the five-piece
endings of 5³).
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench.peer import ROOT, Peer
from bench.report import Goal, goals_table, table
from kernel.config import EngineConfig
from kernel.cube.position import Position
from kernel.cube.rules import is_game_position
from kernel.kernel import Kernel
from kernel.tables.blocks import SHARED_CACHE
from kernel.tables.tablebase import Tablebases, endings, letters_of, read_header
from tablebase.stats import table_file_name

SEED = 37
#: Goal of issue 37: one probe in process, in seconds.
PROBE_GOAL = 20e-6
#: tb_probe's round trip against status's (1.25: within a quarter).
ROUND_TRIP_GOAL = 1.25
#: Goals of issue 52: a probe of a compressed table with its block not yet read, and read.
COLD_GOAL, WARM_GOAL = 50e-6, 10e-6
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


def game_positions(size: int, name: str, count: int, rng: random.Random) -> list[Position]:
    """Seeded random game positions of an ending, as positions."""
    kernel = Kernel(EngineConfig())
    found = []
    for text in ending_positions(size, name, count, rng):
        kernel.execute("set_board", text.split())
        found.append(kernel.position)  # set_board makes a new position each time
    return found


@dataclass(frozen=True)
class CompressedTimes:
    """Median seconds a probe of one ending: plain, compressed with its block not yet read,
    compressed with it read."""

    name: str
    plain: float
    cold: float
    warm: float


def compressed_probe_times(
    plain: Path, packed: Path, names: list[tuple[str, int]], count: int
) -> list[CompressedTimes]:
    """For each (ending, size), `count` seeded random positions probed from the plain file
    and from the compressed one: cold, the cache of blocks emptied before the probe (the
    compressed bytes in the page cache: each file's are read through once first), then warm,
    the same probe again; each ending's medians."""
    rng = random.Random(SEED + 52)
    plain_tables, packed_tables = Tablebases(plain), Tablebases(packed)
    found = []
    for name, size in names:
        positions = game_positions(size, name, count, rng)
        packed_tables.table(name, size).check_values()  # its bytes into the page cache
        plain_times, cold, warm = [], [], []
        for position in positions:
            expected = plain_tables.probe(position)  # opened and checked once, as in the engine
            began = time.perf_counter()
            plain_tables.probe(position)
            plain_times.append(time.perf_counter() - began)
            SHARED_CACHE.blocks.clear()
            SHARED_CACHE.held = 0
            began = time.perf_counter()
            value = packed_tables.probe(position)
            cold.append(time.perf_counter() - began)
            began = time.perf_counter()
            packed_tables.probe(position)
            warm.append(time.perf_counter() - began)
            assert value == expected, (name, value, expected)
        found.append(
            CompressedTimes(
                f"{name} n={size}",
                statistics.median(plain_times),
                statistics.median(cold),
                statistics.median(warm),
            )
        )
    return found


def compressed_section(
    plain: Path, packed: Path, names: list[tuple[str, int]], count: int
) -> tuple[str, list[Goal]]:
    """The compressed probe's table and its goals (the slowest ending's medians)."""
    rows = compressed_probe_times(plain, packed, names, count)
    blocks = {read_header(packed / path.name).block_values for path in packed.glob("*.cubetb")}
    text = table(
        ["ending", "plain", "compressed, block not read", "compressed, block read"],
        [
            [row.name, f"{row.plain * 1e6:.1f} µs", f"{row.cold * 1e6:.1f} µs",
             f"{row.warm * 1e6:.1f} µs"]
            for row in rows
        ],
    )  # fmt: skip
    cold = max(rows, key=lambda row: row.cold)
    warm = max(rows, key=lambda row: row.warm)
    heading = (
        f"Compressed tables (blocks of {', '.join(f'{b:,}' for b in sorted(blocks))} values): "
        f"a probe in process, median of {count} positions an ending"
    )
    goals = [
        Goal(
            "compressed probe, block not yet read: slowest ending's median",
            f"{cold.cold * 1e6:.1f} µs",
            f"≤ {COLD_GOAL * 1e6:.0f} µs",
            cold.cold <= COLD_GOAL,
        ),
        Goal(
            "compressed probe, block read: slowest ending's median",
            f"{warm.warm * 1e6:.1f} µs",
            f"≤ {WARM_GOAL * 1e6:.0f} µs",
            warm.warm <= WARM_GOAL,
        ),
    ]
    return f"{heading}\n\n{text}", goals


def folder_endings(plain: Path, packed: Path, only: list[str] | None) -> list[tuple[str, int]]:
    """The endings both folders hold (of the cube), or those named: (name, size)."""
    found = []
    for path in sorted(packed.glob("*.cubetb")):
        named = table_file_name(path)
        if named is None or named[2] != "cube" or not (plain / path.name).exists():
            continue
        if only is None or named[0] in only:
            found.append((named[0], named[1]))
    return found


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
        packed = folder / "compressed"
        subprocess.run(
            [sys.executable, "-m", "tablebase", "compress", str(folder), "--out", str(packed)],
            cwd=ROOT, check=True, capture_output=True,
        )  # fmt: skip
        largest = [(name, size) for size in sizes for name in endings(4)]
        compressed_text, compressed_goals = compressed_section(folder, packed, largest, per_ending)
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
        "",
        compressed_text,
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
        *compressed_goals,
    ]
    return "\n".join(lines), goals


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.tablebase", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small counts, for a smoke test")
    parser.add_argument("--plain", type=Path, help="a folder of plain tables")
    parser.add_argument("--compressed", type=Path, help="the same tables compressed")
    parser.add_argument("--endings", help="only these endings, by commas: KRRRK,KQQKQ")
    parser.add_argument("--positions", type=int, default=300, help="positions an ending")
    arguments = parser.parse_args(argv)
    if (arguments.plain is None) != (arguments.compressed is None):
        parser.error("--plain and --compressed go together")
    if arguments.plain is not None:
        only = arguments.endings.split(",") if arguments.endings else None
        names = folder_endings(arguments.plain, arguments.compressed, only)
        if not names:
            parser.error("no ending in both folders")
        text, goals = compressed_section(
            arguments.plain, arguments.compressed, names, arguments.positions
        )
        print(text, end="\n\n")
        print(goals_table(goals))
        return 0
    text, goals = section(arguments.quick)
    print(text, end="\n\n")
    print(goals_table(goals))
    return 0


if __name__ == "__main__":
    sys.exit(main())
