"""The match runner's statistics and reproducibility."""

from __future__ import annotations

import math

import pytest

from crokinole.ai import Level
from crokinole.ai.match import MatchSummary, open_twenty, play_match, wilson


def test_wilson_interval_against_the_formula() -> None:
    share, low, high = wilson(150, 200)
    assert share == 0.75
    # Wilson score interval for p = 0.75, n = 200, z = 1.96, by hand.
    z, n, p = 1.96, 200, 0.75
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    assert (low, high) == pytest.approx((centre - half, centre + half))
    assert wilson(0, 10)[1] == 0.0 and wilson(10, 10)[2] == 1.0


def test_a_match_is_the_same_whatever_the_number_of_processes() -> None:
    one = list(play_match("normal", "easy", games=4, seed=9, jobs=1))
    two = list(play_match("normal", "easy", games=4, seed=9, jobs=2))
    assert [r.result for r in one] == [r.result for r in two]
    assert [r.round_totals_a for r in one] == [r.round_totals_a for r in two]


def test_summary_counts_and_round_scores() -> None:
    records = list(play_match("normal", "easy", games=4, seed=2))
    summary = MatchSummary.of(records)
    assert summary.wins + summary.draws + summary.losses == 4
    assert summary.mean_round_a == pytest.approx(
        sum(t for r in records for t in r.round_totals_a) / (4 * 4)
    )
    assert len(summary.times_a) == 4 * 4 * 8


def test_open_twenty_counts_drops() -> None:
    figure = open_twenty(Level.EXPERT, tries=200, seed=1)
    assert figure.tries == 200 and 0 < figure.made <= 200
    assert figure.intended.position == 0.0
