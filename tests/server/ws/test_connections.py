"""A connection and its party, over real websockets: refusals, message limits, floods.

docs/protocol.md: a refused message changes nothing (the connection stays at
its table), and "Delivery and limits": a connection over its message limit
is sent ``too_many_messages`` and closed, and one connection's backlog of
messages does not hold the others up.
"""

from __future__ import annotations

import base64
import json
import os
import socket
import struct
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import urlsplit

import pytest

from crokinole.server.limits import ServerSettings
from tests.support.server import WS_V2, Player, serving, ws_frames

SINGLES = {"layout": "singles", "rounds": 1, "hand": "steady", "tie": "draw"}
#: The message limit of the servers here (small, so a test reaches it quickly).
BURST = 30


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db: Path = tmp_path_factory.mktemp("db") / "crokinole.db"
    settings = ServerSettings(
        warm_up=False,
        rooms_per_minute=50,
        message_burst=BURST,
        messages_per_second=5.0,
        flood_cooldown=0.0,
    )
    with serving(db, settings) as url:
        yield url


@pytest.fixture(scope="module")
def roomy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server whose message limit is out of the way (to see the loop shared)."""
    db: Path = tmp_path_factory.mktemp("db") / "crokinole.db"
    settings = ServerSettings(warm_up=False, message_burst=100_000, messages_per_second=1e6)
    with serving(db, settings) as url:
        yield url


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server whose rematch offers lapse after a second (a test setting)."""
    db: Path = tmp_path_factory.mktemp("db") / "crokinole.db"
    with serving(db, ServerSettings(warm_up=False, rematch_offer=1.0)) as url:
        yield url


_OPEN: list[Player] = []


@pytest.fixture(autouse=True)
def _close_players() -> Iterator[None]:
    yield
    while _OPEN:
        _OPEN.pop().close()


def _player(url: str) -> Player:
    p = Player(url)
    _OPEN.append(p)
    p.hello()
    return p


def _party(url: str) -> tuple[Player, Player, str]:
    ann = _player(url)
    code = ann.create("party", "Ann", **SINGLES)["view"]["code"]
    bob = _player(url)
    bob.join(code, "Bob")
    ann.until("seat")
    return ann, bob, code


class Burst:
    """A websocket client on a raw socket: it sends many frames in one write, reads later.

    Every one is closed when its test ends (:func:`_close_bursts`), even a failed test's.
    """

    opened: ClassVar[list[socket.socket]] = []

    def __init__(self, url: str, address: str | None = None) -> None:
        parts = urlsplit(url)
        self.sock = socket.create_connection((parts.hostname, parts.port))
        Burst.opened.append(self.sock)
        key = base64.b64encode(os.urandom(16)).decode()
        forwarded = "" if address is None else f"X-Forwarded-For: {address}\r\n"
        head = (
            f"GET {WS_V2} HTTP/1.1\r\nHost: {parts.netloc}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n{forwarded}"
            "Sec-WebSocket-Version: 13\r\n\r\n"
        )
        self.sock.sendall(head.encode())
        got = b""
        while b"\r\n\r\n" not in got:
            chunk = self.sock.recv(1)
            assert chunk, "the handshake was not answered"
            got += chunk
        self.status = int(got.split(b" ", 2)[1])
        self.reset = False

    @staticmethod
    def frame(data: dict[str, Any]) -> bytes:
        payload = json.dumps(data).encode()
        assert len(payload) < 126
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        return struct.pack("!BB", 0x81, 0x80 | len(payload)) + mask + masked

    def send_all(self, messages: list[dict[str, Any]]) -> None:
        self.sock.sendall(b"".join(self.frame(m) for m in messages))

    def read_all(self, timeout: float = 30.0) -> tuple[list[dict[str, Any]], int | None]:
        """Read until the server closes (or goes quiet): the messages and the close code."""
        self.sock.settimeout(timeout)
        data = b""
        while True:
            try:
                chunk = self.sock.recv(65536)
            except TimeoutError:
                break
            except ConnectionResetError:  # closed without a closing handshake
                self.reset = True
                break
            if not chunk:
                break
            data += chunk
            if _close_code(data) is not None:
                break
        return ws_frames(data)

    def until(self, kind: str, timeout: float = 30.0) -> None:
        """Read until a message of type ``kind`` came (nothing else is expected with it)."""
        self.sock.settimeout(timeout)
        data = b""
        while not any(m.get("type") == kind for m in ws_frames(data)[0]):
            chunk = self.sock.recv(65536)
            assert chunk, f"the server closed before {kind}"
            data += chunk

    def close(self) -> None:
        self.sock.close()


@pytest.fixture(autouse=True)
def _close_bursts() -> Iterator[None]:
    """A failed test's raw sockets are closed too (else a later test meets their warning)."""
    yield
    while Burst.opened:
        Burst.opened.pop().close()


def _close_code(data: bytes) -> int | None:
    return ws_frames(data)[1]


# ---------------------------------------------------------------- refusals


def test_a_refused_join_or_an_unknown_table_leaves_the_connection_at_its_party(
    server: str,
) -> None:
    ann, bob, _code = _party(server)
    # Another party, full: Carol's and Dan's.
    carol = _player(server)
    full = carol.create("party", "Carol", **SINGLES)["view"]["code"]
    dan = _player(server)
    dan.join(full, "Dan")
    refusals = [
        ({"type": "join", "code": "ZZZZZZ", "name": "Bob"}, "unknown_code"),
        ({"type": "join", "code": full, "name": "Bob"}, "party_full"),
        ({"type": "open", "table": "0" * 32, "last_event": None}, "unknown_table"),
        ({"type": "open", "table": carol.table, "last_event": None}, "not_a_member"),
        ({"type": "take_seat", "table": "f" * 32, "seat": None}, "unknown_table"),
        ({"type": "rename", "table": carol.table, "name": "Bo"}, "not_a_member"),
    ]
    for message, code in refusals:
        assert bob.error(message)["code"] == code, message
    # Nothing changed: Ann never saw Bob go, and Bob still gets his party's events.
    seen = [m for m in ann.quiet() if m["type"] in ("presence", "member", "stand_in")]
    assert seen == [], seen
    ann.act("rename", name="Annie")
    renamed = bob.until("member")
    assert (renamed["change"], renamed["name"]) == ("renamed", "Annie")
    ann.act("start")
    started = bob.until("game_started")
    occupant = next(s for s in started["view"]["seats"] if s["seat"] == "north")["occupant"]
    assert occupant["member"] == "m2" and occupant["connected"] is True
    assert occupant["stand_in"] is False


# ---------------------------------------------------------------- message limits


def test_error_too_many_messages_then_the_connection_is_closed(server: str) -> None:
    flood = Burst(server)
    assert flood.status == 101
    token = os.urandom(12).hex()
    flood.send_all([{"type": "hello", "token": token}] + [{"type": "ping"}] * (4 * BURST))
    messages, close = flood.read_all()
    kinds = [m["type"] for m in messages]
    assert kinds[0] == "welcome"
    # The messages within the limit are answered, then one error, then the close.
    assert kinds[1:] == ["pong"] * (BURST - 1) + ["error"], kinds
    assert messages[-1]["code"] == "too_many_messages"
    assert "at most 30 at once" in messages[-1]["message"]
    # Then the socket ends, without a closing handshake (which would read the flood).
    assert close is None
    assert flood.reset or flood.sock.recv(1) == b""
    flood.close()


def test_messages_within_the_limit_are_all_answered(server: str) -> None:
    p = _player(server)
    for _ in range(BURST - 1):
        p.send({"type": "ping"})
    got = [p.recv()["type"] for _ in range(BURST - 1)]
    assert got == ["pong"] * (BURST - 1)


def test_another_partys_shots_get_through_while_one_client_floods(server: str) -> None:
    ann, bob, _code = _party(server)
    ann.act("start")
    bob.until("game_started")
    floods = [Burst(server) for _ in range(4)]
    began = time.monotonic()
    for flood in floods:
        flood.send_all(
            [{"type": "hello", "token": os.urandom(12).hex()}] + [{"type": "ping"}] * 5000
        )
    seats = {"south": ann, "north": bob}
    turn = "south"
    for _ in range(4):
        seats[turn].shoot(turn, power=0.0)
        shot = bob.until("shot", timeout=20.0)
        assert shot["seat"] == turn
        turn = shot["game"]["current_seat"]
    for flood in floods:
        messages, _ = flood.read_all()
        # Each flood was answered up to its limit only (the burst, plus what the
        # bucket refilled at 5 a second while the flood was read), and closed.
        refilled = int(5.0 * (time.monotonic() - began)) + 1
        assert BURST + 1 <= len(messages) <= BURST + 1 + refilled, len(messages)
        assert messages[-1]["code"] == "too_many_messages"
        flood.close()


def test_one_connections_backlog_does_not_hold_the_others(roomy: str) -> None:
    """A backlog already read is handled a message at a time, the other sockets in between."""
    flood = Burst(roomy)
    other = _player(roomy)
    other.send({"type": "ping"})
    other.recv()
    count = 1500
    # Welcomed first (on PostgreSQL + Redis a hello takes a while), then the backlog at once.
    flood.send_all([{"type": "hello", "token": os.urandom(12).hex()}])
    flood.until("welcome")
    flood.send_all([{"type": "ping"}] * count)
    asked = 0
    answered: list[float] = []
    while True:  # the other socket pings on while the flood's backlog is handled
        other.send({"type": "ping"})
        asked += 1
        answered.append(other.recv()["server_time"])
        if asked >= 400:  # well past the flood's backlog
            break
    messages, _ = flood.read_all(timeout=5.0)
    pongs = [m["server_time"] for m in messages if m["type"] == "pong"]
    assert len(pongs) == count
    # The other socket's pings were answered while the flood's were (not after them all).
    assert any(pongs[0] < t < pongs[-1] for t in answered), (pongs[0], answered, pongs[-1])
    flood.close()


def test_an_address_that_flooded_is_refused_new_sockets_for_a_while(
    tmp_path: Path,
) -> None:
    settings = ServerSettings(warm_up=False, message_burst=BURST, flood_cooldown=600.0)
    with serving(tmp_path / "crokinole.db", settings) as url:
        flood = Burst(url, address="10.1.0.1")
        flood.send_all(
            [{"type": "hello", "token": os.urandom(12).hex()}] + [{"type": "ping"}] * 500
        )
        messages, _ = flood.read_all()
        assert messages[-1]["code"] == "too_many_messages"
        flood.close()
        again = Burst(url, address="10.1.0.1")
        assert again.status == 403  # refused before the websocket opens
        again.close()
        # A flood that hangs up at once is counted all the same.
        hasty = Burst(url, address="10.1.0.3")
        hasty.send_all(
            [{"type": "hello", "token": os.urandom(12).hex()}] + [{"type": "ping"}] * 500
        )
        hasty.close()
        statuses = []
        for _ in range(100):
            probe = Burst(url, address="10.1.0.3")
            statuses.append(probe.status)
            probe.close()
            if probe.status == 403:
                break
            time.sleep(0.05)
        assert statuses[-1] == 403, statuses
        other = Burst(url, address="10.1.0.2")  # another address is welcome
        assert other.status == 101
        other.send_all([{"type": "ping"}])
        assert other.read_all(timeout=2.0)[0][0]["type"] == "pong"
        other.close()


# ---------------------------------------------------------------- rematch


def _finished(url: str) -> tuple[Player, Player]:
    """Ann's and Bob's one-round party, played to its end (a 0-0 draw)."""
    ann, bob, _code = _party(url)
    ann.act("start")
    bob.until("game_started")
    seats = {"south": ann, "north": bob}
    turn = "south"
    for _ in range(16):
        seats[turn].shoot(turn, power=0.0)
        turn = bob.until("shot")["game"]["current_seat"] or turn
    ann.until("finished")
    bob.until("finished")
    return ann, bob


def test_a_rematch_is_offered_and_can_be_declined(quick: str) -> None:
    ann, bob = _finished(quick)
    ann.act("rematch")
    offer = bob.until("rematch_offer")
    assert offer["member"] == "m1" and offer["lobby"]["deadline"]["kind"] == "rematch"
    bob.act("decline_rematch")
    declined = ann.until("rematch_declined")
    assert declined["member"] == "m2"
    assert declined["lobby"]["rematch_votes"] == [] and declined["lobby"]["deadline"] is None
    # Nothing more to decline; a new offer can be made, and accepted.
    assert ann.error({"type": "decline_rematch", "table": ann.table})["code"] == "illegal_action"
    bob.act("rematch")
    ann.until("rematch_offer")
    ann.act("rematch")
    assert bob.until("game_started")["view"]["game_number"] == 2


def test_a_player_who_closed_the_tab_is_not_counted_as_agreeing(quick: str) -> None:
    ann, bob = _finished(quick)
    bob.close()
    assert ann.until("presence")["connected"] is False
    ann.act("rematch")
    ann.until("rematch_offer")
    # No game starts with a CPU in Bob's seat; unanswered, the offer lapses.
    lapsed = ann.until("rematch_lapsed", timeout=30.0)
    assert lapsed["lobby"]["stage"] == "finished" and lapsed["lobby"]["rematch_votes"] == []
    assert not [m for m in ann.quiet() if m["type"] == "game_started"]


def test_a_spectator_is_told_it_is_a_spectator(quick: str) -> None:
    ann, _bob, code = _party(quick)
    ann.act("start")
    sam = _player(quick)
    sam.join(code, "Sam", spectator=True)
    for kind in ("next_round", "rematch", "decline_rematch"):
        error = sam.error({"type": kind, "table": sam.table})
        assert error["code"] == "spectator", kind


def test_the_server_socket_reads_a_flood_a_small_piece_at_a_time() -> None:
    """``crokinole serve`` listens with a small receive buffer (its connections inherit it):
    one read of a flooding socket hands the websocket parser a few hundred frames."""
    from crokinole.cli.serve import RECEIVE_BUFFER, listening_socket  # noqa: PLC0415

    sock = listening_socket("127.0.0.1", 0)
    try:
        # Linux doubles the value asked for (its bookkeeping); the default is 128 KiB or more.
        assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF) <= 2 * RECEIVE_BUFFER
        sock.listen()
        client = socket.create_connection(sock.getsockname())
        accepted, _ = sock.accept()
        assert accepted.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF) <= 2 * RECEIVE_BUFFER
        accepted.close()
        client.close()
    finally:
        sock.close()
