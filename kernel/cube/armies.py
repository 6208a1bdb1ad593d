"""The cube's armies: white's pieces at the start of a cube game on each board size
(docs/rules.md, "The start position").

From n = 5 on, white's army fills the first two ranks of level I, 2n pieces:

- rank 1: the king on file ⌊n/2⌋, a rook in each corner, and between them knights and
  bishops in turn outwards from the king, a knight first;
- rank 2: the queen in front of the king, then bishops and knights in turn outwards, a
  bishop first.

Black's army is white's turned through the centre of the cube: the piece on (x, y, z) is
black's on (n-1-x, n-1-y, n-1-z), so black fills the last two ranks of the top level and
both sides face the same game. Level I and level n are n-1 levels apart and white's ranks
lie in the front half: no line, leap or step joins the two armies, so neither king is
attacked and no piece can be taken on the first move. The queen stands on rank 2 because
from rank 1 her flat diagonal (0, +1, +1) would reach the enemy's back rank, and no bishop
stands in a corner of rank 1, whose triagonal runs through the cube's centre to the enemy's
corner.

n = 3 is too small for two ranks (the enemy stands two levels up, within a knight's leap
and on the same files); its army is a smaller one of its own. On n = 4 the rule's army lets
white win a rook at once (the queen checks from b2(II) along the king's file and attacks the
corner rook through the centre), so n = 4 has an army of its own too, chosen among every
arrangement of the same pieces on the two ranks as the one a search four and five plies deep
found most even. n = 2 has no game: every two cells of a 2×2×2 board touch, so two kings could
never stand apart.
"""

from __future__ import annotations

#: Board sizes that have no start position, and why.
NO_GAME = {2: "every two cells of a 2×2×2 board touch, so two kings could never stand apart"}

#: The army of the 3-cube, all on level I: the king on b1, a bishop on a2 and on c2, a rook on
#: a3 and on c3, a knight on b3. No queen fits: from any cell of levels I and II she would see
#: the enemy's army (an exhaustive search of the armies of four or more pieces found none).
SMALL_ARMIES: dict[int, dict[tuple[int, int, int], str]] = {
    # The 4-cube: the king in the corner a1 with the queen in front of it, rooks on b1 and c1,
    # a knight on d1; bishops on b2 and d2 and a knight on c2 beside the queen.
    4: {
        **{(x, 0, 0): letter for x, letter in enumerate("KRRN")},
        **{(x, 1, 0): letter for x, letter in enumerate("QBNB")},
    },
    3: {
        (1, 0, 0): "K",
        (0, 1, 0): "B",
        (2, 1, 0): "B",
        (0, 2, 0): "R",
        (2, 2, 0): "R",
        (1, 2, 0): "N",
    },
}


class NoStartPosition(ValueError):
    """A board size that has no start position; the message says why."""


def white_army(size: int) -> dict[tuple[int, int, int], str]:
    """Return white's pieces of the start position: (x, y, z) -> letter."""
    if size in NO_GAME:
        raise NoStartPosition(NO_GAME[size])
    if size in SMALL_ARMIES:
        return dict(SMALL_ARMIES[size])
    king_file = size // 2
    army: dict[tuple[int, int, int], str] = {}
    for x in range(size):
        distance = abs(x - king_file)
        if distance == 0:
            back, front = "K", "Q"
        else:
            back = "N" if distance % 2 else "B"
            front = "B" if distance % 2 else "N"
        if x in (0, size - 1):
            back = "R"
        army[x, 0, 0] = back
        army[x, 1, 0] = front
    return army
