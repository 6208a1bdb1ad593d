"""Stopping a long search, and ending the engine in the middle of one, through the real process.

A search here is one that would run for hours: the tests stop it, or end the engine, once its
input event is in the logs, which the engine writes as the command starts (item 4 of issue 24).
"""

from __future__ import annotations

import re
import signal
import sys
import time
from pathlib import Path

import pexpect
import pytest

from kernel.interrupt import (
    COMMAND,
    EndingSignal,
    SearchStopped,
    on_ending,
    on_terminal_interrupt,
)
from kernel.mates.search import Budget
from tests.conftest import (
    CONSOLE_LOG,
    MAIN,
    REPO,
    TIMEOUT,
    Engine,
    default_signals,
    engine_env,
    read_console_log,
    read_json_log,
)

#: A 5×5×5 position, black to move, whose deeper searches run for hours (even the compiled
#: mate search takes 45 s for mate_in 7, and each move more multiplies that several times).
BOARD = (
    "[#####,##k##,#####,#b###,#####],[#####,#####,#q###,#####,#####],"
    "[#####,#####,#####,#####,#####],[#####,#B###,#####,#####,#####],"
    "[#####,#####,#Q###,#####,####K] b"
)
#: Searches far beyond the time of any test, with the node limit below.
ENDLESS = ["perft 9", "mate_in 12", "solution 12"]
STOPPED = re.compile(rb"\?7 search stopped after [0-9]+ positions\n\n")


@pytest.fixture
def endless_config(tmp_path: Path) -> Path:
    """A config whose node limit no search of a test reaches."""
    config = tmp_path / "endless.toml"
    config.write_text("[search]\nmax_nodes = 1000000000000\n")
    return config


def ignore_sigint() -> None:
    """In the child: start with SIGINT ignored, as a background job of a shell does, and
    SIGHUP at its default (this test run may have been started under nohup)."""
    default_signals()
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def keep_sighup_ignored() -> None:
    """In the child: start with SIGHUP ignored, as under nohup."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)


def wait_for_input(log_dir: Path, line: str) -> None:
    """Wait until both logs hold the input event of `line` (the command has started)."""
    deadline = time.monotonic() + TIMEOUT
    console = log_dir / CONSOLE_LOG
    while True:
        in_console = console.exists() and f"] # {line}\n" in console.read_text()
        if in_console and any(event.get("line") == line for event in read_json_log(log_dir)):
            return
        assert time.monotonic() < deadline, f"{line!r} never logged as it arrived"
        time.sleep(0.01)


def start_search(engine: Engine, search: str) -> None:
    """Set up the position, then start an endless search with id 7 and wait until it runs."""
    assert engine.ask(f"set_board {BOARD}") == b"= \n\n"
    engine.send(f"7 {search}\n".encode())
    wait_for_input(engine.log_dir, f"7 {search}")


# --- SIGUSR1 stops a search, and only that ------------------------------------------------


@pytest.mark.parametrize("search", ENDLESS)
def test_sigusr1_stops_a_search_and_changes_nothing(
    log_dir: Path, endless_config: Path, engines: list[Engine], search: str
) -> None:
    """SIGUSR1 during a search: `? search stopped after N positions`, nothing changed, and
    the engine answers on; the next search is not stopped."""
    engine = Engine(log_dir, "--config", str(endless_config))
    engines.append(engine)
    assert engine.ask(f"set_board {BOARD}") == b"= \n\n"
    assert engine.ask("play bb2(V)-a1(IV)") == b"= \n\n"  # for undo to take back
    board = engine.ask("get_board")
    engine.send(f"7 {search}\n".encode())
    wait_for_input(log_dir, f"7 {search}")
    engine.signal(signal.SIGUSR1)
    assert STOPPED.fullmatch(engine.read_response())
    assert engine.ask("get_board") == board
    assert engine.ask("undo") == b"= \n\n"
    assert engine.ask("perft 2") == b"= 2494\n\n"
    code, rest, err = engine.finish()
    assert (code, rest, err) == (0, b"", b"")
    events = read_json_log(log_dir)
    stopped = [event for event in events if event["id"] == 7]
    assert [(event["event"], event["level"]) for event in stopped] == [
        ("input", "info"),
        ("error", "warning"),
    ]
    assert STOPPED.fullmatch(stopped[1]["error"].encode() + b"\n\n")


def test_sigusr1_when_idle_is_forgotten(log_dir: Path, engines: list[Engine]) -> None:
    """SIGUSR1 while no command runs does nothing: the engine lives, and the search that
    comes next runs to its end."""
    engine = Engine(log_dir)
    engines.append(engine)
    assert engine.ask(f"set_board {BOARD}") == b"= \n\n"
    engine.signal(signal.SIGUSR1)
    assert engine.ask("perft 2") == b"= 2494\n\n"
    assert engine.ask("mate_in 1") == b"= \n\n"
    assert engine.finish() == (0, b"", b"")


# --- signals that end the engine, even in the middle of a search ---------------------------


def ending_engine(log_dir: Path, config: Path, signum: signal.Signals) -> Engine:
    """An engine for `signum` to end: with SIGINT ignored at the start, as a background job,
    unless SIGINT is what ends it."""
    if signum == signal.SIGINT:
        return Engine(log_dir, "--config", str(config))
    return Engine(log_dir, "--config", str(config), preexec=ignore_sigint)


@pytest.mark.parametrize("search", ENDLESS[:2])
@pytest.mark.parametrize(
    "signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT], ids=["SIGTERM", "SIGHUP", "SIGINT"]
)
def test_ending_signal_during_a_search(
    log_dir: Path,
    endless_config: Path,
    engines: list[Engine],
    signum: signal.Signals,
    search: str,
) -> None:
    """SIGTERM, SIGHUP (and SIGINT on a pipe) in the middle of a search end the engine as
    when it is idle: exit 0, no answer, nothing on stderr, and the logs end with the search's
    input and the exit. SIGTERM does so even when the engine started with SIGINT ignored."""
    engine = ending_engine(log_dir, endless_config, signum)
    engines.append(engine)
    start_search(engine, search)
    engine.signal(signum)
    engine.process.wait(timeout=TIMEOUT)
    assert engine.finish() == (0, b"", b"")
    events = read_json_log(log_dir, session=True)
    assert [event["event"] for event in events[-2:]] == ["input", "exit"]
    assert events[-2]["line"] == f"7 {search}"
    assert (events[-1]["reason"], events[-1]["signal"]) == ("signal", signum.name)
    console = [line.text for line in read_console_log(log_dir, session=True)]
    assert console[-2:] == [f"# 7 {search}", f"exit: signal {signum.name}"]


@pytest.mark.parametrize("signum", [signal.SIGHUP, signal.SIGTERM], ids=["SIGHUP", "SIGTERM"])
def test_sighup_and_sigterm_when_idle_log_the_exit(
    log_dir: Path, engines: list[Engine], signum: signal.Signals
) -> None:
    """SIGHUP (a terminal hanging up), like SIGTERM, ends an idle engine with an exit event."""
    engine = Engine(log_dir)
    engines.append(engine)
    assert engine.ask("name") == b"= cubemate\n\n"
    engine.signal(signum)
    engine.process.wait(timeout=TIMEOUT)
    assert engine.finish() == (0, b"", b"")
    end = read_json_log(log_dir, session=True)[-1]
    assert (end["event"], end["reason"], end["signal"]) == ("exit", "signal", signum.name)


def test_sighup_ignored_at_the_start_stays_ignored(log_dir: Path, engines: list[Engine]) -> None:
    """Under nohup, SIGHUP is ignored: the engine goes on answering."""
    engine = Engine(log_dir, preexec=keep_sighup_ignored)
    engines.append(engine)
    assert engine.ask("name") == b"= cubemate\n\n"
    engine.signal(signal.SIGHUP)
    assert engine.ask("1 name") == b"=1 cubemate\n\n"
    assert engine.finish() == (0, b"", b"")


def test_killed_mid_search_the_input_is_in_both_logs(
    log_dir: Path, endless_config: Path, engines: list[Engine]
) -> None:
    """SIGKILL (what the out-of-memory killer sends) in the middle of a search: both logs
    already show what was asked, whole."""
    engine = Engine(log_dir, "--config", str(endless_config))
    engines.append(engine)
    start_search(engine, "mate_in 12")
    engine.signal(signal.SIGKILL)
    assert engine.process.wait(timeout=TIMEOUT) == -signal.SIGKILL
    events = read_json_log(log_dir, session=True)
    assert [event["event"] for event in events] == ["start", "input", "output", "input"]
    assert events[-1]["line"] == "7 mate_in 12"
    assert read_console_log(log_dir)[-1].text == "# 7 mate_in 12"


# --- Ctrl-C at a terminal ------------------------------------------------------------------


def test_ctrl_c_at_a_terminal_stops_the_search_then_ends_at_the_prompt(
    tmp_path: Path, log_dir: Path, endless_config: Path
) -> None:
    """At a terminal, Ctrl-C during a search stops the search only, as in Python's REPL; the
    session goes on, and Ctrl-C at the prompt then ends it, quietly."""
    child = pexpect.spawn(
        sys.executable,
        [str(MAIN), "--log-dir", str(log_dir), "--config", str(endless_config)],
        cwd=str(REPO),
        env=engine_env(HOME=str(tmp_path), TERM="xterm"),
        timeout=TIMEOUT,
        preexec_fn=default_signals,
    )
    try:
        child.expect_exact(b"Ctrl-D")
        child.send(f"set_board {BOARD}\r".encode())
        child.expect_exact(b"= \r\n\r\n")
        child.send(b"7 mate_in 12\r")
        wait_for_input(log_dir, "7 mate_in 12")
        child.sendintr()
        child.expect(rb"\?7 search stopped after [0-9]+ positions\r\n\r\n")
        child.send(b"8 name\r")
        child.expect_exact(b"=8 cubemate\r\n\r\n")
        wait_for_prompt(child)
        child.sendintr()
        child.expect(pexpect.EOF)
        assert b"Traceback" not in child.before
    finally:
        child.close(force=True)
    assert (child.signalstatus, child.exitstatus) == (None, 0)
    end = read_json_log(log_dir, session=True)[-1]
    assert (end["reason"], end["signal"]) == ("signal", "SIGINT")


def wait_for_prompt(child: pexpect.spawn) -> None:
    """Wait until readline has the terminal again (canonical mode off)."""
    import termios

    deadline = time.monotonic() + TIMEOUT
    while termios.tcgetattr(child.child_fd)[3] & termios.ICANON:
        assert time.monotonic() < deadline, "the engine never read the terminal again"
        time.sleep(0.01)


# --- in process: the flag and the handlers --------------------------------------------------


def test_a_stop_is_seen_at_the_next_count_and_only_in_a_command() -> None:
    """Budget.spend raises SearchStopped, with the count, at the first count after a stop was
    asked, at any count (not only where the clock is read); a stop asked while no command
    runs is forgotten."""
    from kernel.interrupt import request_stop

    budget = Budget(limit=100)
    request_stop()  # no command runs: forgotten
    with COMMAND:
        budget.spend(3)
        request_stop()
        with pytest.raises(SearchStopped, match="search stopped after 4 positions"):
            budget.spend()
    budget.spend()  # the command is over, and its stop with it
    assert budget.nodes == 5


def test_second_ctrl_c_during_a_command_ends_the_engine() -> None:
    """At a terminal, the first Ctrl-C during a command asks its search to stop; a second,
    while the command goes on (one that never counts positions), ends the engine."""
    with COMMAND:
        on_terminal_interrupt(signal.SIGINT, None)
        assert COMMAND.stop_requested
        with pytest.raises(EndingSignal, match="SIGINT"):
            on_terminal_interrupt(signal.SIGINT, None)
        COMMAND.ending = False
    with pytest.raises(EndingSignal):
        on_terminal_interrupt(signal.SIGINT, None)  # at the prompt: ends at once
    COMMAND.ending = False


def test_an_ending_signal_while_a_command_runs_waits_for_it_to_unwind() -> None:
    """SIGTERM (or SIGHUP, or SIGINT on a pipe) during a command raises nothing there, where
    it could land half way through a move being played; it stops the search, and the engine
    ends once the command is out (a search of mate_in 5 was answered `? internal error:
    KeyError` when the signal landed inside a move's cleanup)."""
    with COMMAND:
        on_ending(signal.SIGTERM, None)  # no raise inside the command
        assert COMMAND.stop_requested and COMMAND.pending_end == "SIGTERM"
        on_ending(signal.SIGHUP, None)  # the second is ignored
        assert COMMAND.pending_end == "SIGTERM"
    with pytest.raises(EndingSignal, match="SIGTERM"):
        COMMAND.end_if_asked()
    assert COMMAND.pending_end is None
    COMMAND.ending = False
