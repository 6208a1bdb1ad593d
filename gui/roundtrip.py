"""Measure what one board change costs through the GUI server, as the page pays for it.

Run ``python -m gui.roundtrip [--rounds 50] [--engine CMD]``. It starts the server on a free port
with a real engine, then, on one kept-alive HTTP connection (as a browser uses), repeats what the
page sends after every edit of an n = 3 board: ``set_board`` and the four analysis lines
(``status``, ``checkers``, ``legal_moves``, ``explain``). It prints the median and the slowest
tenth of the whole exchange and of one request, in milliseconds. Nothing is asserted: timings
belong here, not in the tests.
"""

from __future__ import annotations

import argparse
import http.client
import json
import shlex
import statistics
import sys
import threading
import time
from collections.abc import Sequence

from gui.server import REPO_ROOT, Engine, GuiServer

BOARDS = (
    "[###,n##,#rr],[#b#,###,###],[###,###,bRK]",
    "[b#b,###,###],[###,###,RNR],[#q#,###,#K#]",
    "[#q#,#b#,###],[n##,###,###],[#k#,###,#KB]",
    "[###,##b,r#r],[###,###,###],[#k#,###,#K#]",
)
ANALYSIS = ("status", "checkers", "legal_moves", "explain")


def post(connection: http.client.HTTPConnection, line: str) -> dict[str, object]:
    """Send one protocol line on the kept-alive connection and return the JSON answer."""
    body = json.dumps({"line": line})
    connection.request("POST", "/engine", body, {"Content-Type": "application/json"})
    response = connection.getresponse()
    answer: dict[str, object] = json.loads(response.read())
    if not answer.get("ok"):
        raise RuntimeError(f"{line!r} failed: {answer}")
    return answer


def measure(port: int, rounds: int) -> tuple[list[float], list[float]]:
    """Return the milliseconds of each whole board change and of each single request."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    changes: list[float] = []
    requests: list[float] = []
    try:
        post(connection, "protocol_version")  # open the connection outside the clock
        for k in range(rounds):
            start = time.perf_counter()
            for line in (f"set_board {BOARDS[k % len(BOARDS)]}", *ANALYSIS):
                before = time.perf_counter()
                post(connection, line)
                requests.append((time.perf_counter() - before) * 1000)
            changes.append((time.perf_counter() - start) * 1000)
    finally:
        connection.close()
    return changes, requests


def tenth(values: list[float]) -> float:
    """Return the value below which nine tenths of ``values`` lie."""
    return statistics.quantiles(values, n=10)[-1] if len(values) > 1 else values[0]


def main(argv: Sequence[str] | None = None) -> int:
    """Start a server with an engine, measure, print the figures."""
    parser = argparse.ArgumentParser(prog="python -m gui.roundtrip", description=__doc__)
    parser.add_argument("--rounds", type=int, default=50, help="board changes to time")
    parser.add_argument("--engine", default=None, metavar="CMD", help="engine command line")
    args = parser.parse_args(argv)
    if args.rounds < 2:
        parser.error("--rounds must be at least 2")
    command = shlex.split(args.engine) if args.engine else [sys.executable, "main.py"]
    engine = Engine(command, REPO_ROOT, timeout=30)
    engine.start()
    server = GuiServer(0, engine, verbose=False)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        changes, requests = measure(server.port, args.rounds)
    finally:
        server.shutdown()
        server.server_close()
        engine.close()
    print(f"board change at n = 3 (set_board + {len(ANALYSIS)} analysis lines, one connection)")
    print(
        f"  {args.rounds} changes: median {statistics.median(changes):.1f} ms, "
        f"90th percentile {tenth(changes):.1f} ms"
    )
    print(
        f"  {len(requests)} requests: median {statistics.median(requests):.2f} ms, "
        f"90th percentile {tenth(requests):.2f} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
