"""Balanced openings for matches: random plies from the start position, kept only where a
fixed-depth search finds neither side ahead (`python -m bench.openings`).

The arena's `--random-plies N` begins each pair N random plies from the start. On 5³ four
random plies now and then leave a queen where it is taken at once: both games of such a pair
are won by the colour that takes it, whoever plays it, so the pair says nothing about the
players and squeezes the Elo between them towards zero. A book keeps the openings a search of
depth D (the player's own, without contempt) scores within ±CP centipawns, as books for chess
engines are made; the arena plays it with `--openings FILE`.

`--variant raumschach` draws Raumschach's openings (its pawns' steps among the plies) and
scores them under its rules; the arena plays such a book with `--variant raumschach`.

The book goes to stdout (one `BOARD SIDE` line per opening, under a comment naming the moves
and the score), so it never overwrites a file; progress and the tally go to stderr. The same
arguments give the same book.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

from kernel.cube.board import SIDE_NAMES
from kernel.cube.game import Game
from kernel.cube.rules import Analysis
from kernel.cube.start import start_position
from kernel.cube.variants import CUBE, UnknownVariant, Variant, variant_named
from kernel.play.alphabeta import Limits
from kernel.play.evaluation import DEFAULT_WEIGHTS
from kernel.play.player import Player
from kernel.text.notation import format_board, get_move_name

#: The table of each search, in MB: an opening's search at depth 4 on 5³ fills far less.
HASH_MB = 16


@dataclass(frozen=True, slots=True)
class Opening:
    """A position some random plies from the start, and the search's score of it for the side
    to move."""

    moves: tuple[str, ...]
    board: str
    side: str
    score: int

    def lines(self, depth: int) -> list[str]:
        """The book's two lines for it: a comment, then the position as the arena reads it."""
        return [
            f"# {' '.join(self.moves)}  (depth {depth}: {self.score:+d} for {self.side})",
            f"{self.board} {self.side}",
        ]


def random_game(
    size: int, plies: int, rng: random.Random, variant: Variant = CUBE
) -> tuple[Game, list[str]]:
    """Play `plies` random legal moves from the variant's start, none of which ends the game
    (fewer when every move would): the arena's `--random-plies`, on a game of our own."""
    game = Game(start_position(size, variant))
    played: list[str] = []
    for _ in range(plies):
        moves = list(Analysis(game.position).legal_moves())
        rng.shuffle(moves)
        for move in moves:
            name = get_move_name(game.position, move)
            game.play(move)
            if game.outcome() is None:
                played.append(name)
                break
            game.undo()
        else:
            break
    return game, played


def openings(
    size: int,
    plies: int,
    depth: int,
    seed: int,
    draws: int,
    compiled: bool = True,
    variant: Variant = CUBE,
) -> Iterator[Opening]:
    """The distinct positions among `draws` random openings, each scored by the player at
    `depth`."""
    # The score the book filters on is the position's, not one side's wish to avoid a draw.
    player = Player(HASH_MB, replace(DEFAULT_WEIGHTS, contempt=0), compiled)
    seen: set[tuple[str, str]] = set()
    for number in range(1, draws + 1):
        rng = random.Random(f"{seed}/book/{number}")
        game, moves = random_game(size, plies, rng, variant)
        board = format_board(game.position)
        side = SIDE_NAMES[game.position.side]
        if (board, side) in seen:
            continue
        seen.add((board, side))
        choice = player.choose(game, Limits(depth=depth))
        yield Opening(tuple(moves), board, side, choice.result.score)


def build(arguments: argparse.Namespace) -> int:
    """Write the book to stdout; tell the tally on stderr. Stopped (Ctrl-C), the openings
    written so far are a book of their own."""
    started = time.monotonic()
    kept = scored = 0
    size = arguments.size
    variant = variant_named(arguments.variant)
    rules = "" if variant is CUBE else f"{variant.name} "
    try:
        print(
            f"# cubemate opening book: {rules}{size}x{size}x{size}, {arguments.plies} random "
            f"plies, kept within ±{arguments.within} centipawns at depth {arguments.depth}, "
            f"seed {arguments.seed}"
        )
        print(f"# python -m bench.openings {' '.join(arguments.argv)}".rstrip(), flush=True)
        found = openings(
            size,
            arguments.plies,
            arguments.depth,
            arguments.seed,
            arguments.most,
            variant=variant,
        )
        for opening in found:
            scored += 1
            if abs(opening.score) <= arguments.within:
                kept += 1
                print("\n".join(opening.lines(arguments.depth)), flush=True)
                if kept == arguments.count:
                    break
    except KeyboardInterrupt:
        print(f"bench.openings: stopped, {kept} openings written", file=sys.stderr)
        return 130
    seconds = time.monotonic() - started
    tally = f"kept {kept} of {scored} distinct openings in {seconds:.0f} s"
    print(f"bench.openings: {tally}", file=sys.stderr)
    if kept < arguments.count:
        print(
            f"bench.openings: only {kept} of the {arguments.count} asked within "
            f"{arguments.most} random openings (--most)",
            file=sys.stderr,
        )
        return 1
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Read the command line and build; a problem is one line on stderr and exit code 2."""
    words = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(
        prog="python -m bench.openings", description=__doc__.split("\n", 1)[0]
    )
    parser.add_argument("--size", type=int, default=5, help="board size n (default 5)")
    parser.add_argument("--plies", type=int, default=4, help="random plies (default 4)")
    parser.add_argument("--depth", type=int, default=4, help="the search's depth (default 4)")
    parser.add_argument(
        "--within", type=int, default=100, help="keep |score| <= CP centipawns (default 100)"
    )
    parser.add_argument("--count", type=int, default=100, help="openings to keep (default 100)")
    parser.add_argument(
        "--most", type=int, default=10_000, help="random openings to draw at most (default 10,000)"
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of the random plies")
    parser.add_argument(
        "--variant", default=CUBE.name, help="the rules: cube or raumschach (default cube)"
    )
    arguments = parser.parse_args(words)
    try:
        variant = variant_named(arguments.variant)
    except UnknownVariant as error:
        parser.exit(2, f"python -m bench.openings: --variant: {error}\n")
    if not variant.allows_size(arguments.size):
        parser.exit(2, f"python -m bench.openings: {variant.name} is not played on "
                       f"--size {arguments.size}\n")  # fmt: skip
    limits = {
        "--size": (arguments.size, 3, 64),
        "--plies": (arguments.plies, 0, 100),
        "--depth": (arguments.depth, 1, 8),
        "--within": (arguments.within, 0, 100_000),
        "--count": (arguments.count, 1, 100_000),
        "--most": (arguments.most, 1, 1_000_000),
    }
    for name, (value, low, high) in limits.items():
        if not low <= value <= high:
            parser.exit(2, f"python -m bench.openings: {name} must be {low} ... {high}\n")
    arguments.argv = words
    return build(arguments)


if __name__ == "__main__":
    sys.exit(main())
