"""An engine's output cut into whole responses, in time linear in its length, bounded in size.

Bytes come in as they are read (`feed`) and leave as whole responses (`response`), each up
to the empty line that ends it. Every byte is searched once, whatever the chunks: a search
goes on from where the last one stopped (less the few bytes an end may straddle), and what
is taken leaves the buffer from its front, which a bytearray does without copying the rest.
Reading a response of n bytes so costs O(n); appending to bytes and searching the whole
buffer again at every chunk cost O(n²) (16 MB took 14 s, issue 49).

No response may be longer than `limit` bytes (MAX_ANSWER_BYTES unless told): more is
`AnswerTooLong` as soon as that much has come without an end, so that memory stays bounded
whatever an engine writes. So is a line skipped before the first answer (a banner). A client
holding a response of the limit's size holds it about four times at worst (the bytes read,
then the text decoded and cut into mark and text), so a 64 MiB answer may cost 256 MiB.
"""

from __future__ import annotations

import re

#: The longest response a client reads, in bytes (docs/robustness.md, issue 49). cubemate's
#: largest answers are far below it: `legal_moves` of 3,000 pieces on a 64³ board is 12 MB.
MAX_ANSWER_BYTES = 64 << 20
#: The empty line that ends a response (a CR before a line end is tolerated), and how many
#: bytes of it may have come before the chunk that completes it.
END = re.compile(rb"\r?\n\r?\n")
END_OVERLAP = 3
#: Stray line ends before a response, which carry nothing.
BLANK = re.compile(rb"[\r\n]*")
#: How much of an unasked answer a message quotes.
UNASKED_QUOTED = 80


class AnswerTooLong(Exception):
    """More than the limit came without the end of a response (or of a banner line)."""

    def __init__(self, limit: int, what: str = "an answer") -> None:
        super().__init__(f"{what} longer than {limit:,} bytes")
        self.limit = limit


class Answers:
    """The bytes read from an engine's output and not yet taken as responses."""

    def __init__(self, limit: int = MAX_ANSWER_BYTES) -> None:
        if limit < 1:
            raise ValueError(f"an answer limit of {limit} bytes")
        self.limit = limit
        self._buffer = bytearray()
        #: No end lies wholly before this offset of the buffer: the search goes on from here.
        self._scanned = 0

    def __len__(self) -> int:
        return len(self._buffer)

    def clear(self) -> None:
        """Forget everything (a new process)."""
        self._buffer = bytearray()
        self._scanned = 0

    def feed(self, chunk: bytes) -> None:
        """Add bytes just read."""
        self._buffer += chunk

    def _take(self, upto: int, after: int) -> bytes:
        """Remove and return the buffer up to `upto`, dropping it up to `after`."""
        with memoryview(self._buffer) as view, view[:upto] as part:
            taken = bytes(part)  # one copy (a bytearray's slice is one more)
        del self._buffer[:after]  # from the front: CPython moves a start, not the rest
        self._scanned = 0
        return taken

    def _skip_blank(self) -> None:
        found = BLANK.match(self._buffer)
        skipped = 0 if found is None else found.end()
        if skipped:
            del self._buffer[:skipped]
            self._scanned = 0

    def unasked(self) -> bytes:
        """The start of what is here beyond stray line ends, for a message; empty when
        nothing is: an engine that wrote more is out of step (it answered one line twice)."""
        self._skip_blank()
        return bytes(self._buffer[:UNASKED_QUOTED])

    def response(self) -> bytes | None:
        """The next whole response, without its empty line; None until it has all come.
        Raise AnswerTooLong when it is (or will be) longer than the limit."""
        self._skip_blank()
        end = END.search(self._buffer, max(0, self._scanned - END_OVERLAP))
        if end is None:
            self._scanned = len(self._buffer)
            if len(self._buffer) > self.limit:
                raise AnswerTooLong(self.limit)
            return None
        if end.start() > self.limit:
            raise AnswerTooLong(self.limit)
        return self._take(end.start(), end.end())

    def banner_line(self) -> bytes | None:
        """The next whole line when it cannot be an answer (it starts with neither `=` nor
        `?`), taken; None when the next line may be an answer or has not all come. Raise
        AnswerTooLong when it is longer than the limit."""
        self._skip_blank()
        if bytes(self._buffer[:1]) in (b"", b"=", b"?"):
            return None
        newline = self._buffer.find(b"\n", max(0, self._scanned - END_OVERLAP))
        if newline < 0:
            self._scanned = len(self._buffer)
            if len(self._buffer) > self.limit:
                raise AnswerTooLong(self.limit, "a line before the first answer")
            return None
        if newline > self.limit:
            raise AnswerTooLong(self.limit, "a line before the first answer")
        return self._take(newline, newline + 1).rstrip(b"\r")
