"""python -m tune: Texel's method on game records; the figures on stderr, a level file (a
TOML `[evaluation]` table of the tuned weights that changed) on stdout. It writes no file.

Exit status 0 on success, 2 on a usage error or unusable records (named on stderr), 130
when stopped by Ctrl-C (nothing printed on stdout).
"""

from __future__ import annotations

import argparse
import glob
import random
import sys
import time
from pathlib import Path

from kernel.cube.position import Position
from kernel.play.evaluation import Tables, Weights
from kernel.records.record import GameRecord, RecordError, parse_records
from kernel.records.replay import ReplayError, read_record_file
from tune.features import RAUMSCHACH_TUNABLES, FeatureMaker, Tunable, weights_with, white_score
from tune.fit import Point, fit_k, mean_error, scores_at, tune
from tune.positions import BASE_WEIGHTS, SKIPPED_PLIES, Tally, record_samples, shuffled

#: The records read unless told otherwise: the ladder's Raumschach matches.
DEFAULT_GLOB = "docs/ladder/raumschach-*.txt"


class Parser(argparse.ArgumentParser):
    """Usage errors as one line and exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"tune: {message}\n")


def positive(text: str) -> int:
    """An argument that must be a whole number above 0."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is not above 0")
    return value


def share(text: str) -> float:
    """An argument that must be a fraction from 0 to 0.9."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0.0 <= value <= 0.9:  # also false for NaN
        raise argparse.ArgumentTypeError(f"{value} is outside 0 ... 0.9")
    return value


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = Parser(
        prog="python -m tune",
        description="Fit Raumschach's evaluation weights to game results by Texel's method "
        '(docs/arena.md, "Texel\'s method"): the figures go to stderr, a level file of the '
        "tuned weights to stdout (python main.py --config FILE takes it). Writes no file.",
    )
    parser.add_argument(
        "--variant", choices=["raumschach"], default="raumschach",
        help="the rules whose weights are tuned; records of others are skipped",
    )  # fmt: skip
    parser.add_argument(
        "--games-glob", default=DEFAULT_GLOB, metavar="GLOB",
        help=f"the record files to learn from, relative to the current folder (default:"
        f" {DEFAULT_GLOB}, run from the repository's root)",
    )  # fmt: skip
    parser.add_argument(
        "--seed", type=int, default=1,
        help="the seed of the games' order and of the validation games (default: 1)",
    )  # fmt: skip
    parser.add_argument(
        "--limit", type=positive, default=20_000,
        help="the most positions kept; reading stops there (default: 20000)",
    )  # fmt: skip
    parser.add_argument(
        "--per-game", type=positive, default=8, metavar="N",
        help="the most positions kept from one game (default: 8)",
    )  # fmt: skip
    parser.add_argument(
        "--validation", type=share, default=0.1, metavar="SHARE",
        help="the share of games held out to check the fit on (default: 0.1)",
    )  # fmt: skip
    return parser.parse_args(argv)


class Refused(Exception):
    """Input the tuner cannot use; the message says which and why."""


def read_games(pattern: str) -> tuple[list[Path], list[tuple[str, GameRecord]]]:
    """Read every record of the files the glob names, each with where it is."""
    paths = sorted(Path(name) for name in glob.glob(pattern))
    if not paths:
        raise Refused(f"no file matches --games-glob {pattern!r}")
    games: list[tuple[str, GameRecord]] = []
    for path in paths:
        try:
            # As loadgame reads a record: a regular file only, opened without blocking, of
            # bounded size, UTF-8 text.
            records = parse_records(read_record_file(str(path)))
        except ReplayError as error:
            raise Refused(str(error)) from None
        except RecordError as error:
            raise Refused(f"{path} is not a records file: {error}") from None
        if not records:
            raise Refused(f"{path} is not a records file: it holds no record")
        games.extend((f"{path} game {index}", record) for index, record in enumerate(records, 1))
    return paths, games


def gather(
    games: list[tuple[str, GameRecord]], options: argparse.Namespace
) -> tuple[list[Point], list[Point], list[tuple[Position, float]], Tally, int]:
    """Replay the games in a seeded order until `--limit` positions are kept, at most
    `--per-game` of each; return the training and validation points, the tally and the games
    used."""
    limit, seed = options.limit, options.seed
    tally = Tally()
    seen: set[int] = set()
    maker: FeatureMaker | None = None
    training: list[Point] = []
    validation: list[Point] = []
    #: The held-out positions themselves, to check the model against the real evaluation.
    checked: list[tuple[Position, float]] = []
    held = random.Random(seed + 1)
    chooser = random.Random(seed + 2)
    used = 0
    say(f"reading up to {limit} positions of {len(games)} games")
    for number, (where, record) in enumerate(shuffled(games, seed)):
        if len(training) + len(validation) >= limit:
            break
        before = tally.kept
        into = validation if held.random() < options.validation else training
        try:
            for sample in record_samples(
                record, number, where, options.variant, seen, tally, options.per_game, chooser
            ):
                if maker is None:
                    maker = FeatureMaker(sample.position, BASE_WEIGHTS, RAUMSCHACH_TUNABLES)
                score, slopes = maker.features(sample.position)
                into.append(Point(sample.result, score, tuple(slopes)))
                if into is validation:
                    checked.append((sample.position.copy(), sample.result))
                if len(training) + len(validation) >= limit:
                    break
        except ReplayError as error:
            raise Refused(str(error)) from None
        used += tally.kept > before
        if tally.kept // 2000 > before // 2000:
            say(f"{tally.kept} positions kept of {tally.games} games")
    return training, validation, checked, tally, used


def real_error(
    checked: list[tuple[Position, float]], weights: Weights, k: float
) -> tuple[float, list[int]]:
    """The mean squared error of the real evaluation at `weights` on positions, and the
    positions' scores (white's side)."""
    if not checked:
        return 0.0, []
    tables = Tables(checked[0][0], weights)
    scores = [white_score(position, tables) for position, _ in checked]
    return mean_error([result for _, result in checked], scores, k), scores


def level_file(tuned: dict[str, float], tunables: tuple[Tunable, ...], comment: list[str]) -> str:
    """The level file: the comment, then the tuned weights that differ from the base."""
    lines = [f"# {line}" for line in comment] + ["[evaluation]"]
    for tunable in tunables:
        value = tuned[tunable.name]
        if value != getattr(BASE_WEIGHTS, tunable.name):
            lines.append(
                f"{tunable.name} = {round(value) if tunable.integer else round(value, 3)!r}"
            )
    return "\n".join(lines) + "\n"


def say(text: str) -> None:
    """Write a line of the report on stderr."""
    print(f"tune: {text}", file=sys.stderr)


def shown(value: float, integer: bool) -> str:
    """A weight as the report shows it."""
    return str(round(value)) if integer else f"{value:.3f}"


def run(options: argparse.Namespace) -> int:
    started = time.monotonic()
    paths, games = read_games(options.games_glob)
    if not any(record.headers.get("Variant", "cube") == options.variant for _, record in games):
        raise Refused(
            f"no {options.variant} game among the {len(games)} record(s) of {len(paths)} file(s)"
        )
    training, validation, checked, tally, used = gather(games, options)
    if not training:
        raise Refused(
            f"no position kept for training from {len(games)} games of {len(paths)} file(s)"
            f" ({tally.other_variant} of another variant than {options.variant},"
            f" {tally.unfinished} without a result)"
        )
    say(
        f"{len(training)} training and {len(validation)} validation positions from {used} of"
        f" {len(games)} games in {len(paths)} file(s); of {tally.positions} positions after"
        f" the first {SKIPPED_PLIES} plies, left out: {tally.in_check} in check,"
        f" {tally.drawish} drawish, {tally.repeated} repeated, {tally.not_quiet} not quiet"
        f" ({tally.other_variant} games of another variant, {tally.unfinished} unfinished)"
    )
    k = fit_k(training)
    tunables = RAUMSCHACH_TUNABLES
    base = [float(getattr(BASE_WEIGHTS, tunable.name)) for tunable in tunables]
    tuned = tune(training, tunables, base, k)
    moves = [after - before for after, before in zip(tuned, base, strict=True)]

    def errors(points: list[Point]) -> tuple[float, float]:
        results = [point.result for point in points]
        return (
            mean_error(results, [point.score for point in points], k),
            mean_error(results, scores_at(points, moves), k),
        )

    train_before, train_after = errors(training)
    valid_before, valid_after = errors(validation)
    tuned_weights = weights_with(BASE_WEIGHTS, tunables, tuned)
    valid_real, real_scores = real_error(checked, tuned_weights, k)
    model_scores = scores_at(validation, moves)
    off = max((abs(a - b) for a, b in zip(real_scores, model_scores, strict=True)), default=0.0)
    seconds = time.monotonic() - started
    say(f"K = {k:.4f}")
    say(f"training mean squared error {train_before:.6f} -> {train_after:.6f}")
    say(f"validation mean squared error {valid_before:.6f} -> {valid_after:.6f}")
    say(
        f"validation mean squared error of the real evaluation at the tuned weights"
        f" {valid_real:.6f}; its scores at most {off:.0f} centipawns from the model's"
    )
    for tunable, before, after in zip(tunables, base, tuned, strict=True):
        say(
            f"{tunable.name:>22} {shown(before, tunable.integer):>7}"
            f" -> {shown(after, tunable.integer)}"
        )
    say(f"{seconds:.0f} s")
    comment = [
        "Texel's method (docs/arena.md, \"Texel's method\"): python -m tune --variant"
        f" {options.variant} --games-glob '{options.games_glob}' --seed {options.seed}"
        f" --limit {options.limit} --per-game {options.per_game}"
        f" --validation {options.validation}",
        f"{len(training)} quiet positions to fit and {len(validation)} of held-out games to"
        f" check, from {used} games; K = {k:.4f}; mean squared error",
        f"training {train_before:.5f} -> {train_after:.5f},"
        f" validation {valid_before:.5f} -> {valid_after:.5f} (the linear model's;"
        f" the real evaluation's {valid_real:.5f}, at most {off:.0f} cp off).",
    ]
    sys.stdout.write(level_file(dict(zip([t.name for t in tunables], tuned, strict=True)),
                                tunables, comment))  # fmt: skip
    return 0


def main(argv: list[str] | None = None) -> int:
    options = parse(argv)
    try:
        return run(options)
    except Refused as error:
        print(f"tune: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("tune: stopped (Ctrl-C); no level file printed", file=sys.stderr)
        return 130
