"""A device's record, a table's game record, and the server's health (HTTP, JSON).

| method | route | answers |
|---|---|---|
| GET | /api/record | the device's (X-Device-Token) record by opponent, and its open tables |
| GET | /api/tables/{table}/record.json | the table's game record (R9), as a file |
| GET | /healthz | 200 ``{"ok": true}``; 503 while the database (or Redis) cannot be reached |
"""

from __future__ import annotations

import json

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from crokinole.errors import ErrorCode
from crokinole.server.http.context import context
from crokinole.server.http.errors import HttpError
from crokinole.server.http.inputs import the_device
from crokinole.server.http.replays import table_id
from crokinole.server.owner.tables import stored_table
from crokinole.server.ws.session import RECORD_OPPONENTS
from crokinole.server.ws.views import seat_names
from crokinole.store import StoreUnavailableError

__all__ = ["device_record", "health", "routes", "table_record"]


async def health(request: Request) -> Response:
    """``GET /healthz``: what a load balancer asks."""
    # 503 while this process cannot play games (its database, or on a site of
    # several processes its Redis, cannot be reached).
    http = context(request)
    problems: dict[str, str] = {}
    try:
        await anyio.to_thread.run_sync(http.store.ping)
    except StoreUnavailableError as exc:
        problems["database"] = str(exc)
    if http.redis_hub is not None and not http.redis_hub.listening:
        problems["redis"] = "the connection to Redis is down; it is being made again"
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
