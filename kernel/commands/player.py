"""Commands of the player: genmove, reg_genmove, level, time_settings, time_left
(docs/search.md).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from kernel.clock import Clocks, TimeSettings
from kernel.commands.arguments import (
    MAX_CLOCK_SECONDS,
    MAX_STONES,
    read_colour,
    read_count,
    read_seconds,
)
from kernel.commands.session import Session
from kernel.config import MAX_MOVE_TIME, MAX_PLAY_DEPTH
from kernel.play.alphabeta import Iteration
from kernel.play.player import Level, depth_cut, limits_for, search_summary, thinking_line
from kernel.protocol import CommandError, shorten
from kernel.text.notation import (
    SIDE_NAMES,
    get_move_name,
)

if TYPE_CHECKING:
    pass


def cmd_genmove(kernel: Session, args: list[str]) -> str:
    """Choose a move for the side to move, play it and name it.

    Arguments: optionally COLOR (w, b, white or black), which must be the side to move.
    Fails: COLOR is not the side to move ("not black's move"); the game is over, by mate,
    stalemate or a draw rule ("game over: 1/2-1/2 (threefold repetition)"); no white king;
    the side not to move is in check.
    Returns: the move, as legal_moves writes it; `resign` when play.resign_cp is set and the
    game is lost.
    """
    return choose_move(kernel, args, play=True)


def cmd_level(kernel: Session, args: list[str]) -> str:
    """Show or set how hard genmove tries.

    Arguments: none, or KEY VALUE pairs: `depth N` (a fixed depth, 0 for none), `nodes N` (a
    fixed node count, 0 for none), `time S` (seconds a move when no clock runs, 0 for none).
    A fixed depth or node count makes the moves reproducible: the time is then ignored
    (a running clock is not).
    Fails: an unknown key, a missing value, a value out of range; nothing changes then.
    Returns: the level, as `depth D nodes N time S`.
    """
    if len(args) % 2:
        raise CommandError("level takes KEY VALUE pairs: depth N, nodes N, time S")
    level = Level(kernel.level.depth, kernel.level.nodes, kernel.level.move_time)
    for key, value in zip(args[::2], args[1::2], strict=True):
        if key == "depth":
            level.depth = read_count(value, "depth", 0)
            if level.depth > MAX_PLAY_DEPTH:
                raise CommandError(f"depth must be at most {MAX_PLAY_DEPTH}, got {level.depth}")
        elif key == "nodes":
            level.nodes = read_count(value, "nodes", 0)
        elif key == "time":
            level.move_time = read_seconds(value, "time", MAX_MOVE_TIME)
        else:
            raise CommandError(f"unknown level setting {shorten(key)} (depth, nodes or time)")
    kernel.level = level
    return level.describe()


def cmd_reg_genmove(kernel: Session, args: list[str]) -> str:
    """Choose a move for the side to move and name it, without playing it.

    Arguments and failures: as genmove. Returns: the move genmove would play.
    """
    return choose_move(kernel, args, play=False)


def cmd_time_left(kernel: Session, args: list[str]) -> str:
    """Tell the engine what is left on a side's clock (GTP).

    Arguments: COLOR, TIME (seconds), STONES (moves left in the current byo-yomi period, 0
    while in main time).
    Fails: COLOR is not a colour; TIME or STONES is not a number in range.
    Returns: nothing.
    """
    side = read_colour(args[0])
    seconds = read_seconds(args[1], "TIME", MAX_CLOCK_SECONDS)
    stones = read_count(args[2], "STONES", 0)
    if kernel.clocks.settings is None:
        # A clock given without settings is absolute time: honour it rather than ignore it.
        kernel.clocks = Clocks(TimeSettings(seconds, 0.0, 0))
    kernel.clocks.set_left(side, seconds, stones)
    return ""


def cmd_time_settings(kernel: Session, args: list[str]) -> str:
    """Set the time control of both sides (GTP), clocks full.

    Arguments: MAIN (seconds), BYO_TIME (seconds of each byo-yomi period), BYO_STONES (moves
    in a period); BYO_TIME 0 is absolute time, `0 1 0` (BYO_TIME > 0, BYO_STONES 0) no limit.
    Fails: a value that is not a number, negative, or absurdly large.
    Returns: nothing.
    """
    main = read_seconds(args[0], "MAIN", MAX_CLOCK_SECONDS)
    byo_time = read_seconds(args[1], "BYO_TIME", MAX_CLOCK_SECONDS)
    byo_stones = read_count(args[2], "BYO_STONES", 0)
    if byo_stones > MAX_STONES:
        raise CommandError(f"BYO_STONES must be at most {MAX_STONES}, got {byo_stones}")
    kernel.clocks = Clocks(TimeSettings(main, byo_time, byo_stones))
    return ""


def choose_move(kernel: Session, args: list[str], play: bool) -> str:
    """Search a move for genmove (play=True) or reg_genmove, log the search, name the move."""
    started = time.monotonic()
    position = kernel.position
    side = position.side
    if args:
        asked = read_colour(args[0])
        if asked != side:
            raise CommandError(f"not {SIDE_NAMES[asked]}'s move")
    outcome = kernel.outcome()
    if outcome is not None:
        raise CommandError(f"game over: {outcome}")
    limits = limits_for(
        kernel.level, kernel.clocks, side, kernel.config.max_nodes, kernel.overhead.reserve
    )
    game = kernel.game
    report = thinking_reporter(kernel)
    choice = kernel.player.choose(
        game, limits, kernel.config.resign_cp, None if report is None else report
    )
    # A fixed depth that a limit cut short says so, where the thinking and the log are read.
    cut = depth_cut(kernel.level, kernel.config.max_nodes, choice.result)
    if cut is not None and report is not None:
        report(cut.line())
    kernel.log_event("search", search_summary(game, choice, cut))
    if play:  # the whole command's time, as the controller's clock sees it
        kernel.clocks.spend(side, time.monotonic() - started)
    if choice.move is None:
        kernel.overhead.note(time.monotonic() - started - choice.result.seconds)
        return "resign"
    name = get_move_name(position, choice.move)
    if (kernel.person_notation or kernel.config.notation) == "short":
        from kernel.cube.rules import Analysis
        from kernel.text.short_notation import short_name

        name = short_name(position, Analysis(position), choice.move)
    if play:
        kernel.play(choice.move)
    # What this move cost beyond its search: the next budget keeps it back.
    kernel.overhead.note(time.monotonic() - started - choice.result.seconds)
    return name


def thinking_reporter(kernel: Session) -> Callable[[Iteration | str], None] | None:
    """Return what writes each finished depth (or a line of its own: a cut) on stderr, as
    play.thinking asks, or None."""
    import sys

    mode = kernel.config.thinking
    if mode == "never" or sys.stderr is None:
        return None
    if mode == "terminal" and not sys.stderr.isatty():
        return None
    game = kernel.game

    def report(iteration: Iteration | str) -> None:
        from kernel.logger import write_stderr

        text = iteration if isinstance(iteration, str) else thinking_line(game, iteration)
        write_stderr(text)

    return report
