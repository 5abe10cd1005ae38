"""The ASGI application: the static client, a small HTTP API and the game websocket.

``create_app(db)`` builds a Starlette app on a store; ``crokinole serve``
runs it with uvicorn.  Each websocket is one client (a browser tab) speaking
protocol version 2 (docs/protocol.md): it says ``hello`` with its device
token, then creates, joins or reopens tables.  The server is the only
authority; bad messages get an ``error`` and change nothing.  What one client
can cost is bounded (:mod:`crokinole.server.limits`).

This module only wires: it makes the services and keeps them on
``app.state`` (the HTTP routes' :class:`~crokinole.server.http.context.HttpContext`
on ``app.state.http``), mounts the routes of :mod:`crokinole.server.http`
and the websocket of :mod:`crokinole.server.ws.endpoint`, and installs the
middleware and the one handler of the HTTP errors
(:mod:`crokinole.server.http.errors`).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

import anyio
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.routing import BaseRoute, Mount, WebSocketRoute
from starlette.staticfiles import StaticFiles

from crokinole.server.accounts import Accounts
from crokinole.server.background import purge, warm_up_and_freeze
from crokinole.server.bots import Bots
from crokinole.server.cluster.hub import Hub
from crokinole.server.events import http as event_http
from crokinole.server.events.live import EventStreams
from crokinole.server.events.service import EventService
from crokinole.server.events.tables import EventTables
from crokinole.server.http import (
    accounts,
    bots,
    metrics,
    pages,
    practice,
    ranked,
    records,
    replays,
    review,
    sheets,
)
from crokinole.server.http.context import HttpContext
from crokinole.server.http.errors import EXCEPTION_HANDLERS
from crokinole.server.http.security import SecurityHeaders
from crokinole.server.limits import RateLimiter, ServerSettings, SharedCounts
from crokinole.server.owner.cpu import AnalysisPool
from crokinole.server.owner.tables import Tables
from crokinole.server.ranked.queue import RankedQueue
from crokinole.server.ws.endpoint import Connections
from crokinole.store import Store
from crokinole.web import STATIC_DIR

if TYPE_CHECKING:
    from crokinole.server.cluster.redis_hub import RedisHub

__all__ = ["create_app"]

#: Every HTTP route, by group (each module's ``routes``).
HTTP_ROUTES: list[BaseRoute] = [
    *pages.routes,
    *sheets.routes,
    *replays.routes,
    *accounts.routes,
    *bots.routes,
    *ranked.routes,
    *review.routes,
    *practice.routes,
    *records.routes,
    *metrics.routes,
    *event_http.routes,
]


def _redis_hub(
    redis: str | None, store: Store, settings: ServerSettings, prefix: str
) -> RedisHub | None:
    if redis is None:
        return None
    from crokinole.server.cluster.redis_hub import RedisHub  # noqa: PLC0415 - only with Redis

    return RedisHub.from_url(redis, store, lease_ms=settings.lease_ms, prefix=prefix)


def create_app(  # noqa: PLR0915 - the wiring of every service, in one place
    db: str,
    settings: ServerSettings | None = None,
    *,
    ranked_rounds: int | None = None,
    redis: str | None = None,
    redis_prefix: str = "crokinole:",
) -> Starlette:
    """The game server on the database ``db`` (a path for SQLite, or a SQLAlchemy URL).

    ``ranked_rounds`` shortens ranked games to 1-3 rounds (tests only).
    With ``redis`` (a ``redis://`` URL) the server is one of several
    processes on one database that share the games through Redis
    (:class:`~crokinole.server.cluster.redis_hub.RedisHub`, its keys and channels
    under ``redis_prefix``); without, its hub is in memory.
    """
    settings = settings or ServerSettings()
    store = Store.open(db)
    redis_hub = _redis_hub(redis, store, settings, redis_prefix)
    hub: Hub | None = redis_hub
    tables = Tables.from_settings(store, settings, hub=hub)
    if redis_hub is not None:
        redis_hub.on_lost = tables.lost
    # Reviews and the practice room compute here, never on the CPU players' threads.
    analysis = AnalysisPool(settings.analysis_workers, settings.analysis_queue)
    logins = Accounts(
        store,
        pair_limit=settings.login_limit_pair,
        address_limit=settings.login_limit_address,
        account_limit=settings.login_limit_account,
    )
    queue = RankedQueue(store, tables, rounds=ranked_rounds)
    # With Redis the limits hold for the whole site, not for each process.
    shared = None if redis is None else SharedCounts.from_url(redis, redis_prefix)
    sockets = Connections(tables, settings, logins, queue, shared=shared, bots=Bots(store, logins))
    # Events: changed through the service, heard by every process through the hub.
    events = EventService(store, tables.hub)
    # The rounds' online tables, and their results entered by the tables' owners.
    online = EventTables.installed(events, tables)
    streams = EventStreams(events, per_address=settings.connections_per_address)
    per_minute = event_http.JOINS_PER_MINUTE, event_http.REPORTS_PER_MINUTE
    events_http = event_http.EventsHttp(
        events,
        streams,
        joins=RateLimiter(per_minute[0], 60.0, shared=shared, kind="event_joins"),
        reports=RateLimiter(per_minute[1], 60.0, shared=shared, kind="event_reports"),
    )

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        async with anyio.create_task_group() as background:
            # On the CPU players' pool, off the event loop: the server answers
            # while the kernels compile.
            background.start_soon(warm_up_and_freeze, tables, settings)
            background.start_soon(purge, store, logins, settings)
            background.start_soon(sockets.sweep_sessions)
            background.start_soon(sockets.renew_forever)
            background.start_soon(streams.run)
            await tables.startup()
            sockets.listen()
            await queue.startup()
            background.start_soon(online.run)
            yield
            background.cancel_scope.cancel()
        await streams.stop()
        await queue.close()
        await tables.close()
        analysis.close()
        if redis_hub is not None:
            await redis_hub.close()
        if shared is not None:
            await shared.close()
        store.close()

    routes = [
        *HTTP_ROUTES,
        # Protocol version 2 at both paths: the client's net.js and the bench use /ws/v2.
        WebSocketRoute("/ws", sockets.play),
        WebSocketRoute("/ws/v2", sockets.play),
        Mount("/static", StaticFiles(directory=STATIC_DIR, check_dir=False), name="static"),
    ]
    # Text compresses ~4×: the game page is about 27 KB on the wire instead of 94 KB.
    middleware = [Middleware(GZipMiddleware, minimum_size=1024)]
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        middleware=middleware,
        exception_handlers=EXCEPTION_HANDLERS,
    )
    # The security headers wrap the whole stack, Starlette's own error pages included.
    build = app.build_middleware_stack
    app.build_middleware_stack = lambda: SecurityHeaders(build())  # type: ignore[method-assign]
    app.state.http = HttpContext(
        store,
        settings,
        accounts=logins,
        tables=tables,
        analysis=analysis,
        on_ended=sockets.session_ended,
        bots=sockets.bots,
        on_revoked=sockets.tokens_revoked,
        bots_online=sockets.bots_online,
        redis_hub=redis_hub,
        shared=shared,
    )
    app.state.tables = tables
    app.state.accounts = logins
    app.state.ranked = queue
    app.state.challenges = sockets.challenges
    app.state.events = events_http
    return app
