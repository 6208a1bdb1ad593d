"""The one attackers function, the pins and the check test, against the brute force.

Each is compared with tests/reference.py on random positions of many sizes, for both sides,
with and without the king's own cell seen through.
"""

from __future__ import annotations

import random
from itertools import product

import pytest

from kernel.cube.directions import KNIGHT_STEPS, compact_width_for, offset_of
from kernel.cube.position import BLACK, NO_POINT, WHITE, Position
from kernel.cube.rules import (
    Analysis,
    InvalidPosition,
    attackers,
    check_position,
    discovers_check,
    gives_check,
    in_check,
)
from kernel.text.notation import get_cell_name_from_point, parse_board
from tests import reference
from tests.positions import random_position


def position_of(board: str, side: int = WHITE) -> Position:
    text = parse_board(board, 64)
    return Position.from_rows(text.size, text.rows, side)


def cell_of(position: Position, point: int) -> reference.Cell:
    return reference.parse_cell(get_cell_name_from_point(position.geometry, point))


@pytest.mark.parametrize("size", range(2, 13))
def test_every_difference_between_cells_has_its_own_compact_key(size: int) -> None:
    width = compact_width_for(size)
    reach = range(-(size - 1), size)
    keys = {offset_of(step, width): step for step in product(reach, reach, reach)}
    assert len(keys) == len(reach) ** 3
    for step in KNIGHT_STEPS:
        assert keys.get(offset_of(step, width), step) == step


@pytest.mark.parametrize("size", [2, 3, 4, 5, 6, 8, 12, 16])
def test_attackers_are_the_pieces_the_reference_finds(size: int) -> None:
    rng = random.Random(size)
    for _ in range(30):
        board = random_position(rng, size)
        position = position_of(board)
        slow = reference.parse_board(board)
        cells = [(x, y, z) for x in range(size) for y in range(size) for z in range(size)]
        for cell in rng.sample(cells, min(len(cells), 25)):
            target = position.geometry.get_point_from_cell(*cell)
            for side, is_side in ((WHITE, reference.is_white), (BLACK, reference.is_black)):
                found = {cell_of(position, p) for p in attackers(position, target, side)}
                expected = {
                    origin
                    for origin, piece in slow.pieces.items()
                    if is_side(piece) and origin != cell and reference.attacks(slow, origin, cell)
                }
                assert found == expected, (board, cell, side)


@pytest.mark.parametrize("size", [2, 3, 4, 6, 8])
def test_a_lifted_king_is_seen_through(size: int) -> None:
    """With the king's cell lifted, lines run on behind it: the reference without the king."""
    rng = random.Random(100 + size)
    for _ in range(30):
        board = random_position(rng, size)
        position = position_of(board)
        king = position.kings[WHITE]
        slow = reference.parse_board(board)
        without_king = reference.Position(
            size, {c: p for c, p in slow.pieces.items() if c != cell_of(position, king)}
        )
        for step in position.offsets.queen:
            target = king + step
            if position.cells[target] == "+":
                continue
            cell = cell_of(position, target)
            found = {cell_of(position, p) for p in attackers(position, target, BLACK, king)}
            expected = {
                origin
                for origin, piece in without_king.pieces.items()
                if reference.is_black(piece)
                and origin != cell
                and reference.attacks(without_king, origin, cell)
            }
            assert found == expected, (board, cell)


@pytest.mark.parametrize("size", [2, 3, 4, 5, 8])
def test_pinned_pieces_are_the_ones_the_reference_finds(size: int) -> None:
    rng = random.Random(200 + size)
    for _ in range(60):
        board = random_position(rng, size)
        position = position_of(board)
        pinned = {cell_of(position, point) for point in Analysis(position).pins()}
        assert pinned == set(reference.pinned_pieces(reference.parse_board(board))), board


@pytest.mark.parametrize("size", [2, 3, 4, 5, 6])
def test_gives_check_says_what_playing_the_move_shows(size: int) -> None:
    """Direct and discovered checks, found without playing, match the position after it."""
    rng = random.Random(300 + size)
    checked = checks = 0
    for _ in range(120):
        side = rng.choice((WHITE, BLACK))
        position = position_of(random_position(rng, size), side)
        if in_check(position, position.enemy):
            continue  # not a game position: the enemy king could be taken
        for move in list(Analysis(position).legal_moves()):
            expected = gives_check(position, move)
            position.play(move)
            check = in_check(position, position.side)
            position.undo(move)
            assert expected == check, move
            checked += 1
            checks += check
    assert checked > 60 and 0 < checks < checked


def test_a_side_without_a_king_is_never_in_check() -> None:
    position = position_of("[#q,##],[##,K#]", BLACK)
    assert position.kings[BLACK] == NO_POINT
    analysis = Analysis(position)
    assert not analysis.in_check and analysis.checkers == []
    assert {move.piece for move in analysis.legal_moves()} == {"q"}


@pytest.mark.parametrize("side", [WHITE, BLACK])
def test_a_position_with_one_king_in_check_is_accepted_whoever_is_to_move(side: int) -> None:
    """Only both kings in check is refused; the side to move must not decide which is asked."""
    black_in_check = (
        "[###K,##Rb,####,####],[####,####,###b,####],[####,##b#,##Q#,####],[####,####,####,#k##]"
    )
    white_in_check = "[#q,##],[##,K#]"
    for board in (black_in_check, white_in_check):
        position = position_of(board, side)
        assert check_position(position).position is position
    both = position_of("[###,###,###],[###,###,###],[K#R,###,q#k]", side)
    with pytest.raises(InvalidPosition, match="both kings are in check"):
        check_position(both)


def discovery_position(rng: random.Random, size: int) -> tuple[str, int]:
    """Draw a board where a piece of the side to move shields the enemy king from its slider."""
    for _ in range(10_000):
        side = rng.choice((WHITE, BLACK))
        mover, other = ("QRBN", "k") if side == WHITE else ("qrbn", "K")
        slow = reference.parse_board(random_position(rng, size))
        pieces = {cell: p for cell, p in slow.pieces.items() if p not in "Kk"}
        king = (rng.randrange(size), rng.randrange(size), rng.randrange(size))
        step = rng.choice(sorted(reference.QUEEN_STEPS))
        line = [reference.add(king, step, times) for times in range(1, size)]
        line = [cell for cell in line if all(0 <= c < size for c in cell)]
        if len(line) < 2:
            continue
        for cell in line:
            pieces.pop(cell, None)
        pieces[king] = other
        pieces[line[rng.randrange(len(line) - 1)]] = rng.choice(mover)
        pieces[line[-1]] = mover[0]  # a queen moves along every line
        own_king = rng.choice(
            [
                (x, y, z)
                for x in range(size)
                for y in range(size)
                for z in range(size)
                if (x, y, z) not in pieces
            ]
            or [None]
        )
        if own_king is None:
            continue
        pieces[own_king] = "K" if side == WHITE else "k"
        if "K" not in pieces.values():
            continue
        board = reference.to_notation(size, pieces)
        if reference.validity_error(reference.Position(size, pieces)) is None:
            return board, side
    raise AssertionError(f"no board with a discovery line drawn on n = {size}")


@pytest.mark.parametrize("size", [3, 4, 5, 6, 8])  # on a 2-cube the kings always touch
def test_checking_moves_are_the_legal_moves_that_give_check(size: int) -> None:
    """Generated straight from the check cells and discovery lines, yet the same set."""
    rng = random.Random(400 + size)
    found = discovered = 0
    for _ in range(150):
        board, side = discovery_position(rng, size)
        position = position_of(board, side)
        if in_check(position, position.enemy):
            continue
        analysis = Analysis(position)
        expected = {move for move in analysis.legal_moves() if gives_check(position, move)}
        assert set(analysis.checking_moves()) == expected, (position.cells, side)
        found += len(expected)
        king = position.kings[position.enemy]
        discovered += sum(discovers_check(position, move, king) for move in expected)
    assert found > 20 and discovered > 0
