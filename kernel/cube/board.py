"""The padded 1-D board: memory coordinates and the wall around the cells.

A board of size n lives in one flat list of W**3 cells, W = n + 4: the n**3 board cells sit
inside a wall two cells thick on every side. Two cells, because a knight leaps two steps: from
any board cell every king step, knight leap and slider ray meets a wall cell before it could
leave the list or wrap into the next row or layer, so move code never checks bounds.

Cell names such as `c2(II)` are text, kept in kernel.text.notation. Memory coordinates (x, y, z)
count the wall; the board cell a1(I) is memory (2, 2, 2). For n = 2 (W = 6) one layer of
memory looks like this, `+` wall and `#` board:

    + + + + + +     y = 5
    + + + + + +     y = 4
    + + # # + +     y = 3   rank 2
    + + # # + +     y = 2   rank 1
    + + + + + +     y = 1
    + + + + + +     y = 0
    x=0 1 2 3 4 5
"""

from __future__ import annotations

from functools import cache
from typing import NamedTuple

from kernel.cube.directions import CACHED_SIZES, WALL_THICKNESS, memory_width_for, table_cache

#: What a cell holds besides a piece letter: nothing, or the wall around the board.
EMPTY = "#"
WALL = "+"
#: The piece letters of each side, indexed by the side (kernel.cube.position.WHITE, BLACK): every
#: letter of every variant (kernel.cube.variants), the cube's first: U the unicorn, P the pawn.
SIDE_LETTERS = ("KQRBNUP", "kqrbnup")
#: The names of the sides, indexed like SIDE_LETTERS.
SIDE_NAMES = ("white", "black")


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

    def row_start(self, y: int, z: int) -> int:
        """Index of the a-file cell of board rank y + 1 on board level z + 1."""
        return self.get_point_from_cell(0, y, z)


@cache
def geometry_for(size: int) -> Geometry:
    """Return the geometry of a board size, built once."""
    return Geometry(size)


class WallGaps(NamedTuple):
    """The runs of wall between the rows of one board size, and around them."""

    #: Between two rows of a layer: the right wall of one and the left wall of the next.
    row: str
    #: Between two layers: also the wall rows behind the last rank and before the first.
    layer: str
    #: Before a1(I): two whole wall layers, two wall rows, two wall cells; the same at the end.
    outside: str


@cache
def wall_gaps(size: int) -> WallGaps:
    """Build the wall runs of a board size once."""
    width = memory_width_for(size)
    row = WALL * (2 * WALL_THICKNESS)
    layer = row + WALL * (2 * WALL_THICKNESS * width)
    return WallGaps(row, layer, WALL * (WALL_THICKNESS * (width * width + width + 1)))


def padded_cells(size: int, rows: list[str]) -> str:
    """Wrap n*n rows (top layer first, back row first) in the wall: the padded array.

    Read backwards, the rows come level I first and rank 1 first, which is the order of the
    array; so the whole array is the rows joined by the wall cells that stand between them.
    """
    gaps = wall_gaps(size)
    forward = rows[::-1]
    row_gap = gaps.row
    layers = [row_gap.join(forward[start : start + size]) for start in range(0, len(rows), size)]
    return gaps.outside + gaps.layer.join(layers) + gaps.outside


#: The bytes the kept empty boards may hold together: n = 64's is 314 KB, n = 256's 17 MB.
EMPTY_BUDGET = 8 << 20


def padded_bytes(size: int) -> int:
    """The bytes of one size's padded array as a str: one a cell."""
    return memory_width_for(size) ** 3


@table_cache(CACHED_SIZES, EMPTY_BUDGET, padded_bytes)
def empty_cells(size: int) -> str:
    """The padded array of an empty board, built once while kept (W³ bytes: 17 MB at n = 256,
    so a few large sizes are kept, or only the last)."""
    return padded_cells(size, [EMPTY * size] * (size * size))
