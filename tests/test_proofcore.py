"""The compiled df-pn (kernel/core/mate.c) held to the Python one (kernel/mates/proofnumber.py).

The compiled search keeps its own cells, keys, move lists, legality and checks, so its answers
are compared with the Python search's, which tests/test_proofnumber.py holds to the AND/OR
search and tests/test_mate.py (through `mate_in`) to the brute force: the keys of seeded mate
problems and game positions of both sides on n = 2 ... 5 at every depth up to 4, on boards of
n = 6 ... 9 (there the padded array is too narrow for a cell difference to name one
(dx, dy, dz); the compiled search reads lines and leaps on a grid of its own) and on a
64-cube. Then its table's bound, the budget it counts against, and what it refuses.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from kernel.compiled import COMPILED, CORE_LARGEST_SIZE, core_pieces
from kernel.config import EngineConfig
from kernel.cube.position import WHITE as WHITE_TO_MOVE
from kernel.cube.position import Move, Position
from kernel.kernel import Kernel
from kernel.mates.proofnumber import TABLE_ENTRIES, ProofNumberSearch
from kernel.mates.search import Budget, SearchLimitReached
from tests.conftest import set_position
from tests.positions import game_position, mate_problem, noise_game_position
from tests.reference import BLACK, WHITE, Side, board_text, parse_game
from tests.reference import Position as Problem
from tests.sweep import SWEEP
from tests.test_mate import DOUBLE_CHECK, MATE_2_EXAMPLE, PINNED_DEFENCE, STALEMATE_TRAP
from tests.test_proofnumber import MATES_IN_4, MATES_IN_5, PLENTY, names, snapshot

if COMPILED:
    from kernel._core import MateCore as Core


@pytest.fixture(scope="module")
def kernel() -> Kernel:
    """Share one kernel: set_board replaces the whole position."""
    return Kernel(EngineConfig())


def test_the_compiled_search_was_built() -> None:
    """Find the core (kernel/core) built: `make` installs it, and every run here must test it."""
    assert COMPILED, "kernel/core was not built (no C compiler?); run make again"
    assert ProofNumberSearch(Budget(1)).core is not None
    assert ProofNumberSearch(Budget(1), compiled=False).core is None


def differences(kernel: Kernel, problem: Problem, most: int) -> list[str]:
    """Ask both searches for the keys of mate in 1 ... `most` (one table each for every
    depth, as mate_search asks); list where they differ."""
    set_position(kernel, problem)
    position = kernel.position
    before = snapshot(position)
    compiled = ProofNumberSearch(Budget(PLENTY))
    python = ProofNumberSearch(Budget(PLENTY), compiled=False)
    found = []
    for depth in range(1, most + 1):
        mine = names(position, compiled.keys(position, depth))
        theirs = names(position, python.keys(position, depth))
        if mine != theirs:
            found.append(f"{board_text(problem)} mate_in {depth}: compiled {mine}, python {theirs}")
    if snapshot(position) != before:
        found.append(f"{board_text(problem)}: the search changed the position")
    return found


def check(found: list[str], total: int) -> None:
    """Fail with the first differences, shortest first."""
    if found:
        found.sort(key=len)
        pytest.fail(f"{len(found)} differences in {total} positions:\n" + "\n".join(found[:5]))


def side_of(index: int, n: int) -> Side:
    """White and black to move in turn; black on a 2-cube, where white cannot hunt."""
    return BLACK if n == 2 or index % 2 else WHITE


def test_keys_agree_on_seeded_mate_problems(kernel: Kernel) -> None:
    """Agree at every depth up to 4 (3 on n = 4, 2 on n = 5) on 160 mate problems of both
    sides."""
    rng = random.Random(2718)
    found: list[str] = []
    keys = 0
    total = 160 * SWEEP
    for index in range(total):
        n = (2, 3, 3, 4, 5)[index % 5]
        pieces = rng.randint(5, 6) if n == 2 else rng.randint(3, 6)
        problem = mate_problem(rng, n, side_of(index // 5, n), pieces)
        found += differences(kernel, problem, {2: 4, 3: 4, 4: 3, 5: 2}[n])
        keys += bool(ProofNumberSearch(Budget(PLENTY)).keys(kernel.position, 3))
    check(found, total)
    assert keys >= 40 * SWEEP, keys


def test_keys_agree_on_game_positions(kernel: Kernel) -> None:
    """Agree on game positions thrown at random: captures, the attacker in check, stalemates,
    a king alone, many pieces."""
    rng = random.Random(3141)
    found: list[str] = []
    total = 120 * SWEEP
    for index in range(total):
        n = (2, 3, 4)[index % 3]
        side = WHITE if index // 3 % 2 == 0 else BLACK
        count = rng.randint(3, 5 if n == 2 else 8)
        if index % 2:
            problem = noise_game_position(rng, n, side, count)
        else:
            problem = game_position(rng, n, side, count)
        found += differences(kernel, problem, 3 if n <= 3 else 2)
    check(found, total)


@pytest.mark.parametrize("board", [STALEMATE_TRAP, PINNED_DEFENCE, DOUBLE_CHECK, MATE_2_EXAMPLE])
def test_keys_agree_on_the_hand_made_cases(kernel: Kernel, board: str) -> None:
    """Agree on the stalemate trap, the pinned defence, the double check and the example."""
    check(differences(kernel, parse_game(board), 4), 1)


def test_keys_agree_on_the_deep_mates(kernel: Kernel) -> None:
    """Agree on the true mates in 4 and 5 at their depth."""
    found: list[str] = []
    for board, depth in [*((board, 4) for board in MATES_IN_4), (MATES_IN_5[0], 5)]:
        problem = parse_game(board)
        set_position(kernel, problem)
        position = kernel.position
        mine = names(position, ProofNumberSearch(Budget(PLENTY)).keys(position, depth))
        python = ProofNumberSearch(Budget(PLENTY), compiled=False)
        theirs = names(position, python.keys(position, depth))
        assert mine, board
        if mine != theirs:
            found.append(f"{board} mate_in {depth}: compiled {mine}, python {theirs}")
    check(found, 4)


def test_keys_agree_on_boards_wider_than_the_wall(kernel: Kernel) -> None:
    """Agree on n = 6 ... 9, where a difference of two cells of the padded array (width
    n + 4) no longer names one (dx, dy, dz): lines and leaps read off it would be wrong."""
    rng = random.Random(1618)
    found: list[str] = []
    total = 48 * SWEEP
    for index in range(total):
        n = 6 + index % 4
        side = WHITE if index // 4 % 2 == 0 else BLACK
        if index % 3 == 2:
            problem = noise_game_position(rng, n, side, rng.randint(6, 14))
        else:
            problem = mate_problem(rng, n, side, rng.randint(4, 6))
        found += differences(kernel, problem, 2)
    check(found, total)


def test_keys_agree_on_a_64_cube(kernel: Kernel) -> None:
    """Agree on the largest board the compiled search takes, its lines 63 cells long."""
    rng = random.Random(64)
    found: list[str] = []
    for index in range(4):
        side = WHITE if index % 2 == 0 else BLACK
        found += differences(kernel, mate_problem(rng, 64, side, 5), 2)
    check(found, 4)


#: A mate in 4 on the 4-cube whose keys take some 500,000 positions (bench/mate.py's 13th).
LARGE_MATE_IN_4 = (
    "[####,####,####,####],[####,####,####,####],[q###,#n##,####,####],[####,q##R,##K#,####] b"
)


def test_the_table_holds_no_more_than_its_bound(kernel: Kernel) -> None:
    """Grow the table as the search needs (it starts at 4,096 entries), never past its bound,
    with the same answers."""
    set_position(kernel, parse_game(LARGE_MATE_IN_4))
    position = kernel.position
    small = ProofNumberSearch(Budget(PLENTY), table_entries=100)
    large = ProofNumberSearch(Budget(PLENTY))
    assert small.core is not None and large.core is not None
    keys = names(position, large.keys(position, 4))
    assert len(keys) == 8 and names(position, small.keys(position, 4)) == keys
    assert small.core.entries <= small.core.most_entries == 100
    assert 4096 < large.core.entries <= large.core.most_entries == TABLE_ENTRIES


def pieces_of(board: str) -> tuple[Position, list[int]]:
    """Set a board and return its position and pieces as the compiled search takes them."""
    kernel = Kernel(EngineConfig())
    set_position(kernel, parse_game(board))
    return kernel.position, core_pieces(kernel.position)


def test_a_refused_search_leaves_the_core_ready_for_the_next(kernel: Kernel) -> None:
    """Pass on what the budget raises, mid-search, and answer the next question rightly."""
    position, pieces = pieces_of(MATES_IN_4[0])
    core = Core(TABLE_ENTRIES)
    budget = Budget(500)
    with pytest.raises(SearchLimitReached):
        core.keys(position.size, pieces, position.side, 4, budget.spend, 500)
    assert budget.nodes <= 500

    def stop(count: int) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        core.keys(position.size, pieces, position.side, 4, stop, PLENTY)
    spent = Budget(PLENTY)
    assert len(core.keys(position.size, pieces, position.side, 4, spent.spend, PLENTY)) == 1
    assert core.keys(position.size, pieces, position.side, 3, spent.spend, PLENTY) == []
    assert spent.nodes > 0


@pytest.mark.parametrize(
    ("arguments", "error", "message"),
    [
        ((4, [0 << 4 | 1], 0, 2), ValueError, "bad piece 1 .cell 0"),  # on the wall
        ((4, [42 << 4 | 7], 0, 2), ValueError, "code 7"),  # no such piece
        ((4, [42 << 4 | 1, 42 << 4 | 9], 0, 2), ValueError, "cell 42"),  # twice
        ((65, [], 0, 2), ValueError, "size, side or depth out of range"),
        ((4, [], 2, 2), ValueError, "size, side or depth out of range"),
        ((4, [], 0, 101), ValueError, "size, side or depth out of range"),
        ((4, [], 0, 0), ValueError, "moves must be 1 or more"),
        ((4, "K", 0, 2), TypeError, "list"),
        ((4, ["K"], 0, 2), TypeError, "int"),
    ],
)
def test_bad_arguments_are_refused(arguments: tuple[Any, ...], error: type, message: str) -> None:
    """Refuse, naming the problem, what no caller should pass; the core stays usable."""
    core = Core(100)
    keys: Any = core.keys  # the arguments are wrong on purpose
    with pytest.raises(error, match=message):
        keys(*arguments, Budget(PLENTY).spend, PLENTY)
    position, pieces = pieces_of(MATES_IN_4[0])
    assert core.keys(position.size, pieces, position.side, 4, Budget(PLENTY).spend, PLENTY)


def test_pieces_are_handed_over_as_cells_and_codes() -> None:
    """Code each piece by side and kind, as kernel/core/mate.c reads them."""
    position, pieces = pieces_of("[###,###,k##],[###,###,#R#],[###,#K#,#R#]")
    decoded = sorted((item >> 4, item & 15) for item in pieces)
    expected = sorted(
        (cell, side << 3 | "KQRBN".index(letter.upper()) + 1)
        for side, side_pieces in enumerate(position.pieces)
        for cell, letter in side_pieces.items()
    )
    assert decoded == expected and len(decoded) == 4


def test_a_move_is_compared_with_its_python_twin(kernel: Kernel) -> None:
    """Give back the Python search's own Move objects, the engine's names for them."""
    set_position(kernel, parse_game(MATE_2_EXAMPLE))
    keys = ProofNumberSearch(Budget(PLENTY)).keys(kernel.position, 2)
    assert keys and all(isinstance(key, Move) for key in keys)


def test_a_search_cannot_start_another_on_the_same_core() -> None:
    """Refuse a search started from within another on the same core (by its `spend`), whose
    board and path it would overwrite; the first is refused with it, and the core goes on."""
    position, pieces = pieces_of(MATES_IN_4[0])
    core = Core(TABLE_ENTRIES)

    def spend(count: int) -> None:
        core.keys(position.size, pieces, position.side, 2, Budget(PLENTY).spend, PLENTY)

    with pytest.raises(RuntimeError, match="already searching"):
        core.keys(position.size, pieces, position.side, 4, spend, PLENTY)
    assert core.keys(position.size, pieces, position.side, 4, Budget(PLENTY).spend, PLENTY)


def test_a_board_wider_than_the_core_takes_is_searched_in_python() -> None:
    """Search a 65-cube (a config may allow up to 256) in Python, with the same answers."""
    position = Position.empty(65)
    cells = position.cells
    for (x, y, z), letter in {
        (0, 0, 0): "k",
        (2, 2, 0): "K",
        (5, 1, 3): "Q",
        (1, 9, 1): "R",
    }.items():
        cells[position.geometry.get_point_from_xyz(x + 2, y + 2, z + 2)] = letter
    position = Position(65, cells, WHITE_TO_MOVE)
    search = ProofNumberSearch(Budget(PLENTY))
    assert search.core is not None and position.size > CORE_LARGEST_SIZE
    keys = names(position, search.keys(position, 2))
    python = ProofNumberSearch(Budget(PLENTY), compiled=False)
    assert keys and keys == names(position, python.keys(position, 2))
    assert search.core.entries == 0 and search.table  # the core was never asked
