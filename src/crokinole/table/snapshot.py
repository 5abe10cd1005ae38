"""A table's snapshot: the whole value as JSON-ready data, and back.

The store keeps a snapshot beside the event log so that loading a table
does not replay every event (:meth:`crokinole.table.Table.to_dict` and
:meth:`~crokinole.table.Table.from_dict` call these).  A snapshot holds
device tokens: it is for the store, never for a view.  Seats are written by
their key (``"north"``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from crokinole.board import Seat
from crokinole.errors import CrokinoleError, InvalidRecordError
from crokinole.rules import Game
from crokinole.table.event_link import EventLink
from crokinole.table.events import seat_from_name
from crokinole.table.members import Member, SeatRating, occupant_from_dict, occupant_to_dict
from crokinole.table.settings import Kind, TableSettings, Timings
from crokinole.table.state import Stage

if TYPE_CHECKING:
    from crokinole.table import Table  # annotations only (via the package: no cycle)

__all__ = ["from_dict", "to_dict"]


def _keys(seats: Mapping[Seat, Any]) -> dict[str, Any]:
    return {seat.key: value for seat, value in seats.items()}


def _seats(data: Mapping[str, Any], read: Any = int) -> dict[Seat, Any]:
    return {seat_from_name(s): read(v) for s, v in data.items()}


def to_dict(t: Table) -> dict[str, Any]:
    """The whole table as JSON-ready data (device tokens included: for the store only)."""
    return {
        "id": t.id,
        "kind": t.kind.value,
        "code": t.code,
        "version": t.version,
        "created_at": t.created_at,
        "host": t.host,
        "settings": t.settings.to_dict(),
        "timings": t.timings.to_dict(),
        "seed": t.seed,
        "members": [m.to_dict() for m in t.members],
        "seats": {s.key: occupant_to_dict(o) for s, o in t.seats.items()},
        "stage": t.stage.value,
        "game": None if t.game is None else t.game.to_json(),
        "game_number": t.game_number,
        "standing_in": sorted(s.key for s in t.standing_in),
        "turn_started": t.turn_started,
        "round_over_at": t.round_over_at,
        "next_pressed": sorted(t.next_pressed),
        "rematch_votes": sorted(t.rematch_votes),
        "joined": t.joined,
        "people_seats": sorted(s.key for s in t.people_seats),
        "ratings": {
            s.key: {"rating": r.rating, "provisional": r.provisional} for s, r in t.ratings.items()
        },
        "turns": _keys(t.turns),
        "standin_turns": _keys(t.standin_turns),
        "hints_used": _keys(t.hints_used),
        "hinted": sorted([s.key, k, n] for s, k, n in t.hinted),
        "no_show": None if t.no_show is None else t.no_show.key,
        "seat_names": _keys(t.seat_names),
        "rematch_until": t.rematch_until,
        "event": None if t.event is None else t.event.to_dict(),
    }


def from_dict(cls: type[Table], data: Mapping[str, Any]) -> Table:
    """Inverse of :func:`to_dict`.

    Raises:
        InvalidRecordError: the data is not a table snapshot.
    """
    try:
        return _read(cls, data)
    except InvalidRecordError:
        raise
    except (CrokinoleError, KeyError, TypeError, ValueError, AttributeError) as exc:
        raise InvalidRecordError(f"not a table snapshot: {exc!r}") from None


def _rating(data: Mapping[str, Any]) -> SeatRating:
    return SeatRating(int(data["rating"]), bool(data["provisional"]))


def _read(cls: type[Table], data: Mapping[str, Any]) -> Table:
    game = data["game"]
    kind = Kind(data["kind"])
    no_show = data.get("no_show")
    event = data.get("event")
    return cls(
        id=data["id"],
        kind=kind,
        code=data["code"],
        version=int(data["version"]),
        created_at=float(data["created_at"]),
        host=data["host"],
        settings=TableSettings.from_dict(data["settings"], kind=kind, allow_short_clock=True),
        timings=Timings.from_dict(data["timings"]),
        seed=int(data["seed"]),
        members=tuple(Member.from_dict(m) for m in data["members"]),
        seats=_seats(data["seats"], occupant_from_dict),
        stage=Stage(data["stage"]),
        game=None if game is None else Game.from_json(game),
        game_number=int(data["game_number"]),
        standing_in=frozenset(seat_from_name(s) for s in data["standing_in"]),
        turn_started=data["turn_started"],
        round_over_at=data["round_over_at"],
        next_pressed=frozenset(data["next_pressed"]),
        rematch_votes=frozenset(data["rematch_votes"]),
        joined=int(data["joined"]),
        people_seats=frozenset(seat_from_name(s) for s in data.get("people_seats", ())),
        ratings=_seats(data.get("ratings", {}), _rating),
        turns=_seats(data.get("turns", {})),
        standin_turns=_seats(data.get("standin_turns", {})),
        hints_used=_seats(data.get("hints_used", {})),
        hinted=frozenset((seat_from_name(s), str(k), int(n)) for s, k, n in data.get("hinted", [])),
        no_show=None if no_show is None else seat_from_name(no_show),
        seat_names=_seats(data.get("seat_names", {}), str),
        rematch_until=data.get("rematch_until"),
        event=None if event is None else EventLink.from_dict(event),
    )
