"""Board text in and out: every accepted form of set_board, every refusal, and showboard."""

from __future__ import annotations

import random

import pytest

from kernel.config import ConfigError, EngineConfig, config_from_document
from kernel.kernel import Kernel
from kernel.protocol import Command, parse_command
from kernel.text.notation import canonical_rows, parse_board

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
        # White space inside a row where commas separate the rows is only space.
        (["[#", "q,##],[##,K#]"], "[#q,##],[##,K#]"),
        (["[", "#", "#", "#,", "n", "##,#rr],[#b#,###,###],[###,###,bRK]"], CASE_1),
        # Outer brackets round a plain list of rows, bracketed one by one or not.
        (["[[Bq]", "[##]", "[Bn]", "[KQ]]"], SMALL),
        (["[Bq,##,Bn,KQ]"], SMALL),
        (["[[[Bq],[##]],[[Bn],[KQ]]]"], SMALL),
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
        (["4", CASE_1], "invalid board: size 4 does not match row 1 '###' of 3 cells"),
        (["1", "[K]"], "invalid board: size 1 is outside 2 ... 64"),
        (["65", CASE_1], "invalid board: size 65 is outside 2 ... 64"),
        (["-3", CASE_1], "invalid board: size -3 is outside 2 ... 64"),
        (["[###,n##,#rr],[#b#,###,###],[###,###]"], "layer 3 has 2 rows, expected 3"),
        (["###,n##,#rr,#b#,###,###,###,###"], "expected 9 rows of 3 cells, got 8"),
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
        # Bracket groups are read as what they are; layers are numbered top first.
        (["[##],[rq,##],[K#]"], "bracket group at column 6 straddles layers 1 and 2"),
        (["[rq,##],[],[##,K#]"], "empty brackets at column 9, between layers 1 and 2"),
        (["[],[rq,##],[##,K#]"], "empty brackets at column 1, before layer 1"),
        (["[rq,##],[##,K#],[]"], "empty brackets at column 17, after layer 2"),
        (["[rq,[],##],[##,K#]"], "empty brackets at column 5, inside layer 1"),
        (
            ["[[###]", "[n##]", "[#rr]", "[#b#]]", "[[###]", "[###]]", "[[###]", "[###]", "[bRK]]"],
            "layer 1 has 4 rows, expected 3",
        ),
        (
            ["[[###]", "[n##]", "[#rr]]", "[[#b#]", "[###]]", "[[###]", "[###]", "[###]", "[bRK]]"],
            "layer 2 has 2 rows, expected 3",
        ),
        (
            ["[###,n##,#rr],[#b#,###,###],[###],[###,bRK]"],
            "bracket group at column 35 holds part of layer 3 (it holds rows 8 to 9",
        ),
        (["[[Bq,##],Bn],[KQ]"], "bracket group at column 1 straddles layers 1 and 2"),
        # A row split by white space where no comma separates rows: the row is named.
        (["[[#", "q]", "[##]]", "[[##]", "[K#]]"], "row 1 '#' has 1 cell; a row has 2 ... 64"),
        (
            ["2", "[[#", "q]", "[##]]", "[[##]", "[K#]]"],
            "size 2 does not match row 1 '#' of 1 cell",
        ),
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
    assert answer(kernel, "boardsize", "65") == (False, "unacceptable size (2 ... 64)")
    assert answer(kernel, "boardsize", "1") == (False, "unacceptable size (2 ... 64)")
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
        "  a b c         a b c         a b c\n"
        "check: the black rook on c1(III) gives check to the white king on c1(I)\n"
        "white to move\n"
        "result: 0-1 (checkmate)",  # reference case 1: white is mated
    )


def test_showboard_stacks_layers_that_do_not_fit_in_100_columns(kernel: Kernel) -> None:
    answer(kernel, "boardsize", "30")
    ok, text = answer(kernel, "showboard")
    lines = text.split("\n")[1:]
    assert ok and all(len(line) <= 100 for line in lines)
    assert "" not in lines
    assert lines[0].strip() == "level XXX" and lines[-2].strip().endswith("ad")
    assert lines[-1] == "white to move"
    assert sum(1 for line in lines if "level" in line) == 30
    assert lines[1].startswith("30 ") and lines[30].startswith(" 1 ")


# --- a board cut short, and the strict-GTP comment mode --------------------------------------

HINT = "('#' may have been stripped as a GTP comment on the way; write '.' for empty cells)"


@pytest.mark.parametrize("words", [["["], ["3", "["], ["[Kq,"], ["[[K.]", "[.."]])
def test_a_board_cut_at_a_hash_gets_the_hint(kernel: Kernel, words: list[str]) -> None:
    ok, text = answer(kernel, "set_board", *words)
    assert not ok
    assert text.startswith("invalid board: unbalanced brackets: ")
    assert text.endswith(HINT)


@pytest.mark.parametrize("words", [["[###,n##,#rr],[#b#"], ["[Bq,##],[Bn,KQ]]"], ["[Kq,##],[]"]])
def test_no_hint_where_no_hash_can_have_been_cut(kernel: Kernel, words: list[str]) -> None:
    ok, text = answer(kernel, "set_board", *words)
    assert not ok
    assert "GTP comment" not in text


@pytest.fixture
def strict() -> Kernel:
    return Kernel(EngineConfig(comments="anywhere"))


def test_strict_mode_reads_and_writes_dots(strict: Kernel) -> None:
    dotted = CASE_1.replace("#", ".")
    assert answer(strict, "set_board", dotted) == (True, "")
    assert answer(strict, "get_board") == (True, dotted)
    assert answer(strict, "checkmate") == (True, "true")
    assert answer(strict, "boardsize", "2") == (True, "")
    assert answer(strict, "get_board") == (True, "[..,..],[..,..]")


def test_strict_mode_hint_names_the_mode(strict: Kernel) -> None:
    ok, text = answer(strict, "set_board", "[")
    assert not ok
    assert text.endswith(
        "('#' starts a comment, as protocol.comments is \"anywhere\"; write '.' for empty cells)"
    )


def test_strict_mode_cuts_comments_anywhere_on_the_line(strict: Kernel) -> None:
    exchange = strict.respond("7 set_board [..,..],[..,K.] # an empty board but for the king")
    assert exchange is not None and exchange.response == "=7 \n\n"
    exchange = strict.respond("8 get_board#comment")
    assert exchange is not None and exchange.response == "=8 [..,..],[..,K.]\n\n"
    assert strict.respond("# a comment line") is None
    assert strict.respond("   #") is None
    # A board written with '#' is cut at its first one, and the hint says why.
    exchange = strict.respond("set_board [#q,##],[##,K#]")
    assert exchange is not None
    assert exchange.response.startswith("? invalid board: unbalanced brackets")
    assert "protocol.comments" in exchange.response


@pytest.mark.parametrize(
    "line, mode, command",
    [
        ("5 name # why", "anywhere", Command("5", "name", [])),
        ("5 name # why", "line-start", Command("5", "name", ["#", "why"])),
        ("set_board [#q,##]", "line-start", Command(None, "set_board", ["[#q,##]"])),
        ("set_board [#q,##]", "anywhere", Command(None, "set_board", ["["])),
        ("12#", "anywhere", Command("12", "", [])),
    ],
)
def test_parse_command_in_each_comment_mode(line: str, mode: str, command: Command) -> None:
    assert parse_command(line, mode) == command


def test_the_comment_mode_is_checked_and_read_from_the_config() -> None:
    assert EngineConfig().comments == "line-start"
    assert EngineConfig().empty_cell == "#"
    assert config_from_document({"protocol": {"comments": "anywhere"}}).empty_cell == "."
    with pytest.raises(ConfigError, match=r"protocol\.comments: 'everywhere' is not one of"):
        config_from_document({"protocol": {"comments": "everywhere"}})
    with pytest.raises(ConfigError, match=r"protocol\.comments: expected str, got bool"):
        config_from_document({"protocol": {"comments": True}})


@pytest.mark.parametrize("size", [2, 3, 5, 9, 30])
def test_the_canonical_fast_path_reads_what_the_loose_reader_reads(size: int) -> None:
    """The fast path accepts exactly the canonical form, and reads it as the slow path does."""
    rng = random.Random(size)
    for _ in range(20):
        rows = ["".join(rng.choice("###KQRBNkqrbn") for _ in range(size)) for _ in range(size**2)]
        text = ",".join(
            "[" + ",".join(rows[layer : layer + size]) + "]" for layer in range(0, size**2, size)
        )
        assert canonical_rows(text, size) == rows
        assert parse_board(f" {text} ", 64).rows == rows  # white space: not canonical, same rows
        # One character wrong anywhere, and the fast path declines it.
        index = rng.randrange(len(text))
        for wrong in ("x", ",", "[", "#K", ""):
            spoilt = text[:index] + wrong + text[index + 1 :]
            if spoilt != text and canonical_rows(spoilt, size) is not None:
                raise AssertionError((spoilt, canonical_rows(spoilt, size)))
