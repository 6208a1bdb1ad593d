"""An engine "we did not write", for the arena's tests: its protocol side follows only
docs/protocol.md and docs/arena.md, the way an outside author would write it.

`python -m tests.arena_outside_engine [--banner] [--quit-only] [--level] [--new-game wrong]
[--trace FILE] [--seed N] [--hang]`. It takes no other argument (argparse refuses anything
else, exit 2, as strict engines do: no `--log-dir`); it knows no `new_game` (the arena sends
`set_board`), reads no ids (a line `3 genmove w` is an unknown command `3`), writes its moves
without their letter, with levels as numbers and `-` and `x` swapped (`c1(1)xc2(1)` for
`Kc1(I)-c2(I)`), and with `--banner` greets on stdout before any answer; with `--quit-only`
it does not end at the end of its input, only on `quit`; `--level` makes it know `level time
S`; `--new-game wrong` gives it a `new_game` whose start is not the referee's. `--trace FILE`
appends every line it receives, and `exit` when it ends, for the tests to read; `--hang`
makes it start a child at its first `genmove` (`hang PID CHILD` in the trace) and answer
nothing. For the rules it borrows the kernel (legal moves, set_board, play), as an author
would borrow a library.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import subprocess
import sys
import time

NAME, VERSION = "outside", "1.0"
ROMAN = {"I": 1, "II": 2, "III": 3, "IV": 4, "V": 5, "VI": 6, "VII": 7, "VIII": 8}


def loose(move: str) -> str:
    """`Kc1(I)-c2(II)` written as protocol.md also allows: `c1(1)xc2(2)`."""
    move = re.sub(r"\(([IVX]+)\)", lambda found: f"({ROMAN[found.group(1)]})", move[1:])
    return move.translate({ord("-"): "x", ord("x"): "-"})


class Outside:
    def __init__(self, options: argparse.Namespace) -> None:
        from kernel.config import EngineConfig
        from kernel.kernel import Kernel

        self.kernel = Kernel(EngineConfig())
        self.options = options
        self.rng = random.Random(options.seed)
        self.commands = ["protocol_version", "name", "version", "known_command",
                         "list_commands", "quit", "set_board", "get_board", "play",
                         "genmove"]  # fmt: skip
        if options.level:
            self.commands.append("level")
        if options.new_game == "wrong":
            self.commands.append("new_game")

    def answer(self, name: str, args: list[str]) -> tuple[bool, str]:
        if name not in self.commands:
            return False, "unknown command"
        if name == "protocol_version":
            return True, "2"
        if name in ("name", "version"):
            return True, NAME if name == "name" else VERSION
        if name == "known_command":
            return True, "true" if args and args[0] in self.commands else "false"
        if name == "list_commands":
            return True, "\n".join(self.commands)
        if name == "quit":
            return True, ""
        if name == "level":
            return (args[:1] == ["time"] and len(args) == 2), ""
        if name == "new_game":
            # A start of its own: the referee's board, black to move.
            reply = self.kernel.execute("new_game", args[:1])
            board = self.kernel.execute("get_board", []).text.split()[0]
            return self.kernel.execute("set_board", [board, "b"]).ok and reply.ok, ""
        if name == "genmove" and self.options.hang:
            # A child of its own, then silence: the arena must end both.
            child = subprocess.Popen(["sleep", "300"])
            self.options.hang_note(f"hang {os.getpid()} {child.pid}")
            time.sleep(300)
        if name == "genmove":
            moves = self.kernel.execute("legal_moves", []).text.split()
            if not moves:
                return False, "no move"
            move = self.rng.choice(sorted(moves))
            self.kernel.execute("play", [move])
            return True, loose(move)
        reply = self.kernel.execute(name, args)
        return reply.ok, reply.text


def main() -> None:
    parser = argparse.ArgumentParser(prog="outside")
    parser.add_argument("--banner", action="store_true")
    parser.add_argument("--quit-only", action="store_true")
    parser.add_argument("--level", action="store_true")
    parser.add_argument("--new-game", choices=["none", "wrong"], default="none")
    parser.add_argument("--trace")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--hang", action="store_true")
    options = parser.parse_args()
    trace = open(options.trace, "a", encoding="utf-8") if options.trace else None  # noqa: SIM115

    def note(line: str) -> None:
        if trace is not None:
            trace.write(line + "\n")
            trace.flush()

    options.hang_note = note
    if options.banner:
        print(f"{NAME} {VERSION}, a chess engine for cubes", flush=True)
    engine = Outside(options)
    for raw in sys.stdin:
        if trace is not None:
            trace.write(raw)
            trace.flush()
        words = raw.split()
        if not words:
            continue
        ok, text = engine.answer(words[0], words[1:])
        sys.stdout.write(f"{'=' if ok else '?'} {text}\n\n")
        sys.stdout.flush()
        if words[0] == "quit":
            if trace is not None:
                trace.write("exit\n")
            return
    while options.quit_only:
        time.sleep(1)  # its input is closed, yet it waits for a quit that will never come


if __name__ == "__main__":
    main()
