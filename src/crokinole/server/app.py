"""The ASGI application: the static client, a small HTTP API and the game websocket.

``create_app(db)`` builds a Starlette app on a store; ``crokinole serve``
runs it with uvicorn.  Each websocket is one client (a browser tab) speaking
protocol version 2 (docs/protocol.md): it says ``hello`` with its device
token, then creates, joins or reopens tables.  The server is the only
authority; bad messages get an ``error`` and change nothing.  What one client
can cost is bounded (:mod:`crokinole.server.limits`).
"""

from __future__ import annotations

import contextlib
import functools
import gc
import json
import logging
import re
import time
from collections import Counter
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket

from crokinole.server.accounts import Accounts
from crokinole.server.cluster.hub import Hub, HubUnavailableError
from crokinole.server.http import accounts as accounts_http
from crokinole.server.http import pages, replays, sheets
from crokinole.server.http import practice as practice_http
from crokinole.server.http import ranked as ranked_http
from crokinole.server.http import review as analysis_http
from crokinole.server.http.security import SecurityHeaders
from crokinole.server.limits import RateLimiter, ServerSettings, origin_allowed
from crokinole.server.owner.cpu import AnalysisPool
from crokinole.server.owner.tables import Tables, stored_table
from crokinole.server.ranked.queue import RankedQueue
from crokinole.server.ws.messages import TABLE_PATTERN, TOKEN_PATTERN
from crokinole.server.ws.session import CLOSE_POLICY, RECORD_OPPONENTS, Attendance, Session
from crokinole.server.ws.views import seat_names
from crokinole.store import Store, StoreUnavailableError
from crokinole.web import STATIC_DIR

if TYPE_CHECKING:
    from crokinole.server.cluster.redis_hub import RedisHub

STATIC = STATIC_DIR
log = logging.getLogger("crokinole.server")

#: How often abandoned games of protocol 1 (the store's rooms) past the retention
#: period are compacted; tables are not purged yet.
PURGE_EVERY_S = 3600.0
#: The hub's topic on which the token hashes of ended login sessions are broadcast.
SESSION_ENDED = "accounts.ended"


def purge_cutoff(now: datetime, retention_days: float) -> datetime:
    """Abandoned games last changed before this time are compacted.

    A retention longer than the calendar reaches back (``--retention-days
    1e9``: keep them all) means the beginning of time, not an error every hour.

    >>> purge_cutoff(datetime(2026, 3, 31), 30)
    datetime.datetime(2026, 3, 1, 0, 0)
    >>> purge_cutoff(datetime(2026, 3, 31), 1e9)
    datetime.datetime(1, 1, 1, 0, 0)
    """
    try:
        return now - timedelta(days=retention_days)
    except OverflowError:
        return datetime.min


#: The collector's thresholds in a server process (Python's are 700, 10, 10).
COLLECTOR_THRESHOLDS = (20_000, 50, 100)


def tune_collector() -> None:
    """Make the garbage collector's pauses short for a server process (once it has started).

    What the server made to start (modules, compiled kernels) lives for ever:
    :func:`gc.freeze` takes it out of the collector's generations, so full
    passes stop scanning it.  A youngest generation of 20,000 objects instead
    of 700 lets a game's short-lived messages die before they are scanned,
    and full passes come a hundred times rarer.  Measured with ``crokinole
    bench server --games 200``: full passes had paused the event loop for up
    to 0.23 s, a p99 of 220 ms; tuned, p99 was 56 ms.
    """
    gc.freeze()
    gc.set_threshold(*COLLECTOR_THRESHOLDS)


def create_app(
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
    hub: Hub | None = None
    redis_hub: RedisHub | None = None
    if redis is not None:
        from crokinole.server.cluster.redis_hub import RedisHub  # noqa: PLC0415 - only with Redis

        redis_hub = RedisHub.from_url(redis, store, lease_ms=settings.lease_ms, prefix=redis_prefix)
        hub = redis_hub
    tables = Tables.from_settings(store, settings, hub=hub)
    # Reviews and the practice room compute here, never on the CPU players' threads.
    analysis = AnalysisPool(settings.analysis_workers, settings.analysis_queue)
    if redis_hub is not None:
        redis_hub.on_lost = tables.lost
    accounts = Accounts(
        store,
        pair_limit=settings.login_limit_pair,
        address_limit=settings.login_limit_address,
        account_limit=settings.login_limit_account,
    )
    ranked = RankedQueue(store, tables, rounds=ranked_rounds)
    presence = Attendance()
    limiter = RateLimiter(settings.rooms_per_minute, 60.0)
    per_address: Counter[str] = Counter()
    #: This process's connections (those a login session ended are closed).
    live: set[Session] = set()

    def on_session_ended(payload: dict[str, Any]) -> None:
        ended = set(payload.get("sessions", ()))
        for session in [s for s in live if s.login is not None and s.login in ended]:
            session.session_ended()

    async def session_ended(hashes: list[str]) -> None:
        """Close the connections of the ended sessions, in every process."""
        try:
            await tables.hub.broadcast(SESSION_ENDED, {"sessions": hashes})
        except HubUnavailableError as exc:  # this process's were closed; the others' will not be
            log.warning("could not tell the other processes that sessions ended: %s", exc)

    #: Addresses refused new websockets until a monotonic time (after a flood).
    cooling: dict[str, float] = {}

    async def index(_: Request) -> Response:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    async def health(_: Request) -> Response:
        # What a load balancer asks: 503 while this process cannot play games (its
        # database, or on a site of several processes its Redis, cannot be reached).
        problems: dict[str, str] = {}
        try:
            await anyio.to_thread.run_sync(store.ping)
        except StoreUnavailableError as exc:
            problems["database"] = str(exc)
        if redis_hub is not None and not redis_hub.listening:
            problems["redis"] = "the connection to Redis is down; it is being made again"
        if problems:
            return JSONResponse({"ok": False, **problems}, status_code=503)
        return JSONResponse({"ok": True})

    async def device_record(request: Request) -> Response:
        # The token is a credential: it travels in a header, never in the URL
        # (URLs land in access logs and browser history).
        token = request.headers.get("x-device-token")
        if token is None:
            return JSONResponse(
                {"error": "send the device token in the X-Device-Token header"}, status_code=400
            )
        if not re.match(TOKEN_PATTERN, token):
            return JSONResponse(
                {"error": "a device token is 16–64 letters, digits, '-' or '_'"}, status_code=400
            )
        record = await anyio.to_thread.run_sync(store.device_record, token, RECORD_OPPONENTS)
        open_tables = await anyio.to_thread.run_sync(store.open_tables_of_device, token)
        return JSONResponse({"record": record, "tables": open_tables})

    async def table_record(request: Request) -> Response:
        table_id = request.path_params["table"]
        if not re.match(TABLE_PATTERN, table_id):
            return JSONResponse({"error": "a table id is 32 hexadecimal digits"}, status_code=400)
        stored = await anyio.to_thread.run_sync(stored_table, store, table_id)
        table = None if stored is None else stored[0]
        if table is None or table.game is None:
            return JSONResponse({"error": f"table {table_id} has no game"}, status_code=404)
        # The game record (R9), with what the table knows beyond the rules: who played each
        # seat, and the hints and heat maps each seat took (readers of the record format
        # ignore the extra keys).
        record = table.game.to_record()
        record["names"] = seat_names(table, shared=True)
        record["hints_used"] = {
            seat.name.lower(): table.hints_used.get(seat, 0) for seat in table.game.rules.seats
        }
        return Response(
            json.dumps(record, separators=(",", ":"), allow_nan=False),
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="crokinole-{table_id}.json"'},
        )

    async def admitted(websocket: WebSocket) -> str | None:
        """The client's address if the handshake may go on (else it was refused: HTTP 403)."""
        origin = websocket.headers.get("origin")
        if not origin_allowed(origin, websocket.headers.get("host"), settings.allowed_origins):
            log.warning("refused a websocket from origin %r", origin)
            await websocket.close(code=CLOSE_POLICY)  # before accepting: HTTP 403
            return None
        address = websocket.client.host if websocket.client else "?"
        if per_address[address] >= settings.connections_per_address:
            await websocket.close(code=CLOSE_POLICY)
            return None
        if cooling.get(address, 0.0) > time.monotonic():
            # This address flooded a socket a moment ago: each new socket costs
            # the server the parsing of what it sends before it can be closed.
            await websocket.close(code=CLOSE_POLICY)
            return None
        per_address[address] += 1
        return address

    def cool(address: str) -> None:
        """Refuse the address new websockets for a while: one of its sockets flooded."""
        now = time.monotonic()
        if len(cooling) > 10_000:  # forget the cooled down: memory stays bounded
            for cooled in [a for a, until in cooling.items() if until <= now]:
                del cooling[cooled]
        cooling[address] = now + settings.flood_cooldown

    def gone(address: str) -> None:
        per_address[address] -= 1
        if per_address[address] <= 0:
            del per_address[address]

    async def play(websocket: WebSocket) -> None:
        address = await admitted(websocket)
        if address is None:
            return
        session = Session(
            websocket, tables, settings, limiter, presence, accounts=accounts, ranked=ranked
        )
        live.add(session)
        session.on_flood = functools.partial(cool, address)
        try:
            await websocket.accept()
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(session.writer)
                tasks.start_soon(session.reader)
                tasks.start_soon(session.hello_deadline)
                await session.done.wait()
                tasks.cancel_scope.cancel()
            # A client dropped for flooding gets no closing handshake: the
            # socket just ends (the handshake would parse all it sent first).
            if session.dropped is not None and session.close_frame:
                # The close frame may never get through to a client that does
                # not read: the server gives up on it after a second.
                code, reason = session.dropped
                with anyio.move_on_after(1.0), contextlib.suppress(Exception):
                    await websocket.close(code=code, reason=reason)
        finally:
            live.discard(session)
            with anyio.CancelScope(shield=True):
                await session.close()
            gone(address)

    async def sweep_sessions() -> None:
        """Close the sockets whose login session ended unheard of (a broadcast lost, an expiry)."""
        while True:
            await anyio.sleep(settings.session_sweep)
            logins = {s.login for s in live if s.login is not None}
            try:
                ended = await anyio.to_thread.run_sync(accounts.ended_sessions, sorted(logins))
            except StoreUnavailableError as exc:
                log.warning("could not check the websockets' login sessions: %s", exc)
                continue
            if ended:
                on_session_ended({"sessions": sorted(ended)})

    async def purge() -> None:
        while True:
            before = purge_cutoff(datetime.now(UTC).replace(tzinfo=None), settings.retention_days)
            try:
                count = await anyio.to_thread.run_sync(store.purge_abandoned, before)
                if count:
                    log.info("compacted %d abandoned games", count)
                await anyio.to_thread.run_sync(accounts.purge)
            except Exception:
                log.exception("compacting abandoned games failed")
            await anyio.sleep(PURGE_EVERY_S)

    async def warm_up_and_freeze() -> None:
        if settings.warm_up:
            await tables.cpu.warm_up()
        if settings.own_process:
            tune_collector()

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        async with anyio.create_task_group() as background:
            # On the CPU players' pool, off the event loop: the server answers
            # while the kernels compile.
            background.start_soon(warm_up_and_freeze)
            background.start_soon(purge)
            background.start_soon(sweep_sessions)
            await tables.startup()
            tables.hub.listen(SESSION_ENDED, on_session_ended)
            await ranked.startup()
            yield
            background.cancel_scope.cancel()
        await ranked.close()
        await tables.close()
        analysis.close()
        if redis_hub is not None:
            await redis_hub.close()
        store.close()

    async def keep_score(_: Request) -> Response:
        return FileResponse(STATIC / "scorekeeper.html", headers={"Cache-Control": "no-cache"})

    routes = [
        Route("/", index),
        # A party's invite link and its spectators' link: the client reads the path.
        Route("/join/{code}", index),
        Route("/watch/{code}", index),
        Route("/keep-score", keep_score),
        *sheets.routes(store),
        *replays.routes(store),
        *pages.routes(),
        *accounts_http.routes(accounts, settings, on_ended=session_ended),
        *ranked_http.routes(store),
        *analysis_http.routes(store, tables, accounts, analysis),
        *practice_http.routes(store, accounts, settings),
        Route("/healthz", health),
        Route("/api/record", device_record),
        Route("/api/tables/{table}/record.json", table_record),
        # Protocol version 2 at both paths: the client's net.js and the bench use /ws/v2.
        WebSocketRoute("/ws", play),
        WebSocketRoute("/ws/v2", play),
        Mount("/static", StaticFiles(directory=STATIC, check_dir=False), name="static"),
    ]
    # Text compresses ~4×: the game page is about 27 KB on the wire instead of 94 KB.
    middleware = [Middleware(GZipMiddleware, minimum_size=1024)]
    app = Starlette(routes=routes, lifespan=lifespan, middleware=middleware)
    # The security headers wrap the whole stack, Starlette's own error pages included.
    build = app.build_middleware_stack
    app.build_middleware_stack = lambda: SecurityHeaders(build())  # type: ignore[method-assign]
    app.state.tables = tables
    app.state.accounts = accounts
    app.state.ranked = ranked
    return app
