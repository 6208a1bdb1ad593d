"""What `genmove` tells people and programs about its search, through the real process.

- At a terminal, each finished depth is one line on stderr, `depth 3 score +0.35 nodes 4821
  nps 23104 time 0.21 pv ...` (or `score mate 2`), and stdout carries nothing but answers.
- On a pipe there are no thinking lines, unless `play.thinking = "always"`; `"never"` keeps
  them off a terminal too.
- Every genmove and reg_genmove logs one `search` event: depth, score_cp or mate, nodes, nps,
  time_ms, pv (move names, a legal line from the position) and move (the answer).
"""

from __future__ import annotations

import os
import re
import select
import subprocess
import sys
import termios
import time
from pathlib import Path
from typing import Any

import pexpect

from tests.conftest import (
    MAIN,
    REPO,
    TIMEOUT,
    Engine,
    default_signals,
    engine_command,
    engine_env,
    read_console_log,
    read_json_log,
)
from tests.reference import IllegalMove, Position, apply_move, parse_game, parse_move
from tests.short_reference import short_names

#: One finished depth, as the issue writes it.
THINKING = re.compile(
    r"depth (?P<depth>[0-9]+) score (?P<score>[+-][0-9]+\.[0-9]{2}|mate -?[0-9]+) "
    r"nodes (?P<nodes>[0-9]+) nps (?P<nps>[0-9]+) time (?P<time>[0-9]+\.[0-9]{2}) "
    r"pv(?P<pv>( \S+)+)"
)
#: The start position of n = 3 after `new_game 3`, searched to depth 3 in the tests here.
START = "[#k#,b#b,rnr],[###,###,###],[RNR,B#B,#K#]"
#: The mate in 2 of rules.md, black to move.
MATE_IN_2 = "[###,#k#,#b#],[##b,###,###],[r##,##K,###] b"
COMMANDS = f"set_board {START}\nlevel depth 3\ngenmove\nset_board {MATE_IN_2}\ngenmove\nquit\n"
#: What stdout holds for COMMANDS, whatever moves are chosen.
ANSWERS = re.compile(r"= \n\n= depth 3 nodes 0 time 1\n\n= (\S+)\n\n= \n\n= (\S+)\n\n= \n\n")


def legal_line(pos: Position, names: list[str]) -> str | None:
    """Say why a principal variation is not a line of legal moves from pos, or None."""
    for index, name in enumerate(names):
        try:
            origin, target = parse_move(pos, name)
        except IllegalMove as refused:
            return f"move {index + 1} {name}: {refused.reason}"
        pos = apply_move(pos, origin, target)
    return None


def check_thinking(lines: list[str], start: str, depths: int, move: str) -> None:
    """One line per depth, 1 to `depths`, each in the format, with a legal pv; the last pv
    starts with the move played."""
    assert 1 <= len(lines) == depths, lines
    found = [THINKING.fullmatch(line) for line in lines]
    assert all(found), lines
    matches = [match for match in found if match is not None]
    assert [int(match["depth"]) for match in matches] == list(range(1, depths + 1))
    nodes = [int(match["nodes"]) for match in matches]
    assert nodes == sorted(nodes) and nodes[0] >= 1, lines
    for match in matches:
        pv = match["pv"].split()
        assert legal_line(parse_game(start), pv) is None, (
            match[0],
            legal_line(parse_game(start), pv),
        )
    assert matches[-1]["pv"].split()[0] == move


def read_terminal(master: int) -> bytes:
    """Read what was written to a pseudo-terminal until its other side is closed."""
    data = b""
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.5)
        if not ready:
            continue
        try:
            chunk = os.read(master, 65536)
        except OSError:  # every writer has gone
            break
        if not chunk:
            break
        data += chunk
    return data


def run_with_stderr_on_a_terminal(log_dir: Path, *options: str) -> tuple[bytes, bytes]:
    """Pipe COMMANDS through an engine whose stderr is a terminal; return stdout and stderr."""
    master, slave = os.openpty()
    process = subprocess.Popen(
        engine_command(log_dir, *options),
        cwd=REPO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=slave,
    )
    os.close(slave)
    try:
        stdout, _ = process.communicate(COMMANDS.encode(), timeout=20 * TIMEOUT)
        terminal = read_terminal(master)
    finally:
        os.close(master)
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0
    return stdout, terminal


def test_thinking_on_a_terminal_stderr_and_nothing_on_stdout(tmp_path: Path) -> None:
    """Depth lines on the terminal, for each search; stdout holds the answers alone."""
    stdout, terminal = run_with_stderr_on_a_terminal(tmp_path)
    answers = ANSWERS.fullmatch(stdout.decode())
    assert answers is not None, stdout
    lines = terminal.decode().replace("\r\n", "\n").split("\n")
    assert lines[-1] == ""
    check_thinking(lines[:3], START, 3, answers[1])
    # The mate in 2 is proved at some depth up to 3, and the search stops there.
    mate_lines = lines[3:-1]
    check_thinking(mate_lines, MATE_IN_2, len(mate_lines), answers[2])
    assert " score mate 2 " in mate_lines[-1]


def config_file(tmp_path: Path, thinking: str) -> str:
    path = tmp_path / f"{thinking}.toml"
    path.write_text(f'[play]\nthinking = "{thinking}"\n', encoding="utf-8")
    return str(path)


def test_no_thinking_on_a_pipe_nor_when_never(tmp_path: Path) -> None:
    """A pipe gets no thinking lines; `never` keeps them off a terminal too."""
    result = subprocess.run(
        engine_command(tmp_path / "pipe"),
        cwd=REPO,
        input=COMMANDS.encode(),
        capture_output=True,
        timeout=20 * TIMEOUT,
        check=False,
    )
    assert (result.returncode, result.stderr) == (0, b"")
    assert ANSWERS.fullmatch(result.stdout.decode()), result.stdout
    never = config_file(tmp_path, "never")
    stdout, terminal = run_with_stderr_on_a_terminal(tmp_path / "never", "--config", never)
    assert ANSWERS.fullmatch(stdout.decode()), stdout
    assert terminal == b""


def test_thinking_always_writes_them_to_a_pipe(tmp_path: Path) -> None:
    always = config_file(tmp_path, "always")
    result = subprocess.run(
        engine_command(tmp_path / "logs", "--config", always),
        cwd=REPO,
        input=COMMANDS.encode(),
        capture_output=True,
        timeout=20 * TIMEOUT,
        check=False,
    )
    assert result.returncode == 0
    answers = ANSWERS.fullmatch(result.stdout.decode())
    assert answers is not None, result.stdout
    lines = result.stderr.decode().split("\n")
    assert lines[-1] == ""
    check_thinking(lines[:3], START, 3, answers[1])
    check_thinking(lines[3:-1], MATE_IN_2, len(lines) - 4, answers[2])


def type_line(child: pexpect.spawn, text: str) -> None:
    """Type a line once readline has the terminal (no canonical mode), so none of it is lost."""
    deadline = time.monotonic() + TIMEOUT
    while termios.tcgetattr(child.child_fd)[3] & termios.ICANON:
        assert time.monotonic() < deadline, "the engine never started reading the terminal"
        time.sleep(0.01)
    child.send(text + "\r")


def test_thinking_at_a_terminal_session(tmp_path: Path, log_dir: Path) -> None:
    """A person at the terminal sees the depths of the search, then the move."""
    child = pexpect.spawn(
        sys.executable,
        [str(MAIN), "--log-dir", str(log_dir)],
        cwd=str(REPO),
        env=engine_env(HOME=str(tmp_path), TERM="xterm"),
        timeout=20 * TIMEOUT,
        preexec_fn=default_signals,
    )
    try:
        child.expect_exact(b"type help, quit or Ctrl-D\r\n")
        for line in (f"set_board {START}", "level depth 3"):
            type_line(child, line)
            child.expect_exact(b"\r\n\r\n")
        type_line(child, "genmove")
        child.expect(rb"\r\n= (\S+)\r\n\r\n")
        move = child.match.group(1).decode()
        shown = [line for line in child.before.decode().split("\r\n") if line.startswith("depth")]
        best = THINKING.fullmatch(shown[-1])
        assert best is not None, shown
        first = best["pv"].split()[0]
        check_thinking(shown, START, 3, first)
        # At a terminal genmove answers in the person's form, short until they type a long
        # move (docs/protocol.md); the depth lines stay long. Both name the same move.
        start = parse_game(START)
        assert short_names(start)[parse_move(start, first)] == move
        type_line(child, "quit")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0


# --- the JSON log's search event ---------------------------------------------------------------


def searches(log_dir: Path) -> list[dict[str, Any]]:
    return [event for event in read_json_log(log_dir) if event["event"] == "search"]


def check_event(event: dict[str, Any], start: str, answer: str) -> None:
    """The fields of the issue, of the right types, telling the search that was answered."""
    scored = {"score_cp"} if "score_cp" in event else {"mate"}
    fields = {"depth", "nodes", "nps", "time_ms", "pv", "move"} | scored
    assert set(event) == fields | {"pid", "event", "level", "timestamp"}, event
    for name in fields - {"pv", "move"}:
        assert isinstance(event[name], int) and not isinstance(event[name], bool), (name, event)
    assert event["depth"] >= 1 and event["nodes"] >= 1 and event["time_ms"] >= 0
    assert event["nps"] >= 0
    assert event["move"] == answer
    assert isinstance(event["pv"], list) and all(isinstance(name, str) for name in event["pv"])
    assert event["pv"][0] == answer, event
    assert legal_line(parse_game(start), event["pv"]) is None, event


def test_one_search_event_per_genmove(log_dir: Path) -> None:
    """genmove and reg_genmove each log one search event, between their input and their
    answer; a refused genmove logs none."""
    engine = Engine(log_dir)
    try:
        asked = [
            ("level depth 2", None),
            (f"set_board {START}", None),
            ("reg_genmove", START),
            ("genmove w", START),
            ("genmove w", None),  # refused: black is to move
            (f"set_board {MATE_IN_2}", None),
            ("level depth 3", None),
            ("7 genmove", MATE_IN_2),
        ]
        answers: list[str] = []
        for line, start in asked:
            reply = engine.ask(line).decode()
            if start is not None:
                answers.append(reply.split(" ")[1].strip())
            else:
                assert reply.startswith(("=", "? not white's move")), reply
        assert engine.ask("quit") == b"= \n\n"
        assert engine.finish()[0] == 0
    finally:
        engine.kill()
    events = read_json_log(log_dir)
    found = searches(log_dir)
    assert len(found) == 3
    for event, (_, start), answer in zip(
        found, [item for item in asked if item[1] is not None], answers, strict=True
    ):
        assert start is not None
        check_event(event, start, answer)
    assert "score_cp" in found[0] and "mate" not in found[0]
    assert found[2]["mate"] == 2 and "score_cp" not in found[2]
    # The answer that follows each search event is its own command's.
    for index, event in enumerate(events):
        if event["event"] == "search":
            own = next(later for later in events[index + 1 :] if later["event"] == "output")
            assert own["command"] in ("genmove", "reg_genmove")
            assert own["response"].split(" ")[-1] == event["move"]
    assert sum(1 for line in read_console_log(log_dir) if line.text.startswith("search: ")) == 3


def test_a_search_stopped_before_its_first_depth_logs_no_score(log_dir: Path) -> None:
    """At one node no depth is finished: the search event says depth 0, the move it played and
    its node count, and a null score (there is none to give)."""
    engine = Engine(log_dir)
    try:
        assert engine.ask(f"set_board {START}") == b"= \n\n"
        assert engine.ask("level nodes 1").startswith(b"=")
        move = engine.ask("reg_genmove").decode().split(" ")[1].strip()
        assert engine.ask("quit") == b"= \n\n"
        assert engine.finish()[0] == 0
    finally:
        engine.kill()
    (event,) = searches(log_dir)
    assert event["depth"] == 0 and event["move"] == move and event["pv"] == [move]
    assert event["score_cp"] is None and "mate" not in event
    assert legal_line(parse_game(START), [move]) is None
