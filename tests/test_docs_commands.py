"""Every shell command of README.md and docs/*.md, run as pasted or listed with the reason why
not (issue 49, item 11).

A command is a line of a fenced block marked `sh` (or `shell`, `bash`, `console`), a line
after `$ ` in any other fenced block, or a line of an indented code block that begins with
`make`, `python`, `python3`, `pip`, `cubemate` or `.venv/bin/`; a line ending in a backslash
goes on in the next. Each one found must be in RUN (run here, from a scratch folder that holds
the repository's files as a fresh clone would, so that what a command writes lands there and
not in the tree) or in NOT_RUN (with the reason); one in neither fails the test, and so does
an entry that no page holds any more.

**Adding a command to a page**: run this file; the failure prints the command as found. Put
it in RUN if it takes a second or two and needs nothing outside the repository, else in
NOT_RUN with the reason (what it needs, or how long it takes and which test covers it).
Commands of one fenced block run in order in one scratch folder, so a `$ head -1 out.jsonl`
after the command that wrote it works as pasted.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import REPO

PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
SHELL_FENCES = {"sh", "shell", "bash", "console"}
FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*([\w+-]*)")
INDENTED_PROGRAM = re.compile(r"^(make|python3?|pip|cubemate)\b|^\.venv/bin/")
#: The seconds one block of commands may take here, on a machine loaded by the rest of the suite.
TIMEOUT = 60.0


@dataclass(frozen=True)
class Command:
    """A shell command of a page: where it stands, and its text as pasted."""

    page: str
    line: int
    block: int  # the fenced block it belongs to, counted over the page
    text: str


def commands_of(page: Path) -> list[Command]:
    """Every shell command of one page (module docstring: what counts as one)."""
    name = page.relative_to(REPO).as_posix()
    found: list[Command] = []
    fence: str | None = None
    language = ""
    block = 0
    pending: list[str] = []
    start = 0
    indented_code = True
    for number, line in enumerate(page.read_text(encoding="utf-8").split("\n"), 1):
        if pending:  # a continuation of the command above, kept on its own line
            pending.append(line.strip())
            if not line.rstrip().endswith("\\"):
                found.append(Command(name, start, block, "\n".join(pending)))
                pending = []
            continue
        match = FENCE.match(line)
        if match and (fence is None or match.group(1)[0] == fence[0]):
            if fence is None:
                fence, language, block = match.group(1), match.group(2).lower(), block + 1
            else:
                fence = None
            continue
        text = None
        if fence is not None:
            stripped = line.strip()
            if language in SHELL_FENCES:
                text = stripped.removeprefix("$ ") if stripped and stripped[0] != "#" else None
            elif stripped.startswith("$ "):
                text = stripped[2:]
        elif line.startswith("    ") and indented_code:
            stripped = line.strip()
            if INDENTED_PROGRAM.match(stripped):
                text = stripped
                block += 1
        # An indented line is code after a blank line, and so is the indented line after it.
        indented_code = not line.strip() or (indented_code and line.startswith("    "))
        if text is None:
            continue
        if text.endswith("\\"):
            pending, start = [text], number
        else:
            found.append(Command(name, number, block, text))
    return found


def every_command() -> list[Command]:
    return [command for page in PAGES for command in commands_of(page)]


#: Run as pasted, from a scratch copy of the repository's root; each must exit 0, and its
#: stdout hold the text given here. Together about 8 s on a quiet 2-core machine.
RUN: dict[str, str] = {
    # docs/batch.md: the first example, on the file that ships for it, and the line it shows.
    '.venv/bin/python -m batch docs/positions.txt -o out.jsonl --ask status --ask "mate_in 2"': "",
    "grep '\"id\": 7,' out.jsonl": '"mate_in 2": "bb1(III)-a2(II) bb1(III)-c2(II)"}',
    # docs/batch.md: the mining run (2-3 s) and the first problem it keeps, as shown.
    ".venv/bin/python -m batch --generate crowded --count 2000 --seed 7 \\\n"
    '-o problems.jsonl --keep "mate_in 1 = no key and mate_in 2 = one key"': "",
    "head -1 problems.jsonl": '{"id": 65, "board": "[####,####,##k#,####],[###n,##B#,##n#,####],'
    '[##r#,###B,#r##,####],[###K,####,####,####]", "side": "b"',
    # docs/arena.md: a seeded 20-game match (3 s) and its summary file, as shown.
    '.venv/bin/python -m arena "python main.py" greedy --depth 1 --size 4 --games 20 \\\n'
    "--concurrency 2 --random-plies 2 --sprt 0 200 0.05 0.05 --records games.txt --json s.json": (
        "H1 accepted"
    ),
    # Only the decision: with two games at once, the count of games finished when the test
    # decides (17 or 18) depends on which thread ends first.
    "cat s.json": '"sprt": "H1"}',
    '.venv/bin/python -m arena "python main.py" greedy --variant raumschach --depth 1 --games 20 '
    "\\\n--random-plies 4 --records games.txt": "",
    # docs/regress.md: one suite with a tighter match timeout (under a second).
    ".venv/bin/python -m regress --match-timeout 1 regress/rules.tst   "
    "# 1 s for each answer to match": "",
}

#: The pages' commands not run here, and why.
SYNOPSIS = "a synopsis: its capitals and brackets are placeholders to fill in"
NOT_RUN: dict[str, str] = {
    "make run    # creates .venv if needed, installs cubemate, starts the engine": (
        "starts the engine for a person; tests/test_engine_process.py runs `make run` under a "
        "pseudo-terminal"
    ),
    "make test   # the same set-up, then ruff, mypy and every test": (
        "the whole suite, this test among it (about 3 minutes)"
    ),
    "make arena ARGS=\"'python main.py' greedy --move-time1 0.1 --size 4 --games 200 "
    '--random-plies 4"': (
        "200 games at 0.1 s a move, minutes; the same runner runs here on docs/arena.md's "
        "20-game match"
    ),
    ".venv/bin/python -m arena [options] PLAYER1 PLAYER2": SYNOPSIS,
    'make arena ARGS=\'"python main.py" greedy --depth 2 --size 4 --games 200 '
    "--records games.txt'": "200 games at depth 2, minutes; docs/arena.md's 20-game match runs",
    '.venv/bin/python -m arena --engine1 "cmd=./myengine arg=--hash=16 name=Mine st=0.2" \\\n'
    "--engine2 \"cmd='python main.py' depth=2 ids=on\" --size 4 --games 20": (
        "./myengine is the reader's own engine (tests/test_arena_cli.py tests --engine1)"
    ),
    '.venv/bin/python -m batch raumschach.txt --variant raumschach --ask "perft 2" '
    '--ask "mate_in 1"': "raumschach.txt is the reader's own file: it does not ship",
    "make gui            # then open the address it prints: http://127.0.0.1:8765/": (
        "a server that runs until stopped; tests/test_gui_server.py starts it"
    ),
    "make gui PORT=9000  # another port; PORT=0 takes any free one (.venv/bin/python -m "
    "gui.server --port 0)": "a server that runs until stopped; tests/test_gui_server.py starts it",
    "python main.py [--config FILE] [--log-dir DIR] [--tablebases DIR] [--version] [--help]": (
        SYNOPSIS
    ),
    "make regress                                  # every suite in regress/": (
        "every suite, some 20 s; tests/test_regress.py runs each of them"
    ),
    'make regress SUITES="my.tst ../other/x.tst"   # the files named, anywhere on disk': (
        "my.tst and ../other/x.tst are the reader's own suites"
    ),
    '.venv/bin/python -m regress --engine "CMD" a.tst   # another engine command line': SYNOPSIS,
    'gogui-regress -output /tmp/regress-html "$PWD/.venv/bin/python $PWD/main.py" '
    "regress/*.tst": "needs GoGui (Java), which the set-up does not install",
    "CUBEMATE_GOGUI_JAR=/opt/gogui/lib/gogui-regress.jar .venv/bin/pytest -q "
    "tests/test_regress.py -k gogui": "needs GoGui's jar at that path, which the set-up lacks",
    "make tablebases                       # every ending of 3 and 4 pieces on n = 3, 4, 5 "
    "into tables/": "solves every table of 3 and 4 pieces, many minutes",
    "make tablebases-raumschach            # Raumschach's endings of 3 and 4 pieces on 5³ into "
    "tables/": "solves every Raumschach table of 3 and 4 pieces on 5³, many minutes",
    ".venv/bin/python -m tablebase build --size N --pieces K --out DIR [--variant NAME] "
    "[--compact] [--endings NAMES] [--python] [--dask ADDRESS]": SYNOPSIS,
    ".venv/bin/python -m tablebase stats DIR         # the figures below, as a Markdown table": (
        SYNOPSIS
    ),
    ".venv/bin/python -m tablebase verify FILE... [--python]   # every value against the values "
    "after each move": SYNOPSIS,
    ".venv/bin/python -m tablebase info FILE... [--json]       # what each file says of itself, "
    "checked": SYNOPSIS,
    ".venv/bin/python -m tablebase compress DIR --out DIR2 [--block V]   # DIR's tables "
    "compressed into DIR2": SYNOPSIS,
}


def test_every_command_is_run_or_listed() -> None:
    """No command on a page goes unnoticed; no entry outlives its command."""
    found = every_command()
    texts = {command.text for command in found}
    unknown = [f"{c.page}:{c.line}: {c.text}" for c in found if c.text not in RUN | NOT_RUN]
    assert not unknown, (
        "commands on the pages that tests/test_docs_commands.py neither runs nor lists "
        "(add each to RUN or NOT_RUN there):\n" + "\n".join(unknown)
    )
    stale = [text for text in RUN | NOT_RUN if text not in texts]
    assert not stale, "entries of RUN or NOT_RUN that no page holds any more:\n" + "\n".join(stale)


def scratch_clone(folder: Path) -> Path:
    """A folder that reads as the repository's root: each of its entries linked, so that what
    a command writes at the root stays here. The environment is the one `make` set up."""
    for entry in REPO.iterdir():
        if entry.name in {".git", "logs"} or entry.name.startswith(".pytest"):
            continue
        (folder / entry.name).symlink_to(entry)
    return folder


def blocks_to_run() -> list[list[Command]]:
    """The commands of RUN, grouped by the block they stand in, in page order."""
    groups: dict[tuple[str, int], list[Command]] = {}
    for command in every_command():
        if command.text in RUN:
            groups.setdefault((command.page, command.block), []).append(command)
    return list(groups.values())


@pytest.mark.parametrize(
    "block", blocks_to_run(), ids=lambda block: f"{block[0].page}:{block[0].line}"
)
def test_a_command_runs_as_pasted(block: list[Command], tmp_path: Path) -> None:
    if not (REPO / ".venv" / "bin" / "python").exists():
        pytest.skip("no .venv: the pages' commands run in the environment `make` sets up")
    root = scratch_clone(tmp_path)
    for command in block:
        result = subprocess.run(
            ["bash", "-c", command.text],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            stdin=subprocess.DEVNULL,
            check=False,
        )
        where = f"{command.page}:{command.line}: {command.text}"
        assert result.returncode == 0, f"{where}\nexit {result.returncode}\n{result.stderr}"
        assert RUN[command.text] in result.stdout, f"{where}\n{result.stdout}"
    shutil.rmtree(root)
