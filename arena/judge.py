"""What the referee says of a player's move and of its position.

A move is legal when the referee's `play` takes it, however it is written (protocol.md lets
the letter be left out, levels be numbers, `x` and `-` be swapped, and a move be short, as a
player with `[protocol] notation = "short"` answers `genmove`: `Nc3(I)`, `Qxc1(V)+`); it then
goes into the record and to the other player as the referee's `legal_moves` spells it, long.
A player that can say its position (`get_board`) must agree with the referee's after set-up.
"""

from __future__ import annotations

from arena.openings import OpeningError, parse_position_line
from arena.referee import Position, Referee
from kernel.text.notation import NotationError, parse_board, parse_move_text, same_cell

#: The longest move text sent to the referee: any move of the largest board is shorter.
MOVE_CHARS = 64
#: The largest board a position read back may have (`engine.max_board_size` at most).
MAX_SIZE = 256


class IllegalMove(Exception):
    """The referee refused the move; the message is its refusal."""


def judge_move(referee: Referee, move: str, legal: list[str]) -> str:
    """Play a player's move on the referee; return it spelled as `legal_moves` spells it.
    Raise IllegalMove when the referee refuses it (or it is no one word)."""
    if move in legal:
        referee.play(move)
        return move
    if not move or len(move) > MOVE_CHARS or len(move.split()) != 1 or not move.isprintable():
        raise IllegalMove("not a move")
    refusal = referee.try_play(move)
    if refusal is not None:
        raise IllegalMove(refusal)
    spelled = same_moves(move, legal)
    if len(spelled) == 1:
        return spelled[0]
    # A short move names no origin cell: the referee names the move it played, in one
    # exchange; by_position's trial of every legal move is left for a referee that cannot.
    named = referee.last_move()
    if named in legal:
        return named
    return by_position(referee, legal)


def same_moves(move: str, legal: list[str]) -> list[str]:
    """The legal moves that `move` names (with or without its letter, in any spelling)."""
    try:
        readings = parse_move_text(move)
    except NotationError:
        return []
    found = []
    for candidate in legal:
        try:
            spelled = parse_move_text(candidate)[0]
        except NotationError:
            continue
        if any(
            reading.letter in ("", spelled.letter)
            and same_cell(reading.origin, spelled.origin)
            and same_cell(reading.target, spelled.target)
            and reading.promotion.upper() == spelled.promotion.upper()
            for reading in readings
        ):
            found.append(candidate)
    return found


def by_position(referee: Referee, legal: list[str]) -> str:
    """The legal move that leads where the move just played led (the referee took a
    spelling this module cannot read): each is tried on the referee, the one found replayed."""
    reached = referee.position()
    referee.undo()
    for candidate in legal:
        referee.play(candidate)
        if referee.position() == reached:
            return candidate
        referee.undo()
    raise IllegalMove("the referee took it, but it is none of its legal moves")


def disagreement(answer: str, position: Position) -> str | None:
    """Why a player's `get_board` answer is not the referee's position; None when it is."""
    try:
        theirs = parse_position_line(answer)
        board = parse_board(theirs.board, MAX_SIZE)
        ours = parse_board(position.board, MAX_SIZE)
    except (OpeningError, NotationError) as error:
        return f"its get_board cannot be read ({error}): {answer[:200]!r}"
    if (board.size, board.rows, theirs.side) == (ours.size, ours.rows, position.side):
        return None
    return f"it has {answer[:200]!r}, the referee {position.notation()[:200]!r}"
