"""Tests of the Raumschach brute force (tests/raumschach_reference.py) against facts counted by
hand from the rules of issue 48; no kernel needed."""

from __future__ import annotations

import pytest

from tests.raumschach_reference import (
    ALL_CELLS,
    ALL_DIRECTIONS,
    BISHOP_DIRECTIONS,
    BLACK,
    HAND_POSITIONS,
    KNIGHT_LEAPS,
    ROOK_DIRECTIONS,
    START_PERFT,
    UNICORN_DIRECTIONS,
    WHITE,
    Cell,
    Position,
    board_text,
    cell_text,
    in_check,
    legal_move_texts,
    legal_moves,
    mirrored,
    other,
    parse_board_text,
    parse_cell_text,
    perft,
    play,
    plus,
    position_from,
    raumschach_cell_text,
    set_board_text,
    start_position,
    status,
)
from tests.sweep import SWEEP

CENTRE = "c3(III)"
CORNER = "a1(I)"
#: A cell on the bottom level's centre: some lines leave it one way only.
FLOOR = "c3(I)"


def targets(
    letter: str, cell: str, others: dict[str, str] | None = None, side: str = WHITE
) -> set[str]:
    """The cells the piece on `cell` moves to, alone but for `others`, no king anywhere."""
    named = {cell: letter, **(others or {})}
    pos = position_from(named, side)
    start = parse_cell_text(cell)
    return {cell_text(to) for frm, to, _ in legal_moves(pos) if frm == start}


def test_directions() -> None:
    """6 rook lines, 12 flat diagonals, 8 triagonals, 26 in all; 24 knight leaps of length √5."""
    assert (len(ROOK_DIRECTIONS), len(BISHOP_DIRECTIONS), len(UNICORN_DIRECTIONS)) == (6, 12, 8)
    assert set(ROOK_DIRECTIONS) | set(BISHOP_DIRECTIONS) | set(UNICORN_DIRECTIONS) == set(
        ALL_DIRECTIONS
    )
    assert len(ALL_DIRECTIONS) == 26
    assert len(KNIGHT_LEAPS) == 24
    assert all(sorted(map(abs, leap)) == [0, 1, 2] for leap in KNIGHT_LEAPS)


# (letter, cell, moves on an empty board), each counted by hand: from the centre every line runs
# two cells each way; from the corner only the lines pointing inwards, four cells each; from
# c3(I) the lines that do not go down.
LONE_PIECES = [
    ("R", CENTRE, 12),
    ("R", CORNER, 12),
    ("B", CENTRE, 24),  # 12 lines × 2
    ("B", CORNER, 12),  # 3 inward flat diagonals × 4
    ("B", FLOOR, 16),  # 4 in its level × 2, 4 upward × 2
    ("U", CENTRE, 16),  # 8 × 2
    ("U", CORNER, 4),  # the one inward triagonal
    ("U", FLOOR, 8),  # 4 upward × 2
    ("Q", CENTRE, 52),
    ("Q", CORNER, 28),  # 7 inward lines × 4
    ("K", CENTRE, 26),
    ("K", CORNER, 7),
    ("N", CENTRE, 24),  # every leap of ±2 and ±1 stays inside from the centre
    ("N", CORNER, 6),  # the 6 orders of (2, 1, 0), all positive
    ("N", FLOOR, 16),  # 24 less the 8 leaps that go down
]


@pytest.mark.parametrize(("letter", "cell", "count"), LONE_PIECES)
def test_lone_piece_moves(letter: str, cell: str, count: int) -> None:
    """A lone piece has the hand-counted number of moves, and black's the same as white's."""
    assert len(targets(letter, cell)) == count
    assert len(targets(letter.lower(), cell, side=BLACK)) == count


def test_queen_is_rook_bishop_unicorn() -> None:
    """On every cell of the empty board the queen reaches what rook, bishop and unicorn do."""
    for cell in ALL_CELLS:
        name = cell_text(cell)
        assert targets("Q", name) == targets("R", name) | targets("B", name) | targets("U", name)


def test_bishop_and_unicorn_lines() -> None:
    """From c3(III) the bishop keeps one coordinate and changes two; the unicorn changes all."""
    assert targets("B", CENTRE) >= {"a1(III)", "e5(III)", "a3(I)", "e3(V)", "c1(I)", "c5(V)"}
    assert targets("B", CENTRE).isdisjoint({"b2(II)", "d4(IV)", "c4(III)"})
    assert targets("U", CENTRE) == {
        cell_text(plus(parse_cell_text(CENTRE), step, k))
        for step in UNICORN_DIRECTIONS
        for k in (1, 2)
    }


def test_pawn_steps() -> None:
    """A pawn steps one cell forward or one level up (black: back, down), never two."""
    assert targets("P", CENTRE) == {"c4(III)", "c3(IV)"}
    assert targets("p", CENTRE, side=BLACK) == {"c2(III)", "c3(II)"}
    assert targets("P", "b2(I)") == {"b3(I)", "b2(II)"}  # no double step from the start
    # Blocked ahead by anyone, it may still go up; blocked both ways it stays.
    assert targets("P", CENTRE, {"c4(III)": "n"}) == {"c3(IV)"}
    assert targets("P", CENTRE, {"c3(IV)": "N"}) == {"c4(III)"}
    assert targets("P", CENTRE, {"c4(III)": "n", "c3(IV)": "N"}) == set()
    # On the last rank of a lower level it only goes up; on level E below rank 5 only forward.
    assert targets("P", "c5(III)") == {"c5(IV)"}
    assert targets("P", "c2(V)") == {"c3(V)"}


def test_pawn_captures_five_cells() -> None:
    """Ringed by enemies on all 26 sides, white's pawn takes on exactly its five capture cells:
    diagonally forward in its level, diagonally up by file, and forward-and-up; black's on the
    five opposite cells."""
    centre = parse_cell_text(CENTRE)
    ring = [plus(centre, step) for step in ALL_DIRECTIONS]
    black_ring = {cell_text(cell): "n" for cell in ring}
    white_ring = {cell_text(cell): "N" for cell in ring}
    assert targets("P", CENTRE, black_ring) == {"b4(III)", "d4(III)", "b3(IV)", "d3(IV)", "c4(IV)"}
    assert targets("p", CENTRE, white_ring, BLACK) == {
        "b2(III)",
        "d2(III)",
        "b3(II)",
        "d3(II)",
        "c2(II)",
    }
    assert targets("P", CENTRE, white_ring) == set()  # never its own side
    # Up a level but back a rank (b2(IV)) is not forward: no capture there (Dickins).
    assert targets("P", CENTRE, {"b2(IV)": "n", "c2(IV)": "n", "b3(II)": "n"}) == {
        "c4(III)",
        "c3(IV)",
    }


def test_pawn_checks() -> None:
    """A pawn checks a king on its five capture cells, and on none of the other 21 around it."""
    expected = {
        WHITE: {"b4(III)", "d4(III)", "b3(IV)", "d3(IV)", "c4(IV)"},
        BLACK: {"b2(III)", "d2(III)", "b3(II)", "d3(II)", "c2(II)"},
    }
    centre = parse_cell_text(CENTRE)
    for side, pawn, king in ((WHITE, "P", "k"), (BLACK, "p", "K")):
        checked = set()
        for step in ALL_DIRECTIONS:
            cell = plus(centre, step)
            if in_check(Position({centre: pawn, cell: king}, side), other(side)):
                checked.add(cell_text(cell))
        assert checked == expected[side]


def test_promotions() -> None:
    """Reaching rank 5 of level E, by a step, a step up or a capture, white's pawn becomes a
    queen, rook, bishop, unicorn or knight: five moves; black's on rank 1 of level A."""
    pos = position_from({"c4(V)": "P", "b5(V)": "r", "d5(V)": "n", "c4(IV)": "n"})
    moves = legal_moves(pos)
    assert len(moves) == 15  # c5(V), takes b5(V), takes d5(V), each five ways
    assert {promotion for _, _, promotion in moves} == set("QRBUN")
    assert "Pc4(V)xb5(V)=U" in legal_move_texts(pos)
    assert sorted(set(play(pos, m).pieces[m[1]] for m in moves)) == sorted("QRBUN")
    assert len(legal_moves(position_from({"c5(IV)": "P", "b5(V)": "n"}))) == 10  # up, takes
    assert len(legal_moves(position_from({"c4(IV)": "P", "c5(V)": "n"}))) == 7  # 2 steps + 5
    black = position_from({"c2(I)": "p", "c1(II)": "N", "b1(I)": "N", "d1(I)": "B"}, BLACK)
    texts = legal_move_texts(black)
    assert len(texts) == 15  # c1(I), takes b1(I), takes d1(I); c1(II) lies behind, upwards
    assert "pc2(I)xc1(II)" not in texts and "pc2(I)xb1(I)=n" in texts
    # Rank 5 of a lower level, or level E below rank 5, promotes nothing.
    assert legal_move_texts(position_from({"c4(IV)": "P"})) == ["Pc4(IV)-c4(V)", "Pc4(IV)-c5(IV)"]


def test_pins() -> None:
    """Pinned pieces move only along the pin: the pawn forward, the bishop and the unicorn along
    their diagonal or onto the pinner, the knight not at all."""
    named, side, _ = HAND_POSITIONS["pins"]
    assert legal_move_texts(position_from(named, side)) == [
        "Bb1(II)-c1(III)",
        "Bb1(II)xd1(IV)",
        "Ka1(I)-a2(II)",
        "Ka1(I)-b1(I)",
        "Ka1(I)-b2(I)",
        "Pa2(I)-a3(I)",
        "Ub2(II)-c3(III)",
        "Ub2(II)xd4(IV)",
    ]


def test_check_by_pawn_position() -> None:
    """In 'pawn checks' only king moves answer the pawn's check; cells the pawns guard (c4(III)
    by b4(IV), d3(III) by c4(III)) are refused."""
    named, side, _ = HAND_POSITIONS["pawn checks"]
    pos = position_from(named, side)
    assert status(pos) == "check"
    moves = legal_move_texts(pos)
    assert all(move.startswith("Kc3(III)") for move in moves)
    assert "Kc3(III)xd4(III)" in moves and "Kc3(III)xb4(IV)" in moves
    assert "Kc3(III)xc4(III)" not in moves and "Kc3(III)-d3(III)" not in moves


def test_start_position() -> None:
    """The start as issue 48 writes it: white's levels A and B, black's D and E, symmetric
    through the centre; 61 moves for either side."""
    start = start_position()
    assert board_text(start) == (
        "[rnknr,ppppp,#####,#####,#####],[ubqub,ppppp,#####,#####,#####],"
        "[#####,#####,#####,#####,#####],"
        "[#####,#####,#####,PPPPP,BUQBU],[#####,#####,#####,PPPPP,RNKNR]"
    )
    assert len(start.pieces) == 40
    assert mirrored(start) == Position(start.pieces, BLACK)
    assert status(start) == "normal"
    moves = legal_move_texts(start)
    assert len(moves) == START_PERFT[0] == 61
    assert "Nb1(I)-c3(I)" in moves and "Pb2(II)-b2(III)" in moves
    assert "Pb2(I)-b2(II)" not in moves  # b2(II) holds a pawn
    assert len(legal_moves(Position(start.pieces, BLACK))) == 61
    assert perft(start, 2) == START_PERFT[1]


@pytest.mark.skipif(SWEEP == 1, reason="some 10 s: with CUBEMATE_SWEEP above 1 (make sweep)")
def test_start_perft_3() -> None:
    """The third count of the start, recomputed."""
    assert perft(start_position(), 3) == START_PERFT[2]


def test_status() -> None:
    """Checkmate, stalemate, check and normal, on small positions worked out by hand."""
    # a1(I)'s seven neighbours: b2(II)'s queen touches them all, c3(III)'s king guards it.
    mate = position_from({"a1(I)": "k", "b2(II)": "Q", "c3(III)": "K"}, BLACK)
    assert status(mate) == "checkmate"
    # The queen on a2(III) holds a2(I), a1(II), a2(II); the king on c1(I) the other four.
    stalemate = position_from({"a1(I)": "k", "a2(III)": "Q", "c1(I)": "K"}, BLACK)
    assert status(stalemate) == "stalemate"
    check = position_from({"a1(I)": "k", "a3(III)": "U", "e5(V)": "K"}, BLACK)
    assert status(check) == "normal"  # a3(III) is no triagonal from a1(I)
    check = position_from({"a1(I)": "k", "c3(III)": "U", "e5(V)": "K"}, BLACK)
    assert status(check) == "check"
    bishop = position_from({"a1(I)": "k", "c1(III)": "B", "e5(V)": "K"}, BLACK)
    assert status(bishop) == "check"  # a flat diagonal through b1(II)


def test_notation() -> None:
    """Cells and moves as the engine writes them; Raumschach's own cell names."""
    assert cell_text((1, 0, 0)) == "b1(I)"
    assert cell_text((4, 4, 4)) == "e5(V)"
    assert raumschach_cell_text((1, 0, 0)) == "Ab1" and raumschach_cell_text((2, 3, 4)) == "Ec4"
    for cell in ALL_CELLS:
        assert parse_cell_text(cell_text(cell)) == cell
    for bad in ("f1(I)", "a6(I)", "a1(VI)", "a1I", "a1(1)", "a", ""):
        with pytest.raises(ValueError):
            parse_cell_text(bad)
    pos = position_from({"b2(II)": "n", "b1(IV)": "R", "e5(V)": "K", "a1(I)": "k"}, BLACK)
    assert "nb2(II)xb1(IV)" in legal_move_texts(pos)


def test_board_text_round_trip() -> None:
    """set_board_text and parse_board_text are inverses, for both sides to move."""
    for named, side, _ in HAND_POSITIONS.values():
        pos = position_from(named, side)
        assert parse_board_text(set_board_text(pos)) == pos
        assert parse_board_text(set_board_text(mirrored(pos))) == mirrored(pos)
    with pytest.raises(ValueError):
        parse_board_text("[#####],[#####]")
    with pytest.raises(ValueError):
        parse_board_text(board_text(start_position()).replace("Q", "X"))


@pytest.mark.parametrize("name", sorted(HAND_POSITIONS))
def test_hand_positions(name: str) -> None:
    """Every hand-made position is a game position (kings apart, the side not to move not in
    check), and it and its mirror count their recorded perft 1 and 2 (3 when cheap)."""
    named, side, counts = HAND_POSITIONS[name]
    pos = position_from(named, side)
    kings: list[Cell] = [cell for cell, letter in pos.pieces.items() if letter in "Kk"]
    assert len(kings) == 2
    assert max(abs(a - b) for a, b in zip(*kings, strict=True)) > 1
    assert not in_check(pos, BLACK if side == WHITE else WHITE)
    deepest = 3 if counts[2] < 10_000 or SWEEP > 1 else 2
    for depth in range(1, deepest + 1):
        assert perft(pos, depth) == counts[depth - 1], depth
        assert perft(mirrored(pos), depth) == counts[depth - 1], depth
