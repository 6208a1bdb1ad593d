"""A game's history: what moves cost in memory and in time, at n = 8 and n = 64 (issue 20).

Memory is tracemalloc's count of the bytes still allocated after the plays, not the RSS: the
RSS moves with the allocator's arenas and with whatever else the process did, while
tracemalloc counts what the game keeps, exactly and the same on every run. Each side's rook
walks its own level in a serpentine, back and forth, the two walks of different lengths, so
that nearly every ply makes a new position: the worst case for the table of positions seen.
Measured per 10,000 `play` commands (Kernel.execute, everything the command keeps), and for
100,000 plays at n = 64 by Game.play (the history alone, to keep the run short). Before issue
20 every play kept a copy of the board: 2,000 plays at n = 64 took 640 MB.

Time is this process's CPU time, the median of a few rounds of many `play` commands then as
many `undo`s through Kernel.execute, the sizes taking turns, with the same small army at both
sizes (the kings and a knight each, the knights leaping out and back): a knight's leap costs
the same on any board, so a play at n = 64 should cost what it costs at n = 8 (its longer
name, `nbj62(LXII)-bh61(LXII)`, is the move's own cost). Game.play + Game.undo alone, and the
knights of the start positions (16 and 128 pieces a side), are shown for information.

`python -m bench.history [--quick]` prints the section; `section(quick)` returns it and its
goals for bench/__main__.py.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
import tracemalloc
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from bench.report import Goal, goals_table, table
from kernel.config import EngineConfig
from kernel.cube.board import EMPTY
from kernel.cube.game import Game
from kernel.cube.position import Move, Position
from kernel.kernel import Kernel
from kernel.text.notation import format_board, get_move_name

#: The goals of issue 20.
MEMORY_GOAL_MB = 50.0
MEMORY_GOAL_PLAYS = 100_000
#: A play or undo at n = 64 may take this many times its time at n = 8 (timing noise).
SIZE_GOAL = 1.2
MB = 1 << 20
#: The army timed against the goals.
KNIGHTS = "play / undo commands, kings and knights"


@dataclass(frozen=True, slots=True)
class Settings:
    """How much to measure."""

    plays: int
    history_plays: int
    timed_plays: int
    rounds: int


FULL = Settings(plays=10_000, history_plays=MEMORY_GOAL_PLAYS, timed_plays=2_000, rounds=5)
QUICK = Settings(plays=200, history_plays=500, timed_plays=100, rounds=1)


def serpentine(columns: range, rows: range, level: int) -> list[tuple[int, int, int]]:
    """Walk a level row by row, turning at each end: each cell next to the one before."""
    cells = []
    for index, y in enumerate(rows):
        xs = columns if index % 2 == 0 else reversed(columns)
        cells += [(x, y, level) for x in xs]
    return cells


def back_and_forth(cells: list[tuple[int, int, int]]) -> Iterator[tuple[int, int, int]]:
    """Yield the cells of a walk from its start to its end and back, for ever, from the second."""
    loop = cells[1:] + cells[-2:0:-1] + cells[:1]
    while True:
        yield from loop


def rook_walk(size: int) -> tuple[Position, Iterator[Move]]:
    """Kings in opposite corners, and a rook each walking its own level, on no king's line.

    White's rook keeps off the lines through the black king, and black's off those through
    the white king; the two walks differ in length, so the pair of rooks comes back to the
    same two cells only rarely.
    """
    last = size - 1
    white = serpentine(range(last), range(last), 1)
    black = serpentine(range(1, size), range(1, last), last - 1)
    position = Position.empty(size)
    point = position.geometry.get_point_from_cell
    for (x, y, z), letter in {
        (0, 0, 0): "K",
        (last, last, last): "k",
        white[0]: "R",
        black[0]: "r",
    }.items():
        position.cells[point(x, y, z)] = letter
    position = Position(size, position.cells)

    def moves() -> Iterator[Move]:
        here = {"R": white[0], "r": black[0]}
        for cells in zip(back_and_forth(white), back_and_forth(black), strict=False):
            for letter, there in zip("Rr", cells, strict=True):
                yield Move(letter, point(*here[letter]), point(*there), EMPTY)
                here[letter] = there

    return position, moves()


def knights(size: int) -> tuple[Position, list[Move]]:
    """Kings in opposite corners and a knight each, leaping out and back: four moves."""
    last = size - 1
    position = Position.empty(size)
    point = position.geometry.get_point_from_cell
    cells = {(0, 0, 0): "K", (last, last, last): "k", (2, 2, 2): "N", (last - 2,) * 3: "n"}
    for (x, y, z), letter in cells.items():
        position.cells[point(x, y, z)] = letter
    white = (point(2, 2, 2), point(4, 3, 2))
    black = (point(last - 2, last - 2, last - 2), point(last - 4, last - 3, last - 2))
    moves = [
        Move("N", white[0], white[1], EMPTY),
        Move("n", black[0], black[1], EMPTY),
        Move("N", white[1], white[0], EMPTY),
        Move("n", black[1], black[0], EMPTY),
    ]
    return Position(size, position.cells), moves


def start_knights(size: int) -> tuple[Position, list[Move]]:
    """The start position, and a knight of each side leaping out and back."""
    from kernel.cube.start import start_position

    position = start_position(size)
    point = position.geometry.get_point_from_cell
    last = size - 1
    # White's knight on b1(I) (n = 8) or a2(I) (n = 64), and black's twin.
    origin, target = ((1, 0, 0), (2, 2, 0)) if size == 8 else ((0, 1, 0), (0, 3, 1))

    def turned(cell: tuple[int, int, int]) -> int:
        return point(*(last - c for c in cell))

    moves = [
        Move("N", point(*origin), point(*target), EMPTY),
        Move("n", turned(origin), turned(target), EMPTY),
        Move("N", point(*target), point(*origin), EMPTY),
        Move("n", turned(target), turned(origin), EMPTY),
    ]
    return position, moves


def kernel_on(position: Position) -> Kernel:
    """A kernel whose game starts from `position`."""
    kernel = Kernel(EngineConfig())
    reply = kernel.execute("set_board", [format_board(position)])
    assert reply.ok, reply.text
    return kernel


def play_names(kernel: Kernel, moves: Iterator[Move], count: int) -> list[str]:
    """Name `count` moves as `play` reads them, each in the position it is played in."""
    names = []
    game = Game(kernel.position.copy())
    for move in (next(moves) for _ in range(count)):
        names.append(get_move_name(game.position, move))
        game.play(move)
    return names


def traced(work: Callable[[], object]) -> int:
    """Run `work`; return the bytes it left allocated, by tracemalloc."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        kept = work()
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    del kept
    return grown


@dataclass(frozen=True, slots=True)
class Memory:
    """What a number of plays left allocated, and how many positions the game has seen."""

    size: int
    plays: int
    grown: int
    keys: int
    how: str

    @property
    def per_10000(self) -> float:
        """Megabytes per 10,000 plays."""
        return self.grown / MB * 10_000 / self.plays


def command_memory(size: int, plays: int) -> Memory:
    """Play `plays` rook steps through the `play` command and measure what stays."""
    position, moves = rook_walk(size)
    kernel = kernel_on(position)
    names = play_names(kernel, moves, plays)

    def work() -> Kernel:
        for name in names:
            reply = kernel.execute("play", [name])
            assert reply.ok, (name, reply.text)
        return kernel

    grown = traced(work)
    return Memory(size, plays, grown, len(kernel.game.seen), "play command")


def game_memory(size: int, plays: int) -> Memory:
    """Play `plays` rook steps straight into a Game and measure what stays."""
    position, moves = rook_walk(size)
    game = Game(position)

    def work() -> Game:
        # The moves are made here, traced: the history keeps them.
        for _ in range(plays):
            game.play(next(moves))
        return game

    grown = traced(work)
    return Memory(size, plays, grown, len(game.seen), "Game.play")


@dataclass(frozen=True, slots=True)
class Speed:
    """Microseconds per play and per undo of one army at one size."""

    label: str
    size: int
    play: float
    undo: float


@dataclass(frozen=True, slots=True)
class Timed:
    """One army at one size, and how to play its next move and take one back."""

    label: str
    size: int
    play: Callable[[int], None]
    undo: Callable[[], object]


def through_commands(label: str, position: Position, cycle: list[Move]) -> Timed:
    """Play and take back the moves of `cycle` by the `play` and `undo` commands."""
    kernel = kernel_on(position)
    names = [[name] for name in play_names(kernel, iter(cycle), len(cycle))]

    def play(index: int) -> None:
        kernel.execute("play", names[index % len(names)])

    def undo() -> None:
        kernel.execute("undo", [])

    return Timed(label, position.size, play, undo)


def through_game(position: Position, cycle: list[Move]) -> Timed:
    """Play and take back the moves of `cycle` by Game.play and Game.undo alone."""
    game = Game(position)

    def play(index: int) -> None:
        game.play(cycle[index % len(cycle)])

    return Timed("Game.play / Game.undo alone", position.size, play, game.undo)


def speeds(cases: list[Timed], settings: Settings) -> list[Speed]:
    """Time every case round by round, the cases taking turns so that a busy moment of the
    machine falls on all of them; return each case's median over the rounds.

    The clock is this process's CPU time: the other processes of a shared machine then
    count for less than on a wall clock.
    """
    count = settings.timed_plays
    plays: list[list[float]] = [[] for _ in cases]
    undos: list[list[float]] = [[] for _ in cases]
    for _ in range(settings.rounds):
        for case, played, undone in zip(cases, plays, undos, strict=True):
            began = time.process_time()
            for index in range(count):
                case.play(index)
            played.append((time.process_time() - began) / count)
            began = time.process_time()
            for _ in range(count):
                case.undo()
            undone.append((time.process_time() - began) / count)
    return [
        Speed(case.label, case.size, statistics.median(p) * 1e6, statistics.median(u) * 1e6)
        for case, p, u in zip(cases, plays, undos, strict=True)
    ]


def section(quick: bool) -> tuple[str, list[Goal]]:
    """Measure memory and time at both sizes; return the section's text and its goals."""
    settings = QUICK if quick else FULL
    memories = [command_memory(size, settings.plays) for size in (8, 64)]
    memories.append(game_memory(64, settings.history_plays))
    cases: list[Timed] = []
    for size in (8, 64):
        position, cycle = knights(size)
        cases.append(through_commands(KNIGHTS, position, cycle))
        cases.append(through_game(knights(size)[0], cycle))
        cases.append(through_commands("play / undo commands, start position", *start_knights(size)))
    timed = speeds(cases, settings)
    memory_rows = [
        [
            str(m.size),
            m.how,
            f"{m.plays:,}",
            f"{m.keys:,}",
            f"{m.grown / MB:.2f}",
            f"{m.per_10000:.2f}",
            f"{m.grown / m.plays:.0f}",
        ]
        for m in memories
    ]
    by_label: dict[str, dict[int, Speed]] = {}
    for speed in timed:
        by_label.setdefault(speed.label, {})[speed.size] = speed
    speed_rows = [
        [
            label,
            f"{sizes[8].play:.1f}",
            f"{sizes[64].play:.1f}",
            f"{sizes[8].undo:.1f}",
            f"{sizes[64].undo:.1f}",
        ]
        for label, sizes in by_label.items()
    ]
    found = goals(memories[-1], by_label[KNIGHTS])
    lines = [
        "History: memory by tracemalloc (bytes still allocated after the plays; not RSS),",
        "  rooks walking serpentines so that nearly every ply is a new position; time in this",
        f"  process's CPU time, the median of {settings.rounds} rounds of"
        f" {settings.timed_plays:,} plays then as many",
        "  undos, the sizes taking turns",
        "",
        table(
            ["n", "plays by", "plays", "positions seen", "MB", "MB per 10,000", "bytes per play"],
            memory_rows,
        ),
        "",
        table(["army", "play µs n=8", "play µs n=64", "undo µs n=8", "undo µs n=64"], speed_rows),
        "",
        goals_table(found),
    ]
    return "\n".join(lines), found


def goals(history: Memory, knight: dict[int, Speed]) -> list[Goal]:
    """The goals of issue 20: the memory of 100,000 plays, and n = 64 as fast as n = 8."""
    scaled = history.grown / MB * MEMORY_GOAL_PLAYS / history.plays
    play_ratio = knight[64].play / knight[8].play
    undo_ratio = knight[64].undo / knight[8].undo
    return [
        Goal(
            f"{MEMORY_GOAL_PLAYS:,} plays at n = 64: memory kept",
            f"{scaled:.1f} MB" + ("" if history.plays == MEMORY_GOAL_PLAYS else " (scaled)"),
            f"≤ {MEMORY_GOAL_MB:.0f} MB",
            scaled <= MEMORY_GOAL_MB,
        ),
        Goal(
            "play at n = 64 / n = 8, a knight's leap",
            f"{play_ratio:.2f}×",
            f"≤ {SIZE_GOAL}×",
            play_ratio <= SIZE_GOAL,
        ),
        Goal(
            "undo at n = 64 / n = 8, a knight's leap",
            f"{undo_ratio:.2f}×",
            f"≤ {SIZE_GOAL}×",
            undo_ratio <= SIZE_GOAL,
        ),
    ]


def main(argv: list[str] | None = None) -> int:
    """Print the history section."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.history", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--quick", action="store_true", help="small counts, for a smoke test")
    text, _ = section(parser.parse_args(argv).quick)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
