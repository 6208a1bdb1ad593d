"""The kernel: the position, the alphabetical command table and the one place replies are framed.

Every handler has the same signature, `handler(kernel, args) -> str`: it returns the result
text of a success, or raises CommandError with the message of a failure. A handler changes the
position only after every check has passed, so a refused command changes nothing.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import NamedTuple

from kernel.commands.analysis import (
    cmd_checkers,
    cmd_checkmate,
    cmd_explain,
    cmd_legal_moves,
    cmd_status,
)
from kernel.commands.game import (
    cmd_loadgame,
    cmd_new_game,
    cmd_play,
    cmd_printgame,
    cmd_result,
    cmd_savegame,
    cmd_undo,
    cmd_variant,
)
from kernel.commands.messages import (
    BOARD_ROW_AGAIN,
    BOARD_ROW_HINT,
    looks_like_board_row,
    unknown_command,
)
from kernel.commands.player import (
    cmd_genmove,
    cmd_level,
    cmd_reg_genmove,
    cmd_time_left,
    cmd_time_settings,
)
from kernel.commands.position import (
    cmd_boardsize,
    cmd_clear_board,
    cmd_get_board,
    cmd_set_board,
    cmd_showboard,
    cmd_test_get_point_from_xy,
)
from kernel.commands.search import (
    cmd_helpmate,
    cmd_mate_in,
    cmd_mate_search,
    cmd_perft,
    cmd_selfmate,
    cmd_solution,
)
from kernel.commands.session import Session
from kernel.commands.tablebase import cmd_tb_probe
from kernel.protocol import Command, CommandError, Reply, frame, parse_command
from kernel.version import package_version as package_version

Handler = Callable[["Session", list[str]], str]


class Exchange(NamedTuple):
    """One answered line: the command as parsed, its reply and the framed response."""

    command: Command
    reply: Reply
    response: str


class Kernel(Session):
    """A session that answers protocol lines through the command table."""

    # --- answering lines ----------------------------------------------------------------

    def respond(self, line: str) -> Exchange | None:
        """Answer one line made ready by protocol.prepare_line; None for a blank or comment line."""
        command = parse_command(line, self.config.comments)
        return None if command is None else self.answer(command)

    def answer(self, command: Command) -> Exchange:
        """Answer one command parsed by protocol.parse_command."""
        reply = self.execute(command.name, command.args)
        # A board pasted over several lines: its first line gets the hint, the rest of the
        # paste (blank and comment lines aside) a short reminder rather than the same again.
        pasted = not reply.ok and reply.text in (BOARD_ROW_HINT, BOARD_ROW_AGAIN)
        if pasted and self.in_pasted_board:
            reply = Reply(False, BOARD_ROW_AGAIN)
        self.in_pasted_board = pasted
        return Exchange(command, reply, frame(command.id, reply))

    def execute(self, name: str, args: list[str]) -> Reply:
        """Run one command by name; a refusal or a bug becomes a failed reply, never a raise."""
        try:
            return Reply(True, self.run(name, args))
        except CommandError as error:
            return Reply(False, str(error))
        except Exception as error:
            # One short line, whatever the exception says: the traceback goes to the logs.
            detail = " ".join(str(error).split())[:200]
            message = f"internal error: {type(error).__name__}: {detail}"
            from traceback import format_exc  # only bugs need it: keep it out of start-up

            return Reply(False, message, format_exc())

    def run(self, name: str, args: list[str]) -> str:
        """Run one command by name and return its result; raise CommandError on refusal."""
        if not name:
            raise CommandError("no command given")
        spec = COMMANDS_BY_NAME.get(name)
        if spec is None:
            if looks_like_board_row(name):
                raise CommandError(BOARD_ROW_HINT)
            raise CommandError(unknown_command(name, COMMANDS_BY_NAME))
        spec.check_arity(args)
        return spec.handler(self, args)


# --- the handlers about the engine itself; the others are in kernel/commands/ ---------


def cmd_help(kernel: Session, args: list[str]) -> str:
    """Describe every command, or one.

    Arguments: optionally a command name.
    Fails: the name is not a command.
    Returns: one usage line per command: its name, arguments and what it does; the list of
    every command starts on the line after `=`, so that its lines align whatever the id.
    """
    if args:
        spec = COMMANDS_BY_NAME.get(args[0])
        if spec is None:
            raise CommandError(unknown_command(args[0], COMMANDS_BY_NAME))
        return spec.help_line()
    lines = []
    for title, names in help_groups():
        lines.append(f"{title}:")
        lines.extend("  " + COMMANDS_BY_NAME[name].help_line() for name in names)
    return "\n" + "\n".join(lines)


#: `help`'s groups, and the commands of each, in the order a player meets them. The protocol's
#: own commands and the tests' come last, apart.
HELP_GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "playing",
        (
            "new_game",
            "variant",
            "play",
            "genmove",
            "undo",
            "showboard",
            "result",
            "printgame",
            "savegame",
            "loadgame",
            "level",
            "time_settings",
            "time_left",
        ),
    ),
    (
        "analysis",
        (
            "set_board",
            "get_board",
            "boardsize",
            "clear_board",
            "legal_moves",
            "status",
            "checkers",
            "checkmate",
            "explain",
            "perft",
        ),
    ),
    ("solving", ("mate_in", "mate_search", "solution", "selfmate", "helpmate")),
    ("tables", ("tb_probe",)),
    ("engine", ("help", "name", "version", "cputime", "quit")),
)
#: The title of the last group: every command no other group names.
PROTOCOL_GROUP = "protocol and tests"


def help_groups() -> list[tuple[str, list[str]]]:
    """Group the table's commands for `help`, then list those no group names (in table order)."""
    grouped: list[tuple[str, list[str]]] = []
    named: set[str] = set()
    for title, names in HELP_GROUPS:
        present = [name for name in names if name in COMMANDS_BY_NAME]
        grouped.append((title, present))
        named.update(present)
    grouped.append((PROTOCOL_GROUP, [spec.name for spec in COMMANDS if spec.name not in named]))
    return [(title, names) for title, names in grouped if names]


def cmd_known_command(kernel: Session, args: list[str]) -> str:
    """Tell whether a command exists.

    Arguments: NAME. Fails: never. Returns: true or false.
    """
    return "true" if args[0] in COMMANDS_BY_NAME else "false"


def cmd_list_commands(kernel: Session, args: list[str]) -> str:
    """List every command name.

    Arguments: none. Fails: never. Returns: one name per line, alphabetical.
    """
    return "\n".join(spec.name for spec in COMMANDS)


def cmd_cputime(kernel: Session, args: list[str]) -> str:
    """Give the CPU time the engine has used, in seconds (GoGui's extension).

    Arguments: none. Fails: never. Returns: seconds of CPU, user and system, with three
    decimals, as GoGui's regression tool reads it.
    """
    return f"{time.process_time():.3f}"


def cmd_name(kernel: Session, args: list[str]) -> str:
    """Name the engine.

    Arguments: none. Fails: never. Returns: the engine name from the config.
    """
    return kernel.config.name


def cmd_protocol_version(kernel: Session, args: list[str]) -> str:
    """Give the protocol version.

    Arguments: none. Fails: never. Returns: 2.
    """
    return "2"


def cmd_quit(kernel: Session, args: list[str]) -> str:
    """End the session after this reply.

    Arguments: none. Fails: never. Returns: nothing.
    """
    kernel.quit_requested = True
    return ""


def cmd_version(kernel: Session, args: list[str]) -> str:
    """Give the engine's version.

    Arguments: none. Fails: never. Returns: the package version.
    """
    return package_version()


class CommandSpec:
    """One row of the command table: name, argument syntax and handler."""

    __slots__ = ("arity", "handler", "name", "syntax")

    def __init__(self, name: str, syntax: str, handler: Handler) -> None:
        self.name = name
        self.syntax = syntax
        self.handler = handler
        # Work the argument counts out of the syntax once, not on every command:
        # required words, [optional] ones, and `...` for no limit.
        words = syntax.split()
        least = 0
        depth = 0  # inside how many [ ] the word stands
        for word in words:
            depth += word.count("[")
            if depth == 0:
                least += 1
            depth -= word.count("]")
        most = None if any(word.endswith("...") for word in words) else len(words)
        self.arity: tuple[int, int | None] = (least, most)

    def check_arity(self, args: list[str]) -> None:
        """Refuse a wrong number of arguments, showing the usage."""
        least, most = self.arity
        if len(args) < least or (most is not None and len(args) > most):
            raise CommandError(f"wrong number of arguments, usage: {self.usage()}")

    def usage(self) -> str:
        return f"{self.name} {self.syntax}".rstrip()

    def help_line(self) -> str:
        """Give the usage, padded to the longest of the table, and the handler's summary."""
        summary = (self.handler.__doc__ or "").strip().split("\n")[0]
        width = max(len(spec.usage()) for spec in COMMANDS)
        return f"{self.usage():<{width}}  {summary}"


#: The command table, in alphabetical order (checked below, and by the tests).
COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec("boardsize", "N", cmd_boardsize),
    CommandSpec("checkers", "", cmd_checkers),
    CommandSpec("checkmate", "", cmd_checkmate),
    CommandSpec("clear_board", "", cmd_clear_board),
    CommandSpec("cputime", "", cmd_cputime),
    CommandSpec("explain", "", cmd_explain),
    CommandSpec("genmove", "[COLOR]", cmd_genmove),
    CommandSpec("get_board", "", cmd_get_board),
    CommandSpec("help", "[COMMAND]", cmd_help),
    CommandSpec("helpmate", "N", cmd_helpmate),
    CommandSpec("known_command", "NAME", cmd_known_command),
    CommandSpec("legal_moves", "", cmd_legal_moves),
    CommandSpec("level", "[depth N] [nodes N] [time S]", cmd_level),
    CommandSpec("list_commands", "", cmd_list_commands),
    CommandSpec("loadgame", "FILE [PLY] [GAME]", cmd_loadgame),
    CommandSpec("mate_in", "N", cmd_mate_in),
    CommandSpec("mate_search", "[MAX]", cmd_mate_search),
    CommandSpec("name", "", cmd_name),
    CommandSpec("new_game", "[N] [VARIANT]", cmd_new_game),
    CommandSpec("perft", "D", cmd_perft),
    CommandSpec("play", "MOVE", cmd_play),
    CommandSpec("printgame", "[NOTATION]", cmd_printgame),
    CommandSpec("protocol_version", "", cmd_protocol_version),
    CommandSpec("quit", "", cmd_quit),
    CommandSpec("reg_genmove", "[COLOR]", cmd_reg_genmove),
    CommandSpec("result", "", cmd_result),
    CommandSpec("savegame", "FILE", cmd_savegame),
    CommandSpec("selfmate", "N", cmd_selfmate),
    CommandSpec("set_board", "[N] BOARD... [SIDE]", cmd_set_board),
    CommandSpec("showboard", "", cmd_showboard),
    CommandSpec("solution", "N [STIPULATION]", cmd_solution),
    CommandSpec("status", "", cmd_status),
    CommandSpec("tb_probe", "", cmd_tb_probe),
    CommandSpec("test_get_point_from_xy", "X Y [Z]", cmd_test_get_point_from_xy),
    CommandSpec("time_left", "COLOR TIME STONES", cmd_time_left),
    CommandSpec("time_settings", "MAIN BYO_TIME BYO_STONES", cmd_time_settings),
    CommandSpec("undo", "", cmd_undo),
    CommandSpec("variant", "[NAME]", cmd_variant),
    CommandSpec("version", "", cmd_version),
)
COMMANDS_BY_NAME = {spec.name: spec for spec in COMMANDS}
assert [spec.name for spec in COMMANDS] == sorted(COMMANDS_BY_NAME), "table out of order"
