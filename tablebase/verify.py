"""Checking a table against itself: every value consistent with the values after each legal
move (the smaller endings' tables, from the same folder, for captures), every position not
stored holding no value. Python, position by position: slow (tens of thousands of positions
a second), but independent of the solver's bookkeeping (counts, frontiers, deferred plies).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from kernel.tablebase import (
    DRAW,
    NO_VALUE,
    Table,
    file_name,
    read_header,
    read_table,
    value_text,
)
from tablebase.retrograde import capture_value, captures_of, rules_for

#: At most this many faults are listed.
MOST_FAULTS = 20


def expected_value(values: bytes, successors: list[int], mated: bool) -> int:
    """The value a position must hold given its successors' values (for their side to move):
    a lost successor makes it won one ply later than the fastest; all won, lost one ply later
    than the slowest; no move, checkmate (ply 0) or stalemate."""
    if not successors:
        return 1 if mated else DRAW
    lost = [value for value in successors if value != DRAW and value % 2]
    if lost:
        return min(lost) + 1
    if all(value != DRAW for value in successors):
        return max(successors) + 1
    return DRAW


def verify(path: Path, report: Callable[[str], None] | None = None) -> list[str]:
    """Check every value of a table file; return the faults found (empty: sound)."""
    header = read_header(path)
    name, size = header.name, header.size
    values = read_table(path, name, size)
    folder = path.parent
    table = Table(name, size)
    letters = table.letters
    rules = rules_for(size)
    captures = {
        capture.slot: capture
        for capture in captures_of(
            name, lambda smaller: read_table(folder / file_name(smaller, size), smaller, size)
        )
    }
    faults: list[str] = []
    for index in range(len(values)):
        if report is not None and index % 100_000 == 0:
            report(f"{name}: {index:,} of {len(values):,}")
        side, cells = table.decode(index)
        stored = (
            len(set(cells)) == len(cells)
            and table.index(side, cells) == index
            and not rules.in_check(letters, cells, 1 - side)
        )
        if not stored:
            if values[index] != NO_VALUE:
                faults.append(f"index {index}: not a stored position, but holds {values[index]}")
        else:
            successors = []
            for slot, target, taken in rules.moves(letters, cells, side):
                after = cells.copy()
                after[slot] = target
                if taken < 0:
                    successors.append(values[table.index(1 - side, after)])
                else:
                    successors.append(capture_value(size, captures[taken], after, 1 - side))
            mated = rules.in_check(letters, cells, side)
            want = expected_value(values, successors, mated)
            if values[index] != want:
                faults.append(
                    f"index {index}: holds {value_text(values[index])}, its moves say "
                    f"{value_text(want)}"
                )
        if len(faults) >= MOST_FAULTS:
            faults.append("(no more listed)")
            break
    return faults
