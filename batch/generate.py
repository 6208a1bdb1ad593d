"""Seeded families of positions to mine for problems, instead of reading them.

The side to move is the attacker; the other side's king is the hunted one. Every position drawn
is a game position (the hunted side is not in check, so the kings do not touch); the engine
still judges each one, and a board it refuses is reported in the output like any other.

- `crowded`: the attacker's pieces (and a few defenders) within `radius` king steps of the
  hunted king, on a small board (default n = 4): dense positions where short mates are common.
- `sparse`: a larger board (default n = 8) with few pieces, the attacker's sliders mostly laid
  on long lines through the hunted king's cell or its neighbours.

The same family, options and seed always give the same positions, in the same order.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass

from batch.jobs import Job

Cell = tuple[int, int, int]

FAMILIES = ("crowded", "sparse")
#: Attacking pieces drawn for each family, with weights (lower case: the letter's kind).
PIECE_WEIGHTS = {
    "crowded": {"q": 2, "r": 3, "b": 3, "n": 3},
    "sparse": {"q": 2, "r": 3, "b": 3},
}
DEFENDER_WEIGHTS = {"q": 1, "r": 2, "b": 2, "n": 2}
DEFAULT_SIZE = {"crowded": 4, "sparse": 8}
DEFAULT_ATTACKERS = {"crowded": 4, "sparse": 3}
DEFAULT_DEFENDERS = {"crowded": 2, "sparse": 1}
#: Draws allowed per position before the options are declared impossible.
MAX_TRIES = 1000
#: The largest board any cubemate configuration accepts (kernel/config.py, LARGEST_SUPPORTED_SIZE):
#: a larger one would be generated only to be refused.
MAX_SIZE = 200

ROOK = [(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)]
BISHOP = [(x, y, z) for x in (1, -1) for y in (1, -1) for z in (1, -1)]
KING = [
    (x, y, z) for x in (-1, 0, 1) for y in (-1, 0, 1) for z in (-1, 0, 1) if (x, y, z) != (0, 0, 0)
]
LINES = {"r": ROOK, "b": BISHOP, "q": KING}


class GenerateError(ValueError):
    """Options no position can satisfy, or that make no sense."""


@dataclass(frozen=True, slots=True)
class Family:
    """A family with its options filled in."""

    name: str
    size: int
    attackers: int
    defenders: int
    radius: int
    side: str

    def check(self) -> None:
        """Refuse options that cannot give a position."""
        if self.name not in FAMILIES:
            raise GenerateError(f"unknown family {self.name!r} (known: {', '.join(FAMILIES)})")
        if not 2 <= self.size <= MAX_SIZE:
            raise GenerateError(f"--size must be 2 ... {MAX_SIZE}, not {self.size}")
        if self.attackers < 0 or self.defenders < 0:
            raise GenerateError("--attackers and --defenders cannot be negative")
        if self.radius < 1:
            raise GenerateError(f"--radius must be 1 or more, not {self.radius}")
        if self.side not in ("w", "b"):
            raise GenerateError(f"--side must be w or b, not {self.side!r}")
        if self.attackers + self.defenders + 2 > self.size**3:
            raise GenerateError(
                f"{self.attackers + self.defenders + 2} pieces do not fit n = {self.size}"
            )


def family(
    name: str,
    size: int | None = None,
    attackers: int | None = None,
    defenders: int | None = None,
    radius: int = 2,
    side: str = "b",
) -> Family:
    """Fill in a family's defaults and check the options."""
    if name not in FAMILIES:
        raise GenerateError(f"unknown family {name!r} (known: {', '.join(FAMILIES)})")
    chosen = Family(
        name,
        DEFAULT_SIZE[name] if size is None else size,
        DEFAULT_ATTACKERS[name] if attackers is None else attackers,
        DEFAULT_DEFENDERS[name] if defenders is None else defenders,
        radius,
        side,
    )
    chosen.check()
    return chosen


def attacks(pieces: dict[Cell, str], source: Cell, target: Cell) -> bool:
    """Tell whether the piece on `source` attacks `target` (rules.md), lines blocked by pieces."""
    kind = pieces[source].lower()
    delta = [t - s for s, t in zip(source, target, strict=True)]
    a, b, c = sorted(abs(d) for d in delta)
    if c == 0:
        return False
    if kind == "k":
        return c == 1
    if kind == "n":
        return (a, b, c) == (0, 1, 2)
    straight = a == b == 0
    triagonal = a == b == c
    flat = a == 0 and b == c
    if not (
        (kind == "r" and straight)
        or (kind == "b" and triagonal)
        or (kind == "q" and (straight or triagonal or flat))
    ):
        return False
    step = [(d > 0) - (d < 0) for d in delta]
    cell = source
    for _ in range(c - 1):
        cell = (cell[0] + step[0], cell[1] + step[1], cell[2] + step[2])
        if cell in pieces:
            return False
    return True


def in_check(pieces: dict[Cell, str], king: Cell) -> bool:
    """Tell whether the king on `king` is attacked by any piece of the other colour."""
    white = pieces[king].isupper()
    return any(
        letter.isupper() != white and attacks(pieces, cell, king) for cell, letter in pieces.items()
    )


def notation(pieces: dict[Cell, str], n: int) -> str:
    """Write the board in rules.md notation: layers top first, rows back first."""
    layers = []
    for z in reversed(range(n)):
        rows = ["".join(pieces.get((x, y, z), "#") for x in range(n)) for y in reversed(range(n))]
        layers.append("[" + ",".join(rows) + "]")
    return ",".join(layers)


class Drawer:
    """Draws the positions of one family from one seeded generator."""

    def __init__(self, chosen: Family, seed: int) -> None:
        self.family = chosen
        self.rng = random.Random(f"cubemate-batch:{chosen}:{seed}")
        self.n = chosen.size

    def cell(self) -> Cell:
        """A uniformly drawn cell."""
        n = self.n
        return (self.rng.randrange(n), self.rng.randrange(n), self.rng.randrange(n))

    def near(self, centre: Cell, radius: int) -> Cell:
        """A cell within `radius` king steps of `centre`, on the board."""
        n = self.n
        return tuple(  # type: ignore[return-value]
            self.rng.randint(max(0, c - radius), min(n - 1, c + radius)) for c in centre
        )

    def on_line(self, centre: Cell, kind: str) -> Cell:
        """A cell on one of the lines a piece of `kind` moves along through `centre`."""
        step = self.rng.choice(LINES[kind])
        reach = []
        cell = centre
        while True:
            cell = (cell[0] + step[0], cell[1] + step[1], cell[2] + step[2])
            if not all(0 <= c < self.n for c in cell):
                break
            reach.append(cell)
        return self.rng.choice(reach) if reach else self.cell()

    def letter(self, weights: dict[str, int]) -> str:
        """A piece kind drawn by weight."""
        kinds = list(weights)
        return self.rng.choices(kinds, [weights[kind] for kind in kinds])[0]

    def draw(self) -> dict[Cell, str] | None:
        """One attempt at a position; None when it is not a game position."""
        chosen = self.family
        black_attacks = chosen.side == "b"
        hunted_king, attacker_king = ("K", "k") if black_attacks else ("k", "K")

        def own(letter: str, attacker: bool) -> str:
            return letter if attacker == black_attacks else letter.upper()

        pieces: dict[Cell, str] = {}
        hunted = self.cell()
        pieces[hunted] = hunted_king
        for _ in range(chosen.attackers):
            kind = self.letter(PIECE_WEIGHTS[chosen.name])
            if chosen.name == "crowded":
                cell = self.near(hunted, chosen.radius)
            elif self.rng.random() < 0.7:
                cell = self.on_line(self.near(hunted, 1), kind)
            else:
                cell = self.cell()
            pieces.setdefault(cell, own(kind, attacker=True))
        for _ in range(chosen.defenders):
            kind = self.letter(DEFENDER_WEIGHTS)
            cell = self.near(hunted, chosen.radius) if chosen.name == "crowded" else self.cell()
            pieces.setdefault(cell, own(kind, attacker=False))
        king = self.cell()
        if king in pieces:
            return None
        pieces[king] = attacker_king
        # A game position: the side not to move (the hunted one) is not in check.
        if in_check(pieces, hunted):
            return None
        return pieces

    def positions(self, count: int) -> Iterator[Job]:
        """Yield `count` positions, ids 1 … count."""
        for number in range(1, count + 1):
            for _ in range(MAX_TRIES):
                pieces = self.draw()
                if pieces is not None:
                    break
            else:
                raise GenerateError(
                    f"no game position in {MAX_TRIES} draws: too many pieces for n = {self.n}?"
                )
            yield Job(number, notation(pieces, self.n), self.family.side)


def generate(chosen: Family, count: int, seed: int) -> Iterator[Job]:
    """Yield `count` seeded positions of a family."""
    if count < 0:
        raise GenerateError(f"--count cannot be negative, not {count}")
    return Drawer(chosen, seed).positions(count)
