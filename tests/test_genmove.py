"""`genmove` and `reg_genmove` against the brute force of tests/reference.py.

- Legality: every answer on thousands of seeded game positions of both sides (n = 3..8) is a
  legal move written as `legal_moves` writes it, or, when the game is over, the refusal that
  names the result; in process with tiny limits, and a few hundred through the real process.
- Mates: on seeded problems that mate in N and not sooner (both sides), a fixed depth of 2N - 1
  plies plays a key that the brute force's mate in N accepts.
- Safety: once depth 2 is complete, no move that allows a mate in one is played where another
  move does not allow one (positions where most moves do).
- Reproducible: a fixed depth or node count gives the same move, the same principal variation
  and the same node count every time, in one engine and in two engines with different string
  hashing, whatever was searched before.
- Bad input: a `?` naming the problem, and nothing changed; a finished game is refused with its
  result; resignation when configured.

`CUBEMATE_SWEEP=K` multiplies the seeded counts by K (a longer sweep, not for `make
test`).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kernel.config import EngineConfig
from kernel.kernel import Kernel
from regress.runner import parse_suite
from tests.conftest import REPO, Engine, ask, read_json_log, set_position
from tests.positions import game_position, side_positions
from tests.problems import MateProblem, exact_mates, seeded_mates, seeded_threats
from tests.reference import (
    BLACK,
    WHITE,
    IllegalMove,
    Position,
    apply_move,
    attackers,
    board_text,
    has_legal_move,
    in_check,
    legal_moves,
    mate_depth,
    mate_in,
    mates_after,
    move_name,
    parse_game,
    parse_move,
    play,
    successors,
)
from tests.sweep import SWEEP

SIZES = (3, 4, 5, 6, 7, 8)


class Recorder:
    """A kernel whose `search` events are kept, as the JSON log would get them."""

    def __init__(self, config: EngineConfig | None = None) -> None:
        self.kernel = Kernel(config or EngineConfig())
        self.searches: list[dict[str, Any]] = []
        self.kernel.log_event = self.record

    def record(self, name: str, fields: dict[str, Any]) -> None:
        assert name == "search", name
        self.searches.append(fields)

    def ask(self, line: str) -> str:
        return ask(self.kernel, line)


@pytest.fixture(scope="module")
def recorder() -> Recorder:
    """One kernel for the module: set_board replaces the whole game; each test sets its level."""
    return Recorder()


@pytest.fixture(scope="module", params=["full width", "pruned"])
def either_recorder(request: pytest.FixtureRequest) -> Recorder:
    """A kernel searching in full width (the default), and one with null move, late-move
    reductions and futility on (config [search]), whose mate guard must keep every promise
    the full width keeps."""
    if request.param == "full width":
        return Recorder()
    return Recorder(EngineConfig(null_move=True, late_move_reductions=True, futility=True))


def game_over(pos: Position) -> str | None:
    """The refusal genmove owes a freshly set position, from the brute force; None if it plays."""
    if not has_legal_move(pos):
        if not in_check(pos):
            return "game over: 1/2-1/2 (stalemate)"
        return "game over: " + ("0-1" if pos.side == WHITE else "1-0") + " (checkmate)"
    if set(pos.pieces.values()) <= {"K", "k"}:
        return "game over: 1/2-1/2 (insufficient material)"
    return None


def legality_problem(pos: Position, answer: str) -> str | None:
    """Say what is wrong with a genmove answer on pos, or None: it must be a legal move,
    named as legal_moves names it, or the refusal the result calls for."""
    expected = game_over(pos)
    if expected is not None:
        return None if answer == f"? {expected}" else f"answered {answer!r}, not ? {expected}"
    try:
        origin, target = parse_move(pos, answer)
    except IllegalMove as refused:
        return f"answered {answer!r}: {refused.reason}"
    if move_name(pos, origin, target) != answer:
        return f"answered {answer!r}, not named {move_name(pos, origin, target)}"
    return None


def fail_on(problems: list[str], total: int) -> None:
    """Fail with the first few problems, shortest first."""
    if problems:
        problems.sort(key=len)
        pytest.fail(f"{len(problems)} problems in {total} positions:\n" + "\n".join(problems[:5]))


def seeded_games(seed: int, count: int) -> Iterator[Position]:
    """Game positions of both sides, n = 3..8."""
    return side_positions(seed, count * SWEEP, SIZES, game=True)


# --- legality ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("level", "seed", "count"),
    [("depth 0 nodes 50", 2101, 1000), ("depth 1 nodes 3000", 2102, 200)],
)
def test_reg_genmove_answers_a_legal_move_or_the_result(
    recorder: Recorder, level: str, seed: int, count: int
) -> None:
    """Answer a legal move, or the result of a finished game; change nothing."""
    assert recorder.ask(f"level {level} time 1") == f"{level} time 1"
    problems: list[str] = []
    mix: Counter[str] = Counter()
    for pos in seeded_games(seed, count):
        set_position(recorder.kernel, pos)
        start = board_text(pos)
        answer = recorder.ask("reg_genmove")
        problem = legality_problem(pos, answer)
        if problem is not None:
            problems.append(f"{start}: {problem}")
        if recorder.ask("get_board") != start or recorder.ask("undo") != "? cannot undo":
            problems.append(f"{start}: reg_genmove changed the game")
        mix[f"{pos.side} {'refused' if answer.startswith('?') else 'move'}"] += 1
    fail_on(problems, count * SWEEP)
    for key in ("w move", "b move", "w refused", "b refused"):
        assert mix[key] >= count * SWEEP // 20, mix


def test_genmove_plays_the_move_it_names(recorder: Recorder) -> None:
    """Play the move named, with or without the colour: get_board and undo agree."""
    assert recorder.ask("level depth 0 nodes 50 time 1") == "depth 0 nodes 50 time 1"
    problems: list[str] = []
    played = 0
    for index, pos in enumerate(seeded_games(2103, 300)):
        set_position(recorder.kernel, pos)
        start = board_text(pos)
        words = ("", "w", "white", "W") if pos.side == WHITE else ("", "b", "black", "Black")
        colour = f" {words[index % 4]}".rstrip()
        answer = recorder.ask("genmove" + colour)
        problem = legality_problem(pos, answer)
        if problem is not None:
            problems.append(f"{start}: genmove{colour}: {problem}")
            continue
        if answer.startswith("?"):
            if recorder.ask("get_board") != start:
                problems.append(f"{start}: a refused genmove changed the position")
            continue
        played += 1
        after = board_text(play(pos, answer))
        if recorder.ask("get_board") != after:
            problems.append(f"{start}: genmove {answer} left {recorder.ask('get_board')}")
        if recorder.ask("undo") != "" or recorder.ask("get_board") != start:
            problems.append(f"{start}: undo after genmove {answer} did not restore it")
    fail_on(problems, 300 * SWEEP)
    assert played >= 100 * SWEEP


def test_genmove_through_the_process(log_dir: Path) -> None:
    """A few hundred positions through the real engine: legal answers, one search event each."""
    engine = Engine(log_dir)
    positions = list(seeded_games(2104, 250))
    problems: list[str] = []
    searched = 0
    try:
        assert engine.ask("level nodes 50") == b"= depth 0 nodes 50 time 1\n\n"
        for index, pos in enumerate(positions):
            start = board_text(pos)
            assert engine.ask(f"set_board {start}") == b"= \n\n"
            command = "genmove" if index % 2 else "reg_genmove"
            reply = engine.ask(command).decode()
            answer = reply[2:-2] if reply.startswith("= ") else reply[:-2]
            problem = legality_problem(pos, answer)
            if problem is not None:
                problems.append(f"{start}: {command}: {problem}")
                continue
            searched += not answer.startswith("?")
            expected = start if command == "reg_genmove" or answer.startswith("?") else None
            board = engine.ask("get_board").decode()[2:-2]
            if board != (expected or board_text(play(pos, answer))):
                problems.append(f"{start}: {command} {answer} left {board}")
        assert engine.ask("quit") == b"= \n\n"
        code, rest, errors = engine.finish()
        assert (code, rest, errors) == (0, b"", b"")
    finally:
        engine.kill()
    fail_on(problems, len(positions))
    events = [event for event in read_json_log(log_dir) if event["event"] == "search"]
    assert len(events) == searched >= 100


#: Crowded positions of the depth-1 sweep (seed 2102) on which depth 1 does not complete in
#: 200,000 positions: the quiescence search follows capture after capture, 20 plies and more.
CROWDED = (
    "[##n##,#####,#####,##r##,#####],[####q,####n,#####,##bbQ,###qn],[###n#,##R##,##rnR,##kBR,"
    "##bb#],[#####,##B#R,b##RQ,#rnbn,#nRr#],[#####,##r##,##rqn,###rR,b#nnK]",
    "[####,#N##,#B##,###Q],[#Qb#,#qq#,#Nn#,qbR#],[NN##,qr#b,#b#q,N#R#],[qb##,b###,Kn##,R#n#]",
)


@pytest.mark.parametrize("board", CROWDED)
def test_depth_1_completes_on_crowded_boards(board: str) -> None:
    """A fixed depth of 1 on a crowded board completes within 20,000 positions."""
    recorder = Recorder(EngineConfig(max_nodes=20_000))
    assert recorder.ask(f"set_board {board}") == ""
    assert recorder.ask("level depth 1") == "depth 1 nodes 0 time 1"
    answer = recorder.ask("reg_genmove")
    assert legality_problem(parse_game(board), answer) is None
    assert recorder.searches[-1]["depth"] == 1, recorder.searches[-1]


# --- mates -------------------------------------------------------------------------------------


def mate_problem_found(problem: MateProblem, answer: str, search: dict[str, Any]) -> str | None:
    """Say what is wrong with the answer to a mate problem, or None: it must be a key that the
    brute force's mate in N accepts, and the search must say so (when there was a choice)."""
    pos = problem.position
    try:
        origin, target = parse_move(pos, answer)
    except IllegalMove as refused:
        return f"answered {answer!r}: {refused.reason}"
    if not mates_after(apply_move(pos, origin, target), problem.moves):
        longer = mate_depth(apply_move(pos, origin, target), problem.moves + 3)
        return (
            f"played {answer}, which mates in {longer or 'no fewer than ' + str(problem.moves + 4)}"
        )
    # With one legal move there is nothing to search for: the score is not asked for then.
    if search.get("mate") != problem.moves and len(legal_moves(pos)) > 1:
        return f"played {answer} but reported {search}"
    return None


@pytest.mark.parametrize("moves", [1, 2, 3])
def test_genmove_finds_every_mate_in_n_at_depth_2n_minus_1(
    either_recorder: Recorder, moves: int
) -> None:
    """Mate in N and no sooner: a fixed depth of 2N - 1 plays a key of mate in N."""
    recorder = either_recorder
    problems = seeded_mates(moves)
    assert recorder.ask(f"level depth {2 * moves - 1} nodes 0").startswith("depth")
    found: list[str] = []
    for problem in problems:
        set_position(recorder.kernel, problem.position)
        if moves > 1:  # a mate in N and not sooner, as the generator or the kept list says
            assert recorder.ask(f"mate_in {moves - 1}") == "", problem.board
        answer = recorder.ask("reg_genmove")
        trouble = mate_problem_found(problem, answer, recorder.searches[-1])
        if trouble is not None:
            found.append(f"{problem.board}: {trouble}")
    fail_on(found, len(problems))
    assert {problem.position.side for problem in problems} == {WHITE, BLACK}


@pytest.mark.parametrize(
    ("level", "longest"),
    [("nodes 400", 2), ("nodes 3000", 2), ("nodes 20000", 3), ("nodes 100000", 3)],
)
def test_no_mate_within_the_completed_depth_is_missed(
    either_recorder: Recorder, level: str, longest: int
) -> None:
    """Whatever stops the search, once it has completed depth 2N - 1 it plays a mate in N: no
    pruning hides a mate that `mate_in` finds at that depth (a search that reduces or prunes
    must keep this test: docs/search.md). Fresh problems, both sides, mates in 1, 2 and (where
    the level reaches depth 5) 3, and not sooner; at least half of them, and of the mates in
    3, searched that deep."""
    recorder = either_recorder
    problems = exact_mates(3111, 1, 16 * SWEEP, (3, 4, 5), (5, 9))
    problems += exact_mates(3112, 2, 16 * SWEEP, (3, 4, 5), (5, 8))
    if longest == 3:
        problems += exact_mates(3113, 3, 12 * SWEEP, (3, 4), (5, 8))
    assert recorder.ask(f"level depth 0 {level} time 0").startswith("depth 0")
    found: list[str] = []
    completed = dict.fromkeys(range(1, longest + 1), 0)
    for problem in problems:
        set_position(recorder.kernel, problem.position)
        answer = recorder.ask("reg_genmove")
        search = recorder.searches[-1]
        if search["depth"] < 2 * problem.moves - 1:
            continue  # stopped before the mate's depth: no promise was made
        completed[problem.moves] += 1
        trouble = mate_problem_found(problem, answer, search)
        if trouble is not None:
            found.append(f"{problem.board} at {level}: {trouble}")
    fail_on(found, sum(completed.values()))
    assert sum(completed.values()) >= len(problems) // 2, completed
    if longest == 3:  # the mates in 3 are searched, not skipped
        assert completed[3] >= 12 * SWEEP // 2, completed


#: Two seeded mates in 2 (found by `exact_mates` with seed 1 and n = 3..5) on which a fixed
#: depth of 3 plays a mate in 3: the second iteration finds that longer mate through the check
#: extension and the search stops on it, before the third could find the mate in 2.
LONGER_MATE_FIRST = (
    "[###K,####,#R##,####],[n#n#,###b,##N#,####],[####,####,####,####],[q###,####,####,####] b",
    "[q##,r##,###],[#b#,###,#N#],[#bK,###,r##] b",
)


@pytest.mark.parametrize("board", LONGER_MATE_FIRST)
def test_a_longer_mate_found_first_does_not_end_the_search(recorder: Recorder, board: str) -> None:
    """Mate in 2 at depth 3 even when depth 2 sees a mate in 3 first."""
    pos = parse_game(board)
    assert mate_in(pos, 2) and not mate_in(pos, 1)
    set_position(recorder.kernel, pos)
    assert recorder.ask("level depth 3 nodes 0").startswith("depth 3")
    answer = recorder.ask("reg_genmove")
    assert mate_problem_found(MateProblem(pos, 2), answer, recorder.searches[-1]) is None


# --- no mate in one allowed --------------------------------------------------------------------


@pytest.mark.parametrize("depth", [2, 3])
def test_no_move_that_allows_a_mate_in_one(either_recorder: Recorder, depth: int) -> None:
    """After a complete depth 2, never a move that allows a mate in one when another does not."""
    recorder = either_recorder
    problems = seeded_threats()
    assert recorder.ask(f"level depth {depth} nodes 0").startswith("depth")
    found: list[str] = []
    for problem in problems:
        set_position(recorder.kernel, problem.position)
        answer = recorder.ask("reg_genmove")
        if answer not in problem.moves:
            found.append(f"{problem.board}: answered {answer!r}")
            continue
        # The brute force has the last word on the move played.
        replies = mate_in(play(problem.position, answer), 1)
        if replies:
            found.append(f"{problem.board}: {answer} allows {replies[0]}")
        # Depth 2 complete, unless the side to move found a mate of its own before.
        search = recorder.searches[-1]
        assert search["depth"] >= 2 or search.get("mate", 0) > 0, search
    fail_on(found, len(problems))
    assert sum(len(p.moves) - len(p.safe) for p in problems) >= 3 * len(problems)
    assert {problem.position.side for problem in problems} == {WHITE, BLACK}


# --- reproducible ------------------------------------------------------------------------------


def reproducible_positions(count: int) -> list[Position]:
    """Seeded game positions of both sides, n = 3..6, up to 10 pieces (so that depth 3 takes
    a fraction of a second), in which the side to move has a move to choose."""
    rng = random.Random(5101)
    found: list[Position] = []
    while len(found) < count:
        n = (3, 4, 5, 6)[len(found) % 4]
        side = WHITE if len(found) // 4 % 2 == 0 else BLACK
        pos = game_position(rng, n, side, rng.randint(4, 10))
        if game_over(pos) is None and len(legal_moves(pos)) > 1:
            found.append(pos)
    return found


def search_trace(search: dict[str, Any]) -> tuple[Any, ...]:
    """What a search found and how far it looked; not how long it took."""
    return (
        search["move"],
        search["depth"],
        search.get("score_cp"),
        search.get("mate"),
        search["nodes"],
        tuple(search["pv"]),
    )


@pytest.mark.parametrize("level", ["depth 3", "nodes 2000"])
def test_a_fixed_level_gives_the_same_search_every_time(recorder: Recorder, level: str) -> None:
    """Asked twice, and again after the position was reached by a move and its undo:
    the same move, principal variation and node count."""
    problems: list[str] = []
    positions = reproducible_positions(10 * SWEEP)
    for pos in positions:
        set_position(recorder.kernel, pos)
        assert not recorder.ask(f"level depth 0 nodes 0 {level}").startswith("?")
        traces = []
        for _ in range(2):
            recorder.ask("reg_genmove")
            traces.append(search_trace(recorder.searches[-1]))
        # The same position again, after a move played and taken back.
        legal = recorder.ask("legal_moves").split()
        assert recorder.ask(f"play {legal[-1]}") == "" and recorder.ask("undo") == ""
        recorder.ask("reg_genmove")
        traces.append(search_trace(recorder.searches[-1]))
        if len(set(traces)) > 1:
            problems.append(f"{board_text(pos)}: {sorted(set(traces))}")
    fail_on(problems, len(positions))


def engine_traces(log_dir: Path, positions: list[Position], warm_up: bool) -> list[tuple[Any, ...]]:
    """Search every position at depth 3 and at 2000 nodes in one engine process; `warm_up`
    searches each position once more first, at another level."""
    engine = Engine(log_dir)
    answers: list[str] = []
    try:
        for pos in positions:
            assert engine.ask(f"set_board {board_text(pos)}") == b"= \n\n"
            if warm_up:
                engine.ask("level depth 2 nodes 0")
                engine.ask("reg_genmove")
            for level in ("depth 3 nodes 0", "depth 0 nodes 2000"):
                engine.ask(f"level {level}")
                answers.append(engine.ask("reg_genmove").decode())
        assert engine.ask("quit") == b"= \n\n"
        assert engine.finish()[0] == 0
    finally:
        engine.kill()
    searches = [event for event in read_json_log(log_dir) if event["event"] == "search"]
    if warm_up:
        searches = [s for index, s in enumerate(searches) if index % 3]
    assert [f"= {s['move']}\n\n" for s in searches] == answers
    return [search_trace(search) for search in searches]


def test_two_processes_search_alike(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two engines, their str hashes seeded differently, one having searched before: the same
    moves, lines and node counts at depth 3 and at 2000 nodes."""
    positions = reproducible_positions(8 * SWEEP)
    monkeypatch.setenv("PYTHONHASHSEED", "1")
    first = engine_traces(tmp_path / "one", positions, warm_up=False)
    monkeypatch.setenv("PYTHONHASHSEED", "2")
    second = engine_traces(tmp_path / "two", positions, warm_up=True)
    differ = [
        f"{board_text(pos)}: {a} / {b}"
        for pos, a, b in zip([p for p in positions for _ in range(2)], first, second, strict=True)
        if a != b
    ]
    fail_on(differ, len(positions))


# --- bad input and finished games --------------------------------------------------------------


def kernel_state(recorder: Recorder) -> tuple[Any, ...]:
    """Everything a refused command must leave as it was."""
    kernel = recorder.kernel
    clocks = kernel.clocks
    return (
        recorder.ask("get_board"),
        recorder.ask("level"),
        recorder.ask("result"),
        recorder.ask("printgame"),
        clocks.settings,
        [(side.time, side.stones) for side in clocks.sides],
        len(recorder.searches),
    )


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("genmove x", "? COLOR must be w, b, white or black, got 'x'"),
        ("genmove black", "? not black's move"),
        ("reg_genmove b", "? not black's move"),
        ("genmove white black", "? wrong number of arguments, usage: genmove [COLOR]"),
        ("time_settings -1 0 0", "? MAIN must be a number of seconds, 0 or more, got '-1'"),
        ("time_settings 1e30 0 0", "? MAIN must be"),
        ("time_settings 2000000 0 0", "? MAIN must be at most 1000000 seconds, got '2000000'"),
        ("time_settings 5 nan 0", "? BYO_TIME must be a number of seconds, 0 or more, got 'nan'"),
        ("time_settings 5 1 -3", "? BYO_STONES must be 0 or more, got -3"),
        ("time_settings 5 1", "? wrong number of arguments, usage: time_settings MAIN BYO_TIME"),
        ("time_left white abc", "? wrong number of arguments, usage: time_left COLOR TIME"),
        ("time_left white abc 0", "? TIME must be a number of seconds, 0 or more, got 'abc'"),
        ("time_left green 5 0", "? COLOR must be w, b, white or black, got 'green'"),
        ("time_left white 5 -1", "? STONES must be 0 or more, got -1"),
        ("level depth 99", "? depth must be at most 64, got 99"),
        ("level nodes -1", "? nodes must be 0 or more, got -1"),
        ("level time nan", "? time must be a number of seconds, 0 or more, got 'nan'"),
        ("level time inf", "? time must be a number of seconds, 0 or more, got 'inf'"),
        ("level time 1e9", "? time must be"),
        ("level time 100000", "? time must be at most 86400 seconds, got '100000'"),
        ("level foo 1", "? unknown level setting 'foo' (depth, nodes or time)"),
        ("level depth", "? level takes KEY VALUE pairs: depth N, nodes N, time S"),
        ("level depth 3 foo 1", "? unknown level setting 'foo' (depth, nodes or time)"),
        ("level depth 3 nodes x", "? nodes must be a whole number, got 'x'"),
    ],
)
def test_bad_input_is_refused_and_changes_nothing(
    recorder: Recorder, line: str, message: str
) -> None:
    """A `?` naming the problem; the position, the level, the result and the clocks stay."""
    assert recorder.ask("new_game 4") == ""
    assert recorder.ask("level depth 1 nodes 0 time 1") == "depth 1 nodes 0 time 1"
    assert recorder.ask("time_settings 60 0 0") == ""
    assert recorder.ask("play Qa2(I)-a3(II)") == ""
    assert recorder.ask("genmove") != ""  # black's reply: white is to move again
    before = kernel_state(recorder)
    assert recorder.ask(line).startswith(message)
    assert kernel_state(recorder) == before


#: A king and a rook against a king on 5³: room for a hundred quiet plies.
ROOK_ENDING = (
    "[####k,#####,#####,#####,#####],[#####,#####,#####,#####,#####],"
    "[#####,#####,#####,#####,#####],[#####,#####,#####,#####,#####],"
    "[#####,#####,#####,#####,R###K]"
)


def fifty_quiet_moves(rng: random.Random) -> list[str]:
    """Moves from ROOK_ENDING that capture nothing, mate nobody and repeat no position: 100
    plies, after which the fifty-move rule has the game drawn."""
    pos = parse_game(ROOK_ENDING)
    seen = {board_text(pos)}
    moves: list[str] = []
    while len(moves) < 100:
        options = [
            (name, after)
            for name, after in ((n, play(pos, n)) for n in legal_moves(pos))
            if "x" not in name and board_text(after) not in seen and has_legal_move(after)
        ]
        name, pos = rng.choice(options)
        seen.add(board_text(pos))
        moves.append(name)
    return moves


def test_a_finished_game_is_refused_with_its_result(recorder: Recorder) -> None:
    """Mate, stalemate, bare kings, threefold repetition and fifty quiet moves: genmove and
    reg_genmove answer `? game over: RESULT`, search nothing and change nothing."""

    def refused_as(result: str) -> None:
        assert recorder.ask("result") == result
        before = kernel_state(recorder)
        colour = "black" if recorder.ask("get_board").endswith(" b") else "white"
        for command in ("genmove", "reg_genmove", f"genmove {colour}"):
            assert recorder.ask(command) == f"? game over: {result}", command
        assert kernel_state(recorder) == before

    assert recorder.ask("level depth 1 nodes 0") == "depth 1 nodes 0 time 1"
    # Reference case 1: white is mated; white's mate in one of mate.tst, played.
    assert recorder.ask("set_board [###,n##,#rr],[#b#,###,###],[###,###,bRK]") == ""
    refused_as("0-1 (checkmate)")
    assert recorder.ask("set_board [#k#,###,#K#],[###,###,###],[###,#RQ,###]") == ""
    assert recorder.ask("play Qc2(I)-b2(II)") == ""
    refused_as("1-0 (checkmate)")
    # Reference case 5: stalemate.
    assert recorder.ask("set_board [###,##b,r#r],[###,###,###],[#k#,###,#K#]") == ""
    refused_as("1/2-1/2 (stalemate)")
    assert recorder.ask("set_board [##k,###,###],[###,###,###],[###,###,K##] b") == ""
    refused_as("1/2-1/2 (insufficient material)")
    # Threefold repetition: both kings step out and back twice.
    assert recorder.ask("set_board [##k,###,###],[###,###,###],[###,###,KR#]") == ""
    for move in ("Ka1(I)-a2(I)", "kc3(III)-c2(III)", "Ka2(I)-a1(I)", "kc2(III)-c3(III)") * 2:
        assert recorder.ask(f"play {move}") == ""
    refused_as("1/2-1/2 (threefold repetition)")
    # The fifty-move rule: 100 plies without a capture, no position repeated.
    assert recorder.ask(f"set_board {ROOK_ENDING}") == ""
    for move in fifty_quiet_moves(random.Random(6101)):
        assert recorder.ask(f"play {move}") == "", move
    refused_as("1/2-1/2 (fifty-move rule)")
    # One ply fewer, and the game goes on: genmove plays.
    assert recorder.ask("undo") == ""
    assert recorder.ask("result") == "*"
    assert not recorder.ask("reg_genmove").startswith("?")


def test_genmove_needs_a_game_position(recorder: Recorder) -> None:
    """No white king, or the side not to move in check: refused, saying which."""
    assert recorder.ask("boardsize 4") == ""
    assert recorder.ask("genmove") == "? no white king on the board"
    assert recorder.ask("set_board [#q,##],[##,K#] b") == ""
    before = kernel_state(recorder)
    assert recorder.ask("genmove") == "? the side not to move is in check"
    assert recorder.ask("reg_genmove black") == "? the side not to move is in check"
    assert kernel_state(recorder) == before


def test_resigns_a_lost_game_when_configured() -> None:
    """play.resign_cp: a side a queen and a rook down resigns after depth 2, playing nothing."""
    recorder = Recorder(EngineConfig(resign_cp=500))
    board = (
        "[####,####,####,##qk],[####,####,####,####],[###r,####,####,####],[####,####,####,K###]"
    )
    assert recorder.ask(f"set_board {board}") == ""
    assert recorder.ask("level depth 2") == "depth 2 nodes 0 time 1"
    assert recorder.ask("genmove") == "resign"
    assert recorder.ask("get_board") == board
    assert recorder.searches[-1]["move"] == "resign"
    assert recorder.searches[-1]["depth"] >= 2
    # The winning side plays on, and without resign_cp nobody resigns.
    assert recorder.ask(f"set_board {board} b") == ""
    assert not recorder.ask("genmove").startswith(("?", "resign"))
    keeps_playing = Recorder()
    assert keeps_playing.ask(f"set_board {board}") == ""
    assert keeps_playing.ask("level depth 2") == "depth 2 nodes 0 time 1"
    assert keeps_playing.ask("genmove").startswith("K")


def test_a_dead_draw_is_not_resigned() -> None:
    """The contempt scores a draw 300 below zero; resign_cp counts from the draw, so a side
    that cannot lose (a rook against a rook on 5³) plays on, while one facing a queen alone
    resigns."""
    recorder = Recorder(EngineConfig(resign_cp=200))
    board = (
        "5 [####k,#####,##r##,#####,#####],[#####,#####,#####,#####,#####],"
        "[#####,#####,#####,#####,#####],[#####,#####,#####,#####,#####],"
        "[#####,#####,#####,#####,K###R]"
    )
    assert recorder.ask(f"set_board {board}") == ""
    assert recorder.ask("level depth 2") == "depth 2 nodes 0 time 1"
    answer = recorder.ask("genmove")
    assert not answer.startswith(("?", "resign")), answer
    assert recorder.searches[-1]["score_cp"] <= -200  # the contempt, below the threshold
    lost = board.replace("##r##", "##q##").replace("K###R", "K####")
    assert recorder.ask(f"set_board {lost}") == ""
    assert recorder.ask("genmove") == "resign"


# --- regress/genmove.tst ------------------------------------------------------------------------

BEST_MOVES = REPO / "regress" / "genmove.tst"


def wins_a_queen(pos: Position, name: str) -> bool:
    """Tell whether a move takes the opponent's queen on a cell no opponent piece guards."""
    origin, target = parse_move(pos, name)
    if pos.pieces.get(target, "").lower() != "q":
        return False
    after = apply_move(pos, origin, target)
    return not attackers(after, target, after.side)


def test_the_best_move_suite_holds_the_brute_forces_answers() -> None:
    """Every answer regress/genmove.tst expects is exactly the set of moves its number names:
    the keys of mate in 1, of mate in 2 (not in 1), the safe queen captures, the moves that
    allow no mate in one; at the depth its header gives."""
    steps = parse_suite(BEST_MOVES.read_text(encoding="utf-8"), BEST_MOVES.name)
    depths = {1: 1, 2: 3, 3: 2, 4: 2}
    pos: Position | None = None
    depth = 0
    checked: Counter[int] = Counter()
    for step in steps:
        words = step.command.split()
        if step.number is None:
            if words[0] == "set_board":
                pos = parse_game(" ".join(words[1:]))
            elif words[0] == "level":
                depth = int(words[2])
            continue
        if words[1] != "reg_genmove":
            continue
        assert pos is not None and step.pattern is not None, step
        kind = step.number // 100
        expected = {alternative.replace("\\", "") for alternative in step.pattern.split("|")}
        assert depth == depths[kind], step
        if kind in (1, 2):
            assert expected == set(mate_in(pos, kind)), step
            assert kind == 1 or not mate_in(pos, 1), step
        elif kind == 3:
            assert expected == {name for name in legal_moves(pos) if wins_a_queen(pos, name)}
        else:
            safe = {name for name, after in successors(pos) if not mate_in(after, 1)}
            assert expected == safe and 0 < len(safe) < len(legal_moves(pos)) / 2, step
        checked[kind] += 1
    assert checked == {1: 4, 2: 6, 3: 2, 4: 4}
