"""Codecs and block sizes for compressed table files (issue 52, item 3; docs/tablebases.md,
"Compressed files"): zlib's levels, lzma's presets and, where the PyPI package `zstandard` is
installed, zstd's levels, each on blocks of 4 to 64 KiB of values compressed one by one (as
a probe would read them), over the tables of a folder grouped by their piece count:

- the ratio: the values' bytes over the compressed blocks' bytes (the block index not
  counted: 8 bytes a block, under 0.2 % at 4 KiB);
- the compression's speed, MB of values a second;
- the time to decompress one block, the median over blocks drawn across the group (µs).

Tables are large (a five-piece ending of 5³ is up to 719 MB), so by default each table is
sampled: evenly spaced stretches of 256 KiB, `--sample` MiB over a piece count's tables
(each its share; 0: every byte).

    python -m bench.compression FOLDER [--sample MIB] [--blocks 4,16,64] [--codecs zlib-9,...]

`section(quick)` builds the tables of 3³ and 4³ up to four pieces (`--compact`) into a
temporary folder and measures them, for bench/tablebase.
"""

from __future__ import annotations

import argparse
import lzma
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bench.peer import ROOT
from bench.report import table
from kernel.tables.tablebase import TableFile, read_header, values_offset
from tablebase.stats import table_file_name, table_files

KIB = 1024
#: Block sizes measured, in values (bytes) a block.
BLOCK_SIZES = (4 * KIB, 8 * KIB, 16 * KIB, 32 * KIB, 64 * KIB)
#: A table is sampled in stretches of this many bytes: a multiple of every block size.
STRETCH = 256 * KIB
#: Blocks decompressed one at a time for the time of one, drawn across a group.
TIMED_BLOCKS = 300
SEED = 52


@dataclass(frozen=True)
class Codec:
    """One codec at one setting: compress a block, decompress it given its length."""

    name: str
    compress: Callable[[bytes], bytes]
    decompress: Callable[[bytes, int], bytes]


def zlib_codec(level: int) -> Codec:
    """Raw deflate (no zlib header or Adler-32: the format's own CRC-32 checks each block),
    decompressed with a bound on its output, as the probe does."""

    def compress(block: bytes) -> bytes:
        packer = zlib.compressobj(level, zlib.DEFLATED, -15, 9)
        return packer.compress(block) + packer.flush()

    def decompress(data: bytes, length: int) -> bytes:
        return zlib.decompressobj(-15).decompress(data, length)

    return Codec(f"zlib-{level}", compress, decompress)


def lzma_codec(preset: int) -> Codec:
    """Raw LZMA2 (no .xz container) at a preset."""
    filters = [{"id": lzma.FILTER_LZMA2, "preset": preset}]

    def compress(block: bytes) -> bytes:
        return lzma.compress(block, format=lzma.FORMAT_RAW, filters=filters)

    def decompress(data: bytes, length: int) -> bytes:
        return lzma.LZMADecompressor(lzma.FORMAT_RAW, filters=filters).decompress(data, length)

    return Codec(f"lzma-{preset}", compress, decompress)


def zstd_codecs(levels: tuple[int, ...]) -> list[Codec]:
    """zstd at these levels, where the package is installed (nothing otherwise)."""
    try:
        import zstandard  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        return []
    found = []
    for level in levels:
        packer = zstandard.ZstdCompressor(level=level, write_content_size=False)
        unpacker = zstandard.ZstdDecompressor()

        def decompress(data: bytes, length: int, unpacker: object = unpacker) -> bytes:
            return unpacker.decompress(data, max_output_size=length)  # type: ignore[attr-defined, no-any-return]

        found.append(Codec(f"zstd-{level}", packer.compress, decompress))
    return found


def all_codecs() -> list[Codec]:
    """Every codec measured."""
    return [
        *(zlib_codec(level) for level in (1, 6, 9)),
        *(lzma_codec(preset) for preset in (0, 6)),
        *zstd_codecs((3, 9, 19)),
    ]


@dataclass
class Group:
    """The sampled values of the tables of one piece count."""

    pieces: int
    tables: int = 0
    entries: int = 0
    #: Stretches of values, each a multiple of every block size but perhaps the table's last.
    stretches: list[bytes] = field(default_factory=list)

    @property
    def sampled(self) -> int:
        return sum(len(stretch) for stretch in self.stretches)


def sample_folder(folder: Path, most: int) -> dict[int, Group]:
    """The tables' values (each checked as the engine checks it when opened), grouped by
    piece count: every value, or with `most` bytes a group, evenly spaced stretches of each
    table, as many as its share of the group's entries (one at least)."""
    files = [path for path in table_files(folder) if table_file_name(path) is not None]
    # Plain tables only: a compressed one's values would be measured compressed twice.
    files = [path for path in files if not read_header(path).compressed]
    groups: dict[int, Group] = {}
    for path in files:
        header = read_header(path)
        group = groups.setdefault(len(header.name), Group(len(header.name)))
        group.tables += 1
        group.entries += header.entries
    for path in files:
        table = TableFile(path)
        try:
            table.check_values()
            entries = table.header.entries
            offset = values_offset(table.header)
            group = groups[len(table.header.name)]
            count = (entries + STRETCH - 1) // STRETCH
            share = most * entries // group.entries // STRETCH
            wanted = count if most <= 0 else max(1, min(count, share))
            for k in range(wanted):
                start = k * count // wanted * STRETCH
                stretch = os.pread(table.descriptor, min(STRETCH, entries - start), offset + start)
                group.stretches.append(stretch)
        finally:
            table.close()
    return groups


@dataclass(frozen=True)
class Row:
    """One codec and block size over one group."""

    codec: str
    block: int
    ratio: float
    compress_mb_s: float
    decompress_us: float


def measure(group: Group, codec: Codec, block: int, rng: random.Random) -> Row:
    """Compress every sampled block, then time decompressing a few hundred drawn at random."""
    raw = packed = 0
    kept: list[tuple[bytes, int]] = []
    began = time.process_time()
    for stretch in group.stretches:
        for start in range(0, len(stretch), block):
            values = stretch[start : start + block]
            data = codec.compress(values)
            raw += len(values)
            packed += len(data)
            kept.append((data, len(values)))
    seconds = time.process_time() - began
    timed = []
    for data, length in rng.sample(kept, min(TIMED_BLOCKS, len(kept))):
        began = time.perf_counter()
        codec.decompress(data, length)
        timed.append(time.perf_counter() - began)
    return Row(
        codec.name,
        block,
        raw / packed,
        raw / max(seconds, 1e-9) / 1e6,
        statistics.median(timed) * 1e6,
    )


def rows_text(group: Group, rows: list[Row]) -> str:
    """One group's rows as a plain table."""
    heading = (
        f"{group.pieces} pieces: {group.tables} tables, {group.entries:,} entries, "
        f"{group.sampled:,} sampled"
    )
    return (
        heading
        + "\n\n"
        + table(
            ["codec", "block", "ratio", "compress MB/s", "decompress µs a block"],
            [
                [
                    row.codec,
                    f"{row.block // KIB} KiB",
                    f"{row.ratio:.2f}",
                    f"{row.compress_mb_s:.1f}",
                    f"{row.decompress_us:.1f}",
                ]
                for row in rows
            ],
        )
    )


def run(
    folder: Path,
    most: int,
    blocks: tuple[int, ...] = BLOCK_SIZES,
    codecs: list[Codec] | None = None,
    report: Callable[[str], None] | None = None,
) -> str:
    """Measure every codec and block size on a folder's tables; the text of the tables."""
    chosen = all_codecs() if codecs is None else codecs
    groups = sample_folder(folder, most)
    rng = random.Random(SEED)
    texts = []
    for pieces in sorted(groups, reverse=True):
        group = groups[pieces]
        rows = []
        for codec in chosen:
            for block in blocks:
                if report is not None:
                    report(f"{pieces} pieces: {codec.name}, {block // KIB} KiB")
                rows.append(measure(group, codec, block, rng))
        texts.append(rows_text(group, rows))
    if not any(codec.name.startswith("zstd") for codec in chosen):
        texts.append("(zstd not measured: the package zstandard is not installed)")
    return "\n\n".join(texts)


def section(quick: bool = False) -> str:
    """The tables of 3³ (and 4³ in a full run) up to four pieces in version 3, built into a
    temporary folder, measured whole: zlib and lzma (and zstd where installed) at 4 and 16
    KiB (every size in a full run)."""
    sizes = (3,) if quick else (3, 4)
    with tempfile.TemporaryDirectory(prefix="cubemate-bench-compression-") as name:
        folder = Path(name)
        for size in sizes:
            subprocess.run(
                [sys.executable, "-m", "tablebase", "build", "--compact", "--size", str(size),
                 "--pieces", "4", "--out", str(folder)],
                cwd=ROOT, check=True, capture_output=True,
            )  # fmt: skip
        chosen = [zlib_codec(9), lzma_codec(6), *zstd_codecs((19,))] if quick else None
        blocks = (4 * KIB, 16 * KIB) if quick else BLOCK_SIZES
        text = run(folder, 0, blocks, chosen)
    where = ", ".join(f"{size}³" for size in sizes)
    return f"Compressed tables: codecs and block sizes on the tables of {where}\n\n{text}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.compression", description=__doc__)
    parser.add_argument("folder", type=Path, nargs="?", help="a folder of tables (default: build)")
    parser.add_argument(
        "--sample", type=int, default=32, help="MiB sampled a piece count (0: every byte)"
    )
    parser.add_argument("--blocks", help="block sizes in KiB, by commas (default 4,8,16,32,64)")
    parser.add_argument("--codecs", help="codecs by commas, as named in the output")
    parser.add_argument("--quick", action="store_true", help="built tables, fewer settings")
    arguments = parser.parse_args(argv)
    if arguments.folder is None:
        print(section(arguments.quick))
        return 0
    if not arguments.folder.is_dir():
        parser.error(f"{arguments.folder}: not a folder")
    blocks: tuple[int, ...] = BLOCK_SIZES
    if arguments.blocks:
        blocks = tuple(int(size) * KIB for size in arguments.blocks.split(","))
    codecs = all_codecs()
    if arguments.codecs:
        names = arguments.codecs.split(",")
        codecs = [codec for codec in codecs if codec.name in names]
        unknown = set(names) - {codec.name for codec in codecs}
        if unknown:
            parser.error(f"unknown codecs: {', '.join(sorted(unknown))}")
    text = run(
        arguments.folder,
        arguments.sample * 1024 * KIB,
        blocks,
        codecs,
        lambda line: print(line, file=sys.stderr, flush=True),
    )
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
