"""Selfmate in N: the side to move forces the other side to checkmate it within N of its moves.

The side to move (the selfmater, S) plays; the other side (O) must answer, and every answer
either checkmates S, which ends that line in success, or leaves S a move that forces the same
with one move fewer. A move of S after which O has no move (mate or stalemate) fails, so the
key of a selfmate never mates nor stalemates, and neither does any later move of S; an answer
that stalemates S fails too, as S then has no move. "Within N" is monotone as in the direct
mate: a selfmate in k is one in every N >= k, and `keys` lists the shorter ones too.

It is an AND/OR search like the direct mate's (kernel/mates/proofnumber.py), with the goal at the
leaves turned round: S's nodes are OR, O's are AND, and a leaf is proved when O's move mates
S. It searches depth first with a table: per position (its key holds the side to move) the
least number of moves it is proved in and the most it is disproved in, as the df-pn table
keeps them, bounded in size and started afresh when full. A refutation of O (the answer that
last defeated one of S's moves) is tried first at its depth, as a killer.

What makes it fast is S's last move. After it every move of O must mate, so every move of O
must give check, and the first legal move of O that gives none refutes: O's king's steps
come first, one question each (`defences`), and most tries of S fall there at once. Before
S's last moves are even generated, the flights of O's king are asked (`keeps_a_flight`): a
cell next to O's king that S does not guard now can only be guarded after S's move by the
moved piece from where it lands, or by a line of S that ran through the cell it left; when,
by the attack bitsets of kernel/mates/mateinone.py, no piece of S could guard every such flight
from one cell, O keeps a king's step, which gives no check (no slider of O has O's king on
its line, or the step could uncover one), and S has no last move at all.
"""

from __future__ import annotations

from kernel.cube.board import SIDE_LETTERS, WALL
from kernel.cube.position import NO_POINT, Move, Position
from kernel.cube.rules import Analysis, is_attacked
from kernel.mates.mateinone import SLIDERS, attack_masks, gives_check, lines_through, uses_bitsets
from kernel.mates.proofnumber import defences, king_step_is_legal
from kernel.mates.search import Budget

#: Positions the table keeps (two small ints each): about 100 bytes each, 100 MB when full.
TABLE_ENTRIES = 1_000_000


class SelfmateSearch:
    """Find the moves that force a selfmate in N, with one table for every question asked."""

    def __init__(self, budget: Budget, table_entries: int = TABLE_ENTRIES) -> None:
        self.budget = budget
        self.table_entries = table_entries
        #: Position key -> the fewest moves it is proved in; and the most it is disproved in.
        self.proved: dict[int, int] = {}
        self.disproved: dict[int, int] = {}
        #: The answer of O that last refuted a move of S, by S's moves left after it.
        self.killers: dict[int, Move] = {}

    # --- the questions ---------------------------------------------------------------------

    def keys(self, position: Position, moves: int) -> list[Move]:
        """Return every move of the side to move that forces a selfmate in `moves` or fewer."""
        if position.kings[position.side] == NO_POINT:
            return []  # a side without a king is never mated
        candidates = list(Analysis(position).legal_moves())
        self.budget.spend(len(candidates))
        return [move for move in candidates if self.forces_after(position, move, moves)]

    def shortest(self, position: Position, moves: int) -> tuple[list[Move], int]:
        """Return the keys of the shortest selfmate within `moves`, and its length; ([], 0)."""
        for depth in range(1, moves + 1):
            keys = self.keys(position, depth)
            if keys:
                return keys, depth
        return [], 0

    def forces_after(self, position: Position, move: Move, moves: int) -> bool:
        """Play a move of S, tell whether it forces a selfmate in `moves`, take it back."""
        position.play(move)
        try:
            return self.every_answer_mates(position, moves)
        finally:
            position.undo(move)

    # --- the search ------------------------------------------------------------------------

    def wins(self, position: Position, moves: int) -> bool:
        """Tell whether S, to move, forces a selfmate in `moves` (>= 1) or fewer."""
        key = position.key
        proved = self.proved.get(key)
        if proved is not None and proved <= moves:
            return True
        disproved = self.disproved.get(key)
        if disproved is not None and disproved >= moves:
            return False
        won = self.search(position, moves)
        table = self.proved if won else self.disproved
        if len(table) >= self.table_entries:
            table.clear()
        table[key] = moves
        return won

    def search(self, position: Position, moves: int) -> bool:
        """Try each move of S, unless its last move is ruled out by O's flights."""
        if moves == 1 and keeps_a_flight(position):
            self.budget.spend()
            return False
        candidates = list(Analysis(position).legal_moves())
        self.budget.spend(len(candidates))
        return any(self.forces_after(position, move, moves) for move in candidates)

    def every_answer_mates(self, position: Position, moves: int) -> bool:
        """O to move: tell whether O has a move and each one mates S, or (with moves to spare)
        leaves S a selfmate in one move fewer."""
        if moves == 1:
            return self.every_answer_mates_now(position)
        answers = list(Analysis(position).legal_moves())
        if not answers:
            return False  # S mated or stalemated O: no key
        self.budget.spend(len(answers))
        killer = self.killers.get(moves)
        if killer is not None and killer in answers:
            answers.remove(killer)
            answers.insert(0, killer)
        for answer in answers:
            position.play(answer)
            try:
                analysis = Analysis(position)
                if analysis.in_check and not analysis.has_legal_move():
                    continue  # O mated S: this line is done
                if not self.wins(position, moves - 1):
                    self.killers[moves] = answer
                    return False
            finally:
                position.undo(answer)
        return True

    def every_answer_mates_now(self, position: Position) -> bool:
        """O to move after S's last move: tell whether O has a move and every one mates S.

        The answer that refuted the last such try is asked first, when it is a king's step
        still legal here (one question); then the king's steps one at a time, then the rest.
        A move that gives no check refutes without being played.
        """
        killer = self.killers.get(1)
        tried = None
        if killer is not None and king_step_is_legal(position, killer):
            self.budget.spend()
            if not self.mates(position, killer):
                return False
            tried = killer
        analysis = Analysis(position)
        answered = tried is not None
        for answer in defences(analysis):
            answered = True
            if answer == tried:
                continue
            self.budget.spend()
            if not self.mates(position, answer):
                self.killers[1] = answer
                return False
        return answered

    def mates(self, position: Position, move: Move) -> bool:
        """Tell whether O's move checkmates S: a check first, then played and asked."""
        if not gives_check(position, move):
            return False
        position.play(move)
        try:
            return Analysis(position).is_checkmate()
        finally:
            position.undo(move)


def keeps_a_flight(position: Position) -> bool:
    """Tell whether O's king surely keeps a step that gives no check, whatever S plays now.

    S is to move. False when it cannot be told quickly: O without a king, boards larger than
    the bitsets, a slider of O with O's king on its line (a step could uncover a check), or
    every flight guarded already. The module docstring says why the answer is never a wrong
    yes.
    """
    side = position.side
    enemy = 1 - side
    king = position.kings[enemy]
    if king == NO_POINT or not uses_bitsets(position):
        return False
    offsets = position.offsets
    compact = offsets.compact
    for origin, letter in position.pieces[enemy].items():
        if letter.upper() in SLIDERS and origin != king:
            attack = offsets.attacks.get(compact[king] - compact[origin])
            if attack is not None and attack.step and letter in attack.letters:
                return False
    cells = position.cells
    theirs = SIDE_LETTERS[enemy]
    flights = []
    for step in offsets.queen:
        cell = king + step
        piece = cells[cell]
        if piece != WALL and piece not in theirs and not is_attacked(position, cell, side, king):
            flights.append(cell)
    if not flights:
        return False
    masks = attack_masks(position.size)
    sliding = any(letter in SLIDERS for letter in position.pieces[side].values())
    for origin, letter in position.pieces[side].items():
        table = masks[letter]
        targets = table[origin]
        opens = lines_through(position, origin) if sliding else 0
        for flight in flights:
            if not opens >> flight & 1:
                targets &= table[flight]
                if not targets:
                    break
        if targets:
            return False  # this piece might guard every flight from one cell
    return True
