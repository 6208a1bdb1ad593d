"""Endgame tables: what the engine needs to read them (docs/tablebases.md).

A table holds one ending (`KQKR`: white's king and queen against black's king and rook) on
one board size: for every position of it, both sides to move, one byte, the value for the
side to move. The generator (the package tablebase/) writes them; this module names endings,
indexes positions, reads and checks the files, and probes.

- **Material.** Each side's pieces after its king, strongest first (Q R B N); the stronger
  side is white's in the name (more pieces, or the stronger first piece), so `KRKQ` is
  probed as `KQKR` with the colours exchanged: no pawns, so the rules do not see colour.
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

import mmap
import struct
import zlib
from dataclasses import dataclass
from functools import cache
from itertools import permutations, product
from pathlib import Path

from kernel.board import geometry_for as kernel_geometry_for
from kernel.position import WHITE, Move, Position

#: A file's first bytes, its layout's version, its header: magic, version, size, piece count,
#: material, entries, game positions, the longest mate in plies, CRC-32 of the values, and
#: CRC-32 of the header before it.
MAGIC = b"CUBETB\r\n"
FORMAT_VERSION = 1
HEADER = struct.Struct("<8sHHH16sQQHI")
HEADER_CHECK = struct.Struct("<I")
HEADER_SIZE = HEADER.size + HEADER_CHECK.size
#: The suffix of a table's file name: KQKR.n5.cubetb.
SUFFIX = ".cubetb"

DRAW = 0
NO_VALUE = 255
#: The longest distance a byte holds, in plies.
MOST_PLIES = 253
#: The pieces after the king, strongest first.
KINDS = "QRBN"
#: Endings of this many pieces, kings included, are the ones tables are built for.
SMALLEST_PIECES, LARGEST_PIECES = 3, 5


class TableError(Exception):
    """A table that cannot be used: the message names the file and what is wrong."""


# --- material -----------------------------------------------------------------------------


def strength(pieces: str) -> tuple[int, tuple[int, ...]]:
    """Order one side's pieces (after its king, upper case): more pieces, then stronger ones,
    is larger."""
    return len(pieces), tuple(len(KINDS) - KINDS.index(kind) for kind in pieces)


def sort_kinds(pieces: str) -> str:
    """Write one side's pieces strongest first."""
    return "".join(sorted(pieces.upper(), key=KINDS.index))


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
def material_of(name: str) -> tuple[str, str]:
    """Read an ending's name, `KQKR`, into each side's pieces after the king: ("Q", "R")."""
    if not name.startswith("K") or name.count("K") != 2:
        raise ValueError(f"not an ending: {name!r}")
    white, black = name[1:].split("K")
    if set(white + black) - set(KINDS) or ending_name(white, black) != (name, False):
        raise ValueError(f"not an ending as tables name them: {name!r}")
    return white, black


def endings(pieces: int) -> list[str]:
    """List every ending of this many pieces, kings included, in the order they are built."""
    found: list[str] = []
    others = pieces - 2
    for split in range(others + 1):
        for white in combinations_of(others - split):
            for black in combinations_of(split):
                name, swapped = ending_name(white, black)
                if not swapped and name not in found:
                    found.append(name)
    return found


def combinations_of(count: int) -> list[str]:
    """List every multiset of `count` kinds, strongest first."""
    if count == 0:
        return [""]
    return sorted(
        {sort_kinds("".join(kinds)) for kinds in product(KINDS, repeat=count)},
        key=lambda pieces: [KINDS.index(kind) for kind in pieces],
    )


@cache
def letters_of(name: str) -> str:
    """The ending's pieces in index order: the kings, white's pieces, black's (`KkQr`)."""
    white, black = material_of(name)
    return "Kk" + white + black.lower()


def file_name(name: str, size: int) -> str:
    """Name the file of an ending's table on the n-cube: `KQKR.n5.cubetb`."""
    return f"{name}.n{size}{SUFFIX}"


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


@cache
def geometry_for(size: int) -> Geometry:
    """Return the geometry of a board size, built once."""
    return Geometry(size)


@dataclass(frozen=True)
class Table:
    """How one ending's positions on one board size are indexed."""

    name: str
    size: int

    @property
    def letters(self) -> str:
        return letters_of(self.name)

    @property
    def geometry(self) -> Geometry:
        return geometry_for(self.size)

    @property
    def entries(self) -> int:
        """How many indices the file has: both sides, every region cell and every cell."""
        geometry = self.geometry
        count: int = geometry.cells ** (len(self.letters) - 1)
        return 2 * len(geometry.region) * count

    def index(self, side: int, cells: list[int]) -> int:
        """Give the index of a position (its pieces' cells in index order) in its stored
        form: of every symmetry that brings the white king into the region, the one giving
        the smallest index, identical pieces sorted."""
        return canonical_index(self.geometry, identical_runs(self.letters), side, cells)

    def decode(self, index: int) -> tuple[int, list[int]]:
        """Give the side to move and the cells of the position an index stands for."""
        geometry = self.geometry
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


@dataclass(frozen=True)
class Header:
    """What a file says of itself before its values."""

    size: int
    name: str
    entries: int
    positions: int
    longest: int
    checksum: int

    def pack(self) -> bytes:
        """Write the header, its own checksum last."""
        head = HEADER.pack(
            MAGIC,
            FORMAT_VERSION,
            self.size,
            len(self.name),
            self.name.encode("ascii"),
            self.entries,
            self.positions,
            self.longest,
            self.checksum,
        )
        return head + HEADER_CHECK.pack(zlib.crc32(head))


def read_table(path: Path, name: str | None = None, size: int | None = None) -> bytes:
    """Read a table's values, checking everything the file says of itself; raise TableError
    naming the file otherwise. With `name` and `size`, the file must be that ending's."""
    try:
        with path.open("rb") as file:
            head = file.read(HEADER_SIZE)
            header = check_header(path, head)
            values = file.read(header.entries + 1)
    except OSError as error:
        raise TableError(f"{path}: cannot read: {error.strerror}") from None
    if name is not None and (header.name, header.size) != (name, size):
        raise TableError(
            f"{path}: holds {header.name} on the {header.size}-cube, not {name} on the {size}-cube"
        )
    if len(values) != header.entries:
        raise TableError(f"{path}: {len(values)} values where the header says {header.entries}")
    if zlib.crc32(values) != header.checksum:
        raise TableError(f"{path}: damaged (the values' checksum does not match)")
    return values


def map_table(path: Path, name: str, size: int) -> memoryview:
    """Map a table's values into memory, checked as read_table checks them: the engine's
    tables are then pages of the files (shared, dropped under memory pressure), not copies."""
    try:
        with path.open("rb") as file:
            header = check_header(path, file.read(HEADER_SIZE))
            if (header.name, header.size) != (name, size):
                read_table(path, name, size)  # raises, naming both
            if file.seek(0, 2) != HEADER_SIZE + header.entries:
                read_table(path, name, size)  # raises: the length is wrong
            mapped = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError) as error:
        raise TableError(f"{path}: cannot map: {error}") from None
    values = memoryview(mapped)[HEADER_SIZE:]
    if zlib.crc32(values) != header.checksum:
        values.release()
        mapped.close()
        raise TableError(f"{path}: damaged (the values' checksum does not match)")
    return values


def read_header(path: Path) -> Header:
    """Read and check a file's header alone; raise TableError naming the file."""
    try:
        with path.open("rb") as file:
            return check_header(path, file.read(HEADER_SIZE))
    except OSError as error:
        raise TableError(f"{path}: cannot read: {error.strerror}") from None


def check_header(path: Path, head: bytes) -> Header:
    """Read and check a header; raise TableError naming the file if it is not one of ours."""
    if len(head) < HEADER_SIZE or not head.startswith(MAGIC):
        raise TableError(f"{path}: not an endgame table (no {MAGIC[:6].decode()} header)")
    _, version, size, pieces, raw_name, entries, positions, longest, checksum = HEADER.unpack(
        head[: HEADER.size]
    )
    (check,) = HEADER_CHECK.unpack(head[HEADER.size :])
    if zlib.crc32(head[: HEADER.size]) != check:
        raise TableError(f"{path}: damaged header (its checksum does not match)")
    if version != FORMAT_VERSION:
        raise TableError(f"{path}: format version {version}, this engine reads {FORMAT_VERSION}")
    name = raw_name.rstrip(b"\0").decode("ascii", "replace")
    try:
        material_of(name)
    except ValueError:
        raise TableError(f"{path}: names no ending ({name!r})") from None
    if not 2 <= size <= 64 or len(name) != pieces:
        raise TableError(f"{path}: impossible header (size {size}, {pieces} pieces)")
    if entries != Table(name, size).entries:
        raise TableError(f"{path}: {entries} entries, {name} on the {size}-cube has another count")
    return Header(size, name, entries, positions, longest, checksum)


# --- probing ---------------------------------------------------------------------------------


class NoTable(Exception):
    """No table covers the position: the message says which is missing, or why none could."""


class Tablebases:
    """The tables of one folder, each read (and checked) when first probed."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self._loaded: dict[tuple[str, int], memoryview] = {}

    def values(self, name: str, size: int) -> memoryview:
        """Return an ending's values; raise NoTable when there is no file, TableError when
        the file is unusable."""
        key = (name, size)
        values = self._loaded.get(key)
        if values is None:
            path = None if self.folder is None else self.folder / file_name(name, size)
            if path is None or not path.exists():
                raise NoTable(f"no table for {name} on the {size}×{size}×{size} board")
            values = map_table(path, name, size)
            self._loaded[key] = values
        return values

    def probe(self, position: Position) -> int:
        """Give the value byte of a game position for the side to move (DRAW for bare kings);
        raise NoTable or TableError when no table answers."""
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
        values = self.values(name, position.size)
        side, cells = table_cells(position, name, swapped)
        return values[Table(name, position.size).index(side, cells)]


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
    """Each point of the padded board (kernel/board.py) as a table's cell, x + n (y + n z)."""
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
    from kernel.rules import Analysis  # the engine imports this module at start: keep it light

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


def value_score(value: int) -> int:
    """A value byte as the player's search scores it: a mate p plies away MATE - p."""
    from kernel.alphabeta import MATE

    if is_win(value):
        return MATE - plies_of(value)
    if is_loss(value):
        return -(MATE - plies_of(value))
    return 0
