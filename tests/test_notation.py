"""Board text in and out: every accepted form of set_board, every refusal, and showboard."""

from __future__ import annotations

import pytest

from kernel.config import EngineConfig
from kernel.kernel import Kernel

CASE_1 = "[###,n##,#rr],[#b#,###,###],[###,###,bRK]"
SMALL = "[Bq,##],[Bn,KQ]"


@pytest.fixture
def kernel() -> Kernel:
    return Kernel(EngineConfig())


def answer(kernel: Kernel, name: str, *args: str) -> tuple[bool, str]:
    reply = kernel.execute(name, list(args))
    return reply.ok, reply.text


@pytest.mark.parametrize(
    "words, canonical",
    [
        ([CASE_1], CASE_1),
        (["3", CASE_1], CASE_1),
        (["n=3", CASE_1], CASE_1),
        (["n", "=", "3,", CASE_1], CASE_1),
        (["n=3,", CASE_1], CASE_1),
        (["[###,", "n##,", "#rr],", "[#b#,###,###],", "[###,###,bRK]"], CASE_1),
        (['["###","n##","#rr"],["#b#","###","###"],["###","###","bRK"]'], CASE_1),
        (["'###','n##','#rr'", "'#b#','###','###'", "'###','###','bRK'"], CASE_1),
        ([f"[{CASE_1}]"], CASE_1),
        (["[...,n..,.rr],[.b.,...,...],[...,...,bRK]"], CASE_1),
        (["[[Bq]", "[##]]", "[[Bn]", "[KQ]]"], SMALL),
        (["n", "=", "2,", "[[Bq]", "[##]]", "[[Bn]", "[KQ]]"], SMALL),
        (["Bq", "##", "Bn", "KQ"], SMALL),
        (["2", "[Bq,##]", "[Bn,KQ]"], SMALL),
    ],
)
def test_every_accepted_form_reads_back_canonical(
    kernel: Kernel, words: list[str], canonical: str
) -> None:
    assert answer(kernel, "set_board", *words) == (True, "")
    assert answer(kernel, "get_board") == (True, canonical)


@pytest.mark.parametrize(
    "words, message",
    [
        (["4", CASE_1], "invalid board: size 4 does not match rows of 3 cells"),
        (["1", "[K]"], "invalid board: size 1 is outside 2 ... 64"),
        (["65", CASE_1], "invalid board: size 65 is outside 2 ... 64"),
        (["-3", CASE_1], "invalid board: size -3 is outside 2 ... 64"),
        (["[###,n##,#rr],[#b#,###,###],[###,###]"], "expected 9 rows of 3 cells, got 8"),
        (["[###,n##,#rr],[#b#,##,###],[###,###,bRK]"], "row 5 '##' has 2 cells, expected 3"),
        (["[###,n##,#rr],[#b#,###,###],[###,###,bRK#]"], "row 9 'bRK#' has 4 cells"),
        (["[###,n#x,#rr],[#b#,###,###],[###,###,bRK]"], "unknown character 'x' in row 2"),
        (["[###,n#p,#rr],[#b#,###,###],[###,###,bRK]"], "unknown character 'p' in row 2"),
        (["[###,n##,#rr],[#b#,###,###],[###,###,bRK"], "unbalanced brackets"),
        (["[###,n##,#rr]],[#b#,###,###],[###,###,bRK]"], "unbalanced brackets"),
        (["[###,n##,#rr,#b#],[###,###],[###,###,bRK]"], "layer 1 has 4 rows, expected 3"),
        (["[##,##],[##,##]"], "invalid board: no white king"),
        (["[K#,##],[##,K#]"], "invalid board: 2 white kings (a1(I), a2(II))"),
        (["[k#,##],[##,Kk]"], "invalid board: 2 black kings"),
        (["[k#,##],[##,K#]"], "kings stand on neighbouring cells a1(I) and a2(II)"),
        (["[###,###,###],[###,k##,###],[###,###,K##]"], "neighbouring cells a1(I) and a2(II)"),
        (["[k#R,###,###],[###,###,###],[q##,###,K##]"], "both kings are in check"),
        (["3"], "invalid board: no rows given"),
    ],
)
def test_refusals_name_the_problem_and_keep_the_old_position(
    kernel: Kernel, words: list[str], message: str
) -> None:
    assert answer(kernel, "set_board", CASE_1) == (True, "")
    ok, text = answer(kernel, "set_board", *words)
    assert not ok
    assert text.startswith("invalid board: ")
    assert message in text
    assert answer(kernel, "get_board") == (True, CASE_1)


def test_only_black_in_check_is_accepted(kernel: Kernel) -> None:
    # The white rook attacks the black king; white is not in check, so the answer is false.
    assert answer(kernel, "set_board", "[k#R,###,###],[###,###,###],[###,###,K##]") == (True, "")
    assert answer(kernel, "checkmate") == (True, "false")


def test_boardsize_empties_the_board_and_refuses_bad_sizes(kernel: Kernel) -> None:
    assert answer(kernel, "boardsize", "2") == (True, "")
    assert answer(kernel, "get_board") == (True, "[##,##],[##,##]")
    assert answer(kernel, "boardsize", "65") == (False, "unacceptable size")
    assert answer(kernel, "boardsize", "1") == (False, "unacceptable size")
    assert answer(kernel, "boardsize", "two") == (False, "N must be a whole number, got 'two'")
    assert answer(kernel, "get_board") == (True, "[##,##],[##,##]")
    assert answer(kernel, "checkmate") == (False, "no white king on the board")


def test_clear_board_keeps_the_size(kernel: Kernel) -> None:
    answer(kernel, "set_board", CASE_1)
    assert answer(kernel, "clear_board") == (True, "")
    assert answer(kernel, "get_board") == (True, "[###,###,###],[###,###,###],[###,###,###]")


def test_large_boards_round_trip(kernel: Kernel) -> None:
    size = 64
    rows = ["#" * size for _ in range(size * size)]
    rows[-1] = "K" + "#" * (size - 2) + "q"  # a1(I) and the last file of rank 1, level I
    rows[0] = "r" + "#" * (size - 1)  # a64(LXIV)
    text = ",".join("[" + ",".join(rows[i : i + size]) + "]" for i in range(0, len(rows), size))
    assert answer(kernel, "set_board", text) == (True, "")
    assert answer(kernel, "get_board") == (True, text)
    assert answer(kernel, "checkers") == (True, "qbl1(I)")


def test_get_point_from_xy_counts_the_wall(kernel: Kernel) -> None:
    assert answer(kernel, "test_get_point_from_xy", "2", "2", "2") == (True, "114")
    assert answer(kernel, "test_get_point_from_xy", "3", "1") == (True, str(3 + 7))
    assert answer(kernel, "test_get_point_from_xy", "6", "6", "6") == (True, str(6 * (1 + 7 + 49)))
    assert answer(kernel, "test_get_point_from_xy", "7", "0") == (False, "x = 7 is outside 0 ... 6")
    assert answer(kernel, "test_get_point_from_xy", "0", "-1") == (
        False,
        "y = -1 is outside 0 ... 6",
    )
    assert answer(kernel, "test_get_point_from_xy", "a", "1") == (
        False,
        "X must be a whole number, got 'a'",
    )
    ok, text = answer(kernel, "test_get_point_from_xy", "1")
    assert not ok and "usage: test_get_point_from_xy X Y [Z]" in text


def test_showboard_draws_every_layer_top_first_side_by_side(kernel: Kernel) -> None:
    answer(kernel, "set_board", CASE_1)
    assert answer(kernel, "showboard") == (
        True,
        "\n"
        "  level III     level II      level I\n"
        "3 . . .       3 . b .       3 . . .\n"
        "2 n . .       2 . . .       2 . . .\n"
        "1 . r r       1 . . .       1 b R K\n"
        "  a b c         a b c         a b c",
    )


def test_showboard_stacks_layers_that_do_not_fit_in_100_columns(kernel: Kernel) -> None:
    answer(kernel, "boardsize", "30")
    ok, text = answer(kernel, "showboard")
    lines = text.split("\n")[1:]
    assert ok and all(len(line) <= 100 for line in lines)
    assert "" not in lines
    assert lines[0].strip() == "level XXX" and lines[-1].strip().endswith("ad")
    assert sum(1 for line in lines if "level" in line) == 30
    assert lines[1].startswith("30 ") and lines[30].startswith(" 1 ")
