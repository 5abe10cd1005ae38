"""What the parts of the Redis hub share: the client, the key names, the pub/sub connection.

:class:`RedisBase` declares the state of
:class:`~crokinole.server.cluster.redis_hub.RedisHub` that its parts
(:mod:`~crokinole.server.cluster.leases`, :mod:`~crokinole.server.cluster.fanout`,
:mod:`~crokinole.server.cluster.forwarding`) work on: the client, the prefix
of every key and channel, the pub/sub connection of the tables and topics
(joined and left under one lock, read by one reader task that hands each
table's messages to that table's worker) and the background tasks.  The
inbox of requests and answers has a connection and a reader of its own
(:mod:`~crokinole.server.cluster.forwarding`): an answer never waits behind
the tables' traffic.  Nothing here
is used on its own.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Coroutine
from typing import TYPE_CHECKING, Any

from redis.exceptions import RedisError

from crokinole.server.cluster.hub import HubUnavailableError

if TYPE_CHECKING:
    from redis.asyncio import Redis
    from redis.asyncio.client import PubSub

    from crokinole.store import Store

#: Prefix of every key and channel of the hub.
PREFIX = "crokinole:"


def unreachable(exc: RedisError) -> HubUnavailableError:
    """The error a caller gets for a Redis call that failed."""
    return HubUnavailableError(f"Redis could not be reached: {exc}")


def text(value: bytes | str) -> str:
    """A value as Redis returns it (bytes), as text."""
    return value.decode() if isinstance(value, bytes) else value


class RedisBase:
    """The state the parts of :class:`~crokinole.server.cluster.redis_hub.RedisHub` share."""

    origin: str
    lease_ms: int
    _redis: Redis
    _store: Store
    _prefix: str
    _closed: bool
    _channel_lock: asyncio.Lock | None
    _pubsub: PubSub | None
    _reader: asyncio.Task[None] | None
    _tasks: set[asyncio.Task[None]]
    #: The pub/sub connections that failed and do not read again yet (by name).
    _down: set[str]

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

    # ------------------------------------------------------------ the connection

    @contextlib.asynccontextmanager
    async def _channels(self) -> AsyncIterator[PubSub | None]:
        """The pub/sub connection (made on first use), held under the one lock that
        orders joining and leaving channels; None once the hub is closed."""
        if self._channel_lock is None:
            self._channel_lock = asyncio.Lock()
        async with self._channel_lock:
            if self._closed:
                yield None
                return
            if self._pubsub is None:
                self._pubsub = self._redis.pubsub()
            yield self._pubsub

    def _start_reader(self) -> None:
        if self._reader is None and not self._closed:
            self._reader = asyncio.get_running_loop().create_task(self._read())

    def _spawn(self, coroutine: Coroutine[Any, Any, None]) -> asyncio.Task[None] | None:
        """Run ``coroutine`` as a task the hub stops when it closes (None: closed already)."""
        if self._closed:
            coroutine.close()
            return None
        task = asyncio.get_running_loop().create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    if TYPE_CHECKING:  # defined by RedisHub

        async def _read(self) -> None: ...
