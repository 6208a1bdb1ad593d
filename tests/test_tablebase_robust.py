"""Table files and folders that are no tables (issue 49, items 1–4; docs/robustness.md): a FIFO
or /dev/stdin at a table's name, a forged header with a valid checksum, a file cut short or
written while the engine has it open, and the CLI's folders, headers, memory, full disks,
closed pipes, concurrent builds and links, each through the real process: the engine
(`main.py --tablebases DIR` on pipes) or `python -m tablebase`."""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import subprocess
import sys
import time
import zlib
from pathlib import Path

import pytest

from kernel.compiled import COMPILED
from kernel.tables.tablebase import (
    HEADER_SIZE,
    MOST_HEADER_BYTES,
    Header,
    check_header,
    entries_of,
    file_name,
    read_header,
    read_table,
)
from tablebase.build import build
from tablebase.files import longest_plies
from tests.conftest import Engine

ROOT = Path(__file__).resolve().parent.parent
#: The longest win in KQKR on 3³: white mates in 4.
KQKR_WIN_4 = "3 [###,###,###],[##Q,###,###],[###,r##,K#k] w"
#: King and queen against king, white to move: every such position is `win 1` on 3³.
KQK_WIN_1 = "3 [###,###,###],[###,###,###],[###,Q##,K#k] w"
#: Seconds within which anything here answers (a hang is what is tested against).
PROMPT = 20


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tables of 3 (and where compiled 4) pieces on 3³."""
    folder = tmp_path_factory.mktemp("good")
    build(folder, 3, 4 if COMPILED else 3)
    return folder


def cli(*arguments: str, timeout: float = PROMPT) -> subprocess.CompletedProcess[str]:
    """`python -m tablebase` as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "tablebase", *arguments],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def one_line(stderr: str) -> str:
    """The single line a refusal writes on stderr (no traceback)."""
    assert "Traceback" not in stderr, stderr
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    return lines[0]


def ask(engine: Engine, *lines: str) -> list[str]:
    """Send lines at once; return each answer, its empty line cut."""
    engine.send("".join(f"{line}\n" for line in lines).encode())
    return [engine.read_response(PROMPT).decode().strip() for _ in lines]


def probe(engine: Engine, board: str) -> str:
    return ask(engine, f"set_board {board}", "tb_probe")[1]


def still_plays(engine: Engine, board: str) -> None:
    """genmove and mate_search answer after a table was refused (the search, not the table)."""
    _, move, mate = ask(engine, f"set_board {board}", "genmove", "mate_search 1")
    assert move.startswith("= ") and len(move) > 2, move
    assert mate.startswith(("= 1 ", "? no mate")), mate


def forged(header: Header, values: bytes = b"") -> bytes:
    """A header with a valid checksum, saying whatever it was given."""
    return header.pack() + values


# --- item 1: a FIFO, or /dev/stdin, at a table's name ---------------------------------------


def test_a_fifo_at_a_tables_name_is_refused_at_once(tables: Path, tmp_path: Path) -> None:
    folder = tmp_path / "t"
    shutil.copytree(tables, folder)
    fifo = folder / file_name("KQK", 3)
    fifo.unlink()
    os.mkfifo(fifo)
    engine = Engine(tmp_path / "logs", "--tablebases", str(folder))
    try:
        answer = probe(engine, KQK_WIN_1)
        assert answer == f"? {fifo}: a FIFO, not a table file"
        still_plays(engine, KQK_WIN_1)
        assert probe(engine, KQKR_WIN_4) == "= win 4"  # the other tables still answer
    finally:
        engine.discard()
    for command, told in (("stats", "; left out"), ("verify", "")):
        process = cli(command, str(folder if command == "stats" else fifo))
        assert process.returncode == 2, command
        assert one_line(process.stderr) == f"tablebase: {fifo}: a FIFO, not a table file{told}"
    process = cli("build", "--size", "3", "--pieces", "3", "--out", str(folder))
    assert process.returncode == 2
    assert f"{fifo}: a FIFO, not a table file; remove it" in process.stderr.splitlines()[-1]
    assert fifo.is_fifo()


def test_a_table_linked_to_stdin_does_not_eat_the_protocols_lines(tmp_path: Path) -> None:
    folder = tmp_path / "t"
    folder.mkdir()
    (folder / file_name("KQK", 3)).symlink_to("/dev/stdin")
    engine = Engine(tmp_path / "logs", "--tablebases", str(folder))
    try:
        # Everything sent at once: a reader of stdin would swallow the lines after tb_probe.
        answers = ask(engine, f"set_board {KQK_WIN_1}", "tb_probe", "name", "status")
        assert answers[1].startswith("? ") and "a FIFO, not a table file" in answers[1]
        assert answers[2].startswith("= ") and answers[3] == "= normal"
    finally:
        engine.discard()


# --- item 2: a forged header with a valid checksum ----------------------------------------


def peak_kib(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    match = re.search(r"^VmHWM:\s+(\d+) kB$", status, re.MULTILINE)
    assert match is not None
    return int(match.group(1))


def test_a_forged_header_is_refused_before_anything_is_allocated(
    tables: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "t"
    folder.mkdir()
    kqk = folder / file_name("KQK", 3)
    # The issue's: n = 64, 8·10^14 entries, named KQK.n3.
    kqk.write_bytes(forged(Header(64, "KQK", 8 * 10**14, 10**14, 3, 0)) + bytes(100))
    # Consistent with itself, but not with the file's length.
    kqkr = folder / file_name("KQKR", 3)
    kqkr.write_bytes(forged(Header(3, "KQKR", entries_of("KQKR", 3), 10, 3, 0)) + bytes(99))
    engine = Engine(tmp_path / "logs", "--tablebases", str(folder))
    try:
        began = time.monotonic()
        answer = probe(engine, KQK_WIN_1)
        assert answer == f"? {kqk}: impossible header (size 64; tables are built for 3 ... 31)"
        answer = probe(engine, KQKR_WIN_4)
        assert answer.startswith(f"? {kqkr}: 155 bytes long where its header says 157,520")
        assert time.monotonic() - began < 5
        still_plays(engine, KQK_WIN_1)
        still_plays(engine, KQKR_WIN_4)
        assert peak_kib(engine.pid) < 200_000  # the probe took 561 MB (idle: 21 MB)
    finally:
        engine.discard()
    process = cli("verify", str(kqk))
    assert process.returncode == 2 and "impossible header" in one_line(process.stderr)
    process = cli("info", str(kqk), str(kqkr))
    assert process.returncode == 1 and process.stdout.count("FAULTY") == 2


# --- item 3: a table changed while the engine has it open ---------------------------------


def test_a_table_cut_short_or_written_under_the_engine_is_never_read_as_it_was(
    tables: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "t"
    shutil.copytree(tables, folder)
    path = folder / file_name("KQKR", 3)
    good = path.read_bytes()
    engine = Engine(tmp_path / "logs", "--tablebases", str(folder))
    try:
        assert probe(engine, KQKR_WIN_4) == "= win 4"  # the file open and checked
        time.sleep(0.05)  # past the clock tick of the check: the change time moves
        os.truncate(path, HEADER_SIZE + 1000)  # what used to give `draw`, or SIGBUS
        answer = probe(engine, KQKR_WIN_4)
        assert answer == (
            f"? {path}: 1,056 bytes long where its header says 157,520 (157,464 values after "
            "the header; cut short or grown)"
        )
        assert ask(engine, "status")[0] == "= check"  # and the engine answers on
        # Written back whole, in place: checked again and read.
        with path.open("r+b") as file:
            file.write(good)
        assert probe(engine, KQKR_WIN_4) == "= win 4"
        time.sleep(0.05)
        # One value changed in place, the size kept: the checksum tells.
        with path.open("r+b") as file:
            file.seek(HEADER_SIZE + 5000)
            file.write(bytes([good[HEADER_SIZE + 5000] ^ 2]))
        damaged = f"? {path}: damaged (the values' checksum does not match)"
        assert probe(engine, KQKR_WIN_4) == damaged
        # Another file put at its name (a rename): seen within a second, checked, read.
        fresh = folder / "fresh"
        fresh.write_bytes(good)
        os.replace(fresh, path)
        time.sleep(1.1)
        assert probe(engine, KQKR_WIN_4) == "= win 4"
        assert engine.process.poll() is None
    finally:
        engine.discard()


# --- item 4: the CLI ----------------------------------------------------------------------


def test_stats_on_a_folder_with_a_file_that_is_no_table(tables: Path, tmp_path: Path) -> None:
    folder = tmp_path / "t"
    folder.mkdir()
    shutil.copy(tables / file_name("KQK", 3), folder)
    (folder / "notes.cubetb").write_text("my notes\n")
    process = cli("stats", str(folder))
    assert process.returncode == 2
    assert one_line(process.stderr) == (
        f"tablebase: {folder / 'notes.cubetb'}: not a table's name "
        "(ENDING.nN[.VARIANT].cubetb); left out"
    )
    assert "| KQK | 3 |" in process.stdout


def test_a_header_longest_mate_out_of_range_or_lying_is_refused(
    tables: Path, tmp_path: Path
) -> None:
    values = read_table(tables / file_name("KQKR", 3), "KQKR", 3)
    header = read_header(tables / file_name("KQKR", 3))
    true_longest = longest_plies(values)
    assert header.longest == true_longest == 8
    path = tmp_path / file_name("KQKR", 3)
    for longest, fault in (
        (254, "impossible header (a longest mate of 254 plies; a byte holds 253)"),
        (3, "its header's longest mate is 3 plies, a value says 8"),
        (9, "its header's longest mate of 9 plies is in no value"),
    ):
        lying = Header(3, "KQKR", header.entries, header.positions, longest, zlib.crc32(values))
        path.write_bytes(forged(lying, values))
        for command in ("verify", "stats"):
            process = cli(command, str(path if command == "verify" else tmp_path))
            assert process.returncode == 2, (command, longest)
            assert fault in one_line(process.stderr), (command, process.stderr)
        process = cli("info", str(path))
        assert process.returncode == 1 and process.stdout.strip().endswith(f"FAULTY: {fault}")


def test_a_build_that_cannot_fit_in_memory_is_refused_with_its_estimate(tmp_path: Path) -> None:
    folder = tmp_path / "t31"
    began = time.monotonic()
    process = cli("build", "--size", "31", "--pieces", "3", "--out", str(folder))
    assert time.monotonic() - began < PROMPT / 2
    assert process.returncode == 2
    line = one_line(process.stderr)
    assert line.startswith("tablebase: KQK on the 31-cube needs about 1.63 TB of memory")
    assert "1,448,406,007,392 entries" in line and "free: build fewer pieces" in line
    assert not folder.exists()


def can_mount_a_small_disk() -> bool:
    try:
        return (
            subprocess.run(["unshare", "-rm", "true"], capture_output=True, timeout=10).returncode
            == 0
        )
    except (OSError, subprocess.SubprocessError):
        return False


@pytest.mark.skipif(not can_mount_a_small_disk(), reason="no user namespaces to mount a tmpfs")
def test_a_full_disk_is_one_line_and_leaves_no_part(tmp_path: Path) -> None:
    """A tmpfs of 100 kB, mounted in a namespace of the test's own: the four three-piece
    tables fit (24 kB), the first of four pieces (KQQK, 157 kB) does not."""
    disk = tmp_path / "disk"
    disk.mkdir()
    script = (
        f"mount -t tmpfs -o size=100k tmpfs {disk} && cd {ROOT} && "
        f"{sys.executable} -m tablebase build --size 3 --pieces 4 --out {disk}; "
        f"echo status $?; ls -a {disk}"
    )
    process = subprocess.run(
        ["unshare", "-rm", "sh", "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert "status 2" in process.stdout, process
    last = process.stderr.splitlines()[-1]
    assert "Traceback" not in process.stderr
    assert last == (
        f"tablebase: {disk / file_name('KQQK', 3)}: cannot write: No space left on device "
        "(the tables written before it are whole)"
    )
    listed = process.stdout.split()
    assert not [name for name in listed if name.endswith(".part")]
    assert {file_name(name, 3) for name in ("KQK", "KRK", "KBK", "KNK")} <= set(listed)


def test_stats_into_a_pipe_closed_early_stops_quietly(tables: Path) -> None:
    stats = subprocess.Popen(
        [sys.executable, "-m", "tablebase", "stats", str(tables)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert stats.stdout is not None and stats.stderr is not None
    first = stats.stdout.readline()
    stats.stdout.close()  # `| head -1`
    status = stats.wait(timeout=PROMPT)
    error = stats.stderr.read().decode()
    stats.stderr.close()
    assert first.startswith(b"| ending |")
    assert error == "" and status == 141


@pytest.mark.skipif(not COMPILED, reason="four-piece tables need the compiled core")
def test_two_builds_into_one_folder_both_finish_and_leave_every_table(tmp_path: Path) -> None:
    folder = tmp_path / "t"
    command = [sys.executable, "-m", "tablebase", "build", "--size", "3", "--pieces", "4"]
    builds = [
        subprocess.Popen(
            [*command, "--out", str(folder)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    results = [build.communicate(timeout=60) for build in builds]
    assert [build.returncode for build in builds] == [0, 0], results
    tables = sorted(folder.glob("*.cubetb"))
    assert len(tables) == 24 and not list(folder.glob("*.part"))
    process = cli("info", *map(str, tables))
    assert process.returncode == 0 and process.stdout.count("checksums ok") == 24


def test_a_link_to_nothing_or_a_loop_at_a_tables_name_is_never_replaced(tmp_path: Path) -> None:
    folder = tmp_path / "t"
    folder.mkdir()
    dangling = folder / file_name("KQK", 3)
    dangling.symlink_to(tmp_path / "nowhere")
    loop = folder / file_name("KRK", 3)
    loop.symlink_to(loop.name)
    process = cli("build", "--size", "3", "--pieces", "3", "--out", str(folder))
    assert process.returncode == 2
    assert process.stderr.splitlines()[-1] == (
        f"tablebase: {dangling}: a symbolic link to nothing; remove it to build the table again"
    )
    os.unlink(dangling)
    process = cli("build", "--size", "3", "--pieces", "3", "--out", str(folder))
    assert process.returncode == 2
    assert process.stderr.splitlines()[-1] == (
        f"tablebase: {loop}: a loop of symbolic links; remove it to build the table again"
    )
    assert os.readlink(loop) == loop.name
    engine = Engine(tmp_path / "logs", "--tablebases", str(folder))
    try:
        rook = "3 [###,###,###],[###,###,###],[###,R##,K#k] w"
        assert probe(engine, rook) == f"? {loop}: a loop of symbolic links"
    finally:
        engine.discard()


# --- issue 63, item 2: a header that names another ending than its file ---------------------


def renamed_header(data: bytes, name: str) -> bytes:
    """A table file's bytes with its header naming another ending of as many letters, the
    header's checksum made anew: every other check of the file still holds."""
    header = read_header_of_bytes(data)
    length = len(header.pack())
    return dataclasses.replace(header, name=name).pack() + data[length:]


def read_header_of_bytes(data: bytes) -> Header:
    """The header of a table file's bytes, as the engine checks it."""
    return check_header(Path("forged"), data[:MOST_HEADER_BYTES], len(data))


FORGERIES = [("KQK", "KRK")] + ([("KQKR", "KRKN")] if COMPILED else [])


@pytest.mark.parametrize("version", ["plain", "compressed"])
@pytest.mark.parametrize(("named", "holds"), FORGERIES)
def test_a_header_naming_another_ending_is_refused_by_every_command(
    tables: Path, tmp_path: Path, version: str, named: str, holds: str
) -> None:
    source = tables
    if version == "compressed":
        source = tmp_path / "v4"
        assert cli("compress", str(tables), "--out", str(source)).returncode == 0
    folder = tmp_path / "t"
    shutil.copytree(source, folder)
    path = folder / file_name(named, 3)
    path.write_bytes(renamed_header(path.read_bytes(), holds))
    assert read_header(path).name == holds  # the forgery is sound but for its name
    refusal = f"{path}: holds {holds} on the 3-cube, not {named} on the 3-cube"
    stats = cli("stats", str(folder))
    assert stats.returncode == 2
    assert one_line(stats.stderr) == f"tablebase: {refusal}; left out"
    rows = [line for line in stats.stdout.splitlines() if line.startswith(f"| {holds} |")]
    assert len(rows) == 1  # the real table's row alone
    # verify names the forged file (not a smaller table it would have read for the header's
    # ending), also where it stands alone in its folder.
    alone = tmp_path / "alone" / path.name
    alone.parent.mkdir()
    shutil.copy(path, alone)
    for checked in (path, alone):
        process = cli("verify", str(checked))
        assert process.returncode == 2
        assert one_line(process.stderr) == (
            f"tablebase: {checked}: holds {holds} on the 3-cube, not {named} on the 3-cube"
        )
        assert process.stdout == ""
    info = cli("info", str(path))
    assert info.returncode == 1
    assert info.stdout.strip().endswith(
        f"FAULTY: named {named} on the 3-cube, holds another ending"
    )


@pytest.mark.skipif(not COMPILED, reason="four-piece tables need the compiled core")
def test_verify_of_a_table_without_its_smaller_ones_names_both(
    tables: Path, tmp_path: Path
) -> None:
    """A sound table alone in its folder: verify names the table it was asked for and the
    smaller table its captures need (before, only the smaller one, as if it were asked for)."""
    alone = tmp_path / file_name("KQKR", 3)
    shutil.copy(tables / alone.name, alone)
    process = cli("verify", str(alone))
    assert process.returncode == 2 and process.stdout == ""
    needed = "|".join(re.escape(str(tmp_path / file_name(name, 3))) for name in ("KQK", "KRK"))
    assert re.fullmatch(
        rf"tablebase: {re.escape(str(alone))}: its captures need the smaller tables: "
        rf"({needed}): no such file",
        one_line(process.stderr),
    ), process.stderr
