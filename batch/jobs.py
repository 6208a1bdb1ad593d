"""What a batch works on and what it writes: one position in, one record out."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: An id as the input gives it: a whole number or a string.
Id = int | str


class BatchError(Exception):
    """Bad options, input or output file; the message is shown as it is, exit code 2."""


@dataclass(frozen=True, slots=True)
class Job:
    """One position to examine: its id, its board text and the side to move (w or b)."""

    id: Id
    board: str
    side: str


@dataclass(frozen=True, slots=True)
class Outcome:
    """What the engine said about one position; `failed` is set when no engine survived it."""

    id: Id
    board: str
    side: str
    answers: dict[str, str] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    failed: str | None = None
    #: The filter ruled it out before every command was asked; never written.
    rejected: bool = False
    #: The rules it was read by (`--variant`); None: the engine's own, and none written.
    variant: str | None = None

    def record(self) -> dict[str, Any]:
        """Return the JSON object written for this position."""
        data: dict[str, Any] = {
            "id": self.id,
            "board": self.board,
            "side": self.side,
            **({"variant": self.variant} if self.variant is not None else {}),
            "answers": self.answers,
            "errors": self.errors,
        }
        if self.failed is not None:
            data["failed"] = self.failed
        return data
