"""Attacks, pins, legal moves and checkmate, for white to move.

Everything walks the precomputed offsets of kernel.directions over the padded array of
kernel.board; a ray stops at the first occupied cell, and the wall stops it at the edge.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property

from kernel.board import BLACK_PIECES, EMPTY, WHITE_PIECES, Board
from kernel.directions import Offsets, offsets_for

NO_POINT = -1


@dataclass(frozen=True, slots=True)
class Move:
    """A white move: the piece, where it stands, where it goes, and whether it captures."""

    piece: str
    origin: int
    target: int
    captured: str | None

    def name(self, board: Board) -> str:
        """Write the move as `Kc1(I)-c2(II)`, or with `x` for a capture."""
        cell_name = board.geometry.get_cell_name_from_point
        sign = "-" if self.captured is None else "x"
        return f"{self.piece}{cell_name(self.origin)}{sign}{cell_name(self.target)}"


def attackers_of(
    board: Board, target: int, by_black: bool, lifted: int = NO_POINT
) -> Iterator[int]:
    """Yield every piece of one side that attacks `target`.

    `lifted` is a cell to see through as if it were empty: the white king's own cell when
    asking whether it may step to `target`, so that a slider's line goes on behind the king.
    """
    cells = board.cells
    offsets = offsets_for(board.geometry.memory_width)
    king, knight = ("k", "n") if by_black else ("K", "N")
    for ray in offsets.rays:
        step = ray.offset
        point = target + step
        piece = cells[point]
        if piece == king:
            yield point
            continue
        while piece == EMPTY or point == lifted:
            point += step
            piece = cells[point]
        if piece in (ray.black_sliders if by_black else ray.white_sliders):
            yield point
    for step in offsets.knight:
        if cells[target + step] == knight:
            yield target + step


def is_attacked(board: Board, target: int, by_black: bool, lifted: int = NO_POINT) -> bool:
    """Tell whether any piece of one side attacks `target`."""
    return next(attackers_of(board, target, by_black, lifted), None) is not None


def direction_between(board: Board, origin: int, target: int) -> int:
    """Return the unit offset that leads from origin towards target along their line."""
    geometry = board.geometry
    ax, ay, az = geometry.get_xyz_from_point(origin)
    bx, by, bz = geometry.get_xyz_from_point(target)
    width = geometry.memory_width

    def sign(value: int) -> int:
        return (value > 0) - (value < 0)

    return sign(bx - ax) + width * (sign(by - ay) + width * sign(bz - az))


def cells_between(board: Board, origin: int, target: int) -> list[int]:
    """Return the cells strictly between two cells on one line, nearest origin first."""
    step = direction_between(board, origin, target)
    return list(range(origin + step, target, step)) if step else []


def destinations(board: Board, origin: int, offsets: Offsets) -> Iterator[int]:
    """Yield every cell the piece on origin could move to, ignoring its own king's safety."""
    cells = board.cells
    steps, slides = offsets.moves[cells[origin]]
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


@dataclass(frozen=True, slots=True)
class Pin:
    """A white piece that may not leave the line between its king and a black slider."""

    piece: int
    pinner: int
    line: frozenset[int]


class Analysis:
    """What white faces in a position: checkers, pins, and the legal moves that follow."""

    def __init__(self, board: Board) -> None:
        kings = board.find("K")
        if len(kings) != 1:
            raise ValueError("no white king on the board" if not kings else "two white kings")
        self.board = board
        self.king = kings[0]
        self.offsets = offsets_for(board.geometry.memory_width)
        self.checkers = list(attackers_of(board, self.king, by_black=True))

    @property
    def in_check(self) -> bool:
        return bool(self.checkers)

    @cached_property
    def pins(self) -> dict[int, Pin]:
        """Find every white piece pinned to its king, keyed by where it stands."""
        cells = self.board.cells
        pins: dict[int, Pin] = {}
        for ray in self.offsets.rays:
            step = ray.offset
            point = self.king + step
            while cells[point] == EMPTY:
                point += step
            if cells[point] not in WHITE_PIECES:
                continue
            shield = point
            point += step
            while cells[point] == EMPTY:
                point += step
            if cells[point] in ray.black_sliders:
                line = frozenset(range(self.king + step, point + step, step))
                pins[shield] = Pin(shield, point, line)
        return pins

    def king_flights(self) -> Iterator[tuple[int, str]]:
        """Yield every cell next to the king that is not its own piece nor the wall."""
        cells = self.board.cells
        for step in self.offsets.queen:
            target = self.king + step
            piece = cells[target]
            if piece == EMPTY or piece in BLACK_PIECES:
                yield target, piece

    def evasion_cells(self) -> list[int]:
        """Return where a single check can be met: the checker's cell, then the line to it."""
        checker = self.checkers[0]
        if self.board.cells[checker] in "kn":
            return [checker]
        return [checker, *cells_between(self.board, self.king, checker)]

    def king_moves(self) -> Iterator[Move]:
        """Yield the king's steps to cells no black piece attacks once the king has left."""
        for target, piece in self.king_flights():
            if not is_attacked(self.board, target, by_black=True, lifted=self.king):
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
                for origin in attackers_of(board, target, by_black=False):
                    if origin != self.king and self.allowed_by_pin(origin, target):
                        yield Move(cells[origin], origin, target, None if piece == EMPTY else piece)
            return
        for origin, letter in board.pieces.items():
            if letter not in WHITE_PIECES or letter == "K":
                continue
            for target in destinations(board, origin, self.offsets):
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


def position_problem(board: Board) -> str | None:
    """Say why a position cannot be asked about, or None when it can."""
    white_kings = board.find("K")
    black_kings = board.find("k")
    name = board.geometry.get_cell_name_from_point
    if not white_kings:
        return "no white king"
    if len(white_kings) > 1:
        return f"{len(white_kings)} white kings ({', '.join(map(name, white_kings))})"
    if len(black_kings) > 1:
        return f"{len(black_kings)} black kings ({', '.join(map(name, black_kings))})"
    if not black_kings:
        return None
    white_king, black_king = white_kings[0], black_kings[0]
    if black_king - white_king in offsets_for(board.geometry.memory_width).queen:
        return f"the kings stand on neighbouring cells {name(white_king)} and {name(black_king)}"
    if is_attacked(board, white_king, by_black=True) and is_attacked(
        board, black_king, by_black=False
    ):
        return "both kings are in check"
    return None
