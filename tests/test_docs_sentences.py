"""Sentences of docs/ that a reader takes at their word, held to the engine and the files
(issue 63, item 9): guide.md's sessions "copied from a real run" are what the engine answers
today, gui.md's count of a first visit's pieces is the start's, and every ending
docs/tablebases.md names as a table is a table's name.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kernel.kernel import COMMANDS_BY_NAME
from kernel.tables.tablebase import material_of
from tests.conftest import REPO, Engine

DOCS = REPO / "docs"
FENCE = re.compile(r"^```(\w*)$")


def text_blocks(page: Path) -> list[tuple[int, list[str]]]:
    """The fenced `text` blocks of a page: the line each begins on, and its lines."""
    blocks: list[tuple[int, list[str]]] = []
    inside: str | None = None  # the language of the block the line is in
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        fence = FENCE.match(line)
        if fence is not None and inside is None:
            inside = fence.group(1)
            if inside == "text":
                blocks.append((number, []))
        elif fence is not None:
            inside = None
        elif inside == "text":
            blocks[-1][1].append(line)
    return blocks


def exchanges(lines: list[str]) -> list[tuple[str, str]]:
    """A session's commands and answers: paragraphs of a command line, then its answer."""
    paragraphs = "\n".join(lines).split("\n\n")
    found = []
    for paragraph in paragraphs:
        command, _, answer = paragraph.partition("\n")
        found.append((command, answer))
    return found


def sessions(page: Path) -> list[tuple[int, list[tuple[str, str]]]]:
    """The blocks of a page that are sessions: each begins with a command of the engine."""
    found = []
    for start, lines in text_blocks(page):
        words = lines[0].split() if lines else []
        if words and words[0] in COMMANDS_BY_NAME:
            found.append((start, exchanges(lines)))
    return found


GUIDE_SESSIONS = sessions(DOCS / "guide.md")


def engine_answer(engine: Engine, command: str) -> str:
    """The engine's answer as a page writes it: no empty line after it, no space after `=`
    alone."""
    response = engine.ask(command).decode()
    assert response.endswith("\n\n"), response
    return "\n".join(line.rstrip(" ") for line in response[:-2].split("\n"))


@pytest.mark.parametrize(
    "session", [pair[1] for pair in GUIDE_SESSIONS], ids=[str(pair[0]) for pair in GUIDE_SESSIONS]
)
def test_the_guides_sessions_are_what_the_engine_answers(
    log_dir: Path, session: list[tuple[str, str]]
) -> None:
    """guide.md says its sessions were copied from a real run: each answer is the engine's,
    byte for byte (its showboard lacked the `check:` line the engine prints)."""
    engine = Engine(log_dir)
    try:
        for command, answer in session:
            assert engine_answer(engine, command) == answer, command
    finally:
        engine.kill()


def test_the_guide_has_sessions() -> None:
    assert len(GUIDE_SESSIONS) >= 4
    assert any("showboard" in command for _, session in GUIDE_SESSIONS for command, _ in session)


def test_a_first_visit_of_the_gui_shows_the_pieces_of_the_start(log_dir: Path) -> None:
    """gui.md's first visit is the 5³ cube's start: as many pieces as the engine sets up (it
    said 40; the start has 20)."""
    text = " ".join((DOCS / "gui.md").read_text(encoding="utf-8").split())
    found = re.search(r"a first visit: 5³, ([0-9]+) pieces", text)
    assert found is not None
    engine = Engine(log_dir)
    try:
        assert engine.ask("new_game 5 cube") == b"= \n\n"
        board = engine.ask("get_board").decode()
    finally:
        engine.kill()
    assert int(found.group(1)) == sum(char.isalpha() for char in board.removeprefix("= "))


#: Names docs/tablebases.md writes to say that no table has them.
NOT_TABLE_NAMES = {"KRKQ"}  # "`KRKQ` (black the stronger) is read from `KQKR`"


def test_every_ending_the_table_docs_name_is_a_tables_name() -> None:
    """An ending named in docs/tablebases.md is one a build names (its stronger side white,
    each side's strongest first): the stored form's example said `KRKNN`, which no table is."""
    text = (DOCS / "tablebases.md").read_text(encoding="utf-8")
    named = set(re.findall(r"(?<!not )`(K[QRBNU]*K[QRBNU]*)`", text))
    named |= set(re.findall(r"^\| (K[QRBNU]*K[QRBNU]*) \|", text, re.MULTILINE))
    assert {"KQKR", "KNNKR", "KQQK"} <= named
    for name in sorted(named - NOT_TABLE_NAMES):
        material_of(name, None)  # raises ValueError for a name no table has
    for name in NOT_TABLE_NAMES:
        with pytest.raises(ValueError):
            material_of(name, None)
