"""Commands as plain JSON: to_dict, command_from_dict, and the errors of bad data."""

from __future__ import annotations

import json
from dataclasses import fields
from typing import Any, get_args

import pytest
from hypothesis import given
from hypothesis import strategies as st

from crokinole.ai import Level
from crokinole.board import Seat, Shot
from crokinole.errors import CrokinoleError, InvalidRecordError
from crokinole.rules import Layout, Scoring, TieSetting
from crokinole.rules.options import DISCS_PER_SIDE
from crokinole.table import (
    REACTIONS,
    ChangeSettings,
    Command,
    Connect,
    DeclineRematch,
    Disconnect,
    Hand,
    Join,
    Leave,
    MoveMember,
    NextRound,
    React,
    Rematch,
    Remove,
    Rename,
    Resign,
    SetCpu,
    Shoot,
    Start,
    TableSettings,
    TakeHint,
    TakeSeat,
    Tick,
)
from crokinole.table.commands import COMMAND_TYPES, command_from_dict

TEXT = st.text(max_size=30)
SEATS = st.sampled_from(list(Seat))
NUMBERS = st.floats(allow_nan=False, allow_infinity=False)
SHOTS = st.builds(Shot, NUMBERS, NUMBERS, NUMBERS)
LEVELS = st.one_of(st.none(), st.sampled_from([level.value for level in Level]), TEXT)
REACTION = st.one_of(st.sampled_from(REACTIONS), TEXT)


@st.composite
def table_settings(draw: Any) -> TableSettings:
    layout = draw(st.sampled_from(list(Layout)))
    scoring = draw(st.sampled_from(list(Scoring)))
    rounds = draw(st.integers(1, 4)) if scoring is Scoring.FOUR_ROUNDS else None
    return TableSettings(
        layout=layout,
        discs=draw(st.sampled_from(DISCS_PER_SIDE[layout])),
        scoring=scoring,
        rounds=rounds,
        tie=draw(st.sampled_from(list(TieSetting))),
        required_contact=draw(st.booleans()),
        turn_time=draw(st.one_of(st.none(), st.sampled_from([30.0, 60.0]), st.floats(1, 3600))),
        hand=draw(st.sampled_from(list(Hand))),
        standin_level=draw(st.sampled_from([level.value for level in Level])),
        hints=draw(st.booleans()),
    )


#: One strategy per command type, every field drawn (None where it may be None).
STRATEGIES: dict[type[Any], st.SearchStrategy[Any]] = {
    Join: st.builds(Join, TEXT, TEXT, st.booleans()),
    Leave: st.builds(Leave, TEXT),
    Rename: st.builds(Rename, TEXT, TEXT),
    TakeSeat: st.builds(TakeSeat, TEXT, st.none() | SEATS),
    MoveMember: st.builds(MoveMember, TEXT, TEXT, st.none() | SEATS),
    SetCpu: st.builds(SetCpu, TEXT, SEATS, LEVELS),
    Remove: st.builds(Remove, TEXT, TEXT),
    ChangeSettings: st.builds(ChangeSettings, TEXT, table_settings()),
    Start: st.builds(Start, TEXT),
    Shoot: st.builds(
        Shoot, st.none() | TEXT, SEATS, SHOTS, st.booleans(), st.none() | st.integers()
    ),
    NextRound: st.builds(NextRound, TEXT),
    Rematch: st.builds(Rematch, TEXT),
    DeclineRematch: st.builds(DeclineRematch, TEXT),
    Resign: st.builds(Resign, TEXT),
    Connect: st.builds(Connect, TEXT),
    Disconnect: st.builds(Disconnect, TEXT),
    React: st.builds(React, TEXT, REACTION),
    TakeHint: st.builds(
        TakeHint, TEXT, SEATS, st.one_of(st.sampled_from(["hint", "heatmap"]), TEXT)
    ),
    Tick: st.just(Tick()),
}
COMMANDS = st.one_of(*STRATEGIES.values())


def test_every_command_type_has_a_strategy_and_a_wire_name() -> None:
    assert set(STRATEGIES) == set(get_args(Command))
    assert set(COMMAND_TYPES.values()) == set(get_args(Command))
    assert len(COMMAND_TYPES) == len(get_args(Command))


@given(COMMANDS)
def test_a_command_reads_back_from_its_dict(command: Command) -> None:
    assert command_from_dict(command.to_dict()) == command


@given(COMMANDS)
def test_a_command_reads_back_through_json(command: Command) -> None:
    text = json.dumps(command.to_dict(), allow_nan=False)
    back = command_from_dict(json.loads(text))
    assert back == command
    assert type(back) is type(command)


@given(st.sampled_from(list(STRATEGIES)).flatmap(lambda cls: STRATEGIES[cls]))
def test_the_dict_names_the_type_and_every_field(command: Command) -> None:
    data = command.to_dict()
    assert COMMAND_TYPES[data["type"]] is type(command)
    assert set(data) - {"type"} == {f.name for f in fields(command)}


def test_the_wire_form_of_a_shot_and_of_settings() -> None:
    shoot = Shoot(None, Seat.WEST, Shot(1.5, -2.0, 30.0), cpu=True, expected_version=9)
    assert shoot.to_dict() == {
        "type": "shoot",
        "device": None,
        "seat": "west",
        "shot": {"position": 1.5, "direction": -2.0, "power": 30.0},
        "cpu": True,
        "expected_version": 9,
    }
    settings = TableSettings.for_kind("party", turn_time=5)
    data = ChangeSettings("tok", settings).to_dict()
    assert data["settings"] == settings.to_dict()
    # A test clock (5 s) was checked when the command was made: it reads back.
    assert command_from_dict(data) == ChangeSettings("tok", settings)


def test_the_table_judges_values_the_wire_only_carries() -> None:
    assert command_from_dict({"type": "react", "device": "d", "reaction": "boo"}) == React(
        "d", "boo"
    )
    assert command_from_dict(
        {"type": "set_cpu", "device": "d", "seat": "north", "level": "godlike"}
    ) == SetCpu("d", Seat.NORTH, "godlike")


JOIN = {"type": "join", "device": "d", "name": "Ann", "spectator": False}
SHOOT = Shoot("d", Seat.SOUTH, Shot(0.0, 0.0, 20.0)).to_dict()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([JOIN], "a command is an object, not list"),
        ({**JOIN, "type": "fly"}, "unknown command type 'fly'"),
        ({k: v for k, v in JOIN.items() if k != "type"}, "unknown command type None"),
        ({**JOIN, "type": 3}, "unknown command type 3"),
        (
            {**JOIN, "extra": 1},
            "a join command has the fields ['device', 'name', 'spectator'], "
            "not ['device', 'extra', 'name', 'spectator']",
        ),
        ({"type": "shoot", "device": "d"}, "a shoot command has the fields"),
        ({**JOIN, "name": None}, "a join command's name is text, not None"),
        (
            {**JOIN, "spectator": 0},
            "a join command's spectator is true or false, not 0",
        ),
        ({**JOIN, "device": ["d"]}, "a join command's device is text, not ['d']"),
        ({**SHOOT, "device": 1}, "a shoot command's device is text or null, not 1"),
        ({**SHOOT, "cpu": "yes"}, "a shoot command's cpu is true or false, not 'yes'"),
        (
            {**SHOOT, "expected_version": True},
            "a shoot command's expected_version is a whole number or null, not True",
        ),
        (
            {**SHOOT, "expected_version": 2.0},
            "a shoot command's expected_version is a whole",
        ),
        (
            {**SHOOT, "seat": "up"},
            "a bad shoot command: a seat is south, west, north or east",
        ),
        ({**SHOOT, "seat": None}, "a bad shoot command: a seat is south"),
        (
            {"type": "take_seat", "device": "d", "seat": 2},
            "a bad take_seat command: a seat is south, west, north or east, not 2 (or null)",
        ),
        ({**SHOOT, "shot": {"position": 0.0}}, "a bad shoot command: a shot is"),
        ({**SHOOT, "shot": None}, "a bad shoot command: a shot is"),
        (
            {**SHOOT, "shot": {"position": "1", "direction": 0.0, "power": 1.0}},
            "a bad shoot command: a shot's position, direction and power are numbers",
        ),
        (
            {"type": "change_settings", "device": "d", "settings": {"discs": 9}},
            "a bad change_settings command: singles is played with 8 or 12 discs per side",
        ),
        (
            {"type": "change_settings", "device": "d", "settings": "fast"},
            "a bad change_settings command: settings are an object, not str",
        ),
    ],
)
def test_bad_data_is_an_invalid_record(data: object, message: str) -> None:
    with pytest.raises(InvalidRecordError) as info:
        command_from_dict(data)
    assert str(info.value).startswith(message)
    assert isinstance(info.value, CrokinoleError)
    assert isinstance(info.value, ValueError)


@given(
    COMMANDS,
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), TEXT, st.lists(TEXT)),
)
def test_any_field_spoiled_is_an_invalid_record_or_a_command(command: Command, junk: Any) -> None:
    """Whatever one field holds, reading gives a command or an InvalidRecordError."""
    data = command.to_dict()
    for name in data:
        spoiled = {**data, name: junk}
        try:
            back = command_from_dict(spoiled)
        except InvalidRecordError:
            continue
        assert isinstance(back, get_args(Command))
