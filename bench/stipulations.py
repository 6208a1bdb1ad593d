"""Selfmates and helpmates: `selfmate N` and `helpmate N` through the engine process, beside
the brute force of tests/stipulations.py in the same run.

The problems are kept here so that every run times the same boards: selfmates and helpmates
in 3 of at most 7 pieces on n <= 4, both sides to move, mined with the engine from
tests.positions.noise_game_position and tests.stipulation_problems.hunted (the selfmates:
no selfmate in 2, a key in 3; the helpmates: no helpmate in 2, one to four solutions in 3),
and one 4-cube position without a selfmate, whose disproof is the search's whole tree.
Each is set with `set_board` and asked through the pipes (best of a few runs). The brute
force plays every line, and at N = 3 (six plies) it takes minutes a problem; it is timed at
N = 2 on the same boards, smallest first while its time budget lasts, beside the engine's
N = 2, where their answers must agree. Goal of issue 40: `selfmate 3` and `helpmate 3` each
under 1 s on every problem.

`python -m bench.stipulations [--quick]` prints the section; `section(quick)` returns it for
bench/__main__.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import dataclass

from bench.peer import Peer
from bench.report import Goal, goals_table, table
from tests.reference import parse_game
from tests.stipulations import helpmate as brute_helpmate
from tests.stipulations import selfmate as brute_selfmate

#: Selfmates in 3 and not in 2, and a 4-cube position with none (its disproof).
SELFMATES: tuple[str, ...] = (
    "[q##,###,#k#],[###,#RR,##q],[###,K##,Q##] b",
    "[rk#,#q#,N##],[N##,###,###],[###,#Q#,K##] b",
    "[k##,###,##q],[#bK,###,n##],[#QQ,###,###]",
    "[####,####,####,rb##],[###Q,#kb#,####,#rK#],[####,####,####,####],[####,####,####,####]",
)
#: Helpmates in 3 with one to four solutions and no helpmate in 2.
HELPMATES: tuple[str, ...] = (
    "[###,###,#r#],[##b,##b,r##],[K##,###,###]",
    "[####,####,####,####],[#n##,###k,####,####],[####,####,####,##rb],[####,####,####,###K]",
    "[k##B,##K#,####,####],[####,####,####,####],[NB##,####,#R##,####],[####,#B##,####,####] b",
    "[####,####,####,####],[####,#n##,####,####],[####,##r#,####,####],[K#R#,####,####,###k]",
    "[B###,####,####,####],[##R#,B###,##K#,####],[####,####,####,####],[####,####,k###,####] b",
    "[####,####,###k,####],[##r#,####,####,####],[b###,n###,####,b###],[K#b#,####,####,####]",
)
#: The goal of issue 40: each problem's N = 3 answer under this many seconds.
GOAL_SECONDS = 1.0


@dataclass(frozen=True, slots=True)
class Settings:
    """How much to measure."""

    selfmates: int
    helpmates: int
    repeats: int
    #: Seconds of brute force allowed per stipulation (the last problem started may run over).
    brute_budget: float


FULL = Settings(len(SELFMATES), len(HELPMATES), 3, 60.0)
QUICK = Settings(1, 1, 1, 0.5)


@dataclass(frozen=True, slots=True)
class Solved:
    """One problem: its board, size, pieces, answer at N = 3, and the times (seconds)."""

    board: str
    n: int
    pieces: int
    answer: str
    engine_3: float
    engine_2: float
    brute_2: float | None

    @property
    def ratio(self) -> float | None:
        """How many times faster the engine was than the brute force at N = 2."""
        return None if self.brute_2 is None else self.brute_2 / self.engine_2


def progress(message: str) -> None:
    """Tell the person waiting what is being measured."""
    print(message, file=sys.stderr, flush=True)


def engine_times(
    command: str, boards: tuple[str, ...], depth: int, repeats: int
) -> list[tuple[float, str]]:
    """Time `command depth` through one engine process: (best seconds, answer) per board."""
    results = []
    with Peer("engine") as peer:
        peer.ask(b"protocol_version\n", 1)
        for board in boards:
            reply = peer.ask(f"set_board {board}\n".encode(), 1)[0]
            if reply != b"= ":
                raise RuntimeError(f"set_board refused {board}: {reply!r}")
            best = float("inf")
            answer = b""
            for _ in range(repeats):
                start = time.perf_counter()
                answer = peer.ask(f"{command} {depth}\n".encode(), 1)[0]
                best = min(best, time.perf_counter() - start)
            if not answer.startswith(b"= "):
                raise RuntimeError(f"{command} {depth} refused on {board}: {answer!r}")
            results.append((best, answer[2:].decode()))
    return results


def brute_answer(command: str, board: str, depth: int) -> str:
    """The brute force's answer, written as the engine writes it."""
    position = parse_game(board)
    if command == "selfmate":
        return " ".join(brute_selfmate(position, depth))
    lines = brute_helpmate(position, depth)
    return "\n".join([str(len(lines)), *lines])


def measure(command: str, boards: tuple[str, ...], settings: Settings) -> list[Solved]:
    """Time the engine at N = 3 and 2, and the brute force at N = 2 while its budget lasts."""
    progress(f"{command}: {len(boards)} problems through the engine")
    at_3 = engine_times(command, boards, 3, settings.repeats)
    at_2 = engine_times(command, boards, 2, settings.repeats)
    positions = [parse_game(board) for board in boards]
    brute: dict[int, float] = {}
    spent = 0.0
    for index in sorted(range(len(boards)), key=lambda i: len(positions[i].pieces)):
        if spent >= settings.brute_budget:
            break
        progress(f"{command} 2: brute force on problem {index + 1}")
        start = time.perf_counter()
        expected = brute_answer(command, boards[index], 2)
        brute[index] = time.perf_counter() - start
        spent += brute[index]
        if expected != at_2[index][1]:
            raise RuntimeError(f"{command} 2 disagrees on {boards[index]}")
    return [
        Solved(board, pos.n, len(pos.pieces), answer, seconds, at_2[index][0], brute.get(index))
        for index, (board, pos, (seconds, answer)) in enumerate(
            zip(boards, positions, at_3, strict=True)
        )
    ]


def milliseconds(seconds: float | None) -> str:
    """Write a time in milliseconds, or a dash when it was not measured."""
    return "-" if seconds is None else f"{seconds * 1000:,.1f}"


def summary(command: str, answer: str) -> str:
    """Say what an N = 3 answer holds: its keys, or its count of solutions."""
    if command == "selfmate":
        keys = len(answer.split())
        return f"{keys} key{'s' if keys != 1 else ''}"
    return f"{answer.split(chr(10))[0]} solutions"


def section(quick: bool) -> tuple[str, list[Goal]]:
    """Measure both stipulations; return the text and the goals."""
    settings = QUICK if quick else FULL
    solved = {
        "selfmate": measure("selfmate", SELFMATES[: settings.selfmates], settings),
        "helpmate": measure("helpmate", HELPMATES[: settings.helpmates], settings),
    }
    rows = []
    for command, problems in solved.items():
        for index, s in enumerate(problems, start=1):
            rows.append(
                [
                    f"{command} {index}",
                    str(s.n),
                    str(s.pieces),
                    "black" if s.board.endswith(" b") else "white",
                    summary(command, s.answer),
                    milliseconds(s.engine_3),
                    milliseconds(s.engine_2),
                    milliseconds(s.brute_2),
                    "-" if s.ratio is None else f"{s.ratio:,.0f}×",
                ]
            )
    header = ["problem", "n", "pieces", "to move", "N = 3", "engine 3 ms", "engine 2 ms"]
    header += ["brute 2 ms", "brute/engine at 2"]
    lines = [
        "Selfmates and helpmates: `selfmate N` / `helpmate N` through the process, set_board"
        f" first, best of {settings.repeats};",
        "  brute = tests.stipulations at N = 2 in process, once, smallest boards first while"
        f" {settings.brute_budget:g} s last per stipulation; the answers at N = 2 agree",
        "",
        table(header, rows),
    ]
    found = []
    for command, problems in solved.items():
        slowest = max(s.engine_3 for s in problems)
        median = statistics.median(s.engine_3 for s in problems)
        ratios = [s.ratio for s in problems if s.ratio is not None]
        ratio = f"{statistics.median(ratios):,.0f}×" if ratios else "-"
        lines.append(
            f"{command} 3: median {median * 1000:,.1f} ms, slowest {slowest * 1000:,.1f} ms;"
            f" brute/engine at N = 2 median {ratio} over {len(ratios)} problems"
        )
        found.append(
            Goal(
                f"{command} 3, n <= 4, <= 7 pieces: slowest of {len(problems)}",
                f"{slowest * 1000:,.0f} ms",
                f"< {GOAL_SECONDS * 1000:,.0f} ms",
                slowest < GOAL_SECONDS,
            )
        )
    lines += ["", goals_table(found)]
    return "\n".join(lines), found


def main(argv: list[str] | None = None) -> int:
    """Print the section."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.stipulations", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--quick", action="store_true", help="small counts, for a smoke test")
    arguments = parser.parse_args(argv)
    print(section(arguments.quick)[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
