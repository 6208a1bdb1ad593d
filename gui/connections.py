"""An HTTP server whose idle connections cost a file descriptor, not a thread.

http.server's ThreadingHTTPServer gives every connection a thread for its whole life: 300
sockets that never send a byte hold 300 threads, forever. Here the thread that runs
``serve_forever`` accepts connections and watches the idle ones with a selector, and gathers
each request as it arrives, head and body (gui/request_head.py); a bounded set of worker threads
takes a connection only when a request is all there, serves the requests that are there, and
hands it back to be watched. Sixteen clients that send half a request each once held all
sixteen workers for the whole timeout, and every other request waited; now they hold a few
bytes each. What the loop holds is bounded: a head over ``HEAD_LIMIT`` is refused (431), and
past ``BUFFER_BUDGET`` bytes of unfinished requests the connection holding the most is refused
(503).

Every wait is bounded by ``idle_timeout``: a connection that sends nothing for that long is
closed, a request must arrive whole within it, and a client must take its answer within it. At
``max_connections`` open connections the longest idle one is closed to make room for a new one.
A connection closed while the client may still be sending (a refused body) is closed gently: its
sending half first, then whatever still comes is read and dropped until the client has been
silent for ``LINGER`` seconds (for ``idle_timeout`` at most), so that the client reads the
answer instead of a reset.
"""

from __future__ import annotations

import contextlib
import errno
import io
import queue
import resource
import select
import selectors
import socket
import threading
import time
from collections import OrderedDict
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import TYPE_CHECKING

from gui.request_head import Head, find_head

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer, WriteableBuffer

#: The listen backlog asked for (the kernel caps it at net.core.somaxconn): a burst of fresh
#: connections waits there for the accept loop instead of being dropped.
BACKLOG = 1024
DEFAULT_WORKERS = 16
DEFAULT_IDLE_TIMEOUT = 30.0
DEFAULT_MAX_CONNECTIONS = 1000
#: Descriptors kept free for everything but connections: the engine's pipes, the page, logs.
SPARE_DESCRIPTORS = 64
#: Seconds of silence after which a closing connection is closed for good.
LINGER = 2.0
#: Connections accepted in one turn of the loop, so that connections handed back get a turn.
ACCEPTS_PER_TURN = 256
DRAIN_CHUNK = 65536
#: The longest head gathered: two lines of http.server's own limit (64 KiB each), so that its
#: refusals of a long request line or header (414, 431) still come first.
HEAD_LIMIT = 2 * (65536 + 1)
#: Bytes of unfinished requests the serving loop holds for all its connections together.
BUFFER_BUDGET = 64 * 1024 * 1024
#: The longest body gathered unless the server says otherwise.
DEFAULT_MAX_BODY = 1024 * 1024
CONTINUE_ANSWER = b"HTTP/1.1 100 Continue\r\n\r\n"
#: accept() errors that mean "no descriptor for now": make room, or wait for one to close.
OUT_OF_DESCRIPTORS = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})
#: accept() errors of one connection that failed before it was taken (accept(2) says to treat
#: them like EAGAIN): skip it and take the next.
FAILED_CONNECTION = frozenset(
    {
        errno.ECONNABORTED,
        errno.EPROTO,
        errno.ENOPROTOOPT,
        errno.EHOSTDOWN,
        errno.ENONET,
        errno.EHOSTUNREACH,
        errno.EOPNOTSUPP,
        errno.ENETDOWN,
        errno.ENETUNREACH,
        errno.EPERM,
    }
)


class TimedSocket(io.RawIOBase):
    """A socket as a raw stream whose reads wait until a deadline and writes a fixed time."""

    def __init__(self, sock: socket.socket, write_timeout: float) -> None:
        """Wrap ``sock``; reads do not wait at all until ``deadline`` is set."""
        super().__init__()
        self.sock = sock
        self.write_timeout = write_timeout
        self.deadline: float | None = None
        #: Whether a read ran out of time since the deadline was set.
        self.timed_out = False
        #: Bytes the serving loop read ahead, served before the socket's.
        self.pending = bytearray()

    def readable(self) -> bool:
        """Tell io that this stream reads."""
        return True

    def writable(self) -> bool:
        """Tell io that this stream writes."""
        return True

    def readinto(self, buffer: WriteableBuffer) -> int | None:
        """Read what has arrived, waiting no later than the deadline (past it, only what has
        arrived); None if nothing has arrived and there is no deadline."""
        if self.pending:
            view = memoryview(buffer).cast("B")
            count = min(len(view), len(self.pending))
            view[:count] = self.pending[:count]
            del self.pending[:count]
            return count
        if self.deadline is None:
            self.sock.settimeout(0.0)
            try:
                return self.sock.recv_into(buffer)
            except BlockingIOError:
                return None
        remaining = self.deadline - time.monotonic()
        try:
            if remaining <= 0:
                self.sock.settimeout(0.0)
                try:
                    return self.sock.recv_into(buffer)
                except BlockingIOError:
                    raise TimeoutError("the request did not arrive in time") from None
            self.sock.settimeout(remaining)
            return self.sock.recv_into(buffer)
        except TimeoutError:
            # http.server swallows a timeout in the request line or headers: note it here.
            self.timed_out = True
            raise

    def write(self, data: ReadableBuffer) -> int:
        """Send all of ``data`` or fail after the write timeout."""
        view = memoryview(data)
        self.sock.settimeout(self.write_timeout)
        self.sock.sendall(view)
        return view.nbytes


class Connection:
    """One client connection: its socket and the buffered streams kept across its requests."""

    def __init__(
        self, sock: socket.socket, address: tuple[str, int], timeout: float, write_buffer: int
    ) -> None:
        """Wrap an accepted socket."""
        self.sock = sock
        self.address = address
        self.timeout = timeout
        self.stream = TimedSocket(sock, timeout)
        self.rfile = io.BufferedReader(self.stream)
        self.wfile = io.BufferedWriter(self.stream, write_buffer)
        #: When the connection went idle, or last sent something while closing.
        self.since = time.monotonic()
        #: When a lingering close ends even if the client goes on sending.
        self.linger_end = 0.0
        self.new_request()

    @property
    def pending(self) -> bytearray:
        """The bytes of the next request(s) read so far and not yet handled."""
        return self.stream.pending

    def new_request(self) -> None:
        """Forget the request handled: the next one is told from the bytes to come."""
        #: When the request's first byte arrived: it must be whole within the timeout.
        self.started: float | None = None
        self.head: Head | None = None
        #: Bytes of `pending` searched for the head's end so far.
        self.scanned = 0
        #: Whether the serving loop answered `100 Continue` for this request.
        self.continued = False
        #: An answer the handler gives at once, reading nothing (the loop refused it).
        self.refusal: tuple[int, str] | None = None

    def request_state(self, max_body: int) -> tuple[bool, bool]:
        """Tell whether the next request is all there (or can be answered now), and whether
        the client waits for `100 Continue` before it sends the body."""
        if self.refusal is not None:
            return True, False
        if self.head is None:
            self.head = find_head(self.pending, self.scanned, max_body)
            self.scanned = len(self.pending)
            if self.head is None:
                if len(self.pending) >= HEAD_LIMIT:
                    self.refusal = (431, f"the request's head is over {HEAD_LIMIT} bytes")
                    return True, False
                return False, False
        if self.head.body is None:
            return True, False
        ready = len(self.pending) >= self.head.end + self.head.body
        return ready, self.head.wants_continue and not ready and not self.continued

    def expect_request(self) -> None:
        """Start serving the request: every read waits until its deadline at most, the
        timeout after its first byte (past it, only what has arrived is read)."""
        started = self.started if self.started is not None else time.monotonic()
        self.stream.deadline = started + self.timeout
        self.stream.timed_out = False

    def request_ready(self, max_body: int) -> bool:
        """Tell, without waiting, whether the next request is all there already (a client
        may send several at once); the bytes read ahead go back to `pending` either way."""
        self.new_request()
        self.stream.deadline = None
        try:
            buffered = self.rfile.peek(1)
            self.pending[:0] = self.rfile.read(len(buffered))
        except OSError:
            return False  # a broken connection: the selector reports it, and it is closed
        if not self.pending:
            return False
        self.started = time.monotonic()
        return self.request_state(max_body)[0]

    def close(self) -> None:
        """Close the socket, then the streams (their flush fails at once, not after a wait)."""
        self.sock.close()
        for stream in (self.wfile, self.rfile):
            with contextlib.suppress(OSError, ValueError):
                stream.close()


class PooledRequestHandler(BaseHTTPRequestHandler):
    """Serve the requests that have arrived on a connection, then hand it back to be watched.

    A request that does not arrive whole in time is answered 408, an exception other than the
    client going away is logged and answered 500 (each when no answer has begun), and the
    connection is closed in both cases.
    """

    server: PooledHTTPServer

    def __init__(self, link: Connection, server: PooledHTTPServer) -> None:
        """Serve ``link`` now (as every request handler does in its constructor)."""
        self.link = link
        self.responded = False
        super().__init__(link.sock, link.address, server)

    def setup(self) -> None:
        """Use the connection's streams, which outlive this handler."""
        self.connection = self.request
        self.rfile = self.link.rfile
        self.wfile = self.link.wfile

    def handle(self) -> None:
        """Serve one request, and the next ones while they have already arrived whole."""
        self.close_connection = True
        self._serve_one()
        while not self.close_connection and self.link.request_ready(self.server.max_body):
            self._serve_one()

    def handle_expect_100(self) -> bool:
        """Go on with the body: the serving loop has answered ``100 Continue`` already if the
        client waited for it."""
        if self.link.continued:
            return True
        return super().handle_expect_100()

    def finish(self) -> None:
        """Send what is buffered; the connection stays open for the server to watch or close."""
        with contextlib.suppress(OSError, ValueError):
            self.wfile.flush()

    def send_response(self, code: int, message: str | None = None) -> None:
        """Start a response, noting that one has begun."""
        self.responded = True
        super().send_response(code, message)

    def _serve_one(self) -> None:
        """Serve one request; on a failure answer it if possible and mark the connection done."""
        self.responded = False
        # What an answer names before the request line has been read (it may never be): a
        # refusal then is still an HTTP/1.1 answer with its status line, never HTTP/0.9's.
        self.command, self.requestline, self.request_version = "", "", "HTTP/1.1"
        if self.link.refusal is not None:
            self.close_connection = True
            self._answer_failure(*self.link.refusal)
            return
        self.link.expect_request()
        try:
            self.handle_one_request()
        except OSError:
            self.close_connection = True  # the client went away, or stopped reading
        except Exception:
            self.close_connection = True
            self.server.handle_error(self.request, self.client_address)
            if not self.responded:
                self._answer_failure(500, "internal error of the server (see its stderr)")
        if self.link.stream.timed_out:
            self.close_connection = True
            if not self.responded:
                self._answer_failure(
                    408, f"the request did not arrive whole within {self.link.timeout:g} s"
                )

    def _answer_failure(self, code: int, message: str) -> None:
        """Answer a request that failed midway, if the client still listens."""
        with contextlib.suppress(OSError, ValueError):
            self.send_error(code, message)
            self.wfile.flush()


class PooledHTTPServer(HTTPServer):
    """An HTTP server with bounded worker threads and timed, bounded connections."""

    request_queue_size = BACKLOG

    def __init__(
        self,
        address: tuple[str, int],
        handler_class: type[PooledRequestHandler],
        *,
        workers: int = DEFAULT_WORKERS,
        idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
        max_connections: int = DEFAULT_MAX_CONNECTIONS,
        max_body: int = DEFAULT_MAX_BODY,
    ) -> None:
        """Bind and listen on ``address``; serve with at most ``workers`` threads, gathering
        bodies of up to ``max_body`` bytes before a worker takes them."""
        # Made before binding: a failed bind calls server_close, which closes this pair.
        self._wake_read, self._wake_write = socket.socketpair()
        super().__init__(address, handler_class)
        self.handler_class = handler_class
        self.workers = workers
        self.idle_timeout = idle_timeout
        self.max_body = max_body
        #: Bytes of unfinished requests held by the idle connections (the serving thread's).
        self.buffered = 0
        soft_limit, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft_limit != resource.RLIM_INFINITY:
            max_connections = min(max_connections, soft_limit - SPARE_DESCRIPTORS)
        self.max_connections = max(1, max_connections)
        self.socket.setblocking(False)
        self._write_buffer = max(handler_class.wbufsize, io.DEFAULT_BUFFER_SIZE)
        # Workers hand connections back through this queue and wake the loop by the socket pair.
        self._returns: queue.SimpleQueue[tuple[Connection, bool]] = queue.SimpleQueue()
        self._wake_read.setblocking(False)
        self._wake_write.setblocking(False)
        self._jobs: queue.SimpleQueue[Connection] = queue.SimpleQueue()
        self._pool_lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        #: Workers free for a job nobody has claimed yet, and jobs queued with every worker
        #: busy and the pool full, which the next worker to finish takes. The dispatcher
        #: claims a worker per job under the lock: a worker's own count of "waiting" (up
        #: before `get`, down after it) left a window in which a job was queued for a worker
        #: that had just taken another, and no thread was started for it.
        self._free_workers = 0
        self._unclaimed_jobs = 0
        # Owned by the serving thread alone: no lock needed.
        self._idle: OrderedDict[Connection, None] = OrderedDict()
        self._lingering: OrderedDict[Connection, None] = OrderedDict()
        self._busy: set[Connection] = set()
        self._accepting = True
        self._selector: selectors.BaseSelector | None = None
        # A plain flag, not an Event: stop_soon sets it from signal handlers, which must take
        # no lock (the interrupted thread may hold it).
        self._stop = False
        self._stopped = threading.Event()
        self._stopped.set()

    @property
    def open_connections(self) -> int:
        """Return how many connections are open (idle, being served or closing)."""
        return len(self._idle) + len(self._lingering) + len(self._busy)

    @property
    def queued_connections(self) -> int:
        """Return how many connections with a request wait for a free worker."""
        return self._jobs.qsize()

    @property
    def free_workers(self) -> int:
        """Return how many started workers wait for a job that is not yet claimed."""
        with self._pool_lock:
            return self._free_workers

    @property
    def worker_threads(self) -> int:
        """Return how many worker threads have been started (never more than ``workers``)."""
        with self._pool_lock:
            return len(self._threads)

    def serve_forever(self, poll_interval: float = 0.5) -> None:
        """Accept, watch and dispatch connections until ``shutdown`` (``poll_interval`` is
        unused: the loop sleeps until a socket, a handed-back connection or a deadline)."""
        self._stopped.clear()
        with selectors.DefaultSelector() as selector:
            self._selector = selector
            selector.register(self.socket, selectors.EVENT_READ, self)
            selector.register(self._wake_read, selectors.EVENT_READ, self._wake_read)
            try:
                while not self._stop:
                    for key, _ in selector.select(self._time_to_next_deadline()):
                        if key.data is self:
                            self._accept()
                        elif key.data is self._wake_read:
                            self._take_back()
                        else:
                            self._readable(key.data)
                    self._close_expired()
            finally:
                self._close_all()
                self._selector = None
                self._stopped.set()

    def shutdown(self) -> None:
        """Stop ``serve_forever`` and wait until it has; call it from another thread."""
        self.stop_soon()
        self._stopped.wait()

    def stop_soon(self) -> None:
        """Ask ``serve_forever`` to return after its present turn; return at once. Safe in a
        signal handler; once asked, the server stays stopped (it is served once)."""
        self._stop = True
        self._wake()

    def server_close(self) -> None:
        """Close the listening socket and the loop's wake-up pair."""
        super().server_close()
        self._wake_read.close()
        self._wake_write.close()

    # --- the serving thread ---------------------------------------------------------------

    def _accept(self) -> None:
        """Accept the connections waiting in the backlog and start watching them."""
        for _ in range(ACCEPTS_PER_TURN):
            if self.open_connections >= self.max_connections:
                if not self._connection_waiting():
                    return
                if not self._make_room():
                    self._pause_accepting()
                    return
            try:
                sock, address = self.socket.accept()
            except BlockingIOError:
                return
            except OSError as exc:
                if exc.errno in FAILED_CONNECTION:
                    continue
                if exc.errno in OUT_OF_DESCRIPTORS:
                    if not self._make_room():
                        self._pause_accepting()
                    return
                raise
            if self.handler_class.disable_nagle_algorithm:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._watch(Connection(sock, address, self.idle_timeout, self._write_buffer))

    def _connection_waiting(self) -> bool:
        """Tell whether a connection waits in the backlog (room is made only for one)."""
        readable, _, _ = select.select([self.socket], [], [], 0)
        return bool(readable)

    def _watch(self, conn: Connection) -> None:
        """Keep an idle connection in the selector until its next request is all there (a
        part of it may have come with the one before)."""
        assert self._selector is not None
        conn.since = time.monotonic()
        conn.sock.setblocking(False)
        self._idle[conn] = None
        self.buffered += len(conn.pending)
        self._selector.register(conn.sock, selectors.EVENT_READ, conn)
        if conn.pending:
            if conn.started is None:
                conn.started = conn.since
            self._check_request(conn)

    def _readable(self, conn: Connection) -> None:
        """Gather the request of an idle connection, handing it to a worker once it is all
        there, or drain a closing one."""
        assert self._selector is not None
        if conn in self._lingering:
            try:
                data = conn.sock.recv(DRAIN_CHUNK)
            except BlockingIOError:
                return
            except OSError:
                data = b""
            conn.since = time.monotonic()
            if not data or conn.since > conn.linger_end:
                self._close(conn)
            else:
                self._lingering.move_to_end(conn)  # keep the dict in order of silence
            return
        try:
            data = conn.sock.recv(DRAIN_CHUNK)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:  # the client has gone, or will send nothing more
            if conn.pending:
                self._hand_over(conn)  # the handler answers what came, if it can
            else:
                self._close(conn)
            return
        if not conn.pending:
            # The request's clock starts with its first byte; more bytes do not stop it.
            conn.started = conn.since = time.monotonic()
            self._idle.move_to_end(conn)
        conn.pending.extend(data)
        self.buffered += len(data)
        self._check_request(conn)
        while self.buffered > BUFFER_BUDGET and self._idle:
            self._refuse_largest()

    def _check_request(self, conn: Connection) -> None:
        """Hand the connection over if its request is all there; answer `100 Continue` if
        the client waits for it before it sends the body."""
        ready, wants_continue = conn.request_state(self.max_body)
        if wants_continue:
            conn.continued = True
            # A few bytes on a connection that has had no answer yet: the send buffer is
            # empty. A client that cannot take them sends no body, and its request expires.
            with contextlib.suppress(OSError):
                conn.sock.send(CONTINUE_ANSWER)
        if ready:
            self._hand_over(conn)

    def _refuse_largest(self) -> None:
        """Refuse the unfinished request that holds the most bytes (503): the loop holds
        no more than its budget, and a client sending little is never the one refused."""
        largest = max(self._idle, key=lambda conn: len(conn.pending))
        largest.refusal = (503, "the server holds too many unfinished requests; send it again")
        self._hand_over(largest)

    def _hand_over(self, conn: Connection) -> None:
        """Give an idle connection to a worker."""
        assert self._selector is not None
        self._selector.unregister(conn.sock)
        del self._idle[conn]
        self.buffered -= len(conn.pending)
        self._busy.add(conn)
        self._dispatch(conn)

    def _take_back(self) -> None:
        """Watch again the connections the workers have finished with, or close them."""
        with contextlib.suppress(BlockingIOError):
            while self._wake_read.recv(DRAIN_CHUNK):
                pass
        while True:
            try:
                conn, keep = self._returns.get_nowait()
            except queue.Empty:
                return
            self._busy.discard(conn)
            if keep:
                self._watch(conn)
            else:
                self._linger(conn)

    def _linger(self, conn: Connection) -> None:
        """Close the sending half now and the connection once the client has stopped sending:
        closing with unread input would reset the connection and could destroy the answer
        before the client reads it."""
        assert self._selector is not None
        try:
            conn.sock.shutdown(socket.SHUT_WR)
            conn.sock.setblocking(False)
        except OSError:
            conn.close()
            self._closed()
            return
        conn.since = time.monotonic()
        conn.linger_end = conn.since + self.idle_timeout
        self._lingering[conn] = None
        self._selector.register(conn.sock, selectors.EVENT_READ, conn)

    def _close(self, conn: Connection) -> None:
        """Stop watching an idle or closing connection and close it."""
        assert self._selector is not None
        self._selector.unregister(conn.sock)
        if conn in self._idle:
            del self._idle[conn]
            self.buffered -= len(conn.pending)
        self._lingering.pop(conn, None)
        conn.close()
        self._closed()

    def _closed(self) -> None:
        """Take new connections again if the limit had stopped them."""
        if not self._accepting and self._selector is not None:
            self._accepting = True
            self._selector.register(self.socket, selectors.EVENT_READ, self)

    def _pause_accepting(self) -> None:
        """Leave new connections in the backlog until one closes."""
        if self._accepting and self._selector is not None:
            self._accepting = False
            self._selector.unregister(self.socket)

    def _make_room(self) -> bool:
        """Close the oldest closing or idle connection; False when every one is busy."""
        for watched in (self._lingering, self._idle):
            if watched:
                self._close(next(iter(watched)))
                return True
        return False

    def _close_expired(self) -> None:
        """Close the connections idle for longer than the timeout and end lingering closes;
        a request that has not come whole in time goes to a worker, which answers it at once
        (408) from what has come."""
        now = time.monotonic()
        for watched, limit in ((self._idle, self.idle_timeout), (self._lingering, LINGER)):
            while watched:
                oldest = next(iter(watched))
                if now - oldest.since < limit:
                    break
                if watched is self._idle and oldest.pending:
                    self._hand_over(oldest)
                else:
                    self._close(oldest)

    def _time_to_next_deadline(self) -> float | None:
        """Return the seconds until the next connection must be closed (None: no deadline)."""
        deadlines = [
            next(iter(watched)).since + limit
            for watched, limit in ((self._idle, self.idle_timeout), (self._lingering, LINGER))
            if watched
        ]
        return max(0.0, min(deadlines) - time.monotonic()) if deadlines else None

    def _close_all(self) -> None:
        """Close every watched connection and wake the workers out of busy ones."""
        for conn in [*self._idle, *self._lingering]:
            self._close(conn)
        for conn in self._busy:
            with contextlib.suppress(OSError):
                conn.sock.shutdown(socket.SHUT_RDWR)

    # --- the workers ----------------------------------------------------------------------

    def _dispatch(self, conn: Connection) -> None:
        """Queue a connection for a free worker, or for a new one while the pool has room;
        with every worker busy and the pool full it waits for the first to finish."""
        with self._pool_lock:
            self._jobs.put(conn)
            if self._free_workers:
                self._free_workers -= 1
            elif len(self._threads) < self.workers:
                thread = threading.Thread(
                    target=self._work, name=f"http-worker-{len(self._threads) + 1}", daemon=True
                )
                self._threads.append(thread)
                thread.start()
            else:
                self._unclaimed_jobs += 1

    def _work(self) -> None:
        """Serve queued connections, one at a time, for the life of the server."""
        while True:
            conn = self._jobs.get()
            try:
                keep = not self.handler_class(conn, self).close_connection
            except Exception:
                self.handle_error(conn.sock, conn.address)
                keep = False
            # Free before the connection is handed back: its next request then finds this
            # worker rather than starting another.
            with self._pool_lock:
                if self._unclaimed_jobs:
                    self._unclaimed_jobs -= 1
                else:
                    self._free_workers += 1
            self._returns.put((conn, keep))
            self._wake()

    def _wake(self) -> None:
        """Wake the serving thread out of its select."""
        # A full pair already holds a wake-up; a closed one means the server is gone.
        with contextlib.suppress(OSError):
            self._wake_write.send(b"\0")
