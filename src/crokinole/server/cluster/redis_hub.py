"""The hub of several processes, on Redis: leases, fan-out and command forwarding.

:class:`RedisHub` implements :class:`crokinole.server.cluster.hub.ClusterHub`;
the app runs on it when it is given a Redis URL (several server processes
sharing one database; one process alone uses
:class:`~crokinole.server.cluster.hub.MemoryHub`).  It is made of three
parts, one per job: :mod:`~crokinole.server.cluster.leases` (who owns each
table: leases claimed, renewed and released; leads),
:mod:`~crokinole.server.cluster.fanout` (each table's events to every
process's subscribers, with a follower copy of the table; broadcasts) and
:mod:`~crokinole.server.cluster.forwarding` (a command sent to the process
that owns its table, and its answer).  This module makes the client and runs
the pub/sub readers that hand each message to its part: one for the tables'
channels and the topics (a table's messages go to that table's worker, so
tables never wait for each other) and one for this hub's inbox, on its own
connection (command answers never queue behind table traffic).

After the pub/sub connection failed and came back, every follower copy is
read again from the store (the messages published meanwhile are lost).

Redis errors reach callers as :class:`~crokinole.server.cluster.hub.HubUnavailableError`.

Use it from one event loop; :meth:`RedisHub.close` stops its tasks and
releases the leases it holds.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import secrets
import socket
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from redis.asyncio import Redis
from redis.exceptions import RedisError

from crokinole.server.cluster.fanout import FanOut
from crokinole.server.cluster.forwarding import Forwarding, Handler
from crokinole.server.cluster.hub import stop_tasks
from crokinole.server.cluster.leases import LEASE_MS, Leases, OnLost
from crokinole.server.cluster.redis_base import PREFIX, text

if TYPE_CHECKING:
    from redis.asyncio.client import PubSub

    from crokinole.store import Store

__all__ = ["LEASE_MS", "PREFIX", "Handler", "OnLost", "RedisHub", "process_id"]

log = logging.getLogger("crokinole.server")

#: Seconds a call to Redis may take before it fails (a Redis that hangs, unreachable).
SOCKET_TIMEOUT_S = 5.0

#: Seconds of quiet after which a connection checks Redis still answers.
HEALTH_CHECK_S = 5

#: Seconds the pub/sub reader waits for a message before looking again (and
#: before trying again after Redis failed it).
POLL_S = 1.0


def process_id() -> str:
    """A name for one hub, unique across hosts, processes and hubs of one process."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"


class RedisHub(Leases, FanOut, Forwarding):
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
        self.lease_ms = lease_ms
        self._prefix = prefix
        self.origin = origin if origin is not None else process_id()
        self._owns_client = owns_client
        self._channel_lock = None
        self._pubsub = None
        self._reader = None
        self._tasks = set()
        self._down = set()
        self._closed = False
        self._init_leases(redis, on_lost)
        self._init_fanout()
        self._init_forwarding()

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

    @property
    def listening(self) -> bool:
        """Whether the hub's pub/sub connections work (False from a failure until they read
        again): without them this process can neither follow tables nor send commands."""
        return not self._down

    async def _read(self) -> None:
        """The reader of the tables' and topics' channels: each table's message is queued
        for that table's worker, a topic's listeners are called.

        After the connection failed, once it works again (redis-py joins the
        channels again), the follower copies are read again from the store.
        """
        assert self._pubsub is not None
        await self._read_from(self._pubsub, "pub/sub", self._on_message, self._reload_all)

    async def _read_inbox(self) -> None:
        """The reader of this hub's inbox (requests and answers), on its own connection."""
        assert self._inbox_pubsub is not None
        await self._read_from(self._inbox_pubsub, "inbox", self._on_inbox_message, None)

    async def _read_from(
        self,
        pubsub: PubSub,
        name: str,
        handle: Callable[[str, bytes | str], None],
        back: Callable[[], None] | None,
    ) -> None:
        """Hand each message of ``pubsub`` to ``handle``, in order, until the hub closes;
        ``back`` is called when the connection works again after a failure."""
        failed = False
        while not self._closed:  # (closed: a cancellation absorbed on its way, see stop_tasks)
            try:
                message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=POLL_S)
            except (RedisError, OSError) as exc:
                if not failed:
                    log.warning("the hub's %s connection failed: %s", name, exc)
                failed = True
                self._down.add(name)
                await asyncio.sleep(POLL_S)
                continue
            if failed:
                failed = False
                self._down.discard(name)
                log.warning("the hub's %s connection is back", name)
                if back is not None:
                    back()
            if message is None or message.get("type") != "message":
                continue
            channel = text(message["channel"])
            try:
                handle(channel, message["data"])
            except Exception:
                log.exception("a message on %s could not be handled", channel)

    def _on_message(self, channel: str, data: bytes | str) -> None:
        """A message on a table's channel or on a topic."""
        if channel.startswith(f"{self._prefix}table:"):
            self._receive(channel, data)
        else:
            self._on_topic(channel, json.loads(data))

    def _on_inbox_message(self, channel: str, data: bytes | str) -> None:
        """A message on this hub's inbox: a request or an answer."""
        self._on_inbox(json.loads(data))

    async def close(self) -> None:
        """Stop renewing and reading, release the leases held, leave the channels."""
        self._closed = True
        readers = (self._renewer, self._reader, self._inbox_reader)
        await stop_tasks([t for t in (*readers, *self._tasks) if t is not None])
        await self._release_all()
        self._cancel_requests()
        for pubsub in (self._pubsub, self._inbox_pubsub):
            if pubsub is None:
                continue
            try:
                await pubsub.aclose()  # type: ignore[no-untyped-call, unused-ignore]  # typed from redis 8
            except RedisError as exc:  # pragma: no cover - closing a dead connection
                log.warning("could not close a pub/sub connection of the hub: %s", exc)
        if self._owns_client:
            await self._redis.aclose()
