"""The GUI server under crowds of connections: threads, latency, idle sockets, resets.

Run ``python -m bench.guiserver [--idle 300] [--fresh 10000] [--clients 50] [--linger 35]``.
It starts ``python -m gui.server --port 0`` with a real engine (logs in a temporary folder)
and measures, through the server process as any client meets it:

- the server's threads (``/proc/PID/status``) at rest and with ``--idle`` sockets open that
  never send a byte;
- a normal client's latency (one fresh connection per request, ``POST /engine`` with
  ``protocol_version``) at rest and while those idle sockets stay open;
- after ``--linger`` seconds, how many of the idle sockets the server has closed;
- ``--fresh`` fresh connections from ``--clients`` threads at once (connect, ``GET
  /favicon.ico``, read to the end), counting resets and other failures.

Nothing is asserted: timings belong here, not in the tests.
"""

from __future__ import annotations

import argparse
import json
import re
import select
import shlex
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
NORMAL_REQUESTS = 200
FAVICON = b"GET /favicon.ico HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
#: Seconds any one socket operation may take before the bench counts it as a failure.
SOCKET_TIMEOUT = 60.0


@contextmanager
def running_server(extra: Sequence[str]) -> Iterator[tuple[subprocess.Popen[str], int]]:
    """Start the GUI server on a free port; yield the process and its port; stop it."""
    with tempfile.TemporaryDirectory(prefix="cubemate-bench-gui-") as logs:
        engine = shlex.join([sys.executable, "main.py", "--log-dir", logs])
        process = subprocess.Popen(
            [sys.executable, "-m", "gui.server", "--port", "0", "--engine", engine, *extra],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert process.stdout is not None
            first = process.stdout.readline()
            match = re.search(r":(\d+)/$", first.rstrip("\n"))
            if match is None:
                raise RuntimeError(f"the server did not print its address: {first!r}")
            yield process, int(match.group(1))
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                process.communicate(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.communicate()


def threads_of(pid: int) -> int:
    """Return how many threads the process runs."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Threads:"):
            return int(line.split()[1])
    raise RuntimeError(f"no thread count for pid {pid}")


def read_response(conn: socket.socket) -> bytes:
    """Read one whole HTTP response with a Content-Length from ``conn``."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            raise ConnectionError(f"closed after {len(data)} bytes")
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = re.search(rb"(?i)content-length: *(\d+)", head)
    size = int(length.group(1)) if length else 0
    while len(body) < size:
        chunk = conn.recv(65536)
        if not chunk:
            raise ConnectionError(f"closed inside the body after {len(body)} bytes")
        body += chunk
    return head + b"\r\n\r\n" + body


def normal_request(port: int) -> float:
    """Send ``protocol_version`` on a fresh connection; return the milliseconds it took."""
    body = json.dumps({"line": "protocol_version"}).encode()
    request = (
        b"POST /engine HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        + f"Content-Length: {len(body)}\r\n\r\n".encode()
        + body
    )
    start = time.perf_counter()
    with socket.create_connection((HOST, port), timeout=SOCKET_TIMEOUT) as conn:
        conn.sendall(request)
        answer = read_response(conn)
    elapsed = (time.perf_counter() - start) * 1000
    if not answer.startswith(b"HTTP/1.1 200") or b'"text": "2"' not in answer:
        raise RuntimeError(f"unexpected answer {answer[:200]!r}")
    return elapsed


def latency(port: int) -> str:
    """Time a normal client's requests, one after another; describe the median and p90."""
    times = [normal_request(port) for _ in range(NORMAL_REQUESTS)]
    p90 = statistics.quantiles(times, n=10)[-1]
    return f"median {statistics.median(times):.2f} ms, p90 {p90:.2f} ms, max {max(times):.1f} ms"


def closed_by_server(sockets: list[socket.socket]) -> int:
    """Count the sockets whose peer has closed them (readable with nothing, or reset)."""
    closed = 0
    for conn in sockets:
        readable, _, _ = select.select([conn], [], [], 0)
        if not readable:
            continue
        try:
            if conn.recv(1) == b"":
                closed += 1
        except OSError:
            closed += 1
    return closed


def fresh_connections(port: int, total: int, clients: int) -> tuple[float, Counter[str]]:
    """Open ``total`` fresh connections from ``clients`` threads; return the seconds taken
    and the outcomes by name (``ok`` or the error)."""
    outcomes: Counter[str] = Counter()
    lock = threading.Lock()
    share = [total // clients + (1 if k < total % clients else 0) for k in range(clients)]

    def client(count: int) -> None:
        for _ in range(count):
            try:
                with socket.create_connection((HOST, port), timeout=SOCKET_TIMEOUT) as conn:
                    conn.sendall(FAVICON)
                    answer = read_response(conn)
                outcome = "ok" if answer.startswith(b"HTTP/1.1 204") else "wrong answer"
            except OSError as exc:
                outcome = type(exc).__name__
            with lock:
                outcomes[outcome] += 1

    workers = [threading.Thread(target=client, args=(count,)) for count in share]
    start = time.perf_counter()
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return time.perf_counter() - start, outcomes


def main(argv: Sequence[str] | None = None) -> int:
    """Start a server, measure, print the figures."""
    parser = argparse.ArgumentParser(prog="python -m bench.guiserver", description=__doc__)
    parser.add_argument("--idle", type=int, default=300, help="idle sockets to hold open")
    parser.add_argument("--fresh", type=int, default=10_000, help="fresh connections to open")
    parser.add_argument("--clients", type=int, default=50, help="threads opening them")
    parser.add_argument(
        "--linger", type=float, default=35.0, help="seconds before counting closed idle sockets"
    )
    parser.add_argument(
        "--server-args", default="", metavar="ARGS", help="more options for gui.server"
    )
    args = parser.parse_args(argv)
    if args.idle < 0 or args.fresh < 0 or args.clients < 1 or args.linger < 0:
        parser.error("counts and seconds must not be negative, and --clients at least 1")
    with running_server(shlex.split(args.server_args)) as (process, port):
        normal_request(port)  # the engine answers once before the clock
        print(f"server pid {process.pid} on port {port}")
        print(f"  at rest: {threads_of(process.pid)} threads; normal client {latency(port)}")
        idle = [socket.create_connection((HOST, port)) for _ in range(args.idle)]
        try:
            time.sleep(1.0)  # let the server accept them all
            print(
                f"  {args.idle} idle sockets open: {threads_of(process.pid)} threads; "
                f"normal client {latency(port)}"
            )
            time.sleep(args.linger)
            print(
                f"  after {args.linger:g} s more: {closed_by_server(idle)} of {args.idle} idle "
                f"sockets closed by the server; {threads_of(process.pid)} threads"
            )
        finally:
            for conn in idle:
                conn.close()
        seconds, outcomes = fresh_connections(port, args.fresh, args.clients)
        failures = sum(count for name, count in outcomes.items() if name != "ok")
        detail = ", ".join(f"{name} {count}" for name, count in sorted(outcomes.items()))
        print(
            f"  {args.fresh} fresh connections from {args.clients} threads in {seconds:.1f} s "
            f"({args.fresh / seconds:,.0f}/s): {failures} failed ({detail}); "
            f"{threads_of(process.pid)} threads after"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
