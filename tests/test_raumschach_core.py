"""The compiled core (kernel/core/*.c) on Raumschach, held to the Python searches.

Raumschach's pawns, promotions, flat-diagonal bishop and unicorn are told to the core as data
(kernel/compiled.py's core_rules). The player (player.c) must search the tree Python's
Searcher searches: at a fixed depth and node limit the same move, score, principal variation
and count of positions, on seeded positions of games played at random from the start (both
sides to move, pawn moves and captures favoured, so that promotions of both sides come up,
some in check) and on the hand-made positions of tests/raumschach_reference.py and their
mirrors; its evaluation and material must be Python's on each. Then the engine itself: at a
fixed depth the compiled and the Python player log the same searches. The mate searches
(mate.c, helpmate.c) must find the keys and the helpmate lines Python's find, on seeded
positions built for short mates: a king on its last ranks, pawns of the other side one step
from promoting, a few pieces (both sides as the attacker, by the position turned round).

`CUBEMATE_SWEEP=K` multiplies the seeded counts by K.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from kernel.compiled import COMPILED, MateCore, core_pieces, core_rules, core_takes
from kernel.cube.board import EMPTY
from kernel.cube.game import Game
from kernel.cube.position import Move, Position
from kernel.cube.rules import Analysis, InvalidPosition, check_position
from kernel.cube.start import start_position
from kernel.cube.variants import CUBE, RAUMSCHACH, impossible_pawn
from kernel.mates.helpmate import HelpmateSearch, Line, TooManySolutions
from kernel.mates.proofnumber import ProofNumberSearch
from kernel.mates.search import Budget
from kernel.play import player
from kernel.play.alphabeta import Limits, Searcher, TranspositionTable
from kernel.play.alphabeta_core import CompiledSearcher
from kernel.play.evaluation import evaluate
from tests.conftest import Engine, read_json_log
from tests.raumschach_reference import HAND_POSITIONS, mirrored, position_from
from tests.raumschach_reference import Position as Reference
from tests.sweep import SWEEP

#: The Python table's size in both searches, in MB: small, so that replacement is tried.
TABLE_MB = 1


def summary(game: Game, limits: Limits, compiled: bool) -> tuple[object, ...]:
    """Search a game's position one way; what the search found and what it cost."""
    game.position.order_pieces()
    table = TranspositionTable(TABLE_MB)
    if compiled:
        searcher: Searcher = CompiledSearcher(game, limits, table.mask + 1)
    else:
        searcher = Searcher(game, limits, table)
    result = searcher.search()
    return (result.move, result.score, result.depth, result.nodes, result.pv)


def difference(game: Game, limits: Limits) -> str | None:
    """Search both ways; say how they differ, or None. Neither may change the game."""
    before = ("".join(game.position.cells), game.position.side, dict(game.seen))
    python = summary(game, limits, compiled=False)
    compiled = summary(game, limits, compiled=True)
    assert before == ("".join(game.position.cells), game.position.side, dict(game.seen))
    return None if python == compiled else f"python {python} != compiled {compiled}"


def random_games(seed: int, games: int, plies: int) -> list[Game]:
    """Positions of random games from the start, every few plies (pawn moves and captures
    favoured, so that pawns reach their last cells), each a game with its history."""
    rng = random.Random(seed)
    found = []
    for _ in range(games):
        game = Game(start_position(5, RAUMSCHACH))
        for ply in range(plies):
            moves = list(Analysis(game.position).legal_moves())
            if not moves or game.outcome() is not None:
                break
            pawnish = [m for m in moves if m.piece in "Pp" or m.captured != EMPTY]
            game.play(rng.choice(pawnish if pawnish and rng.random() < 0.6 else moves))
            if ply % 7 == 3:
                found.append(Game(game.position.copy(), quiet_plies=game.quiet_plies))
                found[-1].seen.update(game.seen)
    return found


def from_reference(reference: Reference) -> Game:
    """A game of the engine's standing where a reference position does."""
    position = Position.empty(5, RAUMSCHACH)
    for (x, y, z), letter in reference.pieces.items():
        position.cells[position.geometry.get_point_from_cell(x, y, z)] = letter
    side = 0 if reference.side == "w" else 1
    return Game(Position(5, position.cells, side, RAUMSCHACH))


def promotions(game: Game) -> int:
    return sum(move.promotion != EMPTY for move in Analysis(game.position).legal_moves())


def test_the_core_takes_raumschach() -> None:
    """The player's core is told Raumschach's rules; the cube's stay its default (None)."""
    assert COMPILED, "kernel/core was not built (no C compiler?); run make again"
    assert core_takes(start_position(5, RAUMSCHACH)) and core_takes(start_position(5))
    assert core_rules(CUBE) is None
    rules = core_rules(RAUMSCHACH)
    assert rules is not None
    slides, pushes, captures, choices, axes = rules
    assert sorted(map(len, slides)) == [0, 0, 0, 0, 6, 8, 12, 26]  # R U B Q
    assert (len(pushes), len(captures), choices, axes) == (2, 5, [2, 3, 4, 6, 5], [1, 2])


def test_the_player_agrees_on_seeded_games() -> None:
    """Some 110 positions of random games, both sides, promotions among them: the same
    search at depth 2 and, every fifth, at depth 3."""
    games = random_games(4801, 9 * SWEEP, 90)
    sides = {game.position.side for game in games}
    found = []
    for index, game in enumerate(games):
        limits = Limits(depth=3, nodes=2000) if index % 5 == 0 else Limits(depth=2, nodes=600)
        trouble = difference(game, limits)
        if trouble:
            found.append(f"{index}: {trouble}")
    assert not found, f"{len(found)} of {len(games)} differ:\n" + "\n".join(found[:5])
    assert len(games) >= 100 * SWEEP and sides == {0, 1}, len(games)


def test_the_player_agrees_where_pawns_promote() -> None:
    """Positions where the side to move may promote (of both sides, some in check), deeper."""
    games = [game for game in random_games(4802, 24 * SWEEP, 120) if promotions(game)]
    found = []
    for index, game in enumerate(games[: 10 * SWEEP]):
        trouble = difference(game, Limits(depth=3, nodes=4000))
        if trouble:
            found.append(f"{index}: {trouble}")
    assert not found, "\n".join(found[:5])
    assert len(games) >= 8 and {game.position.side for game in games} == {0, 1}


def test_the_fifty_move_line_with_pawns() -> None:
    """Near a hundred quiet plies a pawn's move, like a capture, starts the count again: the
    draws in the tree fall where Python's do."""
    games = random_games(4804, 3, 40)
    found = []
    for index, game in enumerate(games[:8]):
        for quiet in (97, 99):
            late = Game(game.position.copy(), quiet_plies=quiet)
            trouble = difference(late, Limits(depth=3, nodes=2000))
            if trouble:
                found.append(f"{index} at {quiet}: {trouble}")
    assert not found, "\n".join(found[:5])


def test_the_player_agrees_on_the_hand_made_positions() -> None:
    """The reference's positions (pawn captures in every direction, promotions by step and by
    capture, checks by pawns and by promoted pieces, pins) and their mirrors, depth 3."""
    found = []
    for name, (pieces, side, _) in HAND_POSITIONS.items():
        reference = position_from(pieces, side)
        for form, position in (("", reference), (" mirrored", mirrored(reference))):
            trouble = difference(from_reference(position), Limits(depth=3, nodes=8000))
            if trouble:
                found.append(f"{name}{form}: {trouble}")
    assert not found, "\n".join(found[:5])


def test_the_evaluation_is_pythons() -> None:
    """The core's material (pawn advance included) and evaluation equal Python's."""
    for index, game in enumerate(random_games(4803, 8 * SWEEP, 100)):
        game.position.order_pieces()
        searcher = Searcher(game, Limits(), TranspositionTable(0))
        compiled = CompiledSearcher(game, Limits(), 1)
        python = evaluate(
            searcher.position, searcher.tables, searcher.material, searcher.army, searcher.draw
        )
        assert compiled.core.material == searcher.material, index
        assert compiled.core.evaluate() == python, index


def test_the_engine_plays_raumschach_with_the_core(tmp_path: Path) -> None:
    """Through the real engine: `new_game 5 raumschach` at depth 3, the compiled player and
    `[search] compiled = false` log the same two searches (move, score, pv). Not the count of
    positions: the two tables differ in slots (32 bytes an entry compiled, 160 in Python), so
    which entries are replaced, and so the counts, may too (with Raumschach's placement at 8
    they differed by 73 of 13,300); the in-process tests hold them equal at equal slots."""
    config = tmp_path / "python.toml"
    config.write_text("[search]\ncompiled = false\n", encoding="utf-8")
    searches = []
    for name, options in (("compiled", ()), ("python", ("--config", str(config)))):
        log_dir = tmp_path / name
        engine = Engine(log_dir, *options)
        try:
            for line in ("new_game 5 raumschach", "level depth 3", "genmove", "genmove"):
                assert engine.ask(line).startswith(b"="), line
            assert engine.ask("quit") == b"= \n\n"
        finally:
            engine.kill()
        found = [event for event in read_json_log(log_dir) if event["event"] == "search"]
        searches.append(
            [{key: event[key] for key in ("move", "score_cp", "pv")} for event in found]
        )
    assert len(searches[0]) == 2 and searches[0] == searches[1]


# --- the mate searches ---------------------------------------------------------------------

#: Positions the mate searches may count: every question here settles long before.
PLENTY = 10**9
#: Helpmate lines kept at most.
LIMIT = 1000

Cell = tuple[int, int, int]


def mate_position(rng: random.Random, side: int) -> Position | None:
    """A seeded position built for short mates: black's king on rank 5 of level D or E, white's
    pawns one step from promoting, one to three white pieces on the upper levels, up to two
    black pieces; turned through the centre (colours swapped) when black is to attack. None
    when the draw is no legal position with a move."""
    pieces: dict[Cell, str] = {}

    def put(cell: Cell, letter: str) -> None:
        pieces.setdefault(cell, letter)

    def anywhere(lowest: int = 0) -> Cell:
        return (rng.randrange(5), rng.randrange(5), rng.randrange(lowest, 5))

    put((rng.choice((0, 1, 3, 4)), 4, rng.choice((3, 4))), "k")
    put((rng.randrange(5), rng.randrange(5), rng.randrange(3)), "K")
    for _ in range(rng.randint(1, 3)):
        x = rng.randrange(5)
        put(rng.choice(((x, 3, 4), (x, 4, 3), (x, 3, 3))), "P")
    for _ in range(rng.randint(1, 3)):
        put(anywhere(2), rng.choice("QRRBUN"))
    for _ in range(rng.randint(0, 2)):
        put(anywhere(), rng.choice("rbunp"))
    if any(
        letter in "Pp" and impossible_pawn(RAUMSCHACH, 5, cell, letter == "P")
        for cell, letter in pieces.items()
    ):
        return None
    position = Position.empty(5, RAUMSCHACH)
    for (x, y, z), letter in pieces.items():
        if side == 1:
            x, y, z, letter = 4 - x, 4 - y, 4 - z, letter.swapcase()
        position.cells[position.geometry.get_point_from_cell(x, y, z)] = letter
    position = Position(5, position.cells, side, RAUMSCHACH)
    try:
        analysis = check_position(position)
    except InvalidPosition:
        return None
    return position if analysis.has_legal_move() else None


def mate_positions(seed: int, count: int) -> list[Position]:
    """`count` seeded positions of mate_position, white and black attacking in turn."""
    rng = random.Random(seed)
    found: list[Position] = []
    while len(found) < count:
        position = mate_position(rng, len(found) % 2)
        if position is not None:
            found.append(position)
    return found


def keys(position: Position, depth: int, compiled: bool) -> list[tuple[object, ...]]:
    search = ProofNumberSearch(Budget(PLENTY), compiled=compiled)
    assert (search.core is not None) == compiled
    return sorted(tuple(key) for key in search.keys(position, depth))


def test_the_mate_search_agrees() -> None:
    """The keys of mate in 1 and 2 (the first depth that has any), compiled and Python, on
    some 160 seeded positions; mates of both sides found, promotions among the keys."""
    found = []
    mates = promoting = 0
    sides = set()
    positions = mate_positions(4810, 160 * SWEEP)
    for index, position in enumerate(positions):
        before = "".join(position.cells)
        for depth in (1, 2):
            compiled, python = keys(position, depth, True), keys(position, depth, False)
            if compiled != python:
                found.append(f"{index} mate in {depth}: compiled {compiled}, python {python}")
            if python:
                mates += 1
                sides.add(position.side)
                promoting += any(key[4] != EMPTY for key in python)
                break
        assert "".join(position.cells) == before
    assert not found, "\n".join(found[:5])
    assert mates >= 20 and promoting >= 10 and sides == {0, 1}, (mates, promoting, sides)


def test_an_under_promotion_that_mates_beside_a_checking_one() -> None:
    """Black's pawn on b2(I) mates in 2 by becoming a knight on b1(I), where other promotions
    check: both searches name that key (the Python one had dropped every promotion of a cell
    where one checks)."""
    rows = "#" * 26 + "k" + "#" * 65 + "q" + "#" * 23 + "p" + "#" * 7 + "K"
    position = Position.from_rows(5, [rows[i : i + 5] for i in range(0, 125, 5)], 1, RAUMSCHACH)
    knight = Move("p", 192, 183, EMPTY, "n")
    assert position.cells[192] == "p" and position.cells[183] == EMPTY
    for compiled in (True, False):
        found = keys(position, 2, compiled)
        assert knight in found, (compiled, found)


def helpmate_lines(position: Position, moves: int, compiled: bool) -> list[Line] | str:
    """Every line of the helpmate in `moves`, sorted, or a word for more than LIMIT of them."""
    search = HelpmateSearch(Budget(PLENTY), LIMIT, compiled=compiled)
    assert (search.core is not None) == compiled
    try:
        return sorted(search.solutions(position, moves))
    except TooManySolutions:
        return "more than the limit"


def test_the_helpmate_agrees() -> None:
    """Every line of helpmates in 1 and 2 (or both past the limit), compiled and Python, the
    side to be mated to move first; lines found, some with promotions."""
    differences = []
    solved = promoting = 0
    for index, position in enumerate(mate_positions(4811, 40 * SWEEP)):
        mated = Position(5, list(position.cells), 1 - position.side, RAUMSCHACH)
        try:
            check_position(mated)
        except InvalidPosition:
            continue
        for moves in (1, 2) if index % 16 == 0 else (1,):
            compiled, python = (helpmate_lines(mated, moves, flag) for flag in (True, False))
            if compiled != python:
                differences.append(f"{index} in {moves}: {compiled[:3]} against {python[:3]}")
            if isinstance(python, list) and python:
                solved += 1
                promoting += any(move.promotion != EMPTY for line in python for move in line)
                break
    assert not differences, "\n".join(differences[:5])
    assert solved >= 5 and promoting >= 2, (solved, promoting)


def test_one_core_keeps_the_variants_apart() -> None:
    """The same pieces under the cube's rules and Raumschach's (whose bishops move otherwise)
    have other keys of mate in 2; one search, its core and table kept between questions,
    asked of each in turn answers each as a fresh search does."""
    rows = "#" * 17 + "Q####k" + "#" * 31 + "K" + "#" * 13 + "B" + "#" * 42 + "b######B######"
    positions = [
        Position.from_rows(5, [rows[i : i + 5] for i in range(0, 125, 5)], 0, variant)
        for variant in (CUBE, RAUMSCHACH)
    ]
    fresh = [keys(position, 2, compiled=False) for position in positions]
    assert fresh[0] and fresh[1] and fresh[0] != fresh[1]
    shared = ProofNumberSearch(Budget(PLENTY))
    for index in (0, 1, 0, 1):
        assert sorted(tuple(key) for key in shared.keys(positions[index], 2)) == fresh[index]


def test_the_engine_solves_raumschach_with_the_core(tmp_path: Path) -> None:
    """Through the real engine: `mate_in 2`, `mate_search 2` and `helpmate 2` on the
    under-promotion's position (black to move, and white to be mated) answer the same with
    the compiled searches and with `[search] compiled = false`, the knight's promotion the key."""
    rows = "#" * 26 + "k" + "#" * 65 + "q" + "#" * 23 + "p" + "#" * 7 + "K"
    board = "],[".join(
        ",".join(rows[level * 25 + rank * 5 : level * 25 + rank * 5 + 5] for rank in range(5))
        for level in range(5)
    )
    config = tmp_path / "python.toml"
    config.write_text("[search]\ncompiled = false\n", encoding="utf-8")
    answers = []
    for name, options in (("compiled", ()), ("python", ("--config", str(config)))):
        engine = Engine(tmp_path / name, *options)
        try:
            replies = [
                engine.ask(line)
                for line in (
                    "new_game 5 raumschach",
                    f"set_board [{board}] b",
                    "mate_in 2",
                    "mate_search 2",
                    f"set_board [{board}] w",
                    "helpmate 2",
                )
            ]
            assert engine.ask("quit") == b"= \n\n"
        finally:
            engine.kill()
        assert all(reply.startswith(b"=") for reply in replies), replies
        answers.append(replies)
    assert answers[0] == answers[1]
    assert answers[0][2] == b"= pb2(I)-b1(I)=n\n\n"
    assert answers[0][5].startswith(b"= 14\n") and b"=n" in answers[0][5]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({0: [[]] * 7}, "slides of 8 kinds"),
        ({0: [[]] * 5 + [[(1, 0, 0)]] + [[]] * 2}, "do not slide"),  # a sliding knight
        ({0: [[]] * 3 + [[(2, 0, 0)]] + [[]] * 4}, "a step of slides out of range"),
        ({1: [(0, 1, 0)] * 7}, "more than 6 pushes"),
        ({3: [1]}, "a pawn becomes"),  # a king
        ({4: [3]}, "an axis is 0, 1 or 2"),
    ],
)
def test_bad_rules_are_refused(change: dict[int, object], message: str) -> None:
    """Rules no variant has are refused, naming the fault; the core answers the next call."""
    rules = core_rules(RAUMSCHACH)
    assert rules is not None
    bad = tuple(change.get(index, part) for index, part in enumerate(rules))
    position = start_position(5, RAUMSCHACH)
    core = MateCore(100)
    with pytest.raises(ValueError, match=message):
        core.keys(5, core_pieces(position), 0, 1, Budget(PLENTY).spend, PLENTY, bad)
    assert core.keys(5, core_pieces(position), 0, 1, Budget(PLENTY).spend, PLENTY, rules) == []
    # The cube's rules know no pawns: Raumschach's army is refused under them.
    with pytest.raises(ValueError, match="bad piece"):
        core.keys(5, core_pieces(position), 0, 1, Budget(PLENTY).spend, PLENTY)


def test_the_player_searches_raumschach_in_the_core(monkeypatch: pytest.MonkeyPatch) -> None:
    """genmove's Player hands a Raumschach game to the compiled searcher (and, asked for
    Python, to the Python one), with the same move and score at a fixed depth."""
    made: list[bool] = []

    class Counted(CompiledSearcher):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            made.append(True)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(player, "CompiledSearcher", Counted)
    game = Game(start_position(5, RAUMSCHACH))
    compiled = player.Player(1).choose(game, Limits(depth=3))
    python = player.Player(1, compiled=False).choose(game, Limits(depth=3))
    assert made == [True]
    # Their tables differ in size (the core's entries are smaller), so only the answer is
    # the same here, not the count of positions.
    assert compiled.move == python.move and compiled.result.score == python.result.score
