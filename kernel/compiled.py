"""The compiled core (kernel/core/*.c, the extension kernel._core), where the install built it.

`pip install` (and so `make`) compiles it where a C compiler is found; elsewhere the install
goes on without it, `COMPILED` is False and every search runs in Python. The C mirrors
Python modules, which stay the ones to read: the mate search (kernel/mates/proofnumber.py), the
helpmate (kernel/mates/helpmate.py) and the player's search (kernel/play/alphabeta.py with
kernel/play/evaluation.py). The config's `[search]
compiled = false` asks for Python even where the core was built.

The core plays every variant whose rules it can be told as data (`core_rules`): the cube's,
its default, and Raumschach's (pawns, promotions, the flat-diagonal bishop, the unicorn).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from kernel.cube.directions import KNIGHT_STEPS, QUEEN_STEPS, Step, negated
from kernel.cube.position import Position
from kernel.cube.variants import CUBE, Variant, pawn_axes

MateCore: Any
HelpmateCore: Any
PlayerCore: Any
try:
    from kernel._core import HelpmateCore, MateCore, PlayerCore

    COMPILED = True
except ImportError:  # no C compiler at install (pyproject.toml): Python alone
    MateCore = HelpmateCore = PlayerCore = None
    COMPILED = False

#: The largest board the core takes: its tables of lines grow as (2n - 1)**3 (8 MB at
#: n = 64); larger boards are searched in Python.
CORE_LARGEST_SIZE = 64


def core_takes(position: Position) -> bool:
    """Tell whether the compiled core can search this position: a variant whose rules it can
    be told (`core_rules`: the cube and Raumschach) on a board it takes."""
    return position.size <= CORE_LARGEST_SIZE and core_speaks(position.variant)


#: The core's kinds, by white's letter: the cube's five (numbered as they always were), then
#: Raumschach's unicorn and pawn. A variant whose pieces are all of these kinds, the king and
#: the knight moving as everywhere, is one the core can play.
CORE_KINDS = "KQRBNUP"

#: Each piece letter's code in the core: side << 3 | kind, kinds K Q R B N U P = 1 ... 7.
CORE_CODES = {
    letter: side << 3 | kind
    for side, letters in enumerate((CORE_KINDS, CORE_KINDS.lower()))
    for kind, letter in enumerate(letters, start=1)
}

#: What the core is told of a variant's rules (kernel/core/board.c, set_rules): the unit steps
#: each kind 0 ... 7 slides along, white's pawn pushes and captures (black's are their
#: negatives), the kinds a pawn may become in the variant's order, and the axes along which
#: the pawns advance (a pawn promotes on the last cell along all of them). None: the cube's.
CoreRules = tuple[list[list[Step]], list[Step], list[Step], list[int], list[int]]


@cache
def core_speaks(variant: Variant) -> bool:
    """Tell whether the core can be told this variant's rules (`core_rules`)."""
    if variant is CUBE:
        return True
    pieces = {piece.letter: piece for piece in variant.rules.pieces}
    king, knight = pieces.get("K"), pieces.get("N")
    if any(letter not in CORE_KINDS for letter in variant.letters):
        return False
    if king is None or (set(king.steps), king.slides) != (set(QUEEN_STEPS), False):
        return False
    if knight is not None and (set(knight.steps), knight.slides) != (set(KNIGHT_STEPS), False):
        return False
    # Every other piece slides along unit lines, both ways (pins and discovered checks are read
    # off lines in the core); a pawn's steps are single.
    lines = set(QUEEN_STEPS)
    for letter, piece in pieces.items():
        if letter in "KN":
            continue
        steps = set(piece.steps)
        if not piece.slides or not steps <= lines or steps != set(negated(piece.steps)):
            return False
    pawn_steps = variant.rules.pawn_pushes + variant.rules.pawn_captures
    return all(step in lines for step in pawn_steps) and len(variant.promotion) <= 6


@cache
def core_rules(variant: Variant) -> CoreRules | None:
    """Describe a variant's rules as the core takes them (None for the cube's, its default)."""
    if variant is CUBE:
        return None
    slides: list[list[Step]] = [[] for _ in range(len(CORE_KINDS) + 1)]
    for piece in variant.rules.pieces:
        if piece.slides:
            slides[CORE_KINDS.index(piece.letter) + 1] = list(piece.steps)
    promotions = [CORE_KINDS.index(letter) + 1 for letter in variant.promotion]
    return (
        slides,
        list(variant.rules.pawn_pushes),
        list(variant.rules.pawn_captures),
        promotions,
        list(pawn_axes(variant)),
    )


#: The letter of each code (what is no piece's code, a space).
CODE_LETTERS = "".join(
    next((letter for letter, code in CORE_CODES.items() if code == index), " ")
    for index in range(16)
)


def core_pieces(position: Position) -> list[int]:
    """List the pieces as the core takes them, white's then black's, each side's in the order
    of its dict: cell << 4 | code."""
    return [
        point << 4 | CORE_CODES[letter]
        for pieces in position.pieces
        for point, letter in pieces.items()
    ]
