"""A long search shows its progress on stderr when stderr is a terminal, and never on stdout."""

from __future__ import annotations

import os
import re
import select
import subprocess
import time
from pathlib import Path

from tests.conftest import REPO, TIMEOUT, engine_command

#: perft 5 here would visit far more positions than the limit below, which takes seconds to
#: reach: well past the second after which progress shows, on any machine.
BOARD = (
    "[#####,##k##,#####,#b###,#####],[#####,#####,#q###,#####,#####],"
    "[#####,#####,#####,#####,#####],[#####,#B###,#####,#####,#####],"
    "[#####,#####,#Q###,#####,####K] b"
)
PROGRESS = re.compile(rb"searching depth 5: [0-9,]+ positions, [0-9,]+/s")


def test_a_long_search_reports_progress_on_a_terminal_stderr(tmp_path: Path) -> None:
    config = tmp_path / "big.toml"
    config.write_text("[search]\nmax_nodes = 12000000\n")
    master, slave = os.openpty()
    process = subprocess.Popen(
        engine_command(tmp_path, "--config", str(config)),
        cwd=REPO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=slave,
    )
    os.close(slave)
    try:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(f"set_board {BOARD}\nperft 5\nquit\n".encode())
        process.stdin.flush()
        stdout, _ = process.communicate(timeout=20 * TIMEOUT)
        terminal = b""
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.1)
            if not ready:
                break
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the engine has gone and closed its side
                break
            if not chunk:
                break
            terminal += chunk
    finally:
        os.close(master)
        if process.poll() is None:
            process.kill()
    assert PROGRESS.search(terminal), terminal[-500:]
    limit = rb"\? search limit reached after [0-9]+ positions"
    assert re.fullmatch(rb"= \n\n" + limit + rb"\n\n= \n\n", stdout), stdout


def test_no_progress_when_stderr_is_not_a_terminal(tmp_path: Path) -> None:
    result = subprocess.run(
        engine_command(tmp_path),
        cwd=REPO,
        input=f"set_board {BOARD}\nperft 3\n".encode(),
        capture_output=True,
        timeout=20 * TIMEOUT,
        check=False,
    )
    assert result.stderr == b"" and result.returncode == 0
    assert re.fullmatch(rb"= \n\n= [0-9]+\n\n", result.stdout), result.stdout
