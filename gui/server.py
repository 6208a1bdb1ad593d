"""Serve the cubemate board editor and relay its protocol lines to an engine child process.

Run ``python -m gui.server [--port 8765] [--engine CMD] [--tablebases DIR]``. The server
listens on 127.0.0.1 only, starts the engine as a child process and talks to it exactly like any
other GUI would: one protocol line on its stdin, one response (up to the empty line) from its
stdout. ``--tablebases DIR`` is handed on to the engine, whose endgame tables' verdict the page
shows under the board.

HTTP interface:

- ``GET /`` serves ``gui/index.html``; the page's own modules and styles and three.js (from
  ``gui/node_modules``, installed by npm from ``gui/package-lock.json``) are served from the
  explicit list ``STATIC_FILES``, and nothing else on disk.
- ``POST /engine`` with the JSON body ``{"line": "status"}`` answers
  ``{"ok": true, "text": "check", "raw": "= check\\n\\n", "restarted": false}``; a ``?`` response
  from the engine gives ``"ok": false`` with the engine's message in ``text`` (HTTP 200: the
  relay worked, the engine said no). A request the server refuses (a line break inside the line,
  no JSON, ...) gets HTTP 400 and ``{"ok": false, "error": "..."}``; an engine that fails to
  answer gets HTTP 502 in the same shape.
- ``POST /engine`` with ``{"lines": ["set_board ...", "status"]}`` (up to 16 lines) sends them
  one after another, with no other request in between, and answers
  ``{"ok": <all ok>, "replies": [<one answer as above per line>]}`` (HTTP 200); after an engine
  failure the remaining lines are not sent. One request instead of five saves the page a
  round trip per line.
- ``POST /genmove`` with ``{"game": N, "color": "b"}`` plays the computer's move in version N of
  the engine's game; ``POST /stop`` with ``{"game": N}`` stops the search asked for N and takes
  back what it played; ``GET /thinking`` tells what the search has found so far; ``POST /record``
  with ``{"text": ..., "name": ...}`` reads a game record into the engine (gui/guard.py). Every
  answer carries ``"game"``, the version the engine's game is at.

Every request gets an HTTP answer, refusals included: a body that is not plainly one of these
two shapes (gui/request_body.py) or not framed by one Content-Length is refused with a JSON error
naming the problem before any of its lines reaches the engine. Connections are served by a
bounded pool of threads and closed after ``--idle-timeout`` seconds of silence
(gui/connections.py); docs/gui-server.md lists every limit.
"""

from __future__ import annotations

import argparse
import errno
import json
import math
import os
import shlex
import signal
import sys
from collections.abc import Callable, Sequence
from http import HTTPStatus
from pathlib import Path
from types import FrameType
from typing import Any

from gui.connections import DEFAULT_IDLE_TIMEOUT, PooledHTTPServer, PooledRequestHandler
from gui.guard import GameChanged, GameGuard
from gui.records import RecordFolderError
from gui.relay import Engine, EngineError, Reply, check_line, echo_stderr
from gui.request_body import (
    BadBody,
    RelayRequest,
    parse_move_body,
    parse_record_body,
    parse_relay_body,
    parse_stop_body,
)
from gui.thinking import ThinkingFeed

REPO_ROOT = Path(__file__).resolve().parent.parent
GUI = Path(__file__).resolve().parent
INDEX_HTML = GUI / "index.html"
#: three.js as npm installs it from gui/package-lock.json (`make gui`, docs/gui.md).
THREE = GUI / "node_modules" / "three"
JS = "text/javascript; charset=utf-8"
#: Every file the server serves besides the page, by its path on the server: the page's own
#: modules, its styles, and the parts of three.js that the 3D view imports. Nothing else on
#: disk is served, whatever the path asked.
STATIC_FILES: dict[str, tuple[Path, str]] = {
    "/style.css": (GUI / "style.css", "text/css; charset=utf-8"),
    **{
        f"/app/{name}.js": (GUI / "app" / f"{name}.js", JS)
        for name in (
            "main",
            "dom",
            "model",
            "pieces",
            "connection",
            "layers",
            "panels",
            "lines",
            "view3d",
            "variants",
        )
    },
    "/three/three.module.js": (THREE / "build" / "three.module.js", JS),
    "/three/three.core.js": (THREE / "build" / "three.core.js", JS),
    "/three/OrbitControls.js": (THREE / "examples" / "jsm" / "controls" / "OrbitControls.js", JS),
}
#: What a missing three.js file's 404 says: the page shows it and keeps the layer view.
NO_THREE = (
    "three.js is not installed (gui/node_modules): run `make gui`, which runs "
    "`npm ci --prefix gui`; the layer view works without it"
)
#: The engine's settings under the GUI: the shipped ones, with genmove's thinking on stderr.
ENGINE_CONFIG = Path(__file__).resolve().parent / "engine_config.toml"
HOST = "127.0.0.1"
DEFAULT_PORT = 8765
DEFAULT_TIMEOUT = 30.0
# The longest wait an option may ask for (a day); threading's waits overflow past ~292 years.
MAX_SECONDS = 86_400.0
# Enough for the largest board the engine takes (n = 64 is 266 kB of notation).
MAX_BODY = 4 * 1024 * 1024
# Bytes of one response kept together for a single write; the page and a JSON reply fit easily.
WRITE_BUFFER = 256 * 1024
# Host names a browser may legitimately use for this server; anything else is refused so that a
# DNS-rebinding page cannot talk to the engine through the user's browser.
LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost"})


class GuiServer(PooledHTTPServer):
    """An HTTP server that knows its engine and page."""

    def __init__(
        self,
        port: int,
        guard: GameGuard,
        verbose: bool,
        idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
    ) -> None:
        """Bind to 127.0.0.1 on ``port`` (0 picks a free port)."""
        super().__init__((HOST, port), Handler, idle_timeout=idle_timeout, max_body=MAX_BODY)
        self.guard = guard
        self.verbose = verbose

    @property
    def port(self) -> int:
        """Return the port actually bound."""
        return int(self.server_address[1])

    @property
    def url(self) -> str:
        """Return the address to open in a browser."""
        return f"http://{HOST}:{self.port}/"


class Handler(PooledRequestHandler):
    """Serve the page and relay engine lines."""

    server: GuiServer
    server_version = "cubemate-gui"
    protocol_version = "HTTP/1.1"
    # No client speaks HTTP/0.9, whose answers have no status line: a garbled request line
    # must still get a refusal a client can read.
    default_request_version = "HTTP/1.1"
    # A kept-alive connection with Nagle's algorithm on waits ~40 ms for the client's delayed
    # ACK before it sends a second small write: send at once, and buffer each response so its
    # headers and body leave in one write (the handler flushes after every request).
    disable_nagle_algorithm = True
    wbufsize = WRITE_BUFFER

    def handle_expect_100(self) -> bool:
        """Answer ``Expect: 100-continue`` at once: the buffered writer would hold it back, and
        the client would wait for it before sending the body."""
        accepted = super().handle_expect_100()
        self.wfile.flush()
        return accepted

    def log_message(self, format: str, *args: Any) -> None:
        """Log requests only with ``--verbose``: the terminal is for the address and errors."""
        if self.server.verbose:
            super().log_message(format, *args)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """Answer a request that http.server itself refuses (bad syntax, an unknown method, a
        header too long, ...) in JSON like every other refusal, and close the connection: what
        follows such a request cannot be trusted to be the next one."""
        self.close_connection = True
        try:
            default = self.responses[code][0]
        except KeyError:
            default = "error"
        self.log_error("code %d, message %s", code, message or default)
        self._error(code, message or default)

    def _send_bytes(self, status: int, body: bytes, content_type: str) -> None:
        """Send a complete response with security headers."""
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("X-Frame-Options", "DENY")
        # The page is self-contained: forbid every fetch except back to this server. Its
        # modules and three.js come from here ('self'); the import map is an inline script.
        self.send_header(
            "Content-Security-Policy",
            "default-src 'none'; script-src 'self' 'unsafe-inline'; "
            "style-src 'self' 'unsafe-inline'; connect-src 'self'; img-src 'self' data: blob:; "
            "base-uri 'none'; form-action 'none'",
        )
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _send_json(self, status: int, payload: dict[str, Any]) -> None:
        """Send ``payload`` as JSON."""
        # A stray lone surrogate becomes its JSON escape instead of failing the answer.
        text = json.dumps(payload, ensure_ascii=False)
        self._send_bytes(
            status, text.encode("utf-8", "backslashreplace"), "application/json; charset=utf-8"
        )

    def _error(self, status: int, message: str) -> None:
        """Send a JSON error."""
        self._send_json(status, {"ok": False, "error": message})

    def _refuse(self, status: int, message: str) -> None:
        """Send a JSON error and close the connection: the body was not read, or not whole."""
        self.close_connection = True
        self._error(status, message)

    def _several_addresses(self) -> bool:
        """Refuse (400) a request with several Host headers (RFC 9112, 3.2) or several
        Origin headers: one checked and another believed would let any name through."""
        for name in ("Host", "Origin"):
            if len(self.headers.get_all(name) or []) > 1:
                self._refuse(HTTPStatus.BAD_REQUEST, f"send one {name} header, not several")
                return True
        return False

    def _host_allowed(self) -> bool:
        """Accept only requests addressed to this machine by name or address."""
        host = self.headers.get("Host", "")
        name = host.rsplit(":", 1)[0] if ":" in host else host
        if name not in LOCAL_HOSTS:
            return False
        origin = self.headers.get("Origin")
        # Browsers send Origin on cross-site POSTs: only our own page may drive the engine.
        return origin is None or origin in {
            f"http://{local}:{self.server.port}" for local in LOCAL_HOSTS
        }

    def do_GET(self) -> None:
        """Serve the page."""
        if "Transfer-Encoding" in self.headers or self.headers.get("Content-Length", "0") != "0":
            # A GET with a body is not read: the connection cannot carry another request.
            self.close_connection = True
        if self._several_addresses():
            return
        if not self._host_allowed():
            self._error(HTTPStatus.FORBIDDEN, "requests must address 127.0.0.1 or localhost")
            return
        path = self.path.split("?", 1)[0]
        if path in ("/", "/index.html"):
            try:
                body = INDEX_HTML.read_bytes()
            except OSError as exc:
                self._error(HTTPStatus.INTERNAL_SERVER_ERROR, f"cannot read the page: {exc}")
                return
            self._send_bytes(HTTPStatus.OK, body, "text/html; charset=utf-8")
        elif path in STATIC_FILES:
            self._send_static(path)
        elif path == "/favicon.ico":
            self._send_bytes(HTTPStatus.NO_CONTENT, b"", "image/x-icon")
        elif path == "/thinking":
            self._send_json(HTTPStatus.OK, self.server.guard.snapshot())
        else:
            self._error(HTTPStatus.NOT_FOUND, f"no such page: {path}")

    def _send_static(self, path: str) -> None:
        """Serve one file of ``STATIC_FILES``; a missing three.js file says how to install it."""
        file, content_type = STATIC_FILES[path]
        try:
            body = file.read_bytes()
        except FileNotFoundError:
            missing = NO_THREE if file.is_relative_to(THREE) else f"{path} is missing from gui/"
            self._error(HTTPStatus.NOT_FOUND, missing)
            return
        except OSError as exc:
            self._error(HTTPStatus.INTERNAL_SERVER_ERROR, f"cannot read {path}: {exc}")
            return
        self._send_bytes(HTTPStatus.OK, body, content_type)

    def do_POST(self) -> None:
        """Relay protocol lines, play or stop the computer's move, or read a record; answer
        in JSON."""
        if self._several_addresses():
            return
        if not self._host_allowed():
            self._refuse(HTTPStatus.FORBIDDEN, "requests must come from this server's own page")
            return
        action = POST_ACTIONS.get(self.path.split("?", 1)[0])
        if action is None:
            self._refuse(HTTPStatus.NOT_FOUND, f"no such endpoint: {self.path}")
            return
        body = self._read_json_body()
        if body is None:
            return
        try:
            action(self, body)
        except BadBody as exc:  # each action reads its body first, before anything runs
            self._error(HTTPStatus.BAD_REQUEST, str(exc))

    def _post_engine(self, body: bytes) -> None:
        """Relay one protocol line, or a batch of them, to the engine."""
        request = self._relay_request(body)
        if request is None:
            return
        guard = self.server.guard
        if not request.batch:
            reply = self._relay(request.lines[0])
            status = HTTPStatus.BAD_GATEWAY if "error" in reply else HTTPStatus.OK
            self._send_json(status, {**reply, "game": guard.version})
            return
        replies: list[dict[str, Any]] = []
        with guard.engine.lock:  # no other request between the lines of a batch
            for line in request.lines:
                replies.append(self._relay(line))
                if "error" in replies[-1]:
                    break  # the engine failed: the lines after this one are not sent
        self._send_json(
            HTTPStatus.OK,
            {"ok": all(r["ok"] for r in replies), "replies": replies, "game": guard.version},
        )

    def _engine_failed(self, exc: EngineError) -> None:
        """Answer 502: the engine failed (and was restarted, if `restarted`) mid-request."""
        self._send_json(
            HTTPStatus.BAD_GATEWAY,
            {
                "ok": False,
                "error": str(exc),
                "restarted": exc.restarted,
                "game": self.server.guard.version,
            },
        )

    def _post_genmove(self, body: bytes) -> None:
        """Play the computer's move in the version of the game the page asked it for."""
        request = parse_move_body(body)
        guard = self.server.guard
        try:
            reply = guard.genmove(request.game, request.colour)
        except GameChanged as exc:
            self._send_json(
                HTTPStatus.CONFLICT,
                {"ok": False, "error": str(exc), "cancelled": exc.cancelled, "game": exc.version},
            )
            return
        except EngineError as exc:
            self._engine_failed(exc)
            return
        self._send_json(HTTPStatus.OK, {**reply_json(reply), "game": guard.version})

    def _post_stop(self, body: bytes) -> None:
        """Stop the search asked for a version of the game, and take back what it played."""
        request = parse_stop_body(body)
        try:
            stopped = self.server.guard.stop(request.game)
        except EngineError as exc:
            self._engine_failed(exc)
            return
        self._send_json(
            HTTPStatus.OK,
            {
                "ok": True,
                "stopped": stopped.stopped,
                "taken_back": stopped.taken_back,
                "game": stopped.version,
            },
        )

    def _post_record(self, body: bytes) -> None:
        """Read a posted game record into the engine, at its start."""
        request = parse_record_body(body)
        guard = self.server.guard
        try:
            loaded = guard.load_record(request.text, request.name)
        except RecordFolderError as exc:
            self._error(HTTPStatus.INTERNAL_SERVER_ERROR, str(exc))
            return
        except EngineError as exc:
            self._engine_failed(exc)
            return
        payload = reply_json(loaded.reply)
        if loaded.reply.ok:
            payload.update(moves=list(loaded.moves), record=loaded.record)
        self._send_json(HTTPStatus.OK, {**payload, "game": guard.version})

    def _relay(self, line: str) -> dict[str, Any]:
        """Send one line to the engine and describe the outcome as the JSON answer does."""
        try:
            reply = self.server.guard.relay(line)
        except EngineError as exc:
            return {"ok": False, "error": str(exc), "restarted": exc.restarted}
        return reply_json(reply)

    def _read_json_body(self) -> bytes | None:
        """Read a JSON body; on a bad request answer the error and return None."""
        # Requiring JSON forces a CORS preflight on cross-site requests, which we never grant.
        content_type = self.headers.get("Content-Type", "").split(";", 1)[0].strip().lower()
        if content_type != "application/json":
            self._refuse(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, "send Content-Type: application/json")
            return None
        return self._read_body()

    def _relay_request(self, body: bytes) -> RelayRequest | None:
        """Check every line of a relay request before any is sent; on a bad line answer the
        error and return None (a body that is no relay request raises BadBody)."""
        request = parse_relay_body(body)
        for number, line in enumerate(request.lines, 1):
            problem = check_line(line)
            if problem is not None:
                where = f'line {number} of "lines": ' if request.batch else ""
                self._error(HTTPStatus.BAD_REQUEST, where + problem)
                return None
        return request

    def _read_body(self) -> bytes | None:
        """Read the body that one Content-Length frames; on a problem answer it, close the
        connection and return None."""
        if "Transfer-Encoding" in self.headers:
            self._refuse(
                HTTPStatus.BAD_REQUEST,
                "Transfer-Encoding (a chunked body) is not accepted: send a Content-Length",
            )
            return None
        lengths = self.headers.get_all("Content-Length") or []
        if not lengths:
            self._refuse(HTTPStatus.LENGTH_REQUIRED, "send a Content-Length")
            return None
        if len(lengths) > 1:
            self._refuse(HTTPStatus.BAD_REQUEST, "send one Content-Length, not several")
            return None
        value = lengths[0].strip()
        if not (value.isascii() and value.isdigit()):
            self._refuse(
                HTTPStatus.BAD_REQUEST, f"Content-Length is not a number of bytes: {value[:40]!r}"
            )
            return None
        if len(value) > len(str(MAX_BODY)) or int(value) > MAX_BODY:
            self._refuse(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"body over {MAX_BODY} bytes")
            return None
        length = int(value)
        body = bytearray()
        try:
            while len(body) < length:
                chunk = self.rfile.read1(length - len(body))
                if not chunk:
                    break
                body += chunk
        except TimeoutError:
            self._refuse(
                HTTPStatus.REQUEST_TIMEOUT,
                f"the body stopped after {len(body)} of its {length} bytes "
                f"(Content-Length) for {self.link.timeout:g} s",
            )
            return None
        if len(body) < length:
            self._refuse(
                HTTPStatus.BAD_REQUEST,
                f"the body ended after {len(body)} of its {length} bytes (Content-Length)",
            )
            return None
        return bytes(body)


def reply_json(reply: Reply) -> dict[str, Any]:
    """Describe an engine response as the JSON answers do."""
    payload: dict[str, Any] = {
        "ok": reply.ok,
        "text": reply.text,
        "raw": reply.raw,
        "restarted": reply.restarted,
    }
    if reply.notice:
        payload["notice"] = reply.notice
    return payload


#: What each POST path does with its body.
POST_ACTIONS: dict[str, Callable[[Handler, bytes], None]] = {
    "/engine": Handler._post_engine,
    "/genmove": Handler._post_genmove,
    "/stop": Handler._post_stop,
    "/record": Handler._post_record,
}


def stderr_reader(feed: ThinkingFeed) -> Callable[[str], None]:
    """Route the engine's stderr: thinking lines to the feed, the rest to our own stderr."""

    def take(line: str) -> None:
        if not feed.take(line):
            echo_stderr(line)

    return take


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """Read the command line."""
    parser = argparse.ArgumentParser(
        prog="python -m gui.server", description="Serve the cubemate board editor on 127.0.0.1."
    )
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help="port to listen on; 0 picks a free one"
    )
    parser.add_argument(
        "--engine",
        default=None,
        metavar="CMD",
        help="engine command line, run from the repository root (default: "
        f"{shlex.quote(sys.executable)} main.py --config gui/engine_config.toml, whose "
        "genmove writes its thinking on stderr for the page)",
    )
    parser.add_argument(
        "--timeout",
        type=seconds,
        default=DEFAULT_TIMEOUT,
        help="seconds to wait for one engine response",
    )
    parser.add_argument(
        "--idle-timeout",
        type=seconds,
        default=DEFAULT_IDLE_TIMEOUT,
        help="seconds a connection may stay silent, or take to send one request, "
        f"before it is closed (default {DEFAULT_IDLE_TIMEOUT:g})",
    )
    parser.add_argument(
        "--tablebases",
        type=tables_folder,
        default=None,
        metavar="DIR",
        help="folder of endgame tables (make tablebases; docs/tablebases.md), passed to the "
        "engine as --tablebases DIR; the page shows their verdict under the board",
    )
    parser.add_argument("--verbose", action="store_true", help="log every HTTP request")
    args = parser.parse_args(argv)
    if not 0 <= args.port <= 65535:
        parser.error("--port must be 0 … 65535")
    return args


def tables_folder(text: str) -> Path:
    """Read the folder of endgame tables: one that exists and can be listed and read, as an
    absolute path (the engine runs from the repository root, not from here)."""
    folder = Path(text).expanduser()
    if not folder.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is not a folder")
    if not os.access(folder, os.R_OK | os.X_OK):
        raise argparse.ArgumentTypeError(f"{text!r}: no permission to read the folder")
    return folder.resolve()


def seconds(text: str) -> float:
    """Read a number of seconds for an option: above 0, at most ``MAX_SECONDS``."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    # NaN fails both comparisons; infinity would overflow the waits that take it.
    if not 0 < value <= MAX_SECONDS:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a number of seconds above 0 and at most {MAX_SECONDS:g}"
        )
    return value


def listen_problem(port: int, exc: OSError) -> str:
    """Say why the server cannot listen on ``port`` and what to do about it."""
    if exc.errno == errno.EADDRINUSE:
        return (
            f"port {port} on {HOST} is already in use (another server, perhaps another "
            "cubemate GUI); choose another with `make gui PORT=N`, or PORT=0 for any free port "
            "(python -m gui.server --port N)"
        )
    if exc.errno == errno.EACCES:
        return f"no permission to listen on port {port}; use a port above 1023, or PORT=0"
    return f"cannot listen on {HOST}:{port}: {exc}"


def default_engine() -> list[str]:
    """This checkout's engine, with the GUI's settings."""
    return [sys.executable, "main.py", "--config", str(ENGINE_CONFIG.relative_to(REPO_ROOT))]


def main(argv: Sequence[str] | None = None) -> int:
    """Start the engine and the server; serve until interrupted."""
    args = parse_args(argv)
    command = shlex.split(args.engine) if args.engine else default_engine()
    if not command:
        print("error: --engine is empty", file=sys.stderr)
        return 2
    if args.tablebases is not None:
        command += ["--tablebases", str(args.tablebases)]
    feed = ThinkingFeed()
    engine = Engine(command, REPO_ROOT, args.timeout, on_stderr=stderr_reader(feed))
    guard = GameGuard(engine, feed, args.timeout)
    # Take the port first: a busy one should fail at once, before an engine is started.
    try:
        server = GuiServer(args.port, guard, args.verbose, args.idle_timeout)
    except OSError as exc:
        print(f"error: {listen_problem(args.port, exc)}", file=sys.stderr)
        return 1
    try:
        engine.start()
        # Fail now, not on the first click, if the command is not a working engine.
        hello = engine.send("protocol_version")
    except EngineError as exc:
        engine.close()
        server.server_close()
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if not hello.raw.startswith("="):
        print(f"warning: engine answered protocol_version with {hello.raw!r}", file=sys.stderr)

    # Stop cleanly on SIGTERM, and on SIGINT even when a launcher started us with it ignored:
    # the loop is asked to end after its turn. An exception raised by the handler could land
    # anywhere in that turn, between two steps that must go together, and closing the half-done
    # state then failed: a make test once saw the server end with exit code 1.
    def stop(signum: int, frame: FrameType | None) -> None:
        server.stop_soon()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    # The address alone on its line, so that terminals make it a link and scripts can read it.
    print(f"cubemate GUI: {server.url}", flush=True)
    print(f"  engine: {shlex.join(command)}; Ctrl-C stops", flush=True)
    try:
        server.serve_forever()
    finally:
        server.server_close()
        engine.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
