"""The proof-number mate search (kernel/mates/proofnumber.py) against the simple AND/OR search.

`mate_in` and `solution` up to N = 3 are held to the brute force in tests/test_mate.py. Here,
at N = 4 and 5 where the brute force is too slow, the df-pn keys must be exactly those of the
old AND/OR search (tests/andor.py) on seeded mate problems of both sides, on game positions
with stalemates and checks of every kind, and on the hand-made traps; a `solution` must be the
very text the AND/OR search writes, and every line of it must replay move by move. Then
`mate_search`, the table's depth rules and replacement, and the bounds: a search past its node
limit is refused with the position as it was, and no search recurses with its depth. Each
asks both df-pn searches: the compiled one (kernel/core/mate.c, what the engine runs when it
was built) and the Python one; tests/test_proofcore.py holds the two to each other.

The seeded sweeps are sized to keep `make test` short; `CUBEMATE_SWEEP=4` (any factor)
runs them that many times larger: `CUBEMATE_SWEEP=10 .venv/bin/pytest
tests/test_proofnumber.py -k agrees`.
"""

from __future__ import annotations

import inspect
import random
import sys
from collections import Counter
from dataclasses import dataclass, field

import pytest

import kernel.mates.search as search_module
from kernel.compiled import COMPILED
from kernel.config import ConfigError, EngineConfig, config_from_document
from kernel.cube.position import Move, Position
from kernel.cube.rules import Analysis
from kernel.kernel import Kernel
from kernel.mates.proofnumber import (
    DISPROVED,
    GUESSES,
    INFINITE,
    PROVED,
    ProofNumberSearch,
    king_step_is_legal,
)
from kernel.mates.search import Budget, SearchLimitReached
from kernel.mates.solution import write_solution
from kernel.text.notation import get_move_name
from tests.andor import MateSearch
from tests.conftest import ask, set_position
from tests.positions import game_position, mate_problem, noise_game_position
from tests.reference import BLACK, WHITE, Side, board_text, mate_in, parse_game
from tests.reference import Position as Problem
from tests.sweep import SWEEP
from tests.test_mate import DOUBLE_CHECK, MATE_2_EXAMPLE, PINNED_DEFENCE, STALEMATE_TRAP

#: Far more positions than any search here needs: a search that hits it is a bug.
PLENTY = 50_000_000
#: Mates in 4 with nothing shorter (made by tests.positions.mate_problem, seeds 1024, 1048
#: and 1070), the first by one key only.
MATES_IN_4 = (
    "[###,###,k##],[###,###,#R#],[###,#K#,#R#]",
    "[##K,###,#R#],[###,###,##B],[k##,##B,B##]",
    "[##k,n##,###],[###,#r#,r#R],[###,###,##K] b",
)
MATE_IN_4 = MATES_IN_4[0]
#: A mate in 3 by one key, black to move (seed 1042).
MATE_IN_3 = "[K##,###,###],[###,rr#,###],[###,#k#,#n#] b"
#: Mates in 5 with nothing shorter (seeds 1008 and 1068).
MATES_IN_5 = (
    "[##K,##R,##R],[##B,#n#,###],[k##,###,#B#]",
    "[##k,RN#,###],[#N#,###,##q],[N##,###,K##]",
)
MATE_IN_5 = MATES_IN_5[0]


@pytest.fixture(params=[True, False], ids=["compiled", "python"])
def compiled(request: pytest.FixtureRequest) -> bool:
    """Run a test with the compiled search, then with the Python one."""
    if request.param and not COMPILED:
        pytest.fail("kernel/core was not built (no C compiler?); run make again")
    return bool(request.param)


@pytest.fixture(scope="module")
def kernel() -> Kernel:
    """Share one kernel: set_board replaces the whole position."""
    return Kernel(EngineConfig())


def position_of(kernel: Kernel, problem: Problem) -> Position:
    """Set a problem in the kernel and return the kernel's own position of it."""
    set_position(kernel, problem)
    return kernel.position


def names(position: Position, moves: list[Move]) -> list[str]:
    """Write moves as the engine does, sorted."""
    return sorted(get_move_name(position, move) for move in moves)


def snapshot(position: Position) -> tuple[object, ...]:
    """Everything a search must give back as it found it."""
    return (
        position.key,
        position.side,
        list(position.cells),
        dict(position.pieces[0]),
        dict(position.pieces[1]),
        list(position.kings),
    )


def problems(seed: int, count: int, sizes: tuple[int, ...]) -> list[Problem]:
    """Seeded mate problems, sizes cycled, both sides (black only on a 2-cube), few pieces."""
    rng = random.Random(seed)
    made = []
    for index in range(count):
        n = sizes[index % len(sizes)]
        side: Side = BLACK if n == 2 or (index // len(sizes)) % 2 else WHITE
        pieces = rng.randint(5, 6) if n == 2 else rng.randint(3, 5 if n == 3 else 4)
        made.append(mate_problem(rng, n, side, pieces))
    return made


@dataclass
class Comparison:
    """What a sweep compared, and the ways the two searches differed."""

    differences: list[str] = field(default_factory=list)
    mix: Counter[str] = field(default_factory=Counter)

    def compare(self, kernel: Kernel, problem: Problem, depth: int) -> None:
        """Ask the AND/OR search and both df-pn searches, compiled and in Python, for the keys
        of mate in `depth`, and note how they differ."""
        position = position_of(kernel, problem)
        before = snapshot(position)
        reference = names(position, MateSearch(Budget(PLENTY)).keys(position, depth))
        text = board_text(problem)
        # The compiled search last: the one left in `search` answers the shorter mate below.
        for compiled in (False, True):
            search = ProofNumberSearch(Budget(PLENTY), compiled=compiled)
            found = names(position, search.keys(position, depth))
            if found != reference:
                name = "compiled" if compiled else "Python"
                self.differences.append(
                    f"{text} mate_in {depth}: {name} df-pn {found}, AND/OR {reference}"
                )
            if snapshot(position) != before:
                self.differences.append(f"{text}: the search changed the position")
        shorter = names(position, search.keys(position, depth - 1))
        self.mix["problems"] += 1
        self.mix["with keys"] += bool(found)
        self.mix["with a shorter mate"] += bool(shorter)
        self.mix["keys only at full depth"] += bool(set(found) - set(shorter))

    def check(self) -> None:
        """Fail with the first differences, shortest first."""
        if self.differences:
            self.differences.sort(key=len)
            head = f"{len(self.differences)} differences in {self.mix['problems']} problems:\n"
            pytest.fail(head + "\n".join(self.differences[:5]))


# ---------------------------------------------------------------- the keys, against AND/OR


def test_mate_in_4_agrees_with_the_and_or_search(kernel: Kernel) -> None:
    """Find exactly the AND/OR search's keys of mate in 4 on 150 seeded problems (n = 2, 3;
    n = 4 with CUBEMATE_SWEEP) and on the true mates in 4: with the game positions and the
    hand-made cases below, 217 positions compared at depth 4 each run."""
    sizes = (2, 2, 2, 2, 3) if SWEEP == 1 else (2, 3, 3, 4)
    comparison = Comparison()
    for problem in problems(4444, 150 * SWEEP, sizes):
        comparison.compare(kernel, problem, 4)
    for board in MATES_IN_4:
        comparison.compare(kernel, parse_game(board), 4)
    comparison.check()
    mix = comparison.mix
    assert mix["with keys"] >= 20 * SWEEP, mix
    assert mix["keys only at full depth"] >= 3 * SWEEP, mix
    assert mix["with keys"] - mix["with a shorter mate"] >= 3, mix


def test_mate_in_5_agrees_on_small_boards(kernel: Kernel) -> None:
    """Agree on mate in 5 too, on problems of the 2-cube and the true mates in 5."""
    comparison = Comparison()
    for problem in problems(5555, 20 * SWEEP, (2,)):
        comparison.compare(kernel, problem, 5)
    for board in MATES_IN_5[: 1 if SWEEP == 1 else None]:
        comparison.compare(kernel, parse_game(board), 5)
    comparison.check()
    assert comparison.mix["with keys"] >= 4 * SWEEP, comparison.mix
    assert comparison.mix["with keys"] - comparison.mix["with a shorter mate"] >= 1


def test_game_positions_agree_at_depth_4(kernel: Kernel) -> None:
    """Agree on game positions thrown at random: captures, checks, the attacker in check,
    stalemates, kings alone."""
    rng = random.Random(4040)
    comparison = Comparison()
    attacker_in_check = 0
    for index in range(60 * SWEEP):
        n = (2, 3)[index % 2]
        side: Side = WHITE if index // 2 % 2 == 0 else BLACK
        if index % 3:
            problem = game_position(rng, n, side, rng.randint(3, 5))
        else:
            problem = noise_game_position(rng, n, side, rng.randint(3, 5))
        set_position(kernel, problem)
        attacker_in_check += Analysis(kernel.position).in_check
        comparison.compare(kernel, problem, 4)
    comparison.check()
    assert attacker_in_check >= 5 * SWEEP, attacker_in_check


@pytest.mark.parametrize(
    "board", [STALEMATE_TRAP, PINNED_DEFENCE, DOUBLE_CHECK, MATE_2_EXAMPLE, MATE_IN_4]
)
def test_hand_made_cases_agree_at_depth_4(kernel: Kernel, board: str) -> None:
    """Agree on the stalemate trap, the pinned defence, the double check and the examples."""
    comparison = Comparison()
    comparison.compare(kernel, parse_game(board), 4)
    comparison.check()


def test_a_stalemating_move_is_never_a_key(kernel: Kernel, compiled: bool) -> None:
    """Leave out the queen moves that stalemate, at every depth, with one table for all."""
    position = position_of(kernel, parse_game(STALEMATE_TRAP))
    search = ProofNumberSearch(Budget(PLENTY), compiled=compiled)
    for depth in (4, 1, 3, 2):
        keys = names(position, search.keys(position, depth))
        assert "Qa2(II)-a2(I)" not in keys and "Qa2(II)-b1(I)" not in keys, depth
        assert keys == names(position, MateSearch(Budget(PLENTY)).keys(position, depth))


# ---------------------------------------------------------------- solutions


def test_solutions_are_the_and_or_searchs_text(kernel: Kernel, compiled: bool) -> None:
    """Write the same solution text as the AND/OR search, and one that replays, at N = 3, 4."""
    written = 0
    for index, problem in enumerate(problems(3434, 24 * SWEEP, (2, 2, 3))):
        depth = 3 + index % 2
        position = position_of(kernel, problem)
        search = ProofNumberSearch(Budget(PLENTY), compiled=compiled)
        text = "\n".join(write_solution(search, position, depth))
        reference = "\n".join(write_solution(MateSearch(Budget(PLENTY)), position, depth))
        assert text == reference, f"{board_text(problem)} solution {depth}"
        keys = names(position, search.keys(position, depth))
        assert replay(position, depth, text, keys) == [], f"{board_text(problem)} {depth}"
        written += bool(text)
    assert written >= 4 * SWEEP


def test_the_mate_in_5_solution_replays(kernel: Kernel) -> None:
    """Write a mate in 5 whose every line replays: each defence answered, each mate a mate."""
    position = position_of(kernel, parse_game(MATE_IN_5))
    text = ask(kernel, "solution 5")
    keys = "Kc3(III)-b2(III) Kc3(III)-c2(II) Rc1(III)-a1(III) Rc2(III)-a2(III) Rc2(III)-c2(I)"
    assert replay(position, 5, text, keys.split()) == []  # the keys: test_mate_in_5_agrees
    assert max(len(line) - len(line.lstrip()) for line in text.split("\n")) == 8  # 4 levels


def replay(position: Position, depth: int, text: str, keys: list[str]) -> list[str]:
    """Play every line of a solution on the position; list what is wrong (empty: sound).

    The key lines must be `keys` (the moves that mate in `depth`), every legal defence must be
    listed once under each move that does not mate at once, each answer must be legal, a line
    marked `#` must checkmate, and no line may need more than `depth` moves of the attacker.
    """
    tree = parse_tree(text.split("\n") if text else [])
    problems: list[str] = []
    written = [line.moves[0] for line in tree]
    if written != keys:
        problems.append(f"keys {written}, but mate_in {depth} gives {keys}")
    for line in tree:
        problems += replay_line(position, line, [line.moves[0]], depth)
    return problems


@dataclass
class Line:
    """A line of a solution: its moves, whether it claims mate, and the lines under it."""

    moves: list[str]
    mate: bool
    below: list[Line] = field(default_factory=list)


def parse_tree(lines: list[str]) -> list[Line]:
    """Read solution lines into a tree by their indentation (two spaces a level)."""
    roots: list[Line] = []
    path: list[Line] = []
    for text in lines:
        level = (len(text) - len(text.lstrip(" "))) // 2
        words = text.split()
        line = Line([word for word in words if word != "#"], words[-1] == "#")
        del path[level:]
        (path[-1].below if path else roots).append(line)
        path.append(line)
    return roots


def replay_line(position: Position, line: Line, moves: list[str], depth: int) -> list[str]:
    """Play a line's moves (the last is the attacker's), check what follows, take them back."""
    played: list[Move] = []
    try:
        for name in moves:
            moves_now = Analysis(position).legal_moves()
            legal = {get_move_name(position, move): move for move in moves_now}
            if name not in legal:
                return [f"{name} is not legal"]
            position.play(legal[name])
            played.append(legal[name])
        analysis = Analysis(position)
        if line.mate:
            return [] if analysis.is_checkmate() and not line.below else [f"{moves}: no mate"]
        if depth < 2:
            return [f"{moves}: not a mate within the moves allowed"]
        defences = names(position, list(analysis.legal_moves()))
        listed = sorted(below.moves[0] for below in line.below)
        if listed != defences:
            return [f"{moves}: defences listed {listed}, legal {defences}"]
        problems: list[str] = []
        for below in line.below:
            problems += replay_line(position, below, below.moves, depth - 1)
        return problems
    finally:
        for move in reversed(played):
            position.undo(move)


# ---------------------------------------------------------------- mate_search


def test_mate_search_finds_the_shortest_mate(kernel: Kernel) -> None:
    """Answer the shortest mate within 3 and its keys as the brute force finds them."""
    found = Counter[int]()
    for problem in problems(3333, 60 * SWEEP, (2, 2, 3)):
        set_position(kernel, problem)
        answer = ask(kernel, "mate_search 3")
        expected = "? no mate within 3 moves"
        for depth in (1, 2, 3):
            keys = mate_in(problem, depth)
            if keys:
                expected = f"{depth} {' '.join(keys)}"
                break
        assert answer == expected, board_text(problem)
        found[int(answer.split()[0]) if answer[0] != "?" else 0] += 1
    assert found[1] and found[2] and found[0], found
    set_position(kernel, parse_game(MATE_IN_3))
    assert ask(kernel, "mate_search") == "3 ra2(II)-a3(II)"


def test_mate_search_reads_its_default_from_the_config() -> None:
    """Look no further than search.max_mate_moves when MAX is left out."""
    short = Kernel(EngineConfig(max_mate_moves=3))
    set_position(short, parse_game(MATE_IN_4))
    assert ask(short, "mate_search") == "? no mate within 3 moves"
    assert ask(short, "mate_search 4") == "4 Rb1(II)-b1(III)"
    default = Kernel(EngineConfig())
    set_position(default, parse_game(MATE_IN_4))
    assert ask(default, "mate_search") == "4 Rb1(II)-b1(III)"  # within the default 5


@pytest.mark.parametrize(
    ("document", "problem"),
    [
        ({"search": {"max_mate_moves": 0}}, "search.max_mate_moves: 0 is outside 1 ... 100"),
        ({"search": {"max_mate_moves": 101}}, "search.max_mate_moves: 101 is outside 1 ... 100"),
        ({"search": {"max_mate_moves": "5"}}, "search.max_mate_moves: expected int, got str"),
        ({"search": {"max_mate_moves": True}}, "search.max_mate_moves: expected int, got bool"),
    ],
)
def test_a_bad_max_mate_moves_is_refused(document: dict[str, object], problem: str) -> None:
    with pytest.raises(ConfigError, match=problem.replace(".", r"\.")):
        config_from_document(document)


def test_mate_search_reports_each_length_it_tries(
    monkeypatch: pytest.MonkeyPatch, compiled: bool
) -> None:
    """Name the length being tried as the depth of the progress reports."""
    monkeypatch.setattr(search_module, "CLOCK_EVERY", 1)
    monkeypatch.setattr(search_module, "PROGRESS_AFTER", 0.0)
    reports: list[int] = []
    budget = Budget(PLENTY, 4, lambda depth, nodes, seconds: reports.append(depth))
    position = position_of(Kernel(EngineConfig()), parse_game(MATE_IN_4))
    keys, length = ProofNumberSearch(budget, compiled=compiled).shortest_mate(position, 4)
    assert (names(position, keys), length) == (["Rb1(II)-b1(III)"], 4)
    assert reports and reports[0] == 1 and reports == sorted(reports), reports


# ---------------------------------------------------------------- the table


def test_a_proof_holds_at_more_moves_and_a_disproof_at_fewer() -> None:
    """Answer proved at and above a proved depth, disproved at and below a disproved one."""
    search = ProofNumberSearch(Budget(PLENTY), compiled=False)
    search.store(1, 3, 0, INFINITE, 1)
    assert [search.lookup(1, depth, True) for depth in (3, 4, 9)] == [PROVED] * 3
    assert search.lookup(1, 2, True) == GUESSES[True][2]
    search.store(2, 3, INFINITE, 0, 1)
    assert [search.lookup(2, depth, False) for depth in (0, 1, 3)] == [DISPROVED] * 3
    assert search.lookup(2, 4, False) == GUESSES[False][4]
    # Numbers belong to their depth; a settled depth beside them leaves them be.
    search.store(3, 4, 7, 9, 1)
    search.store(3, 2, INFINITE, 0, 1)
    assert search.lookup(3, 4, True) == (7, 9)
    assert search.lookup(3, 3, True) == GUESSES[True][3]
    assert search.lookup(3, 2, True) == DISPROVED
    # A later disproof at a smaller depth, or proof at a greater one, takes nothing away.
    search.store(3, 1, INFINITE, 0, 1)
    search.store(3, 6, 0, INFINITE, 1)
    search.store(3, 5, 0, INFINITE, 1)
    assert [search.lookup(3, depth, True) for depth in (2, 4, 5, 6)] == [
        DISPROVED,
        (7, 9),
        PROVED,
        PROVED,
    ]


def test_a_full_table_drops_the_cheapest_half() -> None:
    """Make room by dropping the entries that cost least work, keeping the costly ones."""
    search = ProofNumberSearch(Budget(PLENTY), table_entries=6, compiled=False)
    for key in range(6):
        search.store(key, 2, 3, 4, work=10 * (key + 1))
    search.store(99, 2, 3, 4, work=1)
    assert sorted(search.table) == [3, 4, 5, 99]
    assert search.lookup(5, 2, True) == (3, 4) and search.lookup(0, 2, True) == GUESSES[True][2]


def test_a_small_table_gives_the_same_answers(kernel: Kernel, compiled: bool) -> None:
    """Answer exactly as with a large table when the table must make room again and again."""
    for problem in problems(6464, 10 * SWEEP, (2, 3)):
        position = position_of(kernel, problem)
        small = ProofNumberSearch(Budget(PLENTY), table_entries=40, compiled=compiled)
        found = names(position, small.keys(position, 4))
        large = ProofNumberSearch(Budget(PLENTY), compiled=compiled)
        assert found == names(position, large.keys(position, 4))
        if small.core is None:
            assert len(small.table) <= 40
        else:
            assert small.core.entries <= small.core.most_entries == 40
            assert not small.table


def test_a_remembered_kings_step_is_asked_again_in_each_position(kernel: Kernel) -> None:
    """Take a remembered refutation only where it is a legal king's step of the side to move."""
    position = position_of(kernel, parse_game(MATE_2_EXAMPLE))  # black to move
    analysis = Analysis(position)
    steps = list(analysis.king_moves())
    assert steps and all(king_step_is_legal(position, step) for step in steps)
    queen_move = next(m for m in analysis.legal_moves() if m.piece not in "Kk")
    assert not king_step_is_legal(position, queen_move)
    position.play(steps[0])
    try:
        assert not king_step_is_legal(position, steps[0])  # white to move now
    finally:
        position.undo(steps[0])


# ---------------------------------------------------------------- bounds


@pytest.mark.parametrize("question", ["keys", "shortest", "solution"])
def test_a_search_past_its_limit_is_refused_with_the_position_as_it_was(
    kernel: Kernel, question: str, compiled: bool
) -> None:
    """Raise SearchLimitReached, count up to the limit and no more, and leave the position be."""
    position = position_of(kernel, parse_game(MATE_IN_5))
    before = snapshot(position)
    for limit in (1, 10, 300, 5000):
        budget = Budget(limit, 5)
        search = ProofNumberSearch(budget, compiled=compiled)
        with pytest.raises(SearchLimitReached):
            if question == "keys":
                search.keys(position, 5)
            elif question == "shortest":
                search.shortest_mate(position, 5)
            else:
                write_solution(search, position, 5)
        # Counted up to the limit, then refused the count that would pass it: a node's moves
        # (the compiled search hands on its counts in chunks, but never across the limit).
        assert limit - 1000 < budget.nodes <= limit
        assert snapshot(position) == before


def test_a_long_mate_asks_no_deeper_python_stack(kernel: Kernel, compiled: bool) -> None:
    """Search mate in 100 with Python's stack held to a few dozen frames more than now."""
    position = position_of(kernel, parse_game(MATE_2_EXAMPLE))
    before = snapshot(position)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack()) + 40)
    try:
        with pytest.raises(SearchLimitReached):
            ProofNumberSearch(Budget(20_000), compiled=compiled).keys(position, 100)
    finally:
        sys.setrecursionlimit(limit)
    assert snapshot(position) == before
