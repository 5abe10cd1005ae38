"""What one client can cost the server: slow readers, origins, limits, headers (real server)."""

from __future__ import annotations

import asyncio
import json
import secrets
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import ClientConnection, connect
from websockets.typing import Origin

from crokinole.server import create_app
from crokinole.server.app import purge_cutoff
from crokinole.server.limits import ServerSettings
from crokinole.store import Store
from tests.server.helpers import Client, StuckSocket, local_game, shoot_msg
from tests.server_process import running_server


def _ws(url: str, origin: str | None) -> ClientConnection:
    """A websocket to the server sending ``Origin: origin`` (none if None), as browsers do."""
    return connect(
        url.replace("http", "ws") + "/ws", origin=None if origin is None else Origin(origin)
    )


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db: Path = tmp_path_factory.mktemp("db") / "crokinole.db"
    with running_server(db) as url:
        yield url


def test_a_client_that_stops_reading_neither_stalls_its_room_nor_stays(server: str) -> None:
    token = secrets.token_hex(12)
    tab, room = local_game(server, token)
    stuck = StuckSocket(server)
    stuck.token = token
    # The stuck tab joins the room and asks for snapshot after snapshot
    # (about 2 KB each) without reading one: 12 MB, more than the kernel's
    # socket buffers hold (4 MB at most here), so the server cannot send it all.
    asked = 6000
    for _ in range(asked):
        stuck.send({"type": "hello", "token": token, "room": room, "last_event": None})
    # The other tab's shots are still sent to it, each as it happens.
    for number, (seat, position) in enumerate(
        [("south", -20.0), ("north", -20.0), ("south", 20.0), ("north", 20.0)], start=1
    ):
        tab.send(shoot_msg(room, seat, position=position, power=30.0))
        shot = tab.until("shot", timeout=20.0)
        assert (shot["event"], shot["seat"]) == (number, seat)
    # Its queue overflowed: the server dropped it. Reading now, it gets what
    # was already on its way, then the end of the connection (a timeout in
    # read_all would mean the server kept it).
    messages, close = stuck.read_all(timeout=60.0)
    assert 0 < len(messages) < asked
    assert all(m["type"] in ("state", "shot") for m in messages)
    assert close in (None, 1013)  # "try again later", if the close frame got through
    # The room carries on for the tab that reads.
    tab.send(shoot_msg(room, "south", position=5.0, power=30.0))
    assert tab.until("shot", timeout=20.0)["event"] == 5
    tab.close()
    stuck.close()


CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)


@pytest.mark.parametrize(
    "path",
    ["/", "/keep-score", "/healthz", "/static/app.js", "/static/missing.js", "/api/record",
     "/api/rooms/" + "0" * 32 + "/record.json", "/nowhere"],
)  # fmt: skip
def test_every_http_response_carries_the_security_headers(server: str, path: str) -> None:
    # Contract 4, on answers of every kind: pages, files, API, errors.
    try:
        answer = urllib.request.urlopen(server + path)
    except urllib.error.HTTPError as exc:
        answer = exc
    headers = answer.headers
    assert headers["Content-Security-Policy"] == CSP
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "no-referrer"
    assert headers["X-Frame-Options"] == "DENY"
    answer.close()


def test_the_websocket_refuses_pages_of_other_sites(server: str) -> None:
    host = server.removeprefix("http://")
    # A page of another site (a browser always sends its Origin): refused.
    with pytest.raises(InvalidStatus) as info:
        _ws(server, "https://evil.example")
    assert info.value.response.status_code == 403
    # The server's own pages, and clients that are not browsers (no Origin): accepted.
    for origin in (f"http://{host}", None):
        with _ws(server, origin) as ws:
            ws.send(json.dumps({"type": "ping"}))
            assert json.loads(ws.recv(timeout=10))["type"] == "pong"


def test_other_origins_can_be_allowed(tmp_path: Path) -> None:
    listed = {"CROKINOLE_ALLOWED_ORIGINS": "https://a.example, https://b.example"}
    with running_server(
        tmp_path / "o.db", "--allowed-origin", "https://play.example", env=listed
    ) as url:
        for origin in ("https://play.example", "https://b.example"):  # option and environment
            with _ws(url, origin) as ws:
                ws.send(json.dumps({"type": "ping"}))
                assert json.loads(ws.recv(timeout=10))["type"] == "pong"
        with pytest.raises(InvalidStatus):
            _ws(url, "https://other.example")


def test_one_client_cannot_cost_the_server_much(tmp_path: Path) -> None:
    options = ["--rooms-per-minute", "3", "--connections-per-address", "4",
               "--hello-timeout", "1"]  # fmt: skip
    with running_server(tmp_path / "limits.db", *options) as url:
        # New games per device token per minute.
        c = Client(url)
        c.hello()
        c.recv()
        rooms = [c.new_game(opponent="local")["room"] for _ in range(3)]
        assert len(set(rooms)) == 3
        error = c.error({"type": "new_game", "opponent": "local"})
        assert (
            error["code"] == "rate_limited" and "at most 3 new games a minute" in error["message"]
        )
        # Another device is not held back by this one.
        other = Client(url)
        other.hello()
        other.recv()
        assert other.new_game(opponent="local")["room"] not in rooms
        # A socket that never says hello is closed (pings do not keep it open).
        silent = Client(url)
        silent.send({"type": "ping"})
        assert silent.recv()["type"] == "pong"
        with pytest.raises(ConnectionClosed) as closed:
            silent.recv(timeout=30.0)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
        # Connections per address: two are open (c, other); two more fit, the fifth is refused.
        extra = [Client(url), Client(url)]
        with pytest.raises(InvalidStatus) as info:
            Client(url)
        assert info.value.response.status_code == 403
        extra[0].close()
        for _ in range(100):  # a freed slot can be used again, once the server saw the close
            try:
                Client(url).close()
                break
            except InvalidStatus:
                time.sleep(0.1)
        else:
            pytest.fail("a closed connection still counts against its address")
        for each in (c, other, extra[1]):
            each.close()


def test_even_an_internal_error_page_carries_the_security_headers(tmp_path: Path) -> None:
    # Starlette's own 500 page comes from outside the app's middleware list:
    # the headers must wrap the whole stack. A route that fails is added, and
    # the app is called as a server calls it (ASGI).
    app = create_app(str(tmp_path / "boom.db"), ServerSettings(warm_up=False))

    async def boom(_: Request) -> Response:
        raise RuntimeError("a bug")

    app.router.routes.append(Route("/boom", boom))
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(msg: dict[str, Any]) -> None:
        sent.append(msg)

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
             "scheme": "http", "path": "/boom", "raw_path": b"/boom", "query_string": b"",
             "root_path": "", "headers": [(b"host", b"testserver")],
             "client": ("127.0.0.1", 1), "server": ("testserver", 80)}  # fmt: skip
    with pytest.raises(RuntimeError, match="a bug"):  # re-raised for the server's log
        asyncio.run(app(scope, receive, send))  # type: ignore[arg-type]
    start = sent[0]
    headers = {k.decode(): v.decode() for k, v in start["headers"]}
    assert start["status"] == 500
    assert headers["content-security-policy"] == CSP
    assert headers["x-frame-options"] == "DENY"


@pytest.mark.parametrize("days", [1e6, 1e9, 1e12])
def test_a_retention_beyond_the_calendar_keeps_every_game(tmp_path: Path, days: float) -> None:
    # `now - timedelta(days=days)` overflows here: the hourly purge then failed
    # with "date value out of range" instead of keeping everything.
    store = Store.open(str(tmp_path / "keep.db"))
    store.create_room("r", "tok", "easy", settings={}, record_json="{}", scoring="to_100",
                      now=datetime(1, 1, 2))  # fmt: skip
    assert store.abandon("r", "loss", now=datetime(1, 1, 2))
    cutoff = purge_cutoff(datetime(2026, 11, 30), days)
    assert cutoff == datetime.min
    assert store.purge_abandoned(cutoff) == 0
    room = store.room("r")
    assert room is not None and room.record_json == "{}"
    store.close()
