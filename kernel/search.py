"""Searches over positions: perft, and the AND/OR proof search for mate in N.

Both count the positions they visit against one budget (`search.max_nodes`), and both leave
the position they were given as it was: positions are immutable, so a search never has
anything to restore.

Mate in N is proved by an AND/OR search. At an attacker's node (OR) one move that mates is
enough; at a defender's node (AND) every defence must lose, and the first that does not
refutes the attacker's move at once. The attacker tries checks first; with one move left only
checks can mate, and those are found without playing the others (rules.gives_check). A
transposition table keyed by (cells, side to move, moves left) remembers every verdict, since
different move orders reach the same positions.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from kernel.interrupt import COMMAND, SearchStopped
from kernel.notation import EMPTY, get_move_name
from kernel.position import Move, Position
from kernel.rules import Analysis

#: Called now and then during a long search: the depth asked, positions so far, seconds so far.
Progress = Callable[[int, int, float], None]

#: How often (in positions) a search looks at the clock.
CLOCK_EVERY = 4096
#: A search reports progress once it has run this long, then at this interval.
PROGRESS_AFTER = 1.0


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
    return sum(perft(position.play(move), depth - 1, budget) for move in moves)


class MateSearch:
    """Find the moves that mate in N for the side to move, with a shared transposition table."""

    def __init__(self, budget: Budget) -> None:
        self.budget = budget
        #: (cells, side to move, moves left) -> whether the attacker wins from there.
        self.table: dict[tuple[str, int, int], bool] = {}
        #: The defence that last refuted an attacker's move, by moves left.
        self.killers: dict[int, Move] = {}

    def keys(self, position: Position, moves: int) -> list[Move]:
        """Return every move of the side to move that mates in `moves` or fewer."""
        analysis = Analysis(position)
        candidates = self.attacking_moves(analysis, moves)
        return [move for move in candidates if self.mates_after(self.visit(position, move), moves)]

    def visit(self, position: Position, move: Move) -> Position:
        """Play a move inside the search, counting the position it reaches."""
        self.budget.spend()
        return position.play(move)

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

    def attacker_mates(self, position: Position, moves: int) -> bool:
        """Tell whether the side to move (the attacker) mates in `moves` or fewer."""
        key = (position.cells, position.side, moves)
        known = self.table.get(key)
        if known is None:
            candidates = self.attacking_moves(Analysis(position), moves)
            known = any(self.mates_after(self.visit(position, move), moves) for move in candidates)
            self.table[key] = known
        return known

    def mates_after(self, position: Position, moves: int) -> bool:
        """Tell whether the attacker's move that led here mates in `moves` or fewer.

        The defender is to move: mated now; or, with moves to spare, it has a move (stalemate
        is no mate) and after each of its moves the attacker mates in one move fewer.
        """
        key = (position.cells, position.side, moves)
        known = self.table.get(key)
        if known is not None:
            return known
        analysis = Analysis(position)
        if moves == 1:
            known = analysis.in_check and not analysis.has_legal_move()
        else:
            defences = list(analysis.legal_moves())
            if not defences:
                known = analysis.in_check
            else:
                known = self.every_defence_loses(position, defences, moves)
        self.table[key] = known
        return known

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
            if not self.attacker_mates(self.visit(position, defence), moves - 1):
                self.killers[moves] = defence
                return False
        return True

    def shortest_mate(self, position: Position, moves: int) -> tuple[Move, int] | None:
        """Return the attacker's first move (by name order) of the shortest mate within `moves`."""
        for depth in range(1, moves + 1):
            keys = self.keys(position, depth)
            if keys:
                return min(keys, key=lambda move: get_move_name(position, move)), depth
        return None

    def solution(self, position: Position, moves: int) -> list[str]:
        """Write each key and, under it, each defence with a mating answer, down to the mate."""
        lines: list[str] = []
        keys = sorted(self.keys(position, moves), key=lambda move: get_move_name(position, move))
        for key in keys:
            after = position.play(key)
            tree = self.defences_tree(after, moves, "  ")
            lines.append(get_move_name(position, key) + ("" if tree else " #"))
            lines.extend(tree)
        return lines

    def defences_tree(self, position: Position, moves: int, indent: str) -> list[str]:
        """Write each defence of the position and the attacker's mating answer, recursively.

        Empty when the defender is already mated.
        """
        lines: list[str] = []
        defences = list(Analysis(position).legal_moves())
        for defence in sorted(defences, key=lambda move: get_move_name(position, move)):
            after = position.play(defence)
            found = self.shortest_mate(after, moves - 1)
            if found is None:  # cannot happen under a key; say so rather than hide it
                raise AssertionError("a key's defence has no mating answer")
            answer, depth = found
            mated = depth == 1
            line = f"{indent}{get_move_name(position, defence)} {get_move_name(after, answer)}"
            lines.append(line + (" #" if mated else ""))
            if not mated:
                lines.extend(self.defences_tree(after.play(answer), depth, indent + "  "))
        return lines
