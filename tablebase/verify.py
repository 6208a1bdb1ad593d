"""Checking a table against itself: every value consistent with the values after each legal
move (the smaller endings' tables, from the same folder, for captures), every position not
stored holding no value: independent of the solver's bookkeeping (counts, frontiers,
deferred plies). In the compiled core where it was built (kernel/core/retrograde.c's verify,
millions of positions a second), else in Python (some 15,000 a second); `--python` asks for
Python.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from kernel.tables.tablebase import (
    COMPACT_VERSION,
    CUBE,
    DRAW,
    FORMAT_VERSION,
    NO_VALUE,
    Table,
    TableError,
    file_name,
    letters_of,
    read_table,
    value_text,
)
from tablebase.retrograde import Capture, capture_value, captures_of, core_captures, rules_for
from tablebase.stats import header_as_named

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


def verify(
    path: Path, report: Callable[[str], None] | None = None, compiled: bool = True
) -> list[str]:
    """Check every value of a table file; return the faults found (empty: sound). In the
    compiled core where it was built (kernel/core/retrograde.c's verify), else in Python."""
    header = header_as_named(path)
    name, size, variant = header.name, header.size, header.variant
    values = read_table(path, name, size, variant)
    folder = path.parent
    try:
        captures = captures_of(
            name,
            lambda smaller: read_table(
                folder / file_name(smaller, size, variant), smaller, size, variant, header.numbering
            ),
        )
    except TableError as error:
        # The fault is a smaller table's: say which table needed it.
        raise TableError(f"{path}: its captures need the smaller tables: {error}") from None
    checker = compiled_verifier() if compiled else None
    if checker is not None:
        found = checker(size, name, captures, values, MOST_FAULTS, variant, header.numbering)
    else:
        found = python_faults(size, name, captures, values, report, variant, header.numbering)
    faults = [fault_text(index, held, want) for index, held, want in found]
    if len(faults) >= MOST_FAULTS:
        faults.append("(no more listed)")
    return faults


def fault_text(index: int, held: int, want: int) -> str:
    """Say what is wrong with one index."""
    if want == NO_VALUE:
        return f"index {index}: not a stored position, but holds {held}"
    return f"index {index}: holds {value_text(held)}, its moves say {value_text(want)}"


Verifier = Callable[[int, str, list[Capture], bytes, int, str, int], list[tuple[int, int, int]]]


def compiled_verifier() -> Verifier | None:
    """The compiled verifier where the core was built with it, else None."""
    try:
        from kernel._core import verify as verify_compiled
    except ImportError:
        return None

    def check(
        size: int,
        name: str,
        captures: list[Capture],
        values: bytes,
        most: int,
        variant: str,
        version: int,
    ) -> list[tuple[int, int, int]]:
        compact = int(version == COMPACT_VERSION)
        return verify_compiled(
            size, letters_of(name), core_captures(captures), values, most, variant, compact
        )

    return check


def python_faults(
    size: int,
    name: str,
    captures: list[Capture],
    values: bytes,
    report: Callable[[str], None] | None,
    variant: str = CUBE,
    version: int = FORMAT_VERSION,
) -> list[tuple[int, int, int]]:
    """The first MOST_FAULTS faults of a table, found in Python: (index, held, expected)."""
    table = Table(name, size, variant, version)
    letters = table.letters
    rules = rules_for(size, variant)
    by_slot = {capture.slot: capture for capture in captures}
    faults: list[tuple[int, int, int]] = []
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
            want = NO_VALUE
        else:
            successors = []
            for slot, target, taken in rules.moves(letters, cells, side):
                after = cells.copy()
                after[slot] = target
                if taken < 0:
                    successors.append(values[table.index(1 - side, after)])
                else:
                    successors.append(capture_value(size, by_slot[taken], after, 1 - side, version))
            want = expected_value(values, successors, rules.in_check(letters, cells, side))
        if values[index] != want:
            faults.append((index, values[index], want))
            if len(faults) >= MOST_FAULTS:
                break
    return faults
