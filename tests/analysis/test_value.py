"""Valuing shots under an accuracy (analysis.value): the figures follow the rules (R4–R6)."""

from __future__ import annotations

import numpy as np
import pytest

from crokinole.ai import NOISE, Level
from crokinole.ai.aim import power_for
from crokinole.ai.evaluate import Situation
from crokinole.analysis import Accuracy, AnalysisError, ShotValue, round_win_chance, value_shots
from crokinole.board import TOURNAMENT_BOARD, Seat, Shot
from crokinole.rules import Game, Rules
from tests.support.rules_positions import game_at

B = TOURNAMENT_BOARD
S, N = Seat.SOUTH, Seat.NORTH
#: A gentle shot straight down the centre line that stops 1" past the centre.
OPEN_TWENTY = Shot(0.0, 0.0, power_for(B, B.shooting_line_radius + 1.0, 0.0))


def test_a_steady_open_twenty_is_a_valid_twenty_worth_twenty_points() -> None:
    # R5: the disc drops, it is set aside for 20; R4: a disc in the hole makes
    # an open-board shot valid; the margin is 20 - 0.
    (value,) = value_shots(Game(Rules()), [OPEN_TWENTY], Accuracy.steady())
    assert value == ShotValue(
        OPEN_TWENTY, margin=20.0, round_win=value.round_win, valid=1.0, twenty=1.0
    )
    shots_left = 15
    assert value.round_win == pytest.approx(1 / (1 + np.exp(-20 / (3 + 5 * np.sqrt(shots_left)))))


def test_a_shot_that_stops_short_of_the_fifteen_on_an_open_board_is_a_foul() -> None:
    # R4: on an open board a disc must finish touching or inside the 15 circle;
    # a foul sends the shot disc to the ditch, so nothing is scored.
    short = Shot(0.0, 0.0, power_for(B, 5.0, 0.0))  # stops 7" from the centre, in the 10
    (value,) = value_shots(Game(Rules()), [short], Accuracy.steady())
    assert (value.valid, value.twenty, value.margin, value.round_win) == (0.0, 0.0, 0.0, 0.5)


def test_without_required_contact_the_same_shot_scores_its_zone() -> None:
    short = Shot(0.0, 0.0, power_for(B, 5.0, 0.0))
    (value,) = value_shots(Game(Rules(required_contact=False)), [short], Accuracy.steady())
    assert (value.valid, value.margin) == (1.0, 10.0)  # R6: the 10 zone


def test_twenties_already_set_aside_count_in_the_margin() -> None:
    # R6: 20s set aside this round are part of the round total.
    game = game_at(Rules(), [], N, twenties=[2, 0])
    short = Shot(0.0, 0.0, power_for(B, 5.0, 0.0))
    (value,) = value_shots(game, [short], Accuracy.steady())
    assert value.margin == -40.0


def test_noise_makes_some_open_twenties_miss_and_a_wider_hand_misses_more() -> None:
    game = Game(Rules())
    (human,) = value_shots(game, [OPEN_TWENTY], Accuracy.human(), draws=400, seed=3)
    (easy,) = value_shots(game, [OPEN_TWENTY], Accuracy.of_level("easy"), draws=400, seed=3)
    assert 0.3 < human.twenty < 1.0
    assert easy.twenty < human.twenty
    # A miss that stops in the 15 is still valid; every 20 is valid (R4).
    assert human.valid >= human.twenty


def test_the_same_seed_gives_the_same_figures_and_another_seed_others() -> None:
    game = Game(Rules())
    first = value_shots(game, [OPEN_TWENTY], Accuracy.human(), draws=64, seed=1)
    assert value_shots(game, [OPEN_TWENTY], Accuracy.human(), draws=64, seed=1) == first
    assert value_shots(game, [OPEN_TWENTY], Accuracy.human(), draws=64, seed=2) != first


def test_shots_valued_together_share_their_draws() -> None:
    # Common random numbers: a shot valued alone or beside another gets the same figures.
    game = Game(Rules())
    other = Shot(5.0, -3.0, 40.0)
    alone = value_shots(game, [OPEN_TWENTY], Accuracy.human(), draws=50, seed=4)
    together = value_shots(game, [other, OPEN_TWENTY], Accuracy.human(), draws=50, seed=4)
    assert together[1] == alone[0]


def test_a_takeout_of_the_only_opposing_disc_is_valid_and_counts_the_shooter_disc() -> None:
    # R4: contact with an opposing disc is required and made; R5/R6: the north
    # disc leaves the 15, the south disc stays in play.
    game = game_at(Rules(), [(N, 0.0, -3.0)], S)
    hit = Shot(0.0, 0.0, power_for(B, 12.0 - 3.0 - 2 * B.disc_radius, 60.0))
    (value,) = value_shots(game, [hit], Accuracy.steady())
    assert value.valid == 1.0
    assert value.margin > 0


def test_round_win_is_certain_on_the_last_shot_of_the_round() -> None:
    game = game_at(Rules(), [(S, 0.0, 6.0)], N, turn=15)
    situation = Situation.of(game)
    assert situation.shots_left == 0
    chances = round_win_chance(np.array([-5.0, 0.0, 5.0]), situation)
    assert chances.tolist() == [0.0, 0.5, 1.0]


def test_nobody_to_shoot_is_an_analysis_error() -> None:
    game = Game(Rules(rounds=1))
    while game.current_seat is not None:
        game.shoot(game.current_seat, OPEN_TWENTY)
    with pytest.raises(AnalysisError, match="nobody is to shoot"):
        value_shots(game, [OPEN_TWENTY], Accuracy.steady())


def test_a_placement_on_a_disc_is_an_analysis_error() -> None:
    game = game_at(Rules(), [(N, 0.0, -10.9)], S)  # overlaps south's middle placement
    with pytest.raises(AnalysisError, match="cannot be placed at 0°"):
        value_shots(game, [OPEN_TWENTY], Accuracy.steady())
    with pytest.raises(AnalysisError, match="at least one draw"):
        value_shots(Game(Rules()), [OPEN_TWENTY], Accuracy.human(), draws=0)


def test_accuracies_by_name() -> None:
    assert Accuracy.named("steady").is_steady
    assert Accuracy.named("human").noise == NOISE[Level.EXPERT]
    assert Accuracy.named("easy") == Accuracy("easy", NOISE[Level.EASY])
    assert Accuracy.of_level(Level.NORMAL).name == "normal"
    for bad in ("mine", "wobbly"):
        with pytest.raises(AnalysisError):
            Accuracy.named(bad)
    assert Accuracy.human().to_dict() == {
        "name": "human",
        "position": 0.1,
        "direction": 1.9,
        "power": 0.09,
    }


def test_a_shot_value_as_plain_data() -> None:
    value = ShotValue(Shot(1.23456, -2.0, 30.0), 12.345678, 0.712345, 1.0, 0.5)
    assert value.to_dict() == {
        "shot": {"position": 1.2346, "direction": -2.0, "power": 30.0},
        "margin": 12.3457,
        "round_win": 0.7123,
        "valid": 1.0,
        "twenty": 0.5,
    }
