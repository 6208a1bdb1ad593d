"""The AND/OR mate search the engine used before df-pn: the simple reference for mate in N.

Kept as it was (kernel/mates/search.py before kernel/mates/proofnumber.py took its place), for
the tests to hold the proof-number search to it at depths the brute force of tests/reference.py
cannot reach, and for bench/mate.py to time against. At an attacker's node (OR) one move that mates
is enough; at a defender's node (AND) every defence must lose, and the first that does not
refutes the attacker's move at once. The attacker tries checks first; with one move left only
checks. A table keyed by (position key, moves left) remembers verdicts, bounded in size and
started afresh when full. It exposes what kernel/mates/solution.py asks of a mate search (`keys`,
`mating_answers`), so a solution can be written with either.
"""

from __future__ import annotations

from kernel.cube.board import EMPTY
from kernel.cube.position import Move, Position
from kernel.cube.rules import Analysis
from kernel.mates.search import MAX_MATE_MOVES, Budget

#: Verdicts the search keeps: about 150 bytes each, so at most about 150 MB.
TABLE_ENTRIES = 1_000_000


class MateSearch:
    """Find the moves that mate in N for the side to move, with a shared transposition table."""

    def __init__(self, budget: Budget, table_entries: int = TABLE_ENTRIES) -> None:
        self.budget = budget
        #: (position key, moves left) packed in one int -> whether the attacker wins from there.
        self.table: dict[int, bool] = {}
        self.table_entries = table_entries
        #: The defence that last refuted an attacker's move, by moves left.
        self.killers: dict[int, Move] = {}

    def keys(self, position: Position, moves: int) -> list[Move]:
        """Return every move of the side to move that mates in `moves` or fewer."""
        candidates = self.attacking_moves(Analysis(position), moves)
        return [move for move in candidates if self.mates_after_move(position, move, moves)]

    def mates_after_move(self, position: Position, move: Move, moves: int) -> bool:
        """Play the attacker's move, tell whether it mates in `moves` or fewer, take it back."""
        self.budget.spend()
        position.play(move)
        try:
            return self.mates_after(position, moves)
        finally:
            position.undo(move)

    def attacking_moves(self, analysis: Analysis, moves: int) -> list[Move]:
        """List the attacker's moves worth trying, checks first; with one move left, only checks.

        Checks first, because a mate needs a check at the end and most short mates are checks
        all the way; captures next, because they take away defenders.
        """
        checks = analysis.checking_moves()
        if moves == 1:
            return checks
        checking = {(move.origin, move.target) for move in checks}
        captures: list[Move] = []
        quiet: list[Move] = []
        for move in analysis.legal_moves():
            if (move.origin, move.target) not in checking:
                (quiet if move.captured == EMPTY else captures).append(move)
        return checks + captures + quiet

    def remember(self, position: Position, moves: int, verdict: bool) -> bool:
        """Keep a verdict in the table, starting the table afresh when it is full."""
        if len(self.table) >= self.table_entries:
            self.table.clear()
        self.table[position.key * MAX_MATE_MOVES * 2 + moves] = verdict
        return verdict

    def recall(self, position: Position, moves: int) -> bool | None:
        """Return the verdict kept for this position and number of moves, if any."""
        return self.table.get(position.key * MAX_MATE_MOVES * 2 + moves)

    def attacker_mates(self, position: Position, moves: int) -> bool:
        """Tell whether the side to move (the attacker) mates in `moves` or fewer."""
        known = self.recall(position, moves)
        if known is not None:
            return known
        candidates = self.attacking_moves(Analysis(position), moves)
        return self.remember(
            position,
            moves,
            any(self.mates_after_move(position, move, moves) for move in candidates),
        )

    def mates_after(self, position: Position, moves: int) -> bool:
        """Tell whether the attacker's move that led here mates in `moves` or fewer.

        The defender is to move: mated now; or, with moves to spare, it has a move (stalemate
        is no mate) and after each of its moves the attacker mates in one move fewer.
        """
        # The defender's verdicts sit beside the attacker's: the side to move is in the key.
        known = self.recall(position, moves)
        if known is not None:
            return known
        analysis = Analysis(position)
        if moves == 1:
            verdict = analysis.in_check and not analysis.has_legal_move()
        else:
            defences = list(analysis.legal_moves())
            if not defences:
                verdict = analysis.in_check
            else:
                verdict = self.every_defence_loses(position, defences, moves)
        return self.remember(position, moves, verdict)

    def every_defence_loses(self, position: Position, defences: list[Move], moves: int) -> bool:
        """Tell whether the attacker mates in `moves` - 1 after each defence.

        The defence that last refuted an attacker's move at this depth is tried first: the
        same escape (often a king's step) tends to refute the attacker's other tries too.
        """
        killer = self.killers.get(moves)
        if killer is not None and killer in defences:
            defences.remove(killer)
            defences.insert(0, killer)
        for defence in defences:
            self.budget.spend()
            position.play(defence)
            try:
                mated = self.attacker_mates(position, moves - 1)
            finally:
                position.undo(defence)
            if not mated:
                self.killers[moves] = defence
                return False
        return True

    def mating_answers(self, position: Position, moves: int) -> tuple[list[Move], int]:
        """Return the attacker's moves of the shortest mate within `moves`, and its length.

        ([], 0) when there is none.
        """
        for depth in range(1, moves + 1):
            keys = self.keys(position, depth)
            if keys:
                return keys, depth
        return [], 0
