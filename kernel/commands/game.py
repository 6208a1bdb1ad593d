"""Commands of a game: new_game, play, undo, result, printgame, savegame, loadgame
(docs/protocol.md, "Playing and searching" and "A whole game").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kernel.commands.arguments import (
    read_count,
    read_size,
)
from kernel.commands.session import Session, variant_size
from kernel.cube.game import UNDECIDED
from kernel.cube.variants import VARIANTS, UnknownVariant, Variant, variant_named
from kernel.interrupt import ReadStopped
from kernel.protocol import CommandError, shorten
from kernel.text.move_reading import IllegalMove, could_be_read, read_move
from kernel.text.notation import (
    NotationError,
    parse_move_text,
)
from kernel.text.short_notation import unreadable

if TYPE_CHECKING:
    pass


def home_expanded(path: str) -> str:
    """A file name with a leading `~` or `~user` read as a shell reads it (a person types
    `savegame ~/g.txt` at the terminal, where no shell expands it first)."""
    import os.path

    return os.path.expanduser(path)


def cmd_loadgame(kernel: Session, args: list[str]) -> str:
    """Replay a game from a record file.

    Arguments: FILE (one word; `~/` is the home folder), then optionally PLY, how many of its
    moves to replay (all when left out or `end`), then optionally GAME, which record of the
    file (1 for the first).
    Fails: the file cannot be read, is not text, is too large or is not a record; the record
    asked for is not there; its size is outside the accepted range; its start position or a
    move is refused (the ply, the line and the reason are named); SIGUSR1 stopped the read.
    Nothing changes then.
    Returns: nothing.
    """
    from kernel.records.replay import ReplayError, file_name, load_game  # imported when first used

    ply = None if len(args) < 2 or args[1] == "end" else read_count(args[1], "PLY", 0)
    game_number = 1 if len(args) < 3 else read_count(args[2], "GAME", 1)
    try:
        game = load_game(home_expanded(args[0]), ply, game_number, kernel.config)
    except ReplayError as error:
        raise CommandError(str(error)) from None
    except ReadStopped as error:
        raise CommandError(f"loadgame of {file_name(home_expanded(args[0]))} {error}") from None
    kernel.set_game(game)
    return ""


def cmd_new_game(kernel: Session, args: list[str]) -> str:
    """Start a game from the start position of docs/rules.md.

    Arguments: optionally N, the board size (the current size when left out, or the
    variant's own), then optionally VARIANT, the rules (the current ones when left out):
    `new_game 5 raumschach`, `new_game raumschach`.
    Fails: N is not a whole number, is outside 2 ... max size, or has no start position (2);
    VARIANT is unknown, or not played on that size.
    Returns: nothing.
    """
    from kernel.cube.start import NoStartPosition, start_position

    variant = kernel.position.variant
    size_text: str | None = args[0] if args else None
    if len(args) == 2:
        variant = read_variant(args[1])
    elif args and args[0].isalpha():
        if args[0].lower() not in VARIANTS:
            known = ", ".join(VARIANTS)
            raise CommandError(
                f"N must be a whole number or VARIANT one of {known}, got {shorten(args[0])}"
            )
        variant, size_text = variant_named(args[0]), None
    if size_text is not None:
        size = read_size(kernel, size_text)
    elif variant.allows_size(kernel.position.size):
        size = kernel.position.size
    else:
        size = variant_size(variant)
    try:
        position = start_position(size, variant)
    except NoStartPosition as error:
        raise CommandError(f"no game on a board of size {size}: {error}") from None
    kernel.set_position(position)
    return ""


def cmd_variant(kernel: Session, args: list[str]) -> str:
    """Name the rules played, or start a game of other rules (xboard's word).

    Arguments: optionally NAME, a variant of docs/rules.md ("Variants"): cube or raumschach.
    With NAME, a new game of that variant starts from its start position, on the current
    board size if the variant is played on it, else on its own (Raumschach's 5); without,
    nothing changes.
    Fails: NAME is unknown (the known ones are listed).
    Returns: the variant's name, without NAME; nothing with it.
    """
    if not args:
        return kernel.position.variant.name
    variant = read_variant(args[0])
    return cmd_new_game(kernel, [variant.name])


def read_variant(name: str) -> Variant:
    """Read a variant's name, or refuse it listing those there are."""
    try:
        return variant_named(name)
    except UnknownVariant as error:
        raise CommandError(str(error)) from None


def cmd_play(kernel: Session, args: list[str]) -> str:
    """Play a move for the side to move, which then passes to the other side.

    Arguments: MOVE as legal_moves writes it, or short; the letter may be left out, `-` and
    `x` are interchangeable between two whole cells, and levels may be decimal or letters
    (docs/rules.md, "Reading").
    Fails: the move cannot be read, names a cell off the board or the same cell twice, or is
    not legal (no piece of the side to move there, the piece cannot move so, the king would be
    left in check, the letter does not match the piece); no white king; the side not to move
    is in check.
    Returns: nothing.
    """
    # A move that cannot be read is refused before the position is asked about.
    if not could_be_read(args[0]):
        raise CommandError(f"illegal move: {unreadable(args[0])}")
    analysis = kernel.game_analysis()
    if not analysis.has_legal_move():
        raise CommandError(f"game over: {kernel.outcome()}")
    try:
        move = read_move(kernel.position, analysis, args[0])
    except IllegalMove as error:
        raise CommandError(str(error)) from None
    kernel.play(move)
    if kernel.person_notation is not None:
        kernel.person_notation = written_notation(args[0])
    return ""


def written_notation(text: str) -> str:
    """Tell whether a move was written long (both cells, `Nb1(I)-c3(I)`) or short."""
    try:
        parse_move_text(text.rstrip("+#!?"))
    except NotationError:
        return "short"
    return "long"


def cmd_printgame(kernel: Session, args: list[str]) -> str:
    """Write the record of the game since the position was set.

    Arguments: optionally `short` (the default: Nc3(I)) or `long` (Nb1(I)-c3(I)), how the
    moves are written.
    Fails: the argument is neither.
    Returns: the record of docs/rules.md ("Game records"), starting on the line after `=`.
    """
    return "\n" + game_text(kernel, read_notation(args)).rstrip("\n")


def read_notation(args: list[str]) -> str:
    """Read printgame's optional notation word."""
    notation = args[0] if args else "short"
    if notation not in ("short", "long"):
        raise CommandError(f"NOTATION must be short or long, got {shorten(notation)}")
    return notation


def game_text(kernel: Session, notation: str, **extra: str) -> str:
    """The record of the game as printgame writes it, with any extra headers."""
    from kernel.records.replay import game_record  # imported when first used, to start faster

    outcome = kernel.outcome() if kernel.is_game() else None
    short = notation == "short"
    record: str = game_record(kernel.game, outcome, kernel.config.empty_cell, short, **extra)
    return record


def cmd_savegame(kernel: Session, args: list[str]) -> str:
    """Write the record of the game to a file, as printgame writes it.

    Arguments: FILE (one word), relative to the engine's working folder; `~/` is the home
    folder, as a shell reads it.
    Fails: FILE exists and is not a record savegame wrote of this game (the same start, and
    moves this game begins with), is a symbolic link, a folder, a FIFO or a device, belongs to
    another user, or cannot be written; another engine is saving it; it holds a Result
    written by hand that this game's further moves would lose; SIGUSR1 stopped its check.
    Nothing is changed then. Saving again keeps what FILE holds that the engine did not write.
    Returns: nothing.
    """
    from kernel.records.savegame import PROGRAM, SaveError, default_program, save_game

    record = game_text(kernel, "short", **{PROGRAM: default_program()})
    try:
        save_game(home_expanded(args[0]), record, kernel.game, kernel.config)
    except SaveError as error:
        raise CommandError(str(error)) from None
    return ""


def cmd_result(kernel: Session, args: list[str]) -> str:
    """Tell how the game stands.

    Arguments: none.
    Fails: no white king; the side not to move is in check.
    Returns: * while the game goes on; else the score and why, in chess words:
    1-0 (checkmate), 0-1 (checkmate), 1/2-1/2 (stalemate), 1/2-1/2 (threefold repetition),
    1/2-1/2 (fifty-move rule), 1/2-1/2 (insufficient material).
    """
    outcome = kernel.outcome()
    return UNDECIDED if outcome is None else str(outcome)


def cmd_undo(kernel: Session, args: list[str]) -> str:
    """Take back the last move played.

    Arguments: none.
    Fails: no move was played since the position was set ("cannot undo").
    Returns: nothing.
    """
    if not kernel.game.plies:
        raise CommandError("cannot undo")
    kernel.undo()
    return ""
