"""Commands that set up and read the position: boardsize, clear_board, get_board, set_board,
showboard, test_get_point_from_xy (docs/protocol.md, "Setting up and reading the position").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kernel.commands.arguments import (
    parse_int,
    read_size,
)
from kernel.commands.session import Session
from kernel.cube.position import NO_POINT, WHITE, Position
from kernel.cube.rules import InvalidPosition, check_position
from kernel.protocol import CommandError, shorten
from kernel.text.notation import (
    SIDE_NAMES,
    SIDE_WORDS,
    NotationError,
    check_variant_letters,
    format_board,
    get_cell_name_from_point,
    parse_board,
)

if TYPE_CHECKING:
    pass


def cmd_boardsize(kernel: Session, args: list[str]) -> str:
    """Set the board size and empty the board.

    Arguments: N, the new size.
    Fails: N is not a whole number, or is outside 2 ... max size ("unacceptable size (2 ... 64)"),
    or the variant played is not played on it (`variant cube` first).
    Returns: nothing.
    """
    size = read_size(kernel, args[0])
    variant = kernel.position.variant
    if not variant.allows_size(size):
        sizes = ", ".join(map(str, variant.sizes or ()))
        raise CommandError(
            f"{variant.name} is played on a board of size {sizes} only (`variant cube` for others)"
        )
    kernel.set_position(Position.empty(size, variant))
    return ""


def cmd_clear_board(kernel: Session, args: list[str]) -> str:
    """Empty every cell, keeping the size.

    Arguments: none. Fails: never. Returns: nothing.
    """
    kernel.set_position(Position.empty(kernel.position.size, kernel.position.variant))
    return ""


def cmd_get_board(kernel: Session, args: list[str]) -> str:
    """Write the position in the canonical board notation.

    Arguments: none. Fails: never. Returns: one line of notation.
    """
    board = format_board(kernel.position, kernel.config.empty_cell)
    return board if kernel.position.side == WHITE else board + " b"


def cmd_set_board(kernel: Session, args: list[str]) -> str:
    """Set up a position from the board notation, and clear the moves played.

    Arguments: an optional size N, the board (white space inside is allowed), then optionally
    the side to move: w, b, white or black (white when left out), after a closing bracket.
    Fails: the text cannot be read (size, rows, characters) or the position is impossible
    (king counts, kings on neighbouring cells, both kings in check); the old position stays.
    Returns: nothing.
    """
    side = WHITE
    if len(args) > 1 and args[-1] in SIDE_WORDS and args[-2][-1] in "]\"'":
        side = SIDE_WORDS[args[-1]]
        args = args[:-1]
    try:
        text = parse_board(" ".join(args), kernel.config.max_board_size, kernel.config.comments)
        check_variant_letters(text.rows, kernel.position.variant)
    except NotationError as error:
        raise CommandError(f"invalid board: {error}") from None
    position = Position.from_rows(text.size, text.rows, side, kernel.position.variant)
    try:
        analysis = check_position(
            position, lambda point: get_cell_name_from_point(position.geometry, point)
        )
    except InvalidPosition as error:
        raise CommandError(f"invalid board: {error}") from None
    kernel.set_position(position, analysis)
    return ""


def cmd_showboard(kernel: Session, args: list[str]) -> str:
    """Draw the board for people.

    Arguments: none. Fails: never.
    Returns: every layer, top first, with its level, ranks and files (`.` is an empty cell,
    the last move's origin `*` and its piece `[N]`), then the last move, the pieces giving
    check, whose move it is, and the result once the game has one.
    """
    from kernel.text.picture import draw_board  # imported when first used, to start faster
    from kernel.text.showing import check_line, last_move_line

    position = kernel.position
    plies = kernel.game.plies
    last = (plies[-1].move.origin, plies[-1].move.target) if plies else None
    lines = ["", draw_board(position, last)]
    if plies:
        lines.append(last_move_line(kernel.game))
    if position.kings[WHITE] != NO_POINT:
        lines.extend(check_line(kernel.analysis()))
    lines.append(f"{SIDE_NAMES[position.side]} to move")
    outcome = kernel.outcome() if kernel.is_game() else None
    if outcome is not None:
        lines.append(f"result: {outcome}")
    return "\n".join(lines)


def cmd_test_get_point_from_xy(kernel: Session, args: list[str]) -> str:
    """Give the index of a memory cell in the padded 1-D array.

    Arguments: X Y [Z], memory coordinates counting the wall (a1(I) is 2 2 2); Z defaults to 0.
    Fails: a coordinate is not a whole number or is outside 0 ... W-1, W = size + 4.
    Returns: X + W*Y + W*W*Z.
    """
    geometry = kernel.position.geometry
    width = geometry.memory_width
    x, y, z = (
        parse_int(arg, axis, f"{axis.lower()} = {shorten(arg)} is outside 0 ... {width - 1}")
        for arg, axis in zip([*args, "0"], "XYZ", strict=False)
    )
    try:
        return str(geometry.get_point_from_xyz(x, y, z))
    except ValueError as error:
        raise CommandError(str(error)) from None
