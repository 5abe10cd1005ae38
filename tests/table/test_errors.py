"""Every error code of a table, each from a command that earns it; nothing changes."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from crokinole.board import Seat, Shot
from crokinole.table import (
    ERROR_CODES,
    ChangeSettings,
    Command,
    Join,
    Leave,
    NextRound,
    React,
    Remove,
    Resign,
    SetCpu,
    Shoot,
    Start,
    Table,
    TableError,
    TableSettings,
    TakeHint,
    TakeSeat,
)
from tests.support.table import T0, device, party, settings, started
from tests.table.test_ranked import ranked


def lobby() -> Table:
    return party(2)[0]


def playing() -> Table:
    return started()[0]


def with_spectator() -> Table:
    return lobby().apply(Join(device(3), "Cid", spectator=True), T0)[0]


def closed() -> Table:
    table = solo()
    return table.apply(Resign(device(1)), T0)[0]


def solo() -> Table:
    return Table.create(
        id="s" * 32,
        kind="solo",
        code=None,
        host_device=device(1),
        host_name="Ann",
        settings=TableSettings.for_kind("solo"),
        seed=1,
        now=T0,
    )[0]


def finished() -> Table:
    table = started(tie="draw")[0]
    while table.game is not None and table.game.current_seat is not None:
        seat = table.game.current_seat
        lo, hi = table.game.placement_intervals(seat)[0]
        who = device(1) if seat is Seat.SOUTH else device(2)
        table = table.apply(Shoot(who, seat, Shot((lo + hi) / 2, 0.0, 30.0)), T0)[0]
    return table


def reacted() -> Table:
    return lobby().apply(React(device(1), "good_luck"), T0)[0]


SHOT = Shot(0.0, 0.0, 28.0)
CASES: list[tuple[str, Callable[[], Table], Command]] = [
    ("not_a_member", lobby, Leave("stranger")),
    ("not_host", lobby, Start(device(2))),
    ("party_full", lobby, Join(device(3), "Cid")),
    ("seat_taken", lobby, TakeSeat(device(2), Seat.SOUTH)),
    ("not_a_seat", lobby, TakeSeat(device(2), Seat.EAST)),
    ("seats_empty", lambda: party(1)[0], Start(device(1))),
    ("in_game", playing, TakeSeat(device(2), None)),
    ("not_your_seat", playing, Shoot(device(2), Seat.SOUTH, SHOT)),
    ("not_your_turn", playing, Shoot(device(2), Seat.NORTH, SHOT)),
    ("illegal_placement", playing, Shoot(device(1), Seat.SOUTH, Shot(60.0, 0.0, 30.0))),
    ("illegal_shot", playing, Shoot(device(1), Seat.SOUTH, Shot(0.0, 200.0, 30.0))),
    ("illegal_action", playing, NextRound(device(1))),
    ("game_over", finished, NextRound(device(1))),
    ("bad_settings", lobby, SetCpu(device(1), Seat.NORTH, "grandmaster")),
    ("bad_name", lobby, Join(device(3), "\x00")),
    ("stale", playing, Shoot(device(1), Seat.SOUTH, SHOT, expected_version=3)),
    ("unknown_reaction", lobby, React(device(1), "rude")),
    ("too_many_reactions", reacted, React(device(1), "thanks")),
    ("spectator", with_spectator, TakeSeat(device(3), None)),
    ("closed", closed, Resign(device(1))),
    ("solo_table", solo, Join(device(2), "Bob")),
    ("ranked_table", lambda: ranked()[0], Join(device(3), "Cid", spectator=True)),
    ("no_hints", playing, TakeHint(device(1), Seat.SOUTH, "hint")),
]


def test_the_cases_cover_every_code() -> None:
    assert sorted(code for code, _, _ in CASES) == sorted(ERROR_CODES)


@pytest.mark.parametrize(("code", "make", "command"), CASES, ids=[c for c, _, _ in CASES])
def test_each_error_code(code: str, make: Callable[[], Table], command: Command) -> None:
    table = make()
    snapshot = table.to_dict()
    with pytest.raises(TableError) as info:
        table.apply(command, T0 + 0.5)
    assert info.value.code == code
    assert info.value.message and info.value.message == str(info.value)
    assert table.to_dict() == snapshot


def test_a_remove_of_oneself_or_a_stranger_is_refused() -> None:
    table = lobby()
    with pytest.raises(TableError) as info:
        table.apply(Remove(device(1), "m7"), T0)
    assert info.value.code == "not_a_member"


def test_changing_to_bad_settings_cannot_even_be_written() -> None:
    with pytest.raises(TableError) as info:
        ChangeSettings(device(1), settings(layout="doubles", discs=8))
    assert info.value.code == "bad_settings"


def test_a_disc_placed_off_the_quarter_is_an_illegal_placement() -> None:
    # R3: 60° is beyond the quadrant line; the message names the allowed range.
    table = playing()
    with pytest.raises(TableError) as info:
        table.apply(Shoot(device(1), Seat.SOUTH, Shot(60.0, 0.0, 30.0)), T0)
    assert info.value.code == "illegal_placement" and "quadrant line" in info.value.message


@pytest.mark.parametrize(
    ("kind", "code", "seats", "seed"),
    [
        ("party", None, None, 1),  # a party needs a code
        ("solo", "ABC234", None, 1),  # a solo table has none
        ("party", "ABC234", {Seat.SOUTH: "me"}, 1),  # a party's seats are chosen in the lobby
        ("party", "ABC234", None, -1),
        ("club", "ABC234", None, 1),
    ],
)
def test_a_table_is_created_only_from_sound_values(
    kind: str, code: str | None, seats: dict[Seat, str] | None, seed: int
) -> None:
    with pytest.raises(TableError) as info:
        Table.create(
            id="x" * 32,
            kind=kind,
            code=code,
            host_device=device(1),
            host_name="Ann",
            settings=TableSettings.for_kind("party"),
            seed=seed,
            now=T0,
            seats=seats,
        )
    assert info.value.code == "bad_settings"


@pytest.mark.parametrize(
    "make",
    [
        lambda: lobby().apply(TakeSeat(device(2), Seat.EAST), T0),
        lambda: lobby().apply(SetCpu(device(1), Seat.WEST, "hard"), T0),
        lambda: playing().apply(Shoot(device(1), Seat.EAST, SHOT), T0),
        lambda: Table.create(
            id="s" * 32,
            kind="solo",
            code=None,
            host_device=device(1),
            host_name="Ann",
            settings=TableSettings.for_kind("solo"),
            seed=1,
            now=T0,
            seats={Seat.SOUTH: "me", Seat.EAST: "hard"},
        ),
    ],
    ids=["take_seat", "set_cpu", "shoot", "solo_seats"],
)
def test_a_seat_outside_the_layout_is_named_in_words(make: Callable[[], object]) -> None:
    # A player reads the message: "east is not a seat of singles", not a Python repr.
    with pytest.raises(TableError) as info:
        make()
    assert info.value.code == "not_a_seat"
    assert info.value.message.startswith("east is not") or info.value.message.startswith(
        "west is not"
    )
    assert "Seat." not in info.value.message and "<" not in info.value.message


def test_an_unknown_command_is_refused_without_echoing_its_device_token() -> None:
    # A device token is a secret (contract 1): no message carries one, even
    # the refusal of a command the table does not know.
    class Poke(Start):
        pass

    with pytest.raises(TableError) as info:
        lobby().apply(Poke(device(1)), T0)
    assert info.value.code == "illegal_action" and device(1) not in info.value.message
