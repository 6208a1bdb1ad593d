"""`savegame FILE` through the engine process (docs/protocol.md, "A whole game"): it writes the
record printgame writes, replaces only its own record of the same game, and refuses links,
FIFOs, folders and other files without touching them; a saved game loads, goes on and is
saved again.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from kernel.record import parse_records
from tests.conftest import MAIN, REPO, TIMEOUT, Engine, assert_still_running

#: Five plies of 5³ (tests/test_terminal_game.py's game), long and short: play reads both.
OPENING = ["Qc2(I)-c4(III)", "Qxc4(III)", "Kd2(II)", "nd5(V)-d3(IV)", "Kd2(II)-e3(I)"]


def say(engine: Engine, line: str) -> str:
    """Ask one line; return `= text` as `text` and `? text` as `? text`."""
    response = engine.ask(line).decode()
    assert response.endswith("\n\n"), response
    head, text = response[:-2].split(" ", 1) if " " in response[:-2] else (response[:-2], "")
    return text if head == "=" else f"? {text}"


def new_game(engine: Engine, plies: list[str]) -> None:
    assert say(engine, "new_game 5") == ""
    for ply in plies:
        assert say(engine, f"play {ply}") == "", ply


def test_a_saved_game_loads_goes_on_and_is_saved_again(
    shared_engine: Engine, tmp_path: Path
) -> None:
    record = tmp_path / "game.txt"
    new_game(shared_engine, OPENING[:2])
    assert say(shared_engine, f"savegame {record}") == ""
    (saved,) = parse_records(record.read_text(encoding="utf-8"))
    assert saved.moves == ["Qc4(III)", "Qxc4(III)"]
    assert saved.headers["Program"].startswith("cubemate ")
    board = say(shared_engine, "get_board")
    # The same game, further on: the file is replaced.
    for ply in OPENING[2:4]:
        assert say(shared_engine, f"play {ply}") == ""
    assert say(shared_engine, f"savegame {record}") == ""
    (saved,) = parse_records(record.read_text(encoding="utf-8"))
    assert saved.moves == ["Qc4(III)", "Qxc4(III)", "Kd2(II)", "Nd3(IV)+"]
    # Loaded at ply 2, the game goes on another way: that would lose two plies of the file.
    assert say(shared_engine, f"loadgame {record} 2") == ""
    assert say(shared_engine, "get_board") == board
    assert say(shared_engine, "play Nbc3(I)") == ""
    before = record.read_bytes()
    refusal = say(shared_engine, f"savegame {record}")
    assert refusal == (
        f"? {repr(str(record)) if len(str(record)) <= 60 else repr('...' + str(record)[-57:])}"
        " exists and is not a record of this game: it holds 4 plies, this game has 3;"
        " nothing was changed"
    )
    assert record.read_bytes() == before
    # Loaded whole, it goes on and is saved again, its headers kept.
    assert say(shared_engine, f"loadgame {record}") == ""
    assert say(shared_engine, f"play {OPENING[4]}") == ""
    assert say(shared_engine, f"savegame {record}") == ""
    (saved,) = parse_records(record.read_text(encoding="utf-8"))
    assert saved.moves[-1] == "Ke3(I)" and len(saved.moves) == 5
    assert say(shared_engine, f"loadgame {record}") == ""
    assert say(shared_engine, "printgame").endswith("\n3. Ke3(I)")
    assert_still_running(shared_engine)


def refusal_of(engine: Engine, path: Path) -> str:
    new_game(engine, OPENING[:1])
    answer = say(engine, f"savegame {path}")
    assert answer.startswith("? "), answer
    return answer


def test_another_game_or_file_is_never_replaced(shared_engine: Engine, tmp_path: Path) -> None:
    mine = tmp_path / "mine.txt"
    new_game(shared_engine, OPENING)
    assert say(shared_engine, f"savegame {mine}") == ""
    kept = mine.read_bytes()
    # Another game (the same start, other moves) on the same file.
    new_game(shared_engine, ["Nb1(I)-c3(I)"])
    assert "is not a record of this game" in say(shared_engine, f"savegame {mine}")
    assert mine.read_bytes() == kept
    # A file that is no record, a record of another program, two records in one file.
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n", encoding="utf-8")
    assert "exists and is not a game record" in refusal_of(shared_engine, notes)
    other = tmp_path / "other.txt"
    other.write_text(kept.decode().replace("Program: ", "Tool: "), encoding="utf-8")
    assert "not a record cubemate's savegame wrote" in refusal_of(shared_engine, other)
    twice = tmp_path / "twice.txt"
    twice.write_text(kept.decode() + "\n" + kept.decode(), encoding="utf-8")
    assert "not one record but 2" in refusal_of(shared_engine, twice)
    for path, text in ((notes, b"my notes\n"), (twice, kept + b"\n" + kept)):
        assert path.read_bytes() == text
    assert_still_running(shared_engine)


def test_links_fifos_and_folders_are_refused_untouched(
    shared_engine: Engine, tmp_path: Path
) -> None:
    target = tmp_path / "target.txt"
    target.write_text("someone's file\n", encoding="utf-8")
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    assert "is a symbolic link" in refusal_of(shared_engine, link)
    assert target.read_text(encoding="utf-8") == "someone's file\n" and link.is_symlink()
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    # Opened without blocking: no writer or reader ever comes, and the engine answers at once.
    assert "is not a regular file" in refusal_of(shared_engine, fifo)
    assert "is a directory" in refusal_of(shared_engine, tmp_path)
    assert "No such file or directory" in refusal_of(shared_engine, tmp_path / "no" / "x.txt")
    assert sorted(path.name for path in tmp_path.iterdir()) == ["fifo", "link.txt", "target.txt"]
    assert_still_running(shared_engine)


@pytest.mark.parametrize("arguments", ["", "a b"])
def test_savegame_takes_one_file(shared_engine: Engine, arguments: str) -> None:
    assert say(shared_engine, f"savegame {arguments}".rstrip()) == (
        "? wrong number of arguments, usage: savegame FILE"
    )


def test_the_notation_key_makes_legal_moves_and_genmove_short(tmp_path: Path) -> None:
    """`[protocol] notation = "short"`: legal_moves and genmove write short, play reads both;
    another value stops the engine at start, naming the key."""
    config = tmp_path / "short.toml"
    config.write_text('[protocol]\nnotation = "short"\n[play]\ndepth = 1\n', encoding="utf-8")
    lines = "new_game 5\nlegal_moves\nplay Nbc3(I)\nplay qc4(V)-c1(V)\nlegal_moves\ngenmove\n"
    done = subprocess.run(
        [sys.executable, str(MAIN), "--log-dir", str(tmp_path / "logs"), "--config", str(config)],
        input=(lines + "printgame long\n").encode(),
        capture_output=True,
        cwd=REPO,
        timeout=TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    answers = [answer.removeprefix("=").strip() for answer in done.stdout.decode().split("\n\n")]
    moves = answers[1].split()
    assert {"Nbc3(I)", "Qc4(III)", "Kb1(II)"} <= set(moves) and not any("-" in m for m in moves)
    assert answers[2:4] == ["", ""]
    # In check from the queen on c1(V): the answers, short, with their signs.
    replies = answers[4].split()
    assert answers[5] in replies and "Qc2(I)" not in replies, (answers[5], replies)
    # The record written long whatever the key: the genmove's move too.
    *_, first, second = answers[6].split("\n")
    assert first == "1. Nb1(I)-c3(I) qc4(V)-c1(V)"
    assert re.fullmatch(r"2\. [KQRBN][a-e][1-5]\([IV]+\)[-x][a-e][1-5]\([IV]+\)", second), second
    config.write_text('[protocol]\nnotation = "san"\n', encoding="utf-8")
    refused = subprocess.run(
        [sys.executable, str(MAIN), "--log-dir", str(tmp_path / "logs"), "--config", str(config)],
        input=b"",
        capture_output=True,
        cwd=REPO,
        timeout=TIMEOUT,
        check=False,
    )
    assert refused.returncode == 2
    assert b"protocol.notation: 'san' is not one of 'long', 'short'" in refused.stderr
