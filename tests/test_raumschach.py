"""The engine's Raumschach held to the brute force of tests/raumschach_reference.py, through one
real engine process: the start's perft, hand-made positions of both sides, and seeded random
games from the start (pawn moves and promotions favoured), move by move."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from tests.conftest import Engine, assert_still_running
from tests.raumschach_reference import (
    BLACK,
    HAND_POSITIONS,
    START_PERFT,
    STATUS,
    WHITE,
    Cell,
    Move,
    Position,
    board_text,
    in_check,
    legal_moves,
    mirrored,
    move_text,
    play,
    position_from,
    set_board_text,
    start_position,
)
from tests.sweep import SWEEP

#: Enough positions for perft 4 of the start (some 15 million leaves), which the default
#: search.max_nodes (5 million) would cut short.
CONFIG = "[search]\nmax_nodes = 100000000\n"
#: Random games played, and the most plies of each: some 480 positions, both sides to move.
GAMES = 8 * SWEEP
PLIES = 60


@pytest.fixture(scope="module")
def raumschach(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    """One engine for the module, its perft allowed deep enough for the start's depth 4."""
    folder = tmp_path_factory.mktemp("raumschach")
    config = folder / "engine_config.toml"
    config.write_text(CONFIG)
    process = Engine(folder / "logs", "--config", str(config))
    try:
        yield process
        assert process.finish() == (0, b"", b"")
    finally:
        process.discard()


def answer(engine: Engine, line: str) -> str:
    """Send one line; return the text of its `=` answer (failing on a `?` refusal)."""
    response = engine.ask(line).decode()
    assert response.startswith("="), f"{line!r} answered {response!r}"
    return response[1:].strip()


def engine_moves(engine: Engine) -> set[str]:
    """The engine's legal moves in the position it holds."""
    return set(answer(engine, "legal_moves").split())


def check_position(engine: Engine, pos: Position, where: str) -> list[Move]:
    """The engine, holding pos, shows its board and lists the reference's moves and status;
    return the reference's legal moves (the brute force's costly part, done once)."""
    assert answer(engine, "get_board") == board_text(pos) + (" b" if pos.side == BLACK else "")
    moves = legal_moves(pos)
    got, expected = engine_moves(engine), {move_text(pos, move) for move in moves}
    assert got == expected, (
        f"{where}: {set_board_text(pos)}: engine only {sorted(got - expected)}, "
        f"reference only {sorted(expected - got)}"
    )
    # status(pos) in short, without a second search for the moves.
    expected_status = STATUS[in_check(pos), bool(moves)]
    assert answer(engine, "status") == expected_status, f"{where}: {set_board_text(pos)}"
    return moves


def test_start(raumschach: Engine) -> None:
    """`new_game 5 raumschach` sets the reference's start; its moves and perft 1..3 agree."""
    assert answer(raumschach, "new_game 5 raumschach") == ""
    assert answer(raumschach, "variant") == "raumschach"
    start = start_position()
    check_position(raumschach, start, "start")
    for depth, count in enumerate(START_PERFT[:3], start=1):
        assert answer(raumschach, f"perft {depth}") == str(count)
    assert_still_running(raumschach)


@pytest.mark.skipif(SWEEP == 1, reason="some 5 CPU seconds: with CUBEMATE_SWEEP above 1")
def test_start_perft_4(raumschach: Engine) -> None:
    """The start's perft 4, as the reference counted it."""
    answer(raumschach, "new_game 5 raumschach")
    assert answer(raumschach, "perft 4") == str(START_PERFT[3])


@pytest.mark.parametrize("name", sorted(HAND_POSITIONS))
def test_hand_positions(raumschach: Engine, name: str) -> None:
    """Each hand-made position and its mirror (black to move): moves, status, perft 1..3."""
    named, side, counts = HAND_POSITIONS[name]
    answer(raumschach, "variant raumschach")
    for pos in (position_from(named, side), mirrored(position_from(named, side))):
        assert answer(raumschach, f"set_board {set_board_text(pos)}") == ""
        check_position(raumschach, pos, name)
        for depth, count in enumerate(counts, start=1):
            assert answer(raumschach, f"perft {depth}") == str(count), (name, pos.side, depth)


def progress(cell: Cell, side: str) -> int:
    """How far a pawn of `side` on cell has come: ranks and levels advanced."""
    _, rank, level = cell
    return rank + level if side == WHITE else 8 - rank - level


def choose(rng: random.Random, pos: Position, moves: list[Move]) -> Move:
    """Pick a move, favouring promotions and the moves of the side's foremost pawns, so that
    the games reach promotions of both sides within a few dozen plies."""
    promotions = [move for move in moves if move[2]]
    pawns = [move for move in moves if pos.pieces[move[0]] in "Pp"]
    if promotions and rng.random() < 0.7:
        return rng.choice(promotions)
    if pawns and rng.random() < 0.5:
        foremost = max(progress(move[0], pos.side) for move in pawns)
        return rng.choice([move for move in pawns if progress(move[0], pos.side) == foremost])
    return rng.choice(moves)


def test_random_games(raumschach: Engine) -> None:
    """Seeded random games from the start, played through `play`: at every ply the engine's
    board, moves and status are the reference's; every seventh position is also set anew with
    `set_board`. The games must have met promotions of both sides, pawn captures, checks."""
    rng = random.Random(48)
    met = {"white promotes": 0, "black promotes": 0, "pawn takes": 0, "check": 0, "plies": 0}
    for game in range(GAMES):
        assert answer(raumschach, "new_game 5 raumschach") == ""
        pos = start_position()
        for ply in range(PLIES):
            where = f"game {game} ply {ply}"
            if ply % 7 == 6:
                assert answer(raumschach, f"set_board {set_board_text(pos)}") == ""
            moves = check_position(raumschach, pos, where)
            if not moves:
                break
            move = choose(rng, pos, moves)
            text = move_text(pos, move)
            if move[2]:
                met["white promotes" if pos.side == WHITE else "black promotes"] += 1
            if pos.pieces[move[0]] in "Pp" and move[1] in pos.pieces:
                met["pawn takes"] += 1
            assert answer(raumschach, f"play {text}") == "", where
            pos = play(pos, move)
            met["check"] += in_check(pos)
            met["plies"] += 1
    assert all(met.values()), met
    assert_still_running(raumschach)
