"""Properties of ratings and of the queue, over many generated games and queues."""

from __future__ import annotations

import math
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from crokinole.ranking import (
    Entry,
    Ladder,
    Outcome,
    Rating,
    SideResult,
    display,
    pair,
    rate,
    rate_verdict,
    result_of,
)

RATINGS = st.builds(
    Rating,
    mu=st.floats(-20.0, 70.0),
    sigma=st.floats(0.3, 25.0 / 3.0),
)
OUTCOMES = st.sampled_from(list(Outcome))


@st.composite
def games(draw: Any) -> tuple[list[Rating], list[Rating]]:
    size = draw(st.sampled_from([1, 2]))
    side = st.lists(RATINGS, min_size=size, max_size=size)
    return draw(side), draw(side)


def close(x: Rating, y: Rating) -> bool:
    return math.isclose(x.mu, y.mu, rel_tol=1e-9, abs_tol=1e-9) and math.isclose(
        x.sigma, y.sigma, rel_tol=1e-9, abs_tol=1e-12
    )


@given(games(), OUTCOMES)
def test_ratings_stay_finite_and_sigma_never_grows(game: Any, outcome: Outcome) -> None:
    side_a, side_b = game
    new_a, new_b = rate(side_a, side_b, outcome)
    for old, new in zip(side_a + side_b, new_a + new_b, strict=True):
        assert math.isfinite(new.mu) and math.isfinite(new.sigma)
        assert 0 < new.sigma <= old.sigma
        assert display(new) >= 0


@given(games())
def test_the_winners_rise_the_losers_fall_and_a_draw_lies_between(game: Any) -> None:
    side_a, side_b = game
    won_a, lost_b = rate(side_a, side_b, Outcome.WIN)
    lost_a, won_b = rate(side_a, side_b, Outcome.LOSS)
    drew_a, drew_b = rate(side_a, side_b, Outcome.DRAW)
    for old, win, draw, loss in zip(
        side_a + side_b, won_a + won_b, drew_a + drew_b, lost_a + lost_b, strict=True
    ):
        assert loss.mu < old.mu < win.mu
        assert loss.mu < draw.mu < win.mu
        assert loss.conservative < draw.conservative < win.conservative
        assert display(loss) <= display(draw) <= display(win)


@given(games(), OUTCOMES)
def test_the_order_of_teammates_does_not_matter(game: Any, outcome: Outcome) -> None:
    side_a, side_b = game
    new_a, new_b = rate(side_a, side_b, outcome)
    rev_a, rev_b = rate(side_a[::-1], side_b[::-1], outcome)
    assert all(close(x, y) for x, y in zip(new_a + new_b, rev_a[::-1] + rev_b[::-1], strict=True))


@given(games(), OUTCOMES)
def test_the_order_of_the_sides_does_not_matter(game: Any, outcome: Outcome) -> None:
    side_a, side_b = game
    new_a, new_b = rate(side_a, side_b, outcome)
    new_b2, new_a2 = rate(side_b, side_a, outcome.opposite)
    assert all(close(x, y) for x, y in zip(new_a + new_b, new_a2 + new_b2, strict=True))


SIDES = st.builds(SideResult, abandoned=st.booleans(), standin_share=st.floats(0.0, 1.0))


@given(games(), st.none() | OUTCOMES, SIDES, SIDES)
def test_a_forfeiting_side_never_gains(game: Any, score: Any, a: SideResult, b: SideResult) -> None:
    if score is None and not (a.forfeits or b.forfeits):
        return
    side_a, side_b = game
    verdict = result_of(score, a, b)
    new_a, new_b = rate_verdict(side_a, side_b, verdict)
    for forfeits, old_side, new_side in ((a.forfeits, side_a, new_a), (b.forfeits, side_b, new_b)):
        if forfeits:
            assert all(n.mu < o.mu for o, n in zip(old_side, new_side, strict=True))


@st.composite
def queues(draw: Any) -> tuple[list[Entry], float]:
    names = iter(f"p{i:02d}" for i in range(100))
    entries = []
    for _ in range(draw(st.integers(0, 14))):
        ladder = draw(st.sampled_from(list(Ladder)))
        size = 1 if ladder.team_size == 1 else draw(st.sampled_from([1, 2]))
        players = tuple(next(names) for _ in range(size))
        rating = draw(st.integers(900, 1400))
        joined = draw(st.sampled_from([0.0, 3.0, 12.5, 40.0, 90.0]))
        entries.append(Entry(players, ladder, rating, joined))
    return entries, draw(st.sampled_from([90.0, 120.0, 400.0]))


@given(queues(), st.randoms(use_true_random=False))
def test_pairing_is_sound_and_deterministic(queue: Any, random: Any) -> None:
    entries, now = queue
    matches = pair(entries, now)
    shuffled = list(entries)
    random.shuffle(shuffled)
    assert pair(shuffled, now) == matches
    used: list[Entry] = [e for m in matches for e in m.entries]
    assert len({e.players for e in used}) == len(used)  # an entry in one match at most
    for match in matches:
        size = match.ladder.team_size
        assert len(match.side_a) == len(match.side_b) == size
        players = match.side_a + match.side_b
        assert len(set(players)) == len(players)  # nobody twice
        assert sorted(players) == sorted(p for e in match.entries for p in e.players)
        assert all(e.ladder is match.ladder for e in match.entries)
        for x in match.entries:
            for y in match.entries:
                assert abs(x.rating - y.rating) <= min(x.window(now), y.window(now))
    # Nothing left could still make a singles match.
    left = [e for e in entries if e not in used and e.ladder is Ladder.SINGLES]
    for x in left:
        for y in left:
            if x is not y:
                assert abs(x.rating - y.rating) > min(x.window(now), y.window(now))
