"""The player's search with its roots searched by the compiled core (kernel/core/player.c).

kernel/play/alphabeta.py is the search; this module changes nothing of it but where each
iteration's root is searched. `CompiledSearcher` is a `Searcher` whose `root` hands the root
moves to the core, which searches the tree below them as `Searcher.pvs` and
`Searcher.quiescence` would, on its own copy of the position, with the same evaluation
(kernel/play/evaluation.py's numbers, handed over here) and the same keys: at a fixed depth the
two choose the same move with the same score after the same count of positions
(tests/test_playercore.py; tests/test_raumschach_core.py for Raumschach, whose rules and
pawn bonuses are handed over too). The iterations, the limits between them and the reports
stay Python's.

The core keeps its table in 32-byte entries, so that a budget of megabytes holds five times
as many as Python's (`core_slots`), and looks at the clock every few positions and at a stop
request every few milliseconds (kernel/core/player.c says how).
"""

from __future__ import annotations

from collections.abc import Callable

from kernel.compiled import (
    CODE_LETTERS,
    CORE_CODES,
    CORE_KINDS,
    PlayerCore,
    core_pieces,
    core_rules,
)
from kernel.cube.board import EMPTY
from kernel.cube.game import Game
from kernel.cube.position import BLACK_TO_MOVE_KEY, LETTER_SALTS
from kernel.cube.variants import Variant
from kernel.interrupt import COMMAND
from kernel.play.alphabeta import (
    FULL_WIDTH,
    INFINITY,
    Limits,
    OnIteration,
    OutOfTime,
    Pruning,
    Searcher,
    SearchMove,
    TranspositionTable,
    pruning_numbers,
)
from kernel.play.evaluation import (
    BLOCKING,
    DEFAULT_WEIGHTS,
    RAY_LIMIT,
    Weights,
    average_reach,
    passed_bonus,
    pawn_advance,
    variant_moves,
)

#: What one entry of the core's table takes (kernel/core/player.c, `Entry`).
CORE_ENTRY_BYTES = 32
CoreMove = tuple[int, int, int, int, int]
#: A white pawn's bonus on a cell, by kernel/play/evaluation.py's rules.
PawnBonus = Callable[[Variant, int, tuple[int, int, int], Weights], int]


#: Positions a second the core searches, about (bench/play.py), and the share of them
#: that store an entry in the table (the rest are quiescence's).
CORE_RATE = 2_000_000
STORED_SHARE = 0.5


def core_slots(megabytes: float, limits: Limits | None = None) -> int:
    """Return the slots of a core table within a memory budget: a power of two, at least 1.

    A search limited by time or nodes alone gets no more slots than it could fill: a page of
    the table costs its first touch and its release, which on a short move is a good part of
    the time spent answering. (A fixed depth gets the whole budget, whatever its limits.)
    """
    count = 1
    while count * 2 * CORE_ENTRY_BYTES <= megabytes * (1 << 20):
        count *= 2
    if limits is not None and limits.depth is None:
        reach = limits.nodes
        if limits.seconds is not None:
            by_time = round(CORE_RATE * limits.seconds)
            reach = by_time if reach is None else min(reach, by_time)
        if reach is not None:
            while count > 1024 and count // 2 >= reach * STORED_SHARE:
                count //= 2
    return count


def core_table(slots: int) -> bytearray:
    """Make the memory of a core table of `slots` entries to keep between searches (all
    unused: an entry of zeros is empty)."""
    return bytearray(slots * CORE_ENTRY_BYTES)


def to_core(move: SearchMove) -> CoreMove:
    """Write a search move as the core takes it: codes for the letters, 0 for no capture and
    for no promotion."""
    letter, origin, target, captured, promotion = move
    return (
        CORE_CODES[letter],
        origin,
        target,
        CORE_CODES.get(captured, 0),
        CORE_CODES.get(promotion, 0),
    )


def from_core(move: CoreMove) -> SearchMove:
    """Read a move from the core back into a search move."""
    piece, origin, target, captured, promotion = move
    return (
        CODE_LETTERS[piece],
        origin,
        target,
        CODE_LETTERS[captured] if captured else EMPTY,
        CODE_LETTERS[promotion] if promotion else EMPTY,
    )


class CompiledSearcher(Searcher):
    """A Searcher whose every root is searched by the compiled core.

    `slots` is the size of the core's table (a power of two): `core_slots(hash_mb)` when
    playing, the Python table's own count when the two searches are compared. `table`: the
    memory of a table kept from earlier searches (`core_table(slots)`), which the search
    reads and fills; None: a fresh table of its own.
    """

    compiled_mates = True

    def __init__(
        self,
        game: Game,
        limits: Limits,
        slots: int,
        on_iteration: OnIteration | None = None,
        weights: Weights = DEFAULT_WEIGHTS,
        pruning: Pruning = FULL_WIDTH,
        table: bytearray | None = None,
    ) -> None:
        # The Python table is never asked: one slot stands in for it.
        super().__init__(game, limits, TranspositionTable(0), on_iteration, weights, pruning)
        position = self.position
        size = position.size
        variant = position.variant
        tables = self.tables
        values = [0] * 16
        salts = [0] * 16
        for letter, code in CORE_CODES.items():
            values[code] = tables.values.get(letter, 0)
            salts[code] = LETTER_SALTS[letter]
        moves = variant_moves(variant)
        kinds = [letter.lower() for letter in CORE_KINDS]
        steps: list[tuple[bool, list[tuple[int, ...]]]] = [(False, [])] + [
            (moves[kind][1], [tuple(step) for step in moves[kind][0]])
            if kind in moves
            else (False, [])
            for kind in kinds
        ]
        self.core = PlayerCore(
            size=size,
            slots=slots,
            pieces=core_pieces(position),
            side=position.side,
            key=position.key,
            black_to_move=BLACK_TO_MOVE_KEY,
            salts=salts,
            letters=CODE_LETTERS,
            values=values,
            average=[0.0]
            + [average_reach(kind, size, variant) if kind in moves else 0.0 for kind in kinds],
            weights=[
                BLOCKING,
                weights.placement_for(variant),
                weights.exposure,
                weights.king_reach,
                weights.cornering,
                tables.start_material,
                RAY_LIMIT,
                weights.drawish,
                weights.mating_pieces,
                self.draw,
            ],
            steps=steps,
            game=game.seen,
            quiet_plies=game.quiet_plies,
            limits=[
                -1.0 if self.deadline is None else self.deadline,
                self.started,
                -1 if self.node_limit is None else self.node_limit,
            ],
            poll=stop_requested,
            rules=core_rules(variant),
            advance=by_cell(pawn_advance, variant, size, weights) if variant.has_pawns else [],
            passed=by_cell(passed_bonus, variant, size, weights) if tables.passed else [],
            pruning=pruning_numbers(pruning),
            table=table,
        )

    def root(
        self,
        depth: int,
        moves: list[SearchMove],
        in_check: bool,
        alpha: int = -INFINITY,
        beta: int = INFINITY,
    ) -> int:
        """Search every root move to `depth` within (alpha, beta) in the core; leave the best
        first."""
        core_moves = [to_core(move) for move in moves]
        score, best, pv, stopped = self.core.root(depth, core_moves, alpha, beta)
        self.nodes = self.core.nodes
        self.root_depth = depth
        self.pv_table[0] = [from_core(move) for move in pv]
        if stopped:
            raise OutOfTime
        moves.insert(0, moves.pop(best))
        return int(score)


def by_cell(bonus: PawnBonus, variant: Variant, size: int, weights: Weights) -> list[int]:
    """A white pawn's bonus (kernel/play/evaluation.py's pawn_advance or passed_bonus) on each cell
    (x, y, z), at x + n (y + n z), as the core takes it."""
    return [
        bonus(variant, size, (x, y, z), weights)
        for z in range(size)
        for y in range(size)
        for x in range(size)
    ]


def stop_requested() -> bool:
    """Tell the core whether the running command was asked to stop (kernel/interrupt.py)."""
    return COMMAND.stop_requested
