"""A fake engine for the arena's tests, until the engine can play a game (issues 20, 21).

`python -m tests.arena_fake_engine [BEHAVIOUR...]`: the real kernel for the rules (set_board,
play, undo, legal_moves, get_board), plus `new_game N` (a small start position), `result`
(checkmate, stalemate, bare kings) and `genmove` (a seeded random legal move, the same for
the same game). Behaviours make it misbehave on purpose: crash, hang, answer an illegal move.
It imports nothing of the arena, so that it starts as fast as the engine does.
"""

from __future__ import annotations

import random
import re
import sys
import time
from dataclasses import dataclass


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
    """How the fake misbehaves: at its Nth genmove of a game (from 1) it crashes, hangs, answers an
    illegal move, resigns, refuses, answers twice or answers a move megabytes long; or it
    refuses every `play`, or knows no genmove, or does not speak the protocol at all; or it
    is slow."""

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
    #: As a referee, it dies at its Nth `result` (counted over its whole life).
    result_crash_at: int = 0
    #: Knows only the kernel's commands (today's engine): no new_game, result or genmove.
    bare: bool = False
    #: At its Nth genmove of a game it answers twice (issue 49, item 6).
    answer_twice_at: int = 0
    #: At its Nth genmove of a game it answers a "move" of this many bytes (issue 49, item 5).
    long_move_at: int = 0
    long_move_bytes: int = 20_000_000
    #: Knows no `variant` (an engine of the cube only, as every engine was before issue 48).
    no_variant: bool = False
    #: A file: answering twice and long moves happen only while it does not exist, and
    #: create it (once in a match, whichever process does it).
    once: str = ""


def read_behaviour(words: list[str]) -> Behaviour:
    behaviour = Behaviour()
    for word in words:
        name, _, value = word.partition("=")
        if name == "--log-dir" or not name.startswith("--"):
            continue  # the engine-process layer passes --log-dir DIR
        key = name[2:].replace("-", "_")
        if not hasattr(behaviour, key):
            continue
        if key == "once":
            behaviour.once = value
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
        "level",
    )

    def __init__(self, behaviour: Behaviour) -> None:
        from kernel.config import EngineConfig
        from kernel.kernel import Kernel

        self.kernel = Kernel(EngineConfig())
        self.behaviour = behaviour
        self.rng = random.Random(behaviour.seed)
        self.genmoves = 0
        self.results = 0
        #: Whether the answer just given is to be written twice.
        self.twice = False

    def run(self, name: str, args: list[str]) -> tuple[bool, str]:
        if name in self.EXTRA and self.behaviour.bare:
            return False, f"unknown command {name!r}"
        if self.behaviour.no_variant and "variant" in (name, *args[:1]):
            return (True, "false") if name == "known_command" else (False, "unknown command")
        if name == "known_command" and args and args[0] in self.EXTRA:
            absent = self.behaviour.bare or (self.behaviour.no_genmove and args[0] == "genmove")
            return True, "false" if absent else "true"
        if name in ("new_game", "set_board"):
            # Each game is its own: the same game gives the same moves, whichever games
            # this process played before.
            self.rng.seed(f"{self.behaviour.seed}/{' '.join(args)}")
            self.genmoves = 0
        if name == "new_game":
            size = int(args[0]) if args else 4
            if size < 3:
                return False, "unacceptable size"
            return self.kernel_reply("set_board", [start_board(size)])
        if name == "result":
            self.results += 1
            if self.results == self.behaviour.result_crash_at:
                sys.exit(4)
            return True, self.result()
        if name in ("genmove", "reg_genmove"):
            return self.genmove(play=name == "genmove")
        if name in ("time_settings", "time_left", "level"):
            return True, ""
        if name == "play" and self.behaviour.refuse_play:
            return False, "illegal move: this fake refuses every move"
        return self.kernel_reply(name, args)

    def misbehave(self) -> bool:
        """Whether a misbehaviour limited by `once` may happen (and now has)."""
        if not self.behaviour.once:
            return True
        try:
            with open(self.behaviour.once, "x"):
                return True
        except FileExistsError:
            return False

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
        if count == behaviour.long_move_at and self.misbehave():
            return True, "x" * behaviour.long_move_bytes
        self.twice = count == behaviour.answer_twice_at and self.misbehave()
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
            answer = f"{'=' if ok else '?'}{identity} {text}\n\n"
            sys.stdout.write(answer * 2 if engine.twice else answer)
            engine.twice = False
        sys.stdout.flush()
        if name == "quit":
            return


if __name__ == "__main__":
    serve(read_behaviour(sys.argv[1:]))
