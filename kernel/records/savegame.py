"""`savegame FILE`: write the game's record to a file, never over anything but its own.

A new file is written whole under a temporary name in the same folder and then linked to its
name, which fails if something took the name meanwhile: nobody ever sees half a record, and
nothing is replaced by accident. A file that exists is replaced only when it is a record this
engine wrote (its `Program` header says cubemate) of the same game: the same size and start,
and moves that the game now begins with, so that saving again after more moves loses
nothing. What is checked is what was opened: never through a symbolic link, never a FIFO or a
device (opened without blocking), and the name must still lead to that file when it is
replaced.

Two engines saving one file at once: the file opened is locked (flock, exclusive, without
waiting) from before it is read until its replacement is in place, so the check and the
replacement are one step to every other savegame: the second is refused at once, and one
that opened the file before the first replaced it finds, once it holds the lock, that the
name leads elsewhere, and is refused too. The lock is the kernel's, on the file itself: it
goes with the descriptor, so an engine that dies holds nothing and leaves no lock file.

What the file holds that the engine did not write is kept (docs/rules.md, "Saving again"):
its comments, blank lines and headers, each line as written; its moves in the notation they
were written in; a Result the engine would not have written for its moves.
"""

from __future__ import annotations

import codecs
import contextlib
import errno
import fcntl
import os
import stat
import tempfile
from collections.abc import Iterator

from kernel.config import EngineConfig
from kernel.cube.game import UNDECIDED, Game
from kernel.cube.position import NO_POINT, WHITE
from kernel.cube.rules import Analysis, is_game_position
from kernel.interrupt import ReadStopped, stop_read_if_asked
from kernel.records.record import GameRecord, RecordError, parse_records, rewritten
from kernel.records.replay import (
    MAX_RECORD_BYTES,
    ReplayError,
    check_record_file,
    file_name,
    read_at_most,
    start_of,
)
from kernel.text.move_reading import IllegalMove, read_move
from kernel.text.notation import format_board

#: The header that marks a record this engine's savegame wrote, and its value's first word.
PROGRAM = "Program"
ENGINE = "cubemate"


class SaveError(ValueError):
    """A record that cannot be saved where asked; the message names the file and why."""


def save_game(path: str, record: str, game: Game, config: EngineConfig) -> None:
    """Write `record`, the record of `game`, to the file at `path` (docs/protocol.md)."""
    name = file_name(path)
    try:
        status = os.lstat(path)
    except FileNotFoundError:
        create(path, name, record)
        return
    except OSError as error:
        raise SaveError(f"cannot write {name}: {error.strerror or error}") from None
    if stat.S_ISLNK(status.st_mode):
        raise SaveError(f"{name} is a symbolic link: savegame writes only to a file itself")
    try:
        replace(path, name, record, game, config)
    except ReadStopped as error:
        # SIGUSR1 (Ctrl-C at a terminal) while a long record was read: nothing is written
        # before the check ends, so there is nothing to undo.
        raise SaveError(f"savegame of {name} {error}; nothing was changed") from None


def create(path: str, name: str, record: str) -> None:
    """Write a new file: whole under a temporary name, then linked to its own name."""
    with written_beside(path, name, record, 0o666 & ~current_umask()) as temporary:
        try:
            os.link(temporary, path)
        except FileExistsError:
            raise SaveError(f"{name} appeared while it was written; nothing was changed") from None


@contextlib.contextmanager
def written_beside(path: str, name: str, text: str, mode: int) -> Iterator[str]:
    """Write the text whole, as it is, to a new temporary file in the folder of `path` with
    the permissions `mode`, and yield its name for the caller to put in place; remove it
    after. An OSError, in the writing or in the caller's block, is refused naming the file."""
    folder = os.path.dirname(path) or "."
    try:
        descriptor, temporary = tempfile.mkstemp(dir=folder, prefix=".savegame-", suffix=".tmp")
    except OSError as error:
        raise SaveError(f"cannot write {name}: {error.strerror or error}") from None
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8", newline="") as file:
            file.write(text)
            os.fchmod(file.fileno(), mode)
        yield temporary
    except OSError as error:
        raise SaveError(f"cannot write {name}: {error.strerror or error}") from None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temporary)


def current_umask() -> int:
    """The process's umask (read by setting it and setting it back: nothing else runs)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def replace(path: str, name: str, record: str, game: Game, config: EngineConfig) -> None:
    """Replace a file that holds this engine's record of this game with the longer record,
    keeping what the file holds that the engine did not write; locked throughout."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC | os.O_NOFOLLOW
    try:
        descriptor = os.open(path, flags)
    except OSError as error:
        raise SaveError(f"cannot read {name}: {error.strerror or error}") from None
    try:
        try:
            status = os.fstat(descriptor)
            check_record_file(name, status)
        except ReplayError as error:
            raise SaveError(f"{error}; savegame replaces only a record it wrote") from None
        if status.st_uid != os.getuid():
            raise SaveError(f"{name} belongs to another user; nothing was changed")
        lock(descriptor, name)
        still_there(path, name, status)
        data = read_at_most(descriptor, MAX_RECORD_BYTES + 1)
        text = kept_and_saved(name, data, record, game, config)
        write_in_place(path, name, text, status)
    finally:
        os.close(descriptor)  # which lets the lock go


def lock(descriptor: int, name: str) -> None:
    """Hold the file opened against every other savegame until it is closed, or refuse at
    once when another holds it: its check and replacement are then under way."""
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as error:
        if error.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            raise SaveError(
                f"{name} is being saved by another engine; nothing was changed"
            ) from None
        raise SaveError(f"cannot lock {name}: {error.strerror or error}") from None


def still_there(path: str, name: str, status: os.stat_result) -> None:
    """Refuse when the name no longer leads to the file opened (and locked): another writer
    replaced it meanwhile."""
    try:
        now = os.lstat(path)
    except OSError:
        now = None
    if now is None or (now.st_dev, now.st_ino) != (status.st_dev, status.st_ino):
        raise SaveError(f"{name} was replaced while it was read; nothing was changed")


def write_in_place(path: str, name: str, text: str, status: os.stat_result) -> None:
    """Write the text whole under a temporary name, with the file's permissions, and put it
    in the file's place, if the name still leads to the file (locked by the caller)."""
    with written_beside(path, name, text, stat.S_IMODE(status.st_mode)) as temporary:
        still_there(path, name, status)
        os.replace(temporary, path)


def kept_and_saved(name: str, data: bytes, record: str, game: Game, config: EngineConfig) -> str:
    """The text that replaces a file: its own lines kept, the game's record written into
    them (docs/rules.md, "Saving again"); refuse what would lose a Result written by hand."""
    old, result_then = check_same_game(name, data, game, config)
    (ours,) = parse_records(record)
    changed = {PROGRAM: ours.headers[PROGRAM]}
    extra = len(ours.moves) - len(old.moves)
    if old.result == result_then:
        changed["Result"] = ours.result  # what the engine wrote: the result now
    elif extra:
        raise SaveError(
            f"{name} says Result: {old.result}, which savegame did not write, and this game"
            f" has {extra} {'ply' if extra == 1 else 'plies'} more: saving would lose it;"
            " nothing was changed"
        )
    added = {key: value for key, value in ours.headers.items() if key not in old.headers}
    text = data.decode("utf-8-sig")
    bom = "\ufeff" if data.startswith(codecs.BOM_UTF8) else ""
    return bom + rewritten(text, changed, added, ours.moves)


def check_same_game(
    name: str, data: bytes, game: Game, config: EngineConfig
) -> tuple[GameRecord, str]:
    """Refuse to replace a file unless it is one record, written by this engine, of this game:
    the same start, and moves the game begins with. Return the record and the Result the
    engine writes for its moves."""
    refusal = f"{name} exists and is not"
    try:
        text = data.decode("utf-8-sig")
        if len(data) > MAX_RECORD_BYTES:
            raise ValueError("too large")
        records = parse_records(text)
    except (UnicodeDecodeError, ValueError, RecordError):
        raise SaveError(f"{refusal} a game record; nothing was changed") from None
    if len(records) != 1:
        raise SaveError(f"{refusal} one record but {len(records)}; nothing was changed")
    (record,) = records
    if record.headers.get(PROGRAM, "").split()[:1] != [ENGINE]:
        raise SaveError(f"{refusal} a record cubemate's savegame wrote; nothing was changed")
    try:
        start = start_of(record, name, config)
    except ReplayError:
        raise SaveError(f"{refusal} a record of this game; nothing was changed") from None
    ours = game.start_position()
    if (start.variant.name, start.size, start.side, format_board(start, "#")) != (
        ours.variant.name,
        ours.size,
        ours.side,
        format_board(ours, "#"),
    ):
        raise SaveError(f"{refusal} a record of this game (another start); nothing was changed")
    played = game.moves
    if len(record.moves) > len(played):
        raise SaveError(
            f"{refusal} a record of this game: it holds {plies(len(record.moves))}, this game"
            f" has {len(played)}; nothing was changed"
        )
    # The game as it stood at the record's last move: the Result savegame wrote then.
    then = Game(start, game.plies[0].quiet_plies if game.plies else game.quiet_plies)
    for ply, text in enumerate(record.moves):
        # A record of a million plies takes a minute to check: it can be stopped.
        stop_read_if_asked(f"at ply {ply + 1} of {len(record.moves)}")
        try:
            move = read_move(then.position, Analysis(then.position), text)
        except IllegalMove:
            move = None
        if move != played[ply]:
            raise SaveError(
                f"{refusal} a record of this game: its ply {ply + 1} differs; nothing was changed"
            )
        then.play(move)
    return record, result_of(then)


def result_of(game: Game) -> str:
    """The Result a record of the game writes now, as printgame writes it."""
    position = game.position
    if position.kings[WHITE] == NO_POINT or not is_game_position(position):
        return UNDECIDED
    outcome = game.outcome()
    return UNDECIDED if outcome is None else str(outcome)


def plies(count: int) -> str:
    """Count plies in words: `1 ply`, `146 plies`."""
    return f"{count} ply" if count == 1 else f"{count} plies"


def default_program() -> str:
    """The `Program` header savegame writes: the engine and its version."""
    from kernel.version import package_version

    return f"{ENGINE} {package_version()}"
