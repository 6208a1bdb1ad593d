"""What share of a timed search the mate guard takes (issue 64), in process.

With a pruning on, the player asks the mate search for a mate in N before each odd depth
2N - 1 from 3 (docs/search.md, "The mate guard"); its positions are not the search's, so a
pruned search's positions a second (`python -m bench.depth`) fall by its time among other
things. This measures that time directly: on the first K openings of each book
(bench/books/raumschach.txt, bench/books/5x5x5.txt), one move searched at each time with the
three prunings on (`levels/pruned-futility.toml`), the guard's seconds over the move's.

`python -m bench.guard [--positions K] [--times 0.3 1]`
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from bench.depth import BOOKS, openings
from kernel.config import load_config
from kernel.kernel import Kernel
from kernel.play.alphabeta import Limits, Searcher

#: Null move, late-move reductions and futility pruning, as the matches play them.
THREE = Path(__file__).resolve().parent.parent / "levels" / "pruned-futility.toml"


class GuardClock:
    """Wraps Searcher.mates_in while measuring, adding up the seconds it takes."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.original = Searcher.mates_in

    def __enter__(self) -> GuardClock:
        original = self.original

        def timed(searcher: Searcher, moves: int) -> object:
            began = time.monotonic()
            try:
                return original(searcher, moves)
            finally:
                self.seconds += time.monotonic() - began

        Searcher.mates_in = timed  # type: ignore[assignment,method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        Searcher.mates_in = self.original  # type: ignore[method-assign]


def measure(count: int, times: Sequence[float]) -> list[str]:
    """One line a book and time: the guard's median and greatest share, and the depths."""
    lines = []
    three = load_config(THREE)
    for label, variant, book in BOOKS:
        for seconds in times:
            shares, depths = [], []
            for board in openings(book, count):
                kernel = Kernel(replace(three, variant=variant, board_size=5))
                reply = kernel.execute("set_board", board.split())
                if not reply.ok:
                    raise ValueError(f"{book}: {reply.text}")
                limits = Limits(None, three.max_nodes, seconds, 0.5)
                with GuardClock() as guard:
                    began = time.monotonic()
                    choice = kernel.player.choose(kernel.game, limits)
                    spent = time.monotonic() - began
                shares.append(guard.seconds / spent)
                depths.append(choice.result.depth)
            median = statistics.median(shares)
            lines.append(
                f"{label:<10} {seconds:>4g} s  guard's share: median {median:.0%}, greatest "
                f"{max(shares):.0%}; depths {' '.join(map(str, depths))}"
            )
            print(lines[-1], file=sys.stderr, flush=True)
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.guard", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--positions", type=int, default=8, help="openings of each book")
    parser.add_argument("--times", type=float, nargs="+", default=[0.3, 1.0])
    arguments = parser.parse_args(argv)
    if arguments.positions < 1 or any(seconds <= 0 for seconds in arguments.times):
        parser.exit(2, "bench.guard: --positions and --times must be above 0\n")
    print("\n".join(measure(arguments.positions, arguments.times)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
