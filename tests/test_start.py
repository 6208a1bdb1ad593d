"""The start positions of `new_game N` (docs/rules.md, "The start position"), judged by the
brute force of tests/reference.py: fair (black is white turned through the centre), quiet (no
piece attacked, no capture on the first move, no king in check) and counted (perft).

The perft counts of the table in tests/perft_table.py are held to the kernel up to the depths
that take well under a second, and to the reference up to depth 2 (3 on the 3-cube);
`make sweep` (CUBEMATE_SWEEP above 1) checks every count of the table with the kernel and
every count the table says the reference confirmed with the reference (about ten minutes).
"""

from __future__ import annotations

import pytest

from kernel.config import EngineConfig
from kernel.cube.start import NO_GAME
from kernel.kernel import Kernel
from tests.conftest import ask
from tests.perft_table import START_PERFT, StartPerft
from tests.reference import (
    BLACK,
    MOVE_PATTERN,
    WHITE,
    Cell,
    Position,
    attackers,
    colour,
    game_error,
    legal_moves,
    opponent,
    parse_cell,
    parse_game,
    perft,
    pseudo_moves,
    side_in_check,
    validity_error,
)
from tests.sweep import SWEEP

#: Every size the brief asks for: the small ones one by one, and the largest accepted.
SIZES = (*range(3, 13), 64)
#: Set to check the whole perft table, every depth, by the kernel and the reference.
#: The most leaves the kernel counts on an ordinary run (half a second or so).
QUICK_KERNEL_LEAVES = 500_000
#: The most leaves the reference counts on an ordinary run (a tenth of a second or so).
QUICK_REFERENCE_LEAVES = 10_000


@pytest.fixture(scope="module")
def kernel() -> Kernel:
    """One kernel for the module, its node limit raised so that a sweep may count deep."""
    return Kernel(EngineConfig(max_nodes=10**9))


def start_of(kernel: Kernel, size: int) -> Position:
    """Start a game of this size in the kernel and read its position as the reference sees it."""
    assert ask(kernel, f"new_game {size}") == ""
    return parse_game(ask(kernel, "get_board"))


def mirror(size: int, cell: Cell) -> Cell:
    """Turn a cell through the centre of the cube."""
    x, y, z = cell
    return (size - 1 - x, size - 1 - y, size - 1 - z)


def turned(pos: Position) -> Position:
    """Turn a position through the centre, swap the colours and pass the move."""
    pieces = {mirror(pos.n, cell): piece.swapcase() for cell, piece in pos.pieces.items()}
    return Position(pos.n, pieces, opponent(pos.side))


@pytest.mark.parametrize("size", SIZES)
def test_black_is_white_turned_through_the_centre(kernel: Kernel, size: int) -> None:
    pos = start_of(kernel, size)
    assert pos.side == WHITE
    assert turned(pos).pieces == pos.pieces
    # White stands on level I, so black on the top level: n - 1 levels apart.
    assert {z for (_, _, z), piece in pos.pieces.items() if colour(piece) == WHITE} == {0}


@pytest.mark.parametrize("size", SIZES)
def test_no_piece_is_attacked_and_no_king_in_check(kernel: Kernel, size: int) -> None:
    pos = start_of(kernel, size)
    assert validity_error(pos) is None and game_error(pos) is None
    assert not side_in_check(pos, WHITE) and not side_in_check(pos, BLACK)
    hanging = [
        cell for cell, piece in pos.pieces.items() if attackers(pos, cell, opponent(colour(piece)))
    ]
    assert hanging == []
    assert ask(kernel, "status") == "normal"
    assert ask(kernel, "result") == "*"


def named_move(name: str) -> tuple[Cell, Cell]:
    """Read a quiet move's name as the kernel writes it: `Nb1(I)-a3(II)`; refuse a capture."""
    found = MOVE_PATTERN.fullmatch(name)
    assert found is not None and found[3] == "-", name
    return parse_cell(found[2]), parse_cell(found[4])


@pytest.mark.parametrize("size", SIZES)
def test_no_capture_on_the_first_move_and_both_sides_face_the_same_game(
    kernel: Kernel, size: int
) -> None:
    pos = start_of(kernel, size)
    black_to_move = Position(size, pos.pieces, BLACK)
    for side_to_move in (pos, black_to_move):
        reachable = [target for _, target in pseudo_moves(side_to_move)]
        assert reachable and not any(target in pos.pieces for target in reachable)
    white_moves = ask(kernel, "legal_moves")
    assert ask(kernel, f"set_board {ask(kernel, 'get_board')} b") == ""
    black_moves = ask(kernel, "legal_moves")
    # Black's moves are white's, turned through the centre.
    assert sorted(map(named_move, black_moves.split())) == sorted(
        (mirror(size, origin), mirror(size, target))
        for origin, target in map(named_move, white_moves.split())
    )
    if size <= 12:  # the brute force's legality test is too slow for 256 pieces
        assert white_moves == " ".join(legal_moves(pos))
        assert black_moves == " ".join(legal_moves(black_to_move))


def test_the_armies_grow_with_the_board(kernel: Kernel) -> None:
    counts = []
    for size in SIZES:
        pos = start_of(kernel, size)
        white = sorted(piece for piece in pos.pieces.values() if colour(piece) == WHITE)
        counts.append(len(white))
        assert white.count("K") == 1
        if size >= 4:
            # Two full ranks: every kind of piece, one queen, a rook in each corner.
            assert len(white) == 2 * size
            assert set(white) == set("KQRBN") and white.count("Q") == 1
        if size >= 5:  # the rule; the 4-cube's army stands otherwise (rules.md)
            assert {pos.pieces.get((x, 0, 0)) for x in (0, size - 1)} == {"R"}
    assert counts == sorted(counts) and counts[0] == 6 and counts[-1] == 128


def test_new_game_writes_the_start_board_of_the_table(kernel: Kernel) -> None:
    for entry in START_PERFT:
        assert ask(kernel, f"new_game {entry.size}") == ""
        assert ask(kernel, "get_board") == entry.board
    # Without N, the current size.
    assert ask(kernel, "boardsize 4") == ""
    assert ask(kernel, "new_game") == ""
    assert ask(kernel, "get_board") == START_PERFT[1].board


def test_the_two_cube_has_no_game(kernel: Kernel) -> None:
    assert ask(kernel, "new_game 3") == ""
    before = ask(kernel, "get_board")
    reason = NO_GAME[2]
    assert ask(kernel, "new_game 2") == f"? no game on a board of size 2: {reason}"
    assert ask(kernel, "boardsize 2") == ""
    assert ask(kernel, "new_game").startswith("? no game on a board of size 2: ")
    assert ask(kernel, "new_game 3") == ""
    assert ask(kernel, "get_board") == before


def quick_depths(entry: StartPerft, limit: int, deepest: int = 4) -> list[int]:
    """The depths of an entry whose counts stay within `limit` leaves (all when sweeping)."""
    return [
        depth
        for depth, count in enumerate(entry.counts, start=1)
        if depth <= deepest and (SWEEP > 1 or count <= limit)
    ]


@pytest.mark.parametrize("entry", START_PERFT, ids=[f"n{e.size}" for e in START_PERFT])
def test_start_perft_by_the_kernel(kernel: Kernel, entry: StartPerft) -> None:
    assert ask(kernel, f"new_game {entry.size}") == ""
    depths = quick_depths(entry, QUICK_KERNEL_LEAVES)
    assert len(depths) >= 2
    for depth in depths:
        assert ask(kernel, f"perft {depth}") == str(entry.counts[depth - 1]), depth


@pytest.mark.parametrize("entry", START_PERFT, ids=[f"n{e.size}" for e in START_PERFT])
def test_start_perft_by_the_reference(entry: StartPerft) -> None:
    pos = parse_game(entry.board)
    depths = quick_depths(entry, QUICK_REFERENCE_LEAVES, entry.reference_depth)
    assert len(depths) >= 2
    for depth in depths:
        assert perft(pos, depth) == entry.counts[depth - 1], depth


def test_the_table_covers_three_to_six() -> None:
    assert [entry.size for entry in START_PERFT] == [3, 4, 5, 6]
    assert all(entry.reference_depth >= 3 for entry in START_PERFT)
