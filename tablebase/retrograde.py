"""Solving one ending by retrograde analysis: the readable reference of kernel/core/retrograde.c.

The positions of an ending are the indices of its table (kernel/tables/tablebase.py); each gets
one byte, the value for the side to move (0 draw, 1 + p won or lost in p plies, 255 none).

1. **One pass forward** over every index: no value for a position that is not stored (two
   pieces on one cell, a symmetric copy, the side not to move in check). Otherwise its legal
   moves: none is checkmate (ply 0) or stalemate (a draw); a capture leads into a smaller
   ending, whose table (built first) gives its value at once; a quiet move leads to another
   position of this ending. Each position keeps a count: its distinct quiet successors (by
   stored index) plus its captures that do not win for the opponent. A capture into a lost
   position makes it a win candidate at that distance; captures into won positions set the
   earliest ply it can be lost at.
2. **Ply by ply backwards**: the positions decided at ply p (the frontier) are un-moved: every
   piece of the side that just moved goes back along its lines to an empty cell. Each
   predecessor (distinct, by stored index) of a lost position is won at p + 1; a predecessor
   of a won position counts one successor less, and when none is left it is lost at p + 1
   (or later, at the ply its slowest capture allows). Win candidates and deferred losses join
   the frontier at their ply. When nothing is left to decide, what is undecided is a draw.

Counting distinct successors by stored index, and taking each predecessor once per
frontier position, keeps the counts right under symmetry: a position has a successor
whose stored form is Q exactly when un-moving from Q's stored form reaches one of its own
forms (a symmetric position may reach two images of one successor, and counts it once).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache

from kernel.tables.tablebase import (
    CUBE,
    DRAW,
    FORMAT_VERSION,
    MOST_PLIES,
    NO_VALUE,
    Table,
    ending_name,
    geometry_for,
    letters_of,
)

#: The unit steps and leaps of each kind (docs/rules.md), written here from the rules rather
#: than taken from kernel/cube/variants.py, so that the tables check the engine's move generator.
STEPS = [(dx, dy, dz) for dz in (-1, 0, 1) for dy in (-1, 0, 1) for dx in (-1, 0, 1)]
STEPS.remove((0, 0, 0))
LEAPS = [
    (dx, dy, dz)
    for dz in range(-2, 3)
    for dy in range(-2, 3)
    for dx in range(-2, 3)
    if sorted(map(abs, (dx, dy, dz))) == [0, 1, 2]
]
#: Lines along one axis (the rook's), two (the flat diagonals) or three (the triagonals).
LINES = {axes: [step for step in STEPS if 3 - step.count(0) == axes] for axes in (1, 2, 3)}
#: Each variant's kinds (lower case) and their directions: the cube's bishop on the 8
#: triagonals; Raumschach's bishop on the 12 flat diagonals, its unicorn on the triagonals.
DIRECTIONS_BY_VARIANT = {
    "cube": {"k": STEPS, "q": STEPS, "r": LINES[1], "b": LINES[3], "n": LEAPS},
    "raumschach": {
        "k": STEPS,
        "q": STEPS,
        "r": LINES[1],
        "b": LINES[2],
        "u": LINES[3],
        "n": LEAPS,
    },
}
#: The kinds that slide along their lines (the others step once).
SLIDES = {"k": False, "q": True, "r": True, "b": True, "u": True, "n": False}


@dataclass(frozen=True)
class Capture:
    """Where capturing the piece of one slot leads: the smaller ending's table, the colours
    exchanged or not, and for each of its slots the slot of this ending that fills it."""

    slot: int
    name: str
    swapped: bool
    order: tuple[int, ...]
    values: bytes  # empty for bare kings: every position a draw


class Rules:
    """The moves of each kind from each cell of one board size, as rays of cells, and the
    cells between two cells a piece of a kind attacks across (None: it does not)."""

    def __init__(self, size: int, variant: str = CUBE) -> None:
        self.size = size
        self.variant = variant
        geometry = geometry_for(size)
        count = geometry.cells
        self.rays: dict[str, list[list[list[int]]]] = {}
        self.between: dict[str, list[tuple[int, ...] | None]] = {}
        for kind, directions in DIRECTIONS_BY_VARIANT[variant].items():
            rays = []
            between: list[tuple[int, ...] | None] = [None] * (count * count)
            for cell in range(count):
                x, y, z = geometry.xyz(cell)
                cell_rays = []
                for dx, dy, dz in directions:
                    ray: list[int] = []
                    tx, ty, tz = x + dx, y + dy, z + dz
                    while 0 <= tx < size and 0 <= ty < size and 0 <= tz < size:
                        target = tx + size * (ty + size * tz)
                        between[cell * count + target] = tuple(ray)
                        ray.append(target)
                        if not SLIDES[kind]:
                            break
                        tx, ty, tz = tx + dx, ty + dy, tz + dz
                    if ray:
                        cell_rays.append(ray)
                rays.append(cell_rays)
            self.rays[kind] = rays
            self.between[kind] = between
        self.count = count

    def attacked(self, letters: str, cells: list[int], cell: int, side: int, gone: int) -> bool:
        """Tell whether a piece of `side` (not the one of slot `gone`) attacks `cell`."""
        occupied = set(cells)
        for slot, letter in enumerate(letters):
            if slot == gone or letter.isupper() != (side == 0):
                continue
            between = self.between[letter.lower()][cells[slot] * self.count + cell]
            if between is not None and not occupied.intersection(between):
                return True
        return False

    def in_check(self, letters: str, cells: list[int], side: int) -> bool:
        """Tell whether `side`'s king (slot 0 white's, 1 black's) is attacked."""
        return self.attacked(letters, cells, cells[side], 1 - side, -1)

    def moves(self, letters: str, cells: list[int], side: int) -> Iterator[tuple[int, int, int]]:
        """Yield the legal moves of `side`: (slot, target, captured slot or -1)."""
        where = {cell: slot for slot, cell in enumerate(cells)}
        for slot, letter in enumerate(letters):
            if letter.isupper() != (side == 0):
                continue
            for ray in self.rays[letter.lower()][cells[slot]]:
                for target in ray:
                    taken = where.get(target, -1)
                    if taken >= 0 and letters[taken].isupper() == (side == 0):
                        break  # its own piece
                    after = cells.copy()
                    after[slot] = target
                    if taken >= 0:
                        after[taken] = -1
                    if not self.attacked(letters, after, after[side], 1 - side, taken):
                        yield slot, target, taken
                    if taken >= 0:
                        break

    def unmoves(self, letters: str, cells: list[int], side: int) -> Iterator[list[int]]:
        """Yield the cells before every quiet move `side` could have just made."""
        occupied = set(cells)
        for slot, letter in enumerate(letters):
            if letter.isupper() != (side == 0):
                continue
            for ray in self.rays[letter.lower()][cells[slot]]:
                for origin in ray:
                    if origin in occupied:
                        break
                    before = cells.copy()
                    before[slot] = origin
                    yield before


def is_stored(table: Table, rules: Rules, index: int, side: int, cells: list[int]) -> bool:
    """Whether an index holds a position: no two pieces on one cell, the stored form of its
    class, and the side not to move not in check."""
    return (
        len(set(cells)) == len(cells)
        and table.index(side, cells) == index
        and not rules.in_check(table.letters, cells, 1 - side)
    )


@cache
def rules_for(size: int, variant: str = CUBE) -> Rules:
    """Return the rules of a board size and variant, built once."""
    return Rules(size, variant)


def captures_of(name: str, load: Callable[[str], bytes]) -> list[Capture]:
    """Work out where capturing each piece of an ending leads; `load` gives the values of a
    smaller ending's table by name."""
    letters = letters_of(name)
    found = []
    for slot in range(2, len(letters)):
        rest = [(place, letter) for place, letter in enumerate(letters) if place != slot]
        white = "".join(letter for _, letter in rest if letter.isupper() and letter != "K")
        black = "".join(letter.upper() for _, letter in rest if letter.islower() and letter != "k")
        if not white and not black:
            found.append(Capture(slot, "KK", False, (0, 1), b""))
            continue
        smaller, swapped = ending_name(white, black)
        wanted = letters_of(smaller)
        if swapped:
            wanted = wanted.swapcase()
        free = dict(rest)
        order = []
        for letter in wanted:
            place = next(place for place, have in free.items() if have == letter)
            order.append(place)
            del free[place]
        found.append(Capture(slot, smaller, swapped, tuple(order), load(smaller)))
    return found


#: A capture as the compiled core takes it: slot, the smaller ending's letters, swapped,
#: order, values (None for bare kings).
CoreCapture = tuple[int, str, int, tuple[int, ...], bytes | None]


def core_captures(captures: list[Capture]) -> list[CoreCapture]:
    """The captures as kernel/core/retrograde.c takes them."""
    return [
        (
            capture.slot,
            letters_of(capture.name) if capture.values else "Kk",
            int(capture.swapped),
            capture.order,
            capture.values or None,
        )
        for capture in captures
    ]


def capture_value(
    size: int, capture: Capture, cells: list[int], side: int, version: int = FORMAT_VERSION
) -> int:
    """Give the value, for the side to move then, of the position after a capture: `cells`
    are this ending's, the captured piece's included, `side` the side to move after it; the
    smaller table numbered as this one (`version`)."""
    if not capture.values:
        return DRAW
    table = Table(capture.name, size, version=version)
    mapped = [cells[place] for place in capture.order]
    return capture.values[table.index(1 - side if capture.swapped else side, mapped)]


def solve(
    size: int,
    name: str,
    captures: list[Capture],
    progress: Callable[[str], None] | None = None,
    variant: str = CUBE,
    version: int = FORMAT_VERSION,
) -> bytearray:
    """Give the value of every index of an ending's table on the n-cube, under a variant's
    rules, numbered by a version's index."""
    table = Table(name, size, variant, version)
    letters = table.letters
    rules = rules_for(size, variant)
    entries = table.entries
    by_slot = {capture.slot: capture for capture in captures}
    values = bytearray(entries)
    counts = array("H", bytes(2 * entries))
    floors = bytearray(entries)
    later: dict[int, list[int]] = {}  # ply -> positions decided then (capture wins, losses)
    frontier: list[int] = []
    for index in range(entries):
        side, cells = table.decode(index)
        if not is_stored(table, rules, index, side, cells):
            values[index] = NO_VALUE
            continue
        successors: set[int] = set()
        escapes = moves = best = floor = 0
        for slot, target, taken in rules.moves(letters, cells, side):
            moves += 1
            after = cells.copy()
            after[slot] = target
            if taken < 0:
                successors.add(table.index(1 - side, after))
                continue
            value = capture_value(size, by_slot[taken], after, 1 - side, version)
            if value == DRAW or value % 2:  # a draw, or the opponent lost (even plies)
                escapes += 1
                if value != DRAW and (best == 0 or value < best):
                    best = value  # won in `value` plies
            else:
                floor = max(floor, value)
        if moves == 0:
            if rules.in_check(letters, cells, side):
                values[index] = 1
                frontier.append(index)
            continue
        counts[index] = len(successors) + escapes
        floors[index] = floor
        if best:
            later.setdefault(best, []).append(index)
        elif counts[index] == 0:
            later.setdefault(floor, []).append(index)
    settle(table, rules, values, counts, floors, frontier, later, progress)
    return values


def settle(
    table: Table,
    rules: Rules,
    values: bytearray,
    counts: array[int],
    floors: bytearray,
    frontier: list[int],
    later: dict[int, list[int]],
    progress: Callable[[str], None] | None,
) -> None:
    """Decide the positions ply by ply backwards from the frontier (ply 0, the mates)."""
    letters = table.letters
    ply = 0
    while frontier or later:
        if ply >= MOST_PLIES:
            raise ValueError(f"{table.name}: a mate longer than {MOST_PLIES} plies")
        decided: list[int] = []
        for index in frontier:
            side, cells = table.decode(index)
            before = {
                table.index(1 - side, earlier)
                for earlier in rules.unmoves(letters, cells, 1 - side)
            }
            before.discard(-1)  # version 3: a king un-moved beside the other, no position
            for previous in before:
                if values[previous]:
                    continue
                if ply % 2 == 0:  # lost: whoever could move into it wins
                    values[previous] = ply + 2
                    decided.append(previous)
                    continue
                counts[previous] -= 1
                if counts[previous] == 0:
                    if floors[previous] <= ply + 1:
                        values[previous] = ply + 2
                        decided.append(previous)
                    else:
                        later.setdefault(floors[previous], []).append(previous)
        ply += 1
        for index in later.pop(ply, []):
            if values[index] == 0:
                values[index] = ply + 1
                decided.append(index)
        frontier = decided
        if progress is not None and decided:
            progress(f"{table.name}: ply {ply}, {len(decided)} positions")
