"""The server's HTTP side and its defences (real server).

The websocket paths, the device record route, plain errors, security headers
on every answer, allowed origins, retention.
"""

from __future__ import annotations

import asyncio
import json
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
from websockets.exceptions import InvalidStatus
from websockets.sync.client import ClientConnection, connect
from websockets.typing import Origin

from crokinole.ai import Level
from crokinole.server import create_app
from crokinole.server.background import purge_cutoff
from crokinole.server.limits import ServerSettings
from crokinole.store import Store
from tests.support.server import Player, serving
from tests.support.server_process import running_server
from tests.support.store_rooms import add_room


def _ws(url: str, origin: str | None, path: str = "/ws") -> ClientConnection:
    """A websocket to the server sending ``Origin: origin`` (none if None), as browsers do."""
    return connect(
        url.replace("http", "ws") + path, origin=None if origin is None else Origin(origin)
    )


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db: Path = tmp_path_factory.mktemp("db") / "crokinole.db"
    with serving(db, ServerSettings(warm_up=False)) as url:
        yield url


@pytest.mark.parametrize("path", ["/ws", "/ws/v2"])
def test_both_websocket_paths_speak_protocol_2(server: str, path: str) -> None:
    # Version 1 is retired: /ws, where it was, now answers as /ws/v2 does.
    with _ws(server, None, path) as ws:
        ws.send(json.dumps({"type": "hello", "token": "t" * 24}))
        welcome = json.loads(ws.recv(timeout=10))
        assert (welcome["type"], welcome["protocol"]) == ("welcome", 2)
        # A message of version 1 is unknown.
        ws.send(json.dumps({"type": "new_game", "opponent": "easy"}))
        error = json.loads(ws.recv(timeout=10))
        assert error["code"] == "bad_message" and "unknown message type" in error["message"]


def test_the_device_record_is_asked_with_a_header_not_in_the_url(server: str) -> None:
    me = Player(server)
    me.hello()
    asked = urllib.request.Request(f"{server}/api/record", headers={"X-Device-Token": me.token})
    with urllib.request.urlopen(asked) as answer:
        body = json.loads(answer.read())
    assert body == {"record": body["record"], "tables": []}
    # One entry per CPU level and one for games against people (docs/protocol.md).
    assert set(body["record"]) == {*(lv.value for lv in Level), "people"}
    assert body["record"]["easy"]["to_100"] == {"wins": 0, "draws": 0, "losses": 0}
    # The old route with the token in the path is gone.
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(f"{server}/api/record/{me.token}")
    assert info.value.code == 404
    info.value.close()
    bad = urllib.request.Request(f"{server}/api/record", headers={"X-Device-Token": "short"})
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(bad)
    assert info.value.code == 400 and "device token" in json.loads(info.value.read())["message"]
    me.close()


@pytest.mark.parametrize(
    ("path", "status"),
    [("/api/record", 400), ("/api/tables/nothex/record.json", 400),
     ("/api/tables/" + "0" * 32 + "/record.json", 404)],
)  # fmt: skip
def test_http_errors_are_plain(server: str, path: str, status: int) -> None:
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(server + path)
    assert info.value.code == status
    assert "message" in json.loads(info.value.read())
    info.value.close()


CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)


@pytest.mark.parametrize(
    "path",
    ["/", "/join/ABC234", "/keep-score", "/healthz", "/static/pages/game/app.js",
     "/static/missing.js", "/api/record", "/api/tables/" + "0" * 32 + "/record.json", "/nowhere"],
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


def test_other_origins_can_be_allowed(tmp_path: Path) -> None:
    listed = {"CROKINOLE_ALLOWED_ORIGINS": "https://a.example, https://b.example"}
    with running_server(
        tmp_path / "o.db", "--no-warm-up", "--allowed-origin", "https://play.example", env=listed
    ) as url:
        for origin in ("https://play.example", "https://b.example"):  # option and environment
            with _ws(url, origin) as ws:
                ws.send(json.dumps({"type": "ping"}))
                assert json.loads(ws.recv(timeout=10))["type"] == "pong"
        with pytest.raises(InvalidStatus) as info:
            _ws(url, "https://other.example")
        assert info.value.response.status_code == 403


@pytest.mark.parametrize(("options", "compressed"), [((), False), (("--compress",), True)])
def test_websocket_compression_is_the_servers_choice(
    tmp_path: Path, options: tuple[str, ...], compressed: bool
) -> None:
    # The client offers permessage-deflate, as browsers do; the server takes it
    # only with --compress, and plays the same either way.
    with running_server(tmp_path / "c.db", "--no-warm-up", *options) as url, _ws(url, None) as ws:
        extensions = ws.response.headers.get("Sec-WebSocket-Extensions") or ""
        assert ("permessage-deflate" in extensions) is compressed
        ws.send(json.dumps({"type": "hello", "token": "c" * 24}))
        assert json.loads(ws.recv(timeout=10))["type"] == "welcome"


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
    # with "date value out of range" instead of keeping everything. (The purge
    # compacts the abandoned games of protocol 1, kept in the store's rooms.)
    store = Store.open(str(tmp_path / "keep.db"))
    add_room(store, "r", "tok", "easy", status="abandoned", result="loss", scoring="to_100",
             now=datetime(1, 1, 2))  # fmt: skip
    cutoff = purge_cutoff(datetime(2026, 11, 30), days)
    assert cutoff == datetime.min
    assert store.purge_abandoned(cutoff) == 0
    room = store.room("r")
    assert room is not None and room.record_json == "{}"
    store.close()
