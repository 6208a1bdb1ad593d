"""Mate in one: does a move of the side to move checkmate? The last ply of the mate search.

A check mates only if the king has no flight after it. A flight (a cell around the king that
is not the wall and holds none of its pieces) that no piece of the side to move attacks, with
the king lifted, is free; one that a single piece attacks is free once that piece has moved.
After a move such a flight can only be guarded by the moved piece from its target, or by a
slider whose line ran through the cell the piece left: every other line is as it was, or shut
by the piece's new cell. A piece that lands on the flight does not guard it (the king takes
it there, for nothing else guards it). So a check that surely leaves a flight is passed over
without being played.

On boards up to `BITSET_SIZE` the question starts from the flights, not from the checks.
Each piece but the king gets a bitset of the cells it could check the king from on an empty
board and could reach from where it stands; each flight that is free (or guarded by that
piece alone) then keeps only the cells from which the piece would also attack that flight,
unless leaving its cell may open a line onto it. Most positions have several flights, and two
or three of them leave no piece a cell: the answer is then no, before any move is generated
and before the remaining flights are asked about (a flight is asked about only when its
answer could take cells away). The few targets left are the moves asked for real: path, pin,
check, flights, then played. Discovered checks (a piece alone between a slider of its side
and the king) are generated and asked the same way. With the side to move in check, and on
larger boards (where a bitset is as large as the board), the checks are generated
(`Analysis.checking_moves`) and filtered by the flights one by one.
"""

from __future__ import annotations

from functools import cache

from kernel.cube import rules
from kernel.cube.board import EMPTY, SIDE_LETTERS, WALL, empty_cells
from kernel.cube.directions import offsets_for
from kernel.cube.position import NO_POINT, Move, Position
from kernel.cube.rules import Analysis, checks_directly
from kernel.cube.variants import CUBE

#: The letters of the pieces that move along lines, in every variant.
SLIDERS = "QRBUqrbu"
#: The largest board whose attack bitsets are kept: at n = 8 each holds 1,728 bits, and the
#: five tables of a size take about 0.6 MB.
BITSET_SIZE = 8


def uses_bitsets(position: Position) -> bool:
    """Tell whether the attack bitsets answer for this position: a cube game on a board
    small enough (the bitsets know the cube's pieces; other variants are asked move by move)."""
    return position.size <= BITSET_SIZE and position.variant is CUBE


@cache
def attack_masks(size: int) -> dict[str, tuple[int, ...]]:
    """Map each piece letter to the cells it attacks on an empty board, as a bitset per
    padded cell (0 on the wall).

    Every move of these pieces can be made backwards, so the bitset of a cell is also where
    the piece attacks that cell from.
    """
    cells = empty_cells(size)
    offsets = offsets_for(size, CUBE.rules)
    masks: dict[str, tuple[int, ...]] = {}
    for letter in "KQRBN":
        steps, slides = offsets.moves[letter]
        table = [0] * len(cells)
        for point, cell in enumerate(cells):
            if cell == WALL:
                continue
            mask = 0
            for step in steps:
                target = point + step
                while cells[target] != WALL:
                    mask |= 1 << target
                    if not slides:
                        break
                    target += step
            table[point] = mask
        masks[letter] = masks[letter.lower()] = tuple(table)
    return masks


def gives_check(position: Position, move: Move) -> bool:
    """Tell whether a move of the side to move checks the other king (rules.gives_check),
    the moves that cannot be told apart by the bitsets first: a direct check lands where
    the piece attacks the king from, a discovered one leaves a line of the king."""
    king = position.kings[position.enemy]
    if king == NO_POINT:
        return False
    if uses_bitsets(position):
        letter, origin, target = move[:3]
        masks = attack_masks(position.size)
        if not (masks[letter][king] >> target & 1 or masks["Q"][king] >> origin & 1):
            return False
    return rules.gives_check(position, move)


def mates_in_one(position: Position) -> tuple[bool, int]:
    """Tell whether a move of the side to move checkmates; also return how many moves were
    asked for real (played, or looked at one by one)."""
    king = position.kings[position.enemy]
    if king == NO_POINT:
        return False, 0
    analysis = Analysis(position)
    if analysis.checkers or not uses_bitsets(position):
        return mates_by_checks(position, analysis)
    return mates_from_flights(position, analysis, king)


def mates_from_flights(position: Position, analysis: Analysis, king: int) -> tuple[bool, int]:
    """Answer mates_in_one from the flights first (the module docstring), out of check."""
    side = position.side
    cells = position.cells
    masks = attack_masks(position.size)
    own_king = position.kings[side]
    # Each piece but the king: where it stands, its letter, where it attacks from each cell,
    # the cells it may still mate from, and the cells that leaving its cell may open a line
    # of its side onto.
    movers: list[tuple[int, str, tuple[int, ...], int, int]] = []
    for origin, letter in position.pieces[side].items():
        if origin != own_king:
            table = masks[letter]
            targets = table[king] & table[origin]
            if targets:
                movers.append((origin, letter, table, targets, lines_through(position, origin)))
    shields = analysis.discovery_lines(king)
    if not movers and not shields:
        return False, 0
    theirs = SIDE_LETTERS[position.enemy]
    flights = Flights(position, king, [], {})
    unasked: list[int] = []
    for step in position.offsets.queen:
        flight = king + step
        piece = cells[flight]
        if piece == WALL or piece in theirs:
            continue
        # Who guards the flight is asked only when the answer could narrow the targets (a
        # loop, not any(): this runs for every flight of every mate in one).
        for _, _, table, targets, opens in movers:
            if targets & ~table[flight] and not opens >> flight & 1:
                break
        else:
            unasked.append(flight)
            continue
        guard = flights.add(flight)
        if guard == GUARDED:
            continue
        kept = []
        for origin, letter, table, targets, opens in movers:
            # The flight is free, or will be once its one guard has left: the piece must
            # guard it from its target (standing on it does not do: the king takes it
            # there), unless a line opened through its origin may guard it.
            if guard in (NO_POINT, origin) and not opens >> flight & 1:
                targets &= table[flight]
            if targets:
                kept.append((origin, letter, table, targets, opens))
        movers = kept
        if not movers and not shields:
            return False, 0
    # Some moves are left to ask: the flights not asked yet pass over more of them unplayed.
    for flight in unasked:
        flights.add(flight)
    asked = 0
    tried: set[tuple[int, int]] = set()
    for origin, letter, _, targets, _ in movers:
        line = analysis.pin_of(origin)
        while targets:
            low = targets & -targets
            targets ^= low
            target = low.bit_length() - 1
            piece = cells[target]
            if piece != EMPTY and piece not in theirs:
                continue
            move = Move(letter, origin, target, piece)
            if (line is not None and target not in line) or not reaches(position, move):
                continue
            if not checks_directly(position, move, king):
                continue
            asked += 1
            tried.add((move.origin, move.target))
            if flights.left_by(move):
                continue
            if mates(position, move):
                return True, asked
    for shield, line in shields.items():
        for move in analysis.moves_of(shield):
            if move.target in line or (move.origin, move.target) in tried:
                continue
            asked += 1
            if flights.left_by(move):
                continue
            if mates(position, move):
                return True, asked
    return False, asked


def mates_by_checks(position: Position, analysis: Analysis) -> tuple[bool, int]:
    """Answer mates_in_one by generating every check and passing over those that leave a
    flight: in check, and on boards too large for the bitsets."""
    checks = analysis.checking_moves()
    if not checks:
        return False, 0
    flights = Flights.of(position)
    for check in checks:
        if flights.left_by(check):
            continue
        if mates(position, check):
            return True, len(checks)
    return False, len(checks)


def mates(position: Position, move: Move) -> bool:
    """Play a check, tell whether the other side then has no legal move, take it back.

    The capture or block of the checker is asked before the king's steps: the check covers
    the flights, so most of the steps are guarded and each costs a question of its own.
    """
    position.play(move)
    try:
        analysis = Analysis(position)
        return (
            next(analysis.piece_moves(), None) is None and next(analysis.king_moves(), None) is None
        )
    finally:
        position.undo(move)


def reaches(position: Position, move: Move) -> bool:
    """Tell whether nothing stands between a piece and its target (the bitsets know the
    empty board only)."""
    origin, target = move.origin, move.target
    offsets = position.offsets
    step = offsets.reach[move.piece][offsets.compact[target] - offsets.compact[origin]]
    if not step:
        return True  # a leap, or a step next door
    cells = position.cells
    point = origin + step
    while point != target and cells[point] == EMPTY:
        point += step
    return point == target


def lines_through(position: Position, origin: int) -> int:
    """Return, as a bitset, the cells beyond `origin` on the lines of the sliders of the side
    to move that pass through it, whatever stands between: the cells that leaving `origin`
    may newly guard."""
    attacks = position.offsets.attacks
    compact = position.offsets.compact
    cells = position.cells
    found = 0
    for point, letter in position.pieces[position.side].items():
        if point != origin and letter in SLIDERS:
            attack = attacks.get(compact[origin] - compact[point])
            if attack is not None and letter in attack.letters:
                beyond = origin + attack.step
                while cells[beyond] != WALL:
                    found |= 1 << beyond
                    beyond += attack.step
    return found


#: Flights.add's answer for a flight guarded by two pieces or more.
GUARDED = -2


class Flights:
    """The flights of the defender's king (not to move): the cells around it that it could
    step to if it were its turn (free), and those guarded by one piece only, which are free
    once that piece has moved (unless it guards them from its target)."""

    __slots__ = ("alone", "free", "king", "position")

    def __init__(
        self, position: Position, king: int, free: list[int], alone: dict[int, int]
    ) -> None:
        self.position = position
        self.king = king
        self.free = free
        #: A flight guarded by one piece -> where that piece stands.
        self.alone = alone

    @classmethod
    def of(cls, position: Position) -> Flights:
        """Find the flights of the king of the side not to move."""
        king = position.kings[position.enemy]
        cells = position.cells
        own = SIDE_LETTERS[position.enemy]
        flights = cls(position, king, [], {})
        for step in position.offsets.queen:
            cell = king + step
            if cells[cell] != WALL and cells[cell] not in own:
                flights.add(cell)
        return flights

    def add(self, cell: int) -> int:
        """Ask who guards a cell next to the king; keep it as free or guarded by one piece.

        Return NO_POINT when it is free, the guard's cell when one piece guards it, and
        GUARDED when more do.
        """
        # The king is lifted: a slider's line goes on through his cell to the flight.
        guards = rules.attackers(self.position, cell, self.position.side, self.king, 2)
        if not guards:
            self.free.append(cell)
            return NO_POINT
        if len(guards) == 1:
            self.alone[cell] = guards[0]
            return guards[0]
        return GUARDED

    def left_by(self, move: Move) -> bool:
        """Tell whether a move surely leaves the king one of its flights.

        A free flight stays free, and one guarded by the moved piece alone becomes free,
        unless the piece guards it from its target, or a slider's line to it ran through the
        cell the piece left; every other line is as it was, or shut by the piece's new cell.
        A piece that lands on a flight does not guard it: the king takes it there. A flight
        the move might guard counts as guarded, so the answer is never a wrong yes.
        """
        letter, origin, target, _, promotion = move
        if promotion != EMPTY:
            letter = promotion  # what the pawn has become guards from its target
        position = self.position
        cells = position.cells
        attacks = position.offsets.attacks
        compact = position.offsets.compact
        king = self.king
        alone = self.alone
        flights = self.free
        if origin in alone.values():
            flights = flights + [cell for cell, guard in alone.items() if guard == origin]
        for flight in flights:
            attack = attacks.get(compact[flight] - compact[target])
            if attack is not None and letter in attack.letters:
                step = attack.step
                if not step:
                    continue
                point = target + step
                # The king's cell counts as empty: the king steps off the line it is on.
                while point != flight and (cells[point] == EMPTY or point in (origin, king)):
                    point += step
                if point == flight:
                    continue
            if not opens_line_to(position, origin, flight):
                return True
        return False


def opens_line_to(position: Position, origin: int, cell: int) -> bool:
    """Tell whether a slider of the side to move has `origin` on its line to `cell`."""
    attacks = position.offsets.attacks
    compact = position.offsets.compact
    for point, letter in position.pieces[position.side].items():
        if point == origin:
            continue
        attack = attacks.get(compact[cell] - compact[point])
        if attack is None or not attack.step or letter not in attack.letters:
            continue
        step = attack.step
        between = point + step
        while between != cell:
            if between == origin:
                return True
            between += step
    return False
