"""Types of kernel/_proofcore.c, the df-pn of kernel/proofnumber.py compiled."""

from collections.abc import Callable

class Core:
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
        /,
    ) -> list[tuple[int, int]]:
        """Return (origin, target) of each move that mates in `moves` or fewer (keys)."""
