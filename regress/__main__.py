"""python -m regress [--engine CMD] [--timeout S] [--match-timeout S] [SUITE.tst ...]."""

from __future__ import annotations

import sys

from regress.runner import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
