"""Raumschach beside the cube (issue 48): perft and `genmove` at the two 5³ starts, in one run.

Through the engine process, as a user meets it: `new_game 5 raumschach` against `new_game 5
cube` (the cube's 5³ start: 78 first moves, Raumschach's 61; perft 3 467,007 and 237,316).

- Perft: `perft D` at each start, leaves per second, the best of a few runs; the two starts
  take turns so that a shared machine's load falls on both alike.
- `genmove`: a fresh engine at each start plays one move at `level time S`; the depth it
  completed and its positions a second (the search event of the JSON log), the median of a
  few moves. Whatever the player is, Python or compiled: the figures are the engine's.

- The passed-pawn term's cost: the player in process, compiled and in Python, searching
  positions of seeded random games 40 plies from the start (passed pawns among them) to a
  count of positions, with `evaluation.pawn_passed` at 200 and at 0 (its default) in turn;
  the rate with the term over the rate without.

- Against the floor (issue 60): positions of seeded random games from each start, streamed
  through the engine and through the floor (bench/floor.py) in turn, as the cube's rows of
  bench/compare.py are: `set_board` + `checkmate`, and `set_board` + the questions the GUI's
  page asks of every position it shows (its batch: status, checkers, legal_moves, explain,
  result). The ratios to the floor, by the wall clock and by CPU time, side by side.

Goals (the issue's): perft's and genmove's positions a second at Raumschach's start within
1.5× of the cube's 5³ start's, measured in the same run; depth 5 or more in a second at
Raumschach's start; against the floor, Raumschach's ratio within 1.5× of the cube's 5³.

`python -m bench.raumschach [--quick] [--floor]` prints the section (with --floor, only the
rows against the floor); `section(quick)` returns it and its goals for bench/__main__.py.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import dataclass

from bench import player_process
from bench.compare import compare
from bench.peer import Comparison, Peer
from bench.report import Goal, goals_table, table
from bench.workloads import SEED, Workload

#: The two starts: the cube's 5³ and Raumschach's, as the engine sets them up.
STARTS = (("cube 5³", "new_game 5 cube"), ("Raumschach", "new_game 5 raumschach"))
#: The published leaves of each start (docs/rules.md): a wrong count stops the bench.
LEAVES = {
    "cube 5³": {1: 78, 2: 5828, 3: 467_007},
    "Raumschach": {1: 61, 2: 3615, 3: 237_316},
}
#: Raumschach may be at most this many times slower than the cube, and search this deep.
SLOWER = 1.5
DEPTH_GOAL = 5


@dataclass(frozen=True, slots=True)
class Settings:
    perft_depth: int
    repeats: int
    seconds: float
    moves: int
    #: The passed-pawn term's cost: positions, and the count searched in each, compiled and
    #: in Python.
    positions: int
    nodes: tuple[int, int]

    #: Against the floor: positions of set_board + checkmate, of set_board + the page's
    #: batch, and rounds.
    floor_positions: tuple[int, int] = (1000, 300)
    floor_rounds: int = 9


FULL = Settings(perft_depth=3, repeats=3, seconds=1.0, moves=3, positions=8,
                nodes=(300_000, 6_000))  # fmt: skip
QUICK = Settings(perft_depth=2, repeats=1, seconds=0.1, moves=1, positions=2,
                 nodes=(20_000, 500), floor_positions=(10, 4), floor_rounds=1)  # fmt: skip
#: Plies played at random from the start for the passed-pawn term's positions.
RANDOM_PLIES = 40
#: The passed-pawn term's weight measured (it is off by default: docs/arena.md).
PASSED_TRIED = 200


#: What the GUI's page asks of each position it shows, after its set_board (gui/app/main.js,
#: `analyse`); its tb_probe is left out, which without tables is refused at once.
PAGE_ASKS = ("status", "checkers", "legal_moves", "explain", "result")
#: The variants' names, as `variant` takes them, by the label of their start.
VARIANT_NAMES = {"cube 5³": "cube", "Raumschach": "raumschach"}
#: Plies of each seeded random game whose positions the floor rows send.
GAME_PLIES = 40


@dataclass(frozen=True, slots=True)
class Figures:
    """One start's figures: perft's best time, and each move's search event."""

    label: str
    depth: int
    leaves: int
    seconds: float
    searches: list[dict[str, float]]

    @property
    def rate(self) -> float:
        return self.leaves / self.seconds

    @property
    def nps(self) -> float:
        return statistics.median(search["nps"] for search in self.searches)

    @property
    def search_depth(self) -> int:
        return int(min(search["depth"] for search in self.searches))


def progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def perft_times(settings: Settings) -> dict[str, tuple[int, float]]:
    """Each start's perft count and best time, the starts taking turns in one process."""
    best = {label: float("inf") for label, _ in STARTS}
    with Peer("engine") as peer:
        for _ in range(settings.repeats):
            for label, setting in STARTS:
                player_process.set_up(peer, [setting])
                began = time.perf_counter()
                answer = peer.ask(f"perft {settings.perft_depth}\n".encode(), 1)[0]
                best[label] = min(best[label], time.perf_counter() - began)
                expected = LEAVES[label].get(settings.perft_depth)
                if answer != f"= {expected}".encode():
                    raise RuntimeError(f"perft at the {label} start answered {answer!r}")
    return {label: (LEAVES[label][settings.perft_depth], best[label]) for label in best}


def searches(settings: Settings) -> dict[str, list[dict[str, float]]]:
    """Each start's first move, in a fresh engine each time, the starts taking turns."""
    found: dict[str, list[dict[str, float]]] = {label: [] for label, _ in STARTS}
    for _ in range(settings.moves):
        for label, setting in STARTS:
            fresh = player_process.fresh_move(label, setting, settings.seconds)
            found[label].append(fresh.move.search)
    return found


def passed_cost(settings: Settings) -> list[list[str]]:
    """The player's positions a second with the passed-pawn term and without, compiled and in
    Python, the two weights taking turns on each position (rows for the section's table)."""
    import random
    from dataclasses import replace

    from bench.openings import random_game
    from kernel.compiled import COMPILED
    from kernel.cube.game import Game
    from kernel.cube.variants import RAUMSCHACH
    from kernel.play.alphabeta import Limits, Searcher, TranspositionTable
    from kernel.play.alphabeta_core import CompiledSearcher, core_slots
    from kernel.play.evaluation import DEFAULT_WEIGHTS

    games = [
        random_game(5, RANDOM_PLIES, random.Random(f"passed/{number}"), RAUMSCHACH)[0]
        for number in range(settings.positions)
    ]
    rows = []
    for compiled, nodes in zip((True, False), settings.nodes, strict=True):
        if compiled and not COMPILED:
            continue
        counted = {True: [0, 0.0], False: [0, 0.0]}
        for game in games:
            for with_term in (True, False):
                weights = replace(DEFAULT_WEIGHTS, pawn_passed=PASSED_TRIED if with_term else 0)
                copy = Game(game.position.copy())
                copy.position.order_pieces()
                searcher: Searcher = (
                    CompiledSearcher(copy, Limits(nodes=nodes), core_slots(16), weights=weights)
                    if compiled
                    else Searcher(copy, Limits(nodes=nodes), TranspositionTable(16), None, weights)
                )
                began = time.perf_counter()
                result = searcher.search()
                counted[with_term][0] += result.nodes
                counted[with_term][1] += time.perf_counter() - began
        rates = {term: nodes / seconds for term, (nodes, seconds) in counted.items()}
        rows.append([
            "compiled" if compiled else "Python", f"{len(games)} × {nodes:,}",
            f"{rates[True]:,.0f}", f"{rates[False]:,.0f}", f"{rates[True] / rates[False]:.2f}",
        ])  # fmt: skip
    return rows


def game_positions(variant_name: str, count: int) -> tuple[str, ...]:
    """`count` positions of seeded random games from the variant's 5³ start, each ply of a
    game a position (as set_board takes it), none of them over: what a GUI shows in play."""
    import random

    from kernel.cube.game import Game
    from kernel.cube.position import BLACK
    from kernel.cube.rules import Analysis
    from kernel.cube.start import start_position
    from kernel.cube.variants import variant_named
    from kernel.text.notation import format_board

    variant = variant_named(variant_name)
    positions: list[str] = []
    number = 0
    while len(positions) < count:
        number += 1
        rng = random.Random(f"{SEED}/floor/{variant_name}/{number}")
        game = Game(start_position(5, variant))
        for _ in range(GAME_PLIES):
            moves = list(Analysis(game.position).legal_moves())
            rng.shuffle(moves)
            for move in moves:
                game.play(move)
                if game.outcome() is None:
                    break
                game.undo()
            else:
                break
            board = format_board(game.position)
            positions.append(board + " b" if game.position.side == BLACK else board)
            if len(positions) == count:
                break
    return tuple(positions)


def games_workload(variant_name: str, asks: tuple[str, ...], count: int) -> Workload:
    """A workload of one start's game positions (game_positions), each asked `asks`, after
    `variant NAME`."""
    label = next(label for label, name in VARIANT_NAMES.items() if name == variant_name)
    what = "checkmate" if asks == ("checkmate",) else "page's batch"
    return Workload(
        f"{variant_name}-{what}",
        f"{label} games, {what}",
        game_positions(variant_name, count),
        asks=asks,
        preamble=(f"variant {variant_name}",),
    )


def floor_workloads(settings: Settings) -> list[Workload]:
    """The floor rows' workloads: each start's game positions, asked `checkmate`, then the
    page's batch, each after `variant NAME`."""
    checkmates, pages = settings.floor_positions
    return [
        games_workload(name, asks, count)
        for asks, count in ((("checkmate",), checkmates), (PAGE_ASKS, pages))
        for name in VARIANT_NAMES.values()
    ]


def floor_rows(comparisons: list[Comparison]) -> tuple[list[list[str]], list[Goal]]:
    """The floor table's rows, and the goals: Raumschach's ratio within SLOWER of the cube's
    for each kind of workload."""
    rows = [
        [
            each.workload.label,
            str(len(each.workload.positions)),
            f"{each.rate('engine'):,.0f}/s",
            f"{each.rate('floor'):,.0f}/s",
            f"{each.ratio:.2f}×",
            "-" if each.cpu_ratio is None else f"{each.cpu_ratio:.2f}×",
        ]
        for each in comparisons
    ]
    found = []
    for cube, raumschach in zip(comparisons[::2], comparisons[1::2], strict=True):
        slower = raumschach.ratio / cube.ratio
        what = raumschach.workload.label.split(", ", 1)[1]
        found.append(
            Goal(
                f"engine/floor, {what}: Raumschach ÷ cube 5³",
                f"{slower:.2f}×",
                f"≤ {SLOWER}×",
                slower <= SLOWER,
            )
        )
    return rows, found


def measure(settings: Settings) -> list[Figures]:
    progress("raumschach: perft at the two starts")
    counts = perft_times(settings)
    progress(f"raumschach: genmove at level time {settings.seconds:g}")
    moves = searches(settings)
    return [
        Figures(label, settings.perft_depth, *counts[label], moves[label]) for label, _ in STARTS
    ]


def goals(figures: list[Figures], settings: Settings) -> list[Goal]:
    """Raumschach's perft and search rates within SLOWER of the cube's, and its depth."""
    cube, raumschach = figures
    perft = cube.rate / raumschach.rate
    search = cube.nps / raumschach.nps
    return [
        Goal("perft leaves/s, cube 5³ ÷ Raumschach", f"{perft:.2f}×", f"≤ {SLOWER}×",
             perft <= SLOWER),
        Goal("genmove nps, cube 5³ ÷ Raumschach", f"{search:.2f}×", f"≤ {SLOWER}×",
             search <= SLOWER),
        Goal(f"Raumschach depth in {settings.seconds:g} s", str(raumschach.search_depth),
             f"≥ {DEPTH_GOAL}", raumschach.search_depth >= DEPTH_GOAL),
    ]  # fmt: skip


def section(quick: bool = False) -> tuple[str, list[Goal]]:
    """Measure and write the section; return it and its goals."""
    settings = QUICK if quick else FULL
    figures = measure(settings)
    rows = [
        [
            figure.label,
            f"{figure.depth}",
            f"{figure.leaves:,}",
            f"{figure.seconds:.3f}",
            f"{figure.rate:,.0f}",
            f"{figure.search_depth}",
            f"{figure.nps:,.0f}",
        ]
        for figure in figures
    ]
    header = ["start", "perft D", "leaves", "seconds", "leaves/s", "depth", "genmove nps"]
    progress("raumschach: the passed-pawn term's cost")
    cost_header = ["player", "positions × nodes", "nps with", "nps without", "ratio"]
    cost_rows = passed_cost(settings)
    against_floor, floor_goals = floor_section(settings)
    lines = [
        f"Raumschach beside the cube (issue 48): through the engine process, perft best of "
        f"{settings.repeats}, genmove at level time {settings.seconds:g} (median of "
        f"{settings.moves}, a fresh engine each)",
        table(header, rows),
        "",
        f"The passed-pawn term's cost: in process, positions {RANDOM_PLIES} random plies from "
        f"the start, with `pawn_passed` at {PASSED_TRIED} and at 0",
        table(cost_header, cost_rows),
        "",
        against_floor,
    ]
    return "\n".join(lines), goals(figures, settings) + floor_goals


def floor_section(settings: Settings) -> tuple[str, list[Goal]]:
    """Measure Raumschach and the cube's 5³ against the floor; return the table and goals."""
    progress("raumschach: against the floor")
    comparisons = compare(
        [(each, False) for each in floor_workloads(settings)], settings.floor_rounds
    )
    rows, found = floor_rows(comparisons)
    header = ["workload", "positions", "engine", "floor", "engine/floor", "CPU"]
    problems = [
        f"{problem} ({each.workload.label})" for each in comparisons for problem in each.problems()
    ]
    lines = [
        f"Against the floor (issue 60): positions of seeded random games of up to {GAME_PLIES} "
        "plies from each start, streamed after `variant NAME`; set_board then checkmate, or "
        f"then the page's batch ({', '.join(PAGE_ASKS)}); median of {settings.floor_rounds} "
        "rounds, engine and floor alternating; CPU = the ratio of CPU times",
        table(header, rows),
        *(["", "PROBLEMS:", *(f"  {problem}" for problem in problems)] if problems else []),
    ]
    return "\n".join(lines), found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.raumschach", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small counts, a smoke test")
    parser.add_argument("--floor", action="store_true", help="only the rows against the floor")
    arguments = parser.parse_args(argv)
    if arguments.floor:
        text, found = floor_section(QUICK if arguments.quick else FULL)
    else:
        text, found = section(arguments.quick)
    print(text)
    print()
    print(goals_table(found))
    return 0


if __name__ == "__main__":
    sys.exit(main())
