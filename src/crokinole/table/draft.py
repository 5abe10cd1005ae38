"""Deciding a command: the draft of its events, and the checks every handler shares.

A handler (:mod:`~crokinole.table.lobby`, :mod:`~crokinole.table.play`,
:mod:`~crokinole.table.presence`, :mod:`~crokinole.table.hints`,
:mod:`~crokinole.table.ranked`) checks its command against the table with
the guards here, each raising :class:`~crokinole.errors.TableError` with its
:class:`~crokinole.errors.ErrorCode`, then emits events into a
:class:`Draft`, which folds each one at once so that the next decision sees
the table it made.  What follows an event of the game itself (a turn begins,
everyone is ready, a member goes) is in :mod:`crokinole.table.flow`.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, TypeVar

from crokinole.board import Seat, is_real_number, is_whole_number
from crokinole.errors import ErrorCode, TableError
from crokinole.rules import Game
from crokinole.table import evolve
from crokinole.table.events import Event, SeatChanged, TableCreated
from crokinole.table.members import Member
from crokinole.table.settings import Kind, TableSettings, Timings
from crokinole.table.state import Played, Stage

if TYPE_CHECKING:
    from crokinole.table import Table  # annotations only (via the package: no cycle)

__all__ = [
    "Draft",
    "check_clock_and_seed",
    "check_not_ranked",
    "check_open",
    "check_party",
    "check_seat",
    "check_seated",
    "check_setup",
    "empty_seat",
    "host",
    "layout_name",
    "open_draft",
    "player",
    "seat_text",
    "sender",
    "shooter",
    "stand_up",
]

E = TypeVar("E", bound=Event)


class Draft:
    """The events of one command so far, folded as they are decided."""

    def __init__(self, table: Table, now: float, events: list[Event]) -> None:
        self.table = table
        self.now = now
        self.events = events

    def emit(self, event_type: type[E], /, outcome: Played | None = None, **fields: Any) -> E:
        """Decide one more event (``outcome``: the shot it records, already played)."""
        event = event_type(version=self.table.version + 1, at=self.now, **fields)
        self.table = evolve.fold(self.table, event, outcome)
        self.events.append(event)
        return event


def check_clock_and_seed(now: float, seed: int) -> None:
    """A new table's time and seed (``bad_settings``)."""
    if not is_real_number(now) or not math.isfinite(float(now)):
        raise TableError(ErrorCode.BAD_SETTINGS, f"the time is a number of seconds, not {now!r}")
    if not is_whole_number(seed) or seed < 0:
        raise TableError(ErrorCode.BAD_SETTINGS, f"the seed is a whole number from 0, not {seed!r}")


def open_draft(
    cls: type[Table],
    id: str,
    kind: Kind,
    code: str | None,
    settings: TableSettings,
    *,
    timings: Timings | None,
    seed: int,
    now: float,
    device: str,
) -> Draft:
    """The draft of a new table's events, its ``TableCreated`` folded in."""
    created = TableCreated(
        version=1,
        at=float(now),
        table_id=id,
        kind=kind,
        code=code,
        settings=settings,
        timings=Timings() if timings is None else timings,
        seed=int(seed),
        host_device=device,
    )
    return Draft(evolve.created(cls, created), float(now), [created])


def layout_name(settings: TableSettings) -> str:
    """The layout in words (``three singles``)."""
    return settings.layout.value.replace("_", " ")


def seat_text(seat: object) -> str:
    """A seat as a player reads it in a message (``east``), whatever was sent."""
    return seat.key if isinstance(seat, Seat) else repr(seat)


def check_open(t: Table) -> None:
    """A closed table takes no command (``closed``)."""
    if t.stage is Stage.CLOSED:
        raise TableError(ErrorCode.CLOSED, "this table is closed: nothing more can happen at it")


def sender(t: Table, device: str | None) -> Member:
    """The member who sent a command (``not_a_member``)."""
    member = t.member_of(device)
    if member is None:
        raise TableError(ErrorCode.NOT_A_MEMBER, "you are not at this table: join it first")
    return member


def player(t: Table, device: str | None) -> Member:
    """The member who sent a command, a player (``spectator``)."""
    member = sender(t, device)
    if member.spectator:
        raise TableError(ErrorCode.SPECTATOR, "spectators watch: only players can do that")
    return member


def host(t: Table, device: str) -> Member:
    """The member who sent a command, the host (``not_host``)."""
    member = sender(t, device)
    if t.host != member.mid:
        found = t.member(t.host) if t.host is not None else None
        who = f"the host ({found.name})" if found is not None else "the host"
        raise TableError(ErrorCode.NOT_HOST, f"only {who} can do that")
    return member


def check_party(t: Table) -> None:
    """Joining and seats are a party's (``solo_table``, ``ranked_table``)."""
    if t.kind is Kind.SOLO:
        raise TableError(
            ErrorCode.SOLO_TABLE,
            "this game is played on one device: nobody can join or change seats",
        )
    check_not_ranked(t)


def check_not_ranked(t: Table) -> None:
    """A ranked table's rules and seats are fixed (``ranked_table``)."""
    if t.kind is Kind.RANKED:
        raise TableError(
            ErrorCode.RANKED_TABLE,
            "this is a ranked game: its rules and seats are fixed, with no rematch",
        )


def check_setup(t: Table) -> None:
    """Seats and rules change only in the lobby or between games (``in_game``)."""
    check_open(t)
    if t.stage is Stage.PLAYING:
        raise TableError(
            ErrorCode.IN_GAME, "a game is being played: that can change only between games"
        )


def check_seated(t: Table, member: Member) -> None:
    """``member`` holds a seat (``not_your_seat``)."""
    if not t.seats_of(member.mid):
        raise TableError(ErrorCode.NOT_YOUR_SEAT, "you have no seat in this game")


def empty_seat(t: Table) -> Seat | None:
    """The first empty seat, or None."""
    return next((s for s, o in t.seats.items() if o is None), None)


def check_seat(t: Table, seat: object) -> Seat:
    """``seat``, a seat of this table's layout (``not_a_seat``)."""
    if not isinstance(seat, Seat) or seat not in t.seats:
        seats = ", ".join(s.key for s in t.seats)
        raise TableError(
            ErrorCode.NOT_A_SEAT,
            f"{seat_text(seat)} is not a seat of {layout_name(t.settings)} ({seats})",
        )
    return seat


def shooter(game: Game) -> Seat:
    """The seat to shoot now (between rounds, ``illegal_action``: Next comes first)."""
    current = game.current_seat
    if current is None:
        raise TableError(
            ErrorCode.ILLEGAL_ACTION,
            f"round {game.round_number} is over: press Next for the next one",
        )
    return current


def stand_up(d: Draft, mid: str) -> None:
    """Member ``mid`` leaves every seat they hold."""
    for seat in d.table.seats_of(mid):
        d.emit(SeatChanged, seat=seat, occupant=None)
