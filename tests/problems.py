"""Seeded problems for the player: exact mates in N, and positions where most moves allow a
mate in one.

Both are drawn from `tests.positions.mate_problem` (the attacker's pieces crowd round the hunted
king, so mates and mate threats are common) and sorted with the engine's own `mate_in`, which is
quick and which tests/test_mate.py holds to the brute force; whoever uses a problem checks the
player's answer with the brute force of tests/reference.py. The sorting searches are capped, so
that a position whose mate search would be long is passed over rather than waited for.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass
from functools import cache

from kernel.config import EngineConfig
from kernel.kernel import Kernel
from tests.positions import mate_problem
from tests.reference import (
    BLACK,
    WHITE,
    Position,
    Side,
    board_text,
    game_error,
    opponent,
    parse_game,
    validity_error,
)

#: The most positions one sorting search may visit; past it the position is passed over.
SORTING_NODES = 3_000
#: How many times the seeded counts of the player's tests are multiplied: 1 in `make test`,
#: more for a longer sweep (`CUBEMATE_GENMOVE_SWEEP=10`).
SWEEP = int(os.environ.get("CUBEMATE_GENMOVE_SWEEP", "1"))


@dataclass(frozen=True)
class MateProblem:
    """A position whose side to move mates in `moves` moves and in no fewer."""

    position: Position
    moves: int

    @property
    def board(self) -> str:
        """The position as get_board writes it."""
        return board_text(self.position)


@dataclass(frozen=True)
class ThreatProblem:
    """A position where most moves allow the opponent a mate in one, and some do not."""

    position: Position
    #: Every legal move, and the ones after which the opponent has no mate in one.
    moves: frozenset[str]
    safe: frozenset[str]

    @property
    def board(self) -> str:
        """The position as get_board writes it."""
        return board_text(self.position)


def sorting_kernel() -> Kernel:
    """A kernel whose mate searches give up quickly."""
    return Kernel(EngineConfig(max_nodes=SORTING_NODES))


def answer(kernel: Kernel, line: str) -> str | None:
    """Run one command; None when it is refused (a search over its cap, say)."""
    name, *args = line.split(" ")
    reply = kernel.execute(name, args)
    return reply.text if reply.ok else None


def set_board(kernel: Kernel, position: Position) -> None:
    """Set a position the generator made; it is always a game position."""
    words = board_text(position).split(" ")
    reply = kernel.execute("set_board", words)
    assert reply.ok, (board_text(position), reply.text)


def exact_mates(
    seed: int, moves: int, count: int, sizes: tuple[int, ...], pieces: tuple[int, int]
) -> list[MateProblem]:
    """Make `count` problems that mate in `moves` and not sooner, sizes cycled, white and black
    attacking in turn."""
    rng = random.Random(seed)
    kernel = sorting_kernel()
    found: list[MateProblem] = []
    tries = 0
    while len(found) < count:
        n = sizes[tries % len(sizes)]
        side: Side = WHITE if len(found) % 2 == 0 else BLACK
        tries += 1
        position = mate_problem(rng, n, side, rng.randint(*pieces))
        set_board(kernel, position)
        if not answer(kernel, f"mate_in {moves}"):
            continue
        if moves > 1 and answer(kernel, f"mate_in {moves - 1}") != "":
            continue  # a shorter mate, or a search too long to tell
        found.append(MateProblem(position, moves))
    return found


def threats(
    seed: int, count: int, sizes: tuple[int, ...], pieces: tuple[int, int]
) -> list[ThreatProblem]:
    """Make `count` positions, sizes cycled, white and black to move in turn, in which more than
    half the legal moves allow a mate in one and at least one does not.

    A mate problem with the move handed to the hunted side: the attacker's pieces stand round
    its king, so that most of its moves leave a mate on the board.
    """
    rng = random.Random(seed)
    kernel = sorting_kernel()
    found: list[ThreatProblem] = []
    tries = 0
    while len(found) < count:
        n = sizes[tries % len(sizes)]
        defender: Side = WHITE if len(found) % 2 == 0 else BLACK
        tries += 1
        problem = mate_problem(rng, n, opponent(defender), rng.randint(*pieces))
        position = Position(n, dict(problem.pieces), defender)
        if validity_error(position) is not None or game_error(position) is not None:
            continue
        set_board(kernel, position)
        legal = (answer(kernel, "legal_moves") or "").split()
        if len(legal) < 3:
            continue
        safe = set()
        for move in legal:
            assert answer(kernel, f"play {move}") == ""
            mates = answer(kernel, "mate_in 1")
            assert answer(kernel, "undo") == ""
            if mates == "":
                safe.add(move)
        if safe and len(safe) < len(legal) / 2:
            found.append(ThreatProblem(position, frozenset(legal), frozenset(safe)))
    return found


#: Mates in 3 and not sooner, both sides, made once by `exact_mates` (seeds 3301 with n = 3
#: and 3302 with n = 4, 4 to 6 pieces) and kept: finding them takes seconds of mate search.
MATES_IN_3 = (
    "[k###,####,####,####],[##r#,####,####,####],[#K##,##q#,####,Q###],[####,####,####,####]",
    "[###,##Q,k#n],[###,###,###],[###,##K,#n#]",
    "[###,#K#,R#N],[###,###,#B#],[kB#,###,###]",
    "[###,##K,###],[#rr,###,###],[###,###,k##] b",
    "[k#n,n##,K##],[###,###,n##],[###,##r,###] b",
    "[####,####,####,####],[####,####,K###,####],[####,##Q#,####,##k#],[#q##,####,####,b###] b",
)


@cache
def seeded_mates(moves: int) -> tuple[MateProblem, ...]:
    """The player tests' problems that mate in `moves` (1, 2 or 3) and not sooner, both sides;
    with CUBEMATE_GENMOVE_SWEEP, fresh mates in 3 too."""
    if moves == 1:
        return tuple(exact_mates(3101, 1, 60 * SWEEP, (3, 4, 5, 6), (4, 9)))
    if moves == 2:
        return tuple(exact_mates(3102, 2, 12 * SWEEP, (3, 4, 5), (4, 7)))
    kept = tuple(MateProblem(parse_game(board), 3) for board in MATES_IN_3)
    if SWEEP == 1:
        return kept
    return kept + tuple(exact_mates(3103, 3, 4 * SWEEP, (3, 4), (4, 6)))


@cache
def seeded_threats() -> tuple[ThreatProblem, ...]:
    """The player tests' positions, both sides, where most moves allow a mate in one."""
    return tuple(threats(4101, 20 * SWEEP, (3, 4, 5), (5, 9)))
