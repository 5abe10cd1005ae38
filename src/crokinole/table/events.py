"""What happened at a table: one frozen value per domain event.

Every event carries ``version`` (1, 2, 3… with no gaps: the event log's
key) and ``at`` (server time, seconds).  Events are what the store keeps;
a table is the fold of its events (:meth:`crokinole.table.Table.replay`).
``MemberJoined`` and ``TableCreated`` hold device tokens: they are for the
store, never for a view.

>>> event = ShotPlayed(version=5, at=12.5, seat=Seat.SOUTH, aimed=None,
...                    played=Shot(0.0, 1.5, 30.0), by="person")
>>> event.to_dict()["played"]
{'position': 0.0, 'direction': 1.5, 'power': 30.0}
>>> event_from_dict(event.to_dict()) == event
True
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any, ClassVar, TypeVar, dataclass_transform

from crokinole.board import Seat, Shot
from crokinole.errors import CrokinoleError, InvalidRecordError, UnknownSeatError
from crokinole.table.event_link import EventLink
from crokinole.table.members import Occupant, occupant_from_dict, occupant_to_dict
from crokinole.table.settings import Kind, TableSettings, Timings

__all__ = [
    "EVENT_TYPES",
    "Closed",
    "Event",
    "EventLinked",
    "GameAborted",
    "GameFinished",
    "GameStarted",
    "HintTaken",
    "HostChanged",
    "MemberJoined",
    "MemberLeft",
    "NextPressed",
    "Presence",
    "RankedSeated",
    "Reacted",
    "RematchDeclined",
    "RematchLapsed",
    "RematchOffered",
    "RematchVoted",
    "Renamed",
    "RoundStarted",
    "SeatChanged",
    "SeatNamed",
    "SettingsChanged",
    "ShotPlayed",
    "StandInOff",
    "StandInOn",
    "TableCreated",
    "TurnTimedOut",
    "event_from_dict",
    "seat_from_name",
    "shot_from_dict",
    "shot_to_dict",
]


def shot_to_dict(shot: Shot) -> dict[str, float]:
    """``{"position", "direction", "power"}`` as floats."""
    return {
        "position": float(shot.position),
        "direction": float(shot.direction),
        "power": float(shot.power),
    }


def shot_from_dict(data: object) -> Shot:
    """Inverse of :func:`shot_to_dict`."""
    if not isinstance(data, dict) or set(data) != {"position", "direction", "power"}:
        raise InvalidRecordError(f"a shot is {{position, direction, power}}, not {data!r}")
    return Shot(float(data["position"]), float(data["direction"]), float(data["power"]))


def seat_from_name(name: object) -> Seat:
    """``"south"`` → ``Seat.SOUTH`` (:meth:`Seat.parse`, refused as a bad record)."""
    try:
        return Seat.parse(name)
    except UnknownSeatError:
        raise InvalidRecordError(f"a seat is south, west, north or east, not {name!r}") from None


_E = TypeVar("_E", bound="Event")


@dataclass_transform(frozen_default=True, kw_only_default=True)
def _event(type_name: str) -> Callable[[type[_E]], type[_E]]:
    """An event class: a frozen, keyword-only dataclass whose ``TYPE`` is ``type_name``."""

    def make(cls: type[_E]) -> type[_E]:
        cls.TYPE = type_name
        return dataclass(frozen=True, slots=True, kw_only=True)(cls)

    return make


@dataclass(frozen=True, slots=True, kw_only=True)
class Event:
    """Base of the events: the version it makes the table, and when."""

    TYPE: ClassVar[str] = ""

    version: int
    at: float

    def to_dict(self) -> dict[str, Any]:
        """``{"type", "version", "at", ...fields}``, JSON-safe."""
        out: dict[str, Any] = {"type": self.TYPE}
        for name in _field_names(type(self)):
            out[name] = _encode(name, getattr(self, name))
        return out


#: Each event class's field names, in order, as :func:`_field_names` found them.
_FIELD_NAMES: dict[type[Event], tuple[str, ...]] = {}


def _field_names(cls: type[Event]) -> tuple[str, ...]:
    """The names of an event class's fields, in order (looked up once a class)."""
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in fields(cls))
    return names


@_event("table_created")
class TableCreated(Event):
    """A table was made: the first event of every table."""

    table_id: str
    kind: Kind
    code: str | None
    settings: TableSettings
    timings: Timings
    seed: int
    host_device: str


@_event("member_joined")
class MemberJoined(Event):
    """A device joined as member ``mid``."""

    mid: str
    device: str
    name: str
    spectator: bool


@_event("member_left")
class MemberLeft(Event):
    """A member left (``removed``: the host removed them); their seat, if any, is empty."""

    mid: str
    removed: bool


@_event("renamed")
class Renamed(Event):
    """A member changed their name."""

    mid: str
    name: str


@_event("host_changed")
class HostChanged(Event):
    """The host is now ``mid`` (None: nobody)."""

    mid: str | None


@_event("seat_changed")
class SeatChanged(Event):
    """``seat`` is now held by ``occupant`` (None: empty)."""

    seat: Seat
    occupant: Occupant | None


@_event("seat_named")
class SeatNamed(Event):
    """On one device, the person who plays ``seat`` is called ``name`` (set at creation)."""

    seat: Seat
    name: str


@_event("settings_changed")
class SettingsChanged(Event):
    """New house rules; seats not in the new layout are gone (their people stay, unseated)."""

    settings: TableSettings


@_event("presence")
class Presence(Event):
    """A member's device connected or lost its connection."""

    mid: str
    connected: bool


@_event("game_started")
class GameStarted(Event):
    """Game ``game_number`` (from 1) started; ``first_seat`` shoots first."""

    game_number: int
    first_seat: Seat


@_event("shot_played")
class ShotPlayed(Event):
    """``seat`` shot ``played``.

    ``aimed`` is the shot the person aimed when the human hand changed it
    (None: played as aimed).  ``by`` is ``person``, ``cpu`` or ``standin``.
    """

    seat: Seat
    aimed: Shot | None
    played: Shot
    by: str


@_event("turn_timed_out")
class TurnTimedOut(Event):
    """``seat``'s disc went to the ditch unplayed (R3): ``clock`` ran out, or
    ``no_room`` to place it on the line."""

    seat: Seat
    reason: str


@_event("stand_in_on")
class StandInOn(Event):
    """A CPU plays for ``seat``'s missing person."""

    seat: Seat


@_event("stand_in_off")
class StandInOff(Event):
    """``seat``'s person plays again."""

    seat: Seat


@_event("next_pressed")
class NextPressed(Event):
    """Member ``mid`` is ready for the next round."""

    mid: str


@_event("round_started")
class RoundStarted(Event):
    """Round ``round`` (from 2) started."""

    round: int


@_event("game_finished")
class GameFinished(Event):
    """The game ended: ``winner`` side, or a draw among ``drawn``, or
    ``abandoned`` (resigned, or everyone left)."""

    winner: int | None
    drawn: tuple[int, ...]
    abandoned: bool


@_event("game_aborted")
class GameAborted(Event):
    """A ranked game stopped before it was played: ``seat``'s player did not
    shoot a first disc within its first turn clock (``reason`` ``no_show``).
    A ``GameFinished`` (abandoned) follows; the game is not rated."""

    seat: Seat
    reason: str


@_event("ranked_seated")
class RankedSeated(Event):
    """A ranked table shows the rating its seat's player had when the game was made."""

    seat: Seat
    rating: int
    provisional: bool


@_event("event_linked")
class EventLinked(Event):
    """A ranked table an event opened for a pairing: where it stands in the event."""

    link: EventLink


@_event("rematch_voted")
class RematchVoted(Event):
    """Member ``mid`` accepts the rematch offered (before offers: voted for one)."""

    mid: str


@_event("rematch_offered")
class RematchOffered(Event):
    """Member ``mid`` offers a rematch (and accepts it); it lapses at server time ``until``."""

    mid: str
    until: float


@_event("rematch_declined")
class RematchDeclined(Event):
    """Member ``mid`` declined the rematch offered: the offer is withdrawn."""

    mid: str


@_event("rematch_lapsed")
class RematchLapsed(Event):
    """The rematch offered was not accepted by everyone in time: it is withdrawn."""


@_event("reacted")
class Reacted(Event):
    """Member ``mid`` sent a quick reaction."""

    mid: str
    reaction: str


@_event("hint_taken")
class HintTaken(Event):
    """``member`` asked for help (``kind``: ``hint`` or ``heatmap``) on ``seat``'s turn."""

    member: str
    seat: Seat
    kind: str


@_event("closed")
class Closed(Event):
    """The table takes no more commands."""

    reason: str


#: Every event class by its ``TYPE``.
EVENT_TYPES: dict[str, type[Event]] = {
    cls.TYPE: cls
    for cls in (
        TableCreated,
        MemberJoined,
        MemberLeft,
        Renamed,
        HostChanged,
        SeatChanged,
        SeatNamed,
        SettingsChanged,
        Presence,
        GameStarted,
        ShotPlayed,
        TurnTimedOut,
        StandInOn,
        StandInOff,
        NextPressed,
        RoundStarted,
        GameFinished,
        GameAborted,
        RematchVoted,
        RematchOffered,
        RematchDeclined,
        RematchLapsed,
        Reacted,
        Closed,
        RankedSeated,
        HintTaken,
        EventLinked,
    )
}


def _encode(name: str, value: Any) -> Any:
    if name == "occupant":
        return occupant_to_dict(value)
    if isinstance(value, Seat):
        return value.key
    if isinstance(value, Shot):
        return shot_to_dict(value)
    if isinstance(value, TableSettings | Timings | EventLink):
        return value.to_dict()
    if isinstance(value, Kind):
        return value.value
    if isinstance(value, tuple):
        return list(value)
    return value


def _settings(data: object) -> TableSettings:
    # Stored settings were checked when they were chosen (a test clock included).
    return TableSettings.from_dict(data, allow_short_clock=True)


def _settings_of(kind: Kind) -> Callable[[Any], TableSettings]:
    """A reader of stored settings whose missing keys take ``kind``'s defaults."""
    return lambda data: TableSettings.from_dict(data, kind=kind, allow_short_clock=True)


_DECODE: dict[str, Callable[[Any], Any]] = {
    "seat": seat_from_name,
    "first_seat": seat_from_name,
    "aimed": lambda d: None if d is None else shot_from_dict(d),
    "played": shot_from_dict,
    "settings": _settings,
    "timings": Timings.from_dict,
    "occupant": occupant_from_dict,
    "drawn": tuple,
    "link": EventLink.from_dict,
}


def event_from_dict(data: object) -> Event:
    """The event written by :meth:`Event.to_dict`.

    Raises:
        InvalidRecordError: not an event of a known type with exactly its fields.
    """
    if not isinstance(data, dict):
        raise InvalidRecordError(f"an event is an object, not {type(data).__name__}")
    cls = EVENT_TYPES.get(data.get("type"))  # type: ignore[arg-type]
    if cls is None:
        raise InvalidRecordError(f"unknown event type {data.get('type')!r}")
    names = {f.name for f in fields(cls)}
    given = set(data) - {"type"}
    if given != names:
        raise InvalidRecordError(
            f"a {cls.TYPE} event has the fields {sorted(names)}, not {sorted(given)}"
        )
    version, at = data["version"], data["at"]
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise InvalidRecordError(f"an event's version is a whole number from 1, not {version!r}")
    if isinstance(at, bool) or not isinstance(at, int | float) or not math.isfinite(at):
        raise InvalidRecordError(f"an event's time is a number of seconds, not {at!r}")
    try:
        decode = _DECODE
        if cls is TableCreated:
            # Settings stored before a setting existed take its default for the table's kind.
            kind = Kind(data["kind"])
            decode = {**_DECODE, "kind": lambda _: kind, "settings": _settings_of(kind)}
        values = {k: decode[k](v) if k in decode else v for k, v in data.items() if k != "type"}
        return cls(**values)
    except (CrokinoleError, TypeError, ValueError) as exc:
        raise InvalidRecordError(f"a bad {cls.TYPE} event: {exc}") from None
