"""`savegame FILE`: write the game's record to a file, never over anything but its own.

A new file is written whole under a temporary name in the same folder and then linked to its
name, which fails if something took the name meanwhile: nobody ever sees half a record, and
nothing is replaced by accident. A file that exists is replaced only when it is a record this
engine wrote (its `Program` header says cubemate) of the same game: the same size and start,
and moves that the game now begins with, so that saving again after more moves loses
nothing. What is checked is what was opened: never through a symbolic link, never a FIFO or a
device (opened without blocking), and the name must still lead to that file when it is
replaced.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile

from kernel.config import EngineConfig
from kernel.game import Game
from kernel.move_reading import IllegalMove, read_move
from kernel.notation import format_board
from kernel.record import RecordError, parse_records
from kernel.replay import (
    MAX_RECORD_BYTES,
    ReplayError,
    check_record_file,
    file_name,
    read_at_most,
    start_of,
)
from kernel.rules import Analysis

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
    replace(path, name, record, game, config)


def create(path: str, name: str, record: str) -> None:
    """Write a new file: whole under a temporary name, then linked to its own name."""
    folder = os.path.dirname(path) or "."
    try:
        descriptor, temporary = tempfile.mkstemp(dir=folder, prefix=".savegame-", suffix=".tmp")
    except OSError as error:
        raise SaveError(f"cannot write {name}: {error.strerror or error}") from None
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            file.write(record)
            os.fchmod(file.fileno(), 0o666 & ~current_umask())
        os.link(temporary, path)
    except FileExistsError:
        raise SaveError(f"{name} appeared while it was written; nothing was changed") from None
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
    """Replace a file that holds this engine's record of this game with the longer record."""
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
        data = read_at_most(descriptor, MAX_RECORD_BYTES + 1)
    finally:
        os.close(descriptor)
    check_same_game(name, data, game, config)
    folder = os.path.dirname(path) or "."
    try:
        descriptor, temporary = tempfile.mkstemp(dir=folder, prefix=".savegame-", suffix=".tmp")
    except OSError as error:
        raise SaveError(f"cannot write {name}: {error.strerror or error}") from None
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            file.write(record)
            os.fchmod(file.fileno(), stat.S_IMODE(status.st_mode))
        now = os.lstat(path)
        if (now.st_dev, now.st_ino) != (status.st_dev, status.st_ino):
            raise SaveError(f"{name} was replaced while it was read; nothing was changed")
        os.replace(temporary, path)
    except OSError as error:
        raise SaveError(f"cannot write {name}: {error.strerror or error}") from None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(temporary)


def check_same_game(name: str, data: bytes, game: Game, config: EngineConfig) -> None:
    """Refuse to replace a file unless it is one record, written by this engine, of this game:
    the same start, and moves the game begins with."""
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
    for ply, text in enumerate(record.moves):
        try:
            move = read_move(start, Analysis(start), text)
        except IllegalMove:
            move = None
        if move != played[ply]:
            raise SaveError(
                f"{refusal} a record of this game: its ply {ply + 1} differs; nothing was changed"
            )
        start.play(move)


def plies(count: int) -> str:
    """Count plies in words: `1 ply`, `146 plies`."""
    return f"{count} ply" if count == 1 else f"{count} plies"


def default_program() -> str:
    """The `Program` header savegame writes: the engine and its version."""
    from kernel.version import package_version

    return f"{ENGINE} {package_version()}"
