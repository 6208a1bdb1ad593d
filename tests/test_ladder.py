"""bench/ladder.py: a match played through the real arena in its two phases and resumed, and
the published ladder (docs/ladder/, the README's table) being exactly what its records say."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import pytest

import bench.ladder as bench_ladder
from arena.report import summary
from arena.stats import Sprt
from bench.ladder import (
    ADOPTED,
    FOLDER,
    GREEDY,
    LADDERS,
    PAGES,
    RANDOM,
    RAUMSCHACH_VARIANTS,
    RAUMSCHACH_WITHOUT,
    VARIANTS,
    VARIANTS_5,
    Match,
    doc_tables,
    every_match,
    ladder_table,
    outcome,
    phases,
    play,
    played,
    rewrite_blocks,
)
from client.cores import usable_cores
from kernel.config import EngineConfig, load_config
from tests.conftest import REPO, TIMEOUT


def test_a_match_plays_its_least_games_then_tests_and_is_never_played_twice(
    tmp_path: Path,
) -> None:
    """Greedy against random on 3³: the first run plays the games played whatever they say,
    the second resumes them under the SPRT; the log holds both commands and the load around
    them, the summary is the records' count, and a finished match is not run again."""
    sprt = Sprt(0, 30, 0.05, 0.05)
    match = Match(3, GREEDY, RANDOM, most=6, least=4, sprt=sprt)
    assert list(phases(match, tmp_path)) == [(4, False), (6, True)]
    assert play(match, tmp_path, concurrency=2) == 0
    result = outcome(match, tmp_path)
    assert result is not None
    games = result.tally.games.games
    # Six games, unless the test decided on the pairs of the second run before the last.
    assert games == 6 or (games >= 4 and result.decision is not None)
    assert list(phases(match, tmp_path)) == []
    log = (tmp_path / "3-greedy-vs-random.log").read_text()
    commands = [line for line in log.splitlines() if line.startswith("$ ")]
    assert len(commands) == 2
    assert "--games 4" in commands[0] and "--sprt" not in commands[0]
    assert "--resume" not in commands[0]
    assert "--games 6" in commands[1] and "--sprt 0 30 0.05 0.05" in commands[1]
    assert commands[1].endswith(" --resume")
    assert log.count("load average") == 4 and log.count("exit code 0") == 2
    written = json.loads((tmp_path / "3-greedy-vs-random.json").read_text())
    assert written == summary(result.tally, sprt)
    assert play(match, tmp_path, concurrency=2) == 0
    assert (tmp_path / "3-greedy-vs-random.log").read_text() == log


def test_the_published_summaries_are_their_records() -> None:
    """Every match kept in docs/ladder/: its JSON summary is what its records count, and a
    match is there whole (every game played, or its SPRT decided)."""
    parts = ["ladder", "tuning", "compiled", "raumschach"]
    kept = [match for match in every_match(sorted(LADDERS), parts) if played(match, FOLDER)]
    assert kept, "no match in docs/ladder"
    for match in kept:
        result = outcome(match, FOLDER)
        assert result is not None
        written = json.loads((FOLDER / f"{match.name}.json").read_text())
        assert written == summary(result.tally, match.sprt), match.name
        assert list(phases(match, FOLDER)) == [], f"{match.name} is not finished"


def test_the_readme_and_the_arena_page_show_what_the_records_give() -> None:
    """The tables of the README and docs/arena.md (the ladders, the goals, the tuning) are
    the ones the records give now: `--docs` would change nothing."""
    tables = doc_tables(FOLDER)
    for size in LADDERS:
        rows = tables[f"ladder-{size}"].splitlines()
        assert len(rows) == len(LADDERS[size]) + 2, f"the {size}-cube's ladder is incomplete"
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        assert rewrite_blocks(text, tables) == text, f"{page.name}: make ladder ARGS=--docs"
    shown = "".join(page.read_text(encoding="utf-8") for page in PAGES)
    for name, table in tables.items():
        assert f"<!-- ladder:{name} -->\n{table}<!-- /ladder:{name} -->" in shown, name


def test_raumschach_rungs_are_played_under_its_rules(tmp_path: Path) -> None:
    """The Raumschach ladder's rungs: named by the variant, played by the arena with
    `--variant raumschach` on 5³, and their records say so (greedy against random, 2 games)."""
    rungs = list(every_match([4, 5], ["raumschach"]))
    assert [match.name for match in rungs] == [
        "raumschach-greedy-vs-random",
        "raumschach-depth1-vs-greedy",
        "raumschach-depth2-vs-depth1",
        "raumschach-time0.1-vs-depth2",
        "raumschach-time0.3-vs-time0.1",
        "raumschach-time1-vs-time0.3",
        "raumschach-time0.1-vs-depth1",
        "raumschach-depth2-vs-time0.1",
    ]
    match = Match(5, GREEDY, RANDOM, most=2, variant="raumschach")
    command = match.command(tmp_path, 1, 2, sprt=False)
    assert command[command.index("--variant") + 1] == "raumschach"
    assert play(match, tmp_path, concurrency=1) == 0
    records = (tmp_path / "raumschach-greedy-vs-random.txt").read_text(encoding="utf-8")
    assert records.count("\nVariant: raumschach\n") == 2
    table = ladder_table(5, tmp_path, "raumschach").splitlines()
    assert table[0].startswith("| Raumschach | Elo above random |")
    assert table[3].startswith("| greedy | ")


def test_a_block_is_filled_and_an_unknown_one_refused() -> None:
    text = "a\n<!-- ladder:x -->\nold\n<!-- /ladder:x -->\nb\n"
    assert rewrite_blocks(text, {"x": "| new |\n"}) == (
        "a\n<!-- ladder:x -->\n| new |\n<!-- /ladder:x -->\nb\n"
    )
    with pytest.raises(ValueError, match="no table called 'y'"):
        rewrite_blocks("<!-- ladder:y -->\n<!-- /ladder:y -->\n", {"x": ""})


def ladder(*arguments: str) -> subprocess.CompletedProcess[str]:
    """Run `python -m bench.ladder` with these arguments."""
    return subprocess.run(
        [sys.executable, "-m", "bench.ladder", *arguments],
        capture_output=True, text=True, cwd=REPO, timeout=TIMEOUT, check=False,
    )  # fmt: skip


def test_an_unknown_size_is_refused_in_one_line() -> None:
    result = ladder("--sizes", "7", "--table")
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == "bench.ladder: no ladder for size 7 (sizes: 4, 5)\n"


#: The CPUs the ladder may use here.
CORES = usable_cores()


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--concurrency", "0"], "--concurrency must be 1 or more"),
        (["--timed-concurrency", "0"], "--timed-concurrency must be 1 or more"),
        (
            ["--timed-concurrency", str(CORES + 1)],
            f"--timed-concurrency {CORES + 1} is more games than the {CORES} cores this process "
            "may use: a timed level would wait for a CPU",
        ),
    ],
)
def test_a_count_of_games_at_once_it_cannot_keep_is_refused(
    arguments: list[str], message: str
) -> None:
    result = ladder(*arguments, "--table")
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == f"bench.ladder: {message}\n"


def test_timed_matches_run_as_many_at_once_as_asked_for_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A timed match gets --timed-concurrency (one at a time unless asked), an untimed one
    --concurrency; both reach the arena's command line."""
    timed = Match(3, bench_ladder.TIME["0.1"], GREEDY, most=2)
    untimed = Match(3, GREEDY, RANDOM, most=2)
    monkeypatch.setattr(bench_ladder, "every_match", lambda sizes, parts: iter([timed, untimed]))
    asked: list[tuple[str, int]] = []
    monkeypatch.setattr(
        bench_ladder, "play", lambda match, folder, at_once: asked.append((match.name, at_once))
    )
    folder = ["--folder", str(tmp_path)]
    two = min(2, CORES)  # more than the cores is refused
    assert bench_ladder.main([*folder, "--concurrency", "2"]) == 0
    assert bench_ladder.main([*folder, "--concurrency", "2", "--timed-concurrency", str(two)]) == 0
    assert asked == [(timed.name, 1), (untimed.name, 2), (timed.name, two), (untimed.name, 2)]
    for at_once in (1, 2):
        line = timed.command(tmp_path, at_once, 2, sprt=False)
        assert line[line.index("--concurrency") + 1] == str(at_once)
        assert "--time-margin" in line


def test_a_file_that_is_not_a_records_file_is_named_and_left_alone(tmp_path: Path) -> None:
    records = tmp_path / "4-greedy-vs-random.txt"
    records.write_text("garbage\n")
    result = ladder("--folder", str(tmp_path), "--sizes", "4", "--only", "greedy-vs-random")
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        f"bench.ladder: {records} is not a records file: line 1: expected 'Key: value' or a "
        "move line: 'garbage'\n"
    )
    assert records.read_text() == "garbage\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == [records.name]


def test_each_variant_differs_from_the_defaults_in_its_evaluation_only() -> None:
    """levels/NAME.toml of each experiment loads and changes [evaluation] keys only; one that
    was adopted says what the defaults say now."""
    default = EngineConfig()
    for variant in VARIANTS + VARIANTS_5 + RAUMSCHACH_WITHOUT + RAUMSCHACH_VARIANTS:
        config = load_config(REPO / "levels" / f"{variant}.toml")
        changed = [field.name for field in fields(EngineConfig)
                   if getattr(config, field.name) != getattr(default, field.name)]  # fmt: skip
        if variant in ADOPTED:
            assert changed == [], variant
        else:
            assert changed and all(name.startswith("eval_") for name in changed), variant


def test_the_table_of_an_empty_folder_has_only_the_bottom(tmp_path: Path) -> None:
    assert ladder_table(4, tmp_path).splitlines()[2:] == [f"| {RANDOM.name} | 0 | | | | | |"]


def test_a_pending_rung_shows_as_far_as_it_was_played(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Greedy against random on 3³ as a rung begun: its row gives what its records count, and
    a rung with no game yet has none."""
    match = Match(3, GREEDY, RANDOM, most=2, least=2, sprt=Sprt(0, 30, 0.05, 0.05))
    monkeypatch.setattr(
        bench_ladder, "pending_matches", lambda size: iter([match] if size == 3 else [])
    )
    empty = bench_ladder.pending_table([3], tmp_path).splitlines()
    assert empty == [
        "| rung | size | Elo (95 %) | LOS | games (W/D/L) | SPRT | load |",
        "|---|---|---|---|---|---|---|",
    ]
    assert play(match, tmp_path, concurrency=2) == 0
    result = outcome(match, tmp_path)
    assert result is not None and result.estimate is not None
    row = bench_ladder.pending_table([3], tmp_path).splitlines()[2:]
    games = result.tally.games
    assert len(row) == 1
    assert row[0].startswith("| greedy vs random | 3³ | ")
    assert f"| {games.games} (+{games.wins} ={games.draws} -{games.losses}) |" in row[0]
