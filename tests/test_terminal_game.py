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
        # Tab twice lists the moves that begin so; Ctrl-U clears the line again.
        child.send(b"play Nb\t\t")
        child.expect_exact(b"\r\nplay Nb")  # the prompt's line again, under the list
        listed = child.before.decode().split()
        assert {"Nbc3(I)", "Nb1(I)-c3(I)", "Nbb2(III)"} <= set(listed), listed
        assert not any(word.startswith("Q") for word in listed), listed
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
