"""Tests of the brute-force reference and the position generator (no kernel needed)."""

from __future__ import annotations

import itertools
import random
import time

import pytest

from tests.cases import REFERENCE_CASES, ReferenceCase
from tests.positions import positions, random_position, random_raw_position
from tests.reference import (
    Cell,
    Position,
    analyse,
    attacks,
    board_from_cells,
    cell_name,
    checkers,
    destinations,
    file_name,
    in_check,
    is_checkmate,
    legal_moves,
    parse_board,
    parse_cell,
    pinned_pieces,
    roman,
    status,
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


def test_generator_fast_on_large_boards() -> None:
    """Build n = 64 boards with 300 pieces quickly (benchmarks need many of them)."""
    rng = random.Random(64)
    start = time.perf_counter()
    boards = [random_position(rng, 64, 300) for _ in range(5)]
    elapsed = time.perf_counter() - start
    assert elapsed < 2.0
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
