"""Players that answer too much (issue 49, items 5 and 6), through `python -m arena`: a move
megabytes long is a forfeit, not a timeout; a player that answers one `genmove` twice loses
that game, is replaced, and the match goes on (it used to stop for good, exit 1, the stale
answer read as the next game's `get_board`). A player not at the start after set-up gets one
fresh process before the match stops."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.arena_fakes import InProcessEngine, InProcessTable, records, report_row
from tests.conftest import REPO, TIMEOUT, default_signals

# isort: split

from arena.game import Game, PlayerDisagrees
from arena.match import MatchSettings
from arena.openings import StartOpening
from arena.players import PlayerSpec
from arena.speaker import Launch, Reply, Speaker
from arena.table import PLAYER_ANSWER_BYTES, Setup
from arena.tally import reason_group

SETUP = Setup(referee=("--seed=0",), timeout=10.0)
FAKE = f"{sys.executable} -m tests.arena_fake_engine"
ARENA = [sys.executable, "-m", "arena", "--progress", "off"]


def arena(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ARENA, *arguments], capture_output=True, text=True, cwd=REPO,
                          timeout=4 * TIMEOUT, check=False, preexec_fn=default_signals)  # fmt: skip


def results(path: Path) -> list[str]:
    return [record.result for record in records.parse_records(path.read_text())]


def test_a_player_that_answers_twice_loses_that_game_and_the_match_goes_on(
    tmp_path: Path,
) -> None:
    """Player 1 answers its second genmove twice, once in the match: it loses game 1 (out of
    step, said why), a fresh process plays games 2 to 4 as any other, exit 0."""
    once = tmp_path / "answered-twice"
    player = f"{FAKE} --answer-twice-at=2 --once={once}"
    played = arena(player, FAKE, "--size", "4", "--games", "4", "--move-cap", "20",
                   "--referee", FAKE, "--records", str(tmp_path / "r.txt"))  # fmt: skip
    assert played.returncode == 0, played.stderr
    assert once.exists()
    assert (
        results(tmp_path / "r.txt")
        == ["0-1 (white answered out of step)"] + ["1/2-1/2 (move cap of 20 plies)"] * 3
    )
    (warning,) = played.stderr.splitlines()
    assert warning.startswith("arena: game 1: 0-1 (white answered out of step): the engine wrote")
    assert "unasked, after its answer to 'genmove white'; killed" in warning
    assert report_row(played.stdout, "endings") == "move cap 3, out of step 1"
    assert "Traceback" not in played.stderr


def test_a_move_megabytes_long_is_a_forfeit_not_a_timeout(tmp_path: Path) -> None:
    """Player 1's first move is 20 MB, over a player's limit (16 MiB): `answered too long`,
    killed. Player 2's first move is 8 MB: read whole (0.1 s now; reading 8 MB took 3.5 s
    before issue 49, 20 MB over 20 s, past --timeout) and judged illegal. A timeout of 15 s,
    not 5: under a full `make test` and a match beside it, writing and reading the 20 MB once
    took longer than 5 s (the test alone takes 2.3 s in all), and the old reader's 20 s is
    still past it."""
    assert PLAYER_ANSWER_BYTES == 16 << 20
    one = f"{FAKE} --long-move-at=1 --once={tmp_path / 'one'}"
    two = f"{FAKE} --long-move-at=1 --long-move-bytes=8000000 --once={tmp_path / 'two'}"
    played = arena(one, two, "--size", "3", "--games", "2", "--referee", FAKE,
                   "--timeout", "15", "--records", str(tmp_path / "r.txt"))  # fmt: skip
    assert played.returncode == 0, played.stderr
    first, second = results(tmp_path / "r.txt")
    assert first == "0-1 (white answered too long)"
    assert second.startswith("0-1 (white's move was illegal: xxxxxxxx") and second.endswith("...)")
    assert "the engine wrote an answer longer than 16,777,216 bytes to 'genmove white'; killed" in (
        played.stderr
    )
    assert "timed out" not in played.stdout + played.stderr
    assert reason_group(first) == "answer too long"


# -- a player out of step at set-up, in process


class OutOfStep(InProcessEngine):
    """A process whose first get_board answers the line before's answer (as one that had
    answered twice, the second answer late), until it is replaced."""

    lives = 0

    def __init__(self, words: list[str]) -> None:
        super().__init__(words)
        OutOfStep.lives += 1
        self.out_of_step = OutOfStep.lives == 1 or "--always" in words

    def ask(self, line: str, timeout: float | None = None) -> Reply:
        reply = super().ask(line, timeout)
        return Reply(True, "") if line == "get_board" and self.out_of_step else reply


class OutOfStepTable(InProcessTable):
    def start(self, launch: Launch) -> Speaker:
        if "--out-of-step" in launch.command:
            return OutOfStep(list(launch.command))
        return super().start(launch)


def fake(*behaviour: str) -> PlayerSpec:
    return PlayerSpec(" ".join(("fake", *behaviour)), command=("--seed=7", *behaviour))


def game(player: PlayerSpec) -> Game:
    match = MatchSettings(size=3, games=2, seed=5, move_cap=300, opening=StartOpening(),
                          players=(fake(), player), setup=SETUP, time_margin=0.25)  # fmt: skip
    return Game(match.task(1), OutOfStepTable(SETUP), None)


def test_a_player_not_at_the_start_gets_one_fresh_process() -> None:
    """Its first process disagrees: replaced and set up again, the game played, a note in
    the warning; a fresh process that disagrees too stops the match (PlayerDisagrees)."""
    OutOfStep.lives = 0
    outcome = game(fake("--out-of-step")).play()
    assert OutOfStep.lives == 2
    assert outcome.warning is not None and outcome.warning.startswith(
        "game 1: player 2 (fake --out-of-step) was not at the referee's start after set-up"
    )
    assert outcome.warning.endswith("a fresh process was started")
    assert outcome.plies > 0
    OutOfStep.lives = 0
    message = r"player 2 \(fake --out-of-step --always\) is not at the referee's start of game 1"
    with pytest.raises(PlayerDisagrees, match=message):
        game(fake("--out-of-step", "--always")).play()
    assert OutOfStep.lives == 2
