"""Texel's method on the linear model: the scale K of the logistic first, then the weights
that bring the logistic of the score nearest the results (least mean squared error).

Pure Python (numpy is no dependency of the project): each position is its result, its score
at the base weights and its slopes (tune/features.py); a weight moved by d moves every
score by its slope times d, so a trial costs one pass over the scores.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tune.features import Tunable

#: The range K is looked for in, and the precision of its search.
K_RANGE = (0.01, 10.0)
K_PRECISION = 1e-4
#: The smallest step of a factor's descent; a centipawn weight's is 1.
LEAST_FACTOR_STEP = 0.005
#: The most rounds of the descent (each tries every weight both ways).
MAX_ROUNDS = 200


@dataclass(frozen=True)
class Point:
    """One position for the fit: the result for white, the score at the base weights and
    the score's slope in each weight."""

    result: float
    score: float
    slopes: tuple[float, ...]


def expected(score: float, k: float) -> float:
    """The expected result for white of a score: 1 / (1 + 10^(-K·score/400))."""
    exponent = -k * score / 400.0
    if exponent > 300.0:  # 10^300 is near the float's end; the result is 0 by then
        return 0.0
    return 1.0 / (1.0 + math.pow(10.0, exponent))


def mean_error(results: Sequence[float], scores: Sequence[float], k: float) -> float:
    """The mean squared difference between the results and the expected results."""
    if not results:
        return 0.0
    total = 0.0
    for result, score in zip(results, scores, strict=True):
        total += (result - expected(score, k)) ** 2
    return total / len(results)


def scores_at(points: Sequence[Point], moves: Sequence[float]) -> list[float]:
    """Every position's score with the weights moved from the base by `moves`."""
    return [
        point.score + sum(slope * move for slope, move in zip(point.slopes, moves, strict=True))
        for point in points
    ]


def fit_k(points: Sequence[Point]) -> float:
    """The K that fits the results best at the base weights (a golden-section search on
    log K: the error has one minimum in K)."""
    results = [point.result for point in points]
    scores = [point.score for point in points]

    def error(log_k: float) -> float:
        return mean_error(results, scores, math.exp(log_k))

    return math.exp(golden_minimum(error, math.log(K_RANGE[0]), math.log(K_RANGE[1])))


def golden_minimum(function: Callable[[float], float], low: float, high: float) -> float:
    """The argument of a one-minimum function's least value between low and high."""
    ratio = (math.sqrt(5.0) - 1.0) / 2.0
    a, b = low, high
    c, d = b - ratio * (b - a), a + ratio * (b - a)
    fc, fd = function(c), function(d)
    while b - a > K_PRECISION:
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - ratio * (b - a)
            fc = function(c)
        else:
            a, c, fc = c, d, fd
            d = a + ratio * (b - a)
            fd = function(d)
    return (a + b) / 2.0


def tune(
    points: Sequence[Point],
    tunables: Sequence[Tunable],
    base: Sequence[float],
    k: float,
    stop: Callable[[], bool] = lambda: False,
) -> list[float]:
    """Coordinate descent from the base weights: each round tries each weight a step up and
    a step down (within its bounds, whole for a centipawn weight) and keeps a move that
    lowers the error; a weight whose step found nothing halves it, until the least step.
    Returns the tuned weights."""
    results = [point.result for point in points]
    scores = [point.score for point in points]
    weights = list(base)
    steps = [tunable.first_move for tunable in tunables]
    best = mean_error(results, scores, k)
    for _ in range(MAX_ROUNDS):
        if stop():
            break
        moved = False
        for index, tunable in enumerate(tunables):
            least = 1.0 if tunable.integer else LEAST_FACTOR_STEP
            if steps[index] < least:
                continue
            slope = [point.slopes[index] for point in points]
            improved = False
            for sign in (1.0, -1.0):
                low, high = tunable.bounds
                target = min(high, max(low, weights[index] + sign * steps[index]))
                if tunable.integer:
                    target = float(round(target))
                change = target - weights[index]
                if change == 0.0:
                    continue
                trial = [score + s * change for score, s in zip(scores, slope, strict=True)]
                error = mean_error(results, trial, k)
                if error < best:
                    best, scores, weights[index] = error, trial, target
                    improved = moved = True
                    break
            if not improved:
                steps[index] /= 2.0
                if tunable.integer and steps[index] < 1.0:
                    steps[index] = 0.0
        if not moved and all(
            step < (1.0 if tunable.integer else LEAST_FACTOR_STEP)
            for step, tunable in zip(steps, tunables, strict=True)
        ):
            break
    return weights
