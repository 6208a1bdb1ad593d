"""Game records the page posts: written to a private file for `loadgame`, read back for moves.

The page never names a file on the server: it posts a record's text, the server writes it to
a fresh file in a temporary folder of its own, the engine reads that (`loadgame`, which checks
every line and move and changes nothing when it refuses), and the file goes at once. The
engine's refusals name the file they read; the page's user knows it by their own file name,
so that is the name the answer shows.
"""

from __future__ import annotations

import contextlib
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

#: A move line of a record, as printgame writes it: `3. m m`, or `1... m` with black first.
MOVE_LINE = re.compile(r"[0-9]+\.(?:\.\.)?[ \t]+(.*)")
#: The longest file name the engine quotes whole in a refusal (kernel/records/replay.py).
QUOTED_NAME_CHARS = 60


class RecordFolderError(OSError):
    """No private file could be written for a record."""


class RecordFolder:
    """Fresh files, one record each, in temporary folders that are removed after use."""

    @contextlib.contextmanager
    def holding(self, text: str) -> Iterator[Path]:
        """Write ``text`` to a new file for the time of the ``with`` block; yield its path."""
        folder = Path(tempfile.mkdtemp(prefix="cubemate-gui-record-"))
        try:
            path = folder / "record.txt"
            if any(char.isspace() for char in str(path)):
                # loadgame takes its file name as one word.
                raise RecordFolderError(
                    f"the temporary folder {str(folder)!r} has white space in its path; "
                    "set TMPDIR to another folder"
                )
            path.write_text(text, encoding="utf-8", newline="")
            yield path
        finally:
            shutil.rmtree(folder, ignore_errors=True)


def quoted_file(path: str) -> str:
    """Quote a file name as the engine's refusals do (a long one loses its start)."""
    if len(path) > QUOTED_NAME_CHARS:
        path = "..." + path[3 - QUOTED_NAME_CHARS :]
    return repr(path)


def rename_record(raw: str, path: str, name: str) -> str:
    """Put the user's file name where the engine's refusal names the private file."""
    return raw.replace(quoted_file(path), repr(name))


def record_moves(record: str) -> tuple[str, ...]:
    """The moves of a record as printgame writes it, in order."""
    moves: list[str] = []
    for line in record.splitlines():
        match = MOVE_LINE.fullmatch(line.strip())
        if match is not None:
            moves.extend(match.group(1).split())
    return tuple(moves)
