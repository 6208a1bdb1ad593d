"""Unit steps and the offset tables every move and attack walks.

Directions are built from six named unit steps, never typed in by hand, then turned into
index offsets in the padded array once per board size.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from functools import lru_cache
from itertools import product
from typing import NamedTuple

Step = tuple[int, int, int]

#: Cells of wall on every side of the board: a knight's leap of two stays inside the array.
WALL_THICKNESS = 2

EAST: Step = (1, 0, 0)  # towards the h-file
WEST: Step = (-1, 0, 0)
NORTH: Step = (0, 1, 0)  # towards black's side, rank n
SOUTH: Step = (0, -1, 0)
UP: Step = (0, 0, 1)  # towards the top level
DOWN: Step = (0, 0, -1)


def add(*steps: Step) -> Step:
    """Compose unit steps into one step."""
    return (
        sum(step[0] for step in steps),
        sum(step[1] for step in steps),
        sum(step[2] for step in steps),
    )


def scale(step: Step, factor: int) -> Step:
    """Repeat a step `factor` times."""
    return (step[0] * factor, step[1] * factor, step[2] * factor)


#: One axis at a time: the rook's six lines.
ROOK_STEPS: tuple[Step, ...] = (EAST, WEST, NORTH, SOUTH, UP, DOWN)
#: All three axes at once: the bishop's eight triagonals.
BISHOP_STEPS: tuple[Step, ...] = tuple(
    add(x, y, z) for x, y, z in product((EAST, WEST), (NORTH, SOUTH), (UP, DOWN))
)
#: Two axes at once: the twelve flat diagonals, which only the queen (and king) use.
FLAT_DIAGONAL_STEPS: tuple[Step, ...] = tuple(
    add(a, b)
    for first, second in ((EAST, NORTH), (EAST, UP), (NORTH, UP))
    for a in (first, scale(first, -1))
    for b in (second, scale(second, -1))
)
#: Every step to a neighbouring cell: the queen's and the king's 26.
QUEEN_STEPS: tuple[Step, ...] = ROOK_STEPS + BISHOP_STEPS + FLAT_DIAGONAL_STEPS
#: Two cells along one axis, then one along another: the knight's 24 leaps.
KNIGHT_STEPS: tuple[Step, ...] = tuple(
    add(scale(long, 2), short)
    for long in ROOK_STEPS
    for short in ROOK_STEPS
    if all(a == 0 or b == 0 for a, b in zip(long, short, strict=True))  # another axis
)


def memory_width_for(size: int) -> int:
    """Return W, the row width of the padded array: the board and a wall on either side."""
    return size + 2 * WALL_THICKNESS


def compact_width_for(size: int) -> int:
    """Return C, the row width of the compact index: more than twice any |dx| on the board."""
    return 2 * size + 1


def offset_of(step: Step, memory_width: int) -> int:
    """Turn a step into an index offset in a padded array of this width."""
    dx, dy, dz = step
    return dx + memory_width * (dy + memory_width * dz)


class PieceMoves(NamedTuple):
    """How one kind of piece moves: its letter (white's, upper case), its steps, and whether it
    repeats them (a slider) or makes one (a leaper or the king)."""

    letter: str
    steps: tuple[Step, ...]
    slides: bool


class MoveRules(NamedTuple):
    """Every way a variant's pieces move, as plain data (kernel.cube.variants holds the variants).

    `pawn_pushes` and `pawn_captures` are white's pawn steps; black's are their negatives. A
    variant without pawns leaves both empty.
    """

    pieces: tuple[PieceMoves, ...]
    pawn_pushes: tuple[Step, ...] = ()
    pawn_captures: tuple[Step, ...] = ()


def negated(steps: tuple[Step, ...]) -> tuple[Step, ...]:
    """Turn white's steps into black's: every step backwards."""
    return tuple(scale(step, -1) for step in steps)


class Attack(NamedTuple):
    """What can attack across one difference of indices, and the unit step of its path.

    `letters` holds both colours' letters: the caller asks about one side's pieces only (a
    pawn's letter stands only under the differences its own colour captures across).
    `step` is the unit offset of the line joining the two cells, and every cell from
    origin + step up to the target must be empty; it is 0 for a knight's leap, which has
    no line.
    """

    letters: str
    step: int


class Offsets(NamedTuple):
    """Every offset table for one board size and one variant's rules."""

    rook: tuple[int, ...]
    bishop: tuple[int, ...]
    queen: tuple[int, ...]
    knight: tuple[int, ...]
    #: The moving offsets of each piece letter, and whether it slides along them (pawns apart).
    moves: dict[str, tuple[tuple[int, ...], bool]]
    #: Each of the 26 unit offsets with the sliders, of both colours, that move along it.
    rays: tuple[tuple[int, str], ...]
    #: compact[target] - compact[origin] -> the pieces that attack across it, and their path.
    attacks: dict[int, Attack]
    #: The compact index of each memory index: x + C*y + C*C*z, C from compact_width_for.
    #: A tuple up to TUPLE_SIZE, an array of C ints above (compact_indices).
    compact: Sequence[int]
    #: letter -> compact difference -> the unit step of the path (0 for a leap): the attack
    #: table split by letter, so that "does this piece attack that cell" is one look-up.
    reach: dict[str, dict[int, int]]
    #: Each pawn letter -> the offsets of its moves to an empty cell, and of its captures
    #: (both empty in a variant without pawns).
    pushes: dict[str, tuple[int, ...]]
    captures: dict[str, tuple[int, ...]]


#: The 26 unit steps in a fixed order: the rook's lines, the triagonals, the flat diagonals.
UNIT_STEPS: tuple[Step, ...] = ROOK_STEPS + BISHOP_STEPS + FLAT_DIAGONAL_STEPS


def pawn_capture_steps(rules: MoveRules) -> dict[str, tuple[Step, ...]]:
    """Each pawn letter's capturing steps: white's as written, black's backwards."""
    if not rules.pawn_captures:
        return {}
    return {"P": rules.pawn_captures, "p": negated(rules.pawn_captures)}


def attack_table(size: int, memory_width: int, rules: MoveRules) -> dict[int, Attack]:
    """Map every difference of compact indices a piece can attack across to the pieces that can.

    The compact index (Offsets.compact) of memory cell (x, y, z) is x + C*y + C*C*z, with
    C from compact_width_for: every (dx, dy, dz) between two board cells, and every knight
    leap even on a 2x2x2 board, has a difference of its own. The padded index has not (from
    size 6 on, W = size + 4 lets (-6, 6, 0) and (5, 5, 0) meet), so it cannot be the key;
    the step stored is the padded one, to walk.
    """
    compact_width = compact_width_for(size)
    letters: dict[int, str] = {}
    paths: dict[int, int] = {}
    lines = frozenset(UNIT_STEPS)

    def add_attack(step: Step, distance: int, letter: str) -> None:
        key = offset_of(step, compact_width) * distance
        path = offset_of(step, memory_width) if step in lines else 0
        # A leap that a line also crosses would need two paths: no variant has one.
        if paths.setdefault(key, path) != path:
            raise ValueError(f"the leap of {letter} meets a line")
        letters[key] = letters.get(key, "") + letter

    for piece in rules.pieces:
        for letter in (piece.letter.lower(), piece.letter):
            for step in piece.steps:
                for distance in range(1, size if piece.slides else 2):
                    add_attack(step, distance, letter)
    for letter, steps in pawn_capture_steps(rules).items():
        for step in steps:
            add_attack(step, 1, letter)
    return {key: Attack(letters[key], paths[key]) for key in letters}


#: How many sizes' tables are kept: a few, so that `boardsize` through every size up to the
#: largest does not keep the tables of each (70 MB for n = 256).
CACHED_SIZES = 2


@lru_cache(maxsize=CACHED_SIZES)
def offsets_for(size: int, rules: MoveRules) -> Offsets:
    """Build the offset tables for a board of this size under these rules (once while in use)."""
    memory_width = memory_width_for(size)

    def table(steps: tuple[Step, ...]) -> tuple[int, ...]:
        return tuple(offset_of(step, memory_width) for step in steps)

    moves: dict[str, tuple[tuple[int, ...], bool]] = {}
    for piece in rules.pieces:
        for letter in (piece.letter, piece.letter.lower()):
            moves[letter] = (table(piece.steps), piece.slides)
    pushes: dict[str, tuple[int, ...]] = {}
    if rules.pawn_pushes:
        pushes = {"P": table(rules.pawn_pushes), "p": table(negated(rules.pawn_pushes))}
    captures = {letter: table(steps) for letter, steps in pawn_capture_steps(rules).items()}
    rays = tuple(
        (
            offset_of(step, memory_width),
            "".join(
                piece.letter.lower() + piece.letter
                for piece in rules.pieces
                if piece.slides and step in piece.steps
            ),
        )
        for step in UNIT_STEPS
    )
    attacks = attack_table(size, memory_width, rules)
    reach: dict[str, dict[int, int]] = {letter: {} for letter in (*moves, *captures)}
    for key, attack in attacks.items():
        for letter in attack.letters:
            reach[letter][key] = attack.step
    return Offsets(
        table(ROOK_STEPS),
        table(BISHOP_STEPS),
        table(QUEEN_STEPS),
        table(KNIGHT_STEPS),
        moves,
        rays,
        attacks,
        compact_indices(size, memory_width),
        reach,
        pushes,
        captures,
    )


#: The largest size whose compact indices are a tuple. A tuple holds an int object per cell,
#: 36 bytes a cell (11 MB at n = 64, but 630 MB at 256); an array holds 4 bytes a cell, but
#: makes an int object at each look-up, which costs perft 5 to 8 % on small boards.
TUPLE_SIZE = 64


def compact_indices(size: int, memory_width: int) -> Sequence[int]:
    """List the compact index of every memory index, so that a hot loop looks it up."""
    compact_width = compact_width_for(size)
    compact = array("i")
    # A row of memory is a run of consecutive compact indices: one extend per row, in C.
    for z in range(memory_width):
        for y in range(memory_width):
            start = compact_width * (y + compact_width * z)
            compact.extend(range(start, start + memory_width))
    return tuple(compact) if size <= TUPLE_SIZE else compact
