"""The game record (R9): exact round trip, replay, and refusal of bad records."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from crokinole.board import Board, Seat, Shot
from crokinole.errors import InvalidRecordError
from crokinole.rules import Game, Rules, SavedGame, replay, write_record
from crokinole.rules.referee import Disc
from tests.support.rules_positions import north_shot


def _played() -> Game:
    game = Game(Rules(rounds=2))
    game.shoot(Seat.SOUTH, north_shot(12.0))
    game.shoot(Seat.NORTH, Shot(3.0, -2.0, 24.0))
    game.shoot(Seat.SOUTH, Shot(-10.0, 4.0, 45.0))
    game.timeout(Seat.NORTH)
    return game


def test_round_trip_is_exact() -> None:
    game = _played()
    again = Game.from_json(game.to_json())
    assert again == game
    assert [(d.x, d.y) for d in again.discs] == [(d.x, d.y) for d in game.discs]
    assert again.to_json() == game.to_json()


def test_a_game_read_back_plays_on_like_the_original() -> None:
    game = _played()
    again = Game.from_json(game.to_json())
    shot = Shot(5.0, -3.0, 35.0)
    a = game.shoot(Seat.SOUTH, shot)
    b = again.shoot(Seat.SOUTH, shot)
    assert a.board_after == b.board_after and again == game


def test_replay_reproduces_the_game_disc_for_disc() -> None:
    game = _played()
    assert replay(game.to_json()) == game


def test_a_custom_board_is_recorded() -> None:
    board = Board(deceleration=40.0)
    game = Game(Rules(), board=board)
    game.shoot(Seat.SOUTH, Shot(0.0, 0.0, 30.0))
    again = Game.from_json(game.to_json())
    assert again.board == board and again == game


def _mutate(text: str, change: object) -> str:
    data = json.loads(text)
    change(data)  # type: ignore[operator]
    return json.dumps(data)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(format="chess"), "not a crokinole record"),
        (lambda d: d.update(version=99), "version 99 is not supported"),
        (lambda d: d["rules"].update(discs_per_side=7), "options are invalid"),
        (lambda d: d.update(first_seat="up"), "first_seat: 'up' is not a seat"),
        (lambda d: d["state"].update(phase="paused"), "unknown phase"),
        (lambda d: d["state"]["discs"].append([9, "north", 1.0]), r"state.discs\[\d\]: expected"),
        (lambda d: d["state"]["discs"].append([3, "north", 0.0, 9.0]), "accounts for 9 discs"),
        (lambda d: d["state"].update(twenties=[1]), "state.twenties: expected a list of 2"),
        (lambda d: d["state"]["in_hand"].update(south=-1), "state.in_hand.south"),
        (lambda d: d["state"].update(turn=99), "past the end of the round"),
        (lambda d: d["state"]["discs"].append([2, "south", 3.7, 1.5]), "overlaps peg 0"),
        (lambda d: d["state"].update(phase="round_over"), "does not match turn"),
        (lambda d: d["state"].update(outcome={"winner": 7, "drawn": []}), "out of range"),
        (lambda d: d["state"].update(outcome={"winner": 1, "drawn": []}), "does not follow"),
    ],
)
def test_bad_records_are_refused_with_the_place_named(change: object, message: str) -> None:
    text = _mutate(_played().to_json(), change)
    with pytest.raises(InvalidRecordError, match=message):
        Game.from_json(text)


@pytest.mark.parametrize("text", ["", "[]", "{", "null", '{"format": "crokinole-record"}'])
def test_garbage_is_refused(text: str) -> None:
    with pytest.raises(InvalidRecordError):
        Game.from_json(text)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[" * 100_000 + "]" * 100_000, "not valid JSON"),  # deeper than the parser goes
        ('{"n": ' + "9" * 5000 + "}", "not valid JSON"),  # more digits than int() takes
        (b"\xff\xfe", "not UTF-8 text"),
    ],
)
def test_text_the_json_parser_cannot_take_is_a_plain_refusal(
    text: str | bytes, message: str
) -> None:
    with pytest.raises(InvalidRecordError, match=message):
        Game.from_json(text)


def test_a_disc_at_nan_is_refused() -> None:
    data = json.loads(_played().to_json())
    data["state"]["discs"][0][2] = float("nan")  # Python's json writes and reads NaN
    with pytest.raises(InvalidRecordError, match=r"state.discs\[0\]: the centre \(nan"):
        Game.from_json(json.dumps(data))


def test_an_edited_record_does_not_replay() -> None:
    def nudge(d: dict) -> None:  # type: ignore[type-arg]
        d["actions"][1]["power"] = 30.0

    text = _mutate(_played().to_json(), nudge)
    with pytest.raises(InvalidRecordError, match=r"actions\[1\]: the replayed result differs"):
        replay(text)


def test_an_illegal_recorded_action_does_not_replay() -> None:
    def swap(d: dict) -> None:  # type: ignore[type-arg]
        d["actions"][1]["seat"] = "south"

    with pytest.raises(InvalidRecordError, match=r"actions\[1\] cannot be replayed: it is North"):
        replay(_mutate(_played().to_json(), swap))


def test_the_text_reads_back_as_the_standard_library_writes_it() -> None:
    game = _played()
    text = game.to_json()
    assert json.loads(text) == json.loads(
        json.dumps(game.to_record(), separators=(",", ":"), allow_nan=False)
    )
    assert text.startswith('{"format":"crokinole-record","version":1,"rules":{')


def test_a_record_with_a_number_json_does_not_allow_is_refused() -> None:
    game = _played()
    for bad in (float("nan"), float("inf")):
        state = replace(game.state, discs=(Disc(0, Seat.SOUTH, bad, 0.0),))
        saved = SavedGame(game.rules, game.board, game.first_seat, game.actions, state)
        with pytest.raises(ValueError, match="Out of range float values are not JSON compliant"):
            write_record(saved)
