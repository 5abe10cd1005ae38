"""Ranked tables: fixed tournament rules, seats reserved for their players, abandoning ends it."""

from __future__ import annotations

import pytest

from crokinole.board import Seat
from crokinole.rules import Layout, Scoring, TieSetting
from crokinole.table import (
    ChangeSettings,
    Connect,
    Disconnect,
    Event,
    GameAborted,
    GameFinished,
    Join,
    Kind,
    Leave,
    MoveMember,
    NextRound,
    RankedPlayer,
    Rematch,
    Remove,
    Rename,
    Resign,
    SeatRating,
    SetCpu,
    Shoot,
    Stage,
    Start,
    Table,
    TableError,
    TableSettings,
    TakeSeat,
    Tick,
    Timings,
    event_from_dict,
)
from tests.support.table import T0, legal_shot, shoot

ANN, BOB = "account:1", "account:2"


def ranked(
    layout: Layout = Layout.SINGLES, rounds: int = 1, **timings: float
) -> tuple[Table, list[Event]]:
    seats = TableSettings.ranked(layout).seats
    players = {
        seat: RankedPlayer(f"account:{n}", f"user{n}", SeatRating(1000 + 10 * n, n % 2 == 1))
        for n, seat in enumerate(seats, 1)
    }
    table, events = Table.create_ranked(
        id="r" * 32,
        players=players,
        settings=TableSettings.ranked(layout, rounds),
        timings=Timings(**timings),
        seed=5,
        now=T0,
    )
    return table, list(events)


def connected(table: Table, now: float = T0) -> Table:
    for member in table.members:
        table, _ = table.apply(Connect(member.device), now)
    return table


def test_the_rules_are_the_tournament_rules_with_a_30_s_clock_and_the_human_hand() -> None:
    rules = TableSettings.ranked("doubles")
    assert rules.discs == 12 and rules.scoring is Scoring.FOUR_ROUNDS and rules.rounds == 4
    assert rules.tie is TieSetting.EXTRA_ROUNDS and rules.required_contact
    assert rules.turn_time == 30.0 and rules.hand.value == "human"
    assert rules.standin_level == "normal" and rules.is_ranked
    assert not TableSettings.for_kind("party").is_ranked
    with pytest.raises(TableError, match="singles or doubles"):
        TableSettings.ranked("two_vs_one")


def test_a_ranked_table_starts_at_once_with_its_players_seated_and_away() -> None:
    table, events = ranked()
    assert table.kind is Kind.RANKED and table.stage is Stage.PLAYING
    assert table.code is None and table.host is None
    assert [m.device for m in table.members] == [ANN, BOB]
    assert not any(m.connected for m in table.members)
    assert table.ratings[Seat.SOUTH] == SeatRating(1010, True)
    assert table.ratings[Seat.NORTH] == SeatRating(1020, False)
    # The log replays to the table, and every event survives JSON.
    again = Table.replay(event_from_dict(e.to_dict()) for e in events)
    assert again == table and Table.from_dict(table.to_dict()) == table


def test_settings_that_are_not_the_ranked_rules_are_refused() -> None:
    players = {
        Seat.SOUTH: RankedPlayer(ANN, "ann", SeatRating(1000, True)),
        Seat.NORTH: RankedPlayer(BOB, "bob", SeatRating(1000, True)),
    }
    with pytest.raises(TableError, match="ranked rules") as error:
        Table.create_ranked(
            id="r", players=players, settings=TableSettings.for_kind("party"), seed=1, now=T0
        )
    assert error.value.code == "bad_settings"
    with pytest.raises(TableError, match="seats south, north"):
        Table.create_ranked(
            id="r", players={Seat.SOUTH: players[Seat.SOUTH]},
            settings=TableSettings.ranked("singles"), seed=1, now=T0,
        )  # fmt: skip
    twice = {Seat.SOUTH: players[Seat.SOUTH], Seat.NORTH: players[Seat.SOUTH]}
    with pytest.raises(TableError, match="each player once"):
        Table.create_ranked(
            id="r", players=twice, settings=TableSettings.ranked("singles"), seed=1, now=T0
        )
    with pytest.raises(TableError, match="from 0"):
        SeatRating(-1, True)


@pytest.mark.parametrize(
    "command",
    [
        Join("dev-cat", "Cat"),
        Join("dev-cat", "Cat", spectator=True),
        Connect("dev-cat"),
        Rename("dev-cat", "Cat"),
        Leave("dev-cat"),
        NextRound("dev-cat"),
        Shoot("dev-cat", Seat.SOUTH, legal_shot(ranked()[0].game, Seat.SOUTH)),  # type: ignore[arg-type]
    ],
    ids=lambda c: type(c).__name__,
)
def test_nobody_else_can_join_watch_or_act(command: object) -> None:
    table = connected(ranked()[0])
    with pytest.raises(TableError, match="only its players can join") as error:
        table.apply(command, T0 + 1)  # type: ignore[arg-type]
    assert error.value.code == "ranked_table"


@pytest.mark.parametrize(
    "command",
    [
        ChangeSettings(ANN, TableSettings.for_kind("party")),
        TakeSeat(ANN, Seat.NORTH),
        MoveMember(ANN, "m2", None),
        SetCpu(ANN, Seat.NORTH, "hard"),
        Remove(ANN, "m2"),
        Start(ANN),
        Rematch(ANN),
    ],
    ids=lambda c: type(c).__name__,
)
def test_its_players_cannot_change_rules_or_seats_start_or_rematch(command: object) -> None:
    table = connected(ranked()[0])
    with pytest.raises(TableError, match="rules and seats are fixed") as error:
        table.apply(command, T0 + 1)  # type: ignore[arg-type]
    assert error.value.code == "ranked_table"


def test_a_player_who_goes_after_a_first_shot_is_stood_in_for_after_the_grace() -> None:
    table = connected(ranked(standin_grace=10.0)[0])
    table, _ = shoot(table, T0 + 1)  # South's first disc
    table, _ = shoot(table, T0 + 2)  # North's
    table, _ = table.apply(Disconnect(ANN), T0 + 3)
    deadline = table.next_deadline()
    assert deadline is not None and deadline.kind.value == "standin" and deadline.at == T0 + 13
    table, events = table.apply(Tick(), T0 + 13)
    assert [e.TYPE for e in events] == ["stand_in_on"]
    assert table.cpu_turn() == (Seat.SOUTH, "normal")
    table, _ = shoot(table, T0 + 14)
    assert table.turns == {Seat.SOUTH: 2, Seat.NORTH: 1} and table.standin_share(Seat.SOUTH) == 0.5
    assert table.standin_share(Seat.NORTH) == 0.0


def test_a_player_who_never_comes_gets_no_stand_in_and_the_game_is_aborted() -> None:
    table, log = ranked(standin_grace=10.0)
    table, connect = table.apply(Connect(BOB), T0)
    log += connect
    clock = 30 + Timings().turn_grace
    deadline = table.next_deadline()
    assert deadline is not None and deadline.kind.value == "no_show" and deadline.at == T0 + clock
    # Past the stand-in's grace nothing happens: a no-show's game is not played by a CPU.
    assert table.apply(Tick(), T0 + 10) == (table, [])
    assert table.cpu_turn() is None
    table, events = table.apply(Tick(), T0 + clock)
    assert [e.TYPE for e in events] == ["game_aborted", "game_finished"]
    aborted, finished = events
    assert isinstance(aborted, GameAborted) and aborted.seat is Seat.SOUTH
    assert aborted.reason == "no_show" and table.no_show is Seat.SOUTH
    assert isinstance(finished, GameFinished) and finished.abandoned
    assert table.stage is Stage.FINISHED and table.next_deadline() is None
    # Nothing was played, and the log replays to the aborted table.
    assert table.turns == {}
    assert Table.replay(event_from_dict(e.to_dict()) for e in [*log, *events]) == table


def test_the_second_player_missing_their_first_turn_aborts_it_too() -> None:
    table = connected(ranked()[0])
    table, _ = shoot(table, T0 + 5)  # South shows; North's first turn starts at T0 + 5
    deadline = table.next_deadline()
    clock = 30 + Timings().turn_grace
    assert deadline is not None and deadline.kind.value == "no_show"
    assert deadline.at == T0 + 5 + clock
    # Just before the clock runs out North may still shoot; then the clocks are the usual ones.
    table, _ = table.apply(Tick(), T0 + 4 + clock)
    assert table.stage is Stage.PLAYING
    played, _ = shoot(table, T0 + 4.5 + clock)
    later = played.next_deadline()
    assert later is not None and later.kind.value == "turn"
    # At the clock, a shot is refused and the game is aborted.
    with pytest.raises(TableError, match="aborted") as error:
        shoot(table, T0 + 5 + clock)
    assert error.value.code == "not_your_turn"
    table, events = table.apply(Tick(), T0 + 5 + clock)
    aborted = events[0]
    assert isinstance(aborted, GameAborted) and aborted.seat is Seat.NORTH


def test_a_second_turn_that_runs_out_goes_to_the_ditch_as_usual() -> None:
    table = connected(ranked()[0])
    table, _ = shoot(table, T0 + 1)
    table, _ = shoot(table, T0 + 2)
    clock = 30 + Timings().turn_grace
    table, events = table.apply(Tick(), T0 + 2 + clock)
    assert [e.TYPE for e in events] == ["turn_timed_out"]
    assert table.stage is Stage.PLAYING


def test_ranked_names_are_the_accounts_and_cannot_change() -> None:
    table = connected(ranked()[0])
    with pytest.raises(TableError, match="names are the accounts'") as error:
        table.apply(Rename(ANN, "user2"), T0 + 1)
    assert error.value.code == "ranked_table"
    assert [m.name for m in table.members] == ["user1", "user2"]


def test_the_turn_clock_is_30_seconds_and_a_game_plays_to_its_end() -> None:
    table = connected(ranked()[0])
    deadline = table.next_deadline()
    assert deadline is not None and deadline.at == T0 + 30 + Timings().turn_grace
    now = T0
    while table.stage is Stage.PLAYING:
        now += 1
        table, events = shoot(table, now)
    assert isinstance(events[-1], GameFinished) and not events[-1].abandoned
    assert table.turns == {Seat.SOUTH: 8, Seat.NORTH: 8} and table.standin_turns == {}
    with pytest.raises(TableError) as error:
        table.apply(Rematch(ANN), now)
    assert error.value.code == "ranked_table"


@pytest.mark.parametrize("command", [Leave, Resign])
def test_leaving_or_resigning_during_the_game_abandons_it(command: type) -> None:
    table = connected(ranked()[0])
    table, events = table.apply(command(BOB), T0 + 1)
    assert [e.TYPE for e in events] == ["member_left", "game_finished"]
    finished = events[-1]
    assert isinstance(finished, GameFinished) and finished.abandoned
    assert table.stage is Stage.FINISHED and table.seats[Seat.NORTH] is None
    # The other player leaves afterwards: the table closes.
    table, events = table.apply(Leave(ANN), T0 + 2)
    assert [e.TYPE for e in events] == ["member_left", "closed"]


def test_doubles_seat_four_players() -> None:
    table, _ = ranked(Layout.DOUBLES)
    assert len(table.members) == 4 and table.settings.discs == 12
    assert [s for s, o in table.seats.items() if o is None] == []
