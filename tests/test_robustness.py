"""Robustness of the real engine process: hostile input, memory, signals, logs, concurrency."""

from __future__ import annotations

import contextlib
import io
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any, BinaryIO

import pytest

from kernel.config import EngineConfig
from kernel.kernel import Kernel
from kernel.protocol import prepare_line
from tests.conftest import (
    CASE_1,
    CASE_2,
    CONSOLE_LINE,
    CONSOLE_LOG,
    JSON_LOG,
    REPO,
    TIMEOUT,
    Engine,
    assert_still_running,
    engine_command,
    read_console_log,
    read_json_log,
    run_engine,
    split_responses,
)

LIMIT = EngineConfig().max_line_bytes
TOO_LONG = f"? line too long (limit {LIMIT} bytes)\n\n".encode()
#: One framed response: mark, optional id, a space, text without an empty line, the empty line.
RESPONSE = re.compile(rb"[=?](0|[1-9][0-9]*)? (?:[^\n]|\n(?!\n))*\n\n", re.DOTALL)
SENTINEL = b"99 name"
SENTINEL_RESPONSE = b"=99 cubemate\n\n"
#: Commands that change the position, kept out of the random lines of the fuzz test.
CHANGING = {"boardsize", "clear_board", "quit", "set_board"}


def gets_response(raw: bytes) -> bool:
    """Whether a raw line deserves a response, decided from protocol.md alone."""
    text = raw.decode("utf-8", errors="replace")
    controls = {chr(code) for code in [*range(0x20), *range(0x7F, 0xA0)]} - {"\t"}
    words = "".join(" " if ch == "\t" else ch for ch in text if ch not in controls).split()
    return bool(words) and not words[0].startswith("#")


def first_word(raw: bytes) -> str:
    """The command name a raw line would run (after an optional id), as protocol.md reads it."""
    words = prepare_line(raw).split()
    if words and words[0].isascii() and words[0].isdigit():
        words = words[1:]
    return words[0] if words else ""


# --- every line gets exactly one response -------------------------------------------------


def _random_bytes(seed: int, size: int) -> bytes:
    rng = random.Random(seed)
    return b"x" + bytes(rng.choice([b for b in range(256) if b != 0x0A]) for _ in range(size))


#: (line, expected first response: exact bytes when it ends in an empty line, else a prefix;
#: None when the line gets no response at all)
HOSTILE: dict[str, tuple[bytes, bytes | None]] = {
    "random bytes": (_random_bytes(1, 2000), b"?"),
    "invalid utf-8": (
        b"\xff\xfe\xc3\x28 name",
        "? unknown command '\ufffd\ufffd\ufffd('\n\n".encode(),
    ),
    "utf-8 surrogate": (
        b"\xed\xa0\x80name",
        "? unknown command '\ufffd\ufffd\ufffdname'\n\n".encode(),
    ),
    "lone continuation byte argument": (
        b"name \x80",
        b"? wrong number of arguments, usage: name\n\n",
    ),
    "cut multi-byte character": (
        b"7 name\xc3",
        "?7 unknown command 'name\ufffd' (did you mean name?)\n\n".encode(),
    ),
    "nul inside a name": (b"na\x00me", b"= cubemate\n\n"),
    "only nul": (b"\x00\x00\x00", None),
    "escape sequences": (b"\x1b[2J\x1b[Hname\x1b[0m", b"? unknown command '[2J[Hname[0m'\n\n"),
    "every control character": (
        bytes(range(0x0A)) + bytes(range(0x0B, 0x20)) + b"name",
        b"= cubemate\n\n",
    ),
    "control characters alone": (bytes(range(0x0A)) + bytes(range(0x0B, 0x20)), None),
    "c1 controls": ("\u0085\u009bname\u009f".encode(), b"= cubemate\n\n"),
    "byte order mark": (b"\xef\xbb\xbfname", b"= cubemate\n\n"),
    "10000 spaces": (b" " * 10_000, None),
    "10000 spaces then name": (b" " * 10_000 + b"name" + b"\t" * 10_000, b"= cubemate\n\n"),
    "ideographic space": ("name\u3000".encode(), b"= cubemate\n\n"),
    "unbalanced open brackets": (
        b"set_board [[[###",
        b"? invalid board: unbalanced brackets: 3 '[' not closed\n\n",
    ),
    "unbalanced close brackets": (
        b"set_board ]]][[[",
        b"? invalid board: unbalanced brackets: ']' at column 1\n\n",
    ),
    "100000 nested brackets": (b"set_board " + b"[" * 100_000 + b"]" * 100_000, b"? invalid "),
    "one row of 500000 cells": (b"set_board " + b"#" * 500_000, b"? invalid board: size 500000 "),
    "set_board of a million rows": (b"set_board 3 " + b"###," * 1_000_000, TOO_LONG),
    "200000 arguments": (
        b"known_command " + b"x " * 100_000,
        b"? wrong number of arguments, usage: known_command NAME\n\n",
    ),
    "negative size": (b"boardsize -5", b"? unacceptable size (2 ... 64)\n\n"),
    "huge size": (b"boardsize 99999999999999999999999999", b"? unacceptable size (2 ... 64)\n\n"),
    "31-digit size": (b"boardsize " + b"9" * 31, b"? unacceptable size (2 ... 64)\n\n"),
    "5000-digit size": (b"boardsize " + b"9" * 5000, b"? unacceptable size (2 ... 64)\n\n"),
    "negative set_board size": (
        b"set_board -3 [K#,##],[##,##]",
        b"? invalid board: size -3 is outside 2 ... 64\n\n",
    ),
    "5000-digit set_board size": (b"set_board " + b"9" * 5000 + b" [#]", b"? invalid board: "),
    "negative coordinates": (b"test_get_point_from_xy -1 -1 -1", b"? "),
    "huge coordinates": (b"test_get_point_from_xy " + b"9" * 30 + b" 0", b"? "),
    "30-digit id": (b"1" * 30 + b" name", b"=" + b"1" * 30 + b" cubemate\n\n"),
    "id of zeros": (b"000 name", b"=0 cubemate\n\n"),
    "id without command": (b"42", b"?42 "),
    "5000-digit id": (b"1" * 5000 + b" name", b""),
    "comment after id": (b"5 # x", b"?5 unknown command '#'\n\n"),
}


#: Per line sent: the responses to it, and the JSON log events it left.
LineAnswers = list[tuple[list[bytes], list[dict[str, Any]]]]


def answers_line_by_line(lines: list[bytes], log_dir: Path) -> LineAnswers:
    """Send the lines to one engine, each followed by a sentinel of its own, and split the
    responses and the JSON log at the sentinels. Each line must also leave the engine able
    to answer the next; at the end it must exit 0 with nothing on stderr."""
    sentinels = [f"{9000 + index} name" for index in range(len(lines))]
    data = b"".join(
        line + b"\n" + sentinel.encode() + b"\n"
        for line, sentinel in zip(lines, sentinels, strict=True)
    )
    result = run_engine(data, log_dir)
    assert result.stderr == b"", result.stderr[-2000:]
    assert result.returncode == 0
    responses = split_responses(result.stdout)
    events = read_json_log(log_dir)
    answers: LineAnswers = []
    for sentinel in sentinels:
        at = responses.index(f"={sentinel.split()[0]} cubemate\n\n".encode())
        mine, responses = responses[:at], responses[at + 1 :]
        at = [event.get("line") for event in events].index(sentinel)
        answers.append((mine, events[:at]))
        events = events[at + 2 :]  # past the sentinel's input and output
    assert (responses, events) == ([], [])
    return answers


#: Per hostile case: the responses to its line, and how many JSON log events it left.
HostileAnswers = dict[str, tuple[list[bytes], int]]


@pytest.fixture(scope="module")
def hostile_answers(tmp_path_factory: pytest.TempPathFactory) -> HostileAnswers:
    """Every hostile line sent to one engine (see answers_line_by_line)."""
    log_dir = tmp_path_factory.mktemp("hostile-logs")
    lines = [line for line, _ in HOSTILE.values()]
    answers = answers_line_by_line(lines, log_dir)
    return {
        case: (responses, len(events))
        for case, (responses, events) in zip(HOSTILE, answers, strict=True)
    }


@pytest.mark.parametrize("case", list(HOSTILE))
def test_one_response_per_line(hostile_answers: HostileAnswers, case: str) -> None:
    """A hostile line gets exactly one response (none if blank or a comment), logged as one
    input and one output; the engine goes on."""
    _, expected = HOSTILE[case]
    responses, events = hostile_answers[case]
    if expected is None:
        assert (responses, events) == ([], 0)
        return
    assert len(responses) == 1, responses[:3]
    first = responses[0]
    assert RESPONSE.fullmatch(first) is not None, first[:300]
    assert b"internal error" not in first, first[:300]
    if expected.endswith(b"\n\n"):
        assert first == expected
    else:
        assert first.startswith(expected), first[:300]
    assert events == 2


LONG_ECHOES = {
    "help with a long name": b"help " + b"x" * 100_000,
    "set_board with a 4000-digit size": b"set_board 3" + b"0" * 4000 + b" [#]",
    "set_board n= with a 4000-digit size": b"set_board n=-" + b"7" * 4000 + b" [#]",
    "boardsize with a long word": b"boardsize " + b"y" * 100_000,
    "set_board with a long row": b"set_board 2 " + b"z" * 100_000,
    "test_get_point_from_xy with a long word": b"test_get_point_from_xy 1 " + b"w" * 100_000,
}


@pytest.mark.parametrize("case", list(LONG_ECHOES))
def test_failure_messages_are_short(shared_engine: Engine, case: str) -> None:
    """A refusal is a short message, even when the refused text is long (protocol.md)."""
    response = shared_engine.ask(LONG_ECHOES[case])
    assert_still_running(shared_engine)
    assert response.startswith(b"? ")
    assert len(response) <= 200, f"{len(response)} bytes: {response[:120]!r}..."


def test_a_million_rows_within_the_limit(tmp_path: Path) -> None:
    """With a limit that lets it through, a set_board of a million rows is refused by size,
    once past the rows of the largest board (reading them all took a second)."""
    config = tmp_path / "big.toml"
    config.write_text("[protocol]\nmax_line_bytes = 8388608\n")
    line = b"set_board 3 " + b"###," * 1_000_000
    result = run_engine(line + b"\nget_board\n", tmp_path / "logs", "--config", str(config))
    assert split_responses(result.stdout) == [
        b"? invalid board: expected 9 rows of 3 cells, got more than 4096\n\n",
        b"= [###,###,###],[###,###,###],[###,###,###]\n\n",
    ]
    assert result.returncode == 0


# --- the fuzz test ------------------------------------------------------------------------

READ_ONLY = [
    "name",
    "version",
    "protocol_version",
    "list_commands",
    "known_command",
    "help",
    "get_board",
    "showboard",
    "checkmate",
    "status",
    "checkers",
    "legal_moves",
    "explain",
    "test_get_point_from_xy",
]
NASTY_WORDS = [
    "",
    "0",
    "-1",
    "1",
    "2",
    "3",
    "7",
    "64",
    "65",
    "9" * 30,
    "9" * 31,
    "-" + "9" * 40,
    "3.0",
    "0x3",
    "1e3",
    "[",
    "]",
    "[[",
    "]]",
    "#",
    "###",
    "n=3",
    "n = 3,",
    '"##"',
    "'",
    "\\",
    "%s",
    "{}",
    "\u00e9",
    "\ufffd",
    "\u202e",
    "K",
    "k",
    "name",
    "quit",
    CASE_2,
]
BAD_SIZES = ["", "0", "1", "-2", "65", "1000", "9" * 31, "3.0", "three", "0x3", "3 3", "+"]
INVALID_CHARACTERS = "x!é\u00a0?*9"


def _mutate_board(rng: random.Random) -> str:
    """A set_board line of CASE_1 with one change: refused, or at worst the same position
    (deleting the comma between layers, or an empty `[]`, still reads as CASE_1)."""
    board = CASE_1
    kind = rng.randrange(6)
    if kind == 0:  # delete a character: a row, a layer or a bracket goes wrong
        at = rng.randrange(len(board))
        board = board[:at] + board[at + 1 :]
    elif kind == 1:  # a character that is not in the notation
        at = rng.randrange(len(board) + 1)
        board = board[:at] + rng.choice(INVALID_CHARACTERS) + board[at:]
    elif kind == 2:  # a second white king on an empty cell
        empties = [i for i, ch in enumerate(board) if ch == "#"]
        at = rng.choice(empties)
        board = board[:at] + "K" + board[at + 1 :]
    elif kind == 3:  # a size that does not match
        board = f"{rng.choice(['2', '4', 'n=2', 'n = 5,', '-3', '1'])} {board}"
    elif kind == 4:  # one row too many
        board = board.replace("],[", ",###],[", 1)
    else:  # a bracket too many
        board = board + rng.choice(["]", "[", "[]"])
    return "set_board " + board


def _hostile_line(rng: random.Random) -> bytes:
    """One random hostile line; never a command that would legally change the position."""
    while True:
        kind = rng.randrange(10)
        if kind == 0:
            line = bytes(rng.randrange(256) for _ in range(rng.randrange(120)))
        elif kind == 1:
            line = bytes(rng.randrange(0x20, 0x7F) for _ in range(rng.randrange(80)))
        elif kind in (2, 3):
            words = [rng.choice(READ_ONLY)]
            words += [rng.choice(NASTY_WORDS) for _ in range(rng.randrange(4))]
            line = " ".join(words).encode()
        elif kind == 4:
            line = _mutate_board(rng).encode()
        elif kind == 5:
            line = f"boardsize {rng.choice(BAD_SIZES)}".encode()
        elif kind == 6:  # control characters and escapes sprinkled into a real command
            text = bytearray(rng.choice(READ_ONLY).encode())
            for _ in range(rng.randrange(1, 4)):
                noise = rng.choice(
                    [b"\x00", b"\x1b[0m", b"\r", b"\t", b"\x7f", b"\xc2\x85", b"\xff"]
                )
                at = rng.randrange(len(text) + 1)
                text[at:at] = noise
            line = bytes(text)
        elif kind == 7:
            line = rng.choice([b"", b"   ", b"#", b"# comment", b"\t# x", b"\r", b" " * 3000])
        elif kind == 8:
            line = rng.choice([b"[" * 500, b"]" * 500, b"set_board " + b"[#]" * 300, b"\\" * 999])
        else:
            line = " ".join(rng.choice(NASTY_WORDS) for _ in range(rng.randrange(1, 6))).encode()
        if rng.random() < 0.3:
            line = str(rng.randrange(10 ** rng.randrange(1, 31))).encode() + b" " + line
        line = line.replace(b"\n", b"")
        name = first_word(line)
        if name in CHANGING and not line.lstrip(b"0123456789 ").startswith(
            (b"set_board", b"boardsize")
        ):
            continue
        return line


def test_fuzz_one_engine(log_dir: Path) -> None:
    """Thousands of hostile lines to one engine: one response each, same bytes as in-process,
    no internal error, the position unchanged, and the engine still answers."""
    rng = random.Random(20240229)
    lines = [_hostile_line(rng) for _ in range(3000)]
    script = [f"set_board {CASE_1}".encode(), b"get_board", *lines, b"get_board", b"name"]
    result = run_engine(b"\n".join(script) + b"\n", log_dir, timeout=120)
    assert result.stderr == b""
    assert result.returncode == 0
    responses = split_responses(result.stdout)
    assert len(responses) == 4 + sum(map(gets_response, lines))

    # The process answers exactly what the kernel answers in-process, line for line.
    kernel = Kernel(EngineConfig())
    expected = []
    for raw in script:
        exchange = kernel.respond(prepare_line(raw))
        if exchange is not None:
            expected.append(exchange.response.encode())
    assert responses == expected

    assert responses[:2] == [b"= \n\n", f"= {CASE_1}\n\n".encode()]
    assert responses[-2:] == [f"= {CASE_1}\n\n".encode(), b"= cubemate\n\n"]
    for response in responses:
        assert RESPONSE.fullmatch(response) is not None, response[:300]
        assert b"internal error" not in response, response[:300]
    events = Counter(event["event"] for event in read_json_log(log_dir))
    assert events["input"] == len(responses) == events["output"] + events["error"]


# --- bounded memory ----------------------------------------------------------------------


def peak_rss_kib(pid: int) -> int:
    """The peak resident set size of a process (VmHWM), in KiB."""
    status = Path(f"/proc/{pid}/status").read_text()
    match = re.search(r"^VmHWM:\s+(\d+) kB$", status, re.MULTILINE)
    assert match is not None
    return int(match.group(1))


def test_64_mib_line_keeps_memory_bounded(engine: Engine) -> None:
    """A 64 MiB line, written in chunks and long without a newline, is refused in bounded
    memory; the next line is answered."""
    assert engine.ask("name") == b"= cubemate\n\n"
    baseline = peak_rss_kib(engine.pid)
    chunk = b"x" * (1 << 20)
    written = threading.Event()

    def write_long_line() -> None:
        engine.send(b"5 name ")
        for _ in range(64):
            engine.send(chunk)
        written.set()

    writer = threading.Thread(target=write_long_line, daemon=True)
    writer.start()
    assert written.wait(TIMEOUT), "the engine stopped reading the long line"
    writer.join(TIMEOUT)
    # The whole line is in, still without its newline: memory must not have grown with it.
    assert peak_rss_kib(engine.pid) < baseline + 3 * LIMIT // 1024
    engine.send(b"\n")
    assert engine.read_response() == b"?5" + TOO_LONG[1:]
    assert engine.ask("6 name") == b"=6 cubemate\n\n"
    peak = peak_rss_kib(engine.pid)
    assert peak < baseline + 3 * LIMIT // 1024, f"peak {peak} KiB, baseline {baseline} KiB"
    code, rest, err = engine.finish()
    assert (code, rest, err) == (0, b"", b"")
    events = read_json_log(engine.log_dir)
    refused = [event for event in events if event.get("truncated")]
    assert len(refused) == 1
    assert refused[0]["bytes"] >= 64 << 20
    assert refused[0]["line"].startswith("5 name xxx") and len(refused[0]["line"]) <= 200
    assert all(len(line.text) < 1000 for line in read_console_log(engine.log_dir))


def current_rss_kib(pid: int) -> int:
    """The resident set size of a process now (VmRSS), in KiB."""
    status = Path(f"/proc/{pid}/status").read_text()
    match = re.search(r"^VmRSS:\s+(\d+) kB$", status, re.MULTILINE)
    assert match is not None
    return int(match.group(1))


#: Black to move on a 3×3×3 board: `play` reads the cells of every move sent.
THREE_BOARD = "[###,#k#,#b#],[##b,###,###],[r##,##K,###] b"


def test_moves_naming_ever_new_levels_keep_memory_bounded(tmp_path: Path) -> None:
    """`play` lines naming a new level each, all refused: memory does not grow with them (a
    cache of every level read grew by about 120 bytes a line)."""
    output = tmp_path / "out"
    with output.open("wb") as stdout:
        process = subprocess.Popen(
            engine_command(tmp_path / "logs"),
            stdin=subprocess.PIPE,
            stdout=stdout,
            stderr=subprocess.DEVNULL,
            cwd=REPO,
        )
    stdin = process.stdin
    assert stdin is not None
    synced = 0

    def send_and_wait(lines: bytes) -> None:
        """Send lines and a `name` behind them; wait until that is answered."""
        nonlocal synced
        synced += 1
        stdin.write(lines + f"{synced} name\n".encode())
        stdin.flush()
        answer = f"={synced} cubemate\n\n".encode()
        deadline = time.monotonic() + 10 * TIMEOUT
        while not output.read_bytes().endswith(answer):
            assert time.monotonic() < deadline, "the engine stopped answering"
            time.sleep(0.05)

    def refused_moves(first: int, count: int) -> bytes:
        return b"".join(b"play a1(%d)-a2(I)\n" % level for level in range(first, first + count))

    try:
        send_and_wait(f"set_board {THREE_BOARD}\n".encode() + refused_moves(10, 5_000))
        before = current_rss_kib(process.pid)
        send_and_wait(refused_moves(100_000, 20_000))
        grown = current_rss_kib(process.pid) - before
    finally:
        stdin.close()
        process.wait(TIMEOUT)
    # The leak this guards against would have grown by 2.4 MB here; without it, 0.1 MB.
    assert grown < 1024, f"{grown} KiB more after 20,000 refused moves"
    answers = split_responses(output.read_bytes())
    assert len(answers) == 1 + 25_000 + 2
    assert answers[-2] == b"? illegal move: cell 'a1(119999)' is off the 3x3x3 board\n\n"


#: The starts of lines over the limit, and the mark of each one's answer.
TOO_LONG_STARTS = [
    (b"12 name ", b"?12"),
    (b"  007\tset_board [", b"?7"),
    (b"0 ", b"?0"),
    (b"name 12 ", b"?"),
    (b"12", b"?"),  # digits running on into the rest of the line: not an id
    (b"1" * 300 + b" name ", b"?"),  # an id longer than the part of the line kept
]


def too_long_line(start: bytes) -> bytes:
    """Make a line that begins with `start` and runs past the limit."""
    return start + b"x" * (LIMIT + 10)


@pytest.fixture(scope="module")
def too_long_answers(tmp_path_factory: pytest.TempPathFactory) -> LineAnswers:
    """Every line of TOO_LONG_STARTS sent to one engine (see answers_line_by_line)."""
    lines = [too_long_line(start) for start, _ in TOO_LONG_STARTS]
    return answers_line_by_line(lines, tmp_path_factory.mktemp("too-long-logs"))


@pytest.mark.parametrize("index", range(len(TOO_LONG_STARTS)))
def test_line_too_long_keeps_the_id(too_long_answers: LineAnswers, index: int) -> None:
    """A line over the limit is answered with the id it began with, and logged with it."""
    start, mark = TOO_LONG_STARTS[index]
    line = too_long_line(start)
    responses, events = too_long_answers[index]
    assert responses == [mark + TOO_LONG[1:]]
    expected_id = int(mark[1:]) if mark[1:] else None
    assert [(event["event"], event["id"]) for event in events] == [
        ("input", expected_id),
        ("error", expected_id),
    ]
    assert events[0]["truncated"] is True and events[0]["bytes"] == len(line)


SMALL_CONFIG = "[engine]\nmax_board_size = 2\nboard_size = 2\n[protocol]\nmax_line_bytes = 100\n"


@pytest.mark.parametrize(
    ("data", "output"),
    [
        (b"name" + b" " * 96 + b"\n", b"= cubemate\n\n"),
        (b"name" + b" " * 97 + b"\n", b"? line too long (limit 100 bytes)\n\n"),
        (b"name" + b" " * 96, b"= cubemate\n\n"),
        (b"name" + b" " * 97, b"? line too long (limit 100 bytes)\n\n"),
        (b"name" + b" " * 96 + b"\r\n", b"= cubemate\n\n"),
        (b"x" * 250 + b"\nname\n", b"? line too long (limit 100 bytes)\n\n= cubemate\n\n"),
        (b"x" * 250, b"? line too long (limit 100 bytes)\n\n"),
    ],
    ids=[
        "limit",
        "limit+1",
        "limit at end of input",
        "limit+1 at end of input",
        "limit with CRLF",
        "too long then next",
        "too long at end of input",
    ],
)
def test_line_limit_boundary(tmp_path: Path, data: bytes, output: bytes) -> None:
    """A line of exactly the limit (not counting its \\n or \\r\\n) is answered; one more byte
    is too long; end of input inside a too-long line still answers it."""
    config = tmp_path / "small.toml"
    config.write_text(SMALL_CONFIG)
    result = run_engine(data, tmp_path / "logs", "--config", str(config))
    assert (result.stdout, result.stderr, result.returncode) == (output, b"", 0)


# --- a failed command changes nothing ---------------------------------------------------------

REFUSED = [
    "boardsize 1",
    "boardsize 65",
    "boardsize x",
    "boardsize",
    "boardsize 3 3",
    "clear_board now",
    "set_board",
    "set_board [###,###],[###,###]",
    f"set_board 4 {CASE_2}",
    f"set_board {CASE_2},[###,###,###]",
    f"set_board {CASE_2.replace('#', 'x', 1)}",
    "set_board [K#,##],[##,K#]",
    "set_board [k#,##],[##,##]",
    "set_board [Kk,##],[##,k#]",
    "set_board [###,###,###],[###,#k#,###],[###,###,K##]",
    "set_board [##k,###,###],[###,###,###],[r#R,###,K##]",
    "set_board 1 [K]",
    "set_board 65 [K]",
    "set_board [[###,###,###],[###,###,###],[###,###,K##]",
    "test_get_point_from_xy 7 0 0",
    "test_get_point_from_xy -1 0",
    "quit now",
    "frobnicate",
    "QUIT",
]


def test_failed_commands_change_nothing(engine: Engine) -> None:
    """After each kind of refused command the position is byte for byte the one before."""
    assert engine.ask(f"set_board {CASE_1}") == b"= \n\n"
    board = f"= {CASE_1}\n\n".encode()
    for line in REFUSED:
        response = engine.ask(line)
        assert response.startswith(b"? "), (line, response)
        assert b"internal error" not in response, (line, response)
        assert engine.ask("get_board") == board, line
    # A valid board in a line that is too long is refused as a whole.
    response = engine.ask(f"set_board {CASE_2}" + " " * LIMIT)
    assert response == TOO_LONG
    assert engine.ask("get_board") == board
    assert engine.ask("checkmate") == b"= true\n\n"
    # An empty board makes the analysis commands fail, and failing changes nothing either.
    assert engine.ask("clear_board") == b"= \n\n"
    empty = engine.ask("get_board")
    for line in ["checkmate", "status", "checkers", "legal_moves", "explain"]:
        assert engine.ask(line) == b"? no white king on the board\n\n", line
        assert engine.ask("get_board") == empty
    assert engine.finish() == (0, b"", b"")


@pytest.mark.parametrize(
    ("move", "cell"),
    [
        # A black bishop's move to bb1(III), which is off this board, or bb1(III) to itself.
        ("bb1(III)-bb1(III)", "bb1(III)"),
        ("b1(III)-b1(III)", "b1(III)"),
        ("bb1(III)-b1(3)", "b1(III)"),
        ("kb2(III)-b2(3)", "b2(III)"),
        ("ra3(1)-a3(I)", "a3(1)"),
        ("zz9(XX)-zz9(20)", "zz9(XX)"),  # off every board this engine takes
    ],
)
def test_a_move_to_the_same_cell_is_refused_as_such(
    shared_engine: Engine, move: str, cell: str
) -> None:
    """A move from a cell to itself, however each half is written, is refused saying so,
    not as a cell off the board; nothing changes."""
    assert shared_engine.ask(f"set_board {THREE_BOARD}") == b"= \n\n"
    board = shared_engine.ask("get_board")
    refusal = shared_engine.ask(f"play {move}")
    assert refusal == f"? illegal move: '{cell}' to the same cell\n\n".encode()
    assert shared_engine.ask("get_board") == board
    assert_still_running(shared_engine)


# --- signals -----------------------------------------------------------------------------


def assert_logs_whole(log_dir: Path) -> list[dict[str, object]]:
    """Every line of both logs is whole: timestamped console lines, parseable JSON lines."""
    for raw in (log_dir / CONSOLE_LOG).read_bytes().split(b"\n")[:-1]:
        assert CONSOLE_LINE.fullmatch(raw.decode()) is not None, raw[:200]
    assert (log_dir / CONSOLE_LOG).read_bytes().endswith(b"\n")
    return read_json_log(log_dir)


#: What a pipe holds before its writer blocks (Linux's default).
PIPE_BYTES = 65_536


def wait_for_events(log_dir: Path, count: int) -> None:
    """Wait until the JSON log holds at least `count` events."""
    deadline = time.monotonic() + TIMEOUT
    while len((log_dir / JSON_LOG).read_bytes().splitlines()) < count:
        assert time.monotonic() < deadline, f"fewer than {count} events logged"
        time.sleep(0.01)


def bytes_read(pid: int) -> int:
    """How many bytes a process has read so far (rchar of /proc/PID/io)."""
    match = re.search(r"^rchar: (\d+)$", Path(f"/proc/{pid}/io").read_text(), re.MULTILINE)
    assert match is not None
    return int(match.group(1))


#: Where in the kernel a process sleeps while it waits for input: in select (the engine
#: waits there, for input or a signal) or in a read.
WAITING_FOR_INPUT = ("poll_schedule_timeout", "do_select", "pipe_read")


def wait_until_blocked_reading(pid: int, after: int = 0) -> None:
    """Wait until a process has read more than `after` bytes and sleeps waiting for input."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        if bytes_read(pid) > after:
            wchan = Path(f"/proc/{pid}/wchan").read_text()
            if wchan.startswith(WAITING_FOR_INPUT):
                return
            if wchan == "0":  # the kernel does not say where: fall back to a pause
                time.sleep(0.2)
                return
        assert time.monotonic() < deadline, "the engine never went back to reading"
        time.sleep(0.001)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("pending", [b"", b"3 na"], ids=["idle", "mid-line"])
def test_signal_ends_quietly(engine: Engine, signum: signal.Signals, pending: bytes) -> None:
    """SIGINT and SIGTERM to an engine waiting for input (idle, or inside a line) end it at
    once, quietly, exit 0, with both logs whole."""
    for number in range(20):
        assert engine.ask(f"{number} name") == f"={number} cubemate\n\n".encode()
    # The output event is logged just after the answer is sent; let it land first (the
    # moment in between is tested on its own).
    wait_for_events(engine.log_dir, 40)
    before = bytes_read(engine.pid)
    engine.send(pending)
    wait_until_blocked_reading(engine.pid, before + len(pending) - 1)
    engine.signal(signum)
    engine.process.wait(timeout=TIMEOUT)
    code, rest, err = engine.finish()
    assert err == b""
    assert rest == b""
    assert code == 0
    events = assert_logs_whole(engine.log_dir)
    assert [event["event"] for event in events] == ["input", "output"] * 20
    assert len(read_console_log(engine.log_dir)) == 40
    end = read_json_log(engine.log_dir, session=True)[-1]
    assert (end["event"], end["reason"], end["signal"]) == ("exit", "signal", signum.name)
    assert read_console_log(engine.log_dir, session=True)[-1].text == f"exit: signal {signum.name}"


def test_signal_as_part_of_a_line_arrives(log_dir: Path) -> None:
    """A signal that lands just as the first bytes of a line are read still ends the engine.

    The moment cannot be forced from outside, so eight engines try it at once; an engine that
    misses the signal would wait for the rest of the line for ever."""
    engines = [Engine(log_dir / str(index)) for index in range(8)]
    try:
        for engine in engines:
            assert engine.ask("name") == b"= cubemate\n\n"
        for engine in engines:
            wait_until_blocked_reading(engine.pid)
        for index, engine in enumerate(engines):
            engine.send(b"3 na")
            engine.signal(signal.SIGTERM if index % 2 else signal.SIGINT)
        deadline = time.monotonic() + 10
        stuck = []
        for engine in engines:
            try:
                engine.process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                stuck.append(engine.pid)
        assert not stuck, f"{len(stuck)} of 8 engines ignored the signal, waiting for a newline"
        for engine in engines:
            assert engine.finish() == (0, b"", b"")
    finally:
        for engine in engines:
            engine.kill()


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_signal_while_output_is_blocked(engine: Engine, signum: signal.Signals) -> None:
    """A signal while the engine is stuck writing to a full pipe nobody reads still ends it."""

    def flood() -> None:
        with contextlib.suppress(BrokenPipeError, ValueError, OSError):
            engine.send(b"list_commands\n" * 20_000)

    answer = engine.ask("list_commands")
    writer = threading.Thread(target=flood, daemon=True)
    writer.start()
    # Wait until the answers fill more than half a pipe (64 KiB on Linux): by then the engine
    # is writing faster than anyone reads, and soon blocks. Each answer is two events.
    wait_for_events(engine.log_dir, 2 + 2 * (PIPE_BYTES // 2 // len(answer)))
    engine.signal(signum)
    engine.process.wait(timeout=TIMEOUT)  # without reading stdout
    code, _, err = engine.finish()
    assert err == b""
    assert code == 0
    assert_logs_whole(engine.log_dir)


class SignalAfterSecondAnswer(io.BytesIO):
    """A stdout that sends the engine a signal the moment its second answer has gone out."""

    def __init__(self, signum: signal.Signals) -> None:
        super().__init__()
        self.signum = signum
        self.sent = False

    def flush(self) -> None:
        super().flush()
        if not self.sent and self.getvalue().count(b"\n\n") == 2:
            self.sent = True
            # To this thread, as the kernel would deliver it to the single-threaded engine.
            signal.pthread_kill(threading.get_ident(), self.signum)


class FakeStream:
    """sys.stdin or sys.stdout for main(): a binary buffer, not a terminal."""

    def __init__(self, buffer: BinaryIO) -> None:
        self.buffer = buffer

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        return self.buffer.fileno()


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_signal_just_after_an_answer_still_logs_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, signum: signal.Signals
) -> None:
    """A signal arriving right after an answer went out: that exchange is in both logs."""
    import main

    out = SignalAfterSecondAnswer(signum)
    read_end, write_end = os.pipe()
    os.write(write_end, b"1 name\n2 name\n3 name\n")
    os.close(write_end)
    stdin = open(read_end, "rb")  # noqa: SIM115 - closed below
    monkeypatch.setattr(sys, "stdin", FakeStream(stdin))
    monkeypatch.setattr(sys, "stdout", FakeStream(out))
    previous = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        assert main.main(["--log-dir", str(tmp_path)]) == 0
    finally:
        stdin.close()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    assert out.sent
    answered = split_responses(out.getvalue())
    assert answered[:2] == [b"=1 cubemate\n\n", b"=2 cubemate\n\n"]
    events = read_json_log(tmp_path)
    assert [(event["event"], event["id"]) for event in events] == [
        (kind, number + 1) for number in range(len(answered)) for kind in ("input", "output")
    ]
    texts = [line.text for line in read_console_log(tmp_path)]
    assert texts == [
        text
        for number in range(len(answered))
        for text in (f"# {number + 1} name", f"={number + 1} cubemate")
    ]


def test_reader_goes_away(engine: Engine) -> None:
    """SIGPIPE: the reader closes stdout; the engine exits at its next answer, no traceback."""
    assert engine.ask("name") == b"= cubemate\n\n"
    stdout = engine.process.stdout
    assert stdout is not None
    stdout.close()
    try:
        for _ in range(100):
            engine.send(b"list_commands\n")
    except BrokenPipeError:
        pass
    code = engine.process.wait(timeout=TIMEOUT)
    stderr = engine.process.stderr
    assert stderr is not None
    err = stderr.read()
    assert err == b"", err.decode(errors="replace")
    assert code == 0
    events = assert_logs_whole(engine.log_dir)
    assert (events[0]["event"], events[0]["line"]) == ("input", "name")
    assert (events[1]["event"], events[1]["response"]) == ("output", "= cubemate")
    end = read_json_log(engine.log_dir, session=True)[-1]
    assert (end["event"], end["reason"]) == ("exit", "output closed")


# --- logs that cannot be written --------------------------------------------------------------


def _dir_under_a_file(tmp_path: Path) -> Path:
    (tmp_path / "a_file").write_text("not a folder")
    return tmp_path / "a_file" / "logs"


def _dir_is_a_file(tmp_path: Path) -> Path:
    (tmp_path / "a_file").write_text("not a folder")
    return tmp_path / "a_file"


def _dir_in_proc(tmp_path: Path) -> Path:
    return Path("/proc/cubemate-cannot-be-here/logs")


def _both_to_dev_full(tmp_path: Path) -> Path:
    folder = tmp_path / "full"
    folder.mkdir()
    (folder / CONSOLE_LOG).symlink_to("/dev/full")
    (folder / JSON_LOG).symlink_to("/dev/full")
    return folder


UNWRITABLE = {
    "under a regular file": _dir_under_a_file,
    "a regular file": _dir_is_a_file,
    "in /proc": _dir_in_proc,
    "disk full": _both_to_dev_full,
}


@pytest.mark.parametrize("case", list(UNWRITABLE))
def test_unwritable_logs_one_warning(tmp_path: Path, case: str) -> None:
    """Logs that cannot be written: every answer still comes, with one warning on stderr."""
    folder = UNWRITABLE[case](tmp_path)
    lines = [f"{number} name" for number in range(50)] + ["list_commands", "frobnicate"]
    result = run_engine(("\n".join(lines) + "\n").encode(), folder)
    responses = split_responses(result.stdout)
    assert responses[:50] == [f"={number} cubemate\n\n".encode() for number in range(50)]
    assert responses[-1] == b"? unknown command 'frobnicate'\n\n"
    assert len(responses) == 52
    assert result.returncode == 0
    stderr = result.stderr.decode()
    assert stderr.count("\n") == 1 and stderr.endswith("\n"), stderr
    assert stderr.startswith("cubemate: warning: "), stderr


def _close_stderr() -> None:
    os.close(2)


@pytest.mark.parametrize("stderr", ["closed", "reader gone"])
def test_unwritable_logs_and_no_stderr(tmp_path: Path, stderr: str) -> None:
    """Logs that cannot be written and no stderr to warn on: stdout still holds only the
    answers, and the engine exits 0."""
    folder = _dir_under_a_file(tmp_path)
    data = b"name\n1 name\n"
    read_end, write_end = os.pipe()
    os.close(read_end)  # for "reader gone": a stderr pipe nobody reads
    stderr_setup: dict[str, Any] = (
        {"preexec_fn": _close_stderr} if stderr == "closed" else {"stderr": write_end}
    )
    try:
        result = subprocess.run(
            engine_command(folder),
            input=data,
            stdout=subprocess.PIPE,
            cwd=REPO,
            timeout=TIMEOUT,
            check=False,
            **stderr_setup,
        )
    finally:
        os.close(write_end)
    assert result.stdout == b"= cubemate\n\n=1 cubemate\n\n"
    assert result.returncode == 0


def test_one_log_full_the_other_complete(tmp_path: Path) -> None:
    """The console log on a full disk: one warning naming it, and the JSON log still complete."""
    folder = tmp_path / "half"
    folder.mkdir()
    (folder / CONSOLE_LOG).symlink_to("/dev/full")
    lines = [f"{number} name" for number in range(30)]
    result = run_engine(("\n".join(lines) + "\n").encode(), folder)
    assert len(split_responses(result.stdout)) == 30
    stderr = result.stderr.decode()
    assert stderr.count("\n") == 1 and CONSOLE_LOG in stderr, stderr
    assert len(read_json_log(folder)) == 60


# --- several engines, one log folder ------------------------------------------------------------


def test_four_engines_share_one_log_folder(tmp_path: Path) -> None:
    """Four engines logging at once into one folder: every line whole, no event lost."""
    log_dir = tmp_path / "shared"
    lines = [
        "boardsize 12",
        *[
            cmd
            for number in range(100)
            for cmd in (f"{number} get_board", "showboard", "frobnicate", "list_commands")
        ],
    ]
    script = ("\n".join(lines) + "\n").encode()
    (tmp_path / "in").write_bytes(script)
    outputs = [tmp_path / f"out{index}" for index in range(4)]
    errors = [tmp_path / f"err{index}" for index in range(4)]
    processes = []
    # Input and output are files, so all four run flat out at once, not paced by this test.
    for output, error in zip(outputs, errors, strict=True):
        with (
            (tmp_path / "in").open("rb") as stdin,
            output.open("wb") as stdout,
            error.open("wb") as stderr,
        ):
            processes.append(
                subprocess.Popen(
                    engine_command(log_dir), stdin=stdin, stdout=stdout, stderr=stderr, cwd=REPO
                )
            )
    for process in processes:
        assert process.wait(timeout=TIMEOUT) == 0
    expected_output = outputs[0].read_bytes()
    assert len(split_responses(expected_output)) == len(lines)
    for output, error in zip(outputs, errors, strict=True):
        assert output.read_bytes() == expected_output
        assert error.read_bytes() == b""

    events = read_json_log(log_dir)
    per_pid = Counter((event["pid"], event["event"]) for event in events)
    for process in processes:
        assert per_pid[(process.pid, "input")] == len(lines)
        assert per_pid[(process.pid, "output")] == 301
        assert per_pid[(process.pid, "error")] == 100
    assert len(events) == 4 * 2 * len(lines)

    console = read_console_log(log_dir)
    # Per exchange: the input line, plus one line per line of the response text (its
    # newline count, less the closing empty line).
    per_engine = sum(response.count(b"\n") for response in split_responses(expected_output))
    assert len(console) == 4 * per_engine
    # Each multi-line response is written in one piece, so it appears whole, uninterleaved.
    texts = "\n".join(line.text for line in console)
    for response in {r.decode().rstrip("\n") for r in split_responses(expected_output)}:
        assert texts.count(response) >= 4


@pytest.mark.parametrize("closed", [0, 1], ids=["stdin", "stdout"])
def test_started_with_stdin_or_stdout_closed(log_dir: Path, closed: int) -> None:
    """An engine started with fd 0 or fd 1 closed exits 0, quietly, instead of crashing."""
    result = subprocess.run(
        engine_command(log_dir),
        input=b"name\n",
        capture_output=True,
        cwd=REPO,
        timeout=TIMEOUT,
        check=False,
        preexec_fn=lambda: os.close(closed),
    )
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
