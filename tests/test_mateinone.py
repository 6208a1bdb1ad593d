"""The mate-in-one test of the mate search (kernel/mates/mateinone.py) against the brute force.

Every answer of `mates_in_one` must be the brute force's (tests/reference.py: some legal move
checkmates) on seeded mate problems, game positions and positions of pieces thrown anywhere,
n = 2..5, both sides, the side to move in check or not. The flights-first path answers on
boards up to BITSET_SIZE; the same positions are asked again with that size set to 0, which
sends them through the path of the larger boards (every check generated, then filtered).
Mates too rare for the sweep are set by hand: mates by discovery alone, and mates whose
checker guards the flight behind the king through the king's cell. Its `gives_check`, which
the bitsets speed up, must tell every check kernel.cube.rules tells.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

import kernel.mates.mateinone as mateinone
from kernel.config import EngineConfig
from kernel.cube import rules
from kernel.cube.rules import Analysis
from kernel.kernel import Kernel
from kernel.mates.mateinone import attack_masks, mates_in_one
from tests.conftest import set_position
from tests.positions import game_position, mate_problem, noise_game_position
from tests.reference import BLACK, WHITE, Position, Side, board_text, mate_in, parse_game
from tests.sweep import SWEEP


def seeded_positions(seed: int, count: int) -> list[Position]:
    """Mate problems (half), game positions and noise, n = 2..5 cycled, both sides in turn."""
    rng = random.Random(seed)
    made: list[Position] = []
    for index in range(count):
        n = (2, 3, 4, 5)[index % 4]
        side: Side = WHITE if index // 4 % 2 and n > 2 else BLACK
        kind = index // 8 % 4
        if kind <= 1:
            made.append(mate_problem(rng, n, side, rng.randint(4, 7 if n > 2 else 5)))
        elif kind == 2:
            made.append(game_position(rng, n, side, rng.randint(3, 7)))
        else:
            made.append(noise_game_position(rng, n, side, rng.randint(3, 8)))
    return made


@pytest.mark.parametrize("path", ["flights first", "checks first"])
def test_mates_in_one_is_the_brute_forces_answer(
    path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Answer as the brute force on 1000 seeded positions, by either path, the position
    given back as it was."""
    if path == "checks first":
        monkeypatch.setattr(mateinone, "BITSET_SIZE", 0)
    kernel = Kernel(EngineConfig())
    mix = Counter[str]()
    wrong = []
    for problem in seeded_positions(1111, 1000 * SWEEP):
        set_position(kernel, problem)
        position = kernel.position
        before = (position.key, list(position.cells), position.side)
        expected = bool(mate_in(problem, 1))
        found, asked = mates_in_one(position)
        if found != expected:
            wrong.append(f"{board_text(problem)}: {found}, brute force {expected}")
        assert (position.key, position.cells, position.side) == before
        assert asked >= 0
        mix["mates"] += expected
        mix["in check"] += Analysis(position).in_check
    assert not wrong, f"{len(wrong)} wrong:\n" + "\n".join(wrong[:5])
    assert mix["mates"] >= 100 * SWEEP and mix["in check"] >= 100 * SWEEP, mix


def test_the_attack_bitsets_hold_each_attack_of_an_empty_board() -> None:
    """Set a cell's bit exactly where the piece attacks it from, on an empty 3-cube."""
    kernel = Kernel(EngineConfig())
    kernel.execute("set_board", ["[###,###,###],[###,###,###],[###,###,###]"])
    position = kernel.position
    masks = attack_masks(3)
    cells = [point for point, cell in enumerate(position.cells) if cell == "#"]
    reach = position.offsets.reach
    compact = position.offsets.compact
    for letter in "KQRBNkqrbn":
        for origin in cells:
            for target in cells:
                attacks = compact[target] - compact[origin] in reach[letter]
                assert bool(masks[letter][origin] >> target & 1) == attacks, (letter, origin)


#: Mates in one by discovery only: the moving knight gives no check itself (found by a
#: seeded search of mate problems, about one in 14,000).
DISCOVERED_MATES = (
    "[##k,##N,##R],[###,BR#,K##],[###,###,###]",
    "[#b#,###,Kn#],[###,##k,n##],[###,###,r##] b",
    "[###,###,RNk],[###,###,KB#],[#N#,###,#B#]",
)
#: Mates in one whose checking slider also guards the flight behind the king, through the
#: king's own cell (found the same way, about one in 2,000).
THROUGH_THE_KING = (
    "[r###,####,#K##,###q],[####,####,####,#N#k],[####,#q##,####,####],[####,####,####,####] b",
    "[#####,#####,#####,#####,#####],[#####,#####,#####,#####,#####],"
    "[#####,#####,#####,#####,####n],[##Qq#,#####,#####,#####,#####],"
    "[#r###,####n,###K#,#k###,#####] b",
    "[Q#Q,###,###],[##K,R##,###],[###,#rR,#k#]",
)


@pytest.mark.parametrize("board", DISCOVERED_MATES + THROUGH_THE_KING)
@pytest.mark.parametrize("path", ["flights first", "checks first"])
def test_a_mate_hard_to_see_is_found(
    board: str, path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Find a mate given by the slider a knight uncovers (none of whose checks is direct),
    and one whose checker guards the flight behind the king."""
    if path == "checks first":
        monkeypatch.setattr(mateinone, "BITSET_SIZE", 0)
    problem = parse_game(board)
    kernel = Kernel(EngineConfig())
    set_position(kernel, problem)
    keys = mate_in(problem, 1)
    assert keys and (board in THROUGH_THE_KING or all(key[0] in "Nn" for key in keys))
    assert mates_in_one(kernel.position)[0]


def test_gives_check_is_the_rules_answer() -> None:
    """Tell a check as kernel.cube.rules does for every legal move of 200 seeded positions, the
    bitsets ruling out only moves that cannot check."""
    kernel = Kernel(EngineConfig())
    checks = 0
    for problem in seeded_positions(2222, 200 * SWEEP):
        set_position(kernel, problem)
        position = kernel.position
        for move in Analysis(position).legal_moves():
            expected = rules.gives_check(position, move)
            assert mateinone.gives_check(position, move) == expected, (board_text(problem), move)
            checks += expected
    assert checks >= 400 * SWEEP, checks
