"""Read a move as people write it and find the legal move it names, or say why there is none.

`play` and the replay of game records read moves alike: the letter may be left out, `-` and
`x` are interchangeable and levels may be decimal (docs/protocol.md). A refusal names the
first reason, with the cells named canonically.
"""

from __future__ import annotations

from kernel.cube.board import EMPTY, SIDE_NAMES
from kernel.cube.position import Move, Position, owner
from kernel.cube.rules import Analysis, destinations
from kernel.cube.variants import PIECE_NAMES
from kernel.protocol import shorten
from kernel.text.notation import (
    MoveText,
    NotationError,
    get_cell_name_from_point,
    get_move_name,
    get_point_from_cell_name,
    parse_move_text,
    piece_name,
    same_cell,
)


class IllegalMove(ValueError):
    """A move that cannot be read or is not legal; the message says why, for the user."""


class OffBoard(IllegalMove):
    """A move names a cell off the board: of the readings of its text, the least likely."""


def read_move(position: Position, analysis: Analysis, text: str) -> Move:
    """Find the legal move of the side to move that `text` names; raise IllegalMove.

    The long form first (what programs send); failing it, the short form and the lenient
    ones of docs/rules.md, "Short notation" (kernel/text/short_notation.py).
    """
    try:
        readings = parse_move_text(text)
    except NotationError:
        return read_short(position, analysis, text, None)
    try:
        return find_move(position, analysis, readings)
    except IllegalMove as error:
        if isinstance(error, OffBoard):
            # Its cell off the board may be another notation's (`Nb1-c3` is no cell `Nb1`);
            # where that is off the board too, the long form's refusal says more.
            return read_short(position, analysis, text, None, error)
        # A long form that names its cells names them, whatever else the text could be read
        # as (`b1(II)xb2(I)` is no black bishop on rank 1): only its letter's case may be
        # the other side's (`Qc4(V)-c1(V)` for black, as the short form writes it).
        move = read_short(position, analysis, text, error)
        if not any(same_move_cells(position, reading, move) for reading in readings):
            raise error from None
        return move


def same_move_cells(position: Position, reading: MoveText, move: Move) -> bool:
    """Tell whether a long reading's two cells are a move's origin and target."""
    try:
        origin = get_point_from_cell_name(position.geometry, reading.origin)
        target = get_point_from_cell_name(position.geometry, reading.target)
    except NotationError:
        return False
    return (origin, target) == (move.origin, move.target)


def read_short(
    position: Position,
    analysis: Analysis,
    text: str,
    refused: IllegalMove | None,
    off_board: IllegalMove | None = None,
) -> Move:
    """Read a text the long form did not take as a short or lenient move; where none fits,
    refuse it with the long form's reason when it had one (or, `off_board`, when the short
    form's cells are off the board as well), else the short form's."""
    from kernel.text.short_notation import Ambiguous, OffBoardText, read_short_move

    try:
        return read_short_move(position, analysis, text)
    except Ambiguous as error:
        if refused is not None:
            raise refused from None
        raise IllegalMove(str(error)) from None
    except OffBoardText as error:
        raise (refused or off_board or IllegalMove(f"illegal move: {error}")) from None
    except NotationError as error:
        if refused is not None:
            raise refused from None
        raise IllegalMove(f"illegal move: {error}") from None


def find_move(position: Position, analysis: Analysis, readings: list[MoveText]) -> Move:
    """Find the legal move that one reading of a move's text names, or refuse saying why."""
    problems: list[IllegalMove] = []
    for reading in readings:
        try:
            move = resolve_move(position, analysis, reading.letter, reading.origin, reading.target)
            return promoted(position, move, reading.promotion)
        except IllegalMove as error:
            problems.append(error)
    problems.sort(key=lambda problem: isinstance(problem, OffBoard))
    raise problems[0]


def promoted(position: Position, move: Move, written: str) -> Move:
    """Return the move with the promotion written (`=Q`, either case); refuse a promotion
    left out, or one written where the pawn does not promote or cannot become that."""
    if move.promotion == EMPTY:
        if written:
            raise IllegalMove(
                f"illegal move: {get_move_name(position, move)} is no promotion (=... only "
                f"when a pawn reaches its last cell)"
            )
        return move
    choices = position.variant.promotion
    if not written:
        options = ", ".join(f"={letter}" for letter in choices)
        cell = get_cell_name_from_point(position.geometry, move.target)
        raise IllegalMove(
            f"illegal move: the pawn promotes on {cell}: write what it becomes ({options})"
        )
    if written.upper() not in choices:
        raise IllegalMove(
            f"illegal move: a pawn cannot become a {PIECE_NAMES[written.lower()]} "
            f"(it may become {', '.join(PIECE_NAMES[letter.lower()] for letter in choices)})"
        )
    letter = written.upper() if move.piece.isupper() else written.lower()
    return move._replace(promotion=letter)


def resolve_move(
    position: Position, analysis: Analysis, letter: str, origin_name: str, target_name: str
) -> Move:
    """Find the legal move from one cell to another, or refuse it naming the first reason."""
    if same_cell(origin_name, target_name):
        raise IllegalMove(f"illegal move: {shorten(origin_name)} to the same cell")
    geometry = position.geometry
    try:
        origin = get_point_from_cell_name(geometry, origin_name)
        target = get_point_from_cell_name(geometry, target_name)
    except NotationError as error:
        raise OffBoard(f"illegal move: {error}") from None

    def name(point: int) -> str:
        """Name a cell canonically in a refusal, however the move wrote it (c2(2) is c2(II))."""
        return get_cell_name_from_point(geometry, point)

    side = SIDE_NAMES[position.side]
    piece = position.cells[origin]
    if piece == EMPTY or owner(piece) != position.side:
        held = "nothing" if piece == EMPTY else f"a {piece_name(piece)}"
        raise IllegalMove(f"illegal move: no {side} piece on {name(origin)} ({held} there)")
    if letter and letter != piece:
        raise IllegalMove(
            f"illegal move: the letter {letter} does not match the {piece_name(piece)} "
            f"on {name(origin)}"
        )
    # Out of check only this piece's moves are asked: all of them would cost a 64-cube's whole
    # army on every `play`. In check the legal moves are few, and only they are generated.
    legal = analysis.legal_moves() if analysis.in_check else analysis.moves_of(origin)
    for move in legal:
        if move.origin == origin and move.target == target:
            return move  # a promotion's first choice: `promoted` picks the one written
    if target not in destinations(position, origin):
        raise IllegalMove(
            f"illegal move: the {piece_name(piece)} on {name(origin)} cannot move to {name(target)}"
        )
    move = Move(piece, origin, target, position.cells[target])
    raise IllegalMove(
        f"illegal move: {get_move_name(position, move)} would leave the {side} king in check"
    )
