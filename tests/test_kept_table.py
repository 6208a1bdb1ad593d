"""A transposition table kept from one search to the next (`play.keep_table`, issue 64).

A timed search then starts from what the last one of its side found. The compiled core reads
and fills the kept memory as the Python search does its kept table: move after move, each
with the tables left by the searches before, the two must still give the same move, score,
line and count of positions. The player keeps a table only for a search limited by time,
only for the same searcher, board, rules and side, and a fixed depth stays reproducible.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kernel.compiled import COMPILED
from kernel.cube.game import Game
from kernel.cube.position import Move
from kernel.cube.start import start_position
from kernel.cube.variants import CUBE, RAUMSCHACH, Variant
from kernel.play.alphabeta import (
    FULL_WIDTH,
    Limits,
    Pruning,
    Searcher,
    SearchResult,
    TranspositionTable,
)
from kernel.play.alphabeta_core import CORE_ENTRY_BYTES, CompiledSearcher, core_table
from kernel.play.player import Player, TableUse
from tests.conftest import Engine, read_json_log
from tests.test_playercore import summary

pytestmark = pytest.mark.skipif(not COMPILED, reason="the compiled core was not built")

#: Small, so that entries of earlier searches are replaced as well as found.
TABLE_MB = 1
PRUNED = Pruning(null_move=True, late_move_reductions=True)


def search(game: Game, compiled: bool, table: TranspositionTable | bytearray | None,
           pruning: Pruning, depth: int) -> SearchResult:  # fmt: skip
    """Search the game's position to a fixed depth with this table (None: a fresh one)."""
    game.position.order_pieces()
    limits = Limits(depth=depth, nodes=2_000_000)
    searcher: Searcher
    if compiled:
        slots = TranspositionTable(TABLE_MB).mask + 1
        memory = table if isinstance(table, bytearray) else None
        searcher = CompiledSearcher(game, limits, slots, None, pruning=pruning, table=memory)
    else:
        kept = table if isinstance(table, TranspositionTable) else TranspositionTable(TABLE_MB)
        searcher = Searcher(game, limits, kept, None, pruning=pruning)
    searcher.mate_guard = False  # each side's own mate search may name another key first
    return searcher.search()


@pytest.mark.parametrize(
    "variant, size, pruning, depth, plies",
    [
        (RAUMSCHACH, 5, FULL_WIDTH, 3, 4),
        (RAUMSCHACH, 5, PRUNED, 3, 6),
        (CUBE, 5, FULL_WIDTH, 2, 16),
        (CUBE, 4, PRUNED, 3, 10),
    ],
    ids=["raumschach", "raumschach-pruned", "cube-5", "cube-4-pruned"],
)
def test_kept_tables_search_alike_move_after_move(
    variant: Variant, size: int, pruning: Pruning, depth: int, plies: int
) -> None:
    """Plies from the start, each side with its own kept table in each search (as the
    player keeps one a side): the compiled and the Python search agree on every ply, and the
    kept tables save positions against a fresh table (so the core does read them). The
    Python search is the cost: depth 3 on Raumschach takes it a second or more a ply."""
    game = Game(start_position(size, variant))
    slots = TranspositionTable(TABLE_MB).mask + 1
    python_tables = [TranspositionTable(TABLE_MB), TranspositionTable(TABLE_MB)]
    core_tables = [core_table(slots), core_table(slots)]
    kept_nodes = fresh_nodes = 0
    for ply in range(plies):
        side = game.position.side
        python = search(game, False, python_tables[side], pruning, depth)
        compiled = search(game, True, core_tables[side], pruning, depth)
        assert summary(python) == summary(compiled), f"ply {ply}"
        fresh = search(game, True, None, pruning, depth)
        kept_nodes += compiled.nodes
        fresh_nodes += fresh.nodes
        assert python.move is not None
        game.play(Move(*python.move))
    assert any(core_tables[0]) and any(core_tables[1])
    assert kept_nodes < fresh_nodes, (kept_nodes, fresh_nodes)


def test_the_same_search_again_finds_its_table() -> None:
    """Searched twice with one kept table, the 4-cube's start counts far fewer positions
    the second time, and both searches still agree with Python's at each."""
    game = Game(start_position(4))
    slots = TranspositionTable(TABLE_MB).mask + 1
    memory = core_table(slots)
    table = TranspositionTable(TABLE_MB)
    first = search(game, True, memory, FULL_WIDTH, 4)
    assert summary(first) == summary(search(game, False, table, FULL_WIDTH, 4))
    second = search(game, True, memory, FULL_WIDTH, 4)
    assert summary(second) == summary(search(game, False, table, FULL_WIDTH, 4))
    assert second.nodes * 4 < first.nodes * 3, (first.nodes, second.nodes)


def test_a_kept_table_of_the_wrong_size_or_kind_is_refused() -> None:
    game = Game(start_position(5, RAUMSCHACH))
    limits = Limits(depth=2)
    with pytest.raises(ValueError, match=r"table: 32 bytes, not 1024 slots of 32 bytes"):
        CompiledSearcher(game, limits, 1024, table=bytearray(CORE_ENTRY_BYTES))
    with pytest.raises(BufferError):
        CompiledSearcher(game, limits, 1024, table=bytes(1024 * CORE_ENTRY_BYTES))  # type: ignore[arg-type]


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "python"])
def test_the_player_keeps_a_timed_searchs_table_for_its_side(compiled: bool) -> None:
    """A timed search keeps its table; the next of the same side searches with that same
    table; a search of the other side makes its own; a fixed depth drops it (and searches
    with a fresh one); without keep_table nothing is kept."""
    game = Game(start_position(5, RAUMSCHACH))
    timed = Limits(nodes=2_000, seconds=5.0)
    player = Player(TABLE_MB, compiled=compiled, keep_table=True)
    choice = player.choose(game, timed)
    assert player.kept is not None
    use, table = player.kept
    assert use == TableUse(compiled, 5, "raumschach", 0)
    assert isinstance(table, bytearray if compiled else TranspositionTable)
    assert choice.move is not None
    game.play(choice.move)
    reply = Player(TABLE_MB, compiled=compiled).choose(game, timed).move
    assert reply is not None
    game.play(reply)
    player.choose(game, timed)
    assert player.kept is not None and player.kept[1] is table
    game.play(Player(TABLE_MB, compiled=compiled).choose(game, timed).move)  # type: ignore[arg-type]
    player.choose(game, timed)
    assert player.kept is not None and player.kept[0].side == 1 and player.kept[1] is not table
    player.choose(game, Limits(depth=2))
    assert player.kept is None
    plain = Player(TABLE_MB, compiled=compiled)
    plain.choose(game, timed)
    assert plain.kept is None


def test_a_fixed_depth_is_reproducible_with_keep_table_on() -> None:
    """keep_table changes nothing at a fixed depth: the same move, score and count as
    without it, after a timed search filled a table."""
    game = Game(start_position(5, RAUMSCHACH))
    keeping = Player(TABLE_MB, keep_table=True)
    keeping.choose(game, Limits(nodes=30_000, seconds=5.0))
    fixed = Limits(depth=3, nodes=2_000_000)
    with_keep = keeping.choose(game, fixed).result
    without = Player(TABLE_MB).choose(game, fixed).result
    assert summary(with_keep) == summary(without)


def test_the_engine_plays_a_timed_game_with_keep_table(tmp_path: Path) -> None:
    """Through the real engine, `play.keep_table = true` from a config: a timed game of
    Raumschach, the engine moving for black against white's moves, each answer a legal
    move played; a value of another type is refused, naming the key."""
    config = tmp_path / "keep.toml"
    # 0.2 s a move, not less: on a loaded machine a shorter move may complete no depth.
    config.write_text("[play]\nkeep_table = true\nmove_time = 0.2\n", encoding="utf-8")
    engine = Engine(tmp_path / "logs", "--config", str(config))
    try:
        assert engine.ask("new_game 5 raumschach") == b"= \n\n"
        for _ in range(4):
            white = engine.ask("reg_genmove white")
            assert white.startswith(b"= "), white
            assert engine.ask(f"play {white[2:].decode().strip()}") == b"= \n\n"
            black = engine.ask("genmove black")
            assert black.startswith(b"= ") and len(black) > 6, black
        assert engine.ask("quit") == b"= \n\n"
        assert engine.finish()[0] == 0
    finally:
        engine.kill()
    searches = [event for event in read_json_log(tmp_path / "logs") if event["event"] == "search"]
    assert len(searches) == 8 and all(event["depth"] >= 1 for event in searches)
    bad = tmp_path / "bad.toml"
    bad.write_text("[play]\nkeep_table = 1\n", encoding="utf-8")
    code, out, err = Engine(tmp_path / "bad", "--config", str(bad)).finish()
    assert code != 0 and out == b""
    assert b"play.keep_table: expected bool, got int" in err
