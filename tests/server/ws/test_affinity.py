"""The websocket's address may name its table or party, for a load balancer to hash on.

``/ws/v2?table=ID`` and ``/ws/v2?party=CODE`` (docs/deploy.md, *Affinity*)
change nothing for the server: the connection says ``hello`` and plays as
without them (a real server, real sockets).  A malformed one is refused
with close code 1008 and a reason that says what is wrong.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from crokinole.server.limits import ServerSettings
from tests.support.server import WS_V2, serving

SINGLES = {"layout": "singles", "rounds": 1, "hand": "steady"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db: Path = tmp_path_factory.mktemp("db") / "crokinole.db"
    with serving(db, ServerSettings(warm_up=False)) as url:
        yield url


def _socket_url(server: str, query: str) -> str:
    return server.replace("http", "ws") + WS_V2 + query


def _plays(server: str, query: str) -> str:
    """Hello and a new party on a socket at ``WS_V2 + query``: the party's code."""
    with connect(_socket_url(server, query), open_timeout=10) as ws:
        ws.send(json.dumps({"type": "hello", "token": secrets.token_hex(12)}))
        assert json.loads(ws.recv(timeout=10))["type"] == "welcome"
        ws.send(json.dumps({"type": "create", "kind": "party", "name": "Ann", "settings": SINGLES}))
        while True:
            msg = json.loads(ws.recv(timeout=20))
            assert msg["type"] != "error", msg
            if msg["type"] == "table":
                return str(msg["view"]["code"])


def test_a_socket_plays_with_or_without_its_table_or_party_in_the_address(server: str) -> None:
    code = _plays(server, "")
    assert _plays(server, f"?party={code}") != code  # the address decides nothing here
    assert _plays(server, f"?table={secrets.token_hex(16)}")
    assert _plays(server, "?cache=1")  # other parameters are ignored


@pytest.mark.parametrize(
    ("query", "reason"),
    [
        ("?table=nope", "table must be a table's id (32 hex digits)"),
        ("?party=abc234", "party must be a party code as the server gives it"),
        ("?party=ABC2340", "party must be a party code"),
        ("?party=ABC234&party=XYZ234", "party must be a party code"),
        ("?party=ABC234&table=" + "a" * 32, "name the table or the party in the address, not both"),
    ],
)
def test_a_malformed_table_or_party_in_the_address_is_refused_with_a_reason(
    server: str, query: str, reason: str
) -> None:
    with (
        connect(_socket_url(server, query), open_timeout=10) as ws,
        pytest.raises(ConnectionClosed) as closed,
    ):
        ws.recv(timeout=10)
    assert closed.value.rcvd is not None
    assert closed.value.rcvd.code == 1008
    assert closed.value.rcvd.reason.startswith(reason), closed.value.rcvd.reason
