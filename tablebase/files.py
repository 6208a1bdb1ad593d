"""Writing a table's file: the header of kernel/tablebase.py, then the values, written to a
temporary name beside it and renamed once complete, so that a file of the final name is
always whole (an interrupted build leaves at most the temporary one, which the next removes).
"""

from __future__ import annotations

import os
import zlib
from pathlib import Path

from kernel.tablebase import NO_VALUE, Header, Table, file_name


def longest_plies(values: bytes) -> int:
    """The longest distance to mate of a table, in plies (0 when nothing is decided)."""
    return max((value - 1 for value in set(values) if 0 < value < NO_VALUE), default=0)


def write_table(folder: Path, table: Table, values: bytes) -> Path:
    """Write a table's file into `folder` and return its path."""
    path = folder / file_name(table.name, table.size)
    temporary = path.with_name(path.name + ".part")
    header = Header(
        table.size,
        table.name,
        len(values),
        len(values) - values.count(NO_VALUE),
        longest_plies(values),
        zlib.crc32(values),
    )
    with temporary.open("wb") as file:
        file.write(header.pack())
        file.write(values)
        file.flush()
        os.fsync(file.fileno())
    os.replace(temporary, path)
    return path
