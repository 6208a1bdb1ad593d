"""`python -m bench.guard`: the mate guard's share of a timed search, in process."""

from __future__ import annotations

import re
import subprocess
import sys

from bench.guard import GuardClock
from kernel.play.alphabeta import Searcher
from tests.conftest import REPO

LINE = re.compile(
    r"(Raumschach|5³) +0\.2 s  guard's share: median (\d+)%, greatest (\d+)%; depths (\d+)"
)


def test_a_line_for_each_book_with_the_guards_share() -> None:
    """One opening of each book at 0.2 s: a line each, its share a percentage (one move:
    its median is its greatest), a depth completed (not a figure: a loaded machine may
    complete less)."""
    done = subprocess.run(
        [sys.executable, "-m", "bench.guard", "--positions", "1", "--times", "0.2"],
        capture_output=True, text=True, cwd=REPO, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    found = [LINE.fullmatch(line) for line in done.stdout.splitlines()]
    assert all(found) and len(found) == 2, done.stdout
    for match in found:
        assert match is not None
        median, greatest, depth = int(match[2]), int(match[3]), int(match[4])
        assert 0 <= median == greatest <= 100 and depth >= 1, match[0]


def test_the_search_is_put_back_after_measuring() -> None:
    original = Searcher.mates_in
    with GuardClock():
        assert Searcher.mates_in is not original
    assert Searcher.mates_in is original


def test_a_count_below_one_is_refused() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bench.guard", "--positions", "0"],
        capture_output=True, text=True, cwd=REPO, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 2 and done.stdout == ""
    assert "bench.guard: --positions and --times must be above 0" in done.stderr
