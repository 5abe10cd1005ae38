"""Hints at a table: who may take one, when, and how they are counted (issue 13).

The table only decides and counts (``TakeHint`` -> ``HintTaken``); the hint
itself is computed by the server.  Hints are on by default on one device,
off in a party until its host allows them in the lobby, and never allowed in
a ranked game.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from crokinole.board import Seat
from crokinole.table import (
    ChangeSettings,
    Connect,
    Event,
    HintTaken,
    Join,
    NextRound,
    RankedPlayer,
    Rematch,
    SeatRating,
    Stage,
    Start,
    Table,
    TableCreated,
    TableError,
    TableSettings,
    TakeHint,
    event_from_dict,
)
from crokinole.table.commands import command_from_dict
from tests.support.table import T0, device, party, settings, shoot, started


def _refused(table: Table, command: TakeHint, code: str, words: str) -> None:
    """``command`` is refused with ``code`` and a message holding ``words``; nothing changes."""
    with pytest.raises(TableError) as info:
        table.apply(command, T0 + 5)
    assert info.value.code == code
    assert words in info.value.message


def solo(**options: Any) -> tuple[Table, list[Event]]:
    options.setdefault("rounds", 1)
    table, events = Table.create(
        id="s" * 32,
        kind="solo",
        code=None,
        host_device=device(1),
        host_name="Ann",
        settings=TableSettings.for_kind("solo", **options),
        seed=3,
        now=T0,
    )
    return table, list(events)


def ranked() -> Table:
    players = {
        Seat.SOUTH: RankedPlayer("account:1", "ann", SeatRating(1000, True)),
        Seat.NORTH: RankedPlayer("account:2", "bob", SeatRating(1040, True)),
    }
    table, _ = Table.create_ranked(
        id="r" * 32,
        players=players,
        settings=TableSettings.ranked("singles", 1),
        seed=5,
        now=T0,
    )
    for member in table.members:
        table, _ = table.apply(Connect(member.device), T0)
    return table


# ---------------------------------------------------------------- the setting


def test_the_defaults_solo_on_party_off_ranked_never() -> None:
    assert TableSettings.for_kind("solo").hints is True
    assert TableSettings.for_kind("party").hints is False
    assert TableSettings.ranked("singles").hints is False
    assert TableSettings.ranked("doubles").is_ranked
    assert TableSettings.for_kind("party", hints=True).hints is True
    assert TableSettings.for_kind("solo").to_dict()["hints"] is True


def test_a_ranked_game_can_never_have_hints() -> None:
    with pytest.raises(TableError) as info:
        TableSettings.for_kind("ranked", hints=True)
    assert info.value.code == "bad_settings"
    assert str(info.value) == "hints are never allowed in ranked games"
    with pytest.raises(TableError, match="never allowed in ranked"):
        TableSettings.from_dict({"hints": True}, kind="ranked")
    # Ranked rules with hints on are not the ranked rules: no ranked table has them.
    assert not TableSettings(
        **{**_fields(TableSettings.ranked("singles")), "hints": True}
    ).is_ranked


def _fields(settings: TableSettings) -> dict[str, Any]:
    return {name: getattr(settings, name) for name in settings.__slots__}


def test_hints_is_true_or_false() -> None:
    with pytest.raises(TableError, match="hints is true or false"):
        TableSettings.for_kind("party", hints="yes")


def test_stored_settings_without_hints_take_the_default_of_the_table_s_kind() -> None:
    """Logs written before the setting existed still load, each kind with its default."""
    for kind, code, expected in (("solo", None, True), ("party", "ABC234", False)):
        data = TableCreated(
            version=1,
            at=T0,
            table_id="x" * 32,
            kind=kind,  # type: ignore[arg-type]
            code=code,
            settings=TableSettings.for_kind(kind),
            timings=Table.create(
                id="y",
                kind="party",
                code="C",
                host_device="d",
                host_name="A",
                settings=TableSettings.for_kind("party"),
                seed=1,
                now=T0,
            )[0].timings,
            seed=1,
            host_device="d",
        ).to_dict()
        del data["settings"]["hints"]
        created = event_from_dict(json.loads(json.dumps(data)))
        assert isinstance(created, TableCreated)
        assert created.settings.hints is expected
    ranked_table = ranked()
    snapshot = ranked_table.to_dict()
    del snapshot["settings"]["hints"]
    del snapshot["hints_used"]
    back = Table.from_dict(snapshot)
    assert back.settings.hints is False and back.settings.is_ranked and back.hints_used == {}


# ---------------------------------------------------------------- who may


def test_a_ranked_table_refuses_every_hint_in_plain_words() -> None:
    table = ranked()
    assert table.game is not None and table.game.current_seat is Seat.SOUTH
    _refused(
        table,
        TakeHint("account:1", Seat.SOUTH, "hint"),
        "no_hints",
        "hints are off: ranked games never allow them",
    )
    _refused(table, TakeHint("account:1", Seat.SOUTH, "heatmap"), "no_hints", "ranked")


def test_a_party_refuses_hints_until_the_host_allows_them_in_the_lobby() -> None:
    table, _ = party()
    assert table.settings.hints is False
    _refused(table, TakeHint(device(1), Seat.SOUTH, "hint"), "no_hints", "the host has not allowed")
    playing, _ = table.apply(Start(device(1)), T0 + 1)
    _refused(
        playing, TakeHint(device(1), Seat.SOUTH, "hint"), "no_hints", "the host has not allowed"
    )
    # Only the host, and only in the lobby, may allow them.
    with pytest.raises(TableError) as info:
        table.apply(ChangeSettings(device(2), settings(hints=True)), T0 + 1)
    assert info.value.code == "not_host"
    with pytest.raises(TableError) as info:
        playing.apply(ChangeSettings(device(1), settings(hints=True)), T0 + 2)
    assert info.value.code == "in_game"
    table, _ = table.apply(ChangeSettings(device(1), settings(hints=True)), T0 + 1)
    assert table.settings.hints is True
    table, _ = table.apply(Start(device(1)), T0 + 2)
    table, events = table.apply(TakeHint(device(1), Seat.SOUTH, "hint"), T0 + 3)
    assert [type(e) for e in events] == [HintTaken]
    assert events[0] == HintTaken(
        version=table.version, at=T0 + 3, member="m1", seat=Seat.SOUTH, kind="hint"
    )
    assert table.hints_used == {Seat.SOUTH: 1}


def test_a_solo_table_allows_hints_and_counts_each_per_seat() -> None:
    table, log = solo()
    before = table
    table, events = table.apply(TakeHint(device(1), Seat.SOUTH, "hint"), T0 + 1)
    log += events
    table, events = table.apply(TakeHint(device(1), Seat.SOUTH, "heatmap"), T0 + 2)
    log += events
    assert table.hints_used == {Seat.SOUTH: 2}
    assert table.version == before.version + 2
    # A hint changes nothing of the game: same turn, same discs, same clock.
    assert table.game == before.game and table.turn_started == before.turn_started
    assert Table.replay(log) == table
    assert Table.from_dict(json.loads(json.dumps(table.to_dict()))) == table
    assert table.to_dict()["hints_used"] == {"south": 2}


def test_each_kind_of_help_counts_once_a_turn_however_often_it_is_asked() -> None:
    # A heat map follows the disc as the player moves it: asking again in the
    # same turn changes nothing; the next turn counts afresh.
    table, log = solo()
    for at in range(3):
        table, events = table.apply(TakeHint(device(1), Seat.SOUTH, "heatmap"), T0 + at)
        log += events
    table, events = table.apply(TakeHint(device(1), Seat.SOUTH, "hint"), T0 + 4)
    log += events
    again, events = table.apply(TakeHint(device(1), Seat.SOUTH, "hint"), T0 + 5)
    assert events == [] and again == table
    assert table.hints_used == {Seat.SOUTH: 2}
    assert Table.replay(log) == table
    assert Table.from_dict(json.loads(json.dumps(table.to_dict()))) == table
    table, _ = shoot(table, T0 + 6)  # south shoots; the CPU (north) answers
    while table.game is not None and table.game.current_seat is not Seat.SOUTH:
        table, _ = shoot(table, T0 + 7)
    table, events = table.apply(TakeHint(device(1), Seat.SOUTH, "heatmap"), T0 + 8)
    assert len(events) == 1 and table.hints_used == {Seat.SOUTH: 3}


def test_solo_hints_may_be_turned_off_when_the_game_is_made() -> None:
    table, _ = solo(hints=False)
    _refused(table, TakeHint(device(1), Seat.SOUTH, "hint"), "no_hints", "turned off")


def test_hot_seat_hints_are_counted_for_the_seat_that_took_them() -> None:
    table, _ = Table.create(
        id="s" * 32,
        kind="solo",
        code=None,
        host_device=device(1),
        host_name="Ann",
        settings=TableSettings.for_kind("solo", rounds=1),
        seed=3,
        now=T0,
        seats={Seat.SOUTH: "me", Seat.NORTH: "me"},
    )
    table, _ = table.apply(TakeHint(device(1), Seat.SOUTH, "hint"), T0)
    table, _ = shoot(table, T0 + 1)
    table, _ = table.apply(TakeHint(device(1), Seat.NORTH, "hint"), T0 + 2)
    table, _ = table.apply(TakeHint(device(1), Seat.NORTH, "heatmap"), T0 + 3)
    assert table.hints_used == {Seat.SOUTH: 1, Seat.NORTH: 2}


# ---------------------------------------------------------------- refusals


def _hinted_party() -> Table:
    table, _ = party(hints=True)
    table, _ = table.apply(Join(device(3), "Cat", spectator=True), T0)
    table, _ = table.apply(Start(device(1)), T0 + 1)
    return table


def test_only_the_shooter_on_their_own_turn_may_take_a_hint() -> None:
    table = _hinted_party()
    assert table.game is not None and table.game.current_seat is Seat.SOUTH
    _refused(table, TakeHint(device(2), Seat.NORTH, "hint"), "not_your_turn", "South's turn")
    _refused(table, TakeHint(device(2), Seat.SOUTH, "hint"), "not_your_seat", "not your seat")
    _refused(table, TakeHint(device(3), Seat.SOUTH, "hint"), "spectator", "spectators watch")
    _refused(table, TakeHint("nobody", Seat.SOUTH, "hint"), "not_a_member", "join it first")
    _refused(table, TakeHint(device(1), Seat.EAST, "hint"), "not_a_seat", "east is not a seat")
    _refused(table, TakeHint(device(1), Seat.SOUTH, "advice"), "illegal_action", "'advice'")


def test_no_hint_in_the_lobby_between_rounds_or_after_the_game() -> None:
    table, _ = party(hints=True)
    _refused(table, TakeHint(device(1), Seat.SOUTH, "hint"), "illegal_action", "not started")
    table, _ = table.apply(Start(device(1)), T0 + 1)
    while table.stage is Stage.PLAYING and table.game is not None:
        if table.game.current_seat is None:
            _refused(table, TakeHint(device(1), Seat.SOUTH, "hint"), "illegal_action", "is over")
            for n in (1, 2):
                table, _ = table.apply(NextRound(device(n)), T0 + 2)
        else:
            table, _ = shoot(table, T0 + 2)
    assert table.stage is Stage.FINISHED
    _refused(table, TakeHint(device(1), Seat.SOUTH, "hint"), "game_over", "game is over")


def test_hints_used_start_from_zero_each_game() -> None:
    table, _ = solo()
    table, _ = table.apply(TakeHint(device(1), Seat.SOUTH, "hint"), T0)
    while table.stage is Stage.PLAYING and table.game is not None:
        if table.game.current_seat is None:
            table, _ = table.apply(NextRound(device(1)), T0 + 2)
        else:
            table, _ = shoot(table, T0 + 2)
    assert table.stage is Stage.FINISHED and table.hints_used == {Seat.SOUTH: 1}
    table, _ = table.apply(Rematch(device(1)), T0 + 3)
    assert table.stage is Stage.PLAYING and table.hints_used == {}


# ---------------------------------------------------------------- wire forms


def test_the_command_and_the_event_read_back_from_json() -> None:
    command = TakeHint(device(1), Seat.WEST, "heatmap")
    data = command.to_dict()
    assert data == {"type": "take_hint", "device": "dev-1", "seat": "west", "kind": "heatmap"}
    assert command_from_dict(json.loads(json.dumps(data))) == command
    event = HintTaken(version=9, at=9.5, member="m2", seat=Seat.NORTH, kind="hint")
    data = event.to_dict()
    assert data == {
        "type": "hint_taken",
        "version": 9,
        "at": 9.5,
        "member": "m2",
        "seat": "north",
        "kind": "hint",
    }
    assert event_from_dict(json.loads(json.dumps(data))) == event


def test_a_hint_event_for_a_seat_the_table_lacks_does_not_fold() -> None:
    table, _ = started()
    bad = HintTaken(version=table.version + 1, at=T0, member="m1", seat=Seat.EAST, kind="hint")
    with pytest.raises(Exception, match="east is not a seat"):
        table.fold(bad)
