"""`python -m bench.depth`: depth and positions a second per config, through the engine."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO


def test_each_config_gets_a_row_per_variant_and_time() -> None:
    """Two configs, one opening of each book, one time: four rows, each with its depth and
    rate read from the engines' search events (0.2 s a move: at 0.05 s a loaded machine left
    the pruned config, whose mate guard shares the time, no completed depth)."""
    done = subprocess.run(
        [sys.executable, "-m", "bench.depth", "default", "levels/pruned.toml",
         "--positions", "1", "--times", "0.2"],
        capture_output=True, text=True, cwd=REPO, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = [line.split("  ") for line in done.stdout.splitlines() if "0.2 s" in line]
    assert len(rows) == 4, done.stdout
    labels = sorted(
        (row[0].strip(), [cell.strip() for cell in row if cell.strip()][2]) for row in rows
    )
    assert labels == [
        ("5³", "default"),
        ("5³", "levels/pruned.toml"),
        ("Raumschach", "default"),
        ("Raumschach", "levels/pruned.toml"),
    ]
    for line in done.stdout.splitlines():
        if "0.2 s" in line:
            cells = [cell.strip() for cell in line.split("  ") if cell.strip()]
            assert int(cells[3].replace(",", "")) > 0, line  # positions a second
            assert int(cells[4].split()[0]) >= 1, line  # the median depth
