"""The positions of a batch: read from lines of text, each `BOARD [SIDE]` or a JSON object.

A bare line's id is its line number; a JSON line has `board` and optional `id` and `side`.
Blank lines and `#` comments are skipped; ids must be unique. A line that cannot be read
stops the batch with a message naming it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from batch.jobs import BatchError, Id, Job

SIDES = {"w": "w", "white": "w", "b": "b", "black": "b"}


def parse_bare(text: str, number: int) -> Job:
    """Read a `BOARD [SIDE]` line; SIDE counts only after a closing bracket or quote."""
    words = text.rsplit(None, 1)
    side = "w"
    board = text
    if len(words) == 2 and words[1].lower() in SIDES and words[0].rstrip()[-1:] in "]\"'":
        board, side = words[0].rstrip(), SIDES[words[1].lower()]
    return Job(number, board, side)


def load_json(text: str) -> Any:
    """Parse one JSON line; raise ValueError saying why it cannot be read."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("nested too deeply") from None
    except ValueError as error:
        # A number past Python's digit limit is a ValueError too; its advice is not ours.
        raise ValueError(str(error).split(";")[0]) from None


def is_id(value: object) -> bool:
    """Tell whether a JSON value may be a position's id: a whole number or a string."""
    return isinstance(value, int | str) and not isinstance(value, bool)


def parse_json(text: str, number: int) -> Job:
    """Read a JSON line with `board` and optional `id` and `side`."""
    try:
        data = load_json(text)
    except ValueError as error:
        raise BatchError(f"input line {number}: not valid JSON: {error}") from None
    if not isinstance(data, dict):
        raise BatchError(f"input line {number}: a JSON line must be an object")
    board = data.get("board")
    if not isinstance(board, str) or not board.strip():
        raise BatchError(f'input line {number}: no "board" text')
    identity = data.get("id", number)
    if not is_id(identity):
        raise BatchError(f'input line {number}: "id" must be a whole number or a string')
    side = data.get("side", "w")
    if not isinstance(side, str) or side.lower() not in SIDES:
        raise BatchError(f'input line {number}: "side" must be w, b, white or black')
    return Job(identity, board.strip(), SIDES[side.lower()])


def read_jobs(lines: Iterable[str]) -> Iterator[Job]:
    """Yield the positions of the input; blank lines and `#` comments are skipped."""
    seen: set[Id] = set()
    for number, raw in enumerate(lines, start=1):
        text = raw.strip()
        if not text or text.startswith("#"):
            continue
        job = parse_json(text, number) if text.startswith("{") else parse_bare(text, number)
        if any(ord(character) < 32 for character in job.board):
            raise BatchError(f"input line {number}: control characters in the board")
        if job.id in seen:
            raise BatchError(f"input line {number}: id {job.id!r} is used twice")
        seen.add(job.id)
        yield job


def open_input(path: Path) -> Iterator[str]:
    """Yield the lines of an input file; one that cannot be read stops the batch."""
    try:
        with path.open(encoding="utf-8", errors="replace") as lines:
            yield from lines
    except OSError as error:
        raise BatchError(f"cannot read {path}: {error.strerror or error}") from None


def scan(path: Path) -> list[Id]:
    """Read the whole input once before any work, so that a bad line stops the batch before
    it starts; return the ids in input order."""
    return [job.id for job in read_jobs(open_input(path))]
