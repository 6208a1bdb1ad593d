"""The board notation, in and out.

Out: the canonical form `[row,row,...],[...]`, layers top first, rows back first, `#` empty.
In: the same with the slack people need when they paste boards: an optional size first
(`3`, `n=3`, `n = 3,`), white space anywhere, quotes around rows, outer brackets, rows
bracketed one by one, and `.` as another empty cell.
"""

from __future__ import annotations

import re
from functools import cache
from typing import NamedTuple

from kernel.board import BLACK_PIECES, EMPTY, WHITE_PIECES, Board
from kernel.protocol import shorten

CELL_LETTERS = WHITE_PIECES + BLACK_PIECES + EMPTY
ALTERNATIVE_EMPTY = "."
#: More digits than any board size has; int() of far more is slow or refused.
MAX_SIZE_DIGITS = 9

# Patterns stay strings: `re` compiles and caches them on first use, not at start-up.
SIZE_PREFIX = r"\s*(?:n\s*=\s*)?([+-]?[0-9]+)\s*,?"
#: The canonical form: only cell letters, commas and brackets; checked before the slow path.
#: Brackets, and runs of anything that is not a separator (a row, or garbage to report).
TOKEN = r"[\[\]]|[^\[\],\s\"']+"


class NotationError(ValueError):
    """The board text cannot be read; the message says why, for the user."""


class BoardText(NamedTuple):
    """A board read from text: its size and its n*n rows, top layer and back row first."""

    size: int
    rows: list[str]


def format_board(board: Board) -> str:
    """Write a board in the canonical notation."""
    size = board.size
    rows = board.rows()
    return ",".join(
        "[" + ",".join(rows[layer : layer + size]) + "]" for layer in range(0, len(rows), size)
    )


def parse_board(text: str, max_size: int) -> BoardText:
    """Read board text in any accepted form; raise NotationError naming the problem."""
    declared: int | None = None
    prefix = re.match(SIZE_PREFIX, text)
    if prefix is not None:
        digits = prefix.group(1)
        if len(digits.lstrip("+-0")) > MAX_SIZE_DIGITS:
            raise NotationError(f"size {shorten(digits)} is outside 2 ... {max_size}")
        declared = int(digits)
        text = text[prefix.end() :]
        check_size(declared, max_size)
    text = text.strip().replace(ALTERNATIVE_EMPTY, EMPTY)
    if not text:
        raise NotationError("no rows given")
    # The canonical form, in the size its first row gives, is checked whole by one regex;
    # anything else takes the slower reader, which also names what is wrong.
    first_row_size = text.find(",") - 1
    if (
        declared in (None, first_row_size)
        and 2 <= first_row_size <= max_size
        and re.fullmatch(canonical_pattern(first_row_size), text) is not None
    ):
        return BoardText(first_row_size, text.replace("[", "").replace("]", "").split(","))
    rows, layer_sizes = _read_loose(text)
    size = declared if declared is not None else _infer_size(rows)
    check_size(size, max_size)
    _check_shape(rows, layer_sizes, size, declared is not None)
    return BoardText(size, rows)


@cache
def canonical_pattern(size: int) -> str:
    """Return the regex of the canonical notation of a board of this size, and nothing else."""
    row = f"[{re.escape(CELL_LETTERS)}]{{{size}}}"
    layer = rf"\[{row}(?:,{row}){{{size - 1}}}\]"
    return f"{layer}(?:,{layer}){{{size - 1}}}"


def check_size(size: int, max_size: int) -> None:
    """Refuse a board size outside 2 ... max_size."""
    if not 2 <= size <= max_size:
        raise NotationError(f"size {size} is outside 2 ... {max_size}")


def _read_loose(text: str) -> tuple[list[str], list[int]]:
    """Split free-form text into rows, and count the rows of each bracketed layer."""
    rows: list[str] = []
    layer_sizes: list[int] = []
    # Rows directly inside each open bracket; a group of two or more rows is a layer.
    open_groups: list[int] = []
    for match in re.finditer(TOKEN, text):
        token = match.group()
        if token == "[":
            open_groups.append(0)
        elif token == "]":
            if not open_groups:
                raise NotationError(f"unbalanced brackets: ']' at column {match.start() + 1}")
            count = open_groups.pop()
            if count > 1:
                layer_sizes.append(count)
        else:
            _check_letters(token, len(rows) + 1)
            rows.append(token)
            if open_groups:
                open_groups[-1] += 1
    if open_groups:
        raise NotationError(f"unbalanced brackets: {len(open_groups)} '[' not closed")
    return rows, layer_sizes


def _check_letters(row: str, number: int) -> None:
    """Refuse a row holding anything but piece letters and empty cells."""
    for letter in row:
        if letter not in CELL_LETTERS:
            raise NotationError(
                f"unknown character {letter!r} in row {number} {shorten(row)}"
                f" (pieces are KQRBN kqrbn, empty cells # or .)"
            )


def _infer_size(rows: list[str]) -> int:
    """Take the size from the first row's length when the text gives none."""
    if not rows or not rows[0]:
        raise NotationError("no rows given")
    return len(rows[0])


def _check_shape(rows: list[str], layer_sizes: list[int], size: int, declared: bool) -> None:
    """Refuse rows of the wrong length or count, and layers of the wrong height."""
    expected = size * size
    if set(map(len, rows)) != {size}:  # at C speed; only a refusal needs the loop below
        for number, row in enumerate(rows, start=1):
            if len(row) != size:
                if declared and number == 1:
                    raise NotationError(f"size {size} does not match rows of {len(row)} cells")
                raise NotationError(
                    f"row {number} {shorten(row)} has {len(row)} cells, expected {size}"
                )
    if len(rows) != expected:
        raise NotationError(f"expected {expected} rows of {size} cells, got {len(rows)}")
    for layer, count in enumerate(layer_sizes, start=1):
        if count != size:
            raise NotationError(f"layer {layer} has {count} rows, expected {size}")
