"""`selfmate N`, `helpmate N` and `solution N selfmate` against the brute force of
tests/stipulations.py.

Seeded positions of both sides to move, n = 3..5, N = 1 and 2: pieces thrown on the board
(dense ones on the 3-cube, where every side is short of moves and mates and stalemates are
everywhere) and positions whose side to move has its king crowded by the other side's pieces.
Selfmates are rare in such positions (a few in a thousand), so the selfmates mined from them
once are kept here too, and each of those is solved, its tree checked move by move. The
traps are counted over the seeded positions, so that a change of generator that lost them
would show: keys that mate or stalemate the other side, answers that mate at once, and
helpmate lines that stalemate before their end.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from kernel.config import EngineConfig
from kernel.kernel import Kernel
from tests.positions import noise_game_position
from tests.reference import (
    BLACK,
    WHITE,
    Position,
    Side,
    board_text,
    has_legal_move,
    in_check,
    parse_game,
    successors,
)
from tests.stipulation_problems import hunted
from tests.stipulations import check_selfmate_solution, helpmate, selfmate
from tests.sweep import SWEEP

#: Selfmates in 1 mined from noise_game_position (n = 3, 4 and 5), both sides.
SELFMATES_IN_1 = (
    "[###,q##,#B#],[##Q,###,#k#],[##K,###,#b#]",
    "[###,q##,#QR],[###,#b#,###],[##K,k##,###]",
    "[##K,###,###],[#N#,k##,##R],[###,q#Q,###]",
    "[###,###,###],[B#k,###,###],[K##,Q##,qR#] b",
    "[###,#q#,###],[###,n##,Q##],[##k,##N,#K#] b",
    "[#nq,##Q,#K#],[###,###,###],[###,###,kb#] b",
    "[####,#Q##,##r#,###n],[q###,##B#,###r,n#K#],[####,####,##r#,####],[#q##,#Q##,####,##kq]",
    "[####,##B#,R###,K#k#],[#N##,##R#,Q###,####],[#q#n,bQ##,####,####],[####,####,##Q#,#q##] b",
    "[#####,#####,##qN#,###rb,#####],[#####,####q,###b#,#####,#####],[#####,#####,#####,#####,"
    "###K#],[#####,##Q##,##q#n,#####,#r###],[#####,#####,k####,N####,Q##N#] b",
)
#: Selfmates in 2 and not in 1, mined the same way on the 3-cube.
SELFMATES_IN_2 = (
    "[k##,###,##q],[#bK,###,n##],[#QQ,###,###]",
    "[###,#N#,#K#],[q#k,###,###],[r#B,R#N,#N#]",
    "[##b,###,#Nk],[r##,###,##n],[qQR,###,#K#]",
    "[##B,k##,##R],[###,##Q,n##],[RrQ,K##,##q]",
    "[###,###,##q],[#kr,###,K#Q],[#q#,##r,##R] b",
    "[###,###,r##],[nn#,##q,###],[KQ#,#r#,##k] b",
    "[###,#K#,N##],[###,###,#r#],[#Qn,qn#,k##] b",
    "[##Q,K#Q,###],[##q,#Bb,###],[#q#,##k,###] b",
    # Under its key Qa2(II)-b1(II), the answer qc1(II)xb1(II) mates at once.
    "[bRb,##k,K##],[R##,Q##,##q],[R#r,#B#,###]",
)
#: Pieces thrown on each size: the 3-cube crowded, the larger ones less so.
PIECES = {3: (5, 10), 4: (5, 12), 5: (5, 12)}
#: The most pieces of the seeded selfmates in 2, and of the helpmates in 2, whose brute force
#: plays every line of four plies: few pieces there, and no queen on the 5-cube (`seeded`).
SELFMATE_2_PIECES = {3: 9, 4: 9, 5: 9}
HELPMATE_2_PIECES = {3: 5, 4: 4, 5: 4}


@pytest.fixture(scope="module")
def kernel() -> Kernel:
    """One kernel for the module (set_board replaces the whole position), which lists every
    solution, however many."""
    return Kernel(EngineConfig(max_solutions=100_000))


def seeded(seed: int, count: int, most: dict[int, int] | None = None) -> list[Position]:
    """Positions of n = 3, 4, 5 in turn, white and black to move in turn: mostly pieces
    thrown on the board, every third one a crowded king; `most` caps the pieces by size."""
    rng = random.Random(seed)
    found = []
    for index in range(count):
        n = 3 + index % 3
        side: Side = WHITE if index // 3 % 2 == 0 else BLACK
        least, largest = PIECES[n]
        if most is not None:
            largest = min(largest, most[n])
        pieces = rng.randint(min(least, largest), largest)
        while True:
            if index % 3 == 2:
                position = hunted(rng, n, side, min(pieces, 7))
            else:
                position = noise_game_position(rng, n, side, pieces)
            # A capped sweep leaves the queens off the 5-cube, where one has 70 moves.
            if most is None or n < 5 or not set(position.pieces.values()) & {"Q", "q"}:
                break
        found.append(position)
    return found


def answer(kernel: Kernel, position: Position, command: str) -> str:
    """Set a position and answer one command in process; the command must succeed."""
    reply = kernel.execute("set_board", board_text(position).split())
    assert reply.ok, reply.text
    name, *args = command.split()
    reply = kernel.execute(name, args)
    assert reply.ok, (board_text(position), command, reply.text)
    return reply.text


def engine_solutions(kernel: Kernel, position: Position, moves: int) -> list[str]:
    """The engine's helpmate answer, checked for its count, as the brute force writes it."""
    count, *lines = answer(kernel, position, f"helpmate {moves}").split("\n")
    assert int(count) == len(lines)
    return lines


# --- the seeded sweeps ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "seed, moves, count, most",
    [
        (4001, 1, 75, None),
        (4002, 1, 75, None),
        (4003, 2, 24, SELFMATE_2_PIECES),
        (4004, 2, 24, SELFMATE_2_PIECES),
    ],
)
def test_selfmate_keys_are_the_brute_forces(
    kernel: Kernel, seed: int, moves: int, count: int, most: dict[int, int] | None
) -> None:
    for position in seeded(seed, count * SWEEP, most):
        keys = answer(kernel, position, f"selfmate {moves}")
        expected = " ".join(selfmate(position, moves))
        assert keys == expected, board_text(position)


@pytest.mark.parametrize(
    "seed, moves, count, most",
    [
        (4101, 1, 75, None),
        (4102, 1, 75, None),
        (4103, 2, 10, HELPMATE_2_PIECES),
        (4104, 2, 10, HELPMATE_2_PIECES),
    ],
)
def test_helpmate_solutions_are_the_brute_forces(
    kernel: Kernel, seed: int, moves: int, count: int, most: dict[int, int] | None
) -> None:
    for position in seeded(seed, count * SWEEP, most):
        assert engine_solutions(kernel, position, moves) == helpmate(position, moves), board_text(
            position
        )


@pytest.mark.parametrize("board", SELFMATES_IN_1 + SELFMATES_IN_2)
def test_mined_selfmates_and_their_trees(kernel: Kernel, board: str) -> None:
    position = parse_game(board)
    shortest = 1 if board in SELFMATES_IN_1 else 2
    # The brute force of a selfmate in 2 on the crowded 4- and 5-cubes takes a minute.
    for moves in range(1, 2 if position.n > 3 else 3):
        keys = selfmate(position, moves)
        assert bool(keys) == (moves >= shortest)
        assert answer(kernel, position, f"selfmate {moves}") == " ".join(keys)
        tree = answer(kernel, position, f"solution {moves} selfmate")
        assert check_selfmate_solution(position, moves, tree, keys) == []


# --- the traps are there ----------------------------------------------------------------------


def traps(position: Position) -> Counter[str]:
    """Count the traps a position holds on its first two plies."""
    found: Counter[str] = Counter()
    for _, after in successors(position):
        replies = successors(after)
        if not replies:
            found["a move that mates or stalemates the other side"] += 1
            continue
        for _, answered in replies:
            if not has_legal_move(answered):
                mated = in_check(answered)
                found["an answer that mates at once" if mated else "a line that stalemates"] += 1
    return found


def test_the_seeded_positions_hold_the_traps() -> None:
    found: Counter[str] = Counter()
    mined = [parse_game(board) for board in SELFMATES_IN_1 + SELFMATES_IN_2]
    mined = [position for position in mined if position.n == 3]  # the crowded 4-, 5-cubes cost
    for position in mined + seeded(4001, 75) + seeded(4003, 24, SELFMATE_2_PIECES):
        found.update(key for key, count in traps(position).items() if count)
    # A key that leaves the other side no move would pass an `all` over no answers.
    assert found["a move that mates or stalemates the other side"] >= 5, found
    assert found["an answer that mates at once"] >= 10, found
    assert found["a line that stalemates"] >= 3, found


def test_the_mined_selfmates_hold_answers_that_mate_early(kernel: Kernel) -> None:
    """Under a key of a selfmate in 2, some answers mate at once; the tree marks them."""
    early = 0
    for board in SELFMATES_IN_2:
        tree = answer(kernel, parse_game(board), "solution 2 selfmate")
        early += sum(
            1
            for row in tree.split("\n")
            if row.startswith("  ") and row.endswith(" #") and not row.startswith("    ")
        )
    assert early >= 1


# --- what the commands refuse -----------------------------------------------------------------


@pytest.mark.parametrize(
    "command, message",
    [
        ("selfmate 0", "N must be 1 or more, got 0"),
        ("helpmate x", "N must be a whole number, got 'x'"),
        ("selfmate 101", "N is too large (at most 100: deeper searches could never finish)"),
        ("solution 2 helpmate", "unknown stipulation 'helpmate': mate or selfmate (helpmate"),
        ("solution 2 stalemate", "unknown stipulation 'stalemate': mate or selfmate"),
    ],
)
def test_refusals_change_nothing(kernel: Kernel, command: str, message: str) -> None:
    position = parse_game(SELFMATES_IN_2[0])
    assert kernel.execute("set_board", board_text(position).split()).ok
    name, *args = command.split()
    reply = kernel.execute(name, args)
    assert not reply.ok and reply.text.startswith(message), reply.text
    assert kernel.execute("get_board", []).text == board_text(position).split()[0]


def test_a_position_that_is_no_game_is_refused(kernel: Kernel) -> None:
    # White to move, black in check: not a game position.
    assert kernel.execute("set_board", ["[###,###,###],[###,###,###],[k#Q,###,##K]"]).ok
    assert kernel.execute("selfmate", ["1"]).text == "the side not to move is in check"


def test_too_many_solutions_are_refused_with_the_count() -> None:
    kernel = Kernel(EngineConfig(max_solutions=2))
    position = parse_game("[###,K#Q,###],[###,###,##k],[###,###,###] b")
    solutions = helpmate(position, 1)
    assert len(solutions) > 2
    assert kernel.execute("set_board", board_text(position).split()).ok
    reply = kernel.execute("helpmate", ["1"])
    assert not reply.ok
    prefix = "more than 2 solutions (search.max_solutions): stopped at "
    assert reply.text.startswith(prefix)
    assert 2 < int(reply.text.removeprefix(prefix)) <= len(solutions)
    assert Kernel(EngineConfig()).execute("set_board", board_text(position).split()).ok


@pytest.mark.parametrize("command", ["selfmate 3", "helpmate 3", "solution 3 selfmate"])
def test_the_node_bound_holds(command: str) -> None:
    kernel = Kernel(EngineConfig(max_nodes=200))
    assert kernel.execute("set_board", SELFMATES_IN_2[1].split()).ok
    name, *args = command.split()
    reply = kernel.execute(name, args)
    assert not reply.ok and reply.text.startswith("search limit reached after "), reply.text
    assert int(reply.text.split()[-2]) <= 200
    assert kernel.execute("get_board", []).text == SELFMATES_IN_2[1]


def test_a_side_without_a_king_is_never_mated(kernel: Kernel) -> None:
    position = parse_game("[##q,###,###],[###,#R#,###],[###,###,K##] b")
    assert selfmate(position, 1) == [] and helpmate(position, 1) == []
    assert answer(kernel, position, "selfmate 2") == ""
    assert answer(kernel, position, "helpmate 2") == "0"


@pytest.mark.parametrize("limit", [0, 100_001])
def test_the_solution_limit_is_bounded(limit: int) -> None:
    from kernel.config import ConfigError, config_from_document

    with pytest.raises(ConfigError, match=rf"search\.max_solutions: {limit} is outside 1 \.\.\. "):
        config_from_document({"search": {"max_solutions": limit}})


def test_the_flights_rule_out_only_what_has_no_selfmate_in_one(kernel: Kernel) -> None:
    """keeps_a_flight, the selfmate search's cut before S's last move, answers yes only
    where the brute force finds no selfmate in one, and answers yes often."""
    from kernel.mates.selfmate import keeps_a_flight

    cut = 0
    for position in seeded(4001, 75) + [parse_game(board) for board in SELFMATES_IN_1]:
        assert kernel.execute("set_board", board_text(position).split()).ok
        if keeps_a_flight(kernel.position):
            cut += 1
            assert selfmate(position, 1) == [], board_text(position)
    assert cut >= 10


def test_the_regression_suite_holds_the_brute_forces_answers() -> None:
    """regress/stipulations.tst: every selfmate and helpmate answer it expects is the brute
    force's, and every tree it fixes is sound."""
    from regress.runner import ROOT, parse_suite
    from tests.reference import play

    position: Position | None = None
    checked = 0
    for step in parse_suite((ROOT / "regress" / "stipulations.tst").read_text(encoding="utf-8")):
        words = step.command.split()
        if step.number is not None:
            words = words[1:]
        name, args = words[0], words[1:]
        if name == "set_board":
            position = parse_game(" ".join(args))
        elif name == "play":
            assert position is not None
            position = play(position, args[0])
        if step.number is None or step.expected_failure or step.pattern is None:
            continue
        assert position is not None
        moves = int(args[0])
        if name == "selfmate":
            expected = " ".join(selfmate(position, moves))
        elif name == "helpmate":
            lines = helpmate(position, moves)
            expected = "\n".join([str(len(lines)), *lines])
        else:
            assert name == "solution" and args[1:] == ["selfmate"]
            tree = step.pattern.replace("\\n", "\n").replace("\\", "")
            keys = selfmate(position, moves)
            assert check_selfmate_solution(position, moves, tree, keys) == []
            expected = tree
        assert step.matches(expected), (step.number, expected)
        checked += 1
    assert checked >= 12


def test_the_kings_flights_rule_out_only_what_mates_no_one(kernel: Kernel) -> None:
    """king_must_move, the helpmate's cut before the mated side's last move, answers yes only
    where every helpmate in 1 the brute force finds starts with a king's step; and often."""
    from kernel.mates.helpmate import king_must_move

    cut = 0
    for position in seeded(4101, 75) + seeded(4102, 75):
        assert kernel.execute("set_board", board_text(position).split()).ok
        if king_must_move(kernel.position):
            cut += 1
            firsts = {line.split()[0][0] for line in helpmate(position, 1)}
            assert firsts <= {"K", "k"}, board_text(position)
    assert cut >= 20


@pytest.mark.parametrize(
    "command, board",
    [
        ("selfmate 3", "[####,####,####,rb##],[###Q,#kb#,####,#rK#],[####,####,####,####],"
         "[####,####,####,####]"),
        ("helpmate 3", "[###,###,#r#],[##b,##b,r##],[K##,###,###]"),
    ],
)  # fmt: skip
def test_a_long_search_reports_its_progress(
    monkeypatch: pytest.MonkeyPatch, command: str, board: str
) -> None:
    """Both searches count against the command's budget, which reports at a terminal (here
    a recorder, and at once rather than after a second)."""
    import kernel.commands.session
    import kernel.mates.search

    reports: list[tuple[int, int]] = []
    monkeypatch.setattr(kernel.mates.search, "PROGRESS_AFTER", 0.0)
    monkeypatch.setattr(
        kernel.commands.session,
        "terminal_progress",
        lambda: lambda depth, nodes, seconds: reports.append((depth, nodes)),
    )
    engine = Kernel(EngineConfig())
    assert engine.execute("set_board", [board]).ok
    name, *args = command.split()
    assert engine.execute(name, args).ok
    assert reports and all(depth == 3 for depth, _ in reports)
