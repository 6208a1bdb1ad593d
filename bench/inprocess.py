"""In-process timings: set_board + checkmate without pipes or logs, against the brute force."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from bench.workloads import SEED, random_boards
from kernel.config import EngineConfig
from kernel.cube.position import Position
from kernel.cube.rules import Analysis
from kernel.kernel import Kernel
from tests import reference


@dataclass(frozen=True, slots=True)
class Row:
    """One line of the in-process table: a board size and, optionally, a forced piece count."""

    size: int
    pieces: int | None = None
    #: Whether the brute force runs in a --quick run (it takes seconds on some rows).
    reference_when_quick: bool = True

    @property
    def label(self) -> str:
        return str(self.size) if self.pieces is None else f"{self.size} ({self.pieces} pieces)"


ROWS: tuple[Row, ...] = (
    *(Row(size) for size in (2, 3, 4, 6, 8, 12, 16, 32, 64)),
    Row(8, 8**3 // 2),
    Row(64, 300, reference_when_quick=False),
)


@dataclass(frozen=True, slots=True)
class Timing:
    """What one row measured; times in seconds, medians over the row's positions."""

    row: Row
    positions: int
    pieces: float
    #: Kernel.execute of set_board then checkmate: the whole in-process cost of a position.
    kernel: float
    #: Analysis(board).is_checkmate() alone, on a board already built.
    checkmate: float
    mates: int
    reference: float | None
    reference_positions: int
    #: The median over positions of brute-force time / checkmate time.
    speedup: float | None


def best_of(repeats: int, call: Callable[[], object]) -> float:
    """Time a call several times and keep the fastest, the one least disturbed by others."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - start)
    return best


def set_and_decide(kernel: Kernel, board: str) -> None:
    """Set a position and ask `checkmate`, as the process does for one position."""
    kernel.execute("set_board", [board])
    kernel.execute("checkmate", [])


def decide(board: Position) -> bool:
    """Answer `checkmate` on a prepared board, as the kernel's handler does."""
    return Analysis(board).is_checkmate()


def count_pieces(board: str) -> int:
    """Count the pieces in canonical notation."""
    return sum(1 for letter in board if letter.isalpha())


def measure_row(row: Row, count: int, repeats: int, reference_budget: float) -> Timing:
    """Time set_board + checkmate, checkmate alone and, within its budget, the brute force."""
    boards = random_boards(SEED, row.size, count, row.pieces)
    kernel = Kernel(EngineConfig(max_board_size=max(64, row.size)))
    kernel_times: list[float] = []
    mate_times: list[float] = []
    speedups: list[float] = []
    reference_times: list[float] = []
    mates = 0
    spent = 0.0
    for board in boards:
        reply = kernel.execute("set_board", [board])
        if not reply.ok:
            raise RuntimeError(f"set_board refused a generated board: {reply.text}")
        kernel_times.append(best_of(repeats, partial(set_and_decide, kernel, board)))
        prepared = kernel.position
        mate_time = best_of(repeats, partial(decide, prepared))
        mate_times.append(mate_time)
        mate = decide(prepared)
        mates += mate
        if spent < reference_budget:
            position = reference.parse_board(board)
            start = time.perf_counter()
            answer = reference.is_checkmate(position)
            elapsed = time.perf_counter() - start
            spent += elapsed
            if answer != mate:
                raise RuntimeError(f"engine and brute force disagree on {board[:200]}")
            reference_times.append(elapsed)
            speedups.append(elapsed / mate_time)
    return Timing(
        row=row,
        positions=len(boards),
        pieces=statistics.median(count_pieces(board) for board in boards),
        kernel=statistics.median(kernel_times),
        checkmate=statistics.median(mate_times),
        mates=mates,
        reference=statistics.median(reference_times) if reference_times else None,
        reference_positions=len(reference_times),
        speedup=statistics.median(speedups) if speedups else None,
    )


def measure(count: int, repeats: int, reference_budget: float, quick: bool) -> list[Timing]:
    """Time every row of the in-process table."""
    return [
        measure_row(
            row,
            count,
            repeats,
            reference_budget if row.reference_when_quick or not quick else 0.0,
        )
        for row in ROWS
    ]
