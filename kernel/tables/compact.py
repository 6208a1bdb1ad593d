"""The compact index of format version 3 (issue 52; docs/tablebases.md, "The index of version
3"): fewer entries for the same positions, the values and the stored classes unchanged.

- **The kings as a pair.** The two kings' cells up to the cube's 48 symmetries, never equal
  nor side by side (no game has them so): the pair's stored form has the white king in the
  region (as in versions 1 and 2) and, of the symmetries that keep it there, the one giving
  the black king the smallest cell. 371 pairs on 5³, where versions 1 and 2 index 1,250
  (10 region cells × 125), Nalimov's way for flat chess (462 pairs of 64 × 64).
- **Identical pieces as a set.** Each run of identical pieces in index order (a single piece
  is a run of one) is one k-subset of the N cells, numbered by the combinatorial number
  system: cells c₁ < … < c_k are Σ C(c_i, i). KRRRK's rooks take C(125, 3) = 317,750
  numbers, not 125³ = 1,953,125.

index = ((side × PAIRS + pair) × C(N, k₁) + set₁) × C(N, k₂) + set₂ …; of the symmetries that
bring the kings to their pair's stored form, the smallest index is the stored one.
"""

from __future__ import annotations

from functools import cache
from itertools import permutations, product
from math import comb
from typing import Protocol


class Geometry(Protocol):
    """What the index needs of kernel/tables/tablebase.py's Geometry (named here, not imported:
    that module imports this one)."""

    size: int
    cells: int
    region: list[int]
    region_index: list[int]
    transforms: list[list[int]]
    king_transforms: list[list[int]]

    def xyz(self, cell: int) -> tuple[int, int, int]: ...


def king_pairs(size: int) -> int:
    """How many pairs of king cells, apart, there are up to the 48 symmetries: Burnside's count
    of orbits, (1/48) Σ over the symmetries of the pairs each fixes. Arithmetic, so that a
    header's entries are checked without building the size's cells: a symmetry fixes a cell
    when along each cycle of its order of the axes the reflections are even (n values for that
    cycle) or odd and n odd (the middle only); it fixes a pair of cells within one step of
    each other in 3n − 2 ways a cycle of even reflections."""
    total = 0
    for order in permutations(range(3)):
        for flips in product((0, 1), repeat=3):
            seen: set[int] = set()
            fixed = close = 1
            for start in range(3):
                if start in seen:
                    continue
                odd, axis = 0, start
                while axis not in seen:
                    seen.add(axis)
                    odd ^= flips[axis]
                    axis = order[axis]
                fixed *= size % 2 if odd else size
                close *= size % 2 if odd else 3 * size - 2
            total += fixed * fixed - close
    return total // 48


@cache
def groups_of(letters: str) -> tuple[tuple[int, int], ...]:
    """The runs of identical letters after the two kings, single pieces included, as
    (start, end) in index order: each is one set of cells."""
    runs: list[tuple[int, int]] = []
    start = 2
    for end in range(3, len(letters) + 1):
        if end == len(letters) or letters[end] != letters[start]:
            runs.append((start, end))
            start = end
    return tuple(runs)


def compact_entries(letters: str, size: int) -> int:
    """How many indices an ending's version-3 file has: 2 × PAIRS × Π C(N, k)."""
    cells = size**3
    entries = 2 * king_pairs(size)
    for start, end in groups_of(letters):
        entries *= comb(cells, end - start)
    return entries


class KingPairs:
    """The pairs of one board size, numbered by (the white king's region place, the black
    king's cell), and each such (place, cell) to its pair's number, -1 where the pair is not
    a stored form or the kings are not apart."""

    def __init__(self, geometry: Geometry) -> None:
        cells = geometry.cells
        self.cells: list[tuple[int, int]] = []
        self.number = [-1] * (len(geometry.region) * cells)
        for place, king in enumerate(geometry.region):
            keeping = [geometry.transforms[t] for t in geometry.king_transforms[king]]
            x, y, z = geometry.xyz(king)
            for black in range(cells):
                bx, by, bz = geometry.xyz(black)
                if max(abs(x - bx), abs(y - by), abs(z - bz)) <= 1:
                    continue
                if black == min(table[black] for table in keeping):
                    self.number[place * cells + black] = len(self.cells)
                    self.cells.append((king, black))
        assert len(self.cells) == king_pairs(geometry.size)


_PAIRS: dict[int, KingPairs] = {}


def pairs_for(geometry: Geometry) -> KingPairs:
    """The king pairs of a geometry's size, built once."""
    pairs = _PAIRS.get(geometry.size)
    if pairs is None:
        pairs = _PAIRS[geometry.size] = KingPairs(geometry)
    return pairs


def set_rank(cells: list[int]) -> int:
    """Number a set of cells, sorted increasing, by the combinatorial number system."""
    return sum(comb(cell, place + 1) for place, cell in enumerate(cells))


def set_cells(rank: int, count: int) -> list[int]:
    """The sorted cells of a set's number (set_rank's inverse): the largest first, each the
    largest c with C(c, i) <= what is left."""
    found = []
    for place in range(count, 0, -1):
        cell = place - 1
        while comb(cell + 1, place) <= rank:
            cell += 1
        rank -= comb(cell, place)
        found.append(cell)
    return found[::-1]


def compact_index(geometry: Geometry, letters: str, side: int, cells: list[int]) -> int:
    """The stored version-3 index of a position (cells in index order); -1 when its kings
    are not apart (no game position)."""
    pairs = pairs_for(geometry)
    count = geometry.cells
    groups = groups_of(letters)
    best_black, best = count, -1
    place = -1
    for t in geometry.king_transforms[cells[0]]:
        table = geometry.transforms[t]
        black = table[cells[1]]
        if black > best_black:
            continue
        if black < best_black:
            best_black, best = black, -1
        place = geometry.region_index[table[cells[0]]]
        rest = 0
        for start, end in groups:
            rest = rest * comb(count, end - start) + set_rank(
                sorted(table[cell] for cell in cells[start:end])
            )
        if best < 0 or rest < best:
            best = rest
    pair = pairs.number[place * count + best_black]
    if pair < 0:
        return -1
    sizes = 1
    for start, end in groups:
        sizes *= comb(count, end - start)
    return (side * len(pairs.cells) + pair) * sizes + best


def compact_decode(geometry: Geometry, letters: str, index: int) -> tuple[int, list[int]]:
    """The side to move and the cells (in index order) of a version-3 index."""
    pairs = pairs_for(geometry)
    cells = [0] * len(letters)
    for start, end in reversed(groups_of(letters)):
        index, rank = divmod(index, comb(geometry.cells, end - start))
        cells[start:end] = set_cells(rank, end - start)
    side, pair = divmod(index, len(pairs.cells))
    cells[0], cells[1] = pairs.cells[pair]
    return side, cells
