"""Helpmate in N: both sides cooperate so that the side to move is checkmated on the other
side's N-th move, 2N plies after the start, the side to move first.

Every solution is a line, and all are listed: the search is a cooperative one (both sides
OR), which enumerates the lines rather than settling a verdict. A position in the middle of a
line whose side to move has no move (mate or stalemate) ends that line without a solution, as
move generation already sees. It runs depth first over the one position and keeps, per
position and plies left, the tuple of the lines that finish from there (a transposition
table: in a helpmate the two sides' moves commute, and most positions come round again); the
table is bounded by entries and by the moves its lines hold, and started afresh when full.

The last two plies are where the work is, and the mated side's king prunes them. The last
move must give check and take every flight, which kernel/mates/mateinone.py answers from the
flights first, mostly before any move is generated; so each move of the mated side one ply
earlier is kept only when the other side then has a mate in one, and only then are the
mating moves listed (each check that surely leaves a flight passed over unplayed). Before
that, when no enemy piece could take all its king's flights but one (`king_must_move`), only
the king's own steps are tried. Deeper plies are enumerated whole, from the table: on open
4-cube positions of 5 to 7 pieces a helpmate in 3 takes seconds here, and tenths of a second
compiled (docs/protocol.md).

A line count past the limit (`search.max_solutions`) raises TooManySolutions at once: a
position reached holds only lines that extend to distinct solutions from the start, so any
tuple longer than the limit means the answer is.

The same search is compiled in kernel/core/helpmate.c (it keeps counts of lines rather than
the lines, and writes them in a second walk), and `solutions` hands its question to it where
it was built, 10 to 22 times faster (bench/stipulations.py), with the same answers
(tests/test_helpcore.py).
"""

from __future__ import annotations

from typing import Any

from kernel.compiled import (
    CODE_LETTERS,
    COMPILED,
    HelpmateCore,
    core_pieces,
    core_rules,
    core_takes,
)
from kernel.cube.board import EMPTY, SIDE_LETTERS, WALL
from kernel.cube.position import NO_POINT, Move, Position
from kernel.cube.rules import Analysis, is_attacked
from kernel.mates.mateinone import (
    SLIDERS,
    Flights,
    attack_masks,
    mates,
    mates_in_one,
    uses_bitsets,
)
from kernel.mates.proofnumber import key_after
from kernel.mates.search import Budget

#: Positions the table keeps, and the moves their lines may hold in all (about 100 MB).
TABLE_ENTRIES = 500_000
TABLE_MOVES = 2_000_000

#: The fewest moves of the mated side's other pieces for which `king_must_move` is asked.
KING_MUST_MOVE_FROM = 12

Line = tuple[Move, ...]


class TooManySolutions(Exception):
    """More solutions than the limit; `found` says how many were counted when it stopped."""

    def __init__(self, limit: int, found: int) -> None:
        super().__init__(f"more than {limit} solutions (search.max_solutions): stopped at {found}")
        self.limit = limit
        self.found = found


class HelpmateSearch:
    """List the lines of a helpmate in N, with one table for every question asked."""

    def __init__(
        self,
        budget: Budget,
        limit: int,
        table_entries: int = TABLE_ENTRIES,
        compiled: bool = True,
    ) -> None:
        self.budget = budget
        self.limit = limit
        self.table_entries = table_entries
        #: The same search compiled (kernel/core/helpmate.c), when it was built and is wanted.
        self.core = HelpmateCore(table_entries) if compiled and COMPILED else None
        #: (position key, plies left) packed in one int -> the lines that finish from there.
        self.table: dict[int, tuple[Line, ...]] = {}
        self.table_moves = 0
        #: Position key (the mating side to move) -> whether it has a mate in one.
        self.mates_known: dict[int, bool] = {}

    def solutions(self, position: Position, moves: int) -> list[Line]:
        """Return every line of 2 * `moves` plies that ends with the side to move mated."""
        if position.kings[position.side] == NO_POINT:
            return []  # a side without a king is never mated
        if self.core is not None and core_takes(position):
            return self.compiled_solutions(self.core, position, moves)
        return list(self.lines(position, 2 * moves))

    def compiled_solutions(self, core: Any, position: Position, moves: int) -> list[Line]:
        """Ask the compiled search (kernel/core/helpmate.c) for every line."""
        budget = self.budget
        found = core.solutions(
            position.size,
            core_pieces(position),
            position.side,
            moves,
            self.limit,
            budget.spend,
            budget.limit - budget.nodes,
            core_rules(position.variant),
        )
        if isinstance(found, int):
            raise TooManySolutions(self.limit, found)
        return [
            tuple(
                Move(
                    CODE_LETTERS[piece],
                    origin,
                    target,
                    CODE_LETTERS[captured] if captured else EMPTY,
                    CODE_LETTERS[promotion] if promotion else EMPTY,
                )
                for origin, target, piece, captured, promotion in line
            )
            for line in found
        ]

    def lines(self, position: Position, plies: int) -> tuple[Line, ...]:
        """Return the lines of `plies` moves from here after which the side that is to move
        when `plies` is even (the mated side) is checkmated."""
        slot = position.key * 512 + plies
        known = self.table.get(slot)
        if known is not None:
            return known
        if plies == 1:
            found: tuple[Line, ...] = tuple((move,) for move in self.mating_moves(position))
        elif plies == 2:
            found = self.last_two(position)
        else:
            found = self.deeper(position, plies)
        if len(found) > self.limit:
            raise TooManySolutions(self.limit, len(found))
        self.keep(slot, found, plies)
        return found

    def deeper(self, position: Position, plies: int) -> tuple[Line, ...]:
        """Play each legal move and gather the lines that finish after it."""
        moves = list(Analysis(position).legal_moves())
        self.budget.spend(len(moves))
        found: list[Line] = []
        table = self.table
        for move in moves:
            rest = table.get(key_after(position, move) * 512 + plies - 1)
            if rest is None:  # not known yet: played and searched
                position.play(move)
                try:
                    rest = self.lines(position, plies - 1)
                finally:
                    position.undo(move)
            found.extend((move, *line) for line in rest)
            if len(found) > self.limit:
                raise TooManySolutions(self.limit, len(found))
        return tuple(found)

    def last_two(self, position: Position) -> tuple[Line, ...]:
        """The mated side's last move, each kept only when a mate in one follows it; only
        its king's steps when the flights rule out every other move (`king_must_move`)."""
        moves = list(Analysis(position).legal_moves())
        self.budget.spend(len(moves))
        king = position.kings[position.side]
        # The question costs about as much as a few mates in one: asked where it may save many.
        others = sum(move.origin != king for move in moves)
        if others >= KING_MUST_MOVE_FROM and king_must_move(position):
            moves = [move for move in moves if move.origin == king]
        found: list[Line] = []
        known = self.mates_known
        for move in moves:
            # The same position comes after other lines' last moves: three times each, in the
            # bench's helpmates. Its verdict is kept, and asked before the move is played.
            after = key_after(position, move)
            if known.get(after) is False:
                continue
            position.play(move)
            try:
                mated = known.get(after)
                if mated is None:
                    mated, asked = mates_in_one(position)
                    self.budget.spend(len(position.pieces[position.side]) + asked)
                    if len(known) >= TABLE_ENTRIES:
                        known.clear()
                    known[after] = mated
                if mated:
                    found.extend((move, mate) for mate in self.mating_moves(position))
            finally:
                position.undo(move)
            if len(found) > self.limit:
                raise TooManySolutions(self.limit, len(found))
        return tuple(found)

    def mating_moves(self, position: Position) -> list[Move]:
        """List the moves of the side to move that checkmate: checks that take every flight."""
        if position.kings[position.enemy] == NO_POINT:
            return []
        checks = Analysis(position).checking_moves()
        self.budget.spend(len(checks))
        if not checks:
            return []
        flights = Flights.of(position)
        return [check for check in checks if not flights.left_by(check) and mates(position, check)]

    def keep(self, slot: int, found: tuple[Line, ...], plies: int) -> None:
        """Keep a position's lines, starting the table afresh when it is full."""
        size = len(found) * plies
        if len(self.table) >= self.table_entries or self.table_moves + size > TABLE_MOVES:
            self.table.clear()
            self.table_moves = 0
        self.table[slot] = found
        self.table_moves += size


def king_must_move(position: Position) -> bool:
    """Tell whether no move of the side to move but its king's can be followed by a mate in
    one: its king staying where it stands, the other side's one move cannot take its flights.

    A flight free now (no piece of its own on it, no enemy guarding it, the king lifted) can
    be taken after a move of one of its other pieces and the enemy's answer only by that piece
    standing on it (one flight at most), by an enemy line opened through the cell that piece
    left, or by the enemy's moved piece from its target or a line opened through the cell it
    left. So when, by the attack bitsets of kernel/mates/mateinone.py, no enemy piece could guard
    all the flights that no such opened line reaches but one, from any one cell, only the
    king's steps are left to try. False when it cannot be told quickly (boards larger than the
    bitsets); the relaxations only ever add ways to mate, so the answer is never a wrong yes.
    """
    side = position.side
    enemy = 1 - side
    king = position.kings[side]
    if king == NO_POINT or not uses_bitsets(position):
        return False
    cells = position.cells
    own = SIDE_LETTERS[side]
    flights: list[tuple[int, list[range]]] = []
    for step in position.offsets.queen:
        cell = king + step
        piece = cells[cell]
        if piece == WALL or piece in own or is_attacked(position, cell, enemy, king):
            continue
        lines = enemy_lines_to(position, cell, enemy)
        # A line of the enemy that a piece of the side to move (not its king) stands on may
        # open when it leaves.
        if not any(cells[point] in own and point != king for line in lines for point in line):
            flights.append((cell, lines))
    if len(flights) < 2:
        return False
    masks = attack_masks(position.size)
    for origin, letter in position.pieces[enemy].items():
        table = masks[letter]
        needed = [cell for cell, lines in flights if not any(origin in line for line in lines)]
        if len(needed) < 2:
            return False
        for spared in range(len(needed) + 1):
            targets = table[origin]
            for index, cell in enumerate(needed):
                if index != spared:
                    targets &= table[cell]
            if targets:
                return False  # this piece might take all those flights but one
    return True


def enemy_lines_to(position: Position, cell: int, enemy: int) -> list[range]:
    """List the cells between `cell` and each slider of `enemy` whose line runs to it on an
    empty board, whatever stands between."""
    attacks = position.offsets.attacks
    compact = position.offsets.compact
    lines = []
    for point, letter in position.pieces[enemy].items():
        if letter in SLIDERS:
            attack = attacks.get(compact[cell] - compact[point])
            if attack is not None and attack.step and letter in attack.letters:
                lines.append(range(point + attack.step, cell, attack.step))
    return lines
