"""Searches over positions: the node budget every search counts against, and perft.

Every search plays and takes back moves on the one position it is given and leaves it as it
was, counts the positions it generates against one `Budget` (`search.max_nodes`), and holds
its memory to a bound whatever the board's size: perft keeps nothing but its path, and each
position of the path its move generator, not a list of its moves; the mate searches
(kernel/mates/proofnumber.py) keep their path and a table of bounded size.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from kernel.cube.position import Position
from kernel.cube.rules import Analysis
from kernel.interrupt import COMMAND, SearchStopped

#: Called now and then during a long search: the depth asked, positions so far, seconds so far.
Progress = Callable[[int, int, float], None]

#: How often (in positions) a search looks at the clock.
CLOCK_EVERY = 4096
#: A search reports progress once it has run this long, then at this interval.
PROGRESS_AFTER = 1.0
#: The deepest perft: a deeper recursion would outgrow Python's stack long before any budget
#: ends it, and no position needs it.
MAX_PERFT_DEPTH = 100
#: The longest mate asked for: no position needs more, and the mate search's table keeps
#: depths in 7 bits (the search itself loops over its path, whatever the length).
MAX_MATE_MOVES = 100


class SearchLimitReached(Exception):
    """A search would visit more positions than allowed; `nodes` says how many it had.

    A limit smaller than the first positions a search counts at once (the moves of the
    position searched) stops it before it has counted any: "after 0 positions" alone would
    read as a search that never started, so the message then says the limit and the count.
    """

    def __init__(self, nodes: int, limit: int = 0, asked: int = 0) -> None:
        message = f"search limit reached after {nodes} positions"
        if nodes == 0 and asked:
            message += f" (its first step would count {asked}; search.max_nodes is {limit})"
        super().__init__(message)
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
            raise SearchLimitReached(self.nodes, self.limit, count)
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
    # Counted first, then generated one by one as they are played: a list of the moves at
    # each ply of the path held 73,502 moves a ply for 250 queens at n = 64, and 630 MB.
    budget.spend(analysis.count_legal_moves())
    total = 0
    for move in analysis.legal_moves():
        position.play(move)
        try:
            total += perft(position, depth - 1, budget)
        finally:
            position.undo(move)
    return total
