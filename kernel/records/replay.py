"""Games to records and back: what `printgame` writes and `loadgame` replays.

A record file is read whole, but never more than `MAX_RECORD_BYTES`, and only a regular file
of UTF-8 text; its moves are replayed on a game of their own, so a record refused half-way
leaves the engine's game as it was.
"""

from __future__ import annotations

import os
import stat
from datetime import UTC, datetime

from kernel.config import EngineConfig
from kernel.cube.board import SIDE_NAMES
from kernel.cube.game import UNDECIDED, Game, Outcome
from kernel.cube.position import BLACK, Position
from kernel.cube.rules import Analysis, InvalidPosition, check_position, is_game_position
from kernel.cube.variants import CUBE, UnknownVariant, variant_named
from kernel.interrupt import stop_read_if_asked
from kernel.records.record import GameRecord, RecordError, format_record, parse_block, record_blocks
from kernel.text.move_reading import IllegalMove, read_move
from kernel.text.notation import (
    SIDE_WORDS,
    NotationError,
    check_variant_letters,
    format_board,
    get_cell_name_from_point,
    get_move_name,
    parse_board,
)

#: The largest record file read: about 40,000 moves of a 64-cube, and far more on small boards.
MAX_RECORD_BYTES = 16 << 20


#: The longest file name quoted whole in a refusal.
MAX_NAME_CHARS = 60


class ReplayError(ValueError):
    """A record file that cannot be replayed; the message names the file, place and reason."""


def file_name(path: str) -> str:
    """Quote a file's name in a refusal; a long one loses its start, never the file's own name."""
    if len(path) > MAX_NAME_CHARS:
        path = "..." + path[3 - MAX_NAME_CHARS :]
    return repr(path)


def game_record(
    game: Game, outcome: Outcome | None, empty: str, short: bool = False, **extra: str
) -> str:
    """Write the record of a game: its start, its result so far and its moves, long or short
    (docs/rules.md, "Short notation"); `extra` headers go after the game's own."""
    start = game.start_position()
    board = format_board(start, empty)
    side = "b" if start.side == BLACK else "w"
    if short:
        from kernel.text.short_notation import game_short_names

        moves = game_short_names(start, game.moves)
    else:
        moves = [get_move_name(start, move) for move in game.moves]  # names need the size only
    # A game read from a record keeps that record's headers, its date among them.
    headers = {"Date": datetime.now(UTC).date().isoformat(), **game.headers, **extra}
    if start.variant is not CUBE:  # a cube game's record names no variant, as before
        headers["Variant"] = start.variant.name
    record = GameRecord(
        start.size,
        f"{board} {side}",
        UNDECIDED if outcome is None else str(outcome),
        moves,
        headers,
    )
    return format_record(record)


def read_record_file(path: str) -> str:
    """Read a record file as text, refusing what is not a regular UTF-8 file of bounded size.

    The path is looked at first, so that a folder or a device is refused by name without being
    opened; but what it names may change before the open (a file swapped for a FIFO, whose
    open would wait for a writer for ever). So it is opened without blocking, and the
    descriptor opened is what is checked and read.
    """
    name = file_name(path)
    try:
        check_record_file(name, os.stat(path))
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
        try:
            check_record_file(name, os.fstat(descriptor))
            data = read_at_most(descriptor, MAX_RECORD_BYTES + 1)
        finally:
            os.close(descriptor)
    except OSError as error:
        raise ReplayError(f"cannot read {name}: {error.strerror or error}") from None
    if len(data) > MAX_RECORD_BYTES:
        raise ReplayError(f"{name} is too large (the most is {MAX_RECORD_BYTES} bytes)")
    if b"\0" in data:
        raise ReplayError(f"{name} is not a text file (a NUL byte at offset {data.index(0)})")
    try:
        # A byte-order mark, as some editors write one, is no part of the record.
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ReplayError(
            f"{name} is not a text file (not UTF-8 at byte offset {error.start})"
        ) from None


def check_record_file(name: str, status: os.stat_result) -> None:
    """Refuse what is not a regular file of at most MAX_RECORD_BYTES."""
    if not stat.S_ISREG(status.st_mode):
        kind = "a directory" if stat.S_ISDIR(status.st_mode) else "not a regular file"
        raise ReplayError(f"{name} is {kind}")
    if status.st_size > MAX_RECORD_BYTES:
        raise ReplayError(
            f"{name} is too large ({status.st_size} bytes; the most is {MAX_RECORD_BYTES})"
        )


def read_at_most(descriptor: int, most: int) -> bytes:
    """Read a descriptor to its end, but never more than `most` bytes."""
    parts: list[bytes] = []
    left = most
    while left > 0:
        part = os.read(descriptor, min(left, 1 << 20))
        if not part:
            break
        parts.append(part)
        left -= len(part)
    return b"".join(parts)


def load_game(path: str, ply: int | None, number: int, config: EngineConfig) -> Game:
    """Replay game `number` (from 1) of a record file, its first `ply` moves (all if None)."""
    name = file_name(path)
    record = pick_record(read_record_file(path), number, name)
    where = f"{name} game {number}"
    if ply is not None and ply > len(record.moves):
        raise ReplayError(f"{where} has only {len(record.moves)} plies, not {ply}")
    game = Game(start_of(record, where, config))
    game.headers = dict(record.headers)
    moves = record.moves[:ply]
    for index, text in enumerate(moves):
        # A record of a million plies takes a minute to replay: it can be stopped.
        stop_read_if_asked(f"at ply {index + 1} of {len(moves)}")
        at = f"{where}, ply {index + 1} (line {record.move_lines[index]})"
        analysis = Analysis(game.position)
        if not analysis.has_legal_move():
            raise ReplayError(f"{at}: the game is over: {game.outcome(analysis)}")
        try:
            move = read_move(game.position, analysis, text)
        except IllegalMove as error:
            raise ReplayError(f"{at}: {error}") from None
        game.play(move)
    return game


def pick_record(text: str, number: int, name: str) -> GameRecord:
    """Read record `number` (from 1) of a file's text, the others only counted."""
    held = 0
    for block in record_blocks(text):
        held += 1
        if held == number:
            try:
                return parse_block(block)
            except RecordError as error:
                raise ReplayError(f"{name} {error}") from None
    games = f"{held} game{'' if held == 1 else 's'}"
    raise ReplayError(f"{name} holds {games}; there is no game {number}")


def start_of(record: GameRecord, where: str, config: EngineConfig) -> Position:
    """Set up a record's start position, refusing one the engine would not take."""
    at = f"{where} (line {record.line})"
    if not 2 <= record.size <= config.max_board_size:
        raise ReplayError(f"{at}: size {record.size} is outside 2 ... {config.max_board_size}")
    if len(record.start) > config.max_line_bytes:
        # The longest line set_board reads, which the config makes hold the largest board.
        raise ReplayError(
            f"{at}: Start is {len(record.start)} characters long; the most is"
            f" {config.max_line_bytes} (protocol.max_line_bytes)"
        )
    # A record of another variant than the cube says so (docs/rules.md, "Game records").
    try:
        variant = variant_named(record.headers.get("Variant", CUBE.name))
    except UnknownVariant as error:
        raise ReplayError(f"{at}: {error}") from None
    board, _, side_word = record.start.rstrip().rpartition(" ")
    if side_word not in SIDE_WORDS:
        board, side_word = record.start, "w"
    try:
        text = parse_board(board, config.max_board_size)
        check_variant_letters(text.rows, variant)
    except NotationError as error:
        raise ReplayError(f"{at}: invalid start board: {error}") from None
    if text.size != record.size:
        raise ReplayError(f"{at}: the start board has size {text.size}, Size says {record.size}")
    position = Position.from_rows(text.size, text.rows, SIDE_WORDS[side_word], variant)
    try:
        check_position(position, lambda point: get_cell_name_from_point(position.geometry, point))
    except InvalidPosition as error:
        raise ReplayError(f"{at}: invalid start board: {error}") from None
    if not is_game_position(position):
        enemy = SIDE_NAMES[position.enemy]
        raise ReplayError(f"{at}: the start is no game position: {enemy} is in check")
    return position
