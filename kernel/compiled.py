"""The compiled core (kernel/core/*.c, the extension kernel._core), where the install built it.

`pip install` (and so `make`) compiles it where a C compiler is found; elsewhere the install
goes on without it, `COMPILED` is False and every search runs in Python. The C mirrors
Python modules, which stay the ones to read: the mate search (kernel/proofnumber.py), the
helpmate (kernel/helpmate.py) and the player's search (kernel/alphabeta.py with
kernel/evaluation.py). The config's `[search]
compiled = false` asks for Python even where the core was built.
"""

from __future__ import annotations

from typing import Any

from kernel.position import Position
from kernel.variants import CUBE

MateCore: Any
HelpmateCore: Any
PlayerCore: Any
try:
    from kernel._core import HelpmateCore, MateCore, PlayerCore

    COMPILED = True
except ImportError:  # no C compiler at install (pyproject.toml): Python alone
    MateCore = HelpmateCore = PlayerCore = None
    COMPILED = False

#: The largest board the core takes: its tables of lines grow as (2n - 1)**3 (8 MB at
#: n = 64); larger boards are searched in Python.
CORE_LARGEST_SIZE = 64


def core_takes(position: Position) -> bool:
    """Tell whether the compiled core can search this position: a cube game (the core knows
    the cube's pieces only; other variants are searched in Python) on a board it takes."""
    return position.size <= CORE_LARGEST_SIZE and position.variant is CUBE


#: Each of the cube's piece letters' code in the core: side << 3 | kind, kinds K Q R B N = 1 ... 5.
CORE_CODES = {
    letter: side << 3 | kind
    for side, letters in enumerate((CUBE.letters, CUBE.letters.lower()))
    for kind, letter in enumerate(letters, start=1)
}
#: The letter of each code (what is no piece's code, a space).
CODE_LETTERS = "".join(
    next((letter for letter, code in CORE_CODES.items() if code == index), " ")
    for index in range(16)
)


def core_pieces(position: Position) -> list[int]:
    """List the pieces as the core takes them, white's then black's, each side's in the order
    of its dict: cell << 4 | code."""
    return [
        point << 4 | CORE_CODES[letter]
        for pieces in position.pieces
        for point, letter in pieces.items()
    ]
