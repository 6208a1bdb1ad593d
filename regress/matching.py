"""Expected answers matched within a time bound, in a child process that can be killed.

A suite's `#? [REGEX]` is matched against a whole answer, and some patterns take time
exponential in the answer's length (`(.|\\n|.)*x` on a long answer: the runner ran past 30 s,
issue 49). Python's `re` has no timeout and holds the GIL while it matches, so no thread can
stop it; refusing such patterns by their look would miss some and refuse good ones; cutting
the answer short would change what is tested. So every match runs in one child process, kept
for the whole run (a round trip through its pipes costs about 0.1 ms): a match that has not
answered within `seconds` is a `MatchTimeout`, the child is killed and the next match starts
a fresh one.

Run as a script (`python regress/matching.py`), this file is the child: it imports nothing
of the project, so that it starts as fast as Python does.
"""

from __future__ import annotations

import contextlib
import os
import re
import select
import signal
import struct
import subprocess
import sys
from types import TracebackType
from typing import BinaryIO

#: Seconds one match may take before it is given up (`python -m regress --match-timeout`).
MATCH_SECONDS = 5.0
#: A request: the pattern's and the answer's lengths in bytes, then both (UTF-8).
HEADER = struct.Struct(">II")
#: linux/prctl.h: the signal a process gets when its parent ends.
PR_SET_PDEATHSIG = 1
#: The child's reply: the pattern matched, did not match, or could not be used.
MATCHED, UNMATCHED, BROKEN = b"1", b"0", b"e"


def pattern_matches(pattern: str, text: str) -> bool:
    """Whether a test's expected answer accepts a response's text: the whole text matches
    the REGEX (`.` matching line ends too), or, for `!REGEX`, it does not."""
    negated = pattern.startswith("!")
    regex = pattern[1:] if negated else pattern
    found = re.fullmatch(regex, text, re.MULTILINE | re.DOTALL) is not None
    return found != negated


class MatchFailed(Exception):
    """A pattern could not be matched: the message says why."""


class MatchTimeout(MatchFailed):
    """A pattern did not finish matching within the time bound."""


class Matcher:
    """Matches run in a child process, each within `seconds`."""

    def __init__(self, seconds: float = MATCH_SECONDS) -> None:
        if not seconds > 0:
            raise ValueError(f"a match time bound of {seconds} s")
        self.seconds = seconds
        self._child: subprocess.Popen[bytes] | None = None

    def matches(self, pattern: str, text: str) -> bool:
        """Whether `pattern` accepts `text` (as `pattern_matches` says); raise MatchTimeout
        when it takes longer than the bound."""
        pattern_bytes = pattern.encode("utf-8", errors="surrogatepass")
        text_bytes = text.encode("utf-8", errors="surrogatepass")
        request = HEADER.pack(len(pattern_bytes), len(text_bytes)) + pattern_bytes + text_bytes
        for _ in range(2):
            child = self._start()
            assert child.stdin is not None and child.stdout is not None
            try:
                child.stdin.write(request)
                child.stdin.flush()
            except OSError:
                self.close()  # it died since its last match: once more, on a fresh one
                continue
            ready, _, _ = select.select([child.stdout], [], [], self.seconds)
            if not ready:
                self.close()
                raise MatchTimeout(f"did not finish matching within {self.seconds:g} s")
            reply = os.read(child.stdout.fileno(), 1)
            if reply in (MATCHED, UNMATCHED):
                return reply == MATCHED
            self.close()
            if reply == BROKEN:
                raise MatchFailed("could not be matched (nested too deep, or out of memory)")
        raise MatchFailed("could not be matched: the matching process died")

    def _start(self) -> subprocess.Popen[bytes]:
        if self._child is None or self._child.poll() is not None:
            self._child = subprocess.Popen(
                [sys.executable, os.path.abspath(__file__), str(os.getpid())],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                start_new_session=True,  # Ctrl-C reaches the runner, which ends it
            )
        return self._child

    def close(self) -> None:
        """Kill the child, if any (the next match starts another)."""
        child, self._child = self._child, None
        if child is None:
            return
        child.kill()
        child.wait()
        for stream in (child.stdin, child.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()

    def __enter__(self) -> Matcher:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def read_exactly(stream: BinaryIO, size: int) -> bytes | None:
    """`size` bytes from a binary stream; None at its end."""
    data = stream.read(size)
    return data if len(data) == size else None


def die_with(parent: int) -> None:
    """Be killed when the runner ends, however it ends: mid-match this child reads no input,
    so the end of it cannot tell it (Linux's PR_SET_PDEATHSIG; elsewhere, only the end of
    its input does)."""
    with contextlib.suppress(OSError, AttributeError):
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:
        sys.exit(0)  # it ended before that was set


def serve() -> None:
    """The child: answer each request on stdin with one byte on stdout, until the end."""
    source, sink = sys.stdin.buffer, sys.stdout.buffer
    while (header := read_exactly(source, HEADER.size)) is not None:
        pattern_size, text_size = HEADER.unpack(header)
        pattern = read_exactly(source, pattern_size)
        text = read_exactly(source, text_size)
        if pattern is None or text is None:
            return
        try:
            found = pattern_matches(
                pattern.decode("utf-8", errors="surrogatepass"),
                text.decode("utf-8", errors="surrogatepass"),
            )
            reply = MATCHED if found else UNMATCHED
        except (re.error, RecursionError, MemoryError, UnicodeDecodeError):
            reply = BROKEN
        sink.write(reply)
        sink.flush()


if __name__ == "__main__":
    die_with(int(sys.argv[1]))
    with contextlib.suppress(BrokenPipeError, KeyboardInterrupt):
        serve()
