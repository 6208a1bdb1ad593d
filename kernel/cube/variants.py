"""The rules of each variant as data: its pieces and how they move, its pawns, its start, the
board sizes it is played on, and how its cells may be spelled (docs/rules.md, "Variants").

A variant is a row of `VARIANTS`; the move generator, the notation and the start position
read everything from it, so a third variant is a new row, not new code. Two are played:

- `cube`, cubemate's own rules on any board size: no pawns, the bishop on the 8 triagonals.
- `raumschach`, Ferdinand Maack's 3D chess of 1907 on 5×5×5 (Dickins, *A Guide to Fairy
  Chess*, 1967; Pritchard, *The Classified Encyclopedia of Chess Variants*, 2007): pawns, a
  unicorn on the triagonals and a bishop on the 12 flat diagonals.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from kernel.cube.armies import white_army
from kernel.cube.directions import (
    BISHOP_STEPS,
    EAST,
    FLAT_DIAGONAL_STEPS,
    KNIGHT_STEPS,
    NORTH,
    QUEEN_STEPS,
    ROOK_STEPS,
    UP,
    WEST,
    MoveRules,
    PieceMoves,
    Step,
    add,
)

#: A board cell as (x, y, z): file, rank and level, each 0 ... n-1.
Cell = tuple[int, int, int]
#: The pawns' letters, white's and black's: every variant that has pawns writes them so.
PAWN_LETTERS = "Pp"

#: Each kind of piece any variant knows, by its lower-case letter.
PIECE_NAMES = {
    "k": "king",
    "q": "queen",
    "r": "rook",
    "b": "bishop",
    "n": "knight",
    "u": "unicorn",
    "p": "pawn",
}


@dataclass(frozen=True, eq=False)
class Variant:
    """One set of rules: everything the engine needs to play them, as data. Each variant is one
    object, equal only to itself (and hashed so), which caches key on."""

    #: The word `variant` and `new_game` take, and records carry.
    name: str
    #: Each piece's moves; the king first. Pawns, if any, are described apart.
    rules: MoveRules
    #: White's army at the start on a board of a size: (x, y, z) -> letter. Black's is white's
    #: turned through the centre of the cube: its piece on (x, y, z) stands on (n-1-x, ...).
    white_army: Callable[[int], dict[Cell, str]]
    #: The board sizes the variant is played on (None: every size the engine takes).
    sizes: tuple[int, ...] | None = None
    #: What a pawn may become on its last cell, white's letters, strongest first.
    promotion: str = ""
    #: Whether the levels are also named by letters, A the bottom, as Raumschach's players do.
    level_letters: bool = False

    @property
    def letters(self) -> str:
        """White's letters in this variant, the king first, the pawn last."""
        pawns = "P" if self.rules.pawn_pushes else ""
        return "".join(piece.letter for piece in self.rules.pieces) + pawns

    @property
    def has_pawns(self) -> bool:
        """Whether the variant has pawns (and so promotions, and pawn moves that reset the
        fifty-move count)."""
        return bool(self.rules.pawn_pushes)

    def allows_size(self, size: int) -> bool:
        """Tell whether the variant is played on a board of this size."""
        return self.sizes is None or size in self.sizes


@cache
def pawn_axes(variant: Variant) -> tuple[int, ...]:
    """The axes along which white's pawns advance (for Raumschach: the rank and the level);
    worked out once, as every pawn's every promotion or start question asks it."""
    return tuple(
        sorted({axis for step in variant.rules.pawn_pushes for axis in range(3) if step[axis]})
    )


def is_promotion_cell(variant: Variant, size: int, cell: Cell, white: bool) -> bool:
    """Tell whether a pawn of this colour promotes on this cell: the last cell along every axis
    it advances on (for Raumschach's white pawns, rank 5 of level E)."""
    last = size - 1 if white else 0
    axes = pawn_axes(variant)
    return bool(axes) and all(cell[axis] == last for axis in axes)


@cache
def first_pawn_rows(variant: Variant, size: int) -> tuple[int, ...]:
    """The least coordinate along each advancing axis that white's pawns start on: a pawn moves
    only forward, so none ever stands behind it (white's pawns on rank 1 are impossible)."""
    pawns = [cell for cell, letter in variant.white_army(size).items() if letter == "P"]
    return tuple(min(cell[axis] for cell in pawns) for axis in pawn_axes(variant))


def impossible_pawn(variant: Variant, size: int, cell: Cell, white: bool) -> str | None:
    """Say why a pawn of this colour cannot stand on this cell, or None if it can."""
    if not variant.has_pawns:
        return f"there are no pawns in {variant.name}"
    if is_promotion_cell(variant, size, cell, white):
        return "it would have promoted there"
    # Black's pawns are white's turned through the centre.
    seen = cell if white else (size - 1 - cell[0], size - 1 - cell[1], size - 1 - cell[2])
    for axis, least in zip(pawn_axes(variant), first_pawn_rows(variant, size), strict=True):
        if seen[axis] < least:
            return "no pawn of its side ever stands behind its pawns' start"
    return None


# --- cube ------------------------------------------------------------------------------------


CUBE = Variant(
    name="cube",
    rules=MoveRules(
        (
            PieceMoves("K", QUEEN_STEPS, False),
            PieceMoves("Q", QUEEN_STEPS, True),
            PieceMoves("R", ROOK_STEPS, True),
            PieceMoves("B", BISHOP_STEPS, True),
            PieceMoves("N", KNIGHT_STEPS, False),
        )
    ),
    white_army=white_army,
)

# --- Raumschach -------------------------------------------------------------------------------

#: White's pawns advance one cell up a rank (north) or up a level.
RAUMSCHACH_PAWN_PUSHES: tuple[Step, ...] = (NORTH, UP)
#: and take one cell diagonally forward in a plane of those moves: sideways and up a rank,
#: sideways and up a level, or up a rank and a level at once.
RAUMSCHACH_PAWN_CAPTURES: tuple[Step, ...] = (
    add(EAST, NORTH),
    add(WEST, NORTH),
    add(EAST, UP),
    add(WEST, UP),
    add(NORTH, UP),
)
#: White's army (Dickins): level A (I) rank 1 `R N K N R`, rank 2 pawns; level B (II) rank 1
#: `B U Q B U`, rank 2 pawns.
RAUMSCHACH_ARMY: dict[Cell, str] = {
    **{(x, 0, 0): letter for x, letter in enumerate("RNKNR")},
    **{(x, 1, 0): "P" for x in range(5)},
    **{(x, 0, 1): letter for x, letter in enumerate("BUQBU")},
    **{(x, 1, 1): "P" for x in range(5)},
}

RAUMSCHACH = Variant(
    name="raumschach",
    rules=MoveRules(
        (
            PieceMoves("K", QUEEN_STEPS, False),
            PieceMoves("Q", QUEEN_STEPS, True),
            PieceMoves("R", ROOK_STEPS, True),
            PieceMoves("B", FLAT_DIAGONAL_STEPS, True),
            PieceMoves("N", KNIGHT_STEPS, False),
            PieceMoves("U", BISHOP_STEPS, True),
        ),
        RAUMSCHACH_PAWN_PUSHES,
        RAUMSCHACH_PAWN_CAPTURES,
    ),
    white_army=lambda size: dict(RAUMSCHACH_ARMY),
    sizes=(5,),
    promotion="QRBUN",
    level_letters=True,
)

#: Every variant, by name; the first is the default.
VARIANTS: dict[str, Variant] = {variant.name: variant for variant in (CUBE, RAUMSCHACH)}
DEFAULT_VARIANT = CUBE


class UnknownVariant(ValueError):
    """A name that is no variant's; the message lists those there are."""


def variant_named(name: str) -> Variant:
    """Return the variant of this name (any case), or raise UnknownVariant."""
    variant = VARIANTS.get(name.lower())
    if variant is None:
        raise UnknownVariant(f"unknown variant {name!r} (known: {', '.join(VARIANTS)})")
    return variant
