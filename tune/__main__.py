"""python -m tune: fit Raumschach's evaluation weights to game results (docs/arena.md)."""

from __future__ import annotations

import sys

from tune.cli import main

sys.exit(main())
