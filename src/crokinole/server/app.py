"""The ASGI application: the static client, a small HTTP API and the game websocket.

``create_app(db)`` builds a Starlette app on a store; ``crokinole serve``
runs it with uvicorn.  Each websocket is one client (a browser tab): it
says ``hello`` with its device token, then creates or rejoins a room.  The
server is the only authority; bad messages get an ``error`` and change
nothing.
"""

from __future__ import annotations

import contextlib
import logging
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio.to_thread
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from crokinole.server import sheets
from crokinole.server.protocol import (
    PROTOCOL_VERSION,
    ROOM_PATTERN,
    TOKEN_PATTERN,
    Hello,
    NewGame,
    Ping,
    ProtocolError,
    RoomAction,
    ShootMessage,
    levels_payload,
    message,
    parse_message,
    seat_of,
    shot_of,
)
from crokinole.server.rooms import Room, Rooms
from crokinole.store import Store

STATIC = Path(__file__).resolve().parent.parent / "web" / "static"
log = logging.getLogger("crokinole.server")


class Client:
    """One websocket connection and what it has said so far."""

    def __init__(self, websocket: WebSocket, rooms: Rooms) -> None:
        self.websocket = websocket
        self.rooms = rooms
        self.token: str | None = None
        self.room: Room | None = None

    async def send_json(self, data: Any) -> None:
        await self.websocket.send_json(data)

    def _attach(self, room: Room) -> None:
        if self.room is not None and self.room is not room:
            self.rooms.release(self.room, self)
        self.room = room
        room.connections.add(self)

    def detach(self) -> None:
        if self.room is not None:
            self.rooms.release(self.room, self)

    async def error(self, code: str, text: str) -> None:
        room = self.room
        await self.send_json(
            message(
                "error",
                room.id if room else None,
                room.event if room else 0,
                code=code,
                message=text,
            )
        )

    async def handle(self, text: str) -> None:
        msg = parse_message(text)
        if isinstance(msg, Ping):
            room = self.room
            await self.send_json(
                message("pong", room.id if room else None, room.event if room else 0)
            )
            return
        if isinstance(msg, Hello):
            await self._hello(msg)
            return
        if self.token is None:
            raise ProtocolError("hello_first", "say hello with your device token first")
        if isinstance(msg, NewGame):
            room = await self.rooms.create(self.token, msg)
            self._attach(room)
            await self.send_json(room.state_message())
            self.rooms.schedule_cpu(room)
            return
        room = await self._own_room(msg.room)
        if isinstance(msg, ShootMessage):
            seat = seat_of(msg.seat)
            if seat not in room.human_seats:
                raise ProtocolError(
                    "not_your_seat", f"{msg.seat} is played by the CPU in this game"
                )
            await self.rooms.shoot(room, seat, shot_of(msg))
        elif isinstance(msg, RoomAction):
            if msg.type == "next_round":
                await self.rooms.next_round(room)
            elif msg.type == "resign":
                await self.send_json(await self.rooms.resign(room))
            else:
                await self._rematch(room)

    async def _own_room(self, room_id: str) -> Room:
        room = await self.rooms.get(room_id)
        if room is None:
            raise ProtocolError("unknown_room", f"there is no game {room_id}")
        if room.token != self.token:
            raise ProtocolError("not_your_room", "that game belongs to another device")
        self._attach(room)
        return room

    async def _hello(self, msg: Hello) -> None:
        self.token = msg.token
        if msg.room is not None:
            room = await self.rooms.get(msg.room)
            if room is not None and room.token == msg.token:
                self._attach(room)
                for payload in await self.rooms.catch_up(room, msg.last_event):
                    await self.send_json(payload)
                self.rooms.schedule_cpu(room)
                return
        store = self.rooms.store
        unfinished = await anyio.to_thread.run_sync(store.unfinished_room, msg.token)
        record = await anyio.to_thread.run_sync(store.device_record, msg.token)
        await self.send_json(
            {
                **message("welcome", None, 0),
                "token": msg.token,
                "room": unfinished,
                "record": record,
                "protocol": PROTOCOL_VERSION,
                "levels": levels_payload(),
            }
        )

    async def _rematch(self, room: Room) -> None:
        if not room.game.is_over:
            raise ProtocolError("illegal_action", "a rematch is offered once the game is over")
        assert self.token is not None
        settings = NewGame.model_validate({"type": "new_game", **room.settings})
        fresh = await self.rooms.create(self.token, settings)
        self._attach(fresh)
        await self.send_json(fresh.state_message())
        self.rooms.schedule_cpu(fresh)


def create_app(db: str) -> Starlette:
    """The game server on the database ``db`` (a path for SQLite, or a SQLAlchemy URL)."""
    store = Store.open(db)
    rooms = Rooms(store)

    async def index(_: Request) -> Response:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    async def health(_: Request) -> Response:
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
        record = await anyio.to_thread.run_sync(store.device_record, token)
        room = await anyio.to_thread.run_sync(store.unfinished_room, token)
        return JSONResponse({"record": record, "room": room})

    async def room_record(request: Request) -> Response:
        room_id = request.path_params["room"]
        if not re.match(ROOM_PATTERN, room_id):
            return JSONResponse({"error": "a game id is 32 hexadecimal digits"}, status_code=400)
        data = await anyio.to_thread.run_sync(store.room, room_id)
        if data is None:
            return JSONResponse({"error": f"there is no game {room_id}"}, status_code=404)
        return Response(
            data.record_json,
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="crokinole-{room_id}.json"'},
        )

    async def play(websocket: WebSocket) -> None:
        await websocket.accept()
        client = Client(websocket, rooms)
        try:
            while True:
                received = await websocket.receive()
                if received["type"] == "websocket.disconnect":
                    break
                text = received.get("text")
                if text is None:
                    text = (received.get("bytes") or b"").decode("utf-8", errors="replace")
                try:
                    await client.handle(text)
                except ProtocolError as exc:
                    await client.error(exc.code, exc.message)
                except WebSocketDisconnect:
                    raise
                except Exception:
                    log.exception("error while handling a message")
                    await client.error("server_error", "the server failed; the game is unchanged")
        except WebSocketDisconnect:
            pass
        finally:
            client.detach()

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        yield
        store.close()

    async def keep_score(_: Request) -> Response:
        return FileResponse(STATIC / "scorekeeper.html", headers={"Cache-Control": "no-cache"})

    routes = [
        Route("/", index),
        Route("/keep-score", keep_score),
        *sheets.routes(store),
        Route("/healthz", health),
        Route("/api/record", device_record),
        Route("/api/rooms/{room}/record.json", room_record),
        WebSocketRoute("/ws", play),
        Mount("/static", StaticFiles(directory=STATIC, check_dir=False), name="static"),
    ]
    # Text compresses ~4×: the game page is about 27 KB on the wire instead of 94 KB.
    middleware = [Middleware(GZipMiddleware, minimum_size=1024)]
    app = Starlette(routes=routes, lifespan=lifespan, middleware=middleware)
    app.state.rooms = rooms
    return app
