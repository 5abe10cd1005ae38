"""Tables on one device: hot-seat play of any layout, with CPUs in the other seats."""

from __future__ import annotations

import pytest

from crokinole.board import Seat
from crokinole.rules import Layout, Phase
from crokinole.table import (
    Cpu,
    Disconnect,
    GameFinished,
    Join,
    Leave,
    NextRound,
    Person,
    Rematch,
    Resign,
    Stage,
    Table,
    TableError,
    TableSettings,
    TakeSeat,
    Tick,
)
from tests.support.table import T0, device, shoot


def solo(seats: dict[Seat, str] | None = None, **options: object) -> Table:
    options.setdefault("rounds", 2)
    table, events = Table.create(
        id="s" * 32,
        kind="solo",
        code=None,
        host_device=device(1),
        host_name="Ann",
        settings=TableSettings.for_kind("solo", **options),
        seed=3,
        now=T0,
        seats=seats,
    )
    assert Table.replay(events) == table
    return table


def test_a_solo_game_starts_at_once_against_the_cpu() -> None:
    table = solo()
    assert table.stage is Stage.PLAYING and table.code is None
    assert table.seats == {Seat.SOUTH: Person("m1"), Seat.NORTH: Cpu("normal")}
    assert table.settings.hand.value == "steady" and table.settings.tie.value == "draw"
    assert table.game is not None and table.game.current_seat is Seat.SOUTH


def test_doubles_with_a_cpu_partner_against_two_cpus() -> None:
    table = solo(
        {Seat.SOUTH: "me", Seat.NORTH: "hard", Seat.WEST: "easy", Seat.EAST: "expert"},
        layout=Layout.DOUBLES,
    )
    assert table.seats_of("m1") == (Seat.SOUTH,)
    table, _ = shoot(table, T0)
    assert table.cpu_turn() == (Seat.WEST, "easy")


def test_four_people_on_one_device() -> None:
    table = solo(dict.fromkeys(Seat, "me"), layout=Layout.DOUBLES)
    assert table.seats_of("m1") == (Seat.SOUTH, Seat.WEST, Seat.NORTH, Seat.EAST)
    for _ in range(4):
        assert table.cpu_turn() is None
        table, _ = shoot(table, T0)


@pytest.mark.parametrize(
    ("seats", "code"),
    [
        ({Seat.SOUTH: "me"}, "seats_empty"),
        ({Seat.SOUTH: "me", Seat.NORTH: "easy", Seat.EAST: "easy"}, "not_a_seat"),
        ({Seat.SOUTH: "hard", Seat.NORTH: "easy"}, "bad_settings"),
        ({Seat.SOUTH: "me", Seat.NORTH: "wizard"}, "bad_settings"),
    ],
)
def test_bad_solo_seats_are_refused(seats: dict[Seat, str], code: str) -> None:
    with pytest.raises(TableError) as info:
        solo(seats)
    assert info.value.code == code


def test_nobody_joins_or_moves_at_a_solo_table() -> None:
    table = solo()
    for command in (Join(device(2), "Bob"), TakeSeat(device(1), Seat.NORTH)):
        with pytest.raises(TableError) as info:
            table.apply(command, T0)
        assert info.value.code == "solo_table"


def test_one_press_starts_the_next_round_and_nothing_stands_in() -> None:
    table = solo()
    table, _ = table.apply(Disconnect(device(1)), T0)
    assert table.next_deadline() is None  # solo: no stand-in, no countdown
    assert table.game is not None
    while table.game.phase is Phase.PLAYING:
        table, _ = shoot(table, T0)
    assert table.next_deadline() is None
    same, events = table.apply(Tick(), T0 + 10_000)
    assert events == [] and same is table
    table, events = table.apply(NextRound(device(1)), T0 + 1)
    assert [e.TYPE for e in events] == ["next_pressed", "round_started"]


def test_resigning_abandons_the_game_and_closes_the_table() -> None:
    table = solo()
    table, events = table.apply(Resign(device(1)), T0)
    assert [e.TYPE for e in events] == ["game_finished", "closed"]
    finished = events[0]
    assert isinstance(finished, GameFinished) and finished.abandoned
    assert table.stage is Stage.CLOSED and table.next_deadline() is None
    with pytest.raises(TableError) as info:
        table.apply(Resign(device(1)), T0)
    assert info.value.code == "closed"


def test_leaving_a_solo_game_is_resigning() -> None:
    table = solo()
    _, events = table.apply(Leave(device(1)), T0)
    assert [e.TYPE for e in events] == ["game_finished", "closed"]


def test_a_solo_rematch_starts_at_once_with_the_next_first_seat() -> None:
    table = solo(rounds=1)
    assert table.game is not None
    while table.stage is Stage.PLAYING:
        table, _ = shoot(table, T0)
    table, events = table.apply(Rematch(device(1)), T0)
    assert [e.TYPE for e in events] == ["game_started"]
    assert table.game is not None and table.game.first_seat is Seat.NORTH
    assert table.cpu_turn() == (Seat.NORTH, "normal")


def named(names: dict[Seat, object], seats: dict[Seat, str] | None = None) -> Table:
    table, events = Table.create(
        id="s" * 32,
        kind="solo",
        code=None,
        host_device=device(1),
        host_name="You",
        settings=TableSettings.for_kind("solo", layout=Layout.THREE_SINGLES),
        seed=3,
        now=T0,
        seats=seats or dict.fromkeys((Seat.SOUTH, Seat.WEST, Seat.NORTH), "me"),
        names=names,  # type: ignore[arg-type]
    )
    assert Table.replay(events) == table
    assert Table.from_dict(table.to_dict()) == table
    return table


def test_people_on_one_device_name_their_seats() -> None:
    table = named({Seat.SOUTH: "  Ann ", Seat.NORTH: "Cat"})
    assert table.seat_names == {Seat.SOUTH: "Ann", Seat.NORTH: "Cat"}  # West gave none


@pytest.mark.parametrize(
    ("names", "seats", "code", "words"),
    [
        ({Seat.WEST: ""}, None, "bad_name", "West's name: a name has 1 to 24 characters"),
        ({Seat.WEST: "x" * 25}, None, "bad_name", "West's name: a name has 1 to 24"),
        ({Seat.WEST: "A\nB"}, None, "bad_name", "holds the control character"),
        ({Seat.WEST: 7}, None, "bad_name", "West's name: a name is text"),
        ({Seat.SOUTH: "Ann", Seat.NORTH: "ann"}, None, "bad_name", "both called ann"),
        ({Seat.EAST: "Dan"}, None, "not_a_seat", "east is not a seat"),
        (
            {Seat.WEST: "Bob"},
            {Seat.SOUTH: "me", Seat.WEST: "easy", Seat.NORTH: "me"},
            "bad_settings",
            "West is played by a CPU",
        ),
    ],
)
def test_bad_names_on_one_device_are_refused_in_plain_words(
    names: dict[Seat, object], seats: dict[Seat, str] | None, code: str, words: str
) -> None:
    with pytest.raises(TableError) as info:
        named(names, seats)
    assert info.value.code == code
    assert words in info.value.message


def test_a_party_takes_no_seat_names() -> None:
    with pytest.raises(TableError) as info:
        Table.create(
            id="p" * 32, kind="party", code="ABC234", host_device=device(1), host_name="Ann",
            settings=TableSettings.for_kind("party"), seed=1, now=T0, names={Seat.SOUTH: "Ann"},
        )  # fmt: skip
    assert info.value.code == "bad_settings"
