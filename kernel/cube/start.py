"""The start position of a game of a variant (docs/rules.md, "The start position").

Each variant gives white's army (kernel.cube.variants; the cube's is worked out for every size in
kernel.cube.armies); black's is white's turned through the centre of the cube: the piece on
(x, y, z) is black's on (n-1-x, n-1-y, n-1-z), so both sides face the same game.
"""

from __future__ import annotations

from kernel.cube.armies import NO_GAME as NO_GAME
from kernel.cube.armies import NoStartPosition as NoStartPosition
from kernel.cube.armies import white_army as white_army
from kernel.cube.position import Position
from kernel.cube.variants import DEFAULT_VARIANT, Variant


def start_position(size: int, variant: Variant = DEFAULT_VARIANT) -> Position:
    """Build the start position of an n×n×n game of a variant, white to move."""
    if not variant.allows_size(size):
        sizes = ", ".join(map(str, variant.sizes or ()))
        raise NoStartPosition(f"{variant.name} is played on a board of size {sizes} only")
    position = Position.empty(size, variant)
    geometry = position.geometry
    last = size - 1
    for (x, y, z), letter in variant.white_army(size).items():
        position.cells[geometry.get_point_from_cell(x, y, z)] = letter
        position.cells[geometry.get_point_from_cell(last - x, last - y, last - z)] = letter.lower()
    return Position(size, position.cells, variant=variant)
