"""Read a move as people write it and find the legal move it names, or say why there is none.

`play` and the replay of game records read moves alike, in every way docs/rules.md, "Reading",
allows: a legal move's own name names it; else the readings must name one move between them,
and a capital that may be a piece's letter or a level never moves another kind of piece. A
refusal names the candidates, or the first reason, with the cells named canonically.
"""

from __future__ import annotations

import re
from itertools import combinations

from kernel.cube.board import EMPTY, SIDE_NAMES
from kernel.cube.position import Move, Position, owner
from kernel.cube.rules import Analysis, destinations
from kernel.cube.variants import PIECE_NAMES
from kernel.protocol import shorten
from kernel.text.notation import (
    NotationError,
    get_cell_name_from_point,
    get_move_name,
    get_point_from_cell_name,
    get_roman_from_level,
    parse_move_text,
    piece_name,
    same_cell,
)

#: The most moves an `ambiguous` refusal names.
MOST_NAMED = 8


class IllegalMove(ValueError):
    """A move that cannot be read or is not legal; the message says why, for the user."""


class OffBoard(IllegalMove):
    """A move names a cell off the board: of the readings of its text, the least likely."""


def read_move(position: Position, analysis: Analysis, text: str) -> Move:
    """Find the legal move of the side to move that `text` names; raise IllegalMove.

    docs/rules.md, "Reading": a legal move's own name, long or short, names it; else every
    reading of the text is tried (the long form's, kernel/text/notation.py, and the short and
    lenient ones, kernel/text/short_notation.py), and the move is played only when the readings
    name one move between them, of the kind a capital first letter names.
    """
    from kernel.text.short_notation import MAX_TEXT, exact_move, reading_moves

    # Marks after a move say nothing of which move it is (`!`, `?`, and `+` or `#`, which
    # may be written on any move).
    bare = text.rstrip("+#!?")
    try:
        longs = parse_move_text(bare) if bare else []
    except NotationError:
        longs = []
    named = NamedMoves(position)
    refusals: list[IllegalMove] = []
    for reading in longs:
        try:
            move = resolve_move(position, analysis, reading.letter, reading.origin, reading.target)
            # The long form names both cells: its `x` and `-` may be swapped (protocol.md).
            named.add(promoted(position, move, reading.promotion), capture=False)
        except IllegalMove as error:
            # A capital piece letter read as the origin's level says less of what was meant
            # than the letter read as the piece, which the short form's refusal says.
            if reading.letter or not names_piece(position, text):
                refusals.append(error)
    own = named.named(bare)
    if own is not None:
        return own
    if len(text) <= MAX_TEXT:
        exact = exact_move(position, analysis, text)
        if exact is not None:
            return exact
        for spelled, first_is_level in [(text, False), *level_letters_written_out(text)]:
            for lenient, move in reading_moves(position, analysis, spelled):
                # A long form names its cells: its first letter, small, is a black piece
                # only with the whole origin after it, which the long form read
                # (`b1(II)xb2(I)` is no black bishop on rank 1); nor is a file that was a
                # level's letter (`Bb5-b4` as `b5(II)-b4`).
                if not (lenient.black and (longs or first_is_level)):
                    whole = lenient.origin.full and lenient.target.full
                    named.add(move, capture=lenient.capture and not whole)
    only = named.only(text)
    if only is not None:
        return only
    raise why_refused(position, text, named, refusals)


#: A cell written Raumschach's way, the level's letter first (`Bc2`), inside a move's text: the
#: origin (first, or after the piece's letter, and before `-` or `x`) or the destination
#: (after `-` or `x`, and last but for a promotion and marks).
LETTER_CELL = re.compile(
    r"(?:(?<=^[KQRBNUPkqrbnup])|^)([A-Z])([a-z]+[1-9][0-9]*)(?=[-x])"
    r"|(?<=[-x])([A-Z])([a-z]+[1-9][0-9]*)(?=$|[=+#!?])"
)
#: The most such cells a move's text has: one at each end.
MOST_LETTER_CELLS = 2


def level_letters_written_out(text: str) -> list[tuple[str, bool]]:
    """The text with some or all of its level-letter cells written with the level after the
    rank (`Ba4-c6` as `a4(II)-c6`), for the short reader, which reads levels only so; each
    with whether the text's first letter became a level."""
    cells = list(LETTER_CELL.finditer(text))
    if len(cells) > MOST_LETTER_CELLS:
        return []
    written = []
    for count in range(1, len(cells) + 1):
        for chosen in combinations(cells, count):
            spelled = text
            for cell in reversed(chosen):
                letter, square = cell.group(1, 2) if cell.group(1) else cell.group(3, 4)
                level = get_roman_from_level(ord(letter) - ord("A") + 1)
                spelled = f"{spelled[: cell.start()]}{square}({level}){spelled[cell.end() :]}"
            written.append((spelled, chosen[0].start() == 0))
    return written


def could_be_read(text: str) -> bool:
    """Tell whether a text is written as a move at all, on a board of any size, in any of
    the notations `read_move` reads."""
    from kernel.text.short_notation import could_be_move

    bare = text.rstrip("+#!?")
    try:
        parse_move_text(bare)
        return True
    except NotationError:
        pass
    spellings = [text, *(spelled for spelled, _ in level_letters_written_out(text))]
    return any(could_be_move(spelled) for spelled in spellings)


class NamedMoves:
    """The legal moves a text's readings name, and those a reading named but for an `x` on a
    move that captures nothing."""

    def __init__(self, position: Position) -> None:
        self.position = position
        self.moves: dict[tuple[int, int, str], Move] = {}
        self.quiet: dict[tuple[int, int, str], Move] = {}

    def add(self, move: Move, capture: bool) -> None:
        """Keep a move a reading names; `capture`: the reading's `x` says it takes."""
        key = (move.origin, move.target, move.promotion)
        if capture and move.captured == EMPTY:
            self.quiet[key] = move
        else:
            self.moves[key] = move

    def named(self, text: str) -> Move | None:
        """The move whose long name, as legal_moves writes it, the text is; None if none."""
        for move in self.moves.values():
            if get_move_name(self.position, move) == text:
                return move
        return None

    def only(self, text: str) -> Move | None:
        """The one move the readings name; None when they name none. Refuse several (naming
        them), and one of another kind than a capital first letter names (the letter read
        as the origin's level: `Bb4-b3(II)` is no rook's move)."""
        moves = list(self.moves.values())
        if len({(move.origin, move.target) for move in moves}) == 1 < len(moves):
            raise unchosen_promotion(self.position, moves[0])
        if len(moves) > 1:
            names = sorted(get_move_name(self.position, move) for move in moves)
            more = len(names) - MOST_NAMED
            listed = ", ".join(names[:MOST_NAMED]) + (f" and {more} more" if more > 0 else "")
            raise IllegalMove(f"ambiguous: {listed}")
        if not moves:
            return None
        move = moves[0]
        first = text[0]
        if names_piece(self.position, text) and move.piece.upper() != first:
            level = get_roman_from_level(ord(first) - ord("A") + 1)
            raise IllegalMove(
                f"illegal move: {lettered_refusal(self.position, text)}; {first} read as "
                f"level {level} would move the {piece_name(move.piece)}: write "
                f"{get_move_name(self.position, move)}"
            )
        return move


def names_piece(position: Position, text: str) -> bool:
    """Tell whether a text starts with a capital that is a piece's letter in the variant:
    whatever else it may be read as (a level), the text moves only that kind of piece."""
    return text[:1].isupper() and text[0] in position.variant.letters


def lettered_refusal(position: Position, text: str) -> str:
    """Why a text's first letter, read as a piece, names no legal move (its other cells
    written with the level after the rank, which the short form's refusal reads)."""
    from kernel.text.short_notation import OffBoardText, why_none

    spelled = text
    for written, first_is_level in level_letters_written_out(text):
        if not first_is_level:
            spelled = written  # the last such has every other cell written out
    try:
        return why_none(position, spelled)
    except OffBoardText as error:
        return str(error)


def why_refused(
    position: Position, text: str, named: NamedMoves, refusals: list[IllegalMove]
) -> IllegalMove:
    """Say why no reading of a text names a legal move, as well as it can: an `x` on a move
    that takes nothing, else the long form's first reason (unless its cells are off the
    board), else the short form's."""
    from kernel.text.short_notation import MAX_TEXT, OffBoardText, unreadable, why_none

    if named.quiet:
        from kernel.text.short_notation import short_name

        moves = sorted(named.quiet.values(), key=lambda move: get_move_name(position, move))
        if len(moves) == 1:
            name = short_name(position, Analysis(position), moves[0])
            return IllegalMove(
                f"illegal move: x marks a capture, and {get_move_name(position, moves[0])} "
                f"takes nothing (write {name})"
            )
        names = ", ".join(get_move_name(position, move) for move in moves)
        return IllegalMove(f"illegal move: x marks a capture, and {names} take nothing")
    refusals = sorted(refusals, key=lambda problem: isinstance(problem, OffBoard))
    if refusals and not isinstance(refusals[0], OffBoard):
        return refusals[0]
    if len(text) > MAX_TEXT:
        return refusals[0] if refusals else IllegalMove(f"illegal move: {unreadable(text)}")
    try:
        return IllegalMove(f"illegal move: {why_none(position, text)}")
    except OffBoardText as error:
        return refusals[0] if refusals else IllegalMove(f"illegal move: {error}")


def promoted(position: Position, move: Move, written: str) -> Move:
    """Return the move with the promotion written (`=Q`, either case); refuse a promotion
    left out, or one written where the pawn does not promote or cannot become that."""
    if move.promotion == EMPTY:
        if written:
            raise IllegalMove(
                f"illegal move: {get_move_name(position, move)} is no promotion (=... only "
                f"when a pawn reaches its last cell)"
            )
        return move
    choices = position.variant.promotion
    if not written:
        raise unchosen_promotion(position, move)
    if written.upper() not in choices:
        raise IllegalMove(
            f"illegal move: a pawn cannot become a {PIECE_NAMES[written.lower()]} "
            f"(it may become {', '.join(PIECE_NAMES[letter.lower()] for letter in choices)})"
        )
    letter = written.upper() if move.piece.isupper() else written.lower()
    return move._replace(promotion=letter)


def unchosen_promotion(position: Position, move: Move) -> IllegalMove:
    """Refuse a promotion written without what the pawn becomes, naming the choices."""
    options = ", ".join(f"={letter}" for letter in position.variant.promotion)
    cell = get_cell_name_from_point(position.geometry, move.target)
    return IllegalMove(
        f"illegal move: the pawn promotes on {cell}: write what it becomes ({options})"
    )


def resolve_move(
    position: Position, analysis: Analysis, letter: str, origin_name: str, target_name: str
) -> Move:
    """Find the legal move from one cell to another, or refuse it naming the first reason."""
    if same_cell(origin_name, target_name):
        raise IllegalMove(f"illegal move: {shorten(origin_name)} to the same cell")
    geometry = position.geometry
    try:
        origin = get_point_from_cell_name(geometry, origin_name)
        target = get_point_from_cell_name(geometry, target_name)
    except NotationError as error:
        raise OffBoard(f"illegal move: {error}") from None

    def name(point: int) -> str:
        """Name a cell canonically in a refusal, however the move wrote it (c2(2) is c2(II))."""
        return get_cell_name_from_point(geometry, point)

    side = SIDE_NAMES[position.side]
    piece = position.cells[origin]
    if piece == EMPTY or owner(piece) != position.side:
        held = "nothing" if piece == EMPTY else f"a {piece_name(piece)}"
        raise IllegalMove(f"illegal move: no {side} piece on {name(origin)} ({held} there)")
    # A capital names either side's piece, as SAN writes it; a small letter only black's.
    if letter and letter != piece and letter != piece.upper():
        raise IllegalMove(
            f"illegal move: the letter {letter} does not match the {piece_name(piece)} "
            f"on {name(origin)}"
        )
    # Out of check only this piece's moves are asked: all of them would cost a 64-cube's whole
    # army on every `play`. In check the legal moves are few, and only they are generated.
    legal = analysis.legal_moves() if analysis.in_check else analysis.moves_of(origin)
    for move in legal:
        if move.origin == origin and move.target == target:
            return move  # a promotion's first choice: `promoted` picks the one written
    if target not in destinations(position, origin):
        raise IllegalMove(
            f"illegal move: the {piece_name(piece)} on {name(origin)} cannot move to {name(target)}"
        )
    move = Move(piece, origin, target, position.cells[target])
    raise IllegalMove(
        f"illegal move: {get_move_name(position, move)} would leave the {side} king in check"
    )
