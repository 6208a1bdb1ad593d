"""Config and log paths that name no regular file (issue 49, item 7): through the real process.

A config that is a device, a FIFO, a folder or too large is refused in one line, exit 2, at
once and in bounded memory; a FIFO, a socket or a folder at a log's name is refused the same
way before the first answer; /dev/null and /dev/full stay usable as logs (writing to them
changes no file and never blocks); a log path turned into a FIFO while the engine runs costs
one warning, never a hang.
"""

from __future__ import annotations

import os
import resource
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from kernel.config import MAX_CONFIG_BYTES
from kernel.logfile import RETRY_SECONDS
from tests.conftest import CONSOLE_LOG, JSON_LOG, MAIN, REPO, Engine, read_json_log

#: Far more than an engine that refuses at start needs; a hang (the bug) would take it all.
SHORT = 10.0
#: An address-space limit for the engine: /dev/zero read to the end would pass it at once.
MEMORY_LIMIT = 1 << 30


def limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def start(*arguments: str) -> subprocess.CompletedProcess[bytes]:
    """Run main.py with these arguments on `name`, its memory bounded, from the repo root."""
    return subprocess.run(
        [sys.executable, str(MAIN), *arguments],
        input=b"name\n",
        capture_output=True,
        cwd=REPO,
        timeout=SHORT,
        check=False,
        preexec_fn=limit_memory,
    )


def assert_refused(result: subprocess.CompletedProcess[bytes], *needles: str) -> None:
    """Exit 2, no answer, one line on stderr naming every needle, no traceback."""
    assert result.returncode == 2, result
    assert result.stdout == b""
    text = result.stderr.decode()
    assert text.startswith("cubemate: ") and text.count("\n") == 1, text
    for needle in needles:
        assert needle in text, text


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "fifo"
    os.mkfifo(path)
    return path


@pytest.fixture
def reader(fifo: Path) -> Iterator[Path]:
    """The FIFO with a reader on the other end, so that opening it to write would succeed."""
    descriptor = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        yield fifo
    finally:
        os.close(descriptor)


def test_config_dev_zero_is_refused_at_once(tmp_path: Path) -> None:
    """It grew to 1.75 GB and ended in a MemoryError traceback."""
    assert_refused(
        start("--config", "/dev/zero", "--log-dir", str(tmp_path)),
        "/dev/zero",
        "not a regular file",
    )


def test_config_fifo_is_refused_not_waited_on(fifo: Path, tmp_path: Path) -> None:
    """It hung in open() for ever, waiting for a writer."""
    assert_refused(start("--config", str(fifo), "--log-dir", str(tmp_path)), str(fifo))


def test_config_fifo_with_a_writer_is_refused(fifo: Path, tmp_path: Path) -> None:
    """With a writer that never writes the end, it would hang in read() instead."""
    reading = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    writing = os.open(fifo, os.O_WRONLY)
    try:
        os.write(writing, b"[engine]\n")
        assert_refused(start("--config", str(fifo), "--log-dir", str(tmp_path)), str(fifo))
    finally:
        os.close(writing)
        os.close(reading)


def test_config_folder_and_large_file_are_refused(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    assert_refused(start("--config", str(tmp_path), "--log-dir", str(logs)), "a directory")
    large = tmp_path / "large.toml"
    large.write_bytes(b"# " + b"x" * MAX_CONFIG_BYTES + b"\n")
    assert_refused(start("--config", str(large), "--log-dir", str(logs)), "too large")


def test_a_config_through_a_symlink_still_reads(tmp_path: Path) -> None:
    """The refusals are about what a path names: a link to the shipped file is a config."""
    link = tmp_path / "link.toml"
    link.symlink_to(REPO / "engine_config.toml")
    result = start("--config", str(link), "--log-dir", str(tmp_path / "logs"))
    assert (result.returncode, result.stdout) == (0, b"= cubemate\n\n"), result


@pytest.mark.parametrize("name", [JSON_LOG, CONSOLE_LOG])
def test_a_fifo_at_a_log_name_is_refused(tmp_path: Path, name: str) -> None:
    """It hung before the first answer: the log's open waited for a reader."""
    os.mkfifo(tmp_path / name)
    assert_refused(start("--log-dir", str(tmp_path)), name, "FIFO")


def test_a_fifo_with_a_reader_is_refused_too(tmp_path: Path) -> None:
    """A reader makes the open succeed; the log would then block whenever it stopped reading."""
    path = tmp_path / JSON_LOG
    os.mkfifo(path)
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        assert_refused(start("--log-dir", str(tmp_path)), JSON_LOG, "FIFO")
    finally:
        os.close(descriptor)


def test_a_socket_or_folder_at_a_log_name_is_refused(tmp_path: Path) -> None:
    # A short folder: a socket's path may hold only 107 bytes, which pytest's can pass.
    with tempfile.TemporaryDirectory(dir="/tmp") as sockets:
        listener = socket.socket(socket.AF_UNIX)
        try:
            listener.bind(str(Path(sockets) / JSON_LOG))
            assert_refused(start("--log-dir", sockets), JSON_LOG)
        finally:
            listener.close()
    folders = tmp_path / "folders"
    (folders / CONSOLE_LOG).mkdir(parents=True)
    assert_refused(start("--log-dir", str(folders)), CONSOLE_LOG, "a folder")


def test_dev_null_is_a_log_that_keeps_nothing(tmp_path: Path) -> None:
    """A character device that is no terminal is written as a file: /dev/null discards."""
    (tmp_path / CONSOLE_LOG).symlink_to("/dev/null")
    result = start("--log-dir", str(tmp_path))
    assert (result.returncode, result.stdout, result.stderr) == (0, b"= cubemate\n\n", b"")
    assert [line["event"] for line in read_json_log(tmp_path, session=True)] == [
        "start",
        "input",
        "output",
        "exit",
    ]


def test_a_log_turned_into_a_fifo_costs_a_warning_not_a_hang(tmp_path: Path) -> None:
    """The JSON log moved away and a FIFO put at its name while the engine runs: at the next
    check of the path the engine opens the name again, refuses the FIFO, and answers on."""
    engine = Engine(tmp_path)
    try:
        assert engine.ask("name") == b"= cubemate\n\n"
        (tmp_path / JSON_LOG).rename(tmp_path / "moved.jsonl")
        os.mkfifo(tmp_path / JSON_LOG)
        time.sleep(RETRY_SECONDS * 1.2)
        for number in range(3):
            assert engine.ask(f"{number} name") == f"={number} cubemate\n\n".encode()
        code, rest, err = engine.finish(timeout=SHORT)
    finally:
        engine.kill()
    assert (code, rest) == (0, b"")
    # One warning that the log was moved, one that its new name cannot be opened, and why.
    lines = err.decode().splitlines()
    assert len(lines) == 2 and all(line.startswith("cubemate: warning: ") for line in lines)
    assert "moved" in lines[0] and "FIFO" in lines[1], lines
