"""Tables for the tests: a party in its lobby or playing, and a legal shot for anyone."""

from __future__ import annotations

from typing import Any

from crokinole.board import Seat, Shot
from crokinole.rules import Game, Layout
from crokinole.table import (
    Event,
    Join,
    Shoot,
    Start,
    Table,
    TableSettings,
    Timings,
)

T0 = 1000.0
SEED = 11


def device(n: int) -> str:
    """The device token of the n-th person (1 is the host)."""
    return f"dev-{n}"


def settings(kind: str = "party", **options: Any) -> TableSettings:
    """Quick settings: one round, steady hand, unless told otherwise."""
    options.setdefault("rounds", 1)
    options.setdefault("hand", "steady")
    return TableSettings.for_kind(kind, **options)


def party(
    players: int = 2, *, timings: Timings | None = None, **options: Any
) -> tuple[Table, list[Event]]:
    """A party in its lobby: the host and ``players - 1`` others, seated in join order."""
    if players > 2 and "layout" not in options:
        options["layout"] = Layout.DOUBLES if players == 4 else Layout.THREE_SINGLES
    table, log = Table.create(
        id="t" * 32,
        kind="party",
        code="ABC234",
        host_device=device(1),
        host_name="Ann",
        settings=settings(**options),
        timings=timings,
        seed=SEED,
        now=T0,
    )
    log = list(log)
    for n in range(2, players + 1):
        table, events = table.apply(Join(device(n), f"P{n}"), T0)
        log += events
    return table, log


def started(players: int = 2, **options: Any) -> tuple[Table, list[Event]]:
    """A party whose first game has started."""
    table, log = party(players, **options)
    table, events = table.apply(Start(device(1)), T0 + 1)
    return table, log + events


def legal_shot(game: Game, seat: Seat, power: float = 30.0) -> Shot:
    """A shot from the middle of the seat's first free stretch of the line."""
    lo, hi = game.placement_intervals(seat)[0]
    return Shot((lo + hi) / 2.0, 0.0, power)


def device_of(table: Table, seat: Seat) -> str:
    """The device of the person at ``seat``."""
    occupant = table.seats[seat]
    member = table.member(getattr(occupant, "mid", ""))
    assert member is not None, f"{seat} holds no person"
    return member.device


def shoot(table: Table, now: float, power: float = 30.0) -> tuple[Table, list[Event]]:
    """The shooter plays a legal shot (a person's own, or the server's for a CPU)."""
    game = table.game
    assert game is not None and game.current_seat is not None
    seat = game.current_seat
    shot = legal_shot(game, seat, power)
    if table.cpu_turn() is not None:
        command = Shoot(None, seat, shot, cpu=True, expected_version=table.version)
    else:
        command = Shoot(device_of(table, seat), seat, shot, expected_version=table.version)
    return table.apply(command, now)
