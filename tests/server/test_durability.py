"""A crash loses nothing anyone has seen, and leaves no game without its end (real processes)."""

from __future__ import annotations

import secrets
import sqlite3
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


def _finish_local_game(tab: Client) -> str:
    """Play a one-round two-player game to its end (16 shots); its room."""
    room: str = tab.new_game(opponent="local", rounds=1, required_contact=False)["room"]
    for k in range(16):
        seat = ("south", "north")[k % 2]
        tab.send(shoot_msg(room, seat, position=(k // 2 - 4) * 9.0, power=30.0))
        tab.until("shot")
    assert tab.until("finished")["event"] == 17
    return room


def test_each_event_row_holds_the_event_not_a_copy_of_the_game(tmp_path: Path) -> None:
    # A 16-shot game took 64 KB of events when each row held the message sent
    # (a whole snapshot, trajectory and report); now a row is the event itself.
    db = tmp_path / "size.db"
    with running_server(db) as url:
        tab = Client(url)
        tab.hello()
        tab.recv()
        room = _finish_local_game(tab)
        tab.close()
    with sqlite3.connect(db) as connection:
        rows = connection.execute(
            "SELECT number, length(event_json) FROM events WHERE room_id = ? ORDER BY number",
            (room,),
        ).fetchall()
    assert [n for n, _ in rows] == list(range(1, 18))
    assert max(size for _, size in rows) < 200  # a shot: seat, position, direction, power
    print(f"events of a 16-shot game: {sum(size for _, size in rows)} bytes")


def test_a_game_left_finished_without_its_end_by_an_older_server_is_finished_on_load(
    tmp_path: Path,
) -> None:
    # What the old server left after a crash between its two commits: the
    # last shot stored, the game over, but no finished event and still playing.
    db = tmp_path / "legacy.db"
    token = secrets.token_hex(12)
    with running_server(db) as url:
        tab = Client(url, token)
        tab.hello()
        tab.recv()
        room = _finish_local_game(tab)
        tab.close()
    with sqlite3.connect(db) as connection:
        connection.execute("DELETE FROM events WHERE room_id = ? AND number = 17", (room,))
        connection.execute(
            "UPDATE rooms SET status = 'playing', event_number = 16 WHERE id = ?", (room,)
        )
    with running_server(db) as url:
        again = Client(url, token)
        again.hello(room=room, last_event=16)
        finished = again.recv()
        assert (finished["type"], finished["event"]) == ("finished", 17)
        assert finished["game"]["phase"] == "game_over"
        again.close()
