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

Goals (the issue's): perft's and genmove's positions a second at Raumschach's start within
1.5× of the cube's 5³ start's, measured in the same run; depth 5 or more in a second at
Raumschach's start.

`python -m bench.raumschach [--quick]` prints the section; `section(quick)` returns it and its
goals for bench/__main__.py.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import dataclass

from bench import player_process
from bench.peer import Peer
from bench.report import Goal, goals_table, table

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


FULL = Settings(perft_depth=3, repeats=3, seconds=1.0, moves=3, positions=8,
                nodes=(300_000, 6_000))  # fmt: skip
QUICK = Settings(perft_depth=2, repeats=1, seconds=0.1, moves=1, positions=2,
                 nodes=(20_000, 500))  # fmt: skip
#: Plies played at random from the start for the passed-pawn term's positions.
RANDOM_PLIES = 40
#: The passed-pawn term's weight measured (it is off by default: docs/arena.md).
PASSED_TRIED = 200


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
    lines = [
        f"Raumschach beside the cube (issue 48): through the engine process, perft best of "
        f"{settings.repeats}, genmove at level time {settings.seconds:g} (median of "
        f"{settings.moves}, a fresh engine each)",
        table(header, rows),
        "",
        f"The passed-pawn term's cost: in process, positions {RANDOM_PLIES} random plies from "
        f"the start, with `pawn_passed` at {PASSED_TRIED} and at 0",
        table(cost_header, passed_cost(settings)),
    ]
    return "\n".join(lines), goals(figures, settings)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.raumschach", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small counts, a smoke test")
    arguments = parser.parse_args(argv)
    text, found = section(arguments.quick)
    print(text)
    print()
    print(goals_table(found))
    return 0


if __name__ == "__main__":
    sys.exit(main())
