"""The websocket protocol (docs/protocol.md): typed client messages and server payloads.

Client messages are pydantic models, one per ``type``; anything that does not
parse is answered with an ``error`` naming the problem.  Server payloads are
built here from the rules engine's values, so the rest of the server never
formats game data by hand.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from crokinole.ai import Level
from crokinole.board import Board, Seat, Shot, Zone
from crokinole.physics import ContactKind, EventKind, ShotResult
from crokinole.rules import Disc, Game, ShotReport
from crokinole.server.json_input import JsonInputError, read_json

PROTOCOL_VERSION = 1
MAX_MESSAGE_BYTES = 16 * 1024
TOKEN_PATTERN = r"^[A-Za-z0-9_-]{16,64}$"
ROOM_PATTERN = r"^[a-f0-9]{32}$"

SeatName = Literal["south", "west", "north", "east"]

#: The CPU levels' ids, in order of strength: ``crokinole.ai.Level`` is the one list.
LEVEL_IDS: tuple[str, ...] = tuple(level.value for level in Level)


def levels_payload() -> list[dict[str, str]]:
    """``welcome.levels``: every CPU level, weakest first, with its display name.

    >>> levels_payload()[0]
    {'id': 'easy', 'name': 'Easy'}
    """
    return [{"id": level.value, "name": level.label} for level in Level]


def _opponent(value: str) -> str:
    if value != "local" and value not in LEVEL_IDS:
        choices = ", ".join([*LEVEL_IDS, "local"])
        raise ValueError(f"{value!r} is not an opponent (choose one of {choices})")
    return value


Opponent = Annotated[str, AfterValidator(_opponent)]


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class Hello(_Message):
    type: Literal["hello"]
    token: Annotated[str, Field(pattern=TOKEN_PATTERN)]
    room: Annotated[str, Field(pattern=ROOM_PATTERN)] | None = None
    last_event: Annotated[int, Field(ge=0)] | None = None


class NewGame(_Message):
    type: Literal["new_game"]
    opponent: Opponent
    scoring: Literal["four_rounds", "to_100"] = "four_rounds"
    discs: Literal[8, 12] = 8
    required_contact: bool = True
    rounds: Annotated[int, Field(ge=1, le=4)] | None = None
    names: dict[SeatName, Annotated[str, Field(min_length=1, max_length=24)]] | None = None


class ShootMessage(_Message):
    type: Literal["shoot"]
    room: Annotated[str, Field(pattern=ROOM_PATTERN)]
    seat: SeatName
    position: float
    direction: float
    power: float


class RoomAction(_Message):
    type: Literal["next_round", "rematch", "resign"]
    room: Annotated[str, Field(pattern=ROOM_PATTERN)]


class Ping(_Message):
    type: Literal["ping"]


ClientMessage = Annotated[
    Hello | NewGame | ShootMessage | RoomAction | Ping, Field(discriminator="type")
]
_ADAPTER: TypeAdapter[Hello | NewGame | ShootMessage | RoomAction | Ping] = TypeAdapter(
    ClientMessage
)


class ProtocolError(Exception):
    """A message that cannot be accepted; ``code`` is the protocol's error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def parse_message(text: str | bytes) -> Hello | NewGame | ShootMessage | RoomAction | Ping:
    """Parse and validate one client message.

    Raises:
        ProtocolError: too large, not JSON, or not a valid message (the error
            names the field).
    """
    size = len(text.encode("utf-8", errors="replace")) if isinstance(text, str) else len(text)
    if size > MAX_MESSAGE_BYTES:
        raise ProtocolError("too_large", f"messages are limited to {MAX_MESSAGE_BYTES} bytes")
    try:
        data = read_json(text)
    except JsonInputError as exc:
        # Text that is not JSON is bad_json; JSON the server will not take
        # (a 5,000-digit number, deep nesting, NaN) is a bad message.
        code = "bad_json" if exc.kind == "syntax" else "bad_message"
        raise ProtocolError(code, str(exc)) from None
    if not isinstance(data, dict):
        raise ProtocolError("bad_message", "a message is a JSON object with a 'type'")
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in {
        "hello",
        "new_game",
        "shoot",
        "next_round",
        "rematch",
        "resign",
        "ping",
    }:
        raise ProtocolError("bad_message", f"unknown message type {kind!r}")
    try:
        return _ADAPTER.validate_python(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"][1:]) or "message"
        raise ProtocolError("bad_message", f"{kind}: {where}: {first['msg']}") from None


def seat_of(name: str) -> Seat:
    """``"south"`` → ``Seat.SOUTH``."""
    return Seat[name.upper()]


def shot_of(message: ShootMessage) -> Shot:
    """The rules engine's shot for a ``shoot`` message."""
    return Shot(message.position, message.direction, message.power)


# ----------------------------------------------------------------- payloads

SIDE_LOOK = (("light", "circle"), ("dark", "triangle"), ("red", "square"), ("blue", "diamond"))


def board_payload(board: Board) -> dict[str, Any]:
    """What the client needs to draw the board."""
    return {
        "surface_radius": board.surface_radius,
        "shooting_line_radius": board.shooting_line_radius,
        "ten_radius": board.ten_radius,
        "fifteen_radius": board.fifteen_radius,
        "hole_radius": board.hole_radius,
        "line_width": board.line_width,
        "peg_radius": board.peg_radius,
        "pegs": [[p.x, p.y] for p in board.pegs],
        "disc_radius": board.disc_radius,
        "ditch_width": board.ditch_width,
    }


def game_payload(game: Game, names: dict[str, str], cpu: dict[str, str]) -> dict[str, Any]:
    """The ``game`` snapshot of docs/protocol.md."""
    rules = game.rules
    counts = game.round_counts()
    current = game.current_seat
    sides = []
    for index, seats in enumerate(rules.sides):
        colour, mark = SIDE_LOOK[index]
        sides.append(
            {
                "side": index,
                "seats": [s.name.lower() for s in seats],
                "colour": colour,
                "mark": mark,
                "twenties": game.twenties[index],
                "ditch": game.ditch[index],
                "round_total": counts[index].total,
                "score": game.scores[index],
            }
        )
    outcome = game.outcome
    return {
        "rules": rules.to_dict(),
        "phase": game.phase.value,
        "round": game.round_number,
        "round_first": game.round_first_seat.name.lower(),
        "current_seat": None if current is None else current.name.lower(),
        "seats": [
            {
                "seat": s.name.lower(),
                "side": game.side_of(s),
                "name": names.get(s.name.lower(), s.name.title()),
                "cpu": cpu.get(s.name.lower()),
                "in_hand": game.in_hand(s),
            }
            for s in rules.seats
        ],
        "sides": sides,
        "discs": [
            {
                "id": d.id,
                "owner": d.owner.name.lower(),
                "side": game.side_of(d.owner),
                "x": d.x,
                "y": d.y,
            }
            for d in game.discs
        ],
        "history": [
            {
                "number": r.number,
                "totals": list(r.totals),
                "points": list(r.points),
                "scores_after": list(r.scores_after),
                "counts": [[c.twenties, c.fifteens, c.tens, c.fives] for c in r.counts],
            }
            for r in game.history
        ],
        "outcome": None
        if outcome is None
        else {"winner": outcome.winner, "drawn": list(outcome.drawn)},
        "placement_limit": game.board.placement_limit,
        "board": board_payload(game.board),
    }


def _zone(board: Board, disc: Disc) -> int | None:
    """Zone value (15, 10, 5) of a disc at rest, or None when it lies out (R6)."""
    zone = board.zone_of(disc.centre)
    return None if zone is Zone.OUT else zone.value


def report_payload(report: ShotReport, before: Game) -> dict[str, Any]:
    """The structured ``report`` of a shot (docs/protocol.md): what happened, not words.

    The client words it for its viewer.  Every disc the shot affected is
    listed (the shot disc first): the shot disc, every disc that moved, every
    disc removed and every 20.

    Args:
        report: the referee's report of the shot.
        before: the game just before the shot (zones the discs lay in, sides).

    ``unplayed`` is true for a timeout (no room on the line, R3): the report
    has no shot, and the disc went to the ditch without being played.
    """
    board = before.board
    shooter_side = before.side_of(report.seat)
    shot_id = before.next_disc_id
    lay = {d.id: d for d in before.discs}
    entries: dict[int, dict[str, Any]] = {}

    def entry(disc: Disc, result: str, zone: int | None, reason: str | None) -> None:
        was = lay.get(disc.id)
        entries[disc.id] = {
            "id": disc.id,
            "owner": disc.owner.name.lower(),
            "side": before.side_of(disc.owner),
            "shot": disc.id == shot_id,
            "from_zone": None if was is None else _zone(board, was),
            "result": result,
            "zone": zone,
            "reason": reason,
            "cancelled_twenty": False,
        }

    cancelled = {d.id for d in report.cancelled_twenties}
    for disc in report.twenties:
        entry(disc, "hole", 20, None)
    for gone in report.removed:
        entry(gone.disc, "ditch", None, gone.reason.name.lower())
        entries[gone.disc.id]["cancelled_twenty"] = gone.disc.id in cancelled
    moved = set(report.moved)
    for disc in report.board_after:
        if disc.id in moved:
            entry(disc, "board", _zone(board, disc), None)
    hit: set[int] = set()
    if report.physics is not None:
        # Simulator indices: the discs before the shot in order, the shot disc last.
        order = [d.id for d in before.discs] + [shot_id]
        owners = [d.owner for d in before.discs] + [report.seat]
        for contact in report.physics.contacts:
            if contact.kind is not ContactKind.DISC:
                continue
            a, b = contact.disc, contact.other
            own_a = before.side_of(owners[a]) == shooter_side
            own_b = before.side_of(owners[b]) == shooter_side
            if own_a != own_b:
                hit.add(order[b] if own_a else order[a])
    discs = sorted(entries.values(), key=lambda e: (not e["shot"], e["id"]))
    return {
        "seat": report.seat.name.lower(),
        "valid": report.valid,
        "foul": None if report.foul is None else report.foul.name.lower(),
        "unplayed": report.shot is None,
        "discs": discs,
        "hit": sorted(hit),
    }


_SOUNDS = {
    EventKind.DISC_CONTACT: "disc",
    EventKind.PEG_CONTACT: "peg",
    EventKind.DROP: "hole",
}


def trajectory_payload(
    result: ShotResult | None, ids: list[int], owners: list[str]
) -> dict[str, Any]:
    """The closed-form trajectory of a shot for the client to animate (moving discs only).

    Args:
        result: the simulator's result (None for a timeout).
        ids: the game's disc id of each simulator disc (the shot disc last).
        owners: the owner seat name of each simulator disc.
    """
    if result is None:
        return {"deceleration": 0.0, "duration": 0.0, "discs": [], "sounds": []}
    per_disc: dict[int, dict[str, Any]] = {}
    sounds: list[list[Any]] = []
    seen_contacts: set[tuple[float, int, int]] = set()
    for ev in result.events:
        entry = per_disc.setdefault(
            ev.disc, {"id": ids[ev.disc], "owner": owners[ev.disc], "segments": [], "leaves": None}
        )
        if ev.kind.changes_motion:
            entry["segments"].append([ev.time, ev.x, ev.y, ev.vx, ev.vy])
        if ev.kind is EventKind.DROP:
            entry["leaves"] = {"t": ev.time, "how": "hole"}
        elif ev.kind is EventKind.DITCH:
            entry["leaves"] = {"t": ev.time, "how": "ditch"}
        sound = _SOUNDS.get(ev.kind)
        if sound == "disc":
            key = (ev.time, min(ev.disc, ev.other), max(ev.disc, ev.other))
            if key in seen_contacts:
                continue
            seen_contacts.add(key)
        if sound is not None:
            sounds.append([ev.time, sound])
    return {
        "deceleration": result.deceleration,
        "duration": result.duration,
        "discs": [per_disc[k] for k in sorted(per_disc)],
        "sounds": sounds,
    }


def message(kind: str, room: str | None, event: int, **fields: Any) -> dict[str, Any]:
    """A server message with its room and event number."""
    return {"type": kind, "room": room, "event": event, **fields}
