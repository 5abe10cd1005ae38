"""Settings, events and snapshots as plain data: validated, and read back exactly."""

from __future__ import annotations

import json
import math

import pytest

from crokinole.ai import NOISE, Level
from crokinole.board import Seat, Shot
from crokinole.errors import CrokinoleError, InvalidRecordError
from crokinole.rules import Layout, Rules, Scoring, TieSetting
from crokinole.table import (
    ERROR_CODES,
    EVENT_TYPES,
    HAND_NOISE,
    Closed,
    Cpu,
    Event,
    EventLink,
    EventLinked,
    GameAborted,
    GameFinished,
    GameStarted,
    Hand,
    HintTaken,
    HostChanged,
    Kind,
    MemberJoined,
    MemberLeft,
    NextPressed,
    Person,
    Presence,
    RankedSeated,
    Reacted,
    RematchDeclined,
    RematchLapsed,
    RematchOffered,
    RematchVoted,
    Renamed,
    RoundStarted,
    SeatChanged,
    SeatNamed,
    SettingsChanged,
    ShotPlayed,
    StandInOff,
    StandInOn,
    Table,
    TableCreated,
    TableError,
    TableSettings,
    Timings,
    TurnTimedOut,
    event_from_dict,
)
from tests.support.table import T0, shoot, started


def test_the_defaults_follow_the_kind_of_table() -> None:
    # R2: extra rounds online, a draw against the CPU; the issue: the human
    # hand for parties, the steady one on one device.
    party = TableSettings.for_kind(Kind.PARTY)
    solo = TableSettings.for_kind(Kind.SOLO)
    assert (party.hand, party.tie) == (Hand.HUMAN, TieSetting.EXTRA_ROUNDS)
    assert (solo.hand, solo.tie) == (Hand.STEADY, TieSetting.DRAW)
    assert party.discs == 8 and party.rounds == 4 and party.turn_time is None
    assert party.standin_level == "normal" and party.required_contact


def test_the_human_hand_is_a_strong_club_players_noise() -> None:
    assert NOISE[Level.EXPERT] == HAND_NOISE and Hand.HUMAN.noise == HAND_NOISE
    assert Hand.STEADY.noise.direction == 0.0 and Hand.STEADY.noise.power == 0.0


@pytest.mark.parametrize(
    ("layout", "discs"), [("singles", 8), ("doubles", 12), ("two_vs_one", 12), ("three_singles", 8)]
)
def test_each_layout_takes_its_r2_discs(layout: str, discs: int) -> None:
    settings = TableSettings(layout=Layout(layout))
    assert settings.discs == discs
    assert settings.rules().discs_per_side == discs
    assert settings.seats == Rules(layout=Layout(layout), discs_per_side=discs).seats


@pytest.mark.parametrize(
    "options",
    [
        {"layout": "pentagon"},
        {"layout": "doubles", "discs": 8},
        {"discs": 10},
        {"rounds": 5},
        {"rounds": 0},
        {"scoring": "to_100", "rounds": 4},
        {"tie": "coin"},
        {"required_contact": "yes"},
        {"turn_time": 0.5},
        {"turn_time": math.inf},
        {"hand": "shaky"},
        {"standin_level": "grandmaster"},
        {"colour": "red"},
    ],
)
def test_bad_settings_are_refused_with_their_reason(options: dict[str, object]) -> None:
    with pytest.raises(TableError) as info:
        TableSettings.from_dict(options, allow_short_clock=True)
    assert info.value.code == "bad_settings"


@pytest.mark.parametrize("turn_time", [None, 30, 60])
def test_players_choose_no_clock_30_or_60_seconds(turn_time: int | None) -> None:
    # R2: time per turn: none, 30 s, 60 s.
    settings = TableSettings.from_dict({"turn_time": turn_time})
    assert settings.turn_time == turn_time and settings.rules().turn_time == turn_time


def test_a_short_clock_needs_the_test_setting() -> None:
    with pytest.raises(TableError):
        TableSettings.from_dict({"turn_time": 3})
    settings = TableSettings.from_dict({"turn_time": 3}, allow_short_clock=True)
    assert settings.turn_time == 3.0
    assert settings.rules().turn_time is None  # the table runs that clock, not the rules


def test_settings_read_back_exactly() -> None:
    settings = TableSettings(
        layout=Layout.TWO_VS_ONE,
        scoring=Scoring.TO_100,
        tie=TieSetting.EXTRA_ROUNDS,
        required_contact=False,
        turn_time=60,
        hand=Hand.HUMAN,
        standin_level="expert",
    )
    data = json.loads(json.dumps(settings.to_dict()))
    assert TableSettings.from_dict(data, kind="solo") == settings
    assert settings.rules().target == 100 and settings.rounds is None


def test_to_100_from_plain_data_needs_no_rounds() -> None:
    settings = TableSettings.from_dict({"scoring": "to_100"})
    assert settings.rounds is None and settings.scoring is Scoring.TO_100


@pytest.mark.parametrize("bad", [{"turn_grace": -1}, {"standin_grace": "ten"}, {"later": 1}])
def test_bad_timings_are_refused(bad: dict[str, object]) -> None:
    with pytest.raises(TableError):
        Timings.from_dict(bad)


SETTINGS = TableSettings.for_kind("party")
ONE_OF_EACH: list[Event] = [
    TableCreated(
        version=1,
        at=1.5,
        table_id="abc",
        kind=Kind.PARTY,
        code="ABC234",
        settings=SETTINGS,
        timings=Timings(turn_grace=1.0),
        seed=5,
        host_device="dev",
    ),
    MemberJoined(version=2, at=2.0, mid="m1", device="dev", name="Ann", spectator=False),
    MemberLeft(version=3, at=3.0, mid="m2", removed=True),
    Renamed(version=4, at=4.0, mid="m1", name="Anne"),
    HostChanged(version=5, at=5.0, mid=None),
    SeatChanged(version=6, at=6.0, seat=Seat.WEST, occupant=Cpu("easy")),
    SeatChanged(version=6, at=6.0, seat=Seat.WEST, occupant=Person("m3")),
    SeatChanged(version=6, at=6.0, seat=Seat.WEST, occupant=None),
    SettingsChanged(version=7, at=7.0, settings=TableSettings(layout=Layout.DOUBLES)),
    Presence(version=8, at=8.0, mid="m1", connected=False),
    GameStarted(version=9, at=9.0, game_number=2, first_seat=Seat.NORTH),
    ShotPlayed(
        version=10,
        at=10.0,
        seat=Seat.SOUTH,
        aimed=Shot(0.1, 0.2, 30.0),
        played=Shot(0.15, 0.1, 29.1),
        by="person",
    ),
    TurnTimedOut(version=11, at=11.0, seat=Seat.EAST, reason="clock"),
    StandInOn(version=12, at=12.0, seat=Seat.NORTH),
    StandInOff(version=13, at=13.0, seat=Seat.NORTH),
    NextPressed(version=14, at=14.0, mid="m1"),
    RoundStarted(version=15, at=15.0, round=2),
    GameFinished(version=16, at=16.0, winner=None, drawn=(0, 1), abandoned=False),
    GameAborted(version=16, at=16.0, seat=Seat.NORTH, reason="no_show"),
    RematchVoted(version=17, at=17.0, mid="m1"),
    Reacted(version=18, at=18.0, mid="m1", reaction="oops"),
    Closed(version=19, at=19.0, reason="everyone left"),
    RankedSeated(version=20, at=20.0, seat=Seat.NORTH, rating=1040, provisional=True),
    HintTaken(version=21, at=21.0, member="m1", seat=Seat.SOUTH, kind="heatmap"),
    SeatNamed(version=22, at=22.0, seat=Seat.WEST, name="Bob"),
    RematchOffered(version=23, at=23.0, mid="m2", until=83.0),
    RematchDeclined(version=24, at=24.0, mid="m1"),
    RematchLapsed(version=25, at=25.0),
    EventLinked(
        version=26,
        at=26.0,
        link=EventLink("ev1", "Tuesday league", "Round 2", round=2, table=3, game=2, best_of=3),
    ),
]


def test_there_is_an_example_of_every_event_type() -> None:
    assert {type(e).TYPE for e in ONE_OF_EACH} == set(EVENT_TYPES)


@pytest.mark.parametrize("event", ONE_OF_EACH, ids=lambda e: f"{e.TYPE}-{e.version}")
def test_every_event_reads_back_exactly_through_json(event: Event) -> None:
    data = event.to_dict()
    assert (
        data["type"] == event.TYPE and data["version"] == event.version and data["at"] == event.at
    )
    assert event_from_dict(json.loads(json.dumps(data))) == event


@pytest.mark.parametrize(
    "data",
    [
        None,
        {"type": "teleported", "version": 1, "at": 0.0},
        {"type": "closed", "version": 1, "at": 0.0},
        {"type": "closed", "version": 0, "at": 0.0, "reason": "x"},
        {"type": "closed", "version": 1, "at": "noon", "reason": "x"},
        {"type": "stand_in_on", "version": 1, "at": 0.0, "seat": "middle"},
        {"type": "closed", "version": 1, "at": 0.0, "reason": "x", "extra": 1},
    ],
)
def test_a_bad_event_is_refused(data: object) -> None:
    with pytest.raises(InvalidRecordError):
        event_from_dict(data)


def test_a_snapshot_reads_back_exactly_through_json() -> None:
    table, _ = started(turn_time=30)
    table, _ = shoot(table, T0 + 2)
    data = json.loads(json.dumps(table.to_dict()))
    assert Table.from_dict(data) == table
    assert Table.from_dict(data).next_deadline() == table.next_deadline()


def test_a_bad_snapshot_is_refused() -> None:
    table, _ = started()
    data = table.to_dict()
    del data["seats"]
    with pytest.raises(InvalidRecordError):
        Table.from_dict(data)


def test_a_log_with_a_gap_or_a_wrong_start_does_not_replay() -> None:
    table, log = started()
    with pytest.raises(InvalidRecordError):
        Table.replay(log[:3] + log[4:])
    with pytest.raises(InvalidRecordError):
        Table.replay(log[1:])
    with pytest.raises(InvalidRecordError):
        Table.replay([])
    with pytest.raises(InvalidRecordError):
        table.fold(log[0])


def test_table_errors_are_crokinole_errors_with_a_code() -> None:
    error = TableError("seat_taken", "north is taken by Bob")
    assert isinstance(error, CrokinoleError) and isinstance(error, ValueError)
    assert (error.code, error.message, str(error)) == (
        "seat_taken",
        "north is taken by Bob",
        "north is taken by Bob",
    )
    assert len(set(ERROR_CODES)) == 23


@pytest.mark.parametrize("turn_time", ["30", 0, 0.5, 5000, True, math.nan])
def test_a_players_bad_clock_is_told_the_three_choices(turn_time: object) -> None:
    # R2: a player chooses none, 30 s or 60 s; the test setting's "1 to 3600"
    # range is not what they can choose, so it is not what they are told.
    with pytest.raises(TableError) as info:
        TableSettings.from_dict({"turn_time": turn_time})
    assert info.value.code == "bad_settings"
    assert "none, 30 or 60 seconds" in info.value.message
