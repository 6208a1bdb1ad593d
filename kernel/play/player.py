"""The player: choose a move for the side to move within its limits (`genmove`).

The limits come from the level (a fixed depth, a node count, a time per move: config `[play]`
or the `level` command) and from the clock (`time_settings`, `time_left`): a fixed depth or
node count ignores the time per move, so that a level is exactly reproducible, but never a
running clock. `search.max_nodes` bounds every search, so even a level without limits ends.

Each finished depth is reported as one line, `depth 5 score +0.35 nodes 48211 nps 23104 time
2.09 pv ...` (or `score mate 3`), and the whole search as one summary for the JSON log.

A fixed depth is searched in full unless a limit stops it first: `search.max_nodes`, the
level's node count, a running clock or a request to stop. Then the depth was cut, and it
says so (`Cut`): one more thinking line, `depth 6 cut: ...`, and `depth_asked` and `cut_by`
in the summary, so that no one takes the move for the depth's best (docs/search.md, "Levels").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kernel.clock import RESERVE, Clocks
from kernel.compiled import COMPILED, core_takes
from kernel.cube.game import Game
from kernel.cube.position import Move
from kernel.play.alphabeta import (
    FULL_WIDTH,
    MATE,
    Iteration,
    Limits,
    Pruning,
    Searcher,
    SearchMove,
    SearchResult,
    TranspositionTable,
    mate_distance,
)
from kernel.play.alphabeta_core import CORE_ENTRY_BYTES, CompiledSearcher, core_slots, core_table
from kernel.play.evaluation import DEFAULT_WEIGHTS, Weights
from kernel.tables.tablebase import Tablebases, is_loss, is_win, plies_of, table_move
from kernel.text.notation import get_move_name


@dataclass
class Level:
    """How hard the player tries: fixed depth and nodes (0: none), seconds a move (0: none)."""

    depth: int = 0
    nodes: int = 0
    move_time: float = 1.0

    def describe(self) -> str:
        """Write the level as the `level` command reads it."""
        return f"depth {self.depth} nodes {self.nodes} time {self.move_time:g}"


@dataclass
class Choice:
    """The player's answer: a move, or None to resign; and the search behind it."""

    move: Move | None
    result: SearchResult
    resigned: bool = False


@dataclass(frozen=True)
class Cut:
    """A fixed depth that a limit stopped before it was searched in full."""

    #: The depth asked, and the deepest finished.
    asked: int
    finished: int
    #: What stopped it: `search.max_nodes`, `level nodes`, `clock` or `stop` (a signal).
    by: str
    #: The positions searched, and the limit's count of them (0 when no count stopped it).
    nodes: int
    limit: int = 0

    def line(self) -> str:
        """Say it for people, as a thinking line."""
        why = {
            "search.max_nodes": f"search.max_nodes ({self.limit} positions) reached",
            "level nodes": f"the level's {self.limit} positions reached",
            "clock": "the clock ran out",
            "stop": "stopped by request",
        }[self.by]
        finished = f"depth {self.finished}" if self.finished else "no depth"
        return (
            f"depth {self.asked} cut: {why} after {self.nodes} positions; {finished} finished, "
            "the move is the best found so far"
        )


def depth_cut(level: Level, max_nodes: int, result: SearchResult) -> Cut | None:
    """Return how the level's fixed depth was cut short, or None if it was not."""
    if not level.depth or result.depth >= level.depth or not result.stopped:
        return None
    if result.stopped == "nodes":
        by_level = 0 < level.nodes <= max_nodes
        by, limit = ("level nodes", level.nodes) if by_level else ("search.max_nodes", max_nodes)
        return Cut(level.depth, result.depth, by, result.nodes, limit)
    by = "clock" if result.stopped == "time" else "stop"
    return Cut(level.depth, result.depth, by, result.nodes)


def limits_for(
    level: Level, clocks: Clocks, side: int, max_nodes: int, reserve: float = RESERVE
) -> Limits:
    """Work out the limits of one search from the level, the clock and the node cap.

    `reserve`: the seconds a clock's budget keeps back for answering (Overhead.reserve). A
    move of a byo-yomi period searches until its budget is spent (a period's time not used
    is lost); other timed moves stop deepening at half their budget.
    """
    fixed = level.depth > 0 or level.nodes > 0
    seconds = clocks.budget(side, reserve)
    soft_share: float | None = None if seconds is not None and clocks.in_period(side) else 0.5
    if seconds is None and not fixed and level.move_time > 0:
        seconds = level.move_time
    nodes = min(level.nodes, max_nodes) if level.nodes else max_nodes
    return Limits(level.depth or None, nodes, seconds, soft_share)


def score_text(score: int) -> str:
    """Write a score as thinking lines show it: `+0.35` pawns or `mate 3` (`mate -2`)."""
    moves = mate_distance(score)
    if moves is not None:
        return f"mate {moves}"
    return f"{score / 100:+.2f}"


def pv_names(game: Game, pv: list[SearchMove]) -> list[str]:
    """Name the moves of a principal variation (names depend on the board's size only)."""
    position = game.position
    return [get_move_name(position, Move(*move)) for move in pv]


def thinking_line(game: Game, iteration: Iteration) -> str:
    """Write one finished depth for people."""
    nps = round(iteration.nodes / iteration.seconds) if iteration.seconds > 0 else 0
    return (
        f"depth {iteration.depth} score {score_text(iteration.score)} nodes {iteration.nodes} "
        f"nps {nps} time {iteration.seconds:.2f} pv {' '.join(pv_names(game, iteration.pv))}"
    )


def search_summary(game: Game, choice: Choice, cut: Cut | None = None) -> dict[str, Any]:
    """Describe a search for the JSON log: depth (the deepest finished), then, for a fixed
    depth cut short, depth_asked and cut_by; score_cp or mate (score_cp null at depth 0),
    nodes, nps, time_ms, pv, move."""
    result = choice.result
    summary: dict[str, Any] = {"depth": result.depth}
    if cut is not None:
        summary["depth_asked"] = cut.asked
        summary["cut_by"] = cut.by
    moves = mate_distance(result.score)
    if result.depth == 0:
        summary["score_cp"] = None  # stopped before its first depth: its first move, unscored
    elif moves is None:
        summary["score_cp"] = result.score
    else:
        summary["mate"] = moves
    summary["nodes"] = result.nodes
    summary["nps"] = round(result.nodes / result.seconds) if result.seconds > 0 else 0
    summary["time_ms"] = round(result.seconds * 1000)
    summary["pv"] = pv_names(game, result.pv)
    if choice.move is None:
        summary["move"] = "resign" if choice.resigned else None
    else:
        summary["move"] = get_move_name(game.position, choice.move)
    return summary


@dataclass(frozen=True)
class TableUse:
    """What a kept table's entries were found for: another searcher, board, rules or side
    searched for (whose draws the contempt scores against) would misread them."""

    compiled: bool
    size: int
    variant: str
    side: int


class Player:
    """Search moves for a game.

    `compiled`: search in the compiled core (kernel/play/alphabeta_core.py) where it was built and
    takes the board; else in Python (kernel/play/alphabeta.py), the same search, slower.
    `pruning`: the prunings the search makes (config `[search]`).
    `keep_table` (config `play.keep_table`): a search limited by time keeps its transposition
    table for the next one (of the same searcher, board, rules and side), which starts from
    what the last found: the line it expected, the bounds of the positions it saw. A fixed
    depth or node count always starts from an empty table, so that it stays reproducible.
    """

    def __init__(
        self,
        hash_mb: int,
        weights: Weights = DEFAULT_WEIGHTS,
        compiled: bool = True,
        pruning: Pruning = FULL_WIDTH,
        keep_table: bool = False,
    ) -> None:
        self.hash_mb = hash_mb
        self.weights = weights
        self.compiled = compiled
        self.pruning = pruning
        self.keep_table = keep_table
        #: The table kept from the last timed search, and what it was filled for.
        self.kept: tuple[TableUse, bytearray | TranspositionTable] | None = None
        #: The endgame tables genmove plays from where they cover the position (set by the
        #: session from the config).
        self.tablebases: Tablebases | None = None

    def kept_table(self, use: TableUse, slots: int) -> bytearray | TranspositionTable:
        """The table kept for this use, else a new one, kept from now on. The core's memory
        must have `slots` entries or more (a move with less time would make a smaller one:
        the larger one kept serves it as well); the Python table's slots are hash_mb's."""
        if self.kept is not None and self.kept[0] == use:
            table = self.kept[1]
            if isinstance(table, TranspositionTable) or len(table) >= slots * CORE_ENTRY_BYTES:
                return table
        self.kept = None  # the old memory goes before the new is taken
        table = core_table(slots) if use.compiled else TranspositionTable(self.hash_mb)
        self.kept = (use, table)
        return table

    def choose(
        self,
        game: Game,
        limits: Limits,
        resign_cp: int = 0,
        report: Callable[[Iteration], None] | None = None,
    ) -> Choice:
        """Search the game's position and return the move to play (None: none, or resign).

        A fresh table for each move, so that a fixed depth or node count gives the same move
        every time the same game is asked; a search limited by time alone starts from the
        last one's table when `keep_table` is on.
        """
        # Moves are generated in the order of the pieces: the same order for the same
        # position, whatever was played and taken back before, gives the same search.
        game.position.order_pieces()
        if self.tablebases is not None:
            found = table_move(self.tablebases, game.position)
            if found is not None:
                move, value = found
                pv = [(move.piece, move.origin, move.target, move.captured, move.promotion)]
                return Choice(move, SearchResult(pv[0], value_score(value), 1, 0, 0.0, pv))
        searcher: Searcher
        compiled = self.compiled and COMPILED and core_takes(game.position)
        keep = self.keep_table and limits.depth is None and limits.seconds is not None
        if not keep:
            self.kept = None  # its memory goes back now, not at the next timed search
        position = game.position
        use = TableUse(compiled, position.size, position.variant.name, position.side)
        slots = core_slots(self.hash_mb, limits) if compiled else 0
        kept = self.kept_table(use, slots) if keep else None
        if compiled:
            memory = kept if isinstance(kept, bytearray) else None
            if memory is not None:
                slots = len(memory) // CORE_ENTRY_BYTES
            searcher = CompiledSearcher(
                game, limits, slots, report, self.weights, self.pruning, table=memory
            )
        else:
            table = (
                kept if isinstance(kept, TranspositionTable) else TranspositionTable(self.hash_mb)
            )
            searcher = Searcher(game, limits, table, report, self.weights, self.pruning)
        result = searcher.search()
        if result.move is None:
            return Choice(None, result)
        losing = mate_distance(result.score)
        # Measured from a draw, which the contempt scores below zero: a dead draw is no loss.
        below_draw = result.score + self.weights.contempt
        if (
            resign_cp > 0
            and result.depth >= 2
            and (below_draw <= -resign_cp or (losing is not None and losing < 0))
        ):
            return Choice(None, result, resigned=True)
        return Choice(Move(*result.move), result)


def value_score(value: int) -> int:
    """A value byte as the player's search scores it: a mate p plies away MATE - p."""
    if is_win(value):
        return MATE - plies_of(value)
    if is_loss(value):
        return -(MATE - plies_of(value))
    return 0
