"""The lean solve (issue 52, item 2; tablebase/lean.py, retrograde.c's retrograde_lean): the
values and a bit an entry, no counts, yet byte for byte the values of today's solver
(tablebase/retrograde.py, retrograde.c's retrograde), which stays as the reference it is held
to: in Python and compiled, under both variants' rules, numbered by versions 1 and 3."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernel.compiled import COMPILED
from kernel.tables.tablebase import COMPACT_VERSION, FORMAT_VERSION, endings, file_name, letters_of
from tablebase.build import build, memory_needed
from tablebase.lean import solve_lean
from tablebase.retrograde import captures_of, core_captures, solve
from tests.sweep import SWEEP

needs_core = pytest.mark.skipif(not COMPILED, reason="the compiled core was not built")
VERSIONS = [FORMAT_VERSION, COMPACT_VERSION]
VARIANTS = ["cube", "raumschach"]

#: Python's samples in the default run (all of 3³'s with CUBEMATE_SWEEP above 1): long mates,
#: deferred losses after captures, captures into the smaller tables both ways, Raumschach's
#: flat bishop and unicorn.
PYTHON_SAMPLES = [
    ("cube", FORMAT_VERSION, ("KQK", "KRK")),
    ("cube", COMPACT_VERSION, ("KRNK",)),
    ("raumschach", COMPACT_VERSION, ("KBUK",)),
]
#: 4³'s four-piece endings held in the default run (all of them with CUBEMATE_SWEEP above 1).
FOUR_CUBED_SAMPLE = ("KQKR",)
#: 3³'s five-piece endings held in the default run, numbered by version 3: three alike, a
#: pair and one, three unlike (all 60 of either variant and version with CUBEMATE_SWEEP
#: above 1).
FIVE_PIECE_SAMPLE = ("KRRRK", "KQQKQ", "KQRKN")


def held_to_today(
    size: int,
    variant: str,
    version: int,
    names: list[str] | tuple[str, ...],
    tables: dict[str, bytes],
    lean: bool = True,
) -> None:
    """Solve endings with today's compiled solver into `tables` (the smaller ones there
    first) and, with `lean`, assert the compiled lean solve's bytes are the same."""
    from kernel._core import retrograde, retrograde_lean

    compact = int(version == COMPACT_VERSION)
    for name in names:
        captures = core_captures(captures_of(name, tables.__getitem__))
        values = bytes(retrograde(size, letters_of(name), captures, variant, compact))
        if lean:
            assert retrograde_lean(size, letters_of(name), captures, variant, compact) == values, (
                name
            )
        tables[name] = values


def today(size: int, variant: str, version: int, pieces: int) -> dict[str, bytes]:
    """Every ending of up to `pieces` pieces solved by today's compiled solver."""
    tables: dict[str, bytes] = {}
    for count in range(3, pieces + 1):
        held_to_today(size, variant, version, endings(count, variant), tables, lean=False)
    return tables


@needs_core
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("version", VERSIONS)
def test_the_compiled_lean_solve_gives_todays_bytes_on_every_ending_of_three_cubed(
    variant: str, version: int
) -> None:
    tables: dict[str, bytes] = {}
    for count in (3, 4, 5) if SWEEP > 1 else (3, 4):
        held_to_today(3, variant, version, endings(count, variant), tables)
    if SWEEP == 1 and variant == "cube" and version == COMPACT_VERSION:
        held_to_today(3, variant, version, FIVE_PIECE_SAMPLE, tables)


@needs_core
@pytest.mark.parametrize("version", VERSIONS)
def test_the_compiled_lean_solve_gives_todays_bytes_on_four_cubed(version: int) -> None:
    if SWEEP == 1 and version == FORMAT_VERSION:
        pytest.skip("version 1's 4³ with CUBEMATE_SWEEP above 1")
    tables: dict[str, bytes] = {}
    held_to_today(4, "cube", version, endings(3), tables)
    held_to_today(4, "cube", version, endings(4) if SWEEP > 1 else FOUR_CUBED_SAMPLE, tables)


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


@needs_core
def test_a_compiled_build_writes_the_files_of_a_python_build(tmp_path: Path) -> None:
    """The build solves by the lean solve, compiled or (`--python`) not: the same files."""
    compiled, python = tmp_path / "compiled", tmp_path / "python"
    build(compiled, 3, 4, compact=True, only=["KRNK"])
    build(python, 3, 4, compiled=False, compact=True, only=["KRNK"])
    names = [*endings(3), "KRNK"]
    for name in names:
        path = file_name(name, 3)
        assert (compiled / path).read_bytes() == (python / path).read_bytes(), name
    assert sorted(path.name for path in compiled.glob("*.cubetb")) == sorted(
        file_name(name, 3) for name in names
    )


def test_the_memory_estimate_is_the_lean_solves_and_the_tables_its_captures_read() -> None:
    """KRRRK on 5³ (version 3): 1.125 bytes for each of its 235,770,500 entries, KRRK's
    5,750,500 (its captures' one table) and the process's 200 MB; not every 4-piece table."""
    need, largest = memory_needed(5, ["KRRRK"], True, "cube", COMPACT_VERSION)
    assert largest == "KRRRK"
    assert need == (200 << 20) + 265_241_812 + 5_750_500
