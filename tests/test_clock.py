"""The clock's arithmetic (kernel/clock.py) and the limits of one search (kernel/play/player.py).

Every budget is worked out by hand from the rule in clock.py's docstring: main time spread over
25 moves (plus 80 % of a period's share when there is a period behind it), never more than 80 %
of what is left; a period's time over its moves, all of it for its last; less the reserve (50 ms
until the engine has measured what answering takes), and at least 10 ms.
The handlers `time_settings` and `time_left` are held to the same numbers in process, and
`genmove` to taking its own time off its own clock (and `reg_genmove` to taking none).
"""

from __future__ import annotations

import time

import pytest

from kernel.clock import Clocks, SideClock, TimeSettings
from kernel.config import EngineConfig
from kernel.cube.position import BLACK, WHITE
from kernel.kernel import Kernel
from kernel.play.alphabeta import Limits
from kernel.play.player import Level, limits_for
from tests.conftest import ask

#: Floating-point slack only: the budgets are exact sums of the numbers below.
EXACT = 1e-9


def budget_after(
    settings: TimeSettings | None, side_clock: SideClock | None = None
) -> float | None:
    """White's budget under these settings, with white's clock set to `side_clock` if given."""
    clocks = Clocks(settings)
    if side_clock is not None:
        clocks.set_left(WHITE, side_clock.time, side_clock.stones)
    return clocks.budget(WHITE)


# --- budget ------------------------------------------------------------------------------------


def test_no_clock_and_the_unlimited_clock_give_no_budget() -> None:
    assert budget_after(None) is None
    # GTP: byo-yomi time with no stones means no time limit at all.
    assert budget_after(TimeSettings(0.0, 1.0, 0)) is None
    assert budget_after(TimeSettings(300.0, 5.0, 0)) is None
    assert not Clocks(TimeSettings(0.0, 1.0, 0)).running
    assert not Clocks().running
    assert Clocks(TimeSettings(5.0, 0.0, 0)).running


@pytest.mark.parametrize(
    ("main", "expected"),
    [
        (100.0, 100 / 25 - 0.05),  # 3.95 s: a 25th of the clock, less the reserve
        (5.0, 5 / 25 - 0.05),  # 0.15 s
        (2.0, 2 / 25 - 0.05),  # 0.03 s
        (1.25, 0.01),  # 1.25 / 25 is the reserve exactly: the shortest budget
        (1.0, 0.01),  # 0.04 - 0.05 < 0: the shortest budget, never a negative one
        (0.0, 0.01),  # absolute time and none left: answer at once
    ],
)
def test_absolute_time_spreads_main_time_over_25_moves(main: float, expected: float) -> None:
    assert budget_after(TimeSettings(main, 0.0, 0)) == pytest.approx(expected, abs=EXACT)


def test_main_time_with_a_period_behind_it_adds_most_of_a_period_share() -> None:
    # 10 s main, then 30 s for 10 moves: 10/25 + 0.8 * 30/10 = 2.8, less the reserve.
    assert budget_after(TimeSettings(10.0, 30.0, 10)) == pytest.approx(2.75, abs=EXACT)
    # Main time nearly gone: the period's share dominates, capped by 80 % of all that is left.
    assert budget_after(TimeSettings(0.1, 1.0, 1)) == pytest.approx(
        min(0.1 / 25 + 0.8 * 1.0, 0.8 * 1.1) - 0.05, abs=EXACT
    )


def test_byo_yomi_spreads_the_period_over_its_moves() -> None:
    settings = TimeSettings(0.0, 30.0, 10)
    # Main time over, the controller not heard from yet: a whole fresh period, 3 s a move.
    assert budget_after(settings) == pytest.approx(2.95, abs=EXACT)
    # time_left: 12 s for 4 moves is 3 s a move.
    assert budget_after(settings, SideClock(12.0, 4)) == pytest.approx(2.95, abs=EXACT)
    # The last move of a period may use all that is left, less the reserve: time not used
    # in a period is lost.
    assert budget_after(settings, SideClock(1.0, 1)) == pytest.approx(0.95, abs=EXACT)
    assert budget_after(settings, SideClock(0.05, 1)) == pytest.approx(0.01, abs=EXACT)
    clocks = Clocks(settings)
    clocks.set_left(WHITE, 1.0, 1)
    assert clocks.budget(WHITE, reserve=0.007) == pytest.approx(0.993, abs=EXACT)


def test_time_left_in_main_time_counts_from_what_is_left() -> None:
    settings = TimeSettings(300.0, 0.0, 0)
    assert budget_after(settings, SideClock(50.0, 0)) == pytest.approx(1.95, abs=EXACT)
    assert budget_after(settings, SideClock(0.0, 0)) == pytest.approx(0.01, abs=EXACT)


def test_each_side_has_its_own_clock() -> None:
    clocks = Clocks(TimeSettings(100.0, 0.0, 0))
    clocks.set_left(BLACK, 25.0, 0)
    assert clocks.budget(WHITE) == pytest.approx(3.95, abs=EXACT)
    assert clocks.budget(BLACK) == pytest.approx(0.95, abs=EXACT)


def test_a_budget_plus_the_rule_never_exceeds_the_time_left() -> None:
    """In main time, with the issue's allowance (10 % + 50 ms) on top, a move still fits in its
    clock whenever the clock holds more than the allowance on the shortest budget; in a period,
    the budget and its reserve fit in what is left, whatever the reserve."""
    for main in (0.2, 0.5, 1.0, 2.0, 5.0, 30.0, 300.0):
        budget = budget_after(TimeSettings(main, 0.0, 0))
        assert budget is not None
        assert budget * 1.1 + 0.05 < main, main
    for left, stones in ((0.2, 1), (1.0, 1), (3.0, 2), (30.0, 10)):
        for reserve in (0.005, 0.02, 0.05):
            clocks = Clocks(TimeSettings(0.0, left, stones))
            clocks.set_left(WHITE, left, stones)
            budget = clocks.budget(WHITE, reserve)
            assert budget is not None
            assert budget + reserve <= left / stones + EXACT, (left, stones, reserve)


def test_a_period_is_searched_to_its_end_and_main_time_to_half_its_budget() -> None:
    """A move of a period deepens until its budget is spent (its time is lost unless used);
    a move of main time stops deepening at half its budget, saving time for later."""
    period = Clocks(TimeSettings(0.0, 1.0, 1))
    assert period.in_period(WHITE)
    assert limits_for(Level(0, 0, 1.0), period, WHITE, MAX_NODES, 0.01).soft_share is None
    main = Clocks(TimeSettings(60.0, 1.0, 1))
    assert not main.in_period(WHITE)
    assert limits_for(Level(0, 0, 1.0), main, WHITE, MAX_NODES, 0.01).soft_share == 0.5
    main.spend(WHITE, 60.5)  # main time over: the period begins
    assert main.in_period(WHITE)
    assert not Clocks(TimeSettings(0.0, 1.0, 0)).in_period(WHITE)  # no limit at all


# --- spend -------------------------------------------------------------------------------------


def test_spend_takes_a_move_off_main_time_and_stops_at_zero() -> None:
    clocks = Clocks(TimeSettings(10.0, 0.0, 0))
    clocks.spend(WHITE, 1.5)
    assert clocks.sides == [SideClock(8.5, 0), SideClock(10.0, 0)]
    clocks.spend(WHITE, 20.0)
    assert clocks.sides[WHITE] == SideClock(0.0, 0)


def test_spend_moves_on_to_byo_yomi_when_main_time_ends() -> None:
    clocks = Clocks(TimeSettings(10.0, 30.0, 10))
    clocks.spend(BLACK, 4.0)
    assert clocks.sides[BLACK] == SideClock(6.0, 0)
    # 7 s with 6 left: the move that ends main time is the period's first, and pays the
    # overflow from it.
    clocks.spend(BLACK, 7.0)
    assert clocks.sides[BLACK].stones == 9
    assert clocks.sides[BLACK].time == pytest.approx(29.0, abs=EXACT)
    clocks.spend(BLACK, 2.0)
    assert clocks.sides[BLACK].stones == 8
    assert clocks.sides[BLACK].time == pytest.approx(27.0, abs=EXACT)
    assert clocks.sides[WHITE] == SideClock(10.0, 0)


def test_a_period_done_starts_a_fresh_one() -> None:
    clocks = Clocks(TimeSettings(0.0, 30.0, 10))
    clocks.set_left(WHITE, 5.0, 1)
    clocks.spend(WHITE, 2.0)
    assert clocks.sides[WHITE] == SideClock(30.0, 10)


def test_spend_does_nothing_without_a_time_limit() -> None:
    for clocks in (Clocks(), Clocks(TimeSettings(0.0, 1.0, 0))):
        before = [SideClock(side.time, side.stones) for side in clocks.sides]
        clocks.spend(WHITE, 3.0)
        assert clocks.sides == before


# --- the limits of one search ------------------------------------------------------------------


MAX_NODES = 5_000_000


@pytest.mark.parametrize(
    ("level", "expected"),
    [
        (Level(0, 0, 1.0), Limits(None, MAX_NODES, 1.0)),
        (Level(0, 0, 0.0), Limits(None, MAX_NODES, None)),  # 0: no limit but the node cap
        (Level(3, 0, 1.0), Limits(3, MAX_NODES, None)),  # a fixed depth ignores the time
        (Level(0, 2000, 1.0), Limits(None, 2000, None)),  # so does a fixed node count
        (Level(2, 50, 0.5), Limits(2, 50, None)),
        (Level(0, 9_000_000, 1.0), Limits(None, MAX_NODES, None)),  # search.max_nodes caps
    ],
)
def test_limits_without_a_clock(level: Level, expected: Limits) -> None:
    assert limits_for(level, Clocks(), WHITE, MAX_NODES) == expected


def test_a_running_clock_bounds_every_level() -> None:
    clocks = Clocks(TimeSettings(100.0, 0.0, 0))
    for level in (Level(0, 0, 1.0), Level(0, 0, 0.0), Level(3, 0, 1.0), Level(0, 2000, 9.0)):
        limits = limits_for(level, clocks, WHITE, MAX_NODES)
        assert limits.seconds == pytest.approx(3.95, abs=EXACT), level
        assert limits.depth == (level.depth or None)
    # The unlimited clock leaves the level's own time.
    unlimited = Clocks(TimeSettings(0.0, 1.0, 0))
    assert limits_for(Level(0, 0, 0.5), unlimited, WHITE, MAX_NODES).seconds == 0.5


# --- the handlers, in process ------------------------------------------------------------------


@pytest.fixture
def kernel() -> Kernel:
    """A fresh kernel on the start position of n = 3."""
    kernel = Kernel(EngineConfig())
    assert ask(kernel, "new_game 3") == ""
    return kernel


def test_time_settings_and_time_left_set_the_clocks(kernel: Kernel) -> None:
    assert ask(kernel, "time_settings 10 30 10") == ""
    assert kernel.clocks.settings == TimeSettings(10.0, 30.0, 10)
    assert kernel.clocks.budget(WHITE) == pytest.approx(2.75, abs=EXACT)
    assert ask(kernel, "time_left b 12 4") == ""
    assert kernel.clocks.sides == [SideClock(10.0, 0), SideClock(12.0, 4)]
    assert kernel.clocks.budget(BLACK) == pytest.approx(2.95, abs=EXACT)
    assert ask(kernel, "time_left WHITE 0.5 0") == ""  # colours in any case, as GTP has them
    assert kernel.clocks.sides[WHITE] == SideClock(0.5, 0)


def test_time_left_without_settings_is_absolute_time(kernel: Kernel) -> None:
    assert ask(kernel, "time_left white 50 0") == ""
    assert kernel.clocks.running
    assert kernel.clocks.budget(WHITE) == pytest.approx(1.95, abs=EXACT)


def test_a_new_game_fills_both_clocks_again(kernel: Kernel) -> None:
    assert ask(kernel, "time_settings 60 0 0") == ""
    assert ask(kernel, "time_left white 3 0") == ""
    assert ask(kernel, "new_game 3") == ""
    assert kernel.clocks.sides == [SideClock(60.0, 0), SideClock(60.0, 0)]


def test_genmove_spends_its_own_time_and_reg_genmove_none(kernel: Kernel) -> None:
    searches: list[dict[str, object]] = []
    kernel.log_event = lambda name, fields: searches.append(fields)
    assert ask(kernel, "time_settings 60 0 0") == ""
    assert ask(kernel, "level depth 2") == "depth 2 nodes 0 time 1"
    assert not ask(kernel, "reg_genmove").startswith("?")
    assert kernel.clocks.sides == [SideClock(60.0, 0), SideClock(60.0, 0)]
    before = time.monotonic()
    assert not ask(kernel, "genmove").startswith("?")
    after = time.monotonic()
    assert len(searches) == 2
    spent = 60.0 - kernel.clocks.sides[WHITE].time
    time_ms = searches[-1]["time_ms"]
    assert isinstance(time_ms, int)
    # The clock is charged the whole command, as the controller measures it: at least the
    # search (time_ms is rounded to the millisecond), at most the time around the command.
    assert time_ms / 1000 - 0.0005 - EXACT <= spent <= after - before + EXACT
    assert kernel.clocks.sides[BLACK] == SideClock(60.0, 0)
