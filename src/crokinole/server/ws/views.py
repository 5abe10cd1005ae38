"""Outbound: each viewer's messages, built from the pure table (:mod:`crokinole.table`).

:func:`view` is the whole table as one viewer sees it (the ``table``
message), and :func:`event_messages` turns a batch of domain events into
that viewer's messages, each carrying the lobby parts of the table after
them (:func:`lobby_parts`).  A viewer is known by its device token, which
is a secret: no message ever carries one (members are named by their public
id, ``"m1"``, ``"m2"``…).  The parts every viewer gets alike are made once
per table version (:data:`_SHARED`, an :class:`~crokinole.server.cache.LruCache`).
The game's data shapes (snapshot, report, trajectory) are
:mod:`crokinole.server.ws.payloads`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from crokinole.ai import Level
from crokinole.board import Seat, Shot
from crokinole.rules import Game
from crokinole.server.cache import LruCache
from crokinole.server.protocol import encode, message
from crokinole.server.ranked.rated import is_bot
from crokinole.server.ws.payloads import game_payload, report_payload, trajectory_payload
from crokinole.table import (
    REACTIONS,
    Closed,
    Cpu,
    Event,
    GameAborted,
    GameFinished,
    GameStarted,
    HintTaken,
    HostChanged,
    Member,
    MemberJoined,
    MemberLeft,
    NextPressed,
    Person,
    Played,
    Presence,
    Reacted,
    RematchDeclined,
    RematchLapsed,
    RematchOffered,
    RematchVoted,
    Renamed,
    RoundStarted,
    SeatChanged,
    SettingsChanged,
    ShotPlayed,
    StandInOff,
    StandInOn,
    Table,
    TurnTimedOut,
)


def levels_payload() -> list[dict[str, str]]:
    """``welcome.levels``: every CPU level, weakest first, with its display name.

    >>> levels_payload()[0]
    {'id': 'easy', 'name': 'Easy'}
    """
    return [{"id": level.value, "name": level.label} for level in Level]


def seat_name(seat: Seat) -> str:
    """``Seat.SOUTH`` → ``"south"`` (:attr:`Seat.key`, for the callers that import this name)."""
    return seat.key


# ----------------------------------------------------------------- the view


def _layout_seats(table: Table) -> list[tuple[Seat, int]]:
    """The seats of the table's layout with their sides, in the layout's order."""
    return [
        (seat, side) for side, seats in enumerate(table.settings.layout.sides) for seat in seats
    ]


def _seats_of_members(table: Table) -> dict[str, list[Seat]]:
    """Each seated member's seats, in the layout's order (made once per table version: the
    lobby, the names and each viewer's ``you`` read them)."""
    found = _SHARED.get_or_make((table.id, table.version, "held"), lambda: _held(table))
    return found or {}


def _held(table: Table) -> dict[str, list[Seat]]:
    held: dict[str, list[Seat]] = {}
    for seat, _side in _layout_seats(table):
        occupant = table.seats.get(seat)
        if isinstance(occupant, Person):
            held.setdefault(occupant.mid, []).append(seat)
    return held


def cpu_name(level: str) -> str:
    """``"normal"`` → ``"CPU Normal"``."""
    return f"CPU {Level(level).label}"


#: The name the browser gives a player against the CPU who gave none ("You" to themselves).
UNNAMED = "you"


def bot_seats(table: Table) -> list[str]:
    """The seats a bot account plays (its BOT mark in replays and reviews), in seat order."""
    devices = {m.mid: m.device for m in table.members}
    return [
        seat.key
        for seat, occupant in sorted(table.seats.items(), key=lambda item: -item[0].value)
        if isinstance(occupant, Person) and is_bot(devices.get(occupant.mid))
    ]


def seat_names(table: Table, *, shared: bool = False) -> dict[str, str]:
    """The name shown for each seat: its person's name, or "CPU Normal".

    On one device with several people's seats (hot-seat play) each seat has
    the name its player gave it, or is named after itself ("South"): the
    device's one name tells nobody apart.  ``shared``: for views that anyone
    may read (replays, reviews, records), where a player who gave no name
    (the browser's "You") is named after the seat too, so that one player
    has one name in all of them.
    """
    names = {m.mid: m.name for m in table.members}
    held = _seats_of_members(table)
    shown: dict[str, str] = {}
    for seat, occupant in table.seats.items():
        if isinstance(occupant, Cpu):
            shown[seat.key] = cpu_name(str(occupant.level))
        elif isinstance(occupant, Person):
            many = len(held.get(occupant.mid, ())) > 1
            name = table.seat_names.get(seat) or (
                seat.title if many else names.get(occupant.mid, seat.title)
            )
            if shared and name.casefold() == UNNAMED:
                name = seat.title
            shown[seat.key] = name
    return shown


def _cpu_levels(table: Table) -> dict[str, str]:
    return {
        seat.key: str(occupant.level)
        for seat, occupant in table.seats.items()
        if isinstance(occupant, Cpu)
    }


def game_view(
    table: Table, game: Game | None = None, *, shared: bool = False
) -> dict[str, Any] | None:
    """The ``game`` snapshot (``payloads.game_payload``) of the table's game, or of ``game``.

    ``shared``: named for anyone (:func:`seat_names`), as replays are.
    """
    game = table.game if game is None else game
    if game is None:
        return None
    return game_payload(game, seat_names(table, shared=shared), _cpu_levels(table))


def you_payload(table: Table, device: str | None) -> dict[str, Any]:
    """Who the viewer is at the table: their member id, seats, and roles."""
    member = table.member_of(device) if device is not None else None
    if member is None:
        return {"member": None, "seats": [], "spectator": False, "host": False}
    return {
        "member": member.mid,
        "seats": [s.key for s in _seats_of_members(table).get(member.mid, [])],
        "spectator": member.spectator,
        "host": table.host == member.mid,
    }


def _occupant(table: Table, seat: Seat, names: dict[str, Member]) -> dict[str, Any] | None:
    occupant = table.seats.get(seat)
    stand_in = seat in table.standing_in
    if isinstance(occupant, Cpu):
        level = str(occupant.level)
        return {"kind": "cpu", "name": cpu_name(level), "level": level, "stand_in": False}
    if isinstance(occupant, Person):
        member = names.get(occupant.mid)
        return {
            "kind": "person",
            "member": occupant.mid,
            "name": member.name if member is not None else "",
            "bot": member is not None and is_bot(member.device),
            "connected": member is not None and member.connected,
            "stand_in": stand_in,
            "level": table.settings.standin_level if stand_in else None,
        }
    return None


def _lobby_common(table: Table) -> dict[str, Any]:
    """The lobby as every viewer sees it (all of :func:`lobby_parts` but ``you``)."""
    held = _seats_of_members(table)
    by_mid = {m.mid: m for m in table.members}
    return {
        "stage": table.stage,
        "host": table.host,
        "members": [
            {
                "member": m.mid,
                "name": m.name,
                "bot": is_bot(m.device),
                "spectator": m.spectator,
                "connected": m.connected,
                "seat": held[m.mid][0].key if m.mid in held else None,
                "seats": [s.key for s in held.get(m.mid, [])],
                "host": table.host == m.mid,
            }
            for m in table.members
        ],
        "spectators": sum(1 for m in table.members if m.spectator),
        "seats": [
            {
                "seat": seat.key,
                "side": side,
                "occupant": _occupant(table, seat, by_mid),
                **_ranked_seat(table, seat, by_mid),
            }
            for seat, side in _layout_seats(table)
        ],
        "settings": table.settings.to_dict(),
        "deadline": deadline_payload(table),
        "placement": placement_payload(table),
        "next_pressed": sorted(table.next_pressed),
        "rematch_votes": sorted(table.rematch_votes),
        "hints_used": {s.key: n for s, n in table.hints_used.items()},
    }


def _ranked_seat(table: Table, seat: Seat, names: dict[str, Member]) -> dict[str, Any]:
    """A ranked table's seat: its player's username, and their displayed rating and provisional
    flag as the game was made (nothing at other tables)."""
    shown = table.ratings.get(seat)
    if shown is None:
        return {}
    occupant = table.seats.get(seat)
    member = names.get(occupant.mid) if isinstance(occupant, Person) else None
    return {
        "username": member.name if member is not None else None,
        "bot": member is not None and is_bot(member.device),
        "rating": shown.rating,
        "provisional": shown.provisional,
    }


def deadline_payload(table: Table) -> dict[str, Any] | None:
    """The table's next deadline (server time), or None."""
    deadline = table.next_deadline()
    return None if deadline is None else {"kind": str(deadline.kind), "at": deadline.at}


def placement_payload(table: Table) -> dict[str, list[list[float]]]:
    """The shooter's free stretches of the shooting line (degrees), when a disc is to be placed."""
    game = table.game
    if table.stage != "playing" or game is None or game.current_seat is None:
        return {}
    seat = game.current_seat
    return {seat.key: [[lo, hi] for lo, hi in game.placement_intervals(seat)]}


def view(table: Table, device: str | None, now: float) -> dict[str, Any]:
    """The whole table as the viewer with ``device`` sees it (the ``table`` message's ``view``).

    Device tokens are never part of it: members are named by their ids.
    """
    return {
        "table": table.id,
        "kind": table.kind,
        "ranked": table.kind == "ranked",
        "code": table.code,
        "invite": None if table.code is None or table.kind == "ranked" else f"/join/{table.code}",
        "watch": None if table.code is None else f"/watch/{table.code}",
        **lobby_parts(table, device),
        "server_time": now,
        "game_number": table.game_number,
        "game": _shared_game(table),
        "aborted": aborted_payload(table),
        "reactions": list(REACTIONS),
        "event_link": event_payload(table),
    }


def event_payload(table: Table) -> dict[str, Any] | None:
    """Where an event's table stands in its event, or None (not an event's table).

    ``{"id", "name", "stage", "round", "table", "game", "best_of", "label", "page"}``;
    ``label`` is what the client shows (``Tuesday league · Round 2 · Table 3``).
    """
    link = table.event
    if link is None:
        return None
    return {
        "id": link.event_id,
        "name": link.name,
        "stage": link.stage,
        "round": link.round,
        "table": link.table,
        "game": link.game,
        "best_of": link.best_of,
        "rated": link.rated,
        "label": link.label,
        "page": f"/events/{link.event_id}",
    }


def aborted_payload(table: Table) -> dict[str, Any] | None:
    """Why the table's last game was aborted, in words (a ranked no-show), or None.

    ``{"reason": "no_show", "seat", "name", "message"}``.
    """
    seat = table.no_show
    if seat is None:
        return None
    name = table.occupant_name(seat)
    message = (
        f"{name} ({seat.key}) did not take a first shot within the first turn's "
        "clock: the game is aborted and not rated, nobody's rating changes"
    )
    if table.event is not None:
        message = (
            f"{name} ({seat.key}) did not take a first shot within the first turn's "
            "clock: the game is aborted and they lose it by forfeit"
        )
    return {"reason": "no_show", "seat": seat.key, "name": name, "message": message}


def table_message(table: Table, device: str | None, now: float) -> dict[str, Any]:
    """The ``table`` message: the full view at the table's version."""
    return message("table", table.id, table.version, view=view(table, device, now))


def lobby_parts(table: Table, device: str | None) -> dict[str, Any]:
    """What every event message carries besides its event: who is where, the
    deadline and the placement, and who the viewer is (``you``).

    The client copies these over its state, so it is right after every
    message whatever it missed in between.  All but ``you`` is made once
    per table version for all its viewers.
    """
    return {**_lobby_shared(table), "you": you_payload(table, device)}


def _lobby_shared(table: Table) -> dict[str, Any]:
    """:func:`_lobby_common`, made once per table version for all its viewers."""
    common = _SHARED.get_or_make((table.id, table.version, "lobby"), lambda: _lobby_common(table))
    return common or {}


# ----------------------------------------------------------------- events


def shot_payload(shot: Shot | None) -> dict[str, float] | None:
    """A shot as messages carry it (None: no shot)."""
    if shot is None:
        return None
    return {
        "position": float(shot.position),
        "direction": float(shot.direction),
        "power": float(shot.power),
    }


def _turns(before: Table, after: Table, events: Sequence[Event]) -> dict[int, Played]:
    """The shots and timeouts among ``events`` (by index), each with its report.

    The owner's table keeps them from the command that made them
    (``report_of``); only when it does not (a table loaded from the store)
    are they replayed from ``before`` (a replayed shot is simulated again).
    """
    wanted = [i for i, e in enumerate(events) if isinstance(e, ShotPlayed | TurnTimedOut)]
    found = {i: p for i in wanted if (p := after.report_of(events[i].version)) is not None}
    if len(found) == len(wanted):
        return found
    return {**replay_turns(before, events), **found}


def replay_turns(before: Table, events: Sequence[Event]) -> dict[int, Played]:
    """The shots and timeouts among ``events`` (by index), replayed from ``before``.

    Each shot is simulated again (deterministic): run it off the event loop
    when there are many.
    """
    found: dict[int, Played] = {}
    state = before
    for index, event in enumerate(events):
        if event.version != state.version + 1:
            break
        state = state.fold(event)
        if isinstance(event, ShotPlayed | TurnTimedOut) and state.last_report is not None:
            found[index] = state.last_report
    return found


#: The parts of an event's messages that every viewer is sent alike, made once per
#: table version: a shot's report, trajectory and game snapshot, and the lobby, are
#: the same for each player and spectator of a table, so the first viewer's
#: rendering is kept (by table, version and part) for the others.
_SHARED: LruCache[tuple[str, int, str], dict[str, Any] | None] = LruCache(512)


def _turn_fields(table: Table, version: int, turn: Played) -> dict[str, Any]:
    def make() -> dict[str, Any]:
        before = turn.before
        report = turn.report
        owners = [o.key for o in report.owners]
        return {
            "report": report_payload(report, before),
            "trajectory": trajectory_payload(report.physics, list(report.ids), owners),
            "game": game_view(table, turn.after),
        }

    return dict(_SHARED.get_or_make((table.id, version, "turn"), make) or {})


def _shared_game(table: Table) -> dict[str, Any] | None:
    """The game snapshot of ``table``, made once per table version for all its viewers."""
    return _SHARED.get_or_make((table.id, table.version, "game"), lambda: game_view(table))


def event_messages(
    before: Table,
    after: Table,
    events: Sequence[Event],
    device: str | None,
    now: float,
    *,
    turns: dict[int, Played] | None = None,
) -> list[dict[str, Any]]:
    """The messages of ``events`` for the viewer with ``device``.

    Args:
        before: the table as this viewer was last sent it (the version
            just before the first event).
        after: the table after the events (as published).
        events: the new events, in order, without gaps.
        device: the viewer's device token (never sent).
        now: server time.
        turns: the events' shots and timeouts if the caller replayed them
            already (:func:`replay_turns`).

    Each message has the event's version as ``event``, and carries the
    lobby, deadline and placement of ``after`` (:func:`lobby_parts`) and the
    server time.  A ``finished`` message's ``record`` is left for the
    caller to fill in (it is the viewer's, read from the store).
    :func:`event_texts` sends the same messages, encoded.
    """
    if turns is None:
        turns = _turns(before, after, events)
    parts = lobby_parts(after, device)
    out: list[dict[str, Any]] = []
    for index, event in enumerate(events):
        found = _message_of(after, event, turns.get(index), device, now, parts=parts)
        if found is not None:
            out.append(found)
    return out


#: A message as :func:`event_texts` gives it: its text, or (a ``finished``, which
#: the caller completes with the viewer's record) the message itself.
Rendered = str | dict[str, Any]

#: The text every viewer is sent alike of each event's message, by table, table
#: version and event: all of it up to the viewer's ``you`` (None: an event sent to nobody).
_HEADS: LruCache[tuple[str, int, int], str | None] = LruCache(512)
#: The encoded lobby every viewer is sent alike (:func:`_lobby_common`), by table and version.
_LOBBIES: LruCache[tuple[str, int], str] = LruCache(512)


def event_texts(
    before: Table,
    after: Table,
    events: Sequence[Event],
    device: str | None,
    now: float,
    *,
    turns: dict[int, Played] | None = None,
) -> list[Rendered]:
    """The messages of :func:`event_messages` (same arguments), as the texts sent.

    Each text is what :func:`~crokinole.server.protocol.encode` makes of
    the message, but made of parts: a message is the same for every viewer
    of the table but for the end of its ``lobby`` (the viewer's ``you``) and
    its ``server_time``, the last two of its fields.  So all of it up to
    ``you`` is encoded once per event and table version, by the first
    viewer sent it, and each viewer's text is that with their ``you`` and
    the server time put after it.  A ``game_started``, whose whole view has
    the viewer's ``you`` inside it, is encoded for each viewer; a
    ``finished`` stays the message, for the caller to complete with the
    viewer's record.  The shots are replayed (``turns``) only if a message
    is not encoded yet.

    >>> import json
    >>> from crokinole.table import Shoot, TableSettings, Timings
    >>> from crokinole.board import Shot
    >>> solo, _ = Table.create(
    ...     id="f" * 32, kind="solo", code=None, host_device="dev", host_name="Ann",
    ...     settings=TableSettings.from_dict({"layout": "singles", "hand": "steady"}),
    ...     timings=Timings(), seed=7, now=5.0, seats={Seat.SOUTH: "me", Seat.NORTH: "hard"})
    >>> after, events = solo.apply(Shoot("dev", Seat.SOUTH, Shot(0.0, 0.0, 30.0)), 6.0)
    >>> texts = event_texts(solo, after, events, "dev", 6.5)
    >>> [json.loads(t) for t in texts] == event_messages(solo, after, events, "dev", 6.5)
    True
    """
    found = turns

    def turn(index: int) -> Played | None:
        nonlocal found
        if found is None:
            found = _turns(before, after, events)
        return found.get(index)

    end = f'{encode(you_payload(after, device))}}},"server_time":{encode(now)}}}'
    out: list[Rendered] = []
    for index, event in enumerate(events):
        if isinstance(event, GameStarted | GameFinished):
            parts = lobby_parts(after, device)
            plain = _message_of(after, event, turn(index), device, now, parts=parts)
            if plain is not None:
                out.append(plain if isinstance(event, GameFinished) else encode(plain))
            continue
        key = (after.id, after.version, event.version)
        head = _HEADS.get_or_make(key, functools.partial(_head, after, event, turn, index))
        if head is not None:
            out.append(head + end)
    return out


def _head(
    table: Table, event: Event, turn: Callable[[int], Played | None], index: int
) -> str | None:
    """The text of ``event``'s message up to the viewer's ``you`` (:func:`event_texts`)."""
    fields = _event_fields(table, event, turn(index))
    if fields is None:
        return None
    kind = fields.pop("type")
    lobby = _LOBBIES.get_or_make((table.id, table.version), lambda: encode(_lobby_shared(table)))
    base = encode(message(kind, table.id, event.version, **fields))
    # Both are objects with fields: each loses its closing brace, for the
    # viewer's ``you`` to end the lobby and the server time the message.
    return f'{base[:-1]},"lobby":{lobby[:-1]},"you":'


def _message_of(
    table: Table,
    event: Event,
    turn: Played | None,
    device: str | None,
    now: float,
    *,
    parts: dict[str, Any],
) -> dict[str, Any] | None:
    """The message of one event for the viewer with ``device`` (None for an event sent to
    nobody), with ``parts`` (:func:`lobby_parts`) as its ``lobby``."""
    if isinstance(event, GameStarted):
        fields: dict[str, Any] | None = {"type": "game_started", "view": view(table, device, now)}
    else:
        fields = _event_fields(table, event, turn)
    if fields is None:
        return None
    kind = fields.pop("type")
    return message(kind, table.id, event.version, **fields, lobby=parts, server_time=now)


def _event_fields(table: Table, event: Event, turn: Played | None) -> dict[str, Any] | None:
    """The message fields of one event (``type`` included) but a ``game_started``'s, alike for
    every viewer; None for an event sent to nobody."""
    if isinstance(event, ShotPlayed):
        return _shot_fields(table, event, turn)
    if isinstance(event, TurnTimedOut):
        return _timeout_fields(table, event, turn)
    fields = _FIELDS.get(type(event))
    # None for TableCreated: its creator is sent the whole table.
    return None if fields is None else fields(table, event)


def _shot_fields(table: Table, event: ShotPlayed, turn: Played | None) -> dict[str, Any]:
    shot = {"type": "shot", "seat": event.seat.key, "by": str(event.by),
            "aimed": shot_payload(event.aimed), "played": shot_payload(event.played)}  # fmt: skip
    if turn is None:
        return {**shot, "report": None, "trajectory": None, "game": game_view(table)}
    return {**shot, **_turn_fields(table, event.version, turn)}


def _timeout_fields(table: Table, event: TurnTimedOut, turn: Played | None) -> dict[str, Any]:
    fields: dict[str, Any] = {"report": None, "game": game_view(table)}
    if turn is not None:
        fields = _turn_fields(table, event.version, turn)
        del fields["trajectory"]
    return {"type": "timeout", "seat": event.seat.key, "reason": str(event.reason), **fields}


def _member_left(table: Table, event: MemberLeft) -> dict[str, Any]:
    change = "removed" if event.removed else "left"
    return {"type": "member", "change": change, "member": event.mid}


def _finished(table: Table, event: GameFinished) -> dict[str, Any]:
    return {"type": "finished", "winner": event.winner, "drawn": list(event.drawn),
            "abandoned": event.abandoned, "aborted": aborted_payload(table),
            "game": _shared_game(table), "record": None}  # fmt: skip


#: The message fields of each other kind of event, from the table after it and the event.
_FIELDS: dict[type[Event], Callable[[Table, Any], dict[str, Any]]] = {
    MemberJoined: lambda _, e: {"type": "member", "change": "joined", "member": e.mid,
                                "name": e.name, "spectator": e.spectator,
                                "bot": is_bot(e.device)},
    MemberLeft: _member_left,
    Renamed: lambda _, e: {"type": "member", "change": "renamed", "member": e.mid,
                           "name": e.name},
    HostChanged: lambda _, e: {"type": "member", "change": "host", "member": e.mid},
    SeatChanged: lambda _, e: {"type": "seat", "seat": e.seat.key},
    SettingsChanged: lambda t, _: {"type": "settings", "settings": t.settings.to_dict()},
    Presence: lambda _, e: {"type": "presence", "member": e.mid, "connected": e.connected},
    StandInOn: lambda _, e: {"type": "stand_in", "seat": e.seat.key, "on": True},
    StandInOff: lambda _, e: {"type": "stand_in", "seat": e.seat.key, "on": False},
    NextPressed: lambda _, e: {"type": "next_pressed", "member": e.mid},
    RoundStarted: lambda t, e: {"type": "round", "round": e.round, "game": _shared_game(t)},
    GameAborted: lambda t, e: {"type": "aborted",
                               **(aborted_payload(t) or {"reason": str(e.reason)})},
    GameFinished: _finished,
    RematchVoted: lambda _, e: {"type": "rematch_vote", "member": e.mid},
    RematchOffered: lambda _, e: {"type": "rematch_offer", "member": e.mid, "until": e.until},
    RematchDeclined: lambda _, e: {"type": "rematch_declined", "member": e.mid},
    RematchLapsed: lambda _, e: {"type": "rematch_lapsed"},
    Reacted: lambda _, e: {"type": "reaction", "member": e.mid, "reaction": e.reaction},
    HintTaken: lambda _, e: {"type": "hint_taken", "member": e.member, "seat": e.seat.key,
                             "kind": e.kind},
    Closed: lambda _, e: {"type": "closed", "reason": str(e.reason)},
}  # fmt: skip
