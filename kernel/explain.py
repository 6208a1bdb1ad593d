"""The reasoning behind `checkmate`'s answer, in lines a person reads at a terminal.

It asks the same questions as the verdict (kernel.rules: checkers, flights with the king
lifted, pins, evasion cells), but writes down every answer instead of stopping at the first
move that saves the king.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from kernel.board import BLACK_PIECES, WALL, WHITE_PIECES, Board
from kernel.rules import Analysis, Move, attack_between, cells_between, pieces_between

PIECE_NAMES = {"k": "king", "q": "queen", "r": "rook", "b": "bishop", "n": "knight"}
SLIDERS = "qrbQRB"


def explain(analysis: Analysis) -> str:
    """Explain the checkmate verdict of a position, one finding per line."""
    board = analysis.board
    king = board.geometry.get_cell_name_from_point(analysis.king)
    saving = next(analysis.legal_moves(), None)
    if not analysis.in_check:
        lines = [f"not checkmate: the white king on {king} is not in check"]
        if saving is None:
            lines.append("stalemate: white has no legal move")
        else:
            lines.append(f"white can play, for example, {saving.name(board)}")
        return "\n".join(lines)
    verdict = "checkmate" if saving is None else "not checkmate"
    label = piece_label(board)
    lines = [f"{verdict}: the white king on {king} is in check"]
    lines += [f"check from {label(c)} {line_kind(analysis, c)}" for c in analysis.checkers]
    lines += explain_flights(analysis)
    if len(analysis.checkers) > 1:
        lines.append("double check: no capture or block can answer both checkers")
    else:
        lines += explain_captures_and_blocks(analysis)
    if saving is not None:
        lines.append(f"saving move: {saving.name(board)} {what_it_does(analysis, saving)}")
    return "\n".join(lines)


def explain_flights(analysis: Analysis) -> list[str]:
    """Say, for each cell next to the king, whether the king may go there and why not."""
    board = analysis.board
    name = board.geometry.get_cell_name_from_point
    label = piece_label(board)
    lines = []
    for target in sorted(analysis.king + step for step in analysis.offsets.queen):
        piece = board.cells[target]
        if piece == WALL:
            continue
        if piece in WHITE_PIECES:
            lines.append(f"flight {name(target)}: own piece {label(target)} stands there")
            continue
        head = f"flight {name(target)}"
        if piece in BLACK_PIECES:
            head += f" (capture of {label(target)})"
        guards = sorted(analysis.attackers(target, by_black=True, lifted=analysis.king))
        if guards:
            named = ", ".join(guard_name(analysis, guard, target) for guard in guards)
            lines.append(f"{head}: guarded by {named}")
        else:
            lines.append(f"{head}: free, the king can go there")
    return lines


def guard_name(analysis: Analysis, guard: int, target: int) -> str:
    """Name a guard of a flight cell, marking a line that runs through the king's cell."""
    board = analysis.board
    text = piece_label(board)(guard)
    if board.cells[guard] in SLIDERS and analysis.king in cells_between(board, guard, target):
        text += " (through the king's cell)"
    return text


def explain_captures_and_blocks(analysis: Analysis) -> list[str]:
    """Say, for the checker's cell and each cell of its line, which white piece could go there."""
    board = analysis.board
    name = board.geometry.get_cell_name_from_point
    label = piece_label(board)
    checker = analysis.checkers[0]
    lines = []
    for target in analysis.evasion_cells():
        what = f"capture of {label(target)}" if target == checker else f"block on {name(target)}"
        reachers = list(analysis.attackers(target, by_black=False))
        helpers = [origin for origin in reachers if origin != analysis.king]
        # The king blocks nothing (that is a flight), but it may take a checker next to it.
        king_takes = target == checker and analysis.king in reachers
        if king_takes:
            lines.append(f"{what}: {king_capture(analysis, target)}")
        for origin in helpers:
            pin = analysis.pin_of(origin)
            if pin is not None and target not in pin.line:
                lines.append(f"{what}: {label(origin)} is pinned by {label(pin.pinner)}")
            else:
                lines.append(f"{what}: {label(origin)} can do it")
        blocked = [pair for pair in blocked_sliders(analysis, target) if pair[1] not in helpers]
        for slider, blocker in blocked:
            lines.append(f"{what}: {label(slider)} is blocked by {label(blocker)}")
        if not helpers and not blocked and not king_takes:
            lines.append(f"{what}: no white piece can reach it")
    return lines


def king_capture(analysis: Analysis, target: int) -> str:
    """Say whether the king may take the piece next to it, or who would guard it there."""
    guards = sorted(analysis.attackers(target, by_black=True, lifted=analysis.king))
    if not guards:
        return "the king can take it"
    named = ", ".join(guard_name(analysis, guard, target) for guard in guards)
    return f"the king would be guarded there by {named}"


def blocked_sliders(analysis: Analysis, target: int) -> Iterator[tuple[int, int]]:
    """Yield white sliders that would reach target but for one piece in between."""
    for origin, letter, _ in analysis.white_pieces:
        attack = attack_between(analysis.board, origin, target)
        if attack is None or not attack.step or letter not in attack.letters:
            continue
        between = pieces_between(analysis.board, origin, target)
        if len(between) == 1:
            yield origin, between[0]


def what_it_does(analysis: Analysis, move: Move) -> str:
    """Describe how a legal move answers the check."""
    name = analysis.board.geometry.get_cell_name_from_point
    if move.piece == "K":
        if move.captured is not None:
            return f"(the king takes the {PIECE_NAMES[move.captured]}, and no piece guards it)"
        return f"(the king steps to {name(move.target)}, which no black piece attacks)"
    if move.captured is not None:
        return f"(captures the checking {PIECE_NAMES[move.captured]})"
    return f"(blocks the line of the check on {name(move.target)})"


def piece_label(board: Board) -> Callable[[int], str]:
    """Return a function naming the piece on a cell as letter and cell, as `rc1(III)`."""
    name = board.geometry.get_cell_name_from_point

    def label(point: int) -> str:
        return board.cells[point] + name(point)

    return label


def line_kind(analysis: Analysis, checker: int) -> str:
    """Describe the line along which a piece gives check."""
    board = analysis.board
    piece = board.cells[checker]
    if piece == "n":
        return "(knight, a leap)"
    if piece == "k":
        return "(king, from the next cell)"
    king_xyz = board.geometry.get_xyz_from_point(analysis.king)
    checker_xyz = board.geometry.get_xyz_from_point(checker)
    moved = [axis for axis, a, b in zip("xyz", king_xyz, checker_xyz, strict=True) if a != b]
    line = {
        "x": "along the rank",
        "y": "along the file",
        "z": "straight through the levels",
    }.get("".join(moved), "along a flat diagonal" if len(moved) == 2 else "along a triagonal")
    return f"({PIECE_NAMES[piece]}, {line})"
