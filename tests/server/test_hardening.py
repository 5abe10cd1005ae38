"""What one client can cost the server: slow readers, origins, limits, headers (real server)."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.server.helpers import StuckSocket, local_game, shoot_msg
from tests.server_process import running_server


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
