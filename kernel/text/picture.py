"""The board drawn for people: every layer, top first, side by side while they fit."""

from __future__ import annotations

from kernel.cube.position import Position
from kernel.text.notation import EMPTY, get_file_name_from_x, get_roman_from_level

#: The widest picture a terminal is expected to show.
MAX_WIDTH = 100
GAP = "   "
SHOWN_EMPTY = "."


#: How the last move's cells are marked: its origin drawn so, its target between brackets.
SHOWN_ORIGIN = "*"


def draw_layer(board: Position, z: int, last: tuple[int, int] | None = None) -> list[str]:
    """Draw one layer: a title, ranks back first with their numbers, files along the bottom;
    `last`, the origin and target of the last move, marks them as `*` and `[N]`."""
    size = board.size
    cell_width = len(get_file_name_from_x(size - 1))
    rank_width = len(str(size))
    margin = " " * (rank_width + 1)
    title = f"level {get_roman_from_level(z + 1)}"
    if board.variant.level_letters:  # Raumschach's players name the levels A (I) to E (V)
        title += f" ({chr(ord('A') + z)})"
    lines = [margin + title]
    cells = board.cells
    row_start = board.geometry.row_start
    origin, target = last or (-1, -1)
    for y in reversed(range(size)):
        start = row_start(y, z)
        if not start <= target < start + size and not start <= origin < start + size:
            row = " ".join(
                (SHOWN_EMPTY if letter == EMPTY else letter).rjust(cell_width)
                for letter in cells[start : start + size]
            )
            lines.append(f"{y + 1:>{rank_width}} " + row)
            continue
        # The brackets round the target take the spaces on either side of it.
        line = f"{y + 1:>{rank_width}}"
        for point in range(start, start + size):
            letter = cells[point]
            shown = SHOWN_ORIGIN if point == origin else SHOWN_EMPTY if letter == EMPTY else letter
            before = "[" if point == target else "]" if point - 1 == target else " "
            line += before + shown.rjust(cell_width)
        lines.append(line + ("]" if target == start + size - 1 else ""))
    files = (get_file_name_from_x(x).rjust(cell_width) for x in range(size))
    lines.append(margin + " ".join(files))
    return lines


def draw_board(board: Position, last: tuple[int, int] | None = None) -> str:
    """Draw every layer, top first, putting layers side by side while they fit in 100 columns;
    `last` marks the last move's origin and target."""
    layers = [draw_layer(board, z, last) for z in reversed(range(board.size))]
    # Titles differ in width (level III, level IV), so pad every layer to the widest.
    width = max(len(line) for layer in layers for line in layer)
    layers = [[line.ljust(width) for line in layer] for layer in layers]
    per_band = max(1, (MAX_WIDTH + len(GAP)) // (width + len(GAP)))
    lines: list[str] = []
    for first in range(0, len(layers), per_band):
        band = layers[first : first + per_band]
        lines.extend(GAP.join(parts).rstrip() for parts in zip(*band, strict=True))
    return "\n".join(lines)
