"""`python -m arena` as a process: matches of engine processes, adjudication, the SPRT,
Ctrl-C and --resume, Dask, the live line, and every refusal as one line with exit code 2.

The players and the referee are the fake engine of tests/arena_fakes.py (the real kernel for
the rules) until the engine has new_game, result and genmove; the arena is started through
tests/arena_fakes.py only to give it the stand-in of kernel/records/record.py until that lands.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pexpect
import pytest

from tests.arena_fakes import records, report_row

# isort: split

from arena.cli import main as arena_main
from arena.stats import Sprt
from tests.conftest import REPO, TIMEOUT, default_signals

FAKE = f"{sys.executable} -m tests.arena_fake_engine"
ARENA = [sys.executable, "-m", "tests.arena_fakes", "arena"]
SUMMARY_FIELDS = {"wins", "draws", "losses", "elo", "elo_error", "los"}


def arena(*arguments: str, log_dir: Path) -> subprocess.CompletedProcess[str]:
    """Run a match to its end; the engines' logs go to `log_dir`."""
    return subprocess.run(
        [*ARENA, "--referee", FAKE, "--log-dir", str(log_dir), *arguments],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=4 * TIMEOUT,
        check=False,
    )


def read_records(path: Path) -> list[Any]:
    """The records of a file (GameRecord objects of kernel.records.record)."""
    games: list[Any] = records.parse_records(path.read_text())
    return games


def refused(result: subprocess.CompletedProcess[str]) -> str:
    """The one-line refusal of a run that started nothing: exit code 2, nothing on stdout."""
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("arena: "), result.stderr
    return lines[0]


# -- matches


def test_a_match_of_engine_processes(tmp_path: Path) -> None:
    """Four games of two engine processes: the table on stdout, every game in the records
    file (each replayable), the summary with exactly the issue's fields."""
    games, summary = tmp_path / "games.txt", tmp_path / "summary.json"
    result = arena(FAKE, f"{FAKE} --seed=3", "--size", "4", "--games", "4", "--move-cap",
                   "40", "--records", str(games), "--json", str(summary),
                   log_dir=tmp_path / "logs")  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert "games        4 of 4 (2 complete pairs), finished" in result.stdout
    assert result.stdout.startswith(f"match        {FAKE} vs {FAKE} --seed=3, 4x4x4, ")
    played = read_records(games)
    assert [game.headers["Round"] for game in played] == ["1", "2", "3", "4"]
    data = json.loads(summary.read_text())
    assert set(data) == SUMMARY_FIELDS
    assert data["wins"] + data["draws"] + data["losses"] == 4
    # White's count and the pairs one colour won twice, as the records have them.
    results = [game.result.split()[0] for game in played]
    wins, draws, losses = (results.count(score) for score in ("1-0", "1/2-1/2", "0-1"))
    twice = sum(a == b != "1/2-1/2" for a, b in zip(results[0::2], results[1::2], strict=True))
    assert report_row(result.stdout, "colours") == (
        f"white {wins} wins, {draws} draws, {losses} losses ({100 * (wins + draws / 2) / 4:.1f} "
        f"%); {twice} of 2 pairs won by one colour twice"
    )


def test_a_match_of_real_engines(tmp_path: Path) -> None:
    """The engine at depth 1 against greedy and against itself at depth 2, with the engine as
    the referee: every record replays on the engine to its recorded result."""
    matches = [
        ("greedy", ["--depth", "1"]),
        ("python main.py", ["--depth1", "1", "--depth2", "2"]),
    ]
    replays: list[str] = []
    results: list[str] = []
    for match, (player2, options) in enumerate(matches):
        games = tmp_path / f"games{match}.txt"
        result = subprocess.run(
            [*ARENA, "python main.py", player2, "--size", "4", "--games", "2", "--records",
             str(games), "--log-dir", str(tmp_path / "logs"), *options],
            capture_output=True, text=True, cwd=REPO, timeout=8 * TIMEOUT, check=False,
        )  # fmt: skip
        assert result.returncode == 0, result.stderr
        for index, game in enumerate(read_records(games), start=1):
            replays.append(f"loadgame {games} end {index}\nresult\n")
            results.append(f"= {game.result}")
    # One engine replays them all: each loadgame sets up its game afresh.
    replayed = subprocess.run(
        [sys.executable, str(REPO / "main.py"), "--log-dir", str(tmp_path / "logs")],
        input="".join(replays), capture_output=True, text=True, cwd=REPO, timeout=TIMEOUT,
        check=False,
    )  # fmt: skip
    expected = [answer for recorded in results for answer in ("= ", recorded)]
    assert replayed.stdout.split("\n\n") == [*expected, ""]


@pytest.mark.parametrize(
    ("player2", "options", "results"),
    [
        (f"{FAKE} --crash-at=2", [], ["1-0 (black crashed)", "0-1 (white crashed)"]),
        (f"{FAKE} --illegal-at=1", [], ["1-0 (black's move was illegal: Ka1(I)-a1(IV))",
                                         "0-1 (white's move was illegal: Ka1(I)-a1(IV))"]),
        # Its clock bounds the hanging player's move: 0.2 s and the margin, then it is killed.
        (f"{FAKE} --hang-at=1", ["--move-time2", "0.2", "--time-margin", "0.3"],
         ["1-0 (black timed out)", "0-1 (white timed out)"]),
    ],
    ids=["crash", "illegal", "timeout"],
)  # fmt: skip
def test_a_failing_player_loses_each_game(
    tmp_path: Path, player2: str, options: list[str], results: list[str]
) -> None:
    """Player 2 fails in both games (with either colour): a loss said so in the result, a
    warning with the process's details on stderr for a crash or a timeout, and a fresh
    process for the next game."""
    games = tmp_path / "games.txt"
    result = arena(FAKE, player2, "--size", "3", "--games", "2", "--records", str(games),
                   *options, log_dir=tmp_path / "logs")  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert [game.result for game in read_records(games)] == results
    assert "player 1     " + FAKE + ": 2 wins, 0 draws, 0 losses" in result.stdout
    if "illegal" in player2:
        assert result.stderr == ""
    else:
        warnings = result.stderr.splitlines()
        assert len(warnings) == 2 and all(line.startswith("arena: game ") for line in warnings)
        if "crash" in player2:
            assert "fake engine: crashing on purpose" in warnings[0]


@pytest.mark.parametrize(("loser", "decision"), [(2, "H1"), (1, "H0")])
def test_the_sprt_stops_as_soon_as_it_decides(tmp_path: Path, loser: int, decision: str) -> None:
    """One player answers an illegal move in every game, so every pair is 2 points (or 0)
    for player 1; the match stops at the first pair whose LLR crosses a bound, long before
    the 200 games allowed."""
    sprt = Sprt(0, 200, 0.05, 0.05)

    def counts(pairs: int) -> tuple[int, ...]:
        return (0, 0, 0, 0, pairs) if loser == 2 else (pairs, 0, 0, 0, 0)

    pairs = 1
    while sprt.decision(sprt.llr(counts(pairs))) is None:
        pairs += 1
    players = [FAKE, FAKE]
    players[loser - 1] = f"{FAKE} --illegal-at=1"
    games, summary = tmp_path / "games.txt", tmp_path / "summary.json"
    result = arena(*players, "--size", "3", "--games", "200", "--sprt", "0", "200", "0.05",
                   "0.05", "--records", str(games), "--json", str(summary),
                   log_dir=tmp_path / "logs")  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert len(read_records(games)) == 2 * pairs < 200
    assert f"stopped: the SPRT accepted {decision}" in result.stdout
    assert f": {decision} accepted" in result.stdout
    data = json.loads(summary.read_text())
    assert set(data) == SUMMARY_FIELDS | {"llr", "sprt"}
    assert data["sprt"] == decision
    assert abs(data["llr"]) >= sprt.upper


def test_ctrl_c_keeps_the_finished_games_and_resume_finishes(tmp_path: Path) -> None:
    """Ctrl-C during a match of two at a time: exit 130, the table of the games finished,
    each of them in the records file whole; --resume then plays exactly the missing ones."""
    games, logs = tmp_path / "games.txt", tmp_path / "logs"
    slow = f"{FAKE} --delay=10"
    common = [slow, "random", "--size", "3", "--records", str(games), "--concurrency", "2",
              "--referee", FAKE, "--log-dir", str(logs)]  # fmt: skip
    process = subprocess.Popen(
        [*ARENA, *common, "--games", "400"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
        preexec_fn=default_signals,
    )
    try:
        deadline = time.monotonic() + 4 * TIMEOUT
        while not games.exists() or games.read_text().count("Round: ") < 2:
            assert process.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=TIMEOUT)
    finally:
        process.kill()
    assert process.returncode == 130, err
    assert "interrupted" in out and "arena: interrupted" in err
    assert "Traceback" not in err
    done = sorted(int(game.headers["Round"]) for game in read_records(games))
    assert 2 <= len(done) < 400
    assert report_row(out, "games").startswith(f"{len(done)} of 400 ")
    # As if a kill had come in the middle of writing the last record: it is cut, and that
    # game is played again.
    text = games.read_text()
    games.write_text(text[: text.rstrip("\n").rfind("\n\n") + 2 + 30])
    total = max(done) + 1
    result = subprocess.run([*ARENA, *common, "--games", str(total), "--resume"],
                            capture_output=True, text=True, cwd=REPO, timeout=4 * TIMEOUT,
                            check=False)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stderr.startswith("arena: cut 2 line(s) of a record left unfinished at the end")
    rounds = [int(game.headers["Round"]) for game in read_records(games)]
    assert sorted(rounds) == list(range(1, total + 1))
    assert report_row(result.stdout, "games").startswith(f"{total} of {total} ")


def test_sigterm_stops_like_ctrl_c(tmp_path: Path) -> None:
    games = tmp_path / "games.txt"
    process = subprocess.Popen(
        [*ARENA, f"{FAKE} --delay=40", "random", "--size", "3", "--games", "400",
         "--records", str(games), "--referee", FAKE, "--log-dir", str(tmp_path / "logs")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 4 * TIMEOUT
        while not games.exists() or "Round: " not in games.read_text():
            assert process.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        process.terminate()
        out, err = process.communicate(timeout=TIMEOUT)
    finally:
        process.kill()
    assert process.returncode == 130, err
    assert games.read_text().endswith("\n\n")
    assert "interrupted" in out


def test_a_referee_failing_twice_stops_the_match(tmp_path: Path) -> None:
    """The referee dies during game 1, and its replacement too: exit code 1, the report of
    what was done (nothing), and the summary still written."""
    summary = tmp_path / "summary.json"
    result = subprocess.run(
        [*ARENA, "random", "greedy", "--size", "3", "--games", "4", "--json", str(summary),
         "--referee", f"{FAKE} --result-crash-at=3", "--log-dir", str(tmp_path)],
        capture_output=True, text=True, cwd=REPO, timeout=4 * TIMEOUT, check=False,
    )  # fmt: skip
    assert result.returncode == 1, result.stderr
    assert re.search(r"^games +0 of 4 \(0 complete pairs\), stopped, the referee failed: the "
                     r"referee crashed on 'result'", result.stdout, re.MULTILINE)  # fmt: skip
    (line,) = result.stderr.splitlines()
    assert line.startswith("arena: stopped, the referee failed: the referee crashed on 'result'")
    assert json.loads(summary.read_text())["wins"] == 0


# -- refusals


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--random-plies", "3", "--openings", "x.txt"],
         "--openings and --random-plies contradict"),
        (["--move-time", "1", "--time-settings", "1", "1", "1"], "player 1: --move-time and "
         "--time-settings contradict each other"),
        (["--resume"], "--resume continues a records file: give it with --records"),
        (["--sprt", "5", "0", "0.05", "0.05"], "--sprt: ELO0 (5) must be below ELO1 (0)"),
        (["--sprt", "0", "5", "0.05"], "argument --sprt: expected 4 arguments"),
        (["--games", "0"], "--games must be 1 or more"),
        (["--depth", "0"], "player 1: --depth must be 1 or more"),
        (["--time-settings2", "10", "1", "0.5"], "player 2: --time-settings: BYO_STONES must"),
        (["--time-settings2", "0", "0", "0"], "player 2: no main time and no byo-yomi"),
        (["--time-settings", "nan", "1", "1"], "player 1: --time-settings: BYO_STONES must"),
        (["--move-time2", "-1"], "player 2: --move-time must be positive, not -1"),
        (["--timeout", "0"], "--timeout must be positive and --time-margin not negative"),
        (["--records", "same.txt", "--json", "same.txt"], "--json and --records name the same"),
        (["--bogus"], "unrecognized arguments: --bogus"),
        (["--referee", ""], "--referee: an empty command"),
        (["--openings", "/no/such/openings.txt"], "cannot read the openings file"),
        (["--depth1", "2"], "--depth1: player 1 is the built-in random player, which takes no "
         "limits"),
    ],
)  # fmt: skip
def test_contradictory_options_are_refused(
    capsys: pytest.CaptureFixture[str], arguments: list[str], message: str
) -> None:
    """In process (the same main as the process runs): exit 2 and one line naming it."""
    player1 = "random" if "--depth1" in arguments else FAKE
    try:
        code: object = arena_main([player1, FAKE, *arguments])
    except SystemExit as stop:  # argparse's own refusals
        code = stop.code
    assert code == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("arena: ") and message in err


def test_a_refusal_through_the_process_is_one_line(tmp_path: Path) -> None:
    line = refused(arena(FAKE, FAKE, "--games", "-3", log_dir=tmp_path))
    assert line == "arena: --games must be 1 or more"


@pytest.mark.parametrize(
    ("player", "message"),
    [
        ("/no/such/engine --fast", "player 2 (/no/such/engine --fast) does not start or does "
         "not speak the protocol: cannot start the engine"),
        (f"{FAKE} --garbage", f"player 2 ({FAKE} --garbage) does not start or does not speak "
         "the protocol: "),
        (f"{FAKE} --no-genmove", f"player 2 ({FAKE} --no-genmove) does not know genmove"),
        ("'unbalanced", "player 2: cannot read the command \"'unbalanced\": No closing quotation"),
    ],
)  # fmt: skip
def test_a_player_that_cannot_play_is_refused(tmp_path: Path, player: str, message: str) -> None:
    records_file = tmp_path / "games.txt"
    # What the garbage player writes is skipped as a greeting: --timeout bounds the wait.
    line = refused(arena(FAKE, player, "--records", str(records_file), "--timeout", "2",
                         log_dir=tmp_path))  # fmt: skip
    assert line.startswith(f"arena: {message}")
    assert not records_file.exists()


def test_a_referee_without_games_is_refused(tmp_path: Path) -> None:
    """A referee engine without the game commands (a fake, `--bare`) is refused."""
    line = refused(arena("random", "greedy", "--referee", f"{FAKE} --bare", log_dir=tmp_path))
    assert line.endswith("does not know new_game, result")


def test_the_openings_file_is_checked_by_the_referee(tmp_path: Path) -> None:
    openings = tmp_path / "openings.txt"
    openings.write_text("# positions\n[#K#,###,###],[###,###,###],[###,#r#,#k#]\n"
                        "[#K#,###,###],[###,###,###],[###,###,#kK]\n")  # fmt: skip
    line = refused(arena("random", "greedy", "--size", "3", "--openings", str(openings),
                         log_dir=tmp_path))  # fmt: skip
    assert line.startswith(f"arena: {openings} line 3: the referee refused 'set_board ")


def test_files_that_cannot_be_used_are_refused_and_left_alone(tmp_path: Path) -> None:
    missing = tmp_path / "no" / "such" / "folder" / "games.txt"
    line = refused(arena(FAKE, FAKE, "--records", str(missing), log_dir=tmp_path))
    assert line == f"arena: cannot write the records file {missing}: no folder {missing.parent}"
    line = refused(arena(FAKE, FAKE, "--json", str(tmp_path), log_dir=tmp_path))
    assert line == f"arena: cannot write the summary file {tmp_path}: Is a directory"
    kept = tmp_path / "kept.txt"
    kept.write_text("Size: 3\n")
    line = refused(arena(FAKE, FAKE, "--records", str(kept), log_dir=tmp_path))
    assert line == f"arena: {kept} already holds games: --resume continues it, or name another"
    corrupt = tmp_path / "corrupt.txt"
    corrupt.write_text("Size: 3\nStart: x w\nResult: 1-0 (checkmate)\nnonsense here\n\n")
    line = refused(arena(FAKE, FAKE, "--records", str(corrupt), "--resume", log_dir=tmp_path))
    assert line.startswith(f"arena: --resume: {corrupt} is not a records file: line 4")
    assert kept.read_text() == "Size: 3\n"
    assert corrupt.read_text().endswith("nonsense here\n\n")


def test_resuming_another_match_is_refused(tmp_path: Path) -> None:
    games = tmp_path / "games.txt"
    assert arena(FAKE, "random", "--size", "3", "--games", "2", "--records", str(games),
                 log_dir=tmp_path).returncode == 0  # fmt: skip
    before = games.read_text()
    line = refused(arena(FAKE, "greedy", "--size", "3", "--games", "4", "--records",
                         str(games), "--resume", log_dir=tmp_path))  # fmt: skip
    assert "is from another match (size 3; openings start; seed 1; move cap 300; player 1 " in line
    assert "player 2 random); this one is: " in line
    assert games.read_text() == before


# -- the live line, and Dask


def test_the_live_line_is_shown_at_a_terminal_only(tmp_path: Path) -> None:
    arguments = [FAKE, "random", "--size", "3", "--games", "2", "--referee", FAKE,
                 "--log-dir", str(tmp_path)]  # fmt: skip
    piped = subprocess.run([*ARENA, *arguments], capture_output=True, text=True, cwd=REPO,
                           timeout=4 * TIMEOUT, check=False)  # fmt: skip
    assert piped.returncode == 0 and piped.stderr == ""
    child = pexpect.spawn(ARENA[0], [*ARENA[1:], *arguments], cwd=str(REPO),
                          encoding="utf-8", timeout=4 * TIMEOUT)  # fmt: skip
    child.expect(r"\rgames 2/2  \+\d+ =\d+ -\d+  score \d+\.\d %")
    child.expect("games        2 of 2")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_a_local_dask_cluster_plays_the_same_games(tmp_path: Path) -> None:
    """The same match through a Dask LocalCluster (two worker threads) and through local
    threads: the same results, game by game (the fakes reseed at each game)."""
    from distributed import LocalCluster

    arguments = [FAKE, f"{FAKE} --seed=4", "--size", "3", "--games", "4", "--random-plies",
                 "2", "--referee", FAKE, "--log-dir", str(tmp_path / "logs")]  # fmt: skip
    local = tmp_path / "local.txt"
    assert arena_main([*arguments, "--records", str(local), "--concurrency", "2"]) == 0
    cluster = LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address=":0"
    )
    try:
        remote = tmp_path / "dask.txt"
        assert arena_main([*arguments, "--records", str(remote), "--dask",
                           cluster.scheduler_address]) == 0  # fmt: skip
    finally:
        cluster.close()

    def results(path: Path) -> dict[str, tuple[str, list[str]]]:
        return {game.headers["Round"]: (game.result, game.moves)
                for game in read_records(path)}  # fmt: skip

    assert results(remote) == results(local)
    assert len(results(local)) == 4


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ([FAKE], "two players are needed: PLAYER1 PLAYER2, or --engine1 and --engine2"),
        ([FAKE, FAKE, "--engine1", "cmd=x"], "two players are needed"),
        (["--engine1", FAKE, "random"], "--engine1: write the engine as cmd=COMMAND"),
        (["cmd=x hash=16", "random"], "player 1: 'hash=16' is not one of cmd=, arg=, name="),
        (["cmd=x ids=yes", "random"], "player 1: ids= takes on or off, not 'yes'"),
        (["random", "--engine2", "cmd=x depth=0"], "player 2: depth= takes a whole number"),
        (["cmd=x st=-1", "random"], "player 1: st= takes seconds, more than 0, not '-1'"),
        (["cmd=x start=clear_board", "random"], "start= takes new_game or set_board"),
        (["cmd=x name=a name=b", "random"], "player 1: name= given twice"),
        (["cmd=", "random"], "player 1: cmd= is empty"),
    ],
)  # fmt: skip
def test_a_player_written_as_words_is_checked(
    capsys: pytest.CaptureFixture[str], arguments: list[str], message: str
) -> None:
    assert arena_main(arguments) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("arena: ") and message in err
