"""Unit steps and the offset tables every move and attack walks.

Directions are built from six named unit steps, never typed in by hand, then turned into
index offsets in the padded array once per board size.
"""

from __future__ import annotations

from array import array
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from itertools import product
from threading import Lock
from typing import Generic, NamedTuple, ParamSpec, TypeVar

Step = tuple[int, int, int]

#: Cells of wall on every side of the board: a knight's leap of two stays inside the array.
WALL_THICKNESS = 2

EAST: Step = (1, 0, 0)  # towards the h-file
WEST: Step = (-1, 0, 0)
NORTH: Step = (0, 1, 0)  # towards black's side, rank n
SOUTH: Step = (0, -1, 0)
UP: Step = (0, 0, 1)  # towards the top level
DOWN: Step = (0, 0, -1)


def add(*steps: Step) -> Step:
    """Compose unit steps into one step."""
    return (
        sum(step[0] for step in steps),
        sum(step[1] for step in steps),
        sum(step[2] for step in steps),
    )


def scale(step: Step, factor: int) -> Step:
    """Repeat a step `factor` times."""
    return (step[0] * factor, step[1] * factor, step[2] * factor)


#: One axis at a time: the rook's six lines.
ROOK_STEPS: tuple[Step, ...] = (EAST, WEST, NORTH, SOUTH, UP, DOWN)
#: All three axes at once: the bishop's eight triagonals.
BISHOP_STEPS: tuple[Step, ...] = tuple(
    add(x, y, z) for x, y, z in product((EAST, WEST), (NORTH, SOUTH), (UP, DOWN))
)
#: Two axes at once: the twelve flat diagonals, which only the queen (and king) use.
FLAT_DIAGONAL_STEPS: tuple[Step, ...] = tuple(
    add(a, b)
    for first, second in ((EAST, NORTH), (EAST, UP), (NORTH, UP))
    for a in (first, scale(first, -1))
    for b in (second, scale(second, -1))
)
#: Every step to a neighbouring cell: the queen's and the king's 26.
QUEEN_STEPS: tuple[Step, ...] = ROOK_STEPS + BISHOP_STEPS + FLAT_DIAGONAL_STEPS
#: Two cells along one axis, then one along another: the knight's 24 leaps.
KNIGHT_STEPS: tuple[Step, ...] = tuple(
    add(scale(long, 2), short)
    for long in ROOK_STEPS
    for short in ROOK_STEPS
    if all(a == 0 or b == 0 for a, b in zip(long, short, strict=True))  # another axis
)


def memory_width_for(size: int) -> int:
    """Return W, the row width of the padded array: the board and a wall on either side."""
    return size + 2 * WALL_THICKNESS


def compact_width_for(size: int) -> int:
    """Return C, the row width of the compact index: more than twice any |dx| on the board."""
    return 2 * size + 1


def offset_of(step: Step, memory_width: int) -> int:
    """Turn a step into an index offset in a padded array of this width."""
    dx, dy, dz = step
    return dx + memory_width * (dy + memory_width * dz)


class PieceMoves(NamedTuple):
    """How one kind of piece moves: its letter (white's, upper case), its steps, and whether it
    repeats them (a slider) or makes one (a leaper or the king)."""

    letter: str
    steps: tuple[Step, ...]
    slides: bool


class MoveRules(NamedTuple):
    """Every way a variant's pieces move, as plain data (kernel.cube.variants holds the variants).

    `pawn_pushes` and `pawn_captures` are white's pawn steps; black's are their negatives. A
    variant without pawns leaves both empty.
    """

    pieces: tuple[PieceMoves, ...]
    pawn_pushes: tuple[Step, ...] = ()
    pawn_captures: tuple[Step, ...] = ()


def negated(steps: tuple[Step, ...]) -> tuple[Step, ...]:
    """Turn white's steps into black's: every step backwards."""
    return tuple(scale(step, -1) for step in steps)


class Attack(NamedTuple):
    """What can attack across one difference of indices, and the unit step of its path.

    `letters` holds both colours' letters: the caller asks about one side's pieces only (a
    pawn's letter stands only under the differences its own colour captures across).
    `step` is the unit offset of the line joining the two cells, and every cell from
    origin + step up to the target must be empty; it is 0 for a knight's leap, which has
    no line.
    """

    letters: str
    step: int


class Offsets(NamedTuple):
    """Every offset table for one board size and one variant's rules."""

    rook: tuple[int, ...]
    bishop: tuple[int, ...]
    queen: tuple[int, ...]
    knight: tuple[int, ...]
    #: The moving offsets of each piece letter, and whether it slides along them (pawns apart).
    moves: dict[str, tuple[tuple[int, ...], bool]]
    #: Each of the 26 unit offsets with the sliders, of both colours, that move along it.
    rays: tuple[tuple[int, str], ...]
    #: compact[target] - compact[origin] -> the pieces that attack across it, and their path.
    attacks: dict[int, Attack]
    #: The compact index of each memory index: x + C*y + C*C*z, C from compact_width_for.
    #: A tuple up to TUPLE_SIZE, an array of C ints above (compact_indices).
    compact: Sequence[int]
    #: letter -> compact difference -> the unit step of the path (0 for a leap): the attack
    #: table split by letter, so that "does this piece attack that cell" is one look-up.
    reach: dict[str, dict[int, int]]
    #: Each pawn letter -> the offsets of its moves to an empty cell, and of its captures
    #: (both empty in a variant without pawns).
    pushes: dict[str, tuple[int, ...]]
    captures: dict[str, tuple[int, ...]]


#: The 26 unit steps in a fixed order: the rook's lines, the triagonals, the flat diagonals.
UNIT_STEPS: tuple[Step, ...] = ROOK_STEPS + BISHOP_STEPS + FLAT_DIAGONAL_STEPS


def pawn_capture_steps(rules: MoveRules) -> dict[str, tuple[Step, ...]]:
    """Each pawn letter's capturing steps: white's as written, black's backwards."""
    if not rules.pawn_captures:
        return {}
    return {"P": rules.pawn_captures, "p": negated(rules.pawn_captures)}


def attack_table(size: int, memory_width: int, rules: MoveRules) -> dict[int, Attack]:
    """Map every difference of compact indices a piece can attack across to the pieces that can.

    The compact index (Offsets.compact) of memory cell (x, y, z) is x + C*y + C*C*z, with
    C from compact_width_for: every (dx, dy, dz) between two board cells, and every knight
    leap even on a 2x2x2 board, has a difference of its own. The padded index has not (from
    size 6 on, W = size + 4 lets (-6, 6, 0) and (5, 5, 0) meet), so it cannot be the key;
    the step stored is the padded one, to walk.
    """
    compact_width = compact_width_for(size)
    letters: dict[int, str] = {}
    paths: dict[int, int] = {}
    lines = frozenset(UNIT_STEPS)

    def add_attack(step: Step, distance: int, letter: str) -> None:
        key = offset_of(step, compact_width) * distance
        path = offset_of(step, memory_width) if step in lines else 0
        # A leap that a line also crosses would need two paths: no variant has one.
        if paths.setdefault(key, path) != path:
            raise ValueError(f"the leap of {letter} meets a line")
        letters[key] = letters.get(key, "") + letter

    for piece in rules.pieces:
        for letter in (piece.letter.lower(), piece.letter):
            for step in piece.steps:
                for distance in range(1, size if piece.slides else 2):
                    add_attack(step, distance, letter)
    for letter, steps in pawn_capture_steps(rules).items():
        for step in steps:
            add_attack(step, 1, letter)
    return {key: Attack(letters[key], paths[key]) for key in letters}


Arguments = ParamSpec("Arguments")
Built = TypeVar("Built")


class CacheInfo(NamedTuple):
    """What a TableCache holds and has done: functools.lru_cache's four figures, and the
    estimated bytes of what it holds against its budget."""

    hits: int
    misses: int
    maxsize: int
    currsize: int
    weight: int
    budget: int


class TableCache(Generic[Arguments, Built]):
    """A builder's results kept for the process's life, the least recently used dropped first
    when there are more than `maxsize` or their estimated bytes pass `budget`; the newest is
    always kept, however large. `key` makes the key of the arguments (by default the
    arguments themselves); what it is made from is kept with the result, so that a key made
    of an object's id stays that object's while kept.

    Per (size, variant) tables are asked for with every position set up: a bound by count
    alone must be small for the largest boards (70 MB a size near n = 256) and then drops the
    small boards' tables that a workload cycling through sizes 2, 3 and 4 builds again and
    again (41 % of its time, issue 60). Weighed by their bytes, every small board's tables
    stay and the large ones still do not pile up.
    """

    def __init__(
        self,
        build: Callable[Arguments, Built],
        maxsize: int,
        budget: int,
        weight: Callable[Arguments, int],
        key: Callable[Arguments, Hashable] | None = None,
    ) -> None:
        self.build = build
        self.maxsize = maxsize
        self.budget = budget
        self.weight = weight
        self.key = key
        self.__doc__ = build.__doc__
        #: key -> (result, its weight, the arguments it was built from).
        self._kept: OrderedDict[Hashable, tuple[Built, int, object]] = OrderedDict()
        self._weight = 0
        self._hits = 0
        self._misses = 0
        # The batch runners and the GUI's server may ask from several threads.
        self._lock = Lock()

    def __call__(self, *args: Arguments.args, **kwargs: Arguments.kwargs) -> Built:
        if self.key is not None:
            key = self.key(*args, **kwargs)
        else:
            key = args if not kwargs else (args, tuple(sorted(kwargs.items())))
        with self._lock:
            found = self._kept.get(key)
            if found is not None:
                self._kept.move_to_end(key)
                self._hits += 1
                return found[0]
            self._misses += 1
        built = self.build(*args, **kwargs)
        weight = self.weight(*args, **kwargs)
        with self._lock:
            # Another thread may have built it meanwhile: every caller gets the one kept.
            found = self._kept.get(key)
            if found is None:
                self._kept[key] = (built, weight, (args, kwargs))
                self._weight += weight
            else:
                built = found[0]
            while len(self._kept) > 1 and (
                len(self._kept) > self.maxsize or self._weight > self.budget
            ):
                _, (_, dropped, _) = self._kept.popitem(last=False)
                self._weight -= dropped
        return built

    def cache_info(self) -> CacheInfo:
        """Say what is kept and how often it was found, as functools.lru_cache does."""
        with self._lock:
            return CacheInfo(
                self._hits, self._misses, self.maxsize, len(self._kept), self._weight, self.budget
            )

    def cache_clear(self) -> None:
        """Drop everything kept, and the counts."""
        with self._lock:
            self._kept.clear()
            self._weight = self._hits = self._misses = 0


def table_cache(
    maxsize: int,
    budget: int,
    weight: Callable[Arguments, int],
    key: Callable[Arguments, Hashable] | None = None,
) -> Callable[[Callable[Arguments, Built]], TableCache[Arguments, Built]]:
    """Keep a builder's results in a TableCache (a decorator)."""

    def decorate(build: Callable[Arguments, Built]) -> TableCache[Arguments, Built]:
        return TableCache(build, maxsize, budget, weight, key)

    return decorate


#: The most (size, variant) tables kept: every size a session is likely to go through.
CACHED_SIZES = 32
#: The bytes the kept offset tables may hold together (estimated by offsets_bytes): n = 64's
#: are 14 MB (its compact indices a tuple of 314,432 ints), every size up to 16 together 3 MB:
#: so n = 64's fit beside the small boards'; a board past the budget has its own kept alone
#: (70 MB at n = 256).
OFFSETS_BUDGET = 32 << 20


def offsets_bytes(size: int, rules: MoveRules) -> int:
    """Estimate the bytes of one size's offset tables, a little above what tracemalloc finds:
    the compact indices, 40 bytes a padded cell as a tuple (an int object and a pointer; up
    to TUPLE_SIZE) or 4 as an array, and the dicts of the attack table, which grow with the
    lines' length (9 to 13 KB a unit of size, Raumschach's a little more than the cube's):
    20 KB here."""
    per_cell = 40 if size <= TUPLE_SIZE else 4
    return (16 << 10) + (20 << 10) * size + per_cell * memory_width_for(size) ** 3


def rules_key(size: int, rules: MoveRules) -> tuple[int, int]:
    """Key a size's tables by the rules object itself: a variant has one, and hashing its
    nested tuples took 1.8 µs a call, 5 % of what set_board and checkmate cost on 3³."""
    return size, id(rules)


@table_cache(CACHED_SIZES, OFFSETS_BUDGET, offsets_bytes, rules_key)
def offsets_for(size: int, rules: MoveRules) -> Offsets:
    """Build the offset tables for a board of this size under these rules (once while kept)."""
    memory_width = memory_width_for(size)

    def table(steps: tuple[Step, ...]) -> tuple[int, ...]:
        return tuple(offset_of(step, memory_width) for step in steps)

    moves: dict[str, tuple[tuple[int, ...], bool]] = {}
    for piece in rules.pieces:
        for letter in (piece.letter, piece.letter.lower()):
            moves[letter] = (table(piece.steps), piece.slides)
    pushes: dict[str, tuple[int, ...]] = {}
    if rules.pawn_pushes:
        pushes = {"P": table(rules.pawn_pushes), "p": table(negated(rules.pawn_pushes))}
    captures = {letter: table(steps) for letter, steps in pawn_capture_steps(rules).items()}
    rays = tuple(
        (
            offset_of(step, memory_width),
            "".join(
                piece.letter.lower() + piece.letter
                for piece in rules.pieces
                if piece.slides and step in piece.steps
            ),
        )
        for step in UNIT_STEPS
    )
    attacks = attack_table(size, memory_width, rules)
    reach: dict[str, dict[int, int]] = {letter: {} for letter in (*moves, *captures)}
    for key, attack in attacks.items():
        for letter in attack.letters:
            reach[letter][key] = attack.step
    return Offsets(
        table(ROOK_STEPS),
        table(BISHOP_STEPS),
        table(QUEEN_STEPS),
        table(KNIGHT_STEPS),
        moves,
        rays,
        attacks,
        compact_indices(size, memory_width),
        reach,
        pushes,
        captures,
    )


#: The largest size whose compact indices are a tuple. A tuple holds an int object per cell,
#: 36 bytes a cell (11 MB at n = 64, but 630 MB at 256); an array holds 4 bytes a cell, but
#: makes an int object at each look-up, which costs perft 5 to 8 % on small boards.
TUPLE_SIZE = 64


def compact_indices(size: int, memory_width: int) -> Sequence[int]:
    """List the compact index of every memory index, so that a hot loop looks it up."""
    compact_width = compact_width_for(size)
    compact = array("i")
    # A row of memory is a run of consecutive compact indices: one extend per row, in C.
    for z in range(memory_width):
        for y in range(memory_width):
            start = compact_width * (y + compact_width * z)
            compact.extend(range(start, start + memory_width))
    return tuple(compact) if size <= TUPLE_SIZE else compact
