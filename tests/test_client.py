"""client/engine.py, the one engine-process layer, against the real engine and small fakes."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from client.engine import (
    ENGINE_DEFAULT,
    STDERR_KEPT,
    Engine,
    EngineDied,
    Failure,
    parse_response,
)
from client.logs import PREFIX, TemporaryLogs
from client.stop import STOP_SIGNALS, stop_on_signals
from tests.conftest import REPO, TIMEOUT

#: A made-up engine: answers `= ok` (echoing any id), speaks on stderr first when asked,
#: hangs on `hang`, dies on `die`, answers with a stray empty line first on `stray`, with
#: another id on `wrong`, and sends several lines on `many`.
FAKE = r"""
import sys, time
for line in sys.stdin:
    words = line.split()
    number, name = (words[0], words[1]) if words[0].isdigit() else ("", words[0])
    if name == "die":
        sys.stderr.write("fake: dying on purpose\n")
        sys.stderr.flush()
        sys.exit(3)
    if name == "hang":
        time.sleep(3600)
    if name == "think":
        for depth in range(1, 4):
            sys.stderr.write(f"depth {depth}\n")
            sys.stderr.flush()
    if name == "stray":
        sys.stdout.write("\n")
    if name == "wrong":
        number = "999"
    text = "first\nsecond\nthird" if name == "many" else "ok"
    sys.stdout.write(f"={number} {text}\n\n")
    sys.stdout.flush()
"""


@pytest.fixture
def fake(tmp_path: Path) -> str:
    """The command line of the made-up engine."""
    script = tmp_path / "fake_engine.py"
    script.write_text(FAKE)
    return f"python {script}"


def test_the_real_engine_numbered_and_as_sent(tmp_path: Path) -> None:
    """ask() numbers the line and checks the echo; send() sends the line as it is."""
    with Engine(log_dir=tmp_path / "logs", timeout=TIMEOUT, handshake=True) as engine:
        answer = engine.ask("name")
        assert (answer.ok, answer.text) == (True, "cubemate")
        assert answer.raw == f"={answer.id} cubemate\n\n"
        refused = engine.send("7 boardsize 1")
        assert (refused.ok, refused.id) == (False, 7)
        assert refused.text.startswith("unacceptable size")
        picture = engine.send("showboard")
        assert picture.id is None
        assert picture.text.splitlines()[-1] == "white to move"
        assert engine.restarts == 0
    assert (tmp_path / "logs" / "cubemate.jsonl").exists()


def test_parse_response() -> None:
    """The mark, the id and one space are taken off; the rest is the text, lines and all."""
    assert parse_response("=12 a\nb\n\n") == parse_response("=12 a\nb\n\n")
    response = parse_response("=12 a\n b\n\n")
    assert (response.ok, response.id, response.text) == (True, 12, "a\n b")
    response = parse_response("? no\n\n")
    assert (response.ok, response.id, response.text) == (False, None, "no")
    response = parse_response("nonsense\n\n")
    assert (response.ok, response.id, response.text) == (False, None, "nonsense")


def test_a_hung_engine_is_killed_and_replaced(fake: str) -> None:
    """Past the timeout the engine is killed; the next line starts a new one."""
    with Engine(fake, timeout=1, start_timeout=TIMEOUT) as engine:
        assert engine.ask("hello").text == "ok"
        first = engine.pid
        with pytest.raises(EngineDied) as death:
            engine.ask("hang")
        assert death.value.failure is Failure.TIMEOUT
        assert death.value.killed and death.value.delivered
        assert "gave no answer to" in str(death.value) and "within 1 s; killed" in str(death.value)
        assert not engine.alive
        assert engine.ask("hello").text == "ok"
        assert engine.pid != first and engine.restarts == 1


def test_a_dead_engine_says_its_exit_code_and_stderr(fake: str) -> None:
    """An engine that exits mid-answer: its own exit code and its last stderr lines."""
    with Engine(fake, timeout=TIMEOUT) as engine:
        with pytest.raises(EngineDied) as death:
            engine.ask("die")
        assert death.value.failure is Failure.EXIT
        assert death.value.exit_code == 3 and not death.value.killed
        assert str(death.value) == (
            "the engine closed its output; exit code 3; stderr: fake: dying on purpose"
        )
        assert engine.ask("hello").ok


def test_out_of_step_answers_and_stray_lines(fake: str) -> None:
    """An answer with another id is an engine out of step; stray empty lines are skipped."""
    with Engine(fake, timeout=TIMEOUT) as engine:
        assert engine.ask("stray").text == "ok"
        assert engine.ask("many").text == "first\nsecond\nthird"
        with pytest.raises(EngineDied) as death:
            engine.ask("wrong")
        assert death.value.failure is Failure.GARBLED
        assert "'=999 ok\\n\\n'" in str(death.value)
        with pytest.raises(ValueError, match="one protocol line at a time"):
            engine.send("hello\nhello")
        assert engine.ask("hello").text == "ok"


def test_every_stderr_line_reaches_the_callback_before_the_answer(fake: str) -> None:
    """The "thinking" lines come to the callback, in order, before the answer is returned:
    a GUI that shows the search's last line beside its move must find it there. Asked many
    times, since the lines and the answer come on two pipes read by two threads."""
    lines: list[str] = []
    with Engine(fake, timeout=TIMEOUT, on_stderr=lines.append) as engine:
        for asked in range(1, 201):
            assert engine.ask("think").text == "ok"
            assert lines == ["depth 1", "depth 2", "depth 3"] * asked
        assert engine.stderr_tail() == lines[-STDERR_KEPT:]


def test_what_is_no_engine_fails_at_once(tmp_path: Path) -> None:
    """A missing program, or one that does not speak the protocol, fails on starting."""
    with pytest.raises(EngineDied) as death:
        Engine("/nonexistent/engine").start()
    assert death.value.failure is Failure.START
    assert "cannot start the engine /nonexistent/engine" in str(death.value)
    with pytest.raises(EngineDied) as death:
        Engine(["true"], log_dir=ENGINE_DEFAULT, handshake=True).start()
    assert death.value.failure is Failure.START
    assert "did not answer protocol_version" in str(death.value)


def test_quit_ends_the_engine_and_the_next_line_starts_another(tmp_path: Path) -> None:
    """After `quit` the engine is gone; the next line is answered by a new one."""
    with Engine(log_dir=tmp_path, timeout=TIMEOUT) as engine:
        assert engine.send("quit").ok
        assert not engine.alive and engine.returncode == 0
        assert engine.send("name").text == "cubemate"
        assert engine.restarts == 1


CLIENT = """
import sys
from client.engine import Engine
engine = Engine(timeout=60)
engine.ask("name")
print(engine.log_folder, flush=True)
sys.stdin.read()
"""


def test_temporary_logs_go_with_the_engine_even_after_a_kill(tmp_path: Path) -> None:
    """The temporary log folder is removed on close, and also when the client is killed
    with SIGKILL: its engine ends and the watcher removes the folder."""
    with Engine(timeout=TIMEOUT) as engine:
        engine.ask("name")
        kept = engine.log_folder
        assert kept is not None and Path(kept, "cubemate.jsonl").exists()
    assert not Path(kept).exists()

    temporary = tmp_path / "tmp"
    temporary.mkdir()

    client = subprocess.Popen(
        [sys.executable, "-c", CLIENT],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        cwd=REPO,
        env=dict(os.environ, TMPDIR=str(temporary)),
    )
    assert client.stdout is not None
    folder = Path(client.stdout.readline().decode().strip())
    assert folder.parent == temporary and folder.name.startswith(PREFIX)
    assert (folder / "cubemate.jsonl").exists()
    client.send_signal(signal.SIGKILL)
    client.wait(timeout=TIMEOUT)
    deadline = time.monotonic() + TIMEOUT
    while folder.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not folder.exists()


def test_temporary_logs_close_their_descriptor_once(tmp_path: Path) -> None:
    """Closing the write end, then removing the folder, leaves alone a file opened since
    under the same descriptor number (issue 38: a batch lost its input file so)."""
    logs = TemporaryLogs()
    number = logs.hold
    logs.engine_started()
    reader, writer = os.pipe()  # the lowest free numbers: the one just closed among them
    assert number in (reader, writer)
    try:
        logs.remove()
        logs.remove()
        os.fstat(reader)
        os.fstat(writer)
    finally:
        os.close(reader)
        os.close(writer)
    assert not Path(logs.folder).exists()


def test_signals_set_the_stop_flag_until_the_stack_closes() -> None:
    """Each of Ctrl-C, SIGTERM and SIGHUP only sets the flag (a second signal inside the
    handler cannot wait on a lock: there is none); the old handlers come back afterwards."""
    before = [signal.getsignal(signum) for signum in STOP_SIGNALS]
    for signum in STOP_SIGNALS:
        with contextlib.ExitStack() as stack:
            flag = stop_on_signals(stack)
            assert not flag.is_set()
            os.kill(os.getpid(), signum)
            os.kill(os.getpid(), signum)
            assert flag.is_set()
        assert [signal.getsignal(signum) for signum in STOP_SIGNALS] == before
