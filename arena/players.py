"""Who plays: a built-in baseline or an engine command line, with its limits per move and
how the arena speaks to it.

A `PlayerSpec` is plain data (it travels pickled to Dask workers); the processes it names are
started by the table of the thread that plays (arena/table.py). A player is written as
`random`, `greedy`, an engine command line, or in the cutechess way as `key=value` words
(`cmd=./engine arg=--fast name=Mine st=0.1`), all of one player's options in one place.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from arena.baselines import CHOOSERS
from arena.clock import TimeControl

#: The commands every engine player must know, whatever the match.
PLAYER_COMMANDS = ("genmove", "play")
#: How a fixed depth or node count (and a time a move, for an engine without GTP's clocks)
#: reaches an engine: `level depth N nodes N time S` (issue 21).
LEVEL_COMMAND = "level"
#: GTP's clock commands.
CLOCK_COMMANDS = ("time_settings", "time_left")
#: The keys of a player written as `key=value` words.
SPEC_KEYS = ("cmd", "arg", "name", "dir", "ids", "start", "logs", "depth", "nodes", "st")
SWITCHES = {"on": True, "off": False}

Knows = Callable[[str], bool]


class PlayerError(ValueError):
    """A player argument that cannot be used; the message names it."""


@dataclass(frozen=True, slots=True)
class Limits:
    """What bounds each move: a clock, a depth, a node count (any, all or none)."""

    time: TimeControl | None = None
    depth: int | None = None
    nodes: int | None = None

    def uses_clock(self, knows: Knows) -> bool:
        """Whether the time control goes by GTP's clock commands: always, but for a time a
        move to an engine that lacks them and knows `level` (then `level time S`)."""
        if self.time is None:
            return False
        if self.time.per_move is None:
            return True
        return all(knows(name) for name in CLOCK_COMMANDS) or not knows(LEVEL_COMMAND)

    def set_up_lines(self, knows: Knows) -> list[str]:
        """The lines that set these limits on an engine, sent at the start of every game."""
        lines: list[str] = []
        level = [f"{name} {value}" for name, value in self.fixed() if value is not None]
        if self.time is not None:
            if self.uses_clock(knows):
                lines.append(self.time.command())
            else:
                level.append(f"time {self.time.per_move:g}")
        return lines + ([f"{LEVEL_COMMAND} {' '.join(level)}"] if level else [])

    def missing(self, knows: Knows) -> list[str]:
        """The commands these limits need that the engine does not know, as people say it."""
        absent = []
        if self.time is not None and not all(knows(name) for name in CLOCK_COMMANDS):
            if self.time.per_move is None:
                absent.append(" and ".join(CLOCK_COMMANDS))
            elif not knows(LEVEL_COMMAND):
                absent.append(f"{' and '.join(CLOCK_COMMANDS)}, or {LEVEL_COMMAND}")
        if (self.depth or self.nodes) and not knows(LEVEL_COMMAND):
            absent.append(LEVEL_COMMAND)
        return absent

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
    """A player as the command line gave it: a baseline's name or an engine's command, and
    how to speak to the engine (None: as the match's options say)."""

    text: str
    builtin: str | None = None
    command: tuple[str, ...] = ()
    limits: Limits = field(default_factory=Limits)
    name: str | None = None
    cwd: str | None = None
    ids: bool | None = None
    #: Always set the start with `set_board`, never `new_game`.
    set_board: bool = False
    #: Pass cubemate's `--log-dir` (None: when the command runs cubemate's main.py).
    cubemate_logs: bool | None = None

    @property
    def label(self) -> str:
        """The name in tables and records: the argument, then its limits in parentheses."""
        limits = self.limits.describe()
        name = self.name or self.text
        return f"{name} ({limits})" if limits else name

    def missing(self, knows: Knows, file_openings: bool) -> list[str]:
        """What an engine player lacks to play a game under its limits, as people say it."""
        absent = [name for name in PLAYER_COMMANDS if not knows(name)]
        if self.set_board or file_openings:
            absent += [] if knows("set_board") else ["set_board"]
        elif not knows("new_game") and not knows("set_board"):
            absent.append("new_game or set_board")
        return absent + self.limits.missing(knows)


def runs_cubemate(command: tuple[str, ...], cwd: str | None) -> bool:
    """Whether a command runs a cubemate checkout's main.py (which takes `--log-dir`)."""
    for word in command[:3]:
        path = Path(cwd or ".", word)
        if path.name == "main.py" and (path.parent / "kernel" / "record.py").is_file():
            return True
    return False


def parse_player(text: str, limits: Limits) -> PlayerSpec:
    """Read a PLAYER argument: `random`, `greedy`, `key=value` words, or a command line."""
    name = " ".join(text.split())
    if name in CHOOSERS:
        return PlayerSpec(name, builtin=name)
    try:
        words = shlex.split(text)
    except ValueError as error:
        raise PlayerError(f"cannot read the command {text!r}: {error}") from None
    if not words:
        raise PlayerError("an empty player command")
    if words[0].startswith("cmd="):
        return parse_spec(words, limits)
    return PlayerSpec(name, command=tuple(words), limits=limits)


def switch(key: str, value: str) -> bool:
    if value not in SWITCHES:
        raise PlayerError(f"{key}= takes on or off, not {value!r}")
    return SWITCHES[value]


def whole(key: str, value: str) -> int:
    if not value.isdigit() or int(value) < 1:
        raise PlayerError(f"{key}= takes a whole number, 1 or more, not {value!r}")
    return int(value)


def parse_spec(words: list[str], limits: Limits) -> PlayerSpec:
    """Read `cmd=COMMAND [arg=WORD]... [name=NAME] [dir=FOLDER] [ids=on|off]
    [start=new_game|set_board] [logs=on|off] [depth=N] [nodes=N] [st=SECONDS]`; a limit
    given here takes the place of the options' for this player."""
    values: dict[str, str] = {}
    arguments: list[str] = []
    for word in words:
        key, equals, value = word.partition("=")
        if not equals or key not in SPEC_KEYS:
            raise PlayerError(f"{word!r} is not one of {', '.join(k + '=' for k in SPEC_KEYS)}")
        if key == "arg":
            arguments.append(value)
        elif key in values:
            raise PlayerError(f"{key}= given twice")
        else:
            values[key] = value
    try:
        command = shlex.split(values["cmd"])
    except ValueError as error:
        raise PlayerError(f"cannot read cmd={values['cmd']!r}: {error}") from None
    if not command:
        raise PlayerError("cmd= is empty")
    if values.get("start", "new_game") not in ("new_game", "set_board"):
        raise PlayerError(f"start= takes new_game or set_board, not {values['start']!r}")
    if "depth" in values:
        limits = replace(limits, depth=whole("depth", values["depth"]))
    if "nodes" in values:
        limits = replace(limits, nodes=whole("nodes", values["nodes"]))
    if "st" in values:
        try:
            seconds = float(values["st"])
            limits = replace(limits, time=TimeControl(0, seconds, 1))
            if not 0 < seconds < 1e6:
                raise ValueError
        except ValueError:
            raise PlayerError(f"st= takes seconds, more than 0, not {values['st']!r}") from None
    full = (*command, *arguments)
    return PlayerSpec(
        shlex.join(full) if arguments else values["cmd"],
        command=full,
        limits=limits,
        name=values.get("name") or None,
        cwd=values.get("dir") or None,
        ids=switch("ids", values["ids"]) if "ids" in values else None,
        set_board=values.get("start") == "set_board",
        cubemate_logs=switch("logs", values["logs"]) if "logs" in values else None,
    )
