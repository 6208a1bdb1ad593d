"""Engines we did not write, through `python -m arena` (issue 39): the outside engine of
tests/arena_outside_engine.py (strict arguments, no `new_game`, moves without their letter,
no ids, a greeting on stdout, an exit on `quit` only) plays whole matches against `random`
and against cubemate, with no wrapper; the referee judges its moves and the records hold
them as the referee spells them."""

from __future__ import annotations

import itertools
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.arena_fakes import records
from tests.conftest import REPO, TIMEOUT

OUTSIDE = f"{sys.executable} -m tests.arena_outside_engine"
ARENA = [sys.executable, "-m", "arena"]
#: A move as legal_moves writes it: its letter, roman levels.
CANONICAL = re.compile(r"[KQRBNkqrbn][a-z]+[0-9]+\([IVX]+\)[-x][a-z]+[0-9]+\([IVX]+\)")


def arena(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ARENA, "--progress", "off", *arguments], capture_output=True,
                          text=True, cwd=REPO, timeout=4 * TIMEOUT, check=False)  # fmt: skip


def read_records(path: Path) -> list[Any]:
    games: list[Any] = records.parse_records(path.read_text())
    return games


def replays(path: Path, tmp_path: Path) -> None:
    """Every record of the file replays on cubemate to its recorded result."""
    games = read_records(path)
    lines = "".join(f"loadgame {path} end {index}\nresult\n" for index in range(1, len(games) + 1))
    replayed = subprocess.run(
        [sys.executable, str(REPO / "main.py"), "--log-dir", str(tmp_path / "logs")],
        input=lines, capture_output=True, text=True, cwd=REPO, timeout=TIMEOUT, check=False,
    )  # fmt: skip
    expected = [answer for game in games for answer in ("= ", f"= {game.result}")]
    assert replayed.stdout.split("\n\n") == [*expected, ""]


@pytest.mark.parametrize("opponent", ["random", "python main.py"])
def test_an_outside_engine_plays_whole_matches(tmp_path: Path, opponent: str) -> None:
    """Two games each way on 3x3x3: exit 0, a warning of the greeting, every move in the
    records spelled as the referee spells it (the engine wrote none so), the records replay,
    and every process of the engine got set_board (never new_game, ids or --log-dir) and
    ended on quit."""
    trace, games = tmp_path / "trace.txt", tmp_path / "games.txt"
    player = f"{OUTSIDE} --banner --quit-only --trace {trace}"
    options = ["--depth2", "1"] if opponent != "random" else []
    result = arena(player, opponent, "--size", "3", "--games", "2", "--records", str(games),
                   "--log-dir", str(tmp_path / "logs"), *options)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "games        2 of 2 (1 complete pair), finished" in result.stdout
    assert result.stderr == (
        f"arena: player 1 ({player}) wrote 1 line(s) before its first answer, skipped: "
        "outside 1.0, a chess engine for cubes\n"
    )
    played = read_records(games)
    assert len(played) == 2
    for game in played:
        assert all(CANONICAL.fullmatch(move) for move in game.moves), game.moves
        side = "White" if game.headers["Round"] == "1" else "Black"
        assert game.headers[f"{side}Engine"] == "outside 1.0"
        assert game.headers[f"{side}Options"] == "start by set_board"
    replays(games, tmp_path)
    lines = trace.read_text().splitlines()
    sent = {line.split()[0] for line in lines}
    assert "new_game" not in sent and not any(word.isdigit() for word in sent)
    # The check before the match, and the one process that played both games.
    assert lines.count("protocol_version") == 2 and lines.count("exit") == 2
    assert sum(line.startswith("set_board ") for line in lines) == 2
    assert all(following == "exit" for line, following in itertools.pairwise(lines)
               if line == "quit")  # fmt: skip
    # The outside engine's moves reached cubemate in its own spelling, and cubemate played.
    if opponent != "random":
        assert any(game.headers.get(f"{side}Engine", "").startswith("cubemate ")
                   for game in played for side in ("White", "Black"))  # fmt: skip


def test_engines_written_as_key_value_words(tmp_path: Path) -> None:
    """--engine1 in the cutechess way: its name in the table and the records, its args, its
    own time a move (`st=`) sent as `level time S`, as it has no GTP clock; ids on for one
    player only (cubemate echoes them)."""
    trace, games = tmp_path / "trace.txt", tmp_path / "games.txt"
    result = arena("--engine1", f"cmd='{OUTSIDE}' arg=--level arg=--trace arg={trace} "
                   "name=Outsider st=0.5", "--engine2", "cmd='python main.py' ids=on depth=1",
                   "--size", "3", "--games", "2", "--records", str(games))  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("match        Outsider (0.5 s a move) vs python main.py "
                                    "(depth 1), 3x3x3")  # fmt: skip
    lines = trace.read_text().splitlines()
    assert "level time 0.5" in lines
    assert not any(line.startswith(("time_settings", "time_left")) for line in lines)
    first = read_records(games)[0]
    assert first.headers["White"] == "Outsider (0.5 s a move)"
    assert first.headers["WhiteCommand"] == f"{OUTSIDE} --level --trace {trace}"
    assert first.headers["WhiteOptions"] == "start by set_board; level time 0.5"
    assert first.headers["TimeControl"] == "white 0.5 s a move"
    assert first.headers["BlackOptions"] == "ids on; level depth 1"


def test_a_player_at_another_start_stops_the_match(tmp_path: Path) -> None:
    """An engine whose new_game is not the referee's start is refused before any game; told
    to take set_board instead (start=set_board), it plays."""
    player = f"{OUTSIDE} --new-game wrong"
    result = arena(player, "random", "--size", "3", "--games", "2")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith(
        f"arena: player 1 ({player}) does not start a 3x3x3 game where the referee does: it has '["
    )
    result = arena(f"cmd='{player}' start=set_board", "random", "--size", "3", "--games", "2")
    assert result.returncode == 0, result.stderr


def test_a_strict_engine_is_refused_what_it_does_not_know(tmp_path: Path) -> None:
    """--depth needs `level`, which the outside engine lacks (without --level): refused,
    naming it; a time a move needs GTP's clock or `level`."""
    clock = "time_settings and time_left, or level"
    for limit, label, missing in ((["--depth1", "2"], "depth 2", "level"),
                                  (["--move-time1", "1"], "1 s a move", clock)):  # fmt: skip
        result = arena(OUTSIDE, "random", *limit)
        assert result.returncode == 2
        assert result.stderr == f"arena: player 1 ({OUTSIDE} ({label})) does not know {missing}\n"
