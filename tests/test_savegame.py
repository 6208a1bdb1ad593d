"""`savegame FILE` through the engine process (docs/protocol.md, "A whole game"): it writes the
record printgame writes, replaces only its own record of the same game, and refuses links,
FIFOs, folders and other files without touching them; a saved game loads, goes on and is
saved again.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kernel.records.record import parse_records
from kernel.records.replay import file_name
from tests.conftest import CONSOLE_LOG, MAIN, REPO, TIMEOUT, Engine, assert_still_running
from tests.test_interrupt import wait_for_input

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


# --- issue 63, item 3: two engines saving one file at once ------------------------------------

#: Rounds of the race, and the most seconds it may take (whichever ends it first).
RACE_ROUNDS = 150
RACE_SECONDS = 5.0
RACE_COMMENT_LINES = 10_000


def test_two_engines_saving_one_file_at_once_never_both_succeed(tmp_path: Path) -> None:
    """Two engine processes, each with its own game, save over one file (a record of their
    common start) at the same moment, round after round. Before, both were told `=` in 65 of
    400 rounds and one record was gone. Now the check and the replacement are one step: each
    round exactly one is told `=`, the file holds its record, and the other is refused with a
    reason, the file left as the first wrote it."""
    engines = [Engine(tmp_path / "logs-a"), Engine(tmp_path / "logs-b")]
    try:
        first_moves = ["Bb2(I)-a1(II)", "Na2(I)-a4(II)"]
        for engine in engines:
            assert say(engine, "new_game 5") == ""
        template = tmp_path / "start.txt"
        assert say(engines[0], f"savegame {template}") == ""
        # Comments a person wrote (kept by every save) make the check long enough for the two
        # to overlap: a tenth of a second.
        with template.open("a", encoding="utf-8") as file:
            file.write("# a note\n" * RACE_COMMENT_LINES)
        for engine, move in zip(engines, first_moves, strict=True):
            assert say(engine, f"play {move}") == ""
        moves = [parse_records(say(engine, "printgame"))[0].moves for engine in engines]
        assert moves[0] != moves[1]
        rounds = overlapped = 0
        started = time.monotonic()
        while rounds < RACE_ROUNDS and time.monotonic() - started < RACE_SECONDS:
            target = tmp_path / f"game-{rounds}.txt"
            shutil.copyfile(template, target)
            for engine in engines:
                engine.send(f"savegame {target}\n".encode())
            answers = [engine.read_response().decode() for engine in engines]
            told = [index for index, answer in enumerate(answers) if answer == "= \n\n"]
            assert len(told) == 1, (rounds, answers)
            (winner,) = told
            loser = answers[1 - winner]
            assert loser.startswith(f"? {file_name(str(target))} "), loser
            assert loser.endswith("; nothing was changed\n\n"), loser
            overlapped += "is being saved by another engine" in loser
            (saved,) = parse_records(target.read_text(encoding="utf-8"))
            assert saved.moves == moves[winner]
            rounds += 1
        assert rounds >= 5, f"only {rounds} rounds in {RACE_SECONDS} s"
        assert overlapped, "the two saves never overlapped: the race was not run"
        for engine in engines:
            assert_still_running(engine)
    finally:
        for engine in engines:
            engine.kill()


def test_a_file_another_savegame_holds_is_refused_until_its_holder_dies(
    shared_engine: Engine, tmp_path: Path
) -> None:
    """While another process holds a record's lock (as an engine does from its check to its
    replacement), savegame is refused at once and the file stays as it is; once the holder
    dies (SIGKILL: no clean-up runs), the lock is gone with it and the save goes through.
    Before, savegame took no lock and replaced the file under the other writer."""
    record = tmp_path / "game.txt"
    new_game(shared_engine, OPENING[:1])
    assert say(shared_engine, f"savegame {record}") == ""
    assert say(shared_engine, f"play {OPENING[1]}") == ""
    before = record.read_bytes()
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, os, sys, time\n"
            "fd = os.open(sys.argv[1], os.O_RDONLY)\n"
            "fcntl.flock(fd, fcntl.LOCK_EX)\n"
            "print('held', flush=True)\n"
            "time.sleep(60)\n",
            str(record),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        assert say(shared_engine, f"savegame {record}") == (
            f"? {file_name(str(record))} is being saved by another engine; nothing was changed"
        )
        assert record.read_bytes() == before
    finally:
        holder.kill()
        holder.wait(timeout=TIMEOUT)
    assert say(shared_engine, f"savegame {record}") == ""
    (saved,) = parse_records(record.read_text(encoding="utf-8"))
    assert saved.moves == ["Qc4(III)", "Qxc4(III)"]
    assert sorted(path.name for path in tmp_path.iterdir()) == ["game.txt"]  # no lock file
    assert_still_running(shared_engine)


# --- issue 63, item 4: what a person wrote into a saved record ---------------------------------


def test_saving_again_keeps_what_a_person_wrote(shared_engine: Engine, tmp_path: Path) -> None:
    """A person adds headers, comments and a Result to a record savegame wrote; the engine,
    which never read them, saves the game again. Before, all of it was replaced silently. Now
    every line of theirs stays as written, line ends and all; the moves are added after theirs
    (the last move line completed); a Result the engine did not write is kept while the game
    has no more moves than the file, and refused, naming it, once keeping it would lose it."""
    record = tmp_path / "game.txt"
    new_game(shared_engine, OPENING[:3])
    assert say(shared_engine, f"savegame {record}") == ""
    lines = record.read_text(encoding="utf-8").splitlines()
    assert lines[:3] == ["Size: 5", lines[1], "Result: *"] and lines[-1] == "2. Kd2(II)"
    date = next(line for line in lines if line.startswith("Date: "))
    edited = [
        "# Club night, board 3",
        *lines[:2],
        "Result: 1/2-1/2 (agreed)",
        "White: Alice",
        "Event: club night",
        *[line for line in lines[3:] if line.startswith(("Date:", "Program:"))],
        "Round: 4",
        "1. Qc2(I)-c4(III)   Qxc4(III)",  # long, as Alice wrote it
        "# the queens are gone",
        lines[-1],
        "",
        "# analysis follows next week",
    ]
    # The line break of the file is Windows': it stays so.
    record.write_bytes("\r\n".join(edited).encode() + b"\r\n")
    assert say(shared_engine, "loadgame " + str(record)) == ""  # a record the engine reads
    new_game(shared_engine, OPENING[:3])  # the game again, the file's headers unknown to it
    assert say(shared_engine, f"savegame {record}") == ""
    assert record.read_bytes() == "\r\n".join(edited).encode() + b"\r\n"
    # One ply more: the agreed draw would be lost (or contradicted by a move after it).
    assert say(shared_engine, f"play {OPENING[3]}") == ""
    before = record.read_bytes()
    assert say(shared_engine, f"savegame {record}") == (
        f"? {file_name(str(record))} says Result: 1/2-1/2 (agreed), which savegame did not"
        " write, and this game has 1 ply more: saving would lose it; nothing was changed"
    )
    assert record.read_bytes() == before
    # The person takes the result back; the game goes on and is saved, all else kept.
    record.write_bytes(before.replace(b"1/2-1/2 (agreed)", b"*"))
    assert say(shared_engine, f"play {OPENING[4]}") == ""
    assert say(shared_engine, f"savegame {record}") == ""
    expected = [line.replace("1/2-1/2 (agreed)", "*") for line in edited]
    expected[expected.index("2. Kd2(II)")] = "2. Kd2(II) Nd3(IV)+"
    expected.insert(expected.index("2. Kd2(II) Nd3(IV)+") + 1, "3. Ke3(I)")
    assert record.read_bytes() == "\r\n".join(expected).encode() + b"\r\n"
    assert date in expected
    # Loaded, it is the game with the person's headers.
    assert say(shared_engine, f"loadgame {record}") == ""
    (loaded,) = parse_records(say(shared_engine, "printgame"))
    assert loaded.result == "*" and len(loaded.moves) == 5
    assert {"White": "Alice", "Event": "club night", "Round": "4"}.items() <= loaded.headers.items()
    assert_still_running(shared_engine)


def test_saving_again_adds_the_games_headers_and_keeps_the_files(
    shared_engine: Engine, tmp_path: Path
) -> None:
    """Headers the game has and the file lacks (read by loadgame from another copy) are
    added after the file's; a header both have keeps the file's value; Program is the
    engine's, and says its version."""
    record = tmp_path / "game.txt"
    copy = tmp_path / "copy.txt"
    new_game(shared_engine, OPENING[:2])
    assert say(shared_engine, f"savegame {record}") == ""
    text = record.read_text(encoding="utf-8")
    copy.write_text(
        text.replace("Result: *\n", "Result: *\nWhite: Bob\nBlack: Carol\n"), encoding="utf-8"
    )
    record.write_text(
        text.replace("Result: *\n", "Result: *\nWhite: Alice\n").replace(
            "Program: cubemate ", "Program: cubemate 0.0.1 (old) "
        ),
        encoding="utf-8",
    )
    assert say(shared_engine, f"loadgame {copy}") == ""
    assert say(shared_engine, f"play {OPENING[2]}") == ""
    assert say(shared_engine, f"savegame {record}") == ""
    (saved,) = parse_records(record.read_text(encoding="utf-8"))
    program = parse_records(copy.read_text(encoding="utf-8"))[0].headers["Program"]
    assert saved.headers == {
        "White": "Alice",
        "Date": saved.headers["Date"],
        "Program": program,
        "Black": "Carol",
    }
    assert list(saved.headers) == ["White", "Date", "Program", "Black"]
    assert saved.moves == ["Qc4(III)", "Qxc4(III)", "Kd2(II)"]
    assert_still_running(shared_engine)


# --- issue 63, item 6: SIGUSR1 while savegame checks a long record ------------------------------

#: Comment lines that make savegame's check of a record take half a second or more.
LONG_RECORD_LINES = 500_000


def stopped(engine: Engine) -> str:
    """Send SIGUSR1 until the running command answers (one that lands before the command
    has begun is forgotten, as protocol.md says); return the answer."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        engine.signal(signal.SIGUSR1)
        try:
            return engine.read_response(timeout=0.2).decode()
        except TimeoutError:
            assert time.monotonic() < deadline, "savegame never answered"


def test_sigusr1_while_savegame_checks_a_long_record_changes_nothing(
    log_dir: Path, tmp_path: Path
) -> None:
    """SIGUSR1 while savegame reads a long record it would replace stops it as it stops
    loadgame: a clean `?` saying where, the file as it was, the game as it was, and the next
    savegame is not stopped. Before, `? internal error: ReadStopped`, a traceback in the log."""
    record = tmp_path / "game.txt"
    engine = Engine(log_dir)
    try:
        new_game(engine, OPENING[:2])
        assert say(engine, f"savegame {record}") == ""
        with record.open("a", encoding="utf-8") as file:
            file.write("#\n" * LONG_RECORD_LINES)
        assert say(engine, f"play {OPENING[2]}") == ""
        before = record.read_bytes()
        board = say(engine, "get_board")
        engine.send(f"7 savegame {record}\n".encode())
        wait_for_input(log_dir, f"7 savegame {record}")
        response = stopped(engine)
        assert re.fullmatch(
            rf"\?7 savegame of {re.escape(file_name(str(record)))} stopped at line [0-9]+;"
            r" nothing was changed\n\n",
            response,
        ), response
        assert record.read_bytes() == before
        assert say(engine, "get_board") == board
        assert sorted(path.name for path in tmp_path.iterdir()) == ["game.txt", "logs"]
        assert say(engine, f"savegame {record}") == ""  # the stop is not kept for it
        (saved,) = parse_records(record.read_text(encoding="utf-8"))
        assert saved.moves == ["Qc4(III)", "Qxc4(III)", "Kd2(II)"]
    finally:
        engine.kill()
    assert "Traceback" not in (log_dir / CONSOLE_LOG).read_text(errors="replace")


def test_a_save_leaves_only_its_file_with_the_files_permissions(
    shared_engine: Engine, tmp_path: Path
) -> None:
    """A new file and a replacement are each written under a temporary name beside the
    file and put in place: none is left behind, a replacement keeps the permissions the
    file had, and a folder that is not there is refused naming the file."""
    path = tmp_path / "game.txt"
    new_game(shared_engine, OPENING[:1])
    assert say(shared_engine, f"savegame {path}") == ""
    assert sorted(entry.name for entry in tmp_path.iterdir()) == ["game.txt"]
    path.chmod(0o640)
    assert say(shared_engine, f"play {OPENING[1]}") == ""
    assert say(shared_engine, f"savegame {path}") == ""
    assert sorted(entry.name for entry in tmp_path.iterdir()) == ["game.txt"]
    assert path.stat().st_mode & 0o777 == 0o640
    assert len(parse_records(path.read_text(encoding="utf-8"))[0].moves) == 2
    missing = tmp_path / "nowhere" / "game.txt"
    refusal = say(shared_engine, f"savegame {missing}")
    # A long name is shortened in the middle (kernel/protocol.py's shorten).
    assert refusal.startswith("? cannot write '"), refusal
    assert refusal.endswith("/nowhere/game.txt': No such file or directory"), refusal
    assert sorted(entry.name for entry in tmp_path.iterdir()) == ["game.txt"]
