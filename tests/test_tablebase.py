"""The endgame tables (issue 37, docs/tablebases.md): the generator held to the slow reference
(tests/retrograde_reference.py) on every position, the compiled solver to the Python one,
files refused when damaged or foreign, a build resumed, and the verifier."""

from __future__ import annotations

import zlib
from pathlib import Path

import pytest

from kernel.compiled import COMPILED
from kernel.tables.tablebase import (
    HEADER_SIZE,
    NO_VALUE,
    Header,
    Table,
    TableError,
    TableFile,
    endings,
    file_name,
    read_header,
    read_table,
    value_text,
)
from tablebase.build import BuildError, build
from tablebase.files import longest_plies
from tablebase.retrograde import captures_of, solve
from tablebase.verify import verify
from tests.retrograde_reference import solve as reference_solve
from tests.retrograde_reference import text_of
from tests.tablebase_cli import tablebase_cli

needs_core = pytest.mark.skipif(not COMPILED, reason="the compiled core was not built")


@pytest.fixture(scope="module")
def tables3(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every table of up to four pieces on 3³, built once (compiled where it can)."""
    folder = tmp_path_factory.mktemp("tables3")
    build(folder, 3, 4 if COMPILED else 3)
    return folder


def test_king_and_queen_agree_with_the_slow_reference_on_every_position(tables3: Path) -> None:
    """KQK on 3³ has wins, losses (checkmates among them) and draws; the reference takes 9 s
    of one core for it (KRK, all draws, 12 s more, agreed too when last run by hand)."""
    white = "Q"
    name = f"K{white}K"
    values = read_table(tables3 / file_name(name, 3), name, 3)
    table = Table(name, 3)
    expected = reference_solve(3, white, "")
    compared = 0
    for (pieces, side), value in expected.items():
        if len(pieces) != 3:
            continue
        where = {letter: x + 3 * (y + 3 * z) for (x, y, z), letter in pieces}
        index = table.index(0 if side == "w" else 1, [where[letter] for letter in table.letters])
        assert value_text(values[index]) == text_of(value), (pieces, side)
        compared += 1
    # Every stored position is some reference position's form, and the reference has them all.
    assert compared > len(values) - values.count(NO_VALUE)


def test_the_issues_facts_on_three_cubed(tables3: Path) -> None:
    """King and rook never mate on 3³; king and queen win every position with white to move."""
    rook = read_table(tables3 / file_name("KRK", 3), "KRK", 3)
    assert set(rook) <= {0, NO_VALUE}
    queen = read_table(tables3 / file_name("KQK", 3), "KQK", 3)
    white_to_move = queen[: len(queen) // 2]
    assert {value_text(value) for value in set(white_to_move) - {NO_VALUE}} == {"win 1"}


def solve_python(size: int, name: str, folder: Path) -> bytes:
    captures = captures_of(
        name, lambda smaller: read_table(folder / file_name(smaller, size), smaller, size)
    )
    return bytes(solve(size, name, captures))


@needs_core
def test_the_compiled_solver_gives_the_python_ones_bytes(tables3: Path) -> None:
    for name in ("KRNK",):  # long mates (13 moves), deferred losses after captures
        assert read_table(tables3 / file_name(name, 3), name, 3) == solve_python(3, name, tables3)


@needs_core
def test_the_compiled_solver_gives_the_python_ones_bytes_on_four_cubed(tmp_path: Path) -> None:
    build(tmp_path, 4, 3)
    for name in ("KQK",):  # the others agreed too, when last run by hand (8 s more)
        assert read_table(tmp_path / file_name(name, 4), name, 4) == solve_python(4, name, tmp_path)


def test_a_damaged_or_foreign_file_is_refused_by_name(tables3: Path, tmp_path: Path) -> None:
    good = (tables3 / file_name("KQK", 3)).read_bytes()
    path = tmp_path / file_name("KQK", 3)
    damaged = bytearray(good)
    damaged[HEADER_SIZE + 100] ^= 1
    path.write_bytes(bytes(damaged))
    with pytest.raises(TableError, match=f"{path}: damaged"):
        read_table(path, "KQK", 3)
    with pytest.raises(TableError, match=f"{path}: damaged"):
        TableFile(path, "KQK", 3).check_values()  # as the engine opens them
    path.write_bytes(good[:-1])
    with pytest.raises(TableError, match="bytes long where its header says"):
        read_table(path, "KQK", 3)
    with pytest.raises(TableError, match="bytes long where its header says"):
        TableFile(path, "KQK", 3)
    path.write_bytes(good)
    table = TableFile(path, "KQK", 3)
    table.check_values()
    values = read_table(path, "KQK", 3)
    assert [table.value(index) for index in range(len(values))] == list(values)
    table.close()
    path.write_bytes(b"hello, world\n" * 10)
    with pytest.raises(TableError, match="not an endgame table"):
        read_table(path, "KQK", 3)
    header = bytearray(good)
    header[10] ^= 1  # the size
    path.write_bytes(bytes(header))
    with pytest.raises(TableError, match="damaged header"):
        read_header(path)
    other = tmp_path / file_name("KRK", 3)
    other.write_bytes(good)
    with pytest.raises(TableError, match="holds KQK on the 3-cube, not KRK"):
        read_table(other, "KRK", 3)


def test_a_build_started_again_keeps_the_tables_written(tmp_path: Path) -> None:
    build(tmp_path, 3, 3)
    kept = tmp_path / file_name("KQK", 3)
    again = tmp_path / file_name("KNK", 3)
    before = again.read_bytes()
    stamp = kept.stat().st_mtime_ns
    again.unlink()
    (tmp_path / (again.name + ".part")).write_bytes(b"half a table")  # an interrupted write
    done = build(tmp_path, 3, 3)
    assert [table.name for table in done if table.built] == ["KNK"]
    assert kept.stat().st_mtime_ns == stamp
    assert again.read_bytes() == before
    assert not list(tmp_path.glob("*.part"))


def test_a_build_refuses_to_overwrite_an_unusable_file(tmp_path: Path) -> None:
    foreign = tmp_path / file_name("KQK", 3)
    foreign.write_text("my notes\n")
    process = tablebase_cli("build", "--size", "3", "--pieces", "3", "--out", str(tmp_path))
    assert process.returncode == 2
    assert f"{foreign}: not an endgame table" in process.stderr
    assert foreign.read_text() == "my notes\n"
    with pytest.raises(BuildError):
        build(tmp_path, 3, 3)


@pytest.mark.parametrize("compiled", [False, pytest.param(True, marks=needs_core)])
def test_the_verifier_passes_a_good_table_and_finds_a_changed_value(
    tables3: Path, tmp_path: Path, compiled: bool
) -> None:
    for name in endings(3):
        (tmp_path / file_name(name, 3)).write_bytes((tables3 / file_name(name, 3)).read_bytes())
    path = tmp_path / file_name("KQK", 3)
    assert verify(path, compiled=compiled) == []
    header = read_header(path)
    values = bytearray(read_table(path, "KQK", 3))
    index = values.index(2)  # a win in 1 made a win in 2, the checksum made to match
    values[index] = 4
    forged = Header(
        header.size,
        header.name,
        header.entries,
        header.positions,
        longest_plies(bytes(values)),  # the header made to agree: only the moves can tell
        zlib.crc32(values),
    )
    path.write_bytes(forged.pack() + bytes(values))
    faults = verify(path, compiled=compiled)
    assert faults and f"index {index}: holds win 2, its moves say win 1" in faults[0]
    process = tablebase_cli("verify", str(path))
    assert process.returncode == 1 and "FAULTY" in process.stdout


@needs_core
def test_every_table_of_three_cubed_is_sound(tables3: Path) -> None:
    for count in (3, 4):
        for name in endings(count):
            assert verify(tables3 / file_name(name, 3)) == [], name


def test_a_build_on_a_local_dask_cluster_gives_the_same_files(
    tables3: Path, tmp_path: Path
) -> None:
    """Every table of 3³ solved on a local Dask cluster of two worker processes (issue 52),
    the tasks pickled to them: the files are byte for byte the local build's."""
    from distributed import LocalCluster

    cluster = LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    )
    try:
        done = build(tmp_path, 3, 4 if COMPILED else 3, dask=cluster.scheduler_address)
    finally:
        cluster.close()
    assert all(table.built for table in done)
    for table in done:
        assert table.path.read_bytes() == (tables3 / table.path.name).read_bytes(), table.name
