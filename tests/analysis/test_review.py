"""Game review (crokinole.analysis.review): shots valued against the Expert's best, graded.

Expectations come from outside the review: the Expert's own choices, the
closed-form round-win chance of ``round_win_chance`` (logistic in the margin
over ``3 + 5·sqrt(shots left)``; 1, ½ or 0 on the last shot, R6), the
points a disc scores (R5, R6) and the record's own actions (R9).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import crokinole.analysis.review as review_module
from crokinole.ai import ExpertPlayer, make_player
from crokinole.analysis.practice import position_from_code
from crokinole.analysis.review import (
    GRADE_THRESHOLDS,
    GameReview,
    Grade,
    ShotEffect,
    grade_of,
    review,
)
from crokinole.analysis.value import Accuracy
from crokinole.board import Seat, Shot
from crokinole.errors import AnalysisError
from crokinole.rules import Game, Layout, Phase, Rules

#: Straight through the middle at full power: off the far side of the board (R5), and
#: on an open board a foul (R4: nothing finishes in the 15), so the disc is in the ditch.
DITCH = Shot(position=0.0, direction=0.0, power=100.0)
#: A steady open 20 from the middle of the quarter (as the value module's doctest shows).
OPEN_TWENTY = Shot(position=0.0, direction=0.0, power=29.0)


def _logistic(margin: float, shots_left: int) -> float:
    return 1.0 / (1.0 + math.exp(-margin / (3.0 + 5.0 * math.sqrt(shots_left))))


def _play(game: Game, shots: list[Shot]) -> Game:
    for shot in shots:
        seat = game.current_seat
        assert seat is not None
        game.shoot(seat, shot)
    return game


def _expert_game(seed: int, rounds: int = 2) -> Game:
    """South plays the Expert's own choices with a steady hand; north is Hard, with its noise."""
    rng = np.random.default_rng(seed)
    expert, hard = ExpertPlayer(), make_player("hard")
    game = Game(Rules(rounds=rounds))
    while not game.is_over:
        if game.phase is Phase.ROUND_OVER:
            game.next_round()
            continue
        seat = game.current_seat
        assert seat is not None
        shot = expert.intend(game, rng) if seat is Seat.SOUTH else hard.choose_shot(game, rng)
        game.shoot(seat, shot)
    return game


@pytest.fixture(scope="module")
def expert_game() -> Game:
    return _expert_game(seed=2)


@pytest.fixture(scope="module")
def expert_review(expert_game: Game) -> GameReview:
    return review(expert_game)


def test_the_experts_own_choices_are_graded_good(expert_review: GameReview) -> None:
    # The review's best comes from the same search and the same hand (the human hand is the
    # Expert's noise), so the Expert's choice is the best or within noise of it.  Tolerance:
    # the review values with 128 fresh draws where the Expert chose on 400, so at most one
    # of its 16 shots may fall just past the 0.05 line, and none past an inaccuracy.
    south = [s for s in expert_review.shots if s.seat is Seat.SOUTH]
    assert len(south) == 16
    grades = [s.grade for s in south]
    assert grades.count(Grade.GOOD) >= len(south) - 1, [(s.index, s.loss_win) for s in south]
    assert all(s.loss_win < 0.12 for s in south)
    # The noisy Hard player opposite gives away more, on average, than the Expert.
    north = [s for s in expert_review.shots if s.seat is Seat.NORTH]
    assert np.mean([s.loss_win for s in north]) > np.mean([s.loss_win for s in south])


def test_review_is_deterministic_and_seeded_per_shot(expert_game: Game) -> None:
    first = review(expert_game, seed=5)
    again = review(expert_game, seed=5)
    assert first == again
    assert json.dumps(first.to_dict()) == json.dumps(again.to_dict())
    assert first.seed == 5


def test_ditch_shot_with_an_open_twenty_as_the_hammer_is_a_blunder() -> None:
    # Fifteen shots into the ditch leave an empty board and a level round; north has the
    # last shot (R2: south opened).  In the ditch the round is tied: ½ (R6); the open 20
    # wins it outright whatever it scores on the board.
    game = _play(Game(Rules(rounds=1)), [DITCH] * 16)
    result = review(game, accuracy=Accuracy.steady())
    last = result.shots[-1]
    assert (last.seat, last.round, last.turn) == (Seat.NORTH, 1, 16)
    assert last.played.margin == 0.0 and last.played.round_win == 0.5
    assert last.best.round_win == 1.0 and last.best.margin > 0
    assert last.loss_win == pytest.approx(0.5)
    assert last.grade is Grade.BLUNDER
    # Under the human hand too: the Expert's noise still makes the open 20 or a 15.
    assert review(game).shots[-1].grade is Grade.BLUNDER


def test_first_shot_into_the_ditch_loses_the_closed_form_chance() -> None:
    # Steady hand, empty board, 15 shots to follow: the best is the open 20 (+20, no shot
    # scores more on an empty board), the ditch leaves 0; the loss is the logistic's.
    game = _play(Game(Rules(rounds=1)), [DITCH])
    shot = review(game, accuracy=Accuracy.steady()).shots[0]
    assert shot.played.margin == 0.0 and shot.played.valid == 0.0
    assert shot.best.margin == 20.0 and shot.best.twenty == 1.0
    expected = _logistic(20.0, 15) - 0.5
    assert shot.loss_win == pytest.approx(expected)
    assert shot.loss_margin == 20.0
    assert shot.grade is grade_of(expected) is Grade.MISTAKE


def test_an_open_twenty_loses_nothing_and_the_swing_is_counted() -> None:
    game = _play(Game(Rules(rounds=1)), [OPEN_TWENTY, DITCH])
    south, north = review(game, accuracy=Accuracy.steady()).shots
    assert south.played.twenty == 1.0 and south.loss_win == 0.0 and south.grade is Grade.GOOD
    assert south.best == south.played  # nothing beats the 20 on an empty board
    # The real standing after each shot (R6, 20s set aside included), from the shooter's side.
    assert (south.margin_after, south.totals_after) == (20.0, (20, 0))
    assert (north.margin_after, north.totals_after) == (-20.0, (20, 0))


def test_each_shot_says_what_it_did_and_what_the_best_does() -> None:
    # South's straight shot at 25% stops in the 15 (R6: the disc's centre about 2.3 in from
    # the middle); north's straight shot at 60% meets it head on, knocks it off the board and
    # stays in the 15 itself (R5: the shot disc keeps going after a hit).
    game = _play(Game(Rules(rounds=1)), [Shot(0.0, 0.0, 25.0), Shot(0.0, 0.0, 60.0)])
    south, north = review(game, accuracy=Accuracy.steady()).shots
    assert south.played_effect == ShotEffect(lands=15, foul=None, hit=False, taken=(), lost=())
    assert north.played_effect == ShotEffect(lands=15, foul=None, hit=True, taken=(15,), lost=())
    # On an empty board the best is the open 20 (played exactly, it drops).
    assert south.best_effect is not None and south.best_effect.lands == 20


def test_a_ditched_first_shot_is_a_foul_and_the_best_a_twenty() -> None:
    # R4: on an open board a disc must finish in the 15; full power finishes in the ditch.
    game = _play(Game(Rules(rounds=1)), [DITCH])
    shot = review(game, accuracy=Accuracy.steady()).shots[0]
    assert shot.played_effect == ShotEffect(
        lands=0, foul="not_in_fifteen", hit=False, taken=(), lost=()
    )
    assert shot.best_effect == ShotEffect(lands=20, foul=None, hit=False, taken=(), lost=())


def test_timeouts_are_replayed_but_not_reviewed() -> None:
    game = Game(Rules(rounds=1))
    game.shoot(Seat.SOUTH, OPEN_TWENTY)
    game.timeout(Seat.NORTH)  # R3
    game.shoot(Seat.SOUTH, DITCH)
    result = review(game, accuracy=Accuracy.steady())
    assert [a.kind for a in game.actions] == ["shoot", "timeout", "shoot"]
    assert [(s.index, s.seat, s.turn) for s in result.shots] == [
        (0, Seat.SOUTH, 1),
        (2, Seat.SOUTH, 3),
    ]
    assert [s.shot for s in result.shots] == [OPEN_TWENTY, DITCH]


def test_rounds_and_turns_follow_the_record() -> None:
    game = _play(Game(Rules(rounds=2)), [DITCH] * 16)
    game.next_round()
    _play(game, [OPEN_TWENTY])  # R2: north opens round 2
    last = review(game, accuracy=Accuracy.steady()).shots[-1]
    assert (last.index, last.round, last.turn, last.seat) == (17, 2, 1, Seat.NORTH)


def test_a_record_that_does_not_replay_is_refused() -> None:
    game = _play(Game(Rules(rounds=1)), [OPEN_TWENTY, DITCH])
    data = game.to_record()
    data["actions"][1]["result"]["removed"] = []  # edited: the ditch shot is no longer out
    edited = Game.from_json(json.dumps(data))
    with pytest.raises(AnalysisError, match="action 1 of the game does not replay"):
        review(edited)


def test_position_code_is_the_position_before_the_shot() -> None:
    game = _play(Game(Rules(rounds=1)), [Shot(0.0, 0.0, 24.0)])  # short of the hole: stays
    (disc,) = game.discs
    game.shoot(Seat.NORTH, DITCH)
    south, north = review(game, accuracy=Accuracy.steady()).shots
    assert south.position_code is not None and north.position_code is not None
    assert position_from_code(south.position_code).discs == ()
    before_north = position_from_code(north.position_code)
    assert before_north.seat == "north"
    assert before_north.discs == (("s", round(disc.x, 2) + 0.0, round(disc.y, 2) + 0.0),)


def test_no_position_code_outside_singles() -> None:
    game = Game(Rules(layout=Layout.DOUBLES, discs_per_side=12, rounds=1))
    _play(game, [OPEN_TWENTY])
    (shot,) = review(game, accuracy=Accuracy.steady()).shots
    assert shot.position_code is None and shot.seat is Seat.SOUTH


def test_grade_thresholds_are_the_documented_ones() -> None:
    assert GRADE_THRESHOLDS == (
        (Grade.GOOD, 0.05),
        (Grade.INACCURACY, 0.12),
        (Grade.MISTAKE, 0.25),
    )
    cases = {0.0: Grade.GOOD, 0.0499: Grade.GOOD, 0.05: Grade.INACCURACY, 0.1199: Grade.INACCURACY}
    cases |= {0.12: Grade.MISTAKE, 0.2499: Grade.MISTAKE, 0.25: Grade.BLUNDER, 1.0: Grade.BLUNDER}
    assert {x: grade_of(x) for x in cases} == cases
    doc = review_module.__doc__ or ""
    for words in ("below 0.05", "0.05 to below 0.12", "0.12 to below 0.25", "0.25 or more"):
        assert words in doc


def test_to_dict_is_json_with_a_summary_per_seat(expert_review: GameReview) -> None:
    data = json.loads(json.dumps(expert_review.to_dict()))
    assert data["accuracy"] == "human"
    assert data["thresholds"] == {"good": 0.05, "inaccuracy": 0.12, "mistake": 0.25}
    assert data["sides"] == [["south"], ["north"]]
    assert len(data["shots"]) == 32
    first = data["shots"][0]
    assert set(first) == {
        "index",
        "round",
        "turn",
        "seat",
        "shot",
        "played",
        "best",
        "loss_margin",
        "loss_win",
        "grade",
        "margin_after",
        "totals_after",
        "position_code",
        "played_effect",
        "best_effect",
    }
    assert set(first["played_effect"]) == {"lands", "foul", "hit", "taken", "lost"}
    for seat in ("south", "north"):
        summary = data["summary"][seat]
        assert summary["shots"] == 16
        assert sum(summary["grades"].values()) == 16
        shots = [s for s in data["shots"] if s["seat"] == seat]
        mean = sum(s["loss_win"] for s in shots) / len(shots)
        assert summary["mean_loss_win"] == pytest.approx(mean, abs=1e-3)


def test_progress_is_reported_per_shot() -> None:
    game = _play(Game(Rules(rounds=1)), [OPEN_TWENTY, DITCH, DITCH])
    seen: list[tuple[int, int]] = []
    review(
        game, accuracy=Accuracy.steady(), progress=lambda done, total: seen.append((done, total))
    )
    assert seen == [(1, 3), (2, 3), (3, 3)]
