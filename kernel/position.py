"""A position: the padded cells, the side to move and each side's pieces.

Positions are immutable: `play` makes a new one and leaves the old one as it was. Three things
follow. Undo is a stack of positions, so taking a move back cannot get anything wrong; a
search can keep a position while it looks at the next; and a position's cells and side, which
never change, are the key a transposition table needs. The cost is a copy of the
cells string per move, a few microseconds up to n = 16 and a memcpy even at n = 64, which
make/unmake would save but at the price of state that every caller must restore exactly.

Each side's pieces are kept in a tuple beside the cells and updated by `play`, so nothing
has to scan the n³ cells to find them again.
"""

from __future__ import annotations

from typing import NamedTuple

from kernel.board import EMPTY, SIDE_LETTERS, Geometry, empty_cells, geometry_for, padded_cells
from kernel.directions import Offsets, offsets_for

#: The sides, as indices into every per-side table (SIDE_LETTERS, SIDE_NAMES, pieces).
WHITE = 0
BLACK = 1
#: The letters of the two kings, indexed by side.
KING_LETTERS = ("K", "k")
#: Where no cell is: a side without a king has its king here.
NO_POINT = -1

#: A piece: where it stands and its letter.
Piece = tuple[int, str]


class Move(NamedTuple):
    """A move: the piece, where it stands, where it goes, and what stands there (EMPTY if none)."""

    piece: str
    origin: int
    target: int
    captured: str


class Position:
    """The cells of one board size, whose move it is, and where each side's pieces stand."""

    __slots__ = ("cells", "geometry", "kings", "offsets", "pieces", "side", "size")

    def __init__(
        self,
        size: int,
        cells: str,
        side: int = WHITE,
        pieces: tuple[tuple[Piece, ...], tuple[Piece, ...]] | None = None,
    ) -> None:
        self.size = size
        self.cells = cells
        self.side = side
        self.geometry: Geometry = geometry_for(size)
        self.offsets: Offsets = offsets_for(size)
        if pieces is None:
            pieces = find_pieces(cells)
        self.pieces = pieces
        self.kings = (king_of(pieces[WHITE], "K"), king_of(pieces[BLACK], "k"))

    @classmethod
    def empty(cls, size: int) -> Position:
        """Make an empty board of this size, white to move."""
        return cls(size, empty_cells(size), WHITE, ((), ()))

    @classmethod
    def from_rows(cls, size: int, rows: list[str], side: int = WHITE) -> Position:
        """Make a position from n*n rows of n cells, top layer first, back row first."""
        return cls(size, padded_cells(size, rows), side)

    @property
    def enemy(self) -> int:
        """The side not to move."""
        return 1 - self.side

    def play(self, move: Move) -> Position:
        """Return the position after a move, the other side to move; this one is unchanged."""
        origin, target, letter = move.origin, move.target, move.piece
        cells = self.cells
        if origin < target:
            cells = (
                cells[:origin] + EMPTY + cells[origin + 1 : target] + letter + cells[target + 1 :]
            )
        else:
            cells = (
                cells[:target] + letter + cells[target + 1 : origin] + EMPTY + cells[origin + 1 :]
            )
        side = self.side
        mine = tuple(
            (target, letter) if point == origin else (point, piece)
            for point, piece in self.pieces[side]
        )
        theirs = self.pieces[1 - side]
        if move.captured != EMPTY:
            theirs = tuple(piece for piece in theirs if piece[0] != target)
        # Built field by field: the size's tables and the kings carry over, nothing is searched.
        after = Position.__new__(Position)
        after.size = self.size
        after.cells = cells
        after.side = 1 - side
        after.geometry = self.geometry
        after.offsets = self.offsets
        king, their_king = self.kings[side], self.kings[1 - side]
        if origin == king:
            king = target
        if target == their_king:
            their_king = NO_POINT
        if side == WHITE:
            after.pieces = (mine, theirs)
            after.kings = (king, their_king)
        else:
            after.pieces = (theirs, mine)
            after.kings = (their_king, king)
        return after

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

    def find(self, letter: str) -> list[int]:
        """Return the points of every piece with this letter."""
        side = WHITE if letter.isupper() else BLACK
        return [point for point, piece in self.pieces[side] if piece == letter]


def find_pieces(cells: str) -> tuple[tuple[Piece, ...], tuple[Piece, ...]]:
    """Find every piece in the padded cells once, white's and black's apart, kings first."""
    # One str.find per piece and letter runs at C speed (memchr): far faster than a regex
    # or a loop over the n³ cells, which matters at n = 64.
    found: tuple[list[Piece], list[Piece]] = ([], [])
    for side, letters in enumerate(SIDE_LETTERS):
        pieces = found[side]
        for letter in letters:
            point = cells.find(letter)
            while point >= 0:
                pieces.append((point, letter))
                point = cells.find(letter, point + 1)
    return tuple(found[WHITE]), tuple(found[BLACK])


def king_of(pieces: tuple[Piece, ...], letter: str) -> int:
    """Return where the king with this letter stands among the pieces, or NO_POINT."""
    for point, piece in pieces:
        if piece == letter:
            return point
    return NO_POINT


def owner(letter: str) -> int:
    """Return the side a piece letter belongs to."""
    return WHITE if letter in SIDE_LETTERS[WHITE] else BLACK
