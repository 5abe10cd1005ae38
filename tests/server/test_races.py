"""Closed games stay closed: races between tabs, abandoning by any route (real server)."""

from __future__ import annotations

import json
import secrets
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crokinole.rules import Game
from tests.server.helpers import Client, shoot_msg
from tests.server_process import running_server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db: Path = tmp_path_factory.mktemp("db") / "crokinole.db"
    with running_server(db) as url:
        yield url


def _tabs(url: str, count: int) -> list[Client]:
    token = secrets.token_hex(12)
    tabs = []
    for _ in range(count):
        tab = Client(url, token)
        tab.hello()
        assert tab.recv()["type"] == "welcome"
        tabs.append(tab)
    return tabs


def _record(url: str, token: str) -> dict[str, Any]:
    asked = urllib.request.Request(f"{url}/api/record", headers={"X-Device-Token": token})
    with urllib.request.urlopen(asked) as answer:
        return json.loads(answer.read())  # type: ignore[no-any-return]


def _answer_and_end(tab: Client) -> tuple[dict[str, Any], dict[str, Any], list[int]]:
    """The tab's answer to its shot (its ``shot`` or an ``error``), the game's ``finished``,
    and the event numbers of every shot it was sent after ``finished``."""
    answer = finished = None
    late: list[int] = []
    while answer is None or finished is None:
        msg = tab.recv(30.0)
        if msg["type"] == "finished":
            finished = msg
        elif msg["type"] == "shot" and finished is not None:
            late.append(msg["event"])
        if answer is None and (
            msg["type"] == "error" or (msg["type"] == "shot" and not msg["cpu"])
        ):
            answer = msg
    return answer, finished, late


@pytest.mark.parametrize("abandon", ["resign", "new_game"])
def test_a_shot_racing_an_abandon_is_refused_and_changes_nothing(server: str, abandon: str) -> None:
    # One tab abandons the game while another shoots at once, ten times over.
    # Whatever order the server takes them in, a shot is either played before
    # the game is abandoned or refused; nothing is played after.
    for attempt in range(10):
        first, second = _tabs(server, 2)
        room = first.new_game(opponent="easy")["room"]
        second.hello(room=room, last_event=0)  # the second tab joins the game
        if abandon == "resign":
            first.send({"type": "resign", "room": room})
        else:
            first.send({"type": "new_game", "opponent": "easy"})
        second.send(shoot_msg(room, "south", position=float(attempt), power=30.0))
        answer, finished, late = _answer_and_end(second)
        assert late == []  # nothing is played once the game is abandoned
        if abandon == "resign":
            assert first.until("finished")["event"] == finished["event"]
        else:
            assert first.until("state")["room"] != room
        assert finished["room"] == room and finished["abandoned"] is True
        if answer["type"] == "error":
            assert answer["code"] in ("game_abandoned", "unknown_room"), answer
        else:
            # Played before the abandon: the abandoned game ends right after it.
            assert answer["event"] <= finished["event"]
        # The stored game holds exactly the shots sent before the end.
        with urllib.request.urlopen(f"{server}/api/rooms/{room}/record.json") as got:
            game = Game.from_json(got.read().decode())
        played = 1 if answer["type"] == "shot" else 0
        assert len(game.actions) <= 2 * played  # the shot and, at most, the CPU's answer
        # It counts once, as a loss (contract 6), and is closed for good.
        record = _record(server, first.token)["record"]["easy"]["four_rounds"]
        assert record == {"wins": 0, "draws": 0, "losses": 1}
        later = [{"type": kind, "room": room} for kind in ("next_round", "resign", "rematch")]
        for action in [*later, shoot_msg(room, "south", position=9.0)]:
            assert second.error(action)["code"] in ("game_abandoned", "unknown_room")
        for tab in (first, second):
            tab.close()


def test_new_game_abandons_the_unfinished_game_as_a_loss_and_tells_its_other_tabs(
    server: str,
) -> None:
    first, second = _tabs(server, 2)
    room = first.new_game(opponent="hard")["room"]
    second.hello(room=room, last_event=0)
    fresh = first.new_game(opponent="hard")  # abandons the first game
    assert fresh["room"] != room
    told = second.until("finished")  # the other tab learns the game is over
    assert told["room"] == room and told["abandoned"] is True
    assert told["record"]["hard"]["four_rounds"]["losses"] == 1
    body = _record(server, first.token)
    assert body["record"]["hard"]["four_rounds"] == {"wins": 0, "draws": 0, "losses": 1}
    assert body["room"] == fresh["room"]
    # A two-player game abandoned the same way is no loss: nobody lost to the CPU.
    first.new_game(opponent="local")
    first.new_game(opponent="local")
    assert _record(server, first.token)["record"]["hard"]["four_rounds"]["losses"] == 2
    for tab in (first, second):
        tab.close()


def test_a_finished_game_refuses_every_action(server: str) -> None:
    (tab,) = _tabs(server, 1)
    room = tab.new_game(opponent="local", rounds=1, required_contact=False)["room"]
    for k in range(16):
        tab.send(shoot_msg(room, ("south", "north")[k % 2], position=(k // 2 - 4) * 9.0,
                           power=30.0))  # fmt: skip
        msg = tab.until("shot")
    assert msg["game"]["phase"] == "game_over"
    finished = tab.until("finished")
    assert finished["abandoned"] is False and finished["event"] == 17
    for action in (shoot_msg(room, "south"), {"type": "next_round", "room": room}):
        assert tab.error(action)["code"] == "illegal_action"
    assert tab.error({"type": "resign", "room": room})["code"] == "illegal_action"
    tab.close()


def test_a_seat_not_in_the_game_is_refused_saying_so(server: str) -> None:
    (tab,) = _tabs(server, 1)
    room = tab.new_game(opponent="easy")["room"]
    error = tab.error(shoot_msg(room, "west"))
    assert error["code"] == "not_your_seat"
    assert error["message"] == "west is not a seat in this game: the seats are south and north"
    error = tab.error(shoot_msg(room, "north"))
    assert error["message"] == "north is played by the CPU in this game"
    tab.close()
