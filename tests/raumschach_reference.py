"""Slow, obviously-correct brute force for Raumschach (issue 48), written from the rules alone.

Raumschach (Ferdinand Maack, 1907; Dickins, *A Guide to Fairy Chess*) is played on 5×5×5:
levels A–E from white's side (the engine's I–V), files a–e, ranks 1–5. It shares no code with
kernel/ (nor with tests/reference.py, the cube's reference), so that the two can be compared.

A cell is (file, rank, level), each 0..4: (0, 0, 0) is a1 of level A, the engine's a1(I). A
position is a dict cell → letter (`KQRBNUP` white, `kqrbnup` black; empty cells absent) and the
side to move. A move is (from, to, promotion): promotion is "" or the new piece's letter in the
mover's case.

Everything is computed the long way. Pseudo-legal moves: every step of every piece of the side
to move. Legal: play the move on a copy and ask every enemy piece, one by one, whether it
captures on the king's cell (the offset from the piece to the king must be one of its steps
taken k times — k = 1 for a leaper or a pawn — with every cell between empty). Perft is a plain
recursion over copies; nothing is pruned, ordered or remembered.

The rules:

- Rook: the 6 orthogonal lines. Bishop: the 12 flat diagonals (two coordinates change by ±1).
  Unicorn: the 8 triagonals (all three change by ±1). Queen: all 26 lines. King: one step in
  the 26 directions. Knight: the 24 (2, 1, 0) leaps. No castling, no en passant.
- Pawn: white steps one cell +rank or one cell +level onto an empty cell, black −rank or −level,
  never two. White captures on (±1 file, +1 rank), (±1 file, +1 level) and (+1 rank, +1 level):
  five cells; black on their negatives.
- A white pawn that reaches rank 5 of level E (black: rank 1 of level A), by a step or a
  capture, becomes a queen, rook, bishop, unicorn or knight: five moves, one per choice.
- A move may not leave the mover's own king attacked. No legal move: checkmate when in check,
  stalemate otherwise.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

Cell = tuple[int, int, int]
Move = tuple[Cell, Cell, str]

SIZE = 5
WHITE = "w"
BLACK = "b"
WHITE_LETTERS = "KQRBNUP"
BLACK_LETTERS = "kqrbnup"
EMPTY = "#"
LEVEL_LETTERS = "ABCDE"
LEVEL_NUMERALS = ("I", "II", "III", "IV", "V")
FILE_LETTERS = "abcde"

# ---------------------------------------------------------------- steps

#: The 26 directions: each coordinate changes by -1, 0 or +1, not all 0.
ALL_DIRECTIONS: tuple[Cell, ...] = tuple(
    (dx, dy, dz)
    for dx in (-1, 0, 1)
    for dy in (-1, 0, 1)
    for dz in (-1, 0, 1)
    if (dx, dy, dz) != (0, 0, 0)
)
#: Every cell of the cube.
ALL_CELLS: tuple[Cell, ...] = tuple(
    (x, y, z) for x in range(SIZE) for y in range(SIZE) for z in range(SIZE)
)


def changed(step: Cell) -> int:
    """Count the coordinates a step changes."""
    return sum(1 for c in step if c != 0)


ROOK_DIRECTIONS = tuple(d for d in ALL_DIRECTIONS if changed(d) == 1)
BISHOP_DIRECTIONS = tuple(d for d in ALL_DIRECTIONS if changed(d) == 2)
UNICORN_DIRECTIONS = tuple(d for d in ALL_DIRECTIONS if changed(d) == 3)
KNIGHT_LEAPS: tuple[Cell, ...] = tuple(
    sorted(
        {
            (sa * a, sb * b, sc * c)
            for a, b, c in itertools.permutations((2, 1, 0))
            for sa, sb, sc in itertools.product((-1, 1), repeat=3)
        }
    )
)

#: Sliders: letter (lower case) → directions they slide along.
SLIDES: dict[str, tuple[Cell, ...]] = {
    "r": ROOK_DIRECTIONS,
    "b": BISHOP_DIRECTIONS,
    "u": UNICORN_DIRECTIONS,
    "q": ALL_DIRECTIONS,
}
#: Sliders: letter → every offset they may capture at, each a step taken k times (1 ≤ k < 5),
#: with that step and k: written out once, since asking each step of each piece whether it
#: reaches the king was most of a Raumschach test's time.
SLIDE_OFFSETS: dict[str, dict[Cell, tuple[Cell, int]]] = {
    kind: {
        (step[0] * times, step[1] * times, step[2] * times): (step, times)
        for step in steps
        for times in range(1, SIZE)
    }
    for kind, steps in SLIDES.items()
}
#: Leapers: letter (lower case) → the single steps they take.
LEAPS: dict[str, tuple[Cell, ...]] = {"k": ALL_DIRECTIONS, "n": KNIGHT_LEAPS}

#: A pawn's non-capturing steps and its capture steps, by side.
PAWN_STEPS: dict[str, tuple[Cell, ...]] = {
    WHITE: ((0, 1, 0), (0, 0, 1)),
    BLACK: ((0, -1, 0), (0, 0, -1)),
}
PAWN_CAPTURES: dict[str, tuple[Cell, ...]] = {
    WHITE: ((-1, 1, 0), (1, 1, 0), (-1, 0, 1), (1, 0, 1), (0, 1, 1)),
    BLACK: ((1, -1, 0), (-1, -1, 0), (1, 0, -1), (-1, 0, -1), (0, -1, -1)),
}
#: The pieces a pawn may become, in the order moves list them.
PROMOTION_CHOICES = "QRBUN"

STATUS: dict[tuple[bool, bool], str] = {
    (True, False): "checkmate",
    (True, True): "check",
    (False, False): "stalemate",
    (False, True): "normal",
}


@dataclass
class Position:
    """A Raumschach position: the occupied cells mapped to their letter; the side to move."""

    pieces: dict[Cell, str]
    side: str = WHITE


# ---------------------------------------------------------------- small helpers


def side_of(letter: str) -> str:
    """Return the side a piece letter belongs to."""
    if letter in WHITE_LETTERS:
        return WHITE
    if letter in BLACK_LETTERS:
        return BLACK
    raise ValueError(f"unknown piece {letter!r}")


def other(side: str) -> str:
    """Return the other side."""
    return BLACK if side == WHITE else WHITE


def on_board(cell: Cell) -> bool:
    """Tell whether a cell lies inside the 5×5×5 cube."""
    return all(0 <= c < SIZE for c in cell)


def plus(cell: Cell, step: Cell, times: int = 1) -> Cell:
    """Return cell moved `times` steps."""
    return (cell[0] + times * step[0], cell[1] + times * step[1], cell[2] + times * step[2])


def is_promotion_cell(cell: Cell, side: str) -> bool:
    """Tell whether a pawn of `side` arriving on cell promotes: E5 for white, A1 for black."""
    _, rank, level = cell
    return (rank, level) == ((SIZE - 1, SIZE - 1) if side == WHITE else (0, 0))


# ---------------------------------------------------------------- the start


def start_position() -> Position:
    """Return the Raumschach start, white to move.

    White: level A rank 1 R N K N R, rank 2 pawns; level B rank 1 B U Q B U, rank 2 pawns.
    Black: the same turned through the cube's centre, (x, y, z) → (4 − x, 4 − y, 4 − z).
    """
    white: dict[Cell, str] = {}
    for x, letter in enumerate("RNKNR"):
        white[(x, 0, 0)] = letter
    for x, letter in enumerate("BUQBU"):
        white[(x, 0, 1)] = letter
    for x in range(SIZE):
        white[(x, 1, 0)] = "P"
        white[(x, 1, 1)] = "P"
    pieces = dict(white)
    for (x, y, z), letter in white.items():
        pieces[(SIZE - 1 - x, SIZE - 1 - y, SIZE - 1 - z)] = letter.lower()
    return Position(pieces, WHITE)


# ---------------------------------------------------------------- moves


def pseudo_moves(pos: Position) -> list[Move]:
    """List every move of the side to move, by its piece's rules, whether or not it is legal."""
    moves: list[Move] = []
    side = pos.side
    for start, letter in pos.pieces.items():
        if side_of(letter) != side:
            continue
        kind = letter.lower()
        targets: list[Cell] = []
        if kind in SLIDES:
            for step in SLIDES[kind]:
                cell = plus(start, step)
                while on_board(cell):
                    targets.append(cell)
                    if cell in pos.pieces:
                        break  # blocked: this one may be a capture, nothing beyond it
                    cell = plus(cell, step)
        elif kind in LEAPS:
            targets = [plus(start, step) for step in LEAPS[kind] if on_board(plus(start, step))]
        if kind != "p":
            for cell in targets:
                if cell not in pos.pieces or side_of(pos.pieces[cell]) != side:
                    moves.append((start, cell, ""))
            continue
        pawn_targets = [
            plus(start, step)
            for step in PAWN_STEPS[side]
            if on_board(plus(start, step)) and plus(start, step) not in pos.pieces
        ] + [
            plus(start, step)
            for step in PAWN_CAPTURES[side]
            if plus(start, step) in pos.pieces and side_of(pos.pieces[plus(start, step)]) != side
        ]
        for cell in pawn_targets:
            if is_promotion_cell(cell, side):
                for choice in PROMOTION_CHOICES:
                    moves.append((start, cell, choice if side == WHITE else choice.lower()))
            else:
                moves.append((start, cell, ""))
    return moves


def play(pos: Position, move: Move) -> Position:
    """Return a copy of pos with the move played and the other side to move."""
    start, target, promotion = move
    pieces = dict(pos.pieces)
    letter = pieces.pop(start)
    pieces[target] = promotion or letter
    return Position(pieces, other(pos.side))


def captures_on(pos: Position, start: Cell, target: Cell) -> bool:
    """Tell whether the piece on start could capture on target (whatever stands there)."""
    letter = pos.pieces[start]
    kind = letter.lower()
    offset = (target[0] - start[0], target[1] - start[1], target[2] - start[2])
    if kind == "p":
        return offset in PAWN_CAPTURES[side_of(letter)]
    if kind in LEAPS:
        return offset in LEAPS[kind]
    line = SLIDE_OFFSETS[kind].get(offset)
    if line is None:
        return False
    step, times = line
    return all(plus(start, step, k) not in pos.pieces for k in range(1, times))


def attacked(pos: Position, cell: Cell, by: str) -> bool:
    """Tell whether any piece of side `by` could capture on cell."""
    return any(
        side_of(letter) == by and captures_on(pos, start, cell)
        for start, letter in pos.pieces.items()
    )


def king_cell(pos: Position, side: str) -> Cell | None:
    """Find the king of `side`; None when it has none."""
    king = "K" if side == WHITE else "k"
    for cell, letter in pos.pieces.items():
        if letter == king:
            return cell
    return None


def in_check(pos: Position, side: str | None = None) -> bool:
    """Tell whether the king of `side` (default: the side to move) is attacked."""
    side = pos.side if side is None else side
    king = king_cell(pos, side)
    return king is not None and attacked(pos, king, other(side))


def legal_moves(pos: Position) -> list[Move]:
    """List the moves that do not leave the mover's own king attacked, sorted."""
    return sorted(m for m in pseudo_moves(pos) if not in_check(play(pos, m), pos.side))


def status(pos: Position) -> str:
    """Return checkmate, stalemate, check or normal for the side to move."""
    return STATUS[in_check(pos), bool(legal_moves(pos))]


def perft(pos: Position, depth: int) -> int:
    """Count the leaves of the legal move tree `depth` plies deep."""
    if depth == 0:
        return 1
    moves = legal_moves(pos)
    if depth == 1:
        return len(moves)
    return sum(perft(play(pos, m), depth - 1) for m in moves)


def divide(pos: Position, depth: int) -> dict[str, int]:
    """Perft below each legal move, by the move's name (depth ≥ 1)."""
    return {move_text(pos, m): perft(play(pos, m), depth - 1) for m in legal_moves(pos)}


# ---------------------------------------------------------------- the engine's text


def cell_text(cell: Cell) -> str:
    """Name a cell as the engine does: (1, 0, 0) → b1(I)."""
    x, y, z = cell
    return f"{FILE_LETTERS[x]}{y + 1}({LEVEL_NUMERALS[z]})"


def raumschach_cell_text(cell: Cell) -> str:
    """Name a cell as Raumschach's books do, level letter first: (1, 0, 0) → Ab1."""
    x, y, z = cell
    return f"{LEVEL_LETTERS[z]}{FILE_LETTERS[x]}{y + 1}"


def parse_cell_text(text: str) -> Cell:
    """Read an engine cell name such as c3(II) back into (file, rank, level)."""
    match = re.fullmatch(r"([a-e])([1-5])\((I|II|III|IV|V)\)", text)
    if match is None:
        raise ValueError(f"bad cell {text!r}")
    file, rank, level = match.groups()
    return (FILE_LETTERS.index(file), int(rank) - 1, LEVEL_NUMERALS.index(level))


def move_text(pos: Position, move: Move) -> str:
    """Write a move as the engine does: `Nb1(I)-c3(I)`, `nb2(II)xa1(III)`, `Pb4(V)-b5(V)=Q`."""
    start, target, promotion = move
    sign = "x" if target in pos.pieces else "-"
    suffix = f"={promotion}" if promotion else ""
    return f"{pos.pieces[start]}{cell_text(start)}{sign}{cell_text(target)}{suffix}"


def legal_move_texts(pos: Position) -> list[str]:
    """List the legal moves as the engine writes them, sorted."""
    return sorted(move_text(pos, m) for m in legal_moves(pos))


def board_text(pos: Position) -> str:
    """Write the board as `set_board` reads it: levels top (E) first, in each the rank 5 row
    first, each row files a..e, `#` for an empty cell."""
    levels = []
    for z in reversed(range(SIZE)):
        rows = [
            "".join(pos.pieces.get((x, y, z), EMPTY) for x in range(SIZE))
            for y in reversed(range(SIZE))
        ]
        levels.append("[" + ",".join(rows) + "]")
    return ",".join(levels)


def set_board_text(pos: Position) -> str:
    """Write the whole `set_board` argument: the board, a space and the side, `w` or `b`."""
    return f"{board_text(pos)} {pos.side}"


def parse_board_text(text: str) -> Position:
    """Read what board_text writes (and `get_board` prints), with ` b` or ` w` after it."""
    board, _, side = text.strip().partition(" ")
    levels = board[1:-1].split("],[")
    if len(levels) != SIZE:
        raise ValueError(f"expected {SIZE} levels: {text!r}")
    pieces: dict[Cell, str] = {}
    for index, level in enumerate(levels):
        rows = level.split(",")
        if len(rows) != SIZE or any(len(row) != SIZE for row in rows):
            raise ValueError(f"level {index} is not {SIZE} rows of {SIZE}: {level!r}")
        for row_index, row in enumerate(rows):
            for x, letter in enumerate(row):
                if letter == EMPTY:
                    continue
                side_of(letter)  # refuses an unknown letter
                pieces[(x, SIZE - 1 - row_index, SIZE - 1 - index)] = letter
    return Position(pieces, side or WHITE)


def position_from(named: dict[str, str], side: str = WHITE) -> Position:
    """Build a position from pieces by engine cell name: {"c3(III)": "P", "a1(I)": "K"}."""
    return Position({parse_cell_text(name): letter for name, letter in named.items()}, side)


def mirrored(pos: Position) -> Position:
    """Turn a position through the cube's centre and swap the colours, the other side to move.

    Raumschach's rules are symmetric so: every count of the mirror equals the original's.
    """
    pieces = {
        (SIZE - 1 - x, SIZE - 1 - y, SIZE - 1 - z): letter.swapcase()
        for (x, y, z), letter in pos.pieces.items()
    }
    return Position(pieces, other(pos.side))


# ---------------------------------------------------------------- figures

#: Perft 1..4 of the start, computed by this module (`python -m tests.raumschach_reference 4`:
#: depth 3 takes some 10 s, depth 4 some 20 CPU minutes of CPython: 31 minutes on a loaded
#: 2-core machine). The engine counts the same (tests/test_raumschach.py).
START_PERFT: tuple[int, ...] = (61, 3615, 237316, 15587032)

#: Hand-made positions, (pieces by engine cell name, side to move, perft 1..3), each worked
#: out with the reference; the test of the reference checks the moves of several by hand, and
#: every one's mirror (mirrored) counts the same. None of them holds a pawn where no pawn can
#: ever stand (white's on rank 1, black's on rank 5).
HAND_POSITIONS: dict[str, tuple[dict[str, str], str, tuple[int, int, int]]] = {
    # White's pawn on c3(III) may take on all five of its capture cells; black's pieces beside
    # and behind it (c2(IV), b2(III), d3(II)) are not on them.
    "pawn captures in five directions": (
        {
            "a1(I)": "K",
            "e5(V)": "k",
            "c3(III)": "P",
            "b4(III)": "n",
            "d4(III)": "b",
            "b3(IV)": "r",
            "d3(IV)": "u",
            "c4(IV)": "q",
            "c2(IV)": "n",
            "b2(III)": "p",
            "d3(II)": "p",
            "c4(III)": "p",
        },
        WHITE,
        (10, 907, 7309),
    ),
    # Promotions by step, by step up a level and by capture, for white; black's b2(II) pawn
    # promotes by taking on b1(I) after white's move.
    "promotions": (
        {
            "a1(I)": "K",
            "b1(I)": "N",
            "e1(III)": "k",
            "c4(V)": "P",
            "b5(IV)": "P",
            "d4(IV)": "P",
            "a5(V)": "r",
            "d5(V)": "n",
            "e5(IV)": "b",
            "b2(II)": "p",
            "a1(II)": "R",
        },
        WHITE,
        (51, 1949, 83693),
    ),
    # Promotions that give check (as queen or rook, not as the others) and pawn steps that do.
    "promotion checks": (
        {
            "a1(I)": "K",
            "b4(V)": "P",
            "e4(IV)": "P",
            "d5(V)": "k",
            "a5(V)": "n",
            "e5(V)": "r",
            "d3(V)": "p",
            "e2(II)": "N",
        },
        WHITE,
        (34, 611, 20594),
    ),
    # White's king checked by the pawn on d4(III); the pawns on c4(III), c3(IV), b4(IV) do not
    # check it, but guard cells around it.
    "pawn checks": (
        {
            "c3(III)": "K",
            "d4(III)": "p",
            "c4(III)": "p",
            "c3(IV)": "p",
            "b4(IV)": "p",
            "e5(V)": "k",
            "a1(I)": "U",
            "e1(I)": "R",
            "b2(III)": "P",
        },
        WHITE,
        (12, 94, 3103),
    ),
    # A pawn pinned on its file (it may step along the pin, not up or aside), a bishop on a
    # flat diagonal, a unicorn on a triagonal (each along the pin or taking the pinner) and a
    # knight on a level line (not at all).
    "pins": (
        {
            "a1(I)": "K",
            "a2(I)": "P",
            "a5(I)": "r",
            "b3(I)": "b",
            "b1(II)": "B",
            "d1(IV)": "b",
            "b2(II)": "U",
            "d4(IV)": "q",
            "a1(II)": "N",
            "a1(V)": "r",
            "e5(III)": "k",
            "c4(V)": "p",
        },
        WHITE,
        (8, 663, 15774),
    ),
    # Pawns that cannot move: each blocked ahead and above, with nothing to take.
    "pawns blocked": (
        {
            "a1(I)": "K",
            "c3(II)": "P",
            "c4(II)": "p",
            "c3(III)": "p",
            "e5(V)": "k",
            "e2(II)": "P",
            "e3(II)": "p",
            "e2(III)": "B",
        },
        WHITE,
        (20, 178, 4171),
    ),
}


def main() -> None:
    """Print perft 1..4 of the start (depth 4 takes a long while) and the time each took."""
    import sys
    import time

    deepest = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    start = start_position()
    for depth in range(1, deepest + 1):
        began = time.perf_counter()
        count = perft(start, depth)
        print(f"perft {depth} = {count} ({time.perf_counter() - began:.1f} s)", flush=True)


if __name__ == "__main__":
    main()
