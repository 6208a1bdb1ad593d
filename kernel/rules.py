"""Attacks, pins, legal moves and checkmate, for white to move.

An attack is looked up, not searched for: the attack table of kernel.directions says, for the
index difference between two cells, which pieces could attack across it and along which unit
step; only that one path is then walked over the padded array of kernel.board.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import cached_property
from typing import NamedTuple

from kernel.board import BLACK_PIECES, EMPTY, WHITE_PIECES, Board

#: A piece as where it stands and its letter.
Piece = tuple[int, str]

NO_POINT = -1


class Move(NamedTuple):
    """A white move: the piece, where it stands, where it goes, and what it captures."""

    piece: str
    origin: int
    target: int
    captured: str | None

    def name(self, board: Board) -> str:
        """Write the move as `Kc1(I)-c2(II)`, or with `x` for a capture."""
        cell_name = board.geometry.get_cell_name_from_point
        sign = "-" if self.captured is None else "x"
        return f"{self.piece}{cell_name(self.origin)}{sign}{cell_name(self.target)}"


def cells_between(board: Board, origin: int, target: int) -> range:
    """Return the cells strictly between two cells on one line; empty when there are none."""
    attack = board.offsets.attacks.get(target - origin)
    step = attack.step if attack is not None else 0
    return range(origin + step, target, step) if step else range(0)


def pieces_between(board: Board, origin: int, target: int) -> list[int]:
    """Return the occupied cells strictly between two cells on one line."""
    cells = board.cells
    return [point for point in cells_between(board, origin, target) if cells[point] != EMPTY]


def attackers_of(
    board: Board, target: int, pieces: Iterable[Piece], lifted: int = NO_POINT
) -> Iterator[int]:
    """Yield where each of `pieces` stands that attacks `target`.

    `lifted` is a cell to see through as if it were empty: the white king's own cell when
    asking whether it may step to `target`, so that a slider's line goes on behind the king.
    """
    cells = board.cells
    attacks = board.offsets.attacks
    for origin, letter in pieces:
        attack = attacks.get(target - origin)
        if attack is None or letter not in attack.letters:
            continue
        step = attack.step
        if step:
            point = origin + step
            while point != target and (cells[point] == EMPTY or point == lifted):
                point += step
            if point != target:
                continue  # something stands in the way
        yield origin


def is_attacked(board: Board, target: int, pieces: Iterable[Piece], lifted: int = NO_POINT) -> bool:
    """Tell whether any of `pieces` attacks `target`."""
    return next(attackers_of(board, target, pieces, lifted), None) is not None


def destinations(board: Board, origin: int) -> Iterator[int]:
    """Yield every cell the piece on origin could move to, ignoring its own king's safety."""
    cells = board.cells
    steps, slides = board.offsets.moves[cells[origin]]
    for step in steps:
        target = origin + step
        piece = cells[target]
        while piece == EMPTY:
            yield target
            if not slides:
                break
            target += step
            piece = cells[target]
        if piece in BLACK_PIECES:
            yield target


class Pin(NamedTuple):
    """A white piece that may not leave the line between its king and a black slider."""

    piece: int
    pinner: int
    #: The cells it may still go to: up to its king, and the pinner itself.
    line: frozenset[int]


class Analysis:
    """What white faces in a position: checkers, pins, and the legal moves that follow."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self.offsets = board.offsets
        self.black: list[Piece] = []
        self.white: list[Piece] = []  # every white piece but the king
        kings = []
        for piece in board.pieces.items():
            if piece[1] == "K":
                kings.append(piece[0])
            elif piece[1] in WHITE_PIECES:
                self.white.append(piece)
            else:
                self.black.append(piece)
        if len(kings) != 1:
            raise ValueError("no white king on the board" if not kings else "two white kings")
        self.king = kings[0]
        self.checkers = list(attackers_of(board, self.king, self.black))

    @property
    def in_check(self) -> bool:
        return bool(self.checkers)

    @cached_property
    def pins(self) -> dict[int, Pin]:
        """Find every white piece pinned to its king, keyed by where it stands."""
        cells = self.board.cells
        attacks = self.offsets.attacks
        pins: dict[int, Pin] = {}
        for origin, letter in self.black:
            attack = attacks.get(self.king - origin)
            if attack is None or not attack.step or letter not in attack.letters:
                continue
            between = pieces_between(self.board, origin, self.king)
            if len(between) == 1 and cells[between[0]] in WHITE_PIECES:
                line = frozenset(range(origin, self.king, attack.step))
                pins[between[0]] = Pin(between[0], origin, line)
        return pins

    def evasion_cells(self) -> list[int]:
        """Return where a single check can be met: the checker's cell, then its line."""
        checker = self.checkers[0]
        return [checker, *cells_between(self.board, checker, self.king)]

    def king_moves(self) -> Iterator[Move]:
        """Yield the king's steps to cells no black piece attacks once the king has left."""
        board = self.board
        cells = board.cells
        for step in self.offsets.queen:
            target = self.king + step
            piece = cells[target]
            if piece != EMPTY and piece not in BLACK_PIECES:
                continue  # the wall, or a white piece
            if not is_attacked(board, target, self.black, lifted=self.king):
                yield Move("K", self.king, target, None if piece == EMPTY else piece)

    def allowed_by_pin(self, origin: int, target: int) -> bool:
        """Tell whether a pin, if any, lets the piece on origin go to target."""
        pin = self.pins.get(origin)
        return pin is None or target in pin.line

    def piece_moves(self) -> Iterator[Move]:
        """Yield the legal moves of every piece but the king."""
        board = self.board
        cells = board.cells
        if len(self.checkers) > 1:
            return  # against a double check only the king can move
        if self.checkers:
            # Only a capture of the checker or a block on its line can help: ask, for each
            # such cell, which white pieces reach it.
            for target in self.evasion_cells():
                piece = cells[target]
                for origin in attackers_of(board, target, self.white):
                    if self.allowed_by_pin(origin, target):
                        yield Move(cells[origin], origin, target, None if piece == EMPTY else piece)
            return
        for origin, letter in self.white:
            for target in destinations(board, origin):
                if self.allowed_by_pin(origin, target):
                    piece = cells[target]
                    yield Move(letter, origin, target, None if piece == EMPTY else piece)

    def legal_moves(self) -> Iterator[Move]:
        """Yield every legal white move, the king's first."""
        yield from self.king_moves()
        yield from self.piece_moves()

    def has_legal_move(self) -> bool:
        return next(self.legal_moves(), None) is not None

    def is_checkmate(self) -> bool:
        """White is mated: in check, and no legal move."""
        return self.in_check and not self.has_legal_move()

    def status(self) -> str:
        """Name the state of white: checkmate, stalemate, check or normal."""
        if self.has_legal_move():
            return "check" if self.in_check else "normal"
        return "checkmate" if self.in_check else "stalemate"


class InvalidPosition(ValueError):
    """A position that cannot arise in a game; the message says why."""


def analyse_position(board: Board) -> Analysis:
    """Analyse a position once it is known to be one that can be asked about.

    Raise InvalidPosition for a wrong number of kings, kings side by side, or both in check.
    """
    white_kings = board.find("K")
    black_kings = board.find("k")
    name = board.geometry.get_cell_name_from_point
    if not white_kings:
        raise InvalidPosition("no white king")
    if len(white_kings) > 1:
        raise InvalidPosition(
            f"{len(white_kings)} white kings ({', '.join(map(name, white_kings))})"
        )
    if len(black_kings) > 1:
        raise InvalidPosition(
            f"{len(black_kings)} black kings ({', '.join(map(name, black_kings))})"
        )
    analysis = Analysis(board)
    if black_kings:
        white_king, black_king = white_kings[0], black_kings[0]
        if black_king - white_king in board.offsets.queen:
            raise InvalidPosition(
                f"the kings stand on neighbouring cells {name(white_king)} and {name(black_king)}"
            )
        if analysis.in_check and is_attacked(board, black_king, analysis.white):
            raise InvalidPosition("both kings are in check")
    return analysis
