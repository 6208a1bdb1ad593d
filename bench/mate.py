"""Mate in N: through the engine against the brute force, and df-pn against the AND/OR search.

First section, mate in 2 and 3 through the engine process against tests/reference.py. A fixed
problem set (n <= 5, at most 10 pieces, both sides to move; the rules.md mate-in-2
example first, the rest made once by tests.positions.mate_problem and kept here so every run
times the same boards). Each problem is set with `set_board`, then `mate_in N` is timed through
the pipes (best of a few runs). The brute force, `tests.reference.mate_in`, runs in this process
on the same boards, smallest first, while its time budget lasts; where both ran, their keys must
agree. Since 2026-12-01 it remembers each position's answer (transpositions), so its ratios from
then on are against a faster brute force than the earlier figures. Goals of issue 11: >= 100x
faster than the brute force on mate in 2 (the median of the per-problem ratios), and every mate
in 2 under 1 s; mate in 3 is reported as it is.

Second section, the proof-number search (what `mate_in` runs: kernel/mates/proofnumber.py, compiled
as kernel/core/mate.c) against the AND/OR search it replaced (tests/andor.py), with the same
df-pn in Python timed beside them, on mates in 3, 4 and 5 with nothing shorter
(n = 3..5, both sides, made by tests.positions.mate_problem and kept here; seeds 1001 and
2021 are the two n = 4 mates in 4, 1083 the n = 4 mate in 5). Each search runs
`keys` in a fresh child process (`--solve`), so that the peak resident memory it reports is
its own; the time is the search's alone (best of 3 when under half a second), and positions
per second are each search's own count (df-pn counts the positions it generates, the AND/OR
search those it plays). The AND/OR search stops at a node cap; its time then is a lower bound.
The keys of all three must agree. Goals of issue 26: every mate in 4 of at most 7 pieces on n <= 4
under 1 s, every mate in 5 of the same under 5 s, and >= 10x the AND/OR search at N = 4 and 5
(the median of the per-problem ratios).

`python -m bench.mate [--quick]` prints both; `section(quick)` returns them for bench/__main__.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from bench.memory import peak_mb
from bench.peer import Peer
from bench.report import Goal, goals_table, table
from kernel.compiled import COMPILED
from kernel.config import EngineConfig
from kernel.kernel import Kernel
from kernel.mates.proofnumber import ProofNumberSearch
from kernel.mates.search import Budget, SearchLimitReached
from kernel.mates.solution import MateSolver
from kernel.text.notation import get_move_name
from tests.andor import MateSearch
from tests.reference import mate_in as brute_mate_in
from tests.reference import parse_game

ROOT = Path(__file__).resolve().parent.parent

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

#: The second section's problems: mates in 3, 4 and 5 with nothing shorter, made by
#: tests.positions.mate_problem (seeds in the comments), both sides. n = 5 has mates in 3
#: only: 300 seeded problems there held no mate in 4 or 5 that the generator's cap let it find.
DEEP_MATE_IN_3: tuple[str, ...] = (
    *MATE_IN_3,
    "[#####,#####,##r##,#####,K####],[#####,#####,#####,####k,###q#],"  # 5015
    "[#####,#####,r####,#####,#####],[#####,#####,#####,##r##,#####],"
    "[#####,#####,#####,#####,#####] b",
    "[k####,#####,#####,#####,#####],[#N###,#####,#####,#####,#####],"  # 5024
    "[###R#,#n#K#,#####,#####,#####],[#####,##Q##,R####,#####,#####],"
    "[#####,#####,#####,#####,#####]",
)
MATE_IN_4: tuple[str, ...] = (
    "[###,###,k##],[###,###,#R#],[###,#K#,#R#]",  # 1024
    "[##K,###,#R#],[###,###,##B],[k##,##B,B##]",  # 1048
    "[##k,n##,###],[###,#r#,r#R],[###,###,##K] b",  # 1070
    "[#k##,####,###K,##Q#],[####,#N##,####,####],[####,####,####,####],[####,####,####,####]",
    "[####,####,####,####],[####,####,####,####],[q###,#n##,####,####],[####,q##R,##K#,####] b",
)
MATE_IN_5: tuple[str, ...] = (
    "[##K,##R,##R],[##B,#n#,###],[k##,###,#B#]",  # 1008
    "[##k,RN#,###],[#N#,###,##q],[N##,###,K##]",  # 1068
    "[r###,####,####,####],[#N##,####,####,##k#],[####,####,#q##,####],[###K,####,####,####] b",
)
#: Runs of each search in the second section, the best kept, unless told otherwise.
SOLVE_REPEATS = 3
#: The names of the searches the second section compares: the engine's (compiled when it was
#: built), the same in Python, and the one it replaced.
DFPN = "df-pn"
PYTHON_DFPN = "Python"
ANDOR = "AND/OR"
#: Goals of issue 26 for mates of at most this many pieces on boards up to this size.
GOAL_PIECES = 7
GOAL_SIZE = 4
DEEP_SECONDS = {4: 1.0, 5: 5.0}
DEEP_RATIO = 10.0

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
    #: Problems of each depth in the second section, and the AND/OR search's node cap there.
    deep_problems: int
    andor_cap: int
    #: Runs of each search in its child process (the best kept) while a run is under 0.5 s.
    deep_repeats: int


FULL = Settings(
    problems_2=len(MATE_IN_2),
    problems_3=len(MATE_IN_3),
    repeats=3,
    brute_budget=30.0,
    deep_problems=max(len(DEEP_MATE_IN_3), len(MATE_IN_4), len(MATE_IN_5)),
    andor_cap=10_000_000,
    deep_repeats=SOLVE_REPEATS,
)
QUICK = Settings(
    problems_2=2,
    problems_3=1,
    repeats=1,
    brute_budget=0.5,
    deep_problems=1,
    andor_cap=100_000,
    deep_repeats=1,
)


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
    """Measure both sections and return their text."""
    return section(quick)[0]


def section(quick: bool) -> tuple[str, list[Goal]]:
    """Measure both sections; return their text and their goals."""
    settings = QUICK if quick else FULL
    brute_text, brute_goals = brute_section(settings)
    deep_text, deep_goals = deep_section(settings)
    return f"{brute_text}\n\n{deep_text}", brute_goals + deep_goals


def brute_section(settings: Settings) -> tuple[str, list[Goal]]:
    """Time mate in 2 and 3 through the engine against the brute force; text and goals."""
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
        goals_table(found),
    ]
    return "\n".join(lines), found


# --- df-pn against the AND/OR search, each in a child process -------------------------------


@dataclass(frozen=True, slots=True)
class Run:
    """One search of one problem: its keys (None past its cap), positions, time, memory."""

    keys: list[str] | None
    nodes: int
    seconds: float
    peak_mb: float

    @property
    def rate(self) -> float:
        """Positions per second, by the search's own count."""
        return self.nodes / self.seconds if self.seconds else 0.0


@dataclass(frozen=True, slots=True)
class Duel:
    """One problem solved by each search."""

    board: str
    depth: int
    dfpn: Run
    python: Run
    andor: Run

    @property
    def ratio(self) -> float:
        """How many times longer the AND/OR search took (a lower bound past its cap)."""
        return self.andor.seconds / self.dfpn.seconds

    @property
    def in_goal(self) -> bool:
        """Whether the problem is one the goals speak of (<= 7 pieces, n <= 4)."""
        problem = parse_game(self.board)
        return problem.n <= GOAL_SIZE and len(problem.pieces) <= GOAL_PIECES


def solve(search: str, depth: int, cap: int, board: str, repeats: int = SOLVE_REPEATS) -> Run:
    """Find the keys of mate in `depth` with one search, here; the best of `repeats` runs
    while each is under half a second."""
    kernel = Kernel(EngineConfig())
    reply = kernel.execute("set_board", board.split())
    if not reply.ok:
        raise RuntimeError(f"set_board refused {board}: {reply.text}")
    position = kernel.position
    best: Run | None = None
    for _ in range(repeats):
        budget = Budget(cap, depth)
        solver: MateSolver = (
            MateSearch(budget)
            if search == ANDOR
            else ProofNumberSearch(budget, compiled=search == DFPN)
        )
        start = time.perf_counter()
        try:
            keys: list[str] | None = sorted(
                get_move_name(position, move) for move in solver.keys(position, depth)
            )
        except SearchLimitReached:
            keys = None
        seconds = time.perf_counter() - start
        # VmHWM, not getrusage's ru_maxrss: Linux carries that over from the parent through
        # fork and exec, so the child reported the bench's own peak (185 MB for any problem).
        peak = peak_mb(os.getpid())
        if best is None or seconds < best.seconds:
            best = Run(keys, budget.nodes, seconds, peak)
        if seconds >= 0.5:
            break
    assert best is not None
    return best


def solve_in_child(search: str, depth: int, cap: int, board: str, repeats: int) -> Run:
    """Run `solve` in a fresh process, so that its peak memory is the search's own."""
    command = [sys.executable, "-m", "bench.mate", "--repeats", str(repeats), "--solve"]
    command += [search, str(depth), str(cap)]
    result = subprocess.run(
        [*command, board], cwd=ROOT, capture_output=True, text=True, check=False
    )
    if result.returncode != 0:
        raise RuntimeError(f"{search} failed on {board}: {result.stderr[-500:]}")
    return Run(**json.loads(result.stdout))


def duel(board: str, depth: int, settings: Settings) -> Duel:
    """Solve one problem with each search; their keys must agree."""
    progress(f"mate in {depth}: {DFPN}, {PYTHON_DFPN} {DFPN} and {ANDOR} on {board[:40]}...")
    repeats = settings.deep_repeats
    found = Duel(
        board,
        depth,
        solve_in_child(DFPN, depth, 50_000_000, board, repeats),
        solve_in_child(PYTHON_DFPN, depth, 50_000_000, board, repeats),
        solve_in_child(ANDOR, depth, settings.andor_cap, board, repeats),
    )
    if found.dfpn.keys is None or found.python.keys is None:
        raise RuntimeError(f"{DFPN} reached its cap on {board}")
    if found.python.keys != found.dfpn.keys or (
        found.andor.keys is not None and found.andor.keys != found.dfpn.keys
    ):
        raise RuntimeError(f"the searches disagree on {board}: {found}")
    return found


def deep_section(settings: Settings) -> tuple[str, list[Goal]]:
    """Time df-pn against the AND/OR search at N = 3, 4 and 5; return the text and goals."""
    problems = {3: DEEP_MATE_IN_3, 4: MATE_IN_4, 5: MATE_IN_5}
    if settings.deep_problems == 1:
        del problems[5]  # a smoke test: mates in 5 take seconds each
    duels = [
        duel(board, depth, settings)
        for depth, boards in problems.items()
        for board in boards[: settings.deep_problems]
    ]
    rows = []
    for index, d in enumerate(duels, start=1):
        problem = parse_game(d.board)
        capped = d.andor.keys is None
        rows.append(
            [
                str(index),
                str(d.depth),
                str(problem.n),
                str(len(problem.pieces)),
                "black" if problem.side == "b" else "white",
                str(len(d.dfpn.keys or [])),
                milliseconds(d.dfpn.seconds),
                f"{d.dfpn.rate:,.0f}",
                f"{d.dfpn.peak_mb:,.0f}",
                milliseconds(d.python.seconds),
                (">" if capped else "") + milliseconds(d.andor.seconds),
                f"{d.andor.rate:,.0f}",
                f"{d.andor.peak_mb:,.0f}",
                ("≥" if capped else "") + f"{d.ratio:,.1f}×",
            ]
        )
    header = ["problem", "N", "n", "pieces", "to move", "keys"]
    header += [f"{DFPN} ms", f"{DFPN} pos/s", f"{DFPN} MB", f"{PYTHON_DFPN} ms"]
    header += [f"{ANDOR} ms", f"{ANDOR} pos/s", f"{ANDOR} MB"]
    compiled = "compiled" if COMPILED else "not compiled!"
    lines = [
        f"Mate in N, {DFPN} (mate_in; {compiled}) against the {ANDOR} search it replaced, and"
        f" the same {DFPN} in {PYTHON_DFPN}:",
        f"  keys in a fresh process each, best of {settings.deep_repeats} under 0.5 s; pos/s by"
        " each search's own count;",
        f"  MB = the process's peak resident memory; {ANDOR} capped at"
        f" {settings.andor_cap:,} positions (> and ≥",
        "  mark a capped time and ratio); the keys of all three are checked to agree",
        "",
        table([*header, "ratio"], rows),
    ]
    found = []
    for depth in (3, 4, 5):
        of_depth = [d for d in duels if d.depth == depth]
        if not of_depth:
            continue
        ratio = statistics.median(d.ratio for d in of_depth)
        median = statistics.median(d.dfpn.seconds for d in of_depth)
        slowest = max(d.dfpn.seconds for d in of_depth)
        in_python = statistics.median(d.python.seconds / d.dfpn.seconds for d in of_depth)
        lines.append(
            f"mate in {depth}: {DFPN} median {median * 1000:,.1f} ms, slowest"
            f" {slowest * 1000:,.1f} ms; {ANDOR}/{DFPN} median {ratio:,.1f}×,"
            f" {PYTHON_DFPN}/{DFPN} {in_python:,.1f}×, over {len(of_depth)} problems"
        )
        if depth in DEEP_SECONDS:
            found += deep_goals(of_depth, depth, ratio)
    lines += [
        "",
        goals_table(found),
    ]
    return "\n".join(lines), found


def deep_goals(duels: list[Duel], depth: int, ratio: float) -> list[Goal]:
    """Judge the goals of issue 26 for one depth."""
    found = []
    in_goal = [d for d in duels if d.in_goal]
    if in_goal:
        slowest = max(d.dfpn.seconds for d in in_goal)
        found.append(
            Goal(
                f"mate in {depth}, n <= {GOAL_SIZE}, <= {GOAL_PIECES} pieces: slowest of"
                f" {len(in_goal)}",
                f"{slowest * 1000:,.0f} ms",
                f"< {DEEP_SECONDS[depth] * 1000:,.0f} ms",
                slowest < DEEP_SECONDS[depth],
            )
        )
    found.append(
        Goal(
            f"mate in {depth}: {ANDOR} / {DFPN}, median of {len(duels)}",
            f"{ratio:,.1f}×",
            f">= {DEEP_RATIO:,.0f}×",
            ratio >= DEEP_RATIO,
        )
    )
    return found


def main(argv: list[str] | None = None) -> int:
    """Print the mate section."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.mate", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--quick", action="store_true", help="small counts, for a smoke test")
    parser.add_argument(
        "--solve",
        nargs=4,
        metavar=("SEARCH", "N", "CAP", "BOARD"),
        help="(internal) run one search here and print its run as JSON",
    )
    parser.add_argument(
        "--repeats",
        type=int,
        default=SOLVE_REPEATS,
        help="(internal, with --solve) runs of the search, the best kept",
    )
    arguments = parser.parse_args(argv)
    if arguments.repeats < 1:
        parser.error(f"--repeats must be at least 1, not {arguments.repeats}")
    if arguments.solve:
        search, depth, cap, board = arguments.solve
        found = solve(search, int(depth), int(cap), board, arguments.repeats)
        print(json.dumps(dataclasses.asdict(found)))
        return 0
    print(run(arguments.quick))
    return 0


if __name__ == "__main__":
    sys.exit(main())
