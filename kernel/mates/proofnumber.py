"""Mate in N by depth-first proof-number search (df-pn), in a table of bounded size.

Proof-number search keeps, for each position, how many positions at least must still be
proved (the proof number, pn) or disproved (the disproof number, dn) to settle it. At the
attacker's move (an OR node) one mating move is enough: pn is the least pn of its children and
dn their sum; at the defender's move (AND) every defence must lose: pn is the sum and dn the
least. The search always works below the most proving position. df-pn (Nagai, 2002) does it
depth-first: a node is searched under two thresholds and returns to its parent as soon as its
pn or dn reaches them; a child may grow until it is no longer the best, that is up to the
second best child's number, plus a quarter (the 1 + ε trick of Pawlewicz and Lew, so that two
close siblings do not take turns at every step). The search keeps nothing but its path and the
table, so its memory is the table's bound. df-pn rather than PN²: PN² holds its whole
first-level tree in memory, which grows with the search; df-pn holds a path and a table of
fixed size, and it is the method of the solvers that prove the longest tsume mates.

A node is a position and its depth, the number of the attacker's moves left. "Mate in at most
N" is monotone in the depth: a position proved at depth d is proved at every greater depth
(the shorter mate still counts) and one disproved at d is disproved at every smaller depth,
but neither carries the other way: a proof found with d moves left says nothing about fewer
moves, and a disproof nothing about more. So the table keeps, per position (its key includes
the side to move), the least depth at which it is proved and the greatest at which it is
disproved, and beside them the numbers of one unsettled depth, the last searched. A look-up at
depth d answers proved at or above the first, disproved at or below the second, the numbers
at their own depth, and otherwise the numbers of a position never seen (below). A mated
defender is proved at depth 0, hence everywhere; stalemate, and an attacker without a move,
are disproved at every depth.

The last two moves are searched exactly, not by numbers. With one move left the attacker mates
only by a check that takes every flight the king has; kernel/mates/mateinone.py answers that
from the flights first, with bitsets of where each piece could check from, and mostly says no before
any move is generated. With one move left after a defence, the defence that refuted the last
such try is played first (usually a king's step, whose legality is one question), and only
when it fails are the others asked, the king's steps one at a time
(`every_defence_mated_in_one`). A deeper attacker's node asks for a mate in one once (its
absence is kept as a disproof at depth 1), then tries checks first, captures next, the rest
last; with two moves left each try is settled exactly in that order, as the loop would take
them, but without its bookkeeping (`try_each`). A defender's node generates its replies once
per visit, the last refutation at that depth first, and keeps them while the search is below
it.

A position never seen starts with the numbers a uniform tree of its depth would have, guessing
`ATTACKER_MOVES` moves for the attacker and `DEFENCES` replies that matter for the defender:
proving an attacker's node takes one line through every defence, disproving it every attacker
move down to one refutation each. So the search goes deep where the tree is narrower than
guessed and turns early where it is wider (deep df-pn, Zhang et al., guides itself the same way
by depth). One guess is made from the move itself (as df-pn+ does): a defence that gives check
starts with a disproof number of 1, since the attacker then has only a few evasions to refute,
and such a defence is usually the one that refutes.

The same search is compiled in kernel/core/mate.c, and `keys` hands its questions to it
(each move's node proved there, the whole question in one call) when the install built it
(where a C compiler was found) and the board is at most `CORE_LARGEST_SIZE` wide: 20 to 30
times faster (bench/mate.py), with the same answers (tests/test_proofcore.py);
`ProofNumberSearch(..., compiled=False)` asks Python. This module
stays the one to read first: the C file says where it differs, and why.

The table holds at most `TABLE_ENTRIES` entries, each one int of a few words packing the two
numbers, their depth, the proved and disproved depths and the work (positions counted) spent
below the position. When it is full, the half that cost least work is dropped (the small-tree
replacement of Nagai's solvers): those are the cheapest to find again. It serves every key of
one command and every question of `solution`, so what one key's search settles the others
reuse. Every position generated counts against the node budget (`Budget.spend`), which also
reports progress, so no search outruns its limit.
"""

from __future__ import annotations

from collections.abc import Iterator

from kernel.compiled import CODE_LETTERS, COMPILED, MateCore, core_pieces, core_rules, core_takes
from kernel.cube.board import EMPTY
from kernel.cube.position import BLACK_TO_MOVE_KEY, KING_LETTERS, Move, Position, piece_key
from kernel.cube.rules import Analysis, is_attacked
from kernel.mates.mateinone import gives_check, mates_in_one
from kernel.mates.search import MAX_MATE_MOVES, Budget

#: The proof or disproof number of a settled node: it cannot be reached, only passed.
INFINITE = 1 << 32
#: The greatest number of an unsettled node (sums stop there).
LARGEST = INFINITE - 1
#: The numbers of a proved and of a disproved node.
PROVED = (0, INFINITE)
DISPROVED = (INFINITE, 0)
#: A depth past every search: "proved at no depth yet", and "disproved at every depth".
NO_DEPTH = MAX_MATE_MOVES + 1
#: Entries the table holds: about 130 bytes each, so about 130 MB when full (the compiled
#: search's take 40 bytes each).
TABLE_ENTRIES = 1_000_000
#: The guessed moves of an attacker, and replies of a defender that need answering, from
#: which a position never seen takes its numbers.
ATTACKER_MOVES = 30
DEFENCES = 3
#: The greatest starting number (the guesses grow with the depth).
LARGEST_GUESS = 1 << 24

# The fields of a table entry, packed in one int: the three depths take 7 bits each (stored
# plus one where -1 means none), the two numbers 33 bits each, the work the rest.
_DEPTH_BITS = 7
_DEPTH_MASK = (1 << _DEPTH_BITS) - 1
_DISPROVED_SHIFT = _DEPTH_BITS
_KNOWN_SHIFT = 2 * _DEPTH_BITS
_PN_SHIFT = 3 * _DEPTH_BITS
_NUMBER_BITS = 33
_NUMBER_MASK = (1 << _NUMBER_BITS) - 1
_DN_SHIFT = _PN_SHIFT + _NUMBER_BITS
_WORK_SHIFT = _DN_SHIFT + _NUMBER_BITS
#: A new entry: proved nowhere, disproved nowhere, no numbers kept.
_BLANK_ENTRY = NO_DEPTH


def guessed_numbers(attacker: bool, depth: int) -> tuple[int, int]:
    """Return the numbers a position never seen starts with (module docstring)."""
    proof = DEFENCES ** max(depth - 1 if attacker else depth, 0)
    disproof = ATTACKER_MOVES ** max(depth - 1, 0)
    return min(proof, LARGEST_GUESS), min(disproof, LARGEST_GUESS)


#: The starting numbers by side (defender, attacker) and depth.
GUESSES = tuple(
    tuple(guessed_numbers(attacker, depth) for depth in range(NO_DEPTH + 1))
    for attacker in (False, True)
)


class Node:
    """A position on the search path: its moves, their numbers, its thresholds."""

    __slots__ = (
        "attacker",
        "child",
        "depth",
        "disproof_limit",
        "dns",
        "key",
        "move",
        "moves",
        "pns",
        "proof_limit",
        "started",
    )

    def __init__(self, key: int, depth: int, attacker: bool, move: Move | None) -> None:
        self.key = key
        self.depth = depth
        #: The attacker is to move (an OR node).
        self.attacker = attacker
        #: The move that led here, taken back when the search leaves the node.
        self.move = move
        self.moves: list[Move] = []
        self.pns: list[int] = []
        self.dns: list[int] = []
        self.proof_limit = INFINITE
        self.disproof_limit = INFINITE
        #: The index of the child being searched.
        self.child = 0
        #: The budget's count when the search entered: the node's work is what it adds.
        self.started = 0


class ProofNumberSearch:
    """Find the moves that mate in N by df-pn, with one table for every question asked."""

    def __init__(
        self, budget: Budget, table_entries: int = TABLE_ENTRIES, compiled: bool = True
    ) -> None:
        self.budget = budget
        #: The same search compiled (kernel/core/mate.c), when it was built and is wanted.
        self.core = MateCore(table_entries) if compiled and COMPILED else None
        #: Position key -> packed entry (the module docstring says what it holds).
        self.table: dict[int, int] = {}
        self.table_entries = table_entries
        #: The defence that last refuted the attacker, by depth: tried first next time.
        self.killers: dict[int, Move] = {}

    # --- the questions ---------------------------------------------------------------------

    def keys(self, position: Position, moves: int) -> list[Move]:
        """Return every move of the side to move that mates in `moves` or fewer."""
        if self.core is not None and core_takes(position):
            budget = self.budget
            found = self.core.keys(
                position.size,
                core_pieces(position),
                position.side,
                moves,
                budget.spend,
                budget.limit - budget.nodes,
                core_rules(position.variant),
            )
            cells = position.cells
            return [
                Move(
                    cells[origin],
                    origin,
                    target,
                    cells[target],
                    CODE_LETTERS[promotion] if promotion else EMPTY,
                )
                for origin, target, promotion in found
            ]
        candidates = attacking_moves(Analysis(position), moves)
        self.budget.spend(len(candidates))
        return [move for move in candidates if self.mates_after_move(position, move, moves)]

    def mates_after_move(self, position: Position, move: Move, moves: int) -> bool:
        """Play the attacker's move, tell whether it mates in `moves` or fewer, take it back."""
        position.play(move)
        try:
            return self.prove(position, moves - 1, attacker=False)
        finally:
            position.undo(move)

    def mating_answers(self, position: Position, moves: int) -> tuple[list[Move], int]:
        """Return the attacker's moves of the shortest mate within `moves`, and its length.

        ([], 0) when there is none.
        """
        for depth in range(1, moves + 1):
            keys = self.keys(position, depth)
            if keys:
                return keys, depth
        return [], 0

    def shortest_mate(self, position: Position, most: int) -> tuple[list[Move], int]:
        """Return the keys of the shortest mate within `most` moves and its length, trying
        one length after another; each is the depth the progress reports name."""
        for depth in range(1, most + 1):
            self.budget.depth = depth
            keys = self.keys(position, depth)
            if keys:
                return keys, depth
        return [], 0

    # --- the search ------------------------------------------------------------------------

    def prove(self, position: Position, depth: int, attacker: bool) -> bool:
        """Tell whether the attacker mates from here with `depth` moves left.

        The attacker is to move when `attacker` is true, else the defender. The search runs
        until the position is settled, or raises SearchLimitReached; the position comes
        back unchanged either way. It loops over an explicit path, not Python's stack.
        """
        root = self.enter(position, depth, attacker, None, INFINITE, INFINITE)
        if isinstance(root, tuple):
            return root[0] == 0
        path = [root]
        proved = False
        try:
            while path:
                node = path[-1]
                pns = node.pns
                dns = node.dns
                # The node's numbers, its most proving child, and the second best number.
                if node.attacker:
                    best, pn, second = least_two(pns)
                    dn = INFINITE if pn == 0 else min(sum(dns), LARGEST)
                else:
                    best, dn, second = least_two(dns)
                    pn = INFINITE if dn == 0 else min(sum(pns), LARGEST)
                if pn >= node.proof_limit or dn >= node.disproof_limit:
                    if dn == 0 and not node.attacker:
                        self.killers[node.depth] = node.moves[best]
                    path.pop()
                    self.leave(position, node, pn, dn)
                    if path:
                        parent = path[-1]
                        parent.pns[parent.child] = pn
                        parent.dns[parent.child] = dn
                    else:
                        proved = pn == 0
                    continue
                if node.attacker:
                    proof_limit = min(node.proof_limit, widen(second))
                    disproof_limit = node.disproof_limit - dn + dns[best]
                else:
                    disproof_limit = min(node.disproof_limit, widen(second))
                    proof_limit = node.proof_limit - pn + pns[best]
                node.child = best
                move = node.moves[best]
                position.play(move)
                try:
                    child = self.enter(
                        position,
                        node.depth - 1 if node.attacker else node.depth,
                        not node.attacker,
                        move,
                        proof_limit,
                        disproof_limit,
                    )
                except BaseException:
                    position.undo(move)
                    raise
                if isinstance(child, Node):
                    path.append(child)
                else:
                    position.undo(move)
                    pns[best], dns[best] = child
        finally:
            # A search stopped by its budget takes back the moves of the path it was on.
            for node in reversed(path):
                if node.move is not None:
                    position.undo(node.move)
        return proved

    def enter(
        self,
        position: Position,
        depth: int,
        attacker: bool,
        move: Move | None,
        proof_limit: int,
        disproof_limit: int,
    ) -> Node | tuple[int, int]:
        """Open a node to search under its thresholds; return its numbers instead when it
        is settled (now, or in the table) or already past them."""
        key = position.key
        numbers = self.lookup(key, depth, attacker)
        if numbers[0] >= proof_limit or numbers[1] >= disproof_limit:
            return numbers
        if depth <= 1:
            return self.settle(key, depth, self.exactly(position, depth, attacker))
        started = self.budget.nodes
        node = Node(key, depth, attacker, move)
        if attacker:
            entry = self.table.get(key)
            # A mate in one is looked for once; its absence is kept as a disproof at depth 1.
            asked = entry is not None and entry >> _DISPROVED_SHIFT & _DEPTH_MASK > 1
            if not asked and self.settle(key, 1, self.mates_in_one(position)) == PROVED:
                return PROVED
            node.moves = attacking_moves(Analysis(position), depth)
            if not node.moves:
                return self.settle(key, NO_DEPTH, False)  # the attacker is mated or stalemated
            if depth == 2:
                return self.try_each(position, key, node.moves, proof_limit, disproof_limit)
        else:
            analysis = Analysis(position)
            moves = list(analysis.legal_moves())
            if not moves:
                # Mated is proved at every depth, stalemate disproved at every depth.
                if analysis.in_check:
                    return self.settle(key, 0, True)
                return self.settle(key, NO_DEPTH, False)
            killer = self.killers.get(depth)
            if killer is not None and killer in moves:
                moves.remove(killer)
                moves.insert(0, killer)
            node.moves = moves
        self.budget.spend(len(node.moves))
        child_depth = depth - 1 if attacker else depth
        lookup = self.lookup
        guess = GUESSES[not attacker][child_depth]
        for child in node.moves:
            numbers = lookup(key_after(position, child), child_depth, not attacker)
            # A defence that checks leaves the attacker a few evasions to disprove, not a
            # whole move list: it is tried first (df-pn+'s first numbers from the move).
            # `lookup` hands back the very guess when nothing is known of the child.
            if numbers is guess and not attacker and gives_check(position, child):
                numbers = (numbers[0], 1)
            node.pns.append(numbers[0])
            node.dns.append(numbers[1])
        node.proof_limit = proof_limit
        node.disproof_limit = disproof_limit
        node.started = started
        return node

    def leave(self, position: Position, node: Node, pn: int, dn: int) -> None:
        """Keep a node's numbers in the table and take back the move that led to it."""
        self.store(node.key, node.depth, pn, dn, self.budget.nodes - node.started)
        if node.move is not None:
            position.undo(node.move)

    # --- the last two moves, searched exactly ----------------------------------------------

    def try_each(
        self,
        position: Position,
        key: int,
        tries: list[Move],
        proof_limit: int,
        disproof_limit: int,
    ) -> tuple[int, int]:
        """Search an attacker's node with two moves left, as df-pn's loop would, without it.

        Each try leads to a defender's node that is settled at once (`exactly`), so every
        unsettled try keeps the same first numbers: the loop would take them one by one in
        their order until one mates, its proof number staying that of one try and its
        disproof number the count of the tries left, which can only fall. So only the
        thresholds met on entering can stop it early, and the loop's bookkeeping (a node on
        the path, the least of the numbers at each step) buys nothing.
        """
        started = self.budget.nodes
        self.budget.spend(len(tries))
        lookup = self.lookup
        unsettled: list[Move] = []
        for move in tries:
            numbers = lookup(key_after(position, move), 1, False)
            if numbers is PROVED:
                return self.settle(key, 2, True, self.budget.nodes - started)
            if numbers is not DISPROVED:
                unsettled.append(move)
        if unsettled:
            proof = GUESSES[False][1][0]
            if proof >= proof_limit or len(unsettled) >= disproof_limit:
                self.store(key, 2, proof, len(unsettled), self.budget.nodes - started)
                return proof, len(unsettled)
        for move in unsettled:
            position.play(move)
            try:
                mated = self.every_defence_mated_in_one(position)
                self.settle(position.key, 1, mated)
            finally:
                position.undo(move)
            if mated:
                return self.settle(key, 2, True, self.budget.nodes - started)
        return self.settle(key, 2, False, self.budget.nodes - started)

    def exactly(self, position: Position, depth: int, attacker: bool) -> bool:
        """Settle a node of depth 0 or 1 without numbers: does the attacker mate?"""
        if attacker:
            return self.mates_in_one(position)
        if depth == 1:
            return self.every_defence_mated_in_one(position)
        analysis = Analysis(position)
        return analysis.in_check and not analysis.has_legal_move()

    def mates_in_one(self, position: Position) -> bool:
        """Tell whether one of the attacker's moves mates (kernel/mates/mateinone.py)."""
        mated, asked = mates_in_one(position)
        # Every piece of the attacker is asked where it could mate from, and every move
        # asked for real counts, as a position generated does.
        self.budget.spend(len(position.pieces[position.side]) + asked)
        return mated

    def every_defence_mated_in_one(self, position: Position) -> bool:
        """Tell whether the defender, to move, has moves and is mated in one after each.

        The defence that refuted the last such question is tried before the others are
        generated: mostly a king's step to a cell out of reach, it refutes most of the
        attacker's tries, and its legality is one question (is the cell guarded?).
        """
        killer = self.killers.get(1)
        tried = None
        if killer is not None and king_step_is_legal(position, killer):
            self.budget.spend()
            if not self.mated_in_one_after(position, killer):
                return False
            tried = killer
        analysis = Analysis(position)
        defended = tried is not None
        for defence in defences(analysis):
            defended = True
            self.budget.spend()
            if defence != tried and not self.mated_in_one_after(position, defence):
                self.killers[1] = defence
                return False
        return defended or analysis.in_check

    def mated_in_one_after(self, position: Position, defence: Move) -> bool:
        """Tell whether the attacker mates in one after a defence, asking the table first."""
        key = key_after(position, defence)
        known = self.lookup(key, 1, True)
        if known is PROVED or known is DISPROVED:  # lookup hands back the constants
            return known is PROVED
        started = self.budget.nodes
        position.play(defence)
        try:
            mates = self.mates_in_one(position)
        finally:
            position.undo(defence)
        self.settle(key, 1, mates, self.budget.nodes - started)
        return mates

    # --- the table -------------------------------------------------------------------------

    def lookup(self, key: int, depth: int, attacker: bool) -> tuple[int, int]:
        """Return the proof and disproof numbers of a position at a depth."""
        entry = self.table.get(key)
        if entry is None:
            return GUESSES[attacker][depth]
        if depth >= entry & _DEPTH_MASK:
            return PROVED
        if depth < entry >> _DISPROVED_SHIFT & _DEPTH_MASK:
            return DISPROVED
        if depth + 1 == entry >> _KNOWN_SHIFT & _DEPTH_MASK:
            return entry >> _PN_SHIFT & _NUMBER_MASK, entry >> _DN_SHIFT & _NUMBER_MASK
        return GUESSES[attacker][depth]

    def store(self, key: int, depth: int, pn: int, dn: int, work: int) -> None:
        """Keep what is known of a position at a depth, adding the work it took.

        A settled depth moves the proved or disproved depth; the numbers of the unsettled
        depth kept beside them stay.
        """
        table = self.table
        entry = table.get(key)
        if entry is None:
            if len(table) >= self.table_entries:
                self.make_room()
            entry = _BLANK_ENTRY
        if pn == 0:
            if depth < entry & _DEPTH_MASK:
                entry = entry & ~_DEPTH_MASK | depth
        elif dn == 0:
            if depth + 1 > entry >> _DISPROVED_SHIFT & _DEPTH_MASK:
                entry = entry & ~(_DEPTH_MASK << _DISPROVED_SHIFT) | (depth + 1) << _DISPROVED_SHIFT
        else:
            entry = (
                entry & (1 << _KNOWN_SHIFT) - 1
                | (depth + 1) << _KNOWN_SHIFT
                | pn << _PN_SHIFT
                | dn << _DN_SHIFT
                | entry >> _WORK_SHIFT << _WORK_SHIFT
            )
        table[key] = entry + (work << _WORK_SHIFT)

    def settle(self, key: int, depth: int, proved: bool, work: int = 1) -> tuple[int, int]:
        """Keep a position proved or disproved at a depth; return its numbers."""
        numbers = PROVED if proved else DISPROVED
        self.store(key, depth, *numbers, work)
        return numbers

    def make_room(self) -> None:
        """Drop the half of the table whose positions cost the least work to settle."""
        table = self.table
        works = sorted(entry >> _WORK_SHIFT for entry in table.values())
        cut = works[(len(works) - 1) // 2]
        for key in [key for key, entry in table.items() if entry >> _WORK_SHIFT <= cut]:
            del table[key]


def king_step_is_legal(position: Position, move: Move) -> bool:
    """Tell whether a king's step, remembered from another position, is legal in this one."""
    letter, origin, target, captured, _ = move
    return (
        position.kings[position.side] == origin
        and letter == KING_LETTERS[position.side]
        and position.cells[target] == captured
        and not is_attacked(position, target, position.enemy, lifted=origin)
    )


def defences(analysis: Analysis) -> Iterator[Move]:
    """Yield the legal moves of the side to move, each king's step only when asked for (most
    refute at once, and each costs a question); the other moves are listed once the steps
    are done, as playing a defence reorders the pieces they are read from."""
    yield from analysis.king_moves()
    yield from list(analysis.piece_moves())


def key_after(position: Position, move: Move) -> int:
    """Return the position's key after a move, without playing it (as Position.play does)."""
    letter, origin, target, captured, promotion = move
    landed = letter if promotion == EMPTY else promotion
    key = position.key ^ BLACK_TO_MOVE_KEY ^ piece_key(origin, letter) ^ piece_key(target, landed)
    if captured != EMPTY:
        key ^= piece_key(target, captured)
    return key


def least_two(values: list[int]) -> tuple[int, int, int]:
    """Return the index of the least value, the least value and the second least."""
    best = 0
    first = second = INFINITE + 1
    for index, value in enumerate(values):
        if value < first:
            best, first, second = index, value, first
        elif value < second:
            second = value
    return best, first, min(second, INFINITE)


def widen(second: int) -> int:
    """Return a best child's threshold from the second best number: a quarter more (1 + ε)."""
    return second + max(1, second >> 2)


def attacking_moves(analysis: Analysis, moves: int) -> list[Move]:
    """List the attacker's moves worth trying, checks first; with one move left, only checks.

    Checks first, because a mate needs a check at the end and most short mates are checks
    all the way; captures next, because they take away defenders.
    """
    checks = analysis.checking_moves()
    if moves == 1:
        return checks
    # Whole moves, not (origin, target): a pawn's promotions share their cells, and one of
    # them checking must not hide the others.
    checking = set(checks)
    captures: list[Move] = []
    quiet: list[Move] = []
    for move in analysis.legal_moves():
        if move not in checking:
            (quiet if move.captured == EMPTY else captures).append(move)
    return checks + captures + quiet
