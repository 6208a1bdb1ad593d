"""`python -m arena [options] PLAYER1 PLAYER2`: a match between two players (arena/cli.py)."""

import sys

from arena.cli import main

sys.exit(main())
