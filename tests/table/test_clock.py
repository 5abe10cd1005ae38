"""The table's clocks, with time given (R3's turn clock, R7's stand-in, the round countdown).

No test reads the wall clock: every ``now`` is a number chosen here.
"""

from __future__ import annotations

import pytest

from crokinole.board import Seat, Shot
from crokinole.rules import Phase
from crokinole.table import (
    Connect,
    Deadline,
    DeadlineKind,
    Disconnect,
    NextRound,
    Shoot,
    ShotPlayed,
    StandInOff,
    Table,
    TableError,
    Tick,
    Timings,
    TurnTimedOut,
)
from tests.support.table import T0, device, legal_shot, shoot, started

FAST = Timings(turn_grace=2.0, standin_grace=10.0, round_countdown=10.0, reaction_gap=2.0)


def play_to_round_end(table: Table, now: float) -> Table:
    assert table.game is not None
    while table.game.phase is Phase.PLAYING:
        table, _ = shoot(table, now)
    return table


def test_no_clock_no_deadline() -> None:
    table, _ = started()
    assert table.settings.turn_time is None
    assert table.next_deadline() is None
    same, events = table.apply(Tick(), T0 + 10_000)
    assert events == [] and same is table


def test_the_turn_clock_runs_out_and_the_disc_goes_to_the_ditch() -> None:
    table, _ = started(turn_time=30)
    start = table.turn_started
    assert start == T0 + 1
    deadline = Deadline(start + 30 + FAST.turn_grace, DeadlineKind.TURN)
    assert table.next_deadline() == deadline
    # Within the grace the shot still counts.
    early, events = table.apply(Tick(), deadline.at - 0.001)
    assert events == [] and early is table
    late = table.apply(Shoot(device(1), Seat.SOUTH, Shot(0.0, 0.0, 28.0)), deadline.at - 0.5)[0]
    assert late.game is not None and late.game.current_seat is Seat.NORTH
    # R3: the clock runs out: the disc goes to the ditch unplayed, the turn passes.
    table, events = table.apply(Tick(), deadline.at + 0.25)
    assert [e.TYPE for e in events] == ["turn_timed_out"]
    assert isinstance(events[0], TurnTimedOut) and events[0].reason == "clock"
    assert table.game is not None and table.game.current_seat is Seat.NORTH
    assert table.game.ditch == (1, 0) and table.game.in_hand(Seat.SOUTH) == 7
    # The next turn's clock starts when the timeout fired.
    assert table.next_deadline() == Deadline(deadline.at + 0.25 + 32.0, DeadlineKind.TURN)


def test_a_tick_long_after_fires_each_deadline_once() -> None:
    # After a restart, a tick fires the overdue turn clock once; the next
    # player gets a whole turn, not a cascade of timeouts.
    table, _ = started(turn_time=60)
    table, events = table.apply(Tick(), T0 + 10_000)
    assert [e.TYPE for e in events] == ["turn_timed_out"]
    deadline = table.next_deadline()
    assert deadline == Deadline(T0 + 10_000 + 62.0, DeadlineKind.TURN)


def test_a_short_test_clock_runs_too() -> None:
    table, _ = started(turn_time=1.5)
    table, events = table.apply(Tick(), T0 + 1 + 1.5 + 2.0)
    assert [e.TYPE for e in events] == ["turn_timed_out"]


def test_a_missing_player_is_stood_in_for_after_the_grace() -> None:
    table, _ = started(turn_time=30, standin_level="hard")
    table, _ = shoot(table, T0 + 2)  # south shoots: north to play from T0 + 2
    table, _ = table.apply(Disconnect(device(2)), T0 + 5)
    # The stand-in grace counts from the later of the turn's start and the drop.
    deadline = table.next_deadline()
    assert deadline == Deadline(T0 + 5 + 10.0, DeadlineKind.STANDIN)
    assert table.cpu_turn() is None
    table, events = table.apply(Tick(), T0 + 15)
    assert [e.TYPE for e in events] == ["stand_in_on"]
    assert table.standing_in == frozenset({Seat.NORTH})
    assert table.cpu_turn() == (Seat.NORTH, "hard")
    # The stand-in has no clock: the server's CPU plays.
    assert table.next_deadline() is None
    # The person cannot shoot a stood-in turn.
    assert table.game is not None
    shot = legal_shot(table.game, Seat.NORTH)
    with pytest.raises(TableError) as info:
        table.apply(Shoot(device(2), Seat.NORTH, shot), T0 + 16)
    assert info.value.code == "not_your_turn"
    table, events = table.apply(Shoot(None, Seat.NORTH, shot, cpu=True), T0 + 17)
    assert isinstance(events[0], ShotPlayed) and events[0].by == "standin"


def test_the_player_takes_the_seat_back_at_their_next_turn() -> None:
    table, _ = started()
    table, _ = shoot(table, T0 + 2)
    table, _ = table.apply(Disconnect(device(2)), T0 + 3)
    table, _ = table.apply(Tick(), T0 + 13)
    assert table.standing_in == frozenset({Seat.NORTH})
    table, events = table.apply(Connect(device(2)), T0 + 14)
    assert [e.TYPE for e in events] == ["presence"]
    assert table.cpu_turn() == (Seat.NORTH, "normal")  # this turn is the stand-in's
    table, events = shoot(table, T0 + 15)  # the stand-in shoots
    assert [e.TYPE for e in events] == ["shot_played"]
    table, events = shoot(table, T0 + 16)  # south shoots: north's turn starts
    assert [e.TYPE for e in events] == ["shot_played", "stand_in_off"]
    assert isinstance(events[1], StandInOff) and events[1].seat is Seat.NORTH
    assert table.standing_in == frozenset() and table.cpu_turn() is None


def test_a_player_still_away_stays_stood_in() -> None:
    table, _ = started()
    table, _ = shoot(table, T0 + 2)
    table, _ = table.apply(Disconnect(device(2)), T0 + 3)
    table, _ = table.apply(Tick(), T0 + 13)
    table, _ = shoot(table, T0 + 14)
    table, events = shoot(table, T0 + 15)
    assert [e.TYPE for e in events] == ["shot_played"]
    assert table.cpu_turn() == (Seat.NORTH, "normal")


def test_the_round_result_shows_for_the_countdown() -> None:
    table, _ = started(rounds=2)
    table = play_to_round_end(table, T0 + 5)
    assert table.next_deadline() == Deadline(T0 + 5 + 10.0, DeadlineKind.ROUND)
    table, _ = table.apply(NextRound(device(1)), T0 + 6)
    assert table.next_deadline() == Deadline(T0 + 15.0, DeadlineKind.ROUND)
    table, events = table.apply(Tick(), T0 + 15)
    assert [e.TYPE for e in events] == ["round_started"]
    assert table.game is not None and table.game.round_number == 2
    assert table.turn_started == T0 + 15


def test_a_disconnection_can_complete_the_next_presses() -> None:
    table, _ = started(rounds=2)
    table = play_to_round_end(table, T0 + 5)
    table, _ = table.apply(NextRound(device(1)), T0 + 6)
    table, events = table.apply(Disconnect(device(2)), T0 + 7)
    assert [e.TYPE for e in events] == ["presence", "round_started"]


def test_shortened_timings_are_kept_by_the_table() -> None:
    quick = Timings(turn_grace=0.5, standin_grace=1.0, round_countdown=2.0, reaction_gap=0.0)
    table, _ = started(timings=quick, turn_time=1)
    assert table.timings == quick
    assert table.next_deadline() == Deadline(T0 + 1 + 1.0 + 0.5, DeadlineKind.TURN)


def test_a_shot_after_the_clock_ran_out_is_refused_even_before_the_tick() -> None:
    # R3 and the issue: the clock runs on the server.  A shot that reaches
    # the table after the deadline (its timer not yet fired: a busy loop, a
    # restart) is refused, and the tick then sends the disc to the ditch.
    table, _ = started(turn_time=30)
    deadline = table.next_deadline()
    assert deadline is not None and deadline.kind is DeadlineKind.TURN
    shot = legal_shot(table.game, Seat.SOUTH)  # type: ignore[arg-type]
    with pytest.raises(TableError) as info:
        table.apply(Shoot(device(1), Seat.SOUTH, shot), deadline.at + 0.5)
    assert info.value.code == "not_your_turn" and "ran out" in info.value.message
    table, events = table.apply(Tick(), deadline.at + 0.6)
    assert [(e.TYPE, getattr(e, "reason", None)) for e in events] == [("turn_timed_out", "clock")]
