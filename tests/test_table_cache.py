"""The offset and attack tables are built once per (size, variant) and kept within a bound
(issue 60): counts of the builders' calls, not times, and the memory they keep.

The reference workload cycled sizes 2, 3 and 4 through a cache of two sizes, so that every
few positions built the tables again: 1,200 builds for 6,000 positions, 41 % of its time.
"""

from __future__ import annotations

import tracemalloc
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kernel.config import EngineConfig
from kernel.cube import directions
from kernel.cube.board import EMPTY_BUDGET, empty_cells
from kernel.cube.directions import (
    OFFSETS_BUDGET,
    MoveRules,
    TableCache,
    offsets_bytes,
    offsets_for,
)
from kernel.cube.position import Position
from kernel.cube.variants import CUBE, RAUMSCHACH, VARIANTS, impossible_pawn
from kernel.kernel import Kernel
from tests.cases import REFERENCE_CASES
from tests.conftest import Engine
from tests.test_robustness import peak_rss_kib

#: Each variant's name by its rules object, to name what was built.
RULES_NAMES = {id(variant.rules): name for name, variant in VARIANTS.items()}


def counted(
    calls: Counter[tuple[Any, ...]], key: Callable[..., tuple[Any, ...]], function: Any
) -> Callable[..., Any]:
    """Wrap a builder so that each call is counted under `key` of its arguments."""

    def wrapper(*args: Any) -> Any:
        calls[key(*args)] += 1
        return function(*args)

    return wrapper


def rules_name(rules: MoveRules) -> str:
    return RULES_NAMES[id(rules)]


def ask(kernel: Kernel, line: str) -> str:
    """Answer one line in process; a refusal fails the test."""
    name, *args = line.split()
    reply = kernel.execute(name, args)
    assert reply.ok, f"{line}: {reply.text}"
    return reply.text


def test_each_size_and_variant_builds_its_tables_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The reference cases cycled (sizes 2, 3, 4) between Raumschach games and 5³ cube games,
    three rounds through the Kernel: every table builder runs once per (size, variant) in
    use, and the answers are the reference's."""
    offsets: Counter[tuple[Any, ...]] = Counter()
    attacks: Counter[tuple[Any, ...]] = Counter()
    compact: Counter[tuple[Any, ...]] = Counter()
    empties: Counter[tuple[Any, ...]] = Counter()
    monkeypatch.setattr(
        offsets_for,
        "build",
        counted(offsets, lambda size, rules: (size, rules_name(rules)), offsets_for.build),
    )
    monkeypatch.setattr(
        directions,
        "attack_table",
        counted(attacks, lambda size, _, rules: (size, rules_name(rules)), directions.attack_table),
    )
    monkeypatch.setattr(
        directions,
        "compact_indices",
        counted(compact, lambda size, _: (size,), directions.compact_indices),
    )
    monkeypatch.setattr(
        empty_cells, "build", counted(empties, lambda size: (size,), empty_cells.build)
    )
    offsets_for.cache_clear()
    empty_cells.cache_clear()
    kernel = Kernel(EngineConfig())
    for _ in range(3):
        for case in REFERENCE_CASES:
            ask(kernel, f"set_board {case.board}")
            assert ask(kernel, "status") == case.status
        ask(kernel, "new_game 5 raumschach")
        start = ask(kernel, "get_board")
        first = ask(kernel, "legal_moves").split()[0]
        ask(kernel, f"play {first}")
        ask(kernel, f"set_board {start}")
        assert ask(kernel, "perft 2") == "3615"
        ask(kernel, "new_game 5 cube")
        assert ask(kernel, "perft 1") == "78"
        for size in (2, 3, 4):
            ask(kernel, f"boardsize {size}")
    used = {(2, "cube"), (3, "cube"), (4, "cube"), (5, "cube"), (5, "raumschach")}
    assert set(offsets) == used
    assert set(attacks) == used
    assert max(offsets.values()) == max(attacks.values()) == 1, (offsets, attacks)
    # The compact indices are the size's alone: built with each variant's tables at 5.
    assert compact == Counter({(2,): 1, (3,): 1, (4,): 1, (5,): 2})
    assert empties == Counter({(size,): 1 for size in (2, 3, 4, 5)})


def test_the_weight_of_a_size_is_no_less_than_its_tables() -> None:
    """offsets_bytes, by which the cache keeps to its budget, is at least what tracemalloc
    finds a size's tables hold, tuple (n <= 64) or array (above), under either variant's
    rules (tracemalloc slows the building tenfold: the sizes are a sample)."""
    offsets_for.cache_clear()
    # Raumschach's dicts are the larger; its tables past 32 are built by no game.
    for size in (2, 5, 8, 16, 32, 64, 65):
        for rules in (CUBE.rules, RAUMSCHACH.rules) if size <= 32 else (CUBE.rules,):
            tracemalloc.start()
            try:
                tables = offsets_for.build(size, rules)
                held, _ = tracemalloc.get_traced_memory()
            finally:
                tracemalloc.stop()
            del tables
            assert held <= offsets_bytes(size, rules), (size, held)


def test_the_largest_sizes_up_to_64_keep_the_tables_within_budget() -> None:
    """Boards of sizes 2 ... 4, then of every size 40 ... 64 (where the budget binds: n = 64's
    tables are some 14 MB), one after the other, leave at most OFFSETS_BUDGET of offset tables
    and EMPTY_BUDGET of empty boards kept, the newest (n = 64) among them; the small sizes,
    dropped as least recently used, then come back once each and stay."""
    offsets_for.cache_clear()
    empty_cells.cache_clear()
    for size in (2, 3, 4, *range(40, 65)):
        Position.empty(size)
        assert offsets_for.cache_info().weight <= OFFSETS_BUDGET
        assert empty_cells.cache_info().weight <= EMPTY_BUDGET
    assert offsets_for(64, CUBE.rules) is offsets_for(64, CUBE.rules)
    hits = offsets_for.cache_info().hits
    misses = offsets_for.cache_info().misses
    for _ in range(5):
        for size in (2, 3, 4):
            Position.empty(size)
    info = offsets_for.cache_info()
    assert (info.misses - misses, info.hits - hits) == (3, 12)


def test_an_engine_going_through_every_size_up_to_64_stays_within_the_budgets(
    tmp_path: Path,
) -> None:
    """`boardsize` 2 ... 4, then 40 ... 64, through the engine process: its peak memory grows
    by no more than the two budgets, one n = 64 table built beside them and the n = 64 board
    (keeping each size's tables would take some 190 MB more)."""
    engine = Engine(tmp_path / "logs")
    try:
        assert engine.ask("name") == b"= cubemate\n\n"
        baseline = peak_rss_kib(engine.pid)
        for size in (2, 3, 4, *range(40, 65)):
            assert engine.ask(f"boardsize {size}") == b"= \n\n"
        assert engine.ask("status") == b"? no white king on the board\n\n"
        grown = peak_rss_kib(engine.pid) - baseline
        bound = (OFFSETS_BUDGET + offsets_bytes(64, CUBE.rules) + EMPTY_BUDGET + (16 << 20)) >> 10
        assert grown <= bound, f"grew {grown} KiB, bound {bound} KiB"
    finally:
        engine.discard()


def test_a_table_cache_drops_the_least_recently_used_past_its_count_or_budget() -> None:
    """TableCache: by count, by weight, the newest kept however heavy, a key of the caller's
    making, and lru_cache's figures."""
    built: list[int] = []

    def build(number: int) -> str:
        built.append(number)
        return str(number)

    cache: TableCache[[int], str] = TableCache(build, maxsize=3, budget=10, weight=lambda n: n)
    assert [cache(n) for n in (1, 2, 3, 1, 4)] == ["1", "2", "3", "1", "4"]
    # Four entries are past the count: 2, the least recently used, went (1 was asked again).
    assert built == [1, 2, 3, 4]
    assert cache.cache_info() == (1, 4, 3, 3, 8, 10)
    cache(2)
    assert built[-1] == 2 and cache.cache_info().currsize == 3
    # Weight 12 alone is past the budget of 10: it stays, alone.
    cache(12)
    assert cache.cache_info()[3:] == (1, 12, 10)
    cache(12)
    assert built.count(12) == 1
    cache.cache_clear()
    assert cache.cache_info() == (0, 0, 3, 0, 0, 10)

    keyed: TableCache[[int], str] = TableCache(
        build, maxsize=3, budget=100, weight=lambda n: 1, key=lambda n: n % 2
    )
    assert keyed(3) == keyed(5) == "3"


def test_a_raumschach_board_asks_its_pawns_one_set_each(monkeypatch: pytest.MonkeyPatch) -> None:
    """set_board on Raumschach asks each pawn of the position one look-up, not
    impossible_pawn (half of set_board at its start did): after the first board, a valid
    board asks it nothing, and a refused one asks it only to name the pawn and why."""
    from kernel.cube import rules

    calls: Counter[tuple[Any, ...]] = Counter()
    monkeypatch.setattr(
        rules,
        "impossible_pawn",
        counted(calls, lambda variant, size, cell, white: (white,), impossible_pawn),
    )
    rules.impossible_pawn_points.cache_clear()
    kernel = Kernel(EngineConfig())
    ask(kernel, "new_game 5 raumschach")
    start = ask(kernel, "get_board")
    ask(kernel, f"set_board {start}")
    # The table of impossible cells: every cell once for each colour.
    assert calls == Counter({(True,): 125, (False,): 125})
    calls.clear()
    for _ in range(10):
        ask(kernel, f"set_board {start}")
    assert not calls
    # A white pawn on rank 1 of level A (a1(I) is the rook's): refused, named as before.
    layers = start.split("],[")  # level I, whose rank 1 ends the text, last
    layers[-1] = layers[-1].replace("RNKNR", "PNKNR", 1)
    reply = kernel.execute("set_board", ["],[".join(layers)])
    assert (reply.ok, reply.text) == (
        False,
        "invalid board: a white pawn on a1(I): no pawn of its side ever stands behind its "
        "pawns' start",
    )
    assert calls == Counter({(True,): 1})


def test_threads_building_one_entry_at_once_get_the_one_kept() -> None:
    """Two threads that miss the same key together both build, and both get the result kept
    (the batch runners and the GUI's server ask from several threads)."""
    import threading

    meet = threading.Barrier(2)

    def build(number: int) -> list[int]:
        meet.wait(timeout=10)  # both inside the builder at once
        return [number]

    cache: TableCache[[int], list[int]] = TableCache(
        build, maxsize=4, budget=10, weight=lambda n: 1
    )
    got: list[list[int]] = []
    threads = [threading.Thread(target=lambda: got.append(cache(7))) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    assert len(got) == 2 and got[0] is got[1]
    assert cache.cache_info()[:4] == (0, 2, 4, 1)
