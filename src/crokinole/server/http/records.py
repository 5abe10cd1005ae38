"""A device's record, a table's game record, and the server's health (HTTP, JSON).

| method | route | answers |
|---|---|---|
| GET | /api/record | the device's (X-Device-Token) record by opponent, and its open tables |
| GET | /api/tables/{table}/record.json | the table's game record (R9), as a file |
| GET | /healthz | 200 ``{"ok": true}``; 503 while the database (or Redis) fails or hangs |
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable

import anyio.to_thread
from redis.exceptions import RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from crokinole.errors import ErrorCode
from crokinole.server.http.context import HttpContext, context
from crokinole.server.http.errors import HttpError
from crokinole.server.http.inputs import the_device
from crokinole.server.http.replays import table_id
from crokinole.server.owner.tables import stored_table
from crokinole.server.ws.session import RECORD_OPPONENTS
from crokinole.server.ws.views import seat_names
from crokinole.store import StoreUnavailableError

__all__ = ["device_record", "health", "routes", "table_record"]


#: Seconds each check of ``/healthz`` may take: one that has not answered by then
#: (a database or a Redis that hangs) is a problem, and the answer is 503.
CHECK_S = 2.0


async def _within(http: HttpContext, name: str, check: Callable[[], Awaitable[None]]) -> None:
    """Run ``check`` for at most :data:`CHECK_S` seconds (TimeoutError after).

    A check that did not answer in time goes on (a thread cannot be stopped)
    and is waited for again by the next health check instead of being
    started once more: a load balancer asking every second never piles up
    threads stuck on a database that hangs.
    """
    task = http.health_checks.get(name)
    if task is None or task.done():
        task = asyncio.ensure_future(check())
        task.add_done_callback(_retrieved)
        http.health_checks[name] = task
    await asyncio.wait_for(asyncio.shield(task), CHECK_S)


def _retrieved(task: asyncio.Task[None]) -> None:
    # A check's error is read by whoever waits for it; one waited for by no one
    # (its wait timed out) would otherwise be reported as never retrieved.
    if not task.cancelled():
        task.exception()


async def _problem(
    http: HttpContext, name: str, what: str, check: Callable[[], Awaitable[None]]
) -> str | None:
    """What is wrong with ``what`` (the check ``name``), or None if it answered in time."""
    try:
        await _within(http, name, check)
    except TimeoutError:
        return f"{what} did not answer within {CHECK_S:g} s"
    except StoreUnavailableError as exc:
        return str(exc)
    except RedisTimeoutError:
        return f"{what} did not answer in time"
    except (RedisError, OSError) as exc:
        return f"{what} could not be reached: {exc}"
    return None


async def health(request: Request) -> Response:
    """``GET /healthz``: what a load balancer asks (answered within :data:`CHECK_S` s)."""
    # 503 while this process cannot play games: its database, or on a site of
    # several processes its Redis, cannot be reached or does not answer.
    http = context(request)

    async def database() -> None:
        await anyio.to_thread.run_sync(http.store.ping)

    checks = [_problem(http, "database", "the database", database)]
    if http.shared is not None:
        checks.append(_problem(http, "redis", "Redis", http.shared.ping))
    found = dict(zip(("database", "redis"), await asyncio.gather(*checks), strict=False))
    if found.get("redis") is None and http.redis_hub is not None and not http.redis_hub.listening:
        found["redis"] = "the connection to Redis is down; it is being made again"
    problems = {name: problem for name, problem in found.items() if problem is not None}
    if problems:
        return JSONResponse({"ok": False, **problems}, status_code=503)
    return JSONResponse({"ok": True})


async def device_record(request: Request) -> Response:
    """``GET /api/record``: the device's record by opponent, and its open tables."""
    token = the_device(request)
    store = context(request).store
    record = await anyio.to_thread.run_sync(store.device_record, token, RECORD_OPPONENTS)
    open_tables = await anyio.to_thread.run_sync(store.open_tables_of_device, token)
    return JSONResponse({"record": record, "tables": open_tables})


async def table_record(request: Request) -> Response:
    """``GET /api/tables/{table}/record.json``: the game record, with who played each seat."""
    found = table_id(request)
    stored = await anyio.to_thread.run_sync(stored_table, context(request).store, found)
    table = None if stored is None else stored[0]
    if table is None or table.game is None:
        raise HttpError(ErrorCode.NOT_FOUND, f"table {found} has no game")
    # The game record (R9), with what the table knows beyond the rules: who played each
    # seat, and the hints and heat maps each seat took (readers of the record format
    # ignore the extra keys).
    record = table.game.to_record()
    record["names"] = seat_names(table, shared=True)
    record["hints_used"] = {
        seat.key: table.hints_used.get(seat, 0) for seat in table.game.rules.seats
    }
    return Response(
        json.dumps(record, separators=(",", ":"), allow_nan=False),
        media_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="crokinole-{found}.json"'},
    )


routes: list[BaseRoute] = [
    Route("/healthz", health),
    Route("/api/record", device_record),
    Route("/api/tables/{table}/record.json", table_record),
]
