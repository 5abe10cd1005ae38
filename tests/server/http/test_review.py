"""Reviews over HTTP, and the practice room's hints and heat maps (issue 13, docs/protocol.md).

A finished table's game and an uploaded record are reviewed alike (the same
numbers every time); bad input is a 400 with plain words and nothing else.
"""

from __future__ import annotations

import concurrent.futures
import json
import time
import typing
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import httpx
import pytest

from crokinole.ai import Level
from crokinole.analysis.practice import PracticePosition, position_code
from crokinole.server.http.review import ACCURACY_NAMES
from crokinole.server.limits import ServerSettings
from crokinole.server.ws.messages import HeatAccuracy
from crokinole.store import Store
from tests.support.server import Player, serving
from tests.support.server_database import server_database
from tests.web.conftest import STATIC

#: A one-round singles game of 8 discs a side, played exactly as aimed.
SINGLES = {"layout": "singles", "rounds": 1, "hand": "steady", "tie": "draw", "discs": 8}
GRADES = {"good", "inaccuracy", "mistake", "blunder"}
#: The device token of the hot-seat player of ``_played``'s tables.
HOT_SEAT = "hot-seat-device-0001"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    db: Path = tmp_path_factory.mktemp("db") / "crokinole.db"
    with serving(db, ServerSettings(warm_up=False, rooms_per_minute=60)) as url:
        yield url, db


@pytest.fixture(scope="module")
def server(served: tuple[str, Path]) -> str:
    return served[0]


@pytest.fixture(scope="module")
def web(server: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server, timeout=120) as client:
        yield client


def _played(url: str, shots: int | None = None) -> str:
    """A hot-seat singles table, played to its end (or ``shots`` shots); its id."""
    me = Player(url, token=HOT_SEAT)
    try:
        me.hello()
        view = me.create("solo", "Ann", seats={"south": "me", "north": "me"}, **SINGLES)["view"]
        game, placement = view["game"], view["placement"]
        played = 0
        while game["phase"] == "playing" and (shots is None or played < shots):
            seat = game["current_seat"]
            lo, hi = placement[seat][0]
            me.shoot(seat, position=(lo + hi) / 2, direction=0.0, power=27.0)
            msg = me.until("shot")
            game, placement = msg["game"], msg["lobby"]["placement"]
            played += 1
        assert me.table is not None
        return me.table
    finally:
        me.close()


@pytest.fixture(scope="module")
def finished(server: str) -> str:
    return _played(server)


# ---------------------------------------------------------------- reviews


def test_a_finished_table_s_game_is_reviewed_shot_by_shot(web: httpx.Client, finished: str) -> None:
    answer = web.get(f"/api/tables/{finished}/review.json")
    assert answer.status_code == 200, answer.text
    review = answer.json()
    assert review["table"] == finished and review["game_number"] == 1
    assert review["accuracy"] == "human"
    # One person at both seats (hot seat): the seats are named after themselves.
    assert review["names"] == {"south": "South", "north": "North"}
    assert len(review["shots"]) == 16  # 8 discs a side, one round (R2), no timeouts
    assert {s["grade"] for s in review["shots"]} <= GRADES
    assert [s["seat"] for s in review["shots"][:2]] == ["south", "north"]  # R3: turns alternate
    for shot in review["shots"]:
        # The best shot is worth at least the one played: a loss is never negative.
        assert shot["loss_win"] >= 0.0
    assert set(review["summary"]) == {"south", "north"}
    assert sum(s["shots"] for s in review["summary"].values()) == 16
    # The same numbers again (kept, and deterministic anyway).
    assert web.get(f"/api/tables/{finished}/review.json").json() == review
    # Each shot says what it did: where its disc ended (R6 zones, 20 the hole, 0 the ditch).
    for shot in review["shots"]:
        effect = shot["played_effect"]
        assert effect["lands"] in (0, 5, 10, 15, 20) and isinstance(effect["hit"], bool)
        assert shot["best_effect"] is not None
    # Nobody asked as a player: nobody is "you".
    assert review["you"] == []


def test_a_table_review_names_the_seats_of_the_device_that_asks(
    web: httpx.Client, finished: str
) -> None:
    # The hot-seat device held both seats; another device none (the review is kept once made,
    # but "you" is each asker's own).
    mine = web.get(f"/api/tables/{finished}/review.json", headers={"X-Device-Token": HOT_SEAT})
    assert mine.status_code == 200, mine.text
    assert mine.json()["you"] == ["south", "north"]
    other = web.get(
        f"/api/tables/{finished}/review.json", headers={"X-Device-Token": "someone-else-0001"}
    )
    assert other.json()["you"] == []
    assert {k: v for k, v in mine.json().items() if k != "you"} == {
        k: v for k, v in other.json().items() if k != "you"
    }


def test_an_uploaded_record_is_reviewed_as_its_table_s_game(
    web: httpx.Client, finished: str
) -> None:
    record = web.get(f"/api/tables/{finished}/record.json")
    assert record.status_code == 200
    answer = web.post("/api/review", content=record.content)
    assert answer.status_code == 200, answer.text
    table_review = web.get(f"/api/tables/{finished}/review.json").json()
    assert answer.json()["shots"] == table_review["shots"]
    # The record's names are the table's (one name per player).
    assert answer.json()["names"] == table_review["names"]
    steady = web.post("/api/review?accuracy=steady", content=record.content).json()
    assert steady["accuracy"] == "steady" and len(steady["shots"]) == 16


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        (b"", 400, "no body"),
        (b"not json at all", 400, "not a game record"),
        (json.dumps({"rules": "none"}).encode(), 400, "not a game record"),
        (b"[" * 40 + b"]" * 40, 400, "not a game record"),
        (b" " * (512 * 1024 + 1), 413, "larger than 512 KiB"),
    ],
)
def test_a_bad_record_is_a_400_in_plain_words(
    web: httpx.Client, body: bytes, status: int, words: str
) -> None:
    answer = web.post("/api/review", content=body)
    assert answer.status_code == status
    assert words in answer.json()["message"]


def test_a_game_under_way_or_missing_is_not_reviewed(server: str, web: httpx.Client) -> None:
    playing = _played(server, shots=2)
    answer = web.get(f"/api/tables/{playing}/review.json")
    assert answer.status_code == 409 and "not finished" in answer.json()["message"]
    assert web.get(f"/api/tables/{'0' * 32}/review.json").status_code == 404
    assert web.get("/api/tables/nope/review.json").status_code == 400
    assert web.get(f"/api/tables/{playing}/review.json?game=x").status_code == 400
    bad = web.get(f"/api/tables/{playing}/review.json?accuracy=lucky")
    assert bad.status_code == 400 and "accuracy is one of" in bad.json()["message"]


# ---------------------------------------------------------------- the practice room


def _open_board() -> str:
    return position_code(PracticePosition())


def test_practice_hints_from_a_code_or_a_position(web: httpx.Client) -> None:
    answer = web.post("/api/analysis/hints", json={"code": _open_board()})
    assert answer.status_code == 200, answer.text
    data = answer.json()
    assert data["accuracy"]["name"] == "steady" and data["code"] == _open_board()
    assert [h["rank"] for h in data["hints"]] == [1, 2, 3]
    # An empty board, a steady hand: the best is an open 20 (R5).
    assert data["hints"][0]["twenty"] == 1.0
    # Each hint says where its disc stops played exactly (the open 20: in the hole, at the centre).
    stop = data["hints"][0]["stop"]
    assert stop["status"] == "in_hole" and abs(stop["x"]) < 0.7 and abs(stop["y"]) < 0.7
    assert stop["path"][-1] == [stop["x"], stop["y"]]
    position: dict[str, Any] = {"seat": "south", "discs": [["n", 0.0, 6.0]]}
    answer = web.post("/api/analysis/hints", json={"position": position, "accuracy": "hard"})
    assert answer.status_code == 200, answer.text
    assert answer.json()["accuracy"]["name"] == "hard"
    assert answer.json()["position"]["discs"] == [["n", 0, 6]]


def test_practice_heat_map_is_64_by_64(web: httpx.Client) -> None:
    answer = web.post(
        "/api/analysis/heatmap",
        json={"code": _open_board(), "position_deg": 0.0, "metric": "valid", "accuracy": "human"},
    )
    assert answer.status_code == 200, answer.text
    data = answer.json()
    assert (data["metric"], data["accuracy"], data["position"]) == ("valid", "human", 0.0)
    assert len(data["values"]) == 64 and all(len(row) == 64 for row in data["values"])


@pytest.mark.parametrize(
    ("route", "body", "words"),
    [
        ("hints", {}, "send the position's code or the position"),
        ("hints", {"code": "@@@"}, "this position link is damaged"),
        ("hints", {"code": _open_board(), "accuracy": "lucky"}, "accuracy is one of"),
        ("hints", {"code": _open_board(), "colour": "red"}, "unknown field(s): colour"),
        ("hints", {"code": _open_board(), "accuracy": "mine"}, "play the open-20 drill first"),
        ("heatmap", {"code": _open_board()}, "position_deg is the placement"),
        ("heatmap", {"code": _open_board(), "position_deg": 0, "metric": "luck"}, "metric is"),
        ("heatmap", {"code": _open_board(), "position_deg": 90.0}, "cannot be placed at 90°"),
    ],
)
def test_bad_practice_requests_are_400_in_plain_words(
    web: httpx.Client, route: str, body: dict[str, Any], words: str
) -> None:
    answer = web.post(f"/api/analysis/{route}", json=body)
    assert answer.status_code == 400, answer.text
    assert words in answer.json()["message"]


def test_a_practice_request_that_is_not_a_json_object(web: httpx.Client) -> None:
    answer = web.post("/api/analysis/hints", content=b"[1, 2]")
    assert answer.status_code == 400 and answer.json()["message"] == "the request is a JSON object"


def test_one_analysis_at_a_time_per_address_the_next_is_429(server: str) -> None:
    """A second request from the same address while one is being worked out is refused
    (429, plain words, nothing computed); once the first is answered the next one runs.

    The first is an Expert-hand heat map of a crowded board (a sizeable fraction of a
    second); the second is sent a moment after it. A machine that stalls could still let
    one pair miss the overlap, so a few pairs are tried: one refusal is what is checked."""
    discs = [["n", x, y] for x, y in ((-6.0, 4.0), (-3.0, 7.0), (0.0, 8.0), (3.0, 7.0),
             (6.0, 4.0), (-7.0, -1.0), (7.0, -1.0))]  # fmt: skip
    discs += [["s", x, -y] for _, x, y in discs[:5]]
    slow = {"position": {"seat": "south", "discs": discs}, "position_deg": 0.0,
            "accuracy": "expert"}  # fmt: skip
    quick = {"code": _open_board()}
    refused: list[str] = []
    with (
        httpx.Client(base_url=server, timeout=120) as first,
        httpx.Client(base_url=server, timeout=120) as second,
    ):
        for _ in range(5):
            with concurrent.futures.ThreadPoolExecutor(1) as pool:
                running = pool.submit(first.post, "/api/analysis/heatmap", json=slow)
                time.sleep(0.05)
                answer = second.post("/api/analysis/hints", json=quick)
                assert running.result().status_code == 200, running.result().text
            assert answer.status_code in (200, 429), answer.text
            if answer.status_code == 429:
                refused.append(answer.json()["message"])
                break
        # The first one answered, the address may ask again.
        assert second.post("/api/analysis/hints", json=quick).status_code == 200
    assert refused == ["one analysis at a time: wait for the last one to finish"]


def test_the_review_page_is_served_for_a_table_and_for_a_record_file(
    web: httpx.Client, finished: str
) -> None:
    for path in (f"/review/{finished}", "/review"):
        page = web.get(path)
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")


def test_mine_in_the_practice_room_is_the_device_s_own_accuracy(
    served: tuple[str, Path], web: httpx.Client
) -> None:
    device = "practice-device-0001"
    body = {"code": _open_board(), "position_deg": 0.0, "accuracy": "mine"}
    answer = web.post("/api/analysis/heatmap", json=body, headers={"X-Device-Token": device})
    assert answer.status_code == 400
    assert answer.json()["message"].startswith("play the open-20 drill first")
    store = Store.open(server_database(served[1]))
    try:
        shots = [{"points": p} for p in (1, 1, 1, 0, 1, 1, 0, 1, 1, 1)]  # 8 of 10
        store.add_drill_result(device, None, "open20", score=8, attempts=10, percent=80.0,
                               shots=shots)  # fmt: skip
    finally:
        store.close()
    answer = web.post("/api/analysis/heatmap", json=body, headers={"X-Device-Token": device})
    assert answer.status_code == 200, answer.text
    assert answer.json()["accuracy"] == "mine"
    bad = web.post("/api/analysis/hints", json={"code": _open_board(), "accuracy": "mine"},
                   headers={"X-Device-Token": "bad token!"})  # fmt: skip
    assert bad.status_code == 400 and bad.json()["message"].startswith("a device token is")


class _Options(HTMLParser):
    """The option values of the <select>s with the given ids, in a page's markup."""

    def __init__(self, ids: set[str]) -> None:
        super().__init__()
        self.ids = ids
        self.current: str | None = None
        self.found: dict[str, list[str | None]] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "select" and a.get("id") in self.ids:
            self.current = str(a["id"])
            self.found[self.current] = []
        elif tag == "option" and self.current is not None:
            self.found[self.current].append(a.get("value"))

    def handle_endtag(self, tag: str) -> None:
        if tag == "select":
            self.current = None


@pytest.mark.parametrize(
    ("page", "select"),
    [("review.html", "accuracy-select"), ("practice.html", "accuracy-select"),
     ("index.html", "heat-accuracy")],
)  # fmt: skip
def test_every_hand_a_page_offers_is_one_the_server_takes_and_every_level_is_offered(
    page: str, select: str
) -> None:
    # Issue 24's Master is a CPU level like the others: its accuracy is offered with theirs.
    parser = _Options({select})
    parser.feed((STATIC / page).read_text(encoding="utf-8"))
    offered = parser.found[select]
    # The game page's heat map asks over the websocket, the others over HTTP.
    taken = typing.get_args(HeatAccuracy) if page == "index.html" else ACCURACY_NAMES
    assert offered and set(offered) <= set(taken)
    assert {level.value for level in Level} <= set(offered)
