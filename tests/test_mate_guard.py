"""The late-move reductions and the mate guard that keeps them from hiding a mate.

A reduction searches a late quiet move a ply shallower, so at depth 5 it can miss a mate in
3 (or find only a longer one). Before each odd depth 2N - 1 from 5 on, the player asks the
mate search for a mate in N (kernel/alphabeta.py, `mates_in`). These positions are mates in 3
that the reductions alone miss at depth 5: without the guard both searches miss them alike,
with it both play a key of the mate in 3 and say so. A guard that cannot finish ends the
deepening, so the depth reported never promises more than was searched.
"""

from __future__ import annotations

import pytest

from kernel import alphabeta
from kernel.alphabeta import (
    LMR_DEPTH,
    MATE,
    MATE_GUARD_DEPTH,
    GuardBudget,
    Limits,
    Searcher,
    TranspositionTable,
)
from kernel.alphabeta_core import CompiledSearcher
from kernel.compiled import COMPILED
from kernel.config import EngineConfig
from kernel.game import Game
from kernel.kernel import Kernel
from kernel.notation import get_move_name
from kernel.position import Move
from tests.conftest import ask, set_position
from tests.reference import parse_game

#: Mates in 3 and not sooner (exact_mates seeds 4001 to 4003) on which depth 5 with the
#: reductions and no guard plays no key of the mate in 3.
HIDDEN_MATES = (
    "[###,###,k##],[K##,###,#b#],[##r,###,#r#] b",
    "[B##,###,#N#],[K##,N##,###],[##k,###,R##] w",
    "[##R,###,###],[#R#,###,B##],[#K#,###,k##] w",
    "[###,K##,#B#],[BR#,###,###],[k##,B##,#B#] w",
    "[###,##b,K##],[rB#,#N#,##r],[###,#k#,###] b",
    "[#KN,##r,###],[##N,R#R,###],[##k,###,###] w",
)


@pytest.fixture(scope="module")
def kernel() -> Kernel:
    return Kernel(EngineConfig())


def searcher_for(kernel: Kernel, board: str, compiled: bool, limits: Limits) -> Searcher:
    set_position(kernel, parse_game(board))
    game = Game(kernel.game.position.copy())
    game.position.order_pieces()
    if compiled:
        return CompiledSearcher(game, limits, 1 << 14)
    return Searcher(game, limits, TranspositionTable(1))


def keys_of_mate_in_3(kernel: Kernel, board: str) -> set[str]:
    set_position(kernel, parse_game(board))
    assert ask(kernel, "mate_in 2") == "", board
    keys = set(ask(kernel, "mate_in 3").split())
    assert keys, board
    return keys


def move_name(kernel: Kernel, move: tuple[str, int, int, str] | None) -> str:
    assert move is not None
    return get_move_name(kernel.game.position, Move(*move))


@pytest.mark.parametrize("compiled", [False, True] if COMPILED else [False])
@pytest.mark.parametrize("board", HIDDEN_MATES)
def test_the_guard_finds_the_mates_the_reductions_hide(
    kernel: Kernel, board: str, compiled: bool
) -> None:
    keys = keys_of_mate_in_3(kernel, board)
    blind = searcher_for(kernel, board, compiled, Limits(depth=5))
    blind.mate_guard = False
    missed = blind.search()
    assert missed.depth == 5 and missed.score != MATE - 5, board
    guarded = searcher_for(kernel, board, compiled, Limits(depth=5)).search()
    assert (guarded.depth, guarded.score) == (5, MATE - 5), board
    assert move_name(kernel, guarded.move) in keys, board


def test_the_guard_waits_for_the_depths_the_reductions_reach() -> None:
    """Depth 3 reduces nothing (its nodes below the root have depth 2 at most) and finds
    every mate in 2, so the first mate a reduction can hide is a mate in 3, at depth 5."""
    assert LMR_DEPTH == 3 and MATE_GUARD_DEPTH == 5


@pytest.mark.parametrize("compiled", [False, True] if COMPILED else [False])
def test_a_guard_that_cannot_finish_ends_the_deepening(
    kernel: Kernel, compiled: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Out of budget, the guard ends the search at the depth before its own: the mate in 3
    is not promised, and the move of depth 4 is played."""

    class Starved(GuardBudget):
        __slots__ = ()

        def __init__(self, nodes: int | None, deadline: float | None) -> None:
            super().__init__(1, deadline)

    monkeypatch.setattr(alphabeta, "GuardBudget", Starved)
    result = searcher_for(kernel, HIDDEN_MATES[0], compiled, Limits(depth=7)).search()
    assert result.depth == 4 and result.move is not None
