"""The end of a game through the engine process (docs/rules.md, "The end of a game").

Each result is reached by real moves played through `python main.py`: checkmate by either
side and stalemate from `new_game 3` or a set-up position, threefold repetition (and the
repetitions that do not count, of the same board with the other side to move), the fifty-move
rule after a seeded walk of 100 quiet plies, insufficient material after the last capture.
The test keeps its own tally of positions and quiet plies with tests/reference.py and asks
`result` after every ply, so every ply says `*` until the very one that ends the game.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator

import pytest

from kernel.cube.game import FIFTY_MOVE_PLIES
from tests.conftest import Engine, assert_still_running
from tests.perft_table import START_PERFT
from tests.reference import (
    MOVE_PATTERN,
    Position,
    board_from_cells,
    board_text,
    cell_name,
    has_legal_move,
    opponent,
    parse_cell,
    parse_game,
    play,
    successors,
)

#: One of the shortest games of the 3-cube (no first move of white's mates): white's knight
#: blocks its own king's flight, and black's rook drops to white's first rank.
SHORTEST = ("Nb3(I)-c1(I)", "ra1(III)-a1(I)")
#: A game of the 3-cube black mates on its second move, the same rook on the same rank.
BLACK_MATES = ("Ra3(I)-a3(II)", "ra1(III)-a1(II)", "Nb3(I)-c1(I)", "ra1(II)-a1(I)")
#: The same mate by white, turned through the centre, after a first move of white's.
WHITE_MATES = (
    "Ba2(I)-b1(II)",
    "rc1(III)-c1(II)",
    "Rc3(I)-c3(II)",
    "nb1(III)-a3(III)",
    "Rc3(II)-c3(III)",
)
#: Why `new_game 2` is refused.
NO_GAME_ON_2 = (
    "? no game on a board of size 2: "
    "every two cells of a 2×2×2 board touch, so two kings could never stand apart"
)
#: The start position of the 4-cube, as get_board writes it.
START_4 = START_PERFT[1].board
#: Black to move stalemates white with its bishop (reference case 5 is the position after).
STALEMATE = ("[###,###,r#r],[###,###,#b#],[#k#,###,#K#] b", "bb1(II)-c2(III)")


def say(engine: Engine, line: str) -> str:
    """Send one line; return the text of a success, or the whole `? ...` line of a refusal."""
    response = engine.ask(line).decode()
    assert response.endswith("\n\n"), response
    text = response[:-2]
    return text[2:] if text.startswith("= ") else text


@pytest.fixture(scope="module")
def game_engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    """One engine for the module, checked at the end to have ended cleanly on `quit`."""
    engine = Engine(tmp_path_factory.mktemp("game-logs"))
    try:
        yield engine
        assert say(engine, "quit") == ""
        code, rest, errors = engine.finish()
        assert (code, rest) == (0, b""), errors
    finally:
        engine.discard()


@pytest.fixture
def started(game_engine: Engine) -> Iterator[Engine]:
    """The module's engine, which each test sets up afresh (`new_game`, `set_board` or
    `clear_board` first), checked after the test to be running still."""
    yield game_engine
    assert_still_running(game_engine)


def results_along(engine: Engine, moves: tuple[str, ...] | list[str]) -> list[str]:
    """Play moves one by one and return `result` after each."""
    found = []
    for move in moves:
        assert say(engine, f"play {move}") == "", move
        found.append(say(engine, "result"))
    return found


def test_no_first_move_of_the_3_cube_ends_the_game(started: Engine) -> None:
    """So SHORTEST, two plies, is as short as a game can be."""
    assert say(started, "new_game 3") == ""
    moves = say(started, "legal_moves").split()
    assert len(moves) > 5
    for move in moves:
        assert results_along(started, (move,)) == ["*"], move
        assert say(started, "undo") == ""


def test_black_and_white_mate_from_the_start(started: Engine) -> None:
    for moves, score in ((SHORTEST, "0-1"), (BLACK_MATES, "0-1"), (WHITE_MATES, "1-0")):
        assert say(started, "new_game 3") == ""
        assert say(started, "result") == "*"
        outcome = f"{score} (checkmate)"
        assert results_along(started, moves) == ["*"] * (len(moves) - 1) + [outcome]
        assert say(started, "status") == "checkmate"
        assert say(started, "legal_moves") == ""
        assert say(started, "play Kb1(I)-b2(I)") == f"? game over: {outcome}"
        assert say(started, "play kb3(III)-b2(III)") == f"? game over: {outcome}"
        assert say(started, "showboard").endswith(f" to move\nresult: {outcome}")
        assert f"\nResult: {outcome}\n" in say(started, "printgame")
        # A result undone is gone, and play goes on.
        assert say(started, "undo") == ""
        assert say(started, "result") == "*"
        assert "result:" not in say(started, "showboard")
        assert say(started, f"play {moves[-1]}") == ""
        assert say(started, "result") == outcome


def turned_cell(size: int, name: str) -> str:
    """Turn a cell through the centre of the cube."""
    x, y, z = parse_cell(name)
    return cell_name((size - 1 - x, size - 1 - y, size - 1 - z))


def turned_text(text: str) -> str:
    """Turn a position through the centre of the cube and swap colours and the move."""
    pos = parse_game(text)
    last = pos.n - 1
    pieces = {(last - x, last - y, last - z): p.swapcase() for (x, y, z), p in pos.pieces.items()}
    return board_text(Position(pos.n, pieces, opponent(pos.side)))


def turned_move(size: int, move: str) -> str:
    """Turn a move through the centre of the cube; its letter changes colour."""
    found = MOVE_PATTERN.fullmatch(move)
    assert found is not None, move
    letter, origin, sign, target = found.groups()
    return f"{letter.swapcase()}{turned_cell(size, origin)}{sign}{turned_cell(size, target)}"


def test_stalemate_by_either_side(started: Engine) -> None:
    board, move = STALEMATE
    for text, stalemating in ((board, move), (turned_text(board), turned_move(3, move))):
        assert say(started, f"set_board {text}") == ""
        assert say(started, "result") == "*"
        assert say(started, f"play {stalemating}") == ""
        assert say(started, "status") == "stalemate"
        assert say(started, "result") == "1/2-1/2 (stalemate)"
        # Whatever the move, the game is over.
        assert say(started, "play Kc1(I)-c2(I)") == "? game over: 1/2-1/2 (stalemate)"
        assert say(started, "showboard").endswith("\nresult: 1/2-1/2 (stalemate)")
        assert say(started, "undo") == ""
        assert say(started, "result") == "*"


def test_threefold_repetition_counts_the_side_to_move(started: Engine) -> None:
    # The kings walk triangles: the board comes back with black to move, then with white.
    cells = {"a1(I)": "K", "d1(II)": "R", "d4(IV)": "k", "a4(III)": "r"}
    pos = parse_game(board_from_cells(4, cells))
    walk = [
        *("Ka1(I)-b1(I)", "kd4(IV)-c4(IV)", "Kb1(I)-a2(I)", "kc4(IV)-d4(IV)", "Ka2(I)-a1(I)"),
        *("kd4(IV)-c4(IV)", "Ka1(I)-b1(I)", "kc4(IV)-d3(IV)", "Kb1(I)-a1(I)", "kd3(IV)-d4(IV)"),
        *("Ka1(I)-b1(I)", "kd4(IV)-c4(IV)", "Kb1(I)-a1(I)", "kc4(IV)-d4(IV)"),
    ]
    assert say(started, f"set_board {board_text(pos)}") == ""
    with_side = Counter([board_text(pos)])
    boards = Counter([board_text(pos).split()[0]])
    expected = []
    for move in walk:
        pos = play(pos, move)
        with_side[board_text(pos)] += 1
        boards[board_text(pos).split()[0]] += 1
        draw = with_side[board_text(pos)] == 3
        expected.append("1/2-1/2 (threefold repetition)" if draw else "*")
    assert results_along(started, walk) == expected
    # Boards that stood three times with different sides to move did not count.
    assert expected.index("1/2-1/2 (threefold repetition)") == len(walk) - 1
    assert sum(count >= 3 for count in boards.values()) >= 2
    assert say(started, "showboard").endswith("\nresult: 1/2-1/2 (threefold repetition)")
    # A draw is a claim: play goes on, to a position not seen before.
    assert say(started, "play Ka1(I)-b2(I)") == ""
    assert say(started, "result") == "*"
    assert say(started, "undo") == ""
    assert say(started, "result") == "1/2-1/2 (threefold repetition)"
    assert say(started, "undo") == ""
    assert say(started, "result") == "*"


def test_knights_out_and_back_repeat_the_start(started: Engine) -> None:
    assert say(started, "new_game 4") == ""
    there_and_back = ["Nd1(I)-c3(I)", "na4(IV)-b2(IV)", "Nc3(I)-d1(I)", "nb2(IV)-a4(IV)"]
    results = results_along(started, there_and_back * 2)
    assert results == ["*"] * 7 + ["1/2-1/2 (threefold repetition)"]
    # new_game forgets the positions seen: the start has stood once.
    assert say(started, "new_game") == ""
    assert results_along(started, there_and_back) == ["*"] * 4


def quiet_walk(rng: random.Random, pos: Position, plies: int) -> list[str]:
    """Choose `plies` moves at random, none a capture, none reaching a position a third time,
    none leaving the side to move without a move."""
    seen = Counter([board_text(pos)])
    walk: list[str] = []
    while len(walk) < plies:
        quiet = [
            (name, after) for name, after in successors(pos) if len(after.pieces) == len(pos.pieces)
        ]
        rng.shuffle(quiet)
        name, after = next(
            (name, after)
            for name, after in quiet
            if seen[board_text(after)] < 2 and has_legal_move(after)
        )
        seen[board_text(after)] += 1
        walk.append(name)
        pos = after
    return walk


def test_fifty_move_rule_after_a_hundred_quiet_plies(started: Engine) -> None:
    # The rook's capture on the first move starts the count again.
    cells = {"a1(I)": "K", "d1(II)": "R", "b2(I)": "N", "d3(II)": "b"}
    cells |= {"d4(IV)": "k", "a4(III)": "r", "c3(IV)": "n"}
    pos = parse_game(board_from_cells(4, cells))
    capture = "Rd1(II)xd3(II)"
    walk = quiet_walk(random.Random(50), play(pos, capture), FIFTY_MOVE_PLIES + 1)
    assert say(started, f"set_board {board_text(pos)}") == ""
    assert results_along(started, [capture]) == ["*"]
    draw = "1/2-1/2 (fifty-move rule)"
    results = results_along(started, walk[:FIFTY_MOVE_PLIES])
    assert results == ["*"] * (FIFTY_MOVE_PLIES - 1) + [draw]
    assert f"\nResult: {draw}\n" in say(started, "printgame")
    # A claim: play goes on, and the draw stays claimable.
    assert results_along(started, walk[FIFTY_MOVE_PLIES:]) == [draw]
    for expected in (draw, "*"):
        assert say(started, "undo") == ""
        assert say(started, "result") == expected


def test_insufficient_material_is_bare_kings_only(started: Engine) -> None:
    bare = "1/2-1/2 (insufficient material)"
    cells = {"c1(I)": "K", "b2(I)": "r", "a3(III)": "k"}
    assert say(started, f"set_board {board_from_cells(3, cells)}") == ""
    assert results_along(started, ["Kc1(I)xb2(I)"]) == [bare]
    assert say(started, "showboard").endswith(f"black to move\nresult: {bare}")
    assert results_along(started, ["ka3(III)-a2(III)"]) == [bare]
    for expected in (bare, "*"):
        assert say(started, "undo") == ""
        assert say(started, "result") == expected
    # A king and one minor piece are not claimed: whether they can mate is not proved in 3D.
    for extra in ({"b2(I)": "N"}, {"b2(I)": "B"}, {"c3(I)": "n"}, {"c3(I)": "b"}):
        board = board_from_cells(3, {"c1(I)": "K", "a3(III)": "k"} | extra)
        assert say(started, f"set_board {board}") == ""
        assert say(started, "result") == "*", extra


def snapshot(engine: Engine) -> tuple[str, str, str]:
    """What a refused command must leave alone: the position, the game's record, the result."""
    return say(engine, "get_board"), say(engine, "printgame"), say(engine, "result")


def test_new_game_refusals_change_nothing(started: Engine) -> None:
    assert say(started, "new_game 4") == ""
    assert say(started, "play Nd1(I)-c3(I)") == ""
    assert say(started, "play na4(IV)-b2(IV)") == ""
    before = snapshot(started)
    refusals = {
        "new_game 1": "? unacceptable size (2 ... 64)",
        "new_game 65": "? unacceptable size (2 ... 64)",
        "new_game x": "? N must be a whole number or VARIANT one of cube, raumschach, got 'x'",
        "new_game 5 chess": "? unknown variant 'chess' (known: cube, raumschach)",
        "new_game 4 raumschach": "? no game on a board of size 4: raumschach is played on a"
        " board of size 5 only",
        "new_game 2": NO_GAME_ON_2,
        "new_game 3 4": "? unknown variant '4' (known: cube, raumschach)",
        "new_game 3 cube 4": "? wrong number of arguments, usage: new_game [N] [VARIANT]",
        "new_game 99999999999999": "? unacceptable size (2 ... 64)",
    }
    for line, refusal in refusals.items():
        assert say(started, line) == refusal
        assert snapshot(started) == before, line
    # The moves are still there to take back, and then no more.
    assert say(started, "undo") == say(started, "undo") == ""
    assert say(started, "get_board") == START_4
    assert say(started, "undo") == "? cannot undo"


def test_new_game_starts_afresh(started: Engine) -> None:
    assert say(started, "set_board [#q,##],[##,K#]") == ""
    assert say(started, "new_game") == NO_GAME_ON_2
    assert say(started, "new_game 4") == ""
    assert say(started, "get_board") == START_4
    assert say(started, "play Nd1(I)-c3(I)") == ""
    assert say(started, "new_game") == ""
    assert say(started, "get_board") == START_4
    assert say(started, "undo") == "? cannot undo"
    record = say(started, "printgame")
    assert f"\nStart: {START_4} w\nResult: *\n" in record
    assert record.splitlines()[-1].startswith("Date: ")


def test_result_needs_a_game_position(started: Engine) -> None:
    assert say(started, "clear_board") == ""
    assert say(started, "result") == "? no white king on the board"
    assert say(started, "set_board [#q,##],[##,K#] b") == ""
    assert say(started, "result") == "? the side not to move is in check"
    # showboard and printgame still answer, without a result.
    assert not say(started, "showboard").endswith(")")
    assert "\nResult: *\n" in say(started, "printgame")
