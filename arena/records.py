"""The records file: every finished game as a record of kernel/record.py, and reading it back
to resume a match.

Each record is written whole with one write and ends with the empty line that separates
records, so a file cut by a kill ends inside at most its last record, which `--resume` cuts
off (that game is played again). Records carry two headers of the arena's own: `Round`, the
game's number in the match, and `Match`, the settings that decide its games, which a resumed
match must share.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from kernel.record import (
    GameRecord,
    RecordError,
    format_record,
    parse_records,
)

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


def open_records(path: Path) -> IO[str]:
    """Open the records file to append to."""
    try:
        return path.open("a", encoding="utf-8")
    except OSError as error:
        raise RecordsError(f"cannot write the records file {path}: {error.strerror}") from None


def cut_torn_tail(path: Path) -> str | None:
    """Cut a record left half-written at the end of the file; say what was cut, if anything."""
    data = path.read_bytes()
    end = data.rfind(b"\n\n") + 2 if b"\n\n" in data else 0
    if not data[end:].strip():
        return None
    with path.open("r+b") as file:
        file.truncate(end)
    lines = data[end:].count(b"\n") + 1
    return f"cut {lines} line(s) of a record left unfinished at the end of {path}"


def load_finished(path: Path, match: str, games: int) -> list[Finished]:
    """Read the games an earlier run of this match finished, checking every record."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) else "it is not UTF-8 text"
        raise RecordsError(f"--resume: cannot read {path}: {reason}") from None
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
