"""What the engine thinks while it searches: its stderr lines, kept for the page to poll.

With ``[play] thinking = "always"`` the engine writes each finished depth of a ``genmove`` or
``reg_genmove`` search on stderr as one line (docs/search.md, "What it reports"):

    depth 4 score +0.37 nodes 97327 nps 39950 time 2.44 pv Qc2(I)-c2(II) qc4(V)-c4(IV)

A fixed depth that a limit stopped before it was searched in full adds one line of its own
(kernel/play/player.py, `Cut`), which the page shows under the last depth:

    depth 6 cut: search.max_nodes (5000000 positions) reached after 5000001 positions; ...

The client layer hands every stderr line to ``ThinkingFeed.take`` on its reader thread; the
server marks where a search begins and ends, and ``GET /thinking`` serves ``snapshot()``. None of
this touches the engine lock, so the page can read the thinking while the search holds it.
"""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass
from typing import Any

#: One finished depth; the score is pawns (`+0.37`) or a mate in moves (`mate 3`, `mate -2`).
THINKING_LINE = re.compile(
    r"depth (?P<depth>\d+) score (?:mate (?P<mate>-?\d+)|(?P<pawns>[+-]?\d+\.\d+)) "
    r"nodes (?P<nodes>\d+) nps (?P<nps>\d+) time (?P<time>\d+\.\d+) pv ?(?P<pv>.*)"
)
#: A fixed depth cut short: the depth asked, then why and what is played instead.
CUT_LINE = re.compile(r"depth (?P<depth>\d+) cut: (?P<why>.+)")
#: The longest reason kept from a cut line (the engine's are about 130 characters).
MAX_CUT_TEXT = 300
#: Depths kept for one search: the search stops at depth 64, a line is a few hundred bytes.
MAX_DEPTHS = 128


@dataclass(frozen=True)
class Depth:
    """One finished depth of a search, as the engine reported it."""

    depth: int
    #: The score in centipawns for the side to move, or None when it is a mate.
    score_cp: int | None
    #: Moves to a mate: positive when the side to move mates, negative when it is mated.
    mate: int | None
    nodes: int
    nps: int
    seconds: float
    pv: tuple[str, ...]

    def as_json(self) -> dict[str, Any]:
        """Describe the depth for the page."""
        return {
            "depth": self.depth,
            "score_cp": self.score_cp,
            "mate": self.mate,
            "nodes": self.nodes,
            "nps": self.nps,
            "time": self.seconds,
            "pv": list(self.pv),
        }


def parse_thinking(line: str) -> Depth | None:
    """Read one thinking line; None when the line is something else."""
    match = THINKING_LINE.fullmatch(line.strip())
    if match is None:
        return None
    mate = match.group("mate")
    pawns = match.group("pawns")
    return Depth(
        depth=int(match.group("depth")),
        score_cp=None if pawns is None else round(float(pawns) * 100),
        mate=None if mate is None else int(mate),
        nodes=int(match.group("nodes")),
        nps=int(match.group("nps")),
        seconds=float(match.group("time")),
        pv=tuple(match.group("pv").split()),
    )


class ThinkingFeed:
    """The depths of the latest search, shared by the stderr reader and the HTTP workers."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._search = 0
        self._command = ""
        self._running = False
        self._started = 0.0
        self._seconds = 0.0
        self._depths: list[Depth] = []
        self._cut: dict[str, Any] | None = None

    def begin(self, command: str) -> int:
        """Start a new search (its lines replace the last one's); return its number."""
        with self._lock:
            self._search += 1
            self._command = command
            self._running = True
            self._started = time.monotonic()
            self._seconds = 0.0
            self._depths = []
            self._cut = None
            return self._search

    def end(self, search: int) -> None:
        """Mark search number ``search`` finished (a later one is left running)."""
        with self._lock:
            if search == self._search and self._running:
                self._running = False
                self._seconds = time.monotonic() - self._started

    def take(self, line: str) -> bool:
        """Keep ``line`` if it is a thinking line; return whether it was one."""
        depth = parse_thinking(line)
        if depth is None:
            cut = CUT_LINE.fullmatch(line.strip())
            if cut is None:
                return False
            with self._lock:
                self._cut = {"depth": int(cut.group("depth")), "why": cut["why"][:MAX_CUT_TEXT]}
            return True
        with self._lock:
            if len(self._depths) < MAX_DEPTHS:
                self._depths.append(depth)
        return True

    def snapshot(self) -> dict[str, Any]:
        """Describe the latest search for the page: its number, command, whether it still
        runs, how long it has run, every depth it finished so far, and `cut`: null, or the
        fixed depth asked and why it was not searched in full."""
        with self._lock:
            running = self._running
            seconds = time.monotonic() - self._started if running else self._seconds
            return {
                "search": self._search,
                "command": self._command,
                "running": running,
                "seconds": round(seconds, 3) if self._search else 0.0,
                "depths": [depth.as_json() for depth in self._depths],
                "cut": self._cut,
            }
