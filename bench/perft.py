"""Perft through the engine process, side by side with python-chess's perft on Kiwipete.

python-chess is the best-known pure-Python move generator (bitboards); its perft counts the
last ply with `legal_moves.count()`, as cubemate's does. Both figures are leaves per second
in the same run on the same machine, so their ratio is comparable where absolute figures are
not. python-chess is a bench-only dependency (`pip install -e '.[bench]'`).
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, replace

from bench.peer import Peer

#: Kiwipete, the standard perft position of chess programming, and its published count.
KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
KIWIPETE_DEPTH_3 = 97862


@dataclass(frozen=True, slots=True)
class PerftCase:
    """A 3D position, its side to move and the depth to count."""

    name: str
    board: str
    side: str
    depth: int


#: Fixed positions of several sizes and both sides; their counts are in tests/perft_table.py.
CASES = (
    PerftCase(
        "n=3 rules.md mate-in-2 example, black",
        "[###,#k#,#b#],[##b,###,###],[r##,##K,###]",
        "b",
        4,
    ),
    PerftCase(
        "n=4 queens and a rook, white",
        "[####,####,####,#k##],[####,##q#,####,####],[####,####,#R##,####],[####,#Q##,####,###K]",
        "w",
        3,
    ),
    PerftCase(
        "n=5 queen and bishop each, black",
        "[#####,##k##,#####,#b###,#####],[#####,#####,#q###,#####,#####],"
        "[#####,#####,#####,#####,#####],[#####,#B###,#####,#####,#####],"
        "[#####,#####,#Q###,#####,####K]",
        "b",
        3,
    ),
    PerftCase(
        "n=5 minor pieces and rooks, white",
        "[#####,#r#k#,#####,#b###,#n###],[#####,#####,#####,#####,#####],"
        "[#####,##R##,#####,#####,#####],[#####,#B###,#####,#N###,#####],"
        "[#####,#####,#####,#####,####K]",
        "w",
        3,
    ),
)


def shallower(plies: int) -> tuple[PerftCase, ...]:
    """The cases, each counted `plies` fewer deep (at least 1)."""
    return tuple(replace(case, depth=max(1, case.depth - plies)) for case in CASES)


@dataclass(frozen=True, slots=True)
class PerftTiming:
    """One perft run: what was counted, the count, and how long it took."""

    name: str
    depth: int
    leaves: int
    seconds: float

    @property
    def rate(self) -> float:
        """Leaves per second."""
        return self.leaves / self.seconds


def engine_perft(cases: tuple[PerftCase, ...] = CASES, repeats: int = 3) -> list[PerftTiming]:
    """Time `perft` through one engine process, best of `repeats`, for each case."""
    timings = []
    with Peer("engine") as peer:
        peer.ask(b"protocol_version\n", 1)
        for case in cases:
            reply = peer.ask(f"set_board {case.board} {case.side}\n".encode(), 1)[0]
            if reply != b"= ":
                raise RuntimeError(f"set_board refused {case.name}: {reply!r}")
            best = float("inf")
            leaves = 0
            for _ in range(repeats):
                start = time.perf_counter()
                answer = peer.ask(f"perft {case.depth}\n".encode(), 1)[0]
                best = min(best, time.perf_counter() - start)
                if not answer.startswith(b"= "):
                    raise RuntimeError(f"perft refused {case.name}: {answer!r}")
                leaves = int(answer[2:])
            timings.append(PerftTiming(case.name, case.depth, leaves, best))
    return timings


def python_chess_perft(repeats: int = 3) -> PerftTiming | None:
    """Time python-chess's perft of Kiwipete at depth 3, or None when it is not installed."""
    try:
        import chess
    except ImportError:
        return None

    def perft(board: chess.Board, depth: int) -> int:
        if depth == 1:
            return int(board.legal_moves.count())  # Any when python-chess is not installed
        count = 0
        for move in board.legal_moves:
            board.push(move)
            count += perft(board, depth - 1)
            board.pop()
        return count

    best = float("inf")
    for _ in range(repeats):
        board = chess.Board(KIWIPETE)
        start = time.perf_counter()
        leaves = perft(board, 3)
        best = min(best, time.perf_counter() - start)
        if leaves != KIWIPETE_DEPTH_3:
            raise RuntimeError(f"python-chess counted {leaves} on Kiwipete, not 97862")
    return PerftTiming("python-chess, Kiwipete (8x8)", 3, KIWIPETE_DEPTH_3, best)


def section(
    timings: list[PerftTiming], peer: PerftTiming | None, repeats: int
) -> tuple[str, float | None]:
    """Write the perft table of timings, each the best of `repeats`; return it and the ratio
    of cubemate's median rate to the peer's."""
    lines = [
        f"perft: leaves per second, best of {repeats}; cubemate through the process (bulk count "
        "at the",
        "last ply), python-chess in process on Kiwipete",
        f"  {'position':<44} {'depth':>5} {'leaves':>10} {'seconds':>8} {'leaves/s':>10}",
    ]
    for timing in [*timings, *([peer] if peer else [])]:
        lines.append(
            f"  {timing.name:<44} {timing.depth:>5} {timing.leaves:>10,} "
            f"{timing.seconds:>8.3f} {timing.rate:>10,.0f}"
        )
    median = statistics.median(timing.rate for timing in timings)
    if peer is None:
        lines.append("  python-chess is not installed: pip install -e '.[bench]' to compare")
        return "\n".join(lines), None
    ratio = median / peer.rate
    lines.append(f"  cubemate's median rate / python-chess's: {ratio:.2f}x")
    return "\n".join(lines), ratio
