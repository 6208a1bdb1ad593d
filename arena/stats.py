"""The statistics engine developers read: score, Elo with its 95 % interval, LOS and SPRT.

The formulas are those of fishtest (`server/fishtest/stats/`) and fastchess, written afresh:

- **Score** of player 1: (wins + draws / 2) / games.
- **Elo difference** from a score s: -400 log10(1 / s - 1) (the logistic model).
- **95 % interval**: the score's mean ± 1.96 standard errors, each end turned into Elo. From
  the trinomial (W/D/L) the sample is one game; from the pentanomial the sample is a pair of
  games on the same opening with colours swapped, whose score is the pair's points / 2 (0, ¼,
  ½, ¾, 1). Pairs are the better sample: the two games of a pair share an opening, so their
  results are correlated, and counting them as independent games misstates the variance.
- **LOS**, the likelihood of superiority: Φ((s - ½) / standard error).
- **SPRT**: the generalized log-likelihood ratio of Michel Van den Bergh (fishtest's
  `LLR_logistic`, fastchess's `getLLR_logistic`): for each hypothesis elo = ELO0 and
  elo = ELO1, the distribution nearest the observed one (maximum likelihood) whose mean score
  is that hypothesis's score, and the log of their likelihood ratio over the sample. The
  bounds are ln(β / (1 − α)) and ln((1 − β) / α): below the lower H0 is accepted, above the
  upper H1.

ELO0 and ELO1 are **logistic** Elo, the same unit as the Elo difference the table shows.
fishtest (since 2021) and fastchess both default to *normalized* Elo instead, which divides
by the spread of the results so that one bound suits every time control; here the players
are levels of one engine on boards of several sizes, where draw rates differ wildly, and a
bound in plain Elo says what a user means ("at least 20 Elo stronger") without that spread.

A count of zero is replaced by 0.001 before any estimate, as fishtest does, so that a match
won 100 % still gives finite figures (the Elo is then the clamp, about ±1200).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Literal

#: The two-sided 95 % quantile of the standard normal law (1.959964...).
Z95 = NormalDist().inv_cdf(0.975)
#: What a zero count becomes before estimating (fishtest's regularization).
ZERO_COUNT = 1e-3
#: Scores are clamped into [EDGE, 1 - EDGE] before turning them into Elo (as fishtest does).
EDGE = 1e-3
#: Bisection steps to solve for the maximum-likelihood distribution: far past double precision.
BISECTION_STEPS = 200

Hypothesis = Literal["H0", "H1"]


def elo_from_score(score: float) -> float:
    """Return the logistic Elo difference of a mean score, clamped near 0 and 1."""
    clamped = min(max(score, EDGE), 1 - EDGE)
    return -400 * math.log10(1 / clamped - 1)


def score_from_elo(elo: float) -> float:
    """Return the expected score of a logistic Elo difference."""
    return 1 / (1 + 10 ** (-elo / 400))


@dataclass(frozen=True, slots=True)
class Trinomial:
    """Player 1's games: wins, draws, losses."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """Player 1's mean score a game (NaN with no game)."""
        return (self.wins + self.draws / 2) / self.games if self.games else math.nan

    def counts(self) -> tuple[int, int, int]:
        """The counts by score, lowest first: losses, draws, wins."""
        return (self.losses, self.draws, self.wins)


@dataclass(frozen=True, slots=True)
class Pentanomial:
    """Player 1's pairs of games by the points it took in the pair: 0, ½, 1, 1½ and 2."""

    counts: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)

    @property
    def pairs(self) -> int:
        return sum(self.counts)

    def add(self, points: float) -> Pentanomial:
        """Return the count with one more pair worth `points` (0, 0.5, ..., 2)."""
        index = round(points * 2)
        if not 0 <= index <= 4 or index != points * 2:
            raise ValueError(f"a pair is worth 0, 1/2, 1, 3/2 or 2 points, not {points}")
        counts = list(self.counts)
        counts[index] += 1
        return Pentanomial((counts[0], counts[1], counts[2], counts[3], counts[4]))


@dataclass(frozen=True, slots=True)
class Estimate:
    """What a sample says of player 1: its mean score a game, the Elo difference with its 95 %
    interval (`low`, `high`; `error` is half its width, as fishtest and fastchess print
    `elo ± error`), and the likelihood of superiority."""

    score: float
    elo: float
    low: float
    high: float
    error: float
    los: float
    samples: int


def outcomes(counts: Sequence[float]) -> list[tuple[float, float]]:
    """Pair each count with its score a game: counts[i] scores i / (len - 1)."""
    last = len(counts) - 1
    return [(index / last, count) for index, count in enumerate(counts)]


def regularized(counts: Sequence[float]) -> list[float]:
    """Replace each zero count by ZERO_COUNT."""
    return [count if count else ZERO_COUNT for count in counts]


def mean_and_variance(distribution: Sequence[tuple[float, float]]) -> tuple[float, float]:
    """Return the mean and variance of (value, weight) pairs whose weights sum to one."""
    mean = sum(value * weight for value, weight in distribution)
    variance = sum(weight * (value - mean) ** 2 for value, weight in distribution)
    return mean, variance


def estimate(counts: Sequence[int]) -> Estimate | None:
    """Estimate from counts by score, lowest first (3 for games, 5 for pairs); None if empty.

    One sample is one game (3 counts) or one pair (5 counts, scored as the pair's mean).
    """
    samples = sum(counts)
    if not samples:
        return None
    weights = regularized(counts)
    total = sum(weights)
    mean, variance = mean_and_variance(
        [(score, weight / total) for score, weight in outcomes(weights)]
    )
    standard_error = math.sqrt(variance / total)
    low = elo_from_score(mean - Z95 * standard_error)
    high = elo_from_score(mean + Z95 * standard_error)
    los = NormalDist().cdf((mean - 0.5) / standard_error)
    return Estimate(mean, elo_from_score(mean), low, high, (high - low) / 2, los, samples)


def trinomial_estimate(games: Trinomial) -> Estimate | None:
    """Estimate from single games."""
    return estimate(games.counts())


def pentanomial_estimate(pairs: Pentanomial) -> Estimate | None:
    """Estimate from pairs of games."""
    return estimate(pairs.counts)


# -- SPRT


def nearest_with_mean(
    distribution: Sequence[tuple[float, float]], mean: float
) -> list[tuple[float, float]]:
    """Return the maximum-likelihood distribution on the same values whose mean is `mean`.

    Proposition 1.1 of Van den Bergh's "Comments on normalized Elo": the weights are
    p_i / (1 + θ (a_i − mean)), θ the root of Σ p_i (a_i − mean) / (1 + θ (a_i − mean)) = 0.
    That sum falls from +∞ to −∞ between the poles −1 / (max a − mean) and −1 / (min a −
    mean), so bisection finds θ. The mean must lie strictly between the extreme values.
    """
    shifted = [(value - mean, weight) for value, weight in distribution]

    def slope(theta: float) -> float:
        return sum(weight * value / (1 + theta * value) for value, weight in shifted)

    below = -1 / max(value for value, _ in shifted)
    above = -1 / min(value for value, _ in shifted)
    for _ in range(BISECTION_STEPS):
        middle = (below + above) / 2
        if middle in (below, above):
            break
        if slope(middle) > 0:
            below = middle
        else:
            above = middle
    theta = (below + above) / 2
    return [(value + mean, weight / (1 + theta * value)) for value, weight in shifted]


def llr(counts: Sequence[int], elo0: float, elo1: float) -> float:
    """Return the log-likelihood ratio of elo = elo1 against elo = elo0 (logistic Elo).

    `counts` are by score, lowest first: 3 for games (L, D, W), 5 for pairs (0 … 2 points).
    """
    weights = regularized(counts)
    total = sum(weights)
    observed = [(score, weight / total) for score, weight in outcomes(weights)]
    null = nearest_with_mean(observed, score_from_elo(elo0))
    alternative = nearest_with_mean(observed, score_from_elo(elo1))
    return total * sum(
        weight * (math.log(one) - math.log(zero))
        for (_, weight), (_, zero), (_, one) in zip(observed, null, alternative, strict=True)
    )


@dataclass(frozen=True, slots=True)
class Sprt:
    """A sequential probability ratio test of elo = elo0 (H0) against elo = elo1 (H1), with
    false-positive rate alpha and false-negative rate beta."""

    elo0: float
    elo1: float
    alpha: float
    beta: float

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError(f"ELO0 ({self.elo0:g}) must be below ELO1 ({self.elo1:g})")
        for name, rate in (("ALPHA", self.alpha), ("BETA", self.beta)):
            if not 0 < rate < 1:
                raise ValueError(f"{name} must lie strictly between 0 and 1, not {rate:g}")
        if self.alpha + self.beta >= 1:
            raise ValueError("ALPHA + BETA must be below 1")
        for name, elo in (("ELO0", self.elo0), ("ELO1", self.elo1)):
            if not abs(elo) < 1000:
                raise ValueError(f"{name} must lie between -1000 and 1000 Elo, not {elo:g}")

    @property
    def lower(self) -> float:
        """ln(β / (1 − α)): at or below it, H0 is accepted."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """ln((1 − β) / α): at or above it, H1 is accepted."""
        return math.log((1 - self.beta) / self.alpha)

    def llr(self, counts: Sequence[int]) -> float:
        """The log-likelihood ratio of the sample (0 for an empty one)."""
        return llr(counts, self.elo0, self.elo1) if sum(counts) else 0.0

    def decision(self, llr: float) -> Hypothesis | None:
        """The hypothesis accepted at this LLR, or None while the test goes on."""
        if llr >= self.upper:
            return "H1"
        if llr <= self.lower:
            return "H0"
        return None
