"""Refusals that help a person: a near command name, and a board pasted over several lines."""

from __future__ import annotations

from collections.abc import Collection

from kernel.protocol import shorten

#: The answer to the first line of a board pasted over several lines.
BOARD_ROW_HINT = "unknown command: a board goes on one line after set_board"
#: The answer to each further line of the same paste: the hint was given once already.
BOARD_ROW_AGAIN = "unknown command: another line of the board"

#: What board notation is written with, besides the piece letters: no command name holds any.
_NOTATION_MARKS = frozenset("#.[],\"'")
_NOTATION = frozenset("KQRBNkqrbn") | _NOTATION_MARKS


def looks_like_board_row(word: str) -> bool:
    """Tell whether a line's first word is a piece of board notation, not a command."""
    # Cells, brackets, commas and quotes only, with at least one mark that no command name
    # holds, so that a word of piece letters alone (`kn`) still counts as a mistyped command.
    # A lone `#` or `]` is too short to tell: no board has rows of one cell.
    letters = set(word)
    return len(word) > 1 and letters <= _NOTATION and not letters.isdisjoint(_NOTATION_MARKS)


def unknown_command(name: str, known: Collection[str]) -> str:
    """Refuse a command name, suggesting the known one it is closest to, if any is close."""
    lowered = name.lower()
    if lowered in known:
        suggestion: str | None = lowered
    else:
        from difflib import get_close_matches  # only a mistyped name needs it: start faster

        matches = get_close_matches(lowered, known, n=1, cutoff=0.75)
        suggestion = matches[0] if matches else None
    if suggestion is None:
        return f"unknown command {shorten(name)}"
    return f"unknown command {shorten(name)} (did you mean {suggestion}?)"
