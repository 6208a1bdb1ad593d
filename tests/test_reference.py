"""Tests of the brute-force reference and the position generator (no kernel needed)."""

from __future__ import annotations

import itertools
import random

import pytest

from tests.cases import REFERENCE_CASES, ReferenceCase
from tests.perft_table import PERFT_TABLE
from tests.positions import (
    game_position,
    mate_problem,
    noise_game_position,
    positions,
    random_position,
    random_raw_position,
    side_positions,
    swap_colours,
)
from tests.reference import (
    KING_STEPS,
    LARGEST_BOARD,
    REACH,
    Cell,
    IllegalMove,
    Position,
    Refused,
    add,
    analyse,
    attacks,
    board_from_cells,
    board_text,
    cell_name,
    check_solution,
    checkers,
    destinations,
    divide,
    file_name,
    game_error,
    in_check,
    is_checkmate,
    legal_moves,
    mate_in,
    mates_after,
    move_name,
    parse_board,
    parse_cell,
    parse_game,
    parse_side,
    perft,
    pinned_pieces,
    play,
    roman,
    solution,
    status,
    successors,
    to_notation,
    validity_error,
)

# The checkers and, where known, the complete legal moves of each case, reasoned out from
# rules.md (None: too many to list here).
CHECKERS = {
    1: ["rc1(III)"],
    2: ["qb3(I)"],
    3: ["qb3(III)"],
    4: ["nd1(II)", "qb3(III)"],
    5: [],
    6: ["ra1(III)"],
    7: ["qc1(III)"],
    8: ["qb2(II)"],
    9: ["qb2(II)"],
    10: ["qb1(III)"],
}
MOVES: dict[int, list[str] | None] = {
    1: [],
    2: None,
    3: None,
    4: [],
    5: [],
    6: [],
    7: [],
    8: ["Ka1(I)xb2(II)"],
    9: [],
    10: None,
}

# The one saving move of cases 2, 3 and 10, as rules.md explains them.
SAVING_MOVES = {2: "Nb1(II)xb3(I)", 3: "Bc1(I)-b2(II)", 10: "Kb1(I)xc1(I)"}


@pytest.mark.parametrize("case", REFERENCE_CASES, ids=[f"case{c.number}" for c in REFERENCE_CASES])
def test_reference_cases(case: ReferenceCase) -> None:
    """Agree with all ten public reference cases: answer, status, checkers, moves."""
    pos = parse_board(case.board, case.size)
    assert validity_error(pos) is None
    assert is_checkmate(pos) is case.mated
    assert status(pos) == case.status
    assert checkers(pos) == CHECKERS[case.number]
    moves = legal_moves(pos)
    expected_moves = MOVES[case.number]
    if expected_moves is not None:
        assert moves == expected_moves
    if case.number in SAVING_MOVES:
        assert moves == [SAVING_MOVES[case.number]]


def test_names() -> None:
    """Name files spreadsheet style, levels in Roman numerals, cells as file rank (level)."""
    files = [file_name(x) for x in (0, 1, 25, 26, 27, 51, 52, 63, 701, 702)]
    assert " ".join(files) == "a b z aa ab az ba bl zz aaa"
    values = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 14, 19, 40, 44, 49, 50, 59, 64)
    numerals = " ".join(roman(v) for v in values)
    assert numerals == "I II III IV V VI VII VIII IX X XI XIV XIX XL XLIV XLIX L LIX LXIV"
    assert cell_name((2, 0, 0)) == "c1(I)"
    assert cell_name((1, 2, 1)) == "b3(II)"
    assert cell_name((0, 0, 3)) == "a1(IV)"
    assert cell_name((63, 63, 63)) == "bl64(LXIV)"
    for cell in [(0, 0, 0), (26, 3, 63), (701, 9, 48)]:
        assert parse_cell(cell_name(cell)) == cell
    assert parse_cell("c2(2)") == (2, 1, 1)
    with pytest.raises(ValueError):
        roman(0)


def test_parse_rules_example() -> None:
    """Read the worked example of rules.md cell by cell."""
    pos = parse_board("[###,n##,#rr],[#b#,###,###],[###,###,bRK]")
    named = {cell_name(cell): piece for cell, piece in pos.pieces.items()}
    assert pos.n == 3
    assert named == {
        "c1(I)": "K",
        "b1(I)": "R",
        "a1(I)": "b",
        "b3(II)": "b",
        "a2(III)": "n",
        "b1(III)": "r",
        "c1(III)": "r",
    }


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "###,###",
        "[#q,##],[##,K]",
        "[#q,##],[##]",
        "[#x,##],[##,K#]",
        "[#q,##],[##,K#],[##,##]",
        "[#]",
    ],
)
def test_parse_rejects_malformed(bad: str) -> None:
    """Refuse boards whose shape or letters are wrong."""
    with pytest.raises(ValueError):
        parse_board(bad)


def test_parse_size_mismatch() -> None:
    """Refuse a board whose layer count differs from the size asked for."""
    with pytest.raises(ValueError):
        parse_board("[#q,##],[##,K#]", 3)


def test_notation_round_trip() -> None:
    """Write back exactly what was read, for every generated position."""
    for n, board in positions(seed=11, count=300, sizes=(2, 3, 4, 5, 6, 27)):
        pos = parse_board(board, n)
        assert to_notation(n, pos.pieces) == board


def _distance_rule(kind: str, delta: Cell) -> bool:
    """Decide reachability on an empty board by the sorted |d| test of rules.md."""
    a, b, c = sorted(abs(d) for d in delta)
    if c == 0:
        return False
    rook = a == b == 0
    bishop = a == b == c
    return {
        "k": c <= 1,
        "n": (a, b, c) == (0, 1, 2),
        "r": rook,
        "b": bishop,
        "q": rook or bishop or (a == 0 and b == c),
    }[kind]


@pytest.mark.parametrize("kind", "kqrbn")
def test_attacks_on_empty_board_match_distance_rule(kind: str) -> None:
    """On an empty 5-cube, attack exactly the cells the |dx|,|dy|,|dz| test of rules.md gives."""
    n = 5
    cells = list(itertools.product(range(n), range(n), range(n)))
    for origin in cells:
        pos = Position(n, {origin: kind})
        for target in cells:
            delta = (target[0] - origin[0], target[1] - origin[1], target[2] - origin[2])
            assert attacks(pos, origin, target) is _distance_rule(kind, delta), (origin, target)


@pytest.mark.parametrize(("kind", "count"), [("k", 26), ("q", 52), ("r", 12), ("b", 16), ("n", 24)])
def test_move_counts_from_centre(kind: str, count: int) -> None:
    """Reach the textbook number of cells from the centre of an empty 5-cube."""
    pos = Position(5, {(2, 2, 2): kind})
    assert len(destinations(pos, (2, 2, 2))) == count


def test_attacks_agree_with_walking_destinations() -> None:
    """Make the offset test (attacks) and the cell-by-cell walk (destinations) agree."""
    rng = random.Random(3)
    for n, board in positions(seed=5, count=150, sizes=(2, 3, 4, 5)):
        pos = parse_board(board, n)
        cells = list(itertools.product(range(n), range(n), range(n)))
        for origin in rng.sample(sorted(pos.pieces), min(4, len(pos.pieces))):
            reached = set(destinations(pos, origin))
            assert len(reached) == len(destinations(pos, origin))  # no cell twice
            for target in cells:
                assert (target in reached) is attacks(pos, origin, target), (board, origin)


@pytest.mark.parametrize("letter", "KQRBNkqrbn")
def test_reach_table_holds_what_the_walk_reaches(letter: str) -> None:
    """Hold in REACH exactly the offsets the step walk reaches from the corners of the largest cube.

    From the 8 corners every direction has its whole length, so together they reach every
    offset a piece can have on any board the reference takes.
    """
    n = LARGEST_BOARD
    walked: set[Cell] = set()
    ends = (0, n - 1)
    for corner in itertools.product(ends, ends, ends):
        for target in destinations(Position(n, {corner: letter}), corner):
            walked.add((target[0] - corner[0], target[1] - corner[1], target[2] - corner[2]))
    assert set(REACH[letter]) == walked
    for offset, (step, times) in REACH[letter].items():
        assert add((0, 0, 0), step, times) == offset
        assert times == 1 or step in KING_STEPS  # a longer reach is walked cell by cell


def test_reference_refuses_boards_beyond_its_tables() -> None:
    """Refuse a cube larger than the reach tables, rather than miss its long slides."""
    with pytest.raises(ValueError, match="up to n = 64"):
        Position(LARGEST_BOARD + 1, {})


def test_sliders_are_blocked_and_capture_first_piece() -> None:
    """Stop a rook at the first piece on its line, which it may attack, and not beyond."""
    pos = parse_board(board_from_cells(4, {"a1(I)": "R", "b1(I)": "N", "c1(I)": "n"}))
    rook = (0, 0, 0)
    assert attacks(pos, rook, (1, 0, 0))
    assert not attacks(pos, rook, (2, 0, 0))
    assert not attacks(pos, rook, (3, 0, 0))
    assert attacks(pos, rook, (0, 3, 0))
    assert attacks(pos, rook, (0, 0, 3))


def test_knight_jumps_over_pieces() -> None:
    """Let a knight give check over a wall of pieces, and not from a neighbouring cell."""
    walled = parse_board("[###,###,###],[#RR,RRR,RRR],[#n#,RR#,K##]")
    # b3(I) → a1(I) is the knight jump (-1, -2, 0), over the rooks on a2(I) and b2(I).
    assert checkers(walled) == ["nb3(I)"]
    beside = parse_board(board_from_cells(3, {"a1(I)": "K", "b1(I)": "n"}))
    assert checkers(beside) == []


def test_xray_through_king_cell() -> None:
    """Forbid the king to step back along the line of the slider that checks him."""
    pos = parse_board(board_from_cells(4, {"b1(I)": "K", "d1(I)": "r"}))
    moves = legal_moves(pos)
    assert checkers(pos) == ["rd1(I)"]
    assert "Kb1(I)-a1(I)" not in moves  # still on the rook's line once the king stands there
    assert "Kb1(I)-c1(I)" not in moves
    assert "Kb1(I)-b2(I)" in moves
    assert "Kb1(I)-a2(II)" in moves


def test_pinned_piece_only_moves_along_pin() -> None:
    """Let a pinned rook slide along the pin line and capture the pinner, nothing else."""
    pos = parse_board(board_from_cells(4, {"a1(I)": "K", "a2(I)": "R", "a4(I)": "r"}))
    rook_moves = [m for m in legal_moves(pos) if m.startswith("R")]
    assert rook_moves == ["Ra2(I)-a3(I)", "Ra2(I)xa4(I)"]
    assert pinned_pieces(pos) == [(0, 1, 0)]


@pytest.mark.parametrize(
    ("board", "error"),
    [
        ("[##,##],[##,K#]", None),
        ("[##,##],[##,##]", "expected exactly one white king, got 0"),
        ("[##,##],[##,KK]", "expected exactly one white king, got 2"),
        ("[k##,###,###],[###,###,###],[###,###,K#k]", "expected at most one black king, got 2"),
        ("[###,###,###],[###,###,###],[###,###,Kk#]", "kings on neighbouring cells"),
        ("[###,###,###],[###,#k#,###],[###,###,K##]", "kings on neighbouring cells"),
        # Both in check: rook a3(I) checks the king on a1(I), queen c1(I) checks k on c3(I).
        ("[###,###,###],[###,###,###],[r#k,###,K#Q]", "both kings in check"),
        # Only black in check is allowed.
        ("[###,###,###],[###,###,###],[##k,###,K#Q]", None),
    ],
)
def test_validity(board: str, error: str | None) -> None:
    """Refuse exactly the positions the engine must refuse, naming why."""
    assert validity_error(parse_board(board)) == error


def test_status_without_white_king_raises() -> None:
    """Refuse to answer about a board without a white king."""
    pos = parse_board("[##,##],[##,#q]")
    with pytest.raises(ValueError):
        in_check(pos)
    with pytest.raises(ValueError):
        legal_moves(pos)


# ---------------------------------------------------------------- the generator


def test_generator_is_deterministic() -> None:
    """Give the same positions for the same seed, different ones for another seed."""
    first = [random_position(random.Random(42), n) for n in range(2, 9)]
    again = [random_position(random.Random(42), n) for n in range(2, 9)]
    other = [random_position(random.Random(43), n) for n in range(2, 9)]
    assert first == again
    assert first != other


def test_generator_makes_valid_positions() -> None:
    """Make only positions the engine accepts, of the requested size."""
    for n, board in positions(seed=7, count=700, sizes=(2, 3, 4, 5, 6, 7, 8)):
        pos = parse_board(board, n)
        assert validity_error(pos) is None, board


@pytest.mark.parametrize(
    ("n", "count"), [(2, 1), (2, 8), (3, 27), (3, 26), (4, 5), (8, 512), (9, 40), (27, 60)]
)
def test_generator_forced_piece_count(n: int, count: int) -> None:
    """Put exactly the forced number of pieces on the board, even a full one."""
    rng = random.Random(n * 1000 + count)
    for _ in range(10):
        pos = parse_board(random_position(rng, n, count), n)
        assert len(pos.pieces) == count
        assert validity_error(pos) is None


def test_generator_rejects_impossible_counts() -> None:
    """Refuse counts that do not fit the board."""
    with pytest.raises(ValueError):
        random_position(random.Random(0), 2, 9)
    with pytest.raises(ValueError):
        random_position(random.Random(0), 3, 0)
    with pytest.raises(ValueError):
        random_position(random.Random(0), 1)


def test_generator_on_large_boards() -> None:
    """Build n = 64 boards with 300 pieces (benchmarks need many of them); no time is
    asserted here, the benchmarks time what they build."""
    rng = random.Random(64)
    boards = [random_position(rng, 64, 300) for _ in range(5)]
    for board in boards:
        pos = parse_board(board, 64)
        assert len(pos.pieces) == 300
        assert validity_error(pos) is None


def test_generator_mix_is_rich() -> None:
    """Make mates, stalemates, double checks and pins common, not rare accidents."""
    counts = {"checkmate": 0, "stalemate": 0, "check": 0, "normal": 0, "double": 0, "pin": 0}
    for n, board in positions(seed=2024, count=700, sizes=(2, 3, 4, 5, 6, 7, 8)):
        pos = parse_board(board, n)
        result = analyse(pos)
        counts[result.status] += 1
        counts["double"] += len(result.checkers) >= 2
        counts["pin"] += bool(pinned_pieces(pos))
    # Roughly a tenth of 700 at least for each, far above what noise would produce.
    assert counts["checkmate"] >= 100, counts
    assert counts["stalemate"] >= 40, counts
    assert counts["check"] >= 100, counts
    assert counts["normal"] >= 70, counts
    assert counts["double"] >= 70, counts
    assert counts["pin"] >= 70, counts


def test_raw_generator_makes_invalid_positions_too() -> None:
    """Make both acceptable and refusable positions for the validity tests."""
    rng = random.Random(9)
    errors = [validity_error(parse_board(random_raw_position(rng, n))) for n in (2, 3, 4) * 100]
    assert sum(e is None for e in errors) >= 30
    assert sum(e is not None for e in errors) >= 30


# ---------------------------------------------------------------- both sides (rules.md)

#: Reference case 2: white to move, in check; Nb1(II)xb3(I) is the only legal move.
CASE_2 = "[b#b,###,###],[###,###,RNR],[#q#,###,#K#]"
#: The two mate examples of rules.md, black to move.
MATE_1_EXAMPLE = "[rb#,###,nNK],[###,##b,#b#],[###,##k,###]"
MATE_2_EXAMPLE = "[###,#k#,#b#],[##b,###,###],[r##,##K,###]"
#: White mates in 1 four ways; two other queen moves stalemate the black king.
STALEMATE_TRAP = "[###,#K#,##B],[B##,Q##,###],[##k,###,###]"
#: Black mates in 1 on b2(I) because the white queen that could capture there is pinned.
PINNED_DEFENCE = "[##r,#q#,#r#],[##Q,##b,###],[##K,r##,###]"
#: Black mates in 1 by a knight move that uncovers a queen: a double check.
DOUBLE_CHECK = "[q##,kq#,###],[###,n##,###],[Q##,##q,K##]"


def test_side_values_and_game_text() -> None:
    """Read sides as protocol.md writes them and round-trip get_board's ` b`."""
    assert [parse_side(t) for t in ("w", "white", "b", "black")] == ["w", "w", "b", "b"]
    with pytest.raises(ValueError):
        parse_side("B")
    pos = parse_board(MATE_2_EXAMPLE, side="b")
    assert board_text(pos) == MATE_2_EXAMPLE + " b"
    assert parse_game(board_text(pos)) == pos
    assert parse_game(CASE_2) == parse_board(CASE_2)
    assert board_text(parse_board(CASE_2)) == CASE_2


def test_black_to_move_answers_for_black() -> None:
    """Give checkers, moves and status of black when black is to move, in lower case."""
    # The black king on b3(I) is attacked by the white queen on b1(I) through b2(I).
    pos = parse_board(board_from_cells(3, {"a1(III)": "K", "b1(I)": "Q", "b3(I)": "k"}), side="b")
    assert checkers(pos) == ["Qb1(I)"]
    result = analyse(pos)
    assert result.status == "check"
    assert result.legal_moves
    assert all(m.startswith("kb3(I)") for m in result.legal_moves)
    assert "kb3(I)-b2(I)" not in result.legal_moves  # still on the queen's line
    assert "kb3(I)-a3(I)" in result.legal_moves
    # The same board with white to move: white is not in check, and black's check is no matter.
    white = parse_board(board_text(pos).removesuffix(" b"))
    assert checkers(white) == []
    assert all(m[0].isupper() for m in legal_moves(white))


def test_side_without_king_is_never_in_check() -> None:
    """Answer `normal` for black without a king, whatever white attacks."""
    pos = parse_board(board_from_cells(3, {"a1(I)": "K", "c3(III)": "Q", "c3(I)": "r"}), side="b")
    assert checkers(pos) == []
    assert status(pos) == "normal"
    assert pinned_pieces(pos) == []
    assert "rc3(I)-a3(I)" in legal_moves(pos)


def test_swapped_colours_give_the_same_answers() -> None:
    """Answer a colour-swapped, rank-mirrored position exactly as the original, mirrored."""
    for pos in side_positions(seed=8, count=120, sizes=(2, 3, 4, 5)):
        swapped = swap_colours(pos)
        if "K" not in swapped.pieces.values():
            continue  # the reference needs a white king; swap_colours keeps the count honest
        original, mirror = analyse(pos), analyse(swapped)
        assert original.status == mirror.status, board_text(pos)
        assert len(original.checkers) == len(mirror.checkers)
        assert len(original.legal_moves) == len(mirror.legal_moves)
        assert swap_colours(swapped) == pos


def test_game_positions() -> None:
    """Call a position a game position exactly when the side not to move is not in check."""
    assert game_error(parse_board(CASE_2)) is None
    # Case 8 with black to move: white, not to move, stands in check from the queen.
    assert (
        game_error(parse_board("[#q,##],[##,K#]", side="b")) == "the side not to move is in check"
    )
    assert game_error(parse_board("[#q,##],[##,K#]")) is None
    assert game_error(parse_board("[#q,##],[##,##]")) == "no white king on the board"
    with pytest.raises(Refused, match="the side not to move is in check"):
        perft(parse_board("[#q,##],[##,K#]", side="b"), 1)
    with pytest.raises(Refused, match="the side not to move is in check"):
        play(parse_board("[#q,##],[##,K#]", side="b"), "qb2(II)-a2(II)")


# ---------------------------------------------------------------- play


@pytest.mark.parametrize(
    "text",
    ["Nb1(II)xb3(I)", "b1(II)xb3(I)", "Nb1(II)-b3(I)", "Nb1(2)xb3(1)", "b1(2)-b3(I)"],
)
def test_play_lenient_forms(text: str) -> None:
    """Accept the letter left out, `-` for `x` and decimal levels; pass the move to black."""
    after = play(parse_board(CASE_2), text)
    assert after.side == "b"
    assert after.pieces[parse_cell("b3(I)")] == "N"
    assert parse_cell("b1(II)") not in after.pieces
    assert board_text(after) == "[b#b,###,###],[###,###,R#R],[#N#,###,#K#] b"


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Ra1(II)-a2(II)", "king in check"),  # a rook move leaves the queen's check standing
        ("Kb1(I)-b2(I)", "king in check"),  # still on the queen's file
        ("Nb1(II)-b2(II)", "cannot move so"),  # a knight does not step
        ("Ra1(II)xb1(II)", "cannot move so"),  # its own knight stands there
        ("Ra1(II)-a1(II)", "cannot move so"),  # no move at all
        ("Rb1(II)xb3(I)", "letter"),
        ("nb1(II)xb3(I)", "letter"),  # a white knight is written N
        ("qb3(I)-b2(I)", "no piece"),  # black's queen, white to move
        ("a2(I)-a3(I)", "no piece"),  # an empty cell
        ("Nb1(II)xb3(IV)", "syntax"),  # off the 3-cube
        ("Nb1(0)xb3(I)", "syntax"),
        ("Nb1(II)xb3(IIII)", "syntax"),
        ("Nb1(II)b3(I)", "syntax"),
        ("Nb1(II)xb3(I)+", "syntax"),
        ("", "syntax"),
    ],
)
def test_play_refusals(text: str, kind: str) -> None:
    """Refuse an illegal move as `illegal move: ...`, naming the kind, changing nothing."""
    pos = parse_board(CASE_2)
    before = board_text(pos)
    with pytest.raises(IllegalMove) as refused:
        play(pos, text)
    assert refused.value.kind == kind
    assert refused.value.reason.startswith("illegal move: ")
    assert board_text(pos) == before


def test_play_every_legal_move_and_only_those() -> None:
    """Play every legal move by name, and refuse every other move of every piece."""
    for pos in side_positions(seed=21, count=60, sizes=(2, 3, 4), game=True):
        legal = dict(successors(pos))
        for from_cell, piece in pos.pieces.items():
            for to_cell in itertools.product(range(pos.n), range(pos.n), range(pos.n)):
                name = f"{piece}{cell_name(from_cell)}-{cell_name(to_cell)}"
                real = move_name(pos, from_cell, to_cell) if from_cell != to_cell else name
                if real in legal:
                    assert play(pos, name) == legal[real]
                else:
                    with pytest.raises(IllegalMove):
                        play(pos, name)


# ---------------------------------------------------------------- perft


def test_perft_of_case_2() -> None:
    """Count 1 at depth 1 on reference case 2 (rules.md), 1 at depth 0."""
    pos = parse_board(CASE_2)
    assert perft(pos, 0) == 1
    assert perft(pos, 1) == 1
    assert divide(pos, 1) == {"Nb1(II)xb3(I)": 1}
    # After the capture black has every move of its two bishops; depth 2 counts them.
    after = play(pos, "Nb1(II)xb3(I)")
    assert perft(pos, 2) == len(legal_moves(after))
    with pytest.raises(ValueError):
        perft(pos, -1)


def test_perft_sums_its_divide() -> None:
    """Make perft(d) the sum of perft(d - 1) over the legal moves, and perft(1) their number."""
    for pos in side_positions(seed=13, count=40, sizes=(2, 3, 4), game=True):
        assert perft(pos, 1) == len(legal_moves(pos))
        assert perft(pos, 2) == sum(divide(pos, 2).values())
        assert sum(perft(after, 1) for _, after in successors(pos)) == perft(pos, 2)


def test_perft_table_subset() -> None:
    """Recompute the cheap entries of the checked-in perft table with the reference."""
    checked = 0
    for entry in PERFT_TABLE:
        pos = parse_game(entry.board)
        assert validity_error(pos) is None and game_error(pos) is None, entry.name
        for depth, count in enumerate(entry.counts, start=1):
            if depth <= 2 or count <= 15000:
                assert perft(pos, depth) == count, (entry.name, depth)
                checked += 1
    assert checked >= 2 * len(PERFT_TABLE)


def test_perft_table_shape() -> None:
    """Cover sizes 2 to 5, both sides, depths 1 to 4."""
    sizes = {parse_game(e.board).n for e in PERFT_TABLE}
    sides = {parse_game(e.board).side for e in PERFT_TABLE}
    assert sizes == {2, 3, 4, 5}
    assert sides == {"w", "b"}
    assert all(len(e.counts) == 4 for e in PERFT_TABLE)
    assert len({e.name for e in PERFT_TABLE}) == len(PERFT_TABLE)


# ---------------------------------------------------------------- mate in N


def test_mate_examples_of_rules() -> None:
    """Solve the two examples of rules.md: mate in 1, and mate in 2 with no mate in 1."""
    first = parse_board(MATE_1_EXAMPLE, side="b")
    assert mate_in(first, 1) == ["na1(III)-b1(I)"]
    assert "na1(III)-b1(I)" in mate_in(first, 2)  # shorter mates are keys too
    second = parse_board(MATE_2_EXAMPLE, side="b")
    assert mate_in(second, 1) == []
    assert mate_in(second, 2) == ["bb1(III)-a2(II)", "bb1(III)-c2(II)"]
    assert set(mate_in(second, 2)) <= set(mate_in(second, 3))


def test_mate_in_one_is_a_checkmating_move() -> None:
    """Make the keys of mate in 1 exactly the legal moves after which the defender is mated."""
    rng = random.Random(17)
    for i in range(40):
        n = (3, 4)[i % 2]
        pos = mate_problem(rng, n, "wb"[i // 2 % 2], rng.randint(4, 7))  # type: ignore[arg-type]
        expected = [name for name, after in successors(pos) if status(after) == "checkmate"]
        assert mate_in(pos, 1) == expected


def test_stalemate_is_not_mate() -> None:
    """Never count a move that stalemates the defender, at any depth."""
    # The black king on c1(III) has b1(III) and the level below; the queen on a2(II) mates in 1
    # four ways, but Qa2(II)-a2(I) and Qa2(II)-b1(I) take every flight without check.
    pos = parse_board(STALEMATE_TRAP)
    keys = ["Qa2(II)-b2(I)", "Qa2(II)-b2(II)", "Qa2(II)-b3(II)", "Qa2(II)-c2(II)"]
    assert mate_in(pos, 1) == keys
    for trap in ("Qa2(II)-a2(I)", "Qa2(II)-b1(I)"):
        after = play(pos, trap)
        assert status(after) == "stalemate"
        assert not mates_after(after, 1)
        assert not mates_after(after, 2)
    assert set(keys) <= set(mate_in(pos, 2))
    assert not {"Qa2(II)-a2(I)", "Qa2(II)-b1(I)"} & set(mate_in(pos, 2))


def test_key_mates_because_a_defence_is_pinned() -> None:
    """Mate when the one piece that could capture the checker is pinned, and only then."""
    pos = parse_board(PINNED_DEFENCE, side="b")
    assert mate_in(pos, 1) == ["qb2(III)-b2(I)", "qb2(III)xc3(II)", "rc3(III)xc3(II)"]
    after = play(pos, "qb2(III)-b2(I)")
    assert status(after) == "checkmate"
    # Qc3(II) could take the queen on b2(I) but the rook on c3(III) pins it to Kc3(I).
    assert pinned_pieces(after) == [parse_cell("c3(II)")]
    unpinned = Position(after.n, dict(after.pieces), after.side)
    del unpinned.pieces[parse_cell("c3(III)")]
    assert legal_moves(unpinned) == ["Qc3(II)xb2(I)"]


def test_double_check_key() -> None:
    """Mate by a double check that a single capture cannot answer."""
    pos = parse_board(DOUBLE_CHECK, side="b")
    assert "na2(II)-c1(II)" in mate_in(pos, 1)
    after = play(pos, "na2(II)-c1(II)")
    assert checkers(after) == ["nc1(II)", "qa3(III)"]  # the knight, and the queen behind it
    assert status(after) == "checkmate"
    # The white queen could take the queen on a3(III) were it alone.
    single = Position(after.n, dict(after.pieces), after.side)
    del single.pieces[parse_cell("c1(II)")]
    assert "Qa3(I)xa3(III)" in legal_moves(single)


def test_solution_checker_accepts_the_reference_and_rejects_damage() -> None:
    """Accept the reference's own solution; find a missing defence, a bad answer, a false mate."""
    pos = parse_board(MATE_2_EXAMPLE, side="b")
    text = solution(pos, 2)
    assert check_solution(pos, 2, text) == []
    lines = text.split("\n")
    assert lines[0] == "bb1(III)-a2(II)"
    assert lines[1].startswith("  ") and lines[1].endswith(" #")
    damaged = {
        "a key left out": "\n".join(lines[lines.index("bb1(III)-c2(II)") :]),
        "a defence left out": "\n".join(line for line in lines if line != lines[1]),
        "a wrong answer": text.replace(lines[1], lines[1].rsplit(" ", 2)[0] + " ra3(I)-a2(I) #"),
        "a false mate": text.replace("bb1(III)-a2(II)\n", "bb1(III)-a2(II) #\n", 1),
        "bad indentation": text.replace("\n  ", "\n   ", 1),
        "nothing": "",
    }
    for what, bad in damaged.items():
        assert check_solution(pos, 2, bad), what
    first = parse_board(MATE_1_EXAMPLE, side="b")
    assert solution(first, 1) == "na1(III)-b1(I) #"
    assert check_solution(first, 1, "na1(III)-b1(I) #") == []
    assert check_solution(first, 1, "na1(III)-b1(I)")  # the mate must be marked


def test_reference_solutions_check_out() -> None:
    """Make the reference's solutions pass its own checker on seeded mate problems."""
    rng = random.Random(23)
    solved = 0
    for i in range(30):
        pos = mate_problem(rng, 3, "wb"[i % 2], rng.randint(4, 6))  # type: ignore[arg-type]
        text = solution(pos, 2)
        assert check_solution(pos, 2, text) == [], (board_text(pos), text)
        solved += bool(text)
    assert solved >= 5


# ---------------------------------------------------------------- generators for both sides


def test_side_generators() -> None:
    """Make valid positions with the side asked for, and game positions when asked."""
    statuses: dict[str, set[str]] = {"w": set(), "b": set()}
    for pos in side_positions(seed=31, count=400, sizes=(2, 3, 4, 5, 6, 7, 8)):
        assert validity_error(pos) is None, board_text(pos)
        statuses[pos.side].add(status(pos))
    assert statuses["w"] == statuses["b"] == {"checkmate", "stalemate", "check", "normal"}
    for pos in side_positions(seed=32, count=200, sizes=(2, 3, 4, 5, 6, 7, 8), game=True):
        assert validity_error(pos) is None and game_error(pos) is None, board_text(pos)
    rng = random.Random(4)
    assert game_position(rng, 3, "b", 5).side == "b"
    assert len(game_position(rng, 4, "w", 6).pieces) == 6


def test_mate_problems_are_rich() -> None:
    """Make game positions with the piece count asked for, where mates are common."""
    rng = random.Random(41)
    mates = 0
    for i in range(60):
        n = (2, 3, 4)[i % 3]
        side = "b" if n == 2 else "wb"[i // 3 % 2]
        pieces = rng.randint(5, 7)
        pos = mate_problem(rng, n, side, pieces)  # type: ignore[arg-type]
        assert pos.side == side and len(pos.pieces) == pieces
        assert validity_error(pos) is None and game_error(pos) is None
        mates += bool(mate_in(pos, 1))
    assert mates >= 10
    with pytest.raises(ValueError):
        mate_problem(rng, 2, "w", 4)
    with pytest.raises(ValueError):
        mate_problem(rng, 3, "b", 2)


def test_noise_game_positions() -> None:
    """Make valid game positions of the count and side asked for, crowded ones included."""
    rng = random.Random(12)
    for i in range(100):
        n = (2, 3, 4, 5)[i % 4]
        side = "wb"[i // 4 % 2]
        count = rng.randint(1, n**3 // 2)
        pos = noise_game_position(rng, n, side, count)  # type: ignore[arg-type]
        assert (pos.n, pos.side, len(pos.pieces)) == (n, side, count)
        assert validity_error(pos) is None and game_error(pos) is None
    with pytest.raises(ValueError):
        noise_game_position(rng, 2, "w", 9)
