"""The built-in players: `random` and `greedy`, seeded, answering in this process.

Both ask the game's referee for the legal moves when asked `genmove`, so they need no rules
of their own and play every variant the referee judges; every other line is accepted and
ignored (they keep no position).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

from arena.referee import Position, Referee
from arena.speaker import Reply
from kernel.text.notation import CELL_NAME, get_level_from_roman, get_x_from_file_name

#: What capturing each piece is worth to `greedy` (the king is never captured), and what a
#: pawn gains by becoming one (Raumschach's unicorn moves as the cube's bishop).
PIECE_VALUES = {"q": 9, "r": 5, "b": 3, "u": 3, "n": 3, "p": 1}
#: The target cell of a capture and the piece a pawn becomes, as legal_moves writes them:
#: `Qa1(I)xc3(III)`, `Pb4(V)xc5(V)=Q`, `Pb4(V)-b5(V)=N`.
CAPTURE = re.compile(rf"x({CELL_NAME})(?:=[A-Za-z])?$")
PROMOTION = re.compile(r"=([A-Za-z])$")

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


def gain(move: str, position: Callable[[], Position]) -> int:
    """What a move wins at once: the piece it takes, and what its pawn becomes beyond a pawn."""
    value = 0
    capture = CAPTURE.search(move)
    if capture is not None:
        value += PIECE_VALUES.get(piece_on(position(), capture.group(1)).lower(), 0)
    promotion = PROMOTION.search(move)
    if promotion is not None:
        value += PIECE_VALUES.get(promotion.group(1).lower(), 0) - PIECE_VALUES["p"]
    return value


def choose_greedy(referee: Referee, rng: random.Random) -> str:
    """The move that wins the most at once (a capture of the most valuable piece, or a
    promotion), a random one among equals; else a random move."""
    moves = referee.legal_moves()
    seen: list[Position] = []

    def position() -> Position:
        # Asked once, and only when a move captures.
        if not seen:
            seen.append(referee.position())
        return seen[0]

    best: list[str] = []
    best_value = 0
    for move in moves:
        value = gain(move, position)
        if value <= 0:
            continue
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
