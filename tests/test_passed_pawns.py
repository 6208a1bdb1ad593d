"""Raumschach's passed pawns (kernel/play/evaluation.py's `passed_pawns`, issue 48).

A pawn is passed when no enemy pawn can ever stand in its way or take it. The evaluation finds
that by geometry (`opposes`: an enemy pawn ahead along both axes pawns advance on, beside it
by at most one file); the reference here finds it from the rules alone, by walking every cell
each pawn's pushes can reach and every capture from them. The two are held to each other on
thousands of seeded pawn sets, the compiled player's evaluation and search to Python's on
positions with passed pawns, and `evaluation.pawn_passed` is followed from the config to
genmove's score through the real engine, compiled and in Python. The term is off by default
(its SPRTs found it no better than none: docs/arena.md), so each check here turns it on at
the weight those SPRTs tried.
"""

from __future__ import annotations

import random
from functools import cache
from pathlib import Path

import pytest

from kernel.compiled import COMPILED
from kernel.cube.game import Game
from kernel.cube.position import Position
from kernel.cube.variants import RAUMSCHACH, impossible_pawn, is_promotion_cell
from kernel.play.alphabeta import Limits, Searcher, TranspositionTable
from kernel.play.alphabeta_core import CompiledSearcher
from kernel.play.evaluation import (
    DEFAULT_WEIGHTS,
    PAWN_PASSED,
    Tables,
    Weights,
    evaluate,
    passed_bonus,
    passed_pawns,
)
from kernel.text.notation import parse_board
from tests.conftest import read_json_log
from tests.sweep import SWEEP
from tests.test_config import run_main
from tests.test_raumschach_core import TABLE_MB, random_games

Cell = tuple[int, int, int]
SIZE = 5

needs_core = pytest.mark.skipif(not COMPILED, reason="the compiled core was not built")
#: The weights with the term on, at the weight its SPRTs tried.
TRIED = Weights(pawn_passed=200)


def inside(cell: Cell) -> bool:
    return all(0 <= part < SIZE for part in cell)


def shifted(cell: Cell, step: tuple[int, ...], sign: int) -> Cell:
    return (cell[0] + sign * step[0], cell[1] + sign * step[1], cell[2] + sign * step[2])


def path(cell: Cell, sign: int) -> set[Cell]:
    """Every cell a pawn on `cell` can reach by its pushes (white's sign 1, black's -1)."""
    reached, frontier = {cell}, [cell]
    while frontier:
        here = frontier.pop()
        for step in RAUMSCHACH.rules.pawn_pushes:
            there = shifted(here, step, sign)
            if inside(there) and there not in reached:
                reached.add(there)
                frontier.append(there)
    return reached


def reference_passed(own: list[Cell], enemies: list[Cell], sign: int) -> list[bool]:
    """For each pawn of a side, whether no enemy pawn can ever stand on its way or take a
    pawn on it, wherever each of the two goes by pushes (the rules alone, no geometry)."""
    enemy_paths = [path(enemy, -sign) for enemy in enemies]
    found = []
    for pawn in own:
        way = path(pawn, sign)
        stopped = False
        for reach in enemy_paths:
            takes = {
                shifted(cell, step, -sign)
                for cell in reach
                for step in RAUMSCHACH.rules.pawn_captures
            }
            if reach & way or takes & way:
                stopped = True
                break
        found.append(not stopped)
    return found


@cache
def pawn_cells(white: bool) -> tuple[Cell, ...]:
    """The cells a pawn of a side may stand on (not behind its start, not promoted)."""
    return tuple(
        (x, y, z)
        for z in range(SIZE)
        for y in range(SIZE)
        for x in range(SIZE)
        if impossible_pawn(RAUMSCHACH, SIZE, (x, y, z), white) is None
        and not is_promotion_cell(RAUMSCHACH, SIZE, (x, y, z), white)
    )


def random_position(rng: random.Random) -> tuple[Position, list[Cell], list[Cell]]:
    """Up to eight pawns a side on random cells, the kings somewhere else, a side to move."""
    taken: set[Cell] = set()
    armies: list[list[Cell]] = []
    for white in (True, False):
        cells = [cell for cell in pawn_cells(white) if cell not in taken]
        chosen = rng.sample(cells, rng.randint(0, 8))
        taken.update(chosen)
        armies.append(chosen)
    free = [
        (x, y, z)
        for z in range(SIZE)
        for y in range(SIZE)
        for x in range(SIZE)
        if (x, y, z) not in taken
    ]
    kings = rng.sample(free, 2)
    empty = Position.empty(SIZE, RAUMSCHACH)
    board = list(empty.cells)
    geometry = empty.geometry
    for letter, places in (("P", armies[0]), ("p", armies[1]), ("K", kings[:1]), ("k", kings[1:])):
        for x, y, z in places:
            board[geometry.get_point_from_cell(x, y, z)] = letter
    return Position(SIZE, board, rng.randint(0, 1), RAUMSCHACH), armies[0], armies[1]


def turned(cell: Cell) -> Cell:
    last = SIZE - 1
    return (last - cell[0], last - cell[1], last - cell[2])


def test_the_bonus_grows_as_the_square_of_the_way_made() -> None:
    """Eight steps from a1(I) to e5(V): a pawn on its start (one or two made) gains little,
    one step from promoting 49/64 of `pawn_passed`. Off by default: no bonus, no term."""
    made = {(0, 1, 0): 1, (2, 1, 1): 2, (2, 2, 2): 4, (0, 4, 3): 7, (4, 3, 4): 7}
    for cell, steps in made.items():
        assert passed_bonus(RAUMSCHACH, SIZE, cell, TRIED) == 200 * steps * steps // 64, cell
    assert PAWN_PASSED == DEFAULT_WEIGHTS.pawn_passed == 0
    assert passed_bonus(RAUMSCHACH, SIZE, (0, 4, 3)) == 0
    position = random_position(random.Random(2))[0]
    assert not Tables(position).passed and Tables(position, TRIED).passed


def test_the_passed_pawns_are_those_the_rules_say() -> None:
    """On thousands of seeded pawn sets the evaluation's passed pawns, by geometry, are those
    the reference finds by walking each pawn's pushes and captures; its term is their
    bonuses, white's less black's."""
    rng = random.Random(4848)
    tables: Tables | None = None
    counted = {True: 0, False: 0}
    for index in range(2000 * SWEEP):
        position, white, black = random_position(rng)
        if tables is None:
            tables = Tables(position, TRIED)
        expected = 0
        for own, enemies, sign in ((white, black, 1), (black, white, -1)):
            for cell, passed in zip(own, reference_passed(own, enemies, sign), strict=True):
                counted[passed] += 1
                if passed:
                    white_cell = cell if sign == 1 else turned(cell)
                    expected += sign * passed_bonus(RAUMSCHACH, SIZE, white_cell, TRIED)
        assert passed_pawns(position, tables) == expected, (index, white, black)
    # Both kinds came up often: the check can fail either way.
    assert min(counted.values()) > 3000 * SWEEP, counted


def test_a_flat_example() -> None:
    """By hand: a black pawn two files off does not stop a white one; one a file off and a
    rank ahead does; one level below and ahead does not (it only goes further down)."""
    tables = Tables(random_position(random.Random(1))[0], TRIED)

    def passed(white: Cell, black: Cell) -> bool:
        position = Position.empty(SIZE, RAUMSCHACH)
        cells = list(position.cells)
        for (x, y, z), letter in ((white, "P"), (black, "p"), ((0, 0, 4), "K"), ((4, 0, 4), "k")):
            cells[position.geometry.get_point_from_cell(x, y, z)] = letter
        term = passed_pawns(Position(SIZE, cells, 0, RAUMSCHACH), tables)
        white_bonus = passed_bonus(RAUMSCHACH, SIZE, white, TRIED)
        black_bonus = passed_bonus(RAUMSCHACH, SIZE, turned(black), TRIED)
        assert term in (white_bonus - black_bonus, 0, white_bonus, -black_bonus), term
        return term in (white_bonus, white_bonus - black_bonus)

    assert passed((2, 1, 1), (4, 3, 3))  # two files off
    assert not passed((2, 1, 1), (3, 2, 1))  # a file off, a rank ahead: it takes on c3(II)
    assert not passed((2, 1, 1), (2, 1, 3))  # the same file and rank, two levels up: in the way
    assert passed((2, 1, 2), (2, 3, 1))  # ahead by rank, behind by level: never meets it
    assert passed((2, 2, 2), (1, 2, 2))  # beside it: neither takes nor stops the other


@needs_core
def test_the_cores_evaluation_is_pythons_with_passed_pawns() -> None:
    """The compiled evaluation equals Python's on seeded positions of pawns and kings, both
    sides to move, with the term on and, every tenth, off (the defaults)."""
    rng = random.Random(4849)
    nonzero = 0
    for index in range(300 * SWEEP):
        position, _, _ = random_position(rng)
        for weights in (TRIED, DEFAULT_WEIGHTS) if index % 10 == 0 else (TRIED,):
            game = Game(position.copy())
            game.position.order_pieces()
            searcher = Searcher(game, Limits(), TranspositionTable(0), weights=weights)
            compiled = CompiledSearcher(game, Limits(), 1, weights=weights)
            python = evaluate(
                searcher.position, searcher.tables, searcher.material, searcher.army, searcher.draw
            )
            assert compiled.core.evaluate() == python, (index, weights.pawn_passed)
            if weights is TRIED:
                nonzero += passed_pawns(searcher.position, searcher.tables) != 0
    assert nonzero > 150 * SWEEP, nonzero


@needs_core
def test_the_player_agrees_where_pawns_are_passed() -> None:
    """The compiled search visits Python's tree (move, score, depth, positions, pv) on
    positions of random games where a pawn is passed, deeper than the other seeded games."""
    games = []
    for game in random_games(4850, 12 * SWEEP, 100):
        tables = Tables(game.position, TRIED)
        if passed_pawns(game.position, tables):
            games.append(game)
    assert len(games) >= 20 * SWEEP, len(games)
    found = []
    for index, game in enumerate(games[: 20 * SWEEP]):
        limits = Limits(depth=3, nodes=3000)
        python, compiled = search(game, limits, False), search(game, limits, True)
        if python != compiled:
            found.append(f"{index}: python {python} != compiled {compiled}")
    assert not found, "\n".join(found[:5])


def search(game: Game, limits: Limits, compiled: bool) -> tuple[object, ...]:
    """Search a copy of a game's position one way, the term on; what it found and cost."""
    history = game.seen
    game = Game(game.position.copy(), quiet_plies=game.quiet_plies)
    game.seen.update(history)  # the repetitions the search must see
    game.position.order_pieces()
    table = TranspositionTable(TABLE_MB)
    searcher = (
        CompiledSearcher(game, limits, table.mask + 1, weights=TRIED)
        if compiled
        else Searcher(game, limits, table, weights=TRIED)
    )
    result = searcher.search()
    return (result.move, result.score, result.depth, result.nodes, result.pv)


#: White: king a1(I), pawns b2(II) (passed: the black pawn is two files off) and d2(II);
#: black: king e5(V), pawn d4(IV) (in the d-pawn's way, so neither is passed), rook a5(V).
PASSED_ONE = (
    "[r###k,#####,#####,#####,#####],[#####,###p#,#####,#####,#####],[#####,#####,#####,#####,"
    "#####],[#####,#####,#####,#P#P#,#####],[#####,#####,#####,#####,K####]"
)


def in_process_score(weight: int) -> int:
    """The score Python's search finds at depth 2 on PASSED_ONE with `pawn_passed` at
    `weight`, white to move."""
    board = parse_board(PASSED_ONE, SIZE)
    position = Position.from_rows(board.size, board.rows, 0, RAUMSCHACH)
    tables = Tables(position, Weights(pawn_passed=weight))
    assert passed_pawns(position, tables) == weight * 4 // 64  # b2(II): two steps of eight
    searcher = Searcher(
        Game(position), Limits(depth=2), TranspositionTable(16), weights=Weights(pawn_passed=weight)
    )
    return searcher.search().score


@pytest.mark.parametrize("compiled", ["true", "false"])
def test_pawn_passed_reaches_genmove(tmp_path: Path, compiled: str) -> None:
    """`evaluation.pawn_passed` from the config file to the player's search: genmove's score
    at depth 2 is the one Python's search finds in process with that weight, and each weight
    gives another."""
    scores = {}
    for weight in (0, 200, 600):
        config = tmp_path / f"passed-{weight}.toml"
        config.write_text(
            f"[search]\ncompiled = {compiled}\n[evaluation]\npawn_passed = {weight}\n"
        )
        commands = f"new_game 5 raumschach\nset_board {PASSED_ONE} w\nlevel depth 2\n"
        log = tmp_path / f"log-{weight}"
        result = run_main(
            "--config", str(config), "--log-dir", str(log),
            data=f"{commands}genmove\nquit\n".encode(),
        )  # fmt: skip
        assert result.returncode == 0 and b"?" not in result.stdout, result.stdout
        found = [e for e in read_json_log(log) if e["event"] == "search"]
        assert len(found) == 1, found
        scores[weight] = int(found[0]["score_cp"])
    assert scores == {weight: in_process_score(weight) for weight in scores}
    assert len(set(scores.values())) == 3, scores
