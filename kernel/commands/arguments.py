"""Reading the arguments of commands: whole numbers, sizes, seconds and colours, each refused
with a message that names the argument and quotes what was given.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from kernel.commands.session import Session
from kernel.cube.position import Move, Position
from kernel.protocol import CommandError, shorten
from kernel.text.notation import (
    SIDE_WORDS,
    get_move_name,
)

if TYPE_CHECKING:
    pass

#: More digits than any size or coordinate could need; int() of far more is slow or refused.
MAX_DIGITS = 9
#: The most seconds a clock may hold (eleven days), and moves a byo-yomi period.
MAX_CLOCK_SECONDS = 1_000_000.0
MAX_STONES = 1_000_000


def parse_int(text: str, what: str, out_of_range: str) -> int:
    """Read a whole number argument, or refuse it naming the argument.

    A number of more digits than any size or coordinate has is refused with `out_of_range`
    before int() is asked to convert it.
    """
    if re.fullmatch(r"[+-]?[0-9]+", text) is None:
        raise CommandError(f"{what} must be a whole number, got {shorten(text)}")
    if len(text.lstrip("+-0")) > MAX_DIGITS:
        raise CommandError(out_of_range)
    return int(text)


def read_size(kernel: Session, text: str) -> int:
    """Read a board size argument, refusing one outside 2 ... the configured maximum."""
    unacceptable = f"unacceptable size (2 ... {kernel.config.max_board_size})"
    size = parse_int(text, "N", unacceptable)
    if not 2 <= size <= kernel.config.max_board_size:
        raise CommandError(unacceptable)
    return size


def read_count(text: str, what: str, least: int) -> int:
    """Read a whole number argument of at least `least`."""
    number = parse_int(text, what, f"{what} is too large")
    if number < least:
        raise CommandError(f"{what} must be {least} or more, got {number}")
    return number


def read_seconds(text: str, what: str, most: float) -> float:
    """Read a number of seconds: digits, perhaps with a decimal part, at most `most`."""
    if re.fullmatch(r"[+]?[0-9]+(?:\.[0-9]+)?|[+]?\.[0-9]+", text) is None:
        raise CommandError(f"{what} must be a number of seconds, 0 or more, got {shorten(text)}")
    digits = text.lstrip("+").split(".")[0].lstrip("0")
    if len(digits) > MAX_DIGITS or float(text) > most:
        raise CommandError(f"{what} must be at most {most:.10g} seconds, got {shorten(text)}")
    return float(text)


def read_colour(text: str) -> int:
    """Read a GTP colour: w, b, white or black, in any case."""
    side = SIDE_WORDS.get(text.lower())
    if side is None:
        raise CommandError(f"COLOR must be w, b, white or black, got {shorten(text)}")
    return side


def move_list(position: Position, moves: Iterable[Move]) -> str:
    """Write moves sorted by name, space-separated."""
    return " ".join(sorted(get_move_name(position, move) for move in moves))
