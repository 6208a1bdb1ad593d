"""Types of kernel/_proofcore.c, the df-pn of kernel/proofnumber.py compiled."""

from collections.abc import Callable

class Core:
    """The df-pn mate search, compiled, with its table of at most `table_entries` entries."""

    #: Entries in use in the table, and the most it may hold.
    entries: int
    most_entries: int

    def __init__(self, table_entries: int) -> None: ...
    def prove(
        self,
        size: int,
        pieces: list[int],
        side: int,
        depth: int,
        attacker: bool,
        spend: Callable[[int], object],
        /,
    ) -> bool:
        """Tell whether the attacker mates with `depth` moves left (ProofNumberSearch.prove)."""
