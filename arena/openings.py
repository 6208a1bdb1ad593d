"""Where each pair of games begins: the start position, N random plies from it, or a file.

Both games of a pair begin from the same opening with colours swapped. An opening is set up
on the referee by the game itself, deterministically from the match seed and the pair number,
so a game played again (a resumed match, another Dask worker) begins the same way.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from arena.referee import GOING_ON, Position, Referee, RefereeError

SIDE_WORDS = {"w": "white", "white": "white", "b": "black", "black": "black"}


class OpeningError(ValueError):
    """An openings file that cannot be used; the message names the line."""


@dataclass(frozen=True, slots=True)
class SetUp:
    """An opening made ready on the referee: the lines that bring a player to the same
    position, and how the record names it."""

    lines: tuple[str, ...]
    description: str


class Opening(Protocol):
    """A way to begin each pair of games."""

    def describe(self) -> str:
        """Name the kind of opening, for the match's settings."""
        ...

    def set_up(self, referee: Referee, size: int, pair: int, seed: int) -> SetUp:
        """Set the referee to pair `pair`'s opening (pairs count from 1)."""
        ...


@dataclass(frozen=True, slots=True)
class StartOpening:
    """Every pair begins at the start position, `new_game N`."""

    def describe(self) -> str:
        return "start"

    def set_up(self, referee: Referee, size: int, pair: int, seed: int) -> SetUp:
        referee.new_game(size)
        return SetUp((referee.start_line(size),), "start position")


@dataclass(frozen=True, slots=True)
class RandomPlies:
    """Each pair begins N plies from the start position, each a random legal move that does
    not end the game (fewer when every move would end it). The moves are the referee's, so a
    variant's own (a pawn's step, a promotion `=Q`) are drawn as any other."""

    plies: int

    def describe(self) -> str:
        return f"random {self.plies} plies"

    def set_up(self, referee: Referee, size: int, pair: int, seed: int) -> SetUp:
        rng = random.Random(f"{seed}/opening/{pair}")
        referee.new_game(size)
        played: list[str] = []
        for _ in range(self.plies):
            moves = referee.legal_moves()
            rng.shuffle(moves)
            for move in moves:
                referee.play(move)
                if referee.result() == GOING_ON:
                    played.append(move)
                    break
                referee.undo()
            else:
                break
        lines = (referee.start_line(size), *(f"play {move}" for move in played))
        return SetUp(lines, f"{len(played)} random plies: {' '.join(played)}".rstrip(": "))


@dataclass(frozen=True, slots=True)
class FileOpenings:
    """Pair k begins at position k of a file (from the first again after the last)."""

    path: str
    positions: tuple[tuple[int, Position], ...]  # (line number, position)

    def describe(self) -> str:
        return f"file {self.path} ({len(self.positions)} positions)"

    def set_up(self, referee: Referee, size: int, pair: int, seed: int) -> SetUp:
        line, position = self.positions[(pair - 1) % len(self.positions)]
        referee.set_board(position)
        return SetUp((f"set_board {position.notation()}",), f"{self.path} line {line}")


def parse_position_line(text: str) -> Position:
    """Read `[set_board] BOARD [SIDE]`; SIDE counts only after a closing bracket or quote."""
    words = text.split(None, 1)
    if words and words[0] == "set_board":
        text = words[1] if len(words) > 1 else ""
    board, side = text.strip(), "white"
    last = board.rsplit(None, 1)
    if len(last) == 2 and last[1].lower() in SIDE_WORDS and last[0].rstrip()[-1:] in "]\"'":
        board, side = last[0].rstrip(), SIDE_WORDS[last[1].lower()]
    if not board:
        raise OpeningError("no board")
    return Position(board, side)


def read_openings(path: Path) -> FileOpenings:
    """Read a file of positions, one a line; blank lines and `#` comments are skipped."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) else "it is not UTF-8 text"
        raise OpeningError(f"cannot read the openings file {path}: {reason}") from None
    positions: list[tuple[int, Position]] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if any(ord(character) < 32 for character in line.replace("\t", " ")):
            raise OpeningError(f"{path} line {number}: control characters")
        try:
            positions.append((number, parse_position_line(line)))
        except OpeningError as error:
            raise OpeningError(f"{path} line {number}: {error}") from None
    if not positions:
        raise OpeningError(f"the openings file {path} holds no position")
    return FileOpenings(str(path), tuple(positions))


def check_openings(openings: FileOpenings, referee: Referee, size: int) -> None:
    """Set every position of the file on a referee; refuse one it refuses, of another size,
    or whose game is already over."""
    for number, position in openings.positions:
        where = f"{openings.path} line {number}"
        try:
            referee.set_board(position)
            board = referee.position()
            result = referee.result()
        except RefereeError as error:
            raise OpeningError(f"{where}: {error}") from None
        if board.size != size:
            raise OpeningError(f"{where}: a board of size {board.size}, not {size} (--size)")
        if result != GOING_ON:
            raise OpeningError(f"{where}: the game is already over ({result})")
