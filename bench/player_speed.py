"""The player's speed in process: the compiled search beside the Python one (issue 36).

Each position is searched at `level time S` by `reg_genmove` twice over, in the same run: by a
Kernel with the default config (the compiled core, where it was built) and by one with
`EngineConfig(compiled=False)` (kernel/play/alphabeta.py). For each: the positions the search
counts per second of CPU (time.process_time) and of wall time, and the depth it completed;
median of a few runs by CPU rate, the two searches alternating so that a shared machine's load
falls on both alike. The ratio compiled / Python is of the CPU rates.

Positions: the start positions of n = 4, 5 and 8, Raumschach's start (5³, pawns), and seeded
crowded middle games on 5³ with 30 pieces and 8³ with 64 (tests/positions.py
noise_game_position), each with a choice to make and no mate within two plies.

Goals: the median ratio over those positions at least 30× (issue 36); at the 5³ start at least
1,000,000 positions a second compiled (issue 36) and 20,000 in Python (issue 21); depth
completed at least 5 at the 5³ start, 4 in every 5³ middle game and 3 in every 8³ one; at
Raumschach's start (issue 48) the compiled rate within 1.5× of the 5³ start's, measured in the
same run, and depth 5 completed.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bench.report import Goal, table
from kernel.config import EngineConfig
from kernel.cube.start import start_position
from kernel.cube.variants import CUBE, RAUMSCHACH
from kernel.kernel import Kernel
from kernel.text.notation import format_board
from tests.positions import noise_game_position
from tests.reference import BLACK, WHITE, board_text

#: The least median ratio compiled / Python of positions per second of CPU.
RATIO_GOAL = 30.0
#: Positions a second at the 5³ start (CPU time): compiled, and in Python (issue 21).
COMPILED_NPS_GOAL = 1_000_000
PYTHON_NPS_GOAL = 20_000
#: The least depth completed: at the 5³ start, in every 5³ and every 8³ middle game.
START_5_DEPTH = 5
MIDDLE_DEPTHS = {5: 4, 8: 3}
#: The middle games: board size and pieces.
MIDDLE_GAMES = ((5, 30), (8, 64))
#: Raumschach's start against the cube's 5³ start (issue 48): the compiled rate may be at most
#: this many times slower, and the depth completed at least RAUMSCHACH_DEPTH.
RAUMSCHACH_SLOWER = 1.5
RAUMSCHACH_DEPTH = 5
RAUMSCHACH_LABEL = "start Raumschach"


@dataclass(frozen=True, slots=True)
class Speed:
    """One position searched for a time: positions, CPU and wall seconds, depth completed."""

    label: str
    pieces: int
    nodes: int
    cpu: float
    wall: float
    depth: int

    @property
    def cpu_rate(self) -> float:
        return self.nodes / self.cpu if self.cpu > 0 else 0.0

    @property
    def wall_rate(self) -> float:
        return self.nodes / self.wall if self.wall > 0 else 0.0


@dataclass(frozen=True, slots=True)
class Pair:
    """One position searched by both searches; `n` is its board's size."""

    n: int
    compiled: Speed
    python: Speed

    @property
    def ratio(self) -> float:
        """Compiled / Python, positions per second of CPU."""
        return self.compiled.cpu_rate / self.python.cpu_rate if self.python.cpu_rate else 0.0

    @property
    def middle_game(self) -> bool:
        return self.compiled.label.startswith("middle game")


#: A position to measure: its board's size, its label, the board as set_board takes it, and
#: the variant it is played under.
Board = tuple[int, str, str, str]


def middle_games(count: int) -> list[Board]:
    """Seeded crowded game positions (pieces anywhere, captures everywhere): n, label, board.

    Only positions that leave a choice to search: the side to move not in check, ten legal
    moves or more, and no mate proved by a search of depth 2 (a mate in one for the side to
    move, or every move of it met by one); elsewhere the search rightly stops early (a single
    move, or a mate proved: deeper cannot change it), which says nothing of how deep it sees.
    """
    kernel = Kernel(EngineConfig())
    searches: list[dict[str, Any]] = []
    kernel.log_event = lambda name, fields: searches.append(fields)
    kernel.execute("level", ["depth", "2"])
    boards = []
    for n, pieces in MIDDLE_GAMES:
        rng = random.Random(f"play-{n}-{pieces}")
        index = 0
        while index < count:
            side = WHITE if index % 2 == 0 else BLACK
            board = board_text(noise_game_position(rng, n, side, pieces))
            if not kernel.execute("set_board", board.split(" ")).ok:
                continue
            status = kernel.execute("status", []).text
            moves = kernel.execute("legal_moves", []).text.split()
            if status != "normal" or len(moves) < 10:
                continue
            kernel.execute("reg_genmove", [])
            if "mate" in searches[-1]:
                continue
            index += 1
            label = f"middle game {index}, n = {n}, {pieces} pieces"
            boards.append((n, label, board, CUBE.name))
    return boards


def start_boards() -> list[Board]:
    """The start positions of n = 4, 5 and 8 and Raumschach's, as set_board takes them."""
    cube = [
        (n, f"start n = {n}", format_board(start_position(n), "#"), CUBE.name) for n in (4, 5, 8)
    ]
    raumschach = format_board(start_position(5, RAUMSCHACH), "#")
    return [*cube, (5, RAUMSCHACH_LABEL, raumschach, RAUMSCHACH.name)]


class Timed:
    """A Kernel set to one position at `level time S`, whose searches are timed."""

    def __init__(
        self, label: str, board: str, seconds: float, compiled: bool, variant: str = CUBE.name
    ) -> None:
        self.label = label
        self.kernel = Kernel(EngineConfig(compiled=compiled))
        self.searches: list[dict[str, Any]] = []
        self.kernel.log_event = lambda name, fields: self.searches.append(fields)
        for command, args in (
            ("variant", [variant]),
            ("set_board", board.split(" ")),
            ("level", ["time", f"{seconds:g}"]),
        ):
            self.ask(command, args)

    def ask(self, command: str, args: list[str]) -> None:
        """Run one command, which must be accepted."""
        reply = self.kernel.execute(command, args)
        if not reply.ok:
            raise RuntimeError(f"{command} refused on {self.label}: {reply.text}")

    def search(self) -> Speed:
        """Search the position once (`reg_genmove`, which plays nothing)."""
        wall, cpu = time.perf_counter(), time.process_time()
        self.ask("reg_genmove", [])
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        search = self.searches[-1]
        pieces = sum(len(side) for side in self.kernel.position.pieces)
        return Speed(self.label, pieces, search["nodes"], cpu, wall, search["depth"])


def median_run(runs: list[Speed]) -> Speed:
    """The median run by CPU rate."""
    return sorted(runs, key=lambda run: run.cpu_rate)[len(runs) // 2]


def search_pair(
    n: int, label: str, board: str, seconds: float, repeats: int, variant: str = CUBE.name
) -> Pair:
    """Search one position `repeats` times with each search, alternating, so that the load
    of a shared machine falls on both alike; keep each one's median run."""
    compiled = Timed(label, board, seconds, compiled=True, variant=variant)
    python = Timed(label, board, seconds, compiled=False, variant=variant)
    runs = [(compiled.search(), python.search()) for _ in range(repeats)]
    return Pair(n, median_run([run[0] for run in runs]), median_run([run[1] for run in runs]))


def measure(
    seconds: float, repeats: int, middle: int, progress: Callable[[str], None]
) -> list[Pair]:
    """Search every position with both searches."""
    pairs = []
    for n, label, board, variant in start_boards() + middle_games(middle):
        progress(f"player: {label}, compiled and Python")
        pairs.append(search_pair(n, label, board, seconds, repeats, variant))
    return pairs


def rows(pairs: list[Pair]) -> list[list[str]]:
    """One table row per position: both searches' rates and depths, and their ratio."""
    return [
        [
            pair.compiled.label,
            str(pair.compiled.pieces),
            f"{pair.compiled.cpu_rate:,.0f}",
            f"{pair.compiled.wall_rate:,.0f}",
            str(pair.compiled.depth),
            f"{pair.python.cpu_rate:,.0f}",
            f"{pair.python.wall_rate:,.0f}",
            str(pair.python.depth),
            f"{pair.ratio:.1f}×",
        ]
        for pair in pairs
    ]


HEADER = [
    "position",
    "pieces",
    "C per s CPU",
    "C per s wall",
    "C depth",
    "Py per s CPU",
    "Py per s wall",
    "Py depth",
    "C/Py",
]


def depth_goal(pairs: list[Pair], n: int, seconds: float) -> Goal:
    """Every middle game of size n completes at least its depth (compiled)."""
    depths = [pair.compiled.depth for pair in pairs if pair.middle_game and pair.n == n]
    least = min(depths)
    pieces = dict(MIDDLE_GAMES)[n]
    return Goal(
        f"player, middle games n = {n}, {pieces} pieces: depth in {seconds:g} s, every one",
        f"least {least} ({', '.join(map(str, depths))})",
        f"≥ {MIDDLE_DEPTHS[n]}",
        least >= MIDDLE_DEPTHS[n],
    )


def goals(pairs: list[Pair], seconds: float) -> list[Goal]:
    """Issue 36's goals of speed and depth, and issue 21's rate for the Python search."""
    ratio = statistics.median(pair.ratio for pair in pairs)
    five = next(pair for pair in pairs if pair.compiled.label == "start n = 5")
    raumschach = next(pair for pair in pairs if pair.compiled.label == RAUMSCHACH_LABEL)
    slower = five.compiled.cpu_rate / max(raumschach.compiled.cpu_rate, 1.0)
    return [
        Goal(
            f"player: compiled / Python positions/s, median of {len(pairs)}",
            f"{ratio:.1f}×",
            f"≥ {RATIO_GOAL:.0f}×",
            ratio >= RATIO_GOAL,
        ),
        Goal(
            "player, start n = 5: compiled positions/s of CPU",
            f"{five.compiled.cpu_rate:,.0f}",
            f"≥ {COMPILED_NPS_GOAL:,}",
            five.compiled.cpu_rate >= COMPILED_NPS_GOAL,
        ),
        Goal(
            "player, start n = 5: Python positions/s of CPU",
            f"{five.python.cpu_rate:,.0f}",
            f"≥ {PYTHON_NPS_GOAL:,}",
            five.python.cpu_rate >= PYTHON_NPS_GOAL,
        ),
        Goal(
            f"player, start n = 5: depth in {seconds:g} s (compiled)",
            str(five.compiled.depth),
            f"≥ {START_5_DEPTH}",
            five.compiled.depth >= START_5_DEPTH,
        ),
        *(depth_goal(pairs, n, seconds) for n in MIDDLE_DEPTHS),
        Goal(
            "player, Raumschach start: the 5³ start's compiled positions/s over its own",
            f"{slower:.2f}× ({raumschach.compiled.cpu_rate:,.0f} against "
            f"{five.compiled.cpu_rate:,.0f})",
            f"≤ {RAUMSCHACH_SLOWER}×",
            slower <= RAUMSCHACH_SLOWER,
        ),
        Goal(
            f"player, Raumschach start: depth in {seconds:g} s (compiled)",
            str(raumschach.compiled.depth),
            f"≥ {RAUMSCHACH_DEPTH}",
            raumschach.compiled.depth >= RAUMSCHACH_DEPTH,
        ),
    ]


def text(pairs: list[Pair], seconds: float, repeats: int, compiled_built: bool) -> str:
    """The speed table and how to read it."""
    lines = [
        f"The player: reg_genmove at level time {seconds:g} in process, median of {repeats} "
        "by CPU rate;",
        "  C = the compiled search (EngineConfig()), Py = the Python one "
        "(EngineConfig(compiled=False)),",
        "  both in turn on each position; positions = the search's own count (tree and",
        "  quiescence); depth = the last one completed; C/Py = the ratio of the CPU rates",
    ]
    if not compiled_built:
        lines.append("  NOTE: the compiled core was not built here: both columns are Python")
    lines += ["", table(HEADER, rows(pairs))]
    return "\n".join(lines)
