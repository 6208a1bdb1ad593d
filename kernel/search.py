"""Searches over positions: perft, and the AND/OR proof search for mate in N.

Both count the positions they visit against one budget (`search.max_nodes`), both play and
take back moves on the one position they are given and leave it as it was, and both hold
their memory to a bound whatever the board's size: perft keeps nothing but its path, and
the mate search's table keys are the positions' hash keys (a few words each, not a board),
in a table of at most `TABLE_ENTRIES` that starts afresh when full.

Mate in N is proved by an AND/OR search. At an attacker's node (OR) one move that mates is
enough; at a defender's node (AND) every defence must lose, and the first that does not
refutes the attacker's move at once. The attacker tries checks first; with one move left only
checks can mate, and those are found without playing the others (rules.gives_check). A
transposition table keyed by (position key, moves left) remembers verdicts, since different
move orders reach the same positions.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from kernel.board import EMPTY
from kernel.interrupt import COMMAND, SearchStopped
from kernel.position import Move, Position
from kernel.rules import Analysis

#: Called now and then during a long search: the depth asked, positions so far, seconds so far.
Progress = Callable[[int, int, float], None]

#: How often (in positions) a search looks at the clock.
CLOCK_EVERY = 4096
#: A search reports progress once it has run this long, then at this interval.
PROGRESS_AFTER = 1.0
#: The deepest perft and the longest mate asked for: deeper recursions than these would
#: outgrow Python's stack long before any budget ends them, and no position needs them.
MAX_PERFT_DEPTH = 100
MAX_MATE_MOVES = 100
#: Verdicts the mate search keeps: about 150 bytes each, so at most about 150 MB.
TABLE_ENTRIES = 1_000_000


class SearchLimitReached(Exception):
    """A search would visit more positions than allowed; `nodes` says how many it had."""

    def __init__(self, nodes: int) -> None:
        super().__init__(f"search limit reached after {nodes} positions")
        self.nodes = nodes


class Budget:
    """Count the positions a search visits, refuse to go past the limit, report progress."""

    __slots__ = ("depth", "limit", "next_clock", "next_report", "nodes", "progress", "started")

    def __init__(self, limit: int, depth: int = 0, progress: Progress | None = None) -> None:
        self.limit = limit
        self.depth = depth
        self.nodes = 0
        self.progress = progress
        self.started = time.monotonic()
        self.next_clock = CLOCK_EVERY
        self.next_report = PROGRESS_AFTER

    def spend(self, count: int = 1) -> None:
        """Count `count` more positions; raise SearchLimitReached past the limit, and
        SearchStopped when the command was asked to stop."""
        nodes = self.nodes + count
        if nodes > self.limit:
            raise SearchLimitReached(self.nodes)
        self.nodes = nodes
        # A stop asked by a signal (kernel/interrupt.py), looked at on every count: at n = 64
        # the clock's CLOCK_EVERY positions take seconds.
        if COMMAND.stop_requested:
            raise SearchStopped(nodes)
        if nodes >= self.next_clock and self.progress is not None:
            self.next_clock = nodes + CLOCK_EVERY
            elapsed = time.monotonic() - self.started
            if elapsed >= self.next_report:
                self.next_report = elapsed + 0.5
                self.progress(self.depth, nodes, elapsed)


def perft(position: Position, depth: int, budget: Budget) -> int:
    """Count the leaves of the legal move tree `depth` plies deep (perft 0 is 1).

    The last ply is counted, not played: the leaves are the legal moves of the positions one
    ply above them ("bulk counting", as chess engines do it).
    """
    if depth == 0:
        return 1
    analysis = Analysis(position)
    if depth == 1:
        count = analysis.count_legal_moves()
        budget.spend(count)
        return count
    moves = list(analysis.legal_moves())
    budget.spend(len(moves))
    total = 0
    for move in moves:
        position.play(move)
        try:
            total += perft(position, depth - 1, budget)
        finally:
            position.undo(move)
    return total


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
