"""A game's history (kernel/cube/game.py): `undo` as exact as a copy of the board, at any size.

Seeded play/undo walks at n = 8 and n = 64, captures included, are compared after every step
with the boards recorded on the way (`get_board`) and with the Zobrist key, the pieces and the
kings computed from scratch from the cells. The draw counters (positions seen, quiet plies)
come back with every undo, and the history costs a move, not a board.
"""

from __future__ import annotations

import random
import tracemalloc
from collections import Counter

import pytest

from kernel.config import EngineConfig
from kernel.cube.game import FIFTY_MOVE_PLIES, Game, Outcome
from kernel.cube.position import Position
from kernel.cube.rules import Analysis
from kernel.cube.start import start_position
from kernel.kernel import Kernel
from kernel.text.move_reading import read_move
from tests.conftest import ask
from tests.positions import noise_game_position
from tests.reference import MOVE_PATTERN, WHITE, to_notation

#: Where an 8-cube's crowd is set down inside the 64-cube: the middle, far from every wall.
OFFSET = 28


def crowded(rng: random.Random, size: int) -> str:
    """A game position of 60 pieces thrown on 8³ cells, set down in the middle of a `size`-cube,
    so that captures come early whatever the size."""
    small = noise_game_position(rng, 8, WHITE, 60)
    shift = 0 if size == 8 else OFFSET
    pieces = {(x + shift, y + shift, z + shift): p for (x, y, z), p in small.pieces.items()}
    return to_notation(size, pieces)


def is_capture(move: str) -> bool:
    """Tell whether a move name is a capture's (a file name may hold an x: `ax1(I)`)."""
    found = MOVE_PATTERN.fullmatch(move)
    assert found is not None, move
    return found[3] == "x"


def check_position(kernel: Kernel, expected: str | None = None) -> None:
    """The position is `expected` (when given), and everything kept beside the cells (the key,
    each side's pieces, the kings) is what the cells give when read afresh."""
    position = kernel.position
    if expected is not None:
        assert ask(kernel, "get_board") == expected
    fresh = Position(position.size, list(position.cells), position.side)
    assert position.key == fresh.key
    assert position.pieces == fresh.pieces
    assert position.kings == fresh.kings


def walk(kernel: Kernel, rng: random.Random, steps: int) -> Counter[str]:
    """Play and take back random moves, checking each position against the boards seen."""
    boards = [ask(kernel, "get_board")]
    done = Counter[str]()
    for _ in range(steps):
        moves = ask(kernel, "legal_moves").split()
        if boards[1:] and (not moves or rng.random() < 0.3):
            for _ in range(rng.randint(1, min(4, len(boards) - 1))):
                assert ask(kernel, "undo") == ""
                boards.pop()
                done["undo"] += 1
        else:
            # Captures half the time they are there: they are what undo must put back.
            captures = [move for move in moves if is_capture(move)]
            move = rng.choice(captures if captures and rng.random() < 0.5 else moves)
            assert ask(kernel, f"play {move}") == ""
            boards.append(ask(kernel, "get_board"))
            done["capture" if is_capture(move) else "play"] += 1
            check_position(kernel)
            continue
        check_position(kernel, boards[-1])
    while boards[1:]:
        assert ask(kernel, "undo") == ""
        boards.pop()
        check_position(kernel, boards[-1])
    assert ask(kernel, "undo") == "? cannot undo"
    return done


# At n = 64 every check reads 314,432 cells: a few steps are enough there.
@pytest.mark.parametrize(("size", "steps"), [(8, 120), (64, 16)])
def test_undo_is_exact(size: int, steps: int) -> None:
    kernel = Kernel(EngineConfig())
    rng = random.Random(size)
    done = Counter[str]()
    assert ask(kernel, f"new_game {size}") == ""
    done += walk(kernel, rng, steps // 2)
    assert ask(kernel, f"set_board {crowded(rng, size)}") == ""
    done += walk(kernel, rng, steps)
    assert done["play"] >= steps // 2 and done["undo"] >= steps // 4
    assert done["capture"] >= steps // 8, done


@pytest.mark.parametrize("size", [8, 64])
def test_the_start_is_the_board_that_was_set_whatever_was_played(size: int) -> None:
    """A game's start position, rebuilt from the position now with every ply taken back, is
    the board set_board was given after plays with captures, and a position of its own: the
    game's is untouched."""
    kernel = Kernel(EngineConfig())
    rng = random.Random(size + 1)
    board = crowded(rng, size)
    assert ask(kernel, f"set_board {board}") == ""
    start = ask(kernel, "get_board")
    captures = 0
    for _ in range(12 if size < 64 else 6):
        moves = ask(kernel, "legal_moves").split()
        if not moves:
            break
        taking = [move for move in moves if is_capture(move)]
        move = rng.choice(taking or moves)
        captures += is_capture(move)
        assert ask(kernel, f"play {move}") == ""
    assert kernel.game.plies and captures, (len(kernel.game.plies), captures)
    now = ask(kernel, "get_board")
    rebuilt = kernel.game.start_position()
    assert rebuilt is not kernel.position and rebuilt.cells is not kernel.position.cells
    assert ask(kernel, "get_board") == now
    assert ask(kernel, "new_game 8") == ""  # anything but the start
    kernel.set_position(rebuilt)
    assert ask(kernel, "get_board") == start


def replayed(game: Game) -> Game:
    """The same game played afresh from its start: what every counter must equal."""
    fresh = Game(game.start_position())
    for move in game.moves:
        fresh.play(move)
    return fresh


def test_undo_restores_the_draw_counters() -> None:
    kernel = Kernel(EngineConfig())
    rng = random.Random(5)
    assert ask(kernel, f"set_board {crowded(rng, 8)}") == ""
    for _ in range(150):
        moves = ask(kernel, "legal_moves").split()
        if kernel.game.plies and (not moves or rng.random() < 0.35):
            assert ask(kernel, "undo") == ""
        else:
            assert ask(kernel, f"play {rng.choice(moves)}") == ""
        game = kernel.game
        fresh = replayed(game)
        assert (game.seen, game.quiet_plies) == (fresh.seen, fresh.quiet_plies)
        assert game.repetitions() == fresh.repetitions() >= 1
        assert game.outcome() == fresh.outcome()


def mate_in_one() -> tuple[Position, str]:
    """The rules.md mate in 1, black to move, and its key."""
    board = "[rb#,###,nNK],[###,##b,#b#],[###,##k,###]"
    return Position.from_rows(3, parse_rows(board), side=1), "na1(III)-b1(I)"


def parse_rows(board: str) -> list[str]:
    """The n*n rows of a canonical board, top layer first."""
    return [row for layer in board[1:-1].split("],[") for row in layer.split(",")]


def test_a_mate_on_the_hundredth_quiet_ply_is_a_mate() -> None:
    position, key = mate_in_one()
    kernel = Kernel(EngineConfig())
    kernel.set_game(Game(position, quiet_plies=FIFTY_MOVE_PLIES - 1))
    assert ask(kernel, "result") == "*"
    assert ask(kernel, f"play {key}") == ""
    assert kernel.game.quiet_plies == FIFTY_MOVE_PLIES
    assert ask(kernel, "result") == "0-1 (checkmate)"
    outcome = kernel.game.outcome()
    assert outcome == Outcome("0-1", "checkmate") and outcome.decisive


def test_repetition_comes_before_the_fifty_move_rule() -> None:
    game = Game(start_position(4), quiet_plies=FIFTY_MOVE_PLIES - 8)
    kernel = Kernel(EngineConfig())
    kernel.set_game(game)
    for move in ["Nd1(I)-c3(I)", "na4(IV)-b2(IV)", "Nc3(I)-d1(I)", "nb2(IV)-a4(IV)"] * 2:
        assert ask(kernel, f"play {move}") == ""
    assert game.quiet_plies == FIFTY_MOVE_PLIES
    assert game.repetitions() == 3
    outcome = game.outcome()
    assert outcome == Outcome("1/2-1/2", "threefold repetition") and not outcome.decisive
    assert str(outcome) == ask(kernel, "result") == "1/2-1/2 (threefold repetition)"


def test_the_history_costs_a_move_not_a_board() -> None:
    # Memory, not time: the bytes allocated do not depend on the machine's load.
    game = Game(start_position(64))
    names = ["Na2(I)-a4(II)", "nbl63(LXIV)-bl61(LXIII)", "Na4(II)-a2(I)", "nbl61(LXIII)-bl63(LXIV)"]
    moves = []
    for name in names:  # each move read once, as `play` reads it
        moves.append(read_move(game.position, Analysis(game.position), name))
        game.play(moves[-1])
    for _ in names:
        game.undo()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(500):
            for move in moves:
                game.play(move)
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    # A board of the 64-cube is 314,432 cells; 2,000 plies cost far less than one board.
    assert len(game.plies) == 2000
    assert grown < 2000 * 500, grown
