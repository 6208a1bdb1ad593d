"""Types of kernel._core, the compiled core (kernel/core/*.c): the df-pn of
kernel/mates/proofnumber.py (MateCore), the helpmate of kernel/mates/helpmate.py
(HelpmateCore), the search of kernel/play/alphabeta.py (PlayerCore) and the retrograde solver
of tablebase/retrograde.py (retrograde)."""

from collections.abc import Callable, Mapping, Sequence

#: kernel/compiled.py's CoreRules: slides by kind, white's pawn pushes and captures, the kinds
#: a pawn may become, the axes its pawns advance on.
CoreRules = tuple[
    list[list[tuple[int, int, int]]],
    list[tuple[int, int, int]],
    list[tuple[int, int, int]],
    list[int],
    list[int],
]

class MateCore:
    """The df-pn mate search, compiled, with its table of at most `table_entries` entries."""

    #: Entries in use in the table, and the most it may hold.
    entries: int
    most_entries: int

    def __init__(self, table_entries: int) -> None: ...
    def keys(
        self,
        size: int,
        pieces: list[int],
        side: int,
        moves: int,
        spend: Callable[[int], object],
        allowance: int,
        rules: CoreRules | None = None,
        /,
    ) -> list[tuple[int, int, int]]:
        """Return (origin, target, promotion code or 0) of each move that mates in `moves` or
        fewer (keys), under the variant's `rules` (None: the cube's)."""

class HelpmateCore:
    """The helpmate search, compiled, with its table of `table_entries` entries."""

    #: Entries in use in the table, and the most it may hold.
    entries: int
    most_entries: int

    def __init__(self, table_entries: int) -> None: ...
    def solutions(
        self,
        size: int,
        pieces: list[int],
        side: int,
        moves: int,
        limit: int,
        spend: Callable[[int], object],
        allowance: int,
        rules: CoreRules | None = None,
        /,
    ) -> list[tuple[tuple[int, int, int, int, int], ...]] | int:
        """Every line (origin, target, piece code, captured code, promotion code or 0) ..., or
        past `limit` the count that passed it, under the variant's `rules`."""

class PlayerCore:
    """One position's search by kernel/play/alphabeta.py's rules, compiled (set up once)."""

    #: Positions counted so far, and the material-and-placement sum (white's positive).
    nodes: int
    material: int

    def __init__(
        self,
        size: int,
        slots: int,
        pieces: list[int],
        side: int,
        key: int,
        black_to_move: int,
        salts: Sequence[int],
        letters: str,
        values: Sequence[int],
        average: Sequence[float],
        weights: Sequence[float],
        steps: Sequence[tuple[bool, list[tuple[int, ...]]]],
        game: Mapping[int, int],
        quiet_plies: int,
        limits: Sequence[float],
        poll: Callable[[], object],
        rules: CoreRules | None = None,
        advance: Sequence[int] = (),
        passed: Sequence[int] = (),
        pruning: Sequence[int] | None = None,
        table: bytearray | None = None,
    ) -> None:
        """`table`: the writable memory of a table kept from earlier searches, `slots`
        entries of 32 bytes (all zeros when new); None: the core makes its own."""
    def root(
        self,
        depth: int,
        moves: list[tuple[int, int, int, int, int]],
        alpha: int = ...,
        beta: int = ...,
        /,
    ) -> tuple[int, int, list[tuple[int, int, int, int, int]], bool]:
        """Search each root move to `depth` within (alpha, beta): (score, best index, pv,
        stopped)."""
    def evaluate(self) -> int:
        """Return the evaluation of the position set up, for the side to move."""

def retrograde(
    size: int,
    letters: str,
    captures: list[tuple[int, str, int, tuple[int, ...], bytes | None]],
    variant: str = "cube",
    compact: int = 0,
    /,
) -> bytearray:
    """Solve one ending under a variant's rules ("cube" or "raumschach"): the value of every
    index of its table (tablebase/retrograde.py); `compact`: numbered by format version 3's
    index."""

def retrograde_lean(
    size: int,
    letters: str,
    captures: list[tuple[int, str, int, tuple[int, ...], bytes | None]],
    variant: str = "cube",
    compact: int = 0,
    /,
) -> bytearray:
    """The values of `retrograde`, solved in 1.125 bytes an entry (tablebase/lean.py)."""

def verify(
    size: int,
    letters: str,
    captures: list[tuple[int, str, int, tuple[int, ...], bytes | None]],
    values: bytes,
    most: int,
    variant: str = "cube",
    compact: int = 0,
    /,
) -> list[tuple[int, int, int]]:
    """The first `most` faults of a table: (index, held, expected) (tablebase/verify.py)."""

def widen(size: int, letters: str, values: bytes, variant: str = "cube", /) -> bytearray:
    """A version-3 table's values laid out by version 1's index (kernel/tables/tablebase.py's
    widen)."""
