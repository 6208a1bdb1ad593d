"""The command that asks the endgame tables: tb_probe (docs/protocol.md, docs/tablebases.md);
and the tables' answer to mate_search where they cover the position.
"""

from __future__ import annotations

from kernel.commands.session import Session
from kernel.cube.position import Move, Position
from kernel.protocol import CommandError
from kernel.tables.tablebase import (
    NO_VALUE,
    NoTable,
    Tablebases,
    TableError,
    is_loss,
    is_win,
    plies_of,
    value_text,
)


def cmd_tb_probe(kernel: Session, args: list[str]) -> str:
    """Give the endgame table's value of the position for the side to move.

    Arguments: none.
    Fails: no white king; the side not to move is in check (not a game position); no table
    covers the position (`no table for KQKR on the 6×6×6 board`); its file is unusable, named
    with its fault (damaged, no regular file, a header that disagrees with itself or with the
    file's length: docs/tablebases.md, "What is checked"), at once, never waiting on it.
    Returns: `win K` (mates in K moves), `loss K` (is mated in K; `loss 0`: checkmated now)
    or `draw`; bare kings are a draw without a table. The fifty-move rule is not counted.
    """
    kernel.game_analysis()
    return value_text(probe(kernel.player.tablebases, kernel.position))


def probe(tables: Tablebases | None, position: Position) -> int:
    """Probe a game position, refusing with the reason when no table answers."""
    if tables is None:
        tables = Tablebases(None)
    try:
        value = tables.probe(position)
    except (NoTable, TableError) as error:
        raise CommandError(str(error)) from None
    if value == NO_VALUE:
        raise CommandError("the table holds no value for this position")
    return value


def table_mate(kernel: Session) -> tuple[int, list[Move]] | None:
    """The tables' answer to mate_search: the moves of the shortest mate and every key of
    that length; (0, []) when the tables say there is no mate at all; None when no table
    covers the position (or a move of it)."""
    tables = kernel.player.tablebases
    if tables is None or tables.folder is None:
        return None
    position = kernel.position
    try:
        value = tables.probe(position)
        if not is_win(value):
            return 0, []
        keys = []
        for move in list(kernel.analysis().legal_moves()):
            position.play(move)
            try:
                after = tables.probe(position)
            finally:
                position.undo(move)
            if is_loss(after) and plies_of(after) == plies_of(value) - 1:
                keys.append(move)
    except (NoTable, TableError):
        return None
    return (plies_of(value) + 1) // 2, keys
