"""Slow, obviously-correct brute force for the rules of ../shared/rules.md.

Written from the rules alone, independently of the kernel, so that the two can be compared.
Every answer is computed the long way: try every white move on a copy of the position and ask
every black piece, one by one, whether it can reach the white king.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

Cell = tuple[int, int, int]

WHITE_LETTERS = "KQRBN"
BLACK_LETTERS = "kqrbn"
EMPTY = "#"

# The 26 king steps: each of dx, dy, dz in {-1, 0, 1}, not all zero.
KING_STEPS: frozenset[Cell] = frozenset(
    d for d in itertools.product((-1, 0, 1), (-1, 0, 1), (-1, 0, 1)) if d != (0, 0, 0)
)
# Rook: exactly one axis moves.
ROOK_STEPS: frozenset[Cell] = frozenset(d for d in KING_STEPS if sum(map(abs, d)) == 1)
# Bishop: all three axes move at once (triagonal), never a flat diagonal.
BISHOP_STEPS: frozenset[Cell] = frozenset(d for d in KING_STEPS if 0 not in d)
# Queen: rook + bishop + the 12 flat diagonals = all 26 directions.
QUEEN_STEPS: frozenset[Cell] = KING_STEPS
# Knight: every permutation of (±2, ±1, 0).
KNIGHT_JUMPS: frozenset[Cell] = frozenset(
    (sx * a, sy * b, sz * c)
    for a, b, c in itertools.permutations((2, 1, 0))
    for sx, sy, sz in itertools.product((-1, 1), repeat=3)
)

SLIDER_STEPS: dict[str, frozenset[Cell]] = {"q": QUEEN_STEPS, "r": ROOK_STEPS, "b": BISHOP_STEPS}
LEAPER_STEPS: dict[str, frozenset[Cell]] = {"k": KING_STEPS, "n": KNIGHT_JUMPS}

# Status by (white in check, white has a legal move).
STATUS: dict[tuple[bool, bool], str] = {
    (True, False): "checkmate",
    (True, True): "check",
    (False, False): "stalemate",
    (False, True): "normal",
}

ROMAN_VALUES = (
    (1000, "M"),
    (900, "CM"),
    (500, "D"),
    (400, "CD"),
    (100, "C"),
    (90, "XC"),
    (50, "L"),
    (40, "XL"),
    (10, "X"),
    (9, "IX"),
    (5, "V"),
    (4, "IV"),
    (1, "I"),
)


@dataclass
class Position:
    """An n×n×n board: the occupied cells only, mapped to their piece letter."""

    n: int
    pieces: dict[Cell, str]

    def on_board(self, cell: Cell) -> bool:
        """Tell whether cell lies inside the cube."""
        return all(0 <= c < self.n for c in cell)


@dataclass(frozen=True)
class Analysis:
    """Every answer the reference gives about one position."""

    status: str
    checkers: list[str]
    legal_moves: list[str]

    @property
    def checkmate(self) -> bool:
        """Tell whether white is checkmated."""
        return self.status == "checkmate"


# ---------------------------------------------------------------- names and notation


def is_white(letter: str) -> bool:
    """Tell whether a piece letter is white."""
    return letter in WHITE_LETTERS


def is_black(letter: str) -> bool:
    """Tell whether a piece letter is black."""
    return letter in BLACK_LETTERS


def file_name(x: int) -> str:
    """Name file x spreadsheet style: 0 → a, 25 → z, 26 → aa, 27 → ab."""
    name = ""
    x += 1
    while x > 0:
        x, rest = divmod(x - 1, 26)
        name = chr(ord("a") + rest) + name
    return name


def roman(value: int) -> str:
    """Write a positive integer as an upper-case Roman numeral."""
    if value < 1:
        raise ValueError(f"no Roman numeral for {value}")
    out = ""
    for size, symbol in ROMAN_VALUES:
        count, value = divmod(value, size)
        out += symbol * count
    return out


def cell_name(cell: Cell) -> str:
    """Name a cell as file, rank, level: (2, 1, 1) → c2(II)."""
    x, y, z = cell
    return f"{file_name(x)}{y + 1}({roman(z + 1)})"


def parse_roman(text: str) -> int:
    """Read an upper-case Roman numeral (or a decimal number) as an integer."""
    if text.isdigit():
        return int(text)
    value = 0
    rest = text
    for size, symbol in ROMAN_VALUES:
        while rest.startswith(symbol):
            value += size
            rest = rest[len(symbol) :]
    if rest or not text or roman(value) != text:
        raise ValueError(f"bad level {text!r}")
    return value


def parse_cell(name: str) -> Cell:
    """Read a cell name such as c2(II) or c2(2) back into (x, y, z)."""
    match = re.fullmatch(r"([a-z]+)([0-9]+)\(([0-9]+|[IVXLCDM]+)\)", name)
    if match is None:
        raise ValueError(f"bad cell name {name!r}")
    letters, rank, level = match.groups()
    x = 0
    for char in letters:
        x = x * 26 + (ord(char) - ord("a") + 1)
    return (x - 1, int(rank) - 1, parse_roman(level) - 1)


def board_from_cells(n: int, named: dict[str, str]) -> str:
    """Write canonical notation for pieces given by cell name: {"a1(I)": "K"}."""
    return to_notation(n, {parse_cell(name): piece for name, piece in named.items()})


def parse_board(text: str, n: int | None = None) -> Position:
    """Parse canonical notation: layers top first, rows back first, files a → last."""
    text = text.strip()
    if not (text.startswith("[") and text.endswith("]")):
        raise ValueError("board must be bracketed layers")
    layers = text[1:-1].split("],[")
    size = len(layers)
    if n is not None and n != size:
        raise ValueError(f"expected {n} layers, got {size}")
    if size < 2:
        raise ValueError("a board has at least 2 layers")
    pieces: dict[Cell, str] = {}
    for layer_index, layer in enumerate(layers):
        rows = layer.split(",")
        if len(rows) != size:
            raise ValueError(f"layer {layer_index} has {len(rows)} rows, expected {size}")
        z = size - 1 - layer_index  # top layer first
        for row_index, row in enumerate(rows):
            if len(row) != size:
                raise ValueError(f"row {row!r} has {len(row)} cells, expected {size}")
            y = size - 1 - row_index  # back row first
            for x, char in enumerate(row):
                if char == EMPTY:
                    continue
                if char not in WHITE_LETTERS + BLACK_LETTERS:
                    raise ValueError(f"unknown piece {char!r}")
                pieces[(x, y, z)] = char
    return Position(size, pieces)


def to_notation(n: int, pieces: dict[Cell, str]) -> str:
    """Write a position in canonical notation (no spaces, '#' for an empty cell)."""
    layers = []
    for z in reversed(range(n)):
        rows = []
        for y in reversed(range(n)):
            rows.append("".join(pieces.get((x, y, z), EMPTY) for x in range(n)))
        layers.append("[" + ",".join(rows) + "]")
    return ",".join(layers)


# ---------------------------------------------------------------- attacks


def add(cell: Cell, step: Cell, times: int = 1) -> Cell:
    """Return cell moved `times` steps."""
    return (cell[0] + times * step[0], cell[1] + times * step[1], cell[2] + times * step[2])


def attacks(pos: Position, from_cell: Cell, to_cell: Cell) -> bool:
    """Tell whether the piece on from_cell could move to (capture on) to_cell."""
    kind = pos.pieces[from_cell].lower()
    dx = to_cell[0] - from_cell[0]
    dy = to_cell[1] - from_cell[1]
    dz = to_cell[2] - from_cell[2]
    if kind in LEAPER_STEPS:
        return (dx, dy, dz) in LEAPER_STEPS[kind] and pos.on_board(to_cell)
    # A slider reaches to_cell only if the offset is a whole number of one of its unit steps...
    distance = max(abs(dx), abs(dy), abs(dz))
    if distance == 0:
        return False
    for d in (dx, dy, dz):
        if d != 0 and abs(d) != distance:
            return False
    step = (dx // distance, dy // distance, dz // distance)
    if step not in SLIDER_STEPS[kind] or not pos.on_board(to_cell):
        return False
    # ...and every cell strictly between is empty.
    occupied = pos.pieces
    x, y, z = from_cell
    for i in range(1, distance):
        if (x + i * step[0], y + i * step[1], z + i * step[2]) in occupied:
            return False
    return True


def destinations(pos: Position, from_cell: Cell) -> list[Cell]:
    """List every cell the piece on from_cell reaches, own pieces included (caller filters)."""
    kind = pos.pieces[from_cell].lower()
    found: list[Cell] = []
    if kind in LEAPER_STEPS:
        for step in LEAPER_STEPS[kind]:
            target = add(from_cell, step)
            if pos.on_board(target):
                found.append(target)
        return found
    for step in SLIDER_STEPS[kind]:
        target = add(from_cell, step)
        while pos.on_board(target):
            found.append(target)
            if target in pos.pieces:
                break  # blocked: this cell may be captured, nothing beyond it reached
            target = add(target, step)
    return found


def king_cell(pos: Position, letter: str) -> Cell | None:
    """Find the king of the given letter ('K' or 'k'); None when absent."""
    cells = [cell for cell, piece in pos.pieces.items() if piece == letter]
    if len(cells) > 1:
        raise ValueError(f"more than one {letter!r}")
    return cells[0] if cells else None


def white_king(pos: Position) -> Cell:
    """Find the white king, which must exist."""
    cell = king_cell(pos, "K")
    if cell is None:
        raise ValueError("no white king on the board")
    return cell


def black_attackers(pos: Position, target: Cell) -> list[Cell]:
    """List every black piece that attacks target."""
    return [
        cell for cell, piece in pos.pieces.items() if is_black(piece) and attacks(pos, cell, target)
    ]


def in_check(pos: Position) -> bool:
    """Tell whether any black piece attacks the white king."""
    return bool(black_attackers(pos, white_king(pos)))


def black_in_check(pos: Position) -> bool:
    """Tell whether any white piece attacks the black king (False when there is none)."""
    target = king_cell(pos, "k")
    if target is None:
        return False
    return any(is_white(piece) and attacks(pos, cell, target) for cell, piece in pos.pieces.items())


def checkers(pos: Position) -> list[str]:
    """List the black pieces attacking the white king as letter + cell, sorted."""
    return sorted(pos.pieces[c] + cell_name(c) for c in black_attackers(pos, white_king(pos)))


# ---------------------------------------------------------------- moves and status


def apply_move(pos: Position, from_cell: Cell, to_cell: Cell) -> Position:
    """Return a copy of pos with the piece moved (capturing whatever stood on to_cell)."""
    pieces = dict(pos.pieces)
    pieces[to_cell] = pieces.pop(from_cell)
    return Position(pos.n, pieces)


def legal_moves(pos: Position) -> list[str]:
    """List every legal white move, `Kc1(I)-c2(II)` or `Nb2(II)xa1(III)`, sorted."""
    white_king(pos)  # a position without a white king has no answer
    moves: list[str] = []
    for from_cell, piece in pos.pieces.items():
        if not is_white(piece):
            continue
        for to_cell in destinations(pos, from_cell):
            target = pos.pieces.get(to_cell)
            if target is not None and is_white(target):
                continue
            if in_check(apply_move(pos, from_cell, to_cell)):
                continue
            sign = "-" if target is None else "x"
            moves.append(f"{piece}{cell_name(from_cell)}{sign}{cell_name(to_cell)}")
    return sorted(moves)


def analyse(pos: Position) -> Analysis:
    """Compute status, checkers and legal moves together (legal moves only once)."""
    moves = legal_moves(pos)
    found = checkers(pos)
    return Analysis(status=STATUS[bool(found), bool(moves)], checkers=found, legal_moves=moves)


def status(pos: Position) -> str:
    """Return checkmate, stalemate, check or normal."""
    return analyse(pos).status


def is_checkmate(pos: Position) -> bool:
    """Tell whether white is in check with no legal move."""
    return status(pos) == "checkmate"


def pinned_pieces(pos: Position) -> list[Cell]:
    """List the white pieces that are pinned: taking them off the board adds a checker."""
    king = white_king(pos)
    before = set(black_attackers(pos, king))
    pinned: list[Cell] = []
    for cell, piece in pos.pieces.items():
        if not is_white(piece) or piece == "K":
            continue
        without = Position(pos.n, {c: p for c, p in pos.pieces.items() if c != cell})
        if set(black_attackers(without, king)) - before:
            pinned.append(cell)
    return pinned


# ---------------------------------------------------------------- validity


def validity_error(pos: Position) -> str | None:
    """Say why the engine must refuse this position, or None if it is acceptable."""
    white_kings = [c for c, p in pos.pieces.items() if p == "K"]
    black_kings = [c for c, p in pos.pieces.items() if p == "k"]
    if len(white_kings) != 1:
        return f"expected exactly one white king, got {len(white_kings)}"
    if len(black_kings) > 1:
        return f"expected at most one black king, got {len(black_kings)}"
    if black_kings:
        wk, bk = white_kings[0], black_kings[0]
        if max(abs(a - b) for a, b in zip(wk, bk, strict=True)) == 1:
            return "kings on neighbouring cells"
        if in_check(pos) and black_in_check(pos):
            return "both kings in check"
    return None


def is_valid(pos: Position) -> bool:
    """Tell whether the engine must accept this position."""
    return validity_error(pos) is None
