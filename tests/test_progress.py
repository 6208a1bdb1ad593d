"""A long search shows its progress on stderr when stderr is a terminal, and never on stdout."""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import time
from pathlib import Path

from tests.conftest import REPO, TIMEOUT, engine_command

#: perft 5 here visits tens of millions of positions: it runs until it is stopped, well past
#: the second after which progress shows, on any machine.
BOARD = (
    "[#####,##k##,#####,#b###,#####],[#####,#####,#q###,#####,#####],"
    "[#####,#####,#####,#####,#####],[#####,#B###,#####,#####,#####],"
    "[#####,#####,#Q###,#####,####K] b"
)
PROGRESS = re.compile(rb"searching depth 5: [0-9,]+ positions, [0-9,]+/s")


def test_a_long_search_reports_progress_on_a_terminal_stderr(tmp_path: Path) -> None:
    """Progress lines reach a terminal stderr while perft runs; SIGUSR1 then stops it."""
    master, slave = os.openpty()
    process = subprocess.Popen(
        engine_command(tmp_path),
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
        terminal = b""
        deadline = time.monotonic() + 4 * TIMEOUT
        while PROGRESS.search(terminal) is None:
            assert time.monotonic() < deadline, terminal[-500:]
            ready, _, _ = select.select([master], [], [], 0.1)
            if ready:
                terminal += os.read(master, 65536)
        # Seen on the terminal: stop the search, as a program on a pipe would.
        process.send_signal(signal.SIGUSR1)
        stdout, _ = process.communicate(timeout=TIMEOUT)
    finally:
        os.close(master)
        if process.poll() is None:
            process.kill()
    stopped = rb"\? search stopped after [0-9]+ positions"
    assert re.fullmatch(rb"= \n\n" + stopped + rb"\n\n= \n\n", stdout), stdout


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
