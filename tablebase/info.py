"""What a table file says of itself, as a person reads it (`python -m tablebase info FILE...`):
the ending, size, format version, entries, positions stored, the longest mate, and whether
every check the engine makes holds: the header's, the length's, the values' checksum, their
count of positions and longest mate, and that the file's name is the ending it holds.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kernel.tables.tablebase import Header, TableError, TableFile
from tablebase.stats import table_file_name


@dataclass
class Info:
    """One file: its header where it could be read, and its fault (None: sound)."""

    path: Path
    header: Header | None
    fault: str | None
    #: The file's length in bytes, where it could be opened.
    length: int | None = None

    def line(self) -> str:
        """One line: the header's fields, then `checksums ok` or the fault."""
        verdict = "checksums ok" if self.fault is None else f"FAULTY: {self.fault}"
        header = self.header
        if header is None:
            return f"{self.path}: {verdict}"
        whose = "" if header.variant == "cube" else f" ({header.variant})"
        return (
            f"{self.path}: {header.name} on the {header.size}-cube{whose}, "
            f"version {header.version}{compression_text(header, self.length)}, "
            f"{header.entries:,} entries, {header.positions:,} positions, "
            f"{longest_text(header.longest)}, {verdict}"
        )

    def document(self) -> dict[str, Any]:
        """The same as a JSON object (absent fields None)."""
        header = self.header
        return {
            "file": str(self.path),
            "ending": header.name if header else None,
            "size": header.size if header else None,
            "variant": header.variant if header else None,
            "version": header.version if header else None,
            "entries": header.entries if header else None,
            "positions": header.positions if header else None,
            "longest_plies": header.longest if header else None,
            "longest_moves": mate_moves(header.longest) if header else None,
            "compressed": header.compressed if header else None,
            "values_version": header.numbering if header else None,
            "block_values": header.block_values if header and header.compressed else None,
            "bytes": self.length,
            "ok": self.fault is None,
            "fault": self.fault,
        }


def mate_moves(plies: int) -> int:
    """The moves of the winner in a mate of this many plies, as `stats` counts them: a mate
    in 8 plies with the loser to move is the winner's 4 moves, one in 7 with the winner to
    move as well."""
    return (plies + 1) // 2


def longest_text(plies: int) -> str:
    """The header's longest mate in words: `longest mate 4 moves (8 plies)`, or `no mate`
    for an ending where no side ever mates (its header says 0)."""
    if plies == 0:
        return "no mate"
    moves = mate_moves(plies)
    return f"longest mate {moves} move{'' if moves == 1 else 's'} ({plies} plies)"


def compression_text(header: Header, length: int | None) -> str:
    """What a compressed file's header says of its compression, and its ratio; nothing for a
    plain file."""
    if not header.compressed:
        return ""
    plain = header.plain_header().length
    ratio = f", {plain / length:.2f}× smaller" if length else ""
    return (
        f" (version {header.plain}'s values in {header.blocks:,} deflate blocks of "
        f"{header.block_values:,}{ratio})"
    )


def fault_of(path: Path, error: TableError) -> str:
    """A TableError's message without the file's name it starts with."""
    return str(error).removeprefix(f"{path}: ")


def info_of(path: Path) -> Info:
    """Open and check one file as the engine does; report what it holds and what is wrong."""
    try:
        table = TableFile(path)
    except FileNotFoundError:
        return Info(path, None, "no such file")
    except TableError as error:
        return Info(path, None, fault_of(path, error))
    header = table.header
    length = os.fstat(table.descriptor).st_size
    try:
        named = table_file_name(path)
        if named is not None and named != (header.name, header.size, header.variant):
            name, size, variant = named
            whose = "" if variant == "cube" else f" ({variant})"
            return Info(
                path,
                header,
                f"named {name} on the {size}-cube{whose}, holds another ending",
                length,
            )
        table.check_values()
    except TableError as error:
        return Info(path, header, fault_of(path, error), length)
    finally:
        table.close()
    return Info(path, header, None, length)
