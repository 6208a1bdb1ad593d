"""Every spelling of a move that docs/rules.md lets `play` read, written from the docs alone
(sections "Where the cells are", "Variants", "Short notation" and "Reading"); shares no code
with kernel/.

A move is given by what a person sees: its piece's letter in the mover's case, the two cells
(file, rank, level, each from 0), whether it takes, what a pawn becomes. Its spellings:

- the long form, `Nb1(I)-c3(I)`: the letter as legal_moves writes it, in capitals for either
  side, or left out; each cell with its level as a numeral, a number (`c3(1)`) or a letter
  before the file (`Ac3`, A the bottom level); `-` or `x` between the cells;
- the same with the levels left out (`Nb1-c3`), at one end or both, `x` only when it takes;
- the short form: the letter (a capital; a small letter for black; none, or `P`, for a pawn),
  any part of the origin that SAN's order gives (file, rank, level, file and rank, the whole
  cell) or none, `x` when it takes (or not), the destination with its level as a numeral or
  a number, or left out;
- a promotion's `=Q` in either case; `+`, `#`, `!` or `?` after any of them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

from tests.reference import file_name, roman

Cell = tuple[int, int, int]


class MoveFacts(NamedTuple):
    """A move as the board shows it."""

    piece: str  # its letter in the mover's case
    origin: Cell
    target: Cell
    capture: bool
    promotion: str = ""  # what a pawn becomes, a capital; "" when none


def level_forms(z: int) -> list[str]:
    """A level written after a cell's rank: numeral and number, in parentheses."""
    return [f"({roman(z + 1)})", f"({z + 1})"]


def full_cells(cell: Cell) -> list[str]:
    """A whole cell in every spelling: `c3(II)`, `c3(2)` and, levels A ... Z, `Bc3`."""
    x, y, z = cell
    square = f"{file_name(x)}{y + 1}"
    spelled = [square + level for level in level_forms(z)]
    if z < 26:
        spelled.append(chr(ord("A") + z) + square)
    return spelled


def square(cell: Cell) -> str:
    """A cell with its level left out: `c3`."""
    return f"{file_name(cell[0])}{cell[1] + 1}"


def promotions(move: MoveFacts) -> list[str]:
    """A promotion's endings, either case; one empty ending for any other move."""
    if not move.promotion:
        return [""]
    return [f"={move.promotion}", f"={move.promotion.lower()}"]


def long_letters(move: MoveFacts) -> list[str]:
    """The long form's letters: as written, in capitals, or left out."""
    return sorted({move.piece, move.piece.upper(), ""})


def short_letters(move: MoveFacts) -> list[str]:
    """The short form's letters: a capital (none, or P, for a pawn); a small one for black."""
    pawn = move.piece in "Pp"
    letters = {"", "P"} if pawn else {move.piece.upper()}
    if move.piece.islower():
        letters |= {letter.lower() for letter in letters}
    return sorted(letters)


def separators(move: MoveFacts, whole: bool) -> list[str]:
    """Between the cells: `-`, and `x` when the move takes or when both cells are whole
    (the long form's `x` and `-` may be swapped)."""
    return ["-", "x"] if move.capture or whole else ["-"]


def long_spellings(move: MoveFacts) -> Iterator[str]:
    """The long form, whole and with levels left out."""
    origins = [*full_cells(move.origin), square(move.origin)]
    targets = [*full_cells(move.target), square(move.target)]
    for letter in long_letters(move):
        for origin in origins:
            for target in targets:
                whole = origin != square(move.origin) and target != square(move.target)
                for separator in separators(move, whole):
                    for ending in promotions(move):
                        yield f"{letter}{origin}{separator}{target}{ending}"


def origin_parts(cell: Cell) -> list[str]:
    """What a short form may write of its origin: nothing, file, rank, level, file and rank,
    or the whole cell."""
    x, y, z = cell
    file, rank = file_name(x), str(y + 1)
    return ["", file, rank, f"({roman(z + 1)})", file + rank, f"{file}{rank}({roman(z + 1)})"]


def short_spellings(move: MoveFacts) -> Iterator[str]:
    """The short form with every origin part, with and without the destination's level."""
    targets = [square(move.target) + level for level in level_forms(move.target[2])]
    targets.append(square(move.target))
    captures = ["x", ""] if move.capture else [""]
    for letter in short_letters(move):
        for origin in origin_parts(move.origin):
            for capture in captures:
                for target in targets:
                    for ending in promotions(move):
                        yield f"{letter}{origin}{capture}{target}{ending}"


def spellings(move: MoveFacts, names: list[str]) -> set[str]:
    """Every spelling of a move; `names` are its own names (long and short, as the engine
    writes them), which also get each mark after them."""
    found = set(long_spellings(move)) | set(short_spellings(move))
    for name in names:
        found.add(name)
        bare = name.rstrip("+#")
        found.update(bare + mark for mark in ("+", "#", "!", "?", "+!"))
    return found
