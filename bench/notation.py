"""`play` of a short move against the same move long, through the engine: python -m bench.notation

Issue 51's goal: reading `Nc3(I)` costs at most 1.2 times reading `Nb1(I)-c3(I)`. The engine
replays the seeded game of tests/test_terminal_game.py on 5³ (its eight plies, then `undo`
eight times), once with every move long and once short, each line answered before the next
goes (a person's or a GUI's round trip); rounds alternate long and short, and the figure is
the median over rounds of the ratio of the median `play` round trips, beside the ratio of the
engine's own time over the lines (its JSON log's duration_us). Both logs are on, as in a game.
"""

from __future__ import annotations

import argparse
import json
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


def one_at_a_time(peer: Peer, lines: list[bytes]) -> list[float]:
    """Send each line once the last is answered; return the seconds of each `play` line's
    round trip (the `undo` lines only take the game back)."""
    seconds = []
    for line in lines:
        started = time.perf_counter()
        (answer,) = peer.ask(line, 1)
        elapsed = time.perf_counter() - started
        if not answer.startswith(b"="):
            raise RuntimeError(f"{line!r} answered {answer!r}")
        if line.startswith(b"play "):
            seconds.append(elapsed)
    return seconds


def engine_durations(peer: Peer) -> dict[str, list[int]]:
    """The microseconds the engine took over each `play` line, from its JSON log, by form."""
    found: dict[str, list[int]] = {"long": [], "short": []}
    forms = {f"play {move}": "long" for move in LONG} | {f"play {move}": "short" for move in SHORT}
    line = ""
    with (peer.log_dir / "cubemate.jsonl").open(encoding="utf-8") as log:
        for text in log:
            event = json.loads(text)
            if event.get("event") == "input":
                line = event["line"]
            elif event.get("event") == "output" and line in forms:
                found[forms[line]].append(event["duration_us"])
    return found


def measure(rounds: int, repeats: int) -> tuple[list[float], dict[str, list[int]]]:
    """Per-round ratios of the median play round trip, short over long; and the engine's
    own durations of every play line."""
    ratios = []
    with Peer("engine") as peer:
        peer.ask(b"new_game 5\n", 1)
        for _ in range(rounds):
            long = statistics.median(one_at_a_time(peer, lines_of(LONG, repeats)))
            short = statistics.median(one_at_a_time(peer, lines_of(SHORT, repeats)))
            ratios.append(short / long)
        durations = engine_durations(peer)
    return ratios, durations


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--repeats", type=int, default=20, help="games a round, each way")
    arguments = parser.parse_args()
    ratios, durations = measure(arguments.rounds, arguments.repeats)
    trip = statistics.median(ratios)
    inside = {form: statistics.median(values) for form, values in durations.items()}
    engine = inside["short"] / inside["long"]
    print(f"play short / play long, {arguments.rounds} rounds of {arguments.repeats} games")
    print(f"  round trip, median of the rounds' ratios: {trip:.2f}")
    print(
        f"  in the engine (JSON log's duration_us), medians: short {inside['short']:.0f} µs,"
        f" long {inside['long']:.0f} µs: {engine:.2f}"
    )
    for name, ratio in (("round trip", trip), ("in the engine", engine)):
        verdict = "PASS" if ratio <= GOAL else "MISS"
        print(f"goal {name}: {ratio:.2f} <= {GOAL}  {verdict}")


if __name__ == "__main__":
    main()
