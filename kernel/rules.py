"""Attacks, pins, legal moves and checkmate, for white to move.

Everything walks the precomputed offsets of kernel.directions over the padded array of
kernel.board; a ray stops at the first occupied cell, and the wall stops it at the edge.
"Who attacks this cell?" has two exact answers, and each position takes the cheaper:

- walk the 26 rays and 24 knight leaps out from the cell (crowded boards: rays are short);
- ask each enemy piece, through the attack table, whether it attacks the cell, and walk
  only that one path (sparse boards: few pieces, long rays).

The tests check that both answer alike on thousands of positions.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cached_property
from typing import NamedTuple

from kernel.board import BLACK_PIECES, EMPTY, WHITE_PIECES, Board
from kernel.directions import Attack

#: A piece: where it stands, its letter, and its compact index for the attack table.
Piece = tuple[int, str, int]

#: No cell: the default of `lifted`, which then lifts nothing.
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


def attack_between(board: Board, origin: int, target: int) -> Attack | None:
    """Say which pieces on origin could attack target on an empty board, and along what step."""
    compact = board.offsets.compact
    return board.offsets.attacks.get(compact[target] - compact[origin])


def line_step(board: Board, origin: int, target: int) -> int:
    """Return the unit offset from origin towards target if a slider's line joins them, else 0."""
    attack = attack_between(board, origin, target)
    return attack.step if attack is not None else 0


def cells_between(board: Board, origin: int, target: int) -> range:
    """Return the cells strictly between two cells on one line; empty when there are none."""
    step = line_step(board, origin, target)
    return range(origin + step, target, step) if step else range(0)


def pieces_between(board: Board, origin: int, target: int) -> list[int]:
    """Return the occupied cells strictly between two cells on one line."""
    cells = board.cells
    return [point for point in cells_between(board, origin, target) if cells[point] != EMPTY]


def attackers_by_rays(
    board: Board, target: int, by_black: bool, lifted: int = NO_POINT
) -> Iterator[int]:
    """Yield where each piece of one side stands that attacks `target`, walking out from it.

    `lifted` is a cell to see through as if it were empty: the white king's own cell when
    asking whether it may step to `target`, so that a slider's line goes on behind the king.
    """
    cells = board.cells
    offsets = board.offsets
    if by_black:
        rays, king, knight = offsets.black_rays, "k", "n"
    else:
        rays, king, knight = offsets.white_rays, "K", "N"
    for step, sliders in rays:
        point = target + step
        piece = cells[point]
        if piece == king:
            yield point
            continue
        while piece == EMPTY or point == lifted:
            point += step
            piece = cells[point]
        if piece in sliders:
            yield point
    for step in offsets.knight:
        if cells[target + step] == knight:
            yield target + step


def attackers_by_table(
    board: Board, target: int, pieces: list[Piece], lifted: int = NO_POINT
) -> Iterator[int]:
    """Yield where each of `pieces` stands that attacks `target`, asking the attack table.

    The same answer as attackers_by_rays for the pieces of one side; `lifted` likewise.
    """
    cells = board.cells
    attacks = board.offsets.attacks
    compact_target = board.offsets.compact[target]
    for origin, letter, compact_origin in pieces:
        attack = attacks.get(compact_target - compact_origin)
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


def prefers_table(board: Board, pieces_per_side: float) -> bool:
    """Tell whether asking every piece of a side beats walking the rays from a cell.

    A ray walk probes the 24 knight cells and each of 26 rays up to the first piece: about
    the mean free path (cells per piece), at most half the board. The table costs one look-up
    per piece of the side.
    """
    size = board.size
    free_path = min(size / 2, size**3 / max(1.0, 2 * pieces_per_side))
    return pieces_per_side < 24 + 26 * free_path


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

    def __init__(self, board: Board, kings: list[int] | None = None) -> None:
        if kings is None:
            kings = board.find("K")
        if len(kings) != 1:
            raise ValueError("no white king on the board" if not kings else "two white kings")
        self.board = board
        self.offsets = board.offsets
        self.king = kings[0]
        self.by_table = prefers_table(board, board.piece_count() / 2)
        self._pins: dict[int, Pin | None] = {}
        self.checkers = list(self.attackers(self.king, by_black=True))

    def attackers(self, target: int, by_black: bool, lifted: int = NO_POINT) -> Iterator[int]:
        """Yield the pieces of one side attacking target, by the cheaper search here."""
        if self.by_table:
            pieces = self.black_pieces if by_black else self.white_pieces
            return attackers_by_table(self.board, target, pieces, lifted)
        return attackers_by_rays(self.board, target, by_black, lifted)

    def is_attacked(self, target: int, by_black: bool, lifted: int = NO_POINT) -> bool:
        """Tell whether any piece of one side attacks target."""
        return next(self.attackers(target, by_black, lifted), None) is not None

    @cached_property
    def black_pieces(self) -> list[Piece]:
        """Every black piece."""
        return self.pieces_of(BLACK_PIECES)

    @cached_property
    def white_pieces(self) -> list[Piece]:
        """Every white piece, the king too."""
        return self.pieces_of(WHITE_PIECES)

    def pieces_of(self, letters: str) -> list[Piece]:
        """List the pieces with these letters, with their compact indices."""
        compact = self.board.offsets.compact
        return [(point, letter, compact[point]) for point, letter in self.board.pieces(letters)]

    @property
    def in_check(self) -> bool:
        """White is in check: some black piece attacks the king."""
        return bool(self.checkers)

    def pin_of(self, origin: int) -> Pin | None:
        """Say whether the white piece on origin is pinned to its king, and along what line.

        Only one line can pin it, the one from the king through it: walk that, no other.
        """
        if origin in self._pins:
            return self._pins[origin]
        board = self.board
        cells = board.cells
        step = line_step(board, self.king, origin)
        pin = None
        if step:
            point = self.king + step
            while cells[point] == EMPTY:
                point += step
            if point == origin:  # nothing shields it from the king's side
                point += step
                while cells[point] == EMPTY:
                    point += step
                if cells[point] in self.offsets.black_sliders[step]:
                    pin = Pin(origin, point, frozenset(range(self.king + step, point + step, step)))
        self._pins[origin] = pin
        return pin

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
            if not self.is_attacked(target, by_black=True, lifted=self.king):
                yield Move("K", self.king, target, None if piece == EMPTY else piece)

    def allowed_by_pin(self, origin: int, target: int) -> bool:
        """Tell whether a pin, if any, lets the piece on origin go to target."""
        pin = self.pin_of(origin)
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
                for origin in self.attackers(target, by_black=False):
                    if origin != self.king and self.allowed_by_pin(origin, target):
                        yield Move(cells[origin], origin, target, None if piece == EMPTY else piece)
            return
        for origin, letter, _ in self.white_pieces:
            if letter == "K":
                continue  # its moves came first, from king_moves
            for target in destinations(board, origin):
                if self.allowed_by_pin(origin, target):
                    piece = cells[target]
                    yield Move(letter, origin, target, None if piece == EMPTY else piece)

    def legal_moves(self) -> Iterator[Move]:
        """Yield every legal white move, the king's first."""
        yield from self.king_moves()
        yield from self.piece_moves()

    def has_legal_move(self) -> bool:
        """Tell whether white has any legal move, stopping at the first."""
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
    analysis = Analysis(board, white_kings)
    if black_kings:
        white_king, black_king = white_kings[0], black_kings[0]
        if black_king - white_king in board.offsets.queen:
            raise InvalidPosition(
                f"the kings stand on neighbouring cells {name(white_king)} and {name(black_king)}"
            )
        if analysis.in_check and analysis.is_attacked(black_king, by_black=False):
            raise InvalidPosition("both kings are in check")
    return analysis
