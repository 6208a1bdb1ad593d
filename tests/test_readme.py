"""The README's sessions are what the engine answers: each transcript (a command line, its
response, an empty line) is replayed through the real process and compared line by line.

Trailing spaces are not compared (the README shows `= ` as `=`, and says so) and neither is
a record's `Date:` line."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, TIMEOUT

BLOCK = re.compile(r"```text\n(.*?)```", re.DOTALL)


def transcripts(text: str) -> list[list[tuple[str, list[str]]]]:
    """Every ```text block laid out as a session: a command, its response, an empty line."""
    found = []
    for block in BLOCK.findall(text):
        exchanges: list[tuple[str, list[str]]] = []
        for chunk in block.strip("\n").split("\n\n"):
            command, *response = chunk.split("\n")
            exchanges.append((command, response))
        if all(response and response[0][:1] in ("=", "?") for _, response in exchanges):
            found.append(exchanges)
    return found


def comparable(lines: list[str]) -> list[str]:
    return [line.rstrip() for line in lines if not line.startswith("Date: ")]


SESSIONS = transcripts((REPO / "README.md").read_text(encoding="utf-8"))


def test_the_readme_has_its_sessions() -> None:
    """The first session, the game and the mate in 5."""
    assert len(SESSIONS) >= 3
    assert any(command == "new_game 3" for command, _ in SESSIONS[1])


@pytest.mark.parametrize("session", SESSIONS, ids=[s[0][0] for s in SESSIONS])
def test_a_readme_session_is_what_the_engine_answers(
    session: list[tuple[str, list[str]]], tmp_path: Path
) -> None:
    lines = "".join(f"{command}\n" for command, _ in session)
    result = subprocess.run(
        [sys.executable, str(REPO / "main.py"), "--log-dir", str(tmp_path)],
        input=lines, capture_output=True, text=True, cwd=REPO, timeout=TIMEOUT, check=False,
    )  # fmt: skip
    answers = result.stdout.removesuffix("\n\n").split("\n\n")
    assert len(answers) == len(session), result.stdout
    for (command, shown), answer in zip(session, answers, strict=True):
        assert comparable(answer.split("\n")) == comparable(shown), command
