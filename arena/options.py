"""The command line read into a match's settings, refusing what cannot be or contradicts
itself (ArenaError: one line on stderr, exit code 2)."""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from arena.clock import TimeControl
from arena.match import MatchSettings
from arena.openings import (
    Opening,
    OpeningError,
    RandomPlies,
    StartOpening,
    read_openings,
)
from arena.players import Limits, PlayerError, PlayerSpec, parse_player
from arena.referee import DEFAULT_VARIANT
from arena.stats import Sprt
from arena.table import Setup
from kernel.cube.variants import VARIANTS, UnknownVariant, variant_named

#: The default referee: this checkout's engine.
REPO = Path(__file__).resolve().parent.parent
DEFAULT_REFEREE = ("python", str(REPO / "main.py"))
#: The per-player options: each exists plain (both players), and with 1 or 2 (one player).
LIMIT_OPTIONS = ("move_time", "time_settings", "depth", "nodes")
#: The board size of a match of the cube when --size is not given.
DEFAULT_SIZE = 4


class ArenaError(Exception):
    """Bad options, input or files: one line on stderr, exit code 2."""


class OneLineErrorParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr and exit code 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"arena: {message} (try --help)\n")


def parse_arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    """Read the command line."""
    parser = OneLineErrorParser(
        prog="python -m arena",
        description="Play a match between two players and measure who is stronger.",
        epilog="PLAYER: random, greedy, an engine command line in quotes, or an engine as "
        "key=value words ('cmd=./engine arg=--fast name=Mine st=0.1', docs/arena.md). Options "
        "ending in 1 or 2 apply to that player only; without the digit, to both.",
    )
    parser.add_argument("players", nargs="*", metavar="PLAYER", help="PLAYER1 PLAYER2")
    for player in (1, 2):
        parser.add_argument(
            f"--engine{player}",
            metavar="SPEC",
            help=f"player {player} as cmd=COMMAND [arg=WORD]... [name=NAME] [dir=FOLDER] "
            "[ids=on|off] [start=new_game|set_board] [logs=on|off] [depth=N] [nodes=N] [st=S]",
        )
    parser.add_argument(
        "--size", type=int, help="board size n (default 4, or the variant's own: 5 for raumschach)"
    )
    parser.add_argument(
        "--variant",
        default=DEFAULT_VARIANT,
        metavar="NAME",
        help=f"the rules: {', '.join(VARIANTS)} (default {DEFAULT_VARIANT}); the referee judges "
        "by them and every engine player is told them (`variant NAME`)",
    )
    parser.add_argument(
        "--games", type=int, default=100, help="games to play, a maximum with --sprt (default 100)"
    )
    parser.add_argument(
        "--concurrency",
        type=int,
        help="games at once (default 1; with --dask, the cluster's threads)",
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of openings and baselines")
    parser.add_argument("--records", type=Path, help="write every game's record here")
    parser.add_argument("--resume", action="store_true", help="continue the --records file")
    parser.add_argument("--json", type=Path, help="write the summary for programs here")
    parser.add_argument(
        "--sprt",
        nargs=4,
        type=float,
        metavar=("ELO0", "ELO1", "ALPHA", "BETA"),
        help="stop as soon as the test of ELO0 against ELO1 (logistic Elo) decides",
    )
    parser.add_argument("--dask", metavar="ADDRESS", help="play on this Dask scheduler")
    openings = parser.add_argument_group("openings (default: the start position)")
    openings.add_argument(
        "--openings",
        type=Path,
        metavar="FILE",
        help="positions, one a line: BOARD [SIDE] or set_board BOARD [SIDE]",
    )
    openings.add_argument(
        "--random-plies",
        type=int,
        metavar="N",
        help="begin each pair N random plies from the start position",
    )
    rules = parser.add_argument_group("adjudication")
    rules.add_argument(
        "--move-cap",
        type=int,
        default=300,
        metavar="PLIES",
        help="a draw after this many plies (default 300)",
    )
    rules.add_argument(
        "--timeout",
        type=float,
        default=60.0,
        metavar="S",
        help="the longest any answer may take when no clock applies (default 60)",
    )
    rules.add_argument(
        "--time-margin",
        type=float,
        default=0.25,
        metavar="S",
        help="how far past its clock a move may run (default 0.25)",
    )
    limits = parser.add_argument_group("limits per move (engine players)")
    for suffix, whom in (("", "both players"), ("1", "player 1"), ("2", "player 2")):
        limits.add_argument(
            f"--move-time{suffix}", type=float, metavar="S", help=f"{whom}: S seconds a move"
        )
        limits.add_argument(
            f"--time-settings{suffix}",
            nargs=3,
            type=float,
            metavar=("MAIN", "BYO_TIME", "BYO_STONES"),
            help=f"{whom}: GTP's time_settings",
        )
        limits.add_argument(
            f"--depth{suffix}", type=int, metavar="N", help=f"{whom}: a fixed depth"
        )
        limits.add_argument(
            f"--nodes{suffix}", type=int, metavar="N", help=f"{whom}: a fixed number of positions"
        )
    engines = parser.add_argument_group("processes")
    engines.add_argument(
        "--referee", metavar="CMD", help="the engine that holds the game (default: python main.py)"
    )
    engines.add_argument(
        "--log-dir", type=Path, help="keep cubemate engines' logs here (default: none kept)"
    )
    engines.add_argument(
        "--ids",
        choices=["on", "off"],
        default="off",
        help="number every line sent to an engine, GTP's optional id (default off)",
    )
    engines.add_argument(
        "--set-board",
        action="store_true",
        help="set every engine player's start with set_board, never new_game",
    )
    engines.add_argument(
        "--progress",
        choices=["auto", "on", "off"],
        default="auto",
        help="a live line on stderr (auto: at a terminal)",
    )
    return parser.parse_args(argv)


# -- settings


def per_player(arguments: argparse.Namespace, name: str, player: int) -> Any:
    """A per-player option: the player's own value, else the one for both."""
    own = getattr(arguments, f"{name}{player}")
    return getattr(arguments, name) if own is None else own


def time_control(move_time: float | None, settings: list[float] | None) -> TimeControl | None:
    """The clock of `--move-time S` or `--time-settings MAIN BYO_TIME BYO_STONES`, if any."""
    if move_time is not None:
        if not 0 < move_time < 1e6:
            raise ValueError(f"--move-time must be positive, not {move_time:g}")
        return TimeControl(0, move_time, 1)
    if settings is not None:
        main_time, byo_time, stones = settings
        if not all(0 <= value < 1e9 for value in settings) or stones != int(stones):
            raise ValueError("--time-settings: BYO_STONES must be a whole number, and every "
                             "value 0 or more")  # fmt: skip
        return TimeControl(main_time, byo_time, int(stones))
    return None


def limits_for(arguments: argparse.Namespace, player: int) -> Limits:
    """Player `player`'s limits (1 or 2), refusing what contradicts itself."""
    move_time: float | None = per_player(arguments, "move_time", player)
    settings: list[float] | None = per_player(arguments, "time_settings", player)
    depth: int | None = per_player(arguments, "depth", player)
    nodes: int | None = per_player(arguments, "nodes", player)
    if move_time is not None and settings is not None:
        raise ArenaError(f"player {player}: --move-time and --time-settings contradict each other")
    try:
        control = time_control(move_time, settings)
    except ValueError as error:
        raise ArenaError(f"player {player}: {error}") from None
    for name, value in (("depth", depth), ("nodes", nodes)):
        if value is not None and value < 1:
            raise ArenaError(f"player {player}: --{name} must be 1 or more")
    return Limits(control, depth, nodes)


def player_texts(arguments: argparse.Namespace) -> tuple[str, str]:
    """The two players: --engine1 and --engine2 where given, the PLAYERs in order for the
    rest."""
    positional = list(arguments.players)
    texts: list[str] = []
    for player in (1, 2):
        spec = getattr(arguments, f"engine{player}")
        if spec is not None and not spec.lstrip().startswith("cmd="):
            raise ArenaError(f"--engine{player}: write the engine as cmd=COMMAND [key=value]...")
        texts.append(spec if spec is not None else positional.pop(0) if positional else "")
    if positional or not all(texts):
        raise ArenaError("two players are needed: PLAYER1 PLAYER2, or --engine1 and --engine2")
    return texts[0], texts[1]


def player_spec(arguments: argparse.Namespace, player: int, text: str) -> PlayerSpec:
    """Read PLAYER1 or PLAYER2 with its limits."""
    limits = limits_for(arguments, player)
    try:
        spec = parse_player(text, limits)
    except PlayerError as error:
        raise ArenaError(f"player {player}: {error}") from None
    if spec.builtin is not None:
        own = [name for name in LIMIT_OPTIONS if getattr(arguments, f"{name}{player}") is not None]
        if own:
            flag = "--" + own[0].replace("_", "-") + str(player)
            raise ArenaError(
                f"{flag}: player {player} is the built-in {spec.builtin} player, "
                "which takes no limits"
            )
    return spec


def opening_from(arguments: argparse.Namespace) -> Opening:
    """The openings options, refusing two at once."""
    if arguments.openings is not None and arguments.random_plies is not None:
        raise ArenaError("--openings and --random-plies contradict each other: choose one")
    if arguments.random_plies is not None:
        if not 0 <= arguments.random_plies <= 1000:
            raise ArenaError("--random-plies must be 0 ... 1000")
        return RandomPlies(arguments.random_plies)
    if arguments.openings is not None:
        try:
            return read_openings(arguments.openings)
        except OpeningError as error:
            raise ArenaError(str(error)) from None
    return StartOpening()


def variant_and_size(arguments: argparse.Namespace) -> tuple[str, int]:
    """The variant named and the board size: the one given, which the variant must be played
    on, else 4 for the cube and the variant's own size for one played on one size only."""
    try:
        variant = variant_named(arguments.variant)
    except UnknownVariant as error:
        raise ArenaError(f"--variant: {error}") from None
    size: int | None = arguments.size
    if size is None:
        size = DEFAULT_SIZE if variant.sizes is None else variant.sizes[0]
    elif not variant.allows_size(size):
        sizes = ", ".join(str(each) for each in variant.sizes or ())
        raise ArenaError(f"--size {size}: {variant.name} is played on a board of size {sizes} only")
    return variant.name, size


def settings_from(arguments: argparse.Namespace) -> MatchSettings:
    """Check every option and gather the match's settings."""
    arguments.variant, arguments.size = variant_and_size(arguments)
    for name, least in (("games", 1), ("concurrency", 1), ("move_cap", 1), ("size", 2)):
        value = getattr(arguments, name)
        if value is not None and value < least:
            raise ArenaError(f"--{name.replace('_', '-')} must be {least} or more")
    if arguments.size > 64:
        raise ArenaError("--size must be 2 ... 64")
    if not 0 < arguments.timeout < 1e6 or not 0 <= arguments.time_margin < 1e6:
        raise ArenaError("--timeout must be positive and --time-margin not negative")
    if arguments.resume and arguments.records is None:
        raise ArenaError("--resume continues a records file: give it with --records")
    if arguments.json is not None and arguments.json == arguments.records:
        raise ArenaError("--json and --records name the same file")
    sprt = None
    if arguments.sprt is not None:
        try:
            sprt = Sprt(*arguments.sprt)
        except ValueError as error:
            raise ArenaError(f"--sprt: {error}") from None
    referee: tuple[str, ...] = DEFAULT_REFEREE
    if arguments.referee is not None:
        referee = tuple(shlex.split(arguments.referee))
        if not referee:
            raise ArenaError("--referee: an empty command")
    log_dir = None if arguments.log_dir is None else str(arguments.log_dir.resolve())
    one, two = player_texts(arguments)
    return MatchSettings(
        size=arguments.size,
        games=arguments.games,
        seed=arguments.seed,
        move_cap=arguments.move_cap,
        opening=opening_from(arguments),
        players=(player_spec(arguments, 1, one), player_spec(arguments, 2, two)),
        setup=Setup(
            referee,
            arguments.timeout,
            log_dir,
            arguments.ids == "on",
            arguments.set_board,
            arguments.variant,
        ),
        time_margin=arguments.time_margin,
        sprt=sprt,
    )
