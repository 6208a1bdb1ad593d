"""The table format as a contract (issue 55): the reference reader of docs/tablebases.md, taken
out of the page as a user pastes it, reads the values `tb_probe` answers through the engine on
thousands of seeded random positions of several endings and sizes, both sides to move, the
colours exchanged, in every symmetric form; and `python -m tablebase info` describes the files
built and names a damaged one with its fault. If the docs and the files drift apart, this fails.
"""

from __future__ import annotations

import importlib.util
import json
import random
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest

from kernel.compiled import COMPILED
from kernel.tables.tablebase import FORMAT_VERSION, HEADER_SIZE, ending_name, file_name
from tests.conftest import run_engine
from tests.tablebase_cli import tablebase_cli

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "tablebases.md"
#: (white's pieces, black's) after the kings, and the board size: the endings asked, each
#: with the colours as written (black the stronger where it is first, read exchanged).
ENDINGS = [
    ("Q", "", 3),
    ("", "R", 3),
    ("Q", "R", 3),
    ("R", "Q", 3),
    ("QQ", "", 3),
    ("RN", "", 3),
    ("N", "B", 3),
    ("", "BN", 3),
    ("Q", "", 4),
    ("", "R", 4),
    ("Q", "", 5),
    ("N", "", 5),
]
#: Raumschach's (its bishop on the flat diagonals, the unicorn), read from version-2 files.
RAUMSCHACH_ENDINGS = [("Q", "", 5), ("", "Q", 5), ("B", "", 5), ("U", "", 5), ("", "B", 5)]
POSITIONS_EACH = 300
SEED = 55


def reader_source() -> str:
    """The reference reader: the first ```python block after its heading."""
    text = DOCS.read_text(encoding="utf-8")
    section = text[text.index("### A reference reader") :]
    match = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert match is not None, "no python block under '### A reference reader'"
    return match.group(1)


@pytest.fixture(scope="module")
def reader(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    """The reader pasted into a file of its own, loaded from there."""
    path = tmp_path_factory.mktemp("reader") / "reader.py"
    path.write_text(reader_source(), encoding="utf-8")
    spec = importlib.util.spec_from_file_location("docs_reader", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def reader_answer(answer: str) -> str:
    """What the docs' reader gives for a position the engine answered `answer` to: the
    value, or `no value` where the engine refuses the position or the table holds none."""
    if answer in ("? the side not to move is in check", "no value"):
        return "no value"
    return answer.removeprefix("= ")


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Fresh tables, built as a user builds them: 3³ up to four pieces, 4³ and 5³ of three,
    and Raumschach's of three on 5³."""
    folder = tmp_path_factory.mktemp("tables")
    for size, pieces in ((3, 4 if COMPILED else 3), (4, 3), (5, 3)):
        process = tablebase_cli(
            "build", "--size", str(size), "--pieces", str(pieces), "--out", str(folder)
        )
        assert process.returncode == 0, process.stderr
    process = tablebase_cli(
        "build", "--variant", "raumschach", "--size", "5", "--pieces", "3", "--out", str(folder)
    )
    assert process.returncode == 0, process.stderr
    return folder


def board_text(size: int, pieces: dict[int, str], side: str) -> str:
    """A board as get_board writes it: layers from the top level, rows from the back rank."""
    layers = []
    for z in reversed(range(size)):
        rows = []
        for y in reversed(range(size)):
            rows.append("".join(pieces.get(x + size * (y + size * z), "#") for x in range(size)))
        layers.append("[" + ",".join(rows) + "]")
    return f"{size} {','.join(layers)} {side}"


def random_positions(
    rng: random.Random, chosen: list[tuple[str, str, int]] = ENDINGS, variant: str = "cube"
) -> list[tuple[str, bool, str]]:
    """(table file, colours exchanged, board) for POSITIONS_EACH random placements of each
    ending: mostly no stored form, since a random placement is one of up to 48 images."""
    found = []
    for white, black, size in chosen:
        name, swapped = ending_name(white, black)
        letters = "Kk" + white + black.lower()
        for _ in range(POSITIONS_EACH):
            cells = rng.sample(range(size**3), len(letters))
            board = board_text(size, dict(zip(cells, letters, strict=True)), rng.choice("wb"))
            found.append((file_name(name, size, variant), swapped, board))
    return found


def engine_answers(
    tables: Path, boards: list[str], log_dir: Path, variant: str = "cube"
) -> list[str]:
    """tb_probe of each board through the engine process, all piped at once (the variant
    set first)."""
    lines = f"variant {variant}\n" + "".join(f"set_board {b}\ntb_probe\n" for b in boards)
    process = run_engine(lines.encode(), log_dir, "--tablebases", str(tables), timeout=120)
    assert process.returncode == 0, process.stderr[-2000:]
    answers = [answer.strip() for answer in process.stdout.decode().split("\n\n")[1:-1]]
    assert len(answers) == 2 * len(boards)
    # A board no game reaches (kings side by side, both kings in check) is refused by
    # set_board: the tb_probe after it is left out, as that of no position.
    return [
        "no value" if set_board.startswith("? invalid board") else probe
        for set_board, probe in zip(answers[0::2], answers[1::2], strict=True)
    ]


def test_the_docs_reader_reads_what_tb_probe_answers(
    reader: ModuleType, tables: Path, tmp_path: Path
) -> None:
    positions = random_positions(random.Random(SEED))
    answers = engine_answers(tables, [board for _, _, board in positions], tmp_path)
    opened = {}
    kinds: Counter[str] = Counter()
    for (key, swapped, board), answer in zip(positions, answers, strict=True):
        if key not in opened:
            opened[key] = reader.open_table(str(tables / key))
        read = reader.probe(opened[key], board)
        expected = reader_answer(answer)
        assert read == expected, (board, answer)
        kinds[read.split()[0]] += 1
        kinds["exchanged"] += swapped
        kinds["black to move"] += board.endswith(" b")
    # Every kind of value, the colours exchanged, both sides to move: each well represented.
    assert set(kinds) == {"win", "loss", "draw", "no", "exchanged", "black to move"}, kinds
    assert min(kinds.values()) >= 100, kinds
    assert len(opened) == len({key for key, _, _ in positions}) == 11


def test_the_docs_reader_reads_raumschachs_tables_as_tb_probe_does(
    reader: ModuleType, tables: Path, tmp_path: Path
) -> None:
    """Version-2 files, read by the same index: the engine under Raumschach's rules answers
    what the reader reads, and the reader says whose tables they are."""
    positions = random_positions(random.Random(SEED + 48), RAUMSCHACH_ENDINGS, "raumschach")
    boards = [board for _, _, board in positions]
    answers = engine_answers(tables, boards, tmp_path, "raumschach")
    kinds: Counter[str] = Counter()
    opened = {}
    for (key, _, board), answer in zip(positions, answers, strict=True):
        if key not in opened:
            opened[key] = reader.open_table(str(tables / key))
            assert opened[key][3] == "raumschach" and key.endswith(".n5.raumschach.cubetb")
        expected = reader_answer(answer)
        assert reader.probe(opened[key], board) == expected, (board, answer)
        kinds[expected.split()[0]] += 1
    assert set(kinds) == {"win", "loss", "draw", "no"} and min(kinds.values()) >= 20, kinds
    assert len(opened) == 3


@pytest.fixture(scope="module")
def compact_tables(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same tables of 3³ numbered by version 3's compact index (`build --compact`)."""
    folder = tmp_path_factory.mktemp("compact")
    pieces = "4" if COMPILED else "3"
    process = tablebase_cli(
        "build", "--compact", "--size", "3", "--pieces", pieces, "--out", str(folder)
    )
    assert process.returncode == 0, process.stderr
    return folder


def test_the_docs_reader_reads_version_3_as_tb_probe_does_and_as_version_1_says(
    reader: ModuleType, tables: Path, compact_tables: Path, tmp_path: Path
) -> None:
    """Version 3's compact index: the engine reading the compact files answers what it
    answers from version 1's, and the reader reads the same from the compact files."""
    chosen = [ending for ending in ENDINGS if ending[2] == 3 and (COMPILED or len(ending[0]) < 2)]
    positions = random_positions(random.Random(SEED + 52), chosen)
    boards = [board for _, _, board in positions]
    compact = engine_answers(compact_tables, boards, tmp_path)
    assert compact == engine_answers(tables, boards, tmp_path)
    opened = {}
    kinds: Counter[str] = Counter()
    for (key, _, board), answer in zip(positions, compact, strict=True):
        if key not in opened:
            opened[key] = reader.open_table(str(compact_tables / key))
            assert opened[key][5] is not None  # the pairs of kings: version 3
        expected = reader_answer(answer)
        assert reader.probe(opened[key], board) == expected, (board, answer)
        kinds[expected.split()[0]] += 1
    assert set(kinds) == {"win", "loss", "draw", "no"}, kinds


def test_the_docs_reader_reads_version_4_as_tb_probe_does_from_the_plain_files(
    reader: ModuleType, tables: Path, compact_tables: Path, tmp_path: Path
) -> None:
    """Compressed files (`python -m tablebase compress`) of versions 1, 2 and 3 in blocks of
    the fewest values (many blocks a file): the engine reading them answers what it answers
    from the plain files, and the reader reads the same from them, each as its plain version."""
    for source, chosen, variant in (
        (tables, ENDINGS, "cube"),
        (tables, RAUMSCHACH_ENDINGS[:2], "raumschach"),
        (compact_tables, [ending for ending in ENDINGS if ending[2] == 3][:4], "cube"),
    ):
        packed = tmp_path / f"{source.name}-{variant}"
        process = tablebase_cli("compress", str(source), "--out", str(packed), "--block", "4096")
        assert process.returncode == 0, process.stderr
        positions = random_positions(random.Random(SEED + 4), chosen, variant)[::3]
        boards = [board for _, _, board in positions]
        answers = engine_answers(packed, boards, tmp_path, variant)
        assert answers == engine_answers(source, boards, tmp_path, variant)
        opened = {}
        kinds: Counter[str] = Counter()
        for (key, _, board), answer in zip(positions, answers, strict=True):
            if key not in opened:
                assert (packed / key).read_bytes()[8] == 4  # the version, low byte
                opened[key] = reader.open_table(str(packed / key))
                assert opened[key][2] == reader.open_table(str(source / key))[2]
            expected = reader_answer(answer)
            assert reader.probe(opened[key], board) == expected, (board, answer)
            kinds[expected.split()[0]] += 1
        assert {"win", "draw", "no"} <= set(kinds), kinds


def test_the_docs_reader_runs_pasted_alone_and_refuses_a_damaged_file(
    tables: Path, tmp_path: Path
) -> None:
    """As the docs say to run it: a file of its own, `python3 reader.py FILE BOARD`, isolated
    from the project (-I: no current folder, no environment on the path)."""
    script = tmp_path / "reader.py"
    script.write_text(reader_source(), encoding="utf-8")
    kqkr = tables / file_name("KQKR", 3)
    run = subprocess.run(
        [
            sys.executable,
            "-I",
            str(script),
            str(kqkr),
            "3 [###,###,###],[##Q,###,###],[###,r##,K#k] w",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert (run.returncode, run.stdout) == (0, "win 4\n"), run.stderr
    damaged = tmp_path / file_name("KQKR", 3)
    data = bytearray(kqkr.read_bytes())
    data[HEADER_SIZE + 77] ^= 1
    damaged.write_bytes(bytes(data))
    run = subprocess.run(
        [
            sys.executable,
            "-I",
            str(script),
            str(damaged),
            "3 [###,###,###],[##Q,###,###],[###,r##,K#k] w",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert run.returncode == 1 and "cut short or damaged" in run.stderr


def test_info_describes_every_file_and_names_a_damaged_one(tables: Path, tmp_path: Path) -> None:
    files = sorted(tables.glob("*.cubetb"))
    process = tablebase_cli("info", *map(str, files))
    assert process.returncode == 0, process.stderr
    lines = process.stdout.splitlines()
    assert len(lines) == len(files)
    kqkr = f"{tables / file_name('KQKR', 3)}: KQKR on the 3-cube, version {FORMAT_VERSION}, "
    assert any(
        line.startswith(kqkr) and line.endswith("longest mate 4 moves (8 plies), checksums ok")
        for line in lines
    )
    # In moves, as stats counts them; an ending where nobody mates says so (issue 63).
    krk = f"{tables / file_name('KRK', 3)}: KRK on the 3-cube, version {FORMAT_VERSION}, "
    assert any(line.startswith(krk) and line.endswith(", no mate, checksums ok") for line in lines)
    damaged = tmp_path / file_name("KQK", 5)
    data = bytearray((tables / damaged.name).read_bytes())
    data[-1] ^= 1
    damaged.write_bytes(bytes(data))
    process = tablebase_cli("info", "--json", str(tables / file_name("KQK", 5)), str(damaged))
    assert process.returncode == 1
    good, bad = json.loads(process.stdout)
    assert good["ok"] and good["ending"] == "KQK" and good["size"] == 5
    assert good["entries"] == 2 * 10 * 125**2 and good["version"] == FORMAT_VERSION
    assert not bad["ok"] and bad["fault"] == "damaged (the values' checksum does not match)"
    assert bad["positions"] == good["positions"]
    assert good["longest_moves"] == (good["longest_plies"] + 1) // 2 > 0
