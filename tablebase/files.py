"""Writing a table's file: the header of kernel/tables/tablebase.py, then the values, written to a
temporary name beside it (`.part`) and put in place once complete, so that a file of the final
name is always whole. The build holds the folder's lock (tablebase/build.py) while it writes,
so a `.part` of another build is never touched; one left by a build that was stopped is its
own and removed. Nothing is ever put over a file of a table's name: a link, a file appearing
meanwhile, anything, is refused.
"""

from __future__ import annotations

import contextlib
import os
import stat
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from kernel.tables.tablebase import NO_VALUE, Header, Table, file_name, version_for

APPEARED = "appeared while the table was written; left as it is"


class WriteError(Exception):
    """A table could not be written: the message names the file and why; nothing is left."""


def longest_plies(values: bytes | bytearray) -> int:
    """The longest distance to mate of a table, in plies (0 when nothing is decided)."""
    return max((value - 1 for value in set(values) if 0 < value < NO_VALUE), default=0)


def header_of(table: Table, values: bytes | bytearray) -> Header:
    """The header of a table's values."""
    return Header(
        table.size,
        table.name,
        len(values),
        len(values) - values.count(NO_VALUE),
        longest_plies(values),
        zlib.crc32(values),
        version_for(table.variant, table.compact),
        table.variant,
    )


def remove_leftover(temporary: Path) -> None:
    """Remove a `.part` a stopped build left, but nothing else of that name."""
    try:
        status = os.lstat(temporary)
    except FileNotFoundError:
        return
    if not stat.S_ISREG(status.st_mode):
        raise WriteError(f"{temporary}: not a file a build wrote; remove it to build the table")
    temporary.unlink()


def write_table(folder: Path, table: Table, values: bytes | bytearray) -> Path:
    """Write a table's file into `folder` and return its path; raise WriteError, leaving
    nothing behind, when it cannot be written whole (a full disk, a file put at its name)."""
    path = folder / file_name(table.name, table.size, table.variant)

    def write(file: BinaryIO) -> None:
        file.write(header_of(table, values).pack())
        file.write(values)

    return write_whole(path, write)


def write_whole(path: Path, write: Callable[[BinaryIO], None]) -> Path:
    """Write a file through `write` under a temporary name beside `path` (`.part`), then,
    once on disk, give it its name; raise WriteError, leaving nothing behind, when it cannot
    be written whole or something is at `path` by then. The caller holds the folder's lock,
    so a `.part` found is a stopped writer's, removed."""
    temporary = path.with_name(path.name + ".part")
    remove_leftover(temporary)
    created = False
    try:
        descriptor = os.open(
            temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644
        )
        created = True
        with os.fdopen(descriptor, "wb") as file:
            write(file)
            file.flush()
            os.fsync(file.fileno())
        put_in_place(temporary, path)
    except OSError as error:
        raise WriteError(f"{path}: cannot write: {error.strerror or error}") from None
    finally:
        if created:
            with contextlib.suppress(FileNotFoundError):
                temporary.unlink()
    return path


def put_in_place(temporary: Path, path: Path) -> None:
    """Give the written file its name, unless something has that name by now: a hard link
    fails rather than replace (os.replace would not); where links are not had, look first."""
    try:
        os.link(temporary, path, follow_symlinks=False)
    except FileExistsError:
        raise WriteError(f"{path}: {APPEARED}") from None
    except OSError:
        if os.path.lexists(path):
            raise WriteError(f"{path}: {APPEARED}") from None
        os.replace(temporary, path)
