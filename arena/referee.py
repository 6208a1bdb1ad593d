"""The referee: an engine that holds the game, says which moves are legal and when it ends.

Players are never trusted with the rules: every move is played on the referee, which may
refuse it, and the game ends when its `result` says so. A referee of a match of another
variant than the cube is told it: its games begin `new_game N VARIANT`, and a position is set
after `variant VARIANT` (which `set_board` keeps).
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.speaker import Speaker, SpeakerDied
from kernel.records.record import MOVE_LINE

#: What `result` answers while the game goes on.
GOING_ON = "*"
#: The commands a referee must know.
REFEREE_COMMANDS = ("new_game", "set_board", "play", "undo", "legal_moves", "result", "get_board")
#: The rules a match is played by when none is named: an engine is not told them, so that
#: engines that know no `variant` play the cube as they always did.
DEFAULT_VARIANT = "cube"
SIDES = ("white", "black")


class RefereeError(Exception):
    """The referee died, hung, or refused what it should accept; the game cannot go on."""


@dataclass(frozen=True, slots=True)
class Position:
    """A position as the referee writes it: the board and the side to move."""

    board: str
    side: str  # "white" or "black"

    @property
    def size(self) -> int:
        """The edge of the cube: a canonical board has one bracketed layer per level."""
        return self.board.count("[")

    def notation(self) -> str:
        """The board with its side as a record's Start writes it: `BOARD w` or `BOARD b`."""
        return f"{self.board} {self.side[0]}"


def parse_position(text: str) -> Position:
    """Read `get_board`'s answer: a board, then ` b` when black is to move."""
    board, _, side = text.strip().rpartition(" ")
    if board and side == "b":
        return Position(board, "black")
    return Position(text.strip(), "white")


class Referee:
    """Typed access to a referee engine; any failure of it raises RefereeError."""

    def __init__(
        self, speaker: Speaker, timeout: float | None, variant: str = DEFAULT_VARIANT
    ) -> None:
        self.speaker = speaker
        self.timeout = timeout
        self.variant = variant

    def ask(self, line: str) -> str:
        """Send one line and return the accepted answer."""
        try:
            reply = self.speaker.ask(line, self.timeout)
        except SpeakerDied as death:
            raise RefereeError(f"the referee {death.failure} on {line!r}: {death.detail}") from None
        if not reply.ok:
            raise RefereeError(f"the referee refused {line!r}: {reply.text}")
        return reply.text

    def missing_commands(self) -> list[str]:
        """The commands of REFEREE_COMMANDS this engine does not know (and `variant`, for a
        match of another variant than the cube)."""
        needed = REFEREE_COMMANDS + (() if self.variant == DEFAULT_VARIANT else ("variant",))
        return [name for name in needed if self.ask(f"known_command {name}") != "true"]

    def start_line(self, size: int) -> str:
        """The line that begins a game of the match's variant at its start position."""
        if self.variant == DEFAULT_VARIANT:
            return f"new_game {size}"
        return f"new_game {size} {self.variant}"

    def new_game(self, size: int) -> None:
        self.ask(self.start_line(size))

    def set_board(self, position: Position) -> None:
        if self.variant != DEFAULT_VARIANT:
            # The board alone does not say its rules (a B moves otherwise in Raumschach).
            self.ask(f"variant {self.variant}")
        self.ask(f"set_board {position.notation()}")

    def play(self, move: str) -> None:
        self.ask(f"play {move}")

    def try_play(self, move: str) -> str | None:
        """Play a player's move if the referee takes it; else return its refusal."""
        try:
            reply = self.speaker.ask(f"play {move}", self.timeout)
        except SpeakerDied as death:
            raise RefereeError(
                f"the referee {death.failure} on 'play {move}': {death.detail}"
            ) from None
        return None if reply.ok else reply.text

    def undo(self) -> None:
        self.ask("undo")

    def last_move(self) -> str | None:
        """The move played last, as `legal_moves` spells it: the last ply of `printgame long`
        (docs/protocol.md); None from a referee that cannot say so (it knows no such command,
        or writes no move lines)."""
        try:
            reply = self.speaker.ask("printgame long", self.timeout)
        except SpeakerDied as death:
            raise RefereeError(
                f"the referee {death.failure} on 'printgame long': {death.detail}"
            ) from None
        if not reply.ok:
            return None
        for line in reversed(reply.text.splitlines()):
            found = MOVE_LINE.fullmatch(line.strip())
            if found is not None:
                plies = found.group(3).split()
                return plies[-1] if plies else None
        return None

    def legal_moves(self) -> list[str]:
        return self.ask("legal_moves").split()

    def result(self) -> str:
        """`*` while the game goes on, else a score and the reason: `1-0 (checkmate)`."""
        return self.ask("result").strip()

    def position(self) -> Position:
        return parse_position(self.ask("get_board"))
