"""The output of a batch: JSON lines written whole, and an earlier run's output to resume.

Lines are written with plain `write` calls on the file descriptor, one chunk of whole lines
at a time; a write that fails (a full disk, a file grown past its limit) is cut back to the
last whole line, so the file can always be resumed. `--resume` reads what an earlier run
wrote, checks every line, and tells the run which positions are still to examine: those
missing (wherever they are) and those written more than once. When the run is over, a file
whose records are out of input order or doubled is rewritten in input order, one record a
position, and replaces the old one in a single rename.
"""

from __future__ import annotations

import codecs
import contextlib
import fcntl
import os
import stat
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from batch.jobs import BatchError, Id, Job
from batch.source import is_id, load_json


class Sink:
    """Whole lines to a file descriptor: all of a chunk, or nothing of it."""

    def __init__(self, fd: int, name: str, own: bool) -> None:
        self.fd = fd
        self.name = name
        self.own = own
        #: Ids of the records written by this run, in order.
        self.ids: list[Id] = []

    @classmethod
    def create(cls, path: Path, overwrite: bool) -> Sink:
        """Open a file to write from its start: a new or empty one, or any with `overwrite`.

        The file is emptied only once it is open and checked (the check before the run may
        be stale by now), and locked, so that two batches never write one output at once.
        """
        fd = cls._open(path, os.O_CREAT)
        try:
            status = os.fstat(fd)
            if stat.S_ISREG(status.st_mode):
                if status.st_size > 0 and not overwrite:
                    raise BatchError(
                        f"{path} is not empty: --resume continues it, --overwrite replaces it"
                    )
                cls._lock(fd, path)
                os.ftruncate(fd, 0)
        except OSError as error:
            os.close(fd)
            raise BatchError(f"cannot write {path}: {error.strerror or error}") from None
        except BatchError:
            os.close(fd)
            raise
        return cls(fd, str(path), own=True)

    @classmethod
    def resume(cls, written: Written) -> Sink:
        """Open an earlier run's output, checked by load_written, to append to: the same
        file, unchanged since it was read, else refused untouched; only then is a torn last
        line cut off."""
        path = written.path
        flags = os.O_APPEND | (os.O_CREAT | os.O_EXCL if written.found is None else 0)
        changed = BatchError(f"--resume: {path} changed since it was read; nothing written")
        try:
            fd = cls._open(path, flags)
        except BatchError as error:
            # Made meanwhile (O_EXCL), or gone since it was read.
            cause = error.__cause__
            if isinstance(cause, FileExistsError) or (
                isinstance(cause, FileNotFoundError) and written.found is not None
            ):
                raise changed from None
            raise
        try:
            cls._lock(fd, path)
            status = os.fstat(fd)
            if written.found is not None and (
                (status.st_dev, status.st_ino) != written.found
                or status.st_size != written.size + written.torn
            ):
                raise changed
            if written.torn:
                os.ftruncate(fd, written.size)
        except OSError as error:
            os.close(fd)
            raise BatchError(f"--resume: cannot cut the torn last line of {path}: "
                             f"{error.strerror or error}") from None  # fmt: skip
        except BatchError:
            os.close(fd)
            raise
        return cls(fd, str(path), own=True)

    @staticmethod
    def _open(path: Path, flags: int) -> int:
        """Open `path` to write with `flags` added, or say why not."""
        try:
            return os.open(path, os.O_WRONLY | os.O_CLOEXEC | flags, 0o644)
        except OSError as error:
            raise BatchError(f"cannot write {path}: {error.strerror or error}") from error

    @staticmethod
    def _lock(fd: int, path: Path) -> None:
        """Take the output for this batch alone, or refuse it: another batch writes it."""
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise BatchError(f"{path} is being written by another batch") from None

    def write(self, lines: Sequence[str], ids: Sequence[Id]) -> None:
        """Write the lines; on failure cut the file back to where it was and say why."""
        data = memoryview("".join(lines).encode("utf-8"))
        start = self._size()
        try:
            while data:
                data = data[os.write(self.fd, data) :]
        except BrokenPipeError:
            raise
        except OSError as error:
            if start is not None:
                with contextlib.suppress(OSError):
                    os.ftruncate(self.fd, start)
            raise BatchError(
                f"cannot write {self.name}: {error.strerror or error}; the output holds whole "
                "lines (--resume continues)"
            ) from None
        self.ids.extend(ids)

    def _size(self) -> int | None:
        """The size of a regular file, to cut a failed write back to; None for a pipe."""
        try:
            status = os.fstat(self.fd)
        except OSError:
            return None
        return status.st_size if stat.S_ISREG(status.st_mode) else None

    def close(self) -> None:
        """Close a file this sink opened."""
        if self.own:
            os.close(self.fd)


@dataclass(slots=True)
class Written:
    """What an earlier run wrote: how often each id appears, in the file's order."""

    path: Path
    ids: list[Id] = field(default_factory=list)
    counts: Counter[Id] = field(default_factory=Counter)
    #: The file's device and inode when it was read; None if there was no file.
    found: tuple[int, int] | None = None
    #: Bytes of whole lines, then of a last line a kill left half-written (cut on opening).
    size: int = 0
    torn: int = 0


def check_record(
    record: object, asks: Sequence[str], number: int, path: Path, variant: str | None = None
) -> Id:
    """Check line `number` of an earlier output, made with `--variant variant` (None:
    without); return its id."""
    if not isinstance(record, dict) or not is_id(record.get("id")):
        raise BatchError(f"--resume: line {number} of {path} is not a batch record")
    answers, errors, made = record.get("answers"), record.get("errors"), record.get("variant")
    if not isinstance(answers, dict) or not isinstance(errors, dict):
        raise BatchError(f"--resume: line {number} of {path} is not a batch record")
    if not isinstance(made, str | None):
        raise BatchError(f"--resume: line {number} of {path} is not a batch record")
    # Variant names are case-blind, as `variant` reads them.
    if (made is None) != (variant is None) or (made or "").lower() != (variant or "").lower():
        was = "no --variant" if made is None else f"--variant {made}"
        raise BatchError(
            f"--resume: {path} was made with {was} (line {number}), not "
            + ("without one" if variant is None else f"--variant {variant}")
        )
    answered = set(answers) | set(errors)
    if "failed" not in record and "set_board" not in answered and answered != set(asks):
        raise BatchError(
            f"--resume: {path} was made with other commands ({', '.join(sorted(answered))})"
        )
    identity: Id = record["id"]
    return identity


#: How every record a batch writes begins (Outcome.record: the id comes first).
RECORD_START = b'{"id": '


def load_written(path: Path, asks: Sequence[str], variant: str | None = None) -> Written:
    """Read an earlier run's output and check every line, changing nothing: a last line
    that a kill left half-written must begin as a record does, and is cut off only when
    the output is opened (Sink.resume), after every check has passed."""
    written = Written(path)
    try:
        # Not blocking: a FIFO put there must be refused, not waited on for ever.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return written
    except OSError as error:
        raise BatchError(f"--resume: cannot read {path}: {error.strerror or error}") from None
    try:
        with open(fd, "rb") as lines:
            status = os.fstat(fd)
            if not stat.S_ISREG(status.st_mode):
                raise BatchError(f"--resume: {path} is not a regular file")
            written.found = (status.st_dev, status.st_ino)
            for number, line in enumerate(lines, start=1):
                if not line.endswith(b"\n"):
                    check_torn(line, number, path)
                    written.torn = len(line)
                    break
                record = parse_line(line, number, path)
                identity = check_record(record, asks, number, path, variant)
                written.ids.append(identity)
                written.counts[identity] += 1
                written.size += len(line)
    except OSError as error:
        raise BatchError(f"--resume: cannot read {path}: {error.strerror or error}") from None
    return written


def parse_line(line: bytes, number: int, path: Path) -> object:
    """Read line `number` of an earlier output as JSON."""
    try:
        return load_json(line.decode("utf-8"))
    except UnicodeDecodeError:
        raise BatchError(f"--resume: line {number} of {path} is not UTF-8 text") from None
    except ValueError as error:
        raise BatchError(f"--resume: line {number} of {path} is not valid JSON: {error}") from None


def check_torn(tail: bytes, number: int, path: Path) -> None:
    """Refuse a last line without its newline unless a kill can have left it: the start of
    a record, in UTF-8 but perhaps cut inside a character."""
    if not (tail.startswith(RECORD_START) or RECORD_START.startswith(tail)):
        raise BatchError(f"--resume: line {number} of {path} is not a batch record")
    try:
        codecs.getincrementaldecoder("utf-8")().decode(tail, final=False)
    except UnicodeDecodeError:
        raise BatchError(f"--resume: line {number} of {path} is not UTF-8 text") from None


@dataclass(slots=True)
class Plan:
    """Which positions a resumed run examines, and what it saw of the input."""

    written: Written
    #: With --keep, a position missing before the last one written was dropped by the
    #: filter (it cannot be told from a lost line), so it is not examined again.
    filtered: bool
    #: Every id of the input, in order.
    order: list[Id] = field(default_factory=list)
    #: Ids examined again: missing before the end of the file, or written more than once.
    again: set[Id] = field(default_factory=set)

    def remaining(self, jobs: Iterable[Job], on_skip: Callable[[], None]) -> Iterator[Job]:
        """Yield the positions still to examine, calling on_skip for each one done."""
        counts = self.written.counts
        unseen = len(counts)
        for job in jobs:
            self.order.append(job.id)
            copies = counts.get(job.id, 0)
            if copies:
                unseen -= 1
            if copies == 1 or (copies == 0 and self.filtered and unseen > 0):
                on_skip()
                continue
            if copies > 1 or unseen > 0:
                self.again.add(job.id)
            yield job
        self.check_input(self.order)

    def check_input(self, order: Iterable[Id]) -> None:
        """Refuse an output that holds a position the input lacks."""
        known = set(order)
        foreign = next((identity for identity in self.written.ids if identity not in known), None)
        if foreign is not None:
            raise BatchError(
                f"--resume: {self.written.path} holds id {foreign!r}, which the input lacks"
            )

    def tidy(self, sink: Sink) -> None:
        """Rewrite the output in input order, one record a position, if it is not so."""
        ids = self.written.ids + sink.ids
        present = set(ids)
        if not self.again and ids == [i for i in self.order if i in present]:
            return
        path = self.written.path
        lines = [line + b"\n" for line in path.read_bytes().split(b"\n")[:-1]]
        old, new = lines[: len(self.written.ids)], lines[len(self.written.ids) :]
        chosen: dict[Id, bytes] = {}
        for identity, line in zip(self.written.ids, old, strict=True):
            if identity not in self.again:
                chosen[identity] = line
        # This run's records replace every earlier copy of their position.
        chosen.update(zip(sink.ids, new, strict=True))
        # A fresh name beside the real file (never a file someone left under a fixed name;
        # through a symbolic link, the file it points to), with the old file's mode.
        real = Path(os.path.realpath(path))
        temporary: Path | None = None
        try:
            fd, name = tempfile.mkstemp(prefix=f".{real.name}.", suffix=".resume", dir=real.parent)
            temporary = Path(name)
            with open(fd, "wb") as rewritten:
                os.fchmod(fd, stat.S_IMODE(os.stat(real).st_mode))
                rewritten.write(b"".join(chosen[i] for i in self.order if i in chosen))
            os.replace(temporary, real)
        except OSError as error:
            if temporary is not None:
                with contextlib.suppress(OSError):
                    temporary.unlink()
            raise BatchError(
                f"cannot put {path} in input order: {error.strerror or error}; --resume finishes it"
            ) from None
