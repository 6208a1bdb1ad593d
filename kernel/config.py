"""The engine's configuration: `engine_config.toml` read into a typed, checked object."""

from __future__ import annotations

import os
import stat
import tomllib
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from kernel.cube.variants import VARIANTS
from kernel.mates.search import MAX_MATE_MOVES

#: The most helpmate solutions a config may allow: each is a tuple of its moves, and the
#: lines of the positions on the way are held beside them (about 100 MB at this bound).
MAX_SOLUTIONS = 100_000
#: The largest board size a config may allow. A board of size n is a padded array of
#: (n + 4)³ cells, held at 12 bytes a cell (a list of cells, an array of compact indices);
#: setting one up or writing its record holds a second for a moment. At n = 200 the engine
#: then peaks at 290 MB; at 256 it took 570 MB, more than a search may (configuration.md).
LARGEST_SUPPORTED_SIZE = 200
#: The most positions a search may be allowed (search.max_nodes, play.nodes): nine hours of
#: the compiled mate search, far more than any answer needs, and within its 64-bit counts
#: (10**20 was taken, and every search then failed on it).
MAX_NODES = 10**12
#: The longest line a config may allow: the largest board's notation (8 MB at n = 200) with
#: room for white space; a line is held a few times over while it is read and split.
MAX_LINE_BYTES = 1 << 24
#: The largest config file read: the shipped one is under 3 kB; anything near this is no
#: config, and /dev/zero would otherwise be read until memory ran out.
MAX_CONFIG_BYTES = 1 << 20
#: The largest resign threshold: a mate's score; a larger one would resign no sooner.
MAX_RESIGN_CP = 1_000_000


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
    #: How legal_moves and genmove write moves: "long" (Kc1(I)-c2(II)) or "short" (Kc2(II)).
    notation: str = "long"
    log_dir: str = "logs"
    console_log: str = "cubemate.log"
    json_log: str = "cubemate.jsonl"
    echo_stderr: bool = False
    max_nodes: int = 5_000_000
    max_mate_moves: int = 5
    compiled: bool = True
    max_solutions: int = 1000
    #: genmove's prunings (kernel/play/alphabeta.py, Pruning): off until an SPRT keeps them.
    null_move: bool = False
    late_move_reductions: bool = False
    futility: bool = False
    aspiration: bool = False
    counter_moves: bool = False
    history_malus: bool = False
    play_depth: int = 0
    play_nodes: int = 0
    move_time: float = 1.0
    resign_cp: int = 0
    hash_mb: int = 64
    #: genmove's table kept from one timed search to the next (kernel/play/player.py):
    #: off until an SPRT keeps it.
    keep_table: bool = False
    thinking: str = "terminal"
    eval_queen: float = 1.0
    eval_rook: float = 1.0
    eval_bishop: float = 1.0
    eval_knight: float = 1.0
    eval_unicorn: float = 1.0
    eval_pawn: float = 1.0
    eval_placement: int = 16
    eval_raumschach_placement: int = 8
    eval_exposure: int = 12
    eval_king_reach: int = 6
    eval_cornering: int = 10
    eval_drawish: int = 8
    eval_mating_pieces: int = 1000
    eval_contempt: int = 300
    eval_pawn_advance: int = 20
    eval_pawn_near: int = 150
    eval_pawn_passed: int = 0
    #: The folder of the endgame tables (docs/tablebases.md); empty: none.
    tablebase_path: str = ""
    #: The rules played at start (kernel.cube.variants): "cube" or "raumschach".
    variant: str = "cube"

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
    "rules": {"variant": "variant"},
    "protocol": {
        "max_line_bytes": "max_line_bytes",
        "comments": "comments",
        "notation": "notation",
    },
    "log": {
        "dir": "log_dir",
        "console_file": "console_log",
        "json_file": "json_log",
        "echo_stderr": "echo_stderr",
    },
    "search": {
        "max_nodes": "max_nodes",
        "max_mate_moves": "max_mate_moves",
        "compiled": "compiled",
        "max_solutions": "max_solutions",
        "null_move": "null_move",
        "late_move_reductions": "late_move_reductions",
        "futility": "futility",
        "aspiration": "aspiration",
        "counter_moves": "counter_moves",
        "history_malus": "history_malus",
    },
    "play": {
        "depth": "play_depth",
        "nodes": "play_nodes",
        "move_time": "move_time",
        "resign_cp": "resign_cp",
        "hash_mb": "hash_mb",
        "keep_table": "keep_table",
        "thinking": "thinking",
    },
    "evaluation": {
        "queen": "eval_queen",
        "rook": "eval_rook",
        "bishop": "eval_bishop",
        "knight": "eval_knight",
        "unicorn": "eval_unicorn",
        "pawn": "eval_pawn",
        "placement": "eval_placement",
        "raumschach_placement": "eval_raumschach_placement",
        "exposure": "eval_exposure",
        "king_reach": "eval_king_reach",
        "cornering": "eval_cornering",
        "drawish": "eval_drawish",
        "mating_pieces": "eval_mating_pieces",
        "contempt": "eval_contempt",
        "pawn_advance": "eval_pawn_advance",
        "pawn_near": "eval_pawn_near",
        "pawn_passed": "eval_pawn_passed",
    },
    "tablebase": {"path": "tablebase_path"},
}

#: The values of `play.thinking`: where genmove's thinking lines go.
THINKING_MODES = ("terminal", "always", "never")
#: The longest fixed search depth and the most a move may be given, in the config and `level`.
MAX_PLAY_DEPTH = 64
MAX_MOVE_TIME = 86_400.0
#: The largest transposition table, in megabytes.
MAX_HASH_MB = 4096
#: The largest centipawn weight of an evaluation term.
MAX_EVAL_WEIGHT = 1000
#: The largest divisor of a score whose side cannot mate (evaluation.drawish).
MAX_DRAWISH = 100
#: The most pieces besides the king that evaluation.mating_pieces may ask for (more than
#: any army holds: none mates without a queen).
MAX_MATING_PIECES = 1000

#: The values of `protocol.comments`: where a `#` starts a comment.
COMMENT_MODES = ("line-start", "anywhere")
#: The values of `protocol.notation`: how legal_moves and genmove write moves.
NOTATIONS = ("long", "short")

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
    if config.variant not in VARIANTS:
        raise ConfigError(
            f"rules.variant: {config.variant!r} is not one of "
            + ", ".join(repr(name) for name in VARIANTS)
        )
    if config.comments not in COMMENT_MODES:
        raise ConfigError(
            f"protocol.comments: {config.comments!r} is not one of "
            + ", ".join(repr(mode) for mode in COMMENT_MODES)
        )
    if config.notation not in NOTATIONS:
        raise ConfigError(
            f"protocol.notation: {config.notation!r} is not one of "
            + ", ".join(repr(mode) for mode in NOTATIONS)
        )
    if not 1 <= config.max_nodes <= MAX_NODES:
        raise ConfigError(f"search.max_nodes: {config.max_nodes} is outside 1 ... {MAX_NODES}")
    if not 1 <= config.max_mate_moves <= MAX_MATE_MOVES:
        raise ConfigError(
            f"search.max_mate_moves: {config.max_mate_moves} is outside 1 ... {MAX_MATE_MOVES}"
        )
    if not 1 <= config.max_solutions <= MAX_SOLUTIONS:
        raise ConfigError(
            f"search.max_solutions: {config.max_solutions} is outside 1 ... {MAX_SOLUTIONS:,}"
        )
    check_play(config)
    # The largest board must fit on one line, with room for the command and its size.
    needed = notation_length(config.max_board_size) + 64
    if config.max_line_bytes > MAX_LINE_BYTES:
        raise ConfigError(
            f"protocol.max_line_bytes: {config.max_line_bytes} is more than {MAX_LINE_BYTES}"
        )
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


def check_play(config: EngineConfig) -> None:
    """Raise ConfigError naming the first impossible value of the [play] table."""
    if not 0 <= config.play_depth <= MAX_PLAY_DEPTH:
        raise ConfigError(f"play.depth: {config.play_depth} is outside 0 ... {MAX_PLAY_DEPTH}")
    if not 0 <= config.play_nodes <= MAX_NODES:
        raise ConfigError(
            f"play.nodes: {config.play_nodes} is outside 0 (no limit) ... {MAX_NODES}"
        )
    if not 0 <= config.move_time <= MAX_MOVE_TIME:  # also false for NaN
        raise ConfigError(f"play.move_time: {config.move_time} is outside 0 ... {MAX_MOVE_TIME:g}")
    if not 0 <= config.resign_cp <= MAX_RESIGN_CP:
        raise ConfigError(
            f"play.resign_cp: {config.resign_cp} is outside 0 (never) ... {MAX_RESIGN_CP}"
        )
    if not 1 <= config.hash_mb <= MAX_HASH_MB:
        raise ConfigError(f"play.hash_mb: {config.hash_mb} is outside 1 ... {MAX_HASH_MB}")
    for name in ("queen", "rook", "bishop", "knight", "unicorn", "pawn"):
        factor = getattr(config, f"eval_{name}")
        if not 0.1 <= factor <= 10.0:  # also false for NaN
            raise ConfigError(f"evaluation.{name}: {factor} is outside 0.1 ... 10")
    for name in (
        "placement",
        "raumschach_placement",
        "exposure",
        "king_reach",
        "cornering",
        "contempt",
        "pawn_advance",
        "pawn_near",
        "pawn_passed",
    ):
        weight = getattr(config, f"eval_{name}")
        if not 0 <= weight <= MAX_EVAL_WEIGHT:
            raise ConfigError(f"evaluation.{name}: {weight} is outside 0 ... {MAX_EVAL_WEIGHT}")
    if not 1 <= config.eval_drawish <= MAX_DRAWISH:
        raise ConfigError(
            f"evaluation.drawish: {config.eval_drawish} is outside 1 (never) ... {MAX_DRAWISH}"
        )
    if not 0 <= config.eval_mating_pieces <= MAX_MATING_PIECES:
        raise ConfigError(
            f"evaluation.mating_pieces: {config.eval_mating_pieces} is outside 0 ... "
            f"{MAX_MATING_PIECES}"
        )
    if config.thinking not in THINKING_MODES:
        raise ConfigError(
            f"play.thinking: {config.thinking!r} is not one of "
            + ", ".join(repr(mode) for mode in THINKING_MODES)
        )


def load_config(path: Path) -> EngineConfig:
    """Read and check a config file; raise ConfigError naming the offending key."""
    data = read_config_file(path)
    try:
        document = tomllib.loads(data.decode("utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML: {error}") from None
    except UnicodeDecodeError as error:
        raise ConfigError(f"{path}: not UTF-8 text: {error.reason} at byte {error.start}") from None
    return config_from_document(document)


def read_config_file(path: Path) -> bytes:
    """Read a config file's bytes, refusing what is not a regular file of bounded size.

    Opened without blocking and without taking a terminal, as loadgame opens a record: a
    FIFO's open would otherwise wait for a writer for ever, and a device such as /dev/zero
    would be read until memory ran out. What is checked is the descriptor opened, so a path
    swapped for something else between a look and the open changes nothing.
    """
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such config file") from None
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror or error}") from None
    try:
        status = os.fstat(descriptor)
        if not stat.S_ISREG(status.st_mode):
            kind = "a directory" if stat.S_ISDIR(status.st_mode) else "not a regular file"
            raise ConfigError(f"{path}: {kind}; a config must be a TOML file")
        if status.st_size > MAX_CONFIG_BYTES:
            raise ConfigError(
                f"{path}: too large for a config ({status.st_size} bytes; the most is "
                f"{MAX_CONFIG_BYTES})"
            )
        parts: list[bytes] = []
        left = MAX_CONFIG_BYTES + 1  # a file that grows while read is bounded all the same
        while left > 0:
            part = os.read(descriptor, left)
            if not part:
                break
            parts.append(part)
            left -= len(part)
    except OSError as error:
        raise ConfigError(f"{path}: cannot read: {error.strerror or error}") from None
    finally:
        os.close(descriptor)
    if left <= 0:
        raise ConfigError(f"{path}: too large for a config (the most is {MAX_CONFIG_BYTES} bytes)")
    return b"".join(parts)


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
            if expected is float and isinstance(value, int) and not isinstance(value, bool):
                value = float(value)  # `move_time = 2` means two seconds too
            # bool is a subclass of int, so it must be refused by hand where a number goes.
            if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
                raise ConfigError(
                    f"{table}.{key}: expected {expected.__name__}, got {type(value).__name__}"
                )
            values[field_name] = value
    return EngineConfig(**values)
