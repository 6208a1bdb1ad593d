"""A whole game of 5³ at a terminal, as a person plays it (issue 51): the greeting says how to
start, Tab completes moves, the moves are typed short, showboard marks the last move and the
check, and the game is saved with savegame and loaded again. Through the real engine on a
pseudo-terminal (pexpect), so readline, the greeting and the completion are the real ones.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pexpect

from kernel.records.record import parse_records
from tests.conftest import MAIN, REPO, TIMEOUT, default_signals, engine_env

#: Black mates on the eighth ply (found by the engine: mate_in 1 against random moves, seeded),
#: written short as printgame writes it.
GAME = ["Qc4(III)", "Qxc4(III)", "Kd2(II)", "Nd3(IV)+", "Ke3(I)", "Qd4(II)+", "Ke2(II)"]
MATE = "Qd2(II)#"


def answer(child: pexpect.spawn, line: str) -> str:
    """Type a line and return the engine's answer (`= ...` or `? ...`), its lines joined by \\n."""
    child.send(line.encode() + b"\r")
    return read_answer(child)


def read_answer(child: pexpect.spawn) -> str:
    child.expect(rb"\r\n([=?][^\r\n]*(?:\r\n[^\r\n]+)*)\r\n\r\n")
    found = str(child.match.group(1).decode())
    return "\n".join(line.rstrip() for line in found.split("\r\n"))


def test_a_whole_game_at_a_terminal(tmp_path: Path) -> None:
    child = pexpect.spawn(
        sys.executable,
        [str(MAIN), "--log-dir", str(tmp_path / "logs")],
        cwd=str(REPO),
        env=engine_env(HOME=str(tmp_path), TERM="dumb"),
        timeout=TIMEOUT,
        preexec_fn=default_signals,
    )
    record = tmp_path / "game.txt"
    try:
        child.expect_exact(b"Ctrl-D")
        greeting = child.before.decode()
        assert all(word in greeting for word in ("new_game 5", "play", "genmove")), greeting
        assert answer(child, "new_game 5") == "="
        assert answer(child, "play Nc3") == (
            "? ambiguous: Na2(I)-c3(I), Nb1(I)-c3(I), Nd1(I)-c3(I), Ne2(I)-c3(I)"
        )
        # Tab twice lists the moves that begin so, in one form, short (issue 63): the long
        # ones only where no short one begins so. Ctrl-U clears the line again.
        child.send(b"play Nb\t\t")
        child.expect_exact(b"\r\nplay Nb")  # the prompt's line again, under the list
        listed = child.before.decode().split()
        assert {"Nbc3(I)", "Nbb2(III)"} <= set(listed), listed
        assert not any(word.startswith("Q") or "-" in word for word in listed), listed
        child.send(b"\x15")
        child.send(b"play Nb1(I)-\t\t")
        child.expect_exact(b"\r\nplay Nb1(I)-")
        listed = [word for word in child.before.decode().split() if word.startswith("N")]
        assert "Nb1(I)-c3(I)" in listed and all("-" in word for word in listed), listed
        child.send(b"\x15")
        # Tab completes the one move that begins so, and play takes it.
        child.send(b"play Qc4(III\t")
        child.expect_exact(b")")
        assert answer(child, "") == "="
        for move in GAME[1:6]:
            assert answer(child, f"play {move}") == "=", move
        board = answer(child, "showboard")
        assert "[q]" in board and "*" in board, board
        assert "last move: 3... Qd4(II)+ (qc4(III)-d4(II);" in board, board
        assert "check: the black queen on d4(II) gives check to the white king on e3(I)" in board
        assert board.endswith("white to move"), board
        # Levels left out where one move fits; lower-case letters for black's pieces.
        assert answer(child, "play Ke3-e2") == "="
        assert answer(child, "play qd4-d2(2)") == "="
        board = answer(child, "showboard")
        assert "last move: 4... Qd2(II)# (qd4(II)-d2(II);" in board, board
        assert board.endswith("result: 0-1 (checkmate)"), board
        assert answer(child, f"savegame {record}") == "="
        assert answer(child, "new_game 5") == "="
        assert answer(child, f"loadgame {record}") == "="
        assert answer(child, "result") == "= 0-1 (checkmate)"
        printed = answer(child, "printgame")
        assert printed.endswith(
            "\n1. Qc4(III) Qxc4(III)\n2. Kd2(II) Nd3(IV)+\n3. Ke3(I) Qd4(II)+\n4. Ke2(II) Qd2(II)#"
        ), printed
        child.send(b"quit\r")
        child.expect(pexpect.EOF)
        assert b"Traceback" not in child.before
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
    (saved,) = parse_records(record.read_text(encoding="utf-8"))
    assert saved.moves == [*GAME, MATE] and saved.result == "0-1 (checkmate)"


def spawn(tmp_path: Path, *options: str) -> pexpect.spawn:
    """The engine on a pseudo-terminal, its home folder tmp_path."""
    return pexpect.spawn(
        sys.executable,
        [str(MAIN), "--log-dir", str(tmp_path / "logs"), *options],
        cwd=str(REPO),
        env=engine_env(HOME=str(tmp_path), TERM="dumb"),
        timeout=TIMEOUT,
        preexec_fn=default_signals,
    )


def test_what_a_person_is_told_and_answered(tmp_path: Path) -> None:
    """Issue 63, item 8: the greeting's move is one `play` takes after `new_game 5` (in the
    configured variant too); genmove answers in the form the person types (short, until they
    type long); `~/` is the home folder for savegame and loadgame, whose file names Tab
    completes; a record longer than the game is refused in plain words."""
    raumschach = tmp_path / "raumschach.toml"
    raumschach.write_text('[rules]\nvariant = "raumschach"\n', encoding="utf-8")
    for options in ((), ("--config", str(raumschach))):
        child = spawn(tmp_path, *options)
        try:
            child.expect(rb"play (\S+) moves")
            suggested = child.match.group(1).decode()
            child.expect_exact(b"Ctrl-D")
            assert answer(child, "new_game 5") == "="
            assert answer(child, f"play {suggested}") == "=", (options, suggested)
            reply = answer(child, "genmove")
            assert reply.startswith("= ") and "-" not in reply, reply  # short: Nc3(V), …
            assert answer(child, "undo") == "="
            assert answer(child, "play Nd5(V)-c3(V)") == "="
            reply = answer(child, "genmove")
            assert reply.startswith("= ") and reply[3:].count("(") == 2, reply  # long
            child.send(b"quit\r")
            child.expect(pexpect.EOF)
        finally:
            child.close(force=True)
        assert child.exitstatus == 0
    child = spawn(tmp_path)
    try:
        child.expect_exact(b"Ctrl-D")
        assert answer(child, "new_game 5") == "="
        assert answer(child, "play Na3(I)") == "="
        assert answer(child, "savegame ~/game-one.txt") == "="
        assert (tmp_path / "game-one.txt").is_file()
        assert answer(child, "undo") == "="
        refused = answer(child, "savegame ~/game-one.txt")
        assert refused.startswith("? '") and refused.endswith(
            "/game-one.txt' exists and is not a record of this game: it holds 1 ply, this game "
            "has 0; nothing was changed"
        ), refused
        # Tab completes the file name after loadgame, ~/ and all.
        child.send(b"loadgame ~/game-o\t")
        child.expect_exact(b"ne.txt")
        assert answer(child, "") == "="
        assert answer(child, "printgame").endswith("\n1. Na3(I)")
        child.send(b"quit\r")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
