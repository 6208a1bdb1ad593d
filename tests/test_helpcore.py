"""The compiled helpmate (kernel/core/helpmate.c) held to the Python one (kernel/mates/helpmate.py).

The compiled search keeps counts of lines where Python keeps the lines, writes them in a
second walk, and plays on board.c's board with its own keys; so every line it lists, as the
moves themselves (piece, cells, what is taken), is compared with the Python search's, which
tests/test_stipulations.py holds to the brute force through the engine: seeded positions of
both sides on n = 3 ... 5 at N = 1, 2 and 3, on boards of n = 6 ... 9 (wider than the
padded array's differences) and on a 64-cube. Then the limit of solutions, the budget, the
table's bound, and one core asked in turn about boards of different sizes and limits.
"""

from __future__ import annotations

import random

import pytest

from kernel.compiled import COMPILED, core_pieces
from kernel.config import EngineConfig
from kernel.cube.position import Position
from kernel.kernel import Kernel
from kernel.mates.helpmate import HelpmateSearch, Line, TooManySolutions
from kernel.mates.search import Budget, SearchLimitReached
from tests.conftest import set_position
from tests.positions import mate_problem, noise_game_position
from tests.reference import BLACK, WHITE, board_text, parse_game
from tests.reference import Position as Problem
from tests.sweep import SWEEP
from tests.test_proofnumber import PLENTY, snapshot
from tests.test_stipulations import HELPMATE_2_PIECES, seeded

if COMPILED:
    from kernel._core import HelpmateCore

#: Every solution, however many: the sweeps compare the lists whole.
ALL = 1_000_000

#: A helpmate in 3 with four solutions (docs/guide.md's) and one in 1 with five.
HELPMATE_IN_3 = "[###,###,#r#],[##b,##b,r##],[K##,###,###]"
FIVE_HELPMATES_IN_1 = "[###,K#Q,###],[###,###,##k],[###,###,###] b"


@pytest.fixture(scope="module")
def kernel() -> Kernel:
    """Share one kernel: set_board replaces the whole position."""
    return Kernel(EngineConfig())


def test_the_compiled_helpmate_was_built() -> None:
    """Find the core built (`make` installs it), and `compiled=False` asking Python."""
    assert COMPILED, "kernel/core was not built (no C compiler?); run make again"
    assert HelpmateSearch(Budget(1), 10).core is not None
    assert HelpmateSearch(Budget(1), 10, compiled=False).core is None


def both(position: Position, moves: int, limit: int = ALL) -> tuple[list[Line], list[Line]]:
    """The compiled and the Python search's lines, each sorted."""
    compiled = HelpmateSearch(Budget(PLENTY), limit).solutions(position, moves)
    python = HelpmateSearch(Budget(PLENTY), limit, compiled=False).solutions(position, moves)
    return sorted(compiled), sorted(python)


def answers(position: Position, moves: int, limit: int, compiled: bool) -> list[Line] | str:
    """One search's lines, sorted, or "too many" when there are more than `limit`."""
    try:
        return sorted(
            HelpmateSearch(Budget(PLENTY), limit, compiled=compiled).solutions(position, moves)
        )
    except TooManySolutions as error:
        assert limit < error.found
        return "too many"


def differences(
    kernel: Kernel, problem: Problem, moves: int, limit: int = 20_000
) -> tuple[list[str], int]:
    """Compare both searches' helpmates in 1 ... `moves` (past `limit` solutions, that both
    refuse); list where they differ, and count the solutions found."""
    set_position(kernel, problem)
    position = kernel.position
    before = snapshot(position)
    found, solutions = [], 0
    for depth in range(1, moves + 1):
        mine = answers(position, depth, limit, compiled=True)
        theirs = answers(position, depth, limit, compiled=False)
        solutions += len(theirs) if isinstance(theirs, list) else limit
        if mine != theirs:
            found.append(
                f"{board_text(problem)} helpmate {depth}: compiled {mine}, python {theirs}"
            )
    if snapshot(position) != before:
        found.append(f"{board_text(problem)}: a search changed the position")
    return found, solutions


def check(found: list[str], total: int) -> None:
    """Fail with the first differences, shortest first."""
    if found:
        found.sort(key=len)
        pytest.fail(f"{len(found)} differences in {total} positions:\n" + "\n".join(found[:5]))


@pytest.mark.parametrize(
    "seed, moves, count, most",
    [
        (5101, 1, 150, None),
        (5102, 2, 40, {3: 7, 4: 5, 5: 5}),
        (5103, 3, 24, {3: 6, 4: 4, 5: 3}),
    ],
)
def test_the_lines_agree_on_seeded_positions(
    kernel: Kernel, seed: int, moves: int, count: int, most: dict[int, int] | None
) -> None:
    """The same lines, move for move, on positions of n = 3, 4, 5 (at N = 3, the 3-cube's)
    and both sides to move (tests/test_stipulations.py's, with their traps: lines that
    stalemate or mate early)."""
    found: list[str] = []
    solutions = 0
    positions = seeded(seed, count * SWEEP, most)
    if moves == 3:  # the Python search's helpmates in 3 take a second beyond the 3-cube
        positions = [position for position in positions if position.n == 3]
    for problem in positions:
        differ, solved = differences(kernel, problem, moves, 2_000 if moves == 3 else 20_000)
        found += differ
        solutions += solved
    check(found, len(positions))
    assert solutions >= len(positions) // 10, solutions  # the sweep must hold helpmates


def test_the_lines_agree_where_the_brute_force_is_checked(kernel: Kernel) -> None:
    """The same lines on the brute force's own sweep at N = 2 (test_stipulations.py)."""
    positions = seeded(4103, 10, HELPMATE_2_PIECES) + seeded(4104, 10, HELPMATE_2_PIECES)
    found: list[str] = []
    for problem in positions:
        found += differences(kernel, problem, 2)[0]
    check(found, len(positions))


def test_the_lines_agree_on_boards_wider_than_the_wall(kernel: Kernel) -> None:
    """Agree on n = 6 ... 9, where the compiled board reads lines and leaps on its own grid,
    and on the 64-cube, its largest."""
    rng = random.Random(1619)
    found: list[str] = []
    total = 24 * SWEEP
    for index in range(total):
        n = 6 + index % 4
        side = WHITE if index // 4 % 2 == 0 else BLACK
        if index % 2:
            problem = noise_game_position(rng, n, side, rng.randint(4, 8))
        else:
            problem = mate_problem(rng, n, side, rng.randint(3, 5))
        found += differences(kernel, problem, 2 if n == 6 else 1)[0]
    for index in range(2):
        found += differences(kernel, mate_problem(rng, 64, (WHITE, BLACK)[index], 4), 1)[0]
    check(found, total + 2)


def test_the_guides_helpmate_in_3(kernel: Kernel) -> None:
    """docs/guide.md's helpmate: none in 2, four in 3, in both searches."""
    set_position(kernel, parse_game(HELPMATE_IN_3))
    position = kernel.position
    assert both(position, 2) == ([], [])
    mine, theirs = both(position, 3)
    assert len(mine) == 4 and mine == theirs


def test_past_the_limit_both_stop_with_a_count_past_it(kernel: Kernel) -> None:
    """Five solutions: with a limit of five or more both list them; below, both refuse, each
    with a count past the limit and no more than there are."""
    set_position(kernel, parse_game(FIVE_HELPMATES_IN_1))
    position = kernel.position
    for limit in (5, 6):
        mine, theirs = both(position, 1, limit)
        assert len(mine) == 5 and mine == theirs
    for limit in (1, 3, 4):
        for compiled in (True, False):
            with pytest.raises(TooManySolutions) as raised:
                HelpmateSearch(Budget(PLENTY), limit, compiled=compiled).solutions(position, 1)
            assert limit < raised.value.found <= 5 and raised.value.limit == limit


def test_the_budget_stops_the_search_and_the_core_answers_next(kernel: Kernel) -> None:
    """Raise what the budget raises, within the budget, and answer the next question on the
    same core rightly (the table holds no half-counted position)."""
    set_position(kernel, parse_game(HELPMATE_IN_3))
    position = kernel.position
    expected = sorted(HelpmateSearch(Budget(PLENTY), ALL, compiled=False).solutions(position, 3))
    core = HelpmateCore(1000)
    pieces = core_pieces(position)
    for allowance in (10, 500, 5000):
        budget = Budget(allowance)
        with pytest.raises(SearchLimitReached):
            core.solutions(position.size, pieces, position.side, 3, ALL, budget.spend, allowance)
        assert budget.nodes <= allowance
    budget = Budget(PLENTY)
    lines = core.solutions(position.size, pieces, position.side, 3, ALL, budget.spend, PLENTY)
    search = HelpmateSearch(Budget(PLENTY), ALL)
    search.core = core
    assert sorted(search.solutions(position, 3)) == expected
    assert isinstance(lines, list) and len(lines) == 4 and budget.nodes > 5000


def test_a_small_table_gives_the_same_lines(kernel: Kernel) -> None:
    """A table of four entries counts positions again and again, with the same lines."""
    set_position(kernel, parse_game(HELPMATE_IN_3))
    position = kernel.position
    small = HelpmateSearch(Budget(PLENTY), ALL, table_entries=4)
    assert small.core is not None
    mine = sorted(small.solutions(position, 3))
    assert mine == both(position, 3)[1]
    assert small.core.entries <= small.core.most_entries == 4


def test_one_core_across_sizes_and_limits(kernel: Kernel) -> None:
    """One core asked about the 3-cube, a 4-cube, the 3-cube again and then with another
    limit: its table is started afresh where the keys or the counts would not carry over."""
    search = HelpmateSearch(Budget(PLENTY), ALL)
    rng = random.Random(77)
    asked = [(parse_game(HELPMATE_IN_3), 3), (noise_game_position(rng, 4, WHITE, 5), 2)]
    asked.append(asked[0])
    for problem, moves in asked:
        set_position(kernel, problem)
        search.budget = Budget(PLENTY)
        lines = sorted(search.solutions(kernel.position, moves))
        assert lines == both(kernel.position, moves)[1], board_text(problem)
    assert len(lines) == 4
    search.limit = 3
    with pytest.raises(TooManySolutions):
        search.solutions(kernel.position, 3)


@pytest.mark.parametrize(
    "arguments, message",
    [
        ((0, 3), "size, side, moves or limit out of range"),
        ((65, 3), "size, side, moves or limit out of range"),
        ((3, 0), "size, side, moves or limit out of range"),
        ((3, 101), "size, side, moves or limit out of range"),
    ],
)
def test_the_core_refuses_what_is_out_of_range(arguments: tuple[int, int], message: str) -> None:
    size, moves = arguments
    with pytest.raises(ValueError, match=message):
        HelpmateCore(10).solutions(size, [], 0, moves, 10, Budget(10).spend, 10)
    with pytest.raises(ValueError, match="table_entries must be 1 or more"):
        HelpmateCore(0)
