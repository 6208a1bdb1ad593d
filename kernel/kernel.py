"""The kernel: the position, the alphabetical command table and the one place replies are framed.

Every handler has the same signature, `handler(kernel, args) -> str`: it returns the result
text of a success, or raises CommandError with the message of a failure. A handler changes the
position only after every check has passed, so a refused command changes nothing.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from kernel.alphabeta import Iteration
from kernel.clock import Clocks, TimeSettings
from kernel.config import MAX_MOVE_TIME, MAX_PLAY_DEPTH, EngineConfig
from kernel.evaluation import Weights
from kernel.game import UNDECIDED, Game, Outcome
from kernel.interrupt import SearchStopped
from kernel.messages import (
    BOARD_ROW_AGAIN,
    BOARD_ROW_HINT,
    looks_like_board_row,
    unknown_command,
)
from kernel.move_reading import IllegalMove, read_move
from kernel.notation import (
    SIDE_NAMES,
    SIDE_WORDS,
    NotationError,
    format_board,
    get_cell_name_from_point,
    get_move_name,
    parse_board,
    parse_move_text,
    piece_label,
)
from kernel.player import Level, Player, limits_for, search_summary, thinking_line
from kernel.position import NO_POINT, WHITE, Move, Position
from kernel.protocol import Command, CommandError, Reply, frame, parse_command, shorten
from kernel.rules import Analysis, InvalidPosition, check_position, is_game_position
from kernel.search import (
    MAX_MATE_MOVES,
    MAX_PERFT_DEPTH,
    Budget,
    Progress,
    SearchLimitReached,
    perft,
)

if TYPE_CHECKING:
    from kernel.proofnumber import ProofNumberSearch

Handler = Callable[["Kernel", list[str]], str]
Result = TypeVar("Result")

#: More digits than any size or coordinate could need; int() of far more is slow or refused.
MAX_DIGITS = 9
#: The most seconds a clock may hold (eleven days), and moves a byo-yomi period.
MAX_CLOCK_SECONDS = 1_000_000.0
MAX_STONES = 1_000_000


class Exchange(NamedTuple):
    """One answered line: the command as parsed, its reply and the framed response."""

    command: Command
    reply: Reply
    response: str


class Kernel:
    """Hold the game (the position and the moves played since it was set) and answer commands."""

    def __init__(self, config: EngineConfig) -> None:
        self.config = config
        self.game = Game(Position.empty(config.board_size))
        #: How hard genmove tries (config [play], changed by `level`).
        self.level = Level(config.play_depth, config.play_nodes, config.move_time)
        #: The game clocks of `time_settings` and `time_left`.
        self.clocks = Clocks()
        self.player = Player(config.hash_mb, weights_of(config))
        #: Where events beside the exchanges go (the JSON log's `search`); set by main.py.
        self.log_event: Callable[[str, dict[str, Any]], None] = lambda name, fields: None
        self.quit_requested = False
        #: Whether the last line looked like a row of a board pasted over several lines.
        self.in_pasted_board = False
        self._analysis: Analysis | None = None

    # --- the position -------------------------------------------------------------------

    @property
    def position(self) -> Position:
        """The position now."""
        return self.game.position

    def set_position(self, position: Position, analysis: Analysis | None = None) -> None:
        """Set up a new position, forgetting the moves played; keep what is known about it."""
        self.set_game(Game(position), analysis)

    def set_game(self, game: Game, analysis: Analysis | None = None) -> None:
        """Make a game the current one; both clocks start again from the time settings."""
        self.game = game
        self._analysis = analysis
        self.clocks = Clocks(self.clocks.settings)

    def play(self, move: Move) -> None:
        """Play a legal move of the side to move."""
        self.game.play(move)
        self._analysis = None

    def undo(self) -> None:
        """Take back the last move; the caller checked there is one."""
        self.game.undo()
        self._analysis = None

    def analysis(self) -> Analysis:
        """Work out the position's checkers (and, when asked, pins) once, for every command."""
        if self.position.kings[WHITE] == NO_POINT:
            raise CommandError("no white king on the board")
        if self._analysis is None:
            self._analysis = Analysis(self.position)
        return self._analysis

    def game_analysis(self) -> Analysis:
        """Return the analysis of a position that can arise in play, or refuse."""
        analysis = self.analysis()
        if not is_game_position(self.position):
            raise CommandError("the side not to move is in check")
        return analysis

    def is_game(self) -> bool:
        """Tell whether the position can arise in a game: a white king, the side not to move
        out of check."""
        return self.position.kings[WHITE] != NO_POINT and is_game_position(self.position)

    def outcome(self) -> Outcome | None:
        """Judge the game now (a game position): None while it goes on."""
        return self.game.outcome(self.game_analysis())

    def budget(self, depth: int) -> Budget:
        """Make the position budget of one search, with progress shown at a terminal."""
        return Budget(self.config.max_nodes, depth, terminal_progress())

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


# --- the handlers, in the order of the table ---------------------------------------------


def cmd_boardsize(kernel: Kernel, args: list[str]) -> str:
    """Set the board size and empty the board.

    Arguments: N, the new size.
    Fails: N is not a whole number, or is outside 2 ... max size ("unacceptable size (2 ... 64)").
    Returns: nothing.
    """
    kernel.set_position(Position.empty(read_size(kernel, args[0])))
    return ""


def cmd_checkers(kernel: Kernel, args: list[str]) -> str:
    """List the pieces giving check to the side to move.

    Arguments: none.
    Fails: there is no white king.
    Returns: each checker as letter and cell, sorted, space-separated; empty when none.
    """
    analysis = kernel.analysis()
    return " ".join(sorted(piece_label(kernel.position, point) for point in analysis.checkers))


def cmd_checkmate(kernel: Kernel, args: list[str]) -> str:
    """Tell whether the side to move is checkmated.

    Arguments: none.
    Fails: there is no white king.
    Returns: true or false; stalemate is false.
    """
    return "true" if kernel.analysis().is_checkmate() else "false"


def cmd_clear_board(kernel: Kernel, args: list[str]) -> str:
    """Empty every cell, keeping the size.

    Arguments: none. Fails: never. Returns: nothing.
    """
    kernel.set_position(Position.empty(kernel.position.size))
    return ""


def cmd_explain(kernel: Kernel, args: list[str]) -> str:
    """Explain the answer to checkmate, one finding per line.

    Arguments: none.
    Fails: there is no white king.
    Returns: several lines for people.
    """
    from kernel.explain import explain  # imported when first used, to start faster

    return explain(kernel.analysis())


def cmd_genmove(kernel: Kernel, args: list[str]) -> str:
    """Choose a move for the side to move, play it and name it.

    Arguments: optionally COLOR (w, b, white or black), which must be the side to move.
    Fails: COLOR is not the side to move ("not black's move"); the game is over, by mate,
    stalemate or a draw rule ("game over: 1/2-1/2 (threefold repetition)"); no white king;
    the side not to move is in check.
    Returns: the move, as legal_moves writes it; `resign` when play.resign_cp is set and the
    game is lost.
    """
    return choose_move(kernel, args, play=True)


def cmd_get_board(kernel: Kernel, args: list[str]) -> str:
    """Write the position in the canonical board notation.

    Arguments: none. Fails: never. Returns: one line of notation.
    """
    board = format_board(kernel.position, kernel.config.empty_cell)
    return board if kernel.position.side == WHITE else board + " b"


def cmd_help(kernel: Kernel, args: list[str]) -> str:
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
    return "\n" + "\n".join(spec.help_line() for spec in COMMANDS)


def cmd_known_command(kernel: Kernel, args: list[str]) -> str:
    """Tell whether a command exists.

    Arguments: NAME. Fails: never. Returns: true or false.
    """
    return "true" if args[0] in COMMANDS_BY_NAME else "false"


def cmd_level(kernel: Kernel, args: list[str]) -> str:
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


def cmd_legal_moves(kernel: Kernel, args: list[str]) -> str:
    """List every legal move of the side to move.

    Arguments: none.
    Fails: there is no white king.
    Returns: moves as Kc1(I)-c2(II) or, capturing, Nb2(II)xa1(III) (black's in lower case),
    sorted, space-separated.
    """
    return move_list(kernel.position, kernel.analysis().legal_moves())


def cmd_list_commands(kernel: Kernel, args: list[str]) -> str:
    """List every command name.

    Arguments: none. Fails: never. Returns: one name per line, alphabetical.
    """
    return "\n".join(spec.name for spec in COMMANDS)


def cmd_loadgame(kernel: Kernel, args: list[str]) -> str:
    """Replay a game from a record file.

    Arguments: FILE (one word), then optionally PLY, how many of its moves to replay (all when
    left out or `end`), then optionally GAME, which record of the file (1 for the first).
    Fails: the file cannot be read, is not text, is too large or is not a record; the record
    asked for is not there; its size is outside the accepted range; its start position or a
    move is refused (the ply, the line and the reason are named). Nothing changes then.
    Returns: nothing.
    """
    from kernel.replay import ReplayError, load_game  # imported when first used

    ply = None if len(args) < 2 or args[1] == "end" else read_count(args[1], "PLY", 0)
    game_number = 1 if len(args) < 3 else read_count(args[2], "GAME", 1)
    try:
        game = load_game(args[0], ply, game_number, kernel.config)
    except ReplayError as error:
        raise CommandError(str(error)) from None
    kernel.set_game(game)
    return ""


def cmd_mate_in(kernel: Kernel, args: list[str]) -> str:
    """List the moves that mate in N.

    Arguments: N >= 1, the most moves of the side to move (the attacker) to mate in.
    Fails: N is not a whole number from 1 to 100; no white king; the side not to move is in
    check; the search would visit more than search.max_nodes positions.
    Returns: every key (mates in N or fewer), sorted, space-separated; empty when none.
    """
    search = proof_search(kernel, args[0], "N")
    keys = within_budget(lambda: search.keys(kernel.position, search.budget.depth))
    return move_list(kernel.position, keys)


def cmd_mate_search(kernel: Kernel, args: list[str]) -> str:
    """Find the shortest forced mate, up to MAX moves.

    Arguments: optionally MAX >= 1, the longest mate to look for (search.max_mate_moves when
    left out).
    Fails: MAX is not a whole number from 1 to 100; no white king; the side not to move is in
    check; there is no mate within MAX moves ("no mate within MAX moves"); the search would
    visit more than search.max_nodes positions.
    Returns: the length of the shortest mate, then every key of that length, sorted:
    `3 Qa1(I)-b2(II) Rc1(I)-c3(I)`.
    """
    search = proof_search(kernel, args[0] if args else str(kernel.config.max_mate_moves), "MAX")
    most = search.budget.depth
    keys, length = within_budget(lambda: search.shortest_mate(kernel.position, most))
    if not keys:
        raise CommandError(f"no mate within {most} move{'s' if most > 1 else ''}")
    return f"{length} {move_list(kernel.position, keys)}"


def cmd_name(kernel: Kernel, args: list[str]) -> str:
    """Name the engine.

    Arguments: none. Fails: never. Returns: the engine name from the config.
    """
    return kernel.config.name


def cmd_new_game(kernel: Kernel, args: list[str]) -> str:
    """Start a game from the start position of docs/rules.md.

    Arguments: optionally N, the board size (the current size when left out).
    Fails: N is not a whole number, is outside 2 ... max size, or has no start position (2).
    Returns: nothing.
    """
    from kernel.start import NoStartPosition, start_position

    size = kernel.position.size if not args else read_size(kernel, args[0])
    try:
        position = start_position(size)
    except NoStartPosition as error:
        raise CommandError(f"no game on a board of size {size}: {error}") from None
    kernel.set_position(position)
    return ""


def cmd_perft(kernel: Kernel, args: list[str]) -> str:
    """Count the leaves of the legal move tree D plies deep.

    Arguments: D >= 0.
    Fails: D is not a whole number from 0 on; no white king; the side not to move is in check;
    the count would visit more than search.max_nodes positions.
    Returns: the count, a whole number.
    """
    budget = search_budget(kernel, args[0], "D", least=0, most=MAX_PERFT_DEPTH)
    return str(within_budget(lambda: perft(kernel.position, budget.depth, budget)))


def cmd_play(kernel: Kernel, args: list[str]) -> str:
    """Play a move for the side to move, which then passes to the other side.

    Arguments: MOVE as legal_moves writes it; the letter may be left out, `-` and `x` are
    interchangeable, and levels may be decimal.
    Fails: the move cannot be read, names a cell off the board or the same cell twice, or is
    not legal (no piece of the side to move there, the piece cannot move so, the king would be
    left in check, the letter does not match the piece); no white king; the side not to move
    is in check.
    Returns: nothing.
    """
    try:
        parse_move_text(args[0])  # a move that cannot be read is refused before the position
    except NotationError as error:
        raise CommandError(f"illegal move: {error}") from None
    analysis = kernel.game_analysis()
    if not analysis.has_legal_move():
        raise CommandError(f"game over: {kernel.outcome()}")
    try:
        move = read_move(kernel.position, analysis, args[0])
    except IllegalMove as error:
        raise CommandError(str(error)) from None
    kernel.play(move)
    return ""


def cmd_printgame(kernel: Kernel, args: list[str]) -> str:
    """Write the record of the game since the position was set.

    Arguments: none. Fails: never.
    Returns: the record of docs/rules.md ("Game records"), starting on the line after `=`.
    """
    from kernel.replay import game_record  # imported when first used, to start faster

    outcome = kernel.outcome() if kernel.is_game() else None
    record: str = game_record(kernel.game, outcome, kernel.config.empty_cell)
    return "\n" + record.rstrip("\n")


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


def cmd_reg_genmove(kernel: Kernel, args: list[str]) -> str:
    """Choose a move for the side to move and name it, without playing it.

    Arguments and failures: as genmove. Returns: the move genmove would play.
    """
    return choose_move(kernel, args, play=False)


def cmd_result(kernel: Kernel, args: list[str]) -> str:
    """Tell how the game stands.

    Arguments: none.
    Fails: no white king; the side not to move is in check.
    Returns: * while the game goes on; else the score and why, in chess words:
    1-0 (checkmate), 0-1 (checkmate), 1/2-1/2 (stalemate), 1/2-1/2 (threefold repetition),
    1/2-1/2 (fifty-move rule), 1/2-1/2 (insufficient material).
    """
    outcome = kernel.outcome()
    return UNDECIDED if outcome is None else str(outcome)


def cmd_set_board(kernel: Kernel, args: list[str]) -> str:
    """Set up a position from the board notation, and clear the moves played.

    Arguments: an optional size N, the board (white space inside is allowed), then optionally
    the side to move: w, b, white or black (white when left out), after a closing bracket.
    Fails: the text cannot be read (size, rows, characters) or the position is impossible
    (king counts, kings on neighbouring cells, both kings in check); the old position stays.
    Returns: nothing.
    """
    side = WHITE
    if len(args) > 1 and args[-1] in SIDE_WORDS and args[-2][-1] in "]\"'":
        side = SIDE_WORDS[args[-1]]
        args = args[:-1]
    try:
        text = parse_board(" ".join(args), kernel.config.max_board_size, kernel.config.comments)
    except NotationError as error:
        raise CommandError(f"invalid board: {error}") from None
    position = Position.from_rows(text.size, text.rows, side)
    try:
        analysis = check_position(
            position, lambda point: get_cell_name_from_point(position.geometry, point)
        )
    except InvalidPosition as error:
        raise CommandError(f"invalid board: {error}") from None
    kernel.set_position(position, analysis)
    return ""


def cmd_showboard(kernel: Kernel, args: list[str]) -> str:
    """Draw the board for people.

    Arguments: none. Fails: never.
    Returns: every layer, top first, with its level, ranks and files (`.` is an empty cell),
    then whose move it is, then the result once the game has one.
    """
    from kernel.picture import draw_board  # imported when first used, to start faster

    position = kernel.position
    picture = f"\n{draw_board(position)}\n{SIDE_NAMES[position.side]} to move"
    outcome = kernel.outcome() if kernel.is_game() else None
    return picture if outcome is None else f"{picture}\nresult: {outcome}"


def cmd_solution(kernel: Kernel, args: list[str]) -> str:
    """Show how each key mates in N, for people.

    Arguments: N >= 1, as for mate_in.
    Fails: as mate_in.
    Returns: each key of mate_in N, sorted, and under it, indented, each defence with a mating
    answer, down to the mate, which is marked `#`; one move per line; empty when no key.
    """
    search = proof_search(kernel, args[0], "N")
    from kernel.solution import write_solution  # imported when first used, to start faster

    lines = within_budget(lambda: write_solution(search, kernel.position, search.budget.depth))
    return "\n".join(lines)


def cmd_status(kernel: Kernel, args: list[str]) -> str:
    """Name the state of the side to move.

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
    geometry = kernel.position.geometry
    width = geometry.memory_width
    x, y, z = (
        parse_int(arg, axis, f"{axis.lower()} = {shorten(arg)} is outside 0 ... {width - 1}")
        for arg, axis in zip([*args, "0"], "XYZ", strict=False)
    )
    try:
        return str(geometry.get_point_from_xyz(x, y, z))
    except ValueError as error:
        raise CommandError(str(error)) from None


def cmd_time_left(kernel: Kernel, args: list[str]) -> str:
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


def cmd_time_settings(kernel: Kernel, args: list[str]) -> str:
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


def cmd_undo(kernel: Kernel, args: list[str]) -> str:
    """Take back the last move played.

    Arguments: none.
    Fails: no move was played since the position was set ("cannot undo").
    Returns: nothing.
    """
    if not kernel.game.plies:
        raise CommandError("cannot undo")
    kernel.undo()
    return ""


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


def weights_of(config: EngineConfig) -> Weights:
    """Read the evaluation's weights from the config's [evaluation] table."""
    return Weights(
        config.eval_queen,
        config.eval_rook,
        config.eval_bishop,
        config.eval_knight,
        config.eval_placement,
        config.eval_exposure,
        config.eval_king_reach,
        config.eval_cornering,
    )


def choose_move(kernel: Kernel, args: list[str], play: bool) -> str:
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
    limits = limits_for(kernel.level, kernel.clocks, side, kernel.config.max_nodes)
    game = kernel.game
    report = thinking_reporter(kernel)
    choice = kernel.player.choose(
        game, limits, kernel.config.resign_cp, None if report is None else report
    )
    kernel.log_event("search", search_summary(game, choice))
    if play:  # the whole command's time, as the controller's clock sees it
        kernel.clocks.spend(side, time.monotonic() - started)
    if choice.move is None:
        return "resign"
    name = get_move_name(position, choice.move)
    if play:
        kernel.play(choice.move)
    return name


def thinking_reporter(kernel: Kernel) -> Callable[[Iteration], None] | None:
    """Return what writes each finished depth on stderr, as play.thinking asks, or None."""
    import sys

    mode = kernel.config.thinking
    if mode == "never" or sys.stderr is None:
        return None
    if mode == "terminal" and not sys.stderr.isatty():
        return None
    game = kernel.game

    def report(iteration: Iteration) -> None:
        from kernel.logger import write_stderr

        write_stderr(thinking_line(game, iteration))

    return report


def read_colour(text: str) -> int:
    """Read a GTP colour: w, b, white or black, in any case."""
    side = SIDE_WORDS.get(text.lower())
    if side is None:
        raise CommandError(f"COLOR must be w, b, white or black, got {shorten(text)}")
    return side


def read_seconds(text: str, what: str, most: float) -> float:
    """Read a number of seconds: digits, perhaps with a decimal part, at most `most`."""
    if re.fullmatch(r"[+]?[0-9]+(?:\.[0-9]+)?|[+]?\.[0-9]+", text) is None:
        raise CommandError(f"{what} must be a number of seconds, 0 or more, got {shorten(text)}")
    digits = text.lstrip("+").split(".")[0].lstrip("0")
    if len(digits) > MAX_DIGITS or float(text) > most:
        raise CommandError(f"{what} must be at most {most:g} seconds, got {shorten(text)}")
    return float(text)


def read_size(kernel: Kernel, text: str) -> int:
    """Read a board size argument, refusing one outside 2 ... the configured maximum."""
    unacceptable = f"unacceptable size (2 ... {kernel.config.max_board_size})"
    size = parse_int(text, "N", unacceptable)
    if not 2 <= size <= kernel.config.max_board_size:
        raise CommandError(unacceptable)
    return size


def read_count(text: str, what: str, least: int) -> int:
    """Read a whole number argument of at least `least`."""
    number = parse_int(text, what, f"{what} is too large")
    if number < least:
        raise CommandError(f"{what} must be {least} or more, got {number}")
    return number


def move_list(position: Position, moves: Iterable[Move]) -> str:
    """Write moves sorted by name, space-separated."""
    return " ".join(sorted(get_move_name(position, move) for move in moves))


def search_budget(kernel: Kernel, text: str, what: str, least: int, most: int) -> Budget:
    """Read a search's depth, check the position is a game position, and make its budget."""
    too_large = f"{what} is too large (at most {most}: deeper searches could never finish)"
    depth = parse_int(text, what, too_large)
    if depth < least:
        raise CommandError(f"{what} must be {least} or more, got {depth}")
    if depth > most:
        raise CommandError(too_large)
    kernel.game_analysis()
    return kernel.budget(depth)


def proof_search(kernel: Kernel, text: str, what: str) -> ProofNumberSearch:
    """Read the mate length of mate_in, mate_search or solution, check the position, and
    make the search."""
    budget = search_budget(kernel, text, what, least=1, most=MAX_MATE_MOVES)
    from kernel.proofnumber import ProofNumberSearch  # imported when first used, to start faster

    return ProofNumberSearch(budget)


def within_budget(search: Callable[[], Result]) -> Result:
    """Run a search; past search.max_nodes, or stopped by a signal, refuse the command with
    the count reached."""
    try:
        return search()
    except (SearchLimitReached, SearchStopped) as error:
        raise CommandError(str(error)) from None


def terminal_progress() -> Progress | None:
    """Return a progress reporter writing to stderr when it is a terminal, else None."""
    import sys

    if sys.stderr is None or not sys.stderr.isatty():
        return None

    def report(depth: int, nodes: int, seconds: float) -> None:
        from kernel.logger import write_stderr

        rate = nodes / seconds if seconds else 0.0
        write_stderr(f"cubemate: searching depth {depth}: {nodes:,} positions, {rate:,.0f}/s")

    return report


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
    CommandSpec("explain", "", cmd_explain),
    CommandSpec("genmove", "[COLOR]", cmd_genmove),
    CommandSpec("get_board", "", cmd_get_board),
    CommandSpec("help", "[COMMAND]", cmd_help),
    CommandSpec("known_command", "NAME", cmd_known_command),
    CommandSpec("legal_moves", "", cmd_legal_moves),
    CommandSpec("level", "[depth N] [nodes N] [time S]", cmd_level),
    CommandSpec("list_commands", "", cmd_list_commands),
    CommandSpec("loadgame", "FILE [PLY] [GAME]", cmd_loadgame),
    CommandSpec("mate_in", "N", cmd_mate_in),
    CommandSpec("mate_search", "[MAX]", cmd_mate_search),
    CommandSpec("name", "", cmd_name),
    CommandSpec("new_game", "[N]", cmd_new_game),
    CommandSpec("perft", "D", cmd_perft),
    CommandSpec("play", "MOVE", cmd_play),
    CommandSpec("printgame", "", cmd_printgame),
    CommandSpec("protocol_version", "", cmd_protocol_version),
    CommandSpec("quit", "", cmd_quit),
    CommandSpec("reg_genmove", "[COLOR]", cmd_reg_genmove),
    CommandSpec("result", "", cmd_result),
    CommandSpec("set_board", "[N] BOARD... [SIDE]", cmd_set_board),
    CommandSpec("showboard", "", cmd_showboard),
    CommandSpec("solution", "N", cmd_solution),
    CommandSpec("status", "", cmd_status),
    CommandSpec("test_get_point_from_xy", "X Y [Z]", cmd_test_get_point_from_xy),
    CommandSpec("time_left", "COLOR TIME STONES", cmd_time_left),
    CommandSpec("time_settings", "MAIN BYO_TIME BYO_STONES", cmd_time_settings),
    CommandSpec("undo", "", cmd_undo),
    CommandSpec("version", "", cmd_version),
)
COMMANDS_BY_NAME = {spec.name: spec for spec in COMMANDS}
assert [spec.name for spec in COMMANDS] == sorted(COMMANDS_BY_NAME), "table out of order"
