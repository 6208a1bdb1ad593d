"""Each position's score as a linear function of the weights tuned: its score at the base
weights and how it changes with each weight (central differences of the real evaluation).

The evaluation is linear in each of these weights but for three things (docs/arena.md,
"Texel's method"): rounding (each piece's value and placement, and the king's exposure, are
rounded to a centipawn), the king's danger (the share of each army left scales its exposure,
and a piece's value factor changes that share), and the drawish division, which the positions
chosen never meet (tune/positions.py). A step each way of `Tunable.step` keeps the first two
small: tests/test_tune.py holds the model to the real evaluation at other weights.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from kernel.cube.position import WHITE, Position
from kernel.play.evaluation import Tables, Weights, armies, evaluate

#: The factors on piece values: the config's bounds.
FACTOR_BOUNDS = (0.1, 10.0)
#: The centipawn weights: the config's bounds (kernel/config.py, MAX_EVAL_WEIGHT).
CENTIPAWN_BOUNDS = (0.0, 1000.0)


@dataclass(frozen=True)
class Tunable:
    """A weight the tuner may change: its name in `Weights` and `[evaluation]`, whether it is
    a whole number of centipawns (else a factor), the step of its central difference and the
    first step of the descent."""

    name: str
    integer: bool
    step: float
    first_move: float

    @property
    def bounds(self) -> tuple[float, float]:
        """The least and most the config accepts."""
        return CENTIPAWN_BOUNDS if self.integer else FACTOR_BOUNDS


#: The weights that act on Raumschach's evaluation (not contempt, drawish, mating_pieces,
#: cornering, which act on endings the positions leave out, nor pawn_passed, which is off).
RAUMSCHACH_TUNABLES = (
    Tunable("queen", False, 0.1, 0.05),
    Tunable("rook", False, 0.1, 0.05),
    Tunable("bishop", False, 0.1, 0.05),
    Tunable("knight", False, 0.1, 0.05),
    Tunable("unicorn", False, 0.1, 0.05),
    Tunable("pawn", False, 0.1, 0.05),
    Tunable("raumschach_placement", True, 4, 4),
    Tunable("exposure", True, 4, 4),
    Tunable("king_reach", True, 2, 2),
    Tunable("pawn_advance", True, 4, 4),
    Tunable("pawn_near", True, 20, 16),
)


def white_score(position: Position, tables: Tables) -> int:
    """The static evaluation from white's side, without contempt."""
    score = evaluate(position, tables, tables.material(position), armies(position, tables))
    return score if position.side == WHITE else -score


def shifted(weights: Weights, tunable: Tunable, by: float) -> Weights:
    """The weights with one of them moved by `by`."""
    value = getattr(weights, tunable.name) + by
    return replace(weights, **{tunable.name: round(value) if tunable.integer else value})


class FeatureMaker:
    """Feature vectors for positions of one variant and size: one evaluation table for each
    weight set, kept (with its placement worked out cell by cell) for every position."""

    def __init__(self, position: Position, base: Weights, tunables: tuple[Tunable, ...]) -> None:
        self.tunables = tunables
        self.base = Tables(position, base)
        self.pairs = [
            (
                Tables(position, shifted(base, tunable, tunable.step)),
                Tables(position, shifted(base, tunable, -tunable.step)),
                2 * tunable.step,
            )
            for tunable in tunables
        ]

    def features(self, position: Position) -> tuple[float, list[float]]:
        """Return a position's score at the base weights (white's side) and its change per
        unit of each weight."""
        return white_score(position, self.base), [
            (white_score(position, up) - white_score(position, down)) / span
            for up, down, span in self.pairs
        ]


def weights_with(base: Weights, tunables: Sequence[Tunable], values: Sequence[float]) -> Weights:
    """The base weights with the tunables set to `values` (a centipawn weight rounded)."""
    changes: dict[str, Any] = {
        tunable.name: round(value) if tunable.integer else value
        for tunable, value in zip(tunables, values, strict=True)
    }
    return replace(base, **changes)


def linear_score(base_score: float, slopes: list[float], moves: list[float]) -> float:
    """The model's score for weights moved from the base by `moves`."""
    return base_score + sum(slope * move for slope, move in zip(slopes, moves, strict=True))
