"""The arena under hostile conditions, through `python -m arena` (issue 38, items 2, 4, 5):
a file that is not a records file is never changed by `--resume`; every question to a
player is bounded and no process the arena started outlives it (a silent player, SIGINT,
SIGTERM); a full disk stops the match with exit 2 and only whole records in the file."""

from __future__ import annotations

import contextlib
import random
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.arena_fakes import records, report_row
from tests.conftest import REPO, TIMEOUT, default_signals

FAKE = f"{sys.executable} -m tests.arena_fake_engine"
OUTSIDE = f"{sys.executable} -m tests.arena_outside_engine"
ARENA = [sys.executable, "-m", "arena", "--progress", "off"]
#: A player that reads its input and never answers, with a child of its own; it writes both
#: process ids to the file named by its argument, and does not end at the end of its input.
SILENT = (
    "import os, subprocess, sys, time\n"
    "child = subprocess.Popen(['sleep', '300'])\n"
    "open(sys.argv[1], 'w').write(f'{os.getpid()} {child.pid}')\n"
    "sys.stdin.read()\n"
    "time.sleep(300)\n"
)
#: A player that answers (echoing an id if the line has one) until its first genmove, where
#: it starts a child, writes both process ids to the file named by its argument, and hangs.
HANGING = (
    "import os, subprocess, sys, time\n"
    "for line in sys.stdin:\n"
    "    words = line.split()\n"
    "    ident = words.pop(0) if words[0].isdigit() else ''\n"
    "    if words[0] == 'genmove':\n"
    "        child = subprocess.Popen(['sleep', '300'])\n"
    "        open(sys.argv[1], 'w').write(f'{os.getpid()} {child.pid}')\n"
    "        time.sleep(300)\n"
    "    known = words[0] == 'known_command' and words[1] in ('genmove', 'play', 'new_game',\n"
    "                                                         'set_board')\n"
    '    print(f\'={ident} {"true" if known else ""}\\n\', flush=True)\n'
)


def arena(*arguments: str, timeout: float = 4 * TIMEOUT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ARENA, *arguments], capture_output=True, text=True, cwd=REPO,
                          timeout=timeout, check=False, preexec_fn=default_signals)  # fmt: skip


def running(pid: int) -> bool:
    """Whether a process runs (a zombie waiting to be reaped counts as ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def all_ended(pids: list[int], within: float = 5.0) -> bool:
    deadline = time.monotonic() + within
    while any(running(pid) for pid in pids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def wait_for(path: Path, text: str, process: subprocess.Popen[str] | None = None) -> str:
    deadline = time.monotonic() + 2 * TIMEOUT
    while not path.exists() or text not in path.read_text():
        assert process is None or process.poll() is None, "the arena ended too soon"
        assert time.monotonic() < deadline, f"no {text!r} in {path}"
        time.sleep(0.05)
    return path.read_text()


# -- item 2: --resume refuses a file it did not write


@pytest.mark.parametrize(
    "content",
    [b"my notes on the match\nthe second line\n",
     random.Random(38).randbytes(3000),
     b"Size: 3\nnotes that begin like a record\n",
     b"Size: 3\nStart: a board of my own\n\nand then words\n"],
    ids=["text", "random-bytes", "size-then-notes", "size-start-notes"],
)  # fmt: skip
def test_resume_leaves_a_file_it_did_not_write_as_it_was(tmp_path: Path, content: bytes) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_bytes(content)
    result = arena("random", "greedy", "--size", "3", "--games", "2", "--referee", FAKE,
                   "--records", str(notes), "--resume")  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"arena: --resume: {notes} is not a records file")
    assert notes.read_bytes() == content


# -- item 4: nothing hangs, nothing is left running


@pytest.mark.parametrize("answers", [0, 1], ids=["silent", "silent-after-protocol_version"])
def test_a_player_that_never_answers_is_refused_within_the_timeout(
    tmp_path: Path, answers: int
) -> None:
    """--timeout 2 bounds the first question (protocol_version) and the checks after it
    (known_command): refused in seconds, exit 2, the player and its child ended."""
    pids = tmp_path / "pids"
    script = SILENT
    if answers:
        script = script.replace("sys.stdin.read()\n", "sys.stdin.readline()\n"
                                "print('= 2\\n', flush=True)\nsys.stdin.read()\n")  # fmt: skip
    player = shlex.join([sys.executable, "-c", script, str(pids)])
    started = time.monotonic()
    result = arena(player, "random", "--size", "3", "--games", "2", "--timeout", "2",
                   "--referee", FAKE, timeout=TIMEOUT)  # fmt: skip
    assert time.monotonic() - started < 20
    assert result.returncode == 2, result.stderr
    assert "within 2 s" in result.stderr and "Traceback" not in result.stderr
    assert all_ended([int(pid) for pid in pids.read_text().split()])


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_before_the_games_ends_every_process(tmp_path: Path, signum: int) -> None:
    """A signal while the arena waits on a silent player before the first game: exit 130,
    and the player and its child are ended (SIGTERM used to kill the arena alone)."""
    pids = tmp_path / "pids"
    player = shlex.join([sys.executable, "-c", SILENT, str(pids)])
    process = subprocess.Popen(
        [*ARENA, player, "random", "--size", "3", "--referee", FAKE],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
        preexec_fn=default_signals,
    )  # fmt: skip
    try:
        text = wait_for(pids, " ", process)
        process.send_signal(signum)
        _, err = process.communicate(timeout=TIMEOUT)
    finally:
        process.kill()
    assert process.returncode == 130, err
    assert err == "arena: interrupted before the first game\n"
    assert all_ended([int(pid) for pid in text.split()])


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_during_a_game_ends_every_process(tmp_path: Path, signum: int) -> None:
    """A player hangs in its first genmove (with a child of its own); a signal then stops the
    match, exit 130, and the player's whole process group is ended with it."""
    pids = tmp_path / "pids"
    player = shlex.join([sys.executable, "-c", HANGING, str(pids)])
    process = subprocess.Popen(
        [*ARENA, player, "random", "--size", "3", "--referee", FAKE],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
        preexec_fn=default_signals,
    )  # fmt: skip
    try:
        text = wait_for(pids, " ", process)
        process.send_signal(signum)
        out, err = process.communicate(timeout=TIMEOUT)
    finally:
        process.kill()
    assert process.returncode == 130, err
    assert "interrupted" in out
    assert all_ended([int(pid) for pid in text.split()])


# -- item 5: a full disk


@contextlib.contextmanager
def small_disk(folder: Path, size: str) -> Iterator[Path]:
    """A tmpfs of `size` mounted on `folder` (root only), unmounted afterwards."""
    folder.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs",
                              str(folder)], capture_output=True, check=False)  # fmt: skip
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def test_a_full_disk_stops_the_match_with_whole_records(tmp_path: Path) -> None:
    """Records on a 12 KiB tmpfs fill it: exit 2, one line naming the file and the error, the
    table of the games written, no traceback; every record in the file is whole, and
    --resume elsewhere could continue it."""
    with small_disk(tmp_path / "disk", "12k") as disk:
        games = disk / "games.txt"
        result = arena("random", "greedy", "--size", "3", "--games", "400", "--referee", FAKE,
                       "--records", str(games))  # fmt: skip
        text = games.read_text()
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"arena: stopped: cannot write the records file {games}: No space "
                           "left on device (game ")  # fmt: skip
    written = records.parse_records(text)
    assert 1 <= len(written) < 400 and text.endswith("\n\n")
    assert [game.headers["Round"] for game in written] == [
        str(number) for number in range(1, len(written) + 1)
    ]
    assert report_row(result.stdout, "games").startswith(f"{len(written)} of 400 ")
