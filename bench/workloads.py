"""The positions every benchmark measures: the ten reference cases and seeded random boards.

The random boards come from tests.positions, the generator the test suite uses, so the
benchmarks and the tests look at the same kind of positions.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from tests.cases import REFERENCE_CASES
from tests.positions import random_position

#: One seed for every workload, so two runs measure the same boards.
SEED = 20240601


@dataclass(frozen=True, slots=True)
class Workload:
    """A named list of positions, each sent as `set_board N BOARD` then the lines asked (by
    default `checkmate`), after the preamble's lines (such as `variant raumschach`)."""

    name: str
    label: str
    positions: tuple[str, ...]
    #: The known answers, when there are any (the reference cases), in position order.
    expected: tuple[bool, ...] | None = None
    #: What is asked of each position once it is set.
    asks: tuple[str, ...] = ("checkmate",)
    #: Lines sent once before the first position, answered before the clock starts.
    preamble: tuple[str, ...] = ()

    @property
    def per_position(self) -> int:
        """How many lines, and so responses, each position takes."""
        return 1 + len(self.asks)

    def lines(self, index: int) -> bytes:
        """Return the protocol lines for one position."""
        board = self.positions[index]
        return "".join(f"{line}\n" for line in (f"set_board {board}", *self.asks)).encode()

    def payload(self) -> bytes:
        """Return the protocol lines for every position, in order."""
        return b"".join(self.lines(index) for index in range(len(self.positions)))

    def preamble_lines(self) -> bytes:
        """Return the preamble's lines."""
        return "".join(f"{line}\n" for line in self.preamble).encode()


def reference_cases(count: int) -> Workload:
    """Cycle the ten reference cases until there are `count` positions."""
    cases = [REFERENCE_CASES[index % len(REFERENCE_CASES)] for index in range(count)]
    return Workload(
        "reference",
        "ten reference cases, cycled",
        tuple(case.board for case in cases),
        tuple(case.mated for case in cases),
    )


def random_boards(seed: int, size: int, count: int, pieces: int | None = None) -> tuple[str, ...]:
    """Generate `count` valid positions of one size from their own seeded generator."""
    # A generator per workload keeps each workload's boards the same whatever else runs.
    rng = random.Random(f"{seed}-{size}-{pieces}")
    return tuple(random_position(rng, size, pieces) for _ in range(count))


def crowded_8(count: int) -> Workload:
    """Make n = 8 positions with half the cells occupied."""
    size = 8
    pieces = size**3 // 2
    label = f"crowded n = 8 ({pieces} pieces)"
    return Workload("crowded8", label, random_boards(SEED, size, count, pieces))


def mixed_16(count: int) -> Workload:
    """Make n = 16 positions of every scenario the generator knows (mates, stalemates, pins)."""
    return Workload("mixed16", "mixed n = 16", random_boards(SEED, 16, count))


#: The piece count of the large-board latency workload.
LARGE_PIECES = 300


def large_64(count: int) -> Workload:
    """Make n = 64 positions with 300 pieces: the latency workload."""
    label = f"n = 64, {LARGE_PIECES} pieces"
    return Workload("large64", label, random_boards(SEED, 64, count, LARGE_PIECES))
