"""A game: the position now, the moves played since it was set, and how the game stands.

The history costs a move, not a board: each ply keeps the move (which carries what undoing it
needs), the position's key before it, and the count of plies since the last capture; a
counter of keys answers "how often has this position stood here" in one look-up. Taking a
move back restores all of it exactly.

The end of a game (docs/rules.md): checkmate and stalemate leave no move; threefold
repetition, the fifty-move rule and insufficient material are draws that may be claimed, as
python-chess's `outcome(claim_draw=True)` has it, so play may go on after them.
"""

from __future__ import annotations

from collections import Counter
from typing import NamedTuple

from kernel.cube.board import EMPTY
from kernel.cube.position import KING_LETTERS, WHITE, Move, Position
from kernel.cube.rules import Analysis
from kernel.cube.variants import PAWN_LETTERS

#: Plies without a capture or a pawn's move after which either side may claim a draw.
FIFTY_MOVE_PLIES = 100
#: How often a position must stand, the same side to move, for a draw by repetition.
REPETITIONS = 3


class Outcome(NamedTuple):
    """How a game ended: the score for white ("1-0", "0-1", "1/2-1/2") and why."""

    score: str
    reason: str

    def __str__(self) -> str:
        return f"{self.score} ({self.reason})"

    @property
    def decisive(self) -> bool:
        """Checkmate and stalemate end the game; the draw rules only allow a claim."""
        return self.reason in ("checkmate", "stalemate")


#: What `result` answers while no rule has ended the game.
UNDECIDED = "*"


class Ply(NamedTuple):
    """One move of the history and what taking it back restores."""

    move: Move
    #: Plies without a capture before the move.
    quiet_plies: int


class Game:
    """Hold a position and the plies played on it since it was set; judge the result."""

    __slots__ = ("headers", "plies", "position", "quiet_plies", "seen")

    def __init__(self, position: Position, quiet_plies: int = 0) -> None:
        self.position = position
        self.plies: list[Ply] = []
        #: Plies since the last capture (or since the start).
        self.quiet_plies = quiet_plies
        #: How often each key has stood since the start, the current position included.
        self.seen: Counter[int] = Counter((position.key,))
        #: The record headers besides Size, Start and Result (Date, White, ...) of a game
        #: read from a record, written back by its record.
        self.headers: dict[str, str] = {}

    @property
    def moves(self) -> list[Move]:
        """The moves played since the start, oldest first."""
        return [ply.move for ply in self.plies]

    def start_position(self) -> Position:
        """Rebuild the position the game started from: the position now, every ply taken
        back. (Not a copy kept from the start: at n = 64 that cost every set_board and
        new_game milliseconds, and a record is written far more rarely.)"""
        start = self.position.copy()
        for ply in reversed(self.plies):
            start.undo(ply.move)
        return start

    def play(self, move: Move) -> None:
        """Play a legal move of the side to move."""
        self.plies.append(Ply(move, self.quiet_plies))
        # A capture or a pawn's move starts the fifty-move count again (docs/rules.md).
        resets = move.captured != EMPTY or move.piece in PAWN_LETTERS
        self.quiet_plies = 0 if resets else self.quiet_plies + 1
        self.position.play(move)
        self.seen[self.position.key] += 1

    def undo(self) -> Move:
        """Take back the last move and return it; the caller checked there is one."""
        ply = self.plies.pop()
        key = self.position.key
        if self.seen[key] == 1:
            del self.seen[key]
        else:
            self.seen[key] -= 1
        self.position.undo(ply.move)
        self.quiet_plies = ply.quiet_plies
        return ply.move

    def repetitions(self) -> int:
        """Count how often the position now has stood, this time included."""
        return self.seen[self.position.key]

    def outcome(self, analysis: Analysis | None = None) -> Outcome | None:
        """Judge the game: None while it goes on.

        Checkmate and stalemate first (a mate on the hundredth quiet ply is still a mate),
        then the draws: bare kings, threefold repetition, the fifty-move rule.
        """
        position = self.position
        if analysis is None:
            analysis = Analysis(position)
        if not analysis.has_legal_move():
            if not analysis.in_check:
                return Outcome("1/2-1/2", "stalemate")
            return Outcome("0-1" if position.side == WHITE else "1-0", "checkmate")
        if bare_kings(position):
            return Outcome("1/2-1/2", "insufficient material")
        if self.repetitions() >= REPETITIONS:
            return Outcome("1/2-1/2", "threefold repetition")
        if self.quiet_plies >= FIFTY_MOVE_PLIES:
            return Outcome("1/2-1/2", "fifty-move rule")
        return None


def bare_kings(position: Position) -> bool:
    """Tell whether nothing but kings is left: neither side can ever mate.

    Only this case is claimed: whether a king and a knight, say, can force or even help
    a mate on a cube has not been proved here, so such endings play on.
    """
    return all(letter in KING_LETTERS for pieces in position.pieces for letter in pieces.values())
