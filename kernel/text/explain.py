"""The reasoning behind `checkmate`'s answer, in lines a person reads at a terminal.

It asks the same questions as the verdict (kernel.cube.rules: checkers, flights with the king
lifted, pins, evasion cells), but writes down every answer instead of stopping at the first
move that saves the king. It speaks of the side to move, white or black.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from kernel.cube.position import NO_POINT, Move, Position
from kernel.cube.rules import Analysis, attackers, cells_between, compact_difference, pieces_between
from kernel.text.notation import (
    PIECE_NAMES,
    SIDE_LETTERS,
    SIDE_NAMES,
    WALL,
    get_cell_name_from_point,
    get_move_name,
    piece_label,
)

SLIDERS = "qrbQRB"


def explain(analysis: Analysis) -> str:
    """Explain the checkmate verdict of a position, one finding per line."""
    position = analysis.position
    side = SIDE_NAMES[analysis.side]
    saving = next(analysis.legal_moves(), None)
    if not analysis.in_check:
        if analysis.king == NO_POINT:
            lines = [f"not checkmate: {side} has no king, so it is never in check"]
        else:
            king = cell_namer(position)(analysis.king)
            lines = [f"not checkmate: the {side} king on {king} is not in check"]
        if saving is None:
            lines.append(f"stalemate: {side} has no legal move")
        else:
            lines.append(f"{side} can play, for example, {get_move_name(position, saving)}")
        return "\n".join(lines)
    king = cell_namer(position)(analysis.king)
    verdict = "checkmate" if saving is None else "not checkmate"
    label = labeller(position)
    lines = [f"{verdict}: the {side} king on {king} is in check"]
    lines += [f"check from {label(c)} {line_kind(analysis, c)}" for c in analysis.checkers]
    lines += explain_flights(analysis)
    if len(analysis.checkers) > 1:
        lines.append("double check: no capture or block can answer both checkers")
    else:
        lines += explain_captures_and_blocks(analysis)
    if saving is not None:
        move_name = get_move_name(position, saving)
        lines.append(f"saving move: {move_name} {what_it_does(analysis, saving)}")
    return "\n".join(lines)


def explain_flights(analysis: Analysis) -> list[str]:
    """Say, for each cell next to the king, whether the king may go there and why not."""
    position = analysis.position
    name = cell_namer(position)
    label = labeller(position)
    lines = []
    for target in sorted(analysis.king + step for step in position.offsets.queen):
        piece = position.cells[target]
        if piece == WALL:
            continue
        if piece in SIDE_LETTERS[analysis.side]:
            lines.append(f"flight {name(target)}: own piece {label(target)} stands there")
            continue
        head = f"flight {name(target)}"
        if piece in SIDE_LETTERS[analysis.enemy]:
            head += f" (capture of {label(target)})"
        guards = enemy_guards(analysis, target)
        if guards:
            named = ", ".join(guard_name(analysis, guard, target) for guard in guards)
            lines.append(f"{head}: guarded by {named}")
        else:
            lines.append(f"{head}: free, the king can go there")
    return lines


def guard_name(analysis: Analysis, guard: int, target: int) -> str:
    """Name a guard of a flight cell, marking a line that runs through the king's cell."""
    position = analysis.position
    text = piece_label(position, guard)
    if position.cells[guard] in SLIDERS and analysis.king in cells_between(position, guard, target):
        text += " (through the king's cell)"
    return text


def explain_captures_and_blocks(analysis: Analysis) -> list[str]:
    """Say, for the checker's cell and each cell of its line, which own piece could go there."""
    position = analysis.position
    name = cell_namer(position)
    label = labeller(position)
    side = SIDE_NAMES[analysis.side]
    checker = analysis.checkers[0]
    lines = []
    for target in analysis.evasion_cells():
        what = f"capture of {label(target)}" if target == checker else f"block on {name(target)}"
        reachers = attackers(position, target, analysis.side)
        helpers = [origin for origin in reachers if origin != analysis.king]
        # The king blocks nothing (that is a flight), but it may take a checker next to it.
        king_takes = target == checker and analysis.king in reachers
        if king_takes:
            lines.append(f"{what}: {king_capture(analysis, target)}")
        for origin in helpers:
            line = analysis.pin_of(origin)
            if line is not None and target not in line:
                lines.append(f"{what}: {label(origin)} is pinned by {label(line.start)}")
            else:
                lines.append(f"{what}: {label(origin)} can do it")
        blocked = [pair for pair in blocked_sliders(analysis, target) if pair[1] not in helpers]
        for slider, blocker in blocked:
            lines.append(f"{what}: {label(slider)} is blocked by {label(blocker)}")
        if not helpers and not blocked and not king_takes:
            lines.append(f"{what}: no {side} piece can reach it")
    return lines


def king_capture(analysis: Analysis, target: int) -> str:
    """Say whether the king may take the piece next to it, or who would guard it there."""
    guards = enemy_guards(analysis, target)
    if not guards:
        return "the king can take it"
    named = ", ".join(guard_name(analysis, guard, target) for guard in guards)
    return f"the king would be guarded there by {named}"


def enemy_guards(analysis: Analysis, target: int) -> list[int]:
    """List the enemy pieces that would attack the king on target, seeing through its cell."""
    return sorted(attackers(analysis.position, target, analysis.enemy, analysis.king))


def blocked_sliders(analysis: Analysis, target: int) -> Iterator[tuple[int, int]]:
    """Yield own sliders that would reach target but for one piece in between."""
    position = analysis.position
    attacks = position.offsets.attacks
    for origin, letter in position.pieces[analysis.side].items():
        attack = attacks.get(compact_difference(position, origin, target))
        if attack is None or not attack.step or letter not in attack.letters:
            continue
        between = pieces_between(position, origin, target)
        if len(between) == 1:
            yield origin, between[0]


def what_it_does(analysis: Analysis, move: Move) -> str:
    """Describe how a legal move answers the check."""
    name = cell_namer(analysis.position)
    enemy = SIDE_NAMES[analysis.enemy]
    captured = move.captured.lower()
    if move.origin == analysis.king:
        if captured in PIECE_NAMES:
            return f"(the king takes the {PIECE_NAMES[captured]}, and no piece guards it)"
        return f"(the king steps to {name(move.target)}, which no {enemy} piece attacks)"
    if captured in PIECE_NAMES:
        return f"(captures the checking {PIECE_NAMES[captured]})"
    return f"(blocks the line of the check on {name(move.target)})"


def labeller(position: Position) -> Callable[[int], str]:
    """Return a function naming the piece on a cell as letter and cell, as `rc1(III)`."""
    return lambda point: piece_label(position, point)


def cell_namer(position: Position) -> Callable[[int], str]:
    """Return a function naming a cell of this position, as `c2(II)`."""
    return lambda point: get_cell_name_from_point(position.geometry, point)


def line_kind(analysis: Analysis, checker: int) -> str:
    """Describe the line along which a piece gives check."""
    position = analysis.position
    piece = position.cells[checker].lower()
    if piece == "n":
        return "(knight, a leap)"
    if piece == "k":
        return "(king, from the next cell)"
    king_xyz = position.geometry.get_xyz_from_point(analysis.king)
    checker_xyz = position.geometry.get_xyz_from_point(checker)
    moved = [axis for axis, a, b in zip("xyz", king_xyz, checker_xyz, strict=True) if a != b]
    line = {
        "x": "along the rank",
        "y": "along the file",
        "z": "straight through the levels",
    }.get("".join(moved), "along a flat diagonal" if len(moved) == 2 else "along a triagonal")
    return f"({PIECE_NAMES[piece]}, {line})"
