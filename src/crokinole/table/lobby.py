"""The lobby's commands: making a table, joining it, seats, settings, the start.

The handlers of a party's setting up (and of joining or leaving any table),
and the checks and first events of a new party or solo table, which
:meth:`crokinole.table.Table.create` puts together (a ranked table is made
in :mod:`crokinole.table.ranked`).  Each handler takes
the command's :class:`~crokinole.table.draft.Draft` and its command, checks
it, and emits the events it causes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from crokinole.board import Seat
from crokinole.errors import ErrorCode, TableError
from crokinole.table.commands import (
    ChangeSettings,
    Join,
    Leave,
    MoveMember,
    Remove,
    Rename,
    Resign,
    SetCpu,
    Start,
    TakeSeat,
)
from crokinole.table.draft import (
    Draft,
    check_not_ranked,
    check_open,
    check_party,
    check_seat,
    check_setup,
    empty_seat,
    host,
    layout_name,
    player,
    seat_text,
    sender,
    stand_up,
)
from crokinole.table.events import (
    GameStarted,
    HostChanged,
    MemberJoined,
    Presence,
    Renamed,
    SeatChanged,
    SeatNamed,
    SettingsChanged,
)
from crokinole.table.flow import abandon, begin_turn, leave, settle, start_game
from crokinole.table.members import Cpu, Member, Occupant, Person, check_name
from crokinole.table.ranked import leave_ranked
from crokinole.table.settings import Kind, TableSettings
from crokinole.table.state import MAX_SPECTATORS, ME, Stage

if TYPE_CHECKING:
    from crokinole.table import Table  # annotations only (via the package: no cycle)

__all__ = [
    "change_settings",
    "join",
    "kind_of",
    "leave_command",
    "move_member",
    "remove",
    "rename",
    "seat_first",
    "seat_names",
    "set_cpu",
    "solo_plan",
    "start",
    "take_seat",
]


def _bad_settings(message: str) -> TableError:
    return TableError(ErrorCode.BAD_SETTINGS, message)


def kind_of(kind: Kind | str, code: str | None, settings: TableSettings, seats: object) -> Kind:
    """The kind of a new party or solo table, checked against what else was given.

    Raises:
        TableError: ``bad_settings``.
    """
    try:
        kind = Kind(kind)
    except ValueError:
        raise _bad_settings(f"a table is a party or solo, not {kind!r}") from None
    if not isinstance(settings, TableSettings):
        raise _bad_settings(f"settings are TableSettings, not {settings!r}")
    if kind is Kind.PARTY and (not isinstance(code, str) or not code):
        raise _bad_settings("a party needs a code")
    if kind is Kind.PARTY and seats is not None:
        raise _bad_settings("a party's players choose their seats in the lobby")
    if kind is Kind.SOLO and code is not None:
        raise _bad_settings("a table on one device has no code")
    return kind


def solo_plan(settings: TableSettings, seats: Mapping[Seat, str] | None) -> dict[Seat, Occupant]:
    """Who plays each seat of a solo table: the device (``m1``) or a CPU."""
    layout_seats = settings.seats
    chosen = dict(seats) if seats is not None else {layout_seats[0]: ME}
    for seat in chosen:
        if seat not in layout_seats:
            raise TableError(
                ErrorCode.NOT_A_SEAT,
                f"{seat_text(seat)} is not a seat of {layout_name(settings)}",
            )
    plan: dict[Seat, Occupant] = {}
    for seat in layout_seats:
        value = chosen.get(seat, settings.standin_level if seats is None else None)
        if value is None:
            raise TableError(ErrorCode.SEATS_EMPTY, f"{seat.key} needs a player or a CPU")
        plan[seat] = Person("m1") if value == ME else Cpu(value)
    if Person("m1") not in plan.values():
        raise _bad_settings("a game on this device needs at least one seat of yours")
    return plan


def seat_names(
    kind: Kind, plan: Mapping[Seat, Occupant], names: Mapping[Seat, str] | None
) -> dict[Seat, str]:
    """The names of the people sharing one device, by seat (checked; in the layout's order)."""
    if names is None:
        return {}
    if kind is not Kind.SOLO:
        raise _bad_settings("in a party each player gives their own name when joining")
    if not isinstance(names, Mapping):
        raise _bad_settings(f"names are given seat by seat, not {names!r}")
    for seat in names:
        if seat not in plan:
            raise TableError(ErrorCode.NOT_A_SEAT, f"{seat_text(seat)} is not a seat of this game")
    named: dict[Seat, str] = {}
    taken: dict[str, Seat] = {}
    for seat, occupant in plan.items():
        if seat not in names:
            continue
        if not isinstance(occupant, Person):
            raise _bad_settings(f"{seat.title} is played by a CPU: it cannot take a name")
        try:
            name = check_name(names[seat])
        except TableError as exc:
            raise TableError(ErrorCode.BAD_NAME, f"{seat.title}'s name: {exc.message}") from None
        other = taken.get(name.casefold())
        if other is not None:
            raise TableError(
                ErrorCode.BAD_NAME,
                f"{other.title} and {seat.title} are both called {name}: "
                "give each player their own name",
            )
        taken[name.casefold()] = seat
        named[seat] = name
    return named


def seat_first(
    d: Draft, host: tuple[str, str], plan: Mapping[Seat, Occupant], named: Mapping[Seat, str]
) -> None:
    """A new table's first people: its host (``(device, name)``), and a solo table's seats.

    A party's host sits at the first seat; a solo table's seats are
    ``plan``'s, named by ``named``, and its game starts.
    """
    device, name = host
    d.emit(MemberJoined, mid="m1", device=device, name=name, spectator=False)
    d.emit(HostChanged, mid="m1")
    first = d.table.settings.seats[0]
    if d.table.kind is Kind.PARTY:
        d.emit(SeatChanged, seat=first, occupant=Person("m1"))
        return
    for seat, occupant in plan.items():
        d.emit(SeatChanged, seat=seat, occupant=occupant)
    for seat, given in named.items():
        d.emit(SeatNamed, seat=seat, name=given)
    d.emit(GameStarted, game_number=1, first_seat=first)
    begin_turn(d)


def join(d: Draft, c: Join) -> None:
    """A device joins as a player or a spectator, or a member's device comes back."""
    t = d.table
    check_open(t)
    if t.kind is not Kind.RANKED:  # a ranked table's players come back below
        check_party(t)
    existing = t.member_of(c.device)
    if existing is not None:
        if not existing.connected:
            d.emit(Presence, mid=existing.mid, connected=True)
            settle(d)  # as Connect: one who pressed may now be the only one here
        return
    if not isinstance(c.device, str) or not c.device:
        raise TableError(ErrorCode.NOT_A_MEMBER, "a device token is needed to join")
    name = check_name(c.name)
    spectator = bool(c.spectator)
    if spectator and t.spectators >= MAX_SPECTATORS:
        raise TableError(
            ErrorCode.PARTY_FULL, f"this party has its {MAX_SPECTATORS} spectators already"
        )
    players = sum(1 for m in t.members if not m.spectator)
    if not spectator and players >= t.settings.layout.players:
        raise TableError(
            ErrorCode.PARTY_FULL,
            f"this party is full ({players} players for {layout_name(t.settings)}): "
            "you can join as a spectator",
        )
    mid = f"m{t.joined + 1}"
    d.emit(MemberJoined, mid=mid, device=c.device, name=name, spectator=spectator)
    if not spectator:
        seat = empty_seat(d.table)
        if seat is not None and t.stage is not Stage.PLAYING:
            d.emit(SeatChanged, seat=seat, occupant=Person(mid))
        if d.table.host is None:
            d.emit(HostChanged, mid=mid)


def leave_command(d: Draft, c: Leave | Resign) -> None:
    """A member leaves (or resigns): solo gives up, ranked abandons, a party goes on."""
    t = d.table
    check_open(t)
    member = sender(t, c.device)
    if t.kind is Kind.SOLO:
        abandon(d)
    elif t.kind is Kind.RANKED:
        leave_ranked(d, member)
    else:
        leave(d, member, removed=False)


def rename(d: Draft, c: Rename) -> None:
    """A member changes their name (not at a ranked table: the accounts' names)."""
    t = d.table
    check_open(t)
    member = sender(t, c.device)
    if t.kind is Kind.RANKED:
        raise TableError(
            ErrorCode.RANKED_TABLE,
            "this is a ranked game: the names are the accounts' and cannot change",
        )
    name = check_name(c.name)
    if name != member.name:
        d.emit(Renamed, mid=member.mid, name=name)


def _sit(d: Draft, mid: str, where: Seat | None, *, over_cpu: bool) -> bool:
    """Member ``mid`` sits at ``where`` (None: stands up); whether they took another seat.

    A seat someone holds is ``seat_taken``; one a CPU holds too unless
    ``over_cpu`` (the host seats a person in its place).
    """
    t = d.table
    if where is None:
        stand_up(d, mid)
        return False
    seat = check_seat(t, where)
    occupant = t.seats[seat]
    if occupant == Person(mid):
        return False
    if isinstance(occupant, Person) or (occupant is not None and not over_cpu):
        raise TableError(ErrorCode.SEAT_TAKEN, f"{seat.key} is taken by {t.occupant_name(seat)}")
    stand_up(d, mid)
    d.emit(SeatChanged, seat=seat, occupant=Person(mid))
    return True


def _host_setup(t: Table, device: str) -> None:
    """The host changes seats or rules: at a party, in the lobby or between games."""
    check_open(t)
    check_party(t)
    check_setup(t)
    host(t, device)


def _member(t: Table, mid: str) -> Member:
    """The member the host names (``not_a_member``)."""
    target = t.member(mid)
    if target is None:
        raise TableError(ErrorCode.NOT_A_MEMBER, f"{mid!r} is not at this table")
    return target


def take_seat(d: Draft, c: TakeSeat) -> None:
    """A player sits down at an empty seat, or stands up."""
    t = d.table
    check_open(t)
    check_party(t)
    member = player(t, c.device)  # a spectator is told so first
    check_setup(t)
    _sit(d, member.mid, c.seat, over_cpu=False)


def move_member(d: Draft, c: MoveMember) -> None:
    """The host seats a player (in place of a CPU) or stands them up."""
    t = d.table
    _host_setup(t, c.device)
    target = _member(t, c.mid)
    if target.spectator:
        raise TableError(
            ErrorCode.SPECTATOR, f"{target.name} is a spectator and cannot take a seat"
        )
    if _sit(d, target.mid, c.seat, over_cpu=True):
        settle(d)


def set_cpu(d: Draft, c: SetCpu) -> None:
    """The host puts a CPU at a seat, or empties it."""
    t = d.table
    _host_setup(t, c.device)
    seat = check_seat(t, c.seat)
    occupant = None if c.level is None else Cpu(c.level)
    if occupant != t.seats[seat]:
        d.emit(SeatChanged, seat=seat, occupant=occupant)
        settle(d)  # after a game: the seat of one who was away may complete a rematch


def remove(d: Draft, c: Remove) -> None:
    """The host removes another member."""
    t = d.table
    check_open(t)
    check_party(t)
    me = host(t, c.device)
    target = _member(t, c.mid)
    if target.mid == me.mid:
        raise TableError(
            ErrorCode.ILLEGAL_ACTION, "the host cannot remove themselves: leave instead"
        )
    leave(d, target, removed=True)


def change_settings(d: Draft, c: ChangeSettings) -> None:
    """The host changes the house rules."""
    t = d.table
    _host_setup(t, c.device)
    if not isinstance(c.settings, TableSettings):
        raise _bad_settings(f"settings are TableSettings, not {c.settings!r}")
    if c.settings != t.settings:
        d.emit(SettingsChanged, settings=c.settings)


def start(d: Draft, c: Start) -> None:
    """The host starts the game, every seat filled."""
    t = d.table
    check_not_ranked(t)
    check_setup(t)
    host(t, c.device)
    empty = empty_seat(t)
    if empty is not None:
        raise TableError(
            ErrorCode.SEATS_EMPTY, f"{empty.key} is empty: seat a player or a CPU there"
        )
    start_game(d)
