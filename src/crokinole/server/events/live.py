"""The live event page: ``GET /api/events/{id}/stream``, the view as Server-Sent Events.

A watcher (an open event page, a screen in the hall) is sent the event's
public view (:meth:`crokinole.events.event.Event.view`) at once, then the new
view each time the event changes, as ``text/event-stream``: one message per
view, its ``id`` the event's version, its ``data`` the view's JSON (the
browser's ``EventSource`` fires ``message``; after a drop it connects again
by itself and is sent the view as it then stands).

:class:`EventStreams` keeps this process's watchers by event.  A change is
heard from the service (:meth:`~crokinole.server.events.service.EventService.on_change`:
this process's changes, and every other process's through the hub, in
memory or on Redis); the event's view is then rendered **once** (on a worker
thread) and the same bytes handed to every watcher of the event in this
process.  A watcher that is slow to read skips to the newest view (each
view is whole), so nobody waits for anybody.  A broadcast lost on the way
(Redis pub/sub drops messages when a connection fails) is made good within
:data:`POLL_S`: the versions of the watched events are read from the store.

A comment line is sent every :data:`HEARTBEAT_S` seconds: proxies keep the
connection open, and a client gone without a word is found when the write
fails (a client that closes is noticed at once: Starlette listens for the
disconnect).  Streams are limited per client address (as websockets are,
``connections_per_address``) and per process (:data:`MAX_STREAMS`).

On shutdown every stream ends (:meth:`EventStreams.close`).  uvicorn waits
for open responses to end *before* it tells the app to shut down, so the
server is run by :class:`Server`, which closes the streams first.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import anyio.to_thread
import uvicorn
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.types import Receive, Scope, Send

from crokinole.errors import ErrorCode
from crokinole.rules.record_format import compact_json
from crokinole.server.cluster.hub import stop_tasks
from crokinole.server.events.service import EventService, Loaded
from crokinole.server.http.errors import HttpError

__all__ = ["HEARTBEAT_S", "MAX_STREAMS", "POLL_S", "EventStreams", "Server", "sse_frame"]

log = logging.getLogger("crokinole.server")

#: Seconds between two heartbeats (a comment line) of a quiet stream.
HEARTBEAT_S = 15.0
#: Seconds between two reads of the watched events' versions from the store.
POLL_S = 5.0
#: Streams one process serves at most.
MAX_STREAMS = 10_000
#: What a browser waits before connecting again after a drop (ms).
RETRY_MS = 2000


def sse_frame(version: int, view: dict[str, Any]) -> bytes:
    """One Server-Sent Events message: the view of ``version`` as JSON on one ``data`` line.

    >>> sse_frame(3, {"id": "e", "version": 3})
    b'id: 3\\ndata: {"id":"e","version":3}\\n\\n'
    """
    return f"id: {version}\ndata: {compact_json(view)}\n\n".encode()


@dataclass(eq=False)
class _Watcher:
    """One stream: woken when a newer view of its event is ready, or at shutdown."""

    wake: asyncio.Event = field(default_factory=asyncio.Event)
    sent: int = 0


@dataclass(eq=False)
class _Watched:
    """An event watched in this process: its watchers, and its newest view rendered."""

    watchers: set[_Watcher] = field(default_factory=set)
    frame: bytes = b""
    version: int = 0
    wanted: int = 0
    rendering: asyncio.Task[None] | None = None


class EventStreams:
    """This process's event streams (see the module's docstring).

    Args:
        service: the events (their loads, and the changes heard).
        per_address: streams one client address may hold.
        heartbeat_s: seconds between two heartbeats.
        poll_s: seconds between two reads of the watched versions.
    """

    def __init__(
        self,
        service: EventService,
        *,
        per_address: int = 32,
        heartbeat_s: float = HEARTBEAT_S,
        poll_s: float = POLL_S,
    ) -> None:
        self.service = service
        self.per_address = per_address
        self.heartbeat_s = heartbeat_s
        self.poll_s = poll_s
        self._watched: dict[str, _Watched] = {}
        self._addresses: dict[str, int] = {}
        self._streams = 0
        self._closed = False
        #: Views rendered (one per change and event, whatever the watchers): for tests.
        self.renders = 0
        self._listening = False

    @property
    def closed(self) -> bool:
        """Whether the streams were closed (the server shuts down)."""
        return self._closed

    def _ending(self) -> bool:
        return self._closed  # (a call: what a wait may change is read again)

    @property
    def streams(self) -> int:
        """Streams open now."""
        return self._streams

    def watchers(self, event_id: str) -> int:
        """Streams of the event open now."""
        watched = self._watched.get(event_id)
        return 0 if watched is None else len(watched.watchers)

    # ------------------------------------------------------------ changes

    def changed(self, event_id: str, version: int) -> None:
        """The event is at ``version`` now: render its view for its watchers (once)."""
        watched = self._watched.get(event_id)
        if watched is None or version <= max(watched.version, watched.wanted):
            return
        watched.wanted = version
        self._render_soon(event_id, watched)

    def _render_soon(self, event_id: str, watched: _Watched) -> asyncio.Task[None]:
        if watched.rendering is None:
            watched.rendering = asyncio.get_running_loop().create_task(
                self._render(event_id, watched)
            )
        return watched.rendering

    async def _render(self, event_id: str, watched: _Watched) -> None:
        """Render views until the one of the newest version wanted is ready."""
        try:
            while watched.wanted > watched.version and not self._closed:
                loaded = await self.service.loaded(event_id)
                if loaded is None or loaded.version <= watched.version:
                    break
                watched.frame = await anyio.to_thread.run_sync(self._frame, loaded)
                watched.version = loaded.version
                self.renders += 1
                for watcher in watched.watchers:
                    watcher.wake.set()
        except Exception:
            log.exception("the view of event %s could not be rendered", event_id)
        finally:
            # A render that failed or found nothing newer is tried again on the next change
            # heard (or the next poll).
            watched.wanted = min(watched.wanted, watched.version)
            watched.rendering = None
            if not watched.watchers and self._watched.get(event_id) is watched:
                del self._watched[event_id]

    def _frame(self, loaded: Loaded) -> bytes:
        return sse_frame(loaded.version, self.service.view(loaded.event))

    def listen(self) -> None:
        """Hear the events' changes (on the event loop: a hub on Redis joins its channel)."""
        if not self._listening:
            self._listening = True
            self.service.on_change(self.changed)

    async def run(self) -> None:
        """Hear the changes, and read the watched events' versions from the store every
        :data:`poll_s` (a change whose broadcast was lost is found), until closed."""
        self.listen()
        while not self._closed:
            await asyncio.sleep(self.poll_s)
            for event_id in [k for k, w in self._watched.items() if w.watchers]:
                try:
                    loaded = await self.service.loaded(event_id)
                except Exception as exc:  # the store down: the next round tries again
                    log.warning("could not look at event %s: %s", event_id, exc)
                    continue
                if loaded is not None:
                    self.changed(event_id, loaded.version)

    # ------------------------------------------------------------ streams

    async def response(self, request: Request, event_id: str) -> Response:
        """The stream of the event for ``request`` (404 if there is none, 429 over the limits)."""
        if self._closed:
            raise HttpError(ErrorCode.UNAVAILABLE, "the server is shutting down: try again")
        address = request.client.host if request.client else "?"
        if self._addresses.get(address, 0) >= self.per_address:
            raise HttpError(
                ErrorCode.RATE_LIMITED,
                f"at most {self.per_address} event streams are open from one address",
            )
        if self._streams >= MAX_STREAMS:
            raise HttpError(ErrorCode.BUSY, "the server has too many event streams open: try later")
        loaded = await self.service.require(event_id)
        watched = self._watched.setdefault(event_id, _Watched())
        watcher = _Watcher()
        watched.watchers.add(watcher)
        self._addresses[address] = self._addresses.get(address, 0) + 1
        self._streams += 1
        try:
            if loaded.version > watched.version:
                watched.wanted = max(watched.wanted, loaded.version)
                await asyncio.shield(self._render_soon(event_id, watched))
            if watched.version < loaded.version:
                raise HttpError(ErrorCode.UNAVAILABLE, "the event's view could not be made")
        except BaseException:
            self._leave(event_id, watched, watcher, address)
            raise
        return _Stream(
            self._frames(event_id, watched, watcher, address),
            lambda: self._leave(event_id, watched, watcher, address),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        )

    async def _frames(
        self, event_id: str, watched: _Watched, watcher: _Watcher, address: str
    ) -> AsyncIterator[bytes]:
        try:
            yield f"retry: {RETRY_MS}\n\n".encode()
            watcher.sent = watched.version
            yield watched.frame
            while not self.closed:
                try:
                    async with asyncio.timeout(self.heartbeat_s):
                        await watcher.wake.wait()
                except TimeoutError:
                    yield b": ping\n\n"
                    continue
                watcher.wake.clear()
                if self._ending():
                    break
                if watched.version > watcher.sent:
                    watcher.sent = watched.version
                    yield watched.frame
        finally:
            self._leave(event_id, watched, watcher, address)

    def _leave(self, event_id: str, watched: _Watched, watcher: _Watcher, address: str) -> None:
        if watcher not in watched.watchers:
            return
        watched.watchers.discard(watcher)
        self._streams -= 1
        left = self._addresses.get(address, 1) - 1
        if left > 0:
            self._addresses[address] = left
        else:
            self._addresses.pop(address, None)
        if not watched.watchers and watched.rendering is None:
            self._watched.pop(event_id, None)

    def close(self) -> None:
        """End every stream (the server shuts down); new ones are refused."""
        self._closed = True
        for watched in self._watched.values():
            for watcher in watched.watchers:
                watcher.wake.set()

    async def stop(self) -> None:
        """End every stream and the renders under way."""
        self.close()
        await stop_tasks([w.rendering for w in self._watched.values() if w.rendering is not None])


class _Stream(StreamingResponse):
    """A streaming response that calls ``on_close`` however it ends: a client gone before
    the first frame cancels the response before its generator ever runs (so the
    generator's ``finally`` never does)."""

    def __init__(self, content: AsyncIterator[bytes], on_close: Callable[[], None], **kw: Any):
        super().__init__(content, **kw)
        self._on_close = on_close

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self._on_close()


class Server(uvicorn.Server):
    """uvicorn's server, which ends the app's event streams before it waits for connections.

    uvicorn lets every response in progress finish before it sends the app
    the lifespan's shutdown; an event stream never finishes by itself, so
    without this a server with watchers would wait for ever.
    """

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        """Close the event streams of the app (if it has them), then shut down as uvicorn does."""
        app: Any = self.config.app
        with contextlib.suppress(AttributeError):
            streams = app.state.events.streams
            if isinstance(streams, EventStreams):
                streams.close()
        await super().shutdown(sockets)
