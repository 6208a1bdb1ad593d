"""What the arena tests play with besides real engines.

- The fake engine of tests/arena_fake_engine.py answering in this process, and a table of them.
- `python -m tests.arena_fakes arena ARGS...`: the arena's command line, from the tests.
- `report_row`: one row of the arena's final table.
"""

from __future__ import annotations

import importlib
import re
import runpy
import sys

from arena.speaker import Launch, Reply, Speaker, SpeakerDied
from arena.table import Table
from tests.arena_fake_engine import FakeEngine, read_behaviour

REPO_MODULE = "kernel.records.record"


#: The game record module, for the tests to read records with.
records = importlib.import_module(REPO_MODULE)


def report_row(report: str, label: str) -> str:
    """The value of the row `label` in the arena's final table. Its labels are padded to the
    longest one present, which depends on the games (no complete pair: no "elo (games)")."""
    found = re.search(rf"^{re.escape(label)}  +(\S.*)$", report, re.MULTILINE)
    assert found is not None, f"no row {label!r} in:\n{report}"
    return found.group(1)


# -- the fake engine in process


class InProcessEngine:
    """A fake engine answering in this process, as a Speaker; its crash is a SpeakerDied.

    It counts how often it was started, so tests see a crashed player replaced."""

    started = 0

    def __init__(self, words: list[str]) -> None:
        InProcessEngine.started += 1
        self.engine = FakeEngine(read_behaviour(words))
        self.closed = False

    def ask(self, line: str, timeout: float | None = None) -> Reply:
        if self.closed:
            raise SpeakerDied("crashed", "closed already")
        name, *args = line.split()
        try:
            ok, text = self.engine.run(name, args)
        except SystemExit as crash:
            self.closed = True
            raise SpeakerDied("crashed", f"exit code {crash.code}") from None
        return Reply(ok, text)

    def knows(self, command: str) -> bool:
        reply = self.ask(f"known_command {command}")
        return reply.ok and reply.text == "true"

    def identity(self) -> str:
        return "fake engine"

    def kill(self) -> None:
        self.closed = True

    def close(self) -> None:
        self.closed = True


class InProcessTable(Table):
    """A table whose processes are in-process fake engines (commands are their arguments)."""

    def start(self, launch: Launch) -> Speaker:
        return InProcessEngine(list(launch.command))


def main(arguments: list[str]) -> None:
    if arguments and arguments[0] == "arena":
        sys.argv = ["python -m arena", *arguments[1:]]
        runpy.run_module("arena", run_name="__main__", alter_sys=True)
    else:
        sys.exit("usage: python -m tests.arena_fakes arena [ARGS...]")


if __name__ == "__main__":
    main(sys.argv[1:])
