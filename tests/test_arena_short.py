"""Players that write their moves short (`[protocol] notation = "short"`, issue 51): the
referee takes their `genmove` answers (`Bab1(II)`, `Ra3(I)+`) and names each move long, as
`legal_moves` spells it, for the other player and for the records, which machines exchange."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.judge import judge_move
from arena.referee import Position, Referee
from arena.speaker import Launch, ProcessSpeaker, Reply
from tests.conftest import read_json_log
from tests.test_arena_outside import CANONICAL, arena, read_records

REPO = Path(__file__).resolve().parent.parent
TIMEOUT = 60.0
#: 3³: white's rook on a1(I) and king on c1(I), black's king on a3(III), above a3(I).
ROOK_CHECKS = Position("[k##,###,###],[###,###,###],[###,###,R#K]", "white")


class Heard:
    """The real engine as a referee's speaker, keeping every line it is asked; as a referee
    that knows no `printgame` it refuses that."""

    def __init__(self, speaker: ProcessSpeaker, printgame: bool) -> None:
        self.speaker = speaker
        self.printgame = printgame
        self.lines: list[str] = []

    def ask(self, line: str, timeout: float | None = None) -> Reply:
        self.lines.append(line)
        if not self.printgame and line.split()[0] == "printgame":
            return Reply(False, "unknown command")
        return self.speaker.ask(line, timeout)

    def knows(self, command: str) -> bool:
        return self.speaker.knows(command)

    def identity(self) -> str:
        return self.speaker.identity()

    def kill(self) -> None:
        self.speaker.kill()

    def close(self) -> None:
        self.speaker.close()


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[ProcessSpeaker]:
    """The real engine, with the shipped config: it writes moves long."""
    launch = Launch(("python", "main.py"), cubemate_logs=True, log_dir=str(tmp_path), cwd=str(REPO))
    speaker = ProcessSpeaker(launch, TIMEOUT)
    try:
        yield speaker
    finally:
        speaker.close()


@pytest.mark.parametrize("printgame", [True, False])
def test_the_referee_names_a_short_move_long(engine: ProcessSpeaker, printgame: bool) -> None:
    """A short move, told from its rival by its file (`Bab1(II)`) or carrying its check
    (`Ra3(I)+`), is played and answered as legal_moves spells it: named by the referee's
    `printgame long` in one exchange, or, by a referee without printgame, found by trying
    the legal moves."""
    heard = Heard(engine, printgame)
    referee = Referee(heard, TIMEOUT)
    referee.new_game(3)
    legal = referee.legal_moves()
    assert {"Ba2(I)-b1(II)", "Bc2(I)-b1(II)"} <= set(legal)
    assert judge_move(referee, "Bab1(II)", legal) == "Ba2(I)-b1(II)"
    referee.set_board(ROOK_CHECKS)
    mark = len(heard.lines)
    assert judge_move(referee, "Ra3(I)+", referee.legal_moves()) == "Ra1(I)-a3(I)"
    assert referee.position().board == "[k##,###,###],[###,###,###],[R##,###,##K]"
    tried = [line for line in heard.lines[mark:] if line.startswith(("undo", "printgame"))]
    assert (tried == ["printgame long"]) == printgame, tried


def test_a_player_answering_short_is_recorded_long(tmp_path: Path) -> None:
    """A match on 3³ of cubemate writing short against cubemate writing long: exit 0, the
    short player's every genmove answered short (its log says so), every move of the records
    long, as the referee spells it, and cubemate reads the records back."""
    config = tmp_path / "short.toml"
    config.write_text('[protocol]\nnotation = "short"\n', encoding="utf-8")
    player, games, logs = (
        f"python main.py --config {config}",
        tmp_path / "games.txt",
        tmp_path / "logs",
    )
    result = arena(player, "python main.py", "--size", "3", "--games", "2", "--depth", "1",
                   "--move-cap", "30", "--records", str(games), "--log-dir", str(logs))  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "games        2 of 2 (1 complete pair), finished" in result.stdout
    played = read_records(games)
    assert len(played) == 2
    for game in played:
        assert all(CANONICAL.fullmatch(move) for move in game.moves), game.moves
    lines = "".join(f"loadgame {games} end {index}\n" for index in (1, 2))
    loaded = subprocess.run(
        [sys.executable, "main.py", "--log-dir", str(tmp_path / "replay-logs")],
        input=lines, capture_output=True, text=True, cwd=REPO, timeout=TIMEOUT, check=False,
    )  # fmt: skip
    assert loaded.stdout == "= \n\n= \n\n", loaded.stdout
    events = read_json_log(logs, session=True)
    short = {event["pid"] for event in events if event.get("config") == str(config)}
    answers = [
        event["response"].split(" ", 1)[1]
        for event in events
        if event["pid"] in short and event["event"] == "output" and event["command"] == "genmove"
    ]
    # White in the first game, black in the second: one answer for each of its plies.
    first, second = (len(game.moves) for game in played)
    assert len(answers) == (first + 1) // 2 + second // 2
    assert not any(CANONICAL.fullmatch(answer) for answer in answers), answers
