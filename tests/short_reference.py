"""Slow short names, by SAN's rule written out from the rules alone (docs/rules.md, "Short
notation"), over tests/reference.py's brute-force moves; shares no code with kernel/.

For every legal move: the piece's letter in upper case; then the least that tells it from
every other legal move of the same piece to the same cell, tried in SAN's order made 3D: the
file, the rank, the level, the whole cell; `x` when the cell holds a piece; the cell; `+` when
the move checks, `#` when it mates. Also the set of legal moves a lenient text may name, for
checking the engine's `ambiguous`.
"""

from __future__ import annotations

from tests import raumschach_reference as rs
from tests.reference import (
    Cell,
    Position,
    apply_move,
    cell_name,
    file_name,
    has_legal_move,
    in_check,
    legal_move_pairs,
    roman,
)

Pair = tuple[Cell, Cell]


def disambiguation(origin: Cell, others: list[Cell]) -> str:
    """SAN's least disambiguation, with the level as a third coordinate."""
    if not others:
        return ""
    for axis, written in (
        (0, file_name(origin[0])),
        (1, str(origin[1] + 1)),
        (2, f"({roman(origin[2] + 1)})"),
    ):
        if all(other[axis] != origin[axis] for other in others):
            return written
    return cell_name(origin)


def short_names(pos: Position) -> dict[Pair, str]:
    """Name every legal move of the side to move short, check signs included."""
    pairs = legal_move_pairs(pos)
    names = {}
    for origin, target in pairs:
        piece = pos.pieces[origin]
        others = [a for a, b in pairs if b == target and a != origin and pos.pieces[a] == piece]
        capture = "x" if target in pos.pieces else ""
        after = apply_move(pos, origin, target)
        sign = ("+" if has_legal_move(after) else "#") if in_check(after) else ""
        names[origin, target] = (
            f"{piece.upper()}{disambiguation(origin, others)}{capture}{cell_name(target)}{sign}"
        )
    return names


def levels_left_out(pos: Position, origin: Cell, target: Cell) -> tuple[str, list[Pair]]:
    """Write a move's long form with both levels left out (`Nb1-c3`), and list every legal
    move that text may name: the same letter, file and rank at both ends, any levels."""
    piece = pos.pieces[origin]
    text = f"{piece}{file_name(origin[0])}{origin[1] + 1}-{file_name(target[0])}{target[1] + 1}"
    fitting = [
        (a, b)
        for a, b in legal_move_pairs(pos)
        if pos.pieces[a] == piece and a[:2] == origin[:2] and b[:2] == target[:2]
    ]
    return text, fitting


def raumschach_short_names(pos: rs.Position) -> dict[rs.Move, str]:
    """Name every legal move of a Raumschach position short (tests/raumschach_reference.py's
    moves): a pawn has no letter and shows its file when it takes, a promotion `=Q`."""
    moves = rs.legal_moves(pos)
    names = {}
    for move in moves:
        origin, target, promotion = move
        piece = pos.pieces[origin]
        pawn = piece in "Pp"
        others = list(
            {a for a, b, _ in moves if b == target and a != origin and pos.pieces[a] == piece}
        )
        capture = target in pos.pieces
        written = disambiguation(origin, others)
        if pawn and capture and not written:
            written = file_name(origin[0])
        after = rs.play(pos, move)
        sign = ("#" if rs.status(after) == "checkmate" else "+") if rs.in_check(after) else ""
        letter = "" if pawn else piece.upper()
        promoted = f"={promotion.upper()}" if promotion else ""
        names[move] = (
            f"{letter}{written}{'x' if capture else ''}{rs.cell_text(target)}{promoted}{sign}"
        )
    return names
