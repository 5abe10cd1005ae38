"""Protocol version 2 (docs/protocol.md): typed client messages, and each viewer's messages.

Client messages are strict pydantic models, one per ``type``; anything that
does not parse is answered with an ``error`` naming the field, and changes
nothing.  Server messages are built here from the pure table
(:mod:`crokinole.table`): :func:`view` is the whole table as one viewer sees
it, and :func:`event_messages` turns a batch of domain events into that
viewer's messages.  A viewer is known by its device token, which is a
secret: no message ever carries one (members are named by their public id,
``"m1"``, ``"m2"``…).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from crokinole.ai import Level
from crokinole.board import Seat, Shot
from crokinole.rules import Game
from crokinole.server.json_input import JsonInputError, read_json
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

PROTOCOL_VERSION = 2
MAX_MESSAGE_BYTES = 16 * 1024
TOKEN_PATTERN = r"^[A-Za-z0-9_-]{16,64}$"
TABLE_PATTERN = r"^[a-f0-9]{32}$"
MEMBER_PATTERN = r"^m[0-9]{1,6}$"

#: Party codes: easy to read aloud, no 0/O or 1/I/l (contract 4).
CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
CODE_LENGTH = 6

SeatName = Literal["south", "west", "north", "east"]
LEVEL_IDS: tuple[str, ...] = tuple(level.value for level in Level)


def levels_payload() -> list[dict[str, str]]:
    """``welcome.levels``: every CPU level, weakest first, with its display name.

    >>> levels_payload()[0]
    {'id': 'easy', 'name': 'Easy'}
    """
    return [{"id": level.value, "name": level.label} for level in Level]


def normal_code(text: str) -> str:
    """A party code as typed (any case, spaces or dashes) in the form the server keeps.

    >>> normal_code(" abc-234 ")
    'ABC234'
    """
    return "".join(ch for ch in text.upper() if ch not in " -")


def _level(value: str) -> str:
    if value not in LEVEL_IDS:
        raise ValueError(f"{value!r} is not a CPU level (choose one of {', '.join(LEVEL_IDS)})")
    return value


def _seat_holder(value: str) -> str:
    if value != "me" and value not in LEVEL_IDS:
        choices = ", ".join(["me", *LEVEL_IDS])
        raise ValueError(f"{value!r} is neither you nor a CPU level (choose one of {choices})")
    return value


LevelId = Annotated[str, AfterValidator(_level)]
SeatHolder = Annotated[str, AfterValidator(_seat_holder)]
TableId = Annotated[str, Field(pattern=TABLE_PATTERN)]
MemberId = Annotated[str, Field(pattern=MEMBER_PATTERN)]
#: Names are checked by the table (``bad_name``: 1–24 characters, plain text),
#: reactions too (``unknown_reaction``); the 16 KiB message limit bounds them.
Name = str


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class Hello(_Message):
    type: Literal["hello"]
    token: Annotated[str, Field(pattern=TOKEN_PATTERN)]
    table: TableId | None = None
    last_event: Annotated[int, Field(ge=0)] | None = None


class Create(_Message):
    type: Literal["create"]
    kind: Literal["solo", "party"]
    #: TableSettings fields; the table validates them (``bad_settings``).
    settings: dict[str, Any]
    name: Name
    seats: dict[SeatName, SeatHolder] | None = None
    #: solo only: the names of the people sharing the device, by seat (optional).
    names: dict[SeatName, Name] | None = None


class Join(_Message):
    type: Literal["join"]
    code: Annotated[str, Field(min_length=1, max_length=32)]
    name: Name
    spectator: bool = False


class Open(_Message):
    type: Literal["open"]
    table: TableId
    last_event: Annotated[int, Field(ge=0)] | None = None


class TakeSeat(_Message):
    type: Literal["take_seat"]
    table: TableId
    seat: SeatName | None


class Move(_Message):
    type: Literal["move"]
    table: TableId
    member: MemberId
    seat: SeatName | None


class SetCpu(_Message):
    type: Literal["set_cpu"]
    table: TableId
    seat: SeatName
    level: LevelId | None


class Remove(_Message):
    type: Literal["remove"]
    table: TableId
    member: MemberId


class Settings(_Message):
    type: Literal["settings"]
    table: TableId
    settings: dict[str, Any]


class ShootMessage(_Message):
    type: Literal["shoot"]
    table: TableId
    seat: SeatName
    position: float
    direction: float
    power: float


class TableAction(_Message):
    """A message with nothing but its table: what to do is its type."""

    type: Literal["start", "next_round", "rematch", "decline_rematch", "leave", "resign"]
    table: TableId


class Rename(_Message):
    type: Literal["rename"]
    table: TableId
    name: Name


class React(_Message):
    type: Literal["react"]
    table: TableId
    reaction: str


class Hint(_Message):
    """Ask for the best shots of this turn (counted: ``hint_taken``); answered by ``hints``."""

    type: Literal["hint"]
    table: TableId
    seat: SeatName


#: What a heat map's cells show: the expected round margin after the shot,
#: the chance of a 20, or the chance of a valid shot (R4).
HeatMetric = Literal["points", "twenty", "valid"]
#: Whose accuracy a heat map is drawn under: the table's hand (steady or
#: human), a CPU level's, or the player's own (fitted from their open-20 drills).
HeatAccuracy = Literal["hand", "easy", "normal", "hard", "expert", "mine"]


class Heatmap(_Message):
    """Ask for a heat map of one placement (counted as a hint); answered by ``heatmap``."""

    type: Literal["heatmap"]
    table: TableId
    seat: SeatName
    #: The placement on the shooting line (R3: degrees, as a shot's ``position``).
    position: float
    metric: HeatMetric = "points"
    accuracy: HeatAccuracy = "hand"


class Ping(_Message):
    type: Literal["ping"]


class Queue(_Message):
    """Wait for a ranked game; the ladder is checked by the queue (``bad_ladder``)."""

    type: Literal["queue"]
    ladder: Annotated[str, Field(max_length=32)]
    #: Doubles only: the username of the partner to queue with as a team (who names you too).
    partner: Annotated[str, Field(max_length=64)] | None = None


class LeaveQueue(_Message):
    type: Literal["leave_queue"]


#: The messages about one table (each has ``table``).
TableMessage = (
    TakeSeat | Move | SetCpu | Remove | Settings | ShootMessage | TableAction | Rename | React
)
ClientMessage = (
    Hello
    | Create
    | Join
    | Open
    | TakeSeat
    | Move
    | SetCpu
    | Remove
    | Settings
    | ShootMessage
    | TableAction
    | Rename
    | React
    | Hint
    | Heatmap
    | Ping
    | Queue
    | LeaveQueue
)
_ADAPTER: TypeAdapter[ClientMessage] = TypeAdapter(
    Annotated[ClientMessage, Field(discriminator="type")]
)
MESSAGE_TYPES = frozenset(
    {
        "hello", "create", "join", "open", "take_seat", "move", "set_cpu", "remove",
        "settings", "shoot", "start", "next_round", "rematch", "decline_rematch", "leave",
        "resign",
        "rename", "react", "hint", "heatmap", "ping", "queue", "leave_queue",
    }
)  # fmt: skip


class WireError(Exception):
    """A message that cannot be accepted; ``code`` is the protocol's error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def parse_message(text: str | bytes) -> ClientMessage:
    """Parse and validate one client message.

    Raises:
        WireError: too large (``too_large``), not JSON (``bad_json``), or not
            a valid message (``bad_message``, naming the field).

    >>> parse_message('{"type": "start", "table": "' + "a" * 32 + '"}').type
    'start'
    >>> parse_message('{"type": "start", "table": "ABC"}')  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    crokinole.server.ws.wire.WireError: start: table: String should match pattern ...
    """
    size = len(text.encode("utf-8", errors="replace")) if isinstance(text, str) else len(text)
    if size > MAX_MESSAGE_BYTES:
        raise WireError("too_large", f"messages are limited to {MAX_MESSAGE_BYTES} bytes")
    try:
        data = read_json(text)
    except JsonInputError as exc:
        # Text that is not JSON is bad_json; JSON the server will not take
        # (a 5,000-digit number, deep nesting, NaN) is a bad message.
        code = "bad_json" if exc.kind == "syntax" else "bad_message"
        raise WireError(code, str(exc)) from None
    if not isinstance(data, dict):
        raise WireError("bad_message", "a message is a JSON object with a 'type'")
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in MESSAGE_TYPES:
        raise WireError("bad_message", f"unknown message type {kind!r}")
    try:
        return _ADAPTER.validate_python(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"][1:]) or "message"
        raise WireError("bad_message", f"{kind}: {where}: {first['msg']}") from None


def seat_of(name: str) -> Seat:
    """``"south"`` → ``Seat.SOUTH``."""
    return Seat[name.upper()]


def seat_name(seat: Seat) -> str:
    """``Seat.SOUTH`` → ``"south"``."""
    return seat.name.lower()


def shot_of(message: ShootMessage) -> Shot:
    """The rules engine's shot for a ``shoot`` message."""
    return Shot(message.position, message.direction, message.power)


def message(kind: str, table: str | None, event: int, /, **fields: Any) -> dict[str, Any]:
    """A server message: its type, its table (or None) and the table's version."""
    return {"type": kind, "table": table, "event": event, **fields}


# ----------------------------------------------------------------- the view


def _layout_seats(table: Table) -> list[tuple[Seat, int]]:
    """The seats of the table's layout with their sides, in the layout's order."""
    return [
        (seat, side) for side, seats in enumerate(table.settings.layout.sides) for seat in seats
    ]


def _seats_of_members(table: Table) -> dict[str, list[Seat]]:
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
            shown[seat_name(seat)] = cpu_name(str(occupant.level))
        elif isinstance(occupant, Person):
            many = len(held.get(occupant.mid, ())) > 1
            name = table.seat_names.get(seat) or (
                seat.name.title() if many else names.get(occupant.mid, seat.name.title())
            )
            if shared and name.casefold() == UNNAMED:
                name = seat.name.title()
            shown[seat_name(seat)] = name
    return shown


def _cpu_levels(table: Table) -> dict[str, str]:
    return {
        seat_name(seat): str(occupant.level)
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
        "seats": [seat_name(s) for s in _seats_of_members(table).get(member.mid, [])],
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
                "spectator": m.spectator,
                "connected": m.connected,
                "seat": seat_name(held[m.mid][0]) if m.mid in held else None,
                "seats": [seat_name(s) for s in held.get(m.mid, [])],
                "host": table.host == m.mid,
            }
            for m in table.members
        ],
        "spectators": sum(1 for m in table.members if m.spectator),
        "seats": [
            {
                "seat": seat_name(seat),
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
        "hints_used": {seat_name(s): n for s, n in table.hints_used.items()},
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
    return {seat_name(seat): [[lo, hi] for lo, hi in game.placement_intervals(seat)]}


def view(table: Table, device: str | None, now: float) -> dict[str, Any]:
    """The whole table as the viewer with ``device`` sees it (the ``table`` message's ``view``).

    Device tokens are never part of it: members are named by their ids.
    """
    return {
        "table": table.id,
        "kind": table.kind,
        "ranked": table.kind == "ranked",
        "code": table.code,
        "invite": None if table.code is None else f"/join/{table.code}",
        "watch": None if table.code is None else f"/watch/{table.code}",
        **lobby_parts(table, device),
        "server_time": now,
        "game_number": table.game_number,
        "game": _shared_game(table),
        "aborted": aborted_payload(table),
        "reactions": list(REACTIONS),
    }


def aborted_payload(table: Table) -> dict[str, Any] | None:
    """Why the table's last game was aborted, in words (a ranked no-show), or None.

    ``{"reason": "no_show", "seat", "name", "message"}``.
    """
    seat = table.no_show
    if seat is None:
        return None
    name = table.occupant_name(seat)
    return {
        "reason": "no_show",
        "seat": seat_name(seat),
        "name": name,
        "message": (
            f"{name} ({seat_name(seat)}) did not take a first shot within the first turn's "
            "clock: the game is aborted and not rated, nobody's rating changes"
        ),
    }


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
    common = _SHARED.get((table.id, table.version, "lobby"), lambda: _lobby_common(table))
    return {**(common or {}), "you": you_payload(table, device)}


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


class _Shared:
    """Parts of an event's messages that every viewer is sent alike, made once per event.

    A shot's report, trajectory and game snapshot are the same for each
    player and spectator of a table: the first viewer's rendering is kept
    (by table and version) for the others.  Bounded: the oldest go first.
    """

    def __init__(self, size: int = 512) -> None:
        self._size = size
        self._items: OrderedDict[tuple[str, int, str], dict[str, Any] | None] = OrderedDict()

    def get(
        self, key: tuple[str, int, str], make: Callable[[], dict[str, Any] | None]
    ) -> dict[str, Any] | None:
        if key in self._items:
            return self._items[key]
        value = make()
        self._items[key] = value
        if len(self._items) > self._size:
            self._items.popitem(last=False)
        return value


_SHARED = _Shared()


def _turn_fields(table: Table, version: int, turn: Played) -> dict[str, Any]:
    def make() -> dict[str, Any]:
        before = turn.before
        report = turn.report
        owners = [seat_name(o) for o in report.owners]
        return {
            "report": report_payload(report, before),
            "trajectory": trajectory_payload(report.physics, list(report.ids), owners),
            "game": game_view(table, turn.after),
        }

    return dict(_SHARED.get((table.id, version, "turn"), make) or {})


def _shared_game(table: Table) -> dict[str, Any] | None:
    """The game snapshot of ``table``, made once per table version for all its viewers."""
    return _SHARED.get((table.id, table.version, "game"), lambda: game_view(table))


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
    """
    if turns is None:
        turns = _turns(before, after, events)
    parts = lobby_parts(after, device)
    out: list[dict[str, Any]] = []
    for index, event in enumerate(events):
        fields = _event_fields(after, event, turns.get(index), device, now)
        if fields is None:
            continue
        kind = fields.pop("type")
        out.append(message(kind, after.id, event.version, **fields, lobby=parts, server_time=now))
    return out


def _event_fields(
    table: Table, event: Event, turn: Played | None, device: str | None, now: float
) -> dict[str, Any] | None:
    """The message fields of one event (``type`` included), or None for an event sent to nobody."""
    if isinstance(event, ShotPlayed):
        if turn is None:
            return {"type": "shot", "seat": seat_name(event.seat), "by": str(event.by),
                    "aimed": shot_payload(event.aimed), "played": shot_payload(event.played),
                    "report": None, "trajectory": None, "game": game_view(table)}  # fmt: skip
        return {
            "type": "shot",
            "seat": seat_name(event.seat),
            "by": str(event.by),
            "aimed": shot_payload(event.aimed),
            "played": shot_payload(event.played),
            **_turn_fields(table, event.version, turn),
        }
    if isinstance(event, TurnTimedOut):
        fields: dict[str, Any] = {"report": None, "game": game_view(table)}
        if turn is not None:
            fields = _turn_fields(table, event.version, turn)
            del fields["trajectory"]
        return {"type": "timeout", "seat": seat_name(event.seat), "reason": str(event.reason),
                **fields}  # fmt: skip
    if isinstance(event, MemberJoined):
        return {"type": "member", "change": "joined", "member": event.mid, "name": event.name,
                "spectator": event.spectator}  # fmt: skip
    if isinstance(event, MemberLeft):
        change = "removed" if event.removed else "left"
        return {"type": "member", "change": change, "member": event.mid}
    if isinstance(event, Renamed):
        return {"type": "member", "change": "renamed", "member": event.mid, "name": event.name}
    if isinstance(event, HostChanged):
        return {"type": "member", "change": "host", "member": event.mid}
    if isinstance(event, SeatChanged):
        return {"type": "seat", "seat": seat_name(event.seat)}
    if isinstance(event, SettingsChanged):
        return {"type": "settings", "settings": table.settings.to_dict()}
    if isinstance(event, Presence):
        return {"type": "presence", "member": event.mid, "connected": event.connected}
    if isinstance(event, GameStarted):
        return {"type": "game_started", "view": view(table, device, now)}
    if isinstance(event, StandInOn | StandInOff):
        return {"type": "stand_in", "seat": seat_name(event.seat),
                "on": isinstance(event, StandInOn)}  # fmt: skip
    if isinstance(event, NextPressed):
        return {"type": "next_pressed", "member": event.mid}
    if isinstance(event, RoundStarted):
        return {"type": "round", "round": event.round, "game": _shared_game(table)}
    if isinstance(event, GameAborted):
        return {"type": "aborted", **(aborted_payload(table) or {"reason": str(event.reason)})}
    if isinstance(event, GameFinished):
        return {"type": "finished", "winner": event.winner, "drawn": list(event.drawn),
                "abandoned": event.abandoned, "aborted": aborted_payload(table),
                "game": _shared_game(table), "record": None}  # fmt: skip
    if isinstance(event, RematchVoted):
        return {"type": "rematch_vote", "member": event.mid}
    if isinstance(event, RematchOffered):
        return {"type": "rematch_offer", "member": event.mid, "until": event.until}
    if isinstance(event, RematchDeclined):
        return {"type": "rematch_declined", "member": event.mid}
    if isinstance(event, RematchLapsed):
        return {"type": "rematch_lapsed"}
    if isinstance(event, Reacted):
        return {"type": "reaction", "member": event.mid, "reaction": event.reaction}
    if isinstance(event, HintTaken):
        return {"type": "hint_taken", "member": event.member, "seat": seat_name(event.seat),
                "kind": event.kind}  # fmt: skip
    if isinstance(event, Closed):
        return {"type": "closed", "reason": str(event.reason)}
    return None  # TableCreated: its creator is sent the whole table
