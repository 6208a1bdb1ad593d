"""`play` of a short move against the same move long, through the engine: python -m bench.notation

Issue 51's goal: reading `Nc3(I)` costs at most 1.2 times reading `Nb1(I)-c3(I)`. The engine
replays the seeded game of tests/test_terminal_game.py on 5³ (its eight plies, then `undo`
eight times), once with every move long and once short, each line answered before the next
goes (a person's or a GUI's round trip) and all lines at once (a script's); rounds alternate
long and short, and the median of the per-round ratios is the figure. Both logs are on, as
in a game.
"""

from __future__ import annotations

import argparse
import statistics
import time

from bench.peer import Peer

#: The game, long and short (tests/test_terminal_game.py).
LONG = [
    "Qc2(I)-c4(III)",
    "qc4(V)xc4(III)",
    "Kc1(I)-d2(II)",
    "nd5(V)-d3(IV)",
    "Kd2(II)-e3(I)",
    "qc4(III)-d4(II)",
    "Ke3(I)-e2(II)",
    "qd4(II)-d2(II)",
]
SHORT = [
    "Qc4(III)",
    "Qxc4(III)",
    "Kd2(II)",
    "Nd3(IV)+",
    "Ke3(I)",
    "Qd4(II)+",
    "Ke2(II)",
    "Qd2(II)#",
]
GOAL = 1.2


def lines_of(moves: list[str], repeats: int) -> list[bytes]:
    """The game played and taken back, `repeats` times."""
    once = [f"play {move}\n".encode() for move in moves] + [b"undo\n"] * len(moves)
    return once * repeats


def one_at_a_time(peer: Peer, lines: list[bytes]) -> float:
    """Seconds per line, each answered before the next is sent."""
    started = time.perf_counter()
    for line in lines:
        (answer,) = peer.ask(line, 1)
        if not answer.startswith(b"="):
            raise RuntimeError(f"{line!r} answered {answer!r}")
    return (time.perf_counter() - started) / len(lines)


def piped(peer: Peer, lines: list[bytes]) -> float:
    """Seconds per line, every line sent at once."""
    started = time.perf_counter()
    answers = peer.ask(b"".join(lines), len(lines))
    seconds = time.perf_counter() - started
    refused = [answer for answer in answers if not answer.startswith(b"=")]
    if refused:
        raise RuntimeError(f"refused: {refused[:3]!r}")
    return seconds / len(lines)


def measure(rounds: int, repeats: int) -> dict[str, list[float]]:
    """Per-round ratios short/long, one at a time and piped, and the seconds of each."""
    found: dict[str, list[float]] = {key: [] for key in ("trip", "pipe", "trip_long", "pipe_long")}
    with Peer("engine") as peer:
        peer.ask(b"new_game 5\n", 1)
        for _ in range(rounds):
            timed = {}
            for name, moves in (("long", LONG), ("short", SHORT)):
                lines = lines_of(moves, repeats)
                timed[name] = (one_at_a_time(peer, lines), piped(peer, lines))
            found["trip"].append(timed["short"][0] / timed["long"][0])
            found["pipe"].append(timed["short"][1] / timed["long"][1])
            found["trip_long"].append(timed["long"][0])
            found["pipe_long"].append(timed["long"][1])
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--repeats", type=int, default=20, help="games a round, each way")
    arguments = parser.parse_args()
    found = measure(arguments.rounds, arguments.repeats)
    trip, pipe = statistics.median(found["trip"]), statistics.median(found["pipe"])
    print(f"play short / play long, median of {arguments.rounds} rounds (play and undo lines)")
    trip_long = statistics.median(found["trip_long"]) * 1e6
    pipe_long = statistics.median(found["pipe_long"]) * 1e6
    print(f"  one at a time: {trip:.2f} (long: {trip_long:.0f} µs a line)")
    print(f"  piped:         {pipe:.2f} (long: {pipe_long:.0f} µs a line)")
    for name, ratio in (("one at a time", trip), ("piped", pipe)):
        verdict = "PASS" if ratio <= GOAL else "MISS"
        print(f"goal {name}: {ratio:.2f} <= {GOAL}  {verdict}")


if __name__ == "__main__":
    main()
