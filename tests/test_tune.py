"""Texel's method (tune/, docs/arena.md "Texel's method"): the fit finds known weights, the
linear model follows the real evaluation, the quiet filter, and the program end to end."""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
import tomllib
from dataclasses import fields, replace
from pathlib import Path

from kernel.config import EngineConfig, load_config
from kernel.play.evaluation import Tables
from kernel.records.record import GameRecord, format_records, parse_records
from kernel.records.replay import start_of
from tests.conftest import MAIN, REPO, TIMEOUT, default_signals
from tune.features import RAUMSCHACH_TUNABLES, FeatureMaker, Tunable, linear_score, white_score
from tune.fit import Point, expected, fit_k, mean_error, scores_at, tune
from tune.positions import BASE_WEIGHTS, SKIPPED_PLIES, is_drawish, is_quiet, replayed

#: A ladder match of Raumschach from the book, between two of the engine's levels.
LADDER = REPO / "docs/ladder/raumschach-placement-8-nodes20000-vs-default-nodes20000-book.txt"


def synthetic(
    count: int, truth: list[float], base: list[float], k: float, seed: int
) -> list[Point]:
    """Positions whose results are drawn from the logistic of a known linear score."""
    rng = random.Random(seed)
    points = []
    for _ in range(count):
        score = rng.uniform(-300.0, 300.0)
        slopes = (rng.uniform(-400.0, 400.0), rng.uniform(-20.0, 20.0), rng.uniform(-2.0, 2.0))
        true_score = score + sum(
            slope * (true - start) for slope, true, start in zip(slopes, truth, base, strict=True)
        )
        result = 1.0 if rng.random() < expected(true_score, k) else 0.0
        points.append(Point(result, score, slopes))
    return points


def test_the_fit_finds_the_weights_the_results_were_drawn_from() -> None:
    """Results drawn from known weights (a factor, two centipawn weights, all away from the
    base): the descent comes back to them, and K is found where the base is the truth."""
    tunables = (
        Tunable("queen", False, 0.1, 0.05),
        Tunable("exposure", True, 4, 4),
        Tunable("pawn_near", True, 20, 16),
    )
    base, truth, k = [1.0, 12.0, 150.0], [1.3, 30.0, 60.0], 1.2
    points = synthetic(6000, truth, base, k, seed=5)
    tuned = tune(points, tunables, base, k)
    assert abs(tuned[0] - truth[0]) <= 0.05, tuned
    assert abs(tuned[1] - truth[1]) <= 4, tuned
    assert abs(tuned[2] - truth[2]) <= 30, tuned
    assert all(value == round(value) for value in tuned[1:]), "a centipawn weight is whole"
    results = [point.result for point in points]
    moves = [after - before for after, before in zip(tuned, base, strict=True)]
    assert mean_error(results, scores_at(points, moves), k) < mean_error(
        results, [point.score for point in points], k
    )
    # K at the true weights: the points moved to them.
    at_truth = synthetic(6000, truth, truth, k, seed=6)
    assert abs(fit_k(at_truth) - k) <= 0.15


def test_the_fit_keeps_to_the_bounds() -> None:
    """A weight the results would push past the config's bounds stops at the bound."""
    tunables = (Tunable("knight", False, 0.1, 0.5),)
    points = synthetic(2000, [30.0, 0.0, 0.0], [1.0, 0.0, 0.0], 1.0, seed=7)
    points = [Point(point.result, point.score, point.slopes[:1]) for point in points]
    (tuned,) = tune(points, tunables, [1.0], 1.0)
    assert tuned == 10.0


def test_the_linear_model_follows_the_evaluation_on_real_positions() -> None:
    """On the positions of two ladder games, the score at the base weights plus the slopes
    times the moves is the real evaluation's within a few centipawns (the rounding), each
    weight moved alone and all a little at once, while the weights move the scores by far
    more than that. (Moved far together, exposure and the values' factors act on each other
    through the king's danger: exposure 24 with four factors moved was off by 25.)"""
    records = parse_records(LADDER.read_text(encoding="utf-8"))[:2]
    moved_sets: list[dict[str, float]] = [
        {"queen": 0.8}, {"rook": 1.3}, {"bishop": 0.5}, {"knight": 1.2}, {"unicorn": 0.7},
        {"pawn": 1.5}, {"raumschach_placement": 16}, {"exposure": 24}, {"king_reach": 12},
        {"pawn_advance": 40}, {"pawn_near": 100},
        {"queen": 1.1, "rook": 0.9, "bishop": 1.1, "knight": 0.9, "unicorn": 1.1, "pawn": 0.9,
         "raumschach_placement": 20, "exposure": 8, "king_reach": 4, "pawn_advance": 25,
         "pawn_near": 120},
    ]  # fmt: skip
    maker: FeatureMaker | None = None
    tables: list[Tables] = []
    worst = [0.0] * len(moved_sets)
    changed = [0.0] * len(moved_sets)
    count = 0
    for record in records:
        for ply, (position, analysis) in enumerate(replayed(record, "ladder")):
            if ply < SKIPPED_PLIES or analysis.in_check or is_drawish(position):
                continue
            if maker is None:
                maker = FeatureMaker(position, BASE_WEIGHTS, RAUMSCHACH_TUNABLES)
                tables = [Tables(position, replace(BASE_WEIGHTS, **moved)) for moved in moved_sets]  # type: ignore[arg-type]
            base_score, slopes = maker.features(position)
            assert base_score == white_score(position, Tables(position, BASE_WEIGHTS))
            count += 1
            for index, moved in enumerate(moved_sets):
                moves = [
                    moved.get(tunable.name, getattr(BASE_WEIGHTS, tunable.name))
                    - getattr(BASE_WEIGHTS, tunable.name)
                    for tunable in RAUMSCHACH_TUNABLES
                ]
                real = white_score(position, tables[index])
                model = linear_score(base_score, slopes, moves)
                worst[index] = max(worst[index], abs(real - model))
                changed[index] += abs(real - base_score)
    assert count > 100
    assert max(worst) <= 8, worst
    # The weights matter: each moves the scores by more on average than the model is ever off
    # (pawn_near aside, which few positions have a pawn one step from promotion to show).
    assert all(total / count > 8 for total in changed[:-2]), changed


def raumschach(text: str) -> GameRecord:
    """A Raumschach record of one position, white to move."""
    return GameRecord(5, f"{text} w", "*", headers={"Variant": "raumschach"})


def test_the_quiet_filter_drops_a_winning_capture_and_keeps_a_quiet_position() -> None:
    """The same pieces but for the black rook: where the queen takes it for nothing the
    position is not quiet; a cell away from every line of the queen's, it is."""
    # Levels from the top (black's) down, ranks from the far one: the queen on c1(II), the
    # rook on c1(III) or a5(III), the kings on a5(V) and a1(I), pawns on a3(V) and e3(I).
    top = "[k####,#####,p####,#####,#####],[#####,#####,#####,#####,#####]"
    bottom = "[#####,#####,#####,#####,##Q##],[#####,#####,####P,#####,K####]"
    taken = f"{top},[#####,#####,#####,#####,##r##],{bottom}"
    away = f"{top},[r####,#####,#####,#####,#####],{bottom}"
    config = EngineConfig()
    for text, quiet in ((taken, False), (away, True)):
        position = start_of(raumschach(text), "test", config)
        assert not is_drawish(position), "pawns on both sides: the evaluation divides nothing"
        assert is_quiet(position) is quiet, text


def run_tune(*arguments: str, timeout: float = TIMEOUT) -> subprocess.CompletedProcess[str]:
    """Run python -m tune from the repository root."""
    return subprocess.run(
        [sys.executable, "-m", "tune", *arguments],
        capture_output=True, text=True, cwd=REPO, timeout=timeout, check=False,
    )  # fmt: skip


def ladder_file(tmp_path: Path, games: int) -> Path:
    """A records file of the ladder match's first games."""
    path = tmp_path / "games.txt"
    records = parse_records(LADDER.read_text(encoding="utf-8"))[:games]
    path.write_text(format_records(records), encoding="utf-8")
    return path


def test_a_tiny_run_prints_a_level_file_the_engine_takes(tmp_path: Path) -> None:
    """Three games: the figures on stderr (the held-out positions also scored by the real
    evaluation at the tuned weights), a level file on stdout whose weights are the tuner's
    and within the config's bounds, which the engine starts with."""
    games = ladder_file(tmp_path, 3)
    result = run_tune("--games-glob", str(games), "--limit", "60", "--per-game", "20",
                      "--validation", "0.5")  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    counts = re.search(r"tune: (\d+) training and (\d+) validation positions from 3 of 3 games",
                       result.stderr)  # fmt: skip
    assert counts, result.stderr
    training, validation = int(counts[1]), int(counts[2])
    assert training > 0 and validation > 0 and training + validation <= 60
    assert "tune: validation mean squared error of the real evaluation at the tuned" in (
        result.stderr
    )
    assert "tune: K = " in result.stderr
    assert "tune: training mean squared error " in result.stderr
    assert result.stdout.startswith("# Texel's method (docs/arena.md")
    table = tomllib.loads(result.stdout)["evaluation"]
    names = {tunable.name: tunable for tunable in RAUMSCHACH_TUNABLES}
    assert table, "sixty positions of two games moved no weight"
    for name, value in table.items():
        low, high = names[name].bounds
        assert low <= value <= high and value != getattr(BASE_WEIGHTS, name)
        assert isinstance(value, int) is names[name].integer
    level = tmp_path / "tuned.toml"
    level.write_text(result.stdout, encoding="utf-8")
    engine = subprocess.run(
        [sys.executable, str(MAIN), "--log-dir", str(tmp_path / "logs"), "--config", str(level)],
        input=b"name\n", capture_output=True, cwd=REPO, timeout=TIMEOUT, check=False,
    )  # fmt: skip
    assert (engine.returncode, engine.stdout) == (0, b"= cubemate\n\n"), engine.stderr


def test_bad_input_is_one_line_and_exit_status_2(tmp_path: Path) -> None:
    """A glob that matches nothing, a file that is no records file, a FIFO (refused at once,
    never waited on), a bad number: one line naming the problem on stderr, nothing on
    stdout, exit status 2."""
    text = tmp_path / "notes.txt"
    text.write_text("hello\n", encoding="utf-8")
    fifo = tmp_path / "fifo.txt"
    os.mkfifo(fifo)
    cube = tmp_path / "cube.txt"
    cube.write_text("Size: 3\nStart: [###,#k#,###],[###,###,###],[###,#K#,###] w\n"
                    "Result: 1/2-1/2 (insufficient material)\n", encoding="utf-8")  # fmt: skip
    cases = [
        (["--games-glob", str(tmp_path / "none*.txt")], "tune: no file matches --games-glob"),
        (["--games-glob", str(text)], f"tune: {text} is not a records file: "),
        (["--games-glob", str(cube)], "tune: no raumschach game among the 1 record(s) of 1 "),
        (["--limit", "0"], "tune: argument --limit: 0 is not above 0"),
        (["--validation", "2"], "tune: argument --validation: 2.0 is outside 0 ... 0.9"),
    ]
    for arguments, message in cases:
        result = run_tune(*arguments)
        assert result.returncode == 2, (arguments, result.stderr)
        assert result.stderr.startswith(message), (arguments, result.stderr)
        assert len(result.stderr.splitlines()) == 1 and result.stdout == "", result.stderr
    # The kernel's record reader names the file (shortened when long, as loadgame does).
    result = run_tune("--games-glob", str(fifo))
    assert result.returncode == 2 and result.stdout == "", result.stderr
    refused = r"tune: '.*fifo\.txt' is not a regular file\n"
    assert re.fullmatch(refused, result.stderr), result.stderr


def test_ctrl_c_stops_cleanly(tmp_path: Path) -> None:
    """SIGINT while positions are read: one line saying so, no level file, status 130."""
    games = ladder_file(tmp_path, 60)
    process = subprocess.Popen(
        [sys.executable, "-m", "tune", "--games-glob", str(games), "--limit", "100000"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
        preexec_fn=default_signals,
    )  # fmt: skip
    assert process.stderr is not None
    assert process.stderr.readline().startswith("tune: reading up to 100000 positions")
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=TIMEOUT)
    assert process.returncode == 130, stderr
    assert (stdout, stderr) == ("", "tune: stopped (Ctrl-C); no level file printed\n")


def test_the_tuned_level_file_changes_the_evaluation_only() -> None:
    """levels/texel-raumschach.toml, the run's outcome, loads as a config and changes
    `[evaluation]` weights alone, those the tuner tunes."""
    default = EngineConfig()
    config = load_config(REPO / "levels" / "texel-raumschach.toml")
    changed = {field.name for field in fields(EngineConfig)
               if getattr(config, field.name) != getattr(default, field.name)}  # fmt: skip
    assert changed and changed <= {f"eval_{tunable.name}" for tunable in RAUMSCHACH_TUNABLES}
