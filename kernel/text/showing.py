"""The lines showboard writes under the board for people: the last move and the check."""

from __future__ import annotations

from kernel.cube.game import Game
from kernel.cube.rules import Analysis
from kernel.text.notation import get_cell_name_from_point, get_move_name, piece_name
from kernel.text.short_notation import short_name


def last_move_line(game: Game) -> str:
    """Name the last move short and long, and how the board marks it:
    `last move: 1... Qc1(V)+ (qc4(V)-c1(V); * where it came from, [ ] where it went)`."""
    position = game.position
    move = game.undo()
    try:
        name = short_name(position, Analysis(position), move)
        long = get_move_name(position, move)
        mover = position.side
    finally:
        game.play(move)
    # The side that began: the one to move now after an even number of plies.
    start_black = (position.side == 1) == (len(game.plies) % 2 == 0)
    ply = len(game.plies) - 1 + int(start_black)
    number = f"{ply // 2 + 1}{'...' if mover == 1 else '.'}"
    return f"last move: {number} {name} ({long}; * where it came from, [ ] where it went)"


def check_line(analysis: Analysis) -> list[str]:
    """Name the pieces that give check to the side to move: `check: the black queen on
    c1(V) gives check to the white king on c1(I)`; nothing when there is none."""
    if not analysis.checkers:
        return []
    position = analysis.position
    geometry = position.geometry

    def label(point: int) -> str:
        cell = get_cell_name_from_point(geometry, point)
        return f"the {piece_name(position.cells[point])} on {cell}"

    checkers = sorted(analysis.checkers)
    givers = " and ".join(label(point) for point in checkers)
    verb = "gives" if len(checkers) == 1 else "give"
    king = f"{label(analysis.king)}"
    return [f"check: {givers} {verb} check to {king}"]
