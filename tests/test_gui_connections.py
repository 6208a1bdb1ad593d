"""The pooled HTTP server (gui/connections.py) in process, with a small handler of its own.

The GUI server's process tests (test_gui_server.py) show the bounds from outside; these drive
the corners that need a handler held back on purpose: a full pool, the connection limit, and
requests that arrive together.
"""

from __future__ import annotations

import queue
import socket
import threading
import time
from collections.abc import Iterator

import pytest

from gui.connections import Connection, PooledHTTPServer, PooledRequestHandler
from gui.request_head import Head, find_head
from tests.conftest import TIMEOUT


class EchoHandler(PooledRequestHandler):
    """Answer every GET with its path; ``/hold`` first waits for the server's gate."""

    server: EchoServer
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        if self.path == "/hold":
            self.server.held.release()
            assert self.server.gate.wait(TIMEOUT)
        body = self.path.encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        """Stay quiet."""


class EchoServer(PooledHTTPServer):
    """A pooled server with a gate its handlers can be held at."""

    def __init__(self, workers: int, max_connections: int) -> None:
        super().__init__(
            ("127.0.0.1", 0), EchoHandler, workers=workers, max_connections=max_connections
        )
        self.gate = threading.Event()
        self.held = threading.Semaphore(0)


class Servers:
    """Echo servers started on demand, each serving in a thread of its own."""

    def __init__(self) -> None:
        self.started: list[EchoServer] = []

    def __call__(self, workers: int = 4, max_connections: int = 100) -> EchoServer:
        """Start a server and return it."""
        server = EchoServer(workers, max_connections)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        self.started.append(server)
        return server

    def stop(self) -> None:
        """Open every gate, shut every server down."""
        for server in self.started:
            server.gate.set()
            server.shutdown()
            server.server_close()


@pytest.fixture
def serve() -> Iterator[Servers]:
    """Start echo servers on demand; shut every one down after the test."""
    servers = Servers()
    try:
        yield servers
    finally:
        servers.stop()


def connect(server: EchoServer) -> socket.socket:
    return socket.create_connection(server.socket.getsockname(), timeout=TIMEOUT)


def get(path: str) -> bytes:
    return f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode()


def read_answers(conn: socket.socket, count: int) -> list[bytes]:
    """Read ``count`` answers (each ends with its short body, the path) and return the bodies."""
    data = b""
    bodies: list[bytes] = []
    while len(bodies) < count:
        chunk = conn.recv(65536)
        assert chunk, f"closed after {bodies!r}"
        data += chunk
        while b"\r\n\r\n" in data:
            head, _, rest = data.partition(b"\r\n\r\n")
            length = int(head.split(b"Content-Length: ")[1].split(b"\r\n")[0])
            if len(rest) < length:
                break
            bodies.append(rest[:length])
            data = rest[length:]
    return bodies


def test_requests_sent_together_are_all_answered(serve: Servers) -> None:
    """Requests that arrive in one packet are all answered, in order, on the kept-alive
    connection: those already read into the buffer are not left waiting for more input."""
    server = serve()
    with connect(server) as conn:
        conn.sendall(get("/a") + get("/b") + get("/c"))
        assert read_answers(conn, 3) == [b"/a", b"/b", b"/c"]
        conn.sendall(get("/d"))
        assert read_answers(conn, 1) == [b"/d"]


def test_a_full_pool_queues_requests_and_starts_no_more_threads(
    serve: Servers,
) -> None:
    """With every worker held, more requests wait their turn; no thread is added."""
    server = serve(workers=2)
    held = [connect(server) for _ in range(2)]
    waiting = [connect(server) for _ in range(3)]
    for conn in held:
        conn.sendall(get("/hold"))
    for _ in held:
        assert server.held.acquire(timeout=TIMEOUT)
    for k, conn in enumerate(waiting):
        conn.sendall(get(f"/{k}"))
    deadline = time.monotonic() + TIMEOUT
    while server.queued_connections < 3:
        assert time.monotonic() < deadline, "the requests were never queued"
        time.sleep(0.01)
    assert server.worker_threads == 2
    server.gate.set()
    for k, conn in enumerate(waiting):
        assert read_answers(conn, 1) == [f"/{k}".encode()]
    for conn in held:
        assert read_answers(conn, 1) == [b"/hold"]
    assert server.worker_threads == 2
    # The three requests served by whichever worker finished first claimed no worker: at
    # rest both are free, no more.
    deadline = time.monotonic() + TIMEOUT
    while server.free_workers != 2:
        assert server.free_workers < 2, server.free_workers
        assert time.monotonic() < deadline, "the workers never came back"
        time.sleep(0.01)
    for conn in held + waiting:
        conn.close()


class FirstTakeWaits(queue.SimpleQueue[Connection]):
    """A job queue whose first `get` returns only once a second job has been queued: the
    first worker has taken its job but not yet come back from taking it."""

    def __init__(self) -> None:
        super().__init__()
        self.puts = 0
        self.first = True
        #: Set once the first job has been taken, and once a second has been queued.
        self.taken = threading.Event()
        self.second = threading.Event()

    def put(self, item: Connection, block: bool = True, timeout: float | None = None) -> None:
        super().put(item, block, timeout)
        self.puts += 1
        if self.puts == 2:
            self.second.set()

    def get(self, block: bool = True, timeout: float | None = None) -> Connection:
        job = super().get(block, timeout)
        if self.first:
            self.first = False
            self.taken.set()
            self.second.wait(TIMEOUT)
        return job


def test_a_job_queued_while_a_worker_takes_another_gets_a_worker_of_its_own(
    serve: Servers,
) -> None:
    """A request that arrives while the only worker is taking the one before it starts a
    second worker (the pool has room), rather than waiting behind a request that may take
    long: both are served at once."""
    server = serve(workers=2)
    server._jobs = jobs = FirstTakeWaits()
    first, second = connect(server), connect(server)
    first.sendall(get("/hold"))
    assert jobs.taken.wait(TIMEOUT)
    second.sendall(get("/hold"))
    for _ in range(2):
        assert server.held.acquire(timeout=TIMEOUT), "a request was left without a worker"
    assert server.worker_threads == 2
    server.gate.set()
    for conn in (first, second):
        assert read_answers(conn, 1) == [b"/hold"]
        conn.close()


def test_at_the_limit_the_oldest_idle_connection_makes_room(serve: Servers) -> None:
    """At the connection limit a new connection is taken and the longest idle one closed."""
    server = serve(max_connections=3)
    oldest, middle, newest = (connect(server) for _ in range(3))
    middle.sendall(get("/m"))  # accepted and served: the loop has seen all three
    assert read_answers(middle, 1) == [b"/m"]
    with connect(server) as extra:
        extra.sendall(get("/x"))
        assert read_answers(extra, 1) == [b"/x"]
        assert oldest.recv(1) == b""  # closed by the server
        newest.sendall(get("/n"))
        assert read_answers(newest, 1) == [b"/n"]
    for conn in (oldest, middle, newest):
        conn.close()


def test_at_the_limit_with_all_busy_new_connections_wait(serve: Servers) -> None:
    """When every open connection is busy, a new one waits in the backlog, and is served as
    soon as one closes."""
    server = serve(workers=2, max_connections=2)
    busy = [connect(server) for _ in range(2)]
    for conn in busy:
        conn.sendall(get("/hold"))
    for _ in busy:
        assert server.held.acquire(timeout=TIMEOUT)
    with connect(server) as late:
        late.sendall(get("/late"))
        server.gate.set()
        for conn in busy:
            assert read_answers(conn, 1) == [b"/hold"]
            conn.close()
        assert read_answers(late, 1) == [b"/late"]


def test_shutdown_closes_the_idle_connections(serve: Servers) -> None:
    """After shutdown every idle connection is closed."""
    server = serve()
    with connect(server) as conn:
        conn.sendall(get("/a"))
        assert read_answers(conn, 1) == [b"/a"]
        server.shutdown()
        assert conn.recv(1) == b""


POST_9 = b"POST / HTTP/1.1\r\nContent-Length: 9\r\n"


@pytest.mark.parametrize(
    ("head", "body", "wants_continue"),
    [
        (b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", 0, False),
        (b"GET / HTTP/1.1\nHost: x\n\n", 0, False),
        (b"\r\n", None, False),
        (b"POST / HTTP/1.1\r\ncontent-length:  12 \r\n\r\n", 12, False),
        (POST_9 + b"Content-Length: 9\r\n\r\n", None, False),
        (b"POST / HTTP/1.1\r\nContent-Length: +1\r\n\r\n", None, False),
        (b"POST / HTTP/1.1\r\nContent-Length: 1001\r\n\r\n", None, False),
        (POST_9 + b"Transfer-Encoding: x\r\n\r\n", None, False),
        (POST_9 + b"Expect: 100-Continue\r\n\r\n", 9, True),
        (POST_9.replace(b"1.1", b"1.0") + b"Expect: 100-continue\r\n\r\n", None, False),
        (POST_9 + b"Expect: other\r\n\r\n", None, False),
    ],
)
def test_find_head(head: bytes, body: int | None, wants_continue: bool) -> None:
    """The end of the first head, and the body to wait for (None: hand it over at once),
    found however the bytes come, one at a time or with the next request behind them."""
    expected = Head(len(head), body, wants_continue)
    assert find_head(head + b"GET / HTTP/1.1\r\n\r\n", 0, 1000) == expected
    found = None
    for size in range(1, len(head) + 1):
        found = find_head(head[:size], size - 1, 1000)
        assert (found is None) == (size < len(head)), size
    assert found == expected


def test_unfinished_requests_past_the_budget(
    serve: Servers, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past the budget of unfinished requests, the one holding the most is refused (503);
    a small request beside it is served."""
    monkeypatch.setattr("gui.connections.BUFFER_BUDGET", 200_000)
    server = serve()
    with connect(server) as big, connect(server) as small:
        small.sendall(b"GET /s HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n12345")
        big.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 500000\r\n\r\n")
        big.sendall(b"a" * 250_000)
        assert big.recv(4096).startswith(b"HTTP/1.1 503")
        small.sendall(b"67890")
        assert read_answers(small, 1) == [b"/s"]
