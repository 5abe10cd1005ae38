"""Evolving a table: the fold of one event into the next table value.

The one place where a table changes.  :func:`fold` checks that an event
follows the table and applies the fields it changes (one small function an
event type, in :data:`_FOLDS`); :func:`created` is the table a
``TableCreated`` event begins, and :func:`replay` folds a whole log.  Deciding
which events a command causes is the handlers' job (:mod:`crokinole.table.draft`
and the modules it serves); here every event is a fact to apply.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from crokinole.errors import CrokinoleError, InvalidRecordError
from crokinole.rules import Game, Phase
from crokinole.table import events as ev
from crokinole.table.members import Member, Person, SeatRating
from crokinole.table.settings import Kind
from crokinole.table.state import Played, Stage

if TYPE_CHECKING:
    from crokinole.physics import ShotResult
    from crokinole.table import Table  # annotations only (via the package: no cycle)

__all__ = ["created", "fold", "game_of", "replay"]

_Changes = dict[str, Any]


def created(cls: type[Table], event: ev.TableCreated) -> Table:
    """The table that ``event`` (a log's first) begins: no members, empty seats, the lobby."""
    if event.version != 1:
        raise InvalidRecordError(f"a table's first event has version 1, not {event.version}")
    return cls(
        id=event.table_id,
        kind=event.kind,
        code=event.code,
        version=1,
        created_at=event.at,
        host=None,
        settings=event.settings,
        timings=event.timings,
        seed=event.seed,
        members=(),
        seats=dict.fromkeys(event.settings.seats),
        stage=Stage.LOBBY,
        game=None,
        game_number=0,
        standing_in=frozenset(),
        turn_started=None,
        round_over_at=None,
        next_pressed=frozenset(),
        rematch_votes=frozenset(),
        joined=0,
    )


def replay(cls: type[Table], events: Iterable[ev.Event]) -> Table:
    """The table a whole event log describes (see :meth:`crokinole.table.Table.replay`)."""
    table: Table | None = None
    for event in events:
        if table is None:
            if not isinstance(event, ev.TableCreated):
                raise InvalidRecordError(
                    f"a table's log starts with table_created, not {event.TYPE}"
                )
            table = created(cls, event)
        else:
            table = table.fold(event)
    if table is None:
        raise InvalidRecordError("an empty event log holds no table")
    return table


def fold(
    t: Table, event: ev.Event, played: Played | None, outcome: ShotResult | None = None
) -> Table:
    """The table after ``event``; ``played`` is the shot's outcome when it was just decided.

    ``outcome`` is the simulator's result of a ``ShotPlayed`` event known
    already (the owner of the table published it): the shot is judged from
    it, not simulated again.

    Raises:
        InvalidRecordError: the event does not follow ``t`` or cannot happen
            there, or ``outcome`` is not the result of this shot here.
    """
    if event.version != t.version + 1:
        raise InvalidRecordError(
            f"event {event.version} ({event.TYPE}) cannot follow version {t.version}"
        )
    step = _FOLDS.get(type(event))
    if step is None:
        raise InvalidRecordError(f"a {event.TYPE} event cannot happen at a table that exists")
    try:
        if outcome is not None:
            played = _known_shot(t, event, outcome)
        changes = step(t, event, played)
    except InvalidRecordError:
        raise
    except CrokinoleError as exc:
        raise InvalidRecordError(f"event {event.version} ({event.TYPE}): {exc}") from None
    return replace(t, version=event.version, **changes)


def game_of(t: Table) -> Game:
    """The table's game (a record error if none has started)."""
    if t.game is None:
        raise InvalidRecordError("no game has started at this table")
    return t.game


def _update(t: Table, mid: str, **changes: Any) -> tuple[Member, ...]:
    if t.member(mid) is None:
        raise InvalidRecordError(f"{mid} is not a member of this table")
    return tuple(replace(m, **changes) if m.mid == mid else m for m in t.members)


def _member_joined(t: Table, e: ev.MemberJoined, _: Played | None) -> _Changes:
    number = int(e.mid[1:]) if e.mid[1:].isdigit() else t.joined + 1
    member = Member(e.mid, e.device, e.name, e.spectator, connected=True)
    return {"members": (*t.members, member), "joined": max(t.joined, number)}


def _member_left(t: Table, e: ev.MemberLeft, _: Played | None) -> _Changes:
    gone = Person(e.mid)
    return {
        "members": tuple(m for m in t.members if m.mid != e.mid),
        "seats": {s: (None if o == gone else o) for s, o in t.seats.items()},
        "host": None if t.host == e.mid else t.host,
        "next_pressed": t.next_pressed - {e.mid},
        "rematch_votes": t.rematch_votes - {e.mid},
    }


def _seat_changed(t: Table, e: ev.SeatChanged, _: Played | None) -> _Changes:
    if e.seat not in t.seats:
        raise InvalidRecordError(f"{e.seat.key} is not a seat of this table")
    return {"seats": {**t.seats, e.seat: e.occupant}, "standing_in": t.standing_in - {e.seat}}


def _seat_named(t: Table, e: ev.SeatNamed, _: Played | None) -> _Changes:
    if t.kind is not Kind.SOLO or e.seat not in t.seats:
        raise InvalidRecordError(f"{e.seat.key} is not named on one device here")
    return {"seat_names": {**t.seat_names, e.seat: e.name}}


def _settings_changed(t: Table, e: ev.SettingsChanged, _: Played | None) -> _Changes:
    return {
        "settings": e.settings,
        "seats": {s: t.seats.get(s) for s in e.settings.seats},
        "rematch_votes": frozenset(),  # a vote was for a game under the old rules
        "rematch_until": None,
    }


def _presence(t: Table, e: ev.Presence, _: Played | None) -> _Changes:
    disconnected_at = None if e.connected else e.at
    members = _update(t, e.mid, connected=e.connected, disconnected_at=disconnected_at)
    return {"members": members}


def _ranked_seated(t: Table, e: ev.RankedSeated, _: Played | None) -> _Changes:
    if t.kind is not Kind.RANKED or e.seat not in t.seats:
        raise InvalidRecordError(f"{e.seat.key} is not a ranked seat here")
    return {"ratings": {**t.ratings, e.seat: SeatRating(e.rating, e.provisional)}}


def _event_linked(t: Table, e: ev.EventLinked, _: Played | None) -> _Changes:
    if t.kind is not Kind.RANKED or t.event is not None:
        raise InvalidRecordError("only a new ranked table is linked to an event")
    return {"event": e.link}


def _game_started(t: Table, e: ev.GameStarted, _: Played | None) -> _Changes:
    return {
        "turns": {},
        "standin_turns": {},
        "hints_used": {},
        "hinted": frozenset(),
        "no_show": None,
        "game": Game(t.settings.rules(), first_seat=e.first_seat),
        "game_number": e.game_number,
        "people_seats": frozenset(s for s, o in t.seats.items() if isinstance(o, Person)),
        "stage": Stage.PLAYING,
        "standing_in": frozenset(),
        "turn_started": e.at,
        "round_over_at": None,
        "next_pressed": frozenset(),
        "rematch_votes": frozenset(),
        "rematch_until": None,
    }


def _known_shot(t: Table, e: ev.Event, outcome: ShotResult) -> Played:
    """The shot ``e`` played with the simulator's result known already (nothing simulated)."""
    if not isinstance(e, ev.ShotPlayed):
        raise InvalidRecordError(f"a {e.TYPE} event has no shot outcome")
    before = game_of(t)
    after = before.copy()
    report = after.shoot(e.seat, e.played, outcome=outcome)
    return Played(report, before, after)


def _turn_played(t: Table, e: ev.ShotPlayed | ev.TurnTimedOut, played: Played | None) -> _Changes:
    """A shot or a timeout: replayed from the log, or ``played`` as it was just decided."""
    if played is None:
        before = game_of(t)
        after = before.copy()
        if isinstance(e, ev.ShotPlayed):
            report = after.shoot(e.seat, e.played)
        else:
            report = after.timeout(e.seat)
        played = Played(report, before, after)
    phase = played.after.phase
    standin = isinstance(e, ev.ShotPlayed) and e.by != "person"
    return {
        "turns": {**t.turns, e.seat: t.turns.get(e.seat, 0) + 1},
        "standin_turns": (
            {**t.standin_turns, e.seat: t.standin_turns.get(e.seat, 0) + 1}
            if standin
            else t.standin_turns
        ),
        "game": played.after,
        "turn_started": e.at if phase is Phase.PLAYING else None,
        "round_over_at": e.at if phase is Phase.ROUND_OVER else None,
        "next_pressed": frozenset(),
        "last_report": played,
        "shot_reports": {**t.shot_reports, e.version: played},
    }


def _round_started(t: Table, e: ev.RoundStarted, _: Played | None) -> _Changes:
    game = game_of(t).copy()
    game.next_round()
    if game.round_number != e.round:
        raise InvalidRecordError(f"round {e.round} cannot start: the next is {game.round_number}")
    return {"game": game, "turn_started": e.at, "round_over_at": None, "next_pressed": frozenset()}


def _game_finished(t: Table, e: ev.GameFinished, _: Played | None) -> _Changes:
    return {
        "stage": Stage.FINISHED,
        "standing_in": frozenset(),
        "turn_started": None,
        "round_over_at": None,
        "next_pressed": frozenset(),
        "rematch_votes": frozenset(),
        "rematch_until": None,
    }


def _game_aborted(t: Table, e: ev.GameAborted, _: Played | None) -> _Changes:
    if t.stage is not Stage.PLAYING or e.seat not in t.seats:
        raise InvalidRecordError("only a game being played can be aborted")
    return {"no_show": e.seat}  # the GameFinished that follows ends it


def _hint_taken(t: Table, e: ev.HintTaken, _: Played | None) -> _Changes:
    if e.seat not in t.seats:
        raise InvalidRecordError(f"{e.seat.key} is not a seat of this table")
    turn = len(t.game.actions) if t.game is not None else 0
    return {
        "hints_used": {**t.hints_used, e.seat: t.hints_used.get(e.seat, 0) + 1},
        "hinted": t.hinted | {(e.seat, e.kind, turn)},
    }


def _no_offer(t: Table, e: ev.Event, _: Played | None) -> _Changes:
    return {"rematch_votes": frozenset(), "rematch_until": None}


_FOLDS: dict[type[ev.Event], Callable[[Table, Any, Played | None], _Changes]] = {
    ev.MemberJoined: _member_joined,
    ev.MemberLeft: _member_left,
    ev.Renamed: lambda t, e, _: {"members": _update(t, e.mid, name=e.name)},
    ev.HostChanged: lambda t, e, _: {"host": e.mid},
    ev.SeatChanged: _seat_changed,
    ev.SeatNamed: _seat_named,
    ev.SettingsChanged: _settings_changed,
    ev.Presence: _presence,
    ev.RankedSeated: _ranked_seated,
    ev.EventLinked: _event_linked,
    ev.GameStarted: _game_started,
    ev.ShotPlayed: _turn_played,
    ev.TurnTimedOut: _turn_played,
    ev.StandInOn: lambda t, e, _: {"standing_in": t.standing_in | {e.seat}},
    ev.StandInOff: lambda t, e, _: {"standing_in": t.standing_in - {e.seat}},
    ev.NextPressed: lambda t, e, _: {"next_pressed": t.next_pressed | {e.mid}},
    ev.RoundStarted: _round_started,
    ev.GameFinished: _game_finished,
    ev.GameAborted: _game_aborted,
    ev.RematchVoted: lambda t, e, _: {"rematch_votes": t.rematch_votes | {e.mid}},
    ev.RematchOffered: lambda t, e, _: {
        "rematch_votes": frozenset({e.mid}),
        "rematch_until": e.until,
    },
    ev.RematchDeclined: _no_offer,
    ev.RematchLapsed: _no_offer,
    ev.HintTaken: _hint_taken,
    ev.Reacted: lambda t, e, _: {"members": _update(t, e.mid, reacted_at=e.at)},
    ev.Closed: lambda t, e, _: {"stage": Stage.CLOSED, "turn_started": None, "round_over_at": None},
}
