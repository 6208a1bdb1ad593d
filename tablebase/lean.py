"""Solving one ending in about one byte an entry (issue 52, item 2): the readable reference of
kernel/core/retrograde.c's `retrograde_lean`, held byte for byte to tablebase/retrograde.py.

retrograde.py keeps, beside each position's value, a 16-bit count of its successors not yet
known to win and the ply its slowest capture holds a loss back to: 4 bytes an entry. This
solver keeps the values alone (the same byte: 0 undecided or draw, 1 + p decided in p plies,
even p lost and odd p won, 255 no position) and one bit an entry, "looked at this ply":

1. **One pass forward**, without counts: no value for a position not stored; a mate is lost
   at once (value 1); a stalemate stays 0 and is nobody's predecessor; a capture into a lost
   position makes a *provisional* win at that distance (a quiet move may win sooner); a
   position whose every move is a capture into the opponent's win is lost at once, at the
   slowest of them.
2. **Ply by ply backwards.** The frontier of ply p is every index holding p + 1, found by
   scanning the values (no lists). Each is un-moved as in retrograde.py. A predecessor of a
   lost position that is undecided, or holds a provisional win slower than p + 2, is won at
   p + 2. A predecessor of a won position that is undecided (and not looked at yet this ply)
   is looked at: it is lost when every quiet move leads to a *final* win (a win of at most
   p + 1 plies: a provisional win slower than that may still become faster or stay, but is
   not yet decided in retrograde.py's terms) and every capture to the opponent's win, at
   max(p + 1, its slowest capture) plies; that may lie beyond p + 1 (a deferred loss, written
   now and reached by the scan at its ply). Looking stops at the first move that is no final
   win. The scan goes on until no value above the current ply remains.

Why the same bytes: retrograde.py decides a position at the ply its last successor is
decided, and the frontier of its ply p is exactly the positions of value p + 1; a position
looked at here is lost at that same ply, since its last successor to be decided is in that
ply's frontier and un-moves to it, and looking at it any earlier finds a successor not yet a
final win. A provisional win is retrograde.py's `later` list written early: the scan reaches
it at its ply unless a quiet win lowered it first, as the count solver's frontier would have.
"""

from __future__ import annotations

from collections.abc import Callable

from kernel.tables.tablebase import CUBE, DRAW, FORMAT_VERSION, MOST_PLIES, NO_VALUE, Table
from tablebase.retrograde import Capture, Rules, capture_value, is_stored, rules_for


class Looked:
    """One bit an entry: the positions looked at this ply (a failed look fails again within
    the ply, since no value of at most p + 1 changes during it)."""

    def __init__(self, entries: int) -> None:
        self.bits = bytearray((entries + 7) // 8)

    def clear(self) -> None:
        self.bits[:] = bytes(len(self.bits))

    def mark(self, index: int) -> bool:
        """Mark an index; tell whether it was marked already."""
        byte, bit = divmod(index, 8)
        seen = self.bits[byte] >> bit & 1
        self.bits[byte] |= 1 << bit
        return bool(seen)


def solve_lean(
    size: int,
    name: str,
    captures: list[Capture],
    progress: Callable[[str], None] | None = None,
    variant: str = CUBE,
    version: int = FORMAT_VERSION,
) -> bytearray:
    """Give the value of every index of an ending's table, as retrograde.py's `solve` does,
    holding the values and a bit an entry."""
    table = Table(name, size, variant, version)
    rules = rules_for(size, variant)
    by_slot = {capture.slot: capture for capture in captures}
    values = bytearray(table.entries)
    for index in range(table.entries):
        values[index] = first_value(table, rules, by_slot, index, version)
    settle_lean(table, rules, by_slot, values, version, progress)
    return values


def first_value(
    table: Table, rules: Rules, by_slot: dict[int, Capture], index: int, version: int
) -> int:
    """A position's value after the forward pass: NO_VALUE, a mate (1), a provisional win
    (a capture into a lost position), a loss with every move a capture into the opponent's
    win, or DRAW for the rest (undecided, stalemates among them)."""
    side, cells = table.decode(index)
    if not is_stored(table, rules, index, side, cells):
        return NO_VALUE
    letters = table.letters
    moves = quiet = best = floor = 0
    escape = False
    for slot, target, taken in rules.moves(letters, cells, side):
        moves += 1
        if taken < 0:
            quiet += 1
            continue
        after = cells.copy()
        after[slot] = target
        value = capture_value(table.size, by_slot[taken], after, 1 - side, version)
        if value == DRAW or value % 2:  # a draw, or the opponent lost (even plies)
            escape = True
            if value != DRAW and (best == 0 or value < best):
                best = value
        else:
            floor = max(floor, value)
    if moves == 0:
        return 1 if rules.in_check(letters, cells, side) else DRAW
    if best:
        return best + 1  # provisional: a quiet move may win sooner
    if quiet == 0 and not escape:
        return within_plies(table, floor + 1)  # every move a capture into the opponent's win
    return DRAW


def within_plies(table: Table, value: int) -> int:
    """A value to write, refused above MOST_PLIES (255 is NO_VALUE; retrograde.py stops at
    the ply MOST_PLIES too)."""
    if value > MOST_PLIES:
        raise ValueError(f"{table.name}: a mate longer than {MOST_PLIES} plies")
    return value


def settle_lean(
    table: Table,
    rules: Rules,
    by_slot: dict[int, Capture],
    values: bytearray,
    version: int,
    progress: Callable[[str], None] | None,
) -> None:
    """Decide the positions ply by ply backwards, the frontier of ply p the values p + 1."""
    letters = table.letters
    looked = Looked(table.entries)
    highest = max(set(values) - {NO_VALUE}, default=0)
    ply = 0
    while ply + 1 <= highest:
        marker = bytes([ply + 1])
        index = values.find(marker)
        if ply >= MOST_PLIES and index >= 0:
            raise ValueError(f"{table.name}: a mate longer than {MOST_PLIES} plies")
        if ply % 2:
            looked.clear()
        decided = 0
        while index >= 0:
            side, cells = table.decode(index)
            before = {
                table.index(1 - side, earlier)
                for earlier in rules.unmoves(letters, cells, 1 - side)
            }
            before.discard(-1)  # version 3: a king un-moved beside the other, no position
            for previous in before:
                value = values[previous]
                if ply % 2 == 0:  # lost: whoever could move into it wins at p + 2
                    if value == DRAW or (value % 2 == 0 and value > ply + 2):
                        values[previous] = ply + 2
                        highest = max(highest, ply + 2)
                        decided += 1
                elif value == DRAW and not looked.mark(previous):
                    lost = loss_value(table, rules, by_slot, values, previous, ply, version)
                    if lost:
                        values[previous] = lost
                        highest = max(highest, lost)
                        decided += 1
            index = values.find(marker, index + 1)
        ply += 1
        if progress is not None and decided:
            progress(f"{table.name}: ply {ply}, {decided} positions")


def loss_value(
    table: Table,
    rules: Rules,
    by_slot: dict[int, Capture],
    values: bytearray,
    index: int,
    ply: int,
    version: int,
) -> int:
    """The value of an undecided position at (odd) ply `ply` if it is lost now, else 0: lost
    when every quiet move leads to a win of at most ply + 1 plies and every capture to the
    opponent's win, at max(ply + 1, its slowest capture) + 1."""
    side, cells = table.decode(index)
    floor = 0
    for slot, target, taken in rules.moves(table.letters, cells, side):
        after = cells.copy()
        after[slot] = target
        if taken < 0:
            value = values[table.index(1 - side, after)]
            if value == DRAW or value % 2 or value > ply + 1:
                return 0  # undecided, lost, or a win not yet final
        else:
            value = capture_value(table.size, by_slot[taken], after, 1 - side, version)
            if value == DRAW or value % 2:
                return 0  # an escape
            floor = max(floor, value)
    return within_plies(table, max(ply + 1, floor) + 1)
