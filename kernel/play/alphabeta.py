"""The player's search: the move `genmove` plays (docs/search.md).

Iterative deepening over a principal variation search (PVS): alpha-beta in which every move
after the first is tried with a null window and searched again only if it beats the first.
PVS rather than MTD(f) because MTD(f) leans on a transposition table large enough to keep
every bound of an iteration, and the table here is bounded by memory; PVS needs it only
for move ordering. Around it:

- a transposition table of a fixed number of slots (`TranspositionTable`), replaced by depth;
- quiescence on captures at the leaves, every evasion when in check (so a mate at the horizon
  is seen as one);
- move ordering: the table's move, captures by the value taken then by the taker's cheapness,
  two killer moves per ply, then quiet moves by the history of their cut-offs;
- a check extension: a side in check is searched one ply deeper;
- mate scores that count the plies to the mate, draws by repetition (a position that stood
  before on the path or in the game) and by the fifty-move rule inside the tree; with a
  contempt (kernel/play/evaluation.py), a draw costs the side searched for.

Three prunings, each behind its own switch (`Pruning`, config `[search]`), off by default
until an SPRT at a time a move accepts them (docs/search.md):

- null move: at a node of depth 2 or more, out of check, off the principal variation, whose
  window is no mate's and whose side has a piece besides its king and pawns and stands at or
  above beta, the side passes and the enemy is searched 2 plies shallower (3 from depth 4);
  still at or above beta, the node is cut;
- late-move reductions: at a node of depth 2 or more, out of check, a quiet move that does
  not check, promotes nor is a killer, tried after the first three, is searched a ply
  shallower first (two from the fourth move at depth 3 or more, three from the sixteenth at
  depth 6: `lmr_reduction`), and again in full if it beats alpha;
- futility pruning: at a node of depth 1, out of check, off the principal variation, whose
  evaluation plus FUTILITY_MARGIN stays at or below alpha, the quiet moves that do not check
  or promote are left out after the first; the node then scores at least that hope.

And aspiration windows (`Searcher.iteration`): from ASPIRATION_DEPTH, the root searched first
within ASPIRATION_WINDOW of the last depth's score, again in full when the score falls
outside; no pruning, since a window that fails is searched again. Two switches of the order,
no prunings either: counter-moves (after the killers, the quiet move that last cut off after
the move before) and the history malus (a cut-off lowers the history of the quiet moves
tried before it).

Each pruning can hide a mate within the nominal depth (a quiet key move cut short, a defence that
looks safe only because the attacker was given a pass), and the player must never miss a
mate that `mate_in` finds at the depth it completed. So with any on, before each odd depth
2N - 1 from 3 the mate search itself is asked for a mate in N (`mates_in`); one found is
played, and a guard that cannot finish within the search's limits ends the deepening.
Below the root of depth D a node out of check has depth D - 1 at most, so depths 1 and 2
reduce nothing and pass nowhere, and depth 1, whose root prunes nothing, finds every mate
in 1.

On 5³, at a count of positions a move, each was tried before and none kept
(docs/ladder/5-lmr-..., 5-null-..., 5-futility-...): docs/search.md.

The search plays and takes back moves on the game's own position, which it gives back as it
found it, also when it is stopped by its clock, its node limit or a request to stop.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from kernel.cube.board import EMPTY, SIDE_LETTERS
from kernel.cube.game import FIFTY_MOVE_PLIES, Game
from kernel.cube.position import BLACK_TO_MOVE_KEY, KING_LETTERS, WHITE, Position
from kernel.cube.rules import (
    Analysis,
    attackers,
    gives_check,
    is_attacked,
    pawn_destinations,
    pawn_moves_to,
    pin_of,
)
from kernel.cube.variants import PAWN_LETTERS
from kernel.interrupt import COMMAND, SearchStopped
from kernel.mates.proofnumber import ProofNumberSearch
from kernel.mates.search import Budget, SearchLimitReached
from kernel.play.evaluation import (
    DEFAULT_WEIGHTS,
    Tables,
    Weights,
    armies,
    draw_value,
    evaluate,
    move_delta,
)

#: A move as the search handles it: piece letter, origin, target, captured (EMPTY if none),
#: what a pawn becomes (EMPTY if none). The same fields as kernel.cube.position.Move, as a plain
#: tuple: cheaper to make by the thousand.
SearchMove = tuple[str, int, int, str, str]

#: The score of being mated now; a mate k plies away scores MATE - k for the mating side.
MATE = 1_000_000
#: Scores beyond this are mates.
MATE_THRESHOLD = MATE - 10_000
INFINITY = 10 * MATE
#: The deepest iteration; the nominal depth can never grow past it.
MAX_DEPTH = 64
#: The longest line searched, extensions and captures included: past it a position is
#: judged as it stands (the Python stack stays shallow whatever the board).
MAX_PLY = 100
#: The most plies of captures searched past the nominal depth.
QUIESCENCE_PLIES = 4
#: Centipawns a capture may gain beyond its victim's value (placement, a discovered attack).
DELTA_MARGIN = 200
#: Null move: the least depth of a node that may pass, the plies the pass is searched
#: shallower by, and the depth from which it is searched one ply shallower still.
NULL_DEPTH = 2
NULL_REDUCTION = 2
NULL_DEEP = 4
#: Late-move reductions: the least depth of a node whose late moves are reduced, and the
#: moves searched in full before (the table's move, captures and killers mostly). A move is
#: reduced by one ply, by two from the LMR_SECOND[0]-th move at depth LMR_SECOND[1] or more,
#: by three from the LMR_THIRD[0]-th at depth LMR_THIRD[1] (`lmr_reduction`).
LMR_DEPTH = 2
LMR_MOVES = 3
LMR_SECOND = (4, 3)
LMR_THIRD = (16, 6)
#: Aspiration windows: from this depth, the root is searched first within this many
#: centipawns either side of the last depth's score.
ASPIRATION_DEPTH = 4
ASPIRATION_WINDOW = 50
#: Futility pruning: a node one ply from the leaves whose evaluation, with this to spare,
#: stays at or below alpha tries no quiet move that does not check after its first.
FUTILITY_MARGIN = 200
#: The first depth whose mates a pruning can hide, and before which (and each odd depth
#: after it) the mate search is asked: depth 2 prunes nothing (below its root a node out of
#: check has depth 1 at most), and depth 1 finds every mate in 1.
MATE_GUARD_DEPTH = 3
#: The mate guard's node budget when the search has no node limit (its depth bounds it).
UNLIMITED = 1 << 62
#: Kinds of bound a table entry holds.
EXACT, LOWER, UPPER = 0, 1, 2


@dataclass(frozen=True)
class Pruning:
    """Which prunings the search makes (config `[search]`): all off, the search in full width."""

    null_move: bool = False
    late_move_reductions: bool = False
    futility: bool = False
    #: Not a pruning (a window that fails is searched again in full), so no guard for it.
    aspiration: bool = False
    #: An order, not a pruning (every move is still searched), so no guard for it either.
    counter_moves: bool = False
    #: An order too: a cut-off lowers the history of the quiet moves tried before it.
    history_malus: bool = False

    @property
    def any(self) -> bool:
        """Whether some pruning is on, and so the mate guard is needed."""
        return self.null_move or self.late_move_reductions or self.futility


#: The search without pruning.
FULL_WIDTH = Pruning()


class OutOfTime(Exception):
    """The clock, the node limit or a request to stop (SIGUSR1, Ctrl-C) ended the search."""


@dataclass(frozen=True)
class Limits:
    """When a search stops: a depth, a node count, a time budget in seconds (None: no limit).

    With a time budget, no new depth is begun once `soft_share` of it is gone (the next
    would not end in time); None: deepen until the budget is spent, the last depth's best
    move so far then played.
    """

    depth: int | None = None
    nodes: int | None = None
    seconds: float | None = None
    soft_share: float | None = 0.5


@dataclass
class Iteration:
    """What one completed iteration (depth) found."""

    depth: int
    score: int
    nodes: int
    seconds: float
    pv: list[SearchMove]


@dataclass
class SearchResult:
    """The move chosen and how it was found."""

    move: SearchMove | None
    score: int
    depth: int
    nodes: int
    seconds: float
    pv: list[SearchMove] = field(default_factory=list)
    #: What ended the deepening before its last depth was done (STOPPED_BY); "" when every
    #: depth begun was finished (the depth asked reached, a mate, one move, or the clock's
    #: soft share spent between depths).
    stopped: str = ""


#: What can stop a search inside a depth: its node limit, its clock, a request to stop.
STOPPED_BY = ("nodes", "time", "stop")


def mate_distance(score: int) -> int | None:
    """Return the moves to mate of a mate score (negative when being mated), else None."""
    if score > MATE_THRESHOLD:
        return (MATE - score + 1) // 2
    if score < -MATE_THRESHOLD:
        return -((MATE + score) // 2)
    return None


class GuardBudget(Budget):
    """The mate guard's budget: as many positions as the search may visit (None: no limit,
    as the search has none), and its clock."""

    __slots__ = ("deadline",)

    def __init__(self, nodes: int | None, deadline: float | None) -> None:
        super().__init__(UNLIMITED if nodes is None else nodes)
        self.deadline = deadline

    def spend(self, count: int = 1) -> None:
        super().spend(count)
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise SearchLimitReached(self.nodes)


class TranspositionTable:
    """A fixed number of slots, each one entry: key, depth, bound kind, score, best move.

    The number of slots is a power of two chosen from a memory budget; an entry takes about
    160 bytes with its tuple and numbers, so the table's memory never grows past its budget.
    A slot is overwritten by an entry of another position, or by a deeper one of its own.
    """

    ENTRY_BYTES = 160

    __slots__ = ("mask", "slots")

    def __init__(self, megabytes: float) -> None:
        count = 1
        while count * 2 * self.ENTRY_BYTES <= megabytes * (1 << 20):
            count *= 2
        self.mask = count - 1
        self.slots: list[tuple[int, int, int, int, SearchMove | None] | None] = [None] * count

    def get(self, key: int) -> tuple[int, int, int, int, SearchMove | None] | None:
        """Return the entry of this key, if its slot holds it."""
        entry = self.slots[key & self.mask]
        return entry if entry is not None and entry[0] == key else None

    def put(self, key: int, depth: int, kind: int, score: int, move: SearchMove | None) -> None:
        """Store an entry, unless its slot holds a deeper one of the same position."""
        index = key & self.mask
        old = self.slots[index]
        if old is None or old[0] != key or depth >= old[1]:
            self.slots[index] = (key, depth, kind, score, move)


#: Called after each completed iteration.
OnIteration = Callable[[Iteration], None]


class Searcher:
    """Search one position of a game for the best move within limits."""

    #: Whether the mate guard asks the compiled mate search (CompiledSearcher) or Python's.
    compiled_mates = False

    def __init__(
        self,
        game: Game,
        limits: Limits,
        table: TranspositionTable,
        on_iteration: OnIteration | None = None,
        weights: Weights = DEFAULT_WEIGHTS,
        pruning: Pruning = FULL_WIDTH,
    ) -> None:
        self.started = time.monotonic()  # first: setting up counts against the budget
        self.game = game
        self.position: Position = game.position
        self.limits = limits
        self.table = table
        self.on_iteration = on_iteration
        self.tables = Tables(self.position, weights)
        self.material = self.tables.material(self.position)
        self.army = armies(self.position, self.tables)
        #: What a draw is worth to white: the contempt, against the side searched for.
        self.draw = draw_value(weights, self.position.side)
        self.nodes = 0
        self.last_clock = self.started
        self.longest_gap = 0.0
        self.deadline = None if limits.seconds is None else self.started + limits.seconds
        self.node_limit = limits.nodes
        #: How often each key stands on the path and in the game so far (for repetitions).
        self.seen: dict[int, int] = dict(game.seen)
        self.quiet_plies = game.quiet_plies
        self.quiet_plies_stack: list[int] = []
        self.root_depth = 0
        self.killers: list[list[SearchMove | None]] = [[None, None] for _ in range(MAX_PLY + 2)]
        self.history: dict[tuple[str, int], int] = {}
        #: The quiet move that last cut off after each move (by its letter and target).
        self.counters: dict[tuple[str, int], SearchMove] = {}
        #: The move played at each ply of the path (None: a pass), for the counter-moves.
        self.played: list[SearchMove | None] = [None] * (MAX_PLY + 2)
        self.pv_table: list[list[SearchMove]] = [[] for _ in range(MAX_PLY + 2)]
        self.pruning = pruning
        #: Whether the mate search guards the depths a pruning reaches (on with any pruning;
        #: tests turn it off to show what it catches).
        self.mate_guard = pruning.any
        #: Positions the mate guard visited (not the search's: its limit is the search's own).
        self.guard_nodes = 0

    # --- the iterations -------------------------------------------------------------------

    def search(self) -> SearchResult:
        """Deepen until a limit; return the best move of the deepest search (complete or not)."""
        analysis = Analysis(self.position)
        root_moves: list[SearchMove] = [tuple(move) for move in analysis.legal_moves()]  # type: ignore[misc]
        if not root_moves:
            return SearchResult(None, 0, 0, 0, 0.0)
        in_check = analysis.in_check
        # Captures of the most valuable pieces first: the move played if not even the first
        # iteration ends (a huge board on a short clock).
        values = self.tables.values
        root_moves.sort(key=lambda move: -abs(values.get(move[3], 0)))
        best = SearchResult(root_moves[0], 0, 0, 0, 0.0, [root_moves[0]])
        max_depth = min(self.limits.depth or MAX_DEPTH, MAX_DEPTH)
        for depth in range(1, max_depth + 1):
            if self.mate_guard and depth >= MATE_GUARD_DEPTH and depth % 2:
                keys = self.mates_in((depth + 1) // 2)
                if keys is None:
                    best.stopped = self.stop_cause()
                    break  # the guard did not finish: no promise for this depth
                if keys:
                    return self.mate_found(keys[0], depth)
            try:
                score = self.iteration(depth, root_moves, in_check, best)
            except OutOfTime:
                # The stopped iteration's best move so far, if it has one, was searched in
                # full to this depth and beat the others tried: it is the better choice.
                if self.pv_table[0]:
                    best.move, best.pv = self.pv_table[0][0], list(self.pv_table[0])
                best.stopped = self.stop_cause()
                break
            elapsed = time.monotonic() - self.started
            pv = list(self.pv_table[0])
            best = SearchResult(pv[0], score, depth, self.nodes, elapsed, pv)
            if self.on_iteration is not None:
                self.on_iteration(Iteration(depth, score, self.nodes, elapsed, pv))
            if len(root_moves) == 1 or MATE - abs(score) <= depth:
                # Nothing to choose; or a mate within the plies searched in full width, so
                # no shorter one was missed (an extension may find a longer one sooner).
                break
            share = self.limits.soft_share
            if (
                self.deadline is not None
                and share is not None
                and elapsed > share * (self.deadline - self.started)
            ):
                break  # the next iteration would not finish in time
        best.nodes = self.nodes
        best.seconds = time.monotonic() - self.started
        return best

    def mates_in(self, moves: int) -> list[SearchMove] | None:
        """Ask the mate search for the keys of a mate in `moves` (none shorter: the depths
        before found those), within the search's clock and node limit; None when it could
        not finish. On a copy of the position: the mate search's play and undo reorder the
        pieces, and with them the order this search tries moves in."""
        budget = GuardBudget(self.node_limit, self.deadline)
        mate_search = ProofNumberSearch(budget, compiled=self.compiled_mates)
        try:
            keys = mate_search.keys(self.position.copy(), moves)
        except (SearchLimitReached, SearchStopped):
            return None
        finally:
            self.guard_nodes += budget.nodes
        return [tuple(key) for key in keys]  # type: ignore[misc]

    def mate_found(self, key: SearchMove, depth: int) -> SearchResult:
        """The result of a mate the guard found before `depth`, a mate in (depth + 1) / 2."""
        elapsed = time.monotonic() - self.started
        score = MATE - depth
        if self.on_iteration is not None:
            self.on_iteration(Iteration(depth, score, self.nodes, elapsed, [key]))
        return SearchResult(key, score, depth, self.nodes, elapsed, [key])

    def iteration(
        self, depth: int, moves: list[SearchMove], in_check: bool, last: SearchResult
    ) -> int:
        """Search the root to `depth`: in full, or with aspiration windows (Pruning.aspiration)
        around the last depth's score, searched again in full when the score falls outside."""
        if (
            self.pruning.aspiration
            and depth >= ASPIRATION_DEPTH
            and last.depth == depth - 1
            and abs(last.score) < MATE_THRESHOLD
        ):
            alpha, beta = last.score - ASPIRATION_WINDOW, last.score + ASPIRATION_WINDOW
            score = self.root(depth, moves, in_check, alpha, beta)
            if alpha < score < beta:
                return score
        return self.root(depth, moves, in_check)

    def root(
        self,
        depth: int,
        moves: list[SearchMove],
        in_check: bool,
        alpha: int = -INFINITY,
        beta: int = INFINITY,
    ) -> int:
        """Search every root move to `depth` within (alpha, beta); leave the best first for
        the next iteration. A move at or above beta ends the search (a fail high); none above
        alpha returns alpha (a fail low)."""
        self.pv_table[0] = []
        self.root_depth = depth
        best_index = 0
        for index, move in enumerate(moves):
            check = gives_check(self.position, move)
            self.played[0] = move
            self.make(move)
            try:
                if index == 0:
                    score = -self.pvs(depth - 1, -beta, -alpha, 1, check)
                else:
                    score = -self.pvs(depth - 1, -alpha - 1, -alpha, 1, check)
                    if alpha < score < beta:
                        score = -self.pvs(depth - 1, -beta, -alpha, 1, check)
            finally:
                self.unmake(move)
            if score > alpha:
                alpha = score
                best_index = index
                self.pv_table[0] = [move, *self.pv_table[1]]
                if score >= beta:
                    break
        moves.insert(0, moves.pop(best_index))
        return alpha

    # --- the tree ---------------------------------------------------------------------------

    def pvs(
        self, depth: int, alpha: int, beta: int, ply: int, in_check: bool, passed: bool = False
    ) -> int:
        """Return the score of the position for the side to move, within (alpha, beta).

        `in_check` says whether the side to move is in check (the move that led here knew);
        `passed`, whether that move was a null move (no two passes in a row).
        """
        self.count_node()
        self.pv_table[ply] = []
        position = self.position
        key = position.key
        repeated = self.seen.get(key, 0) > 1
        if (repeated and self.quiet_plies < FIFTY_MOVE_PLIES) or (
            self.quiet_plies >= FIFTY_MOVE_PLIES and self.has_escape()
        ):
            return self.draw_score()  # a repetition, or a fifty-move draw (unless a mate)
        # Mate distance: no score here can beat a mate already found nearer the root.
        alpha = max(alpha, -MATE + ply)
        beta = min(beta, MATE - ply - 1)
        if alpha >= beta:
            return alpha
        if ply >= MAX_PLY:
            return evaluate(position, self.tables, self.material, self.army, self.draw)
        if in_check and ply < 2 * self.root_depth:
            depth += 1  # a check extension, while the line is not yet twice the nominal depth
        if depth <= 0:
            return self.quiescence(alpha, beta, ply, in_check)
        entry = self.table.get(key)
        table_move: SearchMove | None = None
        if entry is not None:
            table_move = entry[4]
            if entry[1] >= depth:
                score = score_from_table(entry[3], ply)
                kind = entry[2]
                if (
                    kind == EXACT
                    or (kind == LOWER and score >= beta)
                    or (kind == UPPER and score <= alpha)
                ):
                    return score
        pruning = self.pruning
        if (
            pruning.null_move
            and not passed
            and not in_check
            and depth >= NULL_DEPTH
            and beta == alpha + 1
            and alpha > -MATE_THRESHOLD
            and beta < MATE_THRESHOLD
            and self.has_pieces()
            and evaluate(position, self.tables, self.material, self.army, self.draw) >= beta
        ):
            reduction = NULL_REDUCTION + (depth >= NULL_DEEP)
            self.played[ply] = None
            self.make_null()
            try:
                score = -self.pvs(depth - 1 - reduction, -beta, -alpha, ply + 1, False, True)
            finally:
                self.unmake_null()
            if score >= beta:
                return score if score < MATE_THRESHOLD else beta
        reducing = pruning.late_move_reductions and depth >= LMR_DEPTH and not in_check
        # Futility: what a pruned move counts as (-INFINITY: none is pruned here).
        futility = -INFINITY
        if (
            pruning.futility
            and depth == 1
            and not in_check
            and beta == alpha + 1
            and -MATE_THRESHOLD < alpha < MATE_THRESHOLD
        ):
            hope = evaluate(position, self.tables, self.material, self.army, self.draw)
            if hope + FUTILITY_MARGIN <= alpha:
                futility = hope + FUTILITY_MARGIN
        pruned = False
        #: The quiet moves searched here before a cut-off (history malus on).
        tried: list[SearchMove] | None = [] if pruning.history_malus else None
        killers = self.killers[ply]
        original_alpha = alpha
        best_score = -INFINITY
        best_move: SearchMove | None = None
        searched = 0
        pins: dict[int, range | None] = {}
        for move in self.ordered_moves(in_check, table_move, ply):
            if not in_check and not self.is_legal(move, pins):
                continue
            check = gives_check(position, move)
            if (
                futility > -INFINITY
                and searched
                and not check
                and move[3] == EMPTY
                and move[4] == EMPTY
            ):
                pruned = True
                continue
            self.played[ply] = move
            self.make(move)
            try:
                if searched == 0:
                    score = -self.pvs(depth - 1, -beta, -alpha, ply + 1, check)
                else:
                    reduction = 0
                    if (
                        reducing
                        and searched >= LMR_MOVES
                        and not check
                        and move[3] == EMPTY
                        and move[4] == EMPTY
                        and move not in killers
                    ):
                        reduction = lmr_reduction(depth, searched)
                    score = -self.pvs(depth - 1 - reduction, -alpha - 1, -alpha, ply + 1, check)
                    if reduction and score > alpha:
                        score = -self.pvs(depth - 1, -alpha - 1, -alpha, ply + 1, check)
                    if alpha < score < beta:
                        score = -self.pvs(depth - 1, -beta, -alpha, ply + 1, check)
            finally:
                self.unmake(move)
            searched += 1
            if score > best_score:
                best_score = score
                best_move = move
                if score > alpha:
                    alpha = score
                    self.pv_table[ply] = [move, *self.pv_table[ply + 1]]
                    if score >= beta:
                        if move[3] == EMPTY:
                            self.remember_cut(move, ply, depth, tried)
                        break
            if tried is not None and move[3] == EMPTY:
                tried.append(move)
        if searched == 0:
            return -MATE + ply if in_check else self.draw_score()
        if pruned and best_score < futility:
            # A move left out may do better than those tried: never below what it hoped for
            # (else a mate among the captures would stand for the node).
            best_score = futility
        kind = (
            EXACT if original_alpha < best_score < beta else LOWER if best_score >= beta else UPPER
        )
        self.table.put(key, depth, kind, score_to_table(best_score, ply), best_move)
        return best_score

    def draw_score(self) -> int:
        """Return a draw's score for the side to move: the contempt, against the root's side."""
        return self.draw if self.position.side == WHITE else -self.draw

    def quiescence(self, alpha: int, beta: int, ply: int, in_check: bool) -> int:
        """Search captures only (every evasion when in check) until the position is quiet."""
        position = self.position
        if ply >= MAX_PLY:
            return evaluate(position, self.tables, self.material, self.army, self.draw)
        if in_check:
            if ply > self.root_depth + 1:
                # Deep in the captures a check is only looked at for mate: searching every
                # evasion of every check there costs more than it tells.
                if not Analysis(position).has_legal_move():
                    return -MATE + ply
                return evaluate(position, self.tables, self.material, self.army, self.draw)
            best_score = -MATE + ply  # mated unless an evasion is found
            moves = self.evasions()
        else:
            best_score = evaluate(position, self.tables, self.material, self.army, self.draw)
            if best_score >= beta or ply >= self.root_depth + QUIESCENCE_PLIES:
                return best_score
            alpha = max(alpha, best_score)
            moves = self.captures(alpha - best_score)
        for move in moves:
            check = gives_check(position, move)
            self.make(move)
            try:
                self.count_node()
                score = -self.quiescence(-beta, -alpha, ply + 1, check)
            finally:
                self.unmake(move)
            if score > best_score:
                best_score = score
                if score > alpha:
                    alpha = score
                    if score >= beta:
                        break
        return best_score

    # --- moves --------------------------------------------------------------------------------

    def ordered_moves(
        self, in_check: bool, table_move: SearchMove | None, ply: int
    ) -> list[SearchMove]:
        """List the moves to try: the table's move, captures (best victim, cheapest taker first),
        the killers, the counter-move (when on), then quiet moves by their history.

        In check they are the legal evasions; otherwise they are pseudo-legal, and the caller
        asks `is_legal` of each just before trying it: at a cut-off node most are never tried.
        """
        if in_check:
            moves = self.evasions()
            captures = [move for move in moves if move[3] != EMPTY]
            quiet = [move for move in moves if move[3] == EMPTY]
        else:
            captures, quiet = self.pseudo_legal()
        values = self.tables.values
        captures.sort(key=lambda move: abs(values[move[0]]) - 16 * abs(values[move[3]]))
        history = self.history
        quiet.sort(key=lambda move: -history.get((move[0], move[2]), 0))
        early = [killer for killer in self.killers[ply] if killer is not None and killer in quiet]
        counter = self.counter_move(ply)
        if counter is not None and counter in quiet and counter not in early:
            early.append(counter)
        ordered = captures + early + [move for move in quiet if move not in early]
        if table_move is not None and table_move in ordered:
            ordered.remove(table_move)
            ordered.insert(0, table_move)
        return ordered

    def pseudo_legal(self) -> tuple[list[SearchMove], list[SearchMove]]:
        """Return the captures and the quiet moves of the side to move, its king's safety
        aside (`is_legal` looks at it)."""
        position = self.position
        cells = position.cells
        moves = position.offsets.moves
        enemies = SIDE_LETTERS[1 - position.side]
        captures: list[SearchMove] = []
        quiet: list[SearchMove] = []
        for origin, letter in position.pieces[position.side].items():
            if letter in PAWN_LETTERS:
                for target in pawn_destinations(position, origin, letter):
                    for pawn_move in pawn_moves_to(position, origin, target):
                        found = captures if pawn_move.captured != EMPTY else quiet
                        found.append(tuple(pawn_move))  # type: ignore[arg-type]
                continue
            steps, slides = moves[letter]
            for step in steps:
                target = origin + step
                piece = cells[target]
                while piece == EMPTY:
                    quiet.append((letter, origin, target, EMPTY, EMPTY))
                    if not slides:
                        break
                    target += step
                    piece = cells[target]
                if piece in enemies:
                    captures.append((letter, origin, target, piece, EMPTY))
        return captures, quiet

    def captures(self, shortfall: int) -> list[SearchMove]:
        """List the legal captures worth trying, out of check, the best victim first.

        Found from the victims: for each enemy piece, the pieces that attack it (through the
        attack table, one look-up per pair). That beats walking every ray of every piece on
        any board, and by far on a large one, where rays are long and pieces far apart.
        Left out: a capture whose victim, with `DELTA_MARGIN` to spare, cannot make up the
        `shortfall` of the position to alpha, and a capture by a piece worth more than its
        victim on a cell the enemy guards. On a crowded cube the captures otherwise breed
        faster than any search can follow them.
        """
        position = self.position
        cells = position.cells
        side = position.side
        values = self.tables.values
        pins: dict[int, range | None] = {}
        found: list[tuple[int, SearchMove]] = []
        for target, victim in position.pieces[1 - side].items():
            gain = abs(values[victim])
            if gain + DELTA_MARGIN < shortfall:
                continue
            guarded: bool | None = None  # asked only when a dearer piece would take
            for origin in attackers(position, target, side):
                letter = cells[origin]
                cost = abs(values[letter])
                if cost > gain:
                    if guarded is None:
                        guarded = is_attacked(position, target, 1 - side)
                    if guarded:
                        continue
                move = (letter, origin, target, victim, EMPTY)
                if not self.is_legal(move, pins):
                    continue
                if letter in PAWN_LETTERS:  # a capture onto the last cell promotes
                    for promoting in pawn_moves_to(position, origin, target):
                        found.append((cost - 16 * gain, tuple(promoting)))  # type: ignore[arg-type]
                else:
                    found.append((cost - 16 * gain, move))
        found.sort()
        return [move for _, move in found]

    def evasions(self) -> list[SearchMove]:
        """List every legal move of a side in check."""
        return [tuple(move) for move in Analysis(self.position).legal_moves()]  # type: ignore[misc]

    def is_legal(self, move: SearchMove, pins: dict[int, range | None]) -> bool:
        """Tell whether a pseudo-legal move, out of check, keeps its king safe.

        `pins` keeps, for the node, what was found about each piece asked (pinned or not).
        """
        letter, origin, target = move[:3]
        position = self.position
        if letter in KING_LETTERS:
            return not is_attacked(position, target, 1 - position.side, lifted=origin)
        if origin not in pins:
            pins[origin] = pin_of(position, origin)
        line = pins[origin]
        return line is None or target in line

    def has_pieces(self) -> bool:
        """Tell whether the side to move has a piece besides its king and pawns (without
        one, a pass is too often better than any move: zugzwang)."""
        for letter in self.position.pieces[self.position.side].values():
            if letter not in KING_LETTERS and letter not in PAWN_LETTERS:
                return True
        return False

    def has_escape(self) -> bool:
        """Tell whether the side to move has a legal move, or is not in check (so: not mated)."""
        analysis = Analysis(self.position)
        return not analysis.checkers or analysis.has_legal_move()

    # --- bookkeeping --------------------------------------------------------------------------

    def make(self, move: SearchMove) -> None:
        """Play a move, keeping the material, the path's keys and the quiet plies."""
        self.material += move_delta(self.tables, move)
        captured = move[3]
        if captured != EMPTY:
            self.army[self.position.side ^ 1] -= abs(self.tables.values[captured])
        if move[4] != EMPTY:  # a promotion: the mover's army gains the new piece, less its pawn
            self.army[self.position.side] += promotion_gain(self.tables.values, move)
        self.position.play(move)
        key = self.position.key
        self.seen[key] = self.seen.get(key, 0) + 1
        self.quiet_plies_stack.append(self.quiet_plies)
        # A capture or a pawn's move starts the fifty-move count again.
        resets = captured != EMPTY or move[0] in PAWN_LETTERS
        self.quiet_plies = 0 if resets else self.quiet_plies + 1

    def make_null(self) -> None:
        """Pass: the other side is to move, the pieces as they stand (a null move)."""
        position = self.position
        position.side = 1 - position.side
        position.key ^= BLACK_TO_MOVE_KEY
        key = position.key
        self.seen[key] = self.seen.get(key, 0) + 1
        self.quiet_plies_stack.append(self.quiet_plies)

    def unmake_null(self) -> None:
        """Take back `make_null`."""
        position = self.position
        self.seen[position.key] -= 1
        position.side = 1 - position.side
        position.key ^= BLACK_TO_MOVE_KEY
        self.quiet_plies = self.quiet_plies_stack.pop()

    def unmake(self, move: SearchMove) -> None:
        """Take back `make`."""
        key = self.position.key
        self.seen[key] -= 1
        self.position.undo(move)
        self.material -= move_delta(self.tables, move)
        captured = move[3]
        if captured != EMPTY:
            self.army[self.position.side ^ 1] += abs(self.tables.values[captured])
        if move[4] != EMPTY:
            self.army[self.position.side] -= promotion_gain(self.tables.values, move)
        self.quiet_plies = self.quiet_plies_stack.pop()

    def count_node(self) -> None:
        """Count a node; stop on the clock, the node limit or a request."""
        self.nodes += 1
        if self.node_limit is not None and self.nodes > self.node_limit:
            raise OutOfTime
        if self.deadline is not None:
            # Stop when the next node, if as slow as the slowest so far, would end past the
            # deadline: on a large board one node can take many milliseconds.
            now = time.monotonic()
            self.longest_gap = max(self.longest_gap, now - self.last_clock)
            self.last_clock = now
            if now + self.longest_gap >= self.deadline:
                raise OutOfTime
        if COMMAND.stop_requested:
            raise OutOfTime  # the best move so far is played, as a chess engine's `stop` does

    def stop_cause(self) -> str:
        """Say which limit stopped the search inside a depth (one of STOPPED_BY)."""
        if self.node_limit is not None and self.nodes >= self.node_limit:
            return "nodes"
        return "stop" if COMMAND.stop_requested else "time"

    def counter_key(self, ply: int) -> tuple[str, int] | None:
        """Where the counter-move of a node at `ply` is kept: the letter and target of the move
        that led there (None with counter-moves off, at the root, or after a pass)."""
        if not self.pruning.counter_moves or ply < 1:
            return None
        previous = self.played[ply - 1]
        return None if previous is None else (previous[0], previous[2])

    def counter_move(self, ply: int) -> SearchMove | None:
        """The quiet move that last cut off after the move that led here (None when there is
        no counter-move to keep here, or none cut yet)."""
        key = self.counter_key(ply)
        return None if key is None else self.counters.get(key)

    def remember_cut(
        self, move: SearchMove, ply: int, depth: int, tried: list[SearchMove] | None = None
    ) -> None:
        """Make a quiet move that caused a cut-off a killer of its ply, raise its history,
        (counter-moves on) make it the answer to the move that led here, and (history malus
        on) lower the history of the quiet moves `tried` before it by as much: they were
        searched first and did not cut, so a later node should try them later."""
        killers = self.killers[ply]
        if killers[0] != move:
            killers[1] = killers[0]
            killers[0] = move
        history = self.history
        key = (move[0], move[2])
        history[key] = history.get(key, 0) + depth * depth
        for other in tried or ():
            key = (other[0], other[2])
            history[key] = history.get(key, 0) - depth * depth
        counter_key = self.counter_key(ply)
        if counter_key is not None:
            self.counters[counter_key] = move


def pruning_numbers(pruning: Pruning) -> tuple[int, ...]:
    """The prunings' switches and numbers as the compiled core takes them (kernel/core/
    player.c): read here at each search, so the two searches share one set of numbers."""
    return (
        int(pruning.null_move),
        int(pruning.late_move_reductions),
        int(pruning.futility),
        FUTILITY_MARGIN,
        NULL_DEPTH,
        NULL_REDUCTION,
        NULL_DEEP,
        LMR_DEPTH,
        LMR_MOVES,
        *LMR_SECOND,
        *LMR_THIRD,
        int(pruning.counter_moves),
        int(pruning.history_malus),
    )


def lmr_reduction(depth: int, searched: int) -> int:
    """The plies a late move is reduced by: the later the move and the deeper the node, the
    more (the moves after the first few of a good order seldom cut)."""
    reduction = 1
    if searched >= LMR_SECOND[0] and depth >= LMR_SECOND[1]:
        reduction += 1
        if searched >= LMR_THIRD[0] and depth >= LMR_THIRD[1]:
            reduction += 1
    return reduction


def promotion_gain(values: dict[str, int], move: SearchMove) -> int:
    """What a promotion adds to its side's army: the new piece's value less the pawn's."""
    return abs(values[move[4]]) - abs(values[move[0]])


def score_to_table(score: int, ply: int) -> int:
    """Make a mate score relative to the node, for the table."""
    if score > MATE_THRESHOLD:
        return score + ply
    if score < -MATE_THRESHOLD:
        return score - ply
    return score


def score_from_table(score: int, ply: int) -> int:
    """Make a table's mate score relative to the root again."""
    if score > MATE_THRESHOLD:
        return score - ply
    if score < -MATE_THRESHOLD:
        return score + ply
    return score
