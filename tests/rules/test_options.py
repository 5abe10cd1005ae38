"""Rules (R2): every option, the presets, and the impossible combinations."""

from __future__ import annotations

import json

import numpy as np
import pytest

from crokinole.board import Seat
from crokinole.errors import CrokinoleError, InvalidRulesError
from crokinole.rules import Layout, Rules, Scoring, TieSetting, round_points, round_total


def test_defaults_are_tournament_singles() -> None:
    rules = Rules()
    assert rules == Rules.tournament_singles()
    assert (rules.layout, rules.discs_per_side, rules.scoring, rules.rounds, rules.target) == (
        Layout.SINGLES,
        8,
        Scoring.FOUR_ROUNDS,
        4,
        None,
    )
    assert rules.required_contact and rules.turn_time is None
    assert rules.seats == (Seat.SOUTH, Seat.NORTH)


def test_presets() -> None:
    assert Rules.home_singles().scoring is Scoring.TO_100
    assert Rules.home_singles().target == 100 and Rules.home_singles().rounds is None
    assert Rules.doubles().seats == (Seat.SOUTH, Seat.WEST, Seat.NORTH, Seat.EAST)
    assert Rules.doubles().sides == ((Seat.SOUTH, Seat.NORTH), (Seat.WEST, Seat.EAST))
    assert Rules.two_vs_one().sides == ((Seat.SOUTH, Seat.NORTH), (Seat.WEST,))
    assert Rules.three_singles().seats == (Seat.SOUTH, Seat.WEST, Seat.NORTH)
    assert Rules.for_players(4) == Rules.doubles()
    assert Rules.for_players(3, layout="two_vs_one") == Rules.two_vs_one()


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: Rules.for_players(5), "played by 2, 3 or 4 players, not 5"),
        (lambda: Rules(layout=Layout.DOUBLES, discs_per_side=7), "doubles is played with 12"),
        (lambda: Rules(discs_per_side=10), "singles is played with 8 or 12 discs per side"),
        (lambda: Rules(scoring=Scoring.TO_100, rounds=4), "a game to 100 has no round count"),
        (lambda: Rules(target=100), "a four-round game has no points target"),
        (lambda: Rules(rounds=0), "rounds must be a whole number from 1 to 20"),
        (lambda: Rules(scoring=Scoring.TO_100, target=101), "multiple of 5"),
        (lambda: Rules(turn_time=45), "turn_time must be none, 30 or 60"),
        (lambda: Rules(layout="quads"), "layout must be one of"),  # type: ignore[arg-type]
        (lambda: Rules(required_contact="yes"), "required_contact must be true or false"),  # type: ignore[arg-type]
        (lambda: Rules.from_dict({"players": 2}), "unknown rules option"),
        (lambda: Rules(layout=Layout.SINGLES).side_of(Seat.WEST), "west has no player"),
    ],
)
def test_impossible_combinations_are_refused(make: object, message: str) -> None:
    with pytest.raises(InvalidRulesError, match=message) as info:
        make()  # type: ignore[operator]
    assert isinstance(info.value, CrokinoleError) and isinstance(info.value, ValueError)


def test_strings_are_accepted_for_enums_and_round_trip_through_dicts() -> None:
    rules = Rules(layout="doubles", discs_per_side=12, scoring="to_100", tie="extra_rounds")  # type: ignore[arg-type]
    assert rules.layout is Layout.DOUBLES and rules.tie is TieSetting.EXTRA_ROUNDS
    assert Rules.from_dict(rules.to_dict()) == rules


def test_with_options_resets_the_format_numbers() -> None:
    to_100 = Rules().with_options(scoring=Scoring.TO_100)
    assert (to_100.rounds, to_100.target) == (None, 100)
    assert to_100.with_options(scoring=Scoring.FOUR_ROUNDS).rounds == 4


def test_numpy_whole_numbers_are_whole_numbers_and_stored_as_int() -> None:
    # R2: the options are counts; numpy's integer types are as good as int,
    # and the stored value is a plain int so the record can be written.
    rules = Rules(discs_per_side=np.int64(12), rounds=np.int32(2), turn_time=np.uint8(30))
    assert rules == Rules(discs_per_side=12, rounds=2, turn_time=30)
    assert {type(v) for v in (rules.discs_per_side, rules.rounds, rules.turn_time)} == {int}
    json.dumps(rules.to_dict())
    to_100 = Rules(scoring=Scoring.TO_100, target=np.int16(50))
    assert to_100.target == 50 and type(to_100.target) is int


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"discs_per_side": True}, "not True"),
        ({"discs_per_side": 8.0}, "not 8.0"),
        ({"rounds": np.bool_(True)}, "rounds must be a whole number from 1 to 20, got np.True_"),
        ({"turn_time": 30.0}, "turn_time must be none, 30 or 60 seconds, got 30.0"),
        ({"turn_time": True}, "turn_time must be none, 30 or 60 seconds, got True"),
    ],
)
def test_bools_and_fractions_are_not_counts(options: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidRulesError, match=message):
        Rules(**options)  # type: ignore[arg-type]


def test_round_scoring_takes_numpy_counts() -> None:
    # R6: 20 per disc from the hole, then 15, 10, 5 by zone.
    assert round_total(np.int64(1), np.int32(2), np.uint8(0), np.int64(1)) == 55
    assert round_points((np.int64(45), np.int64(30)), Scoring.FOUR_ROUNDS) == (2, 0)
    with pytest.raises(InvalidRulesError, match="twenties must be a whole number of discs"):
        round_total(True, 0, 0, 0)  # type: ignore[arg-type]
