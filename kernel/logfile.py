"""A log file that a full disk or a move can interrupt but never tear or silence for good.

Every event is one line, appended with a single `write` on a file opened with O_APPEND, so
several engines can share the file and their lines never mix; nothing is buffered, so a
signal or a crash never leaves half an event behind. What can still go wrong, and what then:

- A full disk (or a quota, or a file size limit) cuts a write short. The bytes that made it
  are overwritten in place by a whole line of the same length (a marker, or spaces), which
  takes no new space: the file never holds half a line, and the line that another engine
  appends after it stays whole.
- A write that fails drops its event. The log is tried again at the first event at least
  RETRY_SECONDS later; the first line written then is a note of how many events were lost.
- The file renamed or deleted (rotated by hand, say): at the first event at least
  RETRY_SECONDS later it is noticed, and a new file is opened at the same path.

Each kind of trouble costs one warning on stderr for all the logs of an engine, never more.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
import sys
import time
from collections.abc import Callable
from pathlib import Path

# Without blocking and without taking a terminal: a FIFO at a log's path would otherwise hold
# the open until some reader came (before the engine's first answer), and a terminal could
# become the engine's controlling one. What was opened is then checked to be a regular file.
_OPEN_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC


class LogPathError(Exception):
    """A log's path names what no log may be written to (a FIFO, a disk, a terminal, a folder)."""


def unsuitable(fd: int, status: os.stat_result) -> str:
    """What an open log's descriptor is, when a log must not be written to it; else "".

    A regular file is a log. So are /dev/null (logs thrown away) and /dev/full (a full disk,
    as the tests make one): writing to them changes no file and never blocks. A FIFO or a
    socket would hold the engine up whenever nobody reads, a block device is someone's disk,
    and a terminal is a person's screen, which the protocol's answers may share.
    """
    mode = status.st_mode
    if stat.S_ISREG(mode):
        return ""
    if stat.S_ISCHR(mode):
        return "a terminal" if os.isatty(fd) else ""
    if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        return "a FIFO or a socket"
    return "a block device" if stat.S_ISBLK(mode) else "not a file"


#: How long a log that failed rests before it is tried again; also how often a log checks
#: that its path still names the file it writes.
RETRY_SECONDS = 1.0


def write_stderr(text: str) -> None:
    """Write a line to stderr if there is one; a closed or broken stderr is no reason to fail."""
    if sys.stderr is None:  # fd 2 was closed when the engine started
        return
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.write(text + "\n")
        sys.stderr.flush()


class LogWarning:
    """Print each kind of log trouble once on stderr, for all the logs of one engine."""

    def __init__(self) -> None:
        self.given: set[str] = set()

    def warn(self, kind: str, message: str) -> None:
        """Warn about a log, unless a warning of this kind was given already."""
        if kind not in self.given:
            self.given.add(kind)
            write_stderr(f"cubemate: warning: {message}")


def whole_line(size: int, markers: tuple[bytes, ...]) -> bytes:
    """A line of exactly `size` bytes: the first marker that fits, padded with spaces, or
    only spaces; the newline last."""
    body = next((marker for marker in markers if len(marker) < size), b"")
    return body.ljust(size - 1) + b"\n"


#: Renders the note written when a log works again: the events lost, and why.
GapNote = Callable[[int, str], bytes]


class AppendOnlyFile:
    """A log file written one whole line at a time, appended, never buffered."""

    def __init__(
        self,
        path: Path,
        warning: LogWarning,
        echo: bool = False,
        markers: tuple[bytes, ...] = (),
        gap_note: GapNote | None = None,
    ) -> None:
        """Open the log; `markers` are what a line cut short by a full disk is overwritten
        with (the first that fits), `gap_note` renders the note on events lost."""
        self.path = path
        self.trouble = warning
        self.echo = echo
        self.markers = markers
        self.gap_note = gap_note
        self.fd: int | None = None
        self.identity = (0, 0)  # device and inode of the file open
        self.dropped = 0  # events lost since the log last worked; the log fails while > 0
        self.reason = ""  # why it failed
        self.next_check = time.monotonic() + RETRY_SECONDS
        self.open(strict=True)

    def open(self, strict: bool = False) -> None:
        """Open (and create) the file at the path, or count the log as failing.

        A path that names what no log may be written to (unsuitable) is never written:
        `strict` (the first open, at start) raises LogPathError for it; later, it only fails
        the log, as a full disk does.
        """
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, _OPEN_FLAGS, 0o644)
        except OSError as error:
            # ENXIO: a FIFO with no reader, or a socket; EISDIR: a folder.
            kind = {errno.ENXIO: "a FIFO or a socket", errno.EISDIR: "a folder"}.get(
                error.errno or 0, ""
            )
            if strict and kind:
                raise LogPathError(f"log {self.path} is {kind}, not a file") from None
            reason = f"it is {kind}" if kind else error.strerror or str(error)
            self.fail(f"cannot open log {self.path}", reason)
            return
        status = os.fstat(fd)
        kind = unsuitable(fd, status)
        if kind:
            os.close(fd)
            if strict:
                raise LogPathError(f"log {self.path} is {kind}, not a file")
            self.fail(f"cannot open log {self.path}", f"it is {kind}")
            return
        with contextlib.suppress(OSError):  # blocking or not, a file is written the same
            fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
        self.fd = fd
        self.identity = (status.st_dev, status.st_ino)

    def write(self, data: bytes) -> None:
        """Append one rendered event, newline included, or count it as lost."""
        if self.echo:
            write_stderr(data.decode("utf-8", errors="replace").rstrip("\n"))
        now = time.monotonic()
        if now >= self.next_check:
            self.next_check = now + RETRY_SECONDS
            self.follow_path()
        elif self.dropped:
            self.dropped += 1  # failing: tried again at the next check, not before
            return
        if self.dropped and self.gap_note is not None:
            if not self.append(self.gap_note(self.dropped, self.reason)):
                self.dropped += 1
                return
            self.dropped = 0
        self.dropped = 0 if self.append(data) else self.dropped + 1

    def append(self, data: bytes) -> bool:
        """Append one line whole, or nothing of it; tell which."""
        fd = self.fd
        if fd is None:
            return False
        try:
            written = os.write(fd, data)
        except OSError as error:
            self.fail(f"cannot write log {self.path}", error.strerror or str(error))
            return False
        if written == len(data):
            return True
        if written:
            self.mend(fd, written)
        self.fail(f"cannot write log {self.path}", f"only {written} of {len(data)} bytes fitted")
        return False

    def mend(self, fd: int, written: int) -> None:
        """Overwrite the `written` bytes of a line cut short, where they are, by a whole line."""
        with contextlib.suppress(OSError):  # then nothing more can be done
            # O_APPEND left the offset just past these bytes, wherever other engines append.
            start = os.lseek(fd, 0, os.SEEK_CUR) - written
            flags = fcntl.fcntl(fd, fcntl.F_GETFL)
            # On Linux, pwrite on a file open for appending appends: switch that off meanwhile.
            fcntl.fcntl(fd, fcntl.F_SETFL, flags & ~os.O_APPEND)
            try:
                os.pwrite(fd, whole_line(written, self.markers), start)
            finally:
                fcntl.fcntl(fd, fcntl.F_SETFL, flags)

    def fail(self, what: str, reason: str) -> None:
        """Note why the log failed, warn once, and rest it until the next check."""
        self.reason = reason
        self.next_check = time.monotonic() + RETRY_SECONDS
        self.trouble.warn(
            "write",
            f"{what}: {reason}; going on without it, trying again every {RETRY_SECONDS:g} s",
        )

    def follow_path(self) -> None:
        """Open the file again if the path no longer names it (moved or deleted), or if it
        could not be opened before."""
        if self.fd is None:
            self.open()
            return
        try:
            status = os.stat(self.path)
        except FileNotFoundError:
            pass
        except OSError:
            return  # no telling (a folder made unreadable, say): go on writing where it goes
        else:
            if (status.st_dev, status.st_ino) == self.identity:
                return
        self.trouble.warn("moved", f"log {self.path} was moved or deleted; starting a new one")
        self.close()
        self.open()

    def msg(self, message: str) -> None:
        """Append one event rendered as text (the structlog logger interface)."""
        self.write((message + "\n").encode("utf-8", errors="replace"))

    info = warning = error = msg

    def close(self) -> None:
        if self.fd is not None:
            fd, self.fd = self.fd, None
            with contextlib.suppress(OSError):
                os.close(fd)
