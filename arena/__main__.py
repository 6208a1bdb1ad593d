"""`python -m arena [options] PLAYER1 PLAYER2`: a match between two players (arena/cli.py)."""

import sys

try:
    from arena.cli import main
except ModuleNotFoundError as error:
    # Until the game record module lands (issue 20): one line, not a traceback.
    if error.name != "kernel.record":
        raise
    print("arena: the game record module kernel/record.py (issue 20) is not here yet",
          file=sys.stderr)  # fmt: skip
    sys.exit(2)

sys.exit(main())
