"""The GUI server's one engine child process: lines relayed one at a time, restarts said aloud.

The process is spoken to through the client layer (client/engine.py). Every line the engine
writes on stderr goes to a callback: the thinking lines of a search to the page's feed
(gui/thinking.py), anything else to the server's own stderr.
"""

from __future__ import annotations

import contextlib
import re
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from client.engine import ENGINE_DEFAULT, EngineDied
from client.engine import Engine as ClientEngine


class EngineError(Exception):
    """The engine could not be started or did not give a complete response."""

    def __init__(self, message: str, restarted: bool = False) -> None:
        """Keep the message and whether a new engine was started after the failure."""
        super().__init__(message)
        self.restarted = restarted


@dataclass(frozen=True)
class Reply:
    """One engine response: the raw text and whether the engine had to be restarted first."""

    raw: str
    restarted: bool
    notice: str

    @property
    def ok(self) -> bool:
        """Tell whether the engine accepted the line (`=`)."""
        return self.raw.startswith("=")

    @property
    def text(self) -> str:
        """The response without its mark, id and space."""
        return parse_response(self.raw)[1]


def check_line(line: str) -> str | None:
    """Return why ``line`` must not be sent to the engine, or None when it is fine."""
    for char in line:
        # A CR, LF or any other separator that str.splitlines knows would smuggle a second
        # command in (Python's universal newlines treat a lone CR as a line end too).
        if len(f"a{char}b".splitlines()) > 1:
            return "the line must not contain a line break"
        if char != "\t" and (ord(char) < 0x20 or 0x7F <= ord(char) < 0xA0):
            return "the line must not contain control characters"
    stripped = line.strip(" \t")
    # Blank and comment lines get no response, so waiting for one would hang the relay.
    if not stripped:
        return "the line is empty"
    if stripped.startswith("#"):
        return "comment lines get no response from the engine"
    return server_file_problem(line)


#: Commands that name a file of the machine the engine runs on, and what each does with it.
#: The page sends a record's text (POST /record) and downloads the record it shows, never
#: naming a path: relayed, `loadgame /etc/passwd` read the server's file, and its refusal
#: quoted a line of it; `savegame /any/path` wrote a file wherever the server could (a
#: relative name into the checkout). These are every command of the engine's table whose
#: arguments name a path (tests/test_gui_server.py holds the two together).
SERVER_FILE_COMMANDS = {
    "loadgame": (
        "reads a file on the server, which the page never names: open a record with the "
        "page's Open button (POST /record sends its text)"
    ),
    "savegame": (
        "writes a file on the server, which the page never names: save the record with the "
        "page's Download record button (the record printgame writes)"
    ),
}


#: What the engine drops from a line before it reads it (kernel/protocol.py, which a client
#: may not import): control characters but tab, and byte-order marks, wherever they stand.
DROPPED = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f\ufeff]")


def command_words(line: str, comments: str = "line-start") -> list[str]:
    """Return the words of a protocol line as the engine reads them, its command first (what
    it drops dropped, an optional numeric id skipped; with ``comments="anywhere"`` a `#` ends
    the line)."""
    line = DROPPED.sub("", line)
    if comments == "anywhere":
        line = line.partition("#")[0]
    words = line.split()
    if words and words[0].isascii() and words[0].isdigit():
        words = words[1:]
    return words


def command_name(line: str, comments: str = "line-start") -> str:
    """Return the command name of a protocol line as the engine reads it, so that no spelling
    the engine reads as a command passes here as another."""
    words = command_words(line, comments)
    return words[0] if words else ""


def server_file_problem(line: str) -> str | None:
    """Return why ``line`` may not be relayed if it names a file on the server, else None.
    The line is read under either setting of the engine's comments."""
    for comments in ("line-start", "anywhere"):
        name = command_name(line, comments)
        if name in SERVER_FILE_COMMANDS:
            return f"{name} {SERVER_FILE_COMMANDS[name]}"
    return None


def parse_response(raw: str) -> tuple[bool, str]:
    """Split a raw response into success and its text without the status mark, id and space."""
    body = raw.removesuffix("\n\n").removesuffix("\n")
    ok = body.startswith("=")
    if body[:1] in ("=", "?"):
        rest = body[1:].lstrip("0123456789")
        body = rest.removeprefix(" ")
    return ok, body


class Engine:
    """Relay protocol lines to one engine child process (client/engine.py), one at a time,
    restarting it when it has died and saying so."""

    def __init__(
        self,
        command: Sequence[str],
        cwd: Path,
        timeout: float,
        on_stderr: Callable[[str], None] | None = None,
    ) -> None:
        """Remember how to start the engine; ``start`` actually launches it."""
        self.command = list(command)
        # Re-entrant, so that a batch can hold it across several sends.
        self.lock = threading.RLock()
        # The engine logs where its configuration says (logs/), and its warnings belong on
        # the server's terminal.
        self.process = ClientEngine(
            command,
            log_dir=ENGINE_DEFAULT,
            timeout=timeout,
            cwd=cwd,
            on_stderr=on_stderr or echo_stderr,
        )

    def start(self) -> None:
        """Launch a fresh engine process unless one is running."""
        try:
            self.process.start()
        except EngineDied as exc:
            raise EngineError(str(exc)) from exc

    def alive(self) -> bool:
        """Tell whether the engine process is running."""
        return self.process.alive

    def send(self, line: str) -> Reply:
        """Send one protocol line and return the complete response, restarting a dead engine."""
        with self.lock:
            notice = "" if self.process.alive else self._restart_notice(self.process.returncode)
            try:
                response = self.process.send(line)
            except EngineDied as exc:
                if exc.delivered:
                    # Do not resend: this very line may be what killed the engine.
                    with contextlib.suppress(EngineDied):
                        self.process.start()
                    raise EngineError(
                        f"{exc}; started a new engine (the position was reset)", restarted=True
                    ) from exc
                # The engine died before it could read the line, so sending it again is safe.
                notice = self._restart_notice(exc.exit_code)
                try:
                    response = self.process.send(line)
                except EngineDied as again:
                    raise EngineError(str(again), restarted=True) from again
            return Reply(raw=response.raw, restarted=bool(notice), notice=notice)

    def interrupt(self) -> bool:
        """Ask the engine to stop the search it runs (SIGUSR1), from any thread, without the
        lock; return whether there was a process to ask."""
        return self.process.interrupt()

    def _restart_notice(self, code: int | None) -> str:
        """Describe why the engine is being (re)started."""
        if self.process.pid is None:
            return "engine was not running; started it"
        return f"engine had exited (code {code}); started a new one (the position was reset)"

    def close(self) -> None:
        """Shut the engine down for good."""
        with self.lock:
            self.process.close()


def echo_stderr(line: str) -> None:
    """Show a line the engine wrote on its stderr on the server's own."""
    print(line, file=sys.stderr, flush=True)
