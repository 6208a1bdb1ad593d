"""Mate in 2 and 3 through the engine process, against the brute force of tests/reference.py.

A fixed problem set (n <= 5, at most 10 pieces, both sides to move; the rules.md mate-in-2
example first, the rest made once by tests.positions.mate_problem and kept here so every run
times the same boards). Each problem is set with `set_board`, then `mate_in N` is timed through
the pipes (best of a few runs). The brute force, `tests.reference.mate_in`, runs in this process
on the same boards, smallest first, while its time budget lasts; where both ran, their keys must
agree. Goals of issue 11: >= 100x faster than the brute force on mate in 2 (the median of the
per-problem ratios), and every mate in 2 under 1 s; mate in 3 is reported as it is.

`python -m bench.mate [--quick]` prints the table; `run(quick)` returns it for bench/__main__.py.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import dataclass

from bench.peer import Peer
from bench.report import Goal, table
from tests.reference import mate_in as brute_mate_in
from tests.reference import parse_game

#: Mate in 2 problems as get_board writes them (` b`: black to move); each has a mate in 2.
MATE_IN_2: tuple[str, ...] = (
    "[###,#k#,#b#],[##b,###,###],[r##,##K,###] b",
    "[#q#,###,###],[###,#nr,#n#],[b##,#b#,K#k] b",
    "[#####,#####,K####,#####,k####],[#####,#####,#####,#RR##,#####],"
    "[#####,#####,#Q###,#####,#b###],[#####,###B#,#####,#####,#####],"
    "[#####,#####,#####,#####,#####]",
    "[k####,##b##,#####,#####,#####],[#####,##n##,#####,#####,#####],"
    "[#####,##K##,#####,#Q###,#####],[#####,###Q#,#####,##R##,#####],"
    "[#####,#####,#####,#####,#####]",
    "[#####,###N#,##K##,#####,k####],[#####,#####,R##R#,#R###,#N###],"
    "[#####,#####,#####,#####,#R###],[#####,#####,#####,#####,#####],"
    "[#####,#####,#####,#####,#####]",
    "[#####,####Q,#####,#####,#####],[#####,BB###,B#K##,R####,#####],"
    "[#####,###Q#,#####,#####,#####],[#k###,#####,###R#,#####,#####],"
    "[#####,#####,#####,#####,#####]",
    "[##N#,####,###Q,####],[###N,###R,####,####],[####,B#b#,##K#,####],[#b#k,####,####,####]",
    "[#b##,####,nn##,Kn##],[####,####,####,#rr#],[####,r###,##n#,####],[####,#q##,####,####] b",
    "[q###,q###,####,k###],[####,#n##,####,####],[##q#,####,#K##,####],[####,####,###B,####] b",
    "[####,#Q##,R###,####],[##K#,####,###B,####],[k###,NB##,####,####],[#B##,####,####,####]",
    "[###,##b,k##],[Nq#,###,###],[###,##n,##K] b",
    "[###,###,k#n],[#K#,#n#,#n#],[###,#rr,q#Q] b",
    "[###,b#q,q#N],[###,#n#,#r#],[###,#K#,###] b",
)
#: Mate in 3 problems: no mate in 2, a mate in 3.
MATE_IN_3: tuple[str, ...] = (
    "[##N,#R#,###],[##k,###,#K#],[###,BN#,###]",
    "[####,####,#b##,###K],[####,#k##,#r#r,####],[####,##b#,####,####],[####,####,####,####] b",
    "[####,####,K###,####],[####,####,B###,####],[####,####,N###,k###],[####,QbR#,####,####]",
    "[###R,####,####,####],[B###,####,K###,###N],[####,####,#N##,####],[k###,N###,####,##R#]",
    "[R##,##N,##k],[###,###,###],[#R#,R##,KR#]",
    "[###,###,##k],[###,K##,R#N],[#B#,B##,B##]",
)

#: A mate in 2 must take less than this many seconds through the process.
MATE_2_SECONDS = 1.0
#: The engine must be at least this many times faster than the brute force on mate in 2.
MATE_2_RATIO = 100.0


@dataclass(frozen=True, slots=True)
class Settings:
    """How much to measure."""

    problems_2: int
    problems_3: int
    repeats: int
    #: Seconds of brute force allowed per depth (the last problem started may run over).
    brute_budget: float


FULL = Settings(problems_2=len(MATE_IN_2), problems_3=len(MATE_IN_3), repeats=3, brute_budget=30.0)
QUICK = Settings(problems_2=2, problems_3=1, repeats=1, brute_budget=0.5)


@dataclass(frozen=True, slots=True)
class Solved:
    """One problem: its size, pieces, side, depth, keys and the two times (seconds)."""

    board: str
    n: int
    pieces: int
    side: str
    depth: int
    keys: int
    engine: float
    brute: float | None

    @property
    def ratio(self) -> float | None:
        """How many times faster the engine was than the brute force, if both ran."""
        return None if self.brute is None else self.brute / self.engine


def progress(message: str) -> None:
    """Tell the person waiting what is being measured."""
    print(message, file=sys.stderr, flush=True)


def engine_times(boards: tuple[str, ...], depth: int, repeats: int) -> list[tuple[float, str]]:
    """Time `mate_in depth` through one engine process: (best seconds, keys) per board."""
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
                answer = peer.ask(f"mate_in {depth}\n".encode(), 1)[0]
                best = min(best, time.perf_counter() - start)
            if not answer.startswith(b"= "):
                raise RuntimeError(f"mate_in {depth} refused on {board}: {answer!r}")
            results.append((best, answer[2:].decode()))
    return results


def measure(boards: tuple[str, ...], depth: int, settings: Settings) -> list[Solved]:
    """Time the engine on every board, and the brute force on the smallest while it may."""
    progress(f"mate in {depth}: {len(boards)} problems through the engine")
    timed = engine_times(boards, depth, settings.repeats)
    positions = [parse_game(board) for board in boards]
    brute: dict[int, float] = {}
    spent = 0.0
    for index in sorted(range(len(boards)), key=lambda i: len(positions[i].pieces)):
        if spent >= settings.brute_budget:
            break
        progress(f"mate in {depth}: brute force on problem {index + 1}")
        start = time.perf_counter()
        keys = " ".join(brute_mate_in(positions[index], depth))
        brute[index] = time.perf_counter() - start
        spent += brute[index]
        if keys != timed[index][1]:
            raise RuntimeError(
                f"mate_in {depth} disagrees on {boards[index]}: "
                f"engine {timed[index][1]!r}, brute force {keys!r}"
            )
    return [
        Solved(
            board,
            pos.n,
            len(pos.pieces),
            "black" if pos.side == "b" else "white",
            depth,
            len(keys.split()),
            seconds,
            brute.get(index),
        )
        for index, (board, pos, (seconds, keys)) in enumerate(
            zip(boards, positions, timed, strict=True)
        )
    ]


def milliseconds(seconds: float | None) -> str:
    """Write a time in milliseconds, or a dash when it was not measured."""
    return "-" if seconds is None else f"{seconds * 1000:,.1f}"


def goals(solved_2: list[Solved]) -> list[Goal]:
    """Judge the mate-in-2 goals of issue 11."""
    ratios = [s.ratio for s in solved_2 if s.ratio is not None]
    slowest = max(s.engine for s in solved_2)
    found = [
        Goal(
            f"mate in 2, n <= 5, <= 10 pieces: slowest of {len(solved_2)}",
            f"{slowest * 1000:,.1f} ms",
            f"< {MATE_2_SECONDS * 1000:,.0f} ms",
            slowest < MATE_2_SECONDS,
        )
    ]
    if ratios:
        median = statistics.median(ratios)
        found.append(
            Goal(
                f"mate in 2: brute force / engine, median of {len(ratios)}",
                f"{median:,.0f}×",
                f">= {MATE_2_RATIO:,.0f}×",
                median >= MATE_2_RATIO,
            )
        )
    return found


def run(quick: bool) -> str:
    """Measure both depths and return the section's text."""
    return section(quick)[0]


def section(quick: bool) -> tuple[str, list[Goal]]:
    """Measure both depths; return the section's text and the mate-in-2 goals."""
    settings = QUICK if quick else FULL
    solved_2 = measure(MATE_IN_2[: settings.problems_2], 2, settings)
    solved_3 = measure(MATE_IN_3[: settings.problems_3], 3, settings)
    rows = [
        [
            str(index),
            str(s.depth),
            str(s.n),
            str(s.pieces),
            s.side,
            str(s.keys),
            milliseconds(s.engine),
            milliseconds(s.brute),
            "-" if s.ratio is None else f"{s.ratio:,.0f}×",
        ]
        for index, s in enumerate([*solved_2, *solved_3], start=1)
    ]
    lines = [
        f"Mate in N: `mate_in N` through the process, set_board first, best of {settings.repeats};",
        "  brute = tests.reference.mate_in in process, once, smallest boards first while"
        f" {settings.brute_budget:g} s",
        "  per depth last (plain recursion; any/all stop at the first answer that settles them);",
        "  the keys of both are checked to agree",
        "",
        table(
            [
                "problem",
                "N",
                "n",
                "pieces",
                "to move",
                "keys",
                "engine ms",
                "brute ms",
                "brute/engine",
            ],
            rows,
        ),
    ]
    for depth, solved in ((2, solved_2), (3, solved_3)):
        engine = statistics.median(s.engine for s in solved)
        ratios = [s.ratio for s in solved if s.ratio is not None]
        ratio = f"{statistics.median(ratios):,.0f}×" if ratios else "-"
        lines.append(
            f"mate in {depth}: median {engine * 1000:,.1f} ms per problem, slowest"
            f" {max(s.engine for s in solved) * 1000:,.1f} ms; brute/engine median {ratio}"
            f" over {len(ratios)} problems"
        )
    found = goals(solved_2)
    lines += [
        "",
        table(
            ["goal", "measured", "limit", "verdict"],
            [[g.name, g.measured, g.limit, g.verdict] for g in found],
        ),
    ]
    return "\n".join(lines), found


def main(argv: list[str] | None = None) -> int:
    """Print the mate section."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.mate", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--quick", action="store_true", help="small counts, for a smoke test")
    print(run(parser.parse_args(argv).quick))
    return 0


if __name__ == "__main__":
    sys.exit(main())
