"""Ratings: openskill's Plackett-Luce update, the draw at half (R7), the displayed number."""

from __future__ import annotations

import math

import pytest

from crokinole.errors import CrokinoleError, RankingError
from crokinole.ranking import (
    INITIAL,
    PROVISIONAL_GAMES,
    Ladder,
    Outcome,
    Rating,
    display,
    is_provisional,
    rate,
)

BETA = 25.0 / 6.0
TAU = 25.0 / 300.0


def by_hand_two_sides(
    winner: list[Rating], loser: list[Rating]
) -> tuple[list[Rating], list[Rating]]:
    """Weng & Lin's Algorithm 4 for two sides, written out from the paper."""
    # Each player's sigma first takes the dynamics tau.
    win = [(r.mu, math.sqrt(r.sigma**2 + TAU**2)) for r in winner]
    lose = [(r.mu, math.sqrt(r.sigma**2 + TAU**2)) for r in loser]
    mu_w, var_w = sum(m for m, _ in win), sum(s * s for _, s in win)
    mu_l, var_l = sum(m for m, _ in lose), sum(s * s for _, s in lose)
    c = math.sqrt(var_w + var_l + 2 * BETA**2)
    p_w = math.exp(mu_w / c) / (math.exp(mu_w / c) + math.exp(mu_l / c))
    p_l = 1 - p_w

    def side(players: list[tuple[float, float]], old: list[Rating], var: float, omega: float):
        delta = var / c**2 * p_w * p_l * (math.sqrt(var) / c)
        return [
            Rating(
                m + s * s / var * omega,
                min(o.sigma, s * math.sqrt(max(1 - s * s / var * delta, 1e-4))),
            )
            for (m, s), o in zip(players, old, strict=True)
        ]

    return side(win, winner, var_w, var_w / c * p_l), side(lose, loser, var_l, -var_l / c * p_l)


def close(x: Rating, y: Rating) -> bool:
    return math.isclose(x.mu, y.mu, rel_tol=1e-12) and math.isclose(x.sigma, y.sigma, rel_tol=1e-12)


def test_a_new_player() -> None:
    assert (INITIAL.mu, INITIAL.sigma) == (25.0, 25.0 / 3.0)
    assert display(INITIAL) == 1000
    assert is_provisional(0)
    assert Ladder.SINGLES.team_size == 1 and Ladder.DOUBLES.team_size == 2
    assert Ladder("doubles") is Ladder.DOUBLES


@pytest.mark.parametrize(
    ("mu", "sigma", "shown"),
    [
        (25.0, 25.0 / 3.0, 1000),  # mu - 3 sigma = 0
        (25.0, 1.0, 1880),  # 1000 + 40 * 22
        (10.0, 2.0, 1160),  # 1000 + 40 * 4
        (0.0, 1.0, 880),  # 1000 - 40 * 3
        (25.0, 0.99, 1881),  # 1000 + 40 * 22.03 = 1881.2
        (-22.0, 1.0, 0),  # 1000 + 40 * -25 = 0
        (-40.0, 2.0, 0),  # below 0: floored
    ],
)
def test_display_is_the_conservative_estimate_on_a_friendly_scale(
    mu: float, sigma: float, shown: int
) -> None:
    assert display(Rating(mu, sigma)) == shown


def test_provisional_until_ten_games() -> None:
    assert PROVISIONAL_GAMES == 10
    assert [is_provisional(n) for n in (0, 1, 9, 10, 11, 500)] == [True] * 3 + [False] * 3


@pytest.mark.parametrize("games", [-1, 1.5, True, "3", None])
def test_a_count_of_games_is_checked(games: object) -> None:
    with pytest.raises(RankingError, match="a count of games is a whole number from 0"):
        is_provisional(games)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("mu", "sigma", "message"),
    [
        (math.nan, 1.0, "a rating's mu is a finite number, not nan"),
        (math.inf, 1.0, "a rating's mu is a finite number, not inf"),
        ("25", 1.0, "a rating's mu is a finite number, not '25'"),
        (True, 1.0, "a rating's mu is a finite number, not True"),
        (25.0, 0.0, "a rating's sigma is a positive number, not 0.0"),
        (25.0, -1.0, "a rating's sigma is a positive number, not -1.0"),
        (25.0, math.nan, "a rating's sigma is a positive number, not nan"),
    ],
)
def test_a_bad_rating_is_refused_in_plain_words(mu: object, sigma: object, message: str) -> None:
    with pytest.raises(RankingError) as caught:
        Rating(mu, sigma)  # type: ignore[arg-type]
    assert str(caught.value) == message
    assert isinstance(caught.value, CrokinoleError) and isinstance(caught.value, ValueError)


def test_whole_numbers_become_floats() -> None:
    rating = Rating(25, 8)
    assert isinstance(rating.mu, float) and isinstance(rating.sigma, float)


def test_a_win_between_new_players_is_the_papers_update() -> None:
    (ann,), (bob,) = rate([INITIAL], [INITIAL], Outcome.WIN)
    (ann_hand,), (bob_hand,) = by_hand_two_sides([INITIAL], [INITIAL])
    assert close(ann, ann_hand) and close(bob, bob_hand)
    # Between equals, the winner gains what the loser gives.
    assert ann.mu == pytest.approx(27.635389493140497)
    assert bob.mu == pytest.approx(22.364610506859503)
    assert ann.sigma == bob.sigma == pytest.approx(8.06590141354368)
    assert (display(ann), display(bob)) == (1138, 927)


def test_a_loss_is_the_win_seen_from_the_other_side() -> None:
    ann, bob = Rating(30.0, 4.0), Rating(22.0, 6.0)
    (a_lost,), (b_won,) = rate([ann], [bob], Outcome.LOSS)
    (b_won2,), (a_lost2,) = rate([bob], [ann], Outcome.WIN)
    assert (a_lost, b_won) == (a_lost2, b_won2)
    (b_hand,), (a_hand,) = by_hand_two_sides([bob], [ann])
    assert close(a_lost, a_hand) and close(b_won, b_hand)


def test_an_upset_moves_more_than_the_expected_result() -> None:
    strong, weak = Rating(30.0, 3.0), Rating(20.0, 3.0)
    (s_won,), _ = rate([strong], [weak], Outcome.WIN)
    (s_lost,), _ = rate([strong], [weak], Outcome.LOSS)
    assert 0 < s_won.mu - strong.mu < strong.mu - s_lost.mu


def test_a_doubles_win_is_the_papers_update() -> None:
    team_a = [Rating(27.0, 5.0), Rating(21.0, 7.0)]
    team_b = [Rating(24.0, 3.0), INITIAL]
    new_a, new_b = rate(team_a, team_b, Outcome.WIN)
    hand_a, hand_b = by_hand_two_sides(team_a, team_b)
    assert all(close(x, y) for x, y in zip(new_a + new_b, hand_a + hand_b, strict=True))
    # The less certain teammate moves more.
    assert new_a[1].mu - team_a[1].mu > new_a[0].mu - team_a[0].mu > 0


@pytest.mark.parametrize(
    ("side_a", "side_b"),
    [
        ([INITIAL], [INITIAL]),
        ([Rating(31.0, 2.5)], [Rating(19.0, 6.0)]),
        ([Rating(19.0, 6.0)], [Rating(31.0, 2.5)]),
        ([INITIAL, INITIAL], [INITIAL, INITIAL]),
        ([Rating(30.0, 2.0), Rating(18.0, 7.5)], [Rating(25.0, 4.0), Rating(24.0, 1.5)]),
    ],
    ids=["new singles", "favourite singles", "underdog singles", "new doubles", "mixed doubles"],
)
def test_a_draw_lies_strictly_between_the_win_and_the_loss(
    side_a: list[Rating], side_b: list[Rating]
) -> None:
    won = rate(side_a, side_b, Outcome.WIN)
    lost = rate(side_a, side_b, Outcome.LOSS)
    drew = rate(side_a, side_b, Outcome.DRAW)
    # Side A's players: the win is best; side B's: side A's loss is their win.
    for index, (w, d, l_) in enumerate(zip(won[0], drew[0], lost[0], strict=True)):
        assert l_.mu < d.mu < w.mu, index
        assert l_.conservative < d.conservative < w.conservative, index
        assert display(l_) <= display(d) <= display(w)
        assert d == Rating((w.mu + l_.mu) / 2, (w.sigma + l_.sigma) / 2)
    for index, (b_lost, d, b_won) in enumerate(zip(won[1], drew[1], lost[1], strict=True)):
        assert b_lost.mu < d.mu < b_won.mu, index
        assert b_lost.conservative < d.conservative < b_won.conservative, index
        assert d == Rating((b_won.mu + b_lost.mu) / 2, (b_won.sigma + b_lost.sigma) / 2)


def test_a_draw_between_equals_keeps_mu_and_narrows_sigma() -> None:
    (ann,), (bob,) = rate([INITIAL], [INITIAL], Outcome.DRAW)
    assert ann == bob
    assert ann.mu == pytest.approx(25.0, abs=1e-12)
    assert ann.sigma == pytest.approx(8.06590141354368)
    # Conservative: a draw between new players still shows a little more.
    assert display(ann) == 1032


def test_a_draw_against_a_stronger_player_is_a_gain() -> None:
    (weak,), (strong,) = rate([Rating(20.0, 3.0)], [Rating(30.0, 3.0)], Outcome.DRAW)
    assert weak.mu > 20.0 and strong.mu < 30.0


def test_outcomes_may_be_given_as_words() -> None:
    assert rate([INITIAL], [INITIAL], "draw") == rate([INITIAL], [INITIAL], Outcome.DRAW)  # type: ignore[arg-type]
    assert Outcome.WIN.opposite is Outcome.LOSS
    assert Outcome.LOSS.opposite is Outcome.WIN
    assert Outcome.DRAW.opposite is Outcome.DRAW


@pytest.mark.parametrize(
    ("side_a", "side_b", "outcome", "message"),
    [
        ([INITIAL], [INITIAL, INITIAL], Outcome.WIN, "side A has 1 player and side B 2"),
        ([INITIAL] * 2, [INITIAL], Outcome.WIN, "side A has 2 players and side B 1"),
        ([], [INITIAL], Outcome.WIN, "side A has 1 or 2 players, not 0"),
        ([INITIAL], [INITIAL] * 3, Outcome.WIN, "side B has 1 or 2 players, not 3"),
        (INITIAL, [INITIAL], Outcome.WIN, "side A is a list of ratings, not Rating"),
        ([INITIAL], [(25.0, 8.0)], Outcome.WIN, r"side B holds ratings, not \(25.0, 8.0\)"),
        ([INITIAL], [INITIAL], "tie", "an outcome is win, draw or loss, not 'tie'"),
    ],
)
def test_bad_input_to_rate_is_refused(
    side_a: object, side_b: object, outcome: object, message: str
) -> None:
    with pytest.raises(RankingError, match=message):
        rate(side_a, side_b, outcome)  # type: ignore[arg-type]


def test_rate_takes_tuples_and_gives_tuples() -> None:
    new_a, new_b = rate((INITIAL,), (INITIAL,), Outcome.WIN)
    assert isinstance(new_a, tuple) and isinstance(new_b, tuple)
