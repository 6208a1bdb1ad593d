"""Seeded positions for the selfmate and helpmate tests: the side to move's king crowded by
the other side's pieces (tests.positions.mate_problem, with the move handed to the hunted
side), so that the other side's mates, and the side to move's stalemates, are common.
"""

from __future__ import annotations

import random

from tests.positions import mate_problem
from tests.reference import Position, Side, game_error, opponent, validity_error


def hunted(rng: random.Random, n: int, side: Side, pieces: int) -> Position:
    """A game position, `side` to move, whose king the other side's pieces crowd."""
    while True:
        problem = mate_problem(rng, n, opponent(side), pieces)
        position = Position(n, dict(problem.pieces), side)
        if validity_error(position) is None and game_error(position) is None:
            return position
