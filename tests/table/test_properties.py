"""Property tests over random command sequences (the issue's "Checks").

Whatever the commands: versions go up by one with no gap, the log replays
to the table, a snapshot reads back to it, a refused command changes
nothing, and no action is applied twice (a shot repeated with its expected
version is ``stale``).
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import event as note
from hypothesis import strategies as st

from crokinole.board import Seat, Shot
from crokinole.rules import Layout
from crokinole.table import (
    ChangeSettings,
    Command,
    Connect,
    Cpu,
    Disconnect,
    Event,
    Join,
    Kind,
    Leave,
    MoveMember,
    NextRound,
    Person,
    React,
    Rematch,
    Remove,
    Rename,
    Resign,
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
from tests.support.table import T0, device, legal_shot

QUICK = Timings(turn_grace=1.0, standin_grace=3.0, round_countdown=4.0, reaction_gap=1.0)
SEATS = st.sampled_from(list(Seat))
DEVICES = st.integers(1, 6).map(device)
LEVELS = st.sampled_from(["easy", "normal", "hard", "expert", "nope", None])


def quick_settings(kind: str, layout: str, hand: str, rounds: int = 1) -> TableSettings:
    return TableSettings.for_kind(kind, layout=layout, rounds=rounds, hand=hand, turn_time=5)


def a_shot(draw: Any, table: Table) -> Command:
    """Mostly the shooter's legal shot; sometimes someone else's, or a bad one."""
    game = table.game
    seat = game.current_seat if game is not None else None
    if seat is None or draw(st.integers(0, 9)) == 0:
        shot = Shot(draw(st.floats(-50, 50)), draw(st.floats(-10, 10)), draw(st.floats(0, 120)))
        return Shoot(draw(DEVICES), draw(SEATS), shot, expected_version=table.version)
    assert game is not None
    shot = legal_shot(game, seat, power=draw(st.sampled_from([0.0, 7.0, 25.0, 30.0, 60.0])))
    if table.cpu_turn() is not None:
        return Shoot(None, seat, shot, cpu=True, expected_version=table.version)
    occupant = table.seats[seat]
    member = table.member(occupant.mid) if isinstance(occupant, Person) else None
    sender = member.device if member is not None else draw(DEVICES)
    version = draw(st.sampled_from([table.version, None]))
    return Shoot(sender, seat, shot, expected_version=version)


def a_command(draw: Any, table: Table) -> Command:
    game = table.game
    playing = table.stage is Stage.PLAYING and game is not None and game.current_seat is not None
    between = table.stage is not Stage.PLAYING or not playing
    kind = draw(
        st.sampled_from(
            ["shoot"] * (20 if playing else 1)
            + ["next", "rematch", "tick"] * (4 if between else 1)
            + ["tick"] * 2
            + ["next", "rematch", "start", "join", "spectate", "seat", "move", "cpu"]
            + ["settings", "connect", "disconnect", "react", "rename"]
        )
    )
    if draw(st.integers(0, 59)) == 0:
        kind = draw(st.sampled_from(["leave", "resign", "remove"]))
    members = [m.device for m in table.members]
    who = draw(st.sampled_from(members) if members and draw(st.booleans()) else DEVICES)
    match kind:
        case "shoot":
            return a_shot(draw, table)
        case "tick":
            return Tick()
        case "next":
            return NextRound(who)
        case "rematch":
            return Rematch(who)
        case "start":
            return Start(draw(st.sampled_from([device(1), who])))
        case "join":
            return Join(who, draw(st.sampled_from(["Bo", "", "Cid"])))
        case "spectate":
            return Join(who, "Spec", spectator=True)
        case "leave":
            return Leave(who)
        case "seat":
            return TakeSeat(who, draw(st.none() | SEATS))
        case "move":
            return MoveMember(who, f"m{draw(st.integers(1, 7))}", draw(st.none() | SEATS))
        case "cpu":
            return SetCpu(who, draw(SEATS), draw(LEVELS))
        case "remove":
            return Remove(who, f"m{draw(st.integers(1, 7))}")
        case "settings":
            layout = draw(st.sampled_from([lay.value for lay in Layout]))
            return ChangeSettings(who, quick_settings("party", layout, "human"))
        case "connect":
            return Connect(who)
        case "disconnect":
            return Disconnect(who)
        case "react":
            return React(who, draw(st.sampled_from(["oops", "thanks", "boo"])))
        case "rename":
            return Rename(who, draw(st.sampled_from(["Al", "\x07", "Zed"])))
        case _:
            return Resign(who)


def check_invariants(table: Table) -> None:
    for seat, occupant in table.seats.items():
        assert seat in table.settings.seats
        if isinstance(occupant, Person):
            member = table.member(occupant.mid)
            assert member is not None and not member.spectator
        elif occupant is not None:
            assert isinstance(occupant, Cpu)
    if table.kind is Kind.PARTY:
        for member in table.members:
            assert len(table.seats_of(member.mid)) <= 1
    if table.stage is Stage.PLAYING:
        assert table.game is not None and not table.game.is_over
        assert all(o is not None for o in table.seats.values())
    assert table.standing_in <= set(table.seats)
    mids = [m.mid for m in table.members]
    assert len(mids) == len(set(mids))
    assert table.host is None or table.host in mids


@st.composite
def histories(draw: Any) -> tuple[list[Event], list[tuple[Table, Command, Table, list[Event]]]]:
    kind = draw(st.sampled_from(["party", "party", "solo"]))
    layout = draw(st.sampled_from([lay.value for lay in Layout]))
    hand = draw(st.sampled_from(["steady", "human"]))
    settings_ = quick_settings(kind, layout, hand, draw(st.integers(1, 2)))
    seats = None
    if kind == "solo":
        options = ["me", "easy", "normal"]
        seats = {s: draw(st.sampled_from(options)) for s in settings_.seats}
        seats[settings_.seats[0]] = "me"
    table, log = Table.create(
        id="p" * 32,
        kind=kind,
        code="ABC234" if kind == "party" else None,
        host_device=device(1),
        host_name="Ann",
        settings=settings_,
        timings=QUICK,
        seed=draw(st.integers(0, 2**32)),
        now=T0,
        seats=seats,
    )
    log = list(log)
    now = T0
    steps = []
    script: list[Command] = []
    if kind == "party":
        # Usually a game gets going: people join (and sit), CPUs fill the rest.
        for n in range(2, draw(st.integers(1, settings_.layout.players)) + 1):
            script.append(Join(device(n), f"P{n}"))
        if draw(st.booleans()):
            script += [SetCpu(device(1), seat, "easy") for seat in settings_.seats[1:]]
            script.append(Start(device(1)))
    for _ in range(draw(st.integers(30, 120))):
        now += draw(st.sampled_from([0.0, 0.3, 1.5, 4.0, 9.0]))
        command = script.pop(0) if script else a_command(draw, table)
        if isinstance(command, SetCpu) and table.seats.get(command.seat) is not None:
            continue  # fill only the seats nobody took
        before = table.to_dict()
        try:
            after, events = table.apply(command, now)
        except TableError as error:
            assert error.code and error.message
            # A refused command changes nothing.
            assert table.to_dict() == before
            continue
        steps.append((table, command, after, events))
        log += events
        table = after
    return log, steps


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(histories())
def test_random_histories_keep_every_invariant(
    history: tuple[list[Event], list[tuple[Table, Command, Table, list[Event]]]],
) -> None:
    log, steps = history
    # Versions strictly increase by one, with no gaps, from 1.
    assert [e.version for e in log] == list(range(1, len(log) + 1))
    for e in log:
        note(e.TYPE)
    final = Table.replay(log)
    assert final.version == len(log)
    for before, command, after, events in steps:
        assert after.version == before.version + len(events)
        if not events:
            assert after is before
        check_invariants(after)
        for event in events:
            assert event_from_dict(event.to_dict()) == event
        # No action is applied twice: the same shot at the same version is stale.
        if isinstance(command, Shoot) and command.expected_version is not None and events:
            try:
                after.apply(command, events[-1].at)
            except TableError as error:
                assert error.code in {"stale", "closed", "game_over"}
            else:
                raise AssertionError("a shot was applied twice")
    last = steps[-1][2] if steps else None
    if last is not None:
        assert final == last
        assert Table.from_dict(last.to_dict()) == last
        assert final.next_deadline() == last.next_deadline()
