"""The endgame tables in the engine (issue 37): tb_probe through the real process with
--tablebases DIR (and [tablebase] path), genmove playing from them, mate_search answering
from them and agreeing with the search."""

from __future__ import annotations

import random
import tracemalloc
from pathlib import Path

import pytest

from kernel.compiled import COMPILED
from kernel.config import EngineConfig, config_from_document
from kernel.kernel import Kernel
from kernel.tables.tablebase import DRAW, HEADER_SIZE, NO_VALUE, Table, file_name, read_table
from tablebase.build import build
from tablebase.stats import position_text, stats_of
from tests.conftest import Engine, run_engine

pytestmark = pytest.mark.skipif(not COMPILED, reason="four-piece tables need the compiled core")

#: The longest win in KQKR on 3³: white mates in 4.
KQKR_WIN_4 = "3 [###,###,###],[##Q,###,###],[###,r##,K#k] w"
BARE_KINGS = "3 [###,###,###],[###,###,###],[###,##k,K##]"
#: White to move, black in check: no game position.
BLACK_IN_CHECK = "3 [###,###,###],[###,###,###],[##k,###,K#R]"
FOUR_CUBED_KQK = "4 " + ",".join(["[####,####,####,####]"] * 3) + ",[####,####,###k,KQ##]"


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every table of up to four pieces on 3³."""
    tables = tmp_path_factory.mktemp("tables")
    build(tables, 3, 4)
    return tables


def probe(engine: Engine, board: str) -> str:
    assert engine.ask(f"set_board {board}").startswith(b"=")
    return engine.ask("tb_probe").decode().strip()


def a_position(folder: Path, name: str, value: int) -> str:
    """The first position of an ending holding a value, as set_board takes it."""
    values = read_table(folder / file_name(name, 3), name, 3)
    return position_text(Table(name, 3), values.index(value))


def test_tb_probe_through_the_engine_process(folder: Path, tmp_path: Path) -> None:
    engine = Engine(tmp_path, "--tablebases", str(folder))
    try:
        assert probe(engine, KQKR_WIN_4) == "= win 4"
        # The colours exchanged: black's queen against white's rook, read from KQKR.
        assert probe(engine, "3 [###,###,###],[##q,###,###],[###,R##,k#K] b") == "= win 4"
        assert probe(engine, a_position(folder, "KQKR", 1)) == "= loss 0"
        assert probe(engine, a_position(folder, "KRKN", 0)) == "= draw"
        assert probe(engine, a_position(folder, "KQK", 3)) == "= loss 1"
        assert probe(engine, BARE_KINGS) == "= draw"
        assert probe(engine, FOUR_CUBED_KQK) == "? no table for KQK on the 4×4×4 board"
        assert probe(engine, BLACK_IN_CHECK) == "? the side not to move is in check"
        assert engine.ask("status").startswith(b"=")
    finally:
        engine.discard()
    # Without a folder: bare kings still a draw, the rest no table.
    engine = Engine(tmp_path)
    try:
        assert probe(engine, BARE_KINGS) == "= draw"
        assert probe(engine, KQKR_WIN_4) == "? no table for KQKR on the 3×3×3 board"
        # A white king alone is no bare kings' draw: there is no black king to draw with.
        lone_king = "3 [###,###,###],[###,###,###],[###,###,##K]"
        assert probe(engine, lone_king) == "? no table for a position without a black king"
    finally:
        engine.discard()


def test_a_damaged_table_is_refused_by_name_and_the_engine_goes_on(
    folder: Path, tmp_path: Path
) -> None:
    tables = tmp_path / "tables"
    tables.mkdir()
    data = bytearray((folder / file_name("KQKR", 3)).read_bytes())
    data[HEADER_SIZE + 1000] ^= 4
    (tables / file_name("KQKR", 3)).write_bytes(bytes(data))
    engine = Engine(tmp_path, "--tablebases", str(tables))
    try:
        answer = probe(engine, KQKR_WIN_4)
        assert answer.startswith("? ") and "KQKR.n3.cubetb: damaged" in answer
        assert engine.ask("genmove").startswith(b"= ")  # the search plays instead
        assert engine.ask("status").startswith(b"=")
    finally:
        engine.discard()


def test_the_config_names_the_folder_relative_to_itself(folder: Path, tmp_path: Path) -> None:
    assert config_from_document({"tablebase": {"path": "t"}}).tablebase_path == "t"
    (tmp_path / "tables").symlink_to(folder)
    config = tmp_path / "engine.toml"
    config.write_text('[tablebase]\npath = "tables"\n')
    elsewhere = tmp_path / "logs"
    engine = Engine(elsewhere, "--config", str(config))
    try:
        assert probe(engine, KQKR_WIN_4) == "= win 4"
    finally:
        engine.discard()


def test_genmove_from_the_longest_win_mates_in_exactly_that_many_moves(folder: Path) -> None:
    """Both sides play from the tables: the fastest win against the longest defence."""
    stats = stats_of(folder / file_name("KRNK", 3))
    assert stats.longest == 13
    kernel = Kernel(EngineConfig(tablebase_path=str(folder)))
    kernel.run("set_board", stats.example.split())
    moves = 0
    while kernel.run("status", []) != "checkmate":
        kernel.run("genmove", [])
        moves += 1
        assert moves <= 2 * stats.longest
    assert moves == 2 * stats.longest - 1  # white's 13 moves and black's 12 answers


def test_stats_count_a_table_a_stretch_at_a_time(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`tablebase stats` reads a table a stretch at a time (a five-piece table of 5³ is up to
    1.4 GB): with stretches of 999 values, so that the half between white to move and black
    to move falls inside one, its counts and its longest mate's first position are those of
    the values read whole, and it holds a few stretches, not the table."""
    monkeypatch.setattr("kernel.tables.tablebase.BLOCK", 999)
    for name in ("KRNK", "KQKR", "KQKN"):
        path = folder / file_name(name, 3)
        values = read_table(path, name, 3)
        half = len(values) // 2
        assert half % 999
        stats_of(path)  # once first: the geometry it decodes the example with is kept
        tracemalloc.start()
        try:
            stats = stats_of(path)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < len(values) // 8, (name, peak, len(values))  # read whole: 2 × the table

        def mated(part: bytes, won: bool) -> int:
            return sum(v not in (DRAW, NO_VALUE) and v % 2 == (0 if won else 1) for v in part)

        white, black = values[:half], values[half:]
        assert stats.positions == len(values) - values.count(NO_VALUE)
        assert stats.white_wins == mated(white, True) + mated(black, False)
        assert stats.black_wins == mated(black, True) + mated(white, False)
        assert stats.draws == values.count(DRAW)
        assert (
            stats.longest == max(v for v in values if v not in (DRAW, NO_VALUE) and not v % 2) // 2
        )
        assert stats.example == position_text(Table(name, 3), values.index(2 * stats.longest))


def test_mate_search_agrees_with_the_tables(folder: Path) -> None:
    tables = Kernel(EngineConfig(tablebase_path=str(folder)))
    search = Kernel(EngineConfig())
    rng = random.Random(37)
    asked = 0
    for name in ("KQKR", "KQNK", "KRRK", "KRNK", "KQKN"):
        values = read_table(folder / file_name(name, 3), name, 3)
        wins = [index for index, value in enumerate(values) if value in (2, 4, 6, 8, 10)]
        for index in rng.sample(wins, 3):
            board = position_text(Table(name, 3), index).split()
            for kernel in (tables, search):
                kernel.run("set_board", board)
            assert tables.run("mate_search", ["5"]) == search.run("mate_search", ["5"]), board
            asked += 1
    assert asked == 15
    # Beyond MAX: the tables know the mate the search was not asked for.
    tables.run("set_board", KQKR_WIN_4.split())
    assert tables.run("mate_search", ["1"]).startswith("4 ")
    assert values.count(NO_VALUE) < len(values)


def test_a_tablebase_folder_that_is_not_one_stops_the_engine(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-folder"
    process = run_engine(b"status\n", tmp_path, "--tablebases", str(missing))
    assert process.returncode == 2
    assert f"--tablebases: {missing} is not a folder" in process.stderr.decode()
