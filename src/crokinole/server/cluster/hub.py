"""The hub: fan-out of each table's events to its subscribers, and ownership of tables.

The owner of a table (:class:`crokinole.server.owner.tables.Tables`) publishes the
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

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

import anyio.to_thread

from crokinole.errors import CrokinoleError

if TYPE_CHECKING:
    from crokinole.table import Event, Table

log = logging.getLogger("crokinole.server")

_Result = TypeVar("_Result")


async def stop_tasks(tasks: Sequence[asyncio.Task[Any]]) -> None:
    """Cancel ``tasks`` and wait until each is over, whatever it does with the cancellation.

    A cancellation can be absorbed on its way: redis-py may turn it into a
    timeout error that a loop then handles, and a shielded write ends its
    shield rather than its task.  Cancelling once and awaiting could then
    wait for ever (a server that never shuts down); so the cancellation is
    repeated until the task is over.  Their results and errors are dropped.
    """
    for task in tasks:
        task.cancel()
    for task in tasks:
        while not task.done():
            await asyncio.wait({task}, timeout=0.5)
            if not task.done():
                task.cancel()
        if not task.cancelled():
            task.exception()  # retrieved, so that asyncio does not report it


async def in_thread_to_the_end(func: Callable[[], _Result]) -> _Result:
    """``func()`` in a worker thread; a task cancelled meanwhile ends only once the thread has.

    ``anyio.to_thread.run_sync`` shields its thread from anyio's cancel
    scopes, not from ``Task.cancel()`` (what :func:`stop_tasks` does): the
    task ends at once and the thread runs on, past the hub's close and the
    store's (a read that opens a connection after ``Store.close`` leaves it
    open for the collector to find).  Here the cancellation waits for the
    thread (a store call is bounded by its timeouts), then ends the task.
    """
    call = asyncio.ensure_future(anyio.to_thread.run_sync(func))
    try:
        return await asyncio.shield(call)
    except asyncio.CancelledError:
        while not call.done():
            with contextlib.suppress(asyncio.CancelledError):  # stop_tasks cancels again
                await asyncio.wait({call})
        if not call.cancelled():
            call.exception()  # retrieved: the task is cancelled, its thread's error dropped
        raise


class HubUnavailableError(CrokinoleError):
    """The hub could not be reached (Redis is down): nothing was claimed, sent or released."""


#: What :meth:`Hub.listen` calls with each payload broadcast on its topic.
Listener = Callable[[dict[str, Any]], None]


class Subscriber(Protocol):
    """Someone who is sent a table's events (a connection)."""

    def deliver(self, table: Table, events: Sequence[Event]) -> None:
        """Take ``events`` and ``table`` as it stands after them.

        Called on the event loop; it must never wait (queue, do not send).
        """
        ...


class Hub(Protocol):
    """Fan-out of each table's events, and who owns each table.

    Its network calls raise :class:`HubUnavailableError` when the hub cannot be
    reached.
    """

    #: This hub's name, unique among the processes sharing it.
    origin: str

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

    async def release(self, table_id: str, owner: str, *, hand_over: bool = False) -> None:
        """Give the table up, if ``owner`` holds it; ``hand_over``: for another
        process to take up (one that cannot write it gives it away)."""
        ...

    async def broadcast(self, topic: str, payload: dict[str, Any]) -> None:
        """Send ``payload`` (JSON-able) to the listeners of ``topic`` in every process.

        This process's listeners are called at once; the others' may miss it
        (Redis pub/sub drops messages when a connection fails).
        """
        ...

    def listen(self, topic: str, listener: Listener) -> None:
        """Call ``listener`` on the event loop with each payload broadcast on ``topic``."""
        ...

    async def lead(self, name: str) -> bool:
        """Whether this process leads ``name`` (one process at a time; claimed or renewed).

        Call it before each piece of the leader's work, at least every few
        seconds: a leader that stops calling loses the lead to another.
        """
        ...


@runtime_checkable
class ClusterHub(Hub, Protocol):
    """A hub shared by several processes: what the owner needs beyond :class:`Hub`.

    A table may then be held by another process: its commands are sent to
    that owner, and this process follows the table from a copy the hub keeps.
    """

    async def owner_of(self, table_id: str) -> str | None:
        """The origin of the process that holds the table now (None: nobody)."""
        ...

    async def owners(self, table_ids: Sequence[str]) -> dict[str, str | None]:
        """The holder of each table (None: nobody), in one call."""
        ...

    async def catch_up(self, table_id: str, table: Table) -> None:
        """Deliver to this process's subscribers the events of ``table`` (just read from
        the store by its new owner) that their copy lacks, in order.

        The owner that died may have stored events it never published: they
        are shown before anything the new owner does.
        """
        ...

    async def orphans(self) -> dict[str, list[str]]:
        """The tables of each process that is gone (its heartbeat expired), by its origin."""
        ...

    async def forget(self, origin: str, table_ids: Sequence[str]) -> None:
        """Stop counting ``table_ids`` as the gone process ``origin``'s (taken up elsewhere)."""
        ...

    async def request(
        self, origin: str, body: dict[str, Any], *, timeout: float = 5.0
    ) -> dict[str, Any]:
        """Send ``body`` to the hub ``origin`` and wait for its answer.

        Raises:
            NoReceiverError: nobody listens as ``origin`` (its process is gone).
            TimeoutError: no answer in ``timeout`` seconds.
            HubUnavailableError: the hub could not be reached.
        """
        ...

    async def serve(self, handler: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]) -> None:
        """Answer the requests sent to this hub with ``handler``."""
        ...

    async def copy(self, table_id: str) -> Table | None:
        """This process's copy of a table it has subscribers for (None: none)."""
        ...

    def followed(self) -> list[str]:
        """The tables this process has subscribers for."""
        ...

    lease_ms: int


class NoReceiverError(HubUnavailableError):
    """A request went to a hub that is not listening (its process is gone)."""


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
        self._listeners: dict[str, list[Listener]] = {}
        self.origin = f"memory:{secrets.token_hex(8)}"

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

    async def release(self, table_id: str, owner: str, *, hand_over: bool = False) -> None:
        """Give the table up, if ``owner`` holds it (one process: nobody to hand over to)."""
        if self._owners.get(table_id) == owner:
            del self._owners[table_id]

    async def broadcast(self, topic: str, payload: dict[str, Any]) -> None:
        """Call the topic's listeners (one's failure is logged and stops no other)."""
        for listener in list(self._listeners.get(topic, ())):
            try:
                listener(payload)
            except Exception:
                log.exception("a listener of %s failed", topic)

    def listen(self, topic: str, listener: Listener) -> None:
        """Call ``listener`` with each payload broadcast on ``topic``."""
        self._listeners.setdefault(topic, []).append(listener)

    async def lead(self, name: str) -> bool:
        """One process: it leads everything."""
        return True
