"""The limits hold for the whole site, not for each process (issue 21).

Sign-ups per address, new tables and joins per device, and open websockets
per address used to be counted in each process, so N processes let N times
as much through.  With ``--redis`` they are counted in Redis: here two real
``crokinole serve`` processes on one Redis, and a client whose tries
alternate between them, reaches each limit after exactly as many tries as
one process would allow.  Every client comes from an address of its own
(``X-Forwarded-For``, which the servers trust from 127.0.0.1).  Skipped when
PostgreSQL or Redis cannot be reached (failed under ``CI``).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import secrets
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import ClientConnection, connect

from tests.support.cluster import Cluster, Node, cluster, require_services, wait_for
from tests.support.server import WS_V2

#: ServerSettings.signups_per_hour's default (it has no command-line option).
SIGNUPS_PER_HOUR = 10
ROOMS_PER_MINUTE = 3
CONNECTIONS_PER_ADDRESS = 4
PASSWORD = "correct horse battery staple"
SINGLES = {"layout": "singles", "rounds": 1, "hand": "steady"}


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[Cluster]:
    """Two processes on one Redis, with small limits."""
    require_services()
    options = [
        "--rooms-per-minute", str(ROOMS_PER_MINUTE),
        "--connections-per-address", str(CONNECTIONS_PER_ADDRESS),
    ]  # fmt: skip
    with cluster(tmp_path, options=options) as made:
        made.start(2)
        yield made


def address() -> str:
    """An address of the test's own (no other test's counts)."""
    return f"10.{secrets.randbelow(250)}.{secrets.randbelow(250)}.{secrets.randbelow(250) + 1}"


def socket_from(node: Node, source: str) -> ClientConnection:
    """A websocket to ``node`` from ``source`` (closed by the caller)."""
    return connect(
        node.url.replace("http", "ws") + WS_V2,
        additional_headers={"X-Forwarded-For": source},
        open_timeout=10,
    ).__enter__()


def test_sign_ups_per_address_are_counted_for_the_site(servers: Cluster) -> None:
    a, b = servers.nodes
    source = address()
    clients = {
        node.name: httpx.Client(base_url=node.url, timeout=30, headers={"X-Forwarded-For": source})
        for node in (a, b)
    }
    try:
        by_turn = itertools.cycle(clients.values())
        # A refused sign-up (a name taken) gives its place back, on the other process too.
        made = next(by_turn).post(
            "/api/account/signup", json={"username": "Sid0", "password": PASSWORD}
        )
        assert made.status_code == 201, made.text
        taken = next(by_turn).post(
            "/api/account/signup", json={"username": "sid0", "password": PASSWORD}
        )
        assert taken.status_code == 409, taken.text
        answers = []
        for n in range(1, SIGNUPS_PER_HOUR + 2):
            answer = next(by_turn).post(
                "/api/account/signup", json={"username": f"Sid{n}", "password": PASSWORD}
            )
            answers.append(answer.status_code)
        # One process alone would allow 10: two, counting each its own, allowed 20.
        assert answers == [201] * (SIGNUPS_PER_HOUR - 1) + [429, 429], answers
        assert answer.json()["code"] == "too_many_signups"
        # Another address is not held back.
        other = httpx.Client(base_url=a.url, timeout=30, headers={"X-Forwarded-For": address()})
        with other:
            fresh = other.post(
                "/api/account/signup", json={"username": "Ola", "password": PASSWORD}
            )
        assert fresh.status_code == 201, fresh.text
    finally:
        for client in clients.values():
            client.close()


def test_new_tables_per_device_are_counted_for_the_site(servers: Cluster) -> None:
    a, b = servers.nodes
    token = secrets.token_hex(12)
    answers = []
    for node in (a, b, a, b):
        with socket_from(node, address()) as ws:
            ws.send(json.dumps({"type": "hello", "token": token}))
            assert json.loads(ws.recv(timeout=10))["type"] == "welcome"
            create = {"type": "create", "kind": "party", "name": "Ann", "settings": SINGLES}
            ws.send(json.dumps(create))
            while True:
                msg = json.loads(ws.recv(timeout=20))
                if msg["type"] in ("table", "error"):
                    break
            answers.append(msg.get("code", msg["type"]))
    assert answers == ["table"] * ROOMS_PER_MINUTE + ["rate_limited"], answers


def test_open_websockets_per_address_are_counted_for_the_site(servers: Cluster) -> None:
    a, b = servers.nodes
    source = address()
    sockets: list[ClientConnection] = []

    def let_in(node: Node) -> bool:
        try:
            sockets.append(socket_from(node, source))
        except InvalidStatus as refusal:
            assert refusal.response.status_code == 403
            return False
        return True

    try:
        assert [let_in(node) for node in (a, b, a, b)] == [True] * CONNECTIONS_PER_ADDRESS
        # One process alone would allow 4: two, counting each its own, allowed 8.
        assert not let_in(a) and not let_in(b)
        sockets.pop(0).close()  # one on a closes: b lets one in
        wait_for(lambda: let_in(b), 10, "the closed socket to stop counting")
        assert not let_in(a)
    finally:
        for ws in sockets:
            ws.close()


def test_a_bot_tokens_messages_are_counted_for_the_site(servers: Cluster) -> None:
    """Issue 24's limit of 20 messages a second per token, 40 at once, "its sockets
    together" (docs/bots.md): a token may open two sockets, and here they are on two
    processes.  80 pings sent at once, 40 to each: each process alone would answer all of
    them (40 is its burst); counted for the site, 40 are answered and the rest refused
    (a few more while the 2-second window slides on a slow machine)."""
    a, b = servers.nodes
    source = address()
    with httpx.Client(base_url=a.url, timeout=30, headers={"X-Forwarded-For": source}) as web:
        made = web.post("/api/account/signup", json={"username": "Tokbot", "password": PASSWORD})
        assert made.status_code == 201, made.text
        assert web.post("/api/account/bot", json={"password": PASSWORD}).json()["bot"] is True
        minted = web.post("/api/account/tokens", json={"name": "limit", "scopes": ["play"]})
        assert minted.status_code == 201, minted.text
        token = minted.json()["token"]
    headers = {"X-Forwarded-For": source, "Authorization": f"Bearer {token}"}
    with contextlib.ExitStack() as stack:
        sockets = [
            stack.enter_context(
                connect(
                    node.url.replace("http", "ws") + WS_V2,
                    additional_headers=headers,
                    open_timeout=10,
                )
            )
            for node in (a, b)
        ]
        for ws in sockets:
            ws.send(json.dumps({"type": "hello"}))
            assert json.loads(ws.recv(timeout=10))["type"] == "welcome"
        for _ in range(40):
            for ws in sockets:
                ws.send(json.dumps({"type": "ping"}))
        answers = [json.loads(ws.recv(timeout=20)) for ws in sockets for _ in range(40)]
    pongs = sum(answer["type"] == "pong" for answer in answers)
    refused = [answer for answer in answers if answer["type"] == "error"]
    assert pongs + len(refused) == 80
    assert all(answer["code"] == "rate_limited" for answer in refused)
    # The hellos were counted too (40 in any 2 s): at most 38 pings, and a little refill.
    assert 20 <= pongs <= 50, pongs
