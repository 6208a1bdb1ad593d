"""Compressing tables (`python -m tablebase compress SOURCE --out TARGET`; docs/tablebases.md,
"Version 4: compressed blocks"): each table file of a folder, of version 1, 2 or 3, written
into another folder under its own name as version 4, its values cut into blocks compressed one
by one. The source is checked as it is read (the values' checksum, positions and longest
mate), the file written is read back and checked whole before it is kept, and it is given its
name only once on disk (tablebase/files.py). Nothing at a name in the target is replaced: a
compressed file of the same table there is checked and kept (a run stopped and started again
goes on), anything else stops that table, named.
"""

from __future__ import annotations

import os
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from kernel.tables.blocks import (
    BLOCK_ENTRY,
    DEFAULT_VALUES,
    DEFLATE,
    INDEX_CHECK,
    block_count,
    check_block_values,
    index_length,
    pack_block,
)
from kernel.tables.tablebase import (
    BLOCKS_VERSION,
    HEADER_V4_SIZE,
    Header,
    TableError,
    TableFile,
    ValueCheck,
)
from tablebase.build import BuildError, FolderLock
from tablebase.files import WriteError, write_whole
from tablebase.stats import table_file_name, table_files

Report = Callable[[str], None]


class CompressError(Exception):
    """A table could not be compressed: the message names the file and why."""


@dataclass(frozen=True)
class Compressed:
    """One table compressed, or found compressed already and kept."""

    path: Path
    kept: bool
    plain_bytes: int
    packed_bytes: int
    seconds: float

    def line(self) -> str:
        """What was done, as the command reports it."""
        what = "kept (compressed already)" if self.kept else f"written in {self.seconds:.1f} s"
        return (
            f"{self.path}: {self.plain_bytes:,} → {self.packed_bytes:,} bytes "
            f"({self.plain_bytes / self.packed_bytes:.2f}×), {what}"
        )


def compressed_header(plain: Header, block_values: int) -> Header:
    """The version-4 header of a plain file's values, V values a block."""
    return Header(
        plain.size,
        plain.name,
        plain.entries,
        plain.positions,
        plain.longest,
        plain.checksum,
        BLOCKS_VERSION,
        plain.variant,
        plain.version,
        DEFLATE,
        block_values,
    )


def compress_folder(
    source: Path,
    target: Path,
    block_values: int = DEFAULT_VALUES,
    report: Report | None = None,
) -> tuple[list[Compressed], list[str]]:
    """Compress every table of `source` into `target` (made if missing); return what was
    done and the faults of the files left out (names no table's, unusable files, names taken
    in the target). Raise CompressError when nothing can be done at all."""
    fault = check_block_values(block_values)
    if fault is not None:
        raise CompressError(f"--block {block_values}: {fault}")
    if not source.is_dir():
        raise CompressError(f"{source}: not a folder")
    files = table_files(source)
    if not files:
        raise CompressError(f"{source}: no tables (files named ENDING.nN[.VARIANT].cubetb)")
    target.mkdir(parents=True, exist_ok=True)
    if os.path.samefile(source, target):
        raise CompressError(
            f"{target}: the source folder itself; the compressed files take the tables' "
            f"names, so --out must be another folder"
        )
    done: list[Compressed] = []
    faults: list[str] = []
    try:
        with FolderLock(target, report):
            for path in files:
                try:
                    result = compress_file(path, target, block_values)
                except (CompressError, TableError, WriteError) as error:
                    faults.append(str(error))
                    if report is not None:
                        report(f"{error}; left out")
                    continue
                done.append(result)
                if report is not None:
                    report(result.line())
    except BuildError as error:
        raise CompressError(str(error)) from None
    return done, faults


def compress_file(path: Path, target: Path, block_values: int = DEFAULT_VALUES) -> Compressed:
    """Compress one table file into the folder `target`, under its own name; raise
    CompressError, TableError or WriteError naming the file (nothing left behind)."""
    named = table_file_name(path)
    if named is None:
        raise CompressError(f"{path}: not a table's name (ENDING.nN[.VARIANT].cubetb)")
    try:
        table = TableFile(path)
    except FileNotFoundError:
        raise CompressError(f"{path}: no such file") from None
    try:
        plain = table.header
        if plain.compressed:
            raise CompressError(f"{path}: compressed already (format version {plain.version})")
        if named != (plain.name, plain.size, plain.variant):
            raise CompressError(
                f"{path}: holds {plain.name} on the {plain.size}-cube, not {named[0]}"
            )
        header = compressed_header(plain, block_values)
        destination = target / path.name
        if os.path.lexists(destination):
            return keep(destination, header, os.fstat(table.descriptor).st_size)
        began = time.perf_counter()
        write_whole(destination, lambda file: write_blocks(file, table, header))
        seconds = time.perf_counter() - began
        plain_bytes = os.fstat(table.descriptor).st_size
    finally:
        table.close()
    check_written(destination, header)
    return Compressed(destination, False, plain_bytes, os.stat(destination).st_size, seconds)


def write_blocks(file: BinaryIO, table: TableFile, header: Header) -> None:
    """Write a compressed file: the header, room for the block index, the blocks as the
    source's values are read and checked, then the block index; raise TableError when the
    source's values fail their checks (the caller removes what was written)."""
    blocks = block_count(header.entries, header.block_values)
    file.write(header.pack())
    file.write(bytes(index_length(blocks)))
    entries = bytearray()
    check = ValueCheck(table.header)
    for stretch in table.spans():  # a multiple of any block's values but the last
        check.feed(stretch)
        for start in range(0, len(stretch), header.block_values):
            values = stretch[start : start + header.block_values]
            data = pack_block(values)
            file.write(data)
            entries += BLOCK_ENTRY.pack(len(data), zlib.crc32(values))
    table.finish(check)
    file.seek(HEADER_V4_SIZE)
    file.write(entries + INDEX_CHECK.pack(zlib.crc32(entries)))


def check_written(path: Path, header: Header) -> None:
    """Read a written file back as the engine does, every block checked, and its header
    against the one meant; raise CompressError otherwise (the file is then removed: it is
    this command's own)."""
    try:
        written = TableFile(path)
        try:
            if written.header != header:
                raise TableError(f"{path}: its header is not the one written")
            written.check_values()
        finally:
            written.close()
    except TableError as error:
        path.unlink()
        raise CompressError(f"{error} (read back after writing; removed)") from None


def keep(path: Path, header: Header, plain_bytes: int) -> Compressed:
    """A file already at the compressed table's name: kept when it is that table compressed
    and sound (any block size), refused otherwise, left as it is."""
    try:
        found = TableFile(path)
    except (FileNotFoundError, TableError) as error:
        why = reason(path, error)
        raise CompressError(f"{path}: {why}; not this command's, left as it is") from None
    try:
        if found.header.plain_header() != header.plain_header() or not found.header.compressed:
            raise CompressError(
                f"{path}: is there and holds other than {header.name} compressed; left as it is"
            )
        found.check_values()
    except TableError as error:
        raise CompressError(f"{path}: {reason(path, error)}; left as it is") from None
    finally:
        found.close()
    return Compressed(path, True, plain_bytes, os.stat(path).st_size, 0.0)


def reason(path: Path, error: Exception) -> str:
    """An error's message without the file's name it starts with."""
    return str(error).removeprefix(f"{path}: ")
