"""The contempt (evaluation.contempt): a draw costs the side the search is for.

A position neither side can mate in (no queen on either side, and on the 4-cube fewer than
three other pieces each), a repetition, the fifty-move rule and a stalemate are worth
`contempt` centipawns against the side the search plays, in both searches; anything else is
scored as before. Checked against a rule written out here, on seeded endings of both sides,
through whole searches of dead endings (whose every leaf is dead, so the score moves by the
contempt exactly), and through the engine process with the config's key.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from kernel.compiled import COMPILED
from kernel.config import EngineConfig
from kernel.cube.game import Game
from kernel.cube.position import WHITE, Position
from kernel.kernel import Kernel
from kernel.play.alphabeta import Limits, Searcher, TranspositionTable
from kernel.play.alphabeta_core import CompiledSearcher
from kernel.play.evaluation import Weights, draw_value, evaluate
from tests.conftest import Engine, ask, read_json_log, set_position
from tests.positions import noise_game_position
from tests.reference import BLACK
from tests.reference import WHITE as REFERENCE_WHITE

CONTEMPT = 100


def can_mate_here(position: Position, side: int) -> bool:
    """The rule written out: a queen, or on the 4-cube three pieces besides the king."""
    letters = [letter for letter in position.pieces[side].values() if letter not in "Kk"]
    if any(letter in "Qq" for letter in letters):
        return True
    return position.size == 4 and len(letters) >= 3


def dead(position: Position) -> bool:
    return position.size >= 4 and not any(can_mate_here(position, side) for side in (0, 1))


@pytest.fixture(scope="module")
def kernel() -> Kernel:
    return Kernel(EngineConfig())


def test_a_dead_position_costs_the_side_searched_for(kernel: Kernel) -> None:
    """Seeded endings of n = 3 ... 7, both sides to move, searched for either side: the
    evaluation moves by the contempt (against the searched side) exactly when no side can
    mate, and the compiled core's evaluation is the same."""
    rng = random.Random(3620)
    shifted = kept = 0
    for i in range(160):
        n = 3 + i % 5
        to_move = REFERENCE_WHITE if i % 2 else BLACK
        set_position(kernel, noise_game_position(rng, n, to_move, rng.randint(2, 7)))
        game = Game(kernel.game.position.copy())
        game.position.order_pieces()
        position = game.position
        searcher = Searcher(game, Limits(), TranspositionTable(0), weights=Weights(contempt=0))
        plain = evaluate(position, searcher.tables, searcher.material, searcher.army)
        for searched_for in (0, 1):
            draw = draw_value(Weights(contempt=CONTEMPT), searched_for)
            assert draw == (-CONTEMPT if searched_for == WHITE else CONTEMPT)
            score = evaluate(position, searcher.tables, searcher.material, searcher.army, draw)
            # The score is the side to move's: a draw for white is the opposite for black.
            expected = plain + (draw if position.side == WHITE else -draw) * dead(position)
            assert score == expected, (board_text_of(position), searched_for)
        if dead(position):
            shifted += 1
        else:
            kept += 1
        if COMPILED:
            core = CompiledSearcher(game, Limits(), 1, weights=Weights(contempt=CONTEMPT)).core
            draw = draw_value(Weights(contempt=CONTEMPT), position.side)
            python = evaluate(position, searcher.tables, searcher.material, searcher.army, draw)
            assert core.evaluate() == python, board_text_of(position)
    assert shifted >= 40 and kept >= 40, (shifted, kept)


def board_text_of(position: Position) -> str:
    return "".join(position.cells) + str(position.side)


#: Dead endings on 5³ and 4³: every line of their trees stays dead (no pawns, no promotion).
DEAD_ENDINGS = [
    "5 [####k,#####,##r##,#####,#####],[#####,#####,#####,#####,#####],"
    "[#####,#####,#####,#####,#####],[#####,#n###,#####,#####,#####],"
    "[#####,#####,#####,#####,K###R]",
    "5 [k####,#####,#####,#####,#####],[#####,##b##,#####,#####,#####],"
    "[#####,#####,#####,#N###,#####],[#####,#####,#####,#####,#####],"
    "[#####,#####,#B###,#####,####K]",
    "4 [k###,####,####,####],[####,#r##,####,####],[####,####,##N#,####],[####,####,####,R##K]",
]


@pytest.mark.parametrize("compiled", [False, True] if COMPILED else [False])
@pytest.mark.parametrize("side", ["w", "b"])
@pytest.mark.parametrize("board", DEAD_ENDINGS)
def test_a_dead_ending_scores_the_contempt_below_itself(
    kernel: Kernel, board: str, side: str, compiled: bool
) -> None:
    """In a dead ending the whole tree is dead, so at every depth the search finds the same
    move and a score lower by the contempt exactly, whichever side it searches for."""
    assert ask(kernel, f"set_board {board} {side}") == ""
    for depth in (1, 2, 3):
        results = []
        for contempt in (0, CONTEMPT):
            game = Game(kernel.game.position.copy())
            game.position.order_pieces()
            weights = Weights(contempt=contempt)
            limits = Limits(depth=depth)
            searcher = (
                CompiledSearcher(game, limits, 1 << 12, None, weights)
                if compiled
                else Searcher(game, limits, TranspositionTable(1), None, weights)
            )
            results.append(searcher.search())
        plain, contemptuous = results
        assert contemptuous.move == plain.move, (board, side, depth)
        assert contemptuous.score == plain.score - CONTEMPT, (board, side, depth)


def test_a_position_a_side_can_mate_in_keeps_its_score(kernel: Kernel) -> None:
    """With a queen on the board nothing is dead: the contempt leaves the score alone."""
    board = DEAD_ENDINGS[0].replace("##r##", "##q##", 1)
    assert ask(kernel, f"set_board {board} w") == ""
    scores = []
    for contempt in (0, CONTEMPT):
        game = Game(kernel.game.position.copy())
        searcher = Searcher(
            game, Limits(depth=1), TranspositionTable(1), None, Weights(contempt=contempt)
        )
        scores.append(searcher.search().score)
    assert scores[0] == scores[1]


def logged_score(tmp_path: Path, name: str, config_text: str, board: str, side: str) -> int:
    """The score genmove logs (its JSON `search` event) in a position, through the process."""
    config = tmp_path / f"{name}.toml"
    config.write_text(config_text, encoding="utf-8")
    log_dir = tmp_path / name
    engine = Engine(log_dir, "--config", str(config))
    try:
        assert engine.ask(f"set_board {board} {side}") == b"= \n\n"
        assert engine.ask("level depth 2").startswith(b"=")
        assert engine.ask("genmove").startswith(b"=")
        assert engine.ask("quit") == b"= \n\n"
    finally:
        engine.kill()
    found = [event for event in read_json_log(log_dir) if event["event"] == "search"]
    assert len(found) == 1, found
    return int(found[0]["score_cp"])


@pytest.mark.parametrize("side", ["w", "b"])
def test_the_config_sets_the_contempt_through_the_process(tmp_path: Path, side: str) -> None:
    """`[evaluation] contempt` reaches genmove in the real engine, compiled and in Python:
    a dead ending is reported the contempt below what it is worth without one."""
    board = DEAD_ENDINGS[0]
    scores = {}
    for compiled in ("true", "false"):
        for contempt in (0, 250):
            text = f"[search]\ncompiled = {compiled}\n[evaluation]\ncontempt = {contempt}\n"
            name = f"{compiled}-{contempt}"
            scores[compiled, contempt] = logged_score(tmp_path, name, text, board, side)
    for compiled in ("true", "false"):
        assert scores[compiled, 250] == scores[compiled, 0] - 250, scores
    assert scores["true", 0] == scores["false", 0], scores
