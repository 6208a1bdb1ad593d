"""Format version 3's compact index (issue 52; kernel/tables/compact.py, docs/tablebases.md):
the kings as a pair up to symmetry and apart, identical pieces as a set. Its counts against the
cells enumerated; the same values as version 1 on every stored position (compiled, both
variants: version 3's table widened to version 1's index, byte for byte; the compiled
widening held to Python's); the Python solver held to the compiled one; files built, verified
and probed through the engine process; a build that would mix the two indices refused."""

from __future__ import annotations

from collections.abc import Iterator
from math import comb
from pathlib import Path

import pytest

from kernel.compiled import COMPILED
from kernel.tables.compact import KingPairs, king_pairs, set_cells, set_rank
from kernel.tables.tablebase import (
    COMPACT_VERSION,
    NO_VALUE,
    endings,
    entries_of,
    file_name,
    geometry_for,
    letters_of,
    read_header,
    read_table,
    widen,
)
from tablebase.retrograde import captures_of, core_captures, solve
from tablebase.verify import verify
from tests.conftest import Engine
from tests.sweep import SWEEP
from tests.tablebase_cli import tablebase_cli

needs_core = pytest.mark.skipif(not COMPILED, reason="the compiled core was not built")


def test_the_counts_of_the_compact_index() -> None:
    """Burnside's arithmetic count of the pairs of kings is the pairs enumerated (KingPairs
    asserts it as it builds them); the sets number every k-subset once."""
    assert [king_pairs(size) for size in (3, 4, 5)] == [15, 85, 371]
    for size in (3, 4, 5, 6, 7):
        assert len(KingPairs(geometry_for(size)).cells) == king_pairs(size)
    assert entries_of("KQK", 5, COMPACT_VERSION) == 2 * 371 * 125
    assert entries_of("KRRRK", 5, COMPACT_VERSION) == 2 * 371 * comb(125, 3)
    assert entries_of("KRRRK", 5) == 2 * 10 * 125**4
    ranks = sorted(set_rank([a, b]) for b in range(27) for a in range(b))
    assert ranks == list(range(comb(27, 2)))
    assert set_cells(set_rank([3, 9, 26]), 3) == [3, 9, 26]


def solved_in_order(
    size: int, variant: str, pieces: int, more: tuple[str, ...], compacts: tuple[int, ...]
) -> Iterator[tuple[str, list[bytes]]]:
    """Every ending of up to `pieces` pieces and those of `more`, solved compiled in each index
    of `compacts` (0 version 1's, 1 version 3's): (name, its values in each). The largest are
    not kept once given (five pieces on 4³: 134 MB an ending in version 1)."""
    from kernel._core import retrograde

    smaller: list[dict[str, bytes]] = [{} for _ in compacts]
    most = max(len(name) for name in (*more, "K" * pieces))
    for count in range(3, pieces + 1):
        for name in endings(count, variant) + list(more if count == pieces else ()):
            solved = []
            for compact, tables in zip(compacts, smaller, strict=True):
                captures = core_captures(captures_of(name, tables.__getitem__))
                solved.append(bytes(retrograde(size, letters_of(name), captures, variant, compact)))
                if len(name) < most:
                    tables[name] = solved[-1]
            yield name, solved


def solve_compiled(
    size: int, variant: str, compact: int, pieces: int, more: tuple[str, ...] = ()
) -> dict[str, bytes]:
    """Every ending of up to `pieces` pieces solved in memory, and the larger ones `more`."""
    return {
        name: values for name, (values,) in solved_in_order(size, variant, pieces, more, (compact,))
    }


def first_difference(one: bytes | bytearray, other: bytes | bytearray) -> int | None:
    """The first index at which two tables differ (or the shorter one's end), None if none."""
    if one == other:
        return None
    shorter = min(len(one), len(other))
    return next((at for at in range(shorter) if one[at] != other[at]), shorter)


@needs_core
@pytest.mark.parametrize("variant", ["cube", "raumschach"])
def test_the_compiled_widen_is_the_python_one(variant: str) -> None:
    """kernel/core/retrograde.c's widen gives kernel/tables/tablebase.py's bytes on every ending of
    up to four pieces on 3³, and of the cube's five on a set of three rooks and a set of two
    beside two single pieces; two entries on one index, or a table of another length, are
    refused by both alike."""
    from kernel._core import widen as widen_compiled

    more = ("KRRRK", "KRRKQ") if variant == "cube" else ()
    tables = solve_compiled(3, variant, 1, 4, more)
    assert len(tables) == len(more) + sum(len(endings(count, variant)) for count in (3, 4))
    for name, values in tables.items():
        widened = widen_compiled(3, letters_of(name), values, variant)
        assert widened == widen(name, 3, values, variant), name
        assert len(widened) == entries_of(name, 3) > len(values)
        assert len(widened) - widened.count(NO_VALUE) == len(values) - values.count(NO_VALUE)
    # Every entry a draw: the symmetric forms of one position land on one index.
    everything = bytes(entries_of("KQK", 3, COMPACT_VERSION))
    with pytest.raises(ValueError, match="KkQ: two entries of version 3 at version 1's index"):
        widen_compiled(3, "KkQ", everything)
    with pytest.raises(ValueError, match="KQK: two entries of version 3 at version 1's index"):
        widen("KQK", 3, everything)
    with pytest.raises(ValueError, match="KkQ: 809 values, not version 3's 810"):
        widen_compiled(3, "KkQ", everything[1:])
    with pytest.raises(ValueError, match="KQK: 809 values, not version 3's 810"):
        widen("KQK", 3, everything[1:])


@needs_core
@pytest.mark.parametrize(
    ("size", "pieces", "more"),
    [(3, 4, ()), (4, 3, ()), (3, 4, ("KRRRK",))]  # five pieces: a set of three rooks
    # With CUBEMATE_SWEEP above 1, every ending of five pieces on 3³ and of four on 4³; above
    # 2, of five on 4³ (about an hour of CPU: docs/tablebases.md, "The index of version 3").
    + ([(3, 5, ()), (4, 4, ())] if SWEEP > 1 else [])
    + ([(4, 5, ())] if SWEEP > 2 else []),
)
@pytest.mark.parametrize("variant", ["cube", "raumschach"])
def test_version_3_holds_version_1s_values_on_every_stored_position(
    size: int, pieces: int, more: tuple[str, ...], variant: str
) -> None:
    """Version 3's values widened to version 1's index are version 1's, byte for byte: the
    same value on every stored position, and nothing stored where version 1 stores nothing."""
    from kernel._core import widen as widen_compiled

    if (more or (size, pieces) == (4, 5)) and variant != "cube":
        pytest.skip("the five pieces once")
    for name, (wide, compact) in solved_in_order(size, variant, pieces, more, (0, 1)):
        assert len(compact) == entries_of(name, size, COMPACT_VERSION) < len(wide)
        widened = widen_compiled(size, letters_of(name), compact, variant)
        differs = first_difference(widened, wide)
        assert differs is None, (name, differs, widened[differs:][:1], wide[differs:][:1])


@needs_core
def test_the_python_solver_gives_the_compiled_ones_bytes_in_version_3() -> None:
    compact = solve_compiled(3, "cube", 1, 4)
    for name in ("KRNK", "KQKR"):  # long mates; captures into the smaller compact tables
        python = solve(3, name, captures_of(name, compact.__getitem__), version=COMPACT_VERSION)
        assert bytes(python) == compact[name], name


@needs_core
def test_compact_files_are_built_verified_and_probed_through_the_engine(tmp_path: Path) -> None:
    folder = tmp_path / "compact"
    process = tablebase_cli(
        "build", "--compact", "--size", "3", "--pieces", "4", "--out", str(folder)
    )
    assert process.returncode == 0, process.stderr
    kqkr = folder / file_name("KQKR", 3)
    header = read_header(kqkr)
    assert (header.version, header.entries, header.positions) == (3, 2 * 15 * 27 * 27, 6042)
    assert len(kqkr.read_bytes()) == 72 + header.entries
    info = tablebase_cli("info", str(kqkr))
    assert info.stdout.startswith(f"{kqkr}: KQKR on the 3-cube, version 3, 21,870 entries")
    assert verify(folder / file_name("KRNK", 3)) == []
    assert verify(folder / file_name("KQK", 3), compiled=False) == []
    engine = Engine(tmp_path, "--tablebases", str(folder))
    try:
        assert engine.ask("set_board 3 [###,###,###],[##Q,###,###],[###,r##,K#k] w") == b"= \n\n"
        assert engine.ask("tb_probe") == b"= win 4\n\n"
        assert engine.ask("mate_search 1").startswith(b"= 4 ")
    finally:
        engine.discard()
    # A folder of version 1's tables is not built on with the compact index, nor the reverse:
    # captures read the smaller tables by the index of the table being solved.
    wide = tmp_path / "wide"
    assert (
        tablebase_cli("build", "--size", "3", "--pieces", "3", "--out", str(wide)).returncode == 0
    )
    refused = tablebase_cli(
        "build", "--compact", "--size", "3", "--pieces", "4", "--out", str(wide)
    )
    assert refused.returncode == 2
    assert "numbered by format version 1's index, not version 3's" in refused.stderr
    assert read_table(wide / file_name("KQK", 3), "KQK", 3)  # nothing replaced
    # --endings: of five pieces only those named, the smaller ones all (captures need them).
    process = tablebase_cli(
        "build",
        "--compact",
        "--size",
        "3",
        "--pieces",
        "5",
        "--endings",
        "KRRRK",
        "--out",
        str(folder),
    )
    assert process.returncode == 0, process.stderr
    five = [path.name for path in folder.glob("*.cubetb") if len(path.name.split(".")[0]) == 5]
    assert five == ["KRRRK.n3.cubetb"]
    assert verify(folder / file_name("KRRRK", 3)) == []
    refused = tablebase_cli(
        "build", "--size", "3", "--pieces", "5", "--endings", "KQK", "--out", str(folder)
    )
    assert refused.returncode == 2
    assert refused.stderr == "tablebase: --endings: KQK is no ending of 5 pieces of cube\n"
