"""Real servers for the events' tests: the app under uvicorn on a free port, and its clients.

:func:`running` serves an app (``create_app``) in a thread with the server
that ends the event streams at shutdown
(:class:`crokinole.server.events.live.Server`), as ``crokinole serve`` does;
the test keeps the app, so it can look at its services (the live streams'
counts) and lower their limits.  :class:`User` is a browser: its own cookies
(an account after :meth:`User.sign_up`) and, if given, a device token.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import secrets
import socket
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from starlette.applications import Starlette

from crokinole.server import create_app
from crokinole.server.events.http import EventsHttp
from crokinole.server.events.live import Server
from crokinole.server.limits import ServerSettings
from tests.support.server_database import TEST_LEASE_MS, server_database, server_redis

#: Upper bound on any wait of these tests (a safety net against a hang, not a measurement).
PATIENCE = 20.0
PASSWORD = "a long enough password 7"


@dataclass
class Served:
    """A running app: its URL, the app, and its events' services."""

    url: str
    app: Starlette
    thread: threading.Thread

    @property
    def events(self) -> EventsHttp:
        found: EventsHttp = self.app.state.events
        return found


@contextlib.contextmanager
def running(app: Starlette) -> Iterator[Served]:
    """``app`` under uvicorn on a free port (in a thread) until the block ends."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    server = Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + PATIENCE
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the server did not start")
        time.sleep(0.02)
    try:
        yield Served(f"http://127.0.0.1:{port}", app, thread)
    finally:
        server.should_exit = True
        # (A loaded machine may take a while; a test that cares looks at the thread.)
        thread.join(timeout=2 * PATIENCE)


def new_app(db: Path | str, *, memory_hub: bool = False, **options: Any) -> Starlette:
    """The app on ``db`` where this test run keeps servers' data (SQLite, or PostgreSQL under
    ``$CROKINOLE_TEST_DATABASE_URL``), and on Redis under ``$CROKINOLE_TEST_REDIS_URL``
    (unless ``memory_hub`` or the options name a Redis: ``make test-cluster``)."""
    settings = ServerSettings(warm_up=False)
    redis = None if memory_hub or "redis" in options else server_redis(db)
    if redis is not None:
        url, prefix = redis
        settings = dataclasses.replace(settings, lease_ms=TEST_LEASE_MS)
        options = {**options, "redis": url, "redis_prefix": prefix}
    return create_app(server_database(db), settings, **options)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    with running(new_app(tmp_path / "events.db")) as found:
        yield found


class User:
    """A browser of the site: its cookies, and a device token if it has one."""

    def __init__(self, url: str, *, device: bool = False) -> None:
        headers = {}
        self.token: str | None = None
        if device:
            self.token = secrets.token_hex(16)
            headers["X-Device-Token"] = self.token
        self.http = httpx.Client(base_url=url, headers=headers, timeout=PATIENCE)
        self.account: str | None = None

    def sign_up(self, username: str) -> User:
        answer = self.http.post(
            "/api/account/signup", json={"username": username, "password": PASSWORD}
        )
        assert answer.status_code == 201, answer.text
        self.account = username
        return self

    def get(self, path: str, body: Any = None, **options: Any) -> httpx.Response:
        assert body is None, "a GET has no body"
        return self.http.get(path, **options)

    def post(self, path: str, body: Any = None, **options: Any) -> httpx.Response:
        if body is None:
            return self.http.post(path, **options)
        return self.http.post(path, json=body, **options)

    def put(self, path: str, body: Any = None, **options: Any) -> httpx.Response:
        return self.http.put(path, json=body, **options)

    def ok(self, method: str, path: str, body: Any = None, status: int = 200) -> dict[str, Any]:
        """The JSON answer of a request that must succeed with ``status``."""
        answer = getattr(self, method)(path, body)
        assert answer.status_code == status, (path, answer.status_code, answer.text)
        found: dict[str, Any] = answer.json()
        return found

    def refused(
        self, method: str, path: str, body: Any = None, *, status: int, code: str
    ) -> dict[str, Any]:
        """The error of a request that must be refused with ``status`` and ``code``."""
        answer = getattr(self, method)(path, body)
        assert (answer.status_code, answer.json().get("code")) == (status, code), (
            path,
            answer.status_code,
            answer.text,
        )
        found: dict[str, Any] = answer.json()
        assert set(found) == {"code", "message"} and found["message"]
        return found

    def close(self) -> None:
        self.http.close()


@pytest.fixture
def users(served: Served) -> Iterator[Callable[..., User]]:
    """Makes browsers of the served site (closed afterwards)."""
    made: list[User] = []

    def make(username: str | None = None, *, device: bool = False) -> User:
        user = User(served.url, device=device)
        if username is not None:
            user.sign_up(username)
        made.append(user)
        return user

    yield make
    for user in made:
        user.close()


#: A game won 6–2 in game points by the first side (R2: 2 game points a round won): rounds
#: 35–10, 20–15, 40–5, 10–30 (R6 totals, their 20s inside them: 4 for the first, 1 for
#: the second); 105 points to 60.
WON_BY_FIRST = {
    "games": [
        {
            "rounds": [
                {"totals": [35, 10], "twenties": [1, 0]},
                {"totals": [20, 15], "twenties": [1, 0]},
                {"totals": [40, 5], "twenties": [2, 0]},
                {"totals": [10, 30], "twenties": [0, 1]},
            ]
        }
    ]
}
#: The same rounds the other way round: won 6–2 by the second side.
WON_BY_SECOND = {
    "games": [
        {
            "rounds": [
                {"totals": list(reversed(r["totals"])), "twenties": list(reversed(r["twenties"]))}
                for r in WON_BY_FIRST["games"][0]["rounds"]  # type: ignore[index]
            ]
        }
    ]
}


def swiss(name: str = "Tuesday league", rounds: int = 3, **more: Any) -> dict[str, Any]:
    return {"settings": {"name": name, "format": "swiss", "rounds": rounds, **more}}


def sse_messages(lines: Iterator[str]) -> Iterator[dict[str, Any]]:
    """The messages of a Server-Sent Events stream (``id``, ``data`` as JSON; comments as
    ``{"comment": ...}``), as they arrive."""
    message: dict[str, Any] = {}
    for line in lines:
        if line == "":
            if message:
                yield message
            message = {}
        elif line.startswith(":"):
            yield {"comment": line[1:].strip()}
        else:
            field, _, value = line.partition(":")
            value = value.removeprefix(" ")
            message[field] = json.loads(value) if field == "data" else value


@dataclass
class Running:
    """An event with its organiser and its players (by entrant id)."""

    id: str
    organiser: User
    players: dict[str, User]

    def path(self, rest: str = "") -> str:
        return f"/api/events/{self.id}{rest}"

    def view(self) -> dict[str, Any]:
        return self.organiser.ok("get", self.path())

    def pairing(self, round_number: int, table: int) -> dict[str, Any]:
        found: dict[str, Any] = self.view()["rounds"][round_number - 1]["pairings"][table - 1]
        return found

    def side(self, round_number: int, table: int, side: int) -> User:
        """The player of a side of a pairing."""
        return self.players[self.pairing(round_number, table)["sides"][side][0]]


def event_of(
    users: Callable[..., User], names: Sequence[str], *, checked_in: bool = True, **settings: Any
) -> Running:
    """A Swiss event (its ``settings`` given) that the accounts ``names`` joined."""
    organiser = users("organiser")
    view = organiser.ok("post", "/api/events", swiss(**settings), status=201)
    event = Running(view["id"], organiser, {})
    for name in names:
        player = users(name)
        joined = player.ok("post", event.path("/join"), {"name": name.title()})
        entrant = joined["you"]["entrant"]
        event.players[entrant] = player
        if checked_in:
            player.ok("post", event.path(f"/entrants/{entrant}/check-in"))
    return event


class Watcher:
    """An open event page: a real Server-Sent Events stream, read as it arrives."""

    def __init__(self, url: str, event_id: str) -> None:
        self.http = httpx.Client(base_url=url, timeout=PATIENCE)
        self._stream = self.http.stream("GET", f"/api/events/{event_id}/stream")
        self.response = self._stream.__enter__()
        self._messages = sse_messages(self.response.iter_lines())

    def next(self) -> dict[str, Any]:
        """The next message (a comment, ``retry``, or a view)."""
        return next(self._messages)

    def next_view(self) -> dict[str, Any]:
        """The next view's message (``id`` and ``data``), comments skipped."""
        while True:
            message = self.next()
            if "data" in message:
                return message

    def close(self) -> None:
        self._stream.__exit__(None, None, None)
        self.http.close()


def without_you(view: dict[str, Any]) -> dict[str, Any]:
    """A view as the stream sends it to everyone (a request's answer adds who asks)."""
    return {k: v for k, v in view.items() if k != "you"}


def eventually(check: Callable[[], bool], what: str) -> None:
    """Wait until ``check()`` holds (at most :data:`PATIENCE` seconds: a safety net)."""
    deadline = time.monotonic() + PATIENCE
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"never: {what}")
        time.sleep(0.02)
