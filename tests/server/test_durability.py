"""A crash loses nothing anyone has seen, and leaves no game without its end (real processes)."""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any

from websockets.exceptions import ConnectionClosed

from tests.server.helpers import Client, shoot_msg
from tests.server_process import running_server


def test_a_crash_right_after_the_last_shot_is_committed_loses_nothing(tmp_path: Path) -> None:
    # The server process dies (for real: os._exit) right after committing the
    # game's last shot, before sending anything. Restarted, it must know the
    # game is finished: a reconnecting client gets the last shot and the end.
    db = tmp_path / "crash.db"
    token = secrets.token_hex(12)
    seen: list[dict[str, Any]] = []
    with running_server(db, env={"CROKINOLE_FAULT": "exit-after-final-commit"}) as url:
        tab = Client(url, token)
        tab.hello()
        tab.recv()
        room = tab.new_game(opponent="easy", rounds=1)["room"]
        tries = 0
        tab.send(shoot_msg(room, "south", position=-27.0))
        try:
            while True:
                msg = tab.recv(60.0)
                if msg["type"] == "shot":
                    seen.append(msg)
                if msg["type"] == "error" or (
                    msg["type"] == "shot" and msg["game"]["current_seat"] == "south"
                ):
                    tries += 1  # an error (a blocked placement) means: try another spot
                    tab.send(shoot_msg(room, "south", position=(tries % 7 - 3) * 9.0))
        except ConnectionClosed:
            pass
        assert url.proc.wait(timeout=30) == 70  # the injected crash, not a clean exit
    last = seen[-1]["event"]
    assert seen[-1]["game"]["phase"] == "playing"  # the end was never sent
    with running_server(db) as url:
        again = Client(url, token)
        again.hello(room=room, last_event=last)
        shot = again.recv()
        assert (shot["type"], shot["event"]) == ("shot", last + 1)
        assert shot["game"]["phase"] == "game_over"
        finished = again.recv()
        assert (finished["type"], finished["event"]) == ("finished", last + 2)
        assert sum(finished["record"]["easy"]["four_rounds"].values()) == 1
        # A bare hello no longer offers the finished game as unfinished.
        bare = Client(url, token)
        bare.hello()
        assert bare.recv()["room"] is None
        for c in (again, bare):
            c.close()
