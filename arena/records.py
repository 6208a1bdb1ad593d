"""The records file: every finished game as a record of kernel/records/record.py, and reading
it back to resume a match.

Each record is written whole with one write and ends with the empty line that separates
records, so a file cut by a kill ends inside at most its last record, which `--resume` cuts
off (that game is played again). Records carry two headers of the arena's own: `Round`, the
game's number in the match, and `Match`, the settings that decide its games, which a resumed
match must share.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from kernel.records.record import (
    HEADER,
    MOVE_LINE,
    GameRecord,
    RecordError,
    format_record,
    parse_records,
)

#: The beginning of a header or of a move line, cut anywhere.
PARTIAL_HEADER = re.compile(r"([A-Za-z][A-Za-z0-9_-]*)(:.*)?")
PARTIAL_MOVE = re.compile(r"[0-9]+(\..*)?")
#: The scores a finished game may have, from white's side.
WHITE_POINTS = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}


class RecordsError(Exception):
    """A records file that cannot be written, read or resumed; the message says why."""


@dataclass(frozen=True, slots=True)
class Finished:
    """What the match needs of a finished game: its number, result and white's points."""

    number: int
    result: str
    white_points: float


def white_points(result: str) -> float | None:
    """White's points in a result such as `1-0 (checkmate)`; None for `*` or anything else."""
    return WHITE_POINTS.get(result.split(" ", 1)[0])


def record_text(
    size: int, start: str, result: str, moves: Sequence[str], headers: Mapping[str, str]
) -> str:
    """Write one game's record, ending with the empty line that separates records."""
    record = GameRecord(size, start, result, list(moves), dict(headers))
    text: str = format_record(record)
    return text.rstrip("\n") + "\n\n"


def refuse_used(path: Path) -> None:
    """Refuse to add a new match to a file that already holds games."""
    if path.exists() and path.stat().st_size > 0:
        raise RecordsError(f"{path} already holds games: --resume continues it, or name another")


class RecordsFile:
    """The records file, appended to one whole record at a time: a record that cannot be
    written whole (a full disk, a quota) is taken back, so the file holds only whole ones."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self.fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
        except OSError as error:
            raise RecordsError(f"cannot write the records file {path}: {error.strerror}") from None

    def write(self, record: str) -> None:
        """Append one record; on failure cut the file back to where it was and raise."""
        data = memoryview(record.encode("utf-8"))
        try:
            size = os.fstat(self.fd).st_size
        except OSError as error:
            message = f"cannot write the records file {self.path}: {error.strerror}"
            raise RecordsError(message) from None
        try:
            while data:
                data = data[os.write(self.fd, data) :]
        except OSError as error:
            try:
                os.ftruncate(self.fd, size)  # frees what was written: it works on a full disk
            except OSError as cut:
                raise RecordsError(
                    f"cannot write the records file {self.path}: {error.strerror}, and cannot "
                    f"take the part written back ({cut.strerror}): its last record is unfinished"
                ) from None
            raise RecordsError(
                f"cannot write the records file {self.path}: {error.strerror}"
            ) from None

    def close(self) -> None:
        os.close(self.fd)


def open_records(path: Path) -> RecordsFile:
    """Open the records file to append to."""
    return RecordsFile(path)


@dataclass(frozen=True, slots=True)
class Resumable:
    """What `--resume` found in a records file, nothing changed yet: the games finished, and
    where a record left unfinished at its end begins (None: there is none)."""

    finished: list[Finished]
    torn_at: int | None = None
    torn_lines: int = 0


def read_resumable(path: Path, match: str, games: int, size: int) -> Resumable:
    """Read a records file to resume, refusing (RecordsError) anything the arena did not
    write: every finished record must be of this match, and what follows the last one may
    only be the beginning of a record of it (a kill in the middle of its write)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return Resumable([])
    except OSError as error:
        raise RecordsError(f"--resume: cannot read {path}: {error.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise RecordsError(
            f"--resume: {path} is not a records file: not UTF-8 text at byte {error.start}"
        ) from None
    end = data.rfind(b"\n\n") + 2 if b"\n\n" in data else 0
    finished = load_finished(path, text[:end], match, games)
    tail = text[end:]
    if not tail.strip():
        return Resumable(finished)
    why = not_a_torn_record(tail, match, size)
    if why is not None:
        raise RecordsError(f"--resume: {path} is not a records file: after its last record, {why}")
    return Resumable(finished, end, tail.count("\n") + 1)


def not_a_torn_record(tail: str, match: str, size: int) -> str | None:
    """Why `tail` is not the beginning of a record the arena writes for this match; None when
    it may be: `Size`, `Start`, `Result` first, then headers (`Match` this match's), then
    move lines, the last line perhaps cut anywhere."""
    *lines, partial = tail.lstrip("\n").split("\n")
    first = (f"Size: {size}", "Start: ", "Result: ")
    in_moves = False
    for number, line in enumerate([*lines, partial], start=1):
        whole = number <= len(lines)
        if not whole and not line:
            break  # the cut fell just after a line end
        if number <= len(first):
            expected = first[number - 1]
            fits = line == expected if number == 1 else line.startswith(expected)
            if not fits and (whole or not expected.startswith(line)):
                return f"line {number} is not the record's {expected.split(':')[0]}: {line[:60]!r}"
            continue
        if MOVE_LINE.fullmatch(line) or (not whole and PARTIAL_MOVE.fullmatch(line)):
            in_moves = True
            continue
        header = HEADER.fullmatch(line) if whole else PARTIAL_HEADER.fullmatch(line)
        if header is None or in_moves:
            return f"line {number} is neither a header nor a move line: {line[:60]!r}"
        if whole and header.group(1) == "Match" and header.group(2).strip() != match:
            return f"an unfinished record of another match ({header.group(2)[:200]})"
    return None


def cut_torn_tail(path: Path, resumable: Resumable) -> str | None:
    """Cut the record left unfinished at the end of the file, once read_resumable has found
    it to be one; say what was cut."""
    if resumable.torn_at is None:
        return None
    with path.open("r+b") as file:
        file.truncate(resumable.torn_at)
    return f"cut {resumable.torn_lines} line(s) of a record left unfinished at the end of {path}"


def load_finished(path: Path, text: str, match: str, games: int) -> list[Finished]:
    """Read the games an earlier run of this match finished, checking every record."""
    if any(line.lstrip().startswith("#") for line in text.splitlines()):
        raise RecordsError(f"--resume: {path} is not a records file: it holds '#' comments")
    try:
        records = parse_records(text)
    except RecordError as error:
        raise RecordsError(f"--resume: {path} is not a records file: {error}") from None
    finished: list[Finished] = []
    seen: set[int] = set()
    for index, record in enumerate(records, start=1):
        where = f"--resume: record {index} of {path}"
        headers: Mapping[str, str] = record.headers
        if headers.get("Match") != match:
            found = headers.get("Match", "no Match header")
            raise RecordsError(f"{where} is from another match ({found}); this one is: {match}")
        number_text = headers.get("Round", "")
        if not number_text.isdigit() or int(number_text) < 1:
            raise RecordsError(f"{where}: Round {number_text!r} is not a game number")
        number = int(number_text)
        if number > games:
            raise RecordsError(f"{where} is game {number}, beyond --games {games}")
        if number in seen:
            raise RecordsError(f"{where}: game {number} is recorded twice")
        points = white_points(record.result)
        if points is None:
            raise RecordsError(f"{where}: game {number} has no final result ({record.result!r})")
        seen.add(number)
        finished.append(Finished(number, record.result, points))
    return finished
