"""Command forwarding on Redis: a request to the process that owns a table, and its answer.

Each hub listens on its inbox ``{prefix}inbox:{origin}``, on a pub/sub connection
and a reader of its own (an answer never queues behind the tables' traffic):
:meth:`Forwarding.request` publishes a request there and waits for the
handler's answer (:meth:`Forwarding.serve`), which comes back on the
requester's inbox.  A request to a hub nobody listens for fails at once
(:class:`~crokinole.server.cluster.hub.NoReceiverError`); one not answered in
time raises ``TimeoutError``.  This is how a command reaches its table's
owner from any process (:mod:`crokinole.server.owner.commands`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from redis.exceptions import RedisError

from crokinole.errors import ErrorCode
from crokinole.server.cluster.hub import HubUnavailableError, NoReceiverError
from crokinole.server.cluster.redis_base import RedisBase, unreachable

if TYPE_CHECKING:
    from redis.asyncio.client import PubSub

log = logging.getLogger("crokinole.server")

#: What :meth:`Forwarding.serve` calls with each request sent to this hub.
Handler = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]


class Forwarding(RedisBase):
    """The part of :class:`~crokinole.server.cluster.redis_hub.RedisHub` that carries requests."""

    _handler: Handler | None
    _pending: dict[str, asyncio.Future[dict[str, Any]]]
    _inbox_joined: bool
    _inbox_lock: asyncio.Lock | None
    #: The inbox's own pub/sub connection, and its reader.
    _inbox_pubsub: PubSub | None
    _inbox_reader: asyncio.Task[None] | None

    def _init_forwarding(self) -> None:
        self._handler = None
        self._pending = {}
        self._inbox_joined = False
        self._inbox_lock = None
        self._inbox_pubsub = None
        self._inbox_reader = None

    async def serve(self, handler: Handler) -> None:
        """Answer the requests sent to this hub with ``handler`` (listens on its inbox).

        Raises:
            HubUnavailableError: Redis could not be reached (the inbox is not joined).
        """
        self._handler = handler
        await self._join_inbox()

    async def _join_inbox(self) -> None:
        """Listen on this hub's inbox, on a connection and a reader of its own."""
        if self._inbox_joined:
            return
        if self._inbox_lock is None:
            self._inbox_lock = asyncio.Lock()
        async with self._inbox_lock:
            if self._inbox_joined or self._closed:
                return
            if self._inbox_pubsub is None:
                self._inbox_pubsub = self._redis.pubsub()
            try:
                await self._inbox_pubsub.subscribe(self.inbox(self.origin))
            except RedisError as exc:
                raise unreachable(exc) from exc
            self._inbox_joined = True
            self._inbox_reader = asyncio.get_running_loop().create_task(self._read_inbox())

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
        if "inbox" in self._down:
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
                raise unreachable(exc) from exc
            if not receivers:
                raise NoReceiverError(f"no server process answers as {origin}")
            async with asyncio.timeout(timeout):
                return await future
        finally:
            self._pending.pop(rid, None)

    async def _answer(self, message: dict[str, Any]) -> None:
        handler = self._handler
        if handler is None:
            answer: dict[str, Any] = {
                "error": ErrorCode.BUSY.value,
                "message": "this process takes no requests",
            }
        else:
            try:
                answer = await handler(message["body"])
            except Exception:
                log.exception("a request could not be answered")
                answer = {"error": ErrorCode.SERVER_ERROR.value, "message": "the server failed"}
        reply = {"kind": "answer", "rid": message["rid"], "body": answer}
        try:
            await self._redis.publish(self.inbox(str(message["from"])), json.dumps(reply))
        except RedisError as exc:
            log.warning("could not answer a request: %s", exc)

    def _on_inbox(self, body: dict[str, Any]) -> None:
        """A message on this hub's inbox: a request to answer, or the answer to a request."""
        if body.get("kind") == "request":
            self._spawn(self._answer(body))
        elif body.get("kind") == "answer":
            future = self._pending.get(str(body.get("rid")))
            if future is not None and not future.done():
                future.set_result(body["body"])

    if TYPE_CHECKING:  # defined by RedisHub

        async def _read_inbox(self) -> None: ...

    def _cancel_requests(self) -> None:
        for future in self._pending.values():
            future.cancel()
