"""The GUI server process under hostile requests and crowds of connections (issue 24, 7–8).

Each test starts ``python -m gui.server --port 0`` with a real engine whose logs go to a
temporary folder, and talks to it over raw sockets, as a hostile client would: every request
must get an HTTP answer, a refused one a JSON error naming the problem, before any of its lines
reaches the engine; idle sockets must cost no thread and be closed after the idle timeout.
No browser is needed.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import select
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from gui.connections import DEFAULT_WORKERS, HEAD_LIMIT
from gui.relay import SERVER_FILE_COMMANDS
from gui.request_body import MAX_BATCH
from gui.server import MAX_BODY
from kernel.kernel import COMMANDS
from tablebase.build import build
from tests.conftest import CASE_1, CASE_2, REPO, TIMEOUT

#: The short idle timeout of the server that tests timeouts, in seconds.
QUICK_IDLE = 1.0
#: Threads a server may run at most: the serving loop, the engine's stdout reader, the workers.
MAX_THREADS = DEFAULT_WORKERS + 2


@dataclass
class Server:
    """A running GUI server process and its port."""

    process: subprocess.Popen[str]
    port: int

    @property
    def pid(self) -> int:
        return self.process.pid

    def threads(self) -> int:
        """Return how many threads the server process runs."""
        status = Path(f"/proc/{self.pid}/status").read_text()
        match = re.search(r"^Threads:\s+(\d+)$", status, re.MULTILINE)
        assert match is not None, status
        return int(match.group(1))

    def peers(self) -> set[int]:
        """Return the client ports of the TCP connections the server process holds open.

        Asked of the connections themselves, not of a count of descriptors: a connection of
        an earlier test may still be closing (the server lingers up to two seconds), and a
        count taken before it closes would never be reached again.
        """
        folder = f"/proc/{self.pid}/fd"
        sockets = set()
        for descriptor in os.listdir(folder):
            with contextlib.suppress(OSError):  # closed since the listing
                link = os.readlink(f"{folder}/{descriptor}")
                if link.startswith("socket:["):
                    sockets.add(link[len("socket:[") : -1])
        ports = set()
        # Each line: number, local address:port, remote address:port, state, ..., inode.
        for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
            fields = line.split()
            if fields[9] in sockets:
                ports.add(int(fields[2].rpartition(":")[2], 16))
        return ports


@contextlib.contextmanager
def running_server(
    logs: Path, *options: str, engine_options: Sequence[str] = ()
) -> Iterator[Server]:
    """Start the GUI server on a free port with a real engine (``engine_options`` added to its
    command line); stop it with SIGTERM after, checking that it exits 0 and wrote no
    traceback."""
    engine = shlex.join([sys.executable, "main.py", "--log-dir", str(logs), *engine_options])
    process = subprocess.Popen(
        [sys.executable, "-m", "gui.server", "--port", "0", "--engine", engine, *options],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    stdout = process.stdout
    assert stdout is not None
    first: list[str] = []
    # Read in a thread so a server that never prints fails the test instead of hanging it.
    reader = threading.Thread(target=lambda: first.append(stdout.readline()), daemon=True)
    reader.start()
    reader.join(TIMEOUT)
    match = re.search(r"http://127\.0\.0\.1:(\d+)/$", first[0].rstrip("\n") if first else "")
    if match is None:
        process.kill()
        _, err = process.communicate(timeout=TIMEOUT)
        raise AssertionError(f"the server did not print its address: {first!r} {err!r}")
    try:
        yield Server(process, int(match.group(1)))
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGCONT)  # in case a test left it stopped
            process.send_signal(signal.SIGTERM)
        try:
            _, err = process.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            _, err = process.communicate()
    assert process.returncode == 0, err
    assert "Traceback" not in err, err


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server with the default settings, shared by the module."""
    with running_server(tmp_path_factory.mktemp("engine-logs")) as running:
        yield running


@pytest.fixture(scope="module")
def quick_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server that closes a silent connection after ``QUICK_IDLE`` seconds."""
    logs = tmp_path_factory.mktemp("engine-logs")
    with running_server(logs, "--idle-timeout", str(QUICK_IDLE)) as running:
        yield running


# --- talking HTTP by hand --------------------------------------------------------------------


@dataclass(frozen=True)
class Response:
    """One HTTP response as it came over the wire."""

    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> dict[str, Any]:
        assert self.headers.get("content-type", "").startswith("application/json"), self
        answer: dict[str, Any] = json.loads(self.body)
        return answer


class Client:
    """One connection to the server, read response by response."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
        self.pending = b""

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.sock.close()

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def _fill(self) -> bool:
        """Read more; False at the end of the stream."""
        chunk = self.sock.recv(65536)
        self.pending += chunk
        return bool(chunk)

    def response(self) -> Response | None:
        """Read the next whole response, or None when the server closed the connection."""
        while b"\r\n\r\n" not in self.pending:
            if not self._fill():
                assert self.pending == b"", f"closed inside a response: {self.pending[:300]!r}"
                return None
        head, _, self.pending = self.pending.partition(b"\r\n\r\n")
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        headers = {}
        for line in header_lines:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        size = int(headers.get("content-length", "0"))
        while len(self.pending) < size:
            assert self._fill(), f"closed inside a body: {self.pending[:300]!r}"
        body, self.pending = self.pending[:size], self.pending[size:]
        return Response(int(status_line.split()[1]), headers, body)

    def closed(self) -> bool:
        """Tell whether the server has closed the connection (waiting up to the timeout)."""
        try:
            return self.pending == b"" and not self._fill()
        except ConnectionResetError:
            return True


def post(body: bytes, length: int | None = None, headers: bytes = b"") -> bytes:
    """Frame a POST /engine of ``body`` with a Content-Length (``length``, or the true one)."""
    size = len(body) if length is None else length
    return (
        b"POST /engine HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        + headers
        + f"Content-Length: {size}\r\n\r\n".encode()
        + body
    )


def ask(port: int, payload: object) -> tuple[int, dict[str, Any]]:
    """POST a JSON payload on a fresh connection; return the status and the JSON answer."""
    with Client(port) as client:
        client.send(post(json.dumps(payload).encode()))
        response = client.response()
    assert response is not None, "no answer"
    return response.status, response.json()


def engine_board(port: int) -> str:
    """Return the engine's get_board through the server."""
    status, answer = ask(port, {"line": "get_board"})
    assert (status, answer["ok"]) == (200, True), answer
    text: str = answer["text"]
    return text


def set_board(port: int, board: str) -> None:
    """Set the engine's position through the server."""
    status, answer = ask(port, {"line": f"set_board {board}"})
    assert (status, answer["ok"]) == (200, True), answer


# --- item 7: every body gets an answer ---------------------------------------------------------

SET_CASE_2 = json.dumps({"line": f"set_board {CASE_2}"}).encode()

HOSTILE_BODIES = {
    "lone surrogate": (b'{"line": "name \\ud800"}', '"line" holds a lone surrogate \\ud800'),
    "low surrogate": (b'{"line": "name \\udc00x"}', '"line" holds a lone surrogate \\udc00'),
    "nested 100,000 deep": (b"[" * 100_000 + b"]" * 100_000, "nests arrays or objects too deep"),
    "nested objects": (b'{"a":' * 100_000 + b"1" + b"}" * 100_000, "too deeply"),
    "integer of 5,000 digits": (b'{"line": ' + b"9" * 5000 + b"}", '"line" is a number'),
    "huge float": (b'{"line": 1e999999}', '"line" is a number'),
    "NaN": (b'{"line": NaN}', "NaN is not a JSON value"),
    "Infinity": (b'{"lines": [-Infinity]}', "-Infinity is not a JSON value"),
    "invalid UTF-8": (b'{"line": "name \xff"}', "not UTF-8: byte 0xff at offset 15"),
    "UTF-16": ('{"line": "name"}'.encode("utf-16"), "not UTF-8"),
    "byte-order mark": (b'\xef\xbb\xbf{"line": "name"}', "not JSON"),
    "duplicate keys": (b'{"line": "name", "line": "quit"}', 'the key "line" twice'),
    "duplicate inner keys": (b'{"lines": [{"a": 1, "a": 2}]}', 'the key "a" twice'),
    "null line": (b'{"line": null}', '"line" is null, not a string'),
    "boolean line": (b'{"line": true}', '"line" is true, not a string'),
    "array line": (b'{"line": ["name"]}', '"line" is an array, not a string'),
    "string lines": (b'{"lines": "name"}', '"lines" is a string, not an array'),
    "number in lines": (b'{"lines": ["name", 1]}', 'line 2 of "lines" is a number'),
    "no lines": (b'{"lines": []}', '"lines" holds 0 lines'),
    "too many lines": (
        json.dumps({"lines": ["name"] * (MAX_BATCH + 1)}).encode(),
        f'"lines" holds {MAX_BATCH + 1} lines',
    ),
    "both keys": (b'{"line": "name", "lines": ["name"]}', "not both"),
    "unknown key": (b'{"line": "name", "engine": "other"}', 'unknown key "engine"'),
    "empty object": (b"{}", "empty object"),
    "array": (b'["name"]', "the body is an array, not an object"),
    "string": (b'"name"', "the body is a string, not an object"),
    "trailing data": (b'{"line": "name"} {"line": "quit"}', "Extra data"),
    "empty body": (b"", "not JSON"),
    "line break": (b'{"line": "name\\nquit"}', "line break"),
    "comment": (b'{"line": "# nothing"}', "comment lines get no response"),
}


@pytest.mark.parametrize("body,problem", HOSTILE_BODIES.values(), ids=HOSTILE_BODIES.keys())
def test_hostile_body_gets_400_naming_the_problem(
    server: Server, body: bytes, problem: str
) -> None:
    """A body that is not plainly a relay request is answered 400 with a JSON error naming
    what is wrong; the connection stays usable and the engine keeps its position."""
    set_board(server.port, CASE_1)
    with Client(server.port) as client:
        client.send(post(body))
        response = client.response()
        assert response is not None, "the server closed the connection without an answer"
        assert response.status == 400
        answer = response.json()
        assert answer["ok"] is False
        assert problem in answer["error"]
        client.send(post(b'{"line": "name"}'))  # the same connection goes on
        after = client.response()
    assert after is not None and after.json()["text"] == "cubemate"
    assert engine_board(server.port) == CASE_1


def test_batch_is_checked_whole_before_any_line_is_sent(server: Server) -> None:
    """A batch whose last line is bad is refused whole: its first line never runs."""
    set_board(server.port, CASE_1)
    for bad in ("name \ud800", "status\nquit", "", "# comment"):
        status, answer = ask(server.port, {"lines": [f"set_board {CASE_2}", "status", bad]})
        assert status == 400, bad
        assert answer["error"].startswith('line 3 of "lines"'), answer
        assert engine_board(server.port) == CASE_1, bad


def test_naming_the_rules_keeps_the_games_version(server: Server) -> None:
    """`variant` alone names the rules and leaves the game's version as it was (the page asks
    it after a console command); `variant NAME` starts a game of those rules and moves it on."""
    _, first = ask(server.port, {"line": "variant"})
    _, again = ask(server.port, {"line": "variant"})
    assert first["ok"] and again["game"] == first["game"], (first, again)
    _, chosen = ask(server.port, {"line": "variant raumschach"})
    assert chosen["ok"] and chosen["game"] > first["game"], chosen
    _, named = ask(server.port, {"line": "variant"})
    assert (named["text"], named["game"]) == ("raumschach", chosen["game"])
    _, back = ask(server.port, {"line": "variant cube"})  # the module's other tests are the cube's
    assert back["ok"] and back["game"] > chosen["game"], back


# --- item 7: every framing gets an answer ------------------------------------------------------


def test_body_shorter_than_its_length_is_refused(server: Server) -> None:
    """A body that ends (the client stops sending) before its Content-Length is refused and
    not run, even when what came is whole JSON."""
    set_board(server.port, CASE_1)
    with Client(server.port) as client:
        client.send(post(SET_CASE_2, length=len(SET_CASE_2) + 10))
        client.sock.shutdown(socket.SHUT_WR)
        response = client.response()
        assert response is not None
        assert response.status == 400
        error = response.json()["error"]
        assert f"ended after {len(SET_CASE_2)} of its {len(SET_CASE_2) + 10} bytes" in error
        assert client.closed()
    assert engine_board(server.port) == CASE_1


def test_body_that_stalls_is_answered_408(quick_server: Server) -> None:
    """A body that stops coming is answered 408 after the idle timeout, and not run."""
    set_board(quick_server.port, CASE_1)
    with Client(quick_server.port) as client:
        client.send(post(SET_CASE_2[:20], length=len(SET_CASE_2)))
        response = client.response()
        assert response is not None
        assert response.status == 408
        assert f"stopped after 20 of its {len(SET_CASE_2)} bytes" in response.json()["error"]
        assert client.closed()
    assert engine_board(quick_server.port) == CASE_1


def test_headers_that_stall_are_answered_408(quick_server: Server) -> None:
    """A request whose headers stop coming is answered 408 and its connection closed."""
    with Client(quick_server.port) as client:
        client.send(b"POST /engine HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-")
        response = client.response()
        assert response is not None
        assert response.status == 408
        assert "did not arrive whole" in response.json()["error"]
        assert client.closed()


def test_body_longer_than_its_length(server: Server) -> None:
    """Bytes after the Content-Length are the next request: the body is run, the rest is
    refused in JSON as a request that cannot be read, and the connection is closed."""
    body = b'{"line": "name"}'
    with Client(server.port) as client:
        client.send(post(body + b'{"line": "quit"}\r\n\r\n', length=len(body)))
        first = client.response()
        second = client.response()
        assert first is not None and first.json()["text"] == "cubemate"
        assert second is not None
        assert second.status == 400
        assert "request" in second.json()["error"]
        assert client.closed()
    status, answer = ask(server.port, {"line": "protocol_version"})
    assert (status, answer["restarted"]) == (200, False)  # the engine never saw the quit


def test_chunked_body_is_refused(server: Server) -> None:
    """A chunked body is refused in one answer; its chunks are never read as requests."""
    body = b'{"line": "name"}'
    chunked = f"{len(body):x}\r\n".encode() + body + b"\r\n0\r\n\r\n"
    with Client(server.port) as client:
        client.send(
            b"POST /engine HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n" + chunked
        )
        response = client.response()
        assert response is not None
        assert response.status == 400
        assert "Transfer-Encoding" in response.json()["error"]
        assert client.closed()


@pytest.mark.parametrize(
    "lengths,status,problem",
    [
        ([b"abc"], 400, "not a number of bytes"),
        ([b"-1"], 400, "not a number of bytes"),
        ([b"+16"], 400, "not a number of bytes"),
        ([b"1_6"], 400, "not a number of bytes"),
        ([b"16", b"16"], 400, "one Content-Length"),
        ([b"9" * 5000], 413, "body over"),
        ([str(MAX_BODY + 1).encode()], 413, "body over"),
        ([], 411, "send a Content-Length"),
    ],
)
def test_bad_content_length_is_refused(
    server: Server, lengths: list[bytes], status: int, problem: str
) -> None:
    """A Content-Length that is missing, doubled, not plain digits or too big is refused in
    JSON, and the connection closed (its body cannot be told from the next request)."""
    headers = b"".join(b"Content-Length: " + value + b"\r\n" for value in lengths)
    with Client(server.port) as client:
        client.send(
            b"POST /engine HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + headers
            + b'\r\n{"line": "name"}'
        )
        response = client.response()
        assert response is not None
        assert response.status == status
        assert problem in response.json()["error"]
        assert client.closed()


def test_oversized_body_is_answered_after_the_client_sent_it(server: Server) -> None:
    """A body over the limit is refused without being read; the server reads and drops the
    rest while the client sends it, so the client gets the 413 instead of a reset."""
    body = b"x" * (MAX_BODY + 1024 * 1024)
    with Client(server.port) as client:
        client.send(post(body))
        response = client.response()
        assert response is not None
        assert response.status == 413
        assert client.closed()


@pytest.mark.parametrize(
    "request_bytes,status,problem",
    [
        (b"PUT /engine HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 501, "Unsupported method"),
        (b"GARBAGE\r\n\r\n", 400, "Bad request"),
        (b"GET / HTTP/9.9\r\nHost: 127.0.0.1\r\n\r\n", 505, "Invalid HTTP version"),
        (b"GET /" + b"a" * 70_000 + b" HTTP/1.1\r\n\r\n", 414, "URI Too Long"),
        (b"GET / HTTP/1.1\r\nX: " + b"a" * 70_000 + b"\r\n\r\n", 431, "Line too long"),
        (b"GET / HTTP/1.1\r\n" + b"X: 1\r\n" * 101 + b"\r\n", 431, "Too many headers"),
    ],
    ids=["method", "request line", "version", "long path", "long header", "many headers"],
)
def test_unreadable_requests_get_json(
    server: Server, request_bytes: bytes, status: int, problem: str
) -> None:
    """What http.server refuses by itself is answered in JSON like every other refusal."""
    with Client(server.port) as client:
        client.send(request_bytes)
        response = client.response()
        assert response is not None
        assert response.status == status
        answer = response.json()
        assert answer["ok"] is False
        assert problem.lower() in answer["error"].lower()
        assert client.closed()


def test_refused_post_does_not_run_its_body_as_a_request(server: Server) -> None:
    """A POST refused before its body is read (wrong type, path or host) closes the
    connection: the unread body is never taken for the next request."""
    inner = post(b'{"line": "name"}')
    for head in (
        b"POST /engine HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\n",
        b"POST /other HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n",
        b"POST /engine HTTP/1.1\r\nHost: evil.test\r\nContent-Type: application/json\r\n",
    ):
        with Client(server.port) as client:
            client.send(head + f"Content-Length: {len(inner)}\r\n\r\n".encode() + inner)
            response = client.response()
            assert response is not None
            assert response.status in (403, 404, 415)
            assert client.closed(), head


@pytest.mark.parametrize(
    ("headers", "name"),
    [
        ("Host: 127.0.0.1:{port}\r\nHost: evil.example\r\n", "Host"),
        ("Host: evil.example\r\nHost: 127.0.0.1:{port}\r\n", "Host"),
        ("Host: 127.0.0.1\r\nHost: 127.0.0.1\r\n", "Host"),
        ("Host: 127.0.0.1\r\nOrigin: http://127.0.0.1:{port}\r\nOrigin: http://evil.example\r\n",
         "Origin"),
    ],
    ids=["good-then-evil", "evil-then-good", "same-twice", "origins"],
)  # fmt: skip
@pytest.mark.parametrize("method", ["GET", "POST"])
def test_several_hosts_or_origins_are_refused(
    server: Server, headers: str, name: str, method: str
) -> None:
    """Issue 38: only the first Host (or Origin) was checked, so `Host: 127.0.0.1:PORT` then
    `Host: evil.example` was served. Several Host headers are a 400 (RFC 9112), several
    Origin headers too, and nothing reaches the engine."""
    set_board(server.port, CASE_1)
    head = f"{method} {'/engine' if method == 'POST' else '/'} HTTP/1.1\r\n"
    with Client(server.port) as client:
        client.send(
            (head + headers.format(port=server.port)).encode()
            + b"Content-Type: application/json\r\n"
            + f"Content-Length: {len(SET_CASE_2)}\r\n\r\n".encode()
            + SET_CASE_2
        )
        response = client.response()
        assert response is not None and response.status == 400
        assert response.json()["error"] == f"send one {name} header, not several"
        assert client.closed()
    assert engine_board(server.port) == CASE_1


SPELLINGS = {
    "plain": "{command} {path}",
    "with-id": "7 {command} {path} 0",
    "tabs": "\t{command}\t{path}",
    "bom-first": "\ufeff{command} {path}",
    "bom-inside": "{head}\ufeff{tail} {path}",
    "wide-space": "{command}\u3000{path}",
}


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_the_relay_opens_no_file_of_the_server(
    server: Server, tmp_path: Path, spelling: str
) -> None:
    """Issue 38: `loadgame /etc/passwd` relayed read the server's file, and the refusal
    quoted a line of it. The relay refuses loadgame, however it is spelt for the engine (a
    byte-order mark the engine drops, an id, tabs), alone or in a batch, before any line
    is sent; the page loads records by their text (POST /record)."""
    secret = tmp_path / "secret.txt"
    secret.write_text("Size: 3\nnot a record: SECRET-38\n")
    set_board(server.port, CASE_1)
    text = SPELLINGS[spelling].format(command="loadgame", head="load", tail="game", path=secret)
    for payload in ({"line": text}, {"lines": [f"set_board {CASE_2}", text]}):
        status, answer = ask(server.port, payload)
        assert status == 400, answer
        assert "loadgame reads a file on the server" in answer["error"]
        assert "SECRET" not in json.dumps(answer)
        assert engine_board(server.port) == CASE_1
    status, answer = ask(server.port, {"line": "help loadgame"})
    assert (status, answer["ok"]) == (200, True)


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_the_relay_writes_no_file_of_the_server(
    server: Server, tmp_path: Path, spelling: str
) -> None:
    """Issue 63, item 5: `savegame /any/path` relayed answered 200 and wrote the file on the
    server (a relative name into the checkout, where the engine runs). The relay refuses it
    as it refuses loadgame, however spelt, alone or in a batch, before any line is sent: no
    file appears, at an absolute path or a relative one, and the game is the one before."""
    set_board(server.port, CASE_1)
    relative = f"issue63-{spelling}-{os.getpid()}.txt"
    for target in (str(tmp_path / "written.txt"), relative):
        text = SPELLINGS[spelling].format(command="savegame", head="save", tail="game", path=target)
        for payload in ({"line": text}, {"lines": [f"set_board {CASE_2}", text]}):
            status, answer = ask(server.port, payload)
            assert status == 400, answer
            assert answer["error"].endswith(
                "savegame writes a file on the server, which the page never names: save the"
                " record with the page's Download record button (the record printgame writes)"
            )
            assert engine_board(server.port) == CASE_1
    assert not (tmp_path / "written.txt").exists()
    assert not (REPO / relative).exists()
    status, answer = ask(server.port, {"line": "help savegame"})
    assert (status, answer["ok"]) == (200, True)


def test_every_command_that_names_a_path_is_refused_by_the_relay() -> None:
    """The relay's list of commands naming a server's file is the engine's: each command of
    the table whose syntax names a FILE (or a folder or path) is refused, and nothing else."""
    naming = {
        spec.name
        for spec in COMMANDS
        if re.search(r"\b(FILE|DIR|FOLDER|PATH)S?\b", spec.syntax.upper())
    }
    assert naming == set(SERVER_FILE_COMMANDS) == {"loadgame", "savegame"}


# --- item 8: timeouts and bounded threads ------------------------------------------------------


def wait_for(condition: Any, what: str) -> None:
    """Poll ``condition`` until it holds; fail after the generous TIMEOUT."""
    deadline = time.monotonic() + TIMEOUT
    while not condition():
        assert time.monotonic() < deadline, f"still not {what} after {TIMEOUT} s"
        time.sleep(0.05)


def closed_by_server(sockets: list[socket.socket]) -> int:
    """Count the sockets that the server has closed (poll: select cannot take 300 sockets)."""
    poller = select.poll()
    for conn in sockets:
        poller.register(conn, select.POLLIN)
    return len(poller.poll(0))


def test_idle_connections_are_closed_after_the_timeout(quick_server: Server) -> None:
    """A connection that never sends a byte, or that goes silent after a request, is closed by
    the server after its idle timeout."""
    with Client(quick_server.port) as silent, Client(quick_server.port) as kept_alive:
        kept_alive.send(post(b'{"line": "name"}'))
        response = kept_alive.response()
        assert response is not None and response.status == 200
        assert silent.closed()
        assert kept_alive.closed()


def test_idle_sockets_cost_no_thread(server: Server) -> None:
    """300 sockets that never send a byte hold no thread: the server stays within its bound of
    threads and answers a normal client all the while."""
    idle = [socket.create_connection(("127.0.0.1", server.port)) for _ in range(300)]
    try:
        ports = {conn.getsockname()[1] for conn in idle}
        wait_for(lambda: ports <= server.peers(), "accepted")
        for _ in range(20):
            status, answer = ask(server.port, {"line": "protocol_version"})
            assert (status, answer["text"]) == (200, "2")
        assert server.threads() <= MAX_THREADS
        assert closed_by_server(idle) == 0
    finally:
        for conn in idle:
            conn.close()


def test_fresh_connections_are_all_answered_with_bounded_threads(server: Server) -> None:
    """2,000 fresh connections from 20 threads at once are all answered, none reset, and the
    server never runs more threads than its bound."""
    outcomes: list[str] = []
    request = b"GET /favicon.ico HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"

    def client() -> None:
        for _ in range(100):
            try:
                with Client(server.port) as conn:
                    conn.send(request)
                    response = conn.response()
                outcomes.append(str(response.status if response else "closed"))
            except OSError as exc:
                outcomes.append(type(exc).__name__)

    threads = [threading.Thread(target=client) for _ in range(20)]
    for thread in threads:
        thread.start()
    most = 0
    while any(thread.is_alive() for thread in threads):
        most = max(most, server.threads())
        time.sleep(0.01)
    for thread in threads:
        thread.join()
    assert outcomes == ["204"] * 2000, sorted(set(outcomes))
    assert most <= MAX_THREADS


def test_backlog_holds_a_burst_while_the_server_is_busy(server: Server) -> None:
    """While the server cannot accept (it is stopped), the kernel completes a burst of 500
    connections into the listen backlog; once it resumes, every one of them is answered."""
    # The kernel caps every backlog at net.core.somaxconn (4096 by default since Linux 5.4).
    somaxconn = Path("/proc/sys/net/core/somaxconn")
    burst = min(500, int(somaxconn.read_text())) if somaxconn.exists() else 500
    sockets: list[socket.socket] = []
    os.kill(server.pid, signal.SIGSTOP)
    try:
        for _ in range(burst):
            conn = socket.socket()
            conn.setblocking(False)
            conn.connect_ex(("127.0.0.1", server.port))
            sockets.append(conn)
        # A socket turns writable when its handshake completes (poll: select cannot take 500).
        poller = select.poll()
        pending = {conn.fileno() for conn in sockets}
        for fd in pending:
            poller.register(fd, select.POLLOUT)
        deadline = time.monotonic() + TIMEOUT
        while pending and time.monotonic() < deadline:
            for fd, _ in poller.poll(500):
                poller.unregister(fd)
                pending.discard(fd)
        errors = [conn.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) for conn in sockets]
        assert not pending, f"{len(pending)} of {burst} connections not completed"
        assert errors == [0] * burst
    finally:
        os.kill(server.pid, signal.SIGCONT)
    try:
        for conn in sockets:
            conn.setblocking(True)
            conn.settimeout(TIMEOUT)
            conn.sendall(b"GET /favicon.ico HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        for conn in sockets:
            assert conn.recv(65536).startswith(b"HTTP/1.1 204")
    finally:
        for conn in sockets:
            conn.close()


def test_half_sent_requests_hold_no_worker(server: Server) -> None:
    """Issue 38: sixteen sockets that send only the start of a head held every worker until
    the idle timeout (30 s), and a normal request waited 29.5 s. Heads cut short, bodies cut
    short and bodies held back for `100 Continue`, more of each than there are workers, now
    hold no worker: a normal request is answered at once (a second is ample; it is a
    millisecond or two), and each held-back body, sent late, is answered."""
    head = f"POST /engine HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n".encode()
    body = b'{"line": "name"}'
    framed = b"Content-Type: application/json\r\n" + f"Content-Length: {len(body)}\r\n".encode()
    half: list[socket.socket] = []
    waiting: list[socket.socket] = []
    try:
        for _ in range(DEFAULT_WORKERS + 4):
            for start in (head, head + framed + b"\r\n" + body[:5]):
                conn = socket.create_connection(("127.0.0.1", server.port), timeout=TIMEOUT)
                conn.sendall(start)
                half.append(conn)
        for _ in range(DEFAULT_WORKERS + 4):
            conn = socket.create_connection(("127.0.0.1", server.port), timeout=TIMEOUT)
            conn.sendall(head + framed + b"Expect: 100-continue\r\n\r\n")
            waiting.append(conn)
        for conn in waiting:
            assert conn.recv(4096) == b"HTTP/1.1 100 Continue\r\n\r\n"
        with Client(server.port) as client:
            client.sock.settimeout(1.0)
            started = time.monotonic()
            client.send(post(body))
            response = client.response()
            assert response is not None and response.json()["text"] == "cubemate"
        assert time.monotonic() - started < 1.0
        assert server.threads() <= MAX_THREADS
        for conn in waiting:
            conn.sendall(body)
        for conn in waiting:
            answer = conn.recv(65536)
            assert answer.startswith(b"HTTP/1.1 200 OK") and b'"text": "cubemate"' in answer
    finally:
        for conn in half + waiting:
            conn.close()


def test_a_head_dribbled_byte_by_byte_expires_from_its_first_byte(quick_server: Server) -> None:
    """A slow loris: a head sent a byte at a time, never ending. Each byte does not restart
    the clock: the request is answered 408 about the idle timeout after its first byte."""
    started = time.monotonic()
    with Client(quick_server.port) as client:
        for byte in b"POST /engine HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 100:
            try:
                client.send(bytes([byte]))
            except OSError:
                break  # answered and closed while we were still sending
            if select.select([client.sock], [], [], 0.05)[0]:
                break
        response = client.response()
        assert response is not None and response.status == 408
    assert time.monotonic() - started < QUICK_IDLE + 1.0


def test_a_head_over_the_limit_is_refused(server: Server) -> None:
    """Headers each under http.server's 64 KiB limit but over HEAD_LIMIT together, without
    an end, are refused at once (431), not held until the timeout."""
    with Client(server.port) as client:
        client.sock.settimeout(5.0)
        client.send(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        for k in range(HEAD_LIMIT // 60_000 + 1):
            client.send(f"X-{k}: ".encode() + b"a" * 60_000 + b"\r\n")
        response = client.response()
        assert response is not None and response.status == 431
        assert f"head is over {HEAD_LIMIT} bytes" in response.json()["error"]


@pytest.mark.parametrize("option", ["--idle-timeout", "--timeout"])
@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "1e9", "soon"])
def test_bad_seconds_are_refused(option: str, value: str) -> None:
    """A timeout that is not a positive, finite, sane number of seconds stops the server at
    once with one line naming the option, exit code 2."""
    result = subprocess.run(
        [sys.executable, "-m", "gui.server", "--port", "0", "--engine", "false", option, value],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert result.returncode == 2
    assert f"argument {option}: '{value}' is not a number of seconds" in result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


def test_a_tablebase_folder_that_is_not_one_is_refused(tmp_path: Path) -> None:
    """--tablebases naming no folder (missing, or a file) stops the server before anything
    starts: one line naming it, exit code 2, no engine started, no address printed."""
    started = tmp_path / "started"
    engine = shlex.join(["touch", str(started)])  # an "engine" that leaves a trace if run
    (tmp_path / "a-file").write_text("not a folder")
    for given in (tmp_path / "no-such-folder", tmp_path / "a-file"):
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "gui.server",
                "--port",
                "0",
                "--engine",
                engine,
                "--tablebases",
                str(given),
            ],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
        assert result.returncode == 2
        assert f"argument --tablebases: '{given}' is not a folder" in result.stderr
        assert "Traceback" not in result.stderr
        assert result.stdout == ""
    assert not started.exists()


def test_a_tablebase_folder_is_passed_to_the_engine(tmp_path: Path) -> None:
    """--tablebases DIR reaches the engine as its own --tablebases: it answers tb_probe from
    the tables of three pieces on 3³ built here."""
    tables = tmp_path / "tables"
    build(tables, 3, 3)
    with running_server(tmp_path / "logs", "--tablebases", str(tables)) as server:
        set_board(server.port, "[###,###,###],[###,###,###],[Q##,##k,K##]")
        status, answer = ask(server.port, {"line": "tb_probe"})
        assert (status, answer["raw"]) == (200, "= win 1\n\n"), answer
        set_board(server.port, "[###,###,###],[##Q,###,###],[###,r##,K#k]")
        status, answer = ask(server.port, {"line": "tb_probe"})
        assert answer["raw"] == "? no table for KQKR on the 3×3×3 board\n\n", answer


def keep_connecting(port: int, stop: threading.Event) -> None:
    """Open connections and ask for the icon on them, or leave them half-asked, until told to
    stop or the server is gone."""
    request = b"GET /favicon.ico HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    turn = 0
    while not stop.is_set():
        turn += 1
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as conn:
                conn.sendall(request if turn % 3 else request[:10])
                if turn % 3:
                    conn.recv(65536)
        except ConnectionRefusedError:
            return
        except OSError:
            continue  # reset or timed out as the server went: go on until refused


def test_sigterm_amid_traffic_ends_cleanly(tmp_path: Path) -> None:
    """SIGTERM at any moment of the serving loop, connections arriving, being answered and
    closing: the server exits 0 with no traceback, every time (running_server checks)."""
    for attempt in range(6):
        stop = threading.Event()
        with running_server(tmp_path / f"logs-{attempt}") as server:
            clients = [
                threading.Thread(target=keep_connecting, args=(server.port, stop), daemon=True)
                for _ in range(4)
            ]
            for client in clients:
                client.start()
            time.sleep(0.05 + 0.05 * attempt)
            server.process.send_signal(signal.SIGTERM)
            server.process.wait(TIMEOUT)
        stop.set()
        for client in clients:
            client.join(TIMEOUT)


def test_the_set_up_installed_three_js_where_npm_is() -> None:
    """`make test` and `make gui` install three.js before the browser tests (the Makefile's
    THREE rule): where npm is on PATH its module is there, so the 3D view's tests run rather
    than skip. (A fresh clone once skipped them: the rule's prerequisite was read before it was
    set.)"""
    import shutil

    if shutil.which("npm") is None:
        pytest.skip("no npm here: the page keeps the layer view and says why")
    module = REPO / "gui" / "node_modules" / "three" / "build" / "three.module.js"
    assert module.is_file(), "run make test (or make gui): npm ci --prefix gui installs three.js"
