"""The lobby of a party: joining, seats, the host's powers, settings, presence (R7)."""

from __future__ import annotations

import pytest

from crokinole.board import Seat
from crokinole.rules import Layout
from crokinole.table import (
    ChangeSettings,
    Connect,
    Cpu,
    Disconnect,
    Join,
    Leave,
    MoveMember,
    Person,
    React,
    Remove,
    Rename,
    SetCpu,
    Stage,
    Start,
    Table,
    TableError,
    TakeSeat,
)
from tests.support.table import T0, device, party, settings, started


def refused(table: Table, command: object, code: str, now: float = T0) -> TableError:
    """``command`` is refused with ``code`` and the table is left as it was."""
    snapshot = table.to_dict()
    with pytest.raises(TableError) as info:
        table.apply(command, now)  # type: ignore[arg-type]
    assert info.value.code == code, info.value.message
    assert table.to_dict() == snapshot
    return info.value


def test_the_host_sits_at_the_first_seat_and_joiners_fill_the_next() -> None:
    table, events = party(1, layout=Layout.DOUBLES)
    assert [e.TYPE for e in events] == [
        "table_created",
        "member_joined",
        "host_changed",
        "seat_changed",
    ]
    assert [e.version for e in events] == [1, 2, 3, 4]
    assert table.host == "m1" and table.seats[Seat.SOUTH] == Person("m1")
    assert table.stage is Stage.LOBBY and table.created_at == T0
    table, events = table.apply(Join(device(2), "  Bob "), T0 + 1)
    assert [e.TYPE for e in events] == ["member_joined", "seat_changed"]
    bob = table.member("m2")
    assert bob is not None and bob.name == "Bob" and bob.connected and not bob.spectator
    # Clockwise: south, west, north, east (R2).
    assert table.seats_of("m2") == (Seat.WEST,)
    assert table.member_of(device(2)) == bob and table.member_of("nobody") is None


def test_a_full_party_takes_spectators_only() -> None:
    table, _ = party(2)
    error = refused(table, Join(device(3), "Cid"), "party_full")
    assert "spectator" in error.message
    table, events = table.apply(Join(device(3), "Cid", spectator=True), T0)
    assert [e.TYPE for e in events] == ["member_joined"]
    assert table.spectators == 1 and table.seats_of("m3") == ()


def test_joining_again_from_the_same_device_reconnects() -> None:
    table, _ = party(2)
    table, _ = table.apply(Disconnect(device(2)), T0)
    table, events = table.apply(Join(device(2), "Another name"), T0 + 1)
    assert [e.TYPE for e in events] == ["presence"]
    member = table.member("m2")
    assert member is not None and member.connected and member.name == "P2"
    same, events = table.apply(Join(device(2), "P2"), T0 + 2)
    assert events == [] and same is table


@pytest.mark.parametrize("name", ["", "   ", "x" * 25, "bad\nname", "tab\tname", "\u202eevil"])
def test_a_bad_name_is_refused(name: str) -> None:
    table, _ = party(1)
    refused(table, Join(device(2), name), "bad_name")
    refused(table, Rename(device(1), name), "bad_name")


def test_a_name_of_24_characters_and_an_emoji_are_fine() -> None:
    table, _ = party(1)
    table, events = table.apply(Rename(device(1), "Ann 🎯" + "a" * 18), T0)
    assert [e.TYPE for e in events] == ["renamed"]


def test_taking_a_seat_moves_and_standing_up_empties() -> None:
    table, _ = party(2, layout=Layout.DOUBLES)
    refused(table, TakeSeat(device(2), Seat.SOUTH), "seat_taken")
    table, events = table.apply(TakeSeat(device(2), Seat.EAST), T0)
    assert [e.TYPE for e in events] == ["seat_changed", "seat_changed"]
    assert table.seats[Seat.WEST] is None and table.seats[Seat.EAST] == Person("m2")
    same, events = table.apply(TakeSeat(device(2), Seat.EAST), T0)
    assert events == [] and same is table
    table, _ = table.apply(TakeSeat(device(2), None), T0)
    assert table.seats_of("m2") == ()


def test_a_seat_outside_the_layout_is_not_a_seat() -> None:
    table, _ = party(1)  # singles: south and north
    refused(table, TakeSeat(device(1), Seat.EAST), "not_a_seat")


def test_a_cpu_seat_is_taken_until_the_host_clears_it() -> None:
    table, _ = party(1)
    table, _ = table.apply(SetCpu(device(1), Seat.NORTH, "hard"), T0)
    assert table.seats[Seat.NORTH] == Cpu("hard")
    table, _ = table.apply(Join(device(2), "Bob"), T0)
    assert table.seats_of("m2") == ()
    refused(table, TakeSeat(device(2), Seat.NORTH), "seat_taken")
    # The host may put a person on a CPU's seat.
    table, _ = table.apply(MoveMember(device(1), "m2", Seat.NORTH), T0)
    assert table.seats[Seat.NORTH] == Person("m2")


def test_only_the_host_runs_the_lobby() -> None:
    table, _ = party(2)
    for command in (
        MoveMember(device(2), "m1", None),
        SetCpu(device(2), Seat.NORTH, "easy"),
        Remove(device(2), "m1"),
        ChangeSettings(device(2), settings(discs=12)),
        Start(device(2)),
    ):
        refused(table, command, "not_host")


def test_the_host_moves_removes_and_sets_cpus() -> None:
    table, _ = party(2)
    refused(table, MoveMember(device(1), "m9", Seat.NORTH), "not_a_member")
    refused(table, MoveMember(device(1), "m2", Seat.SOUTH), "seat_taken")
    refused(table, Remove(device(1), "m1"), "illegal_action")
    refused(table, SetCpu(device(1), Seat.NORTH, "grandmaster"), "bad_settings")
    table, events = table.apply(Remove(device(1), "m2"), T0)
    assert [e.TYPE for e in events] == ["member_left"]
    assert events[0].removed is True  # type: ignore[attr-defined]
    assert table.member("m2") is None and table.seats[Seat.NORTH] is None
    table, _ = table.apply(SetCpu(device(1), Seat.NORTH, "expert"), T0)
    table, events = table.apply(Start(device(1)), T0)
    assert [e.TYPE for e in events] == ["game_started"]


def test_a_removed_member_may_join_again_as_a_new_member() -> None:
    table, _ = party(2)
    table, _ = table.apply(Remove(device(1), "m2"), T0)
    table, _ = table.apply(Join(device(2), "Bob"), T0)
    assert table.member_of(device(2)) is not None
    assert table.member_of(device(2)).mid == "m3"  # type: ignore[union-attr]


def test_new_settings_keep_people_and_drop_seats_outside_the_layout() -> None:
    table, _ = party(4)
    assert table.seats_of("m4") == (Seat.EAST,)
    table, events = table.apply(ChangeSettings(device(1), settings(layout="singles")), T0)
    assert [e.TYPE for e in events] == ["settings_changed"]
    assert set(table.seats) == {Seat.SOUTH, Seat.NORTH}
    assert [m.mid for m in table.members] == ["m1", "m2", "m3", "m4"]
    assert table.seats_of("m2") == () and table.seats_of("m4") == ()
    assert table.seats[Seat.NORTH] == Person("m3")


def test_seats_and_settings_are_fixed_during_a_game() -> None:
    table, _ = started()
    refused(table, TakeSeat(device(2), None), "in_game")
    refused(table, SetCpu(device(1), Seat.NORTH, "easy"), "in_game")
    refused(table, MoveMember(device(1), "m2", None), "in_game")
    refused(table, ChangeSettings(device(1), settings(discs=12)), "in_game")


def test_spectators_watch_only() -> None:
    table, _ = party(2)
    table, _ = table.apply(Join(device(3), "Cid", spectator=True), T0)
    refused(table, TakeSeat(device(3), None), "spectator")
    refused(table, React(device(3), "nice_shot"), "spectator")
    refused(table, MoveMember(device(1), "m3", None), "spectator")


def test_reactions_come_from_a_fixed_set_and_not_too_often() -> None:
    table, _ = party(2)
    refused(table, React(device(1), "you stink"), "unknown_reaction")
    table, events = table.apply(React(device(1), "good_luck"), T0)
    assert [e.TYPE for e in events] == ["reacted"]
    gap = table.timings.reaction_gap
    refused(table, React(device(1), "thanks"), "too_many_reactions", now=T0 + gap - 0.01)
    table, _ = table.apply(React(device(2), "thanks"), T0 + 0.5)  # another member may
    table, events = table.apply(React(device(1), "thanks"), T0 + gap)
    assert [e.TYPE for e in events] == ["reacted"]


def test_presence_is_told_once() -> None:
    table, _ = party(2)
    table, events = table.apply(Disconnect(device(2)), T0 + 3)
    assert [e.TYPE for e in events] == ["presence"]
    member = table.member("m2")
    assert member is not None and not member.connected and member.disconnected_at == T0 + 3
    same, events = table.apply(Disconnect(device(2)), T0 + 4)
    assert events == [] and same is table
    table, events = table.apply(Connect(device(2)), T0 + 5)
    member = table.member("m2")
    assert member is not None and member.connected and member.disconnected_at is None


def test_strangers_are_not_members() -> None:
    table, _ = party(2)
    for command in (
        Leave("x"),
        Rename("x", "X"),
        TakeSeat("x", None),
        Connect("x"),
        React("x", "oops"),
    ):
        refused(table, command, "not_a_member")


def test_the_host_leaving_the_lobby_passes_it_to_the_earliest_connected_player() -> None:
    table, _ = party(4)
    table, _ = table.apply(Disconnect(device(2)), T0)
    table, events = table.apply(Leave(device(1)), T0)
    assert [e.TYPE for e in events] == ["member_left", "host_changed"]
    assert table.host == "m3"


def test_the_last_player_leaving_the_lobby_closes_the_table() -> None:
    table, _ = party(1)
    table, _ = table.apply(Join(device(2), "Cid", spectator=True), T0)
    table, events = table.apply(Leave(device(1)), T0)
    assert [e.TYPE for e in events] == ["member_left", "closed"]
    assert table.stage is Stage.CLOSED
    refused(table, Join(device(3), "Dan"), "closed")
    refused(table, React(device(2), "oops"), "closed")
    same, events = table.apply(Disconnect(device(2)), T0)
    assert events == [] and same is table


def test_a_player_joining_mid_game_waits_unseated() -> None:
    table, _ = started(4)
    table, _ = table.apply(Leave(device(4)), T0)
    assert table.seats[Seat.EAST] == Cpu("normal")
    table, events = table.apply(Join(device(5), "Eve"), T0)
    assert [e.TYPE for e in events] == ["member_joined"]
    assert table.seats_of("m5") == ()


def test_the_host_removing_a_player_mid_game_hands_the_seat_to_a_cpu() -> None:
    table, _ = started(standin_level="easy")
    table, events = table.apply(Remove(device(1), "m2"), T0)
    assert [e.TYPE for e in events] == ["seat_changed", "member_left"]
    assert table.seats[Seat.NORTH] == Cpu("easy") and table.member("m2") is None


def test_the_host_clears_a_cpu_and_stands_a_player_up() -> None:
    table, _ = party(2)
    table, _ = table.apply(SetCpu(device(1), Seat.NORTH, "easy"), T0)
    assert table.seats_of("m2") == ()  # the CPU took Bob's seat; Bob stays, unseated
    table, events = table.apply(SetCpu(device(1), Seat.NORTH, None), T0)
    assert [e.TYPE for e in events] == ["seat_changed"] and table.seats[Seat.NORTH] is None
    same, events = table.apply(SetCpu(device(1), Seat.NORTH, None), T0)
    assert events == [] and same is table
    table, _ = table.apply(TakeSeat(device(2), Seat.NORTH), T0)
    table, _ = table.apply(MoveMember(device(1), "m2", None), T0)
    assert table.seats_of("m2") == ()


def test_the_same_settings_again_change_nothing() -> None:
    table, _ = party(2)
    same, events = table.apply(ChangeSettings(device(1), table.settings), T0)
    assert events == [] and same is table


def test_a_rename_to_the_same_name_changes_nothing() -> None:
    table, _ = party(2)
    same, events = table.apply(Rename(device(2), " P2 "), T0)
    assert events == [] and same is table
