"""The log files through a full disk and a move: whole lines only, and logging that comes back.

A full disk is made without root: the engine runs under a file size limit (RLIMIT_FSIZE, set
in the child), which cuts a write short at that size exactly as a full disk does, and fails
every write past it; each log is filled beforehand to just under the limit, so where the cut
falls is known. /dev/full, where every write fails, is tested in test_robustness.py.
"""

from __future__ import annotations

import json
import os
import re
import resource
import time
from pathlib import Path

import orjson
import pytest

from kernel.logfile import whole_line
from tests.conftest import (
    CONSOLE_LINE,
    CONSOLE_LOG,
    JSON_LOG,
    TIMEOUT,
    Engine,
    default_signals,
)

#: The largest file the limited engines may write.
SIZE_LIMIT = 256 * 1024
#: How much room each log has left under the limit when a limited engine starts: less than
#: its first line, the `start` event, so that line is cut short.
ROOM = {JSON_LOG: 100, CONSOLE_LOG: 50}


def limit_file_size() -> None:
    """In the child: no file may grow past SIZE_LIMIT (a write is cut short there)."""
    default_signals()
    resource.setrlimit(resource.RLIMIT_FSIZE, (SIZE_LIMIT, SIZE_LIMIT))


def earlier_line(name: str, length: int) -> bytes:
    """A whole line of `length` bytes (80 or more) of an earlier engine, for log `name`."""
    if name == JSON_LOG:
        head, tail = b'{"pid":1,"event":"earlier","pad":"', b'"}\n'
    else:
        head, tail = b"2026-01-01T00:00:00.000000Z [1] earlier ", b"\n"
    return head + b"x" * (length - len(head) - len(tail)) + tail


def fill(log_dir: Path) -> None:
    """Fill both logs with whole lines of an earlier engine, up to ROOM under the limit."""
    log_dir.mkdir(parents=True, exist_ok=True)
    for name, room in ROOM.items():
        size = SIZE_LIMIT - room
        count = size // 100 - 1
        (log_dir / name).write_bytes(
            earlier_line(name, 100) * count + earlier_line(name, size - 100 * count)
        )


def json_lines(log_dir: Path) -> list[dict[str, object]]:
    """Every line of the JSON log, each a JSON object; fail on anything else."""
    data = (log_dir / JSON_LOG).read_bytes()
    assert data.endswith(b"\n"), data[-200:]
    lines = [json.loads(line) for line in data.split(b"\n")[:-1]]
    assert all(isinstance(line, dict) for line in lines)
    return lines


def console_lines(log_dir: Path) -> list[str]:
    """Every line of the console log, each timestamped or a torn line's marker."""
    text = (log_dir / CONSOLE_LOG).read_text(encoding="utf-8")
    assert text.endswith("\n"), text[-200:]
    lines = text.split("\n")[:-1]
    for line in lines:
        assert CONSOLE_LINE.fullmatch(line) or line.rstrip() == "(torn line)", line[:200]
    return lines


def engine_lines(lines: list[dict[str, object]], pid: int) -> list[str]:
    """The events of one engine, by name."""
    return [str(line["event"]) for line in lines if line.get("pid") == pid]


def ask_names(engine: Engine, count: int) -> None:
    for number in range(count):
        assert engine.ask(f"{number} name") == f"={number} cubemate\n\n".encode()


def one_warning(err: bytes, about: str) -> None:
    """stderr holds exactly one line, a warning that names `about`."""
    text = err.decode()
    assert text.count("\n") == 1 and text.startswith("cubemate: warning: "), text
    assert about in text, text


def test_a_write_cut_short_becomes_a_whole_line(log_dir: Path, engines: list[Engine]) -> None:
    """The first line each log cannot hold whole is cut short by the limit: what was written
    of it becomes a whole line of the same length, a marker, so that both logs end in whole
    lines; every answer still comes, with one warning."""
    fill(log_dir)
    engine = Engine(log_dir, preexec=limit_file_size)
    engines.append(engine)
    ask_names(engine, 30)
    assert engine.ask("frobnicate") == b"? unknown command 'frobnicate'\n\n"
    code, rest, err = engine.finish()
    assert (code, rest) == (0, b"")
    one_warning(err, "cannot write log")
    assert (log_dir / JSON_LOG).stat().st_size == SIZE_LIMIT
    last = (log_dir / JSON_LOG).read_bytes()[-ROOM[JSON_LOG] :]
    assert last == orjson.dumps({"pid": engine.pid, "event": "torn"}).ljust(99) + b"\n"
    assert json_lines(log_dir)[-1] == {"pid": engine.pid, "event": "torn"}
    assert (log_dir / CONSOLE_LOG).stat().st_size == SIZE_LIMIT
    assert console_lines(log_dir)[-1] == "(torn line)".ljust(ROOM[CONSOLE_LOG] - 1)


def test_an_engine_sharing_the_logs_never_meets_a_torn_line(
    log_dir: Path, engines: list[Engine]
) -> None:
    """One engine's write is cut short by the limit; another engine, with no limit, appends
    to the same files after it: every line of both logs is whole, and none of the second
    engine's events is lost."""
    fill(log_dir)
    limited = Engine(log_dir, preexec=limit_file_size)
    engines.append(limited)
    ask_names(limited, 1)  # its start event, cut short, is behind it
    free = Engine(log_dir)
    engines.append(free)
    for number in range(50):
        assert free.ask(f"{number} name") == f"={number} cubemate\n\n".encode()
        assert limited.ask(f"{number} name") == f"={number} cubemate\n\n".encode()
    assert free.finish() == (0, b"", b"")
    code, _, err = limited.finish()
    assert code == 0
    one_warning(err, "cannot write log")
    lines = json_lines(log_dir)
    assert engine_lines(lines, free.pid) == ["start", *["input", "output"] * 50, "exit"]
    assert engine_lines(lines, limited.pid) == ["torn"]
    console = console_lines(log_dir)
    assert sum(f" [{free.pid}] " in line for line in console) == 2 + 2 * 50
    assert console.count("(torn line)".ljust(ROOM[CONSOLE_LOG] - 1)) == 1


def test_logging_comes_back_when_there_is_room_again(log_dir: Path, engines: list[Engine]) -> None:
    """Logs that could not be written are tried again: once there is room (here both files
    are emptied, as logrotate's copytruncate does), each starts again with a note of the
    events it lost, then the events, whole. One warning in all."""
    fill(log_dir)
    engine = Engine(log_dir, preexec=limit_file_size)
    engines.append(engine)
    ask_names(engine, 5)
    for name in ROOM:
        os.truncate(log_dir / name, 0)
    deadline = time.monotonic() + TIMEOUT
    number = 100
    while not (log_dir / JSON_LOG).read_bytes().count(b'"event":"output"') >= 2:
        assert time.monotonic() < deadline, "logging never came back"
        assert engine.ask(f"{number} name") == f"={number} cubemate\n\n".encode()
        number += 1
        time.sleep(0.05)
    code, rest, err = engine.finish()
    assert (code, rest) == (0, b"")
    one_warning(err, "cannot write log")
    gap, *events = json_lines(log_dir)
    assert (gap["event"], gap["level"], gap["pid"]) == ("dropped", "warning", engine.pid)
    # The start event, cut short, and the five exchanges at least.
    assert isinstance(gap["count"], int) and gap["count"] >= 1 + 2 * 5
    # Why the last try failed: the write cut short, or one past the limit.
    reason = str(gap["reason"])
    assert reason == "File too large" or re.fullmatch(r"only \d+ of \d+ bytes fitted", reason)
    names = [event["event"] for event in events]
    if names[0] == "output":  # the log came back at the answer of a command
        names = names[1:]
    assert names == [*["input", "output"] * (len(names) // 2), "exit"]
    console = console_lines(log_dir)
    assert " dropped: " in console[0] and " events not written (" in console[0]
    assert console[-1].endswith("exit: end of input")


@pytest.mark.parametrize("how", ["renamed", "deleted"])
def test_a_log_moved_or_deleted_is_started_again(
    log_dir: Path, engines: list[Engine], how: str
) -> None:
    """Both logs renamed, or deleted, while the engine runs: one warning, and new logs at the
    same paths, holding whole lines; a renamed log keeps what was written to it."""
    engine = Engine(log_dir)
    engines.append(engine)
    ask_names(engine, 3)
    for name in (JSON_LOG, CONSOLE_LOG):
        if how == "renamed":
            (log_dir / name).rename(log_dir / f"{name}.1")
        else:
            (log_dir / name).unlink()
    deadline = time.monotonic() + TIMEOUT
    number = 100
    while not ((log_dir / JSON_LOG).exists() and (log_dir / CONSOLE_LOG).exists()):
        assert time.monotonic() < deadline, "the logs were never started again"
        assert engine.ask(f"{number} name") == f"={number} cubemate\n\n".encode()
        number += 1
        time.sleep(0.05)
    assert engine.ask("999 name") == b"=999 cubemate\n\n"
    code, rest, err = engine.finish()
    assert (code, rest) == (0, b"")
    one_warning(err, "was moved or deleted")
    events = [event["event"] for event in json_lines(log_dir)]
    assert events[-3:] == ["input", "output", "exit"]
    assert console_lines(log_dir)[-1].endswith("exit: end of input")
    if how == "renamed":
        moved = (log_dir / f"{JSON_LOG}.1").read_bytes()
        assert moved.startswith(b'{"pid":') and moved.endswith(b"\n")
        assert [json.loads(line)["event"] for line in moved.splitlines()][:7] == [
            "start",
            *["input", "output"] * 3,
        ]


# --- in process: the line a cut write becomes -----------------------------------------------


@pytest.mark.parametrize("size", [1, 2, 3, 10, 24, 25, 100])
def test_whole_line_fits_exactly(size: int) -> None:
    """A whole line of exactly the size given: the first marker that fits with its newline,
    padded with spaces, or only spaces; one newline, last."""
    torn = b'{"pid":1,"event":"torn"}'  # 24 bytes
    line = whole_line(size, (torn, b"{}"))
    assert len(line) == size and line.endswith(b"\n") and line.count(b"\n") == 1
    expected = torn if size > len(torn) else b"{}" if size > 2 else b""
    assert line.rstrip() == expected
