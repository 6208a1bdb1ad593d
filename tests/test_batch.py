"""Batch work through real engine processes: order, ids, resume, dying engines, Dask, mining."""

from __future__ import annotations

import fcntl
import json
import os
import random
import re
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from concurrent.futures import Future
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from batch.cli import main as batch_main
from batch.generate import family, generate
from batch.jobs import Outcome
from batch.keep import FilterError, parse_filter
from batch.runners import outcomes_of
from client.stop import StopFlag
from tests.cases import REFERENCE_CASES
from tests.conftest import CASE_1, MAIN, REPO, TIMEOUT, Engine, default_signals

#: Generous: a batch of a few thousand positions takes seconds on a quiet machine.
RUN_TIMEOUT = 8 * TIMEOUT
#: rules.md's example: black to move mates in 2 by exactly two keys, and not in 1.
MATE_IN_2 = "[###,#k#,#b#],[##b,###,###],[r##,##K,###]"
MATE_IN_2_KEYS = "bb1(III)-a2(II) bb1(III)-c2(II)"


def batch(*arguments: str, stdin: str = "", timeout: float = RUN_TIMEOUT) -> tuple[int, str, str]:
    """Run `python -m batch` as a process; return its exit code, stdout and stderr."""
    done = subprocess.run(
        [sys.executable, "-m", "batch", *arguments],
        input=stdin.encode(),
        capture_output=True,
        cwd=REPO,
        timeout=timeout,
        check=False,
    )
    return done.returncode, done.stdout.decode(), done.stderr.decode()


def records(text: str) -> list[dict[str, Any]]:
    """Parse JSON lines; every line must be one whole object."""
    assert text == "" or text.endswith("\n"), "output ends inside a line"
    return [json.loads(line) for line in text.splitlines()]


def start_batch(*arguments: str, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    """Start a batch in the background, stdin closed, outputs kept."""
    return subprocess.Popen(
        [sys.executable, "-m", "batch", *arguments],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=REPO,
        env=env,
        # SIGINT's and SIGHUP's defaults even where the test run was started ignoring them
        # (CI, nohup).
        preexec_fn=default_signals,
    )


def wait_for_lines(path: Path, count: int, process: subprocess.Popen[bytes]) -> int:
    """Wait until `path` holds `count` lines (the batch is under way); return how many."""
    deadline = time.monotonic() + RUN_TIMEOUT
    while time.monotonic() < deadline:
        lines = path.read_bytes().count(b"\n") if path.exists() else 0
        if lines >= count:
            return lines
        assert process.poll() is None, "the batch ended before it could be interrupted"
        time.sleep(0.01)
    raise TimeoutError(f"{path} did not reach {count} lines")


# -- input, order and ids


def test_order_ids_answers_and_refusals(tmp_path: Path) -> None:
    """Bare and JSON lines, comments and blanks: ids, order and the engine's own answers."""
    lines = ["# the ten reference cases, five times over, then oddities", ""]
    for case in REFERENCE_CASES * 5:
        lines.append(case.board)
    lines.append('{"id": "eight", "board": "[#q,##],[##,K#]"}')
    lines.append('{"board": "[rq,##],[##,K#]", "side": "white"}')
    lines.append("[K#,##],[##,K#]")
    lines.append(f"{MATE_IN_2} b")
    source = tmp_path / "positions.txt"
    source.write_text("\n".join(lines) + "\n")
    code, out, err = batch(
        str(source), "--jobs", "2", "--chunk", "1", "--ask", "status", "--ask", "checkmate"
    )
    assert (code, err) == (0, "")
    got = records(out)
    cases = list(REFERENCE_CASES * 5)
    assert [record["id"] for record in got] == [*range(3, 53), "eight", 54, 55, 56]
    for record, case in zip(got, cases, strict=False):
        assert record["board"] == case.board
        assert record["side"] == "w"
        assert record["answers"] == {"status": case.status, "checkmate": str(case.mated).lower()}
        assert record["errors"] == {}
    assert got[50]["answers"]["status"] == "check"
    assert got[51]["answers"]["checkmate"] == "true"
    assert got[52]["answers"] == {}
    assert got[52]["errors"]["set_board"].startswith("invalid board: 2 white kings")
    assert got[53]["side"] == "b"
    assert got[53]["board"] == MATE_IN_2


def test_answers_are_the_engines(tmp_path: Path, log_dir: Path) -> None:
    """Every answer equals what one engine says when asked by hand, multi-line ones included."""
    jobs = list(generate(family("crowded"), 30, seed=7))
    source = tmp_path / "positions.jsonl"
    source.write_text("".join(json.dumps({"board": j.board, "side": j.side}) + "\n" for j in jobs))
    asks = ["legal_moves", "showboard", "mate_in 1"]
    code, out, _ = batch(str(source), "--jobs", "1", *[f"--ask={ask}" for ask in asks])
    assert code == 0
    engine = Engine(log_dir)
    compared = 0
    try:
        for job, record in zip(jobs, records(out), strict=True):
            reply = engine.ask(f"set_board {job.board} {job.side}").decode()
            if reply.startswith("?"):
                assert record["errors"] == {"set_board": reply[2:-2]}
                continue
            assert reply == "= \n\n"
            compared += 1
            for ask in asks:
                expected = engine.ask(ask).decode()
                got = record["answers"].get(ask)
                assert expected == (
                    f"= {got}\n\n" if got is not None else f"? {record['errors'][ask]}\n\n"
                )
    finally:
        engine.kill()
    assert compared >= 10, "too few boards accepted to compare their answers"


def test_stdin_to_stdout_with_sides() -> None:
    """INPUT and OUTPUT default to stdin and stdout; SIDE is read after the closing bracket."""
    stdin = f"{MATE_IN_2} b\n{MATE_IN_2} black\n{REFERENCE_CASES[0].board} w\n"
    code, out, err = batch("--ask", "mate_in 2", stdin=stdin)
    assert (code, err) == (0, "")
    got = records(out)
    assert [record["side"] for record in got] == ["b", "b", "w"]
    assert got[0]["answers"] == {"mate_in 2": MATE_IN_2_KEYS}
    assert got[1]["answers"] == {"mate_in 2": MATE_IN_2_KEYS}


def test_same_output_whatever_the_workers(tmp_path: Path) -> None:
    """One worker or two, chunks of 1 or 5: the same bytes, in input order."""
    outputs = []
    for jobs, chunk in (("1", "8"), ("2", "1"), ("2", "5")):
        target = tmp_path / f"out-{jobs}-{chunk}.jsonl"
        code, _, _ = batch(
            "--generate", "sparse", "--count", "100", "--seed", "3",
            "--jobs", jobs, "--chunk", chunk, "--ask", "legal_moves", "-o", str(target),
        )  # fmt: skip
        assert code == 0
        outputs.append(target.read_text())
    assert outputs[0] == outputs[1] == outputs[2]
    assert [record["id"] for record in records(outputs[0])] == list(range(1, 101))


# -- long runs: resume, interruption, dying engines


def test_resume_after_a_kill(tmp_path: Path) -> None:
    """A batch killed mid-run, its last line cut in half, resumes to the uninterrupted bytes;
    its engines' temporary log folders go with them, though the batch could not remove them."""
    # 800 positions: the kill comes after 100 lines, the other 700 take a second or more.
    arguments = ["--generate", "crowded", "--count", "800", "--jobs", "1", "--chunk", "4",
                 "--ask", "status", "--ask", "checkers"]  # fmt: skip
    whole = tmp_path / "whole.jsonl"
    assert batch(*arguments, "-o", str(whole))[0] == 0
    expected = whole.read_text()
    assert len(expected.splitlines()) == 800

    target = tmp_path / "out.jsonl"
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    env = dict(os.environ, TMPDIR=str(temporary))
    process = start_batch(*arguments, "-o", str(target), env=env)
    try:
        wait_for_lines(target, 100, process)
        assert list(temporary.glob("cubemate-engine-logs-*")), "the engines log elsewhere"
        process.kill()
        process.wait(timeout=TIMEOUT)
    finally:
        if process.poll() is None:
            process.kill()
    deadline = time.monotonic() + RUN_TIMEOUT
    while list(temporary.glob("cubemate-engine-logs-*")) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not list(temporary.glob("cubemate-engine-logs-*"))
    written = target.read_text()
    assert expected.startswith(written.rstrip("\n").rsplit("\n", 1)[0])
    assert len(written.splitlines()) < 800, "the batch ended before the kill"
    # As if the kill had come in the middle of a write.
    with target.open("a") as output:
        output.write('{"id": 99999, "board": "[##')
    code, out, err = batch(*arguments, "-o", str(target), "--resume")
    assert (code, out, err) == (0, "", "")
    assert target.read_text() == expected


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_a_signal_stops_cleanly_and_resumes(tmp_path: Path, signum: signal.Signals) -> None:
    """Ctrl-C, SIGTERM or a closed terminal: exit 130, whole lines only, a message on
    stderr, no engine's log folder left behind; --resume finishes the job."""
    # 800 positions: the signal comes after 50 lines, the other 750 take a second or more.
    arguments = ["--generate", "sparse", "--count", "800", "--jobs", "2", "--chunk", "2"]
    target = tmp_path / "out.jsonl"
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    env = dict(os.environ, TMPDIR=str(temporary))
    process = start_batch(*arguments, "-o", str(target), env=env)
    wait_for_lines(target, 50, process)
    assert list(temporary.glob("cubemate-engine-logs-*")), "the engines log elsewhere"
    process.send_signal(signum)
    _, err = process.communicate(timeout=RUN_TIMEOUT)
    assert process.returncode == 130
    assert "interrupted" in err.decode()
    assert not list(temporary.glob("cubemate-engine-logs-*"))
    partial = records(target.read_text())
    assert [record["id"] for record in partial] == list(range(1, len(partial) + 1))
    assert len(partial) < 800
    code, _, _ = batch(*arguments, "-o", str(target), "--resume")
    assert code == 0
    ids = [record["id"] for record in records(target.read_text())]
    assert ids == list(range(1, 801))


def test_the_wait_for_a_chunk_stops_at_the_stop_flag() -> None:
    """The loop's wait for a chunk raises the stop once the flag is set, and otherwise
    returns the chunk's outcomes, or raises the chunk's own error, TimeoutError included."""
    interrupted = StopFlag()
    never: Future[list[Outcome]] = Future()
    threading.Timer(0.3, interrupted.set).start()
    with pytest.raises(KeyboardInterrupt):
        outcomes_of(never, interrupted)
    interrupted = StopFlag()
    later: Future[list[Outcome]] = Future()
    threading.Timer(0.3, later.set_result, [[]]).start()
    assert outcomes_of(later, interrupted) == []
    failed: Future[list[Outcome]] = Future()
    failed.set_exception(TimeoutError("the chunk's own"))
    with pytest.raises(TimeoutError, match="the chunk's own"):
        outcomes_of(failed, interrupted)


class TimedResultFails(Future[list[Outcome]]):
    """A future whose timed `result` fails as a Dask future's can (distributed 2026.8) when
    the chunk finishes just as the time runs out."""

    def result(self, timeout: float | None = None) -> list[Outcome]:
        if timeout is not None:
            raise UnboundLocalError("cannot access local variable 'result'")
        return super().result()


def test_the_wait_for_a_chunk_never_asks_for_a_timed_result() -> None:
    """The loop waits for the chunk to be done and only then takes its outcomes: a timed
    `result` that fails is never asked for (it crashed `bench --quick` once under load)."""
    later = TimedResultFails()
    threading.Timer(0.3, later.set_result, [[]]).start()
    assert outcomes_of(later, StopFlag()) == []


def test_resume_with_keep_writes_nothing_twice(tmp_path: Path) -> None:
    """Positions dropped by --keep before the last written one are not examined again."""
    arguments = ["--generate", "crowded", "--count", "400", "--jobs", "1",
                 "--keep", "legal_moves < 30 moves"]  # fmt: skip
    whole = tmp_path / "whole.jsonl"
    assert batch(*arguments, "-o", str(whole))[0] == 0
    kept = whole.read_text().splitlines(keepends=True)
    assert 5 < len(kept) < 400
    target = tmp_path / "out.jsonl"
    target.write_text("".join(kept[: len(kept) // 2]))
    assert batch(*arguments, "-o", str(target), "--resume")[0] == 0
    assert target.read_text() == whole.read_text()


FAKE_ENGINE = """
import os, subprocess, sys
ALWAYS, ONCE, HANG, MARK = {always!r}, {once!r}, {hang!r}, {mark!r}
child = subprocess.Popen([sys.executable, {main!r}, *sys.argv[1:]],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE)
for line in sys.stdin:
    if ALWAYS in line:
        sys.stderr.write("fake engine: crashing on purpose\\n")
        os._exit(3)
    if ONCE in line and not os.path.exists(MARK):
        open(MARK, "w").close()
        os._exit(4)
    if HANG in line:
        line = "hang"
        sys.stdin.read()
    child.stdin.write(line.encode())
    child.stdin.flush()
    response = b""
    while not response.endswith(b"\\n\\n"):
        response += child.stdout.read1(65536)
    sys.stdout.buffer.write(response)
    sys.stdout.flush()
"""


def fake_engine(tmp_path: Path, always: str, once: str, hang: str) -> str:
    """Write an engine that forwards to main.py but dies or hangs on chosen boards."""
    script = tmp_path / "fake_engine.py"
    mark = tmp_path / "crashed-once"
    script.write_text(
        FAKE_ENGINE.format(always=always, once=once, hang=hang, mark=str(mark), main=str(MAIN))
    )
    return f"{sys.executable} {script}"


def test_a_dying_engine_is_replaced(tmp_path: Path) -> None:
    """An engine dying once: retried and answered; dying twice: reported failed, in its place."""
    cases = [case.board for case in REFERENCE_CASES]
    always, once = cases[7], cases[8]
    engine = fake_engine(tmp_path, always=always, once=once, hang="no such board")
    source = tmp_path / "positions.txt"
    source.write_text("\n".join(cases) + "\n")
    # Logs in the test's folder: the fake's orphaned child may still write after it died.
    logs = str(tmp_path / "logs")
    code, out, err = batch(
        str(source), "--engine", engine, "--jobs", "2", "--chunk", "3", "--log-dir", logs
    )
    assert code == 1
    assert "1 position(s) failed" in err
    got = records(out)
    assert [record["id"] for record in got] == list(range(1, 11))
    for record, case in zip(got, REFERENCE_CASES, strict=True):
        if case.board == always:
            assert record["answers"] == {}
            assert "died on this position twice" in record["failed"]
            assert "exit code 3" in record["failed"]
            assert "crashing on purpose" in record["failed"]
        else:
            assert "failed" not in record
            assert record["answers"] == {"status": case.status}
    assert (tmp_path / "crashed-once").exists()


#: An engine that forwards to main.py but exits at once, code 5, on every board that holds
#: DIE (a wrapper as a crashing engine would be, its child left behind).
DYING_ENGINE = """
import os, subprocess, sys
child = subprocess.Popen([sys.executable, {main!r}, *sys.argv[1:]],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE)
for line in sys.stdin:
    if "set_board" in line and {die!r} in line:
        os._exit(5)
    child.stdin.write(line.encode())
    child.stdin.flush()
    response = b""
    while not response.endswith(b"\\n\\n"):
        response += child.stdout.read1(65536)
    sys.stdout.buffer.write(response)
    sys.stdout.flush()
"""


def test_engines_dying_on_one_board_in_ten(tmp_path: Path) -> None:
    """Issue 38: engines that die on one board in ten, again and again. Every death closes
    the engine's descriptors; none may close a file another thread opened under a number
    freed earlier (the input file was, and the run ended `cannot read ...: Bad file
    descriptor`, exit 2, with lines missing, or hung). The engines log into temporary
    folders, whose watcher pipes were the descriptors closed twice. Every position is
    written, the dying ones `failed` after their retry, exit 1."""
    die = REFERENCE_CASES[6].board
    script = tmp_path / "dying_engine.py"
    script.write_text(DYING_ENGINE.format(main=str(MAIN), die=die))
    source = tmp_path / "in.txt"
    source.write_text("".join(f"{case.board}\n" for case in REFERENCE_CASES * 5))
    target = tmp_path / "out.jsonl"
    code, out, err = batch(
        str(source), "-o", str(target), "--engine", f"{sys.executable} {script}",
        "--jobs", "2", "--chunk", "2",
    )  # fmt: skip
    assert (code, out) == (1, ""), err
    assert err == 'batch: 5 position(s) failed; see "failed" in the output\n'
    got = records(target.read_text())
    assert [record["id"] for record in got] == list(range(1, 51))
    for record, case in zip(got, REFERENCE_CASES * 5, strict=True):
        if case.board == die:
            assert "died on this position twice" in record["failed"]
            assert "exit code 5" in record["failed"]
        else:
            assert record["answers"] == {"status": case.status}, record


def test_a_hanging_engine_times_out(tmp_path: Path) -> None:
    """An engine that stops answering is killed after --timeout; the position fails."""
    cases = [case.board for case in REFERENCE_CASES[:4]]
    engine = fake_engine(tmp_path, always="none", once="none", hang=cases[1])
    logs = str(tmp_path / "logs")
    # One second is ample for the answers that must come in time: a fresh engine's start
    # is not under --timeout (its first answer has a minute), and every later answer is a
    # set_board or status on a 3x3x3 board, relayed by the fake in a millisecond or two.
    code, out, _ = batch(
        "--engine", engine, "--timeout", "1", "--log-dir", logs, stdin="\n".join(cases) + "\n"
    )
    assert code == 1
    got = records(out)
    assert "within 1 s" in got[1]["failed"]
    assert [record["answers"] for record in got[::2]] == [
        {"status": REFERENCE_CASES[0].status},
        {"status": REFERENCE_CASES[2].status},
    ]
    assert got[3]["answers"] == {"status": REFERENCE_CASES[3].status}


# -- Dask


@pytest.mark.parametrize(
    ("processes", "keep"),
    [(False, None), (True, "mate_in 1 = no key and mate_in 2 = one key")],
    ids=["threads", "worker-process-mining"],
)
def test_local_cluster_gives_the_local_output(
    tmp_path: Path, processes: bool, keep: str | None
) -> None:
    """The same generated batch through a Dask LocalCluster and through local workers; with
    a worker process, the tasks, the positions and the filter travel pickled."""
    from distributed import LocalCluster

    # 120 positions, 18 chunks: the filter keeps two of them (ids 14 and 109).
    arguments = ["--generate", "crowded", "--count", "120", "--seed", "11",
                 "--ask", "status", "--ask", "legal_moves", "--chunk", "7"]  # fmt: skip
    if keep is not None:
        arguments += ["--keep", keep]
    local = tmp_path / "local.jsonl"
    assert batch(*arguments, "--jobs", "2", "-o", str(local))[0] == 0
    cluster = LocalCluster(
        n_workers=1, threads_per_worker=2, processes=processes, dashboard_address=":0"
    )
    try:
        remote = tmp_path / "dask.jsonl"
        address = cluster.scheduler_address
        assert batch_main([*arguments, "--dask", address, "-o", str(remote)]) == 0
    finally:
        cluster.close()
    assert remote.read_text() == local.read_text()
    got = records(remote.read_text())
    if keep is None:
        assert len(got) == 120
    else:
        assert got, "nothing kept: the filter was not exercised"
        assert all(len(record["answers"]["mate_in 2"].split()) == 1 for record in got)


# -- mining


def test_generated_positions_are_game_positions() -> None:
    """Every position of both families is accepted for a mate search, for both sides."""
    for name, side in (("crowded", "b"), ("sparse", "b"), ("crowded", "w"), ("sparse", "w")):
        options = ["--generate", name, "--side", side, "--count", "150", "--seed", "5",
                   "--jobs", "1"]  # fmt: skip
        code, out, _ = batch(*options, "--ask", "mate_in 1")
        assert code == 0
        got = records(out)
        assert len(got) == 150
        for record in got:
            assert record["errors"] == {}, record
            assert record["side"] == side


def test_families_are_seeded_and_sized() -> None:
    """The same seed gives the same positions; options set the size and the piece counts."""
    chosen = family("crowded", size=5, attackers=3, defenders=1, radius=1)
    first = [job.board for job in generate(chosen, 50, seed=1)]
    assert first == [job.board for job in generate(chosen, 50, seed=1)]
    assert first != [job.board for job in generate(chosen, 50, seed=2)]
    for board in first:
        assert board.count(",") == 5 * 5 - 1
        assert board.count("K") == board.count("k") == 1
        black = sum(character in "qrbn" for character in board)
        white = sum(character in "QRBN" for character in board)
        assert black <= 3 and white <= 1


def test_mining_keeps_exactly_the_unique_keys(tmp_path: Path) -> None:
    """--keep on mate in 2 keeps what a filter over the full output in Python keeps."""
    every = tmp_path / "every.jsonl"
    base = ["--generate", "crowded", "--count", "200", "--seed", "2", "--jobs", "1"]
    code, _, _ = batch(*base, "--ask", "mate_in 1", "--ask", "mate_in 2", "-o", str(every))
    assert code == 0
    wanted = [
        record
        for record in records(every.read_text())
        if record["answers"].get("mate_in 1") == ""
        and len(record["answers"].get("mate_in 2", "").split()) == 1
    ]
    code, out, _ = batch(*base, "--keep", "mate_in 1 = no key and mate_in 2 = one key")
    assert code == 0
    assert records(out) == wanted
    assert wanted, "no unique-key mate in 2 among 200 crowded positions"


def test_keep_on_a_solution() -> None:
    """A filter on a multi-line answer counts its keys (lines at column 0)."""
    stdin = f"{MATE_IN_2} b\n{REFERENCE_CASES[0].board}\n"
    code, out, _ = batch("--keep", "solution 2 = two keys", stdin=stdin)
    assert code == 0
    (record,) = records(out)
    assert record["id"] == 1
    lines = record["answers"]["solution 2"].split("\n")
    assert [line for line in lines if not line.startswith(" ")] == MATE_IN_2_KEYS.split()


@pytest.mark.parametrize(
    ("source", "answers", "kept"),
    [
        ("status == checkmate", {"status": "checkmate"}, True),
        ("status = checkmate", {"status": "check"}, False),
        ("status != checkmate", {"status": "check"}, True),
        ("not status == check", {"status": "check"}, False),
        ("legal_moves >= 2 moves", {"legal_moves": "a b"}, True),
        ("legal_moves > 2 moves", {"legal_moves": "a b"}, False),
        ("legal_moves = no move", {"legal_moves": ""}, True),
        ("mate_in 2 has bb1(III)-a2(II)", {"mate_in 2": MATE_IN_2_KEYS}, True),
        ("mate_in 2 has bb1(III)", {"mate_in 2": MATE_IN_2_KEYS}, False),
        ("perft 2 > 100", {"perft 2": "300"}, True),
        ("perft 2 <= 100", {"perft 2": "300"}, False),
        ("perft 2 == 300", {"perft 2": "300"}, True),
        ("checkers ~ ^q", {"checkers": "qb2(II)"}, True),
        ("status == 'check' and (checkers ok or explain ok)", {"status": "check"}, False),
        ("status == checkmate or (status == check and checkers = one)", {"status": "x"}, False),
        ("mate_in 1 refused", {}, True),
        ("mate_in 1 ok", {}, False),
        ("mate_in 1 = no key", {}, False),
    ],
)
def test_filter_language(source: str, answers: dict[str, str], kept: bool) -> None:
    """Each form of condition, on made-up answers."""
    keep = parse_filter(source)
    assert keep(Outcome(1, "[K#,##],[##,##]", "w", answers, {})) is kept


def test_filter_names_its_commands_and_never_keeps_failures() -> None:
    """The commands a filter needs are found in order, once; a failed position is dropped."""
    keep = parse_filter("mate_in 1 = no key and (mate_in 2 = one key or mate_in 1 refused)")
    assert keep.asks == ("mate_in 1", "mate_in 2")
    answers = {"mate_in 1": "", "mate_in 2": "x"}
    assert keep(Outcome(1, "b", "w", answers))
    assert not keep(Outcome(1, "b", "w", answers, failed="engine died"))


@pytest.mark.parametrize(
    ("source", "answers", "asked", "rejected"),
    [
        ("mate_in 1 = no key and mate_in 2 = one key", {"mate_in 1": "x"}, {"mate_in 1"}, True),
        ("mate_in 1 = no key and mate_in 2 = one key", {"mate_in 1": ""}, {"mate_in 1"}, False),
        ("mate_in 1 = no key or mate_in 2 = one key", {"mate_in 1": "x"}, {"mate_in 1"}, False),
        ("not (status ok or mate_in 2 ok)", {"status": "check"}, {"status"}, True),
        ("not (status ok and mate_in 2 ok)", {"status": "check"}, {"status"}, False),
        ("status refused and mate_in 2 ok", {}, {"status"}, False),
        ("status ok and mate_in 2 ok", {}, {"status"}, True),
    ],
)
def test_filter_rejects_early(
    source: str, answers: dict[str, str], asked: set[str], rejected: bool
) -> None:
    """A position is given up only when no answer still to come could make it match."""
    keep = parse_filter(source)
    outcome = Outcome(1, "b", "w", answers, {name: "no" for name in asked - set(answers)})
    assert keep.rejects(outcome, asked) is rejected
    if rejected:
        assert not keep(replace(outcome, rejected=True))


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("", "empty"),
        ("status", "no comparison after 'status'"),
        ("== check", "expected a command name but found '=='"),
        ("status == check )", "unexpected ')'"),
        ("(status == check", "ends too early"),
        ("checkers ~ (", "nothing after '~'"),
        ("checkers ~ '('", "bad regular expression"),
        ("perft 1 > many", "needs a number or a count"),
        ("status == check and", "expected a command name but found the end"),
        ('status == "check', "cannot read the filter"),
    ],
)
def test_filter_errors(source: str, message: str) -> None:
    """A filter that does not parse says where."""
    with pytest.raises(FilterError, match=re.escape(message)):
        parse_filter(source)


# -- refusals and the terminal


@pytest.mark.parametrize(
    ("arguments", "stdin", "message"),
    [
        (["--keep", "status"], "", "no comparison"),
        (["--resume"], "", "--resume needs -o OUTPUT"),
        (["--ask", "quit"], "", "not allowed in a batch"),
        (["--ask", "3 status"], "", "not allowed in a batch"),
        (["--jobs", "0"], "", "--jobs and --chunk must be 1 or more"),
        (["--engine", "/nonexistent/engine"], "", "cannot start the engine"),
        (["--generate", "crowded", "--size", "2", "--attackers", "9"], "", "do not fit"),
        (["--generate", "crowded", "--side", "x"], "", "--side must be"),
        ([], '{"board": 3}\n', 'input line 1: no "board" text'),
        ([], "{nope\n", "input line 1: not valid JSON"),
        ([], '{"board": "[K#,##],[##,##]", "side": "up"}\n', '"side" must be'),
        ([], '{"id": 1.5, "board": "[K#,##],[##,##]"}\n', '"id" must be'),
        ([], '{"id": 2, "board": "x"}\n[K#,##],[##,##]\n', "input line 2: id 2 is used twice"),
        (["/nonexistent/positions.txt"], "", "cannot read /nonexistent/positions.txt"),
        (["--timeout", "nan"], "", "--timeout must be a positive number of seconds, not nan"),
        (["--timeout", "inf"], "", "--timeout must be a positive number of seconds, not inf"),
        (["--jobs", "100000"], "", "--jobs 100000: at most 256 local workers"),
        (["--generate", "crowded", "--size", "1000"], "", "--size must be 2 ... 200, not 1000"),
        (
            ["--generate", "crowded", "--size", "65"],
            "",
            "--size 65: the engine refuses it: unacceptable size (2 ... 64)",
        ),
        ([], '{"id": 1' + "0" * 5000 + ', "board": "x"}\n', "input line 1: not valid JSON: "),
        # Named, or its 200,000 brackets would be in the test's id, which pytest puts in
        # PYTEST_CURRENT_TEST: an environment string that long is more than exec takes.
        pytest.param(
            [], '{"board": ' + "[" * 100_000 + "]" * 100_000 + "}\n", "nested too deeply", id="deep"
        ),
        (["-o", "/dev/full"], f"{CASE_1}\n", "cannot write /dev/full: No space left on device"),
        (["-o", "/nonexistent/out.jsonl"], f"{CASE_1}\n", "cannot write /nonexistent/out.jsonl"),
    ],
)
def test_bad_options_and_input(arguments: list[str], stdin: str, message: str) -> None:
    """Bad options, input and output: exit 2 and one line on stderr naming the problem."""
    code, _, err = batch(*arguments, stdin=stdin)
    assert code == 2
    assert err.startswith("batch: ")
    assert message in err
    assert err.count("\n") == 1, err


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (b'{"id": 1, "board": "\xff"}\n', "line 1 of {} is not UTF-8 text"),
        (
            b'{"id": [1], "board": "x", "answers": {"status": "normal"}, "errors": {}}\n',
            "line 1 of {} is not a batch record",
        ),
        (b'{"id": ' + b"1" * 5000 + b"}\n", "line 1 of {} is not valid JSON: Exceeds the limit"),
        pytest.param(  # named: see "deep" above
            b"[" * 100_000 + b"]" * 100_000 + b"\n",
            "line 1 of {} is not valid JSON: nested too deeply",
            id="deep",
        ),
    ],
)
def test_resume_refuses_an_output_it_cannot_read(tmp_path: Path, line: bytes, message: str) -> None:
    """An earlier output that is not a batch's: exit 2, one line naming it, the file intact."""
    target = tmp_path / "out.jsonl"
    target.write_bytes(line)
    code, _, err = batch("-o", str(target), "--resume", stdin=f"{CASE_1}\n")
    assert code == 2
    assert err.startswith(f"batch: --resume: {message.format(target)}")
    assert err.count("\n") == 1
    assert target.read_bytes() == line


#: A record of this batch's input (CASE_1 is line 1), as a batch writes it.
RECORD_1 = json.dumps(
    {"id": 1, "board": CASE_1, "side": "w", "answers": {"status": REFERENCE_CASES[0].status},
     "errors": {}}
).encode()  # fmt: skip
#: The start of an arena records file, its last line unfinished (docs/arena.md).
ARENA_RECORD = (
    b"Size: 3\nStart: " + CASE_1.encode() + b" w\nResult: 1-0 (checkmate)\nWhite: greedy\n"
    b"Black: random\nRound: 1\n1. Ra1(I)-a2(I) kb2(II)-b3(II)\n2. Ra2(I)-"
)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"first note\nsecond note, the last, without its newline", "line 1 of {} is not valid"),
        (b"one note without a newline", "line 1 of {} is not a batch record"),
        (random.Random(38).randbytes(4096).replace(b"\n", b""), "line 1 of {} is not a batch"),
        (ARENA_RECORD, "line 1 of {} is not valid JSON"),
        (RECORD_1 + b"\nnotes after a record", "line 2 of {} is not a batch record"),
        (RECORD_1 + b'\n{"id": 2, "board": "\xff', "line 2 of {} is not UTF-8 text"),
        (
            b'{"id": 7, "board": "x", "answers": {}, "errors": {"set_board": "?"}}\n{"id": 8',
            "holds id 7",
        ),
    ],
    ids=[
        "notes",
        "one-line",
        "random-bytes",
        "arena-records",
        "record-then-notes",
        "torn-not-utf8",
        "torn-other-input",
    ],
)
def test_resume_refuses_a_foreign_file_before_changing_it(
    tmp_path: Path, content: bytes, message: str
) -> None:
    """Issue 38: --resume on a file that is not this batch's output (or not all of it) cut
    its last line off before refusing it. Every check comes first now: refused, exit 2,
    the file byte for byte as it was."""
    target = tmp_path / "notes.txt"
    target.write_bytes(content)
    source = tmp_path / "in.txt"
    source.write_text(f"{CASE_1}\n")
    code, out, err = batch(str(source), "-o", str(target), "--resume")
    assert (code, out) == (2, ""), err
    assert err.startswith("batch: --resume: ") and message.format(target) in err, err
    assert err.count("\n") == 1
    assert target.read_bytes() == content


def test_resume_continues_an_empty_file_and_cuts_only_a_torn_record(tmp_path: Path) -> None:
    """An empty file is resumed (nothing in it to lose); a torn record after whole ones is
    the one thing --resume cuts, once every line is checked."""
    target = tmp_path / "out.jsonl"
    target.write_bytes(b"")
    stdin = f"{CASE_1}\n{REFERENCE_CASES[1].board}\n"
    assert batch("-o", str(target), "--resume", stdin=stdin)[0] == 0
    whole = target.read_bytes()
    assert whole.startswith(RECORD_1 + b"\n") and whole.count(b"\n") == 2
    target.write_bytes(RECORD_1 + b'\n{"id": 2, "board": "[#')
    assert batch("-o", str(target), "--resume", stdin=stdin) == (0, "", "")
    assert target.read_bytes() == whole


def test_resume_refuses_a_fifo_without_waiting(tmp_path: Path) -> None:
    """A FIFO as the output to resume is refused at once: reading it would wait for a
    writer for ever."""
    target = tmp_path / "out.fifo"
    os.mkfifo(target)
    code, _, err = batch("-o", str(target), "--resume", stdin=f"{CASE_1}\n", timeout=TIMEOUT)
    assert code == 2
    assert err == f"batch: --resume: {target} is not a regular file\n"


def test_output_is_opened_last_and_never_the_input(tmp_path: Path) -> None:
    """A refusal that comes late (here --dask without Dask) leaves an --overwrite output as
    it was: the file is emptied only when the run is ready to write it. And -o never names
    the input, even with --overwrite or --resume."""
    target = tmp_path / "out.jsonl"
    target.write_bytes(RECORD_1 + b"\n")
    without = (
        "import sys; sys.modules['distributed'] = None; from batch.cli import main; "
        "sys.exit(main(sys.argv[1:]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", without, "-o", str(target), "--overwrite", "--dask", "x:1"],
        input=f"{CASE_1}\n".encode(),
        capture_output=True,
        cwd=REPO,
        timeout=RUN_TIMEOUT,
        check=False,
    )
    assert done.returncode == 2
    assert target.read_bytes() == RECORD_1 + b"\n"
    source = tmp_path / "in.txt"
    source.write_text(f"{CASE_1}\n")
    for extra in ("--overwrite", "--resume"):
        code, _, err = batch(str(source), "-o", str(source), extra)
        assert code == 2
        assert err == f"batch: -o {source} is the input file: write the output elsewhere\n"
        assert source.read_text() == f"{CASE_1}\n"


def test_two_batches_never_write_one_output(tmp_path: Path) -> None:
    """An output another batch holds (its lock) is refused, untouched."""
    target = tmp_path / "out.jsonl"
    target.write_bytes(RECORD_1 + b"\n")
    with target.open("rb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        for extra in ("--overwrite", "--resume"):
            code, _, err = batch("-o", str(target), extra, stdin=f"{CASE_1}\n")
            assert code == 2
            assert err == f"batch: {target} is being written by another batch\n"
            assert target.read_bytes() == RECORD_1 + b"\n"


#: A generated batch whose whole output the resume tests below cut up and resume.
CROWDED_400 = ["--generate", "crowded", "--count", "400", "--seed", "6"]


@pytest.fixture(scope="module")
def crowded_400_output(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The uninterrupted output of CROWDED_400, made once for the tests that resume it."""
    whole = tmp_path_factory.mktemp("crowded-400") / "whole.jsonl"
    assert batch(*CROWDED_400, "-o", str(whole))[0] == 0
    return whole.read_text()


# Both on one pytest worker, which makes the shared output once.
@pytest.mark.xdist_group("crowded-400")
def test_resume_finds_what_is_missing_or_doubled(tmp_path: Path, crowded_400_output: str) -> None:
    """Lines deleted in the middle, one doubled out of place and the tail missing: --resume
    examines exactly those and leaves one record per position, in input order."""
    arguments = CROWDED_400
    expected = crowded_400_output
    lines = expected.splitlines(keepends=True)
    target = tmp_path / "out.jsonl"
    target.write_text(
        "".join(lines[:100] + lines[150:200] + [lines[120], lines[120]] + lines[200:250])
    )
    target.chmod(0o640)
    # A file of someone else's under the name the rewrite once took for its own.
    theirs = tmp_path / ".out.jsonl.resume"
    theirs.write_text("not the batch's\n")
    code, out, err = batch(*arguments, "-o", str(target), "--resume")
    assert (code, out, err) == (0, "", "")
    assert target.read_text() == expected
    assert target.stat().st_mode & 0o777 == 0o640
    assert theirs.read_text() == "not the batch's\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == [".out.jsonl.resume", "out.jsonl"]


@pytest.mark.xdist_group("crowded-400")
def test_a_full_disk_leaves_whole_lines_to_resume(tmp_path: Path, crowded_400_output: str) -> None:
    """Output that cannot grow (here: past RLIMIT_FSIZE, as on a full disk) stops the batch
    with a message and exit 2, the file cut back to whole lines; --resume finishes it."""
    # Chunks of 16 make the batch's writes big; the bytes are the same whatever the chunks.
    arguments = [*CROWDED_400, "--chunk", "16"]
    target = tmp_path / "out.jsonl"
    limited = (
        "import os, resource, sys; resource.setrlimit(resource.RLIMIT_FSIZE, (20_000, 20_000)); "
        "os.execv(sys.executable, [sys.executable, '-m', 'batch', *sys.argv[1:]])"
    )
    done = subprocess.run(
        [sys.executable, "-c", limited, *arguments, "-o", str(target)],
        capture_output=True,
        cwd=REPO,
        timeout=RUN_TIMEOUT,
        check=False,
    )
    err = done.stderr.decode()
    assert done.returncode == 2, err
    assert f"batch: cannot write {target}: File too large; the output holds whole lines" in err
    written = target.read_text()
    assert 0 < len(written) <= 20_000 and written.endswith("\n")
    assert crowded_400_output.startswith(written)
    assert batch(*arguments, "-o", str(target), "--resume")[0] == 0
    assert target.read_text() == crowded_400_output


def test_dask_without_distributed_says_how_to_get_it() -> None:
    """--dask where Dask is not installed: exit 2 and the extra to install."""
    without = (
        "import sys; sys.modules['distributed'] = None; from batch.cli import main; "
        "sys.exit(main(sys.argv[1:]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", without, "--dask", "tcp://127.0.0.1:9"],
        input=f"{CASE_1}\n".encode(),
        capture_output=True,
        cwd=REPO,
        timeout=RUN_TIMEOUT,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.decode() == (
        "batch: --dask needs Dask's distributed package: pip install 'cubemate[dask]'\n"
    )


def test_output_files_are_never_clobbered(tmp_path: Path) -> None:
    """A non-empty output needs --resume or --overwrite; --resume refuses other commands."""
    target = tmp_path / "out.jsonl"
    stdin = REFERENCE_CASES[0].board + "\n"
    assert batch("-o", str(target), stdin=stdin)[0] == 0
    code, _, err = batch("-o", str(target), stdin=stdin)
    assert code == 2
    assert "--resume continues it, --overwrite replaces it" in err
    code, _, err = batch("-o", str(target), "--resume", "--ask", "checkers", stdin=stdin)
    assert code == 2
    assert "made with other commands (status)" in err
    other = '{"id": "other", "board": "[K#,##],[##,##]"}\n'
    code, _, err = batch("-o", str(target), "--resume", stdin=other)
    assert code == 2
    assert "holds id 1, which the input lacks" in err
    assert batch("-o", str(target), "--overwrite", "--ask", "checkers", stdin=stdin)[0] == 0
    assert list(records(target.read_text())[0]["answers"]) == ["checkers"]


def test_progress_bar_only_when_asked_or_at_a_terminal(tmp_path: Path) -> None:
    """Silent on a pipe; --progress on draws the bar on stderr, never on stdout."""
    arguments = ["--generate", "sparse", "--count", "40", "--jobs", "1"]
    code, out, err = batch(*arguments)
    assert (code, err) == (0, "")
    code, out_shown, err_shown = batch(*arguments, "--progress", "on")
    assert code == 0
    assert out_shown == out
    assert "40/40" in err_shown and "pos" in err_shown


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
def test_progress_bar_at_a_terminal(tmp_path: Path) -> None:
    """With stderr at a terminal the bar appears there by itself."""
    primary, secondary = os.openpty()
    # A fresh pseudo-terminal is 0 columns wide, where a bar has no room at all.
    fcntl.ioctl(secondary, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    try:
        command = [sys.executable, "-m", "batch", "--generate", "sparse", "--count", "30",
                   "--jobs", "1"]  # fmt: skip
        process = subprocess.Popen(
            [*command, "-o", str(tmp_path / "out.jsonl")],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=secondary,
            cwd=REPO,
        )
        os.close(secondary)
        seen = b""
        while True:
            try:
                chunk = os.read(primary, 4096)
            except OSError:  # the terminal closes when the batch exits
                break
            if not chunk:
                break
            seen += chunk
        assert process.wait(timeout=RUN_TIMEOUT) == 0
    finally:
        os.close(primary)
    assert b"30/30" in seen


def test_a_reader_that_goes_away_ends_the_batch_quietly() -> None:
    """stdout closed by its reader (`| head -1`): exit 0, nothing on stderr."""
    process = start_batch("--generate", "sparse", "--count", "5000", "--chunk", "1")
    stdout = process.stdout
    assert stdout is not None
    assert json.loads(stdout.readline())["id"] == 1
    stdout.close()
    process.stdout = None
    _, err = process.communicate(timeout=RUN_TIMEOUT)
    assert (process.returncode, err) == (0, b"")
