"""Who plays: a built-in baseline or an engine command line, with its limits per move.

A `PlayerSpec` is plain data (it travels pickled to Dask workers); the processes it names are
started by the table of the thread that plays (arena/table.py).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field

from arena.baselines import CHOOSERS
from arena.clock import TimeControl

#: The commands every engine player must know.
PLAYER_COMMANDS = ("genmove", "play", "new_game", "set_board")
#: How a fixed depth or node count reaches an engine: `level depth N nodes N` (issue 21).
LEVEL_COMMAND = "level"


class PlayerError(ValueError):
    """A player argument that cannot be used; the message names it."""


@dataclass(frozen=True, slots=True)
class Limits:
    """What bounds each move: a clock, a depth, a node count (any, all or none)."""

    time: TimeControl | None = None
    depth: int | None = None
    nodes: int | None = None

    def set_up_lines(self) -> list[str]:
        """The lines that set these limits on an engine, sent at the start of every game."""
        lines = [] if self.time is None else [self.time.command()]
        level = [f"{name} {value}" for name, value in self.fixed() if value is not None]
        return lines + ([f"{LEVEL_COMMAND} {' '.join(level)}"] if level else [])

    def commands(self) -> list[str]:
        """The commands these limits need the engine to know."""
        needed = [] if self.time is None else ["time_settings", "time_left"]
        return needed + ([LEVEL_COMMAND] if self.depth or self.nodes else [])

    def fixed(self) -> tuple[tuple[str, int | None], ...]:
        """The fixed depth and node count, by name."""
        return (("depth", self.depth), ("nodes", self.nodes))

    def describe(self) -> str:
        """Say the limits for people: `depth 2, 0.1 s a move`; empty when there is none."""
        parts = [] if self.time is None else [self.time.describe()]
        parts += [f"{name} {value}" for name, value in self.fixed() if value]
        return ", ".join(parts)


@dataclass(frozen=True, slots=True)
class PlayerSpec:
    """A player as the command line gave it: a baseline's name or an engine's command."""

    text: str
    builtin: str | None = None
    command: tuple[str, ...] = ()
    limits: Limits = field(default_factory=Limits)

    @property
    def label(self) -> str:
        """The name in tables and records: the argument, then its limits in parentheses."""
        limits = self.limits.describe()
        return f"{self.text} ({limits})" if limits else self.text

    def required_commands(self) -> list[str]:
        """What an engine player must know to play a game under its limits."""
        return [*PLAYER_COMMANDS, *self.limits.commands()]


def parse_player(text: str, limits: Limits) -> PlayerSpec:
    """Read a PLAYER argument: `random`, `greedy`, or an engine command line."""
    name = " ".join(text.split())
    if name in CHOOSERS:
        return PlayerSpec(name, builtin=name)
    try:
        words = shlex.split(text)
    except ValueError as error:
        raise PlayerError(f"cannot read the command {text!r}: {error}") from None
    if not words:
        raise PlayerError("an empty player command")
    return PlayerSpec(name, command=tuple(words), limits=limits)
