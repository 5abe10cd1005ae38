"""What the parts of the ranked queue share: who waits here, and what waiting players are sent.

:class:`Waiting` is one account waiting with this process's connections;
:class:`QueueBase` declares the state of
:class:`~crokinole.server.ranked.queue.RankedQueue` that its parts
(:mod:`~crokinole.server.ranked.presence`, the other processes' word;
:mod:`~crokinole.server.ranked.pairing`, the leader's pairing) work on, and
sends the ``queued``, ``matched`` and ``queue_left`` messages.  Nothing here
is used on its own.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from crokinole.board import Seat
from crokinole.ranking import Entry, Ladder
from crokinole.server import protocol
from crokinole.server.ranked import rated
from crokinole.table import Person, Table

if TYPE_CHECKING:
    from crokinole.server.cluster.hub import Hub
    from crokinole.server.owner.tables import Tables
    from crokinole.store import Store

log = logging.getLogger("crokinole.server")

#: An entry whose player has no connection is dropped after this many seconds.
RETURN_WITHIN_S = 60.0
#: A process's word that a player's connection is open holds this many seconds.
PRESENT_WITHIN_S = 3.0

#: The lead of the pairing, and the hub's topics of the queue.
LEAD = "ranked"
PRESENT = "ranked.present"
MATCHED = "ranked.matched"
LEFT = "ranked.left"


class QueueClient(Protocol):
    """A connection as the queue sees it: its account, and a way to send it a message."""

    @property
    def account_id(self) -> int | None: ...

    def send(self, payload: dict[str, Any]) -> None: ...


@dataclass(eq=False)
class Waiting:
    """One account waiting, with this process's connections (none: away since ``away_since``)."""

    account_id: int
    username: str
    ladder: Ladder
    since: float
    rating: int
    provisional: bool
    clients: list[QueueClient] = field(default_factory=list)
    away_since: float | None = None
    last_sent: float = 0.0
    #: Doubles as a team: the partner's account and username (matched once both name each other).
    partner_id: int | None = None
    partner_name: str | None = None
    #: When the tick first found the entry gone from the store (no ranked game for it yet).
    missing_since: float | None = None


@dataclass(frozen=True)
class Told:
    """What another process said of one of its queued accounts."""

    ladder: str
    partner_id: int | None
    partner_name: str | None
    here: bool  # a connection of the account is open there


@dataclass
class Heard:
    """Another process's last word on its queued accounts, and when it came (our clock)."""

    at: float
    accounts: dict[int, Told]


class QueueBase:
    """The state the parts of :class:`~crokinole.server.ranked.queue.RankedQueue` share."""

    _store: Store
    _tables: Tables
    _hub: Hub
    _clock: Callable[[], float]
    _rounds: int | None
    _waiting: dict[int, Waiting]
    _lock: asyncio.Lock
    _tasks: set[asyncio.Task[None]]
    #: Each other process's last word (by its hub origin).
    _heard: dict[str, Heard]
    #: When another process last said an account's connection was open there.
    _last_seen: dict[int, float]
    #: Since when this process leads the pairing (None: it does not).
    _leading_since: float | None
    _said_any: bool  # the last presence broadcast named someone
    _trouble: str | None  # the outage logged, until a tick goes through
    _troubled: bool  # this tick met an outage

    def _unavailable(self, what: str) -> None:
        """Log an outage once (until a tick goes through: :meth:`_available`)."""
        self._troubled = True
        if self._trouble is None:
            log.warning("%s", what)
        self._trouble = what

    def _available(self) -> None:
        if self._trouble is not None:
            log.warning("the ranked queue works again")
            self._trouble = None

    def _spawn(self, coroutine: Coroutine[Any, Any, None]) -> None:
        try:
            task = asyncio.get_running_loop().create_task(coroutine)
        except RuntimeError:  # no event loop (a test's plain call): the next tick tells
            coroutine.close()
            return
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _send_queued(self, waiting: Waiting, only: QueueClient | None = None) -> None:
        now = self._clock()
        waiting.last_sent = now
        entry = Entry(
            (str(waiting.account_id),), waiting.ladder, waiting.rating, min(waiting.since, now)
        )
        payload = protocol.message(
            "queued",
            None,
            0,
            ladder=waiting.ladder.value,
            since=waiting.since,
            server_time=now,
            rating=waiting.rating,
            provisional=waiting.provisional,
            window=entry.window(now),
            partner=waiting.partner_name,
            partner_ready=self._partner_ready(waiting),
        )
        for client in [only] if only is not None else waiting.clients:
            client.send(payload)

    def _on_matched(self, payload: dict[str, Any]) -> None:
        """``ranked.matched`` (from any process, this one too): tell our players, forget them."""
        for key, seat in dict(payload["seats"]).items():
            waiting = self._waiting.pop(int(key), None)
            if waiting is None:
                continue
            message = protocol.message(
                "matched",
                str(payload["table"]),
                0,
                ladder=payload["ladder"],
                seat=seat,
                players=payload["players"],
            )
            for client in waiting.clients:
                client.send(message)

    if TYPE_CHECKING:  # defined by the presence part

        def _partner_ready(self, waiting: Waiting) -> bool: ...


def matched_payload(table: Table) -> dict[str, Any]:
    """The ``ranked.matched`` payload of a new ranked table: each account's seat, the players."""
    seats: dict[str, str] = {}
    players: list[dict[str, Any]] = []
    for seat in Seat:  # south, west, north, east
        occupant = table.seats.get(seat)
        shown = table.ratings.get(seat)
        if not isinstance(occupant, Person) or shown is None:
            continue
        member = table.member(occupant.mid)
        account = rated.account_of(member.device if member is not None else None)
        if member is None or account is None:
            continue
        seats[str(account)] = seat.key
        players.append(
            {
                "seat": seat.key,
                "username": member.name,
                "bot": rated.is_bot(member.device),
                "rating": shown.rating,
                "provisional": shown.provisional,
            }
        )
    ladder = rated.ladder_of_table(table)
    return {"table": table.id, "ladder": ladder.value, "seats": seats, "players": players}


def queue_left() -> dict[str, Any]:
    """The ``queue_left`` message (the player left the queue)."""
    return protocol.message("queue_left", None, 0, reason="left")
