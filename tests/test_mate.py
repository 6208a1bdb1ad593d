"""`mate_in N` and `solution N` against the brute-force mate search of tests/reference.py.

Seeded mate problems of both sides (n = 2..5, pieces crowded round the hunted king, so mates
are common): the keys the engine's proof-number search finds must be exactly the reference's,
and every line of `solution` must be a legal move that does what it claims, with every legal
defence listed. Hand-made cases cover the rules.md examples, stalemate traps, a key that mates
only because a defence is pinned and a double check; a process test holds every search to
`search.max_nodes`. Deeper mates, against the old AND/OR search, are in test_proofnumber.py.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from kernel.config import EngineConfig
from kernel.kernel import Kernel
from tests.conftest import Engine, ask, set_position
from tests.positions import game_position, mate_problem
from tests.reference import (
    BLACK,
    WHITE,
    Position,
    Side,
    board_text,
    check_solution,
    in_check,
    mate_in,
    parse_game,
    play,
    status,
    successors,
)
from tests.sweep import SWEEP

#: The rules.md examples and the hand-made cases of tests/test_reference.py, with their keys.
MATE_1_EXAMPLE = "[rb#,###,nNK],[###,##b,#b#],[###,##k,###] b"
MATE_2_EXAMPLE = "[###,#k#,#b#],[##b,###,###],[r##,##K,###] b"
#: Qa2(II)-a2(I) and Qa2(II)-b1(I) stalemate the black king; four other queen moves mate.
STALEMATE_TRAP = "[###,#K#,##B],[B##,Q##,###],[##k,###,###]"
STALEMATE_TRAP_KEYS = "Qa2(II)-b2(I) Qa2(II)-b2(II) Qa2(II)-b3(II) Qa2(II)-c2(II)"
#: The white queen on c3(II) could take a checker on b2(I) but the rook on c3(III) pins it.
PINNED_DEFENCE = "[##r,#q#,#r#],[##Q,##b,###],[##K,r##,###] b"
#: na2(II)-c1(II) checks and uncovers the queen on a3(III): a double check.
DOUBLE_CHECK = "[q##,kq#,###],[###,n##,###],[Q##,##q,K##] b"


@pytest.fixture(scope="module")
def kernel() -> Kernel:
    """Share one kernel: set_board replaces the whole position."""
    return Kernel(EngineConfig())


#: The reference's keys by board and depth: its brute force is the costliest step of this
#: module, and each problem needs its keys three times.
_REFERENCE_KEYS: dict[tuple[str, int], list[str]] = {}


def reference_keys(pos: Position, depth: int) -> list[str]:
    """The reference's mate_in(pos, depth), worked out once per position and depth."""
    key = (board_text(pos), depth)
    if key not in _REFERENCE_KEYS:
        _REFERENCE_KEYS[key] = mate_in(pos, depth)
    return _REFERENCE_KEYS[key]


def solve_and_check(kernel: Kernel, pos: Position, depth: int) -> list[str]:
    """Ask mate_in and solution; list every way they differ from the reference's mate search."""
    start = board_text(pos)
    set_position(kernel, pos)
    mates = reference_keys(pos, depth)
    expected = " ".join(mates)
    problems = []
    keys = ask(kernel, f"mate_in {depth}")
    if keys != expected:
        problems.append(f"{start}: mate_in {depth}\n  kernel    {keys!r}\n  reference {expected!r}")
    text = ask(kernel, f"solution {depth}")
    if text.startswith("?"):
        problems.append(f"{start}: solution {depth} refused: {text}")
    else:
        keyed = [line.split(" ")[0] for line in text.split("\n") if line and line[0] != " "]
        if " ".join(keyed) != keys:
            problems.append(f"{start}: solution {depth} keys {keyed} but mate_in {keys!r}")
        checked = check_solution(pos, depth, text, mates)
        problems += [f"{start}: solution {depth}: {p}" for p in checked]
    if ask(kernel, "get_board") != start:
        problems.append(f"{start}: the search changed the position")
    if ask(kernel, "undo") != "? cannot undo":
        problems.append(f"{start}: the search left a move to undo")
    return problems


def fail_on(problems: list[str], total: int) -> None:
    """Fail with the first few problems, shortest first."""
    if problems:
        problems.sort(key=len)
        head = f"{len(problems)} problems in {total} problems solved; the shortest:\n"
        pytest.fail(head + "\n".join(problems[:5]))


def seeded_problems(
    seed: int, count: int, sizes: tuple[int, ...], pieces: dict[int, tuple[int, int]]
) -> list[Position]:
    """Make `count` mate problems, sizes cycled, both sides in turn (black only on a 2-cube)."""
    rng = random.Random(seed)
    made = []
    for i in range(count):
        n = sizes[i % len(sizes)]
        side: Side = BLACK if n == 2 or (i // len(sizes)) % 2 else WHITE
        low, high = pieces[n]
        made.append(mate_problem(rng, n, side, rng.randint(low, high)))
    return made


# ---------------------------------------------------------------- seeded problems


def test_mate_in_1(kernel: Kernel) -> None:
    """Find exactly the reference's keys of mate in 1 on 600 problems, n = 2..5, both sides."""
    sizes = (2, 3, 4, 5)
    problems = seeded_problems(111, 600, sizes, {2: (5, 7), 3: (4, 8), 4: (4, 9), 5: (4, 10)})
    found: list[str] = []
    mix: Counter[str] = Counter()
    for pos in problems:
        found += solve_and_check(kernel, pos, 1)
        mix[f"n={pos.n} {pos.side} {'mate' if reference_keys(pos, 1) else 'none'}"] += 1
    fail_on(found, len(problems))
    for n in sizes:
        for side in ("b",) if n == 2 else ("w", "b"):
            assert mix[f"n={n} {side} mate"] >= 10, mix
            assert mix[f"n={n} {side} none"] >= 10, mix


def test_mate_in_2(kernel: Kernel) -> None:
    """Find exactly the reference's keys of mate in 2 on 80 problems, n = 2..5, both sides."""
    sizes = (2, 3, 3, 4, 4, 5)
    pieces = {2: (5, 7), 3: (4, 7), 4: (4, 6), 5: (4, 6)}
    problems = seeded_problems(222, 80 * SWEEP, sizes, pieces)
    found: list[str] = []
    mix: Counter[str] = Counter()
    for pos in problems:
        found += solve_and_check(kernel, pos, 2)
        two, one = reference_keys(pos, 2), reference_keys(pos, 1)
        mix["mate in 2"] += bool(two)
        mix["only longer than 1"] += bool(two) and not one
        mix["some key not a mate in 1"] += bool(set(two) - set(one))
    fail_on(found, len(problems))
    assert mix["mate in 2"] >= 23 * SWEEP, mix
    assert mix["some key not a mate in 1"] >= 16 * SWEEP, mix
    assert mix["only longer than 1"] >= 4 * SWEEP, mix


def test_mate_in_3_on_small_boards(kernel: Kernel) -> None:
    """Find exactly the reference's keys of mate in 3 on a few problems, n = 2 and 3."""
    problems = seeded_problems(333, 20, (2, 3), {2: (5, 6), 3: (4, 5)})
    found: list[str] = []
    mates = 0
    for pos in problems:
        found += solve_and_check(kernel, pos, 3)
        mates += bool(reference_keys(pos, 3))
    fail_on(found, len(problems))
    assert mates >= 3


def test_mate_in_general_game_positions(kernel: Kernel) -> None:
    """Agree on game positions of every kind, the attacker often in check itself."""
    rng = random.Random(555)
    found: list[str] = []
    attacker_in_check = 0
    for i in range(300):
        n = (2, 3, 4)[i % 3]
        side: Side = WHITE if i // 3 % 2 == 0 else BLACK
        pos = game_position(rng, n, side, rng.randint(3, min(8, n**3)))
        attacker_in_check += in_check(pos)
        found += solve_and_check(kernel, pos, 2 if n <= 3 else 1)
    fail_on(found, 300)
    assert attacker_in_check >= 50, attacker_in_check


@st.composite
def mate_problems(draw: st.DrawFn) -> tuple[Position, int]:
    """Draw a mate problem (n = 2..4, both sides) and a depth 1 or 2."""
    n = draw(st.integers(min_value=2, max_value=4))
    side = BLACK if n == 2 else draw(st.sampled_from([WHITE, BLACK]))
    pieces = draw(st.integers(min_value=5 if n == 2 else 3, max_value=7 if n < 4 else 6))
    seed = draw(st.integers(0, 2**32 - 1))
    return mate_problem(random.Random(seed), n, side, pieces), draw(st.integers(1, 2))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=mate_problems())
def test_fresh_mate_problems(kernel: Kernel, case: tuple[Position, int]) -> None:
    """Agree with the reference on fresh mate problems every run."""
    pos, depth = case
    note(f"{board_text(pos)} mate_in {depth}")
    assert solve_and_check(kernel, pos, depth) == []


# ---------------------------------------------------------------- hand-made cases


@pytest.mark.parametrize(
    ("board", "depth", "keys"),
    [
        (MATE_1_EXAMPLE, 1, "na1(III)-b1(I)"),
        (MATE_2_EXAMPLE, 1, ""),
        (MATE_2_EXAMPLE, 2, "bb1(III)-a2(II) bb1(III)-c2(II)"),
        (STALEMATE_TRAP, 1, STALEMATE_TRAP_KEYS),
        (PINNED_DEFENCE, 1, "qb2(III)-b2(I) qb2(III)xc3(II) rc3(III)xc3(II)"),
    ],
)
def test_hand_made_keys(kernel: Kernel, board: str, depth: int, keys: str) -> None:
    """Answer the rules.md examples and the hand-made cases with exactly their keys."""
    pos = parse_game(board)
    assert " ".join(mate_in(pos, depth)) == keys  # the reference agrees with the case
    assert solve_and_check(kernel, pos, depth) == []


def test_rules_examples_solution_text(kernel: Kernel) -> None:
    """Print `<key> #` for mate in 1, and each defence with its mating answer for mate in 2."""
    set_position(kernel, parse_game(MATE_1_EXAMPLE))
    assert ask(kernel, "solution 1") == "na1(III)-b1(I) #"
    set_position(kernel, parse_game(MATE_2_EXAMPLE))
    lines = ask(kernel, "solution 2").split("\n")
    assert [line for line in lines if not line.startswith(" ")] == [
        "bb1(III)-a2(II)",
        "bb1(III)-c2(II)",
    ]
    defence = re.compile(r"  [KQRBN]\S+ [kqrbn]\S+ #")
    assert all(defence.fullmatch(line) for line in lines if line.startswith(" ")), lines


def test_stalemate_trap_is_no_key(kernel: Kernel) -> None:
    """Leave out the queen moves that stalemate, at depth 1 and 2, and play them as stalemate."""
    pos = parse_game(STALEMATE_TRAP)
    for depth in (1, 2):
        set_position(kernel, pos)
        keys = ask(kernel, f"mate_in {depth}").split()
        assert "Qa2(II)-a2(I)" not in keys and "Qa2(II)-b1(I)" not in keys
        assert set(STALEMATE_TRAP_KEYS.split()) <= set(keys)
    for trap in ("Qa2(II)-a2(I)", "Qa2(II)-b1(I)"):
        assert status(play(pos, trap)) == "stalemate"
        set_position(kernel, pos)
        assert ask(kernel, f"play {trap}") == ""
        assert ask(kernel, "status") == "stalemate"
        assert ask(kernel, "mate_in 1") == ""  # black, stalemated, has no move at all


def test_double_check_key(kernel: Kernel) -> None:
    """Find the knight move that gives a double check among the keys, and its checkers."""
    pos = parse_game(DOUBLE_CHECK)
    assert solve_and_check(kernel, pos, 1) == []
    set_position(kernel, pos)
    assert "na2(II)-c1(II)" in ask(kernel, "mate_in 1").split()
    assert ask(kernel, "play na2(II)-c1(II)") == ""
    assert ask(kernel, "checkers") == "nc1(II) qa3(III)"
    assert ask(kernel, "status") == "checkmate"


def test_stalemate_defences_in_mate_in_2(kernel: Kernel) -> None:
    """Never count a key after which the defender is stalemated, though nothing can escape."""
    rng = random.Random(444)
    seen = 0
    for _ in range(300):
        pos = mate_problem(rng, 3, rng.choice((WHITE, BLACK)), rng.randint(4, 6))
        traps = [name for name, after in successors(pos) if status(after) == "stalemate"]
        if not traps:
            continue
        set_position(kernel, pos)
        for depth in (1, 2):
            keys = ask(kernel, f"mate_in {depth}").split()
            assert not set(traps) & set(keys), (board_text(pos), traps)
        seen += 1
        if seen >= 15:
            break
    assert seen >= 5


def test_mate_refusals(kernel: Kernel) -> None:
    """Refuse a bad N and a non-game position, changing nothing."""
    set_position(kernel, parse_game(MATE_2_EXAMPLE))
    for bad in ("0", "-1", "x", ""):
        for command in ("mate_in", "solution"):
            assert ask(kernel, f"{command} {bad}".strip()).startswith("? ")
    assert ask(kernel, "get_board") == MATE_2_EXAMPLE
    assert ask(kernel, "set_board [#q,##],[##,K#] b") == ""
    assert ask(kernel, "mate_in 1") == "? the side not to move is in check"
    assert ask(kernel, "solution 2") == "? the side not to move is in check"


# ---------------------------------------------------------------- the node limit, in process


def test_search_limit_through_the_process(tmp_path: Path) -> None:
    """Refuse a search past search.max_nodes, then keep answering with the position unchanged."""
    config = tmp_path / "small.toml"
    config.write_text("[search]\nmax_nodes = 50\n", encoding="utf-8")
    engine = Engine(tmp_path / "logs", "--config", str(config))
    limit = re.compile(rb"\? search limit reached after (\d+) positions\n\n")
    try:
        board = MATE_2_EXAMPLE
        assert engine.ask(f"set_board {board}") == b"= \n\n"
        for command in ("mate_in 2", "solution 2", "perft 3", "mate_in 3", "mate_search"):
            reply = engine.ask(command)
            match = limit.fullmatch(reply)
            assert match is not None, (command, reply)
            assert 1 <= int(match.group(1)) <= 50, reply  # counted up to the limit, not past it
            assert engine.ask("get_board") == f"= {board}\n\n".encode()
            assert engine.ask("undo") == b"? cannot undo\n\n"
        # Small searches still fit under the limit, and play goes on.
        assert engine.ask("perft 1") == b"= 19\n\n"
        assert engine.ask("play bb1(III)-a2(II)") == b"= \n\n"
        assert engine.ask("perft 1") == b"= 1\n\n"
        assert engine.ask("mate_in 1") == b"= \n\n"
        assert engine.ask("quit") == b"= \n\n"
        code, rest, errors = engine.finish()
        assert code == 0, errors
        assert rest == b""
    finally:
        engine.kill()


def test_the_mate_benchmarks_problems_have_their_mates() -> None:
    """Every fixed problem of bench/mate.py really has its mate (the bench's premise), checked
    by the reference; tests/test_bench_smoke.py runs the benchmark itself."""
    from bench import mate

    assert mate_in(parse_game(mate.MATE_IN_2[0]), 2)
    assert mate_in(parse_game(mate.MATE_IN_3[0]), 3)
    assert not mate_in(parse_game(mate.MATE_IN_3[0]), 2)
