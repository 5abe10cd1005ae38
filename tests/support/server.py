"""Test clients of the game server: protocol 2 over a real websocket, and a raw socket.

``serving`` runs the real app in this process, with any settings.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import json
import os
import secrets
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import uvicorn
from websockets.sync.client import ClientConnection, connect

from crokinole.server import create_app
from crokinole.server.events.live import Server
from crokinole.server.limits import ServerSettings
from tests.support.server_database import TEST_LEASE_MS, server_database, server_redis


class StuckSocket:
    """A websocket client on a raw socket that completes the handshake, then stops reading.

    Its receive buffer is made tiny before connecting, so the server's sends
    back up almost at once.  It can still send (masked text frames, RFC 6455).
    """

    def __init__(self, url: str, *, origin: str | None = None, path: str = "/ws") -> None:
        parts = urlsplit(url)
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
        self.sock.connect((parts.hostname, parts.port))
        key = base64.b64encode(os.urandom(16)).decode()
        lines = [
            f"GET {path} HTTP/1.1",
            f"Host: {parts.netloc}",
            "Upgrade: websocket",
            "Connection: Upgrade",
            f"Sec-WebSocket-Key: {key}",
            "Sec-WebSocket-Version: 13",
        ]
        if origin is not None:
            lines.append(f"Origin: {origin}")
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(1)
            if not chunk:
                break
            head += chunk
        self.status = int(head.split(b" ", 2)[1]) if head else 0
        self.token = secrets.token_hex(12)

    def send(self, data: dict[str, Any]) -> None:
        payload = json.dumps(data).encode()
        mask = os.urandom(4)
        if len(payload) < 126:
            header = struct.pack("!BB", 0x81, 0x80 | len(payload))
        else:
            header = struct.pack("!BBH", 0x81, 0x80 | 126, len(payload))
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(header + mask + masked)

    def read_all(self, timeout: float) -> tuple[list[dict[str, Any]], int | None]:
        """Read until the server closes: the messages, and the close code (None: no frame)."""
        self.sock.settimeout(timeout)
        data = b""
        while True:
            try:
                chunk = self.sock.recv(65536)  # a timeout here means: never closed
            except ConnectionResetError:  # closed without a closing handshake (a flood)
                break
            if not chunk:
                break
            data += chunk
        return ws_frames(data)

    def close(self) -> None:
        self.sock.close()


def ws_frames(data: bytes) -> tuple[list[dict[str, Any]], int | None]:
    """The server's text frames in ``data`` (JSON), and its close code (None: no close frame;
    a frame cut short ends the reading)."""
    messages: list[dict[str, Any]] = []
    close: int | None = None
    at = 0
    while at + 2 <= len(data):
        opcode, size = data[at] & 0x0F, data[at + 1] & 0x7F
        at += 2
        if size == 126:
            (size,) = struct.unpack("!H", data[at : at + 2])
            at += 2
        elif size == 127:
            (size,) = struct.unpack("!Q", data[at : at + 8])
            at += 8
        body = data[at : at + size]
        at += size
        if len(body) < size:
            break  # cut short (by the close, or not read yet)
        if opcode == 0x1:
            messages.append(json.loads(body))
        elif opcode == 0x8:
            close = struct.unpack("!H", body[:2])[0] if len(body) >= 2 else 1005
    return messages, close


#: The websocket path of the browser client (``net.js``); ``/ws`` speaks the same protocol.
WS_V2 = "/ws/v2"


@contextlib.contextmanager
def serving(db: Path, settings: ServerSettings | None = None) -> Iterator[str]:
    """The real app (``create_app``) under uvicorn on a free port, in a thread; yield its URL.

    In-process, so a test chooses any :class:`ServerSettings` (short grace
    periods and clocks that ``crokinole serve`` does not offer).  Under
    ``$CROKINOLE_TEST_DATABASE_URL`` the data is in a PostgreSQL schema of
    ``db``'s own (:func:`tests.support.server_database.server_database`); under
    ``$CROKINOLE_TEST_REDIS_URL`` too, the server is one process of a cluster
    on Redis, with a key prefix of ``db``'s own and a short lease (unless the
    settings choose one) (:func:`tests.support.server_database.server_redis`).
    """
    settings = settings or ServerSettings(warm_up=False)
    redis = server_redis(db)
    if redis is None:
        app = create_app(server_database(db), settings)
    else:
        url, prefix = redis
        if settings.lease_ms == ServerSettings().lease_ms:
            settings = dataclasses.replace(settings, lease_ms=TEST_LEASE_MS)
        app = create_app(server_database(db), settings, redis=url, redis_prefix=prefix)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="warning", ws_max_size=65536, lifespan="on"
    )
    server = Server(config)  # uvicorn's, ending the event streams at shutdown
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=15)


class Player:
    """A test client speaking protocol version 2 over a real websocket."""

    def __init__(self, url: str, token: str | None = None) -> None:
        self._connecting = connect(url.replace("http", "ws") + WS_V2, max_size=2**24)
        self.ws: ClientConnection = self._connecting.__enter__()
        self.token = token or secrets.token_hex(12)
        self.table: str | None = None

    def send(self, data: dict[str, Any] | str) -> None:
        self.ws.send(data if isinstance(data, str) else json.dumps(data))

    def recv(self, timeout: float = 30.0) -> dict[str, Any]:
        return json.loads(self.ws.recv(timeout=timeout))  # type: ignore[no-any-return]

    def until(
        self,
        kind: str,
        where: Callable[[dict[str, Any]], bool] | None = None,
        timeout: float = 60.0,
    ) -> dict[str, Any]:
        """The next message of type ``kind`` (that ``where`` accepts); others are skipped."""
        while True:
            msg = self.recv(timeout)
            if msg["type"] == "error" and kind != "error":
                raise AssertionError(f"refused while waiting for {kind}: {msg}")
            if msg["type"] == kind and (where is None or where(msg)):
                return msg

    def quiet(self, wait: float = 0.3) -> list[dict[str, Any]]:
        """Every message that arrives within ``wait`` seconds of silence."""
        got: list[dict[str, Any]] = []
        while True:
            try:
                got.append(self.recv(timeout=wait))
            except TimeoutError:
                return got

    def hello(self, table: str | None = None, last_event: int | None = None) -> dict[str, Any]:
        self.send({"type": "hello", "token": self.token, "table": table, "last_event": last_event})
        return self.until("welcome")

    def create(
        self,
        kind: str = "party",
        name: str = "Ann",
        seats: dict[str, str] | None = None,
        **settings: Any,
    ) -> dict[str, Any]:
        """Create a table; the ``table`` message (its ``view``)."""
        msg: dict[str, Any] = {"type": "create", "kind": kind, "settings": settings, "name": name}
        if seats is not None:
            msg["seats"] = seats
        self.send(msg)
        answer = self.until("table")
        self.table = answer["table"]
        return answer

    def join(self, code: str, name: str = "Bob", spectator: bool = False) -> dict[str, Any]:
        self.send({"type": "join", "code": code, "name": name, "spectator": spectator})
        answer = self.until("table")
        self.table = answer["table"]
        return answer

    def act(self, kind: str, **fields: Any) -> None:
        """Send a message about this player's table."""
        self.send({"type": kind, "table": self.table, **fields})

    def shoot(
        self, seat: str, position: float = 0.0, direction: float = 0.0, power: float = 28.0
    ) -> None:
        self.act("shoot", seat=seat, position=position, direction=direction, power=power)

    def error(self, data: dict[str, Any] | str) -> dict[str, Any]:
        """Send ``data``; the error it is answered with."""
        self.send(data)
        while True:
            msg = self.recv()
            if msg["type"] == "error":
                return msg

    def close(self) -> None:
        self._connecting.__exit__(None, None, None)
