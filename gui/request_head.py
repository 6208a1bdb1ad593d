"""Where a request's head ends, and how much body to wait for, told from the bytes so far.

The serving loop (gui/connections.py) gathers each request before a worker thread takes it,
so that a client that sends half a request holds a few bytes of memory, not a thread. It needs
only to know when the request is all there: the head ends at the first empty line, and the
body is as long as its one `Content-Length` says. A head that leaves any doubt (several
lengths, one that is not plain digits or is over the limit, `Transfer-Encoding`, an `Expect`
the loop does not answer) is handed over as soon as it is whole: the handler refuses it
without reading a body, or reads one as it always did.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: A line end followed by an empty line: the end of a head.
HEAD_END = re.compile(rb"\r?\n\r?\n")
#: An empty first line: http.server reads it as a request line with nothing in it.
EMPTY_FIRST_LINE = re.compile(rb"\r?\n")
CONTINUE = b"100-continue"


@dataclass(frozen=True)
class Head:
    """The first request's head: its length (the empty line included), the body's length to
    wait for (None: hand the request over now), and whether the client waits for
    `100 Continue` before it sends the body."""

    end: int
    body: int | None
    wants_continue: bool = False


def find_head(data: bytes | bytearray, start: int, max_body: int) -> Head | None:
    """Read the head at the start of ``data``, searching for its end from ``start`` (the
    bytes before it were searched already); None while the head has not all come."""
    first = EMPTY_FIRST_LINE.match(data)
    if first is not None:
        return Head(first.end(), None)
    found = HEAD_END.search(data, max(0, start - 3))
    if found is None:
        return None
    end = found.end()
    lines = bytes(data[: found.start()]).split(b"\n")
    version = lines[0].rstrip(b"\r").rsplit(b" ", 1)[-1]
    lengths: list[bytes] = []
    expect: bytes | None = None
    for line in lines[1:]:
        name, colon, value = line.partition(b":")
        name = name.strip().lower()
        if not colon:
            continue
        if name == b"content-length":
            lengths.append(value.strip())
        elif name == b"transfer-encoding":
            return Head(end, None)
        elif name == b"expect":
            expect = value.strip().lower()
    if len(lengths) > 1:
        return Head(end, None)
    text = lengths[0] if lengths else b"0"
    if not (text.isdigit() and len(text) <= len(str(max_body)) and int(text) <= max_body):
        return Head(end, None)
    body = int(text)
    if expect is None:
        return Head(end, body)
    if expect == CONTINUE and version == b"HTTP/1.1":
        return Head(end, body, wants_continue=body > 0)
    return Head(end, None)
