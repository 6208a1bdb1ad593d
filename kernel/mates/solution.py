"""How each key of a mate in N mates, written for people: `solution N`.

One line per key; under it each defence with a mating answer, indented two spaces per move
pair, down to the mate, marked `#` (docs/protocol.md shows the format). Where several answers
mate as fast, the first by name is shown, so the same position always gives the same text.
"""

from __future__ import annotations

from typing import Protocol

from kernel.cube.position import Move, Position
from kernel.cube.rules import Analysis
from kernel.text.notation import get_move_name


class MateSolver(Protocol):
    """What a solution asks of a mate search (kernel.mates.proofnumber's, or the tests'
    reference)."""

    def keys(self, position: Position, moves: int) -> list[Move]:
        """Return every move of the side to move that mates in `moves` or fewer."""
        ...

    def mating_answers(self, position: Position, moves: int) -> tuple[list[Move], int]:
        """Return the moves of the shortest mate within `moves`, and its length; ([], 0)."""
        ...


def write_solution(search: MateSolver, position: Position, moves: int) -> list[str]:
    """Write each key and, under it, each defence with a mating answer, down to the mate."""
    lines: list[str] = []
    keys = sorted(search.keys(position, moves), key=lambda move: get_move_name(position, move))
    for key in keys:
        name = get_move_name(position, key)
        position.play(key)
        try:
            tree = defences_tree(search, position, moves, "  ")
        finally:
            position.undo(key)
        lines.append(name + ("" if tree else " #"))
        lines.extend(tree)
    return lines


def defences_tree(search: MateSolver, position: Position, moves: int, indent: str) -> list[str]:
    """Write each defence of the position and the attacker's mating answer, recursively.

    Empty when the defender is already mated.
    """
    lines: list[str] = []
    defences = sorted(Analysis(position).legal_moves(), key=lambda m: get_move_name(position, m))
    for defence in defences:
        defence_name = get_move_name(position, defence)
        position.play(defence)
        try:
            answers, depth = search.mating_answers(position, moves - 1)
            if not answers:  # cannot happen under a key; say so rather than hide it
                raise AssertionError("a key's defence has no mating answer")
            answer = min(answers, key=lambda move: get_move_name(position, move))
            mated = depth == 1
            line = f"{indent}{defence_name} {get_move_name(position, answer)}"
            lines.append(line + (" #" if mated else ""))
            if not mated:
                position.play(answer)
                try:
                    lines.extend(defences_tree(search, position, depth, indent + "  "))
                finally:
                    position.undo(answer)
        finally:
            position.undo(defence)
    return lines
