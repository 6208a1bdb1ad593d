"""The board drawn for people: every layer, top first, side by side while they fit."""

from __future__ import annotations

from kernel.notation import EMPTY, get_file_name_from_x, get_roman_from_level
from kernel.position import Position

#: The widest picture a terminal is expected to show.
MAX_WIDTH = 100
GAP = "   "
SHOWN_EMPTY = "."


def draw_layer(board: Position, z: int) -> list[str]:
    """Draw one layer: a title, ranks back first with their numbers, files along the bottom."""
    size = board.size
    cell_width = len(get_file_name_from_x(size - 1))
    rank_width = len(str(size))
    margin = " " * (rank_width + 1)
    lines = [margin + f"level {get_roman_from_level(z + 1)}"]
    cells = board.cells
    row_start = board.geometry.row_start
    for y in reversed(range(size)):
        start = row_start(y, z)
        row = (
            (SHOWN_EMPTY if letter == EMPTY else letter).rjust(cell_width)
            for letter in cells[start : start + size]
        )
        lines.append(f"{y + 1:>{rank_width}} " + " ".join(row))
    files = (get_file_name_from_x(x).rjust(cell_width) for x in range(size))
    lines.append(margin + " ".join(files))
    return lines


def draw_board(board: Position) -> str:
    """Draw every layer, top first, putting layers side by side while they fit in 100 columns."""
    layers = [draw_layer(board, z) for z in reversed(range(board.size))]
    # Titles differ in width (level III, level IV), so pad every layer to the widest.
    width = max(len(line) for layer in layers for line in layer)
    layers = [[line.ljust(width) for line in layer] for layer in layers]
    per_band = max(1, (MAX_WIDTH + len(GAP)) // (width + len(GAP)))
    lines: list[str] = []
    for first in range(0, len(layers), per_band):
        band = layers[first : first + per_band]
        lines.extend(GAP.join(parts).rstrip() for parts in zip(*band, strict=True))
    return "\n".join(lines)
