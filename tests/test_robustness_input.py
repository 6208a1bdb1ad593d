"""Small inputs that cost a lot, and files that change under the engine (issue 38, items 6-9).

Each test talks to the real engine process, where the failures were seen: its peak memory is
read from /proc (VmHWM), its time on the wall clock with generous bounds (the failures took
seconds to minutes; the fixes take milliseconds).
"""

from __future__ import annotations

import os
import random
import re
import signal
import time
from pathlib import Path

import pytest

from kernel.config import LARGEST_SUPPORTED_SIZE, EngineConfig, notation_length
from kernel.cube.board import empty_cells
from kernel.cube.directions import CACHED_SIZES, offsets_for
from kernel.cube.position import Position
from kernel.interrupt import COMMAND, EndingSignal, handlers, on_ending
from kernel.records.record import MAX_HEADERS, MAX_VALUE_CHARS
from kernel.records.replay import MAX_RECORD_BYTES, file_name
from tests.conftest import Engine, run_engine, split_responses
from tests.test_interrupt import wait_for_input
from tests.test_robustness import peak_rss_kib

LIMIT = EngineConfig().max_line_bytes
MIB = 1024


def refusal(path: Path, problem: str) -> bytes:
    """The response of a loadgame refused for `problem`, naming the file as the engine does."""
    return f"? {file_name(str(path))} {problem}\n\n".encode()


def timed(engine: Engine, line: str | bytes) -> tuple[bytes, float]:
    """Ask one line; return the response and the seconds it took."""
    started = time.monotonic()
    response = engine.ask(line)
    return response, time.monotonic() - started


# --- item 7: boards of brackets ---------------------------------------------------------

#: Lines just under the line limit that no board can be, each read in Python a token at a
#: time before: 2 s and 220 MB for the brackets alone.
UNDER_THE_LIMIT = {
    "brackets": b"set_board " + b"[" * (LIMIT - 20),
    "empty pairs": b"set_board " + b"[]" * (LIMIT // 2 - 20),
    "one-letter rows": b"set_board " + b"# " * (LIMIT // 2 - 20),
    "bracketed one-letter rows": b"set_board " + b"[#]" * (LIMIT // 3 - 20),
}


def test_lines_of_brackets_are_refused_at_once(engine: Engine) -> None:
    """A line of nothing but brackets, or of a million one-letter rows, is refused in
    milliseconds and a few megabytes; the position stays."""
    assert engine.ask("new_game 3") == b"= \n\n"
    board = engine.ask("get_board")
    baseline = peak_rss_kib(engine.pid)
    took = 0.0
    for case, line in UNDER_THE_LIMIT.items():
        response, seconds = timed(engine, line)
        assert response.startswith(b"? invalid board: "), (case, response[:200])
        assert len(response) < 300, case
        took += seconds
    # Each took 0.01 to 0.05 s here; before, 2.0 + 0.8 + 0.4 + 0.4 s.
    assert took < 1.5, f"{took:.2f} s for four lines"
    grown = peak_rss_kib(engine.pid) - baseline
    assert grown < 40 * MIB, f"{grown} KiB more at the peak"
    assert engine.ask("get_board") == board
    assert engine.ask("play Nb3(I)-a1(I)") == b"= \n\n"


# --- item 7: records that cost a lot ------------------------------------------------------


def record(start: str, *lines: str, size: int = 3) -> str:
    """The text of one record of the given size and start, with more lines after."""
    return "\n".join([f"Size: {size}", f"Start: {start}", "Result: *", *lines]) + "\n"


def test_a_start_of_brackets_is_refused_at_once(engine: Engine, tmp_path: Path) -> None:
    """Starts that are all brackets, one as long as a record file may be, one under the line
    limit: refused in milliseconds (the first took 191 s and 3.36 GB)."""
    huge = tmp_path / "huge.txt"
    start = "[" * (MAX_RECORD_BYTES - 100)
    huge.write_text(record(start))
    under = tmp_path / "under.txt"
    under.write_text(record("[" * (LIMIT - 100)))
    assert engine.ask("new_game 3") == b"= \n\n"
    baseline = peak_rss_kib(engine.pid)
    response, seconds = timed(engine, f"loadgame {huge}")
    assert response == refusal(
        huge,
        f"game 1 (line 1): Start is {len(start)} characters long;"
        f" the most is {LIMIT} (protocol.max_line_bytes)",
    )
    assert seconds < 3.0
    response, seconds = timed(engine, f"loadgame {under}")
    assert response.startswith(
        f"? {file_name(str(under))} game 1 (line 1): invalid start board: ".encode()
    ), response[:200]
    assert b"'[' are more than any board holds" in response
    assert seconds < 1.0
    # The 16 MiB file is held a few times over while its lines are cut; never its brackets.
    grown = peak_rss_kib(engine.pid) - baseline
    assert grown < 120 * MIB, f"{grown} KiB more at the peak"
    assert engine.ask("undo") == b"? cannot undo\n\n"


def test_headers_are_bounded(engine: Engine, tmp_path: Path) -> None:
    """16 MiB of headers is refused at the first header too many, at once (it took 19 s and
    494 MB, and printgame then answered 16.7 MB); so is a header too long. What is kept is
    bounded, and printgame writes it back."""
    start = "[#k#,###,###],[###,###,###],[###,###,#K#] w"
    many = tmp_path / "many.txt"
    headers = [f"X{index}: {'v' * 8}" for index in range(MAX_RECORD_BYTES // 20)]
    many.write_text(record(start, *headers))
    long = tmp_path / "long.txt"
    long.write_text(record(start, f"White: {'w' * (MAX_VALUE_CHARS + 1)}"))
    most = tmp_path / "most.txt"
    kept = [f"X{index}: {'v' * MAX_VALUE_CHARS}" for index in range(MAX_HEADERS - 3)]
    most.write_text(record(start, *kept))
    baseline = peak_rss_kib(engine.pid)
    response, seconds = timed(engine, f"loadgame {many}")
    assert response == refusal(many, f"line {MAX_HEADERS + 1}: more than {MAX_HEADERS} headers")
    assert seconds < 3.0
    assert engine.ask(f"loadgame {long}") == refusal(
        long,
        f"line 4: header White is {MAX_VALUE_CHARS + 1} characters long;"
        f" the most is {MAX_VALUE_CHARS}",
    )
    assert engine.ask(f"loadgame {most}") == b"= \n\n"
    written = engine.ask("printgame")
    assert len(written) < (MAX_HEADERS + 1) * (MAX_VALUE_CHARS + 20)
    assert all(line.encode() in written for line in kept)
    grown = peak_rss_kib(engine.pid) - baseline
    assert grown < 120 * MIB, f"{grown} KiB more at the peak"


def shuffle_record(size_bytes: int) -> str:
    """A record of two kings stepping back and forth, about `size_bytes` long."""
    steps = ["Ka1(I)-a2(I)", "kc3(III)-c2(III)", "Ka2(I)-a1(I)", "kc2(III)-c3(III)"]
    lines = []
    total = 0
    number = 1
    while total < size_bytes:
        pair = steps[(2 * number - 2) % 4], steps[(2 * number - 1) % 4]
        lines.append(f"{number}. {pair[0]} {pair[1]}")
        total += len(lines[-1]) + 1
        number += 1
    return record("[##k,###,###],[###,###,###],[###,###,K##] w", *lines)


def test_a_long_replay_is_stopped_by_sigusr1(log_dir: Path, tmp_path: Path) -> None:
    """loadgame of a record of 226,600 plies (5 s to replay) stops at SIGUSR1 as a search
    does, changing nothing; before, nothing stopped it."""
    path = tmp_path / "long.txt"
    path.write_text(shuffle_record(4 << 20))
    engine = Engine(log_dir)
    try:
        assert engine.ask("new_game 3") == b"= \n\n"
        assert engine.ask("play Nb3(I)-a1(I)") == b"= \n\n"
        board = engine.ask("get_board")
        engine.send(f"7 loadgame {path}\n".encode())
        wait_for_input(log_dir, f"7 loadgame {path}")
        started = time.monotonic()
        engine.signal(signal.SIGUSR1)
        response = engine.read_response(timeout=4.0)
        assert time.monotonic() - started < 2.0
        prefix = f"?7 loadgame of {file_name(str(path))} stopped at ".encode()
        assert response.startswith(prefix), response[:200]
        assert engine.ask("get_board") == board
        assert engine.ask("undo") == b"= \n\n"
        assert engine.ask(f"loadgame {path} 6") == b"= \n\n"  # the next read is not stopped
    finally:
        engine.discard()


# --- item 7: the largest boards -----------------------------------------------------------


def test_the_largest_board_stays_within_bounds(tmp_path: Path) -> None:
    """new_game at the largest size a config may allow stays under 250 MB (new_game 256 took
    908 MB, most of it a tuple of an int object per padded cell)."""
    config = tmp_path / "large.toml"
    needed = notation_length(LARGEST_SUPPORTED_SIZE) + 64
    config.write_text(
        f"[engine]\nmax_board_size = {LARGEST_SUPPORTED_SIZE}\n"
        f"[protocol]\nmax_line_bytes = {needed}\n"
    )
    engine = Engine(tmp_path / "logs", "--config", str(config))
    try:
        assert engine.ask(f"new_game {LARGEST_SUPPORTED_SIZE}") == b"= \n\n"
        assert re.fullmatch(rb"= [1-9][0-9]*\n\n", engine.ask("perft 1"))
        peak = peak_rss_kib(engine.pid)
        assert peak < 250 * MIB, f"peak {peak} KiB"
    finally:
        engine.discard()


def test_the_tables_of_few_sizes_are_kept() -> None:
    """Boards of every size one after the other keep the tables of the last few only (each
    size's were kept for ever: 70 MB a size near n = 200)."""
    for size in range(2, 40):
        Position.empty(size)
    assert offsets_for.cache_info().currsize <= CACHED_SIZES
    assert empty_cells.cache_info().currsize <= CACHED_SIZES


# --- item 8: perft keeps its path, not its moves ------------------------------------------


def queens_board(size: int, count: int, seed: int) -> str:
    """A board of two kings in opposite corners and `count` queens of both colours at random."""
    rng = random.Random(seed)
    cells: dict[tuple[int, int, int], str] = {}
    while len(cells) < count:
        cell = (rng.randrange(1, size - 1), rng.randrange(size), rng.randrange(size))
        cells[cell] = rng.choice("Qq")
    cells[0, 0, 0] = "K"
    cells[size - 1, size - 1, size - 1] = "k"
    return ",".join(
        "["
        + ",".join(
            "".join(cells.get((x, y, z), "#") for x in range(size)) for y in reversed(range(size))
        )
        + "]"
        for z in reversed(range(size))
    )


def test_perft_memory_stays_small(engine: Engine) -> None:
    """perft 100 on n = 64 with 250 queens (64,589 moves a ply): the path down to the limit
    holds no list of moves (it took 614 MB, and 820 MB with max_nodes = 30,000,000)."""
    assert engine.ask("set_board " + queens_board(64, 250, 38)) == b"= \n\n"
    assert engine.ask("perft 1") == b"= 64589\n\n"
    baseline = peak_rss_kib(engine.pid)
    response = engine.ask("perft 100")
    assert re.fullmatch(rb"\? search limit reached after 49[0-9]{5} positions\n\n", response)
    grown = peak_rss_kib(engine.pid) - baseline
    assert grown < 30 * MIB, f"{grown} KiB more at the peak"


# --- item 9: a search limit of one --------------------------------------------------------


def test_a_limit_below_the_first_step_says_so(tmp_path: Path) -> None:
    """With search.max_nodes = 1 every search stops before it has counted anything; the
    refusal says why, where "after 0 positions" alone read as a search never begun."""
    config = tmp_path / "one.toml"
    config.write_text("[search]\nmax_nodes = 1\n")
    lines = "new_game 3\nperft 1\nmate_in 2\nperft 0\nquit\n"
    result = run_engine(lines.encode(), tmp_path / "logs", "--config", str(config))
    assert result.returncode == 0, result.stderr
    assert split_responses(result.stdout) == [
        b"= \n\n",
        b"? search limit reached after 0 positions"
        b" (its first step would count 14; search.max_nodes is 1)\n\n",
        b"? search limit reached after 0 positions"
        b" (its first step would count 14; search.max_nodes is 1)\n\n",
        b"= 1\n\n",
        b"= \n\n",
    ]


# --- item 6: a record file swapped for a FIFO ---------------------------------------------

#: Put in the engine's path as sitecustomize: just before the engine opens a path ending in
#: `.swap` that is a regular file, the file becomes a FIFO, as a symlink swapped by someone
#: else after the engine has looked at it would make it (587 tries found it by chance).
SWAP_BEFORE_OPEN = """\
import builtins, os

def _swap(path):
    if isinstance(path, str) and path.endswith(".swap") and os.path.isfile(path):
        os.unlink(path)
        os.mkfifo(path)

def _wrap(opener):
    def swapped(path, *args, **kwargs):
        _swap(path)
        return opener(path, *args, **kwargs)
    return swapped

builtins.open = _wrap(builtins.open)
os.open = _wrap(os.open)
"""


def test_a_file_swapped_for_a_fifo_is_refused(
    log_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """loadgame of a path that becomes a FIFO after it was looked at, before it is opened,
    refuses it at once, as any FIFO, and answers on (the open waited for a writer for ever)."""
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    (hooks / "sitecustomize.py").write_text(SWAP_BEFORE_OPEN)
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join(filter(None, [str(hooks), os.environ.get("PYTHONPATH")]))
    )
    path = tmp_path / "game.swap"
    path.write_text(record("[#k#,###,###],[###,###,###],[###,###,#K#] w"))
    engine = Engine(log_dir)
    try:
        engine.send(f"loadgame {path}\n".encode())
        response = engine.read_response(timeout=5.0)
        assert response == refusal(path, "is not a regular file")
        assert path.is_fifo()  # the swap did happen
        assert engine.ask("name") == b"= cubemate\n\n"
    finally:
        engine.discard()


# --- the signal state of the process -------------------------------------------------------


def test_an_ending_is_forgotten_once_the_handlers_are_gone() -> None:
    """An engine ended by a signal leaves the process not ending once its handlers are put
    back (main run in-process by a test left it ending, and test_interrupt's handler tests,
    run after it in the same worker, failed)."""
    with pytest.raises(EndingSignal), handlers(at_terminal=False):
        on_ending(signal.SIGTERM, None)
    assert not COMMAND.ending
    assert COMMAND.pending_end is None
