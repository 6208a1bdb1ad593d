"""python -m batch: run a batch from the command line (see batch/cli.py)."""

from __future__ import annotations

import sys

from batch.cli import main

if __name__ == "__main__":
    sys.exit(main())
