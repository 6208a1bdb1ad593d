"""What the commands share: the game, the player's level and clocks, and the analysis of the
position, worked out once for every command that asks.

The handlers (kernel/commands/) take a Session; kernel.kernel.Kernel is one, with the
command table and the one place replies are framed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kernel.clock import Clocks, Overhead
from kernel.config import EngineConfig
from kernel.cube.game import Game, Outcome
from kernel.cube.position import NO_POINT, WHITE, Move, Position
from kernel.cube.rules import Analysis, is_game_position
from kernel.cube.variants import Variant, variant_named
from kernel.mates.search import (
    Budget,
    Progress,
)
from kernel.play.alphabeta import Pruning
from kernel.play.evaluation import Weights
from kernel.play.player import Level, Player
from kernel.protocol import CommandError
from kernel.tables.tablebase import tablebases_for


def variant_size(variant: Variant) -> int:
    """The board size a variant's game starts on when none is given: its first (Raumschach's 5)."""
    return variant.sizes[0] if variant.sizes else 5


class Session:
    """Hold what the commands share: the game (the position and the moves played since it
    was set), the level and clocks of the player, and what is known about the position."""

    def __init__(self, config: EngineConfig) -> None:
        self.config = config
        variant = variant_named(config.variant)
        size = (
            config.board_size if variant.allows_size(config.board_size) else variant_size(variant)
        )
        self.game = Game(Position.empty(size, variant))
        #: How hard genmove tries (config [play], changed by `level`).
        self.level = Level(config.play_depth, config.play_nodes, config.move_time)
        #: The game clocks of `time_settings` and `time_left`.
        self.clocks = Clocks()
        #: What answering a move costs beyond its search, measured move by move.
        self.overhead = Overhead()
        self.player = Player(
            config.hash_mb,
            weights_of(config),
            config.compiled,
            Pruning(
                config.null_move,
                config.late_move_reductions,
                config.futility,
                config.aspiration,
                config.counter_moves,
                config.history_malus,
            ),
            keep_table=config.keep_table,
        )
        self.player.tablebases = tablebases_for(config.tablebase_path)
        #: Where events beside the exchanges go (the JSON log's `search`); set by main.py.
        self.log_event: Callable[[str, dict[str, Any]], None] = lambda name, fields: None
        self.quit_requested = False
        #: How the person at a terminal writes moves ("short" or "long", as their last `play`
        #: did), which genmove answers in; None for a program (a pipe, or strict GTP).
        self.person_notation: str | None = None
        #: Whether the last line looked like a row of a board pasted over several lines.
        self.in_pasted_board = False
        self._analysis: Analysis | None = None

    # --- the position -------------------------------------------------------------------

    @property
    def position(self) -> Position:
        """The position now."""
        return self.game.position

    def set_position(self, position: Position, analysis: Analysis | None = None) -> None:
        """Set up a new position, forgetting the moves played; keep what is known about it."""
        self.set_game(Game(position), analysis)

    def set_game(self, game: Game, analysis: Analysis | None = None) -> None:
        """Make a game the current one; both clocks start again from the time settings."""
        self.game = game
        self._analysis = analysis
        self.clocks = Clocks(self.clocks.settings)

    def play(self, move: Move) -> None:
        """Play a legal move of the side to move."""
        self.game.play(move)
        self._analysis = None

    def undo(self) -> None:
        """Take back the last move; the caller checked there is one."""
        self.game.undo()
        self._analysis = None

    def analysis(self) -> Analysis:
        """Work out the position's checkers (and, when asked, pins) once, for every command."""
        if self.position.kings[WHITE] == NO_POINT:
            raise CommandError("no white king on the board")
        if self._analysis is None:
            self._analysis = Analysis(self.position)
        return self._analysis

    def game_analysis(self) -> Analysis:
        """Return the analysis of a position that can arise in play, or refuse."""
        analysis = self.analysis()
        if not is_game_position(self.position):
            raise CommandError("the side not to move is in check")
        return analysis

    def is_game(self) -> bool:
        """Tell whether the position can arise in a game: a white king, the side not to move
        out of check."""
        return self.position.kings[WHITE] != NO_POINT and is_game_position(self.position)

    def outcome(self) -> Outcome | None:
        """Judge the game now (a game position): None while it goes on."""
        return self.game.outcome(self.game_analysis())

    def budget(self, depth: int) -> Budget:
        """Make the position budget of one search, with progress shown at a terminal."""
        return Budget(self.config.max_nodes, depth, terminal_progress())


def weights_of(config: EngineConfig) -> Weights:
    """Read the evaluation's weights from the config's [evaluation] table."""
    return Weights(
        queen=config.eval_queen,
        rook=config.eval_rook,
        bishop=config.eval_bishop,
        knight=config.eval_knight,
        unicorn=config.eval_unicorn,
        pawn=config.eval_pawn,
        placement=config.eval_placement,
        raumschach_placement=config.eval_raumschach_placement,
        exposure=config.eval_exposure,
        king_reach=config.eval_king_reach,
        cornering=config.eval_cornering,
        drawish=config.eval_drawish,
        mating_pieces=config.eval_mating_pieces,
        contempt=config.eval_contempt,
        pawn_advance=config.eval_pawn_advance,
        pawn_near=config.eval_pawn_near,
        pawn_passed=config.eval_pawn_passed,
    )


def terminal_progress() -> Progress | None:
    """Return a progress reporter writing to stderr when it is a terminal, else None."""
    import sys

    if sys.stderr is None or not sys.stderr.isatty():
        return None

    def report(depth: int, nodes: int, seconds: float) -> None:
        from kernel.logger import write_stderr

        rate = nodes / seconds if seconds else 0.0
        write_stderr(f"cubemate: searching depth {depth}: {nodes:,} positions, {rate:,.0f}/s")

    return report
