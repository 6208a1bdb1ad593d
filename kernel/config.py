"""The engine's configuration: `engine_config.toml` read into a typed, checked object."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from kernel.search import MAX_MATE_MOVES

#: Board sizes the engine can hold at all; beyond this the padded array outgrows memory.
LARGEST_SUPPORTED_SIZE = 256


class ConfigError(Exception):
    """The configuration is unusable; the message names the key and the problem."""


@dataclass(frozen=True, slots=True)
class EngineConfig:
    """Every setting of the engine, with the defaults used when a key is absent."""

    name: str = "cubemate"
    board_size: int = 3
    max_board_size: int = 64
    max_line_bytes: int = 1 << 20
    comments: str = "line-start"
    log_dir: str = "logs"
    console_log: str = "cubemate.log"
    json_log: str = "cubemate.jsonl"
    echo_stderr: bool = False
    max_nodes: int = 5_000_000
    max_mate_moves: int = 5

    def __post_init__(self) -> None:
        check_config(self)

    @property
    def empty_cell(self) -> str:
        """Return the letter boards are written with for an empty cell.

        `#` in the default mode; `.` when `#` starts a comment anywhere, so that a board the
        engine writes can be sent back to it.
        """
        return "." if self.comments == "anywhere" else "#"


#: The TOML layout: table -> key -> the EngineConfig field it fills.
_LAYOUT: dict[str, dict[str, str]] = {
    "engine": {"name": "name", "board_size": "board_size", "max_board_size": "max_board_size"},
    "protocol": {"max_line_bytes": "max_line_bytes", "comments": "comments"},
    "log": {
        "dir": "log_dir",
        "console_file": "console_log",
        "json_file": "json_log",
        "echo_stderr": "echo_stderr",
    },
    "search": {"max_nodes": "max_nodes", "max_mate_moves": "max_mate_moves"},
}

#: The values of `protocol.comments`: where a `#` starts a comment.
COMMENT_MODES = ("line-start", "anywhere")

_FIELD_TYPES: dict[str, type] = {field.name: type(field.default) for field in fields(EngineConfig)}


def notation_length(size: int) -> int:
    """Return the length of the canonical notation of a board of this size."""
    row_count = size * size
    # n*n rows of n cells, commas between rows and layers, a bracket pair per layer.
    return row_count * size + (row_count - 1) + 2 * size


def check_config(config: EngineConfig) -> None:
    """Raise ConfigError naming the first impossible value."""
    if not config.name or any(ch.isspace() for ch in config.name):
        raise ConfigError(f"engine.name: {config.name!r} must be one word")
    if not 2 <= config.max_board_size <= LARGEST_SUPPORTED_SIZE:
        raise ConfigError(
            f"engine.max_board_size: {config.max_board_size} is outside 2 ... "
            f"{LARGEST_SUPPORTED_SIZE}"
        )
    if not 2 <= config.board_size <= config.max_board_size:
        raise ConfigError(
            f"engine.board_size: {config.board_size} is outside 2 ... {config.max_board_size}"
        )
    if config.comments not in COMMENT_MODES:
        raise ConfigError(
            f"protocol.comments: {config.comments!r} is not one of "
            + ", ".join(repr(mode) for mode in COMMENT_MODES)
        )
    if config.max_nodes < 1:
        raise ConfigError(f"search.max_nodes: {config.max_nodes} must be 1 or more")
    if not 1 <= config.max_mate_moves <= MAX_MATE_MOVES:
        raise ConfigError(
            f"search.max_mate_moves: {config.max_mate_moves} is outside 1 ... {MAX_MATE_MOVES}"
        )
    # The largest board must fit on one line, with room for the command and its size.
    needed = notation_length(config.max_board_size) + 64
    if config.max_line_bytes < needed:
        raise ConfigError(
            f"protocol.max_line_bytes: {config.max_line_bytes} is too small for boards of "
            f"size {config.max_board_size} (needs at least {needed})"
        )
    for key, value in (
        ("log.dir", config.log_dir),
        ("log.console_file", config.console_log),
        ("log.json_file", config.json_log),
    ):
        if not value:
            raise ConfigError(f"{key}: must not be empty")
    if "/" in config.console_log or "/" in config.json_log:
        raise ConfigError("log: file names must not contain '/'; set log.dir instead")


def load_config(path: Path) -> EngineConfig:
    """Read and check a config file; raise ConfigError naming the offending key."""
    try:
        with path.open("rb") as file:
            document = tomllib.load(file)
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such config file") from None
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror}") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML: {error}") from None
    except UnicodeDecodeError as error:
        raise ConfigError(f"{path}: not UTF-8 text: {error.reason} at byte {error.start}") from None
    return config_from_document(document)


def config_from_document(document: dict[str, Any]) -> EngineConfig:
    """Build a config from parsed TOML, refusing unknown keys and wrong types."""
    values: dict[str, Any] = {}
    for table, content in document.items():
        if table not in _LAYOUT:
            raise ConfigError(f"{table}: unknown table (known: {', '.join(_LAYOUT)})")
        if not isinstance(content, dict):
            raise ConfigError(f"{table}: must be a table")
        for key, value in content.items():
            field_name = _LAYOUT[table].get(key)
            if field_name is None:
                raise ConfigError(f"{table}.{key}: unknown key")
            expected = _FIELD_TYPES[field_name]
            # bool is a subclass of int, so it must be refused by hand where a number goes.
            if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
                raise ConfigError(
                    f"{table}.{key}: expected {expected.__name__}, got {type(value).__name__}"
                )
            values[field_name] = value
    return EngineConfig(**values)
