"""The hub: fan-out of each table's events to its subscribers, and ownership of tables.

The owner of a table (:class:`crokinole.server.tables.Tables`) publishes the
events of every command it applied, with the table as it stands after them;
each subscriber (a connection) renders its own view of them (its seat is
"you").  Exactly one owner may apply a table's commands, run its CPU and
fire its deadlines: it *claims* the table first.

:class:`MemoryHub` does this inside one process.  A hub for several
processes (Redis) keeps the same methods: publishing and claiming are
coroutines because there they are network calls, and a claim there is a
lease the owner renews.  Subscribing stays a plain call (the registry of
this process's subscribers is local; a networked hub joins the table's
channel in the background, and a subscriber that misses events catches up
from the store by version).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from crokinole.table import Event, Table

log = logging.getLogger("crokinole.server")


class Subscriber(Protocol):
    """Someone who is sent a table's events (a connection)."""

    def deliver(self, table: Table, events: Sequence[Event]) -> None:
        """Take ``events`` and ``table`` as it stands after them.

        Called on the event loop; it must never wait (queue, do not send).
        """
        ...


class Hub(Protocol):
    """Fan-out of each table's events, and who owns each table."""

    def subscribe(self, table_id: str, subscriber: Subscriber) -> None:
        """Send ``subscriber`` every event published for the table from now on."""
        ...

    def unsubscribe(self, table_id: str, subscriber: Subscriber) -> None:
        """Stop sending the table's events to ``subscriber`` (unknown ones are ignored)."""
        ...

    def subscribers(self, table_id: str) -> int:
        """How many subscribers the table has in this process."""
        ...

    async def publish(self, table_id: str, table: Table, events: Sequence[Event]) -> None:
        """Send ``events`` (and ``table`` after them) to every subscriber of the table."""
        ...

    async def claim(self, table_id: str, owner: str) -> bool:
        """Make ``owner`` the table's owner; False if another owner holds it."""
        ...

    async def release(self, table_id: str, owner: str) -> None:
        """Give the table up, if ``owner`` holds it."""
        ...


class MemoryHub:
    """The hub of one process: subscribers and owners in dictionaries.

    >>> import asyncio
    >>> hub = MemoryHub()
    >>> asyncio.run(hub.claim("t1", "owner-a")), asyncio.run(hub.claim("t1", "owner-b"))
    (True, False)
    >>> asyncio.run(hub.release("t1", "owner-a")); asyncio.run(hub.claim("t1", "owner-b"))
    True
    """

    def __init__(self) -> None:
        self._subscribers: dict[str, dict[Subscriber, None]] = {}
        self._owners: dict[str, str] = {}

    def subscribe(self, table_id: str, subscriber: Subscriber) -> None:
        """Send ``subscriber`` every event published for the table from now on."""
        self._subscribers.setdefault(table_id, {})[subscriber] = None

    def unsubscribe(self, table_id: str, subscriber: Subscriber) -> None:
        """Stop sending the table's events to ``subscriber`` (unknown ones are ignored)."""
        subscribers = self._subscribers.get(table_id)
        if subscribers is None:
            return
        subscribers.pop(subscriber, None)
        if not subscribers:
            del self._subscribers[table_id]

    def subscribers(self, table_id: str) -> int:
        """How many subscribers the table has in this process."""
        return len(self._subscribers.get(table_id, ()))

    async def publish(self, table_id: str, table: Table, events: Sequence[Event]) -> None:
        """Deliver to each subscriber in the order they subscribed.

        One subscriber's failure is logged and does not keep the others
        from their events.
        """
        for subscriber in list(self._subscribers.get(table_id, ())):
            try:
                subscriber.deliver(table, events)
            except Exception:
                log.exception("a subscriber of table %s failed to take its events", table_id)

    async def claim(self, table_id: str, owner: str) -> bool:
        """Make ``owner`` the table's owner; False if another owner holds it."""
        holder = self._owners.setdefault(table_id, owner)
        return holder == owner

    async def release(self, table_id: str, owner: str) -> None:
        """Give the table up, if ``owner`` holds it."""
        if self._owners.get(table_id) == owner:
            del self._owners[table_id]
