"""Slow, obviously-correct brute force for the rules of docs/rules.md.

Written from the rules alone, independently of the kernel, so that the two can be compared.
Every answer is computed the long way: try every move of the side to move on a copy of the
position and ask every enemy piece, one by one, whether it can reach the king (the offset to
the king must be one the piece reaches on an empty board, a table built from its steps, and
every cell between must be empty). Moves, perft and mate in N ("Both sides" in rules.md) are
plain recursions over copies: nothing is pruned or ordered, only `any`/`all` stop at the first
answer that settles them. Perft counts and mate answers are remembered by position (each
depends on the position alone, and transpositions bring positions round again); nothing else
is. Boards go up to the largest the engine takes, n = 64 (LARGEST_BOARD).

The side to move is a value, `"w"` or `"b"`, carried by the position; white unless said
otherwise, so that every answer about a white-to-move position is what it always was.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal

Cell = tuple[int, int, int]
Side = Literal["w", "b"]

WHITE: Side = "w"
BLACK: Side = "b"

WHITE_LETTERS = "KQRBN"
BLACK_LETTERS = "kqrbn"
SIDE_LETTERS: dict[Side, str] = {"w": WHITE_LETTERS, "b": BLACK_LETTERS}
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

#: The edge of the largest cube the engine accepts (rules.md): no slide is longer than n - 1.
LARGEST_BOARD = 64


def reach(steps: frozenset[Cell], longest: int) -> dict[Cell, tuple[Cell, int]]:
    """Map every offset k steps along one of `steps` (1 ≤ k ≤ longest) to (that step, k)."""
    return {
        (k * dx, k * dy, k * dz): ((dx, dy, dz), k)
        for dx, dy, dz in steps
        for k in range(1, longest + 1)
    }


# Where each kind reaches on an empty board, as offset → (unit step, times): a king or knight
# one of its steps, a slider k steps along any of its directions, up to the largest board (no
# offset is reached two ways: each direction is a unit step).
KIND_REACH: dict[str, dict[Cell, tuple[Cell, int]]] = {
    "k": reach(KING_STEPS, 1),
    "n": reach(KNIGHT_JUMPS, 1),
    "q": reach(QUEEN_STEPS, LARGEST_BOARD - 1),
    "r": reach(ROOK_STEPS, LARGEST_BOARD - 1),
    "b": reach(BISHOP_STEPS, LARGEST_BOARD - 1),
}
# By piece letter, so that attacks looks a piece up at once: both colours move alike.
REACH: dict[str, dict[Cell, tuple[Cell, int]]] = {
    letter: KIND_REACH[letter.lower()] for letter in WHITE_LETTERS + BLACK_LETTERS
}

# Status by (the side to move in check, the side to move has a legal move).
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
    """An n×n×n board: the occupied cells only, mapped to their piece letter; a side to move."""

    n: int
    pieces: dict[Cell, str]
    side: Side = field(default=WHITE)

    def __post_init__(self) -> None:
        """Refuse a cube larger than the reach tables (REACH) cover."""
        if self.n > LARGEST_BOARD:
            raise ValueError(f"the reference covers boards up to n = {LARGEST_BOARD}, not {self.n}")

    def on_board(self, cell: Cell) -> bool:
        """Tell whether cell lies inside the cube."""
        n = self.n
        return 0 <= cell[0] < n and 0 <= cell[1] < n and 0 <= cell[2] < n


@dataclass(frozen=True)
class Analysis:
    """Every answer the reference gives about one position."""

    status: str
    checkers: list[str]
    legal_moves: list[str]

    @property
    def checkmate(self) -> bool:
        """Tell whether the side to move is checkmated."""
        return self.status == "checkmate"


# ---------------------------------------------------------------- names and notation


def is_white(letter: str) -> bool:
    """Tell whether a piece letter is white."""
    return letter in WHITE_LETTERS


def is_black(letter: str) -> bool:
    """Tell whether a piece letter is black."""
    return letter in BLACK_LETTERS


def colour(letter: str) -> Side:
    """Return the side a piece letter belongs to."""
    if letter in WHITE_LETTERS:
        return WHITE
    if letter in BLACK_LETTERS:
        return BLACK
    raise ValueError(f"unknown piece {letter!r}")


def pieces_of(pos: Position, side: Side) -> list[tuple[Cell, str]]:
    """List the (cell, letter) of every piece of one side."""
    letters = SIDE_LETTERS[side]
    return [(cell, piece) for cell, piece in pos.pieces.items() if piece in letters]


def opponent(side: Side) -> Side:
    """Return the other side."""
    return BLACK if side == WHITE else WHITE


def parse_side(text: str) -> Side:
    """Read a side as protocol.md writes it: w, b, white or black."""
    if text in ("w", "white"):
        return WHITE
    if text in ("b", "black"):
        return BLACK
    raise ValueError(f"bad side {text!r}")


def king_letter(side: Side) -> str:
    """Return the king's letter of a side."""
    return "K" if side == WHITE else "k"


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


@functools.lru_cache(maxsize=1 << 16)  # the sweeps name the same cells millions of times
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


def parse_board(text: str, n: int | None = None, side: Side = WHITE) -> Position:
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
    return Position(size, pieces, side)


def parse_game(text: str) -> Position:
    """Parse what `get_board` prints: the board, then ` b` when black is to move."""
    board, _, side = text.strip().partition(" ")
    return parse_board(board, side=parse_side(side) if side else WHITE)


def to_notation(n: int, pieces: dict[Cell, str]) -> str:
    """Write a position in canonical notation (no spaces, '#' for an empty cell)."""
    # rows[z][y]: every row empty, then each piece on the board written into its row.
    rows = [[EMPTY * n] * n for _ in range(n)]
    for (x, y, z), piece in pieces.items():
        if 0 <= x < n and 0 <= y < n and 0 <= z < n:
            row = rows[z][y]
            rows[z][y] = row[:x] + piece + row[x + 1 :]
    # The top level first, and in each level the last rank first.
    return ",".join("[" + ",".join(reversed(level)) + "]" for level in reversed(rows))


def board_text(pos: Position) -> str:
    """Write a position as `get_board` prints it: the board, then ` b` when black is to move."""
    board = to_notation(pos.n, pos.pieces)
    return board if pos.side == WHITE else board + " b"


# ---------------------------------------------------------------- attacks


def add(cell: Cell, step: Cell, times: int = 1) -> Cell:
    """Return cell moved `times` steps."""
    return (cell[0] + times * step[0], cell[1] + times * step[1], cell[2] + times * step[2])


def attacks(pos: Position, from_cell: Cell, to_cell: Cell) -> bool:
    """Tell whether the piece on from_cell could move to (capture on) to_cell."""
    x, y, z = from_cell
    offset = (to_cell[0] - x, to_cell[1] - y, to_cell[2] - z)
    # The piece reaches to_cell on an empty board (REACH)...
    found = REACH[pos.pieces[from_cell]].get(offset)
    if found is None or not pos.on_board(to_cell):
        return False
    # ...and every cell strictly between is empty (a leaper has none between).
    (dx, dy, dz), distance = found
    occupied = pos.pieces
    return all((x + i * dx, y + i * dy, z + i * dz) not in occupied for i in range(1, distance))


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


def attackers(pos: Position, target: Cell, by: Side) -> list[Cell]:
    """List every piece of side `by` that attacks target."""
    return [cell for cell, _ in pieces_of(pos, by) if attacks(pos, cell, target)]


def black_attackers(pos: Position, target: Cell) -> list[Cell]:
    """List every black piece that attacks target."""
    return attackers(pos, target, BLACK)


def side_in_check(pos: Position, side: Side) -> bool:
    """Tell whether the king of `side` is attacked; a side without a king is never in check."""
    # One pass finds the king and the enemy pieces: this runs once for every move tried.
    letter = king_letter(side)
    enemy_letters = SIDE_LETTERS[opponent(side)]
    king: Cell | None = None
    enemies: list[Cell] = []
    for cell, piece in pos.pieces.items():
        if piece == letter:
            if king is not None:
                raise ValueError(f"more than one {letter!r}")
            king = cell
        elif piece in enemy_letters:
            enemies.append(cell)
    if king is None:
        return False
    return any(attacks(pos, cell, king) for cell in enemies)


def in_check(pos: Position) -> bool:
    """Tell whether the side to move is in check (a white king must be on the board)."""
    white_king(pos)
    return side_in_check(pos, pos.side)


def black_in_check(pos: Position) -> bool:
    """Tell whether any white piece attacks the black king (False when there is none)."""
    return side_in_check(pos, BLACK)


def checkers(pos: Position) -> list[str]:
    """List the enemy pieces attacking the king of the side to move as letter + cell, sorted."""
    white_king(pos)
    king = king_cell(pos, king_letter(pos.side))
    if king is None:
        return []
    found = attackers(pos, king, opponent(pos.side))
    return sorted(pos.pieces[c] + cell_name(c) for c in found)


# ---------------------------------------------------------------- moves and status


def apply_move(pos: Position, from_cell: Cell, to_cell: Cell) -> Position:
    """Return a copy of pos with the piece moved (capturing what stood there), the turn passed."""
    pieces = dict(pos.pieces)
    pieces[to_cell] = pieces.pop(from_cell)
    return Position(pos.n, pieces, opponent(pos.side))


def move_name(pos: Position, from_cell: Cell, to_cell: Cell) -> str:
    """Name a move as legal_moves writes it: `Kc1(I)-c2(II)`, `nb2(II)xa1(III)`."""
    sign = "x" if to_cell in pos.pieces else "-"
    return f"{pos.pieces[from_cell]}{cell_name(from_cell)}{sign}{cell_name(to_cell)}"


def pseudo_moves(pos: Position) -> Iterator[tuple[Cell, Cell]]:
    """Yield every move of the side to move to an empty or enemy cell, legal or not.

    One by one, so that `any` over them stops generating at the first move that settles it.
    """
    for from_cell, _ in pieces_of(pos, pos.side):
        for to_cell in destinations(pos, from_cell):
            target = pos.pieces.get(to_cell)
            if target is None or colour(target) != pos.side:
                yield from_cell, to_cell


def is_legal(pos: Position, from_cell: Cell, to_cell: Cell) -> bool:
    """Tell whether a pseudo move leaves the mover's own king out of check."""
    return not side_in_check(apply_move(pos, from_cell, to_cell), pos.side)


def legal_move_pairs(pos: Position) -> list[tuple[Cell, Cell]]:
    """List every legal move of the side to move as (from, to)."""
    white_king(pos)  # a position without a white king has no answer
    return [(a, b) for a, b in pseudo_moves(pos) if is_legal(pos, a, b)]


def has_legal_move(pos: Position) -> bool:
    """Tell whether the side to move has at least one legal move (stops at the first)."""
    white_king(pos)
    return any(is_legal(pos, a, b) for a, b in pseudo_moves(pos))


def legal_moves(pos: Position) -> list[str]:
    """List every legal move of the side to move, `Kc1(I)-c2(II)` or `nb2(II)xa1(III)`, sorted."""
    return sorted(move_name(pos, a, b) for a, b in legal_move_pairs(pos))


def successors(pos: Position) -> list[tuple[str, Position]]:
    """List (move name, position after it) for every legal move, sorted by name."""
    return sorted((move_name(pos, a, b), apply_move(pos, a, b)) for a, b in legal_move_pairs(pos))


def analyse(pos: Position) -> Analysis:
    """Compute status, checkers and legal moves together (legal moves only once)."""
    moves = legal_moves(pos)
    found = checkers(pos)
    return Analysis(status=STATUS[bool(found), bool(moves)], checkers=found, legal_moves=moves)


def status(pos: Position) -> str:
    """Return checkmate, stalemate, check or normal."""
    return analyse(pos).status


def is_checkmate(pos: Position) -> bool:
    """Tell whether the side to move is in check with no legal move."""
    return in_check(pos) and not has_legal_move(pos)


def pinned_pieces(pos: Position) -> list[Cell]:
    """List the pinned pieces of the side to move: taking one off the board adds a checker."""
    white_king(pos)
    king = king_cell(pos, king_letter(pos.side))
    if king is None:
        return []
    enemy = opponent(pos.side)
    before = set(attackers(pos, king, enemy))
    pinned: list[Cell] = []
    for cell, piece in pos.pieces.items():
        if colour(piece) != pos.side or cell == king:
            continue
        without = Position(pos.n, {c: p for c, p in pos.pieces.items() if c != cell}, pos.side)
        if set(attackers(without, king, enemy)) - before:
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
        if side_in_check(pos, WHITE) and side_in_check(pos, BLACK):
            return "both kings in check"
    return None


def is_valid(pos: Position) -> bool:
    """Tell whether the engine must accept this position."""
    return validity_error(pos) is None


def game_error(pos: Position) -> str | None:
    """Say why play, perft and mate search must refuse this position (protocol.md), or None."""
    if king_cell(pos, "K") is None:
        return "no white king on the board"
    if side_in_check(pos, opponent(pos.side)):
        return "the side not to move is in check"
    return None


def is_game_position(pos: Position) -> bool:
    """Tell whether the position can arise in play: the side not to move is not in check."""
    return game_error(pos) is None


class Refused(ValueError):
    """A game command the engine must refuse; `reason` is the text after `? `."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def require_game(pos: Position) -> None:
    """Refuse a position that is not a game position."""
    error = game_error(pos)
    if error is not None:
        raise Refused(error)


# ---------------------------------------------------------------- play


CELL_PATTERN = r"[a-z]+[0-9]+\((?:[0-9]+|[IVXLCDM]+)\)"
MOVE_PATTERN = re.compile(rf"([KQRBNkqrbn]?)({CELL_PATTERN})([-x])({CELL_PATTERN})")

#: Why a move text is refused; the kinds protocol.md names, and text that is no move at all.
ILLEGAL_KINDS = ("syntax", "no piece", "letter", "cannot move so", "king in check")


class IllegalMove(Refused):
    """A `play` refused as `illegal move: ...`; `kind` is one of ILLEGAL_KINDS."""

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(f"illegal move: {detail}")
        self.kind = kind


def parse_move(pos: Position, text: str) -> tuple[Cell, Cell]:
    """Read a move of the side to move in the lenient forms of protocol.md; refuse it if illegal.

    The piece letter may be left out, `-` and `x` are interchangeable, levels may be decimal.
    """
    match = MOVE_PATTERN.fullmatch(text)
    if match is None:
        raise IllegalMove("syntax", f"cannot read {text!r}")
    letter, from_text, _, to_text = match.groups()
    try:
        from_cell, to_cell = parse_cell(from_text), parse_cell(to_text)
    except ValueError as error:
        raise IllegalMove("syntax", str(error)) from error
    if not (pos.on_board(from_cell) and pos.on_board(to_cell)):
        raise IllegalMove("syntax", "a cell off the board")
    piece = pos.pieces.get(from_cell)
    if piece is None or colour(piece) != pos.side:
        raise IllegalMove("no piece", f"no piece of the side to move on {cell_name(from_cell)}")
    if letter and letter != piece:
        raise IllegalMove("letter", f"{piece} stands on {cell_name(from_cell)}, not {letter}")
    target = pos.pieces.get(to_cell)
    if to_cell not in destinations(pos, from_cell) or (
        target is not None and colour(target) == pos.side
    ):
        raise IllegalMove("cannot move so", f"{piece} cannot move to {cell_name(to_cell)}")
    if not is_legal(pos, from_cell, to_cell):
        raise IllegalMove("king in check", "it would leave the king in check")
    return from_cell, to_cell


def play(pos: Position, text: str) -> Position:
    """Return the position after the move `text`; refuse a non-game position or an illegal move."""
    require_game(pos)
    from_cell, to_cell = parse_move(pos, text)
    return apply_move(pos, from_cell, to_cell)


# ---------------------------------------------------------------- perft


def perft(pos: Position, depth: int) -> int:
    """Count the leaves of the legal-move tree `depth` plies deep (rules.md), by recursion."""
    if depth < 0:
        raise ValueError(f"perft depth must be at least 0, got {depth}")
    require_game(pos)
    return _perft(pos, depth)


def _perft(pos: Position, depth: int) -> int:
    """Recurse without re-checking the game position (every legal move keeps one)."""
    if depth == 0:
        return 1
    return _remembered_perft(pos.n, frozenset(pos.pieces.items()), pos.side, depth)


# As with mates: moves played in another order reach the same position, whose count is the same.
@functools.lru_cache(maxsize=1 << 16)
def _remembered_perft(
    size: int, pieces: frozenset[tuple[Cell, str]], side: Side, depth: int
) -> int:
    """Count the leaves below a position given as its parts (hashable, so remembered)."""
    pos = Position(size, dict(pieces), side)
    return sum(_perft(apply_move(pos, a, b), depth - 1) for a, b in legal_move_pairs(pos))


def divide(pos: Position, depth: int) -> dict[str, int]:
    """Split perft(depth) by first move, the usual way to find where two counts differ."""
    require_game(pos)
    return {name: _perft(after, depth - 1) for name, after in successors(pos)}


# ---------------------------------------------------------------- mate in N


def mates_after(after: Position, n: int) -> bool:
    """Tell whether the attacker's move that led to `after` mates in n (rules.md, Mate in N).

    `after` has the defender to move. Mate in n: the defender is checkmated; or n ≥ 2, the
    defender has a legal move (stalemate is not mate), and after each one the attacker has a
    move that mates in n - 1.
    """
    return _mates_after(after.n, frozenset(after.pieces.items()), after.side, n)


# The answer depends on the position alone, and moves played in another order reach the same
# one: a third of the positions of the mate tests come round again.
@functools.lru_cache(maxsize=1 << 16)
def _mates_after(size: int, pieces: frozenset[tuple[Cell, str]], side: Side, n: int) -> bool:
    """Answer mates_after for a position given as its parts (hashable, so remembered)."""
    after = Position(size, dict(pieces), side)
    if in_check(after) and not has_legal_move(after):
        return True
    if n < 2:
        return False
    defences = legal_move_pairs(after)
    if not defences:
        return False  # stalemate
    # all/any stop at the first refuted defence or the first mating answer.
    return all(
        any(
            is_legal(reply, a, b) and mates_after(apply_move(reply, a, b), n - 1)
            for a, b in pseudo_moves(reply)
        )
        for reply in (apply_move(after, d, e) for d, e in defences)
    )


def mate_in(pos: Position, n: int) -> list[str]:
    """List every move of the side to move that mates in n (shorter mates included), sorted."""
    if n < 1:
        raise ValueError(f"mate in N needs N ≥ 1, got {n}")
    require_game(pos)
    return [name for name, after in successors(pos) if mates_after(after, n)]


def mate_depth(after: Position, n: int) -> int | None:
    """Return the fewest moves (≤ n) in which the move that led to `after` mates, or None."""
    for depth in range(1, n + 1):
        if mates_after(after, depth):
            return depth
    return None


# ---------------------------------------------------------------- solution trees


def solution(pos: Position, n: int) -> str:
    """Write the solution of mate in n in the engine's format (one mating answer per defence).

    One line per key at column 0; under a key each defence indented two spaces per level,
    written `<defence> <answer>`; a mating move is followed by ` #` (a key that mates at once:
    `<key> #`). Answers are the first, by name, among the quickest mates.
    """
    lines: list[str] = []
    for name, after in successors(pos):
        depth = mate_depth(after, n)
        if depth is None:
            continue
        if depth == 1 and is_checkmate(after):
            lines.append(f"{name} #")
            continue
        lines.append(name)
        lines += _defence_lines(after, depth, 1)
    return "\n".join(lines)


def _defence_lines(after: Position, n: int, level: int) -> list[str]:
    """Write every defence of `after` (defender to move) with a quickest mating answer."""
    lines: list[str] = []
    indent = "  " * level
    for defence, reply in successors(after):
        best: tuple[int, str, Position] | None = None
        for answer, answered in successors(reply):
            depth = mate_depth(answered, n - 1)
            if depth is not None and (best is None or depth < best[0]):
                best = (depth, answer, answered)
        if best is None:
            raise ValueError(f"no mating answer to {defence}: not a mate in {n}")
        depth, answer, answered = best
        if is_checkmate(answered):
            lines.append(f"{indent}{defence} {answer} #")
        else:
            lines.append(f"{indent}{defence} {answer}")
            lines += _defence_lines(answered, depth, level + 1)
    return lines


@dataclass
class _Line:
    """One parsed line of a solution: its level, its moves and whether it claims mate."""

    number: int
    level: int
    moves: list[str]
    mate: bool
    children: list[_Line] = field(default_factory=list)


def _parse_solution(text: str) -> tuple[list[_Line], list[str]]:
    """Read a solution into a tree of lines; return the keys' lines and the format problems."""
    problems: list[str] = []
    roots: list[_Line] = []
    stack: list[_Line] = []
    for number, raw in enumerate(text.split("\n"), start=1):
        if not raw.strip():
            problems.append(f"line {number}: empty")
            continue
        stripped = raw.lstrip(" ")
        spaces = len(raw) - len(stripped)
        if spaces % 2:
            problems.append(f"line {number}: odd indentation {raw!r}")
            continue
        words = stripped.split(" ")
        mate = words[-1] == "#"
        if mate:
            words = words[:-1]
        line = _Line(number, spaces // 2, words, mate)
        if line.level == 0:
            if len(words) != 1:
                problems.append(f"line {number}: a key line holds one move: {raw!r}")
            roots.append(line)
            stack = [line]
            continue
        if len(words) != 2:
            problems.append(f"line {number}: a defence line holds two moves: {raw!r}")
        if line.level > len(stack):
            problems.append(f"line {number}: indented too deep: {raw!r}")
            continue
        del stack[line.level :]
        stack[-1].children.append(line)
        stack.append(line)
    return roots, problems


def check_solution(pos: Position, n: int, text: str, mates: list[str] | None = None) -> list[str]:
    """List what is wrong with a `solution n` text, checked move by move; empty when sound.

    The keys must be exactly mate_in(pos, n) (`mates`, when the caller has it already: the
    brute force is costly); under each key every legal defence must be listed once with a
    legal answer, each line claiming mate (` #`) must checkmate, each line that does not must
    go on, and no line may run past n moves of the attacker.
    """
    roots, problems = _parse_solution(text) if text else ([], [])
    keys = [root.moves[0] for root in roots if root.moves]
    expected = mate_in(pos, n) if mates is None else mates
    if keys != expected:
        problems.append(f"keys {keys} differ from mate_in {expected}")
    moves = dict(successors(pos))
    for root in roots:
        if not root.moves or root.moves[0] not in moves:
            problems.append(f"line {root.number}: key {root.moves} is not a legal move")
            continue
        problems += _check_node(moves[root.moves[0]], root, n, root.moves[0])
    return problems


def _check_node(after: Position, line: _Line, n: int, path: str) -> list[str]:
    """Check the subtree under one attacker move that led to `after` with n moves allowed."""
    if line.mate:
        if line.children:
            return [f"line {line.number}: mate claimed but the line goes on ({path})"]
        if not is_checkmate(after):
            return [f"line {line.number}: {path} claims mate but does not checkmate"]
        return []
    if n < 2:
        return [f"line {line.number}: {path} needs more moves than allowed"]
    defences = dict(successors(after))
    if not defences:
        return [f"line {line.number}: {path} leaves the defender without moves but not mated"]
    problems: list[str] = []
    listed = [child.moves[0] for child in line.children if child.moves]
    if sorted(listed) != sorted(defences) or len(set(listed)) != len(listed):
        missing = sorted(set(defences) - set(listed))
        extra = sorted(set(listed) - set(defences))
        problems.append(
            f"line {line.number}: defences after {path}: missing {missing}, "
            f"not legal {extra}, listed {len(listed)} for {len(defences)}"
        )
    for child in line.children:
        if len(child.moves) != 2 or child.moves[0] not in defences:
            continue
        defence, answer = child.moves
        answers = dict(successors(defences[defence]))
        if answer not in answers:
            problems.append(f"line {child.number}: {answer} is not legal after {path} {defence}")
            continue
        problems += _check_node(answers[answer], child, n - 1, f"{path} {defence} {answer}")
    return problems
