"""The kernel: the position, the alphabetical command table and the one place replies are framed.

Every handler has the same signature, `handler(kernel, args) -> str`: it returns the result
text of a success, or raises CommandError with the message of a failure. A handler changes the
position only after every check has passed, so a refused command changes nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from kernel.board import Board
from kernel.config import EngineConfig
from kernel.notation import NotationError, format_board, parse_board
from kernel.protocol import Command, CommandError, Reply, frame, parse_command, shorten
from kernel.rules import Analysis, InvalidPosition, analyse_position

Handler = Callable[["Kernel", list[str]], str]

#: More digits than any size or coordinate could need; int() of far more is slow or refused.
MAX_DIGITS = 9


class Exchange(NamedTuple):
    """One answered line: the command as parsed, its reply and the framed response."""

    command: Command
    reply: Reply
    response: str


class Kernel:
    """Hold the position and answer commands about it."""

    def __init__(self, config: EngineConfig) -> None:
        self.config = config
        self.board = Board.empty(config.board_size)
        self.quit_requested = False
        self._analysis: Analysis | None = None

    # --- the position -------------------------------------------------------------------

    def set_position(self, board: Board, analysis: Analysis | None = None) -> None:
        """Replace the position, with what is already worked out about it, if anything."""
        self.board = board
        self._analysis = analysis

    def analysis(self) -> Analysis:
        """Work out the position's checkers (and, when asked, pins) once, for every command."""
        if self._analysis is None:
            try:
                self._analysis = Analysis(self.board)
            except ValueError as error:
                raise CommandError(str(error)) from None
        return self._analysis

    # --- answering lines ----------------------------------------------------------------

    def respond(self, line: str) -> Exchange | None:
        """Answer one line made ready by protocol.prepare_line; None for a blank or comment line."""
        command = parse_command(line)
        if command is None:
            return None
        reply = self.execute(command.name, command.args)
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
            raise CommandError("unknown command")
        spec.check_arity(args)
        return spec.handler(self, args)


# --- the handlers, in the order of the table ---------------------------------------------


def cmd_boardsize(kernel: Kernel, args: list[str]) -> str:
    """Set the board size and empty the board.

    Arguments: N, the new size.
    Fails: N is not a whole number, or is outside 2 ... max size ("unacceptable size").
    Returns: nothing.
    """
    size = parse_int(args[0], "N", "unacceptable size")
    if not 2 <= size <= kernel.config.max_board_size:
        raise CommandError("unacceptable size")
    kernel.set_position(Board.empty(size))
    return ""


def cmd_checkers(kernel: Kernel, args: list[str]) -> str:
    """List the black pieces giving check.

    Arguments: none.
    Fails: there is no white king.
    Returns: each checker as letter and cell, sorted, space-separated; empty when none.
    """
    analysis = kernel.analysis()
    name = kernel.board.geometry.get_cell_name_from_point
    cells = kernel.board.cells
    return " ".join(sorted(cells[point] + name(point) for point in analysis.checkers))


def cmd_checkmate(kernel: Kernel, args: list[str]) -> str:
    """Tell whether white, to move, is checkmated.

    Arguments: none.
    Fails: there is no white king.
    Returns: true or false; stalemate is false.
    """
    return "true" if kernel.analysis().is_checkmate() else "false"


def cmd_clear_board(kernel: Kernel, args: list[str]) -> str:
    """Empty every cell, keeping the size.

    Arguments: none. Fails: never. Returns: nothing.
    """
    kernel.set_position(Board.empty(kernel.board.size))
    return ""


def cmd_explain(kernel: Kernel, args: list[str]) -> str:
    """Explain the answer to checkmate, one finding per line.

    Arguments: none.
    Fails: there is no white king.
    Returns: several lines for people.
    """
    from kernel.explain import explain  # imported when first used, to start faster

    return explain(kernel.analysis())


def cmd_get_board(kernel: Kernel, args: list[str]) -> str:
    """Write the position in the canonical board notation.

    Arguments: none. Fails: never. Returns: one line of notation.
    """
    return format_board(kernel.board)


def cmd_help(kernel: Kernel, args: list[str]) -> str:
    """Describe every command, or one.

    Arguments: optionally a command name.
    Fails: the name is not a command.
    Returns: one usage line per command: its name, arguments and what it does.
    """
    if args:
        spec = COMMANDS_BY_NAME.get(args[0])
        if spec is None:
            raise CommandError(f"unknown command {shorten(args[0])}")
        return spec.help_line()
    return "\n".join(spec.help_line() for spec in COMMANDS)


def cmd_known_command(kernel: Kernel, args: list[str]) -> str:
    """Tell whether a command exists.

    Arguments: NAME. Fails: never. Returns: true or false.
    """
    return "true" if args[0] in COMMANDS_BY_NAME else "false"


def cmd_legal_moves(kernel: Kernel, args: list[str]) -> str:
    """List every legal white move.

    Arguments: none.
    Fails: there is no white king.
    Returns: moves as Kc1(I)-c2(II) or, capturing, Nb2(II)xa1(III), sorted, space-separated.
    """
    board = kernel.board
    return " ".join(sorted(move.name(board) for move in kernel.analysis().legal_moves()))


def cmd_list_commands(kernel: Kernel, args: list[str]) -> str:
    """List every command name.

    Arguments: none. Fails: never. Returns: one name per line, alphabetical.
    """
    return "\n".join(spec.name for spec in COMMANDS)


def cmd_name(kernel: Kernel, args: list[str]) -> str:
    """Name the engine.

    Arguments: none. Fails: never. Returns: the engine name from the config.
    """
    return kernel.config.name


def cmd_protocol_version(kernel: Kernel, args: list[str]) -> str:
    """Give the protocol version.

    Arguments: none. Fails: never. Returns: 2.
    """
    return "2"


def cmd_quit(kernel: Kernel, args: list[str]) -> str:
    """End the session after this reply.

    Arguments: none. Fails: never. Returns: nothing.
    """
    kernel.quit_requested = True
    return ""


def cmd_set_board(kernel: Kernel, args: list[str]) -> str:
    """Set up a position from the board notation.

    Arguments: an optional size N, then the board (white space inside is allowed).
    Fails: the text cannot be read (size, rows, characters) or the position is impossible
    (king counts, kings on neighbouring cells, both kings in check); the old position stays.
    Returns: nothing.
    """
    try:
        text = parse_board(" ".join(args), kernel.config.max_board_size)
    except NotationError as error:
        raise CommandError(f"invalid board: {error}") from None
    board = Board.from_rows(text.size, text.rows)
    try:
        analysis = analyse_position(board)
    except InvalidPosition as error:
        raise CommandError(f"invalid board: {error}") from None
    kernel.set_position(board, analysis)
    return ""


def cmd_showboard(kernel: Kernel, args: list[str]) -> str:
    """Draw the board for people.

    Arguments: none. Fails: never.
    Returns: every layer, top first, with its level, ranks and files; `.` is an empty cell.
    """
    from kernel.picture import draw_board  # imported when first used, to start faster

    return "\n" + draw_board(kernel.board)


def cmd_status(kernel: Kernel, args: list[str]) -> str:
    """Name the state of white, to move.

    Arguments: none.
    Fails: there is no white king.
    Returns: checkmate, stalemate, check or normal.
    """
    return kernel.analysis().status()


def cmd_test_get_point_from_xy(kernel: Kernel, args: list[str]) -> str:
    """Give the index of a memory cell in the padded 1-D array.

    Arguments: X Y [Z], memory coordinates counting the wall (a1(I) is 2 2 2); Z defaults to 0.
    Fails: a coordinate is not a whole number or is outside 0 ... W-1, W = size + 4.
    Returns: X + W*Y + W*W*Z.
    """
    width = kernel.board.geometry.memory_width
    x, y, z = (
        parse_int(arg, axis, f"{axis.lower()} = {shorten(arg)} is outside 0 ... {width - 1}")
        for arg, axis in zip([*args, "0"], "XYZ", strict=False)
    )
    try:
        return str(kernel.board.geometry.get_point_from_xyz(x, y, z))
    except ValueError as error:
        raise CommandError(str(error)) from None


def cmd_version(kernel: Kernel, args: list[str]) -> str:
    """Give the engine's version.

    Arguments: none. Fails: never. Returns: the package version.
    """
    return package_version()


# --- helpers -------------------------------------------------------------------------------


def parse_int(text: str, what: str, out_of_range: str) -> int:
    """Read a whole number argument, or refuse it naming the argument.

    A number of more digits than any size or coordinate has is refused with `out_of_range`
    before int() is asked to convert it.
    """
    if re.fullmatch(r"[+-]?[0-9]+", text) is None:
        raise CommandError(f"{what} must be a whole number, got {shorten(text)}")
    if len(text.lstrip("+-0")) > MAX_DIGITS:
        raise CommandError(out_of_range)
    return int(text)


def package_version() -> str:
    """Read the version from the installed package, or from pyproject.toml beside it."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("cubemate")
    except PackageNotFoundError:
        import tomllib

        pyproject = Path(__file__).resolve().parent.parent / "pyproject.toml"
        with pyproject.open("rb") as file:
            return str(tomllib.load(file)["project"]["version"])


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
        least = sum(1 for word in words if not word.startswith("["))
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
        summary = (self.handler.__doc__ or "").strip().split("\n")[0]
        return f"{self.usage():<32} {summary}"


#: The command table, in alphabetical order (checked below, and by the tests).
COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec("boardsize", "N", cmd_boardsize),
    CommandSpec("checkers", "", cmd_checkers),
    CommandSpec("checkmate", "", cmd_checkmate),
    CommandSpec("clear_board", "", cmd_clear_board),
    CommandSpec("explain", "", cmd_explain),
    CommandSpec("get_board", "", cmd_get_board),
    CommandSpec("help", "[COMMAND]", cmd_help),
    CommandSpec("known_command", "NAME", cmd_known_command),
    CommandSpec("legal_moves", "", cmd_legal_moves),
    CommandSpec("list_commands", "", cmd_list_commands),
    CommandSpec("name", "", cmd_name),
    CommandSpec("protocol_version", "", cmd_protocol_version),
    CommandSpec("quit", "", cmd_quit),
    CommandSpec("set_board", "[N] BOARD...", cmd_set_board),
    CommandSpec("showboard", "", cmd_showboard),
    CommandSpec("status", "", cmd_status),
    CommandSpec("test_get_point_from_xy", "X Y [Z]", cmd_test_get_point_from_xy),
    CommandSpec("version", "", cmd_version),
)
COMMANDS_BY_NAME = {spec.name: spec for spec in COMMANDS}
assert [spec.name for spec in COMMANDS] == sorted(COMMANDS_BY_NAME), "table out of order"
