"""Bots over a real server: bot accounts and API tokens made through the HTTP API."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from crokinole.server import create_app
from crokinole.server.limits import ServerSettings
from tests.support import server as helpers
from tests.support.server import serving

PASSWORD = "pw-bots-123"
#: The example bot of docs/bots.md.
EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "bot.py"


def run_example(url: str, token: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """examples/bot.py run against the server at ``url`` with ``token``, as a user runs it."""
    environment = {**os.environ, "CROKINOLE_URL": url, "CROKINOLE_TOKEN": token}
    return subprocess.run(
        [sys.executable, str(EXAMPLE)],
        env=environment,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    """A real server (uvicorn, SQLite) on a free port."""
    settings = ServerSettings(warm_up=False, signups_per_hour=1000)
    with serving(tmp_path / "crokinole.db", settings) as url:
        yield url


def web(url: str) -> httpx.Client:
    """An HTTP client of the server's own origin (its POSTs pass the origin check)."""
    return httpx.Client(base_url=url, timeout=30, headers={"Origin": url})


def sign_up(client: httpx.Client, username: str) -> None:
    answer = client.post("/api/account/signup", json={"username": username, "password": PASSWORD})
    assert answer.status_code == 201, answer.text


def make_bot(
    url: str, username: str, scopes: tuple[str, ...] = ("play",)
) -> tuple[str, httpx.Client]:
    """A new bot account and an API token of ``scopes``; the token and the logged-in client."""
    client = web(url)
    sign_up(client, username)
    made = client.post("/api/account/bot", json={"password": PASSWORD})
    assert made.status_code == 200 and made.json()["bot"] is True, made.text
    token = client.post("/api/account/tokens", json={"name": "test", "scopes": list(scopes)})
    assert token.status_code == 201, token.text
    return str(token.json()["token"]), client


class Bot:
    """A bot's websocket: the Bearer header on the handshake (or the token in ``hello``)."""

    def __init__(
        self,
        url: str,
        token: str | None,
        *,
        in_hello: bool = False,
        headers: dict[str, str] | None = None,
    ) -> None:
        if headers is None and token and not in_hello:
            headers = {"Authorization": f"Bearer {token}"}
        self._connecting = connect(
            url.replace("http", "ws") + "/ws", additional_headers=headers, max_size=2**24
        )
        self.ws: ClientConnection = self._connecting.__enter__()
        self.token = token
        self.in_hello = in_hello

    def send(self, **msg: Any) -> None:
        self.ws.send(json.dumps(msg))

    def recv(self, timeout: float = 30.0) -> dict[str, Any]:
        return json.loads(self.ws.recv(timeout=timeout))  # type: ignore[no-any-return]

    def until(self, kind: str, timeout: float = 30.0) -> dict[str, Any]:
        while True:
            msg = self.recv(timeout)
            if msg["type"] == kind:
                return msg
            if msg["type"] == "error" and kind != "error":
                raise AssertionError(f"refused while waiting for {kind}: {msg}")

    def hello(self) -> dict[str, Any]:
        if (
            self.token is not None
            and self.ws.request is not None
            and not self.ws.request.headers.get("Authorization")
        ):
            self.send(type="hello", api_token=self.token)
        else:
            self.send(type="hello")
        return self.until("welcome")

    def closed(self, timeout: float = 10.0) -> tuple[int | None, str | None]:
        """Read until the server closes: its close code and reason."""
        try:
            while True:
                self.ws.recv(timeout=timeout)
        except ConnectionClosed as closed:
            frame = closed.rcvd
            return (frame.code, frame.reason) if frame is not None else (None, None)

    def close(self) -> None:
        self.ws.close()


class Clock:
    """A server clock a test moves (the challenges' expiry)."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def challenge_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[str, Clock]]:
    """A real server playing 1-round ranked games whose challenges expire on a clock of the
    test's (the app's ``state.challenges.clock``)."""
    made: list[Any] = []

    def create(*args: Any, **options: Any) -> Any:
        app = create_app(*args, ranked_rounds=1, **options)
        made.append(app)
        return app

    monkeypatch.setattr(helpers, "create_app", create)
    settings = ServerSettings(warm_up=False, signups_per_hour=1000)
    with serving(tmp_path / "crokinole.db", settings) as url:
        clock = Clock(1000.0)
        made[0].state.challenges.clock = clock
        yield url, clock


class Person(Bot):
    """A person's websocket: the session cookie of an account on the handshake."""

    def __init__(self, url: str, cookie: str) -> None:
        super().__init__(url, None, headers={"Cookie": f"crokinole_session={cookie}"})

    def hello(self) -> dict[str, Any]:
        self.send(type="hello", token=secrets.token_hex(12))
        return self.until("welcome")


def person(url: str, username: str) -> Person:
    """A new account's websocket, logged in."""
    with web(url) as client:
        sign_up(client, username)
        cookie = str(client.cookies["crokinole_session"])
    player = Person(url, cookie)
    player.hello()
    return player
