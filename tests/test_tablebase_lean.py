"""The lean solve (issue 52, item 2; tablebase/lean.py, retrograde.c's retrograde_lean): the
values and a bit an entry, no counts, yet byte for byte the values of today's solver
(tablebase/retrograde.py, retrograde.c's retrograde), which stays as the reference it is held
to: in Python and compiled, under both variants' rules, numbered by versions 1 and 3."""

from __future__ import annotations

import pytest

from kernel.compiled import COMPILED
from kernel.tablebase import COMPACT_VERSION, FORMAT_VERSION, endings, letters_of
from tablebase.lean import solve_lean
from tablebase.retrograde import captures_of, core_captures, solve
from tests.sweep import SWEEP

needs_core = pytest.mark.skipif(not COMPILED, reason="the compiled core was not built")

#: Python's samples in the default run (all of 3³'s with CUBEMATE_SWEEP above 1): long mates,
#: deferred losses after captures, captures into the smaller tables both ways, Raumschach's
#: flat bishop and unicorn.
PYTHON_SAMPLES = [
    ("cube", FORMAT_VERSION, ("KQK", "KRK")),
    ("cube", COMPACT_VERSION, ("KRNK", "KQKR")),
    ("raumschach", COMPACT_VERSION, ("KBUK",)),
]


def solve_today(
    size: int, variant: str, version: int, names: list[str], tables: dict[str, bytes]
) -> None:
    """Solve endings with today's compiled solver into `tables` (the smaller ones first)."""
    from kernel._core import retrograde

    for name in names:
        captures = core_captures(captures_of(name, tables.__getitem__))
        compact = int(version == COMPACT_VERSION)
        tables[name] = bytes(retrograde(size, letters_of(name), captures, variant, compact))


def today(
    size: int, variant: str, version: int, pieces: int, more: tuple[str, ...] = ()
) -> dict[str, bytes]:
    """Every ending of up to `pieces` pieces solved by today's compiled solver, and `more`."""
    tables: dict[str, bytes] = {}
    for count in range(3, pieces + 1):
        solve_today(size, variant, version, endings(count, variant), tables)
    solve_today(size, variant, version, list(more), tables)
    return tables


@needs_core
@pytest.mark.parametrize(("variant", "version", "sample"), PYTHON_SAMPLES)
def test_the_python_lean_solve_gives_todays_bytes_on_three_cubed(
    variant: str, version: int, sample: tuple[str, ...]
) -> None:
    tables = today(3, variant, version, 4)
    for name in tables if SWEEP > 1 else sample:
        captures = captures_of(name, tables.__getitem__)
        lean = solve_lean(3, name, captures, variant=variant, version=version)
        assert bytes(lean) == tables[name], name


def test_the_python_lean_solve_gives_the_python_solvers_bytes() -> None:
    """Without the compiled core too: the two Python solvers on the three-piece endings."""
    tables: dict[str, bytes] = {}
    for name in endings(3):
        captures = captures_of(name, tables.__getitem__)
        values = solve(3, name, captures, version=COMPACT_VERSION)
        assert solve_lean(3, name, captures, version=COMPACT_VERSION) == values, name
        tables[name] = bytes(values)
