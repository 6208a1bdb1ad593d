"""Game records: plain text that people read and programs parse, many games to a file.

A record is header lines `Key: value`, then the moves, numbered by move pairs; records are
separated by an empty line, and lines starting with `#` are comments (docs/rules.md, "Game
records"):

    Size: 3
    Start: [###,#k#,###],[###,###,###],[###,#K#,###] w
    Result: 1/2-1/2 (insufficient material)
    Date: 2026-12-01
    1. Kb2(I)-b1(I) kb2(III)-b3(III)
    2. ...

`Size`, `Start` and `Result` are required and written first; any other header may follow
(`White`, `Black`, `Date`, `Event`, `Round`, `Opening`, `TimeControl`, ...). A game whose
start has black to move begins `1... m`. This is not PGN: our move names hold parentheses,
which every PGN reader would take for variations, so the format is a plainer one of its own.
This module reads and writes the text only; replaying the moves is the command layer's job.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from kernel.interrupt import stop_read_if_asked
from kernel.protocol import shorten

#: The headers every record has, in the order they are written.
REQUIRED = ("Size", "Start", "Result")
HEADER = re.compile(r"([A-Za-z][A-Za-z0-9_-]*):[ \t]*(.*)")
#: A move line: the number of the move pair, `.` (white moves first) or `...` (black's).
MOVE_LINE = re.compile(r"([0-9]+)(\.\.\.|\.)[ \t]+(.*)")
RESULT = re.compile(r"\*|(?:1-0|0-1|1/2-1/2)(?: \(.+\))?")
#: More digits than any board size or move number needs.
MAX_DIGITS = 9


class RecordError(ValueError):
    """Text that is not a well-formed record; the message names the line and the problem."""


@dataclass
class GameRecord:
    """One game: its size, start (board notation and `w`/`b`), result, moves and headers."""

    size: int
    start: str
    result: str
    moves: list[str] = field(default_factory=list)
    #: Every other header, in the order written.
    headers: dict[str, str] = field(default_factory=dict)
    #: Where the record starts in its file, counting lines from 1 (0 when not read from text).
    line: int = 0
    #: The line of each move, when read from text.
    move_lines: list[int] = field(default_factory=list)

    @property
    def black_starts(self) -> bool:
        """Tell whether black is to move in the start position."""
        return black_to_move(self.start)


def black_to_move(start: str) -> bool:
    """Tell whether a Start value has black to move: its last word is `b` (or `black`)."""
    return start.split()[-1:] in (["b"], ["black"])


def one_line(value: str) -> str:
    """Make a header value safe for one line: control characters become spaces."""
    return " ".join("".join(" " if ord(ch) < 32 or ch == "\x7f" else ch for ch in value).split())


def format_record(record: GameRecord) -> str:
    """Write one record, ending in a newline."""
    lines = [f"Size: {record.size}", f"Start: {one_line(record.start)}"]
    lines.append(f"Result: {one_line(record.result)}")
    for key, value in record.headers.items():
        if key not in REQUIRED and HEADER.fullmatch(f"{key}: x"):
            lines.append(f"{key}: {one_line(value)}")
    lines.extend(text for _, text in move_lines(record.moves, record.black_starts))
    return "\n".join(lines) + "\n"


def move_lines(moves: list[str], black_starts: bool, first: int = 0) -> Iterator[tuple[int, str]]:
    """Write the move lines of a record from the move at index `first` (one that begins a
    line): each line with the index of its first move."""
    index = first
    if black_starts and index == 0 and moves:
        yield 0, f"1... {moves[0]}"
        index = 1
    while index < len(moves):
        number = (index + int(black_starts)) // 2 + 1
        yield index, f"{number}. " + " ".join(moves[index : index + 2])
        index += 2


def format_records(records: list[GameRecord]) -> str:
    """Write several records, an empty line between two."""
    return "\n".join(format_record(record) for record in records)


def parse_records(text: str) -> list[GameRecord]:
    """Read every record of a text; raise RecordError naming the line of the first problem."""
    return [parse_block(block) for block in record_blocks(text)]


#: What ends a line, as str.splitlines has it: a record's lines are numbered as an editor
#: (and splitlines) numbers them.
_LINE_ENDS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
_LINE = re.compile(f"([^{_LINE_ENDS}]*)(\r\n|[{_LINE_ENDS}])?")

#: How often, in lines, a long read looks whether it was asked to stop (kernel/interrupt.py).
STOP_EVERY = 4096

#: One line of a record file: its number from 1 and its text, stripped.
Line = tuple[int, str]


def record_lines(text: str) -> Iterator[Line]:
    """Yield each line of a text but its comments, with its number, stripped.

    One line at a time, not `splitlines`: a file of millions of short lines would take a
    list of millions of strings (220 MB for 16 MiB), where one record is all that is wanted.
    """
    number = 0
    for found in _LINE.finditer(text):
        line, end = found.groups()
        if not line and end is None:
            continue  # the empty match at the end of the text
        number += 1
        if not number % STOP_EVERY:
            stop_read_if_asked(f"at line {number}")
        line = line.strip()
        if not line.startswith("#"):
            yield number, line


def record_blocks(text: str) -> Iterator[Iterator[Line]]:
    """Yield the lines of each record, with their line numbers, comments and blanks left out.

    Records are cut apart without being read, so that one record of a large file is found
    without reading the others (and a broken record does not hide the good ones). Each
    record's lines come one at a time, as its reader asks for them: a reader that refuses
    a record at its first lines has not paid for the rest. A record left half read is
    passed over when the next is asked for.
    """
    lines = record_lines(text)
    for number, line in lines:
        if line:
            block = _block_lines((number, line), lines)
            yield block
            for _ in block:
                pass  # what its reader left of it


def _block_lines(first: Line, lines: Iterator[Line]) -> Iterator[Line]:
    """Yield the first line of a record, then its others up to the next blank line."""
    yield first
    for number, line in lines:
        if not line:
            return
        yield number, line


#: The most headers a record may have, the three required among them, and the longest key
#: and value of one (Start aside, which holds a board: replay.py bounds it by the largest).
#: The arena writes nine, none longer than 400 characters; printgame writes back what it read.
MAX_HEADERS = 64
MAX_KEY_CHARS = 64
MAX_VALUE_CHARS = 4096


def parse_block(block: Iterable[Line]) -> GameRecord:
    """Read the lines of one record, each with its line number."""
    headers: dict[str, str] = {}
    moves: list[str] = []
    move_lines: list[int] = []
    first_line = 0
    black_starts = False
    for number, line in block:
        first_line = first_line or number
        move_line = MOVE_LINE.fullmatch(line)
        if move_line is None:
            if moves and HEADER.fullmatch(line) is not None:
                raise RecordError(f"line {number}: header after the moves: {shorten(line)}")
            read_header(line, number, headers)
            continue
        if not moves:
            check_headers(headers, first_line)
            # Once a record: Start holds a whole board, and splitting it for every move
            # line was a fifth of reading a file of records.
            black_starts = black_to_move(headers["Start"])
        read_move_line(move_line, number, moves, black_starts)
        move_lines.extend([number] * (len(moves) - len(move_lines)))
    check_headers(headers, first_line)
    size_text = headers.pop("Size")
    if not size_text.isdigit() or len(size_text) > MAX_DIGITS:
        raise RecordError(
            f"line {first_line}: Size must be a whole number, got {shorten(size_text)}"
        )
    start = headers.pop("Start")
    result = headers.pop("Result")
    if RESULT.fullmatch(result) is None:
        raise RecordError(
            f"line {first_line}: Result must be *, 1-0, 0-1 or 1/2-1/2: {shorten(result)}"
        )
    return GameRecord(int(size_text), start, result, moves, headers, first_line, move_lines)


def read_header(line: str, number: int, headers: dict[str, str]) -> None:
    """Add one header line to a record's headers, refusing a malformed, repeated or
    oversized one, or one too many."""
    header = HEADER.fullmatch(line)
    if header is None:
        raise RecordError(f"line {number}: expected 'Key: value' or a move line: {shorten(line)}")
    key, value = header.groups()
    if len(key) > MAX_KEY_CHARS:
        raise RecordError(
            f"line {number}: the header {shorten(key)} has a key of {len(key)} characters;"
            f" the most is {MAX_KEY_CHARS}"
        )
    if key in headers:
        raise RecordError(f"line {number}: header {key} given twice")
    if len(headers) == MAX_HEADERS:
        raise RecordError(f"line {number}: more than {MAX_HEADERS} headers")
    value = value.strip()
    if key != "Start" and len(value) > MAX_VALUE_CHARS:
        raise RecordError(
            f"line {number}: header {key} is {len(value)} characters long;"
            f" the most is {MAX_VALUE_CHARS}"
        )
    headers[key] = value


def check_headers(headers: dict[str, str], line: int) -> None:
    """Refuse a record without one of the required headers."""
    for key in REQUIRED:
        if key not in headers:
            raise RecordError(f"line {line}: the record has no {key} header")


def read_move_line(found: re.Match[str], number: int, moves: list[str], black_starts: bool) -> None:
    """Add the moves of one move line, checking its number and its dots.

    With white to move first, every line is `N. w b` and begins with an even count of moves
    so far; with black first, the first line is `1... b` and the others begin after an odd
    count.
    """
    digits, dots, rest = found.groups()
    words = rest.split()
    if not words or len(words) > 2:
        raise RecordError(f"line {number}: a move line holds one or two moves")
    if not moves and black_starts != (dots == "..."):
        first = "1... m (black moves first)" if black_starts else "1. m m (white moves first)"
        raise RecordError(f"line {number}: the first move line must read {first}")
    if moves and dots == "...":
        raise RecordError(f"line {number}: only the first move line may be '1...'")
    if dots == "..." and len(words) != 1:
        raise RecordError(f"line {number}: '1...' is followed by black's one move")
    if moves and len(moves) % 2 != int(black_starts):
        raise RecordError(f"line {number}: the move line before it holds one move only")
    expected = (len(moves) + int(black_starts)) // 2 + 1
    if len(digits) > MAX_DIGITS or int(digits) != expected:
        raise RecordError(f"line {number}: move {expected} expected, got {digits}{dots}")
    moves.extend(words)


def rewritten(text: str, changed: dict[str, str], added: dict[str, str], moves: list[str]) -> str:
    """Write the text of one record again, keeping every line of its own as it stands.

    `text` holds one record (parse_records read it whole), whose moves `moves` begin with.
    The header lines named in `changed` get their new values in place; the headers of `added`
    follow its last header; its last move line, when it holds one move alone, is given the
    next, and the rest follow it in new move lines. Every other line stays as written, with
    its own line end: comments, blank lines, the other headers, the moves it had, each in
    the notation it was written in. New lines end as the record's first header does.
    """
    pieces: list[list[str]] = []  # each line's text and its end ("" for none)
    last_header = last_move = -1
    held = 0  # the moves the record holds
    last_alone = False  # whether its last move line holds one move alone
    black_starts = False
    newline = "\n"
    for found in _LINE.finditer(text):
        line, end = found.groups()
        if not line and end is None:
            continue
        pieces.append([line, end or ""])
        if not len(pieces) % STOP_EVERY:
            stop_read_if_asked(f"at line {len(pieces)}")
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        move_line = MOVE_LINE.fullmatch(stripped)
        if move_line is not None:
            last_move = len(pieces) - 1
            held += len(move_line.group(3).split())
            last_alone = move_line.group(2) == "." and len(move_line.group(3).split()) == 1
            continue
        header = HEADER.fullmatch(stripped)
        if header is None:
            raise RecordError(f"line {len(pieces)}: not a record's line: {shorten(stripped)}")
        key = header.group(1)
        if last_header < 0:  # the record's first line: new lines end as it does
            newline = "\r\n" if end == "\r\n" else "\n"
        last_header = len(pieces) - 1
        black_starts = black_starts or (key == "Start" and black_to_move(header.group(2)))
        if key in changed:
            pieces[-1][0] = f"{key}: {one_line(changed[key])}"
    headers = [f"{key}: {one_line(value)}" for key, value in added.items()]
    first_new = held
    if last_alone and held < len(moves):
        pieces[last_move][0] = pieces[last_move][0].rstrip() + f" {moves[held]}"
        first_new = held + 1
    new_moves = [line for _, line in move_lines(moves, black_starts, first_new)]
    # The later place first, so that the earlier one's index still holds.
    if last_move >= 0:
        insert_lines(pieces, last_move, new_moves, newline)
        insert_lines(pieces, last_header, headers, newline)
    else:
        insert_lines(pieces, last_header, headers + new_moves, newline)
    return "".join(line + end for line, end in pieces)


def insert_lines(pieces: list[list[str]], after: int, lines: list[str], newline: str) -> None:
    """Put new lines after the line at index `after`, which gets a line end if it had none."""
    if lines:
        if not pieces[after][1]:
            pieces[after][1] = newline
        pieces[after + 1 : after + 1] = [[line, newline] for line in lines]
