"""The count of a match from player 1's side: games, pairs, and how games ended."""

from __future__ import annotations

from collections import Counter

from arena.stats import Pentanomial, Trinomial

#: How results are grouped in the table: the reason's first words, player-neutral.
REASON_GROUPS = (
    ("checkmate", "checkmate"),
    ("stalemate", "stalemate"),
    ("threefold repetition", "threefold repetition"),
    ("fifty-move rule", "fifty-move rule"),
    ("insufficient material", "insufficient material"),
    ("move cap", "move cap"),
    ("crashed", "crash"),
    ("timed out", "timeout"),
    ("answered too long", "answer too long"),
    ("answered out of step", "out of step"),
    ("move was illegal", "illegal move"),
    ("resigned", "resignation"),
    ("refused", "refusal"),
    ("could not move", "refusal"),
)


def reason_group(result: str) -> str:
    """Name the kind of ending of a result such as `0-1 (white crashed)`."""
    for words, group in REASON_GROUPS:
        if words in result:
            return group
    return "other"


def counted(games: Trinomial, points: float) -> Trinomial:
    """`games` and one more game, scored `points` (1, ½ or 0)."""
    return Trinomial(
        games.wins + (points == 1), games.draws + (points == 0.5), games.losses + (points == 0)
    )


class Tally:
    """Every finished game's points, by game number (white's points as the record has them),
    with player 1's games and complete pairs counted as they come, and white's games: where
    the openings decide, the colour wins whichever player has it."""

    def __init__(self) -> None:
        self.white_points: dict[int, float] = {}
        self.endings: Counter[str] = Counter()
        self.games = Trinomial()
        self.pairs = Pentanomial()
        #: White's wins, draws and losses, whoever played white.
        self.white = Trinomial()
        #: Complete pairs whose two games the same colour won (a pair is one opening).
        self.same_colour_pairs = 0

    def add(self, number: int, white_points: float, result: str = "") -> None:
        """Count a finished game (each number once)."""
        if number in self.white_points:
            raise ValueError(f"game {number} is counted twice")
        self.white_points[number] = white_points
        if result:
            self.endings[reason_group(result)] += 1
        points = self.player1_points(number)
        self.games = counted(self.games, points)
        self.white = counted(self.white, white_points)
        partner = number + 1 if number % 2 else number - 1
        if partner in self.white_points:
            self.pairs = self.pairs.add(points + self.player1_points(partner))
            decisive = white_points != 0.5
            self.same_colour_pairs += decisive and self.white_points[partner] == white_points

    def player1_points(self, number: int) -> float:
        """Player 1 is white in odd games and black in even ones."""
        points = self.white_points[number]
        return points if number % 2 else 1 - points
