"""`python -m tablebase` run as a user would, for the tests of the tables."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def tablebase_cli(*arguments: str) -> subprocess.CompletedProcess[str]:
    """Run `python -m tablebase` from the repository, its output captured; never raises on its
    exit status (the tests read it)."""
    return subprocess.run(
        [sys.executable, "-m", "tablebase", *arguments],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
