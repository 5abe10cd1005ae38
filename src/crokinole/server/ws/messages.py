"""Inbound: the client's messages under protocol version 2 (docs/protocol.md), typed and parsed.

Client messages are strict pydantic models, one per ``type``; anything that
does not parse is answered with an ``error`` naming the field (a
:class:`WireError` with its :class:`~crokinole.errors.ErrorCode`), and
changes nothing.  The session (:mod:`crokinole.server.ws.session`) turns a
parsed message into a command of the table; what the server sends back is
:mod:`crokinole.server.ws.views`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from crokinole.ai import Level
from crokinole.board import Shot
from crokinole.errors import ErrorCode
from crokinole.server.json_input import JsonInputError, read_json
from crokinole.server.protocol import WireError

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
    # ``cpu:expert`` says the same as ``expert`` (docs/bots.md).
    value = value.removeprefix("cpu:")
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
    #: The device token (a bot logged in by its API token needs none: it is its account).
    token: Annotated[str, Field(pattern=TOKEN_PATTERN)] | None = None
    table: TableId | None = None
    last_event: Annotated[int, Field(ge=0)] | None = None
    #: A bot's API token, for a client that cannot set the Authorization header.
    api_token: Annotated[str, Field(max_length=64)] | None = None


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
HeatAccuracy = Literal["hand", "easy", "normal", "hard", "expert", "master", "mine"]


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


class Challenge(_Message):
    """Challenge a bot (a person logged in, or a bot) to a game of these settings."""

    type: Literal["challenge"]
    opponent: Annotated[str, Field(min_length=1, max_length=64)]
    #: TableSettings fields of a party; the table validates them (``bad_settings``).
    settings: dict[str, Any] = Field(default_factory=dict)


class ChallengeAnswer(_Message):
    type: Literal["challenge_answer"]
    id: Annotated[str, Field(pattern=r"^[a-f0-9]{32}$")]
    accept: bool


class ChallengeCancel(_Message):
    type: Literal["challenge_cancel"]
    id: Annotated[str, Field(pattern=r"^[a-f0-9]{32}$")]


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
    | Challenge
    | ChallengeAnswer
    | ChallengeCancel
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
        "challenge", "challenge_answer", "challenge_cancel",
    }
)  # fmt: skip

#: The scope an API token needs for each message (those not listed need none).
_PLAY = (
    "create", "join", "open", "take_seat", "move", "set_cpu", "remove", "settings",
    "shoot", "start", "next_round", "rematch", "decline_rematch", "leave", "resign",
    "rename", "react", "hint", "heatmap",
)  # fmt: skip
SCOPE_OF: dict[str, str] = {
    **dict.fromkeys(_PLAY, "play"),
    "challenge": "challenge",
    "challenge_answer": "challenge",
    "challenge_cancel": "challenge",
    "queue": "ladder",
    "leave_queue": "ladder",
}  # fmt: skip
#: What each scope lets a token do, in words (for the ``scope`` error).
SCOPE_WORDS = {
    "play": "open tables or play at them",
    "challenge": "send or answer challenges",
    "ladder": "queue on the bots' ladder",
}


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
    crokinole.server.protocol.WireError: start: table: String should match pattern ...
    """
    size = len(text.encode("utf-8", errors="replace")) if isinstance(text, str) else len(text)
    if size > MAX_MESSAGE_BYTES:
        raise WireError(ErrorCode.TOO_LARGE, f"messages are limited to {MAX_MESSAGE_BYTES} bytes")
    try:
        data = read_json(text)
    except JsonInputError as exc:
        # Text that is not JSON is bad_json; JSON the server will not take
        # (a 5,000-digit number, deep nesting, NaN) is a bad message.
        code = ErrorCode.BAD_JSON if exc.kind == "syntax" else ErrorCode.BAD_MESSAGE
        raise WireError(code, str(exc)) from None
    if not isinstance(data, dict):
        raise WireError(ErrorCode.BAD_MESSAGE, "a message is a JSON object with a 'type'")
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in MESSAGE_TYPES:
        raise WireError(ErrorCode.BAD_MESSAGE, f"unknown message type {kind!r}")
    try:
        return _ADAPTER.validate_python(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"][1:]) or "message"
        raise WireError(ErrorCode.BAD_MESSAGE, f"{kind}: {where}: {first['msg']}") from None


def shot_of(message: ShootMessage) -> Shot:
    """The rules engine's shot for a ``shoot`` message."""
    return Shot(message.position, message.direction, message.power)
