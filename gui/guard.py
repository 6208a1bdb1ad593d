"""The engine's game as the server guards it: a version, and the searches that run on it.

Every line that may change the engine's game (`play`, `undo`, `set_board`, `new_game`,
`loadgame`, `genmove`, ...: anything not known to only read it), an engine restart, and every
stop bump the game's **version**; each answer tells the page the version it leaves. So that a
computer's move always belongs to the game it was asked for:

- ``genmove(version, colour)`` is refused before any line is sent when ``version`` is no
  longer the game's: the user changed the game (or stopped the search) in between.
- ``stop(version)`` stops a search asked for that version or an older one (SIGUSR1, sent again
  until the search has answered, since a signal that arrives before the engine has begun the
  command is forgotten). A `genmove` it stops has still played its best move so far: that move
  is taken back before the engine reads anything else. A `genmove` of that version that
  already finished, with nothing played since, is taken back too. So once a stop has answered,
  the engine's game is the one the page had before it asked for the move.

A stop never takes the engine lock while a search holds it, and neither does the thinking
feed; only a take-back waits for it.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from gui.records import RecordFolder, record_moves, rename_record
from gui.relay import Engine, EngineError, Reply, command_name, command_words
from gui.thinking import ThinkingFeed

#: Commands that never change the engine's game: a version survives them.
READ_ONLY = frozenset(
    {
        "checkers",
        "checkmate",
        "explain",
        "get_board",
        "help",
        "known_command",
        "legal_moves",
        "level",
        "list_commands",
        "mate_in",
        "mate_search",
        "name",
        "perft",
        "printgame",
        "protocol_version",
        "reg_genmove",
        "result",
        "showboard",
        "solution",
        "status",
        "tb_probe",
        "test_get_point_from_xy",
        "time_left",
        "time_settings",
        "version",
    }
)
#: Commands that search for a move: what a stop stops and the thinking feed follows.
SEARCHES = frozenset({"genmove", "reg_genmove"})
#: Seconds between two stop signals while a search has not answered.
SIGNAL_INTERVAL = 0.05
#: Commands that change nothing when given no argument: `variant` names the rules played, while
#: `variant cube` starts a game of them (the page asks it after a console command).
READ_ONLY_BARE = frozenset({"variant"})


def reads_only(line: str) -> bool:
    """Whether a line leaves the engine's game as it was, so that its version survives it."""
    words = command_words(line)
    name = words[0] if words else ""
    return name in READ_ONLY or (name in READ_ONLY_BARE and len(words) == 1)


class GameChanged(Exception):
    """A move was asked for a version of the game that is no longer current."""

    def __init__(self, message: str, version: int, *, cancelled: bool) -> None:
        super().__init__(message)
        self.version = version
        #: True when the search ran and was stopped; False when it never began.
        self.cancelled = cancelled


@dataclass
class Search:
    """A search the engine runs: what it is, for which version, and whether it was stopped."""

    command: str
    version: int
    #: Its number in the thinking feed.
    feed_number: int = 0
    stopped: bool = False
    #: Set once the search has answered and anything it left has been put right.
    done: threading.Event = field(default_factory=threading.Event)


@dataclass(frozen=True)
class Played:
    """The last move `genmove` played and kept: the version it was asked for and made."""

    asked: int
    made: int


@dataclass(frozen=True)
class Stopped:
    """What a stop did: the version it left, whether it stopped a search, and whether it
    took back a move that a finished `genmove` had played."""

    version: int
    stopped: bool
    taken_back: bool


@dataclass(frozen=True)
class LoadedRecord:
    """A record read into the engine: the engine's answer, its moves and its printgame."""

    reply: Reply
    moves: tuple[str, ...]
    record: str


class GameGuard:
    """Relay lines, searches and stops to one engine, counting the versions of its game."""

    def __init__(self, engine: Engine, feed: ThinkingFeed, timeout: float) -> None:
        self.engine = engine
        self.feed = feed
        self.timeout = timeout
        self.records = RecordFolder()
        self._lock = threading.Lock()
        self._version = 0
        self._search: Search | None = None
        self._played: Played | None = None

    @property
    def version(self) -> int:
        """The current version of the engine's game."""
        with self._lock:
            return self._version

    def _changed(self) -> int:
        """Bump the version (the caller holds ``_lock``); return the new one."""
        self._version += 1
        self._played = None
        return self._version

    # --- relaying

    def relay(self, line: str) -> Reply:
        """Send one line, as the console or the page wrote it; count what it changed."""
        name = command_name(line)
        with self.engine.lock:
            search = self._begin(name) if name in SEARCHES else None
            try:
                reply = self._send(line)
            finally:
                if search is not None:
                    self._answered(search)
                    search.done.set()
            with self._lock:
                if reply.ok and not reads_only(line):
                    self._changed()
            return reply

    def _send(self, line: str) -> Reply:
        """Send one line; a restarted engine holds a new, empty game."""
        try:
            reply = self.engine.send(line)
        except EngineError as exc:
            if exc.restarted:
                with self._lock:
                    self._changed()
            raise
        if reply.restarted:
            with self._lock:
                self._changed()
        return reply

    def _begin(self, command: str, version: int | None = None) -> Search:
        """Note that a search starts now, for the current version; when ``version`` is given
        it must be the current one, checked in the same breath (a stop may come at any time)."""
        with self._lock:
            if version is not None and version != self._version:
                raise GameChanged(
                    f"the game changed since the move was asked for (version {version}, "
                    f"now {self._version}): nothing was searched",
                    self._version,
                    cancelled=False,
                )
            search = Search(command, self._version)
            self._search = search
        search.feed_number = self.feed.begin(command)
        return search

    def _answered(self, search: Search) -> None:
        """Note that ``search`` has answered: no stop signals it from now on."""
        with self._lock:
            if self._search is search:
                self._search = None
        self.feed.end(search.feed_number)

    # --- the computer's move

    def genmove(self, version: int, colour: str) -> Reply:
        """Play the engine's move for ``colour`` in the game of ``version``.

        Raises GameChanged when the version is stale (nothing sent) or when a stop came
        while the engine searched (the move it played is taken back first).
        """
        with self.engine.lock:
            search = self._begin("genmove", version)
            try:
                return self._search_move(search, version, colour)
            finally:
                search.done.set()

    def _search_move(self, search: Search, version: int, colour: str) -> Reply:
        """Run `genmove` as ``search``; keep its move, or take it back if it was stopped."""
        try:
            reply = self._send(f"genmove {colour}")
        finally:
            self._answered(search)
        played = reply.ok and reply.text != "resign"
        with self._lock:
            if not search.stopped:
                if played:
                    self._played = Played(version, self._changed())
                return reply
        if played:
            try:
                self._send("undo")
            finally:
                with self._lock:
                    self._changed()
        what = f": the move it had played, {reply.text}, was taken back" if played else ""
        raise GameChanged(f"the search was stopped{what}", self.version, cancelled=True)

    def stop(self, version: int) -> Stopped:
        """Stop the search asked for ``version`` (or an older one) and take back what a
        `genmove` of that version played; every move asked for until now is void."""
        with self._lock:
            before = self._version
            self._version += 1
            search = self._search
            played = self._played
            if search is not None and search.version <= version:
                search.stopped = True
            else:
                search = None
        if search is not None:
            self._signal_until_answered(search)
            search.done.wait(self.timeout)
            return Stopped(self.version, stopped=True, taken_back=False)
        if played is None or played.asked != version or played.made != before:
            return Stopped(self.version, stopped=False, taken_back=False)
        return self._take_back_played(played)

    def _signal_until_answered(self, search: Search) -> None:
        """Send the stop signal until the search has answered (within the timeout): one
        that arrives before the engine has begun the command is forgotten."""
        waited = 0.0
        while waited < self.timeout:
            with self._lock:
                if self._search is not search:
                    return
                self.engine.interrupt()
            if search.done.wait(SIGNAL_INTERVAL):
                return
            waited += SIGNAL_INTERVAL

    def _take_back_played(self, played: Played) -> Stopped:
        """Undo a `genmove` that finished before the stop, if nothing changed since."""
        with self.engine.lock:
            with self._lock:
                # The stop's own bump is the only change since the move that is allowed.
                if self._version != played.made + 1:
                    return Stopped(self._version, stopped=False, taken_back=False)
            reply = self._send("undo")
            with self._lock:
                self._changed()
                return Stopped(self._version, stopped=False, taken_back=reply.ok)

    # --- records

    def load_record(self, text: str, name: str) -> LoadedRecord:
        """Read a game record posted by the page into the engine, at its start position.

        The engine replays the whole record first (`loadgame` refuses a broken one and then
        changes nothing), so the page learns every move and the record as printgame writes
        it; then the record is loaded again with no move played, ready to step through.
        """
        with self.engine.lock, self.records.holding(text) as path:
            reply = self.relay(f"loadgame {path}")
            if not reply.ok:
                renamed = rename_record(reply.raw, str(path), name)
                return LoadedRecord(Reply(renamed, reply.restarted, reply.notice), (), "")
            printed = self.relay("printgame")
            start = self.relay(f"loadgame {path} 0")
            if not start.ok:  # the same file read a moment ago: only a dying engine fails
                return LoadedRecord(start, (), "")
            record = printed.text.removeprefix("\n")
            return LoadedRecord(reply, record_moves(record), record)

    def snapshot(self) -> dict[str, Any]:
        """The thinking of the latest search, with the game's version."""
        return {**self.feed.snapshot(), "game": self.version}
