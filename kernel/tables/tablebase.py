"""Endgame tables: what the engine needs to read them (docs/tablebases.md).

A table holds one ending (`KQKR`: white's king and queen against black's king and rook) on
one board size: for every position of it, both sides to move, one byte, the value for the
side to move. The generator (the package tablebase/) writes them; this module names endings,
indexes positions, reads and checks the files (regular files only, the header against itself
and the file's length before anything is allocated, every version through its own reader),
and probes them a byte at a time, never from a file changed since it was checked.

- **Material.** Each side's pieces after its king, strongest first (Q R B U N); the stronger
  side is white's in the name (more pieces, or the stronger first piece), so `KRKQ` is
  probed as `KQKR` with the colours exchanged: no pawns, so the rules do not see colour.
- **Variants.** The cube's tables and Raumschach's (its bishop on the flat diagonals, the
  unicorn U on the triagonals) are indexed alike: pawnless, both keep the 48 symmetries. A
  table says its variant in its file's name (`KBUK.n5.raumschach.cubetb`) and, from format
  version 2, in its header; the cube's are version 1, as they always were.
- **Version 3** (`build --compact`, issue 52): version 2's header, the positions numbered by
  kernel/tables/compact.py's smaller index (the kings as a pair, identical pieces as a
  set); a Table's `version` chooses its index.
- **Version 4** (`python -m tablebase compress`, issue 52): a plain file's header and values,
  the values compressed in blocks that a probe reads one at a time (kernel/tables/blocks.py);
  its header says the plain version, whose index numbers the positions.
- **Index.** The pieces in a fixed order (the kings, then white's, then black's); each cell
  numbered x + n (y + n z); the side to move first, then the white king's cell among the
  region cells, then every other piece's cell: `((side * R + region) * N + c1) * N + ...`.
- **Symmetry.** The cube's 48 symmetries (6 orders of the axes times 8 reflections) keep the
  rules, so a position is stored in one form: the symmetry that brings the white king into
  the region x <= y <= z <= (n - 1) // 2 (as Syzygy and Nalimov canonicalise by the white
  king), and where several do (the king on a diagonal or a middle plane), the one giving the
  smallest index, identical pieces sorted by cell. Every other index of the file holds
  NO_VALUE, like a position no game reaches.
- **Values.** 0 a draw; 1 + p a decided position, p plies to mate: even p is lost (`loss
  p/2`, 0: checkmated now), odd p won (`win (p + 1)/2`, 1: mates with its move); 255 no
  value (the side not to move in check, two pieces on one cell, or a symmetric copy).
"""

from __future__ import annotations

import errno
import os
import stat
import struct
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from itertools import permutations, product
from pathlib import Path

from kernel.cube.board import geometry_for as kernel_geometry_for
from kernel.cube.position import WHITE, Move, Position
from kernel.tables.blocks import (
    BLOCK_FIELDS,
    CODECS,
    SHARED_CACHE,
    BlockCache,
    BlockFault,
    BlockIndex,
    block_count,
    check_block_values,
    index_length,
    unpack_block,
)
from kernel.tables.compact import compact_decode, compact_entries, compact_index

#: A file's first bytes, and its layout's version: every version starts with both (PREFIX).
MAGIC = b"CUBETB\r\n"
FORMAT_VERSION = 1
#: Version 2: version 1 with the variant's name after the values' checksum (the cube's
#: tables stay version 1, so that every reader of version 1 reads them still and refuses
#: another variant's by its version, never reading Raumschach's bishop as the cube's).
VARIANT_VERSION = 2
#: Version 3: version 2's header, the positions numbered by the compact index (issue 52;
#: kernel/tables/compact.py): the kings as a pair apart, identical pieces as a set.
COMPACT_VERSION = 3
#: Version 4: a file of version 1, 2 or 3 with its values compressed in blocks (issue 52;
#: kernel/tables/blocks.py), that version named in the header.
BLOCKS_VERSION = 4
#: The versions whose values are one byte an index, after the header.
PLAIN_VERSIONS = (FORMAT_VERSION, VARIANT_VERSION, COMPACT_VERSION)
PREFIX = struct.Struct("<8sH")
#: Version 1's header (56 bytes, docs/tablebases.md): magic, version, size, piece count,
#: material, entries, game positions, the longest mate in plies, CRC-32 of the values, and
#: CRC-32 of the header before it.
HEADER = struct.Struct("<8sHHH16sQQHI")
HEADER_CHECK = struct.Struct("<I")
HEADER_SIZE = HEADER.size + HEADER_CHECK.size
#: Version 2 adds the variant's name, ASCII padded with NUL bytes, before the header's check.
VARIANT_FIELD = struct.Struct("<16s")
HEADER_V2_SIZE = HEADER.size + VARIANT_FIELD.size + HEADER_CHECK.size
#: Version 4 adds the plain version, the codec and the values a block before the check.
HEADER_V4_SIZE = HEADER.size + VARIANT_FIELD.size + BLOCK_FIELDS.size + HEADER_CHECK.size
#: The suffix of a table's file name: KQKR.n5.cubetb.
SUFFIX = ".cubetb"

DRAW = 0
NO_VALUE = 255
#: The longest distance a byte holds, in plies.
MOST_PLIES = 253
#: The pieces after the king, strongest first: the cube's.
KINDS = "QRBN"
#: Every kind any variant's tables hold, strongest first: the order of names (Raumschach's
#: bishop before its unicorn, as its promotion lists them; the cube has no U).
ORDER = "QRBUN"
#: The variants tables are built for, and the kinds of each (pawnless endings only).
TABLE_KINDS = {"cube": KINDS, "raumschach": ORDER}
CUBE = "cube"
#: Endings of this many pieces, kings included, are the ones tables are built for.
SMALLEST_PIECES, LARGEST_PIECES = 3, 5
#: The board sizes tables are built for.
SMALLEST_SIZE, LARGEST_SIZE = 3, 31


class TableError(Exception):
    """A table that cannot be used: the message names the file and what is wrong."""


# --- material -----------------------------------------------------------------------------


def strength(pieces: str) -> tuple[int, tuple[int, ...]]:
    """Order one side's pieces (after its king, upper case): more pieces, then stronger ones,
    is larger."""
    return len(pieces), tuple(len(ORDER) - ORDER.index(kind) for kind in pieces)


def sort_kinds(pieces: str) -> str:
    """Write one side's pieces strongest first."""
    return "".join(sorted(pieces.upper(), key=ORDER.index))


@cache
def ending_name(white: str, black: str) -> tuple[str, bool]:
    """Name the table of an ending (each side's pieces after its king), and say whether the
    colours are exchanged in it (black's pieces the stronger)."""
    white, black = sort_kinds(white), sort_kinds(black)
    swapped = strength(black) > strength(white)
    if swapped:
        white, black = black, white
    return f"K{white}K{black}", swapped


@cache
def material_of(name: str, variant: str | None = CUBE) -> tuple[str, str]:
    """Read an ending's name, `KQKR`, into each side's pieces after the king: ("Q", "R"); the
    pieces must be the variant's (None: any variant's)."""
    if not name.startswith("K") or name.count("K") != 2:
        raise ValueError(f"not an ending: {name!r}")
    white, black = name[1:].split("K")
    kinds = ORDER if variant is None else TABLE_KINDS[variant]
    if set(white + black) - set(kinds) or ending_name(white, black) != (name, False):
        raise ValueError(f"not an ending as tables name them: {name!r}")
    return white, black


def variant_of_tables(name: str) -> str:
    """Check a variant's name for tables: one of TABLE_KINDS; raise ValueError otherwise."""
    if name not in TABLE_KINDS:
        raise ValueError(
            f"no tables for the variant {name!r} (tables are built for {', '.join(TABLE_KINDS)})"
        )
    return name


def endings(pieces: int, variant: str = CUBE) -> list[str]:
    """List every ending of this many pieces, kings included, in the order they are built."""
    found: list[str] = []
    others = pieces - 2
    kinds = TABLE_KINDS[variant]
    for split in range(others + 1):
        for white in combinations_of(others - split, kinds):
            for black in combinations_of(split, kinds):
                name, swapped = ending_name(white, black)
                if not swapped and name not in found:
                    found.append(name)
    return found


def combinations_of(count: int, kinds: str = KINDS) -> list[str]:
    """List every multiset of `count` of these kinds, strongest first."""
    if count == 0:
        return [""]
    return sorted(
        {sort_kinds("".join(chosen)) for chosen in product(kinds, repeat=count)},
        key=lambda pieces: [ORDER.index(kind) for kind in pieces],
    )


@cache
def letters_of(name: str) -> str:
    """The ending's pieces in index order: the kings, white's pieces, black's (`KkQr`)."""
    white, black = material_of(name, None)
    return "Kk" + white + black.lower()


def file_name(name: str, size: int, variant: str = CUBE) -> str:
    """Name the file of an ending's table on the n-cube: `KQKR.n5.cubetb`, and another
    variant's with its name before the suffix: `KBUK.n5.raumschach.cubetb`."""
    tail = "" if variant == CUBE else f".{variant}"
    return f"{name}.n{size}{tail}{SUFFIX}"


def version_for(variant: str, compact: bool = False) -> int:
    """The format version a variant's tables are written in: 1 the cube's, 2 any other's, 3
    either's with the compact index."""
    if compact:
        return COMPACT_VERSION
    return FORMAT_VERSION if variant == CUBE else VARIANT_VERSION


# --- the cube's symmetries and the index ---------------------------------------------------


class Geometry:
    """The cells of one board size, the 48 symmetries as cell maps, the white king's region."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.cells = size**3
        coordinates = [(x, y, z) for z in range(size) for y in range(size) for x in range(size)]
        #: Each symmetry as a map of cells; the first is the identity.
        self.transforms: list[list[int]] = []
        for order in permutations(range(3)):
            for flips in product((False, True), repeat=3):
                table = []
                for xyz in coordinates:
                    turned = [
                        size - 1 - c if flip else c for c, flip in zip(xyz, flips, strict=True)
                    ]
                    x, y, z = (turned[axis] for axis in order)
                    table.append(x + size * (y + size * z))
                self.transforms.append(table)
        half = (size - 1) // 2
        self.region = [
            x + size * (y + size * z)
            for z in range(half + 1)
            for y in range(z + 1)
            for x in range(y + 1)
        ]
        self.region_index = [-1] * self.cells
        for place, cell in enumerate(self.region):
            self.region_index[cell] = place
        #: For each cell, the symmetries that bring a king there into the region.
        self.king_transforms = [
            [t for t, table in enumerate(self.transforms) if self.region_index[table[cell]] >= 0]
            for cell in range(self.cells)
        ]

    def xyz(self, cell: int) -> tuple[int, int, int]:
        """Where a cell is: (x, y, z)."""
        size = self.size
        return cell % size, cell // size % size, cell // (size * size)


def region_cells(size: int) -> int:
    """How many cells the white king's region has, x <= y <= z <= (n - 1) // 2: the multisets
    of three of the h = (n + 1) // 2 values, h (h + 1) (h + 2) / 6. Arithmetic, so that a
    header's size is checked without building that size's geometry."""
    h = (size - 1) // 2 + 1
    return h * (h + 1) * (h + 2) // 6


def entries_of(name: str, size: int, version: int = FORMAT_VERSION) -> int:
    """How many indices an ending's file has on the n-cube: 2 R (n³)^(pieces - 1), or in
    version 3 2 × PAIRS × Π C(n³, k) (kernel/tables/compact.py)."""
    if version == COMPACT_VERSION:
        return compact_entries(letters_of(name), size)
    others: int = (size**3) ** (len(name) - 1)
    return 2 * region_cells(size) * others


@cache
def geometry_for(size: int) -> Geometry:
    """Return the geometry of a board size, built once."""
    return Geometry(size)


@dataclass(frozen=True)
class Table:
    """How one ending's positions on one board size are indexed."""

    name: str
    size: int
    #: Whose rules: the index is the same for every variant, the file and its moves are not.
    variant: str = CUBE
    #: The format's version, which chooses the index: version 3's compact one, or versions 1
    #: and 2's.
    version: int = FORMAT_VERSION

    @property
    def letters(self) -> str:
        return letters_of(self.name)

    @property
    def geometry(self) -> Geometry:
        return geometry_for(self.size)

    @property
    def compact(self) -> bool:
        """Whether the table is numbered by version 3's compact index."""
        return self.version == COMPACT_VERSION

    @property
    def entries(self) -> int:
        """How many indices the file has: both sides, every region cell and every cell (or
        version 3's pairs of kings and sets of pieces)."""
        return entries_of(self.name, self.size, self.version)

    def index(self, side: int, cells: list[int]) -> int:
        """Give the index of a position (its pieces' cells in index order) in its stored
        form: of every symmetry that brings the white king into the region, the one giving
        the smallest index, identical pieces sorted. Version 3: -1 for kings not apart."""
        if self.compact:
            return compact_index(self.geometry, self.letters, side, cells)
        return canonical_index(self.geometry, identical_runs(self.letters), side, cells)

    def decode(self, index: int) -> tuple[int, list[int]]:
        """Give the side to move and the cells of the position an index stands for."""
        geometry = self.geometry
        if self.compact:
            return compact_decode(geometry, self.letters, index)
        cells: list[int] = []
        for _ in range(len(self.letters) - 1):
            index, cell = divmod(index, geometry.cells)
            cells.append(cell)
        side, place = divmod(index, len(geometry.region))
        cells.append(geometry.region[place])
        return side, cells[::-1]


@cache
def identical_runs(letters: str) -> list[tuple[int, int]]:
    """The runs of identical letters, two or more long, as (start, end)."""
    runs: list[tuple[int, int]] = []
    start = 0
    for end in range(1, len(letters) + 1):
        if end == len(letters) or letters[end] != letters[start]:
            if end - start > 1:
                runs.append((start, end))
            start = end
    return runs


def canonical_index(
    geometry: Geometry, groups: list[tuple[int, int]], side: int, cells: list[int]
) -> int:
    """Give the stored index of a position: see Table.index."""
    best = -1
    count = geometry.cells
    regions = len(geometry.region)
    region_index = geometry.region_index
    for t in geometry.king_transforms[cells[0]]:
        table = geometry.transforms[t]
        mapped = [table[cell] for cell in cells]
        for start, end in groups:
            mapped[start:end] = sorted(mapped[start:end])
        index = side * regions + region_index[mapped[0]]
        for cell in mapped[1:]:
            index = index * count + cell
        if best < 0 or index < best:
            best = index
    return best


def widen(name: str, size: int, values: bytes, variant: str = CUBE) -> bytearray:
    """Lay a version-3 table's values out by version 1's index: each stored entry at the
    index of its position in version 1, NO_VALUE where none lands, so that the two indices
    are held to each other byte for byte (kernel/core/retrograde.c's widen, compiled). Two
    entries landing on one index are a ValueError: one would hide the other."""
    compact = Table(name, size, variant, COMPACT_VERSION)
    wide = Table(name, size, variant)
    if len(values) != compact.entries:
        raise ValueError(f"{name}: {len(values)} values, not version 3's {compact.entries}")
    widened = bytearray([NO_VALUE]) * wide.entries
    for index, value in enumerate(values):
        if value == NO_VALUE:
            continue
        side, cells = compact.decode(index)
        target = wide.index(side, cells)
        if widened[target] != NO_VALUE:
            raise ValueError(f"{name}: two entries of version 3 at version 1's index {target}")
        widened[target] = value
    return widened


# --- values ----------------------------------------------------------------------------------


def value_text(value: int) -> str:
    """Write a value byte as tb_probe answers: `win K`, `loss K`, `draw`."""
    if value == DRAW:
        return "draw"
    if value == NO_VALUE:
        return "no value"
    plies = value - 1
    return f"win {(plies + 1) // 2}" if plies % 2 else f"loss {plies // 2}"


# --- files -----------------------------------------------------------------------------------
#
# A file is opened as loadgame opens files: without blocking (a FIFO at a table's name would
# wait for a writer for ever) and without taking a terminal, then the descriptor is checked
# with fstat: a regular file only. Its header is read and checked against itself, against the
# ending its name says and against the file's length before anything the header claims is
# allocated. Every version of the format starts with the magic and the version; the version
# chooses the reader of the rest (HEADER_READERS), so that a second format is one more entry.


def values_offset(header: Header) -> int:
    """Where a plain file's values start: right after its header (56 bytes in version 1, 72 in
    versions 2 and 3), one byte an index; in version 4, where its block index starts (an
    index's byte is found through it: TableFile is what reads values)."""
    return header_length(header.version)


def header_length(version: int) -> int:
    """How long a header of this version is."""
    if version == BLOCKS_VERSION:
        return HEADER_V4_SIZE
    return HEADER_V2_SIZE if version in (VARIANT_VERSION, COMPACT_VERSION) else HEADER_SIZE


@dataclass(frozen=True)
class Header:
    """What a file says of itself before its values."""

    size: int
    name: str
    entries: int
    positions: int
    longest: int
    checksum: int
    version: int = FORMAT_VERSION
    #: The rules its values are under (version 1: the cube's, always).
    variant: str = CUBE
    #: Version 4's: the plain version its values are of, the codec, the values a block.
    plain: int = 0
    codec: int = 0
    block_values: int = 0

    @property
    def numbering(self) -> int:
        """The version whose index numbers the positions: the plain version of a compressed
        file, a plain file's own."""
        return self.plain if self.version == BLOCKS_VERSION else self.version

    @property
    def compact(self) -> bool:
        """Whether the positions are numbered by version 3's compact index."""
        return self.numbering == COMPACT_VERSION

    @property
    def compressed(self) -> bool:
        """Whether the values are in compressed blocks (version 4)."""
        return self.version == BLOCKS_VERSION

    @property
    def blocks(self) -> int:
        """How many blocks a compressed file's values make (0 for a plain file)."""
        return block_count(self.entries, self.block_values) if self.compressed else 0

    def plain_header(self) -> Header:
        """The header of the plain file a compressed one's values are of (itself if plain)."""
        if not self.compressed:
            return self
        return Header(
            self.size,
            self.name,
            self.entries,
            self.positions,
            self.longest,
            self.checksum,
            self.plain,
            self.variant,
        )

    def pack(self) -> bytes:
        """Write the header, its own checksum last (versions 2 and 3: the variant before it;
        version 4: the variant, the plain version, the codec and the values a block)."""
        head = HEADER.pack(
            MAGIC,
            self.version,
            self.size,
            len(self.name),
            self.name.encode("ascii"),
            self.entries,
            self.positions,
            self.longest,
            self.checksum,
        )
        if self.version in (VARIANT_VERSION, COMPACT_VERSION, BLOCKS_VERSION):
            head += VARIANT_FIELD.pack(self.variant.encode("ascii"))
        if self.version == BLOCKS_VERSION:
            head += BLOCK_FIELDS.pack(self.plain, self.codec, self.block_values)
        return head + HEADER_CHECK.pack(zlib.crc32(head))

    @property
    def length(self) -> int:
        """How long the whole file must be, in bytes (version 4: at least, its blocks'
        lengths being in its block index)."""
        if self.compressed:
            return HEADER_V4_SIZE + index_length(self.blocks)
        return header_length(self.version) + self.entries


def check_header_v1(path: Path, head: bytes) -> Header:
    """Read and check a version-1 header: its checksum, then its fields against each other
    (arithmetic only: nothing is allocated from what it claims)."""
    return check_fields(path, head, HEADER_SIZE, CUBE)


def check_header_v2(path: Path, head: bytes) -> Header:
    """Read and check a version-2 header (or version 3's, the same): version 1's fields, then
    the variant's name, the header's checksum covering both."""
    if len(head) < HEADER_V2_SIZE:
        raise TableError(f"{path}: not an endgame table (its header is cut short)")
    check_sum(path, head, HEADER.size + VARIANT_FIELD.size)
    return check_fields(path, head, HEADER_V2_SIZE, variant_field(path, head))


def variant_field(path: Path, head: bytes) -> str:
    """The variant a header of version 2, 3 or 4 names, one tables are built for."""
    (raw,) = VARIANT_FIELD.unpack(head[HEADER.size : HEADER.size + VARIANT_FIELD.size])
    variant = raw.rstrip(b"\0").decode("ascii", "replace")
    try:
        return variant_of_tables(variant)
    except ValueError as error:
        raise TableError(f"{path}: {error}") from None


def check_header_v4(path: Path, head: bytes) -> Header:
    """Read and check a version-4 header: version 2's fields, then the plain version (whose
    index numbers the positions), the codec and the values a block, the header's checksum
    covering them all."""
    if len(head) < HEADER_V4_SIZE:
        raise TableError(f"{path}: not an endgame table (its header is cut short)")
    covered = HEADER_V4_SIZE - HEADER_CHECK.size
    check_sum(path, head, covered)
    variant = variant_field(path, head)
    plain, codec, values = BLOCK_FIELDS.unpack(head[covered - BLOCK_FIELDS.size : covered])
    if plain not in PLAIN_VERSIONS or (plain == FORMAT_VERSION and variant != CUBE):
        raise TableError(f"{path}: impossible header (the values of a version-{plain} file)")
    if codec not in CODECS:
        known = ", ".join(f"{number} ({name})" for number, name in CODECS.items())
        raise TableError(f"{path}: compressed by codec {codec}; this engine reads {known}")
    fault = check_block_values(values)
    if fault is not None:
        raise TableError(f"{path}: impossible header ({fault})")
    header = check_fields(path, head, HEADER_V4_SIZE, variant, plain)
    return Header(
        header.size,
        header.name,
        header.entries,
        header.positions,
        header.longest,
        header.checksum,
        BLOCKS_VERSION,
        variant,
        plain,
        codec,
        values,
    )


def check_sum(path: Path, head: bytes, covered: int) -> None:
    """Check a header's own checksum, which follows the `covered` bytes it is of."""
    (check,) = HEADER_CHECK.unpack(head[covered : covered + HEADER_CHECK.size])
    if zlib.crc32(head[:covered]) != check:
        raise TableError(f"{path}: damaged header (its checksum does not match)")


def check_fields(
    path: Path, head: bytes, length: int, variant: str, numbering: int | None = None
) -> Header:
    """Check the fields every version has, at version 1's offsets, against each other (E by
    the index of `numbering`, the header's own version when None)."""
    if len(head) < length:
        raise TableError(f"{path}: not an endgame table (its header is cut short)")
    _, version, size, pieces, raw_name, entries, positions, longest, checksum = HEADER.unpack(
        head[: HEADER.size]
    )
    check_sum(path, head, length - HEADER_CHECK.size)
    numbered = version if numbering is None else numbering
    name = raw_name.rstrip(b"\0").decode("ascii", "replace")
    try:
        material_of(name, variant)
    except ValueError:
        whose = "" if variant == CUBE else f" of {variant}"
        raise TableError(f"{path}: names no ending{whose} ({name!r})") from None
    if len(name) != pieces or not SMALLEST_PIECES <= pieces <= LARGEST_PIECES:
        raise TableError(f"{path}: impossible header ({pieces} pieces for {name})")
    if not SMALLEST_SIZE <= size <= LARGEST_SIZE:
        raise TableError(
            f"{path}: impossible header (size {size}; tables are built for "
            f"{SMALLEST_SIZE} ... {LARGEST_SIZE})"
        )
    if entries != entries_of(name, size, numbered):
        raise TableError(
            f"{path}: {entries:,} entries, where {name} on the {size}-cube has "
            f"{entries_of(name, size, numbered):,}"
        )
    if positions > entries:
        raise TableError(f"{path}: impossible header ({positions:,} positions of {entries:,})")
    if longest > MOST_PLIES:
        raise TableError(
            f"{path}: impossible header (a longest mate of {longest} plies; a byte holds "
            f"{MOST_PLIES})"
        )
    return Header(size, name, entries, positions, longest, checksum, version, variant)


#: Each version of the format: its header's reader (which knows the header's length).
HEADER_READERS = {
    FORMAT_VERSION: check_header_v1,
    VARIANT_VERSION: check_header_v2,
    COMPACT_VERSION: check_header_v2,  # version 2's header; the index is another
    BLOCKS_VERSION: check_header_v4,
}
#: Enough bytes for the longest header of any version.
MOST_HEADER_BYTES = 4096


def check_header(path: Path, head: bytes, length: int | None = None) -> Header:
    """Read and check a header, of whichever version it says it is, and with `length` the
    file's length against it; raise TableError naming the file and its fault."""
    if len(head) < PREFIX.size or not head.startswith(MAGIC):
        raise TableError(f"{path}: not an endgame table (no {MAGIC[:6].decode()} header)")
    _, version = PREFIX.unpack(head[: PREFIX.size])
    reader = HEADER_READERS.get(version)
    if reader is None:
        known = ", ".join(str(known) for known in HEADER_READERS)
        raise TableError(f"{path}: format version {version}, this engine reads {known}")
    header = reader(path, head)
    if header.compressed:
        if length is not None and length < header.length:
            raise TableError(
                f"{path}: {length:,} bytes long, too short for its header and the block "
                f"index of {header.blocks:,} blocks ({header.length:,} bytes; cut short)"
            )
        return header  # the rest of its length is checked against its block index
    if length is not None and length != header.length:
        raise TableError(
            f"{path}: {length:,} bytes long where its header says {header.length:,} "
            f"({header.entries:,} values after the header; cut short or grown)"
        )
    return header


#: What a file was when it was checked: device, inode, size, and its times of change.
Identity = tuple[int, int, int, int, int]


def identity_of(status: os.stat_result) -> Identity:
    """Tell a file from the same file changed or another put in its place."""
    return (
        status.st_dev,
        status.st_ino,
        status.st_size,
        status.st_mtime_ns,
        status.st_ctime_ns,
    )


def kind_of(mode: int) -> str:
    """Name what a path that is no regular file is."""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def open_regular(path: Path) -> tuple[int, os.stat_result]:
    """Open a file to read without blocking and check the descriptor is a regular file;
    raise FileNotFoundError when nothing is at the path, TableError for anything else."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except FileNotFoundError:
        if os.path.lexists(path):
            raise TableError(f"{path}: a symbolic link to nothing") from None
        raise
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise TableError(f"{path}: a loop of symbolic links") from None
        raise TableError(f"{path}: cannot open: {error.strerror}") from None
    status = os.fstat(descriptor)
    if not stat.S_ISREG(status.st_mode):
        os.close(descriptor)
        raise TableError(f"{path}: {kind_of(status.st_mode)}, not a table file")
    return descriptor, status


#: How often a table's path is looked at for another file put at its name (an os.stat of
#: the path costs more than the rest of a probe; fstat of the open file, every probe, does not).
PATH_LOOK_SECONDS = 1.0
#: Values are checked this many bytes at a time.
BLOCK = 1 << 20


class ValueCheck:
    """The values checked against the header as they go by: the checksum, the positions
    stored, and no mate longer than the header's longest, which is there."""

    def __init__(self, header: Header) -> None:
        self.header = header
        self.checksum = 0
        self.stored = 0
        self.longest_seen = header.longest == 0
        self.beyond = 0
        # Every byte a table of this longest mate may hold: a draw, 1 + p for p up to it, none.
        self.allowed = bytes(range(header.longest + 2)) + bytes([NO_VALUE])

    def feed(self, block: bytes) -> None:
        """Take the next block of values."""
        self.checksum = zlib.crc32(block, self.checksum)
        self.stored += len(block) - block.count(NO_VALUE)
        beyond = block.translate(None, self.allowed)
        self.beyond = max(self.beyond, max(beyond, default=0))
        self.longest_seen = self.longest_seen or bytes([self.header.longest + 1]) in block

    def fault(self) -> str | None:
        """Once every value was fed: say what is wrong, or None."""
        header = self.header
        if self.checksum != header.checksum:
            return "damaged (the values' checksum does not match)"
        if self.beyond:
            return (
                f"its header's longest mate is {header.longest} plies, a value says "
                f"{self.beyond - 1}"
            )
        if self.stored != header.positions:
            return f"its header says {header.positions:,} positions, its values {self.stored:,}"
        if not self.longest_seen:
            return f"its header's longest mate of {header.longest} plies is in no value"
        return None


class TableFile:
    """One table file, open and checked, read a value at a time (pread): never mapped, so
    that a file cut short under the engine is a short read, not a SIGBUS, and every value
    read is checked to come from the file that was checked (see `value`). A compressed file
    (version 4) is read a block at a time, each block checked by its checksum when it is
    decompressed and kept in a cache of blocks shared by every open file (`cache`)."""

    def __init__(
        self,
        path: Path,
        name: str | None = None,
        size: int | None = None,
        variant: str = CUBE,
        version: int | None = None,
        cache: BlockCache = SHARED_CACHE,
    ) -> None:
        """Open a file and check its header (with `name` and `size`: that it is that
        ending's, of that variant; with `version`, that it is numbered by that version's
        index), and a compressed file's block index; raise FileNotFoundError when there is
        none, TableError otherwise."""
        self.path = path
        self.cache = cache
        self.owner = cache.owner()
        self.blocks: BlockIndex | None = None
        self.descriptor, status = open_regular(path)
        try:
            head = os.pread(self.descriptor, MOST_HEADER_BYTES, 0)
            self.header = check_header(path, head, status.st_size)
            header = self.header
            if name is not None and (header.name, header.size) != (name, size):
                raise TableError(
                    f"{path}: holds {header.name} on the {header.size}-cube, "
                    f"not {name} on the {size}-cube"
                )
            if name is not None and header.variant != variant:
                raise TableError(f"{path}: holds {header.variant}'s {header.name}, not {variant}'s")
            if version is not None and header.compact != (version == COMPACT_VERSION):
                raise TableError(
                    f"{path}: numbered by format version {header.numbering}'s index, not "
                    f"version {version}'s"
                )
            if header.compressed:
                self.blocks = self.read_block_index(status.st_size)
        except OSError as error:
            self.close()
            raise TableError(f"{path}: cannot read: {error.strerror}") from None
        except TableError:
            self.close()
            raise
        self.identity = identity_of(status)
        self.offset = values_offset(self.header)
        self.looked = time.monotonic()

    def read_block_index(self, length: int) -> BlockIndex:
        """Read and check a compressed file's block index (its length checked against the
        file's by check_header before it is read)."""
        header = self.header
        start = HEADER_V4_SIZE
        size = index_length(header.blocks)
        raw = os.pread(self.descriptor, size, start)
        try:
            return BlockIndex(raw, header.entries, header.block_values, start + size, length)
        except BlockFault as fault:
            raise TableError(f"{self.path}: {fault}") from None

    def close(self) -> None:
        if self.descriptor >= 0:
            os.close(self.descriptor)
            self.descriptor = -1
        self.cache.forget(self.owner)

    def read_block(self, block: int) -> bytes:
        """Read, decompress and check one block of a compressed file (not cached); raise
        TableError naming the file and the block, OSError when it cannot be read."""
        blocks = self.blocks
        assert blocks is not None
        offset, length = blocks.span(block)
        data = os.pread(self.descriptor, length, offset)
        if len(data) < length:
            raise TableError(f"{self.path}: cut short while it was read")
        try:
            return unpack_block(data, blocks.values_in(block), blocks.checksums[block])
        except BlockFault as fault:
            raise TableError(
                f"{self.path}: block {block:,} of {blocks.blocks:,}: {fault}"
            ) from None

    def spans(self) -> Iterator[bytes]:
        """Every value, in order, a stretch at a time (a block of a compressed file); raise
        TableError naming the fault."""
        entries = self.header.entries
        try:
            if self.blocks is not None:
                for block in range(self.blocks.blocks):
                    yield self.read_block(block)
                return
            for start in range(0, entries, BLOCK):
                want = min(BLOCK, entries - start)
                stretch = os.pread(self.descriptor, want, self.offset + start)
                if len(stretch) < want:
                    raise TableError(f"{self.path}: cut short while it was read")
                yield stretch
        except OSError as error:
            raise TableError(f"{self.path}: cannot read: {error.strerror}") from None

    def read_values(self) -> bytes:
        """Read every value, checked; raise TableError naming the fault."""
        if self.blocks is not None:
            values = b"".join(self.spans())
            self.check(values)
            return values
        entries = self.header.entries
        try:
            parts = [os.pread(self.descriptor, entries, self.offset)]
            got = len(parts[0])
            while len(parts[-1]) > 0 and got < entries:  # a read stops short of 2 GB
                parts.append(os.pread(self.descriptor, entries - got, self.offset + got))
                got += len(parts[-1])
        except OSError as error:
            raise TableError(f"{self.path}: cannot read: {error.strerror}") from None
        values = parts[0] if len(parts) == 1 else b"".join(parts)
        self.check(values)
        return values

    def check_values(self) -> None:
        """Check every value a stretch at a time, keeping none (`info`, the engine's open of
        a plain file)."""
        check = ValueCheck(self.header)
        for stretch in self.spans():
            check.feed(stretch)
        self.finish(check)

    def check_to_probe(self) -> None:
        """What the engine checks when it opens a table, beyond its header (and a compressed
        file's block index, checked by the open): a plain file's every value; a compressed
        file's values are checked a block at a time, as they are first read."""
        if self.blocks is None:
            self.check_values()

    def check(self, values: bytes) -> None:
        """Check values read whole; raise TableError naming the fault."""
        if len(values) != self.header.entries:
            raise TableError(f"{self.path}: cut short while it was read")
        check = ValueCheck(self.header)
        check.feed(values)
        self.finish(check)

    def finish(self, check: ValueCheck) -> None:
        fault = check.fault()
        if fault is not None:
            raise TableError(f"{self.path}: {fault}")
        if identity_of(os.fstat(self.descriptor)) != self.identity:
            raise TableError(f"{self.path}: changed while it was checked")

    def value(self, index: int) -> int | None:
        """Read one value; None when the file is no longer the one checked: cut short or
        written (its size or change time moved: fstat after the read, so a value is kept
        only if nothing changed before it was read), or, looked at once a second, another
        file put at its name (until then the values read are still the checked file's). A
        compressed file's block is read from the cache, or read, checked (TableError when it
        is damaged) and cached."""
        try:
            if self.blocks is None:
                byte = os.pread(self.descriptor, 1, self.offset + index)
            else:
                block, place = divmod(index, self.header.block_values)
                values = self.cache.get(self.owner, block)
                if values is None:
                    values = self.read_block(block)
                    self.cache.put(self.owner, block, values)
                byte = values[place : place + 1]
            unchanged = identity_of(os.fstat(self.descriptor)) == self.identity
            now = time.monotonic()
            if unchanged and now - self.looked >= PATH_LOOK_SECONDS:
                self.looked = now
                unchanged = identity_of(os.stat(self.path)) == self.identity
        except OSError:
            return None
        except TableError:
            # A damaged block, or one cut short: refused only if the file is the one checked
            # (changed since, it is checked again before anything is said of it).
            try:
                unchanged = identity_of(os.fstat(self.descriptor)) == self.identity
            except OSError:
                return None
            if unchanged:
                raise
            return None
        if not unchanged:
            self.cache.forget(self.owner)
        return byte[0] if unchanged and len(byte) == 1 else None


def open_table(
    path: Path,
    name: str | None = None,
    size: int | None = None,
    variant: str = CUBE,
    version: int | None = None,
) -> TableFile:
    """Open a table file, its header checked: with `name` and `size`, the file must be that
    ending's, of that variant (with `version`, numbered by that version's index); raise
    TableError naming the file otherwise."""
    try:
        return TableFile(path, name, size, variant, version)
    except FileNotFoundError:
        raise TableError(f"{path}: no such file") from None


def read_table(
    path: Path,
    name: str | None = None,
    size: int | None = None,
    variant: str = CUBE,
    version: int | None = None,
) -> bytes:
    """Read a table's values, checking everything the file says of itself (`open_table`);
    raise TableError naming the file otherwise."""
    table = open_table(path, name, size, variant, version)
    try:
        return table.read_values()
    finally:
        table.close()


def check_table(
    path: Path,
    name: str | None = None,
    size: int | None = None,
    variant: str = CUBE,
    version: int | None = None,
) -> None:
    """Check a table file as read_table does, a stretch at a time, keeping no values (a table
    a build keeps: a five-piece one of 5³ is up to 1.4 GB); raise TableError naming it."""
    table = open_table(path, name, size, variant, version)
    try:
        table.check_values()
    finally:
        table.close()


def read_header(path: Path) -> Header:
    """Read and check a file's header (and its length) alone; raise TableError naming the
    file."""
    table = open_table(path)
    table.close()
    return table.header


# --- probing ---------------------------------------------------------------------------------


class NoTable(Exception):
    """No table covers the position: the message says which is missing, or why none could."""


class Tablebases:
    """The tables of one folder, each opened (and checked) when first probed, then read a
    value at a time. A file found changed is checked again before it is read; one that was
    refused is refused again at once, until it changes."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self._open: dict[tuple[str, int, str], TableFile] = {}
        self._refused: dict[tuple[str, int, str], tuple[Identity, str]] = {}

    def table(self, name: str, size: int, variant: str = CUBE) -> TableFile:
        """Return an ending's open file; raise NoTable when there is no file, TableError when
        the file is unusable."""
        key = (name, size, variant)
        table = self._open.get(key)
        if table is not None:
            return table
        whose = "" if variant == CUBE else f"{variant} "
        missing = NoTable(f"no {whose}table for {name} on the {size}×{size}×{size} board")
        if self.folder is None:
            raise missing
        path = self.folder / file_name(name, size, variant)
        try:
            identity = identity_of(os.stat(path))
        except OSError:
            identity = None  # nothing there (or a broken link): the open says which
        refused = self._refused.get(key)
        if refused is not None and identity is not None and refused[0] == identity:
            raise TableError(refused[1])
        try:
            table = TableFile(path, name, size, variant)
            table.check_to_probe()
        except FileNotFoundError:
            raise missing from None
        except TableError as error:
            if table is not None:
                table.close()
            if identity is not None:
                self._refused[key] = (identity, str(error))
            raise
        self._refused.pop(key, None)
        self._open[key] = table
        return table

    def forget(self, name: str, size: int, variant: str = CUBE) -> None:
        """Close an ending's file: it is opened and checked again when next probed."""
        table = self._open.pop((name, size, variant), None)
        if table is not None:
            table.close()

    def value(self, name: str, size: int, index: int, variant: str = CUBE) -> int:
        """Read one value of an ending; a file changed since it was checked is checked again
        (and refused if it fails), never read as it was."""
        for _ in range(3):
            found = self.table(name, size, variant).value(index)
            if found is not None:
                return found
            self.forget(name, size, variant)
        path = self.table(name, size, variant).path
        raise TableError(f"{path}: changes while it is read")

    def probe(self, position: Position) -> int:
        """Give the value byte of a game position for the side to move (DRAW for bare kings);
        raise NoTable or TableError when no table answers. A position is read from its own
        variant's tables only: Raumschach's bishop moves otherwise than the cube's."""
        variant = position.variant.name
        if variant not in TABLE_KINDS:
            raise NoTable(f"no tables for {variant} positions")
        if any(letter in "Pp" for pieces in position.pieces for letter in pieces.values()):
            raise NoTable("no table for a position with pawns: tables hold pawnless endings")
        white = "".join(letter for letter in position.pieces[WHITE].values() if letter != "K")
        black = "".join(letter for letter in position.pieces[1].values() if letter != "k")
        # Before the bare kings: a white king alone is no drawn ending but no game's.
        if position.kings[1] < 0:
            raise NoTable("no table for a position without a black king")
        if not white and not black:
            return DRAW
        pieces = 2 + len(white) + len(black)
        name, swapped = ending_name(white, black)
        if pieces > LARGEST_PIECES:
            raise NoTable(f"no table for {name}: tables hold at most {LARGEST_PIECES} pieces")
        table = self.table(name, position.size, variant)  # checked before its geometry is built
        side, cells = table_cells(position, name, swapped)
        index = Table(name, position.size, variant, table.header.numbering).index(side, cells)
        found = table.value(index)
        if found is not None:
            return found
        # Changed under the engine: checked again, and the index taken again by its version.
        self.forget(name, position.size, variant)
        table = self.table(name, position.size, variant)
        index = Table(name, position.size, variant, table.header.numbering).index(side, cells)
        return self.value(name, position.size, index, variant)


def table_cells(position: Position, name: str, swapped: bool) -> tuple[int, list[int]]:
    """Give the side to move and the cells of a position's pieces in the table's index order,
    the colours exchanged when the table has them so."""
    cell_of = cells_of_points(position.size)
    letters = letters_of(name)
    if swapped:
        letters = letters.swapcase()  # the table's white pieces are the position's black
    slots: dict[str, list[int]] = {}
    for pieces in position.pieces:
        for point, letter in pieces.items():
            slots.setdefault(letter, []).append(cell_of[point])
    cells = [slots[letter].pop() for letter in letters]
    side = 1 - position.side if swapped else position.side
    return side, cells


@cache
def cells_of_points(size: int) -> list[int]:
    """Each point of the padded board (kernel/cube/board.py) as a table's cell, x + n (y + n z)."""
    geometry = kernel_geometry_for(size)
    cells = [-1] * geometry.memory_area
    for z in range(size):
        for y in range(size):
            for x in range(size):
                cells[geometry.get_point_from_cell(x, y, z)] = x + size * (y + size * z)
    return cells


@cache
def tablebases_for(path: str) -> Tablebases | None:
    """The tables of a folder, one object per folder; None for an empty path."""
    return Tablebases(Path(path)) if path else None


def plies_of(value: int) -> int:
    """The plies to mate of a decided value byte."""
    return value - 1


def is_win(value: int) -> bool:
    """Tell whether a value byte is a win for the side to move."""
    return value not in (DRAW, NO_VALUE) and value % 2 == 0


def is_loss(value: int) -> bool:
    """Tell whether a value byte is a loss for the side to move."""
    return value != NO_VALUE and value % 2 == 1


def table_move(tables: Tablebases, position: Position) -> tuple[Move, int] | None:
    """Choose a move of a game position from the tables, with the position's value: the
    fastest win, else a drawing move, else the longest defence (the first such move in the
    order of the legal moves). None when no table answers the position or a move of it."""
    from kernel.cube.rules import Analysis  # the engine imports this module at start: keep it light

    try:
        value = tables.probe(position)
        scored: list[tuple[int, Move]] = []
        for move in list(Analysis(position).legal_moves()):
            position.play(move)
            try:
                after = tables.probe(position)
            finally:
                position.undo(move)
            # For the mover: a lost successor is best, fastest first; then a draw; then the
            # slowest win for the opponent.
            rank = (
                plies_of(after)
                if is_loss(after)
                else 1000
                if after == DRAW
                else 2000 - plies_of(after)
            )
            scored.append((rank, move))
    except (NoTable, TableError):
        return None
    if not scored:
        return None
    best = min(scored, key=lambda pair: pair[0])
    return best[1], value
