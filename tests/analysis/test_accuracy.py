"""Fitting a player's accuracy to their open-20 rate (analysis.accuracy, R5's 20 hole)."""

from __future__ import annotations

import math

import pytest

from crokinole.ai import NOISE, Level, Noise
from crokinole.analysis import Accuracy, AnalysisError, fit_accuracy, open_twenty_rate
from crokinole.analysis.accuracy import scaled_hand


@pytest.mark.parametrize("rate", [0.1, 0.3, 0.55, 0.75, 0.9])
def test_the_fitted_hand_makes_the_rate_asked_for_within_two_points(rate: float) -> None:
    mine = fit_accuracy(rate, seed=0)
    assert mine.name == "mine"
    # Measured with the fit's own draws it is within the fit's tolerance ...
    assert abs(open_twenty_rate(mine.noise, seed=0) - rate) <= 0.005
    # ... and with fresh, independent draws within the issue's ±2 points.
    assert abs(open_twenty_rate(mine.noise, seed=99, draws=20000) - rate) <= 0.02


def test_the_fit_scales_the_human_hand_by_one_factor() -> None:
    hand = Accuracy.human().noise
    mine = fit_accuracy(0.4).noise
    scale = mine.direction / hand.direction
    assert scale > 1.0  # a worse hand than the human one (about 80%)
    assert mine.position == pytest.approx(hand.position * scale)
    assert mine.power == pytest.approx(hand.power * scale)


def test_fitting_the_human_hand_own_rate_gives_back_the_human_hand() -> None:
    # An independent check of the fit: a hand whose rate is known (the human
    # hand, scale 1) is recovered from that rate.
    rate = open_twenty_rate(scaled_hand(1.0), seed=3)
    mine = fit_accuracy(rate, seed=3).noise
    assert mine.direction / Accuracy.human().noise.direction == pytest.approx(1.0, abs=0.05)


def test_better_players_get_steadier_hands() -> None:
    spreads = [fit_accuracy(rate).noise.direction for rate in (0.2, 0.5, 0.8, 1.0)]
    assert spreads == sorted(spreads, reverse=True)
    assert fit_accuracy(1.0).noise == Noise()  # every open 20 made: a steady hand


def test_the_rate_falls_with_the_cpu_levels_noise() -> None:
    rates = [open_twenty_rate(NOISE[level]) for level in Level]
    assert rates == sorted(rates)
    assert open_twenty_rate(Noise()) == 1.0  # aimed exactly, the open 20 always drops


@pytest.mark.parametrize("bad", [0.0, 0.01, 1.2, -0.5, math.nan, math.inf])
def test_a_rate_that_cannot_be_fitted_is_refused_in_plain_words(bad: float) -> None:
    with pytest.raises(AnalysisError, match="between"):
        fit_accuracy(bad)
