"""Counting the tables of a folder: for each ending and size, the positions, the share won by
each side, the drawn share, the longest mate and one position of it (docs/tablebases.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from kernel.cube.position import Position
from kernel.tables.tablebase import (
    CUBE,
    DRAW,
    NO_VALUE,
    ORDER,
    SUFFIX,
    TABLE_KINDS,
    Header,
    Table,
    TableError,
    TableFile,
    ValueCheck,
    material_of,
    open_table,
    read_header,
)
from kernel.text.notation import format_board


@dataclass
class Stats:
    """The numbers of one table."""

    name: str
    size: int
    variant: str
    positions: int
    white_wins: int
    black_wins: int
    draws: int
    longest: int  # moves of the longest mate, 0 when none
    example: str  # a position of it, as set_board takes it, side to move last

    def row(self) -> str:
        """One row of the Markdown table of docs/tablebases.md."""

        def share(count: int) -> str:
            return f"{100 * count / self.positions:.1f} %" if self.positions else "-"

        longest = f"{self.longest}" if self.longest else "-"
        example = f"`{self.example}`" if self.example else "-"
        # Another variant's ending is named with it: a folder may hold both KBK's.
        name = self.name if self.variant == CUBE else f"{self.name} ({self.variant})"
        return (
            f"| {name} | {self.size} | {self.positions:,} | {share(self.white_wins)} | "
            f"{share(self.black_wins)} | {share(self.draws)} | {longest} | {example} |"
        )


HEADING = (
    "| ending | n | positions | white wins | black wins | drawn | longest mate | a longest mate |\n"
    "|---|---|---|---|---|---|---|---|"
)


def stats_of(path: Path) -> Stats:
    """Count one table file, checked as it is read, a stretch at a time: what it holds is
    never all in memory (a five-piece table of 5³ is up to 1.4 GB)."""
    header = header_as_named(path)
    table = open_table(path, header.name, header.size, header.variant)
    try:
        white, black = count_values(table)
        wins = [
            value
            for value in white
            if value not in (DRAW, NO_VALUE) and value % 2 == 0 and white[value] + black[value]
        ]
        longest = max(wins, default=0)
        example = ""
        if longest:
            where = Table(header.name, header.size, header.variant, header.numbering)
            example = position_text(where, first_index(table, longest))
    finally:
        table.close()
    positions = header.entries - white[NO_VALUE] - black[NO_VALUE]

    def won(counts: dict[int, int]) -> int:
        return sum(
            count
            for value, count in counts.items()
            if value not in (DRAW, NO_VALUE) and value % 2 == 0
        )

    def lost(counts: dict[int, int]) -> int:
        return sum(
            count for value, count in counts.items() if value not in (DRAW, NO_VALUE) and value % 2
        )

    return Stats(
        header.name,
        header.size,
        header.variant,
        positions,
        won(white) + lost(black),
        won(black) + lost(white),
        white[DRAW] + black[DRAW],
        longest // 2,
        example,
    )


def count_values(table: TableFile) -> tuple[dict[int, int], dict[int, int]]:
    """How often each value stands in the table, white to move (its first half) and black to
    move, its values checked as they go by; raise TableError naming a fault."""
    header = table.header
    # Only the values up to the header's longest distance can be there: counting each of
    # them (bytes.count, a C loop) is three times faster than a Counter over every byte.
    present = [*range(header.longest + 2), NO_VALUE]
    counts = (dict.fromkeys(present, 0), dict.fromkeys(present, 0))
    half = header.entries // 2
    check = ValueCheck(header)
    start = 0
    for stretch in table.spans():
        check.feed(stretch)
        cut = min(len(stretch), max(0, half - start))
        for side, part in ((0, stretch[:cut]), (1, stretch[cut:])):
            if part:
                for value in present:
                    counts[side][value] += part.count(value)
        start += len(stretch)
    table.finish(check)
    return counts


def first_index(table: TableFile, value: int) -> int:
    """The first index that holds a value (one the counts found), read a stretch at a time."""
    start = 0
    for stretch in table.spans():
        found = stretch.find(value)
        if found >= 0:
            return start + found
        start += len(stretch)
    raise TableError(f"{table.path}: changed while it was read")


def position_text(table: Table, index: int) -> str:
    """Write the position of an index as set_board takes it: `N BOARD SIDE`."""
    side, cells = table.decode(index)
    position = Position.empty(table.size)
    geometry = position.geometry
    for letter, cell in zip(table.letters, cells, strict=True):
        x, y, z = table.geometry.xyz(cell)
        position.cells[geometry.get_point_from_cell(x, y, z)] = letter
    board = format_board(Position(table.size, position.cells))
    return f"{table.size} {board} {'w' if side == 0 else 'b'}"


def header_as_named(path: Path) -> Header:
    """Read and check a file's header as the engine reads it: a file named as a table's must
    hold that ending, of that size and variant (a forged header names another, its checksum
    made anew); raise TableError naming the file and both endings otherwise. A file of
    another name is read by its header alone."""
    named = table_file_name(path)
    if named is None:
        return read_header(path)
    name, size, variant = named
    table = open_table(path, name, size, variant)
    table.close()
    return table.header


def table_name(path: Path) -> tuple[str, int] | None:
    """Read a table file's name, `KQKR.n5.cubetb` or `KBUK.n5.raumschach.cubetb`, into its
    ending and size; None when the name is no table's (table_file_name gives the variant)."""
    named = table_file_name(path)
    return None if named is None else (named[0], named[1])


def table_file_name(path: Path) -> tuple[str, int, str] | None:
    """Read a table file's name into its ending, size and variant; None when the name is no
    table's."""
    stem = path.name.removesuffix(SUFFIX)
    variant = CUBE
    base, dot, last = stem.rpartition(".")
    if dot and last in TABLE_KINDS and last != CUBE:
        stem, variant = base, last
    name, _, size = stem.rpartition(".n")
    if path.name == stem or not size.isdigit() or not size.isascii():
        return None
    try:
        material_of(name, variant)
    except ValueError:
        return None
    return name, int(size), variant


def table_files(folder: Path) -> list[Path]:
    """The files of a folder ending in .cubetb: the tables' by size, then pieces, then ending
    as they are built; any other name first (the caller says it is no table's)."""

    def order(path: Path) -> tuple[int, str, int, list[int], str]:
        named = table_file_name(path)
        if named is None:
            return 0, "", 0, [], path.name
        name, size, variant = named
        return size, variant, len(name), [("K" + ORDER).index(kind) for kind in name], ""

    return sorted(folder.glob(f"*{SUFFIX}"), key=order)
