"""The reasoning behind `checkmate`'s answer, in lines a person reads at a terminal.

It asks the same questions as the verdict itself (kernel.rules), one at a time, and writes
down each answer instead of stopping at the first move that saves the king.
"""

from __future__ import annotations

from collections.abc import Callable

from kernel.board import BLACK_PIECES, EMPTY, WHITE_PIECES, Board
from kernel.rules import Analysis, Move, attackers_of, cells_between

PIECE_NAMES = {"k": "king", "q": "queen", "r": "rook", "b": "bishop", "n": "knight"}
SLIDERS = "qrb"


def explain(analysis: Analysis) -> str:
    """Explain the checkmate verdict of a position, one finding per line."""
    if not analysis.in_check:
        return "\n".join(explain_no_check(analysis))
    return "\n".join(explain_check(analysis))


def explain_no_check(analysis: Analysis) -> list[str]:
    king = analysis.board.geometry.get_cell_name_from_point(analysis.king)
    move = next(analysis.legal_moves(), None)
    if move is None:
        return [
            f"not checkmate: the white king on {king} is not in check",
            "stalemate: white has no legal move",
        ]
    return [
        f"not checkmate: the white king on {king} is not in check",
        f"white can play, for example, {move.name(analysis.board)}",
    ]


def explain_check(analysis: Analysis) -> list[str]:
    board = analysis.board
    label = piece_label(board)
    king = board.geometry.get_cell_name_from_point(analysis.king)
    saving = next(analysis.legal_moves(), None)
    verdict = "checkmate" if saving is None else "not checkmate"
    lines = [f"{verdict}: the white king on {king} is in check"]
    for checker in analysis.checkers:
        lines.append(f"check from {label(checker)} {line_kind(analysis, checker)}")
    lines.extend(explain_flights(analysis))
    if len(analysis.checkers) > 1:
        lines.append("double check: no capture or block can answer both checkers")
    else:
        lines.extend(explain_captures_and_blocks(analysis))
    if saving is not None:
        lines.append(f"saving move: {saving.name(board)} {what_it_does(analysis, saving)}")
    return lines


def explain_flights(analysis: Analysis) -> list[str]:
    """Say, for each cell next to the king, whether the king may go there and why not."""
    board = analysis.board
    name = board.geometry.get_cell_name_from_point
    label = piece_label(board)
    lines = []
    for step in analysis.offsets.queen:
        target = analysis.king + step
        piece = board.cells[target]
        if piece in WHITE_PIECES:
            lines.append(f"flight {name(target)}: own piece {label(target)} stands there")
            continue
        if piece != EMPTY and piece not in BLACK_PIECES:
            continue  # the wall: not a cell of the board
        head = f"flight {name(target)}"
        if piece != EMPTY:
            head += f" (capture of {label(target)})"
        guards = list(attackers_of(board, target, by_black=True, lifted=analysis.king))
        if guards:
            lines.append(f"{head}: guarded by {guard_list(analysis, target, guards)}")
        else:
            lines.append(f"{head}: free, the king can go there")
    return lines


def explain_captures_and_blocks(analysis: Analysis) -> list[str]:
    """Say, for the checker's cell and each cell of its line, what white piece could go there."""
    board = analysis.board
    name = board.geometry.get_cell_name_from_point
    label = piece_label(board)
    lines = []
    for target in analysis.evasion_cells():
        is_capture = target == analysis.checkers[0]
        what = f"capture of {label(target)}" if is_capture else f"block on {name(target)}"
        helpers = [
            origin
            for origin in attackers_of(board, target, by_black=False)
            if origin != analysis.king
        ]
        if not helpers:
            lines.append(f"{what}: no white piece can reach it")
            continue
        for origin in helpers:
            pin = analysis.pins.get(origin)
            if pin is not None and target not in pin.line:
                lines.append(f"{what}: {label(origin)} is pinned by {label(pin.pinner)}")
            else:
                lines.append(f"{what}: {label(origin)} can do it")
    return lines


def what_it_does(analysis: Analysis, move: Move) -> str:
    """Describe how a legal move answers the check."""
    name = analysis.board.geometry.get_cell_name_from_point
    if move.piece == "K":
        if move.captured is not None:
            return f"(the king takes the {PIECE_NAMES[move.captured]}, and no piece guards it)"
        return f"(the king steps to {name(move.target)}, which no black piece attacks)"
    if move.target in analysis.checkers:
        return f"(captures the checking {PIECE_NAMES[move.captured or 'k']})"
    return f"(blocks the line of the check on {name(move.target)})"


def piece_label(board: Board) -> Callable[[int], str]:
    """Return a function naming the piece on a cell as letter and cell, as `rc1(III)`."""
    name = board.geometry.get_cell_name_from_point

    def label(point: int) -> str:
        return board.cells[point] + name(point)

    return label


def guard_list(analysis: Analysis, target: int, guards: list[int]) -> str:
    """Name the guards of a flight cell, marking a line that runs through the king's cell."""
    label = piece_label(analysis.board)
    parts = []
    for guard in sorted(guards, key=label):
        through_king = analysis.board.cells[guard] in SLIDERS and analysis.king in cells_between(
            analysis.board, guard, target
        )
        parts.append(label(guard) + (" (through the king's cell)" if through_king else ""))
    return ", ".join(parts)


def line_kind(analysis: Analysis, checker: int) -> str:
    """Describe the line along which a piece gives check."""
    board = analysis.board
    piece = board.cells[checker]
    kind = PIECE_NAMES[piece]
    if piece == "n":
        return "(knight leap)"
    if piece == "k":
        return "(king next to the king)"
    ax, ay, az = board.geometry.get_xyz_from_point(analysis.king)
    bx, by, bz = board.geometry.get_xyz_from_point(checker)
    moved = [axis for axis, delta in zip("xyz", (bx - ax, by - ay, bz - az), strict=True) if delta]
    if moved == ["x"]:
        line = "along the rank"
    elif moved == ["y"]:
        line = "along the file"
    elif moved == ["z"]:
        line = "straight through the levels"
    elif len(moved) == 2:
        line = "along a flat diagonal"
    else:
        line = "along a triagonal"
    return f"({kind}, {line})"
