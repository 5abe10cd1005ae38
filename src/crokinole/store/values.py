"""The values that cross the store's interface: frozen dataclasses, and what they may hold.

The server hands the store these (a :class:`TableMember`, a
:class:`TableResult`, a :class:`RatingChange` ...) or plain dicts of the same
keys, and gets these back (:class:`TableData`, :class:`AccountData`,
:class:`RatingData` ...); no row of the database leaves the store.  The
vocabularies the store checks (formats, table kinds, results, ladders) are
here too.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any, Protocol, TypeVar

_V = TypeVar("_V")

#: The formats of a game (``scoring``).
FORMATS = ("four_rounds", "to_100")
#: The kinds of a table.
TABLE_KINDS = ("party", "solo", "ranked")
#: A device's (or a rated player's) result in a game.
RESULTS = ("win", "draw", "loss")
#: The ranked ladders.
LADDERS = ("singles", "doubles", "bots")
#: What an API token of a bot may do: play at its tables, send and answer
#: challenges, queue on the bots' ladder.
SCOPES = ("play", "challenge", "ladder")

#: A device's results against the CPU: level → format → wins/draws/losses.
DeviceRecord = dict[str, dict[str, dict[str, int]]]


@dataclass(frozen=True, slots=True)
class AccountData:
    """An account as stored.

    Attributes:
        id: the account's number.
        username: the username as typed at sign up (``Ann``).
        username_key: its lower-case key, unique (``ann``).
        password_hash: the Argon2id hash of the password (never the password).
        created_at: when it signed up (UTC, naive).
        password_changed_at: when the password last changed (UTC, naive).
        bot: whether programs play it (a bot account: set once, never unset).
    """

    id: int
    username: str
    username_key: str
    password_hash: str
    created_at: datetime
    password_changed_at: datetime
    bot: bool = False

    def __repr__(self) -> str:  # the hash stays out of logs and tracebacks
        return f"AccountData(id={self.id}, username={self.username!r})"


class DeadlineLike(Protocol):
    """Anything with an absolute server time ``at`` and a ``kind`` (the table's ``Deadline``)."""

    @property
    def at(self) -> float: ...

    @property
    def kind(self) -> str: ...


@dataclass(frozen=True, slots=True)
class TableDeadline:
    """A table's next deadline as stored: server time ``at`` (seconds) and its ``kind``."""

    at: float
    kind: str


@dataclass(frozen=True, slots=True)
class TableMember:
    """A member of a table as stored (what finds a device's tables).

    Attributes:
        mid: the public member id (``m1``, ``m2``...).
        device_token: the device's token (a secret).
        name: the display name.
        spectator: whether the member only watches.
        seats: the seats the member holds (none, one in a party, several in solo).
    """

    mid: str
    device_token: str
    name: str
    spectator: bool = False
    seats: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class TableResult:
    """A device's result in a finished game of a table, counted in its record.

    Attributes:
        game_number: the game of the table (1, 2 ... with rematches).
        device_token: the device whose result it is.
        opponent: the CPU level played against, or ``people``.
        scoring: the format (``four_rounds`` or ``to_100``).
        result: ``win``, ``draw`` or ``loss``.
    """

    game_number: int
    device_token: str
    opponent: str
    scoring: str
    result: str


@dataclass(frozen=True, slots=True)
class TableData:
    """A table as stored.

    Attributes:
        id: the table id.
        kind: ``party`` or ``solo``.
        code: the party code, or None.
        version: the version of its last event (the number of events).
        status: ``lobby``, ``playing``, ``finished`` or ``closed``.
        snapshot: the table as the server last gave it: after its last event,
            or after an earlier one (the events since then are in the log).
        deadline: its next deadline, or None.
        created_at: when it was created (UTC, naive).
        updated_at: when it last changed (UTC, naive).
    """

    id: str
    kind: str
    code: str | None
    version: int
    status: str
    snapshot: dict[str, Any]
    deadline: TableDeadline | None
    created_at: datetime
    updated_at: datetime


#: A member as the server hands it over: a :class:`TableMember`, or a dict with
#: ``mid``, ``device_token``, ``name``, ``spectator`` and ``seats`` (a list) or
#: ``seat`` (one seat or None).
MemberIn = TableMember | Mapping[str, Any]
#: A result: a :class:`TableResult`, or a dict with the same keys.
ResultIn = TableResult | Mapping[str, Any]
#: A deadline: anything with ``at`` and ``kind`` (the table's ``Deadline``), or ``(at, kind)``.
DeadlineIn = DeadlineLike | tuple[float, str]


@dataclass(frozen=True, slots=True)
class RatingData:
    """An account's rating on one ladder as stored.

    Attributes:
        account_id: the account.
        username: its username as typed.
        ladder: ``singles`` or ``doubles``.
        mu: the belief's mean.
        sigma: the belief's standard deviation.
        rating: the displayed number the belief gives.
        games: ranked games played on the ladder (``wins + draws + losses``).
        wins: games rated as won.
        draws: games rated as drawn.
        losses: games rated as lost.
        bot: whether the account is a bot's.
    """

    account_id: int
    username: str
    ladder: str
    mu: float
    sigma: float
    rating: int
    games: int
    wins: int
    draws: int
    losses: int
    bot: bool = False


@dataclass(frozen=True, slots=True)
class RatingChange:
    """A rating change to store with the game that caused it (``append_table_events``).

    Attributes:
        account_id: whose rating changed.
        ladder: ``singles`` or ``doubles``.
        game_number: the game of the table.
        side: the player's side (0: side A, 1: side B).
        mu_before: the belief's mean before the game.
        sigma_before: its standard deviation before.
        mu_after: the mean after.
        sigma_after: the standard deviation after.
        rating_before: the displayed number before.
        rating_after: the displayed number after.
        outcome: what the player was rated as: ``win``, ``draw`` or ``loss``.
    """

    account_id: int
    ladder: str
    game_number: int
    side: int
    mu_before: float
    sigma_before: float
    mu_after: float
    sigma_after: float
    rating_before: int
    rating_after: int
    outcome: str


@dataclass(frozen=True, slots=True)
class RatingChangeData:
    """A stored rating change: :class:`RatingChange` with its table, username and time."""

    table_id: str
    username: str
    change: RatingChange
    at: datetime


@dataclass(frozen=True, slots=True)
class PracticeSetData:
    """A set the server handed out (:meth:`Store.create_practice_set`).

    ``shots`` are the attempts played so far: ``{"aimed", "played", "points"}``
    each (shots as ``{"position", "direction", "power"}``).
    """

    id: str
    kind: str
    drill: str
    day: str | None
    device: str
    account_id: int | None
    seed: int
    attempts: int
    shots: tuple[dict[str, Any], ...]
    finished: bool


@dataclass(frozen=True, slots=True)
class QueueEntryData:
    """An account in the ranked queue: since ``joined_at`` (server seconds)."""

    account_id: int
    username: str
    ladder: str
    joined_at: float


@dataclass(frozen=True, slots=True)
class SheetData:
    """A stored score sheet.

    Attributes:
        id: the sheet id (for its owner).
        share_id: the id of its read-only link.
        device_token: the device that owns it.
        data: the sheet (``ScoreSheet.to_dict()``).
        updated_at: when it last changed (UTC).
    """

    id: str
    share_id: str
    device_token: str
    data: dict[str, Any]
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class EventData:
    """A stored event's row (its log is read with ``event_entries``).

    Attributes:
        id: the event's id.
        code: its join code.
        organiser_id: the account that organises it.
        version: the version of its last log entry (entries are numbered from 1).
        status: ``open``, ``running`` or ``finished``.
        summary: what the lists show without folding the log (name, date,
            format, venue, entrants ...: the JSON the server gave).
        created_at: when it was created (UTC, naive).
        updated_at: when an entry was last appended (UTC, naive).
    """

    id: str
    code: str
    organiser_id: int
    version: int
    status: str
    summary: dict[str, Any]
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class EventPlace:
    """Where an online table or a score sheet belongs: an event's round and pairing.

    Attributes:
        event_id: the event.
        round: the event's round (from 1).
        table: the pairing's number in the round (from 1).
        game: the game of the match the table plays (from 1; a sheet keeps
            the whole match: 1).
    """

    event_id: str
    round: int
    table: int
    game: int = 1


def from_row(value_type: type[_V], row: Any, **given: Any) -> _V:
    """A value of ``value_type`` (a dataclass) from the row's attributes of its fields' names;
    ``given`` are the fields the row holds otherwise (JSON to decode, a joined username ...).

    >>> class Row:
    ...     account_id, username, ladder, game_number = 1, "Ann", "singles", 2
    >>> from_row(QueueEntryData, Row(), joined_at=5.0)
    QueueEntryData(account_id=1, username='Ann', ladder='singles', joined_at=5.0)
    """
    names = [f.name for f in fields(value_type)]  # type: ignore[arg-type]
    return value_type(**{n: given[n] if n in given else getattr(row, n) for n in names})
