"""Compressed tables, format version 4 (issue 52, item 3; docs/tablebases.md, "Version 4:
compressed blocks"): `python -m tablebase compress` gives back every value byte for byte, a
probe of a compressed file reads what the plain one holds at every index, a damaged block
or block index is refused by name, the engine answers `tb_probe` and plays `genmove` from a
folder mixing compressed and plain tables, and nothing not the command's own is replaced."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kernel.compiled import COMPILED
from kernel.config import EngineConfig
from kernel.kernel import Kernel
from kernel.tables.blocks import BLOCK_ENTRY, BlockCache, index_length
from kernel.tables.tablebase import (
    BLOCKS_VERSION,
    HEADER_V4_SIZE,
    Table,
    Tablebases,
    TableError,
    TableFile,
    endings,
    file_name,
    read_header,
    read_table,
    value_text,
)
from tablebase.build import build
from tablebase.compress import CompressError, compress_folder
from tablebase.stats import position_text
from tests.conftest import Engine
from tests.tablebase_cli import tablebase_cli

#: The fewest values a block may hold: the small tables of 3³ then make many blocks.
SMALL_BLOCKS = 4096
#: The longest win in KQKR on 3³: white mates in 4.
KQKR_WIN_4 = "3 [###,###,###],[##Q,###,###],[###,r##,K#k] w"
PIECES = 4 if COMPILED else 3


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every table of up to four pieces on 3³ (version 1) and of three on 4³."""
    folder = tmp_path_factory.mktemp("plain")
    build(folder, 3, PIECES)
    build(folder, 4, 3)
    return folder


@pytest.fixture(scope="module")
def compact(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same tables of 3³ in version 3."""
    folder = tmp_path_factory.mktemp("compact")
    build(folder, 3, PIECES, compact=True)
    return folder


@pytest.fixture(scope="module")
def packed(plain: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The plain tables compressed, blocks of the fewest values."""
    folder = tmp_path_factory.mktemp("packed")
    done, faults = compress_folder(plain, folder, SMALL_BLOCKS)
    assert not faults and len(done) == len(list(plain.glob("*.cubetb")))
    return folder


def test_compressing_gives_back_every_value_byte_for_byte(
    plain: Path, compact: Path, packed: Path, tmp_path: Path
) -> None:
    for path in sorted(plain.glob("*.cubetb")):
        header = read_header(packed / path.name)
        assert header.compressed and header.plain_header() == read_header(path)
        assert read_table(packed / path.name) == read_table(path), path.name
    # Version 3's values, in blocks of the default size: numbered by version 3's index still.
    done, faults = compress_folder(compact, tmp_path)
    assert not faults and len(done) == len(endings(3)) + (len(endings(4)) if COMPILED else 0)
    for result in done:
        header = read_header(result.path)
        assert (header.version, header.numbering, header.compact) == (BLOCKS_VERSION, 3, True)
        assert read_table(result.path) == read_table(compact / result.path.name)
        assert result.packed_bytes * 3 < result.plain_bytes  # these compress well


def test_a_probe_of_a_compressed_file_reads_the_plain_value_at_every_index(
    plain: Path, packed: Path
) -> None:
    """Every index, in a small cache (two blocks) so that blocks are dropped and read again,
    and in the shared one."""
    chosen = [("KQKR", 3), ("KQK", 4)] if COMPILED else [("KQK", 3), ("KQK", 4)]
    for name, size in chosen:
        values = read_table(plain / file_name(name, size))
        for cache in (BlockCache(2 * SMALL_BLOCKS), None):
            table = (
                TableFile(packed / file_name(name, size))
                if cache is None
                else TableFile(packed / file_name(name, size), cache=cache)
            )
            try:
                assert table.header.blocks > 2
                assert bytes(table.value(index) or 0 for index in range(len(values))) == values
                if cache is not None:
                    assert cache.held <= 2 * SMALL_BLOCKS and len(cache.blocks) == 2
            finally:
                table.close()
            if cache is not None:
                assert not cache.blocks  # a file closed leaves nothing in the cache


def damaged_copy(packed: Path, folder: Path, name: str, size: int) -> tuple[Path, int]:
    """A copy of a compressed file with one byte flipped halfway through its blocks; the
    block it falls in."""
    source = packed / file_name(name, size)
    header = read_header(source)
    start = HEADER_V4_SIZE + index_length(header.blocks)
    data = bytearray(source.read_bytes())
    where = (len(data) - start) // 2
    data[start + where] ^= 0x40
    copy = folder / source.name
    copy.write_bytes(bytes(data))
    table = TableFile(source)
    try:
        assert table.blocks is not None
        block = next(
            b for b in range(table.blocks.blocks) if table.blocks.offsets[b + 1] > start + where
        )
    finally:
        table.close()
    return copy, block


def test_a_damaged_block_is_refused_by_file_and_block_and_the_others_still_read(
    packed: Path, tmp_path: Path
) -> None:
    copy, block = damaged_copy(packed, tmp_path, "KQK", 4)
    table = TableFile(copy)  # the header and the block index are sound: it opens
    try:
        with pytest.raises(TableError) as refused:
            table.value(block * SMALL_BLOCKS)
        blocks = table.header.blocks
        assert str(refused.value).startswith(f"{copy}: block {block} of {blocks}: damaged (")
        other = (block + 1) % blocks
        assert (
            table.value(other * SMALL_BLOCKS)
            == read_table(packed / copy.name)[other * SMALL_BLOCKS]
        )
    finally:
        table.close()
    process = tablebase_cli("info", str(copy))
    assert (
        process.returncode == 1 and f"FAULTY: block {block} of {blocks}: damaged" in process.stdout
    )
    # The block index damaged: refused when opened.
    data = bytearray((packed / copy.name).read_bytes())
    data[HEADER_V4_SIZE + BLOCK_ENTRY.size] ^= 1
    copy.write_bytes(bytes(data))
    with pytest.raises(TableError, match="damaged block index"):
        TableFile(copy)
    # Cut short, or grown: refused by its length against the block index.
    copy.write_bytes((packed / copy.name).read_bytes()[:-1])
    with pytest.raises(TableError, match="where its block index says"):
        TableFile(copy)


def test_the_engine_probes_and_plays_from_a_folder_mixing_compressed_and_plain_tables(
    plain: Path, packed: Path, tmp_path: Path
) -> None:
    """KQKR compressed beside plain tables of version 1 (KQK, which its captures lead into,
    among them): tb_probe and genmove read both; then a damaged block of KQKR is named by
    tb_probe, file and block, and the engine goes on."""
    mixed = tmp_path / "mixed"
    shutil.copytree(plain, mixed)
    name = "KQKR" if COMPILED else "KQK"
    path = mixed / file_name(name, 3)
    path.unlink()
    shutil.copy(packed / path.name, path)
    assert read_header(path).compressed and read_header(mixed / file_name("KQK", 4)).version == 1
    four_cubed = f"4 {'[####,####,####,####],' * 3}[####,####,###k,KQ##] w"
    kernel = Kernel(EngineConfig())
    assert kernel.execute("set_board", four_cubed.split()).ok
    expected = f"= {value_text(Tablebases(plain).probe(kernel.position))}".encode()
    assert expected.startswith(b"= win")
    engine = Engine(tmp_path, "--tablebases", str(mixed))
    try:
        if COMPILED:
            assert engine.ask(f"set_board {KQKR_WIN_4}").startswith(b"=")
            assert engine.ask("tb_probe").strip() == b"= win 4"
            assert engine.ask("genmove").startswith(b"= ")  # the table's fastest win
            assert engine.ask("tb_probe").strip() == b"= loss 3"
        assert engine.ask(f"set_board {four_cubed}").startswith(b"=")
        assert engine.ask("tb_probe").strip() == expected
    finally:
        engine.finish()
    damaged, block = damaged_copy(packed, tmp_path, name, 3)
    path.unlink()
    shutil.copy(damaged, path)
    values = read_table(packed / path.name)
    start = block * SMALL_BLOCKS
    index = next(i for i in range(start, start + SMALL_BLOCKS) if values[i] not in (0, 255))
    board = position_text(Table(name, 3), index)
    engine = Engine(tmp_path, "--tablebases", str(mixed))
    try:
        assert engine.ask(f"set_board {board}").startswith(b"=")
        blocks = read_header(path).blocks
        answer = engine.ask("tb_probe").decode().strip()
        assert answer.startswith(f"? {path}: block {block} of {blocks}: damaged ("), answer
        assert engine.ask(f"set_board {four_cubed}").startswith(b"=")
        assert engine.ask("tb_probe").strip() == expected
    finally:
        engine.finish()


def test_compress_refuses_bad_input_and_replaces_nothing_not_its_own(
    plain: Path, tmp_path: Path
) -> None:
    source = tmp_path / "source"
    source.mkdir()
    for name in ("KQK", "KRK"):
        shutil.copy(plain / file_name(name, 3), source)
    target = tmp_path / "target"
    target.mkdir()
    foreign = target / file_name("KRK", 3)
    foreign.write_bytes(b"a file of someone else's")
    process = tablebase_cli("compress", str(source), "--out", str(target))
    assert process.returncode == 2
    assert (
        f"{foreign}: not an endgame table (no CUBETB header); not this command's" in process.stderr
    )
    assert foreign.read_bytes() == b"a file of someone else's"
    assert read_header(target / file_name("KQK", 3)).compressed  # the other one written
    # Run again: its own file kept, the foreign one still refused; nothing left half written.
    process = tablebase_cli("compress", str(source), "--out", str(target))
    assert process.returncode == 2 and "kept (compressed already)" in process.stderr
    assert sorted(path.name for path in target.iterdir()) == [
        ".tablebase-build.lock",
        file_name("KQK", 3),
        file_name("KRK", 3),
    ]
    # A damaged source: named, and nothing written for it.
    data = bytearray((plain / file_name("KRK", 3)).read_bytes())
    data[-5] ^= 1
    (source / file_name("KRK", 3)).write_bytes(bytes(data))
    elsewhere = tmp_path / "elsewhere"
    process = tablebase_cli("compress", str(source), "--out", str(elsewhere))
    assert process.returncode == 2
    assert (
        "KRK.n3.cubetb: damaged (the values' checksum does not match); left out" in process.stderr
    )
    assert not (elsewhere / file_name("KRK", 3)).exists()
    assert not list(elsewhere.glob("*.part"))
    # The source folder as the target, a compressed folder as the source, a bad block size.
    with pytest.raises(CompressError, match="the source folder itself"):
        compress_folder(source, source)
    process = tablebase_cli("compress", str(target), "--out", str(tmp_path / "again"))
    assert process.returncode == 2 and "compressed already (format version 4)" in process.stderr
    process = tablebase_cli("compress", str(source), "--out", str(elsewhere), "--block", "5000")
    assert process.returncode == 2 and "--block 5000: 5,000 values a block" in process.stderr
