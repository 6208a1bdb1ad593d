"""The compiled core (kernel/core/*.c) on Raumschach, held to the Python searches.

Raumschach's pawns, promotions, flat-diagonal bishop and unicorn are told to the core as data
(kernel/compiled.py's core_rules). The player (player.c) must search the tree Python's
Searcher searches: at a fixed depth and node limit the same move, score, principal variation
and count of positions, on seeded positions of games played at random from the start (both
sides to move, pawn moves and captures favoured, so that promotions of both sides come up,
some in check) and on the hand-made positions of tests/raumschach_reference.py and their
mirrors; its evaluation and material must be Python's on each. Then the engine itself: at a
fixed depth the compiled and the Python player log the same searches.

`CUBEMATE_SWEEP=K` multiplies the seeded counts by K.
"""

from __future__ import annotations

import random
from pathlib import Path

from kernel.alphabeta import Limits, Searcher, TranspositionTable
from kernel.alphabeta_core import CompiledSearcher
from kernel.board import EMPTY
from kernel.compiled import COMPILED, core_rules, core_takes
from kernel.evaluation import evaluate
from kernel.game import Game
from kernel.position import Position
from kernel.rules import Analysis
from kernel.start import start_position
from kernel.variants import CUBE, RAUMSCHACH
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
    """Some 150 positions of random games, both sides, promotions among them: the same
    search at depth 2 and, every fourth, at depth 3."""
    games = random_games(4801, 12 * SWEEP, 90)
    sides = {game.position.side for game in games}
    found = []
    for index, game in enumerate(games):
        limits = Limits(depth=3, nodes=2000) if index % 4 == 0 else Limits(depth=2, nodes=800)
        trouble = difference(game, limits)
        if trouble:
            found.append(f"{index}: {trouble}")
    assert not found, f"{len(found)} of {len(games)} differ:\n" + "\n".join(found[:5])
    assert len(games) >= 100 * SWEEP and sides == {0, 1}


def test_the_player_agrees_where_pawns_promote() -> None:
    """Positions where the side to move may promote (of both sides, some in check), deeper."""
    games = [game for game in random_games(4802, 24 * SWEEP, 120) if promotions(game)]
    found = []
    for index, game in enumerate(games[: 12 * SWEEP]):
        trouble = difference(game, Limits(depth=3, nodes=6000))
        if trouble:
            found.append(f"{index}: {trouble}")
    assert not found, "\n".join(found[:5])
    assert len(games) >= 8 and {game.position.side for game in games} == {0, 1}


def test_the_fifty_move_line_with_pawns() -> None:
    """Near a hundred quiet plies a pawn's move, like a capture, starts the count again: the
    draws in the tree fall where Python's do."""
    games = random_games(4804, 3, 40)
    found = []
    for index, game in enumerate(games[:12]):
        for quiet in (97, 99):
            late = Game(game.position.copy(), quiet_plies=quiet)
            trouble = difference(late, Limits(depth=3, nodes=3000))
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
    `[search] compiled = false` log the same two searches (move, score, pv, positions)."""
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
            [{key: event[key] for key in ("move", "score_cp", "pv", "nodes")} for event in found]
        )
    assert len(searches[0]) == 2 and searches[0] == searches[1]
