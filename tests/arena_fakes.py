"""What the arena tests play with until the engine can play a game (issues 20 and 21).

- A stand-in for `kernel.record` (the game record module the lead is writing), installed as
  that module when it does not exist yet, so the arena's records can be written and read.
- The fake engine of tests/arena_fake_engine.py answering in this process, and a table of them.
- `python -m tests.arena_fakes arena ARGS...`: the arena's command line with the stand-in.

Delete the stand-in (and use the engine itself as the fake's rules) once kernel/record.py,
new_game, result and genmove have landed.
"""

from __future__ import annotations

import importlib
import re
import runpy
import sys
import types
from dataclasses import dataclass, field

from arena.speaker import Reply, Speaker, SpeakerDied
from arena.table import Table
from tests.arena_fake_engine import FakeEngine, read_behaviour

REPO_MODULE = "kernel.record"


# -- the record stand-in


@dataclass
class GameRecord:
    """One game: size, start (`BOARD w|b`), result, moves, and the other headers."""

    size: int
    start: str
    result: str
    moves: list[str]
    headers: dict[str, str] = field(default_factory=dict)


class RecordError(ValueError):
    """A record that cannot be read; the message starts with its line number."""


def format_record(record: GameRecord) -> str:
    """Write a record: Size, Start, Result, the other headers, then numbered move lines."""
    lines = [f"Size: {record.size}", f"Start: {record.start}", f"Result: {record.result}"]
    lines += [f"{key}: {value}" for key, value in record.headers.items()]
    moves = list(record.moves)
    number = 1
    if record.start.endswith(" b") and moves:
        lines.append(f"1... {moves.pop(0)}")
        number = 2
    for index in range(0, len(moves), 2):
        lines.append(f"{number}. {' '.join(moves[index : index + 2])}")
        number += 1
    return "\n".join(lines) + "\n"


MOVE_LINE = re.compile(r"(\d+)(\.\.\.|\.) (.+)")


def parse_records(text: str) -> list[GameRecord]:
    """Read every record of a file; raise RecordError naming the line of a broken one."""
    records: list[GameRecord] = []
    block: list[tuple[int, str]] = []
    for number, line in enumerate([*text.split("\n"), ""], start=1):
        if line.startswith("#"):
            continue
        if line.strip():
            block.append((number, line))
        elif block:
            records.append(parse_block(block))
            block = []
    return records


def parse_block(block: list[tuple[int, str]]) -> GameRecord:
    headers: dict[str, str] = {}
    moves: list[str] = []
    for number, line in block:
        move = MOVE_LINE.fullmatch(line)
        if move is not None:
            moves += move.group(3).split()
            continue
        if moves:
            raise RecordError(f"line {number}: a header after the moves")
        key, colon, value = line.partition(": ")
        if not colon:
            raise RecordError(f"line {number}: neither a header nor a move line: {line[:40]!r}")
        headers[key] = value
    first = block[0][0]
    keys = list(headers)
    if keys[:3] != ["Size", "Start", "Result"]:
        raise RecordError(f"line {first}: a record begins with Size, Start and Result")
    if not headers["Size"].isdigit():
        raise RecordError(f"line {first}: Size is not a number")
    size, start, result = int(headers.pop("Size")), headers.pop("Start"), headers.pop("Result")
    return GameRecord(size, start, result, moves, headers)


def install_record_standin() -> None:
    """Make `kernel.record` the stand-in, unless the real one exists."""
    try:
        importlib.import_module(REPO_MODULE)
    except ModuleNotFoundError:
        module = types.ModuleType(REPO_MODULE, "stand-in for the game record module")
        for name in ("GameRecord", "RecordError", "format_record", "parse_records"):
            setattr(module, name, globals()[name])
        sys.modules[REPO_MODULE] = module


install_record_standin()
#: kernel.record, real or stand-in, for the tests to read records with.
records = importlib.import_module(REPO_MODULE)


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

    def kill(self) -> None:
        self.closed = True

    def close(self) -> None:
        self.closed = True


class InProcessTable(Table):
    """A table whose processes are in-process fake engines (commands are their arguments)."""

    def start(self, command: tuple[str, ...]) -> Speaker:
        return InProcessEngine(list(command))


def main(arguments: list[str]) -> None:
    if arguments and arguments[0] == "arena":
        sys.argv = ["python -m arena", *arguments[1:]]
        runpy.run_module("arena", run_name="__main__", alter_sys=True)
    else:
        sys.exit("usage: python -m tests.arena_fakes arena [ARGS...]")


if __name__ == "__main__":
    main(sys.argv[1:])
