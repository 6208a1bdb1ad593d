"""Format version 4: a table's values compressed in blocks (issue 52; docs/tablebases.md,
"Version 4: compressed blocks"). The values are cut into blocks of V values (the last one
shorter), each compressed alone with raw deflate (zlib, RFC 1951) so that a probe reads and
decompresses one block; a block index after the header gives each block's compressed length
and the CRC-32 of its values, and is checked by a CRC-32 of its own.

This module is the blocks' part: the index checked against the file's length, one block
decompressed and checked, a block compressed, and the cache of decompressed blocks every
open file shares (bounded in bytes, least recently used first out). kernel/tables/tablebase.py
reads the header and says which file a fault is in (BlockFault carries no path).
"""

from __future__ import annotations

import struct
import sys
import zlib
from array import array
from collections import OrderedDict
from itertools import accumulate, count

#: The codec of version 4's blocks: 1 is raw deflate (zlib with wbits -15: no zlib header
#: and no Adler-32, the block index's CRC-32 checking each block's values instead).
DEFLATE = 1
CODECS = {DEFLATE: "deflate"}
#: zlib's settings the writer uses (any deflate stream reads alike).
LEVEL, WINDOW_BITS, MEMORY_LEVEL = 9, -15, 9
#: Values a block may hold: a power of two in this range (the writer's default: DEFAULT).
FEWEST_VALUES, MOST_VALUES = 1 << 12, 1 << 20
DEFAULT_VALUES = 1 << 13
#: A block's compressed length is at least 1 byte and at most its values' plus this (deflate
#: stores what it cannot shrink, 5 bytes a 64 KiB stretch).
MOST_GROWTH = 1024
#: Version 4's fields after version 2's (which end at the variant, byte 68): the version of
#: the plain file the values are of (1, 2 or 3: it chooses the index), the codec, V.
BLOCK_FIELDS = struct.Struct("<HHI")
#: Each block's entry in the index: its compressed length, the CRC-32 of its values.
BLOCK_ENTRY = struct.Struct("<II")
INDEX_CHECK = struct.Struct("<I")
#: The decompressed blocks every open file shares, in bytes (a few MB whatever the tables).
CACHE_BYTES = 4 << 20


class BlockFault(Exception):
    """A compressed block or block index that cannot be used: the message says what, and
    kernel/tables/tablebase.py puts the file's name before it."""


def block_count(entries: int, values: int) -> int:
    """How many blocks E values make, V a block."""
    return (entries + values - 1) // values


def index_length(blocks: int) -> int:
    """The block index's bytes, its own checksum included."""
    return blocks * BLOCK_ENTRY.size + INDEX_CHECK.size


def check_block_values(values: int) -> str | None:
    """Say what is wrong with a header's V, or None."""
    if values & (values - 1) or not FEWEST_VALUES <= values <= MOST_VALUES:
        return (
            f"{values:,} values a block (a power of two from {FEWEST_VALUES:,} to {MOST_VALUES:,})"
        )
    return None


class BlockIndex:
    """Where each block is and what its values' checksum is, read from the bytes of the
    index (checked: its checksum, every length in bounds, the blocks ending at the file's
    end)."""

    def __init__(self, raw: bytes, entries: int, values: int, start: int, length: int) -> None:
        """`raw` is the index's bytes with its checksum, `start` where the first block
        begins, `length` the file's length; raise BlockFault when they disagree."""
        self.entries = entries
        self.values = values
        self.blocks = block_count(entries, values)
        body = raw[: self.blocks * BLOCK_ENTRY.size]
        if len(raw) != index_length(self.blocks):
            raise BlockFault("its block index is cut short")
        (check,) = INDEX_CHECK.unpack(raw[len(body) :])
        if zlib.crc32(body) != check:
            raise BlockFault("damaged block index (its checksum does not match)")
        pairs = array("I")
        pairs.frombytes(body)
        if sys.byteorder == "big":
            pairs.byteswap()
        lengths, self.checksums = pairs[0::2], pairs[1::2]
        if self.blocks and (min(lengths) < 1 or max(lengths) > values + MOST_GROWTH):
            raise BlockFault(
                f"impossible block index (a block of {min(lengths):,} to {max(lengths):,} "
                f"bytes; a block holds {values:,} values)"
            )
        #: Where each block starts, and where the last one ends.
        self.offsets = array("Q", accumulate(lengths, initial=start))
        if self.offsets[-1] != length:
            raise BlockFault(
                f"{length:,} bytes long where its block index says {self.offsets[-1]:,} "
                f"(cut short or grown)"
            )

    def span(self, block: int) -> tuple[int, int]:
        """Where a block's compressed bytes are: (offset, length)."""
        return self.offsets[block], self.offsets[block + 1] - self.offsets[block]

    def values_in(self, block: int) -> int:
        """How many values a block holds (the last one may hold fewer)."""
        return min(self.values, self.entries - block * self.values)


def unpack_block(data: bytes, values: int, checksum: int) -> bytes:
    """Decompress one block of `values` values, never to more than that, and check it
    against its checksum; raise BlockFault otherwise."""
    unpacker = zlib.decompressobj(WINDOW_BITS)
    try:
        found = unpacker.decompress(data, values)
        if not unpacker.eof:  # stopped at `values`: read on to the stream's end, no byte more
            found += unpacker.decompress(unpacker.unconsumed_tail, 1)
    except zlib.error:
        raise BlockFault("damaged (does not decompress)") from None
    if len(found) != values or not unpacker.eof or unpacker.unused_data:
        raise BlockFault(f"damaged (decompresses to other than its {values:,} values)")
    if zlib.crc32(found) != checksum:
        raise BlockFault("damaged (its checksum does not match)")
    return found


def pack_block(values: bytes) -> bytes:
    """Compress one block of values as the format's writer does."""
    packer = zlib.compressobj(LEVEL, zlib.DEFLATED, WINDOW_BITS, MEMORY_LEVEL)
    data = packer.compress(values) + packer.flush()
    if len(data) > len(values) + MOST_GROWTH:  # deflate stores what it cannot shrink
        raise AssertionError(f"a block of {len(values)} values grew to {len(data)} bytes")
    return data


class BlockCache:
    """Decompressed blocks of every open file, least recently used first out, holding at
    most `most` bytes of values (one block more, while it is added)."""

    def __init__(self, most: int = CACHE_BYTES) -> None:
        self.most = most
        self.held = 0
        self.blocks: OrderedDict[tuple[int, int], bytes] = OrderedDict()
        self.tokens = count(1)

    def owner(self) -> int:
        """A number for one open file's blocks, never given twice."""
        return next(self.tokens)

    def get(self, owner: int, block: int) -> bytes | None:
        found = self.blocks.get((owner, block))
        if found is not None:
            self.blocks.move_to_end((owner, block))
        return found

    def put(self, owner: int, block: int, values: bytes) -> None:
        self.blocks[owner, block] = values
        self.held += len(values)
        while self.held > self.most and len(self.blocks) > 1:
            _, dropped = self.blocks.popitem(last=False)
            self.held -= len(dropped)

    def forget(self, owner: int) -> None:
        """Drop one file's blocks (closed, or found changed)."""
        for key in [key for key in self.blocks if key[0] == owner]:
            self.held -= len(self.blocks.pop(key))


#: The cache of the process: every open file's blocks, so that many tables open at once
#: still hold CACHE_BYTES of decompressed values at most.
SHARED_CACHE = BlockCache()
