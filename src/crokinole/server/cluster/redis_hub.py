"""The hub of several processes: ownership by Redis leases, fan-out by Redis pub/sub.

A building block for running the server as several processes (issue 12):
it implements :class:`crokinole.server.cluster.hub.Hub`, but nothing in the app
uses it yet (one process uses :class:`~crokinole.server.cluster.hub.MemoryHub`).

**Ownership.**  ``claim(table, owner)`` sets the lease
``{prefix}lease:{table}`` to ``owner`` (``SET NX PX lease_ms``); claiming
again what one holds renews it.  A background task renews every lease this
hub holds each ``lease_ms / 3``; a renewal that finds the lease gone or
someone else's (or that could not reach Redis for a whole lease) drops it
and calls ``on_lost(table)``: the owner must give the table up, since
another process may take it over.  ``release`` deletes the lease only if
it is still the owner's (compare-and-delete in one Lua script).

**Fan-out.**  ``publish`` delivers to this process's subscribers at once
(the owner's table object as given) and publishes
``{"version", "events", "origin"}`` on ``{prefix}table:{table}``.  Another
process's hub keeps a *follower copy* of each table it has subscribers for:
read from the store (:func:`crokinole.server.owner.tables.stored_table`) when the
table gets its first subscriber here, then folded with each published event
(:meth:`~crokinole.table.Table.fold`).  Its subscribers get
``deliver(follower copy, events)``.  Redis pub/sub may drop messages: a
message whose first event does not follow the copy, or whose events do not
fold, makes the hub read the table again from the store, and the events
missed meanwhile are delivered with it (from the store's log).  Messages
from this hub itself are ignored.

The registry of subscribers is local and plain, as in ``MemoryHub``: the
channel is joined (and left) in the background.

**Requests.**  Each hub listens on its inbox ``{prefix}inbox:{origin}``:
:meth:`RedisHub.request` publishes a request there and waits for the
handler's answer (:meth:`RedisHub.serve`), which comes back on the
requester's inbox.  A request to a hub nobody listens for fails at once
(:class:`NoReceiverError`); one not answered in time raises ``TimeoutError``.
This is how a command reaches its table's owner from any process.

**Broadcasts and leads.**  :meth:`RedisHub.broadcast` and
:meth:`RedisHub.listen` carry JSON payloads on ``{prefix}topic:{topic}``
(this process's listeners are called at once); :meth:`RedisHub.lead` is a
lease on ``{prefix}lead:{name}`` claimed or renewed at each call.

After the pub/sub connection failed and came back, every follower copy is
read again from the store (the messages published meanwhile are lost).

Redis errors reach callers as :class:`~crokinole.server.cluster.hub.HubUnavailableError`.

Use it from one event loop; :meth:`RedisHub.close` stops its tasks and
releases the leases it holds.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import os
import secrets
import socket
import time
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import anyio.to_thread
from redis.asyncio import Redis
from redis.exceptions import RedisError

from crokinole.server.cluster.hub import (
    HubUnavailableError,
    Listener,
    NoReceiverError,
    Subscriber,
    stop_tasks,
)
from crokinole.server.owner.tables import stored_table
from crokinole.table import Event, Table, event_from_dict

if TYPE_CHECKING:
    from redis.asyncio.client import PubSub

    from crokinole.store import Store

log = logging.getLogger("crokinole.server")

#: Milliseconds a lease lasts without renewal (its owner is presumed dead after it).
LEASE_MS = 10_000

#: Prefix of every key and channel of the hub.
PREFIX = "crokinole:"

#: Seconds a call to Redis may take before it fails (a Redis that hangs, unreachable).
SOCKET_TIMEOUT_S = 5.0

#: Seconds of quiet after which a connection checks Redis still answers.
HEALTH_CHECK_S = 5

#: Seconds the pub/sub reader waits for a message before looking again (and
#: before trying again after Redis failed it).
POLL_S = 1.0

# Renew a lease only if it is still the owner's: 1 if renewed, 0 if not.
_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
    return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""

# Take a lead, or renew it if it is this hub's: 1 if held, 0 if another's.
_LEAD = """
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
    return 1
end
if redis.call('GET', KEYS[1]) == ARGV[1] then
    return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""

# Delete a lease only if it is still the owner's: 1 if deleted, 0 if not.
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
    return redis.call('DEL', KEYS[1])
end
return 0
"""

OnLost = Callable[[str], Awaitable[None] | None]

#: What :meth:`RedisHub.serve` calls with each request sent to this hub.
Handler = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]


def process_id() -> str:
    """A name for one hub, unique across hosts, processes and hubs of one process."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"


@dataclass
class _Lease:
    owner: str
    renewed_at: float  # time.monotonic() of the last claim or renewal that succeeded


@dataclass
class _Follow:
    """This process's subscribers of one table, and its follower copy of it."""

    subscribers: dict[Subscriber, None] = field(default_factory=dict)
    table: Table | None = None
    loaded: asyncio.Event = field(default_factory=asyncio.Event)


class RedisHub:
    """A :class:`~crokinole.server.cluster.hub.Hub` for several processes, on Redis.

    Args:
        redis: the client (``redis.asyncio.Redis``); :meth:`from_url` makes one
            that the hub closes with itself.
        store: this process's store, where follower copies are read from.
        on_lost: called with a table's id when its lease was found lost (a
            coroutine function is run as a task); the owner gives it up.
        lease_ms: how long a lease lasts without renewal.
        prefix: of every key and channel (tests give each their own).
        origin: this hub's name in what it publishes (unique by default).
    """

    def __init__(
        self,
        redis: Redis,
        store: Store,
        *,
        on_lost: OnLost | None = None,
        lease_ms: int = LEASE_MS,
        prefix: str = PREFIX,
        origin: str | None = None,
        owns_client: bool = False,
    ) -> None:
        if lease_ms < 3:
            raise ValueError(f"a lease lasts at least 3 ms, not {lease_ms}")
        self._redis = redis
        self._store = store
        self.on_lost = on_lost
        self.lease_ms = lease_ms
        self._prefix = prefix
        self.origin = origin if origin is not None else process_id()
        self._owns_client = owns_client
        self._renew = redis.register_script(_RENEW)
        self._release = redis.register_script(_RELEASE)
        self._leases: dict[str, _Lease] = {}
        self._follows: dict[str, _Follow] = {}
        self._joined: set[str] = set()
        self._channel_lock: asyncio.Lock | None = None
        self._pubsub: PubSub | None = None
        self._renewer: asyncio.Task[None] | None = None
        self._reader: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._closed = False
        self._listeners: dict[str, list[Listener]] = {}
        self._topics: set[str] = set()
        self._handler: Handler | None = None
        self._pending: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._inbox_joined = False
        self._leads: set[str] = set()
        #: False from a failure of the pub/sub connection until it reads again.
        self._listening = True
        self._lead = redis.register_script(_LEAD)

    @classmethod
    def from_url(cls, url: str, store: Store, **options: Any) -> RedisHub:
        """A hub on its own client for ``url`` (``redis://host:port/db``), closed with it.

        A Redis that stops answering fails a call after :data:`SOCKET_TIMEOUT_S`
        seconds rather than holding it for ever.
        """
        client = Redis.from_url(
            url,
            socket_timeout=SOCKET_TIMEOUT_S,
            socket_connect_timeout=SOCKET_TIMEOUT_S,
            # The pub/sub connection pings when it has been quiet this long: a
            # connection cut without a word (a partition) fails, and is made again.
            health_check_interval=HEALTH_CHECK_S,
        )
        return cls(client, store, owns_client=True, **options)

    # ------------------------------------------------------------ keys

    def lease_key(self, table_id: str) -> str:
        """The key of the table's lease (its value is the owner's name)."""
        return f"{self._prefix}lease:{table_id}"

    def channel(self, table_id: str) -> str:
        """The pub/sub channel of the table's events."""
        return f"{self._prefix}table:{table_id}"

    def inbox(self, origin: str) -> str:
        """The pub/sub channel of the requests and answers sent to the hub ``origin``."""
        return f"{self._prefix}inbox:{origin}"

    def topic(self, name: str) -> str:
        """The pub/sub channel of the broadcasts on ``name``."""
        return f"{self._prefix}topic:{name}"

    async def owners(self, table_ids: Sequence[str]) -> dict[str, str | None]:
        """Who holds each table's lease now (None: nobody), in one call.

        Raises:
            HubUnavailableError: Redis could not be reached.
        """
        if not table_ids:
            return {}
        try:
            values = await self._redis.mget([self.lease_key(t) for t in table_ids])
        except RedisError as exc:
            raise HubUnavailableError(f"Redis could not be reached: {exc}") from exc
        return {t: None if v is None else _text(v) for t, v in zip(table_ids, values, strict=True)}

    async def owner_of(self, table_id: str) -> str | None:
        """Who holds the table's lease now (None: nobody).

        Raises:
            HubUnavailableError: Redis could not be reached.
        """
        try:
            value = await self._redis.get(self.lease_key(table_id))
        except RedisError as exc:
            raise HubUnavailableError(f"Redis could not be reached: {exc}") from exc
        return None if value is None else _text(value)

    # ------------------------------------------------------------ ownership

    async def claim(self, table_id: str, owner: str) -> bool:
        """Make ``owner`` the table's owner (or renew its lease); False if another holds it.

        Raises:
            HubUnavailableError: Redis could not be reached (nothing is claimed).
        """
        key = self.lease_key(table_id)
        now = time.monotonic()
        try:
            taken = await self._redis.set(key, owner, nx=True, px=self.lease_ms)
            if not taken:
                taken = bool(await self._renew(keys=[key], args=[owner, self.lease_ms]))
        except RedisError as exc:
            raise HubUnavailableError(f"Redis could not be reached: {exc}") from exc
        if not taken:
            lease = self._leases.get(table_id)
            if lease is not None and lease.owner == owner:
                del self._leases[table_id]  # it was lost: the renewer has not noticed yet
            return False
        self._leases[table_id] = _Lease(owner, now)
        self._start_renewer()
        return True

    async def release(self, table_id: str, owner: str) -> None:
        """Give the table up, if ``owner`` holds it (another's lease is left alone).

        Raises:
            HubUnavailableError: Redis could not be reached (the lease then expires).
        """
        lease = self._leases.get(table_id)
        if lease is not None and lease.owner == owner:
            del self._leases[table_id]
        try:
            await self._release(keys=[self.lease_key(table_id)], args=[owner])
        except RedisError as exc:
            raise HubUnavailableError(f"Redis could not be reached: {exc}") from exc

    def holds(self, table_id: str) -> str | None:
        """The owner whose lease on the table this hub holds (and renews), or None."""
        lease = self._leases.get(table_id)
        return lease.owner if lease is not None else None

    def _start_renewer(self) -> None:
        if self._renewer is None and not self._closed:
            self._renewer = asyncio.get_running_loop().create_task(self._renew_forever())

    async def _renew_forever(self) -> None:
        while True:
            await asyncio.sleep(self.lease_ms / 3000)
            if self._closed:  # a cancellation absorbed on its way (see stop_tasks)
                return
            await self.renew()

    async def renew(self) -> None:
        """Renew every lease this hub holds now; report those lost to ``on_lost``.

        Runs every ``lease_ms / 3`` on its own; a lease that Redis could not
        renew for a whole ``lease_ms`` is reported lost too (it has expired,
        or is about to, and another process may take the table).
        """
        for table_id, lease in list(self._leases.items()):
            started = time.monotonic()
            try:
                renewed = bool(
                    await self._renew(
                        keys=[self.lease_key(table_id)], args=[lease.owner, self.lease_ms]
                    )
                )
            except RedisError as exc:
                if started - lease.renewed_at < self.lease_ms / 1000:
                    log.warning("could not renew the lease of table %s: %s", table_id, exc)
                    continue
                renewed = False
            if self._leases.get(table_id) is not lease:
                continue  # released or claimed again meanwhile
            if renewed:
                lease.renewed_at = started
                continue
            del self._leases[table_id]
            log.warning("the lease of table %s was lost", table_id)
            self._lost(table_id)

    def _lost(self, table_id: str) -> None:
        if self.on_lost is None:
            return
        try:
            result = self.on_lost(table_id)
        except Exception:
            log.exception("on_lost failed for table %s", table_id)
            return
        if inspect.isawaitable(result):
            self._spawn(_awaited(result))

    # ------------------------------------------------------------ fan-out

    def subscribe(self, table_id: str, subscriber: Subscriber) -> None:
        """Send ``subscriber`` every event published for the table from now on.

        The table's first subscriber here makes the hub join its channel and
        read its follower copy from the store (in the background).
        """
        follow = self._follows.get(table_id)
        if follow is None:
            follow = self._follows[table_id] = _Follow()
            self._spawn(self._follow(table_id, follow))
        follow.subscribers[subscriber] = None

    def unsubscribe(self, table_id: str, subscriber: Subscriber) -> None:
        """Stop sending the table's events to ``subscriber`` (unknown ones are ignored)."""
        follow = self._follows.get(table_id)
        if follow is None:
            return
        follow.subscribers.pop(subscriber, None)
        if not follow.subscribers:
            del self._follows[table_id]
            self._spawn(self._sync_channel(table_id))

    def subscribers(self, table_id: str) -> int:
        """How many subscribers the table has in this process."""
        follow = self._follows.get(table_id)
        return len(follow.subscribers) if follow is not None else 0

    def follower(self, table_id: str) -> Table | None:
        """This process's copy of the table (None before it is read, or with no subscriber)."""
        follow = self._follows.get(table_id)
        return follow.table if follow is not None else None

    @property
    def listening(self) -> bool:
        """Whether the hub's pub/sub connection works (False from a failure until it reads
        again): without it this process can neither follow tables nor send commands."""
        return self._listening

    def followed(self) -> list[str]:
        """The tables this process has subscribers for."""
        return list(self._follows)

    async def copy(self, table_id: str) -> Table | None:
        """The follower copy of the table once read (None: no subscriber here, or no table)."""
        follow = self._follows.get(table_id)
        if follow is None:
            return None
        await follow.loaded.wait()
        return follow.table

    async def following(self, table_id: str) -> None:
        """Wait until the table's channel is joined and its follower copy read."""
        follow = self._follows.get(table_id)
        if follow is not None:
            await follow.loaded.wait()

    async def publish(self, table_id: str, table: Table, events: Sequence[Event]) -> None:
        """Deliver to this process's subscribers, then publish for the other processes.

        Raises:
            HubUnavailableError: Redis could not be reached (this process's
                subscribers have their events; the others catch up later).
        """
        follow = self._follows.get(table_id)
        if follow is not None:
            if follow.table is None or follow.table.version < table.version:
                follow.table = table
            _deliver(table_id, follow, table, events)
        message = {
            "version": table.version,
            "events": [e.to_dict() for e in events],
            "origin": self.origin,
        }
        try:
            await self._redis.publish(self.channel(table_id), json.dumps(message))
        except RedisError as exc:
            raise HubUnavailableError(f"Redis could not be reached: {exc}") from exc

    # ------------------------------------------------------------ requests

    async def serve(self, handler: Handler) -> None:
        """Answer the requests sent to this hub with ``handler`` (listens on its inbox).

        Raises:
            HubUnavailableError: Redis could not be reached (the inbox is not joined).
        """
        self._handler = handler
        await self._join_inbox()

    async def _join_inbox(self) -> None:
        if self._inbox_joined:
            return
        if self._channel_lock is None:
            self._channel_lock = asyncio.Lock()
        async with self._channel_lock:
            if self._inbox_joined or self._closed:
                return
            if self._pubsub is None:
                self._pubsub = self._redis.pubsub()
            try:
                await self._pubsub.subscribe(self.inbox(self.origin))
            except RedisError as exc:
                raise HubUnavailableError(f"Redis could not be reached: {exc}") from exc
            self._inbox_joined = True
            self._start_reader()

    async def request(
        self, origin: str, body: dict[str, Any], *, timeout: float = 5.0
    ) -> dict[str, Any]:
        """Send ``body`` to the hub ``origin`` and wait for its handler's answer.

        Raises:
            NoReceiverError: no hub listens as ``origin`` (its process is gone).
            TimeoutError: no answer came within ``timeout`` seconds (the
                request may have been carried out: its events still come).
            HubUnavailableError: Redis could not be reached.
        """
        await self._join_inbox()
        if not self._listening:
            # The answer would come on a connection being made again: it could be lost
            # after the owner played the command.  Refused before anything is sent.
            raise HubUnavailableError("the hub's pub/sub connection is reconnecting")
        rid = secrets.token_hex(8)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[rid] = future
        message = {"kind": "request", "rid": rid, "from": self.origin, "body": body}
        try:
            try:
                receivers = await self._redis.publish(self.inbox(origin), json.dumps(message))
            except RedisError as exc:
                raise HubUnavailableError(f"Redis could not be reached: {exc}") from exc
            if not receivers:
                raise NoReceiverError(f"no server process answers as {origin}")
            async with asyncio.timeout(timeout):
                return await future
        finally:
            self._pending.pop(rid, None)

    async def _answer(self, message: dict[str, Any]) -> None:
        handler = self._handler
        if handler is None:
            answer: dict[str, Any] = {"error": "busy", "message": "this process takes no requests"}
        else:
            try:
                answer = await handler(message["body"])
            except Exception:
                log.exception("a request could not be answered")
                answer = {"error": "server_error", "message": "the server failed"}
        reply = {"kind": "answer", "rid": message["rid"], "body": answer}
        try:
            await self._redis.publish(self.inbox(str(message["from"])), json.dumps(reply))
        except RedisError as exc:
            log.warning("could not answer a request: %s", exc)

    # ------------------------------------------------------------ broadcasts and leads

    async def broadcast(self, topic: str, payload: dict[str, Any]) -> None:
        """Call this process's listeners of ``topic``, then publish for the others.

        Raises:
            HubUnavailableError: Redis could not be reached (the others miss it).
        """
        self._call_listeners(topic, payload)
        message = {"origin": self.origin, "payload": payload}
        try:
            await self._redis.publish(self.topic(topic), json.dumps(message))
        except RedisError as exc:
            raise HubUnavailableError(f"Redis could not be reached: {exc}") from exc

    def listen(self, topic: str, listener: Listener) -> None:
        """Call ``listener`` with each payload broadcast on ``topic`` (joined in the background)."""
        self._listeners.setdefault(topic, []).append(listener)
        if topic not in self._topics:
            self._topics.add(topic)
            self._spawn(self._join_topic(topic))

    async def _join_topic(self, topic: str) -> None:
        if self._channel_lock is None:
            self._channel_lock = asyncio.Lock()
        async with self._channel_lock:
            if self._closed:
                return
            if self._pubsub is None:
                self._pubsub = self._redis.pubsub()
            try:
                await self._pubsub.subscribe(self.topic(topic))
            except RedisError:
                log.exception("could not listen to %s", topic)
                return
            self._start_reader()

    def _call_listeners(self, topic: str, payload: dict[str, Any]) -> None:
        for listener in list(self._listeners.get(topic, ())):
            try:
                listener(payload)
            except Exception:
                log.exception("a listener of %s failed", topic)

    async def lead(self, name: str) -> bool:
        """Whether this hub leads ``name``: claims or renews the lease ``{prefix}lead:{name}``.

        Raises:
            HubUnavailableError: Redis could not be reached.
        """
        key = f"{self._prefix}lead:{name}"
        try:
            led = bool(await self._lead(keys=[key], args=[self.origin, self.lease_ms]))
        except RedisError as exc:
            raise HubUnavailableError(f"Redis could not be reached: {exc}") from exc
        if led:
            self._leads.add(key)
        else:
            self._leads.discard(key)
        return led

    async def _follow(self, table_id: str, follow: _Follow) -> None:
        """Join the table's channel, then read the follower copy (nothing falls between)."""
        try:
            await self._sync_channel(table_id)
            if self._follows.get(table_id) is follow:
                await self._reload(table_id, follow)
        finally:
            follow.loaded.set()

    async def _sync_channel(self, table_id: str) -> None:
        """Join or leave the table's channel, as its subscribers here now want."""
        if self._channel_lock is None:
            self._channel_lock = asyncio.Lock()
        async with self._channel_lock:
            if self._closed:
                return
            wanted = table_id in self._follows
            if wanted == (table_id in self._joined):
                return
            if self._pubsub is None:
                self._pubsub = self._redis.pubsub()
            try:
                if wanted:
                    await self._pubsub.subscribe(self.channel(table_id))
                    self._joined.add(table_id)
                    self._start_reader()
                else:
                    self._joined.discard(table_id)
                    await self._pubsub.unsubscribe(self.channel(table_id))
            except RedisError:
                log.exception("could not join or leave the channel of table %s", table_id)

    def _start_reader(self) -> None:
        if self._reader is None and not self._closed:
            self._reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        """The pub/sub reader: one message at a time, in order.

        After the connection failed, once it works again (redis-py joins the
        channels again), the follower copies are read again from the store.
        """
        assert self._pubsub is not None
        failed = False
        while not self._closed:  # (closed: a cancellation absorbed on its way, see stop_tasks)
            try:
                message = await self._pubsub.get_message(
                    ignore_subscribe_messages=True, timeout=POLL_S
                )
            except (RedisError, OSError) as exc:
                if not failed:
                    log.warning("the hub's pub/sub connection failed: %s", exc)
                failed = True
                self._listening = False
                await asyncio.sleep(POLL_S)
                continue
            if failed:
                failed = False
                self._listening = True
                log.warning("the hub's pub/sub connection is back: reading its tables again")
                for table_id, follow in list(self._follows.items()):
                    self._spawn(self._reload(table_id, follow))
            if message is None or message.get("type") != "message":
                continue
            channel = _text(message["channel"])
            try:
                if channel.startswith(f"{self._prefix}table:"):
                    await self._receive(channel, message["data"])
                else:
                    self._dispatch(channel, message["data"])
            except Exception:
                log.exception("a message on %s could not be handled", channel)

    def _dispatch(self, channel: str, data: bytes | str) -> None:
        """A message on an inbox (a request or an answer) or on a topic."""
        body = json.loads(data)
        if channel == self.inbox(self.origin):
            if body.get("kind") == "request":
                self._spawn(self._answer(body))
            elif body.get("kind") == "answer":
                future = self._pending.get(str(body.get("rid")))
                if future is not None and not future.done():
                    future.set_result(body["body"])
            return
        topic = channel.removeprefix(f"{self._prefix}topic:")
        if topic in self._topics and body.get("origin") != self.origin:
            self._call_listeners(topic, body["payload"])

    async def _receive(self, channel: str, data: bytes | str) -> None:
        """One published message: fold it into the follower copy and deliver it."""
        table_id = channel.removeprefix(f"{self._prefix}table:")
        follow = self._follows.get(table_id)
        if follow is None:
            return
        body = json.loads(data)
        if body.get("origin") == self.origin:
            return
        await follow.loaded.wait()
        if self._follows.get(table_id) is not follow:
            return
        version = int(body["version"])
        if follow.table is not None and version <= follow.table.version:
            return  # already in the copy (read from the store after it was published)
        try:
            events = [event_from_dict(e) for e in body["events"]]
            copy = follow.table
            if copy is None:
                raise LookupError(f"no copy of table {table_id} yet")
            events = [e for e in events if e.version > copy.version]  # some already in
            # Folding a shot simulates it again: off the event loop.
            table = await anyio.to_thread.run_sync(_folded, copy, events)
        except Exception as exc:
            log.info("table %s: reading it again from the store (%s)", table_id, exc)
            await self._reload(table_id, follow)
            return
        if self._follows.get(table_id) is not follow:
            return
        if follow.table is not None and follow.table.version >= table.version:
            return  # a publish here moved it on meanwhile
        follow.table = table
        _deliver(table_id, follow, table, events)

    async def _reload(self, table_id: str, follow: _Follow) -> None:
        """Read the follower copy from the store; deliver the events it gained, if any."""
        before = follow.table

        def read() -> tuple[Table | None, list[Event]]:
            stored = stored_table(self._store, table_id)
            if stored is None:
                return None, []
            table, _ = stored
            if before is None or table.version <= before.version:
                return table, []
            return table, [
                event_from_dict(e) for e in self._store.table_events(table_id, after=before.version)
            ]

        try:
            table, missed = await anyio.to_thread.run_sync(read)
        except Exception:
            log.exception("could not read table %s from the store", table_id)
            return
        if self._follows.get(table_id) is not follow or table is None:
            return
        if follow.table is not None and follow.table.version >= table.version:
            return  # a publish here moved it on meanwhile
        follow.table = table
        missed = [e for e in missed if e.version <= table.version]
        if missed:
            _deliver(table_id, follow, table, missed)

    # ------------------------------------------------------------ life

    async def close(self) -> None:
        """Stop renewing and reading, release the leases held, leave the channels."""
        self._closed = True
        tasks = [t for t in (self._renewer, self._reader, *self._tasks) if t is not None]
        await stop_tasks(tasks)
        for table_id, lease in list(self._leases.items()):
            try:
                await self.release(table_id, lease.owner)
            except HubUnavailableError as exc:
                log.warning("could not release table %s (it expires): %s", table_id, exc)
        self._leases.clear()
        for key in self._leads:  # another process leads at once, not a lease later
            try:
                await self._release(keys=[key], args=[self.origin])
            except RedisError as exc:
                log.warning("could not give up the lead %s (it expires): %s", key, exc)
        self._leads.clear()
        for future in self._pending.values():
            future.cancel()
        if self._pubsub is not None:
            try:
                await self._pubsub.aclose()  # type: ignore[no-untyped-call]
            except RedisError as exc:  # pragma: no cover - closing a dead connection
                log.warning("could not close the hub's pub/sub connection: %s", exc)
        if self._owns_client:
            await self._redis.aclose()

    def _spawn(self, coroutine: Coroutine[Any, Any, None]) -> None:
        if self._closed:
            coroutine.close()
            return
        task = asyncio.get_running_loop().create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


def _folded(table: Table, events: Sequence[Event]) -> Table:
    """``table`` folded with ``events``, with the shot reports of them all (as ``apply`` gives)."""
    reports = {}
    for event in events:
        table = table.fold(event)
        reports.update(table.shot_reports)
    return replace(table, shot_reports=reports)


def _deliver(table_id: str, follow: _Follow, table: Table, events: Sequence[Event]) -> None:
    for subscriber in list(follow.subscribers):
        try:
            subscriber.deliver(table, events)
        except Exception:
            log.exception("a subscriber of table %s failed to take its events", table_id)


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


async def _awaited(result: Awaitable[None]) -> None:
    try:
        await result
    except Exception:
        log.exception("on_lost failed")
