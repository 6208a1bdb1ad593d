"""The two ways of finding attackers agree, and the attack table's keys never collide."""

from __future__ import annotations

import random
from itertools import product

import pytest

from kernel.board import Board
from kernel.directions import KNIGHT_STEPS, compact_width_for, offset_of
from kernel.notation import parse_board
from kernel.rules import Analysis, attackers_by_rays, attackers_by_table
from tests.positions import random_position


@pytest.mark.parametrize("size", range(2, 13))
def test_every_difference_between_cells_has_its_own_compact_key(size: int) -> None:
    width = compact_width_for(size)
    reach = range(-(size - 1), size)
    keys = {offset_of(step, width): step for step in product(reach, reach, reach)}
    assert len(keys) == len(reach) ** 3
    for step in KNIGHT_STEPS:
        assert keys.get(offset_of(step, width), step) == step


@pytest.mark.parametrize("size", [2, 3, 4, 5, 6, 7, 8, 10, 12, 16])
def test_rays_and_table_find_the_same_attackers(size: int) -> None:
    rng = random.Random(size)
    for _ in range(40):
        text = parse_board(random_position(rng, size), 64)
        board = Board.from_rows(text.size, text.rows)
        analysis = Analysis(board)
        targets = rng.sample(range(len(board.cells)), 60)
        for target in [analysis.king, *targets]:
            if board.cells[target] == "+":
                continue
            for by_black, pieces in ((True, analysis.black_pieces), (False, analysis.white_pieces)):
                for lifted in (-1, analysis.king):
                    by_rays = sorted(attackers_by_rays(board, target, by_black, lifted))
                    by_table = sorted(attackers_by_table(board, target, pieces, lifted))
                    assert by_rays == by_table, (size, text, target, by_black, lifted)


def verdicts(board: Board) -> tuple[str, list[str], list[int]]:
    analysis = Analysis(board)
    moves = sorted(move.name(board) for move in analysis.legal_moves())
    return analysis.status(), moves, sorted(analysis.checkers)


def test_the_analysis_is_the_same_whichever_search_it_uses(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rng = random.Random(7)
    boards = []
    for _ in range(300):
        text = parse_board(random_position(rng, rng.randrange(2, 11)), 64)
        boards.append(Board.from_rows(text.size, text.rows))
    results = {}
    for forced in (True, False):
        monkeypatch.setattr("kernel.rules.prefers_table", lambda *_, forced=forced: forced)
        results[forced] = [verdicts(board) for board in boards]
    assert results[True] == results[False]
    assert {status for status, _, _ in results[True]} == {
        "checkmate",
        "stalemate",
        "check",
        "normal",
    }
