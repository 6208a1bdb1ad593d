"""The kernel against the brute-force reference, in process and through the real engine.

The seeded sweeps are sized for `make test`; `make sweep` runs them ten times larger.
"""

from __future__ import annotations

import random
import re
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from kernel.config import EngineConfig
from kernel.kernel import Kernel
from tests.positions import random_position, random_raw_position
from tests.reference import (
    KNIGHT_JUMPS,
    QUEEN_STEPS,
    Analysis,
    Cell,
    Position,
    add,
    analyse,
    cell_name,
    checkers,
    parse_board,
    pinned_pieces,
    to_notation,
    validity_error,
)
from tests.sweep import SWEEP

REPO = Path(__file__).resolve().parent.parent
ANALYSIS_COMMANDS = ("status", "checkers", "legal_moves", "checkmate")

IN_PROCESS_SEED = 20240601
IN_PROCESS_COUNT = 2500 * SWEEP
IN_PROCESS_SIZES = (2, 3, 4, 5, 6, 7, 8)

PROCESS_SEED = 777
PROCESS_COUNT = 1500
PROCESS_SIZES = (2, 3, 4, 5, 6)
PROCESS_TIMEOUT = 180.0  # seconds before the watchdog kills a hung engine


@dataclass(frozen=True)
class Mismatch:
    """One answer on which the kernel and the reference disagree."""

    n: int
    board: str
    command: str
    kernel: str
    reference: str

    def __str__(self) -> str:
        return (
            f"n={self.n} board={self.board} command={self.command}\n"
            f"  kernel:    {self.kernel!r}\n  reference: {self.reference!r}"
        )


def expected_texts(result: Analysis) -> dict[str, str]:
    """Render the reference's answers exactly as the engine must print them."""
    return {
        "status": result.status,
        "checkers": " ".join(result.checkers),
        "legal_moves": " ".join(result.legal_moves),
        "checkmate": "true" if result.checkmate else "false",
    }


def kernel_texts(kernel: Kernel, n: int, board: str, with_size: bool) -> dict[str, str]:
    """Set the board in the kernel and collect its four analysis answers (errors marked)."""
    reply = kernel.execute("set_board", [str(n), board] if with_size else [board])
    if not reply.ok:
        return {command: f"? set_board: {reply.text}" for command in ANALYSIS_COMMANDS}
    texts: dict[str, str] = {}
    for command in ANALYSIS_COMMANDS:
        answer = kernel.execute(command, [])
        texts[command] = answer.text if answer.ok else f"? {answer.text}"
    return texts


def compare(
    n: int, board: str, kernel: dict[str, str], reference: dict[str, str]
) -> list[Mismatch]:
    """List the commands on which the two answers differ."""
    return [
        Mismatch(n, board, command, kernel.get(command, "<missing>"), reference[command])
        for command in reference
        if kernel.get(command) != reference[command]
    ]


def report(mismatches: list[Mismatch], limit: int = 5) -> str:
    """Describe the smallest disagreements first (fewest pieces, smallest board)."""
    ranked = sorted(mismatches, key=lambda m: (len(parse_board(m.board).pieces), m.n, m.board))
    lines = [f"{len(mismatches)} disagreements; the smallest:"]
    lines += [str(m) for m in ranked[:limit]]
    return "\n".join(lines)


def classify(pos: Position, result: Analysis, mix: Counter[str]) -> None:
    """Count the features of a position that make the sample worth testing on."""
    mix[result.status] += 1
    mix[f"n={pos.n} {result.status}"] += 1
    if len(result.checkers) >= 2:
        mix["double check"] += 1
    pinned = pinned_pieces(pos)
    if pinned:
        mix["pin"] += 1
    movers = {m[: m.index(")") + 1] for m in result.legal_moves}
    if any(pos.pieces[c] + cell_name(c) in movers for c in pinned):
        mix["pinned piece moves along its line"] += 1
    if result.status == "check" and any(not m.startswith("K") for m in result.legal_moves):
        mix["check answered by another piece"] += 1
    if any(m.startswith("K") and m[m.index(")") + 1] == "x" for m in result.legal_moves):
        mix["king capture legal"] += 1
    if "k" in pos.pieces.values():
        mix["black king present"] += 1


@pytest.fixture(scope="module")
def kernel() -> Kernel:
    """Share one kernel: set_board replaces the whole position every time."""
    return Kernel(EngineConfig())


# ---------------------------------------------------------------- 1. in process


def test_in_process_against_reference(kernel: Kernel) -> None:
    """Agree with the reference on 2,500 seeded positions of sizes 2 to 8, with a rich mix."""
    rng = random.Random(IN_PROCESS_SEED)
    mismatches: list[Mismatch] = []
    mix: Counter[str] = Counter()
    for i in range(IN_PROCESS_COUNT):
        n = IN_PROCESS_SIZES[i % len(IN_PROCESS_SIZES)]
        board = random_position(rng, n)
        pos = parse_board(board, n)
        result = analyse(pos)
        classify(pos, result, mix)
        texts = kernel_texts(kernel, n, board, with_size=i % 2 == 0)
        mismatches += compare(n, board, texts, expected_texts(result))
    summary = ", ".join(f"{key}: {value}" for key, value in sorted(mix.items()))
    print(f"\nmix of {IN_PROCESS_COUNT} positions: {summary}")
    if mismatches:
        pytest.fail(report(mismatches))
    # A lazy generator (uniform noise) would fail these: mates and stalemates are rare by chance.
    assert mix["checkmate"] >= 400 * SWEEP, summary
    assert mix["stalemate"] >= 125 * SWEEP, summary
    assert mix["check"] >= 400 * SWEEP, summary
    assert mix["normal"] >= 250 * SWEEP, summary
    assert mix["double check"] >= 500, summary
    assert mix["pin"] >= 500, summary
    assert mix["pinned piece moves along its line"] >= 100, summary
    assert mix["check answered by another piece"] >= 200, summary
    for n in IN_PROCESS_SIZES:
        for status in ("checkmate", "stalemate", "check", "normal"):
            assert mix[f"n={n} {status}"] >= 20, (n, status, summary)


# ---------------------------------------------------------------- 2. hypothesis


@st.composite
def boards(draw: st.DrawFn) -> tuple[int, str]:
    """Draw a size, a seed and sometimes a forced piece count, and build that position."""
    n = draw(st.integers(min_value=2, max_value=6))
    seed = draw(st.integers(0, 2**64 - 1))
    pieces = draw(st.none() | st.integers(min_value=1, max_value=n**3))
    return n, random_position(random.Random(seed), n, pieces)


@settings(
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(case=boards())
def test_hypothesis_against_reference(kernel: Kernel, case: tuple[int, str]) -> None:
    """Agree with the reference on fresh positions every run."""
    n, board = case
    note(f"n={n} board={board}")
    result = analyse(parse_board(board, n))
    texts = kernel_texts(kernel, n, board, with_size=len(board) % 2 == 0)
    mismatches = compare(n, board, texts, expected_texts(result))
    if mismatches:
        pytest.fail(report(mismatches))


# ---------------------------------------------------------------- dense and large boards


def test_dense_boards_against_reference(kernel: Kernel) -> None:
    """Agree on crowded boards, a third full up to completely full, where lines block."""
    rng = random.Random(31337)
    mismatches: list[Mismatch] = []
    statuses: Counter[str] = Counter()
    for i in range(600 * SWEEP):
        n = (2, 3, 4, 5)[i % 4]
        pieces = rng.randint(n**3 // 3, n**3)
        board = random_position(rng, n, pieces)
        result = analyse(parse_board(board, n))
        statuses[result.status] += 1
        texts = kernel_texts(kernel, n, board, with_size=i % 2 == 1)
        mismatches += compare(n, board, texts, expected_texts(result))
    if mismatches:
        pytest.fail(report(mismatches))
    assert min(statuses[s] for s in ("checkmate", "check", "normal")) >= 50 * SWEEP, statuses
    assert statuses["stalemate"] >= 5, statuses  # rare on crowded boards, but there


def test_large_boards_against_reference(kernel: Kernel) -> None:
    """Agree on boards from 9 up to 30, where files run past z (aa, ab, …)."""
    rng = random.Random(2718)
    sizes = (9, 12, 16, 26, 27, 30)
    mismatches: list[Mismatch] = []
    past_z = 0
    for i in range(180):
        n = sizes[i % len(sizes)]
        board = random_position(rng, n, rng.choice((None, rng.randint(2, 60))))
        result = analyse(parse_board(board, n))
        past_z += any(re.search(r"[a-z]{2}", m) for m in result.legal_moves)
        texts = kernel_texts(kernel, n, board, with_size=i % 2 == 0)
        mismatches += compare(n, board, texts, expected_texts(result))
    if mismatches:
        pytest.fail(report(mismatches))
    assert past_z >= 10  # moves naming files aa and beyond were really compared


# ---------------------------------------------------------------- every line on every size


def line_start(rng: random.Random, n: int, step: Cell, distance: int) -> Cell:
    """Pick a random cell from which `distance` steps of `step` stay on the board."""
    coords = []
    for s in step:
        if s == 0:
            coords.append(rng.randrange(n))
        else:
            low = distance if s < 0 else 0
            coords.append(low + rng.randrange(n - distance))
    return (coords[0], coords[1], coords[2])


def line_cases(rng: random.Random, n: int, starts: int) -> Iterator[dict[Cell, str]]:
    """Yield king + one black piece on every direction and distance, open and blocked."""
    for step in sorted(QUEEN_STEPS):
        axes = sum(1 for s in step if s)
        kinds = ["q", {1: "r", 2: "q", 3: "b"}[axes]]
        for distance in range(1, n):
            for _ in range(starts):
                king_cell = line_start(rng, n, step, distance)
                attacker = add(king_cell, step, distance)
                kind = rng.choice(kinds)
                yield {king_cell: "K", attacker: kind}
                if distance >= 2:
                    # The same line blocked by a piece in between: no check.
                    between = add(king_cell, step, rng.randint(1, distance - 1))
                    yield {king_cell: "K", attacker: kind, between: rng.choice("Nn")}
    for jump in sorted(KNIGHT_JUMPS):
        king_cell = (rng.randrange(n), rng.randrange(n), rng.randrange(n))
        target = add(king_cell, jump)
        if all(0 <= c < n for c in target):
            yield {king_cell: "K", target: "n"}
    # Pieces off every line of the king: no check at all (false alarms).
    for _ in range(20 * starts):
        king_cell = (rng.randrange(n), rng.randrange(n), rng.randrange(n))
        other = (rng.randrange(n), rng.randrange(n), rng.randrange(n))
        if other != king_cell:
            yield {king_cell: "K", other: rng.choice("qrbn")}


# Every size up to 13, then odd sizes (the ones where a padded-array index difference can stand
# for two directions), 27 (files past z) and the largest board, sampled.
LINE_SIZES = [*range(2, 14), 15, 17, 19, 27, 64]


@pytest.mark.parametrize("n", LINE_SIZES)
def test_every_line_on_every_size(kernel: Kernel, n: int) -> None:
    """Find every check along every direction and distance, and none through a blocker."""
    rng = random.Random(n)
    cases = list(line_cases(rng, n, starts=2 if n <= 13 else 1))
    cap = 1500 if n < 27 else 400 if n < 64 else 120  # big boards cost their notation length
    if len(cases) > cap:
        cases = rng.sample(cases, cap)
    mismatches: list[Mismatch] = []
    for pieces in cases:
        pos = Position(n, pieces)
        board = to_notation(n, pieces)
        reply = kernel.execute("set_board", [board])
        expected = " ".join(checkers(pos))
        answer = kernel.execute("checkers", []).text if reply.ok else f"? {reply.text}"
        if answer != expected:
            mismatches.append(Mismatch(n, board, "checkers", answer, expected))
    if mismatches:
        pytest.fail(report(mismatches, limit=3))


# ---------------------------------------------------------------- validity and round trips


def test_validity_against_reference(kernel: Kernel) -> None:
    """Accept exactly the positions the reference calls valid, refusing the rest."""
    rng = random.Random(99)
    accepted = refused = 0
    wrong: list[str] = []
    for i in range(1500):
        n = (2, 3, 4, 5)[i % 4]
        board = random_raw_position(rng, n)
        error = validity_error(parse_board(board, n))
        reply = kernel.execute("set_board", [board])
        if reply.ok != (error is None):
            wrong.append(f"n={n} board={board} kernel={reply.text!r} reference={error!r}")
        if reply.ok:
            accepted += 1
        else:
            refused += 1
            if not reply.text.startswith("invalid board"):
                wrong.append(f"n={n} board={board} refused without 'invalid board': {reply.text}")
    assert not wrong, "\n".join(wrong[:5])
    assert accepted >= 200 and refused >= 200, (accepted, refused)


def test_round_trip_in_process(kernel: Kernel) -> None:
    """Give back from get_board exactly the canonical board that set_board took."""
    rng = random.Random(4242)
    sizes = (2, 3, 4, 5, 6, 7, 8, 9, 12, 27, 30)
    for i in range(400):
        n = sizes[i % len(sizes)]
        board = random_position(rng, n)
        reply = kernel.execute("set_board", [str(n), board] if i % 2 else [board])
        assert reply.ok, (board, reply.text)
        assert reply.text == ""
        assert kernel.execute("get_board", []).text == board


# ---------------------------------------------------------------- 3. the real engine process


RESPONSE = re.compile(r"([=?])(\d*) (.*)")


def read_responses(stream: IO[str]) -> Iterator[tuple[str, int | None, str]]:
    """Yield (sign, id, text) for every `=id text` / `?id text` response and its empty line."""
    while True:
        line = stream.readline()
        if not line:
            return
        match = RESPONSE.fullmatch(line.rstrip("\n"))
        assert match is not None, f"not a response line: {line!r}"
        sign, ident, text = match.groups()
        blank = stream.readline()
        assert blank == "\n", f"response {line!r} not followed by an empty line: {blank!r}"
        yield sign, int(ident) if ident else None, text


def test_engine_process_against_reference(tmp_path: Path) -> None:
    """Agree with the reference on 1,500 positions sent to `python main.py` over pipes."""
    rng = random.Random(PROCESS_SEED)
    lines: list[str] = []
    expected: dict[int, tuple[str, str, int, str]] = {}  # id → (command, answer, n, board)
    for i in range(PROCESS_COUNT):
        n = PROCESS_SIZES[i % len(PROCESS_SIZES)]
        board = random_position(rng, n)
        answers = expected_texts(analyse(parse_board(board, n)))
        answers = {"set_board": "", **answers, "get_board": board}
        for command, answer in answers.items():
            ident = len(lines) + 1
            # Half the boards are sent with their size first, as `set_board N BOARD`.
            sized = f"{n} {board}" if i % 2 else board
            line = f"{ident} {command} {sized}" if command == "set_board" else f"{ident} {command}"
            lines.append(line + "\n")
            expected[ident] = (command, answer, n, board)

    stderr_path = tmp_path / "stderr.txt"
    with stderr_path.open("w") as stderr:
        proc = subprocess.Popen(
            [sys.executable, "main.py", "--log-dir", str(tmp_path / "logs")],
            cwd=REPO,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            encoding="utf-8",
        )
        assert proc.stdin is not None and proc.stdout is not None
        stdin = proc.stdin

        def write_all() -> None:
            # Writing from a thread keeps both pipes flowing: no deadlock on full buffers.
            try:
                for start in range(0, len(lines), 200):
                    stdin.write("".join(lines[start : start + 200]))
                    stdin.flush()
                stdin.write("quit\n")
                stdin.close()
            except BrokenPipeError:
                pass  # the engine died; the reader reports what is missing

        watchdog = threading.Timer(PROCESS_TIMEOUT, proc.kill)
        watchdog.start()
        writer = threading.Thread(target=write_all, daemon=True)
        writer.start()
        try:
            got = list(read_responses(proc.stdout))
            code = proc.wait(timeout=30)
        finally:
            watchdog.cancel()
            if proc.poll() is None:
                proc.kill()
        writer.join(timeout=5)

    errors = stderr_path.read_text(encoding="utf-8", errors="replace")
    assert len(got) == len(lines) + 1, f"{len(got)} responses to {len(lines) + 1} lines; {errors}"
    assert code == 0, errors
    assert got[-1] == ("=", None, ""), got[-1]  # quit, sent without an id, answers `= `
    mismatches: list[Mismatch] = []
    for position, (sign, echoed, text) in enumerate(got[:-1], start=1):
        assert echoed == position, f"response id {echoed} where {position} was expected"
        command, answer, n, board = expected[position]
        kernel_answer = text if sign == "=" else f"? {text}"
        if kernel_answer != answer:
            mismatches.append(Mismatch(n, board, command, kernel_answer, answer))
    if mismatches:
        pytest.fail(report(mismatches))
