"""Null move and late-move reductions, and the mate guard that keeps them from hiding a mate.

A reduction searches a late quiet move shallower, and a null move lets the side to move pass
and cuts when the enemy, searched shallower, still cannot reach beta: at depth 5 either can
miss a mate in 3 (a quiet key move reduced, or a defence cut because the pass looked safe).
The player must never miss a mate that `mate_in` finds at the depth it completed, so with a
pruning on, before each odd depth 2N - 1 from 3, it asks the mate search for a mate in N
(kernel/play/alphabeta.py, `mates_in`). These positions are mates in 3 and not sooner (exact_mates,
seeds 4001 to 4004) that the prunings alone miss at depth 5: without the guard both searches
miss them alike, with it both play a key of the mate in 3 and say so. A guard that cannot
finish ends the deepening, so the depth reported never promises more than was searched.
"""

from __future__ import annotations

import pytest

from kernel.compiled import COMPILED
from kernel.config import EngineConfig
from kernel.cube.game import Game
from kernel.cube.position import Move
from kernel.kernel import Kernel
from kernel.play import alphabeta
from kernel.play.alphabeta import (
    LMR_DEPTH,
    MATE,
    MATE_GUARD_DEPTH,
    NULL_DEPTH,
    GuardBudget,
    Limits,
    Pruning,
    Searcher,
    TranspositionTable,
)
from kernel.play.alphabeta_core import CompiledSearcher
from kernel.text.notation import get_move_name
from tests.conftest import ask, set_position
from tests.reference import parse_game

NULL_MOVE = Pruning(null_move=True)
REDUCTIONS = Pruning(late_move_reductions=True)
BOTH = Pruning(null_move=True, late_move_reductions=True)
ALL = Pruning(null_move=True, late_move_reductions=True, futility=True)

#: Mates in 3 hidden at depth 5 by each pruning alone (and by both together).
HIDDEN_MATES = (
    (NULL_MOVE, "[#r#,##N,###],[K#R,##n,##k],[##R,##R,###]"),
    (NULL_MOVE, "[k##,###,##R],[n##,##n,r##],[###,###,#K#] b"),
    (REDUCTIONS, "[###,r##,###],[###,###,b##],[###,k#n,n#K] b"),
    (REDUCTIONS, "[##K,b##,r##],[##b,b#r,###],[###,r##,###] b"),
    (REDUCTIONS, "[#B#,##K,k##],[###,##R,###],[##R,###,###]"),
    (REDUCTIONS, "[###,r##,#r#],[#b#,###,###],[k#K,r##,###] b"),
    (BOTH, "[#r#,##N,###],[K#R,##n,##k],[##R,##R,###]"),
    (BOTH, "[B##,###,###],[###,KRb,###],[###,B##,##k]"),
    (ALL, "[##K,b##,r##],[##b,b#r,###],[###,r##,###] b"),
)
COMPILED_OR_NOT = [False, True] if COMPILED else [False]


@pytest.fixture(scope="module")
def kernel() -> Kernel:
    return Kernel(EngineConfig())


def searcher_for(
    kernel: Kernel, board: str, compiled: bool, limits: Limits, pruning: Pruning
) -> Searcher:
    set_position(kernel, parse_game(board))
    game = Game(kernel.game.position.copy())
    game.position.order_pieces()
    if compiled:
        return CompiledSearcher(game, limits, 1 << 14, pruning=pruning)
    return Searcher(game, limits, TranspositionTable(1), pruning=pruning)


def keys_of_mate_in_3(kernel: Kernel, board: str) -> set[str]:
    set_position(kernel, parse_game(board))
    assert ask(kernel, "mate_in 2") == "", board
    keys = set(ask(kernel, "mate_in 3").split())
    assert keys, board
    return keys


def move_name(kernel: Kernel, move: tuple[str, int, int, str, str] | None) -> str:
    assert move is not None
    return get_move_name(kernel.game.position, Move(*move))


@pytest.mark.parametrize("compiled", COMPILED_OR_NOT)
@pytest.mark.parametrize(("pruning", "board"), HIDDEN_MATES)
def test_the_guard_finds_the_mates_the_prunings_hide(
    kernel: Kernel, board: str, pruning: Pruning, compiled: bool
) -> None:
    keys = keys_of_mate_in_3(kernel, board)
    blind = searcher_for(kernel, board, compiled, Limits(depth=5), pruning)
    assert blind.mate_guard, "a pruning turns the guard on"
    blind.mate_guard = False
    missed = blind.search()
    assert missed.depth == 5 and missed.score != MATE - 5, board
    full = searcher_for(kernel, board, compiled, Limits(depth=5), Pruning()).search()
    assert full.score == MATE - 5 and move_name(kernel, full.move) in keys, board
    guarded = searcher_for(kernel, board, compiled, Limits(depth=5), pruning).search()
    assert (guarded.depth, guarded.score) == (5, MATE - 5), board
    assert move_name(kernel, guarded.move) in keys, board


def test_the_guard_waits_for_the_depths_the_prunings_reach() -> None:
    """Below a root of depth D a node out of check has depth D - 1 at most (each check on the
    way adds a ply, and a node in check is pruned by neither), so depth 2 prunes nothing and
    depth 1 finds every mate in 1: the first mate a pruning can hide is a mate in 2, at
    depth 3."""
    assert LMR_DEPTH == NULL_DEPTH == 2 and MATE_GUARD_DEPTH == 3


def test_the_full_width_search_asks_no_guard(kernel: Kernel) -> None:
    searcher = searcher_for(kernel, HIDDEN_MATES[0][1], False, Limits(depth=5), Pruning())
    assert not searcher.mate_guard
    searcher.search()
    assert searcher.guard_nodes == 0


@pytest.mark.parametrize("compiled", COMPILED_OR_NOT)
def test_a_guard_that_cannot_finish_ends_the_deepening(
    kernel: Kernel, compiled: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Out of budget, the guard ends the search at the depth before its own: the first guard,
    for a mate in 2, cannot finish, so the move of depth 2 is played, and no mate promised."""

    class Starved(GuardBudget):
        __slots__ = ()

        def __init__(self, nodes: int | None, deadline: float | None) -> None:
            super().__init__(1, deadline)

    monkeypatch.setattr(alphabeta, "GuardBudget", Starved)
    board = HIDDEN_MATES[0][1]
    result = searcher_for(kernel, board, compiled, Limits(depth=7), BOTH).search()
    assert result.depth == 2 and result.move is not None and result.stopped
