"""Exact-byte tests of the protocol layer and the command table, without any I/O."""

from __future__ import annotations

import re
import time
from importlib.metadata import version

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kernel import kernel as kernel_module
from kernel.commands.session import Session
from kernel.config import EngineConfig
from kernel.kernel import COMMANDS, COMMANDS_BY_NAME, CommandSpec, Kernel
from kernel.protocol import (
    Command,
    Reply,
    clean_line,
    decode_line,
    frame,
    parse_command,
    prepare_line,
)
from tests.conftest import CASE_1

#: A framed response: mark, optional id, one space, text without an empty line, empty line.
RESPONSE = re.compile(r"[=?](0|[1-9][0-9]*)? (?:[^\n]|\n(?!\n))*\n\n", re.DOTALL)


@pytest.fixture
def kernel() -> Kernel:
    """A kernel with the default configuration."""
    return Kernel(EngineConfig())


def answer(kernel: Kernel, line: str) -> str | None:
    """The framed response to one line, made ready as the engine does; None for no response."""
    exchange = kernel.respond(prepare_line(line.encode()))
    return None if exchange is None else exchange.response


# --- frame ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command_id", "reply", "framed"),
    [
        (None, Reply(True, "x"), "= x\n\n"),
        ("7", Reply(True, "x"), "=7 x\n\n"),
        ("0", Reply(True, "x"), "=0 x\n\n"),
        (None, Reply(True, ""), "= \n\n"),
        ("3", Reply(True, ""), "=3 \n\n"),
        (None, Reply(False, "msg"), "? msg\n\n"),
        ("0", Reply(False, "msg"), "?0 msg\n\n"),
        (None, Reply(True, "a\nb"), "= a\nb\n\n"),
        (None, Reply(True, "a\n"), "= a\n\n"),
        (None, Reply(True, "a\n\n\nb\n\n"), "= a\nb\n\n"),
        (None, Reply(False, "\n\nx"), "? \nx\n\n"),
    ],
)
def test_frame_exact_bytes(command_id: str | None, reply: Reply, framed: str) -> None:
    """Success, failure, ids (0 too), empty and multi-line results frame to exact bytes."""
    assert frame(command_id, reply) == framed


@given(st.none() | st.from_regex(r"0|[1-9][0-9]{0,30}", fullmatch=True), st.booleans(), st.text())
def test_frame_never_holds_an_empty_line(command_id: str | None, ok: bool, text: str) -> None:
    """Whatever the text, a framed reply has exactly one empty line: the one that ends it."""
    framed = frame(command_id, Reply(ok, text))
    assert framed.endswith("\n\n")
    assert "\n\n" not in framed[:-2]
    assert framed.startswith(("=" if ok else "?") + (command_id or "") + " ")


# --- clean_line and parse_command ----------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "cleaned"),
    [
        ("name", "name"),
        ("name\r", "name"),
        ("na\x00me", "name"),
        ("\x1b[31mname\x1b[0m", "[31mname[0m"),
        ("a\tb\t", "a b "),
        ("\x7fx\x85y\x9fz", "xyz"),
        ("x\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0c\x0e\x1f", "x"),
        ("é ✓ \ufffd", "é ✓ \ufffd"),
    ],
)
def test_clean_line(line: str, cleaned: str) -> None:
    """Control characters (C0, DEL, C1) are dropped, a tab becomes a space, the rest stays."""
    assert clean_line(line) == cleaned


@given(st.binary())
def test_prepare_line_is_decode_then_clean(raw: bytes) -> None:
    """The fast path of prepare_line gives what decoding and cleaning give."""
    assert prepare_line(raw) == clean_line(decode_line(raw))


def test_prepare_line_never_fails_on_bytes() -> None:
    """Bytes that are not UTF-8 become U+FFFD; CR and NUL disappear."""
    assert prepare_line(b"\xff na\x00me\r") == "\ufffd name"
    assert prepare_line(bytes(range(256))).isprintable()


@pytest.mark.parametrize(
    ("line", "command"),
    [
        ("name", Command(None, "name", [])),
        ("7 name", Command("7", "name", [])),
        ("0 name", Command("0", "name", [])),
        ("007 name", Command("7", "name", [])),
        ("  boardsize   4  ", Command(None, "boardsize", ["4"])),
        ("12", Command("12", "", [])),
        ("set_board [#,#] #", Command(None, "set_board", ["[#,#]", "#"])),
        ("5 # not a comment", Command("5", "#", ["not", "a", "comment"])),
        ("-1 name", Command(None, "-1", ["name"])),
        ("١ name", Command(None, "١", ["name"])),
    ],
)
def test_parse_command(line: str, command: Command) -> None:
    """Ids are unsigned ASCII decimals echoed as numbers; a later `#` is an argument."""
    assert parse_command(line) == command


@pytest.mark.parametrize("line", ["", "   ", "#", "# name", "   # name", "#name", "\u3000"])
def test_parse_command_blank_and_comment(line: str) -> None:
    """Blank lines and lines starting with `#` after blanks are not commands."""
    assert parse_command(line) is None


# --- Kernel.respond: the framed answer to a line ------------------------------------------------


@pytest.mark.parametrize(
    ("line", "response"),
    [
        ("name", "= cubemate\n\n"),
        ("1 name", "=1 cubemate\n\n"),
        ("0 name", "=0 cubemate\n\n"),
        ("0000 name", "=0 cubemate\n\n"),
        ("123456789012345678901234567890 name", "=123456789012345678901234567890 cubemate\n\n"),
        ("protocol_version", "= 2\n\n"),
        ("9 protocol_version", "=9 2\n\n"),
        ("name\r", "= cubemate\n\n"),
        ("\tname\t", "= cubemate\n\n"),
        ("na\x00me", "= cubemate\n\n"),
        ("nonsense", "? unknown command 'nonsense'\n\n"),
        ("4 nonsense", "?4 unknown command 'nonsense'\n\n"),
        ("NAME", "? unknown command 'NAME' (did you mean name?)\n\n"),
        ("Name", "? unknown command 'Name' (did you mean name?)\n\n"),
        ("BOARDSIZE 3", "? unknown command 'BOARDSIZE' (did you mean boardsize?)\n\n"),
        ("\ufffdname", "? unknown command '\ufffdname' (did you mean name?)\n\n"),
        ("5 # x", "?5 unknown command '#'\n\n"),
        ("boardsize", "? wrong number of arguments, usage: boardsize N\n\n"),
        ("3 boardsize", "?3 wrong number of arguments, usage: boardsize N\n\n"),
        ("boardsize 3 4", "? wrong number of arguments, usage: boardsize N\n\n"),
        ("name x", "? wrong number of arguments, usage: name\n\n"),
        ("known_command", "? wrong number of arguments, usage: known_command NAME\n\n"),
        ("known_command a b", "? wrong number of arguments, usage: known_command NAME\n\n"),
        ("help a b", "? wrong number of arguments, usage: help [COMMAND]\n\n"),
        ("set_board", "? wrong number of arguments, usage: set_board [N] BOARD... [SIDE]\n\n"),
        (
            "test_get_point_from_xy 1",
            "? wrong number of arguments, usage: test_get_point_from_xy X Y [Z]\n\n",
        ),
        (
            "test_get_point_from_xy 1 2 3 4",
            "? wrong number of arguments, usage: test_get_point_from_xy X Y [Z]\n\n",
        ),
        ("boardsize x", "? N must be a whole number, got 'x'\n\n"),
        ("boardsize 1", "? unacceptable size (2 ... 64)\n\n"),
        ("boardsize 65", "? unacceptable size (2 ... 64)\n\n"),
        ("boardsize -3", "? unacceptable size (2 ... 64)\n\n"),
        ("known_command name", "= true\n\n"),
        ("known_command NAME", "= false\n\n"),
        ("known_command nonsense", "= false\n\n"),
        ("help nonsense", "? unknown command 'nonsense'\n\n"),
        ("quit", "= \n\n"),
        ("2 quit", "=2 \n\n"),
    ],
)
def test_respond_exact_bytes(kernel: Kernel, line: str, response: str) -> None:
    """Each line gets exactly these bytes back."""
    assert answer(kernel, line) == response


@pytest.mark.parametrize("line", ["", " ", "\t", "\r", "# comment", "   # comment", "\t#", "\x00"])
def test_respond_nothing_to_blank_or_comment(kernel: Kernel, line: str) -> None:
    """Comments and blank lines (after cleaning) get no response at all."""
    assert answer(kernel, line) is None


def test_hash_inside_set_board_is_not_a_comment(kernel: Kernel) -> None:
    """`#` cells and a `#` after the board are arguments; the board is set from them."""
    assert answer(kernel, f"set_board {CASE_1}") == "= \n\n"
    assert answer(kernel, "get_board") == f"= {CASE_1}\n\n"
    # Loose form: rows starting with `#`, no brackets; the first word after the size is `#..`.
    assert answer(kernel, "set_board 2 #q ## ## K#") == "= \n\n"
    assert answer(kernel, "get_board") == "= [#q,##],[##,K#]\n\n"
    assert answer(kernel, f"set_board {CASE_1} #") == (
        "? invalid board: row 10 '#' has 1 cells, expected 3\n\n"
    )
    assert answer(kernel, "get_board") == "= [#q,##],[##,K#]\n\n"


def test_id_longer_than_python_int_limit(kernel: Kernel) -> None:
    """An id of 5000 digits is answered (echoed or refused), never an exception."""
    line = "1" * 5000 + " name"
    exchange = kernel.respond(line)
    assert exchange is not None
    assert RESPONSE.fullmatch(exchange.response) is not None
    assert "internal error" not in exchange.response


def test_huge_board_size_is_an_invalid_board(kernel: Kernel) -> None:
    """A 5000-digit size in set_board is the user's mistake, not an internal error."""
    response = answer(kernel, "set_board " + "9" * 5000 + " [#]")
    assert response is not None
    assert response.startswith("? invalid board: "), response[:200]


def test_internal_error_is_answered_and_engine_goes_on(
    kernel: Kernel, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A handler that raises gives `? internal error: ...` with a traceback kept apart."""

    def broken(kernel: Session, args: list[str]) -> str:
        raise RuntimeError("boom")

    monkeypatch.setitem(COMMANDS_BY_NAME, "name", CommandSpec("name", "", broken))
    exchange = kernel.respond("5 name")
    assert exchange is not None
    assert exchange.response == "?5 internal error: RuntimeError: boom\n\n"
    assert exchange.reply.traceback is not None
    assert "RuntimeError: boom" in exchange.reply.traceback
    assert "broken" in exchange.reply.traceback
    assert answer(kernel, "protocol_version") == "= 2\n\n"
    # An exception whose message holds line breaks still answers one short line.
    monkeypatch.setitem(
        COMMANDS_BY_NAME,
        "name",
        CommandSpec("name", "", lambda kernel, args: (_ for _ in ()).throw(ValueError("a\n\nb"))),
    )
    assert answer(kernel, "name") == "? internal error: ValueError: a b\n\n"


# --- the command table and the informational commands ------------------------------------------


def test_cputime_is_the_process_s_cpu_seconds_and_grows_with_work(kernel: Kernel) -> None:
    """GoGui's `cputime`: seconds with three decimals, never less than before, and more
    after a search than the search's own CPU time would allow it to stay."""
    first = answer(kernel, "cputime")
    assert first is not None and re.fullmatch(r"= \d+\.\d{3}\n\n", first), first
    assert answer(kernel, "new_game 4") == "= \n\n"
    before = time.process_time()
    assert answer(kernel, "perft 3") is not None
    spent = time.process_time() - before
    second = answer(kernel, "cputime")
    assert second is not None
    assert float(second[2:]) >= float(first[2:]) + spent - 0.002
    assert answer(kernel, "cputime 1") == "? wrong number of arguments, usage: cputime\n\n"


def test_list_commands_alphabetical_equals_table(kernel: Kernel) -> None:
    """list_commands prints the table's names, one per line, sorted."""
    names = [spec.name for spec in COMMANDS]
    assert names == sorted(names)
    assert len(set(names)) == len(names)
    assert answer(kernel, "list_commands") == "= " + "\n".join(names) + "\n\n"
    assert set(names) == set(COMMANDS_BY_NAME)


def test_table_holds_every_documented_command() -> None:
    """Every command of protocol.md is in the table."""
    documented = {
        "boardsize",
        "checkers",
        "checkmate",
        "clear_board",
        "explain",
        "get_board",
        "help",
        "known_command",
        "legal_moves",
        "list_commands",
        "name",
        "protocol_version",
        "quit",
        "set_board",
        "showboard",
        "status",
        "test_get_point_from_xy",
        "version",
    }
    assert documented <= set(COMMANDS_BY_NAME)


@pytest.mark.parametrize("name", [spec.name for spec in COMMANDS])
def test_known_command_for_every_command(kernel: Kernel, name: str) -> None:
    """known_command is true for every name in the table, false for its upper case."""
    assert answer(kernel, f"known_command {name}") == "= true\n\n"
    assert answer(kernel, f"known_command {name.upper()}") == "= false\n\n"


def test_help_lists_every_command_in_order(kernel: Kernel) -> None:
    """`help` gives one usage line per command under its group's title, each with a summary."""
    response = answer(kernel, "help")
    assert response is not None and response.startswith("= \n")
    lines = [line for line in response[3:-2].split("\n") if line.startswith("  ")]
    assert len(lines) == len(COMMANDS)
    specs = {spec.name: spec for spec in COMMANDS}
    for line in lines:
        spec = specs[line.split()[0]]
        usage = f"{spec.name} {spec.syntax}".rstrip()
        assert line.startswith(f"  {usage} ")
        assert line[len(usage) + 2 :].strip(), f"no summary for {spec.name}"


def test_help_boardsize(kernel: Kernel) -> None:
    """`help boardsize` gives its usage and what it does, on one line."""
    assert answer(kernel, "help boardsize") == (
        "= boardsize N                             Set the board size and empty the board.\n\n"
    )


def test_name_protocol_version_version(kernel: Kernel) -> None:
    """name, protocol_version and version answer what protocol.md says."""
    assert answer(kernel, "name") == "= cubemate\n\n"
    assert answer(kernel, "protocol_version") == "= 2\n\n"
    assert answer(kernel, "version") == f"= {version('cubemate')}\n\n"


def test_name_comes_from_the_config() -> None:
    """The engine answers the name it was configured with."""
    assert answer(Kernel(EngineConfig(name="other")), "7 name") == "=7 other\n\n"


@pytest.mark.parametrize("line", ["list_commands", "help", "showboard"])
def test_multi_line_results_hold_no_empty_line(kernel: Kernel, line: str) -> None:
    """A multi-line result is one response: no empty line before its end."""
    for size in (2, 3, 30):
        assert answer(kernel, f"boardsize {size}") == "= \n\n"
        response = answer(kernel, line)
        assert response is not None
        assert response.count("\n") > 2
        assert RESPONSE.fullmatch(response) is not None, response[:300]


def test_quit_sets_the_flag(kernel: Kernel) -> None:
    """quit answers an empty success and asks the loop to stop."""
    assert not kernel.quit_requested
    assert answer(kernel, "quit") == "= \n\n"
    assert kernel.quit_requested


def test_handlers_are_module_functions() -> None:
    """Every handler is a documented function of the kernel module (help reads its summary)."""
    for spec in COMMANDS:
        assert getattr(kernel_module, spec.handler.__name__) is spec.handler
        assert (spec.handler.__doc__ or "").strip(), spec.name


# --- any line at all --------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300).filter(lambda data: b"\n" not in data))
def test_any_bytes_get_at_most_one_framed_response(data: bytes) -> None:
    """Any bytes: no exception; one well-framed response, or none for a blank/comment line."""
    kernel = Kernel(EngineConfig())
    before = answer(kernel, "get_board")
    line = prepare_line(data)
    exchange = kernel.respond(line)
    words = line.split()
    if not words or words[0].startswith("#"):
        assert exchange is None
    else:
        assert exchange is not None
        assert RESPONSE.fullmatch(exchange.response) is not None, exchange.response
        if exchange.command.name not in {"boardsize", "clear_board", "set_board"}:
            assert answer(kernel, "get_board") == before


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from([spec.name for spec in COMMANDS if spec.name != "quit"])
        | st.text(max_size=8),
        min_size=1,
        max_size=6,
    )
)
def test_command_word_salad(words: list[str]) -> None:
    """Known names with random arguments: always a framed response, never an internal error."""
    kernel = Kernel(EngineConfig())
    assert answer(kernel, f"set_board {CASE_1}") == "= \n\n"
    response = answer(kernel, "42 " + " ".join(words))
    assert response is not None
    assert RESPONSE.fullmatch(response) is not None, response
    assert response.startswith(("=42 ", "?42 ")), response
    assert "internal error" not in response, response
