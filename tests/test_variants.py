"""The variants as the engine's user meets them: choosing the rules, setting up and refusing
positions, promotions written and read, the draw rules with pawns, records that say their
variant, and every command of the engine answering on a Raumschach position. The moves
themselves are held to the independent brute force in tests/test_raumschach.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from kernel.cube.directions import offsets_for
from kernel.cube.game import Game
from kernel.cube.position import Position
from kernel.cube.rules import Analysis
from kernel.cube.start import start_position
from kernel.cube.variants import CUBE, RAUMSCHACH, VARIANTS, is_promotion_cell
from tests import raumschach_reference as reference
from tests.conftest import Engine
from tests.test_game import game_engine as game_engine
from tests.test_game import say

#: A Raumschach position, white to move: a white pawn one step from promotion on b4(V) (its
#: promotion cells are rank 5 of level V), a black rook it may take on c5(V), black's king on
#: e5(V) behind it, white's on a1(I).
PROMOTING = (
    "[##r#k,#P###,#####,#####,#####],[#####,#####,#####,#####,#####],"
    "[#####,#####,#####,#####,#####],[#####,#####,#####,#####,#####],"
    "[#####,#####,#####,#####,K####] w"
)
EMPTY_ROW = "#####"
#: White mates by promoting on the black king's rank (found by a seeded search of the brute force).
PROMOTION_MATE = (
    "[kr###,P####,#####,#####,#####],[#R###,#####,#####,#####,#####],"
    "[#####,#####,#####,#####,#####],[#####,#####,#K###,#####,#####],"
    "[#####,#####,#####,#####,#####] w"
)


def board(rows_by_level: dict[int, list[str]], side: str = "w") -> str:
    """Write a 5³ board from a few levels' rows (level number -> rows, rank 5 first)."""
    layers = []
    for level in range(5, 0, -1):
        rows = rows_by_level.get(level, [EMPTY_ROW] * 5)
        layers.append("[" + ",".join(rows) + "]")
    return ",".join(layers) + f" {side}"


@pytest.fixture
def engine(game_engine: Engine) -> Engine:
    """test_game's engine for the module (checked at the end to quit cleanly), set up afresh by
    each test here."""
    return game_engine


def test_the_table_of_variants_names_both_and_the_cube_is_the_default(engine: Engine) -> None:
    assert list(VARIANTS) == ["cube", "raumschach"]
    assert say(engine, "variant cube") == ""
    assert say(engine, "variant") == "cube"
    assert say(engine, "variant raumschach") == ""
    assert say(engine, "variant") == "raumschach"
    # The size it chose is its own, and the start is set: white's army on levels I and II.
    assert say(engine, "get_board").endswith("[#####,#####,#####,PPPPP,RNKNR]")
    assert say(engine, "variant chess") == "? unknown variant 'chess' (known: cube, raumschach)"
    assert say(engine, "variant") == "raumschach"  # a refusal changes nothing
    assert say(engine, "variant CUBE") == ""
    assert say(engine, "variant") == "cube"


def test_the_variant_keeps_to_its_sizes(engine: Engine) -> None:
    assert say(engine, "new_game 5 raumschach") == ""
    before = say(engine, "get_board")
    assert say(engine, "boardsize 4") == (
        "? raumschach is played on a board of size 5 only (`variant cube` for others)"
    )
    assert say(engine, "new_game 6") == (
        "? no game on a board of size 6: raumschach is played on a board of size 5 only"
    )
    assert say(engine, "set_board 3 [###,###,###],[###,###,###],[###,###,K#k]") == (
        "? invalid board: raumschach is played on a board of size 5 only"
    )
    assert say(engine, "get_board") == before
    assert say(engine, "clear_board") == ""
    assert say(engine, "variant") == "raumschach"
    # The cube on a size Raumschach has not: new_game of the cube keeps the size it is given.
    assert say(engine, "new_game 4 cube") == ""
    assert say(engine, "variant") == "cube"


def test_set_board_refuses_what_the_variant_cannot_have(engine: Engine) -> None:
    assert say(engine, "variant cube") == ""
    assert say(engine, "set_board 3 [###,###,#u#],[###,###,###],[k##,###,K##]").startswith(
        "? invalid board: unknown character 'u' in row 3 '#u#': a unicorn is no piece of cube"
    )
    assert say(engine, "variant raumschach") == ""
    refusals = {
        # A white pawn on its promotion cell would have promoted there.
        board(
            {5: ["#P###", EMPTY_ROW, EMPTY_ROW, EMPTY_ROW, "####k"], 1: [EMPTY_ROW] * 4 + ["K####"]}
        ): "? invalid board: a white pawn on b5(V): it would have promoted there",
        # Pawns only move forward: none of white's ever stands on rank 1, none of black's on 5.
        board(
            {
                3: [EMPTY_ROW] * 4 + ["##P##"],
                5: [EMPTY_ROW] * 4 + ["####k"],
                1: [EMPTY_ROW] * 4 + ["K####"],
            }
        ): "? invalid board: a white pawn on c1(III): no pawn of its side ever stands behind its"
        " pawns' start",
        board(
            {
                3: ["##p##", *[EMPTY_ROW] * 4],
                5: [EMPTY_ROW] * 4 + ["####k"],
                1: [EMPTY_ROW] * 4 + ["K####"],
            }
        ): "? invalid board: a black pawn on c5(III): no pawn of its side ever stands behind its"
        " pawns' start",
    }
    for text, refusal in refusals.items():
        assert say(engine, f"set_board {text}") == refusal
    # The same pawns a rank further on are taken.
    assert (
        say(
            engine,
            "set_board "
            + board(
                {
                    3: [EMPTY_ROW] * 3 + ["##P##", EMPTY_ROW],
                    5: [EMPTY_ROW] * 4 + ["####k"],
                    1: [EMPTY_ROW] * 4 + ["K####"],
                }
            ),
        )
        == ""
    )


def test_a_promotion_is_written_once_for_each_choice_and_read_with_it(engine: Engine) -> None:
    assert say(engine, "variant raumschach") == ""
    assert say(engine, f"set_board {PROMOTING}") == ""
    moves = say(engine, "legal_moves").split()
    promotions = [move for move in moves if "=" in move]
    assert promotions == sorted(
        f"Pb4(V){sign}{cell}(V)={letter}"
        for sign, cell in (("-", "b5"), ("x", "c5"))
        for letter in "QRBUN"
    )
    assert say(engine, "play Pb4(V)-b5(V)") == (
        "? illegal move: the pawn promotes on b5(V): write what it becomes (=Q, =R, =B, =U, =N)"
    )
    assert say(engine, "play Pb4(V)-b5(V)=K") == (
        "? illegal move: a pawn cannot become a king (it may become queen, rook, bishop,"
        " unicorn, knight)"
    )
    assert say(engine, "play Ka1(I)-b1(I)=Q").startswith(
        "? illegal move: Ka1(I)-b1(I) is no promotion"
    )
    # Raumschach's spelling of cells, and the choice in either case.
    assert say(engine, "play PEb4xEc5=u") == ""
    assert say(engine, "get_board").startswith("[##U#k,#####,")
    assert say(engine, "undo") == ""
    assert say(engine, "play Pb4(V)xc5(V)=Q") == ""
    assert say(engine, "status") == "check"  # the new queen checks along rank 5
    assert say(engine, "checkers") == "Qc5(V)"


def test_a_pawn_move_starts_the_fifty_move_count_again() -> None:
    position = start_position(5, RAUMSCHACH)
    game = Game(position, quiet_plies=99)
    knight = next(move for move in Analysis(position).legal_moves() if move.piece == "N")
    game.play(knight)
    assert game.quiet_plies == 100
    reply = next(move for move in Analysis(position).legal_moves() if move.piece == "p")
    game.play(reply)
    assert game.quiet_plies == 0
    game.undo()
    assert game.quiet_plies == 100


def test_records_say_their_variant_and_load_as_it(engine: Engine, tmp_path: Path) -> None:
    assert say(engine, "new_game raumschach") == ""
    for move in ("Pa2(II)-a3(II)", "pa4(IV)-a3(IV)", "Nb1(I)-c3(I)"):
        assert say(engine, f"play {move}") == ""
    record = say(engine, "printgame long")
    assert "\nVariant: raumschach\n" in record
    path = tmp_path / "raumschach.txt"
    path.write_text(record.lstrip("\n") + "\n")
    assert say(engine, "variant cube") == ""
    assert say(engine, f"loadgame {path}") == ""
    assert say(engine, "variant") == "raumschach"
    assert say(engine, "printgame long") == record
    # A cube game's record names no variant, as records always did; an unknown one is refused.
    assert say(engine, "new_game 3 cube") == ""
    assert "Variant" not in say(engine, "printgame")
    path.write_text(record.lstrip("\n").replace("raumschach", "xiangqi") + "\n")
    assert "unknown variant 'xiangqi'" in say(engine, f"loadgame {path}")


def test_every_command_answers_on_a_raumschach_game(engine: Engine) -> None:
    assert say(engine, "new_game raumschach") == ""
    assert say(engine, "checkmate") == "false"
    assert say(engine, "status") == "normal"
    assert say(engine, "perft 2") == "3615"
    assert say(engine, "explain").startswith("not checkmate")
    assert say(engine, "result") == "*"
    assert say(engine, "mate_in 1") == ""
    assert say(engine, "helpmate 1") == "0"
    assert say(engine, "selfmate 1") == ""
    assert say(engine, "tb_probe") == (
        "? no table for a position with pawns: tables hold pawnless endings"
    )
    assert say(engine, "level depth 1").startswith("depth 1")
    move = say(engine, "reg_genmove")
    assert move in say(engine, "legal_moves").split()


def test_a_mate_by_promotion_is_found_and_the_brute_force_agrees(engine: Engine) -> None:
    """The pawn takes the rook and becomes a queen: the only mate in one, as the independent
    brute force of tests/raumschach_reference.py finds by playing every legal move."""
    assert say(engine, "variant raumschach") == ""
    assert say(engine, f"set_board {PROMOTION_MATE}") == ""
    assert say(engine, "mate_in 1") == "Pa4(V)xb5(V)=Q"
    assert say(engine, "mate_search 1") == "1 Pa4(V)xb5(V)=Q"
    position = reference.parse_board_text(PROMOTION_MATE)
    mates = [
        reference.move_text(position, move)
        for move in reference.legal_moves(position)
        if reference.status(reference.play(position, move)) == "checkmate"
    ]
    assert mates == ["Pa4(V)xb5(V)=Q"]


def test_the_cube_keeps_its_tables_and_the_variants_their_own() -> None:
    cube = offsets_for(5, CUBE.rules)
    raumschach = offsets_for(5, RAUMSCHACH.rules)
    assert len(cube.moves["B"][0]) == 8 and len(raumschach.moves["B"][0]) == 12
    assert raumschach.moves["U"] == cube.moves["B"]
    assert not cube.pushes and sorted(raumschach.pushes) == ["P", "p"]
    # Pawns attack forward only: a white pawn on c3(III) attacks five cells, none behind it.
    position = Position.empty(5, RAUMSCHACH)
    promotion = [(x, 4, 4) for x in range(5)]
    assert all(is_promotion_cell(RAUMSCHACH, 5, cell, True) for cell in promotion)
    assert not is_promotion_cell(RAUMSCHACH, 5, (0, 4, 3), True)
    assert not is_promotion_cell(CUBE, 5, (0, 4, 4), True)
    assert len(raumschach.captures["P"]) == len(raumschach.captures["p"]) == 5
    assert position.offsets is raumschach


def test_the_search_keeps_each_army_through_promotions_and_captures() -> None:
    """The player's running count of each side's material (king safety and the endgame terms
    read it) stays what counting the board gives, through a promotion and the capture of the
    piece promoted, and back."""
    from kernel.cube.position import WHITE
    from kernel.play.alphabeta import Limits, Searcher, TranspositionTable
    from kernel.play.evaluation import armies
    from kernel.text.notation import parse_board

    text = parse_board(PROMOTING.rsplit(" ", 1)[0], 5)
    game = Game(Position.from_rows(5, text.rows, WHITE, RAUMSCHACH))
    searcher = Searcher(game, Limits(), TranspositionTable(0))
    position = searcher.position
    promotions = [move for move in Analysis(position).legal_moves() if move.promotion != "#"]
    assert len(promotions) == 10
    for promotion in promotions:
        searcher.make(tuple(promotion))  # type: ignore[arg-type]
        assert searcher.army == armies(position, searcher.tables)
        for answer in list(Analysis(position).legal_moves()):
            searcher.make(tuple(answer))  # type: ignore[arg-type]
            assert searcher.army == armies(position, searcher.tables), answer
            searcher.unmake(tuple(answer))  # type: ignore[arg-type]
        searcher.unmake(tuple(promotion))  # type: ignore[arg-type]
        assert searcher.army == armies(position, searcher.tables)
