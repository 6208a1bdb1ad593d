"""Attacks, pins, legal moves, check and checkmate, for the side to move, whichever it is.

Everything walks the precomputed offsets of kernel.cube.directions over the padded cells of
kernel.cube.position; the wall stops every ray at the edge. "Who attacks this cell?" has one
answer, `attackers`: ask each piece of the attacking side, through the attack table, whether
it could reach the cell on an empty board, and walk only that one path. The cost is one table
look-up per piece, whatever the board's size, and the paths walked are the few that matter.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import lru_cache

from kernel.cube.board import EMPTY, SIDE_LETTERS, SIDE_NAMES, geometry_for
from kernel.cube.position import KING_LETTERS, NO_POINT, Move, MoveTuple, Position
from kernel.cube.variants import PAWN_LETTERS, Variant, impossible_pawn, is_promotion_cell

#: No limit on how many attackers `attackers` lists.
EVERY = -1


def attackers(
    position: Position, target: int, side: int, lifted: int = NO_POINT, most: int = EVERY
) -> list[int]:
    """List where the pieces of `side` stand that attack `target`, stopping at `most` of them.

    `lifted` is a cell to see through as if it were empty: the king's own cell when asking
    whether it may step to `target`, so that a slider's line goes on behind the king.
    """
    # One loop, not a generator: a mate search asks whether a cell is attacked millions of
    # times, and a generator's start-up cost as much as the walk itself.
    cells = position.cells
    reach = position.offsets.reach
    compact = position.offsets.compact
    compact_target = compact[target]
    found: list[int] = []
    for origin, letter in position.pieces[side].items():
        step = reach[letter].get(compact_target - compact[origin])
        if step is None:
            continue
        if step:
            point = origin + step
            while point != target and (cells[point] == EMPTY or point == lifted):
                point += step
            if point != target:
                continue  # something stands in the way
        found.append(origin)
        if len(found) == most:
            break
    return found


def is_attacked(position: Position, target: int, side: int, lifted: int = NO_POINT) -> bool:
    """Tell whether any piece of `side` attacks target."""
    return bool(attackers(position, target, side, lifted, 1))


def line_step(position: Position, origin: int, target: int) -> int:
    """Return the unit offset from origin towards target if a line joins them, else 0."""
    attack = position.offsets.attacks.get(compact_difference(position, origin, target))
    return attack.step if attack is not None else 0


def cells_between(position: Position, origin: int, target: int) -> range:
    """Return the cells strictly between two cells on one line; empty when there are none."""
    step = line_step(position, origin, target)
    return range(origin + step, target, step) if step else range(0)


def pieces_between(position: Position, origin: int, target: int) -> list[int]:
    """Return the occupied cells strictly between two cells on one line."""
    cells = position.cells
    return [point for point in cells_between(position, origin, target) if cells[point] != EMPTY]


def destinations(position: Position, origin: int) -> Iterator[int]:
    """Yield every cell the piece on origin could move to, ignoring its own king's safety."""
    cells = position.cells
    letter = cells[origin]
    if letter in PAWN_LETTERS:
        yield from pawn_destinations(position, origin, letter)
        return
    steps, slides = position.offsets.moves[letter]
    enemies = SIDE_LETTERS[letter.isupper()]  # white's enemies are black's letters
    for step in steps:
        target = origin + step
        piece = cells[target]
        while piece == EMPTY:
            yield target
            if not slides:
                break
            target += step
            piece = cells[target]
        if piece in enemies:
            yield target


def pawn_destinations(position: Position, origin: int, letter: str) -> Iterator[int]:
    """Yield where a pawn could go: forward onto an empty cell, or take forward diagonally."""
    cells = position.cells
    offsets = position.offsets
    for step in offsets.pushes[letter]:
        if cells[origin + step] == EMPTY:
            yield origin + step
    enemies = SIDE_LETTERS[letter.isupper()]
    for step in offsets.captures[letter]:
        if cells[origin + step] in enemies:
            yield origin + step


@lru_cache(maxsize=4)
def promotion_points(variant: Variant, size: int) -> dict[str, frozenset[int]]:
    """Each pawn letter's promotion cells, as points of the padded array."""
    geometry = geometry_for(size)
    cells = [(x, y, z) for x in range(size) for y in range(size) for z in range(size)]
    return {
        letter: frozenset(
            geometry.get_point_from_cell(*cell)
            for cell in cells
            if is_promotion_cell(variant, size, cell, letter == "P")
        )
        for letter in PAWN_LETTERS
    }


@lru_cache(maxsize=4)
def impossible_pawn_points(variant: Variant, size: int) -> dict[str, frozenset[int]]:
    """Each pawn letter's cells where no pawn of its side can stand (impossible_pawn), as points
    of the padded array: set_board then asks one set of each pawn, where asking impossible_pawn
    of each took half of set_board at Raumschach's start (issue 60)."""
    geometry = geometry_for(size)
    cells = [(x, y, z) for x in range(size) for y in range(size) for z in range(size)]
    return {
        letter: frozenset(
            geometry.get_point_from_cell(*cell)
            for cell in cells
            if impossible_pawn(variant, size, cell, letter == "P") is not None
        )
        for letter in PAWN_LETTERS
    }


def pawn_moves_to(position: Position, origin: int, target: int) -> list[Move]:
    """The moves of the pawn on origin to target: one, or one per piece it may become."""
    cells = position.cells
    letter = cells[origin]
    captured = cells[target]
    if target not in promotion_points(position.variant, position.size)[letter]:
        return [Move(letter, origin, target, captured)]
    choices = position.variant.promotion
    return [
        Move(letter, origin, target, captured, choice if letter == "P" else choice.lower())
        for choice in choices
    ]


def in_check(position: Position, side: int) -> bool:
    """Tell whether `side`'s king is attacked; a side without a king never is."""
    king = position.kings[side]
    return king != NO_POINT and is_attacked(position, king, 1 - side)


def gives_check(position: Position, move: MoveTuple) -> bool:
    """Tell whether a move of the side to move checks the other king, without playing it."""
    king = position.kings[position.enemy]
    if king == NO_POINT:
        return False
    return checks_directly(position, move, king) or discovers_check(position, move, king)


def checks_directly(position: Position, move: MoveTuple, king: int) -> bool:
    """Tell whether the moved piece attacks the king from its target cell."""
    piece, origin, target, _, promotion = move
    if promotion != EMPTY:
        piece = promotion  # what the pawn has become checks
    offsets = position.offsets
    step = offsets.reach[piece].get(offsets.compact[king] - offsets.compact[target])
    if step is None:
        return False
    if not step:
        return True  # a leap
    cells = position.cells
    point = target + step
    # The origin is empty once the piece has left it.
    while point != king and (cells[point] == EMPTY or point == origin):
        point += step
    return point == king


def discovers_check(position: Position, move: MoveTuple, king: int) -> bool:
    """Tell whether leaving the origin opens a line from one of the mover's sliders to the king."""
    origin, target = move[1], move[2]
    step = line_step(position, king, origin)
    if not step:
        return False
    cells = position.cells
    point = king + step
    while point != origin:
        if cells[point] != EMPTY or point == target:
            return False  # the line was shut before the origin, or the mover shuts it
        point += step
    point += step
    while cells[point] == EMPTY and point != target:
        point += step
    letter = cells[point]
    if point == target or letter not in SIDE_LETTERS[position.side]:
        return False
    # Every cell between that slider and the king is empty now: only its kind matters.
    return letter in position.offsets.attacks[compact_difference(position, point, king)].letters


def pin_of(position: Position, origin: int) -> range | None:
    """Return the cells a piece of the side to move may go to if it is pinned, else None.

    The piece is pinned when it alone stands between its king and an enemy slider moving
    along that line; it may then go anywhere from the slider's cell up to its king. One
    line is looked at, so asking about a piece costs little whatever the enemy's army.
    """
    king = position.kings[position.side]
    if king == NO_POINT or origin == king:
        return None
    step = line_step(position, king, origin)
    if not step:
        return None
    cells = position.cells
    point = king + step
    while point != origin:
        if cells[point] != EMPTY:
            return None  # another piece shields the king first
        point += step
    point += step
    while cells[point] == EMPTY:
        point += step
    letter = cells[point]
    if letter not in SIDE_LETTERS[position.enemy]:
        return None  # the wall, or a piece of its own
    offsets = position.offsets
    if not offsets.reach[letter].get(offsets.compact[king] - offsets.compact[point]):
        return None  # that enemy piece does not move along this line (or is next to it)
    return range(point, king, -step)


def compact_difference(position: Position, origin: int, target: int) -> int:
    """Return the attack table's key for a piece on origin reaching target."""
    compact = position.offsets.compact
    return compact[target] - compact[origin]


class Analysis:
    """What the side to move faces: its king, the checkers, pins, and the legal moves."""

    __slots__ = ("_pins", "checkers", "enemy", "king", "position", "side")

    def __init__(self, position: Position) -> None:
        self.position = position
        self.side = position.side
        self.enemy = 1 - position.side
        #: The king of the side to move, or NO_POINT: a side without a king is never in check.
        self.king = position.kings[self.side]
        self.checkers: list[int] = (
            attackers(position, self.king, self.enemy) if self.king != NO_POINT else []
        )
        self._pins: dict[int, range] | None = None

    @property
    def in_check(self) -> bool:
        """The side to move is in check: some enemy piece attacks its king."""
        return bool(self.checkers)

    def is_attacked(self, target: int, lifted: int = NO_POINT) -> bool:
        """Tell whether any enemy piece attacks target."""
        return is_attacked(self.position, target, self.enemy, lifted)

    def pins(self) -> dict[int, range]:
        """Map each pinned piece of the side to move to the cells it may still go to.

        A piece is pinned when it alone stands between its king and an enemy slider that
        moves along that line; it may go to the pinner's cell or any cell up to its king.
        """
        if self._pins is not None:
            return self._pins
        pins: dict[int, range] = {}
        king = self.king
        if king != NO_POINT:
            position = self.position
            cells = position.cells
            mine = SIDE_LETTERS[self.side]
            attacks = position.offsets.attacks
            compact = position.offsets.compact
            compact_king = compact[king]
            for origin, letter in position.pieces[self.enemy].items():
                attack = attacks.get(compact_king - compact[origin])
                if attack is None or not attack.step or letter not in attack.letters:
                    continue
                step = attack.step
                shield = NO_POINT
                point = origin + step
                while point != king:
                    if cells[point] != EMPTY:
                        if shield != NO_POINT:
                            break  # two pieces shield the king: neither is pinned
                        shield = point
                    point += step
                else:
                    if shield != NO_POINT and cells[shield] in mine:
                        pins[shield] = range(origin, king, step)
        self._pins = pins
        return pins

    def pin_of(self, origin: int) -> range | None:
        """Return the line a pinned piece must stay on, or None when it is free."""
        return self.pins().get(origin)

    def evasion_cells(self) -> list[int]:
        """Return where a single check can be met: the checker's cell, then its line."""
        checker = self.checkers[0]
        return [checker, *cells_between(self.position, checker, self.king)]

    def king_moves(self) -> Iterator[Move]:
        """Yield the king's steps to cells no enemy piece attacks once the king has left."""
        king = self.king
        if king == NO_POINT:
            return
        position = self.position
        cells = position.cells
        letter = KING_LETTERS[self.side]
        enemies = SIDE_LETTERS[self.enemy]
        for step in position.offsets.queen:
            target = king + step
            piece = cells[target]
            if piece != EMPTY and piece not in enemies:
                continue  # the wall, or a piece of its own
            if not self.is_attacked(target, lifted=king):
                yield Move(letter, king, target, piece)

    def piece_moves(self) -> Iterator[Move]:
        """Yield the legal moves of every piece but the king."""
        position = self.position
        cells = position.cells
        king = self.king
        if len(self.checkers) > 1:
            return  # against a double check only the king can move
        pins = self.pins()
        if self.checkers:
            # Only a capture of the checker or a block on its line can help: ask, for each
            # such cell, which pieces of the side to move reach it.
            evasions = self.evasion_cells()
            for target in evasions:
                piece = cells[target]
                for origin in attackers(position, target, self.side):
                    if cells[origin] in PAWN_LETTERS:
                        continue  # a pawn does not always move where it attacks: below
                    if origin != king and (origin not in pins or target in pins[origin]):
                        yield Move(cells[origin], origin, target, piece)
            if position.variant.has_pawns:
                for origin, letter in tuple(position.pieces[self.side].items()):
                    if letter in PAWN_LETTERS:
                        line = pins.get(origin)
                        for target in pawn_destinations(position, origin, letter):
                            if target in evasions and (line is None or target in line):
                                yield from pawn_moves_to(position, origin, target)
            return
        # A copy of the pieces: a caller may play and take back each move before asking for
        # the next (perft does), which moves the piece to the end of its side's dict.
        for origin, letter in tuple(position.pieces[self.side].items()):
            if origin == king:
                continue  # its moves came first, from king_moves
            line = pins.get(origin)
            if letter in PAWN_LETTERS:
                for target in pawn_destinations(position, origin, letter):
                    if line is None or target in line:
                        yield from pawn_moves_to(position, origin, target)
                continue
            for target in destinations(position, origin):
                if line is None or target in line:
                    yield Move(letter, origin, target, cells[target])

    def count_legal_moves(self) -> int:
        """Count the legal moves without making them: perft's last ply."""
        if self.checkers:
            return sum(1 for _ in self.legal_moves())  # few moves: no need to hurry
        count = sum(1 for _ in self.king_moves())
        position = self.position
        cells = position.cells
        offsets = position.offsets
        moves = offsets.moves
        enemies = SIDE_LETTERS[self.enemy]
        pins = self.pins()
        king = self.king
        for origin, letter in position.pieces[self.side].items():
            if origin == king:
                continue
            line = pins.get(origin)
            if letter in PAWN_LETTERS:
                # A move onto a promotion cell counts once for each piece it may become.
                promoting = promotion_points(position.variant, position.size)[letter]
                choices = len(position.variant.promotion)
                for step in offsets.pushes[letter]:
                    target = origin + step
                    if cells[target] == EMPTY and (line is None or target in line):
                        count += choices if target in promoting else 1
                for step in offsets.captures[letter]:
                    target = origin + step
                    if cells[target] in enemies and (line is None or target in line):
                        count += choices if target in promoting else 1
                continue
            if line is not None:
                count += sum(1 for target in destinations(position, origin) if target in line)
                continue
            steps, slides = moves[letter]
            for step in steps:
                target = origin + step
                piece = cells[target]
                if slides:
                    while piece == EMPTY:
                        count += 1
                        target += step
                        piece = cells[target]
                elif piece == EMPTY:
                    count += 1
                    continue
                if piece in enemies:
                    count += 1
        return count

    def checking_moves(self) -> list[Move]:
        """List the legal moves that check the enemy king, without generating the others.

        Direct checks land on a cell from which the piece attacks the king: along one of the
        king's 26 rays, up to its first piece, or a knight's leap away. Discovered checks move
        the one piece of the side to move that stands between one of its sliders and the king
        off that line. Out of check, a move is legal as long as a pin allows it; in check, the
        few legal moves are simply each asked.
        """
        position = self.position
        target_king = position.kings[self.enemy]
        if target_king == NO_POINT:
            return []
        if self.checkers or position.variant.has_pawns:
            # Pawns check, promote and discover in more ways than the tables below know:
            # with pawns on the board every legal move is asked.
            return [move for move in self.legal_moves() if gives_check(position, move)]
        cells = position.cells
        offsets = position.offsets
        theirs = SIDE_LETTERS[self.enemy]
        # The cells a piece checks from, and the letters that check from each.
        check_cells: dict[int, str] = {}
        for step, sliders in offsets.rays:
            point = target_king + step
            while cells[point] == EMPTY:
                check_cells[point] = sliders
                point += step
            if cells[point] in theirs:
                check_cells[point] = sliders
        for step in offsets.knight:
            point = target_king + step
            if cells[point] == EMPTY or cells[point] in theirs:
                check_cells[point] = "Nn"
        found: dict[tuple[int, int], Move] = {}
        pins = self.pins()
        attacks = offsets.attacks
        compact = offsets.compact
        for origin, letter in position.pieces[self.side].items():
            if origin == self.king:
                continue  # a king never checks a king
            line = pins.get(origin)
            compact_origin = compact[origin]
            for target, letters in check_cells.items():
                if letter not in letters or (line is not None and target not in line):
                    continue
                attack = attacks.get(compact[target] - compact_origin)
                if attack is None or letter not in attack.letters:
                    continue
                point = origin + attack.step
                while attack.step and point != target and cells[point] == EMPTY:
                    point += attack.step
                if not attack.step or point == target:
                    found[origin, target] = Move(letter, origin, target, cells[target])
        for shield, line in self.discovery_lines(target_king).items():
            for move in self.moves_of(shield):
                if move.target not in line:
                    found[move.origin, move.target] = move
        return list(found.values())

    def discovery_lines(self, target_king: int) -> dict[int, range]:
        """Map each own piece that alone shields the enemy king from an own slider to that line.

        The line runs from the slider up to the king: the shield leaving it gives check.
        """
        position = self.position
        cells = position.cells
        attacks = position.offsets.attacks
        compact = position.offsets.compact
        mine = SIDE_LETTERS[self.side]
        lines: dict[int, range] = {}
        for origin, letter in position.pieces[self.side].items():
            attack = attacks.get(compact[target_king] - compact[origin])
            if attack is None or not attack.step or letter not in attack.letters:
                continue
            between = pieces_between(position, origin, target_king)
            if len(between) == 1 and cells[between[0]] in mine:
                lines[between[0]] = range(origin, target_king, attack.step)
        return lines

    def moves_of(self, origin: int) -> Iterator[Move]:
        """Yield the legal moves of the piece on origin, out of check."""
        if origin == self.king:
            yield from self.king_moves()
            return
        position = self.position
        cells = position.cells
        letter = cells[origin]
        line = self.pins().get(origin)
        for target in destinations(position, origin):
            if line is None or target in line:
                if letter in PAWN_LETTERS:
                    yield from pawn_moves_to(position, origin, target)
                else:
                    yield Move(letter, origin, target, cells[target])

    def legal_moves(self) -> Iterator[Move]:
        """Yield every legal move of the side to move, the king's first.

        A caller may play each move and take it back before asking for the next: the moves
        still come as from the position the analysis was made of.
        """
        yield from self.king_moves()
        yield from self.piece_moves()

    def has_legal_move(self) -> bool:
        """Tell whether the side to move has any legal move, stopping at the first."""
        return next(self.legal_moves(), None) is not None

    def is_checkmate(self) -> bool:
        """The side to move is mated: in check, and no legal move."""
        return self.in_check and not self.has_legal_move()

    def status(self) -> str:
        """Name the state of the side to move: checkmate, stalemate, check or normal."""
        if self.has_legal_move():
            return "check" if self.in_check else "normal"
        return "checkmate" if self.in_check else "stalemate"


class InvalidPosition(ValueError):
    """A position that cannot be asked about; the message says why."""


def check_position(position: Position, name: Callable[[int], str] = str) -> Analysis:
    """Analyse a position once it is known to be one that can be asked about.

    Raise InvalidPosition for a wrong number of kings, kings side by side, or both in check;
    `name` writes a cell for the message (the text layer passes its cell names).
    """
    white_kings = position.find("K")
    black_kings = position.find("k")
    if not white_kings:
        raise InvalidPosition("no white king")
    for kings, colour in zip((white_kings, black_kings), SIDE_NAMES, strict=True):
        if len(kings) > 1:
            raise InvalidPosition(f"{len(kings)} {colour} kings ({', '.join(map(name, kings))})")
    if black_kings:
        white_king, black_king = white_kings[0], black_kings[0]
        if black_king - white_king in position.offsets.queen:
            raise InvalidPosition(
                f"the kings stand on neighbouring cells {name(white_king)} and {name(black_king)}"
            )
    check_variant(position, name)
    analysis = Analysis(position)
    if black_kings and analysis.in_check and in_check(position, position.enemy):
        raise InvalidPosition("both kings are in check")
    return analysis


def check_variant(position: Position, name: Callable[[int], str] = str) -> None:
    """Raise InvalidPosition for what the variant cannot have: a board of another size, or a
    pawn where none can stand (on its promotion cell, or behind its pawns' start)."""
    variant = position.variant
    size = position.size
    if not variant.allows_size(size):
        sizes = ", ".join(map(str, variant.sizes or ()))
        raise InvalidPosition(f"{variant.name} is played on a board of size {sizes} only")
    if not variant.has_pawns:
        return
    geometry = position.geometry
    impossible = impossible_pawn_points(variant, size)
    for side, pawn in enumerate(PAWN_LETTERS):
        pawns = position.find(pawn)
        if impossible[pawn].isdisjoint(pawns):
            continue
        for point in pawns:  # the first in board order is named, and why
            cell = geometry.get_cell_from_point(point)
            reason = impossible_pawn(variant, size, cell, side == 0)
            if reason is not None:
                raise InvalidPosition(f"a {SIDE_NAMES[side]} pawn on {name(point)}: {reason}")


def is_game_position(position: Position) -> bool:
    """Tell whether the side not to move is out of check, as after any legal move."""
    return not in_check(position, position.enemy)
