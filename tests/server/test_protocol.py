"""The websocket protocol against the real server (docs/protocol.md), every error path included."""

from __future__ import annotations

import json
import secrets
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crokinole.ai import Level
from crokinole.rules import Game
from tests.server.helpers import Client, local_game, shoot_msg
from tests.server_process import running_server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db: Path = tmp_path_factory.mktemp("db") / "crokinole.db"
    with running_server(db) as url:
        yield url


@pytest.fixture
def client(server: str) -> Iterator[Client]:
    c = Client(server)
    c.hello()
    assert c.recv()["type"] == "welcome"
    yield c
    c.close()


def test_hello_answers_with_welcome_and_the_device_record(server: str) -> None:
    c = Client(server)
    c.hello()
    welcome = c.recv()
    assert welcome["type"] == "welcome" and welcome["room"] is None and welcome["event"] == 0
    assert welcome["record"]["hard"]["four_rounds"] == {"wins": 0, "draws": 0, "losses": 0}
    # Contract 5: the levels come from crokinole.ai.Level, weakest first, with names.
    assert [level["id"] for level in welcome["levels"]] == [lv.value for lv in Level]
    assert welcome["levels"][0] == {"id": "easy", "name": "Easy"}
    assert set(welcome["record"]) == {lv.value for lv in Level}
    c.close()


def test_the_device_record_is_asked_with_a_header_not_in_the_url(
    client: Client, server: str
) -> None:
    asked = urllib.request.Request(f"{server}/api/record", headers={"X-Device-Token": client.token})
    with urllib.request.urlopen(asked) as answer:
        body = json.loads(answer.read())
    assert body["room"] is None and body["record"]["easy"]["to_100"]["wins"] == 0
    # The old route with the token in the path is gone.
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(f"{server}/api/record/{client.token}")
    assert info.value.code == 404
    bad = urllib.request.Request(f"{server}/api/record", headers={"X-Device-Token": "short"})
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(bad)
    assert info.value.code == 400 and "device token" in json.loads(info.value.read())["error"]


def test_a_game_against_the_cpu_sends_the_shot_then_the_cpu_answer(client: Client) -> None:
    state = client.new_game(opponent="normal")
    assert state["event"] == 0 and state["you"] == ["south"]
    game = state["game"]
    assert game["current_seat"] == "south" and game["seats"][1]["cpu"] == "normal"
    room = state["room"]
    client.send({"type": "shoot", "room": room, "seat": "south", "position": 0.0,
                 "direction": 0.0, "power": 28.0})  # fmt: skip
    mine = client.until("shot")
    assert (mine["event"], mine["seat"], mine["cpu"]) == (1, "south", False)
    assert mine["report"]["seat"] == "south" and mine["report"]["discs"][0]["shot"]
    assert "explanation" not in mine["report"]
    disc = mine["trajectory"]["discs"][-1]
    assert disc["owner"] == "south" and disc["segments"][0][:3] == pytest.approx([0.0, 0.0, -12.0])
    assert mine["game"]["current_seat"] == "north"
    answer = client.until("shot")
    assert (answer["event"], answer["seat"], answer["cpu"]) == (2, "north", True)
    assert answer["game"]["current_seat"] == "south"


def test_trajectory_ends_exactly_at_the_snapshot(client: Client) -> None:
    state = client.new_game(opponent="local", required_contact=False)
    room = state["room"]
    client.send({"type": "shoot", "room": room, "seat": "south", "position": 5.0,
                 "direction": 3.0, "power": 22.0})  # fmt: skip
    shot = client.until("shot")
    traj = shot["trajectory"]
    (disc,) = traj["discs"]
    _, x, y, vx, vy = disc["segments"][-1]
    speed = (vx * vx + vy * vy) ** 0.5
    a = traj["deceleration"]
    s = speed * speed / (2 * a) if speed else 0.0
    final = (x + (vx / speed) * s, y + (vy / speed) * s) if speed else (x, y)
    (on_board,) = shot["game"]["discs"]
    assert final == pytest.approx((on_board["x"], on_board["y"]), abs=1e-9)


@pytest.mark.parametrize(
    ("payload", "code", "text"),
    [
        ("not json", "bad_json", "not valid JSON"),
        ("[1, 2]", "bad_message", "a JSON object"),
        ({"type": "dance"}, "bad_message", "unknown message type 'dance'"),
        ({"type": [1]}, "bad_message", "unknown message type [1]"),
        ({"type": "new_game"}, "bad_message", "new_game: opponent: Field required"),
        ({"type": "new_game", "opponent": "godlike"}, "bad_message", "opponent"),
        ({"type": "new_game", "opponent": "easy", "discs": 7}, "bad_message", "discs"),
        ({"type": "new_game", "opponent": "easy", "rounds": 9}, "bad_message", "rounds"),
        ({"type": "shoot", "room": "x"}, "bad_message", "shoot: room"),
        ({"type": "next_round", "room": "0" * 32}, "unknown_room", "there is no game"),
        ("x" * 20000, "too_large", "limited to 16384 bytes"),
        # JSON the parser cannot take is a bad message, not a server error.
        ('{"type": "ping", "n": ' + "9" * 5000 + "}", "bad_message", "5000 characters"),
        ("[" * 2000 + "]" * 2000, "bad_message", "nested too deeply"),
        ('{"type": "shoot", "power": NaN}', "bad_message", "NaN"),
        ('{"type": "ping", "pad": "' + "é" * 9000 + '"}', "too_large", "16384 bytes"),
    ],
)
def test_malformed_messages_get_an_error_naming_the_problem(
    client: Client, payload: dict[str, Any] | str, code: str, text: str
) -> None:
    error = client.error(payload)
    assert error["code"] == code and text in error["message"]
    client.send({"type": "ping"})
    assert client.recv()["type"] == "pong"  # the connection is still usable


def test_hello_must_come_first(server: str) -> None:
    c = Client(server)
    error = c.error({"type": "new_game", "opponent": "easy"})
    assert error["code"] == "hello_first"
    c.hello()
    assert c.recv()["type"] == "welcome"
    c.close()


def test_game_errors_leave_the_game_unchanged(client: Client, server: str) -> None:
    state = client.new_game(opponent="local", required_contact=False)
    room = state["room"]
    assert client.error(shoot_msg(room, "north"))["code"] == "not_your_turn"
    assert "it is South's turn" in client.error(shoot_msg(room, "north"))["message"]
    assert client.error(shoot_msg(room, "south", power=150.0))["code"] == "illegal_shot"
    assert client.error(shoot_msg(room, "south", position=60.0))["code"] == "illegal_placement"
    assert client.error({"type": "next_round", "room": room})["code"] == "illegal_action"
    assert client.error({"type": "rematch", "room": room})["code"] == "illegal_action"
    # A disc left just inside the line makes the same placement overlap next time.
    client.send(shoot_msg(room, "south", power=7.0))
    assert client.until("shot")["game"]["discs"]
    client.send(shoot_msg(room, "north", position=20.0))
    client.until("shot")
    error = client.error(shoot_msg(room, "south"))
    assert error["code"] == "illegal_placement"
    assert "the disc would overlap South's disc" in error["message"]
    assert error["event"] == 2
    # Another device cannot touch this game.
    other = Client(server)
    other.hello()
    other.recv()
    assert other.error(shoot_msg(room, "south", position=20.0))["code"] == "not_your_room"
    other.close()
    # Against the CPU the north seat is not the human's.
    cpu = client.new_game(opponent="easy")
    assert client.error(shoot_msg(cpu["room"], "north"))["code"] == "not_your_seat"


def test_reconnecting_gets_the_missed_events_or_a_snapshot(client: Client, server: str) -> None:
    state = client.new_game(opponent="local")
    room = state["room"]
    client.send(shoot_msg(room, "south"))
    first = client.until("shot")
    client.send(shoot_msg(room, "north"))
    second = client.until("shot")
    again = Client(server, client.token)
    again.hello(room=room, last_event=0)
    assert again.recv() == first
    assert again.recv() == second
    again.close()
    fresh = Client(server, client.token)
    fresh.hello(room=room, last_event=None)
    snap = fresh.recv()
    assert snap["type"] == "state" and snap["event"] == 2 and snap["game"] == second["game"]
    fresh.close()
    # A bare hello is told about the unfinished game.
    bare = Client(server, client.token)
    bare.hello()
    assert bare.recv()["room"] == room
    bare.close()


def test_a_game_survives_a_server_restart(tmp_path: Path) -> None:
    db = tmp_path / "restart.db"
    token = secrets.token_hex(12)
    with running_server(db) as url:
        c, room = local_game(url, token)
        c.send(shoot_msg(room, "south"))
        before = c.until("shot")
        c.close()
    with running_server(db) as url:
        c = Client(url, token)
        c.hello(room=room, last_event=None)
        after = c.recv()
        assert after["type"] == "state" and after["game"] == before["game"]
        c.send(shoot_msg(room, "north"))
        assert c.until("shot")["event"] == 2
        c.close()


def test_a_finished_game_against_the_cpu_counts_in_the_device_record(
    client: Client, server: str
) -> None:
    state = client.new_game(opponent="easy", rounds=1)
    room = state["room"]
    client.send(shoot_msg(room, "south"))
    finished = None
    tries = 0
    while finished is None:
        msg = client.recv(60)
        if msg["type"] == "finished":
            finished = msg
        elif msg["type"] == "error" or (
            msg["type"] in ("state", "shot") and msg["game"]["current_seat"] == "south"
        ):
            tries += 1  # an error (a blocked placement) means: try another spot
            client.send(shoot_msg(room, "south", position=(tries % 7 - 3) * 9.0))
    record = finished["record"]["easy"]["four_rounds"]
    assert sum(record.values()) == 1
    assert finished["game"]["phase"] == "game_over"
    asked = urllib.request.Request(f"{server}/api/record", headers={"X-Device-Token": client.token})
    with urllib.request.urlopen(asked) as answer:
        assert json.loads(answer.read())["record"]["easy"]["four_rounds"] == record
    with urllib.request.urlopen(f"{server}/api/rooms/{room}/record.json") as answer:
        game = Game.from_json(answer.read().decode())
    assert game.is_over
    client.send({"type": "rematch", "room": room})
    rematch = client.until("state")
    assert rematch["room"] != room and rematch["game"]["rules"]["rounds"] == 1


@pytest.mark.parametrize(
    ("path", "status"),
    [("/api/record", 400), ("/api/rooms/nothex/record.json", 400),
     ("/api/rooms/" + "0" * 32 + "/record.json", 404)],
)  # fmt: skip
def test_http_errors_are_plain(server: str, path: str, status: int) -> None:
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(server + path)
    assert info.value.code == status
    assert "error" in json.loads(info.value.read())


def test_resigning_counts_as_a_loss_and_closes_the_game(client: Client) -> None:
    room = client.new_game(opponent="hard")["room"]
    client.send({"type": "resign", "room": room})
    finished = client.until("finished")
    assert finished["record"]["hard"]["four_rounds"]["losses"] == 1
    assert client.error({"type": "next_round", "room": room})["code"] == "unknown_room"


def test_tabs_reconnecting_together_share_one_room(tmp_path: Path) -> None:
    # Several tabs of one device say hello at once for a room not in memory
    # (after a restart): they must all join the same room and see every event.
    db = tmp_path / "tabs.db"
    token = secrets.token_hex(12)
    with running_server(db) as url:
        c, room = local_game(url, token)
        c.close()
    with running_server(db) as url:
        tabs = [Client(url, token) for _ in range(6)]
        for tab in tabs:
            tab.hello(room=room, last_event=None)
        for tab in tabs:
            assert tab.recv()["type"] == "state"
        tabs[0].send(shoot_msg(room, "south"))
        for tab in tabs:
            assert tab.until("shot")["event"] == 1
        for tab in tabs:
            tab.close()


def _zone_of(disc: dict[str, Any], board: dict[str, Any]) -> int | None:
    """R6 from the snapshot's board: the zone a disc's rim lies in (lines count low)."""
    rim = (disc["x"] ** 2 + disc["y"] ** 2) ** 0.5 + board["disc_radius"]
    half = board["line_width"] / 2
    for radius, value in ((board["fifteen_radius"], 15), (board["ten_radius"], 10),
                          (board["shooting_line_radius"], 5)):  # fmt: skip
        if rim < radius - half:
            return value
    return None


def _check_report(before: dict[str, Any], shot: dict[str, Any]) -> None:
    """A shot's report agrees with the snapshots before and after it."""
    board = shot["game"]["board"]
    was = {d["id"]: d for d in before["discs"]}
    now = {d["id"]: d for d in shot["game"]["discs"]}
    for disc in shot["report"]["discs"]:
        old = was.get(disc["id"])
        assert disc["from_zone"] == (None if old is None else _zone_of(old, board))
        assert disc["shot"] == (old is None)
        if disc["result"] == "board":
            assert disc["zone"] == _zone_of(now[disc["id"]], board) and disc["reason"] is None
        else:
            assert disc["id"] not in now
            assert disc["zone"] == (20 if disc["result"] == "hole" else None)
    gone = [d for d in shot["report"]["discs"] if d["result"] == "ditch"]
    for side in (0, 1):
        added = shot["game"]["sides"][side]["ditch"] - before["sides"][side]["ditch"]
        assert added == sum(1 for d in gone if d["side"] == side)
    listed = {d["id"] for d in shot["report"]["discs"]}
    for disc_id, disc in now.items():  # an unlisted disc did not move
        if disc_id not in listed:
            assert (disc["x"], disc["y"]) == (was[disc_id]["x"], was[disc_id]["y"])


def test_shot_reports_say_what_happened_to_each_disc(client: Client) -> None:
    # Contract 2: structured facts (whose disc, from which zone, what became
    # of it, why), no sentences; the client words them.
    state = client.new_game(opponent="local", required_contact=True)
    room, game = state["room"], state["game"]

    def play(seat: str, position: float, direction: float, power: float) -> dict[str, Any]:
        nonlocal game
        client.send(shoot_msg(room, seat, position, direction, power))
        shot = client.until("shot")
        _check_report(game, shot)
        game = shot["game"]
        assert shot["report"]["seat"] == seat and shot["report"]["unplayed"] is False
        assert "explanation" not in shot["report"]
        return shot["report"]  # type: ignore[no-any-return]

    def disc(id_: int, owner: str, **fields: Any) -> dict[str, Any]:
        side = 0 if owner == "south" else 1
        return {"id": id_, "owner": owner, "side": side, "shot": False, "from_zone": None,
                "result": "board", "zone": None, "reason": None, "cancelled_twenty": False,
                **fields}  # fmt: skip

    # An open 20 (R4 on an empty board: it reached the 15 circle).
    report = play("south", 0.0, 0.0, 30.0)
    assert (report["valid"], report["foul"], report["hit"]) == (True, None, [])
    assert report["discs"] == [disc(0, "south", shot=True, result="hole", zone=20)]
    report = play("north", 0.0, 4.0, 28.0)
    assert report["discs"] == [disc(1, "north", shot=True, zone=15)]
    # South knocks North's disc from the 15 into the ditch and stays in the 15.
    report = play("south", 0.0, -2.0, 50.0)
    assert report["valid"] and report["hit"] == [1]
    assert report["discs"] == [
        disc(2, "south", shot=True, zone=15),
        disc(1, "north", from_zone=15, result="ditch", reason="off_board"),
    ]
    # North misses South's disc: a foul (R4), the shot disc goes to the ditch.
    report = play("north", 40.0, 0.0, 20.0)
    assert (report["valid"], report["foul"], report["hit"]) == (False, "no_contact", [])
    assert report["discs"] == [disc(3, "north", shot=True, result="ditch", reason="foul")]


def test_a_seat_with_no_room_to_place_loses_its_disc_at_once(client: Client) -> None:
    # R3: South lines its quarter with nine discs (each left just inside the
    # line); at its tenth turn no disc fits, and the server sends the disc to
    # the ditch unplayed without waiting for a shot.
    state = client.new_game(opponent="local", discs=12, required_contact=False)
    room = state["room"]
    for k in range(-4, 5):
        for seat in ("south", "north"):
            client.send(shoot_msg(room, seat, position=9.3 * k, power=7.0))
            assert client.until("shot")["seat"] == seat
    unplayed = client.until("shot")
    assert (unplayed["seat"], unplayed["shot"], unplayed["event"]) == ("south", None, 19)
    report = unplayed["report"]
    assert (report["unplayed"], report["foul"], report["valid"]) == (True, "timeout", False)
    assert report["discs"] == [
        {"id": 18, "owner": "south", "side": 0, "shot": True, "from_zone": None,
         "result": "ditch", "zone": None, "reason": "timeout", "cancelled_twenty": False}
    ]  # fmt: skip
    assert unplayed["trajectory"]["discs"] == []
    assert unplayed["game"]["current_seat"] == "north"
    assert unplayed["game"]["sides"][0]["ditch"] == state["game"]["sides"][0]["ditch"] + 1
