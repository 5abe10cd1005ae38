"""What one client can cost the server under protocol version 2 (real server, real sockets).

The limits of docs/protocol.md "Delivery and limits": a client that stops
reading is dropped without stalling its table, a bad message costs an error
and not the connection, the hello timeout, the Origin check, connections per
address, and the rate of new tables and joins per device.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import ClientConnection, connect
from websockets.typing import Origin

from crokinole.server.limits import ServerSettings
from tests.support.server import WS_V2, Player, StuckSocket, serving

SINGLES = {"layout": "singles", "rounds": 1, "hand": "steady"}


def _ws(url: str, origin: str | None) -> ClientConnection:
    return connect(
        url.replace("http", "ws") + WS_V2, origin=None if origin is None else Origin(origin)
    )


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db: Path = tmp_path_factory.mktemp("db") / "crokinole.db"
    settings = ServerSettings(
        warm_up=False,
        rooms_per_minute=3,
        connections_per_address=6,
        hello_timeout=1.0,
        flood_cooldown=0.0,  # the stuck tab floods: the next tests come from its address
    )
    with serving(db, settings) as url:
        yield url


def test_a_client_that_stops_reading_neither_stalls_its_table_nor_stays(server: str) -> None:
    ann = Player(server)
    ann.hello()
    ann.create("solo", "Ann", seats={"south": "me", "north": "me"}, **SINGLES)
    stuck = StuckSocket(server, path=WS_V2)
    stuck.token = ann.token
    stuck.send({"type": "hello", "token": ann.token})
    # The stuck tab asks for the whole table (about 3 KB) again and again
    # without reading: more than the kernel's buffers and its queue hold.
    asked = 4000
    for _ in range(asked):
        stuck.send({"type": "open", "table": ann.table})
    turn = "south"
    for _ in range(4):  # the reading tab's shots still come, each as it happens
        ann.shoot(turn, power=0.0)
        turn = ann.until("shot", timeout=20.0)["game"]["current_seat"]
    messages, close = stuck.read_all(timeout=60.0)
    assert 0 < len(messages) < asked
    # "try again later" (its queue overflowed) or "too many messages", if the close got through
    assert close in (None, 1013, 1008)
    ann.shoot(turn, power=0.0)
    assert ann.until("shot", timeout=20.0)["seat"] == turn
    ann.close()
    stuck.close()


def test_the_websocket_refuses_pages_of_other_sites(server: str) -> None:
    host = server.removeprefix("http://")
    with pytest.raises(InvalidStatus) as info:
        _ws(server, "https://evil.example")
    assert info.value.response.status_code == 403
    for origin in (f"http://{host}", None):
        with _ws(server, origin) as ws:
            ws.send(json.dumps({"type": "ping"}))
            assert json.loads(ws.recv(timeout=10))["type"] == "pong"


def test_a_socket_that_never_says_hello_is_closed(server: str) -> None:
    silent = Player(server)
    silent.send({"type": "ping"})  # pings do not keep it open
    assert silent.recv()["type"] == "pong"
    with pytest.raises(ConnectionClosed) as closed:
        silent.recv(timeout=30.0)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
    silent.close()


@pytest.mark.parametrize(
    ("payload", "code"),
    [("not json", "bad_json"), ("x" * 20000, "too_large"),
     ('{"type": "ping", "pad": "' + "é" * 9000 + '"}', "too_large"),
     ('{"type": "ping", "n": ' + "9" * 5000 + "}", "bad_message"),
     ("[" * 2000 + "]" * 2000, "bad_message"), ('{"type": "shoot", "power": NaN}', "bad_message"),
     ('{"type": "dance"}', "bad_message")],
)  # fmt: skip
def test_a_bad_message_is_answered_and_the_connection_goes_on(
    server: str, payload: str, code: str
) -> None:
    # Whatever a client sends, it costs one error, not its connection (the
    # parser's cases, each message's field, are in test_wire).
    me = Player(server)
    me.hello()
    assert me.error(payload)["code"] == code
    me.send({"type": "ping"})
    assert me.until("pong")["table"] is None  # the connection is still usable
    me.close()


def test_new_tables_and_joins_are_rate_limited_per_device(server: str) -> None:
    host = Player(server)
    host.hello()
    code = host.create("party", "Ann", **SINGLES)["view"]["code"]
    guest = Player(server)
    guest.hello()
    guest.join(code, "Bob")  # joins count too
    guest.create("party", "Bob", **SINGLES)
    guest.create("party", "Bob", **SINGLES)
    error = guest.error({"type": "join", "code": code, "name": "Bob"})
    assert error["code"] == "rate_limited" and "at most 3" in error["message"]
    # Another device is not held back by this one.
    assert host.create("party", "Ann", **SINGLES)["view"]["code"] != code
    host.close()
    guest.close()


def test_connections_per_address_are_bounded(server: str) -> None:
    open_: list[Player] = []
    for _ in range(100):  # once the server has seen the other tests' sockets close
        try:
            while len(open_) < 6:
                open_.append(Player(server))
            break
        except InvalidStatus:
            time.sleep(0.1)
    assert len(open_) == 6
    with pytest.raises(InvalidStatus) as info:
        Player(server)
    assert info.value.response.status_code == 403
    for p in open_:
        p.close()
