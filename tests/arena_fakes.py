"""What the arena tests play with until the engine can play a game (issues 20 and 21).

- A stand-in for `kernel.record` (the game record module the lead is writing), installed as
  that module when it does not exist yet, so the arena's records can be written and read.
- A fake engine, `python -m tests.arena_fakes engine [BEHAVIOUR...]`: the real kernel for the
  rules (set_board, play, undo, legal_moves, get_board), plus `new_game N` (a small start
  position), `result` (checkmate, stalemate, bare kings) and `genmove` (a seeded random legal
  move). Behaviours make it misbehave on purpose: crash, hang, answer an illegal move, ...
- `python -m tests.arena_fakes arena ARGS...`: the arena's command line with the stand-in.

Delete the stand-in (and use the engine itself as the fake's rules) once kernel/record.py,
new_game, result and genmove have landed.
"""

from __future__ import annotations

import importlib
import random
import re
import runpy
import sys
import time
import types
from dataclasses import dataclass, field

from arena.speaker import Reply, Speaker, SpeakerDied
from arena.table import Table

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


# -- the fake engine


def start_board(size: int) -> str:
    """A start position: K, R, N in one corner for white, mirrored through the centre for
    black (as the lead's new_game will mirror its armies)."""
    cells = {(0, 0, 0): "K", (1, 0, 0): "R", (0, 1, 0): "N"}
    for (x, y, z), letter in list(cells.items()):
        cells[(size - 1 - x, size - 1 - y, size - 1 - z)] = letter.lower()
    layers = []
    for z in reversed(range(size)):
        rows = [
            "".join(cells.get((x, y, z), "#") for x in range(size)) for y in reversed(range(size))
        ]
        layers.append("[" + ",".join(rows) + "]")
    return ",".join(layers)


@dataclass
class Behaviour:
    """How the fake misbehaves: at its Nth genmove (from 1) it crashes, hangs, answers an
    illegal move, resigns or refuses; or it refuses every `play`, or knows no genmove, or
    does not speak the protocol at all; or it is slow."""

    crash_at: int = 0
    hang_at: int = 0
    illegal_at: int = 0
    resign_at: int = 0
    refuse_at: int = 0
    refuse_play: bool = False
    no_genmove: bool = False
    garbage: bool = False
    seed: int = 0
    #: Milliseconds each genmove takes, so that a match lasts long enough to interrupt.
    delay: int = 0


def read_behaviour(words: list[str]) -> Behaviour:
    behaviour = Behaviour()
    for word in words:
        name, _, value = word.partition("=")
        if name == "--log-dir" or not name.startswith("--"):
            continue  # the engine-process layer passes --log-dir DIR
        key = name[2:].replace("-", "_")
        if not hasattr(behaviour, key):
            continue
        setattr(behaviour, key, int(value) if value else True)
    return behaviour


class FakeEngine:
    """Answers protocol lines with the real kernel for the rules and a few commands more."""

    EXTRA = (
        "new_game",
        "result",
        "genmove",
        "reg_genmove",
        "time_settings",
        "time_left",
        "set_option",
    )

    def __init__(self, behaviour: Behaviour) -> None:
        from kernel.config import EngineConfig
        from kernel.kernel import Kernel

        self.kernel = Kernel(EngineConfig())
        self.behaviour = behaviour
        self.rng = random.Random(behaviour.seed)
        self.genmoves = 0

    def run(self, name: str, args: list[str]) -> tuple[bool, str]:
        if name == "known_command" and args and args[0] in self.EXTRA:
            return True, "false" if self.behaviour.no_genmove and args[0] == "genmove" else "true"
        if name == "new_game":
            size = int(args[0]) if args else 4
            if size < 3:
                return False, "unacceptable size"
            return self.kernel_reply("set_board", [start_board(size)])
        if name == "result":
            return True, self.result()
        if name in ("genmove", "reg_genmove"):
            return self.genmove(play=name == "genmove")
        if name in ("time_settings", "time_left", "set_option"):
            return True, ""
        if name == "play" and self.behaviour.refuse_play:
            return False, "illegal move: this fake refuses every move"
        return self.kernel_reply(name, args)

    def kernel_reply(self, name: str, args: list[str]) -> tuple[bool, str]:
        reply = self.kernel.execute(name, args)
        return reply.ok, reply.text

    def result(self) -> str:
        status = self.kernel_reply("status", [])[1]
        black = self.kernel_reply("get_board", [])[1].endswith(" b")
        if status == "checkmate":
            return "1-0 (checkmate)" if black else "0-1 (checkmate)"
        if status == "stalemate":
            return "1/2-1/2 (stalemate)"
        board = self.kernel_reply("get_board", [])[1]
        if not re.search("[QRBNqrbn]", board.split(" ")[0]):
            return "1/2-1/2 (insufficient material)"
        return "*"

    def genmove(self, play: bool) -> tuple[bool, str]:
        self.genmoves += 1
        behaviour, count = self.behaviour, self.genmoves
        time.sleep(behaviour.delay / 1000)
        if count == behaviour.crash_at:
            print("fake engine: crashing on purpose", file=sys.stderr, flush=True)
            sys.exit(3)
        if count == behaviour.hang_at:
            time.sleep(3600)
        if count == behaviour.illegal_at:
            return True, "Ka1(I)-a1(IV)"
        if count == behaviour.resign_at:
            return True, "resign"
        if count == behaviour.refuse_at:
            return False, "cannot think today"
        moves = self.kernel_reply("legal_moves", [])[1].split()
        if not moves:
            return False, "no legal move"
        move = self.rng.choice(moves)
        if play:
            self.kernel_reply("play", [move])
        return True, move


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


def serve(behaviour: Behaviour) -> None:
    """Answer stdin line by line as the engine does: `=id text` or `?id text`, empty line."""
    engine = FakeEngine(behaviour)
    for raw in sys.stdin:
        words = raw.split()
        if not words:
            continue
        identity = words.pop(0) if words[0].isdigit() else ""
        if not words:
            continue
        name, args = words[0], words[1:]
        if behaviour.garbage:
            sys.stdout.write("hello, I am not an engine\n\n")
        else:
            ok, text = engine.run(name, args)
            sys.stdout.write(f"{'=' if ok else '?'}{identity} {text}\n\n")
        sys.stdout.flush()
        if name == "quit":
            return


def main(arguments: list[str]) -> None:
    if arguments and arguments[0] == "engine":
        serve(read_behaviour(arguments[1:]))
    elif arguments and arguments[0] == "arena":
        sys.argv = ["python -m arena", *arguments[1:]]
        runpy.run_module("arena", run_name="__main__", alter_sys=True)
    else:
        sys.exit("usage: python -m tests.arena_fakes engine [BEHAVIOUR...] | arena [ARGS...]")


if __name__ == "__main__":
    main(sys.argv[1:])
