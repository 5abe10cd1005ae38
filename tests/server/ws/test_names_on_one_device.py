"""Names on one device over the real protocol: the people sharing a device name their seats
(optional, checked), and each player has one name in the game, its replay, record and review."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crokinole.server.limits import ServerSettings
from tests.support.server import Player, serving


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db: Path = tmp_path_factory.mktemp("db") / "crokinole.db"
    with serving(db, ServerSettings(warm_up=False, rooms_per_minute=20)) as url:
        yield url


def get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=120) as answer:
        return json.loads(answer.read())


def player(url: str) -> Player:
    p = Player(url)
    p.hello()
    return p


def names_of(game: dict[str, Any]) -> dict[str, str]:
    return {s["seat"]: s["name"] for s in game["seats"]}


def play_out(p: Player, game: dict[str, Any]) -> None:
    """Shoot every disc of the device's seats (power 0: each goes to the ditch) to the end."""
    while game["phase"] == "playing":
        seat = game["current_seat"]
        if not any(s["seat"] == seat and s["cpu"] is None for s in game["seats"]):
            game = p.until("shot")["game"]  # the CPU's turn
            continue
        p.shoot(seat, power=0.0)
        game = p.until("shot", lambda m, seat=seat: m["seat"] == seat)["game"]
    p.until("finished")


def test_people_on_one_device_are_named_in_the_game_its_replay_record_and_review(
    server: str,
) -> None:
    p = player(server)
    p.send({
        "type": "create", "kind": "solo", "name": "You", "settings": {"rounds": 1},
        "seats": {"south": "me", "north": "me"}, "names": {"south": " Ann ", "north": "Bob"},
    })  # fmt: skip
    view = p.until("table")["view"]
    p.table = view["table"]
    assert names_of(view["game"]) == {"south": "Ann", "north": "Bob"}
    play_out(p, view["game"])
    replay = get(f"{server}/api/tables/{p.table}/replay.json")
    assert names_of(replay["start"]) == {"south": "Ann", "north": "Bob"}
    assert all(names_of(s["game"]) == {"south": "Ann", "north": "Bob"} for s in replay["steps"])
    record = get(f"{server}/api/tables/{p.table}/record.json")
    assert record["names"] == {"south": "Ann", "north": "Bob"}
    review = get(f"{server}/api/tables/{p.table}/review.json?accuracy=steady")
    assert review["names"] == {"south": "Ann", "north": "Bob"}
    # A record file reviewed on its own keeps its players' names.
    request = urllib.request.Request(
        f"{server}/api/review?accuracy=steady", data=json.dumps(record).encode(), method="POST"
    )
    with urllib.request.urlopen(request, timeout=120) as answer:
        assert json.loads(answer.read())["names"] == {"south": "Ann", "north": "Bob"}
    p.close()


def test_a_seat_left_unnamed_is_named_after_itself(server: str) -> None:
    p = player(server)
    p.send({
        "type": "create", "kind": "solo", "name": "You", "settings": {"layout": "three_singles"},
        "seats": {"south": "me", "west": "me", "north": "easy"}, "names": {"west": "Cat"},
    })  # fmt: skip
    view = p.until("table")["view"]
    assert names_of(view["game"]) == {"south": "South", "west": "Cat", "north": "CPU Easy"}
    p.close()


def test_one_player_against_the_cpu_has_one_name_in_the_replay_and_the_review(
    server: str,
) -> None:
    # "You" is what the browser sends for a player who gave no name: to them it is "you";
    # to whoever reads the replay, the record or the review it is their seat, in all three.
    p = player(server)
    view = p.create("solo", "You", rounds=1)["view"]
    assert names_of(view["game"]) == {"south": "You", "north": "CPU Normal"}
    play_out(p, view["game"])
    replay = get(f"{server}/api/tables/{p.table}/replay.json")
    review = get(f"{server}/api/tables/{p.table}/review.json?accuracy=steady")
    record = get(f"{server}/api/tables/{p.table}/record.json")
    expected = {"south": "South", "north": "CPU Normal"}
    assert names_of(replay["start"]) == review["names"] == record["names"] == expected
    p.close()


@pytest.mark.parametrize(
    ("names", "code", "words"),
    [
        ({"north": "x" * 25}, "bad_name", "North's name: a name has 1 to 24 characters"),
        ({"north": "Bob\u200b"}, "bad_name", "North's name: a name is plain text"),
        ({"south": "Ann", "north": "ANN"}, "bad_name", "South and North are both called ANN"),
        ({"east": "Dan"}, "not_a_seat", "east is not a seat"),
    ],
)
def test_bad_names_are_refused_in_plain_words_and_nothing_is_made(
    server: str, names: dict[str, str], code: str, words: str
) -> None:
    p = player(server)
    error = p.error({
        "type": "create", "kind": "solo", "name": "You", "settings": {},
        "seats": {"south": "me", "north": "me"}, "names": names,
    })  # fmt: skip
    assert error["code"] == code and words in error["message"], error
    p.send({"type": "hello", "token": p.token, "table": None, "last_event": None})
    assert p.until("welcome")["tables"] == []  # no table was made
    p.close()
