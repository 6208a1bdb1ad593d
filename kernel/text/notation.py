"""Every text the engine reads or writes about a position: letters, cells, moves and boards.

Letters: `KQRBN` white, `kqrbn` black (and Raumschach's `U`/`u` unicorn and `P`/`p` pawn),
`#` an empty cell, `+` the wall. Cells: `c2(II)`, file letters, rank number, level numeral;
read also level letter first, as Raumschach's players write them (`Bc2`). Moves:
`Kc1(I)-c2(II)`, `nb2(II)xa1(III)`, a promotion `Pb4(V)-b5(V)=Q`.
Boards: out in the canonical form `[row,row,...],[...]`, layers top first, rows back first;
in, the same with the slack people need when they paste boards: an optional size first
(`3`, `n=3`, `n = 3,`), white space anywhere, quotes around rows, outer brackets, rows
bracketed one by one, and `.` as another empty cell.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from math import isqrt
from typing import NamedTuple

# The cell letters and side names are re-exported: callers that read and write text find them here.
from kernel.cube.board import EMPTY as EMPTY
from kernel.cube.board import SIDE_LETTERS as SIDE_LETTERS
from kernel.cube.board import SIDE_NAMES as SIDE_NAMES
from kernel.cube.board import WALL as WALL
from kernel.cube.board import Geometry
from kernel.cube.position import Move, Position
from kernel.cube.variants import PIECE_NAMES as PIECE_NAMES
from kernel.cube.variants import Variant
from kernel.protocol import shorten

WHITE_PIECES, BLACK_PIECES = SIDE_LETTERS
PIECE_LETTERS = WHITE_PIECES + BLACK_PIECES
#: What `set_board` accepts as its SIDE word, and the side each names.
SIDE_WORDS = {"w": 0, "white": 0, "b": 1, "black": 1}

CELL_LETTERS = WHITE_PIECES + BLACK_PIECES + EMPTY
ALTERNATIVE_EMPTY = "."
#: More digits than any board size has; int() of far more is slow or refused.
MAX_SIZE_DIGITS = 9

# Patterns stay strings: `re` compiles and caches them on first use, not at start-up.
SIZE_PREFIX = r"\s*(?:n\s*=\s*)?([+-]?[0-9]+)\s*,?"
#: Brackets, and runs of anything that is not a separator (a row, or garbage to report).
TOKEN = r"[\[\]]|[^\[\],\s\"']+"
#: The same where commas separate the rows: white space inside a row is then only space,
#: so `# q` is the row `#q` ("white space anywhere").
TOKEN_SPACED = r"[\[\]]|[^\[\],\s\"']+(?:\s+[^\[\],\s\"']+)*"
#: The two comment modes of the protocol (config `protocol.comments`).
COMMENTS_LINE_START = "line-start"
COMMENTS_ANYWHERE = "anywhere"


class NotationError(ValueError):
    """Text that cannot be read as a board, a cell or a move; the message says why, for the user."""


class BoardText(NamedTuple):
    """A board read from text: its size and its n*n rows, top layer and back row first."""

    size: int
    rows: list[str]


def format_board(board: Position, empty: str = EMPTY) -> str:
    """Write a board in the canonical notation, with `empty` for an empty cell."""
    size = board.size
    rows = board.rows()
    text = ",".join(
        "[" + ",".join(rows[layer : layer + size]) + "]" for layer in range(0, len(rows), size)
    )
    return text if empty == EMPTY else text.replace(EMPTY, empty)


def parse_board(text: str, max_size: int, comments: str = COMMENTS_LINE_START) -> BoardText:
    """Read board text in any accepted form; raise NotationError naming the problem.

    `comments` is the protocol's comment mode; it only words the hint given when a board
    looks cut short at a `#` taken for a comment.
    """
    declared: int | None = None
    prefix = re.match(SIZE_PREFIX, text)
    if prefix is not None:
        digits = prefix.group(1)
        if len(digits.lstrip("+-0")) > MAX_SIZE_DIGITS:
            raise NotationError(f"size {shorten(digits)} is outside 2 ... {max_size}")
        declared = int(digits)
        text = text[prefix.end() :]
        check_size(declared, max_size)
    written = text
    text = text.strip().replace(ALTERNATIVE_EMPTY, EMPTY)
    if not text:
        raise NotationError("no rows given")
    # The canonical form, in the size its first row gives, takes a fast path; anything else
    # takes the slower reader, which also names what is wrong.
    first_row_size = text.find(",") - 1
    if declared in (None, first_row_size) and 2 <= first_row_size <= max_size:
        rows = canonical_rows(text, first_row_size)
        if rows is not None:
            return BoardText(first_row_size, rows)
    check_bracket_count(text, max_size)
    try:
        rows, groups = _read_loose(text, max_size * max_size)
    except UnclosedBracket as error:
        raise NotationError(f"{error}{_cut_hint(written, comments)}") from None
    except TooManyRows as error:
        if declared is None:
            raise
        raise NotationError(
            f"expected {declared * declared} rows of {declared} cells, got more than {error.most}"
        ) from None
    size = declared if declared is not None else _infer_size(rows, max_size)
    check_size(size, max_size)
    _check_shape(rows, groups, size, declared is not None)
    return BoardText(size, rows)


#: Every byte a canonical board may hold but its brackets and commas.
_CELL_BYTES = (WHITE_PIECES + BLACK_PIECES + EMPTY).encode()


def canonical_rows(text: str, size: int) -> list[str] | None:
    """Return the rows of a board in canonical notation, or None if it is not in that form.

    The canonical text of a size has one length, and its brackets and commas stand at fixed
    places, each kind in steps of one layer: a few slices check them all. What is left must be
    cell letters, which one byte deletion checks. All of it runs at C speed, which matters at
    n = 64 (266,000 characters). The rows are then the text split at commas, less the bracket
    at each end of a layer.
    """
    row_stride = size + 1
    layer_stride = size * row_stride + 2  # n rows and their commas or bracket, "[", ","
    if len(text) != size * layer_stride - 1 or not text.isascii():
        return None
    last = layer_stride - 2  # where a layer's "]" stands, from its "["
    if (
        text[::layer_stride] != "[" * size
        or text[last::layer_stride] != "]" * size
        or text[last + 1 :: layer_stride] != "," * (size - 1)
    ):
        return None
    commas = "," * size
    for row in range(size - 1):
        if text[size + 1 + row * row_stride :: layer_stride] != commas:
            return None
    separators = size * size - 1 + 2 * size
    if len(text.encode().translate(None, _CELL_BYTES)) != separators:
        return None  # a character that is no cell letter
    rows = text.split(",")
    for first in range(0, size * size, size):
        rows[first] = rows[first][1:]
        rows[first + size - 1] = rows[first + size - 1][:-1]
    return rows


def most_brackets(max_size: int) -> int:
    """Return the most bracket pairs a board of size up to max_size is written with: one round
    each row, each layer and the whole board."""
    return max_size * max_size + max_size + 1


def check_bracket_count(text: str, max_size: int) -> None:
    """Refuse, at C speed, text with more opening brackets than any board holds.

    The reader below takes a few hundred nanoseconds a bracket in Python: a line of nothing but
    brackets (a million of them fit under the line limit) would cost it seconds and hundreds
    of megabytes; counted first, it costs a millisecond.
    """
    opened = text.count("[")
    most = most_brackets(max_size)
    if opened > most:
        raise NotationError(
            f"{opened} '[' are more than any board holds (at most {most} for size {max_size}:"
            " a pair round each row, each layer and the whole board)"
        )


def check_size(size: int, max_size: int) -> None:
    """Refuse a board size outside 2 ... max_size."""
    if not 2 <= size <= max_size:
        raise NotationError(f"size {size} is outside 2 ... {max_size}")


class UnclosedBracket(NotationError):
    """The text ends inside an open bracket (perhaps cut short on its way)."""


class TooManyRows(NotationError):
    """More rows than a board of the largest size has; `most` is that many."""

    def __init__(self, message: str, most: int) -> None:
        super().__init__(message)
        self.most = most


class Group(NamedTuple):
    """One bracket pair of board text: the rows it holds and what it holds them as."""

    column: int  # of its opening bracket, counted from 1
    start: int  # index of its first row
    end: int  # index after its last row
    holds_layers: bool  # it holds a bracket group of several rows (a layer, or more)
    top_level: bool  # no bracket encloses it


class _Open(NamedTuple):
    """An opening bracket not yet closed, while the text is read."""

    column: int
    start: int
    # Filled in as the group is read: whether it holds a group of several rows.
    holds_layers: list[bool]


def _read_loose(text: str, most_rows: int) -> tuple[list[str], list[Group]]:
    """Split free-form text into rows, and list its bracket groups of more than one row.

    Where commas separate the rows, white space inside a row is dropped; elsewhere it
    separates rows, as in `### n## #rr` or `[[Bq] [##]]`. Past `most_rows` rows, the most a
    board may have, the text is refused at once: the rows are read in Python, and a line of
    a million one-letter rows would take a second.
    """
    rows: list[str] = []
    groups: list[Group] = []
    opened: list[_Open] = []
    spaced = "," in text
    for match in re.finditer(TOKEN_SPACED if spaced else TOKEN, text):
        token = match.group()
        if token == "[":
            opened.append(_Open(match.start() + 1, len(rows), [False]))
        elif token == "]":
            if not opened:
                raise NotationError(f"unbalanced brackets: ']' at column {match.start() + 1}")
            group = opened.pop()
            count = len(rows) - group.start
            if count != 1:  # a row bracketed alone says nothing about layers
                groups.append(
                    Group(group.column, group.start, len(rows), group.holds_layers[0], not opened)
                )
                if opened and count > 1:
                    opened[-1].holds_layers[0] = True
        else:
            row = "".join(token.split()) if spaced else token
            _check_letters(row, len(rows) + 1)
            if len(rows) == most_rows:
                raise TooManyRows(
                    f"more than {most_rows} rows at column {match.start() + 1}"
                    f" (a board of size up to {isqrt(most_rows)} has at most {most_rows})",
                    most_rows,
                )
            rows.append(row)
    if opened:
        raise UnclosedBracket(f"unbalanced brackets: {len(opened)} '[' not closed")
    groups.sort()
    return rows, groups


def _cut_hint(text: str, comments: str) -> str:
    """Explain a board left inside an open bracket, when a `#` may have been cut from it."""
    if comments == COMMENTS_ANYWHERE:
        return (
            " ('#' starts a comment, as protocol.comments is \"anywhere\"; "
            "write '.' for empty cells)"
        )
    # A GTP layer on the way cuts a line at its first '#'; any '#' left shows none was cut.
    if EMPTY in text:
        return ""
    return " ('#' may have been stripped as a GTP comment on the way; write '.' for empty cells)"


#: The letters a row may hold, as a set: a row's letters are checked against it at C speed.
_CELL_LETTER_SET = frozenset(CELL_LETTERS)


def _check_letters(row: str, number: int) -> None:
    """Refuse a row holding anything but piece letters and empty cells."""
    if _CELL_LETTER_SET.issuperset(row):
        return
    for letter in row:
        if letter not in CELL_LETTERS:
            raise NotationError(
                f"unknown character {letter!r} in row {number} {shorten(row)}"
                f" (pieces are {WHITE_PIECES} {BLACK_PIECES}, empty cells # or .)"
            )


def _infer_size(rows: list[str], max_size: int) -> int:
    """Take the size from the first row's length when the text gives none."""
    if not rows or not rows[0]:
        raise NotationError("no rows given")
    first = rows[0]
    if len(first) < 2:
        # Never "size 1 is outside ...": the row is what is wrong (often split by a space).
        raise NotationError(
            f"row 1 {shorten(first)} has {_cells(len(first))}; a row has 2 ... {max_size}"
            " (where no comma separates the rows, white space does)"
        )
    return len(first)


def _check_shape(rows: list[str], groups: list[Group], size: int, declared: bool) -> None:
    """Refuse rows of the wrong length, bracket groups that are not layers, a wrong count."""
    if set(map(len, rows)) != {size}:  # at C speed; only a refusal needs the loop below
        for number, row in enumerate(rows, start=1):
            if len(row) != size:
                if declared and number == 1:
                    raise NotationError(
                        f"size {size} does not match row 1 {shorten(row)} of {_cells(len(row))}"
                    )
                raise NotationError(
                    f"row {number} {shorten(row)} has {len(row)} cells, expected {size}"
                )
    for group in groups:
        _check_group(group, size, len(rows))
    expected = size * size
    if len(rows) != expected:
        raise NotationError(f"expected {expected} rows of {size} cells, got {len(rows)}")


def _cells(count: int) -> str:
    """Count cells in words: `1 cell`, `3 cells`."""
    return f"{count} cell" if count == 1 else f"{count} cells"


def _check_group(group: Group, size: int, row_count: int) -> None:
    """Refuse a bracket group that is empty or does not hold whole layers (numbered top first)."""
    start, end = group.start, group.end
    first_layer, last_layer = start // size + 1, max(end - 1, start) // size + 1
    where = f"at column {group.column}"
    if start == end:
        if start % size:
            place = f"inside layer {first_layer}"
        elif start == 0:
            place = "before layer 1"
        elif start >= row_count:
            place = f"after layer {start // size}"
        else:
            place = f"between layers {start // size} and {first_layer}"
        raise NotationError(f"empty brackets {where}, {place}")
    aligned = start % size == 0
    if group.holds_layers:
        # Outer brackets: they must hold whole layers.
        if aligned and end % size == 0:
            return
    elif aligned and (end - start == size or (group.top_level and end - start == row_count)):
        return  # one layer, or outer brackets round a plain list of rows
    elif aligned:
        raise NotationError(f"layer {first_layer} has {end - start} rows, expected {size}")
    rows_held = f"it holds rows {start + 1} to {end}, and a layer is {size} rows"
    if first_layer == last_layer:
        raise NotationError(
            f"bracket group {where} holds part of layer {first_layer} ({rows_held})"
        )
    raise NotationError(
        f"bracket group {where} straddles layers {first_layer} and {last_layer} ({rows_held})"
    )


# --- cells ---------------------------------------------------------------------------------

_ROMAN = (
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
CELL_NAME = r"([a-z]+)([1-9][0-9]*)\(([IVXLCDM]+|[1-9][0-9]*)\)"
#: A cell as Raumschach's players write it: the level's letter (A the bottom), file, rank.
LETTER_CELL_NAME = r"([A-Z])([a-z]+)([1-9][0-9]*)"


class CellParts(NamedTuple):
    """A cell name read: its file letters, its rank's digits and its level number."""

    file: str
    rank: str
    level: int


def read_cell_name(name: str) -> CellParts | None:
    """Read either spelling of a cell (`c2(II)`, `c2(2)` or `Bc2`); None if it is neither."""
    match = re.fullmatch(CELL_NAME, name)
    if match is not None:
        file_name, rank, level_text = match.groups()
        if len(level_text) > MAX_SIZE_DIGITS:
            return CellParts(file_name, rank, 10**MAX_SIZE_DIGITS)  # off every board
        return CellParts(file_name, rank, get_level_from_roman(level_text))
    match = re.fullmatch(LETTER_CELL_NAME, name)
    if match is not None:
        level_letter, file_name, rank = match.groups()
        return CellParts(file_name, rank, ord(level_letter) - ord("A") + 1)
    return None


def get_file_name_from_x(x: int) -> str:
    """Name a board file spreadsheet style: 0 -> a, 25 -> z, 26 -> aa."""
    name = ""
    x += 1
    while x:
        x, digit = divmod(x - 1, 26)
        name = chr(ord("a") + digit) + name
    return name


def get_x_from_file_name(name: str) -> int:
    """Invert get_file_name_from_x: a -> 0, aa -> 26."""
    x = 0
    for letter in name:
        x = x * 26 + ord(letter) - ord("a") + 1
    return x - 1


#: How many levels each way the numeral caches keep: every level of the largest board (256)
#: with room to spare, and a bound, so that text naming ever new levels cannot fill memory.
LEVEL_CACHE_SIZE = 512


@lru_cache(maxsize=LEVEL_CACHE_SIZE)
def get_roman_from_level(level: int) -> str:
    """Write a level number (1 = the bottom board) in Roman numerals."""
    numeral = ""
    for value, letters in _ROMAN:
        count, level = divmod(level, value)
        numeral += letters * count
    return numeral


def get_level_from_roman(numeral: str) -> int:
    """Read a Roman numeral, or a decimal level; raise NotationError if it is malformed."""
    if numeral.isdigit():
        return int(numeral)  # as quick as a cache, and keeps nothing
    return _level_from_roman(numeral)


@lru_cache(maxsize=LEVEL_CACHE_SIZE)
def _level_from_roman(numeral: str) -> int:
    """Read a Roman numeral; raise NotationError if it is not one, or not the canonical one."""
    level = 0
    rest = numeral
    for value, letters in _ROMAN:
        while rest.startswith(letters):
            level += value
            rest = rest[len(letters) :]
    # Only the canonical spelling counts: "IIII" or "IL" would name a level ambiguously.
    if rest or get_roman_from_level(level) != numeral:
        raise NotationError(f"bad level numeral {numeral!r}")
    return level


def get_cell_name_from_point(geometry: Geometry, point: int) -> str:
    """Name the board cell at a point of the padded array: file, rank, level, as `c2(II)`."""
    x, y, z = geometry.get_cell_from_point(point)
    return f"{get_file_name_from_x(x)}{y + 1}({get_roman_from_level(z + 1)})"


def get_point_from_cell_name(geometry: Geometry, name: str) -> int:
    """Invert get_cell_name_from_point; the level may also be decimal, as `c2(2)`, or a
    letter before the file, as `Bc2`."""
    parts = read_cell_name(name)
    if parts is None:
        raise NotationError(
            f"bad cell name {shorten(name)}: expected file, rank and level as c2(II) (or Bc2)"
        )
    file_name, rank, level = parts
    size = geometry.size
    if len(rank) > MAX_SIZE_DIGITS:
        raise NotationError(f"cell {shorten(name)} is off the {size}x{size}x{size} board")
    x = get_x_from_file_name(file_name) if len(file_name) <= MAX_SIZE_DIGITS else size
    y = int(rank) - 1
    z = level - 1
    if not (0 <= x < size and 0 <= y < size and 0 <= z < size):
        raise NotationError(f"cell {shorten(name)} is off the {size}x{size}x{size} board")
    return geometry.get_point_from_cell(x, y, z)


def same_cell(first: str, second: str) -> bool:
    """Tell whether two cell names name one cell (c2(2) and c2(II) do), whatever the board."""
    if first == second:
        return True
    # Ranks never start with 0, so their text says whether they are equal; levels may be
    # Roman, decimal or a letter.
    try:
        cells = read_cell_name(first), read_cell_name(second)
    except NotationError:
        return False
    return cells[0] is not None and cells[0] == cells[1]


def piece_name(letter: str) -> str:
    """Name a piece by its colour and kind, as `black rook`."""
    return f"{SIDE_NAMES[letter.islower()]} {PIECE_NAMES[letter.lower()]}"


@cache
def foreign_letters(variant: Variant) -> str:
    """The piece letters, of both sides, that the variant does not play with."""
    return "".join(letter for letter in PIECE_LETTERS if letter.upper() not in variant.letters)


def check_variant_letters(rows: list[str], variant: Variant) -> None:
    """Refuse a board holding a piece the variant does not play with (a pawn in a cube game),
    naming it and the variant that has it. The rows are parse_board's: cell letters only.

    The rows are joined once and searched for each letter the variant lacks (str.find, at C
    speed): checking each row against a set took 4,096 calls a board at n = 64, 47 % of
    set_board there (issue 60). Only a refusal walks the rows, to name the first.
    """
    foreign = foreign_letters(variant)
    if not foreign:
        return
    board = "".join(rows)
    if not any(letter in board for letter in foreign):
        return
    letters = variant.letters
    allowed = frozenset(letters + letters.lower() + EMPTY)
    for number, row in enumerate(rows, start=1):
        if allowed.issuperset(row):
            continue
        letter = next(letter for letter in row if letter not in allowed)
        raise NotationError(
            f"unknown character {letter!r} in row {number} {shorten(row)}: a "
            f"{PIECE_NAMES[letter.lower()]} is no piece of {variant.name} (pieces are "
            f"{letters} {letters.lower()}, empty cells # or .; `variant` names the rules)"
        )


def piece_label(position: Position, point: int) -> str:
    """Name the piece on a cell as its letter and cell, as `rc1(III)`."""
    return position.cells[point] + get_cell_name_from_point(position.geometry, point)


# --- moves ---------------------------------------------------------------------------------


class MoveText(NamedTuple):
    """A move as written: the letter (empty when left out), the two cell names, the letter
    a pawn becomes (empty when none is written), and whether `x` stood between the cells."""

    letter: str
    origin: str
    target: str
    promotion: str = ""
    capture: bool = False


def get_move_name(position: Position, move: Move) -> str:
    """Write a move as `Kc1(I)-c2(II)`, with `x` for a capture and `=Q` for a promotion (the
    letter in the mover's case)."""
    name = get_cell_name_from_point
    sign = "-" if move.captured == EMPTY else "x"
    geometry = position.geometry
    text = f"{move.piece}{name(geometry, move.origin)}{sign}{name(geometry, move.target)}"
    return text if move.promotion == EMPTY else f"{text}={move.promotion}"


#: A cell in a move: the long spelling, or the level letter first.
_MOVE_CELL = r"[a-z]+[0-9]+\([0-9A-Z]+\)|[A-Z][a-z]+[0-9]+"
#: The letters a move may start with: a piece's, either side's, of any variant.
MOVE_LETTERS = "KQRBNUPkqrbnup"
#: A move's cells as `play` reads them: a cell, `-` or `x`, a cell, and optionally `=` and the
#: letter a pawn becomes.
MOVE_CELLS = rf"({_MOVE_CELL})([-x])({_MOVE_CELL})(?:=([QRBNUqrbnu]))?"


def parse_move_text(text: str) -> list[MoveText]:
    """Read a move's letter and cells in every way the long form allows; raise NotationError
    when it is not written as a move.

    The first letter may be the piece's, or part of the origin: a lower-case one the start of
    its file (`bb2(I)` is a bishop on b2(I), or whatever stands on bb2(I)), a capital one its
    level, as Raumschach's players write cells (`Bb5` is b5(II)). Each reading is returned,
    the one with the letter first.
    """
    readings = []
    if text[:1] and text[0] in MOVE_LETTERS:
        lettered = re.fullmatch(MOVE_CELLS, text[1:])
        if lettered is not None:
            readings.append(move_text(text[0], lettered))
    bare = re.fullmatch(MOVE_CELLS, text)
    if bare is not None:
        readings.append(move_text("", bare))
    if not readings:
        raise NotationError(
            f"cannot read {shorten(text)}: write a move as Kc1(I)-c2(II) or Nb2(II)xa1(III)"
        )
    return readings


def move_text(letter: str, match: re.Match[str]) -> MoveText:
    """A reading of a move from its letter and the match of its cells."""
    origin, separator, target, promotion = match.groups()
    return MoveText(letter, origin, target, promotion or "", separator == "x")
