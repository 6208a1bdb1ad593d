"""`genmove` keeps to its time, through the real process.

Issue 21's rule: a move never takes more than its budget + 10 % + 50 ms, and a side with a clock
never runs out of time. The budgets are worked out by hand from clock.py's rule (held to it
exactly by tests/test_clock.py); each move is checked twice, on the `time_ms` the engine logs in
its `search` event and on the wall time the controller sees from sending `genmove` to the
answer. No lower bound is asserted, and the upper bounds carry an allowance for a loaded
machine: two cores shared by several test runs may keep the engine off the CPU for a while,
which no engine can help. That while is measured, not guessed: the kernel counts the time the
engine's main thread spent ready to run but waiting for a CPU (/proc/PID/schedstat), and each
bound grows by it, beyond a small fixed allowance for the rest. A search that ignored its
time would still overrun these bounds by far: the positions here take seconds to search to
any useful depth.
"""

from __future__ import annotations

import os
import random
import select
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from kernel.clock import Clocks, TimeSettings
from kernel.config import EngineConfig
from kernel.kernel import Kernel
from tests.conftest import Engine, ask, read_json_log, set_position
from tests.positions import game_position, noise_game_position
from tests.problems import MateProblem, seeded_mates
from tests.reference import (
    BLACK,
    WHITE,
    Position,
    apply_move,
    board_text,
    mates_after,
    parse_move,
)

#: Seconds the machine's load may add to a move beyond the rule and the measured wait for a
#: CPU (caches gone cold, page faults, the log's disk writes).
SCHEDULING = 0.15
#: Seconds for the line and the answer to cross the pipes and the logs to be written.
ANSWERING = 0.35


def allowed(budget: float) -> float:
    """The issue's rule: the budget, 10 % more, and 50 ms."""
    return budget * 1.1 + 0.05


class Controller:
    """An engine process asked for moves the way a GUI asks: the wall time of each is kept."""

    def __init__(self, log_dir: Path) -> None:
        self.log_dir = log_dir
        self.engine = Engine(log_dir)
        #: Seconds the engine waited for a CPU during the last timed line.
        self.waited = 0.0

    def ask(self, line: str) -> str:
        """Send a line; return the answer without `= ` and the empty line; fail on `?`."""
        reply = self.engine.ask(line).decode()
        assert reply.startswith("= "), (line, reply)
        return reply[2:-2]

    def timed(self, line: str) -> tuple[str, float]:
        """Ask for a move; return it and the seconds from sending to the whole answer."""
        waited = waited_for_cpu(self.engine.pid)
        started = time.monotonic()
        answer = self.ask(line)
        seconds = time.monotonic() - started
        self.waited = waited_for_cpu(self.engine.pid) - waited
        return answer, seconds

    def last_search(self) -> dict[str, Any]:
        """The last `search` event of the JSON log."""
        return [event for event in read_json_log(self.log_dir) if event["event"] == "search"][-1]

    def close(self) -> None:
        assert self.ask("quit") == ""
        code, rest, errors = self.engine.finish()
        assert (code, rest, errors) == (0, b"", b"")


def waited_for_cpu(pid: int) -> float:
    """Seconds the main thread of process `pid` has spent ready to run but waiting for a CPU,
    as the kernel counts them; 0 where it does not say."""
    try:
        return int(Path(f"/proc/{pid}/schedstat").read_text().split()[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return 0.0


@pytest.fixture
def controller(log_dir: Path) -> Any:
    process = Controller(log_dir)
    try:
        yield process
    finally:
        process.engine.kill()


def check_move(
    controller: Controller, line: str, budget: float, what: str
) -> tuple[str, dict[str, Any]]:
    """Ask for a move under `budget` seconds; check it against the rule, logged and on the wall."""
    answer, wall = controller.timed(line)
    search = controller.last_search()
    assert search["move"] == answer, (what, search)
    slack = SCHEDULING + controller.waited
    assert search["time_ms"] / 1000 <= allowed(budget) + slack, (what, budget, search, slack)
    assert wall <= allowed(budget) + slack + ANSWERING, (what, budget, wall, search, slack)
    return answer, search


def middle_game(seed: int, n: int, pieces: int) -> Position:
    """A crowded game position with moves to choose from, pieces thrown anywhere."""
    rng = random.Random(seed)
    while True:
        pos = noise_game_position(rng, n, "w" if seed % 2 else "b", pieces)
        if "k" in pos.pieces.values():
            return pos


def test_level_time_bounds_every_move(controller: Controller) -> None:
    """`level time 0.2` on the start positions of n = 4, 5, 8 and crowded middle games."""
    assert controller.ask("level depth 0 nodes 0 time 0.2") == "depth 0 nodes 0 time 0.2"
    for n in (4, 5, 8):
        assert controller.ask(f"new_game {n}") == ""
        for ply in range(2):
            check_move(controller, "genmove", 0.2, f"n = {n} ply {ply}")
    for seed, n, pieces in ((11, 5, 40), (12, 6, 60), (13, 8, 120)):
        pos = middle_game(seed, n, pieces)
        assert controller.ask(f"set_board {board_text(pos)}") == ""
        answer, _ = check_move(controller, "reg_genmove", 0.2, board_text(pos))
        parse_move(pos, answer)  # legal, or the brute force says why not
    controller.close()


#: Clock commands and the budget of the move that follows, worked out by hand (clock.py).
CLOCKS: list[tuple[list[str], float]] = [
    (["time_settings 2 0 0"], 2 / 25 - 0.05),  # 30 ms: main time over 25 moves, less 50 ms
    (["time_settings 60 0 0", "time_left white 1 0"], 0.01),  # the shortest budget
    (["time_settings 300 0 0", "time_left w 0.6 2"], min(0.6 / 2, 0.8 * 0.6) - 0.05),  # 250 ms
    (["time_settings 0 1 1"], 1.0 - 0.005),  # the period's one move: all of it, less the reserve
    (["time_settings 0 1 0", "level depth 0 nodes 0 time 0.2"], 0.2),  # no limit: the level's
    (["time_settings 3 0 0", "level depth 64 nodes 0 time 1"], 3 / 25 - 0.05),  # clock > depth
    (["time_settings 3 0 0", "level depth 0 nodes 5000000 time 1"], 3 / 25 - 0.05),  # > nodes
]


def test_clocks_bound_every_move(controller: Controller) -> None:
    """Short clocks, a byo-yomi period and the unlimited clock: each move within its budget."""
    for commands, budget in CLOCKS:
        assert controller.ask("new_game 5") == ""
        assert controller.ask("level depth 0 nodes 0 time 1") == "depth 0 nodes 0 time 1"
        for command in commands:
            controller.ask(command)
        check_move(controller, "genmove white", budget, " ".join(commands))
    controller.close()


def test_n64_with_300_pieces_answers_within_its_time(controller: Controller) -> None:
    """Stopped at any node, even where one iteration would take seconds."""
    rng = random.Random(6464)
    checked = 0
    for index in range(40):
        pos = game_position(rng, 64, WHITE if index % 2 == 0 else BLACK, 300)
        board = board_text(pos)
        assert controller.ask(f"set_board {board}") == ""
        if controller.ask("result") != "*":
            continue  # a generated mate or stalemate: nothing to search
        if checked % 2 == 0:
            assert controller.ask("level depth 0 nodes 0 time 0.3").endswith("time 0.3")
            assert controller.ask("time_settings 0 1 0") == ""
            budget = 0.3
        else:
            assert controller.ask("time_settings 10 0 0") == ""
            budget = 10 / 25 - 0.05
        answer, _ = check_move(controller, "reg_genmove", budget, board[:80])
        parse_move(pos, answer)
        checked += 1
        if checked == 2:
            break
    assert checked == 2
    controller.close()


def test_a_game_under_time_settings_5_0_0_never_runs_out(controller: Controller) -> None:
    """Both sides played by the engine on its own clock, five seconds each, to the game's end:
    the time the controller sees never reaches five seconds for either side, but for what the
    engine spent waiting for a CPU (on a busy machine a game of 180 plies may wait tens of
    milliseconds before its lines are even read, where no engine can count it)."""
    assert controller.ask("new_game 4") == ""
    assert controller.ask("time_settings 5 0 0") == ""
    # The engine's clock, kept as it keeps its own: each move's search time taken off.
    clocks = Clocks(TimeSettings(5.0, 0.0, 0))
    used = [0.0, 0.0]
    starved = [0.0, 0.0]
    plies = 0
    while controller.ask("result") == "*":
        side = plies % 2
        budget = clocks.budget(side)
        assert budget is not None
        _, wall = controller.timed("genmove")
        search = controller.last_search()
        used[side] += wall
        starved[side] += controller.waited
        clocks.spend(side, search["time_ms"] / 1000)
        ran = used[side] - starved[side]
        assert ran < 5.0, f"{('white', 'black')[side]} ran out on ply {plies}: {used}, {starved}"
        slack = SCHEDULING + controller.waited
        assert search["time_ms"] / 1000 <= allowed(budget) + slack, (plies, budget, search, slack)
        plies += 1
    result = controller.ask("result")
    assert result.split(" ")[0] in ("1-0", "0-1", "1/2-1/2"), result
    assert plies >= 4
    controller.close()


def test_a_period_of_one_move_is_used_and_never_overrun(controller: Controller) -> None:
    """`time_settings 0 S 1` (S seconds a move): each move thinks most of S, and the answer
    comes back within S, as the controller's own clock sees it (issue 36: at least 70 % on
    average, never past S; the reserve is the engine's own overhead, measured)."""
    seconds = 0.3
    assert controller.ask("new_game 5") == ""
    assert controller.ask(f"time_settings 0 {seconds} 1") == ""
    walls: list[float] = []
    for ply in range(6):
        _, wall = controller.timed("genmove")
        slack = SCHEDULING + controller.waited
        assert wall <= seconds + slack, (ply, wall, slack)
        walls.append(wall)
        if controller.ask("result") != "*":
            break
    assert sum(walls) / len(walls) >= 0.7 * seconds, walls
    controller.close()


#: The most positions a mate problem's fixed-depth search may need to be given a second here:
#: even a machine four times slower than a quiet one visits them in well under half a second,
#: after which the search starts no new depth.
QUICK_MATE_NODES = 2000
#: Seconds of a one-second move spent waiting for a CPU past which the search may not have
#: reached the mate's depth (four pytest workers on two cores once kept it from one).
STARVED = 0.25


def quick_mates() -> list[MateProblem]:
    """Of the seeded mates in 1, 2 and 3, up to four each that a fixed depth of 2N - 1 finds
    within QUICK_MATE_NODES positions (found in process; the search at a time level goes through
    the same depths, as far as its time lets it; test_genmove.py checks the moves)."""
    kernel = Kernel(EngineConfig())
    searches: list[dict[str, Any]] = []
    kernel.log_event = lambda name, fields: searches.append(fields)
    chosen: list[MateProblem] = []
    for moves in (1, 2, 3):
        assert ask(kernel, f"level depth {2 * moves - 1} nodes 0").startswith("depth")
        quick = []
        for problem in seeded_mates(moves):
            set_position(kernel, problem.position)
            ask(kernel, "reg_genmove")
            search = searches[-1]
            if search.get("mate") == moves and search["nodes"] <= QUICK_MATE_NODES:
                quick.append(problem)
        chosen += quick[:4]
    return chosen


def test_mates_are_found_at_one_second(controller: Controller) -> None:
    """`level time 1`, as the issue's goal has it: a key of mate in N, and the search says so."""
    problems = quick_mates()
    assert controller.ask("level depth 0 nodes 0 time 1") == "depth 0 nodes 0 time 1"
    for problem in problems:
        assert controller.ask(f"set_board {problem.board}") == ""
        answer, search = check_move(controller, "genmove", 1.0, problem.board)
        origin, target = parse_move(problem.position, answer)
        after = apply_move(problem.position, origin, target)
        assert mates_after(after, problem.moves), (problem.board, answer, search)
        if "mate" not in search and controller.waited > STARVED:
            continue  # the machine, not the search, ran out of time: a key was still played
        assert search.get("mate") == problem.moves, (problem.board, search, controller.waited)
    assert {problem.moves for problem in problems} == {1, 2, 3}
    assert {problem.position.side for problem in problems} == {WHITE, BLACK}
    controller.close()


def wait_for_thinking(engine: Engine) -> bytes:
    """Read the engine's stderr until its first thinking line: the search is under way."""
    stderr = engine.process.stderr
    assert stderr is not None
    seen = b""
    deadline = time.monotonic() + 30.0
    while b"\n" not in seen:
        assert time.monotonic() < deadline, seen
        ready, _, _ = select.select([stderr.fileno()], [], [], 1.0)
        if ready:
            chunk = os.read(stderr.fileno(), 4096)
            assert chunk, "stderr closed"
            seen += chunk
    return seen


def thinking_engine(tmp_path: Path, log_dir: Path, config: str) -> Engine:
    """An engine (thinking lines always on, `config` added) in the middle of a genmove on the
    5³ start without a limit, its first depth done."""
    path = tmp_path / "always.toml"
    path.write_text('[play]\nthinking = "always"\n' + config, encoding="utf-8")
    engine = Engine(log_dir, "--config", str(path))
    try:
        assert engine.ask("new_game 5") == b"= \n\n"
        assert engine.ask("level time 0") == b"= depth 0 nodes 0 time 0\n\n"
        engine.send(b"genmove\n")
        assert wait_for_thinking(engine).startswith(b"depth 1 ")
    except BaseException:
        engine.kill()
        raise
    return engine


@pytest.mark.parametrize(
    "signum",
    [signal.SIGINT, signal.SIGTERM],
)
def test_a_signal_during_a_search_ends_the_engine(tmp_path: Path, signum: signal.Signals) -> None:
    """SIGINT or SIGTERM while genmove thinks: no answer, exit 0, the log says which signal."""
    log_dir = tmp_path / "logs"
    engine = thinking_engine(tmp_path, log_dir, "")
    try:
        engine.signal(signum)
        code, rest, _ = engine.finish()
    finally:
        engine.kill()
    assert (code, rest) == (0, b"")
    end = read_json_log(log_dir, session=True)[-1]
    assert (end["event"], end["reason"], end["signal"]) == ("exit", "signal", signum.name)


@pytest.mark.parametrize("compiled", [True, False])
def test_sigusr1_during_a_search_plays_the_best_move_so_far(tmp_path: Path, compiled: bool) -> None:
    """SIGUSR1 while genmove thinks without a limit: the search stops at once, in the compiled
    core as in Python, and the best move found so far is played; the engine goes on."""
    log_dir = tmp_path / "logs"
    engine = thinking_engine(tmp_path, log_dir, f"[search]\ncompiled = {str(compiled).lower()}\n")
    try:
        stopped = time.monotonic()
        engine.signal(signal.SIGUSR1)
        answer = engine.read_response()
        assert time.monotonic() - stopped < 2.0
        assert answer.startswith(b"= ") and answer.endswith(b"\n\n"), answer
        assert engine.ask("result") == b"= *\n\n"
        assert engine.ask("quit") == b"= \n\n"
    finally:
        engine.kill()
    search = [event for event in read_json_log(log_dir) if event["event"] == "search"][-1]
    assert search["move"] == answer[2:-2].decode() and search["depth"] >= 1
