"""The player, `genmove` (issues 21 and 36): speed, depth, time use, memory and mates.

- Speed, in process, the compiled search beside the Python one (bench/player_speed.py):
  `reg_genmove` at `level time S` on the start positions of n = 4, 5 and 8 and on seeded
  crowded middle games on 5³ and 8³; positions per second of CPU and of wall time, the depth
  completed, and the ratio compiled / Python.
- Through the engine process (bench/player_process.py): a move at n = 64 with 300 pieces, the
  time a move thinks under `time_settings 0 S 1`, and the engine's peak memory.
- Mates, through the engine process: seeded problems that mate in 1, 2 and 3 and not sooner
  (tests/problems.py, both sides to move), `genmove` at `level time 1`; a problem is solved when
  the brute force of tests/reference.py accepts the move as a mate in N.
- sunfish (2D chess, CPython) for comparison, with `--sunfish PATH` to its sunfish.py: its own
  search on the 8×8 start position for the same time, positions per second of CPU and of wall
  time. Without it the figure measured once on this project's machine is printed.

Goals: those of the two modules, and every mate found at one second.

`python -m bench.play [--quick] [--sunfish PATH]` prints the section; `section(quick, sunfish)`
returns it and the goals for bench/__main__.py.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench import player_process, player_speed
from bench.peer import Peer
from bench.player_speed import Speed
from bench.report import Goal, table
from kernel.compiled import COMPILED
from tests.problems import MateProblem, exact_mates
from tests.reference import WHITE, apply_move, mates_after, parse_move

#: Seconds a move in the mate problems, as the issue's goal has it.
MATE_SECONDS = 1.0
#: sunfish measured on this project's machine (2 cores shared, load average 4): sunfish.py of
#: github.com/thomasahle/sunfish at a8feb63, run by CPython 3.11.7 from outside this repository,
#: its Searcher on the 8×8 start position for 1 s (once) and 3 s (three times), `Searcher.nodes`
#: over process_time and over the wall time. The engine was measured in the same run.
SUNFISH_MEASURED = (
    "sunfish (2D chess, CPython 3.11.7, measured on this machine at load 4): 9,000 to 12,500\n"
    "  positions/s of CPU, 5,900 to 8,000 of wall time, on the 8×8 start position (depth 5 to 6\n"
    "  in 1 to 3 s); the engine's Python search in the same run, start n = 5: 32,112 of CPU,\n"
    "  21,914 of wall"
)


@dataclass(frozen=True, slots=True)
class Settings:
    """How much to measure: speed in process, mates, and the moves through the process."""

    seconds: float
    repeats: int
    middle_games: int
    mates: tuple[int, int, int]
    mate_seconds: float
    #: 64-cubes with 300 pieces, and the seconds of their moves (and of the 5³ memory move).
    large_boards: int
    large_seconds: float
    #: The S of `time_settings 0 S 1`, and the moves played under each.
    byo_yomi: tuple[float, ...]
    byo_moves: int


FULL = Settings(1.0, 3, 3, (8, 8, 6), MATE_SECONDS, 3, 1.0, (0.1, 0.3, 1.0, 3.0), 8)
QUICK = Settings(0.05, 1, 1, (1, 1, 1), 0.5, 1, 0.3, (0.1, 0.3), 2)


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
        player_process.set_up(peer, [f"level time {seconds:g}"])
        for problem in problems:
            player_process.set_up(peer, [f"set_board {problem.board}"])
            played = player_process.genmove(peer)
            if played is None:
                raise RuntimeError(f"genmove refused on {problem.board}: game over")
            origin, target = parse_move(problem.position, played.move)
            mates = mates_after(apply_move(problem.position, origin, target), problem.moves)
            solved.append(Solved(problem, played.move, mates, played.search))
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


def sunfish_text(speed: Speed, path: Path) -> str:
    """sunfish's figures of this run."""
    return (
        f"sunfish measured in this run from {path}: {speed.cpu_rate:,.0f} positions/s of CPU, "
        f"{speed.wall_rate:,.0f} of wall, depth {speed.depth}, on the 8×8 start position"
    )


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


def mate_goal(solved: list[Solved], seconds: float) -> Goal:
    """Every mate found."""
    found = sum(entry.mates for entry in solved)
    return Goal(
        f"genmove at {seconds:g} s: mates in 1-3 found",
        f"{found} of {len(solved)}",
        "all",
        found == len(solved),
    )


def mate_text(solved: list[Solved], seconds: float) -> str:
    """The mate problems' table and how to read it."""
    return "\n".join(
        [
            f"Mates: genmove at level time {seconds:g} through the process on seeded "
            "problems that mate in N",
            "  and not sooner (tests/problems.py); mates = the brute force accepts the move "
            "as a mate in N",
            "",
            table(
                ["problem", "N", "n", "pieces", "to move", "move", "depth", "mate", "ms", "mates"],
                mate_rows(solved),
            ),
        ]
    )


def section(quick: bool, sunfish: Path | None = None) -> tuple[str, list[Goal]]:
    """Measure everything; return the section's text and its goals."""
    settings = QUICK if quick else FULL
    pairs = player_speed.measure(
        settings.seconds, settings.repeats, settings.middle_games, progress
    )
    fellow = None
    if sunfish is not None:
        progress("player: sunfish")
        fellow = sunfish_speed(sunfish, settings.seconds)
    through = player_process.measure(
        settings.large_boards,
        settings.large_seconds,
        settings.byo_yomi,
        settings.byo_moves,
        progress,
    )
    progress("player: mate problems")
    solved = solve_mates(mate_problems(settings), settings.mate_seconds)
    found = [
        *player_speed.goals(pairs, settings.seconds),
        *player_process.goals(through),
        mate_goal(solved, settings.mate_seconds),
    ]
    lines = [
        player_speed.text(pairs, settings.seconds, settings.repeats, COMPILED),
        "",
        SUNFISH_MEASURED if fellow is None or sunfish is None else sunfish_text(fellow, sunfish),
        "",
        player_process.text(through),
        "",
        mate_text(solved, settings.mate_seconds),
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
