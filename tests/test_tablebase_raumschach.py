"""Raumschach's endgame tables (issue 48, item 6; docs/tablebases.md, "Raumschach's tables"):
files that say their variant (the name and a version-2 header, which no reader of version 1
takes), the compiled solver held to the Python one under Raumschach's directions, the pieces
both variants share giving the cube's very bytes, and the engine answering a Raumschach
position from Raumschach's tables only, through the real process."""

from __future__ import annotations

import random
import zlib
from functools import cache
from pathlib import Path

import pytest

from kernel.compiled import COMPILED
from kernel.tables.tablebase import (
    HEADER_READERS,
    HEADER_SIZE,
    HEADER_V2_SIZE,
    NO_VALUE,
    Table,
    TableError,
    TableFile,
    check_header,
    endings,
    file_name,
    letters_of,
    read_header,
    read_table,
)
from tablebase.retrograde import captures_of, core_captures, solve
from tablebase.stats import position_text, stats_of
from tablebase.verify import verify
from tests.conftest import Engine
from tests.sweep import SWEEP
from tests.tablebase_cli import tablebase_cli

RS = "raumschach"
needs_core = pytest.mark.skipif(not COMPILED, reason="the compiled core was not built")


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Raumschach's tables of three pieces on 5³ and the cube's beside them, in one folder."""
    tables = tmp_path_factory.mktemp("raumschach")
    for variant in (RS, "cube"):
        process = tablebase_cli(
            "build", "--variant", variant, "--size", "5", "--pieces", "3", "--out", str(tables)
        )
        assert process.returncode == 0, process.stderr
    return tables


def test_a_raumschach_file_says_its_variant_and_a_version_1_reader_refuses_it(
    folder: Path, tmp_path: Path
) -> None:
    names = sorted(path.name for path in folder.glob("*.raumschach.cubetb"))
    assert names == [file_name(name, 5, RS) for name in sorted(endings(3, RS))]
    assert len(names) == 5 and "KUK.n5.raumschach.cubetb" in names
    path = folder / file_name("KBK", 5, RS)
    data = path.read_bytes()
    assert data[8:10] == b"\x02\x00" and data[52:68].rstrip(b"\0") == b"raumschach"
    assert len(data) == HEADER_V2_SIZE + 2 * 10 * 125**2
    header = read_header(path)
    assert (header.name, header.size, header.version, header.variant) == ("KBK", 5, 2, RS)
    cube = folder / file_name("KBK", 5)
    assert cube.read_bytes()[8:10] == b"\x01\x00"  # the cube's stay version 1, unchanged
    assert len(cube.read_bytes()) == HEADER_SIZE + 2 * 10 * 125**2
    # A reader of version 1 alone refuses the file by its version, never reading its values.
    only_v1 = {1: HEADER_READERS[1]}
    original = dict(HEADER_READERS)
    HEADER_READERS.clear()
    HEADER_READERS.update(only_v1)
    try:
        with pytest.raises(TableError, match="format version 2, this engine reads 1"):
            check_header(path, data[:4096], len(data))
    finally:
        HEADER_READERS.clear()
        HEADER_READERS.update(original)
    # Each variant's file at the other's name is refused for what it holds.
    swapped = tmp_path / file_name("KBK", 5)
    swapped.write_bytes(data)
    with pytest.raises(TableError, match="holds raumschach's KBK, not cube's"):
        TableFile(swapped, "KBK", 5)
    swapped = tmp_path / file_name("KBK", 5, RS)
    swapped.write_bytes(cube.read_bytes())
    with pytest.raises(TableError, match="holds cube's KBK, not raumschach's"):
        read_table(swapped, "KBK", 5, RS)
    # A forged variant, its header's checksum made to match, is refused for what it names.
    forged = bytearray(data)
    forged[52:68] = b"xiangqi".ljust(16, b"\0")
    forged[68:72] = zlib.crc32(bytes(forged[:68])).to_bytes(4, "little")
    (tmp_path / "forged.cubetb").write_bytes(bytes(forged))
    with pytest.raises(TableError, match="no tables for the variant 'xiangqi'"):
        TableFile(tmp_path / "forged.cubetb")
    info = tablebase_cli("info", str(path), str(swapped))
    assert info.returncode == 1
    assert f"{path}: KBK on the 5-cube (raumschach), version 2, 312,500 entries" in info.stdout
    assert "named KBK on the 5-cube (raumschach), holds another ending" in info.stdout
    # No Raumschach table on another board, and no tables of a variant without any.
    out = str(tmp_path / "out")
    refused = tablebase_cli("build", "--variant", RS, "--size", "4", "--pieces", "3", "--out", out)
    assert refused.returncode == 2
    assert refused.stderr == "tablebase: --size 4: raumschach is played on 5×5×5 only\n"
    refused = tablebase_cli(
        "build", "--variant", "xiangqi", "--size", "5", "--pieces", "3", "--out", out
    )
    assert refused.returncode == 2
    assert refused.stderr == (
        "tablebase: --variant: no tables for the variant 'xiangqi' (tables are built for "
        "cube, raumschach)\n"
    )
    assert not (tmp_path / "out").exists()


@cache
def solve_compiled(size: int, variant: str) -> dict[str, bytes]:
    """Solve every ending of three and four pieces in the compiled core, in memory: any size
    (the build takes Raumschach's on 5³ only), for the test."""
    from kernel._core import retrograde

    tables: dict[str, bytes] = {}
    for name in endings(3, variant) + endings(4, variant):
        captures = captures_of(name, tables.__getitem__)
        tables[name] = bytes(retrograde(size, letters_of(name), core_captures(captures), variant))
    return tables


@needs_core
def test_the_compiled_solver_gives_the_python_ones_bytes_under_raumschachs_rules(
    folder: Path,
) -> None:
    """On 3³, where the solver runs as well, four pieces with long mates (rook and bishop: 9
    moves) and captures (queen against bishop); with CUBEMATE_SWEEP above 1 also on 5³, the
    bishop of the flat diagonals alone (some 10 s of Python in a loaded suite: the 3³ endings
    walk the same directions)."""
    if SWEEP > 1:
        name = "KBK"
        python = solve(5, name, captures_of(name, lambda smaller: b""), variant=RS)
        assert read_table(folder / file_name(name, 5, RS), name, 5, RS) == bytes(python)
    small = solve_compiled(3, RS)
    for name in ("KRBK", "KQKB"):
        python = solve(3, name, captures_of(name, small.__getitem__), variant=RS)
        assert small[name] == bytes(python), name
    assert max(set(small["KRBK"]) - {NO_VALUE}) == 1 + 18  # mates in 9 moves


@needs_core
def test_the_pieces_both_variants_share_give_the_cubes_very_values(folder: Path) -> None:
    """Raumschach's king, queen, rook and knight are the cube's, its unicorn the cube's bishop:
    those tables hold the cube's values; its own bishop's are new."""
    for raumschach, twin in (("KQK", "KQK"), ("KRK", "KRK"), ("KNK", "KNK"), ("KUK", "KBK")):
        assert read_table(folder / file_name(raumschach, 5, RS), raumschach, 5, RS) == (
            read_table(folder / file_name(twin, 5), twin, 5)
        ), raumschach
    flat = read_table(folder / file_name("KBK", 5, RS), "KBK", 5, RS)
    assert flat != read_table(folder / file_name("KBK", 5), "KBK", 5)
    small = solve_compiled(3, RS)
    cube = solve_compiled(3, "cube")
    for raumschach, same in (("KRUK", "KRBK"), ("KQKU", "KQKB"), ("KUNK", "KBNK")):
        assert small[raumschach] == cube[same], raumschach
    assert small["KRBK"] != cube["KRBK"]
    assert verify(folder / file_name("KBK", 5, RS)) == []


def probe(engine: Engine, board: str) -> str:
    assert engine.ask(f"set_board {board}").startswith(b"="), board
    return engine.ask("tb_probe").decode().strip()


def test_the_engine_answers_a_raumschach_position_from_raumschachs_tables_only(
    folder: Path, tmp_path: Path
) -> None:
    longest = stats_of(folder / file_name("KQK", 5, RS))
    assert longest.longest == 8
    win_8 = longest.example
    values = read_table(folder / file_name("KBK", 5, RS), "KBK", 5, RS)
    flat = position_text(Table("KBK", 5, RS), values.index(0))
    unicorn = flat.replace("B", "U")
    assert win_8.endswith(",#####,K####] w")
    pawn = win_8.removesuffix(",#####,K####] w") + ",P####,K####] w"  # a white pawn on a2(I)
    engine = Engine(tmp_path, "--tablebases", str(folder))
    try:
        assert engine.ask("variant raumschach").startswith(b"=")
        assert probe(engine, win_8) == "= win 8"
        assert probe(engine, flat) == "= draw"
        assert probe(engine, unicorn) == "= draw"
        assert probe(engine, pawn) == (
            "? no table for a position with pawns: tables hold pawnless endings"
        )
        # Black's unicorn beside white's bishop: an ending of four, not built here.
        four = flat.replace("#", "u", 1)
        assert probe(engine, four) == "? no raumschach table for KBKU on the 5×5×5 board"
        # mate_search from the tables at any length: the mate in 8 the search was not asked for.
        assert engine.ask(f"set_board {win_8}").startswith(b"=")
        assert engine.ask("mate_search 1").startswith(b"= 8 ")
        # genmove for both sides from the tables: the fastest win against the longest defence.
        plies = 0
        while not engine.ask("status").startswith(b"= checkmate"):
            assert engine.ask("genmove").startswith(b"=")
            plies += 1
            assert plies <= 15
        assert plies == 15
    finally:
        engine.discard()
    # A folder of Raumschach's tables alone: a cube position never reads them, nor the reverse.
    alone = tmp_path / "alone"
    alone.mkdir()
    for path in folder.glob("*.raumschach.cubetb"):
        (alone / path.name).write_bytes(path.read_bytes())
    engine = Engine(tmp_path, "--tablebases", str(alone))
    try:
        assert probe(engine, win_8) == "? no table for KQK on the 5×5×5 board"
        assert engine.ask("variant raumschach").startswith(b"=")
        assert probe(engine, win_8) == "= win 8"
    finally:
        engine.discard()
    cube_only = tmp_path / "cube"
    cube_only.mkdir()
    for name in endings(3):
        (cube_only / file_name(name, 5)).write_bytes((folder / file_name(name, 5)).read_bytes())
    engine = Engine(tmp_path, "--tablebases", str(cube_only))
    try:
        assert probe(engine, win_8) == "= win 8"
        assert engine.ask("variant raumschach").startswith(b"=")
        assert probe(engine, win_8) == "? no raumschach table for KQK on the 5×5×5 board"
    finally:
        engine.discard()


def test_mate_search_agrees_with_raumschachs_tables(folder: Path, tmp_path: Path) -> None:
    """Wins of one to three moves of king and queen, answered by the tables in one engine and
    by the mate search in another that has none."""
    values = read_table(folder / file_name("KQK", 5, RS), "KQK", 5, RS)
    rng = random.Random(48)
    wins = [index for index, value in enumerate(values) if value in (2, 4, 6)]
    boards = [position_text(Table("KQK", 5, RS), index) for index in rng.sample(wins, 6)]
    tables = Engine(tmp_path, "--tablebases", str(folder))
    search = Engine(tmp_path)
    try:
        for engine in (tables, search):
            assert engine.ask("variant raumschach").startswith(b"=")
        for board in boards:
            answers = []
            for engine in (tables, search):
                assert engine.ask(f"set_board {board}").startswith(b"=")
                answers.append(engine.ask("mate_search 3"))
            assert answers[0] == answers[1], board
            assert answers[0].startswith(b"= ") and answers[0][2:3] in b"123", answers
    finally:
        tables.discard()
        search.discard()
