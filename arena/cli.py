"""The command line: `python -m arena [options] PLAYER1 PLAYER2`.

A PLAYER is `random`, `greedy`, or an engine command line (one argument: quote it), such as
"python main.py --config levels/fast.toml". Exit codes: 0 the match is over (every game
played, or the SPRT decided); 1 the referee failed and the match stopped; 2 bad options,
input or files (one line on stderr, nothing started); 130 interrupted (the games finished are
in the records file, and `--resume` continues).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import signal
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import FrameType
from typing import IO, Any, NoReturn

from arena.clock import TimeControl
from arena.game import GameOutcome
from arena.match import DaskRunner, LocalRunner, MatchSettings, Runner, run_games
from arena.openings import (
    FileOpenings,
    Opening,
    OpeningError,
    RandomPlies,
    StartOpening,
    check_openings,
    read_openings,
)
from arena.players import Limits, PlayerError, PlayerSpec, parse_player
from arena.records import (
    RecordsError,
    cut_torn_tail,
    load_finished,
    open_records,
    refuse_used,
    white_points,
)
from arena.referee import Referee, RefereeError
from arena.report import progress_line, sprt_state, summary, table
from arena.speaker import ProcessSpeaker, SpeakerDied
from arena.stats import Sprt
from arena.table import Setup
from arena.tally import Tally

#: The default referee: this checkout's engine.
REPO = Path(__file__).resolve().parent.parent
DEFAULT_REFEREE = ("python", str(REPO / "main.py"))
#: The per-player options: each exists plain (both players), and with 1 or 2 (one player).
LIMIT_OPTIONS = ("move_time", "time_settings", "depth", "nodes")


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
        epilog="PLAYER: random, greedy, or an engine command line in quotes. Options ending "
        "in 1 or 2 apply to that player only; without the digit, to both.",
    )
    parser.add_argument("player1", metavar="PLAYER1")
    parser.add_argument("player2", metavar="PLAYER2")
    parser.add_argument("--size", type=int, default=4, help="board size n (default 4)")
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
        "--log-dir", type=Path, help="keep the engines' logs here (default: none kept)"
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


def player_spec(arguments: argparse.Namespace, player: int) -> PlayerSpec:
    """Read PLAYER1 or PLAYER2 with its limits."""
    text = getattr(arguments, f"player{player}")
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


def settings_from(arguments: argparse.Namespace) -> MatchSettings:
    """Check every option and gather the match's settings."""
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
    return MatchSettings(
        size=arguments.size,
        games=arguments.games,
        seed=arguments.seed,
        move_cap=arguments.move_cap,
        opening=opening_from(arguments),
        players=(player_spec(arguments, 1), player_spec(arguments, 2)),
        setup=Setup(referee, arguments.timeout, log_dir),
        time_margin=arguments.time_margin,
        sprt=sprt,
    )


# -- checks before the match


@contextlib.contextmanager
def started(command: Sequence[str], who: str, log_dir: str | None) -> Iterator[ProcessSpeaker]:
    """Start a process for a check, closed afterwards; refuse one that does not start."""
    try:
        speaker = ProcessSpeaker(command, None if log_dir is None else Path(log_dir))
    except SpeakerDied as death:
        message = f"{who} does not start or does not speak the protocol: {death.detail}"
        raise ArenaError(message) from None
    try:
        yield speaker
    finally:
        speaker.close()


def missing(speaker: ProcessSpeaker, commands: Sequence[str], who: str) -> list[str]:
    """The commands an engine does not know."""
    absent = []
    for name in commands:
        try:
            reply = speaker.ask(f"known_command {name}", 60)
        except SpeakerDied as death:
            raise ArenaError(f"{who} failed when asked known_command: {death.detail}") from None
        if not reply.ok or reply.text.strip() != "true":
            absent.append(name)
    return absent


def preflight(settings: MatchSettings) -> None:
    """Start the referee and each engine player once: each must speak the protocol and know
    the commands the match needs; every position of an openings file must be usable."""
    setup = settings.setup
    who = f"the referee ({shlex.join(setup.referee)})"
    with started(setup.referee, who, setup.log_dir) as speaker:
        referee = Referee(speaker, setup.timeout)
        try:
            absent = referee.missing_commands()
            if not absent and isinstance(settings.opening, FileOpenings):
                check_openings(settings.opening, referee, settings.size)
            elif not absent:
                referee.new_game(settings.size)
        except (RefereeError, OpeningError) as error:
            raise ArenaError(str(error)) from None
        if absent:
            raise ArenaError(f"{who} does not know {', '.join(absent)}")
    for index, spec in enumerate(settings.players, start=1):
        if spec.builtin is not None:
            continue
        who = f"player {index} ({spec.text})"
        with started(spec.command, who, setup.log_dir) as speaker:
            absent = missing(speaker, spec.required_commands(), who)
        if absent:
            raise ArenaError(f"{who} does not know {', '.join(absent)}")


# -- running


class Progress:
    """The live line on stderr, redrawn in place; nothing when it is off."""

    def __init__(self, shown: bool) -> None:
        self.shown = shown
        self.drawn = False

    def draw(self, line: str) -> None:
        if self.shown:
            sys.stderr.write(f"\r{line}\x1b[K")
            sys.stderr.flush()
            self.drawn = True

    def clear(self) -> None:
        if self.drawn:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()
            self.drawn = False

    def say(self, message: str) -> None:
        """A message on a line of its own, the live line drawn again under it."""
        self.clear()
        print(f"arena: {message}", file=sys.stderr, flush=True)


class Match:
    """A match under way: the tally, the SPRT, and where finished games go."""

    def __init__(self, settings: MatchSettings, records: IO[str] | None, progress: Progress):
        self.settings = settings
        self.records = records
        self.progress = progress
        self.tally = Tally()
        self.decision: str | None = None
        #: Whether games began: a stop before reports nothing.
        self.started = False

    def decided(self) -> bool:
        """Whether the SPRT has accepted a hypothesis; remember which."""
        if self.settings.sprt is not None and self.decision is None:
            self.decision = sprt_state(self.tally, self.settings.sprt)[1]
        return self.decision is not None

    def finish(self, outcome: GameOutcome) -> bool:
        """Write and count a finished game; answer whether the match should stop."""
        if self.records is not None:
            # One write per record: a kill leaves at most the last one unfinished.
            self.records.write(outcome.record)
            self.records.flush()
        points = white_points(outcome.result)
        assert points is not None, outcome.result
        self.tally.add(outcome.number, points, outcome.result)
        if outcome.warning is not None:
            self.progress.say(outcome.warning)
        stop = self.decided()
        self.progress.draw(progress_line(self.tally, self.settings.games, self.settings.sprt))
        return stop

    def report(self, end: str) -> str:
        settings = self.settings
        players = (settings.players[0].label, settings.players[1].label)
        size = settings.size
        title = f"{size}x{size}x{size}, openings {settings.opening.describe()}"
        return table(players, title, self.tally, settings.games, settings.sprt, end)


def interrupt(signum: int, frame: FrameType | None) -> None:
    """Turn SIGTERM or SIGHUP into the same clean stop as Ctrl-C."""
    raise KeyboardInterrupt


def check_writable(path: Path, what: str) -> None:
    """Refuse now a file that could not be written later, creating nothing: an existing file
    must open for appending, a new one needs a writable folder."""
    try:
        if path.exists():
            with path.open("a", encoding="utf-8"):
                pass
            return
    except OSError as error:
        raise ArenaError(f"cannot write the {what} {path}: {error.strerror}") from None
    folder = path.parent
    if not folder.is_dir():
        raise ArenaError(f"cannot write the {what} {path}: no folder {folder}")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ArenaError(f"cannot write the {what} {path}: the folder is not writable")


def resume(settings: MatchSettings, path: Path, match: Match) -> None:
    """Count the games an earlier run of this match wrote to the records file."""
    if path.exists():
        try:
            cut = cut_torn_tail(path)
        except OSError as error:
            raise ArenaError(f"--resume: cannot read {path}: {error.strerror}") from None
        if cut is not None:
            match.progress.say(f"{cut}; that game is played again")
    try:
        finished = load_finished(path, settings.fingerprint(), settings.games)
    except RecordsError as error:
        raise ArenaError(str(error)) from None
    for game in finished:
        match.tally.add(game.number, game.white_points, game.result)


def execute(arguments: argparse.Namespace, match: Match, stack: contextlib.ExitStack) -> str:
    """Prepare and play the match; return how it ended."""
    settings = match.settings
    if arguments.json is not None:
        check_writable(arguments.json, "summary file")
    if arguments.records is not None:
        check_writable(arguments.records, "records file")
        if not arguments.resume:
            try:
                refuse_used(arguments.records)
            except RecordsError as error:
                raise ArenaError(str(error)) from None
    if arguments.resume:
        resume(settings, arguments.records, match)
    if arguments.dask is None:
        preflight(settings)
    if arguments.records is not None:
        try:
            match.records = open_records(arguments.records)
        except RecordsError as error:
            raise ArenaError(str(error)) from None
        stack.callback(match.records.close)
    if match.decided():
        return f"the SPRT had already accepted {match.decision}"
    done = set(match.tally.white_points)
    tasks = (settings.task(number) for number in range(1, settings.games + 1) if number not in done)
    runner: Runner
    if arguments.dask is None:
        runner = LocalRunner(arguments.concurrency or 1)
    else:
        try:
            runner = DaskRunner(arguments.dask, arguments.concurrency)
        except (OSError, TimeoutError) as error:
            message = f"--dask: cannot reach the scheduler at {arguments.dask}: {error}"
            raise ArenaError(message) from None
    for signum in (signal.SIGTERM, signal.SIGHUP):
        stack.callback(signal.signal, signum, signal.signal(signum, interrupt))
    match.started = True
    match.progress.draw(progress_line(match.tally, settings.games, settings.sprt))
    run_games(tasks, runner, match.finish)
    if match.decision is not None:
        return f"stopped: the SPRT accepted {match.decision}"
    return "finished"


def write_summary(path: Path | None, match: Match) -> None:
    if path is not None:
        text = json.dumps(summary(match.tally, match.settings.sprt))
        path.write_text(text + "\n", encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    """Run a match from the command line; return the exit code."""
    arguments = parse_arguments(argv)
    try:
        settings = settings_from(arguments)
    except ArenaError as error:
        print(f"arena: {error}", file=sys.stderr)
        return 2
    show = arguments.progress == "on" or (arguments.progress == "auto" and sys.stderr.isatty())
    match = Match(settings, None, Progress(show))
    code = 0
    try:
        # Everything opened is closed (the live line, the games, the files) before the report.
        with contextlib.ExitStack() as stack:
            stack.callback(match.progress.clear)
            end = execute(arguments, match, stack)
    except ArenaError as error:
        print(f"arena: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        if not match.started:
            print("arena: interrupted before the first game", file=sys.stderr)
            return 130
        end, code = "interrupted (--resume continues with --records)", 130
    except RefereeError as error:
        end, code = f"stopped, the referee failed: {error}", 1
    try:
        sys.stdout.write(match.report(end))
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader of stdout went away (`| head`): finish quietly.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    try:
        write_summary(arguments.json, match)
    except OSError as error:
        print(
            f"arena: cannot write the summary file {arguments.json}: {error.strerror}",
            file=sys.stderr,
        )
        return 2
    if code:
        print(f"arena: {end}", file=sys.stderr)
    return code
