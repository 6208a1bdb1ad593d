"""The slow, obviously-correct endgame table: plain value iteration over every position.

Written on tests/reference.py's brute-force rules, independently of the generator
(tablebase/retrograde.py and kernel/core/retrograde.c): no symmetry, no indexing, no
un-moves. Every placement of the pieces of an ending (and of every smaller ending a capture
leads into) on distinct cells, each side to move, is one node; its successors are the
positions after its legal moves. Then, ply after ply:

- a position with no legal move is `loss 0` when in check (checkmated), a draw otherwise
  (stalemate); bare kings are a draw at once;
- a position with a move to a position lost in p - 1 plies is won in p plies;
- a position whose every move leads to a position won (for the opponent) in at most p - 1
  plies is lost in p plies;
- what is left when nothing changes any more is a draw.

Distances count moves to mate, as the engine's tables do (`win 1`: mates with its move,
`loss 0`: checkmated now), ignoring the fifty-move rule. Positions in which the side not to
move is in check are no game positions and get no value (they are left out).
"""

from __future__ import annotations

import itertools

from tests import reference
from tests.reference import Cell, Position

#: A position as a key: its pieces (cell, letter), sorted, and the side to move.
Key = tuple[tuple[tuple[Cell, str], ...], str]
#: A value: ("win", K), ("loss", K) or ("draw", 0).
Value = tuple[str, int]


def key_of(position: Position) -> Key:
    """Make the key of a position."""
    return tuple(sorted(position.pieces.items())), position.side


def materials(white: str, black: str) -> set[tuple[str, str]]:
    """List the non-king pieces of each side of an ending and of every ending captures lead to."""
    found: set[tuple[str, str]] = set()
    for w in range(len(white) + 1):
        for b in range(len(black) + 1):
            for whites in itertools.combinations(white, w):
                for blacks in itertools.combinations(black, b):
                    found.add(("".join(whites), "".join(blacks)))
    return found


def positions(n: int, white: str, black: str) -> list[Position]:
    """List every game position of one ending on the n-cube, both sides to move."""
    letters = "K" + white + "k" + black.lower()
    cells: list[Cell] = [(x, y, z) for z in range(n) for y in range(n) for x in range(n)]
    found: list[Position] = []
    for placement in itertools.permutations(cells, len(letters)):
        pieces = dict(zip(placement, letters, strict=True))
        for side in (reference.WHITE, reference.BLACK):
            position = Position(n, pieces, side)
            if reference.is_game_position(position):
                found.append(position)
    return found


def solve(n: int, white: str, black: str) -> dict[Key, Value]:
    """Give the value of every game position of an ending (and of the endings below it)."""
    nodes: dict[Key, list[Key]] = {}
    checked: dict[Key, bool] = {}
    for whites, blacks in materials(white, black):
        for position in positions(n, whites, blacks):
            key = key_of(position)
            checked[key] = reference.side_in_check(position, position.side)
            if not whites and not blacks:
                nodes[key] = []  # bare kings: a draw, whatever could be played
                checked[key] = False
                continue
            nodes[key] = [key_of(after) for _, after in reference.successors(position)]
    plies: dict[Key, int] = {}
    for key, successors in nodes.items():
        if not successors and checked[key]:
            plies[key] = 0
    ply = 0
    while True:
        ply += 1
        found = {}
        for key, successors in nodes.items():
            if key in plies or not successors:
                continue
            if ply % 2:
                if any(plies.get(after, -1) == ply - 1 for after in successors):
                    found[key] = ply
            elif all(
                after in plies and plies[after] % 2 == 1 and plies[after] < ply
                for after in successors
            ):
                found[key] = ply
        plies.update(found)
        # Nothing found at two plies running: nothing later can be found either (every new
        # value stands on one found the ply before).
        if not found and ply > max(plies.values(), default=0) + 1:
            break
    values: dict[Key, Value] = {}
    for key in nodes:
        if key not in plies:
            values[key] = ("draw", 0)
        elif plies[key] % 2:
            values[key] = ("win", (plies[key] + 1) // 2)
        else:
            values[key] = ("loss", plies[key] // 2)
    return values


def text_of(value: Value) -> str:
    """Write a value as tb_probe answers it: `win 3`, `loss 0`, `draw`."""
    return "draw" if value[0] == "draw" else f"{value[0]} {value[1]}"
