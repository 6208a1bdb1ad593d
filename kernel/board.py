"""The padded 1-D board: cells, memory coordinates and cell names.

A board of size n lives in one flat list of W**3 cells, W = n + 4: the n**3 board cells sit
inside a wall two cells thick on every side. Two cells, because a knight leaps two steps: from
any board cell every king step, knight leap and slider ray meets a wall cell before it could
leave the list or wrap into the next row or layer, so move code never checks bounds.

Memory coordinates (x, y, z) count the wall; the board cell a1(I) is memory (2, 2, 2). For
n = 2 (W = 6) one layer of memory looks like this, `+` wall and `#` board:

    + + + + + +     y = 5
    + + + + + +     y = 4
    + + # # + +     y = 3   rank 2
    + + # # + +     y = 2   rank 1
    + + + + + +     y = 1
    + + + + + +     y = 0
    x=0 1 2 3 4 5
"""

from __future__ import annotations

import re
from functools import cache

from kernel.directions import WALL_THICKNESS, Offsets, memory_width_for, offsets_for

WALL = "+"
EMPTY = "#"
WHITE_PIECES = "KQRBN"
BLACK_PIECES = "kqrbn"
PIECE_LETTERS = WHITE_PIECES + BLACK_PIECES

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
#: Patterns stay strings: `re` compiles and caches them on first use, not at start-up.
CELL_NAME = r"([a-z]+)([1-9][0-9]*)\(([IVXLCDM]+|[1-9][0-9]*)\)"


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


@cache
def get_roman_from_level(level: int) -> str:
    """Write a level number (1 = the bottom board) in Roman numerals."""
    numeral = ""
    for value, letters in _ROMAN:
        count, level = divmod(level, value)
        numeral += letters * count
    return numeral


@cache
def get_level_from_roman(numeral: str) -> int:
    """Read a Roman numeral, or a decimal level; raise ValueError if it is malformed."""
    if numeral.isdigit():
        return int(numeral)
    level = 0
    rest = numeral
    for value, letters in _ROMAN:
        while rest.startswith(letters):
            level += value
            rest = rest[len(letters) :]
    # Only the canonical spelling counts: "IIII" or "IL" would name a level ambiguously.
    if rest or get_roman_from_level(level) != numeral:
        raise ValueError(f"bad level numeral {numeral!r}")
    return level


class Geometry:
    """Sizes and converters of the padded array for one board size."""

    __slots__ = ("memory_area", "memory_width", "size")

    def __init__(self, size: int) -> None:
        self.size = size
        #: W: the board size plus the wall on both sides.
        self.memory_width = memory_width_for(size)
        #: The number of cells in the whole padded array, walls included.
        self.memory_area = self.memory_width**3

    def get_point_from_xyz(self, x: int, y: int, z: int) -> int:
        """Index of memory cell (x, y, z); raise ValueError outside the padded array."""
        width = self.memory_width
        for axis, value in (("x", x), ("y", y), ("z", z)):
            if not 0 <= value < width:
                raise ValueError(f"{axis} = {value} is outside 0 ... {width - 1}")
        return x + width * (y + width * z)

    def get_xyz_from_point(self, point: int) -> tuple[int, int, int]:
        """Invert get_point_from_xyz."""
        width = self.memory_width
        rest, x = divmod(point, width)
        z, y = divmod(rest, width)
        return x, y, z

    def get_point_from_cell(self, x: int, y: int, z: int) -> int:
        """Index of board cell (x, y, z), each 0 ... n-1."""
        return self.get_point_from_xyz(x + WALL_THICKNESS, y + WALL_THICKNESS, z + WALL_THICKNESS)

    def get_cell_from_point(self, point: int) -> tuple[int, int, int]:
        """Invert get_point_from_cell."""
        x, y, z = self.get_xyz_from_point(point)
        return x - WALL_THICKNESS, y - WALL_THICKNESS, z - WALL_THICKNESS

    def get_cell_name_from_point(self, point: int) -> str:
        """Name a board cell: file letters, rank number, level numeral, as `c2(II)`."""
        x, y, z = self.get_cell_from_point(point)
        return f"{get_file_name_from_x(x)}{y + 1}({get_roman_from_level(z + 1)})"

    def get_point_from_cell_name(self, name: str) -> int:
        """Invert get_cell_name_from_point; the level may also be decimal, as `c2(2)`."""
        match = re.fullmatch(CELL_NAME, name)
        if match is None:
            raise ValueError(f"bad cell name {name!r}: expected file, rank and level as c2(II)")
        file_name, rank, level_text = match.groups()
        x = get_x_from_file_name(file_name)
        y = int(rank) - 1
        z = get_level_from_roman(level_text) - 1
        if not (0 <= x < self.size and 0 <= y < self.size and 0 <= z < self.size):
            raise ValueError(f"cell {name!r} is off the {self.size}x{self.size}x{self.size} board")
        return self.get_point_from_cell(x, y, z)

    def row_start(self, y: int, z: int) -> int:
        """Index of the a-file cell of board rank y + 1 on board level z + 1."""
        return self.get_point_from_cell(0, y, z)


def padded_cells(size: int, rows: list[str]) -> str:
    """Wrap n*n rows (top layer first, back row first) in the wall: the padded array.

    Read backwards, the rows come level I first and rank 1 first, which is the order of the
    array; so the whole array is the rows joined by the wall cells that stand between them.
    """
    width = memory_width_for(size)
    edge = WALL * WALL_THICKNESS
    # Between two rows of a layer: the right wall of one and the left wall of the next.
    row_gap = edge + edge
    # Between two layers: also the wall rows behind the last rank and before the first.
    layer_gap = row_gap + WALL * (2 * WALL_THICKNESS * width)
    # Before a1(I): two whole wall layers, two wall rows, two wall cells; the same at the end.
    outside = WALL * (WALL_THICKNESS * (width * width + width + 1))
    forward = rows[::-1]
    layers = (row_gap.join(forward[start : start + size]) for start in range(0, len(rows), size))
    return outside + layer_gap.join(layers) + outside


@cache
def empty_cells(size: int) -> str:
    """The padded array of an empty board, built once per size."""
    return padded_cells(size, [EMPTY * size] * (size * size))


class Board:
    """A position: the padded array as one immutable string of cell letters.

    Nothing ever changes a board: a new position is a new Board, so cached facts about
    one can never go stale.
    """

    __slots__ = ("cells", "geometry", "offsets", "size")

    def __init__(self, size: int, cells: str) -> None:
        self.size = size
        self.geometry = Geometry(size)
        self.offsets: Offsets = offsets_for(size)
        self.cells = cells

    @classmethod
    def empty(cls, size: int) -> Board:
        """Make an empty board of this size."""
        return cls(size, empty_cells(size))

    @classmethod
    def from_rows(cls, size: int, rows: list[str]) -> Board:
        """Make a board from n*n rows of n cells, top layer first, back row first.

        Each row holds only piece letters and EMPTY; the caller has checked that.
        """
        return cls(size, padded_cells(size, rows))

    def rows(self) -> list[str]:
        """Return the n*n rows in notation order: top layer first, back row first."""
        size = self.size
        cells = self.cells
        row_start = self.geometry.row_start
        return [
            cells[row_start(y, z) : row_start(y, z) + size]
            for z in reversed(range(size))
            for y in reversed(range(size))
        ]

    def pieces(self, letters: str = PIECE_LETTERS) -> list[tuple[int, str]]:
        """Return every piece with one of these letters, as where it stands and its letter."""
        return [(point, letter) for letter in letters for point in self.find(letter)]

    def piece_count(self) -> int:
        """Count the pieces on the board."""
        return self.size**3 - self.cells.count(EMPTY)

    def find(self, letter: str) -> list[int]:
        """Return the points of every piece with this letter."""
        # str.find runs at C speed: several times faster here than a regex or a loop.
        cells = self.cells
        points = []
        point = cells.find(letter)
        while point >= 0:
            points.append(point)
            point = cells.find(letter, point + 1)
        return points
