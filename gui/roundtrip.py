"""Measure what one board change costs through the GUI server, as the page pays for it.

Run ``python -m gui.roundtrip [--rounds 50] [--engine CMD] [--browser]``. It starts the server on
a free port with a real engine, then, on one kept-alive HTTP connection (as a browser uses),
sends what the page needs after every edit of an n = 3 board: ``set_board`` and the four
analysis lines (``status``, ``checkers``, ``legal_moves``, ``explain``), once as five requests
and once as the one batch request the page sends. With ``--browser`` it also opens the page in
headless Chromium (/usr/bin/chromium, through Playwright), switches between reference cases and
reads the page's own clock, from the change to the painted verdict. It prints medians and 90th
percentiles in milliseconds. With ``--stops`` it also times what taking back costs while the
computer thinks: ``GET /thinking`` during a search, and ``POST /stop`` from its sending to its
answer (the search stopped by SIGUSR1, its move taken back), on the start positions of n = 4 and 8
with a search that only a stop ends. Nothing is asserted: timings belong here, not in the tests.
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
from typing import Any

from gui.guard import GameGuard
from gui.relay import Engine
from gui.server import REPO_ROOT, GuiServer, default_engine, stderr_reader
from gui.thinking import ThinkingFeed

BOARDS = (
    "[###,n##,#rr],[#b#,###,###],[###,###,bRK]",
    "[b#b,###,###],[###,###,RNR],[#q#,###,#K#]",
    "[#q#,#b#,###],[n##,###,###],[#k#,###,#KB]",
    "[###,##b,r#r],[###,###,###],[#k#,###,#K#]",
)
ANALYSIS = ("status", "checkers", "legal_moves", "explain")
#: A search that only a stop ends (search.max_nodes aside).
ENDLESS = "level depth 0 nodes 0 time 0"
# The n = 3 reference cases in the page's examples menu, by their value there.
EXAMPLES = ("0", "1", "2", "4", "5", "6", "9")
WARM_UP = 5


def send(connection: http.client.HTTPConnection, payload: dict[str, object]) -> None:
    """Send one request on the kept-alive connection and check that the engine said yes."""
    body = json.dumps(payload)
    connection.request("POST", "/engine", body, {"Content-Type": "application/json"})
    answer = json.loads(connection.getresponse().read())
    if not answer.get("ok"):
        raise RuntimeError(f"{payload!r} failed: {answer}")


def measure(port: int, rounds: int) -> tuple[list[float], list[float], list[float]]:
    """Return the milliseconds of each board change sent line by line, of each single request,
    and of each board change sent as one batch."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    changes: list[float] = []
    requests: list[float] = []
    batches: list[float] = []
    try:
        send(connection, {"line": "protocol_version"})  # connect outside the clock
        for k in range(rounds):
            lines = [f"set_board {BOARDS[k % len(BOARDS)]}", *ANALYSIS]
            start = time.perf_counter()
            for line in lines:
                before = time.perf_counter()
                send(connection, {"line": line})
                requests.append((time.perf_counter() - before) * 1000)
            changes.append((time.perf_counter() - start) * 1000)
            start = time.perf_counter()
            send(connection, {"lines": lines})
            batches.append((time.perf_counter() - start) * 1000)
    finally:
        connection.close()
    return changes, requests, batches


def post(connection: http.client.HTTPConnection, path: str, payload: object) -> dict[str, Any]:
    """POST a JSON body on the kept-alive connection; return the JSON answer, whatever status."""
    connection.request("POST", path, json.dumps(payload), {"Content-Type": "application/json"})
    answer: dict[str, Any] = json.loads(connection.getresponse().read())
    return answer


def thinking(connection: http.client.HTTPConnection) -> dict[str, Any]:
    """Read the thinking feed."""
    connection.request("GET", "/thinking")
    answer: dict[str, Any] = json.loads(connection.getresponse().read())
    return answer


def measure_stops(port: int, rounds: int, size: int) -> tuple[list[float], list[float]]:
    """Return the milliseconds of each thinking read during a search, and of each stop."""
    control = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    reads: list[float] = []
    stops: list[float] = []
    try:
        for _ in range(rounds):
            send(control, {"lines": [f"new_game {size}", ENDLESS]})
            version = thinking(control)["game"]
            asking = threading.Thread(target=ask_move, args=(port, version))
            asking.start()
            while True:
                before = time.perf_counter()
                snapshot = thinking(control)
                reads.append((time.perf_counter() - before) * 1000)
                if snapshot["running"] and snapshot["depths"]:
                    break
                time.sleep(0.01)
            before = time.perf_counter()
            stopped = post(control, "/stop", {"game": version})
            stops.append((time.perf_counter() - before) * 1000)
            asking.join()
            if not stopped.get("stopped"):
                raise RuntimeError(f"the stop found no search: {stopped}")
    finally:
        control.close()
    return reads, stops


def ask_move(port: int, version: int) -> None:
    """Ask for the computer's move on a connection of its own (the stop comes on another)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    try:
        answer = post(connection, "/genmove", {"game": version, "color": "white"})
        if not answer.get("cancelled"):
            raise RuntimeError(f"the move was not stopped: {answer}")
    finally:
        connection.close()


def measure_browser(url: str, rounds: int) -> list[float]:
    """Switch between reference cases in headless Chromium; return the page's own timings."""
    from playwright.sync_api import sync_playwright

    timings: list[float] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"]
        )
        page = browser.new_page()
        page.goto(url)
        page.wait_for_selector('[data-cell="a1(I)"]')
        for k in range(rounds + WARM_UP):
            page.select_option("#examples", EXAMPLES[k % len(EXAMPLES)])
            page.wait_for_selector('body[data-pending="0"]', state="attached", timeout=30_000)
            if k >= WARM_UP:
                timings.append(float(page.get_attribute("body", "data-analysis-ms") or "nan"))
        browser.close()
    return timings


def tenth(values: list[float]) -> float:
    """Return the value below which nine tenths of ``values`` lie."""
    return statistics.quantiles(values, n=10)[-1] if len(values) > 1 else values[0]


def report(label: str, values: list[float]) -> None:
    """Print one line of figures."""
    print(
        f"  {label}: median {statistics.median(values):.2f} ms, "
        f"90th percentile {tenth(values):.2f} ms"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Start a server with an engine, measure, print the figures."""
    parser = argparse.ArgumentParser(prog="python -m gui.roundtrip", description=__doc__)
    parser.add_argument("--rounds", type=int, default=50, help="board changes to time")
    parser.add_argument("--engine", default=None, metavar="CMD", help="engine command line")
    parser.add_argument(
        "--browser", action="store_true", help="also time the page in headless Chromium"
    )
    parser.add_argument(
        "--stops", action="store_true", help="also time thinking reads and stops of a search"
    )
    args = parser.parse_args(argv)
    if args.rounds < 2:
        parser.error("--rounds must be at least 2")
    command = shlex.split(args.engine) if args.engine else default_engine()
    feed = ThinkingFeed()
    engine = Engine(command, REPO_ROOT, timeout=30, on_stderr=stderr_reader(feed))
    engine.start()
    server = GuiServer(0, GameGuard(engine, feed, timeout=30), verbose=False)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        changes, requests, batches = measure(server.port, args.rounds)
        timings = measure_browser(server.url, args.rounds) if args.browser else []
        stops = {n: measure_stops(server.port, 10, n) for n in (4, 8)} if args.stops else {}
    finally:
        server.shutdown()
        server.server_close()
        engine.close()
    print(f"board change at n = 3 (set_board + {len(ANALYSIS)} analysis lines, one connection)")
    report(f"line by line, {args.rounds} changes", changes)
    report(f"  one request of those {len(requests)}", requests)
    report(f"one batch request, {args.rounds} changes", batches)
    if timings:
        report(f"in Chromium, change to verdict, {len(timings)} changes", timings)
    for size, (reads, stopping) in stops.items():
        report(f"n = {size}: GET /thinking during a search, {len(reads)} reads", reads)
        report(f"n = {size}: POST /stop to its answer, {len(stopping)} stops", stopping)
    return 0


if __name__ == "__main__":
    sys.exit(main())
