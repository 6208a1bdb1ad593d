"""The real engine as a process: talked to on pipes like a GUI, on a terminal like a person."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import termios
import time
from importlib.metadata import version
from pathlib import Path

import pexpect
import pexpect.popen_spawn
import pytest

from kernel.kernel import COMMANDS
from tests.conftest import (
    CASE_1,
    CASE_2,
    CONSOLE_LOG,
    JSON_LOG,
    MAIN,
    REPO,
    TIMEOUT,
    Engine,
    assert_still_running,
    check_logs,
    default_signals,
    engine_command,
    engine_env,
    read_console_log,
    read_json_log,
    run_engine,
    split_responses,
)

# (bytes sent, the line as the logs show it, the exact response; None: no response)
GUI_SESSION: list[tuple[bytes, str, bytes | None]] = [
    (b"name", "name", b"= cubemate\n\n"),
    (b"1 protocol_version", "1 protocol_version", b"=1 2\n\n"),
    (b"0 version", "0 version", f"=0 {version('cubemate')}\n\n".encode()),
    (b"# a comment", "", None),
    (b"", "", None),
    (b"   ", "", None),
    (b"7 name\r", "7 name", b"=7 cubemate\n\n"),
    (b"\tknown_command\tname", " known_command name", b"= true\n\n"),
    (b"frobnicate", "frobnicate", b"? unknown command 'frobnicate'\n\n"),
    (b"3 NAME", "3 NAME", b"?3 unknown command 'NAME' (did you mean name?)\n\n"),
    (b"boardsize", "boardsize", b"? wrong number of arguments, usage: boardsize N\n\n"),
    (b"boardsize 1", "boardsize 1", b"? unacceptable size (2 ... 64)\n\n"),
    (f"set_board {CASE_1}".encode(), f"set_board {CASE_1}", b"= \n\n"),
    (b"get_board", "get_board", f"= {CASE_1}\n\n".encode()),
    (b"4 checkmate", "4 checkmate", b"=4 true\n\n"),
    (b"boardsize 2", "boardsize 2", b"= \n\n"),
    (
        b"11 showboard",
        "11 showboard",
        b"=11 \n"
        b"  level II     level I\n"
        b"2 . .        2 . .\n"
        b"1 . .        1 . .\n"
        b"  a b          a b\n"
        b"white to move\n\n",
    ),
    (
        b"na\x00me\xff",
        "name\ufffd",
        b"? unknown command 'name\xef\xbf\xbd' (did you mean name?)\n\n",
    ),
    (
        b"set_board [Kq,##],[##,##] #",
        "set_board [Kq,##],[##,##] #",
        b"? invalid board: row 5 '#' has 1 cells, expected 2\n\n",
    ),
    (b"quit", "quit", b"= \n\n"),
]


def test_talk_like_a_gui(log_dir: Path) -> None:
    """Send line by line on pipes, expect exact bytes and nothing else; both logs hold it all."""
    child = pexpect.popen_spawn.PopenSpawn(
        engine_command(log_dir), cwd=str(REPO), timeout=10, env=engine_env()
    )
    exchanges: list[tuple[str, str]] = []
    for sent, logged, response in GUI_SESSION:
        child.send(sent + b"\n")
        if response is None:
            continue
        child.expect_exact(response)
        assert child.before == b"", f"unexpected output before the answer to {sent!r}"
        exchanges.append((logged, response.decode()))
    child.expect(pexpect.EOF)
    assert child.before == b"", "output after quit"
    assert child.wait() == 0
    check_logs(log_dir, exchanges, "quit")


SCRIPT = (
    b"# a scripted session\n"
    b"\n"
    b"1 name\r\n"
    b"   # indented comment\r\n"
    b"2 frobnicate\n"
    b"list_commands\n"
    b"\r\n"
    b"\t\n"
    b"00 protocol_version\n"
    b"12\n"
    b"set_board 2 [#q,##],[##,K#]\n"
    b"5 checkmate\n"
    b"6 quit\n"
    b"name\n"
    b"7 set_board 3 [##,##],[##,##]\n"
)
SCRIPT_OUTPUT = (
    b"=1 cubemate\n\n"
    b"?2 unknown command 'frobnicate'\n\n"
    + ("= " + "\n".join(spec.name for spec in COMMANDS) + "\n\n").encode()
    + b"=0 2\n\n"
    b"?12 no command given\n\n"
    b"= \n\n"
    b"=5 false\n\n"
    b"=6 \n\n"
)


def test_scripted_session(log_dir: Path) -> None:
    """A whole script piped in: exactly the expected bytes, nothing after quit, exit 0."""
    result = run_engine(SCRIPT, log_dir)
    assert result.stdout == SCRIPT_OUTPUT
    assert result.stderr == b""
    assert result.returncode == 0
    answered = [
        "1 name",
        "2 frobnicate",
        "list_commands",
        "00 protocol_version",
        "12",
        "set_board 2 [#q,##],[##,K#]",
        "5 checkmate",
        "6 quit",
    ]
    responses = [response.decode() for response in split_responses(SCRIPT_OUTPUT)]
    check_logs(log_dir, list(zip(answered, responses, strict=True)), "quit")


@pytest.mark.parametrize(
    ("data", "output"),
    [
        (b"", b""),
        (b"name\n", b"= cubemate\n\n"),
        (b"# only a comment\n\n", b""),
        (b"name\n1 protocol_version", b"= cubemate\n\n=1 2\n\n"),
        (b"name\r\n3 name\r", b"= cubemate\n\n=3 cubemate\n\n"),
    ],
)
def test_end_of_input_exits_0(log_dir: Path, data: bytes, output: bytes) -> None:
    """End of input, even inside a line, answers what came and exits 0 without a word."""
    result = run_engine(data, log_dir)
    assert (result.stdout, result.stderr, result.returncode) == (output, b"", 0)


INTERNAL_ERROR_DRIVER = """
import sys
import kernel.kernel as k

def broken(kernel, args):
    raise RuntimeError("boom")

k.COMMANDS_BY_NAME["name"] = k.CommandSpec("name", "", broken)
import main
sys.exit(main.main(sys.argv[1:]))
"""


def test_internal_error_through_the_process(log_dir: Path) -> None:
    """A handler that raises: `? internal error`, the traceback in both logs, engine goes on."""
    result = subprocess.run(
        [sys.executable, "-c", INTERNAL_ERROR_DRIVER, "--log-dir", str(log_dir)],
        input=b"3 name\nprotocol_version\n",
        capture_output=True,
        cwd=REPO,
        timeout=TIMEOUT,
        check=False,
    )
    assert result.stdout == b"?3 internal error: RuntimeError: boom\n\n= 2\n\n"
    assert result.stderr == b""
    assert result.returncode == 0
    texts = [line.text for line in read_console_log(log_dir)]
    assert texts[:2] == ["# 3 name", "?3 internal error: RuntimeError: boom"]
    assert texts[2].startswith("Traceback")
    assert "RuntimeError: boom" in texts[-3]
    assert texts[-2:] == ["# protocol_version", "= 2"]
    events = read_json_log(log_dir)
    error = events[1]
    assert error["event"] == "error"
    assert error["level"] == "error"
    assert error["id"] == 3
    assert error["error"] == "?3 internal error: RuntimeError: boom"
    assert "Traceback" in error["traceback"] and "RuntimeError: boom" in error["traceback"]
    assert isinstance(error["duration_us"], int)
    assert [event["event"] for event in events[2:]] == ["input", "output"]


def test_start_and_exit_events(tmp_path: Path) -> None:
    """Each engine logs its start (version, pid, config file, log folder, board size) and its
    exit with the reason, in both logs, under its pid."""
    config = tmp_path / "five.toml"
    config.write_text("[engine]\nboard_size = 5\n")
    log_dir = tmp_path / "logs"
    process = subprocess.run(
        engine_command(log_dir, "--config", str(config)),
        input=b"name\n",
        capture_output=True,
        cwd=REPO,
        timeout=TIMEOUT,
        check=False,
    )
    assert (process.stdout, process.stderr, process.returncode) == (b"= cubemate\n\n", b"", 0)
    start, *exchange, end = read_json_log(log_dir, session=True)
    assert {key: start[key] for key in ("event", "level", "version", "config", "board_size")} == {
        "event": "start",
        "level": "info",
        "version": version("cubemate"),
        "config": str(config.resolve()),
        "board_size": 5,
    }
    assert start["log_dir"] == str(log_dir.resolve())
    assert isinstance(start["pid"], int) and start["pid"] == end["pid"] == exchange[0]["pid"]
    assert (end["event"], end["level"], end["reason"]) == ("exit", "info", "end of input")
    assert "signal" not in end
    console = read_console_log(log_dir, session=True)
    assert {line.pid for line in console} == {start["pid"]}
    assert console[0].text == (
        f"start: cubemate {version('cubemate')}, config {config.resolve()}, "
        f"logs in {log_dir.resolve()}, board size 5"
    )
    assert [line.text for line in console[1:]] == ["# name", "= cubemate", "exit: end of input"]


def test_positions_survive_a_session(log_dir: Path) -> None:
    """Commands that change the position, through the process: boardsize, set_board, clear."""
    result = run_engine(
        f"set_board {CASE_2}\nget_board\n2 checkmate\nclear_board\nget_board\n"
        "boardsize 2\nget_board\n".encode(),
        log_dir,
    )
    assert (
        result.stdout
        == (
            f"= \n\n= {CASE_2}\n\n=2 false\n\n= \n\n"
            "= [###,###,###],[###,###,###],[###,###,###]\n\n= \n\n= [##,##],[##,##]\n\n"
        ).encode()
    )


# --- at a terminal ---------------------------------------------------------------------


def spawn_at_terminal(tmp_path: Path, log_dir: Path) -> pexpect.spawn:
    """Start the engine on a pseudo-terminal, with its history file under tmp_path."""
    env = engine_env(HOME=str(tmp_path), TERM="xterm")
    child = pexpect.spawn(
        sys.executable,
        [str(MAIN), "--log-dir", str(log_dir)],
        cwd=str(REPO),
        env=env,
        timeout=TIMEOUT,
        # Ctrl-C must reach the engine even when this run was started ignoring SIGINT (in the
        # background of a shell without job control, as a CI script may be).
        preexec_fn=default_signals,
    )
    child.delaybeforesend = None
    return child


def wait_for_line_editor(child: pexpect.spawn) -> None:
    """Wait until readline has the terminal (no canonical mode), so typing is not lost."""
    deadline = time.monotonic() + TIMEOUT
    while termios.tcgetattr(child.child_fd)[3] & termios.ICANON:
        assert time.monotonic() < deadline, "the engine never started reading the terminal"
        time.sleep(0.01)


def type_line(child: pexpect.spawn, text: str) -> None:
    """Type a line as a person would, once the engine is reading."""
    wait_for_line_editor(child)
    child.send(text + "\r")


def only_echo(before: bytes, typed: set[str]) -> bool:
    """Whether these bytes are nothing but the terminal's echo of lines typed."""
    allowed = {line.encode() for line in typed} | {b""}
    return all(line in allowed for line in before.split(b"\r\n"))


#: The move it suggests is one `play` takes after `new_game 5` (Nc3(I) was ambiguous: issue 63;
#: tests/test_terminal_game.py plays it in both variants).
GREETING = (
    f"cubemate {version('cubemate')} — new_game 5 starts a game, play Na3(I) moves (Tab"
    " completes), genmove has the engine move; type help, quit or Ctrl-D\r\n"
).encode()


def test_answers_at_a_terminal(tmp_path: Path, log_dir: Path) -> None:
    """At a terminal: one greeting, answers, tab-completion, and nothing but responses and
    the echo."""
    child = spawn_at_terminal(tmp_path, log_dir)
    child.expect_exact(GREETING)
    assert child.before == b""
    typed: set[str] = set()
    for line, response in [
        ("name", "= cubemate"),
        ("5 protocol_version", "=5 2"),
        ("# comment, no answer", None),
        ("", None),
        (
            "help boardsize",
            "= boardsize N                             Set the board size and empty the board.",
        ),
        ("NAME", "? unknown command 'NAME' (did you mean name?)"),
    ]:
        type_line(child, line)
        typed.add(line)
        if response is not None:
            child.expect_exact(response.encode() + b"\r\n\r\n")
            assert only_echo(child.before, typed), child.before
    # Tab-completion of a command name: `prot<TAB>` becomes `protocol_version `.
    wait_for_line_editor(child)
    child.send("prot\t")
    child.send("\r")
    child.expect_exact(b"= 2\r\n\r\n")
    assert only_echo(child.before, typed | {"protocol_version "}), child.before
    wait_for_line_editor(child)
    child.sendeof()
    child.expect(pexpect.EOF)
    assert child.before == b""
    child.close()
    assert child.exitstatus == 0
    assert (tmp_path / ".cubemate_history").exists()
    assert read_json_log(log_dir, session=True)[-1]["reason"] == "end of input"
    events = read_json_log(log_dir)
    assert [event["line"] for event in events if event["event"] == "input"] == [
        "name",
        "5 protocol_version",
        "help boardsize",
        "NAME",
        "protocol_version ",
    ]


def test_ctrl_c_at_a_terminal_is_quiet(tmp_path: Path, log_dir: Path) -> None:
    """Ctrl-C at the terminal ends the engine without a traceback."""
    child = spawn_at_terminal(tmp_path, log_dir)
    type_line(child, "name")
    child.expect_exact(b"= cubemate\r\n\r\n")
    wait_for_line_editor(child)
    child.sendintr()
    child.expect(pexpect.EOF)
    assert b"Traceback" not in child.before
    assert b"KeyboardInterrupt" not in child.before
    child.close()
    assert child.signalstatus is None
    assert child.exitstatus == 0
    events = read_json_log(log_dir, session=True)
    assert [event["event"] for event in events] == ["start", "input", "output", "exit"]
    assert (events[-1]["reason"], events[-1]["signal"]) == ("signal", "SIGINT")


def test_no_greeting_unless_stderr_is_a_terminal(tmp_path: Path, log_dir: Path) -> None:
    """stdin at a terminal but stderr to a file (a program driving a terminal): no greeting."""
    errors = tmp_path / "stderr"
    child = pexpect.spawn(
        "/bin/sh",
        [
            "-c",
            'exec "$0" "$1" --log-dir "$2" 2>"$3"',
            sys.executable,
            str(MAIN),
            str(log_dir),
            str(errors),
        ],
        cwd=str(REPO),
        env=engine_env(HOME=str(tmp_path), TERM="xterm"),
        timeout=TIMEOUT,
    )
    type_line(child, "name")
    child.expect_exact(b"= cubemate\r\n\r\n")
    assert only_echo(child.before, {"name"}), child.before
    wait_for_line_editor(child)
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert errors.read_bytes() == b""


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_ctrl_c_through_make_run(tmp_path: Path) -> None:
    """`make run` at a terminal: the greeting and nothing else of make's, and Ctrl-C ends
    the session with exit code 0, make's included."""
    env = engine_env(HOME=str(tmp_path), TERM="xterm")
    for name in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL"):  # as typed at a shell, not under make test
        env.pop(name, None)
    # The first time sets up .venv (its progress on stderr); every later time is silent.
    subprocess.run(
        ["make", "--no-print-directory", ".venv/.installed"],
        cwd=REPO,
        env=env,
        capture_output=True,
        timeout=600,
        check=True,
    )
    child = pexpect.spawn(
        "make",
        ["--no-print-directory", "run"],
        cwd=str(REPO),
        env=env,
        timeout=TIMEOUT,
        preexec_fn=default_signals,
    )
    child.expect_exact(GREETING)
    assert child.before == b"", child.before
    type_line(child, "1 name")
    child.expect_exact(b"=1 cubemate\r\n\r\n")
    wait_for_line_editor(child)
    child.sendintr()
    child.expect(pexpect.EOF)
    assert b"Traceback" not in child.before and b"make" not in child.before, child.before
    child.close()
    assert (child.signalstatus, child.exitstatus) == (None, 0)


def test_terminal_survives_bytes_that_are_not_utf8(tmp_path: Path, log_dir: Path) -> None:
    """Invalid UTF-8 typed at the terminal is answered, not a crash."""
    child = spawn_at_terminal(tmp_path, log_dir)
    wait_for_line_editor(child)
    child.send(b"\xffname \xc3\x28\r")
    child.expect_exact("? unknown command '\ufffdname' (did you mean name?)\r\n\r\n".encode())
    type_line(child, "1 name")
    child.expect_exact(b"=1 cubemate\r\n\r\n")
    wait_for_line_editor(child)
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_main_runs_from_another_folder(tmp_path: Path) -> None:
    """Started from elsewhere, the engine finds its config; a relative --log-dir is the cwd's."""
    result = subprocess.run(
        [sys.executable, str(MAIN), "--log-dir", "here"],
        input=b"name\n",
        capture_output=True,
        cwd=tmp_path,
        timeout=TIMEOUT,
        check=False,
        env=engine_env(),
    )
    assert (result.stdout, result.stderr, result.returncode) == (b"= cubemate\n\n", b"", 0)
    assert (tmp_path / "here" / "cubemate.jsonl").is_file()
    assert os.path.getsize(tmp_path / "here" / "cubemate.log") > 0


# --- messages for people --------------------------------------------------------------------

PASTED = (
    b"set_board 3\n"
    b"[###,n##,#rr],\n"
    b"[#b#,###,###],\n"
    b"\n"
    b"# a comment inside the paste\n"
    b"[###,###,bRK]\n"
    b"name\n"
    b"5 '###','###',\n"
)


def test_board_pasted_over_several_lines_gets_one_hint(log_dir: Path) -> None:
    """The first line of a pasted board gets the hint, the rest of the paste a short reminder
    (blank and comment lines do not end it, a command does)."""
    result = run_engine(PASTED, log_dir)
    assert split_responses(result.stdout) == [
        b"? invalid board: no rows given\n\n",
        b"? unknown command: a board goes on one line after set_board\n\n",
        b"? unknown command: another line of the board\n\n",
        b"? unknown command: another line of the board\n\n",
        b"= cubemate\n\n",
        b"?5 unknown command: a board goes on one line after set_board\n\n",
    ]


@pytest.mark.parametrize(
    ("line", "response"),
    [
        ("chekmate", "? unknown command 'chekmate' (did you mean checkmate?)"),
        ("CHECKMATE", "? unknown command 'CHECKMATE' (did you mean checkmate?)"),
        ("3 Legal_Moves", "?3 unknown command 'Legal_Moves' (did you mean legal_moves?)"),
        ("stauts", "? unknown command 'stauts' (did you mean status?)"),
        ("frobnicate", "? unknown command 'frobnicate'"),
        ("kn", "? unknown command 'kn'"),
        ("help ###,", "? unknown command '###,'"),
        ("help chekmate", "? unknown command 'chekmate' (did you mean checkmate?)"),
        ("boardsize 65", "? unacceptable size (2 ... 64)"),
        ("boardsize " + "9" * 20, "? unacceptable size (2 ... 64)"),
    ],
)
def test_refusals_name_what_is_wrong(shared_engine: Engine, line: str, response: str) -> None:
    """An unknown name is quoted, with the nearest command when one is close; a size outside
    the range names the range."""
    assert shared_engine.ask(line) == response.encode() + b"\n\n"
    assert_still_running(shared_engine)


@pytest.mark.parametrize("command_id", ["", "7 ", "123456 "])
def test_help_lines_align_whatever_the_id(shared_engine: Engine, command_id: str) -> None:
    """`help` lists every command once on a line of its own under its group's title (the
    protocol's and the tests' commands last), summaries in one column, whatever the id
    before `=` is."""
    response = shared_engine.ask(f"{command_id}help")
    assert_still_running(shared_engine)
    first, *lines = response.decode().rstrip("\n").split("\n")
    assert first == f"={command_id.strip()} "
    titles = [line for line in lines if not line.startswith(" ")]
    assert titles[0] == "playing:" and titles[-1] == "protocol and tests:", titles
    listed = [line.split()[0] for line in lines if line.startswith("  ")]
    assert sorted(listed) == [spec.name for spec in COMMANDS]
    apart = [line.split()[0] for line in lines[lines.index("protocol and tests:") + 1 :]]
    assert {"known_command", "test_get_point_from_xy"} <= set(apart), apart
    width = max(len(f"{spec.name} {spec.syntax}".rstrip()) for spec in COMMANDS)
    specs = {spec.name: spec for spec in COMMANDS}
    for line in lines:
        if line in titles:
            continue
        spec = specs[line.split()[0]]
        assert line.startswith("  " + f"{spec.name} {spec.syntax}".rstrip().ljust(width) + "  ")
        assert line[width + 4] != " ", line


def test_fast_logger_writes_what_plain_structlog_writes(tmp_path: Path) -> None:
    """The engine's logger (one chain, orjson) and structlog set up the plain way (the
    floor's) log the same exchanges with the same fields and the same console text."""
    from bench.floor import PlainExchangeLog
    from kernel.logger import ExchangeLog

    exchanges = [
        ("1 name", "1", "name", "=1 cubemate\n\n"),
        (f"set_board {CASE_1}", None, "set_board", "= \n\n"),
        ("7 showboard", "7", "showboard", "=7 \n  a\n  b\n\n"),
        ("é ünïcode \u202e", None, "é", "= ok\n\n"),
        ("9" * 30 + " name", "9" * 30, "name", "=" + "9" * 30 + " cubemate\n\n"),
    ]
    fast = ExchangeLog(tmp_path / "fast", CONSOLE_LOG, JSON_LOG)
    plain = PlainExchangeLog(tmp_path / "plain", CONSOLE_LOG, JSON_LOG)
    for line, command_id, command, response in exchanges:
        fast.input(line, command_id, command)
        fast.output(response, command_id, command, True, None, 12)
        plain.input(line, command_id, command)
        plain.output(response, command_id, command, 12)
    fast.close()
    plain.close()

    def without_time(events: list[dict[str, object]]) -> list[dict[str, object]]:
        return [{k: v for k, v in event.items() if k != "timestamp"} for event in events]

    assert without_time(read_json_log(tmp_path / "fast")) == without_time(
        read_json_log(tmp_path / "plain")
    )
    fast_console = read_console_log(tmp_path / "fast")
    plain_console = read_console_log(tmp_path / "plain")
    assert [(line.pid, line.text) for line in fast_console] == [
        (line.pid, line.text) for line in plain_console
    ]


def test_a_running_engine_has_not_loaded_asyncio(shared_engine: Engine) -> None:
    """structlog's asyncio is put off until used (kernel.logger.asyncio_deferred), and an
    engine never uses it: its C half and ssl's are not mapped into the process."""
    maps = Path(f"/proc/{shared_engine.pid}/maps")
    if not maps.exists():
        pytest.skip("no /proc to read the process's libraries from")
    assert shared_engine.ask("protocol_version") == b"= 2\n\n"
    libraries = {Path(line.split()[-1]).name for line in maps.read_text().splitlines()}
    assert not {name for name in libraries if name.startswith(("_asyncio.", "_ssl."))}, libraries
    assert any(name.startswith("_json.") for name in libraries), libraries  # the check sees


DEFERRED_ASYNCIO_PROGRAM = """
import sys
from kernel.logger import DeferredModule, asyncio_deferred

with asyncio_deferred():
    import structlog
    import structlog._native as native
    inside = sys.modules["asyncio"]
print(type(inside) is DeferredModule, native.asyncio is inside, "asyncio" in sys.modules)
logger = structlog.wrap_logger(
    structlog.PrintLogger(),
    processors=[structlog.processors.KeyValueRenderer()],
    wrapper_class=structlog.make_filtering_bound_logger(20),
)
import asyncio

print(type(asyncio) is DeferredModule, native.asyncio.run is asyncio.run)
asyncio.run(logger.ainfo("logged through the stand-in"))
"""


def test_the_stand_in_for_asyncio_imports_it_when_used() -> None:
    """Inside `asyncio_deferred` structlog takes a stand-in; afterwards `import asyncio` is the
    real module, and structlog's async methods, through the stand-in, still log."""
    result = subprocess.run(
        [sys.executable, "-c", DEFERRED_ASYNCIO_PROGRAM],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "True True False",
        "False True",
        "event='logged through the stand-in'",
    ]
