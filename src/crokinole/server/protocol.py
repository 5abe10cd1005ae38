"""The websocket protocol (docs/protocol.md): typed client messages and server payloads.

Client messages are pydantic models, one per ``type``; anything that does not
parse is answered with an ``error`` naming the problem.  The game payloads
the messages carry are built in :mod:`crokinole.server.payloads`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from crokinole.ai import Level
from crokinole.board import Seat, Shot
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


def message(kind: str, room: str | None, event: int, **fields: Any) -> dict[str, Any]:
    """A server message with its room and event number."""
    return {"type": kind, "room": room, "event": event, **fields}
