"""A position: the padded cells, the side to move, each side's pieces and a hash key.

A position is changed in place: `play` makes a move and `undo` takes it back exactly, each at
the cost of the move alone, whatever the board's size. A game's history is then the moves
played (each carries what undoing it needs: the piece, both cells, what was captured) and
one key per ply, not a copy of the board per ply: at n = 64 a board is 300,000 cells. A
search plays and takes back moves on one position; whoever keeps a position while another
part of the program plays on it takes a `copy`.

Each side's pieces are kept in a dict (cell -> letter) beside the cells and updated by `play`
and `undo`, so nothing has to scan the n³ cells to find them again. The key is a Zobrist
hash of the pieces and the side to move, updated by each move: equal positions have equal
keys, which is what a transposition table and the repetition rule ask.
"""

from __future__ import annotations

from typing import NamedTuple

from kernel.cube.board import EMPTY, SIDE_LETTERS, Geometry, empty_cells, geometry_for, padded_cells
from kernel.cube.directions import Offsets, offsets_for
from kernel.cube.variants import DEFAULT_VARIANT, Variant

#: The sides, as indices into every per-side table (SIDE_LETTERS, SIDE_NAMES, pieces).
WHITE = 0
BLACK = 1
#: The letters of the two kings, indexed by side.
KING_LETTERS = ("K", "k")
#: Where no cell is: a side without a king has its king here.
NO_POINT = -1

#: One side's pieces: cell -> letter.
Pieces = dict[int, str]

#: A distinct number per letter, mixed into each piece's key (the letters' own str hashes
#: change from run to run, and a search must be the same in every run). The cube's letters
#: come first, numbered as before Raumschach's were added, so that the cube's keys and
#: searches stay what they were.
LETTER_SALTS = {
    letter: 0x9E3779B97F4A7C15 * (index + 1) & 0xFFFFFFFFFFFF
    for index, letter in enumerate("KQRBNkqrbnUPup")
}
#: XORed into the key when black is to move.
BLACK_TO_MOVE_KEY = hash((0x5851F42D4C957F2D, -1))


def piece_key(point: int, letter: str) -> int:
    """Return the Zobrist number of a piece on a cell.

    Made from Python's hash of an int tuple (xxHash's mixing, deterministic for ints) rather
    than a table of random numbers: a table for every cell of a 64-cube and ten letters would
    hold three million numbers, and the hash costs a fraction of a microsecond.
    """
    return hash((point, LETTER_SALTS[letter]))


#: A move as a plain tuple: piece letter, origin, target, captured (EMPTY if none), and what
#: a pawn becomes (EMPTY if it is no promotion). Move is one with names; searches that make
#: moves by the thousand make plain tuples, cheaper.
MoveTuple = tuple[str, int, int, str, str]


class Move(NamedTuple):
    """A move: the piece, where it stands, where it goes, what stands there (EMPTY if none),
    and the letter of the piece a pawn becomes on its last cell (EMPTY if none)."""

    piece: str
    origin: int
    target: int
    captured: str
    promotion: str = EMPTY


class Position:
    """The cells of one board size, whose move it is, where each side's pieces stand, a key."""

    __slots__ = (
        "cells",
        "geometry",
        "key",
        "kings",
        "offsets",
        "pieces",
        "side",
        "size",
        "variant",
    )

    def __init__(
        self,
        size: int,
        cells: list[str] | str,
        side: int = WHITE,
        variant: Variant = DEFAULT_VARIANT,
    ) -> None:
        """Set up a position from its padded cells: a list, kept as the board, or one string
        (as board.padded_cells writes it), whose pieces are found without joining n³ cells
        again (3 ms at n = 64)."""
        if isinstance(cells, str):
            text, cells = cells, list(cells)
        else:
            text = "".join(cells)
        self.size = size
        self.cells = cells
        self.side = side
        self.variant = variant
        self.geometry: Geometry = geometry_for(size)
        self.offsets: Offsets = offsets_for(size, variant.rules)
        self.pieces: tuple[Pieces, Pieces] = find_pieces(text)
        self.kings = [king_of(self.pieces[WHITE], "K"), king_of(self.pieces[BLACK], "k")]
        key = BLACK_TO_MOVE_KEY if side else 0
        for pieces in self.pieces:
            for point, letter in pieces.items():
                key ^= piece_key(point, letter)
        self.key = key

    @classmethod
    def empty(cls, size: int, variant: Variant = DEFAULT_VARIANT) -> Position:
        """Make an empty board of this size, white to move."""
        return cls(size, empty_cells(size), WHITE, variant)

    @classmethod
    def from_rows(
        cls, size: int, rows: list[str], side: int = WHITE, variant: Variant = DEFAULT_VARIANT
    ) -> Position:
        """Make a position from n*n rows of n cells, top layer first, back row first."""
        return cls(size, padded_cells(size, rows), side, variant)

    @property
    def enemy(self) -> int:
        """The side not to move."""
        return 1 - self.side

    def play(self, move: MoveTuple) -> None:
        """Make a move of the side to move; the other side is then to move."""
        letter, origin, target, captured, promotion = move
        # A pawn that promotes leaves its cell as a pawn and lands as what it becomes.
        landed = letter if promotion == EMPTY else promotion
        cells = self.cells
        cells[origin] = EMPTY
        cells[target] = landed
        side = self.side
        mine = self.pieces[side]
        del mine[origin]
        mine[target] = landed
        key = self.key ^ BLACK_TO_MOVE_KEY ^ piece_key(origin, letter) ^ piece_key(target, landed)
        if captured != EMPTY:
            del self.pieces[1 - side][target]
            key ^= piece_key(target, captured)
            if captured in KING_LETTERS:
                self.kings[1 - side] = NO_POINT
        if self.kings[side] == origin:
            self.kings[side] = target
        self.key = key
        self.side = 1 - side

    def undo(self, move: MoveTuple) -> None:
        """Take back `move`, the last move played; the side that made it is to move again."""
        letter, origin, target, captured, promotion = move
        landed = letter if promotion == EMPTY else promotion
        side = 1 - self.side
        cells = self.cells
        cells[origin] = letter
        cells[target] = captured
        mine = self.pieces[side]
        del mine[target]
        mine[origin] = letter
        key = self.key ^ BLACK_TO_MOVE_KEY ^ piece_key(origin, letter) ^ piece_key(target, landed)
        if captured != EMPTY:
            self.pieces[1 - side][target] = captured
            key ^= piece_key(target, captured)
            if captured in KING_LETTERS:
                self.kings[1 - side] = target
        if self.kings[side] == target:
            self.kings[side] = origin
        self.key = key
        self.side = side

    def copy(self) -> Position:
        """Return an independent position equal to this one."""
        twin = Position.__new__(Position)
        twin.size = self.size
        twin.variant = self.variant
        twin.cells = self.cells.copy()
        twin.side = self.side
        twin.geometry = self.geometry
        twin.offsets = self.offsets
        twin.pieces = (self.pieces[WHITE].copy(), self.pieces[BLACK].copy())
        twin.kings = self.kings.copy()
        twin.key = self.key
        return twin

    def order_pieces(self) -> None:
        """Order each side's pieces as a freshly set position has them: by letter, then cell.

        Playing and taking back a move puts its piece last; this undoes that, so that
        whatever walks the pieces meets them in one order for one position.
        """
        for pieces, letters in zip(self.pieces, SIDE_LETTERS, strict=True):
            ordered = sorted(pieces.items(), key=lambda item: (letters.index(item[1]), item[0]))
            pieces.clear()
            pieces.update(ordered)

    def rows(self) -> list[str]:
        """Return the n*n rows in notation order: top layer first, back row first."""
        size = self.size
        cells = self.cells
        row_start = self.geometry.row_start
        return [
            "".join(cells[row_start(y, z) : row_start(y, z) + size])
            for z in reversed(range(size))
            for y in reversed(range(size))
        ]

    def find(self, letter: str) -> list[int]:
        """Return the points of every piece with this letter, in board order."""
        side = WHITE if letter.isupper() else BLACK
        return sorted(point for point, piece in self.pieces[side].items() if piece == letter)


def find_pieces(cells: str) -> tuple[Pieces, Pieces]:
    """Find every piece in the padded cells once, white's and black's apart, kings first."""
    # One str.find per piece and letter runs at C speed (memchr): far faster than a regex
    # or a loop over the n³ cells, which matters at n = 64.
    found: tuple[Pieces, Pieces] = ({}, {})
    for side, letters in enumerate(SIDE_LETTERS):
        pieces = found[side]
        for letter in letters:
            point = cells.find(letter)
            while point >= 0:
                pieces[point] = letter
                point = cells.find(letter, point + 1)
    return found


def king_of(pieces: Pieces, letter: str) -> int:
    """Return where the king with this letter stands among the pieces, or NO_POINT."""
    for point, piece in pieces.items():
        if piece == letter:
            return point
    return NO_POINT


def owner(letter: str) -> int:
    """Return the side a piece letter belongs to."""
    return WHITE if letter in SIDE_LETTERS[WHITE] else BLACK
