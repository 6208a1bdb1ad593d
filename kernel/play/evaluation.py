"""How good a position is for the side to move, in centipawns (docs/search.md, "The evaluation").

There are no pawns on the cube, but engines and players think in pawns, so the unit is kept:
100 centipawns are what 1.6 cells of mobility are worth, the rate at which the flat-board
values (knight and bishop 3¼, rook 5, queen 9) follow the pieces' mobility (below).

**Material.** A piece is worth what it can reach. On an empty board that overrates the
sliders, whose rays are soon blocked on a real one; so the reach counted is that on a board
whose every cell is occupied with probability 0.3: a cell k steps along a ray counts 0.7^(k-1).
On the flat 8×8 board this "blocked mobility" gives knight 5.25, bishop 5.93, rook 8.1 and
queen 14.0 cells, in the proportions 3.25 : 3.7 : 5.0 : 8.7 of the classical values; so
each piece's value here is its blocked mobility on the cube of the game's size, averaged over
the cells, at 62 centipawns a cell. On 5³ that makes a knight (24 leaps) 714, a rook 552, a
bishop (8 triagonals, a quarter of the cells) 346 and a queen 1630.

**Other variants.** Raumschach's pieces are valued the same way from their own moves (its
bishop's 12 flat diagonals, the unicorn's 8 triagonals: the cube's bishop), and so is its
pawn, from the cells it takes on (a leaper's reach): on 5³ a pawn is worth 198, a bishop 732
and a unicorn 346, against a knight's 714. These values were kept by SPRTs at 20,000
positions a move (the factors `evaluation.unicorn`, `.bishop`, `.pawn`): the unicorn valued
as a knight lost 129 Elo, the bishop valued as the unicorn 175, and the pawn at 1.5 was no
better (H0). A pawn also gains `PAWN_ADVANCE` centipawns for each step it has made towards
its promotion cell, and `PAWN_NEAR` more on the step before it (config
`evaluation.pawn_advance`, `evaluation.pawn_near`). These terms are first estimates, kept by
an SPRT against none (+245 Elo) and against twice the bonus a step (H0): docs/arena.md,
"Raumschach's evaluation".

**Passed pawns.** With config `evaluation.pawn_passed` above 0, a pawn that no enemy pawn
can ever stop or take on its way (none stands ahead of it along every axis pawns advance on
and beside it by at most one cell on the others: `opposes`) gains up to that many centipawns
more, growing as the square of the steps it has made. It is off (`PAWN_PASSED`): at 200 the
SPRTs found it no better than none, +9 (−14 … +33) over 642 games at 20,000 positions a move
and −58 (−120 … +0) over 66 at 200,000, and 600 and 100 no better than 200 (docs/arena.md).

**Placement.** A piece on a cell from which it reaches more than its average gains
`PLACEMENT_WEIGHT` centipawns per cell above the average (and loses them below): the centre
is worth more than the edge, the corner least.

**King exposure.** The king has up to 26 neighbours, any of which an attack can come through.
Each open neighbour (on the board and not held by the king's own piece) costs
`EXPOSURE_WEIGHT` while the enemy keeps its army, scaled down as the enemy's material goes;
with little material left the king's reach is worth as much as a piece's, and it heads for
the centre.

**Mating power.** On the 4-cube and larger, an army without a queen and of at most two other
pieces mates a lone king in under 4 % of positions (the endgame tables: docs/tablebases.md;
none at all with a bishop or two knights), and in the arena's games on 5³ no larger army
without one found a mate either: every fifty-move draw there was an ending without a queen on
the stronger side. So such an advantage is mostly a draw: when the side the score favours has
no queen (and fewer than `MATING_PIECES` other pieces: by default any number; on the 4-cube,
whose five-piece tables show three rooks or knights mating, fewer than three), the score is
divided by `DRAWISH_DIVISOR`, and the player keeps its queen rather than trade into a draw
(an SPRT at 200,000 nodes a move on 5³ accepted it: docs/arena.md).

**Contempt.** Against a weaker opponent a draw is half a point lost, and on 5³ most draws
of the compiled player against the Python one followed an early trade of queens. With a
contempt of C centipawns (config `evaluation.contempt`, `CONTEMPT`), a position neither side
can mate in (by the rule above), a repetition, the fifty-move rule and a stalemate count C
against the side the search is for (`draw_value`); the evaluation stays the same for both
sides, only the search knows whose side it is on. At 300 the compiled player scored +295
(+201 … +447) against the Python one at 0.3 s a move on 5³, both with it (SPRT of 150
against 300: H1; about +250 over 162 games with other openings), where without it +137 and at
100 +159 (both H0); against itself without one it costs about 28 Elo (docs/arena.md).

Both material and placement are sums over pieces, kept up to date move by move by the
search (`move_delta`); exposure looks at the two kings' neighbours at each evaluation.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from kernel.cube.board import EMPTY, SIDE_LETTERS
from kernel.cube.directions import BISHOP_STEPS, KNIGHT_STEPS, QUEEN_STEPS, ROOK_STEPS, Step
from kernel.cube.position import BLACK, WHITE, Position
from kernel.cube.start import NoStartPosition, start_position
from kernel.cube.variants import CUBE, PAWN_LETTERS, RAUMSCHACH, Variant, pawn_axes

#: The chance that a cell on a ray is occupied, for the blocked mobility (see above).
BLOCKING = 0.3
#: The most cells of a ray counted: 0.7^16 is under 1 %.
RAY_LIMIT = 16
#: Centipawns per cell of blocked mobility: the flat board's rate.
CENTIPAWNS_PER_CELL = 62
#: Centipawns per cell of reach above (or below) a piece's average on its cell.
PLACEMENT_WEIGHT = 16
#: The same on Raumschach's board, whose armies start on its edge levels: half the cube's,
#: since its SPRTs (docs/arena.md, "Raumschach's evaluation").
RAUMSCHACH_PLACEMENT_WEIGHT = 8
#: Centipawns per open neighbour of a king, with the enemy's whole army on the board.
EXPOSURE_WEIGHT = 12
#: Centipawns per cell a king reaches, once the enemy has no material left (or it has none).
KING_REACH_WEIGHT = 6
#: Centipawns per step the winner's king comes nearer a bare enemy king.
CORNERING_WEIGHT = 10
#: What the score is divided by when the side it favours cannot mate (1: never divided).
DRAWISH_DIVISOR = 8
#: The fewest pieces besides the king that may mate without a queen: more than any army has
#: (the tables show two do not; the games, that the search finds no mate with more).
MATING_PIECES = 1000
#: On the 4-cube three pieces without a queen mate a lone king in 72 to 77 % of positions
#: (three rooks or knights, or a rook and two others but two bishops: the five-piece tables).
MATING_PIECES_ON_4 = 3
#: The smallest board on which two pieces without a queen do not mate (on 3³ a rook and a
#: knight, or two rooks, mate a lone king in 70 to 77 % of positions).
DRAWISH_FROM_SIZE = 4
#: Centipawns a draw costs the side the search is for (0: a draw is worth nothing either way).
CONTEMPT = 300

#: The moves of each kind of the cube's pieces: its steps and whether it slides.
MOVES: dict[str, tuple[tuple[Step, ...], bool]] = {
    "k": (QUEEN_STEPS, False),
    "q": (QUEEN_STEPS, True),
    "r": (ROOK_STEPS, True),
    "b": (BISHOP_STEPS, True),
    "n": (KNIGHT_STEPS, False),
}
#: Centipawns a pawn gains for each step it has made towards its promotion cell.
PAWN_ADVANCE = 20
#: Centipawns more for a pawn one step from its promotion cell.
PAWN_NEAR = 150
#: Centipawns a passed pawn would gain on its promotion cell; it gains (made / all)² of them,
#: where made is the steps it has made and all those from its first row's corner. 0: the
#: term is off, its SPRTs having found it no better than none (above).
PAWN_PASSED = 0
#: The most passed-pawn terms a search keeps, by its pawns' cells (a few MB).
PAWN_TERMS_KEPT = 1 << 14


@cache
def variant_moves(variant: Variant) -> dict[str, tuple[tuple[Step, ...], bool]]:
    """Each kind's steps and whether it slides, in a variant; a pawn counts its captures."""
    moves = {piece.letter.lower(): (piece.steps, piece.slides) for piece in variant.rules.pieces}
    if variant.has_pawns:
        moves["p"] = (variant.rules.pawn_captures, False)
    return moves


def blocked_reach(
    kind: str, cell: tuple[int, int, int], size: int, variant: Variant = CUBE
) -> float:
    """Return how many cells a piece reaches from `cell`, each ray cell k away weighted 0.7^(k-1).

    Rays are followed `RAY_LIMIT` cells at most: further cells weigh less than 1 %. A white
    pawn's steps are counted (black's are the same turned round).
    """
    steps, slides = variant_moves(variant)[kind]
    total = 0.0
    for dx, dy, dz in steps:
        x, y, z = cell
        weight = 1.0
        for _ in range(RAY_LIMIT if slides else 1):
            x, y, z = x + dx, y + dy, z + dz
            if not (0 <= x < size and 0 <= y < size and 0 <= z < size):
                break
            total += weight
            weight *= 1.0 - BLOCKING
    return total


@cache
def average_reach(kind: str, size: int, variant: Variant = CUBE) -> float:
    """Return a piece's blocked reach averaged over every cell of the board.

    Worked out per step rather than per cell: a step repeated k times stays on the board
    from a fraction (n - k|d|)/n of the cells along each axis it moves by d, and the axes
    are independent.
    """
    steps, slides = variant_moves(variant)[kind]
    total = 0.0
    for step in steps:
        weight = 1.0
        for distance in range(1, (RAY_LIMIT if slides else 1) + 1):
            inside = 1.0
            for part in step:
                inside *= max(0, size - distance * abs(part)) / size
            if inside == 0.0:
                break
            total += weight * inside
            weight *= 1.0 - BLOCKING
    return total


@cache
def piece_values(size: int, variant: Variant = CUBE) -> dict[str, int]:
    """Return each letter's material value on this size, signed: white's positive."""
    values = {"k": 0}
    for kind in variant_moves(variant):
        if kind != "k":
            values[kind] = round(CENTIPAWNS_PER_CELL * average_reach(kind, size, variant))
    signed: dict[str, int] = {}
    for kind, value in values.items():
        signed[kind.upper()] = value
        signed[kind] = -value
    return signed


@dataclass(frozen=True)
class Weights:
    """The evaluation's tunable numbers (config `[evaluation]`): a factor on each derived
    piece value (Raumschach's unicorn and pawn too), the centipawns of placement, exposure,
    king reach and cornering, the divisor of a score whose side cannot mate, the pieces
    without a queen that can, the contempt for a draw, and a pawn's advance, near and passed
    bonuses."""

    queen: float = 1.0
    rook: float = 1.0
    bishop: float = 1.0
    knight: float = 1.0
    unicorn: float = 1.0
    pawn: float = 1.0
    placement: int = PLACEMENT_WEIGHT
    raumschach_placement: int = RAUMSCHACH_PLACEMENT_WEIGHT
    exposure: int = EXPOSURE_WEIGHT
    king_reach: int = KING_REACH_WEIGHT
    cornering: int = CORNERING_WEIGHT
    drawish: int = DRAWISH_DIVISOR
    mating_pieces: int = MATING_PIECES
    contempt: int = CONTEMPT
    pawn_advance: int = PAWN_ADVANCE
    pawn_near: int = PAWN_NEAR
    pawn_passed: int = PAWN_PASSED

    def placement_for(self, variant: Variant) -> int:
        """The centipawns of a cell of placement under these rules: Raumschach's own weight,
        or the cube's."""
        return self.raumschach_placement if variant.name == RAUMSCHACH.name else self.placement

    def values(self, size: int, variant: Variant = CUBE) -> dict[str, int]:
        """Return each letter's value on this size with the factors applied, signed."""
        factors = {
            "q": self.queen,
            "r": self.rook,
            "b": self.bishop,
            "n": self.knight,
            "u": self.unicorn,
            "p": self.pawn,
            "k": 0,
        }
        return {
            letter: round(value * factors.get(letter.lower(), 1.0))
            for letter, value in piece_values(size, variant).items()
        }


#: The weights the engine plays with unless its config says otherwise.
DEFAULT_WEIGHTS = Weights()


class Tables:
    """The evaluation's numbers for one board size: values, and placement by memory point.

    Placement is worked out for a cell the first time a piece stands on it, not for all
    n³ cells at once: a 64-cube has 262,144 cells, and a game visits few of them.
    """

    __slots__ = (
        "_fronts",
        "_neighbours",
        "geometry",
        "offsets",
        "passed",
        "pawn_terms",
        "placement",
        "size",
        "start_material",
        "values",
        "variant",
        "weights",
    )

    def __init__(self, position: Position, weights: Weights = DEFAULT_WEIGHTS) -> None:
        self.size = position.size
        self.geometry = position.geometry
        self.offsets = position.offsets
        self.weights = weights
        self.variant = position.variant
        self._neighbours: dict[int, tuple[int, ...]] = {}
        #: Whether the passed-pawn term counts (a variant with pawns, a weight above 0).
        self.passed = self.variant.has_pawns and weights.pawn_passed > 0
        #: (letter, point) -> the enemy pawns' points that oppose a pawn there, and its bonus.
        self._fronts: dict[tuple[str, int], tuple[frozenset[int], int]] = {}
        #: (white's pawns' points, black's) -> the passed-pawn term (`passed_pawns`).
        self.pawn_terms: dict[tuple[frozenset[int], frozenset[int]], int] = {}
        self.values = weights.values(self.size, self.variant)
        #: letter -> memory point -> signed centipawns of material and placement together.
        self.placement: dict[str, dict[int, int]] = {letter: {} for letter in self.values}
        #: What a whole army is worth, kings aside: the start position's, or this one's on a
        #: size that has none; the measure of how much attacking material is left.
        self.start_material = max(1, full_army(self.size, position, self.values, self.variant))

    def worth(self, letter: str, point: int) -> int:
        """Return a piece's material and placement on a point, signed: white's positive."""
        known = self.placement[letter].get(point)
        if known is None:
            kind = letter.lower()
            cell = self.geometry.get_cell_from_point(point)
            if letter == "p":
                last = self.size - 1  # black's pawn is white's turned through the centre
                cell = (last - cell[0], last - cell[1], last - cell[2])
            variant = self.variant
            reach = blocked_reach(kind, cell, self.size, variant) - average_reach(
                kind, self.size, variant
            )
            bonus = 0 if kind == "k" else round(self.weights.placement_for(variant) * reach)
            if letter in PAWN_LETTERS:
                bonus += pawn_advance(variant, self.size, cell, self.weights)
            value = self.values[letter]
            known = value + bonus if letter.isupper() else value - bonus
            self.placement[letter][point] = known
        return known

    def neighbours(self, point: int) -> tuple[int, ...]:
        """Return the board cells next to a cell (up to 26), worked out once per cell."""
        known = self._neighbours.get(point)
        if known is None:
            size = self.size
            x, y, z = self.geometry.get_cell_from_point(point)
            known = tuple(
                point + offset
                for offset, (dx, dy, dz) in zip(self.offsets.queen, QUEEN_STEPS, strict=True)
                if 0 <= x + dx < size and 0 <= y + dy < size and 0 <= z + dz < size
            )
            self._neighbours[point] = known
        return known

    def front(self, letter: str, point: int) -> tuple[frozenset[int], int]:
        """Return the points from which an enemy pawn opposes a pawn (`letter`) on `point`,
        and what the pawn gains when none stands on them (white's sign), worked out once."""
        known = self._fronts.get((letter, point))
        if known is None:
            size = self.size
            axes = pawn_axes(self.variant)
            cell = self.geometry.get_cell_from_point(point)
            last = size - 1
            if letter == "p":  # a black pawn is a white one on the cell turned round
                cell = (last - cell[0], last - cell[1], last - cell[2])
            turned = letter == "p"
            points = frozenset(
                self.geometry.get_point_from_cell(
                    *((last - x, last - y, last - z) if turned else (x, y, z))
                )
                for x, y, z in cells_of(size)
                if opposes(cell, (x, y, z), axes)
            )
            bonus = passed_bonus(self.variant, size, cell, self.weights)
            known = (points, bonus if letter == "P" else -bonus)
            self._fronts[(letter, point)] = known
        return known

    def material(self, position: Position) -> int:
        """Sum every piece's worth, signed: white's positive."""
        return sum(
            self.worth(letter, point)
            for pieces in position.pieces
            for point, letter in pieces.items()
        )


def pawn_advance(
    variant: Variant, size: int, cell: tuple[int, int, int], weights: Weights = DEFAULT_WEIGHTS
) -> int:
    """Return a white pawn's bonus on a cell for its steps towards promotion (a black pawn's
    cell turned through the centre first)."""
    axes = pawn_axes(variant)
    left = sum(size - 1 - cell[axis] for axis in axes)
    made = len(axes) * (size - 1) - left
    return weights.pawn_advance * made + (weights.pawn_near if left == 1 else 0)


def passed_bonus(
    variant: Variant, size: int, cell: tuple[int, int, int], weights: Weights = DEFAULT_WEIGHTS
) -> int:
    """Return what a white pawn on a cell gains when it is passed: `pawn_passed` times the
    square of the fraction of its way made (a black pawn's cell turned through the centre
    first)."""
    axes = pawn_axes(variant)
    way = len(axes) * (size - 1)
    made = sum(cell[axis] for axis in axes)
    return weights.pawn_passed * made * made // (way * way)


def opposes(
    white: tuple[int, int, int], black: tuple[int, int, int], axes: tuple[int, ...]
) -> bool:
    """Tell whether a black pawn on `black` opposes a white one on `white`: it stands ahead
    of it along every axis pawns advance on (further along one at least) and at most one cell
    beside it along the others, so it can stand in its way or take it, or be taken."""
    ahead = False
    for axis in range(3):
        apart = black[axis] - white[axis]
        if axis in axes:
            if apart < 0:
                return False
            ahead = ahead or apart > 0
        elif abs(apart) > 1:
            return False
    return ahead


@cache
def cells_of(size: int) -> tuple[tuple[int, int, int], ...]:
    """Return every cell of a board of this size."""
    return tuple((x, y, z) for z in range(size) for y in range(size) for x in range(size))


def passed_pawns(position: Position, tables: Tables) -> int:
    """Return, for white, the passed pawns' bonus: each pawn no enemy pawn opposes gains
    its `passed_bonus`. The terms found are kept by the pawns' cells: the pawns stand still
    in most moves of a search."""
    pawns = (
        frozenset(point for point, letter in position.pieces[WHITE].items() if letter == "P"),
        frozenset(point for point, letter in position.pieces[BLACK].items() if letter == "p"),
    )
    known = tables.pawn_terms.get(pawns)
    if known is not None:
        return known
    total = 0
    for side, letter in ((WHITE, "P"), (BLACK, "p")):
        for point in pawns[side]:
            opposers, bonus = tables.front(letter, point)
            if opposers.isdisjoint(pawns[1 - side]):
                total += bonus
    if len(tables.pawn_terms) >= PAWN_TERMS_KEPT:
        tables.pawn_terms.clear()  # a bound on memory; the terms are soon found again
    tables.pawn_terms[pawns] = total
    return total


def full_army(
    size: int, position: Position, values: dict[str, int], variant: Variant = CUBE
) -> int:
    """Return what one side's army of the start position is worth (kings aside), or this
    position's larger army on a size without a start position."""
    letters = start_army(size, variant)
    if not letters:
        return army_value(position, values)
    return sum(values[letter] for letter in letters)


@cache
def start_army(size: int, variant: Variant = CUBE) -> tuple[str, ...]:
    """Return the letters of white's army in the start position of a size; () if none."""
    try:
        return tuple(start_position(size, variant).pieces[WHITE].values())
    except NoStartPosition:
        return ()


def army_value(position: Position, values: dict[str, int]) -> int:
    """Return the larger of the two sides' material, kings aside (at least one side's army)."""
    return max(abs(sum(values[letter] for letter in pieces.values())) for pieces in position.pieces)


def move_delta(tables: Tables, move: tuple[str, int, int, str, str]) -> int:
    """Return how a move changes the signed material-and-placement sum."""
    letter, origin, target, captured, promotion = move
    landed = letter if promotion == EMPTY else promotion
    delta = tables.worth(landed, target) - tables.worth(letter, origin)
    if captured != EMPTY:
        delta -= tables.worth(captured, target)
    return delta


def king_safety(position: Position, tables: Tables, side: int, army: list[int]) -> int:
    """Return the king's exposure and reach term for `side`, in centipawns (higher is better).

    Open neighbours cost while the enemy has material to attack with and the king has an
    army of its own to shelter behind; with the enemy's army gone, or its own, they count
    as reach: a king alone against an army needs room, and the centre gives it most.
    """
    king = position.kings[side]
    if king < 0:
        return 0
    cells = position.cells
    own = SIDE_LETTERS[side]
    open_cells = 0
    for point in tables.neighbours(king):
        if cells[point] not in own:
            open_cells += 1
    start = tables.start_material
    danger = min(1.0, army[1 - side] / start) * min(1.0, 2 * army[side] / start)
    weights = tables.weights
    return round((weights.king_reach * (1.0 - danger) - weights.exposure * danger) * open_cells)


def cornering(position: Position, tables: Tables, army: list[int]) -> int:
    """Return, for white, the bonus of driving a bare king towards the winner's king.

    A bare king is mated only near the winner's king, so the winning side gains
    `CORNERING_WEIGHT` for each step the kings come closer (the distance is the king's
    steps, the largest difference along an axis).
    """
    for loser in (WHITE, BLACK):
        if army[loser] == 0 and army[1 - loser] > 0:
            ours, theirs = position.kings[1 - loser], position.kings[loser]
            if ours < 0 or theirs < 0:
                return 0
            a = tables.geometry.get_cell_from_point(ours)
            b = tables.geometry.get_cell_from_point(theirs)
            distance = max(abs(a[0] - b[0]), abs(a[1] - b[1]), abs(a[2] - b[2]))
            bonus = tables.weights.cornering * (tables.size - distance)
            return bonus if loser == BLACK else -bonus
    return 0


def armies(position: Position, tables: Tables) -> list[int]:
    """Return each side's material, kings aside, unsigned: white's then black's."""
    return [
        abs(sum(tables.values[letter] for letter in pieces.values())) for pieces in position.pieces
    ]


def evaluate(
    position: Position, tables: Tables, material: int, army: list[int], draw: int = 0
) -> int:
    """Score the position for the side to move.

    `material` is the signed material-and-placement sum, `army` each side's material (both
    kept move by move by the caller); `draw` is what a position neither side can mate in is
    worth to white beyond its divided score (`draw_value`: the contempt, signed).
    """
    score = (
        material
        + king_safety(position, tables, WHITE, army)
        - king_safety(position, tables, BLACK, army)
    )
    if not (army[WHITE] and army[BLACK]):
        score += cornering(position, tables, army)
    if tables.passed:
        score += passed_pawns(position, tables)
    weights = tables.weights
    if (score or draw) and tables.size >= DRAWISH_FROM_SIZE:
        favoured = WHITE if score >= 0 else BLACK
        pieces = position.pieces
        if not can_mate(pieces[favoured], weights.mating_pieces, tables.size):
            if weights.drawish > 1:
                # Towards zero, as C's integer division (kernel/core/player.c mirrors this).
                score = abs(score) // weights.drawish * (1 if score > 0 else -1)
            if draw and not can_mate(pieces[1 - favoured], weights.mating_pieces, tables.size):
                score += draw
    return score if position.side == WHITE else -score


def draw_value(weights: Weights, side: int) -> int:
    """Return what a draw is worth to white when the search is for `side`: the contempt,
    against that side."""
    return -weights.contempt if side == WHITE else weights.contempt


def can_mate(pieces: dict[int, str], mating_pieces: int, size: int) -> bool:
    """Tell whether an army (its king included) may mate a lone king: a queen, or
    `mating_pieces` pieces or more besides the king (on the 4-cube at most
    `MATING_PIECES_ON_4`, which the tables show mate)."""
    if size == 4:
        mating_pieces = min(mating_pieces, MATING_PIECES_ON_4)
    # The queen first (an army that has one mostly finds it soon), then the count; a pawn
    # may become a queen.
    if any(letter in "QqPp" for letter in pieces.values()):
        return True
    if len(pieces) < mating_pieces:
        return False
    return sum(letter not in "Kk" for letter in pieces.values()) >= mating_pieces
