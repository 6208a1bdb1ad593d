"""The built-in players: `random` and `greedy`, seeded, answering in this process.

Both ask the game's referee for the legal moves when asked `genmove`, so they need no rules
of their own; every other line is accepted and ignored (they keep no position).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

from arena.referee import Position, Referee
from arena.speaker import Reply
from kernel.notation import CELL_NAME, get_level_from_roman, get_x_from_file_name

#: What capturing each piece is worth to `greedy` (the king is never captured).
PIECE_VALUES = {"q": 9, "r": 5, "b": 3, "n": 3}
#: The target cell of a capture, as legal_moves writes it: `Qa1(I)xc3(III)`.
CAPTURE = re.compile(rf"x({CELL_NAME})$")

Chooser = Callable[[Referee, random.Random], str]


def piece_on(position: Position, cell: str) -> str:
    """Return the letter on a cell of a canonical board (layers top first, rows back first)."""
    match = re.fullmatch(CELL_NAME, cell)
    if match is None:
        raise ValueError(f"not a cell name: {cell!r}")
    file_name, rank, level = match.groups()
    size = position.size
    x, y, z = get_x_from_file_name(file_name), int(rank) - 1, get_level_from_roman(level) - 1
    layers = position.board.split("],[")
    rows = layers[size - 1 - z].strip("[]").split(",")
    return rows[size - 1 - y][x]


def choose_random(referee: Referee, rng: random.Random) -> str:
    """A legal move, uniformly at random."""
    return rng.choice(referee.legal_moves())


def choose_greedy(referee: Referee, rng: random.Random) -> str:
    """The capture of the most valuable piece (a random one among equals), else random."""
    moves = referee.legal_moves()
    position: Position | None = None
    best: list[str] = []
    best_value = 0
    for move in moves:
        capture = CAPTURE.search(move)
        if capture is None:
            continue
        position = position or referee.position()
        value = PIECE_VALUES.get(piece_on(position, capture.group(1)).lower(), 0)
        if value > best_value:
            best, best_value = [move], value
        elif value == best_value:
            best.append(move)
    return rng.choice(best or moves)


CHOOSERS: dict[str, Chooser] = {"random": choose_random, "greedy": choose_greedy}


class Baseline:
    """A built-in player: answers `genmove` with its chooser's move, and `= ` to the rest."""

    def __init__(self, name: str, referee: Referee, seed: str) -> None:
        self.name = name
        self.choose = CHOOSERS[name]
        self.referee = referee
        self.rng = random.Random(seed)

    def ask(self, line: str, timeout: float | None = None) -> Reply:
        words = line.split()
        command = words[0] if words else ""
        if command in ("genmove", "reg_genmove"):
            # The referee plays the move the arena accepts; this player keeps no board.
            return Reply(True, self.choose(self.referee, self.rng))
        if command == "name":
            return Reply(True, self.name)
        if command == "protocol_version":
            return Reply(True, "2")
        if command == "known_command":
            return Reply(True, "true")
        return Reply(True, "")

    def knows(self, command: str) -> bool:
        """It takes every line (and ignores all but genmove)."""
        return True

    def identity(self) -> str:
        return f"{self.name} (built-in)"

    def kill(self) -> None:
        """Nothing runs apart from the caller: there is nothing to stop."""

    def close(self) -> None:
        """Nothing to free."""
