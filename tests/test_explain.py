"""`explain` on the reference cases: the verdict, every flight cell and what closes it."""

from __future__ import annotations

import random
import re

import pytest

from kernel.config import EngineConfig
from kernel.kernel import Kernel
from tests.cases import REFERENCE_CASES, ReferenceCase
from tests.positions import random_position


def explain(board: str) -> list[str]:
    kernel = Kernel(EngineConfig())
    assert kernel.execute("set_board", [board]).ok
    reply = kernel.execute("explain", [])
    assert reply.ok
    lines = reply.text.split("\n")
    assert "" not in lines
    return lines


def neighbours(lines: list[str]) -> dict[str, str]:
    """Map each flight cell named in the explanation to what the line says of it."""
    found = {}
    for line in lines:
        match = re.match(r"flight (\S+?)(?: \(capture of \S+\))?: (.*)", line)
        if match:
            assert match.group(1) not in found, f"flight {match.group(1)} named twice"
            found[match.group(1)] = match.group(2)
    return found


CASE_IDS = [f"case{case.number}" for case in REFERENCE_CASES]


@pytest.mark.parametrize("case", REFERENCE_CASES, ids=CASE_IDS)
def test_explain_gives_the_verdict_of_checkmate(case: ReferenceCase) -> None:
    number, _, board, mated, _ = case
    lines = explain(board)
    expected = "checkmate:" if mated else "not checkmate:"
    assert lines[0].startswith(expected), (number, lines[0])
    if not mated and number != 5:
        assert lines[-1].startswith("saving move: "), lines


def test_case_1_names_every_flight_and_its_guard_as_rules_md_does() -> None:
    flights = neighbours(explain(REFERENCE_CASES[0].board))
    assert flights == {
        "b1(I)": "own piece Rb1(I) stands there",
        "c2(I)": "guarded by bb3(II)",
        "b2(I)": "guarded by na2(III)",
        "c1(II)": "guarded by rc1(III)",
        "b1(II)": "guarded by rb1(III)",
        "c2(II)": "guarded by na2(III)",
        "b2(II)": "guarded by ba1(I)",
    }


def test_case_1_says_why_capture_and_block_fail() -> None:
    lines = explain(REFERENCE_CASES[0].board)
    assert "check from rc1(III) (rook, straight through the levels)" in lines
    assert "capture of rc1(III): no white piece can reach it" in lines
    assert "block on c1(II): no white piece can reach it" in lines


@pytest.mark.parametrize("case", REFERENCE_CASES, ids=CASE_IDS)
def test_every_neighbour_of_the_king_is_accounted_for(case: ReferenceCase) -> None:
    number, size, board, mated, _ = case
    lines = explain(board)
    if number == 5:
        assert lines == [
            "not checkmate: the white king on b1(I) is not in check",
            "stalemate: white has no legal move",
        ]
        return
    king = re.search(r"white king on (\S+) is in check", lines[0])
    assert king is not None
    flights = neighbours(lines)
    letters = "abcdefgh"
    name = king.group(1)
    x, y, z = letters.index(name[0]), int(name[1]) - 1, name.count("I") - 1
    expected = {
        f"{letters[x + dx]}{y + dy + 1}({'I' * (z + dz + 1)})"
        for dx in (-1, 0, 1)
        for dy in (-1, 0, 1)
        for dz in (-1, 0, 1)
        if (dx, dy, dz) != (0, 0, 0)
        and 0 <= x + dx < size
        and 0 <= y + dy < size
        and 0 <= z + dz < size
    }
    assert set(flights) == expected, number
    if mated:
        assert not any("free" in reason for reason in flights.values())


def test_case_2_the_knight_captures_the_queen() -> None:
    lines = explain(REFERENCE_CASES[1].board)
    assert "capture of qb3(I): Nb1(II) can do it" in lines
    assert lines[-1] == "saving move: Nb1(II)xb3(I) (captures the checking queen)"


def test_case_3_the_bishop_blocks() -> None:
    lines = explain(REFERENCE_CASES[2].board)
    assert "block on b2(II): Bc1(I) can do it" in lines
    assert lines[-1] == "saving move: Bc1(I)-b2(II) (blocks the line of the check on b2(II))"


def test_case_4_double_check() -> None:
    lines = explain(REFERENCE_CASES[3].board)
    assert "check from qb3(III) (queen, along a flat diagonal)" in lines
    assert "check from nd1(II) (knight, a leap)" in lines
    assert "double check: no capture or block can answer both checkers" in lines


def test_case_6_the_queen_is_blocked_by_her_own_knight() -> None:
    lines = explain(REFERENCE_CASES[5].board)
    assert "block on b1(III): Qb1(I) is blocked by Nb1(II)" in lines


def test_case_7_the_knight_is_pinned() -> None:
    lines = explain(REFERENCE_CASES[6].board)
    assert "capture of qc1(III): Nb1(I) is pinned by ra1(I)" in lines


def test_case_9_the_capturing_king_would_be_guarded() -> None:
    flights = neighbours(explain(REFERENCE_CASES[8].board))
    assert flights["b2(II)"] == "guarded by ra2(II)"


def test_case_10_the_king_escapes_by_capture() -> None:
    lines = explain(REFERENCE_CASES[9].board)
    assert "flight c1(I) (capture of nc1(I)): free, the king can go there" in lines
    assert lines[-1] == (
        "saving move: Kb1(I)xc1(I) (the king takes the knight, and no piece guards it)"
    )


def test_a_guard_through_the_kings_cell_is_marked() -> None:
    # The rook on a1(I) checks along rank 1; b1(I)'s neighbour c1(I) lies behind the king.
    lines = explain("[k##,###,###],[###,###,###],[###,###,rK#]")
    assert "flight c1(I): guarded by ra1(I) (through the king's cell)" in lines


def test_not_in_check_names_a_move() -> None:
    lines = explain("[k##,###,###],[###,###,###],[###,###,#K#]")
    assert lines[0] == "not checkmate: the white king on b1(I) is not in check"
    assert lines[1].startswith("white can play, for example, Kb1(I)")


def test_the_king_capturing_its_checker_is_weighed() -> None:
    assert "capture of qb2(II): the king can take it" in explain(REFERENCE_CASES[7].board)
    assert "capture of qb2(II): the king would be guarded there by ra2(II)" in explain(
        REFERENCE_CASES[8].board
    )


def test_explain_agrees_with_the_verdicts_on_random_positions() -> None:
    rng = random.Random(11)
    kernel = Kernel(EngineConfig())
    for _ in range(1500):
        size = rng.randrange(2, 9)
        assert kernel.execute("set_board", [random_position(rng, size)]).ok
        status = kernel.execute("status", []).text
        moves = kernel.execute("legal_moves", []).text.split()
        lines = kernel.execute("explain", []).text.split("\n")
        assert "" not in lines
        in_check = status in ("check", "checkmate")
        assert lines[0].startswith("checkmate:" if status == "checkmate" else "not checkmate:")
        assert lines[0].endswith("is in check" if in_check else "is not in check")
        if status == "stalemate":
            assert lines[1] == "stalemate: white has no legal move"
        if status in ("check", "normal"):
            move = lines[-1].split()[5 if status == "normal" else 2]
            assert move in moves, (lines, moves)
        if in_check:
            checkers = kernel.execute("checkers", []).text.split()
            named = {line.split()[2] for line in lines if line.startswith("check from")}
            assert named == set(checkers)
            flights = [line for line in lines if line.startswith("flight ")]
            free = [line for line in flights if line.endswith("free, the king can go there")]
            king_moves = [move for move in moves if move.startswith("K")]
            assert len(free) == len(king_moves), (lines, moves)
