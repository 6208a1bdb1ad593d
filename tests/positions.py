"""Seeded random generator of valid 3D chess positions rich in mates, stalemates and pins.

Uniform noise almost never checkmates anybody, so most positions are *built*: the white king is
put near a corner or an edge, black pieces are placed on cells from which they check it or guard
its flight cells, white pieces are pinned on lines through it, and a few white defenders are added
that may (or may not) capture or block. The brute-force reference decides what came out.

Validity is checked cheaply (cost grows with pieces × n, never with n³), so n = 64 boards with
hundreds of pieces are generated quickly.

For both sides to move, a white-to-move position is turned into a black-to-move one by swapping
the colours and mirroring the ranks, so black's king gets the same rich mix of mates and pins
(`side_position`); `game_position` keeps only game positions (the side not to move is not in
check); `mate_problem` crowds the attacker's pieces round the hunted king so that forced mates
in 1, 2 and 3 are common.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from tests.reference import (
    BISHOP_STEPS,
    BLACK,
    KING_STEPS,
    KNIGHT_JUMPS,
    QUEEN_STEPS,
    ROOK_STEPS,
    WHITE,
    Cell,
    Position,
    Side,
    add,
    attacks,
    game_error,
    is_black,
    is_white,
    parse_board,
    side_in_check,
    to_notation,
    validity_error,
)

# Scenario weights: what the builder aims at before the extra pieces are scattered.
SCENARIOS: dict[str, int] = {
    "mate": 32,
    "stalemate": 20,
    "double_check": 12,
    "pin": 16,
    "crowd": 10,
    "uniform": 10,
}

STEPS_OF: dict[str, frozenset[Cell]] = {
    "k": KING_STEPS,
    "q": QUEEN_STEPS,
    "r": ROOK_STEPS,
    "b": BISHOP_STEPS,
    "n": KNIGHT_JUMPS,
}
SLIDERS = "qrb"
MINOR_LETTERS = "qrbn"  # every piece but the king


def chebyshev(a: Cell, b: Cell) -> int:
    """Return the king distance between two cells."""
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]), abs(a[2] - b[2]))


class _Builder:
    """A position under construction with a hard budget of pieces."""

    def __init__(self, rng: random.Random, n: int, budget: int) -> None:
        self.rng = rng
        self.n = n
        self.budget = budget
        self.pos = Position(n, {})
        self.king: Cell = (0, 0, 0)
        self.black_king: Cell | None = None

    # -- basic bookkeeping

    @property
    def full(self) -> bool:
        """Tell whether the piece budget is used up."""
        return len(self.pos.pieces) >= self.budget

    def place(self, cell: Cell, letter: str) -> bool:
        """Put a piece on an empty cell if the budget allows; tell whether it was placed."""
        if self.full or cell in self.pos.pieces or not self.pos.on_board(cell):
            return False
        self.pos.pieces[cell] = letter
        if letter == "k":
            self.black_king = cell
        return True

    def random_cell(self) -> Cell:
        """Pick a uniformly random cell of the cube."""
        n = self.n
        return (self.rng.randrange(n), self.rng.randrange(n), self.rng.randrange(n))

    def random_empty(self) -> Cell | None:
        """Pick a random empty cell; rejection sampling first so large boards stay cheap."""
        for _ in range(40):
            cell = self.random_cell()
            if cell not in self.pos.pieces:
                return cell
        n = self.n
        empty = [
            (x, y, z)
            for x in range(n)
            for y in range(n)
            for z in range(n)
            if (x, y, z) not in self.pos.pieces
        ]
        return self.rng.choice(empty) if empty else None

    def near_empty(self, centre: Cell, radius: int) -> Cell | None:
        """Pick a random empty cell within king distance `radius` of centre."""
        for _ in range(30):
            cell = (
                centre[0] + self.rng.randint(-radius, radius),
                centre[1] + self.rng.randint(-radius, radius),
                centre[2] + self.rng.randint(-radius, radius),
            )
            if self.pos.on_board(cell) and cell not in self.pos.pieces:
                return cell
        return None

    def kings_ok(self, cell: Cell) -> bool:
        """Tell whether a black king may stand on cell (not next to the white king)."""
        return chebyshev(cell, self.king) >= 2

    # -- kings

    def place_white_king(self) -> None:
        """Put the white king in a corner, on an edge or a face, or anywhere."""
        n, rng = self.n, self.rng
        roll = rng.random()
        coords: list[int] = []
        for _ in range(3):
            if roll < 0.45:  # corner: every coordinate on a wall
                coords.append(rng.choice((0, n - 1)))
            elif roll < 0.75:  # edge or face: each coordinate on a wall half the time
                coords.append(rng.choice((0, n - 1)) if rng.random() < 0.6 else rng.randrange(n))
            else:
                coords.append(rng.randrange(n))
        self.king = (coords[0], coords[1], coords[2])
        self.pos.pieces[self.king] = "K"

    def place_black_king(self, near: bool) -> None:
        """Put the black king two cells from the white king (guarding flights) or anywhere."""
        if self.full:
            return
        if near:
            ring = [
                add(self.king, (dx, dy, dz))
                for dx in range(-2, 3)
                for dy in range(-2, 3)
                for dz in range(-2, 3)
                if max(abs(dx), abs(dy), abs(dz)) == 2
            ]
            ring = [c for c in ring if self.pos.on_board(c) and c not in self.pos.pieces]
            if ring:
                self.place(self.rng.choice(ring), "k")
                return
        for _ in range(30):
            cell = self.random_empty()
            if cell is None:
                return
            if self.kings_ok(cell):
                self.place(cell, "k")
                return

    # -- lines of attack

    def attack_sources(self, target: Cell, letter: str) -> list[Cell]:
        """List empty cells from which a piece `letter` would attack target right now."""
        kind = letter.lower()
        steps = STEPS_OF[kind]
        sources: list[Cell] = []
        if kind in SLIDERS:
            # Every step set is symmetric, so walk outward from the target over empty cells.
            for step in steps:
                cell = add(target, step)
                while self.pos.on_board(cell) and cell not in self.pos.pieces:
                    sources.append(cell)
                    cell = add(cell, step)
        else:
            for step in steps:
                cell = add(target, step)
                if self.pos.on_board(cell) and cell not in self.pos.pieces:
                    sources.append(cell)
        if letter == "k":
            sources = [c for c in sources if self.kings_ok(c)]
        return sources

    def black_attacks(self, target: Cell, ignore_king: bool) -> bool:
        """Tell whether a black piece attacks target, optionally looking through the white king."""
        pieces = self.pos.pieces
        if ignore_king:
            # A king stepping away along a checking line is still on it: look through his cell.
            pieces = {c: p for c, p in pieces.items() if c != self.king}
        view = Position(self.n, pieces)
        return any(
            is_black(piece) and cell != target and attacks(view, cell, target)
            for cell, piece in pieces.items()
        )

    def add_attacker(self, target: Cell, letter: str, may_check: bool = True) -> bool:
        """Place a piece `letter` where it attacks target; tell whether one was placed."""
        sources = self.attack_sources(target, letter)
        self.rng.shuffle(sources)
        for cell in sources[:12]:
            if not may_check and self._would_check(cell, letter):
                continue
            return self.place(cell, letter)
        return False

    def _would_check(self, cell: Cell, letter: str) -> bool:
        """Tell whether a black piece placed on cell would attack the white king."""
        trial = Position(self.n, {**self.pos.pieces, cell: letter})
        return attacks(trial, cell, self.king)

    def random_black_letter(self) -> str:
        """Draw a black piece letter, the black king too while there is none."""
        options = "qrrbbnn" + ("k" if self.black_king is None else "")
        return self.rng.choice(options)

    # -- building blocks of scenarios

    def add_checker(self, avoid: set[str]) -> bool:
        """Place one black piece giving check, of a kind not in `avoid` when possible."""
        kinds = [k for k in "qrbn" if k not in avoid] or list("qrbn")
        self.rng.shuffle(kinds)
        return any(self.add_attacker(self.king, kind) for kind in kinds)

    def guard_flights(self, probability: float, may_check: bool) -> None:
        """Attack the king's unguarded flight cells with black pieces, each with `probability`."""
        flights = [add(self.king, s) for s in KING_STEPS]
        flights = [c for c in flights if self.pos.on_board(c)]
        self.rng.shuffle(flights)
        for flight in flights:
            if self.full:
                return
            occupant = self.pos.pieces.get(flight)
            if occupant is not None and is_white(occupant):
                continue  # not a flight cell while a white piece stands there
            if self.black_attacks(flight, ignore_king=True) or self.rng.random() > probability:
                continue
            for _ in range(4):
                if self.add_attacker(flight, self.random_black_letter(), may_check):
                    break

    def add_pin(self) -> bool:
        """Put a white piece between the king and a black slider on one line through him."""
        rng = self.rng
        steps = list(QUEEN_STEPS)
        rng.shuffle(steps)
        for step in steps:
            line: list[Cell] = []
            cell = add(self.king, step)
            while self.pos.on_board(cell) and cell not in self.pos.pieces:
                line.append(cell)
                cell = add(cell, step)
            if len(line) < 2:
                continue
            i = rng.randrange(len(line) - 1)
            j = rng.randrange(i + 1, len(line))
            axes = sum(1 for s in step if s != 0)
            slider = {1: "r", 2: "q", 3: "b"}[axes]
            if rng.random() < 0.3:
                slider = "q"
            # Pinned pieces that can slide along the line and ones that cannot, both common.
            pinned = rng.choice("QRBNN")
            if self.budget - len(self.pos.pieces) < 2:
                return False
            self.place(line[i], pinned)
            self.place(line[j], slider)
            return True
        return False

    def add_white_defenders(self, count: int) -> None:
        """Scatter white pieces near the king: they may capture a checker or block a line."""
        for _ in range(count):
            cell = self.near_empty(self.king, 3)
            if cell is None:
                return
            self.place(cell, self.rng.choice("QRBN"))

    def scatter(self, count: int, near_king: float) -> None:
        """Scatter `count` random non-king pieces, a share of them close to the white king."""
        for _ in range(count):
            if self.full:
                return
            cell = None
            if self.rng.random() < near_king:
                cell = self.near_empty(self.king, 2)
            if cell is None:
                cell = self.random_empty()
            if cell is None:
                return
            letter = self.rng.choice(MINOR_LETTERS)
            self.place(cell, letter.upper() if self.rng.random() < 0.4 else letter)

    # -- validity

    def repair(self) -> None:
        """Make the position acceptable: never both kings in check at once."""
        for _ in range(10):
            if validity_error(self.pos) is None:
                return
            bk = self.black_king
            assert bk is not None  # only a black king can make a position invalid here
            offenders = [
                c
                for c, p in self.pos.pieces.items()
                if is_white(p) and p != "K" and attacks(self.pos, c, bk)
            ]
            for cell in offenders:
                letter = self.pos.pieces.pop(cell)
                target = self.random_empty()
                if target is not None:
                    self.pos.pieces[target] = letter
        # Last resort: a board without a black king is always acceptable.
        if validity_error(self.pos) is not None and self.black_king is not None:
            self.pos.pieces[self.black_king] = self.rng.choice(MINOR_LETTERS)
            self.black_king = None


def _natural_extra(rng: random.Random, n: int) -> int:
    """Draw how many extra pieces to scatter: sparse, medium or dense, scaled to the board."""
    roll = rng.random()
    if roll < 0.35:
        return rng.randint(0, 2)
    if roll < 0.75:
        return rng.randint(1, max(2, n + 1))
    return rng.randint(n, max(n + 1, min(n**3 // 4, 40)))


def random_position(rng: random.Random, n: int, pieces: int | None = None) -> str:
    """Return a random valid position in canonical notation; `pieces` forces the piece count."""
    cells = n**3
    if n < 2:
        raise ValueError(f"board size must be at least 2, got {n}")
    if pieces is not None and not 1 <= pieces <= cells:
        raise ValueError(f"cannot put {pieces} pieces on {cells} cells")
    budget = pieces if pieces is not None else cells
    b = _Builder(rng, n, budget)
    b.place_white_king()
    scenario = rng.choices(list(SCENARIOS), weights=list(SCENARIOS.values()))[0]
    if scenario != "uniform" and rng.random() < 0.6:
        b.place_black_king(near=rng.random() < 0.6)
    if scenario == "mate":
        b.add_checker(avoid=set())
        if rng.random() < 0.15:
            b.add_checker(avoid=set())
        # Guards that also check make double checks; keep single-checker mates common too.
        b.guard_flights(probability=0.95, may_check=rng.random() < 0.4)
        b.add_white_defenders(rng.choice((0, 0, 1, 1, 2, 3)))
    elif scenario == "stalemate":
        for _ in range(rng.choice((0, 0, 1, 2))):
            b.add_pin()
        b.guard_flights(probability=0.97, may_check=False)
    elif scenario == "double_check":
        b.add_checker(avoid=set())
        first = {p.lower() for c, p in b.pos.pieces.items() if is_black(p) and p != "k"}
        b.add_checker(avoid=first)
        b.guard_flights(probability=0.8, may_check=True)
        b.add_white_defenders(rng.choice((0, 1, 2)))
    elif scenario == "pin":
        for _ in range(rng.choice((1, 1, 2, 3))):
            b.add_pin()
        if rng.random() < 0.5:
            b.add_checker(avoid=set())
        b.guard_flights(probability=0.6, may_check=True)
    elif scenario == "crowd":
        b.scatter(rng.randint(2, max(3, min(24, cells // 2))), near_king=0.9)
    else:  # uniform noise, kings included
        if rng.random() < 0.7:
            b.place_black_king(near=False)
        b.scatter(rng.randint(1, max(2, min(cells // 3, 40))), near_king=0.0)
    if pieces is None:
        b.scatter(_natural_extra(rng, n) if scenario not in ("mate", "stalemate") else 0, 0.3)
        if scenario in ("mate", "stalemate") and rng.random() < 0.3:
            b.scatter(rng.randint(1, n), near_king=0.0)
    else:
        b.scatter(pieces - len(b.pos.pieces), near_king=0.2)
    b.repair()
    return to_notation(n, b.pos.pieces)


def random_raw_position(rng: random.Random, n: int) -> str:
    """Return a random position that may be invalid (two kings, neighbouring kings, no king)."""
    cells = n**3
    count = rng.randint(1, max(2, min(cells, 3 * n)))
    letters = "KkQRBNqrbn"
    pieces: dict[Cell, str] = {}
    for _ in range(count):
        pieces[(rng.randrange(n), rng.randrange(n), rng.randrange(n))] = rng.choice(letters)
    return to_notation(n, pieces)


def positions(seed: int, count: int, sizes: tuple[int, ...]) -> Iterator[tuple[int, str]]:
    """Yield `count` (n, board) pairs, sizes cycled in order, from one seeded generator."""
    rng = random.Random(seed)
    for i in range(count):
        n = sizes[i % len(sizes)]
        yield n, random_position(rng, n)


# ---------------------------------------------------------------- both sides to move


def swap_colours(pos: Position) -> Position:
    """Swap white and black and mirror the ranks, and pass the move: the same game, mirrored."""
    n = pos.n
    pieces = {(x, n - 1 - y, z): piece.swapcase() for (x, y, z), piece in pos.pieces.items()}
    return Position(n, pieces, BLACK if pos.side == WHITE else WHITE)


def _give_white_king(rng: random.Random, pos: Position) -> bool:
    """Put a white king on a board without one, keeping it valid; tell whether that worked.

    An empty cell is preferred; a full board gives up one of its other pieces to the king.
    """
    n = pos.n
    cells = [(x, y, z) for x in range(n) for y in range(n) for z in range(n)]
    rng.shuffle(cells)
    empty = [c for c in cells if c not in pos.pieces]
    taken = [c for c in cells if c in pos.pieces and pos.pieces[c] != "k"]
    for cell in (empty or taken)[:60]:
        old = pos.pieces.get(cell)
        pos.pieces[cell] = "K"
        if validity_error(pos) is None:
            return True
        if old is None:
            del pos.pieces[cell]
        else:
            pos.pieces[cell] = old
    return False


def side_position(rng: random.Random, n: int, side: Side, pieces: int | None = None) -> Position:
    """Return a random valid position with `side` to move; `pieces` forces the piece count.

    White to move: random_position as it always was. Black to move: a random_position with
    the colours swapped, so the black king meets the mates, stalemates and pins white's did
    (on a 2-cube, where no two kings fit, the same board with black, kingless, to move).
    """
    for _ in range(100):
        pos = parse_board(random_position(rng, n, pieces), n)
        if side == WHITE:
            return pos
        if n == 2:
            # Every two cells of a 2-cube touch, so black has no king here: black just moves.
            return Position(n, pos.pieces, BLACK)
        swapped = swap_colours(pos)
        if "K" in swapped.pieces.values() or _give_white_king(rng, swapped):
            return swapped
    raise ValueError(f"no black-to-move position found (n={n}, pieces={pieces})")


def game_position(
    rng: random.Random, n: int, side: Side, pieces: int | None = None, tries: int = 200
) -> Position:
    """Return a random game position (the side not to move is not in check) with `side` to move."""
    for _ in range(tries):
        pos = side_position(rng, n, side, pieces)
        if game_error(pos) is None:
            return pos
    raise ValueError(f"no game position found in {tries} tries (n={n}, pieces={pieces})")


def side_positions(
    seed: int, count: int, sizes: tuple[int, ...], game: bool = False
) -> Iterator[Position]:
    """Yield `count` positions, sizes cycled, white and black to move in turn, from one seed."""
    rng = random.Random(seed)
    for i in range(count):
        n = sizes[i % len(sizes)]
        side: Side = WHITE if (i // len(sizes)) % 2 == 0 else BLACK
        yield game_position(rng, n, side) if game else side_position(rng, n, side)


def mate_problem(rng: random.Random, n: int, side: Side, pieces: int) -> Position:
    """Return a game position, `side` to move, rich in forced mates: the attacker's pieces
    crowd round the defender's king, which stands near a corner or an edge.

    Built as black hunting the white king (the builder's orientation), then swapped when white
    is to attack. `pieces` counts everything, both kings included (at least 3).
    """
    if pieces < 3 or pieces > n**3:
        raise ValueError(f"a mate problem needs 3 to {n**3} pieces, got {pieces}")
    if side == WHITE and n == 2:
        # Every two cells of a 2-cube touch: white's king and the hunted one cannot both stand.
        raise ValueError("white cannot hunt a king on a 2-cube: the two kings would touch")
    for _ in range(1000):
        b = _Builder(rng, n, pieces)
        b.place_white_king()
        # The attacker needs its king when it is white (after the swap); black may go without.
        if side == WHITE or rng.random() < 0.7:
            b.place_black_king(near=rng.random() < 0.5)
            if b.black_king is None:
                continue
        defenders = rng.choice((0, 0, 1, 1, 2)) if pieces >= 5 else rng.choice((0, 1))
        attackers = pieces - len(b.pos.pieces) - defenders
        # On a 2-cube every cell touches the king: a queen there always checks, and a knight
        # never moves, so rooks (which check along an axis) and a bishop make the mates.
        letters = "rrrb" if n == 2 else "qqrrrbbnn"
        for _ in range(attackers):
            cell = b.near_empty(b.king, rng.choice((1, 2, 2, 3)))
            if cell is None:
                cell = b.random_empty()
            if cell is not None:
                b.place(cell, rng.choice(letters))
        for _ in range(defenders):
            cell = b.near_empty(b.king, 2) or b.random_empty()
            if cell is not None:
                b.place(cell, rng.choice("QRBN"))
        pos = b.pos
        # The defender, not to move, must not stand in check: lift the checkers off.
        for _ in range(10):
            if not side_in_check(pos, WHITE):
                break
            king = b.king
            for cell in [c for c, p in pos.pieces.items() if is_black(p) and c != king]:
                if attacks(pos, cell, king):
                    letter = pos.pieces.pop(cell)
                    target = b.near_empty(king, 3) or b.random_empty()
                    if target is not None:
                        pos.pieces[target] = letter
        problem = Position(n, dict(pos.pieces), BLACK)
        if len(problem.pieces) != pieces or validity_error(problem) or game_error(problem):
            continue
        return swap_colours(problem) if side == WHITE else problem
    raise ValueError(f"no mate problem found (n={n}, pieces={pieces})")


def noise_game_position(rng: random.Random, n: int, side: Side, count: int) -> Position:
    """Return a game position of `count` pieces thrown uniformly on the board, captures galore.

    No scenario: a white king, usually a black king, and the rest of either colour anywhere;
    drawn again until the position is valid and a game position.
    """
    if not 1 <= count <= n**3:
        raise ValueError(f"cannot put {count} pieces on {n**3} cells")
    cells = [(x, y, z) for x in range(n) for y in range(n) for z in range(n)]
    for _ in range(1000):
        chosen = rng.sample(cells, count)
        pieces = {cell: rng.choice("QRBNqrbn") for cell in chosen[1:]}
        pieces[chosen[0]] = "K"
        if count > 1 and rng.random() < 0.8:
            pieces[chosen[1]] = "k"
        pos = Position(n, pieces, side)
        if validity_error(pos) is None and game_error(pos) is None:
            return pos
    raise ValueError(f"no game position of {count} pieces found (n={n})")
