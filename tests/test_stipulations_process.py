"""`selfmate`, `helpmate` and `solution N selfmate` through the engine process: the answers
as framed on the pipe, a refusal past search.max_solutions, and SIGUSR1 stopping both
searches with nothing changed (the in-process checks against the brute force are in
test_stipulations.py)."""

from __future__ import annotations

import re
import signal
from pathlib import Path

import pytest

from tests.conftest import Engine
from tests.test_interrupt import BOARD, wait_for_input

SELFMATE = "[###,q##,#B#],[##Q,###,#k#],[##K,###,#b#]"
HELPMATE = "[###,K#Q,###],[###,###,##k],[###,###,###] b"
STOPPED = re.compile(rb"\?7 search stopped after [0-9]+ positions\n\n")


def test_the_answers_on_the_pipe(log_dir: Path, engines: list[Engine], tmp_path: Path) -> None:
    config = tmp_path / "few.toml"
    config.write_text("[search]\nmax_solutions = 3\n")
    engine = Engine(log_dir, "--config", str(config))
    engines.append(engine)
    assert engine.ask(f"set_board {SELFMATE}") == b"= \n\n"
    assert engine.ask("selfmate 1") == b"= Qc3(II)-b2(II)\n\n"
    assert engine.ask("2 solution 1 selfmate") == b"=2 Qc3(II)-b2(II)\n  qa2(III)xb2(II) #\n\n"
    assert engine.ask(f"set_board {HELPMATE}") == b"= \n\n"
    # Five solutions; the compiled search (kernel/core/helpmate.c) passes the limit of three
    # after the mated side's second move, with four (the Python search's order, with five).
    assert (
        engine.ask("helpmate 1")
        == b"? more than 3 solutions (search.max_solutions): stopped at 4\n\n"
    )
    assert engine.ask("play kc1(II)-b1(I)") == b"= \n\n"
    assert engine.ask("helpmate 1") == b"= 0\n\n"  # white to move now: white is not mated
    assert engine.ask("undo") == b"= \n\n"
    assert engine.ask("get_board") == f"= {HELPMATE}\n\n".encode()
    code, rest, err = engine.finish()
    assert (code, rest, err) == (0, b"", b"")


@pytest.mark.parametrize("search", ["selfmate 12", "helpmate 12"])
def test_sigusr1_stops_the_search(
    log_dir: Path, engines: list[Engine], tmp_path: Path, search: str
) -> None:
    config = tmp_path / "endless.toml"
    config.write_text("[search]\nmax_nodes = 1000000000000\nmax_solutions = 100000\n")
    engine = Engine(log_dir, "--config", str(config))
    engines.append(engine)
    assert engine.ask(f"set_board {BOARD}") == b"= \n\n"
    board = engine.ask("get_board")
    engine.send(f"7 {search}\n".encode())
    wait_for_input(log_dir, f"7 {search}")
    engine.signal(signal.SIGUSR1)
    assert STOPPED.fullmatch(engine.read_response())
    assert engine.ask("get_board") == board
    assert engine.ask("selfmate 1") == b"= \n\n"
    code, rest, err = engine.finish()
    assert (code, rest, err) == (0, b"", b"")
