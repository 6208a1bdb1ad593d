"""The command line run: `python -m arena [options] PLAYER1 PLAYER2` (options: options.py).

A PLAYER is `random`, `greedy`, or an engine command line (one argument: quote it), such as
"python main.py --config levels/exposure-0.toml". Exit codes: 0 the match is over (every game
played, or the SPRT decided); 1 the referee failed and the match stopped; 2 bad options,
input or files (one line on stderr, nothing started); 130 interrupted (the games finished are
in the records file, and `--resume` continues).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from types import FrameType

from arena.game import PlayerDisagrees
from arena.match import DaskRunner, LocalRunner, MatchSettings, Runner, run_games
from arena.options import ArenaError, parse_arguments, settings_from
from arena.preflight import PreflightError, preflight
from arena.records import (
    RecordsError,
    cut_torn_tail,
    open_records,
    read_resumable,
    refuse_used,
)
from arena.referee import RefereeError
from arena.report import Progress, progress_line, summary
from arena.scoreboard import Scoreboard
from client.stop import STOP_SIGNALS, stop_on_signals

INTERRUPTED = "interrupted (--resume continues with --records)"


class RecordsFailed(Exception):
    """The records file could not be written during the match: it stops, exit code 2."""


def raise_interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def interrupt_on_signals(stack: contextlib.ExitStack) -> None:
    """Until the games begin, SIGTERM and SIGHUP stop the arena as Ctrl-C does, so that
    every process it started is ended (not left behind, as a plain SIGTERM's death would);
    a signal ignored at start (nohup) stays ignored."""
    for signum in STOP_SIGNALS:
        if signum != signal.SIGINT and signal.getsignal(signum) is not signal.SIG_IGN:
            stack.callback(signal.signal, signum, signal.signal(signum, raise_interrupt))


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


def resume(settings: MatchSettings, path: Path, match: Scoreboard) -> None:
    """Count the games an earlier run of this match wrote to the records file; cut a record
    left unfinished at its end only once the whole file is known to be this match's."""
    try:
        found = read_resumable(path, settings.fingerprint(), settings.games, settings.size)
    except RecordsError as error:
        raise ArenaError(str(error)) from None
    try:
        cut = cut_torn_tail(path, found)
    except OSError as error:
        raise ArenaError(f"--resume: cannot cut the unfinished record of {path}: "
                         f"{error.strerror}") from None  # fmt: skip
    if cut is not None:
        match.progress.say(f"{cut}; that game is played again")
    for game in found.finished:
        match.tally.add(game.number, game.white_points, game.result)


def execute(arguments: argparse.Namespace, match: Scoreboard, stack: contextlib.ExitStack) -> str:
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
        try:
            preflight(settings, match.progress.say)
        except PreflightError as error:
            raise ArenaError(str(error)) from None
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
    # While games run, a signal only asks the match to stop: it is checked between games,
    # so a finished game is always written and counted whole.
    interrupted = stop_on_signals(stack)
    match.started = True
    match.progress.draw(progress_line(match.tally, settings.games, settings.sprt))
    run_games(tasks, runner, match.finish, interrupted)
    if match.failure is not None:
        raise RecordsFailed(match.failure)
    if interrupted.is_set():
        raise KeyboardInterrupt
    if match.decision is not None:
        return f"stopped: the SPRT accepted {match.decision}"
    return "finished"


def write_summary(path: Path | None, match: Scoreboard) -> None:
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
    match = Scoreboard(settings, None, Progress(show))
    code = 0
    try:
        # Everything opened is closed (the live line, the games, the files) before the report.
        with contextlib.ExitStack() as stack:
            interrupt_on_signals(stack)
            stack.callback(match.progress.clear)
            end = execute(arguments, match, stack)
    except ArenaError as error:
        print(f"arena: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        if not match.started:
            print("arena: interrupted before the first game", file=sys.stderr)
            return 130
        end, code = INTERRUPTED, 130
    except RefereeError as error:
        end, code = f"stopped, the referee failed: {error}", 1
    except PlayerDisagrees as error:
        end, code = f"stopped: {error}", 1
    except RecordsFailed as error:
        end, code = f"stopped: {error}", 2
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
