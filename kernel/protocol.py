"""The protocol layer: turn a raw line into a command and a reply into framed text.

Nothing here does I/O, so every byte of the framing can be tested directly.
"""

from __future__ import annotations

import re
from typing import NamedTuple

# C0 controls, DEL and C1 controls; tab is handled apart because it becomes a space. Also
# U+FEFF, the byte-order mark some Windows programs write before their first line.
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f\ufeff]")
# The same on ASCII bytes, where one C-speed `translate` drops them and turns tabs to spaces.
_BYTE_CONTROLS = bytes([*range(0x00, 0x09), *range(0x0A, 0x20), 0x7F])
_TAB_TO_SPACE = bytes.maketrans(b"\t", b" ")


class CommandError(Exception):
    """A command was refused; the message is what the user reads after `?`."""


class Command(NamedTuple):
    """One parsed command line: the optional id, the name and its arguments."""

    id: str | None
    name: str
    args: list[str]


class Reply(NamedTuple):
    """The outcome of one command: success or failure, its text, and a bug's traceback."""

    ok: bool
    text: str
    traceback: str | None = None


def decode_line(raw: bytes) -> str:
    """Decode a raw input line; bytes that are not UTF-8 become U+FFFD, never an error."""
    return raw.decode("utf-8", errors="replace")


def clean_line(line: str) -> str:
    """Drop control characters (and byte-order marks) except tab; turn tabs into spaces."""
    if _CONTROL.search(line) is not None:
        line = _CONTROL.sub("", line)
    return line.replace("\t", " ")


def parse_command(line: str, comments: str = "line-start") -> Command | None:
    """Split a cleaned line into id, name and arguments; None for a blank or comment line.

    `comments` is the config's `protocol.comments`: with "line-start" only a line whose first
    word starts with `#` is a comment (boards use `#` for empty cells); with "anywhere" a `#`
    starts a comment wherever it stands, as GTP says.
    """
    if comments == "anywhere":
        line = line.partition("#")[0]
    words = line.split()
    if not words or words[0].startswith("#"):
        return None
    command_id: str | None = None
    if words[0].isascii() and words[0].isdigit():
        # Echo the id as a number, so "007" answers "=7" as GTP ids are integers. No int():
        # an id may have more digits than Python converts.
        command_id = words[0].lstrip("0") or "0"
        words = words[1:]
    if not words:
        return Command(command_id, "", [])
    return Command(command_id, words[0], words[1:])


def frame(command_id: str | None, reply: Reply) -> str:
    """Frame a reply as `=`/`?`, the id, a space, the text and the closing empty line."""
    mark = "=" if reply.ok else "?"
    text = reply.text.rstrip("\n")
    if "\n\n" in text:
        # An empty line ends a response, so none may stand inside one.
        text = re.sub(r"\n{2,}", "\n", text)
    return f"{mark}{command_id or ''} {text}\n\n"


def shorten(text: str, most: int = 40) -> str:
    """Quote user input in a message, cut short: a refusal must stay one short line."""
    return repr(text if len(text) <= most else text[: most - 3] + "...")


def line_too_long(limit: int) -> Reply:
    """Refuse a line that exceeded the configured length limit."""
    return Reply(False, f"line too long (limit {limit} bytes)")


def prepare_line(raw: bytes) -> str:
    """Turn raw input bytes into a clean line, ready for parse_command.

    The same result as clean_line(decode_line(raw)), faster on long lines.
    """
    if raw.isascii():
        return raw.translate(_TAB_TO_SPACE, _BYTE_CONTROLS).decode("ascii")
    return clean_line(decode_line(raw))
