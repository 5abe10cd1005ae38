"""A ranked table's commands: its making, its players' leaving, the door to others.

A ranked table is made with its players seated and its game started
(:func:`check_players`, :func:`seat_players`); a player who leaves mid-game abandons it
(:func:`leave_ranked`); a device that is not one of its players is refused
whatever it sends (:func:`check_sender`).  The other refusals a ranked
table gives (rules, seats, rematch, names) are in the lobby's handlers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from crokinole.board import Seat
from crokinole.errors import ErrorCode, TableError
from crokinole.rules import Layout
from crokinole.table.commands import Command, Join
from crokinole.table.draft import Draft, check_clock_and_seed, layout_name
from crokinole.table.event_link import EventLink
from crokinole.table.events import (
    Closed,
    GameFinished,
    MemberJoined,
    MemberLeft,
    Presence,
    RankedSeated,
    SeatChanged,
)
from crokinole.table.flow import start_game
from crokinole.table.members import Member, Person, RankedPlayer, SeatRating, check_name
from crokinole.table.settings import Kind, TableSettings
from crokinole.table.state import Stage

if TYPE_CHECKING:
    from crokinole.table import Table  # annotations only (via the package: no cycle)

__all__ = ["check_players", "check_sender", "leave_ranked", "seat_players"]


def _bad_settings(message: str) -> TableError:
    return TableError(ErrorCode.BAD_SETTINGS, message)


def _seated(settings: TableSettings, players: Mapping[Seat, RankedPlayer]) -> list[RankedPlayer]:
    """The players in the layout's order, each checked, each once."""
    layout_seats = settings.seats
    if not isinstance(players, Mapping) or set(players) != set(layout_seats):
        wanted = ", ".join(s.key for s in layout_seats)
        raise _bad_settings(f"a ranked {layout_name(settings)} table seats {wanted}")
    seated = [players[seat] for seat in layout_seats]
    for player in seated:
        if not isinstance(player, RankedPlayer) or not isinstance(player.shown, SeatRating):
            raise _bad_settings(f"a ranked seat holds a RankedPlayer, not {player!r}")
        if not isinstance(player.device, str) or not player.device:
            raise _bad_settings("a ranked player needs an identity")
    devices = [p.device for p in seated]
    if len(set(devices)) != len(devices):
        raise _bad_settings("a ranked table seats each player once")
    return seated


def check_players(
    settings: TableSettings,
    players: Mapping[Seat, RankedPlayer],
    now: float,
    seed: int,
    *,
    event: EventLink | None = None,
) -> list[RankedPlayer]:
    """A new ranked table's players in the layout's order, each checked, each once.

    An event's table (``event``: its link) plays the event's rules: singles or
    doubles, any options, but never hints.

    Raises:
        TableError: ``bad_settings`` (settings that are not the ranked rules,
            or for an event not singles or doubles or with hints; seats that
            are not the layout's, a player twice, a bad seed or time).
    """
    if event is not None and not isinstance(event, EventLink):
        raise _bad_settings(f"an event table's link is an EventLink, not {event!r}")
    if not isinstance(settings, TableSettings):
        raise _bad_settings(f"a ranked table has the ranked rules, not {settings!r}")
    if event is not None:
        if settings.layout not in (Layout.SINGLES, Layout.DOUBLES):
            raise _bad_settings(f"an event plays singles or doubles, not {layout_name(settings)}")
        if settings.hints:
            raise _bad_settings("hints are never allowed in an event's games")
    elif not settings.is_ranked:
        raise _bad_settings(f"a ranked table has the ranked rules, not {settings!r}")
    check_clock_and_seed(now, seed)
    return _seated(settings, players)


def seat_players(d: Draft, seated: list[RankedPlayer]) -> None:
    """A new ranked table's players seated, each away until they connect, and the game on."""
    names = [check_name(p.name) for p in seated]
    seating = zip(d.table.settings.seats, seated, names, strict=True)
    for number, (seat, player, name) in enumerate(seating, 1):
        mid = f"m{number}"
        d.emit(MemberJoined, mid=mid, device=player.device, name=name, spectator=False)
        d.emit(SeatChanged, seat=seat, occupant=Person(mid))
        shown = player.shown
        d.emit(RankedSeated, seat=seat, rating=shown.rating, provisional=shown.provisional)
    for number in range(1, len(seated) + 1):
        d.emit(Presence, mid=f"m{number}", connected=False)
    start_game(d)


def check_sender(t: Table, command: Command) -> None:
    """At a ranked table, only its players' devices send commands (``ranked_table``); at an
    event's table anyone may also join as a spectator (and then watch as a member)."""
    if t.kind is Kind.RANKED:
        device = getattr(command, "device", None)
        watching = t.event is not None and isinstance(command, Join) and command.spectator
        if device is not None and t.member_of(device) is None and not watching:
            raise TableError(
                ErrorCode.RANKED_TABLE, "this is a ranked game: only its players can join"
            )


def leave_ranked(d: Draft, member: Member) -> None:
    """A ranked player goes: during the game, they abandon it (it ends at once).  A
    spectator of an event's table just goes."""
    if member.spectator:
        d.emit(MemberLeft, mid=member.mid, removed=False)
        return
    playing = d.table.stage is Stage.PLAYING
    d.emit(MemberLeft, mid=member.mid, removed=False)
    if playing:
        d.emit(GameFinished, winner=None, drawn=(), abandoned=True)
    if not any(not m.spectator for m in d.table.members):
        d.emit(Closed, reason="everyone left")
