"""How each key of a selfmate in N works, written for people: `solution N selfmate`.

The format of the direct mate's solution (kernel/mates/solution.py), with the roles turned round:
one line per key; under it each answer of the other side, indented two spaces per move pair,
followed by the next move of the side to move, down to the answer that mates it, marked `#`.
Where several moves force the selfmate as fast, the first by name is shown, so the same
position always gives the same text.
"""

from __future__ import annotations

from kernel.cube.position import Position
from kernel.cube.rules import Analysis
from kernel.mates.selfmate import SelfmateSearch
from kernel.text.notation import get_move_name


def write_selfmate_solution(search: SelfmateSearch, position: Position, moves: int) -> list[str]:
    """Write each key and, under it, each answer with the next move, down to the mate."""
    lines: list[str] = []
    keys = sorted(search.keys(position, moves), key=lambda move: get_move_name(position, move))
    for key in keys:
        lines.append(get_move_name(position, key))
        position.play(key)
        try:
            lines.extend(answers_tree(search, position, moves, "  "))
        finally:
            position.undo(key)
    return lines


def answers_tree(search: SelfmateSearch, position: Position, moves: int, indent: str) -> list[str]:
    """Write each answer of the other side (to move) and how the side that moved goes on."""
    lines: list[str] = []
    answers = sorted(Analysis(position).legal_moves(), key=lambda m: get_move_name(position, m))
    for answer in answers:
        answer_name = get_move_name(position, answer)
        position.play(answer)
        try:
            if Analysis(position).is_checkmate():
                lines.append(f"{indent}{answer_name} #")
                continue
            nexts, depth = search.shortest(position, moves - 1)
            if not nexts:  # cannot happen under a key; say so rather than hide it
                raise AssertionError("a selfmate key's answer has no way on")
            follow = min(nexts, key=lambda move: get_move_name(position, move))
            lines.append(f"{indent}{answer_name} {get_move_name(position, follow)}")
            position.play(follow)
            try:
                lines.extend(answers_tree(search, position, depth, indent + "  "))
            finally:
                position.undo(follow)
        finally:
            position.undo(answer)
    return lines
