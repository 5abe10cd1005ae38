"""Who is rated as what: abandonment, stand-ins, and both sides forfeiting."""

from __future__ import annotations

import pytest

from crokinole.errors import RankingError
from crokinole.ranking import (
    INITIAL,
    STANDIN_LIMIT,
    Outcome,
    Rating,
    SideResult,
    Verdict,
    rate,
    rate_verdict,
    result_of,
)

W, D, L = Outcome.WIN, Outcome.DRAW, Outcome.LOSS
PLAYED = SideResult()
LEFT = SideResult(abandoned=True)
CPU_MOSTLY = SideResult(standin_share=0.6)
CPU_HALF = SideResult(standin_share=0.5)


@pytest.mark.parametrize(
    ("score", "side_a", "side_b", "rated_as"),
    [
        # Nobody forfeited: the score decides.
        (W, PLAYED, PLAYED, (W, L)),
        (D, PLAYED, PLAYED, (D, D)),
        (L, PLAYED, PLAYED, (L, W)),
        # Abandoning is a loss, whatever the score was.
        (W, LEFT, PLAYED, (L, W)),
        (D, PLAYED, LEFT, (W, L)),
        (None, LEFT, PLAYED, (L, W)),
        (None, PLAYED, LEFT, (W, L)),
        # A CPU stood in for more than half the side's shots: beaten.
        (W, CPU_MOSTLY, PLAYED, (L, W)),
        (D, PLAYED, CPU_MOSTLY, (W, L)),
        (None, SideResult(standin_share=1.0), PLAYED, (L, W)),
        # Exactly half is not more than half: the score decides.
        (W, CPU_HALF, PLAYED, (W, L)),
        (L, PLAYED, CPU_HALF, (L, W)),
        (D, CPU_HALF, CPU_HALF, (D, D)),
        # Both forfeited: both beaten.
        (None, LEFT, LEFT, (L, L)),
        (W, LEFT, CPU_MOSTLY, (L, L)),
        (D, CPU_MOSTLY, CPU_MOSTLY, (L, L)),
        # Left after playing, with a CPU in for most of it: one loss, not two.
        (W, SideResult(abandoned=True, standin_share=0.9), PLAYED, (L, W)),
    ],
)
def test_what_each_side_is_rated_as(
    score: Outcome | None,
    side_a: SideResult,
    side_b: SideResult,
    rated_as: tuple[Outcome, Outcome],
) -> None:
    assert result_of(score, side_a, side_b) == Verdict(*rated_as)


def test_the_stand_in_limit_is_half() -> None:
    assert STANDIN_LIMIT == 0.5
    assert not SideResult(standin_share=0.5).forfeits
    assert SideResult(standin_share=0.5000001).forfeits
    assert SideResult(abandoned=True).forfeits
    assert not SideResult().forfeits


def test_a_game_nobody_forfeited_needs_its_score() -> None:
    with pytest.raises(RankingError, match="nobody forfeited is rated by its score"):
        result_of(None, PLAYED, CPU_HALF)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: SideResult(abandoned=1), "abandoned is true or false, not 1"),  # type: ignore[arg-type]
        (
            lambda: SideResult(standin_share=1.5),
            "a stand-in share is a number from 0 to 1, not 1.5",
        ),
        (lambda: SideResult(standin_share=-0.1), "from 0 to 1, not -0.1"),
        (lambda: SideResult(standin_share=float("nan")), "from 0 to 1, not nan"),
        (lambda: SideResult(standin_share="half"), "from 0 to 1, not 'half'"),  # type: ignore[arg-type]
        (lambda: result_of("won", PLAYED, PLAYED), "not 'won'"),  # type: ignore[arg-type]
        (lambda: result_of(W, PLAYED, True), "side B's result is a SideResult, not True"),  # type: ignore[arg-type]
        (lambda: Verdict(W, W), "side A rated as a win and side B as a win cannot come"),
        (lambda: Verdict(D, L), "side A rated as a draw and side B as a loss"),
        (lambda: Verdict(W, "lost"), "an outcome is win, draw or loss, not 'lost'"),  # type: ignore[arg-type]
        (lambda: rate_verdict([INITIAL], [INITIAL], (W, L)), "a verdict is a Verdict"),  # type: ignore[arg-type]
    ],
)
def test_bad_results_are_refused_in_plain_words(make: object, message: str) -> None:
    with pytest.raises(RankingError, match=message):
        make()  # type: ignore[operator]


def test_a_verdict_from_words() -> None:
    assert Verdict("win", "loss") == Verdict(W, L)  # type: ignore[arg-type]


SIDE_A = [Rating(27.0, 4.0), Rating(23.0, 6.0)]
SIDE_B = [Rating(26.0, 3.0), Rating(22.0, 5.0)]


@pytest.mark.parametrize("outcome", list(Outcome))
def test_a_verdict_of_one_game_rates_as_rate_does(outcome: Outcome) -> None:
    verdict = Verdict(outcome, outcome.opposite)
    assert rate_verdict(SIDE_A, SIDE_B, verdict) == rate(SIDE_A, SIDE_B, outcome)


def test_the_opponents_of_a_side_that_left_are_rated_as_winners() -> None:
    # The side that was ahead left: it loses; the others win as in a won game.
    verdict = result_of(W, LEFT, PLAYED)
    assert rate_verdict(SIDE_A, SIDE_B, verdict) == rate(SIDE_A, SIDE_B, L)


def test_a_side_the_cpu_played_for_loses_as_if_beaten() -> None:
    verdict = result_of(W, PLAYED, SideResult(standin_share=0.75))
    new_a, new_b = rate_verdict(SIDE_A, SIDE_B, verdict)
    assert (new_a, new_b) == rate(SIDE_A, SIDE_B, W)
    assert all(n.mu < o.mu for n, o in zip(new_b, SIDE_B, strict=True))


def test_when_both_forfeit_each_side_gets_a_loss_to_the_other() -> None:
    verdict = result_of(None, LEFT, SideResult(standin_share=0.8))
    new_a, new_b = rate_verdict(SIDE_A, SIDE_B, verdict)
    assert new_a == rate(SIDE_A, SIDE_B, L)[0]
    assert new_b == rate(SIDE_A, SIDE_B, W)[1]
    assert all(n.mu < o.mu for n, o in zip(new_a + new_b, SIDE_A + SIDE_B, strict=True))
    (ann,), (bob,) = rate_verdict([INITIAL], [INITIAL], Verdict(L, L))
    assert ann == bob == rate([INITIAL], [INITIAL], L)[0][0]
