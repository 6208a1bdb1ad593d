"""The positions Texel's method learns from: replayed from game records, labelled with each
game's result, and kept only where the evaluation can be trusted to mean what it says.

A position is kept when (docs/arena.md, "Texel's method"):
- its game is of the variant asked for and ended in a win, a draw or a loss;
- it comes after the first `SKIPPED_PLIES` plies (the book's openings, shared by many games);
- the side to move is not in check;
- both sides have a queen or a pawn (which may become one), so that the evaluation divides
  no score (the drawish rule: `can_mate`) and its weights act on it linearly;
- it is quiet: the quiescence search at the base weights finds no capture that changes its
  score (`is_quiet`);
- no position of the same key was kept before (the first game's label wins).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from kernel.config import EngineConfig
from kernel.cube.game import Game
from kernel.cube.position import Position
from kernel.cube.rules import Analysis
from kernel.play.alphabeta import MATE, Limits, Searcher, TranspositionTable
from kernel.play.evaluation import DEFAULT_WEIGHTS, Weights, can_mate, evaluate
from kernel.records.record import GameRecord
from kernel.records.replay import ReplayError, start_of
from kernel.text.move_reading import IllegalMove, read_move

#: The plies of each game left out first: the book's openings, which many games share.
SKIPPED_PLIES = 8
#: How many plies of a game are looked at for each position it may give (`per_game`).
TRIED_PER_KEPT = 3
#: Each result's points for white.
WHITE_POINTS = {"1-0": 1.0, "1/2-1/2": 0.5, "0-1": 0.0}
#: The weights the positions are chosen with: the engine's, without contempt, which only
#: the search applies (the label of a position is its game's result, for both sides alike).
BASE_WEIGHTS = replace(DEFAULT_WEIGHTS, contempt=0)


class TuneError(ValueError):
    """Input the tuner cannot use; the message names the file and the problem."""


@dataclass
class Tally:
    """What happened to the games and positions read, for the report."""

    games: int = 0
    other_variant: int = 0
    unfinished: int = 0
    unreadable: int = 0
    positions: int = 0
    in_check: int = 0
    drawish: int = 0
    not_quiet: int = 0
    repeated: int = 0
    kept: int = 0
    reasons: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Sample:
    """One kept position and its game's result for white (1, 0.5, 0); the position is the
    replay's own, good only until the next is yielded."""

    position: Position
    result: float
    game: int


def white_points(result: str) -> float | None:
    """Return a record's result for white, or None when the game has none (`*`)."""
    return WHITE_POINTS.get(result.split(" ", 1)[0])


def replayed(record: GameRecord, where: str) -> Iterator[tuple[Position, Analysis]]:
    """Yield every position of a record's game, the start first, with its analysis."""
    game = Game(start_of(record, where, EngineConfig()))
    analysis = Analysis(game.position)
    yield game.position, analysis
    for index, text in enumerate(record.moves):
        try:
            move = read_move(game.position, analysis, text)
        except IllegalMove as error:
            raise ReplayError(f"{where}, ply {index + 1}: {error}") from None
        game.play(move)
        analysis = Analysis(game.position)
        yield game.position, analysis


def is_drawish(position: Position, weights: Weights = BASE_WEIGHTS) -> bool:
    """Tell whether either side cannot mate by the evaluation's rule, so that a score in
    its favour would be divided (and is no linear function of the weights)."""
    return not all(
        can_mate(pieces, weights.mating_pieces, position.size) for pieces in position.pieces
    )


def is_quiet(position: Position, weights: Weights = BASE_WEIGHTS) -> bool:
    """Tell whether the quiescence search finds the static evaluation itself: no capture
    (of those it tries) changes the score of a position whose side to move is not in check."""
    game = Game(position.copy())
    searcher = Searcher(game, Limits(), TranspositionTable(0.001), weights=weights)
    static = evaluate(searcher.position, searcher.tables, searcher.material, searcher.army)
    return searcher.quiescence(-MATE, MATE, 0, False) == static


def record_samples(
    record: GameRecord,
    number: int,
    where: str,
    variant: str,
    seen: set[int],
    tally: Tally,
    per_game: int | None = None,
    chooser: random.Random | None = None,
) -> Iterator[Sample]:
    """Yield the kept positions of one record (module docstring), counting the rest.

    With `per_game`, only a random `TRIED_PER_KEPT` times as many of the game's plies (after
    the first `SKIPPED_PLIES`) are looked at, and the first `per_game` of them that pass are
    kept: the positions of one game share its result, so that many from few games teach
    less than a few from each of many.
    """
    tally.games += 1
    if record.headers.get("Variant", "cube") != variant:
        tally.other_variant += 1
        return
    result = white_points(record.result)
    if result is None:
        tally.unfinished += 1
        return
    plies = range(SKIPPED_PLIES, len(record.moves) + 1)
    tried: set[int] | None = None
    if per_game is not None:
        chooser = chooser or random.Random(number)
        tried = set(chooser.sample(plies, min(len(plies), TRIED_PER_KEPT * per_game)))
    kept = 0
    for ply, (position, analysis) in enumerate(replayed(record, where)):
        if ply < SKIPPED_PLIES or (tried is not None and ply not in tried):
            continue
        tally.positions += 1
        if analysis.in_check:
            tally.in_check += 1
        elif is_drawish(position):
            tally.drawish += 1
        elif position.key in seen:
            tally.repeated += 1
        elif not is_quiet(position):
            tally.not_quiet += 1
        else:
            seen.add(position.key)
            tally.kept += 1
            kept += 1
            yield Sample(position, result, number)
            if per_game is not None and kept >= per_game:
                return


def shuffled(games: list[tuple[str, GameRecord]], seed: int) -> list[tuple[str, GameRecord]]:
    """The games in a seeded order, so that a limit on positions takes them from every file."""
    order = list(games)
    random.Random(seed).shuffle(order)
    return order
