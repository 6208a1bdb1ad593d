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

import contextlib
import os
import stat
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
    def open(cls, path: Path, append: bool) -> Sink:
        """Open a file to write (or to append to, for --resume)."""
        flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if append else os.O_TRUNC)
        try:
            fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0), 0o644)
        except OSError as error:
            raise BatchError(f"cannot write {path}: {error.strerror or error}") from None
        return cls(fd, str(path), own=True)

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


def check_record(record: object, asks: Sequence[str], number: int, path: Path) -> Id:
    """Check line `number` of an earlier output; return its id."""
    if not isinstance(record, dict) or not is_id(record.get("id")):
        raise BatchError(f"--resume: line {number} of {path} is not a batch record")
    answers, errors = record.get("answers"), record.get("errors")
    if not isinstance(answers, dict) or not isinstance(errors, dict):
        raise BatchError(f"--resume: line {number} of {path} is not a batch record")
    answered = set(answers) | set(errors)
    if "failed" not in record and "set_board" not in answered and answered != set(asks):
        raise BatchError(
            f"--resume: {path} was made with other commands ({', '.join(sorted(answered))})"
        )
    identity: Id = record["id"]
    return identity


def load_written(path: Path, asks: Sequence[str]) -> Written:
    """Read an earlier run's output, cutting off a last line that a kill left half-written."""
    written = Written(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return written
    except OSError as error:
        raise BatchError(f"--resume: cannot read {path}: {error.strerror or error}") from None
    whole = data[: data.rfind(b"\n") + 1]
    if len(whole) != len(data):
        try:
            with path.open("r+b") as output:
                output.truncate(len(whole))
        except OSError as error:
            raise BatchError(f"--resume: cannot cut the torn last line of {path}: "
                             f"{error.strerror or error}") from None  # fmt: skip
    for number, line in enumerate(whole.split(b"\n")[:-1], start=1):
        try:
            record = load_json(line.decode("utf-8"))
        except UnicodeDecodeError:
            raise BatchError(f"--resume: line {number} of {path} is not UTF-8 text") from None
        except ValueError as error:
            raise BatchError(
                f"--resume: line {number} of {path} is not valid JSON: {error}"
            ) from None
        identity = check_record(record, asks, number, path)
        written.ids.append(identity)
        written.counts[identity] += 1
    return written


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
        temporary = path.with_name(f".{path.name}.resume")
        try:
            temporary.write_bytes(b"".join(chosen[i] for i in self.order if i in chosen))
            os.replace(temporary, path)
        except OSError as error:
            with contextlib.suppress(OSError):
                temporary.unlink()
            raise BatchError(
                f"cannot put {path} in input order: {error.strerror or error}; --resume finishes it"
            ) from None
