"""The player, `genmove` (issue 21): positions searched per second, depth reached, mates found.

- Speed, in process: `reg_genmove` at `level time S` on the start positions of n = 4, 5 and 8
  and on seeded crowded middle games; the positions the search counts, per second of CPU
  (time.process_time) and of wall time, and the depth it completed. Median of a few runs.
- Mates, through the engine process: seeded problems that mate in 1, 2 and 3 and not sooner
  (tests/problems.py, both sides to move), `genmove` at `level time 1`; a problem is solved when
  the brute force of tests/reference.py accepts the move as a mate in N.
- sunfish (2D chess, CPython) for comparison, with `--sunfish PATH` to its sunfish.py: its own
  search on the 8×8 start position for the same time, positions per second of CPU and of wall
  time. Without it the figure measured once on this project's machine is printed.

Goals: at least 20,000 positions a second at n = 5 (the start position, CPU time) and every
mate found at one second.

`python -m bench.play [--quick] [--sunfish PATH]` prints the section; `section(quick, sunfish)`
returns it and the goals for bench/__main__.py.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.peer import Peer
from bench.report import Goal, table
from kernel.config import EngineConfig
from kernel.kernel import Kernel
from kernel.notation import format_board
from kernel.start import start_position
from tests.positions import noise_game_position
from tests.problems import MateProblem, exact_mates
from tests.reference import BLACK, WHITE, apply_move, board_text, mates_after, parse_move

#: Positions a second the player must search at n = 5 (the start position, CPU time).
NPS_GOAL = 20_000
#: Seconds a move in the mate problems, as the issue's goal has it.
MATE_SECONDS = 1.0
#: sunfish measured on this project's machine (2 cores shared, load average 4): sunfish.py of
#: github.com/thomasahle/sunfish at a8feb63, run by CPython 3.11.7 from outside this repository,
#: its Searcher on the 8×8 start position for 1 s (once) and 3 s (three times), `Searcher.nodes`
#: over process_time and over the wall time. The engine was measured in the same run.
SUNFISH_MEASURED = (
    "sunfish (2D chess, CPython 3.11.7, measured on this machine at load 4): 9,000 to 12,500\n"
    "  positions/s of CPU, 5,900 to 8,000 of wall time, on the 8×8 start position (depth 5 to 6\n"
    "  in 1 to 3 s); the engine in the same run, start n = 5: 32,112 of CPU, 21,914 of wall"
)


@dataclass(frozen=True, slots=True)
class Settings:
    """How much to measure."""

    seconds: float
    repeats: int
    middle_games: int
    mates: tuple[int, int, int]
    mate_seconds: float


FULL = Settings(1.0, 3, 3, (8, 8, 6), MATE_SECONDS)
QUICK = Settings(0.05, 1, 1, (1, 1, 1), 0.5)


@dataclass(frozen=True, slots=True)
class Speed:
    """One position searched for a time: positions, CPU and wall seconds, depth completed."""

    label: str
    pieces: int
    nodes: int
    cpu: float
    wall: float
    depth: int

    @property
    def cpu_rate(self) -> float:
        return self.nodes / self.cpu if self.cpu > 0 else 0.0

    @property
    def wall_rate(self) -> float:
        return self.nodes / self.wall if self.wall > 0 else 0.0


@dataclass(frozen=True, slots=True)
class Solved:
    """One mate problem through the process: what was played and whether it mates in N."""

    problem: MateProblem
    move: str
    mates: bool
    search: dict[str, Any]


def progress(message: str) -> None:
    """Tell the person waiting what is being measured."""
    print(message, file=sys.stderr, flush=True)


def middle_games(count: int) -> list[tuple[str, str]]:
    """Seeded crowded game positions (pieces anywhere, captures everywhere): label, board."""
    boards = []
    for n, pieces in ((5, 30), (8, 64)):
        rng = random.Random(f"play-{n}-{pieces}")
        for index in range(count):
            pos = noise_game_position(rng, n, WHITE if index % 2 == 0 else BLACK, pieces)
            boards.append((f"middle game {index + 1}, n = {n}, {pieces} pieces", board_text(pos)))
    return boards


def start_boards() -> list[tuple[str, str]]:
    """The start positions of n = 4, 5 and 8, as set_board takes them."""
    return [(f"start n = {n}", format_board(start_position(n), "#")) for n in (4, 5, 8)]


def search_speed(label: str, board: str, settings: Settings) -> Speed:
    """Search one position at `level time`, `repeats` times; keep the median run by CPU rate."""
    kernel = Kernel(EngineConfig())
    searches: list[dict[str, Any]] = []
    kernel.log_event = lambda name, fields: searches.append(fields)
    words = board.split(" ")
    for command, args in (("set_board", words), ("level", ["time", f"{settings.seconds:g}"])):
        reply = kernel.execute(command, args)
        if not reply.ok:
            raise RuntimeError(f"{command} refused on {board[:80]}: {reply.text}")
    runs = []
    for _ in range(settings.repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        reply = kernel.execute("reg_genmove", [])
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        if not reply.ok:
            raise RuntimeError(f"reg_genmove refused on {board[:80]}: {reply.text}")
        search = searches[-1]
        pieces = sum(len(side) for side in kernel.position.pieces)
        runs.append(Speed(label, pieces, search["nodes"], cpu, wall, search["depth"]))
    runs.sort(key=lambda run: run.cpu_rate)
    return runs[len(runs) // 2]


def mate_problems(settings: Settings) -> list[MateProblem]:
    """Seeded mates in 1, 2 and 3 and not sooner, both sides to move (tests/problems.py)."""
    ones, twos, threes = settings.mates
    return [
        *exact_mates(7101, 1, ones, (3, 4, 5, 6), (4, 9)),
        *exact_mates(7102, 2, twos, (3, 4, 5), (4, 7)),
        *exact_mates(7103, 3, threes, (3, 4), (4, 6)),
    ]


def solve_mates(problems: list[MateProblem], seconds: float) -> list[Solved]:
    """Play `genmove` at `level time` on each problem through one engine process."""
    solved = []
    with Peer("engine") as peer:
        peer.ask(f"level time {seconds:g}\n".encode(), 1)
        log = peer.log_dir / "cubemate.jsonl"
        for problem in problems:
            reply = peer.ask(f"set_board {problem.board}\ngenmove\n".encode(), 2)[1]
            if not reply.startswith(b"= "):
                raise RuntimeError(f"genmove refused on {problem.board}: {reply!r}")
            move = reply[2:].decode()
            events = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
            search = [event for event in events if event["event"] == "search"][-1]
            if search["move"] != move:
                raise RuntimeError(f"the search event is not genmove's: {search}")
            origin, target = parse_move(problem.position, move)
            mates = mates_after(apply_move(problem.position, origin, target), problem.moves)
            solved.append(Solved(problem, move, mates, search))
    return solved


def sunfish_speed(path: Path, seconds: float) -> Speed:
    """Run sunfish's own search on the 8×8 start position for `seconds`."""
    spec = importlib.util.spec_from_file_location("sunfish", path)
    if spec is None or spec.loader is None:
        raise RuntimeError(f"{path}: not a Python file")
    sunfish: Any = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sunfish)
    searcher = sunfish.Searcher()
    history = [sunfish.Position(sunfish.initial, 0, (True, True), (True, True), 0, 0)]
    searcher.deadline = searcher.soft = time.time() + seconds
    depth = 0
    wall, cpu = time.perf_counter(), time.process_time()
    try:
        for iteration in searcher.search(history):
            depth = iteration[0]  # its iterations yield (depth, gamma, score, move)
            if time.perf_counter() - wall > seconds:
                break
    except sunfish.Stop:
        pass
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return Speed("sunfish, 8×8 start (this run)", 32, searcher.nodes, cpu, wall, depth)


def speed_rows(speeds: list[Speed]) -> list[list[str]]:
    """One table row per position searched."""
    return [
        [
            speed.label,
            str(speed.pieces),
            f"{speed.nodes:,}",
            f"{speed.cpu_rate:,.0f}",
            f"{speed.wall_rate:,.0f}",
            str(speed.depth),
        ]
        for speed in speeds
    ]


def mate_rows(solved: list[Solved]) -> list[list[str]]:
    """One table row per mate problem."""
    return [
        [
            str(index),
            str(entry.problem.moves),
            str(entry.problem.position.n),
            str(len(entry.problem.position.pieces)),
            "white" if entry.problem.position.side == WHITE else "black",
            entry.move,
            str(entry.search["depth"]),
            str(entry.search.get("mate", "-")),
            f"{entry.search['time_ms']:,}",
            "yes" if entry.mates else "NO",
        ]
        for index, entry in enumerate(solved, start=1)
    ]


def goals(speeds: list[Speed], solved: list[Solved], seconds: float) -> list[Goal]:
    """The issue's goals: the rate at n = 5 and every mate found."""
    five = next(speed for speed in speeds if speed.label == "start n = 5")
    found = sum(entry.mates for entry in solved)
    return [
        Goal(
            "genmove, start n = 5: positions/s of CPU",
            f"{five.cpu_rate:,.0f}",
            f"≥ {NPS_GOAL:,}",
            five.cpu_rate >= NPS_GOAL,
        ),
        Goal(
            f"genmove at {seconds:g} s: mates in 1-3 found",
            f"{found} of {len(solved)}",
            "all",
            found == len(solved),
        ),
    ]


def section(quick: bool, sunfish: Path | None = None) -> tuple[str, list[Goal]]:
    """Measure everything; return the section's text and its goals."""
    settings = QUICK if quick else FULL
    speeds = []
    for label, board in start_boards() + middle_games(settings.middle_games):
        progress(f"player: {label}")
        speeds.append(search_speed(label, board, settings))
    if sunfish is not None:
        progress("player: sunfish")
        speeds.append(sunfish_speed(sunfish, settings.seconds))
    progress("player: mate problems")
    solved = solve_mates(mate_problems(settings), settings.mate_seconds)
    found = goals(speeds, solved, settings.mate_seconds)
    lines = [
        f"The player: reg_genmove at level time {settings.seconds:g} in process, median of "
        f"{settings.repeats} by CPU rate;",
        "  positions = the search's own count (tree and quiescence); depth = the last one "
        "completed",
        "",
        table(
            ["position", "pieces", "positions", "per s CPU", "per s wall", "depth"],
            speed_rows(speeds),
        ),
        "",
        SUNFISH_MEASURED if sunfish is None else f"sunfish measured in this run from {sunfish}",
        "",
        f"Mates: genmove at level time {settings.mate_seconds:g} through the process on seeded "
        "problems that mate in N",
        "  and not sooner (tests/problems.py); mates = the brute force accepts the move as a "
        "mate in N",
        "",
        table(
            ["problem", "N", "n", "pieces", "to move", "move", "depth", "mate", "ms", "mates"],
            mate_rows(solved),
        ),
        "",
        *(f"{goal.name}: {goal.measured} (goal {goal.limit}) {goal.verdict}" for goal in found),
    ]
    return "\n".join(lines), found


def main(argv: list[str] | None = None) -> int:
    """Print the section."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.play", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--quick", action="store_true", help="small counts, for a smoke test")
    parser.add_argument("--sunfish", type=Path, help="sunfish.py to measure in the same run")
    args = parser.parse_args(argv)
    print(section(args.quick, args.sunfish)[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
