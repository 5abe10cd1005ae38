"""One websocket client (a browser tab): what it says, and a bounded queue of what it is sent.

Each connection has its own writer task and an outbound queue bounded in
messages and bytes.  Rooms only ever *queue* messages (:meth:`Client.send_text`
never waits), so a broadcast never waits for any client; a client whose queue
overflows, or whose socket takes longer than the send timeout for one
message, is disconnected.  It reconnects and catches up from the event log.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import Any

import anyio
import anyio.to_thread
from starlette.websockets import WebSocket, WebSocketDisconnect

from crokinole.server.limits import RateLimiter, ServerSettings
from crokinole.server.protocol import (
    PROTOCOL_VERSION,
    Hello,
    NewGame,
    Ping,
    ProtocolError,
    ShootMessage,
    levels_payload,
    message,
    parse_message,
    seat_of,
    shot_of,
)
from crokinole.server.rooms import Room, Rooms

log = logging.getLogger("crokinole.server")

#: Close codes sent when the server drops a client (RFC 6455 §7.4).
CLOSE_TOO_SLOW = 1013  # "try again later": reconnect and catch up
CLOSE_POLICY = 1008


class Client:
    """One websocket connection and what it has said so far."""

    def __init__(
        self, websocket: WebSocket, rooms: Rooms, settings: ServerSettings, limiter: RateLimiter
    ) -> None:
        self.websocket = websocket
        self.rooms = rooms
        self.settings = settings
        self.limiter = limiter
        self.token: str | None = None
        self.room: Room | None = None
        self._outbox: asyncio.Queue[str] = asyncio.Queue()
        self._queued_bytes = 0
        self.dropped: tuple[int, str] | None = None
        self.done = asyncio.Event()

    # ------------------------------------------------------------ sending

    def send_text(self, text: str) -> None:
        """Queue one message; a client that cannot keep up is dropped instead."""
        if self.done.is_set():
            return
        if (
            self._outbox.qsize() >= self.settings.queue_messages
            or self._queued_bytes + len(text) > self.settings.queue_bytes
        ):
            self.drop(CLOSE_TOO_SLOW, "too slow: reconnect to catch up")
            return
        self._queued_bytes += len(text)
        self._outbox.put_nowait(text)

    def send(self, payload: dict[str, Any]) -> None:
        """Queue one message."""
        self.send_text(json.dumps(payload))

    def drop(self, code: int, reason: str) -> None:
        """Disconnect this client: it leaves its room at once and gets nothing more."""
        if self.done.is_set():
            return
        self.dropped = (code, reason)
        log.info("dropping a client (%s)", reason)
        self._end()

    def _end(self) -> None:
        """Leave the room and stop the connection's tasks."""
        self.detach()
        self.done.set()

    async def writer(self) -> None:
        """Send the queued messages in order, each within the send timeout."""
        try:
            while True:
                text = await self._outbox.get()
                self._queued_bytes -= len(text)
                with anyio.move_on_after(self.settings.send_timeout) as scope:
                    await self.websocket.send_text(text)
                if scope.cancelled_caught:
                    self.drop(CLOSE_TOO_SLOW, "too slow: reconnect to catch up")
                    return
        except (WebSocketDisconnect, OSError, RuntimeError):
            self._end()

    async def reader(self) -> None:
        """Read and handle messages until the client leaves."""
        try:
            while True:
                received = await self.websocket.receive()
                if received["type"] == "websocket.disconnect":
                    break
                text = received.get("text")
                if text is None:
                    text = (received.get("bytes") or b"").decode("utf-8", errors="replace")
                # A message is handled to the end even if the client is
                # dropped meanwhile: a half-done action would leave its room
                # behind the store.
                with anyio.CancelScope(shield=True):
                    try:
                        await self.handle(text)
                    except ProtocolError as exc:
                        self.error(exc.code, exc.message)
                    except Exception:
                        log.exception("error while handling a message")
                        self.error("server_error", "the server failed; the game is unchanged")
        except WebSocketDisconnect:
            pass
        finally:
            self._end()

    async def hello_deadline(self) -> None:
        """A socket that never says hello is closed after the hello timeout."""
        await anyio.sleep(self.settings.hello_timeout)
        if self.token is None:
            self.drop(CLOSE_POLICY, "say hello first")

    # ------------------------------------------------------------ rooms

    def _attach(self, room: Room) -> None:
        if self.room is not None and self.room is not room:
            self.rooms.release(self.room, self)
        self.room = room
        if not self.done.is_set():
            room.connections.add(self)

    def detach(self) -> None:
        """Leave the room (the room keeps running for its other tabs and the CPU)."""
        if self.room is not None:
            self.rooms.release(self.room, self)

    def error(self, code: str, text: str) -> None:
        """Queue an ``error`` message."""
        room = self.room
        self.send(
            message(
                "error",
                room.id if room else None,
                room.event if room else 0,
                code=code,
                message=text,
            )
        )

    async def handle(self, text: str) -> None:
        """Handle one message from the client."""
        msg = parse_message(text)
        if isinstance(msg, Ping):
            room = self.room
            self.send(message("pong", room.id if room else None, room.event if room else 0))
            return
        if isinstance(msg, Hello):
            await self._hello(msg)
            return
        if self.token is None:
            raise ProtocolError("hello_first", "say hello with your device token first")
        if isinstance(msg, NewGame):
            await self._new_game(msg)
            return
        room = await self._own_room(msg.room)
        if isinstance(msg, ShootMessage):
            seat = seat_of(msg.seat)
            if seat not in room.game.rules.seats:
                seats = " and ".join(s.name.lower() for s in room.game.rules.seats)
                raise ProtocolError(
                    "not_your_seat",
                    f"{msg.seat} is not a seat in this game: the seats are {seats}",
                )
            if seat not in room.human_seats:
                raise ProtocolError(
                    "not_your_seat", f"{msg.seat} is played by the CPU in this game"
                )
            await self.rooms.shoot(room, seat, shot_of(msg))
        elif msg.type == "next_round":
            await self.rooms.next_round(room)
        elif msg.type == "resign":
            await self.rooms.resign(room)
        else:
            await self._rematch(room)

    def _check_rate(self) -> None:
        assert self.token is not None
        if not self.limiter.allow(self.token, time.monotonic()):
            limit = self.settings.rooms_per_minute
            raise ProtocolError(
                "rate_limited", f"at most {limit} new games a minute: wait a moment and try again"
            )

    async def _new_game(self, msg: NewGame) -> None:
        assert self.token is not None
        self._check_rate()
        room = await self.rooms.create(self.token, msg, self)
        self._attach(room)
        self.send(room.state_message())
        self.rooms.schedule_cpu(room)

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
                    self.send(payload)
                self.rooms.schedule_cpu(room)
                return
        store = self.rooms.store
        unfinished = await anyio.to_thread.run_sync(store.unfinished_room, msg.token)
        record = await self.rooms.device_record(msg.token)
        self.send(
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
        if room.status != "finished":
            raise ProtocolError("illegal_action", "a rematch is offered once the game is over")
        settings = NewGame.model_validate({"type": "new_game", **room.settings})
        await self._new_game(settings)
