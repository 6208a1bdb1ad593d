"""The arena's statistics against hand-worked examples and published fishtest and fastchess
figures."""

from __future__ import annotations

import math

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from arena.stats import (
    Pentanomial,
    Sprt,
    Trinomial,
    elo_from_score,
    llr,
    pentanomial_estimate,
    score_from_elo,
    trinomial_estimate,
)


def test_trinomial_worked_by_hand() -> None:
    """W 6, D 2, L 2 in 10 games.

    score s = (6 + 2/2) / 10 = 0.7
    variance = (6 (1 - 0.7)² + 2 (0.5 - 0.7)² + 2 (0 - 0.7)²) / 10 = (0.54 + 0.08 + 0.98) / 10
             = 0.16, so σ = 0.4 and the standard error σ / √10 = 0.126491
    Elo = -400 log10(1/0.7 - 1) = -400 log10(0.428571) = +147.19
    95 %: 0.7 ± 1.959964 × 0.126491 = 0.7 ± 0.247918 → [0.452082, 0.947918]
          Elo(0.452082) = -400 log10(1.211992) = -33.40
          Elo(0.947918) = -400 log10(0.054943) = +504.03
    error = (504.03 + 33.40) / 2 = 268.72
    LOS = Φ((0.7 - 0.5) / 0.126491) = Φ(1.5811) = 0.9431
    """
    got = trinomial_estimate(Trinomial(wins=6, draws=2, losses=2))
    assert got is not None
    assert got.score == pytest.approx(0.7)
    assert got.elo == pytest.approx(147.19, abs=0.01)
    assert got.low == pytest.approx(-33.40, abs=0.01)
    assert got.high == pytest.approx(504.03, abs=0.01)
    assert got.error == pytest.approx(268.72, abs=0.01)
    assert got.los == pytest.approx(0.9431, abs=0.0001)
    assert got.samples == 10


def test_pentanomial_worked_by_hand() -> None:
    """10 pairs: 1 worth 0 points, 1 worth ½, 2 worth 1, 4 worth 1½, 2 worth 2.

    A pair's score a game is its points / 2: 0, 0.25, 0.5, 0.75, 1.
    mean = (0 + 0.25 + 2 × 0.5 + 4 × 0.75 + 2 × 1) / 10 = 6.25 / 10 = 0.625
    variance = (0.625² + 0.375² + 2 × 0.125² + 4 × 0.125² + 2 × 0.375²) / 10
             = (0.390625 + 0.140625 + 0.03125 + 0.0625 + 0.28125) / 10 = 0.090625
    standard error = √(0.090625 / 10) = 0.095197
    Elo = -400 log10(1/0.625 - 1) = -400 log10(0.6) = +88.74
    95 %: 0.625 ± 1.959964 × 0.095197 = 0.625 ± 0.186583 → [0.438417, 0.811583]
          Elo(0.438417) = -400 log10(1.280933) = -43.01
          Elo(0.811583) = -400 log10(0.232161) = +253.69
    LOS = Φ(0.125 / 0.095197) = Φ(1.3131) = 0.9054
    """
    got = pentanomial_estimate(Pentanomial((1, 1, 2, 4, 2)))
    assert got is not None
    assert got.score == pytest.approx(0.625)
    assert got.elo == pytest.approx(88.74, abs=0.01)
    assert got.low == pytest.approx(-43.01, abs=0.01)
    assert got.high == pytest.approx(253.69, abs=0.01)
    assert got.los == pytest.approx(0.9054, abs=0.0001)
    assert got.samples == 10


def test_pairs_counted_by_points() -> None:
    """Pairs land in the bucket of their points: 0, ½, 1, 1½, 2; anything else is refused."""
    pairs = Pentanomial()
    for points in (2, 1.5, 1.5, 1, 0.5, 0, 2):
        pairs = pairs.add(points)
    assert pairs.counts == (1, 1, 1, 2, 2)
    assert pairs.pairs == 7
    for wrong in (2.5, -0.5, 0.25):
        with pytest.raises(ValueError, match="a pair is worth"):
            pairs.add(wrong)


def test_fastchess_published_elo() -> None:
    """fastchess's own tests (Disservin/fastchess, app/tests/elo_test.cpp): EloWDL 2 with
    W 136, L 96, D 111 is 40.70 ± 30.43, LOS 99.60 %; EloPentanomial 1 (LL 34, LD 54, WL 31,
    DD 32, WD 64, WW 75) is 55.58 ± 27.65; EloPentanomial 2 (332, 433, 457, 41, 333, 334) is
    -8.64 ± 10.33, LOS 5.05 %. A WL pair and a DD pair are both worth 1 point."""
    games = trinomial_estimate(Trinomial(wins=136, draws=111, losses=96))
    assert games is not None
    assert (round(games.elo, 2), round(games.error, 2)) == (40.70, 30.43)
    assert round(100 * games.los, 2) == 99.60
    one = pentanomial_estimate(Pentanomial((34, 54, 31 + 32, 64, 75)))
    assert one is not None
    assert (round(one.elo, 2), round(one.error, 2)) == (55.58, 27.65)
    two = pentanomial_estimate(Pentanomial((332, 433, 457 + 41, 333, 334)))
    assert two is not None
    assert (round(two.elo, 2), round(two.error, 2)) == (-8.64, 10.33)
    assert round(100 * two.los, 2) == 5.05


def test_elo_and_score_are_inverse() -> None:
    for elo in (-800.0, -100.0, 0.0, 35.5, 400.0):
        assert elo_from_score(score_from_elo(elo)) == pytest.approx(elo)
    assert score_from_elo(400) == pytest.approx(10 / 11)


def test_a_clean_sweep_stays_finite() -> None:
    """10 wins of 10: no variance; zero counts become 0.001 (fishtest), so the figures stay
    numbers (the Elo at the clamp near 1200) and the LOS is certain."""
    got = trinomial_estimate(Trinomial(wins=10))
    assert got is not None
    assert all(math.isfinite(value) for value in (got.elo, got.low, got.high, got.error))
    assert got.elo > 1000
    assert got.los == pytest.approx(1.0)
    assert trinomial_estimate(Trinomial()) is None
    assert pentanomial_estimate(Pentanomial()) is None


# -- SPRT


@pytest.mark.parametrize(
    ("pairs", "elo0", "elo1", "printed"),
    [
        # Stockfish pull request #3209 (2020-11-01), "New net cb26f10b1fd9", fishtest runs
        # 5f9c7bbc6a2c112b60691d4d (STC) and 5f9d01f06a2c112b60691d87 (LTC), logistic bounds:
        # "LLR: 2.94 (-2.94,2.94) {-0.25,1.25} ... Ptnml(0-2): 253, 4282, 17604, 4431, 286"
        ((253, 4282, 17604, 4431, 286), -0.25, 1.25, 2.94),
        # "LLR: 2.97 (-2.94,2.94) {0.25,1.25} ... Ptnml(0-2): 58, 3302, 33130, 3518, 84"
        ((58, 3302, 33130, 3518, 84), 0.25, 1.25, 2.97),
        # Stockfish pull request #2493 (2020-01-15), "More LMR at root ...", runs
        # 5e1c9afed12216a2857e6401 and 5e1ceb9975be933c8fe635a3:
        # "LLR: 2.94 (-2.94,2.94) {-1.00,3.00} ... Ptnml(0-2): 424, 2948, 5832, 3045, 460"
        ((424, 2948, 5832, 3045, 460), -1.0, 3.0, 2.94),
        # "LLR: 2.94 (-2.94,2.94) {0.00,2.00} ... Ptnml(0-2): 1284, 17437, 55536, 18085, 1292"
        ((1284, 17437, 55536, 18085, 1292), 0.0, 2.0, 2.94),
    ],
)
def test_llr_of_published_fishtest_runs(
    pairs: tuple[int, int, int, int, int], elo0: float, elo1: float, printed: float
) -> None:
    """fishtest's logistic-Elo SPRT results as printed in Stockfish's pull requests (the
    braces mark logistic bounds); the LLR agrees to the two decimals printed."""
    assert round(llr(pairs, elo0, elo1), 2) == printed


@pytest.mark.parametrize(
    ("counts", "elo0", "elo1", "expected"),
    [
        ((21184, 40708, 21404), 0.5, 2.5, -1.57),  # "logistic trinomial 1": W 21404 L 21184
        ((57030, 106593, 57433), 0.0, 2.0, -2.59),  # "logistic trinomial 2"
        ((223, 9863, 20279 + 1000, 10037, 246), 0.5, 2.5, -3.07),  # "logistic pentanomial 1"
        ((871, 26175, 55003 + 980, 26678, 821), 0.0, 2.0, -4.98),  # "logistic pentanomial 2"
    ],
)
def test_llr_of_fastchess_published_cases(
    counts: tuple[int, ...], elo0: float, elo1: float, expected: float
) -> None:
    """fastchess's own SPRT tests (Disservin/fastchess, app/tests/sprt_test.cpp), logistic
    model, L/D/W or pair counts lowest first (a WL pair and a DD pair both score 1)."""
    assert round(llr(counts, elo0, elo1), 2) == expected


def test_bounds_and_decisions() -> None:
    """α = β = 0.05: the bounds are ln(0.05 / 0.95) = -2.944 and ln(0.95 / 0.05) = +2.944;
    α = 0.05, β = 0.1: ln(0.1 / 0.95) = -2.251 and ln(0.9 / 0.05) = +2.890."""
    sprt = Sprt(0, 5, 0.05, 0.05)
    assert (round(sprt.lower, 3), round(sprt.upper, 3)) == (-2.944, 2.944)
    assert [sprt.decision(value) for value in (-3.0, -2.95, 0.0, 2.94, 2.95)] == [
        "H0", "H0", None, None, "H1",
    ]  # fmt: skip
    uneven = Sprt(0, 5, 0.05, 0.1)
    assert (round(uneven.lower, 3), round(uneven.upper, 3)) == (-2.251, 2.890)
    assert sprt.llr((0, 0, 0, 0, 0)) == 0.0


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ((5, 0, 0.05, 0.05), "ELO0 .* must be below ELO1"),
        ((0, 5, 0, 0.05), "ALPHA must lie strictly between 0 and 1"),
        ((0, 5, 0.05, 1), "BETA must lie strictly between 0 and 1"),
        ((0, 5, 0.6, 0.5), r"ALPHA \+ BETA must be below 1"),
        ((0, 2000, 0.05, 0.05), "ELO1 must lie between -1000 and 1000"),
        ((math.nan, 5, 0.05, 0.05), "must be below"),
    ],
)
def test_impossible_tests_are_refused(arguments: tuple[float, ...], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Sprt(*arguments)


#: How far a zero count, weighed as ZERO_COUNT (fishtest's regularization), may lower the LLR
#: of a better sample: up to 3e-5 in a sweep of 200,000 samples of up to 60 pairs a class
#: (worst [1, 60, 0, 0, 0]); hypothesis found [2, 1, 1, 0, 0] at 2.3e-6.
REGULARIZED_SLACK = 1e-4


@given(
    st.lists(st.integers(min_value=0, max_value=60), min_size=5, max_size=5).filter(any),
    st.integers(min_value=0, max_value=3),
)
@example(counts=[2, 1, 1, 0, 0], worse=1)
@example(counts=[1, 60, 0, 0, 0], worse=0)
def test_a_better_pair_never_lowers_the_llr(counts: list[int], worse: int) -> None:
    """Turning one pair into a better one (more points) raises the LLR of elo1 > elo0:
    exactly where no count is zero, and within the regularization's reach where one is."""
    if not counts[worse]:
        return
    better = list(counts)
    better[worse] -= 1
    better[worse + 1] += 1
    exact = all(counts) and all(better)
    assert llr(better, 0, 10) >= llr(counts, 0, 10) - (1e-9 if exact else REGULARIZED_SLACK)
