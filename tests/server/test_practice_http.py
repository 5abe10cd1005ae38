"""The practice room, drills and daily challenge over HTTP (issue 13; server/practice_http.py).

Scores are the server's replay of the shots sent, never a client's word;
every bad input is a 400 in plain words and nothing is kept.  Most tests
call the routes in process (with a clock for the daily challenge's day);
one goes through the real server to show the routes are mounted.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from argon2 import PasswordHasher
from starlette.applications import Starlette

from crokinole.analysis.drills import DRILLS, challenge_points, daily_challenge, score_drill
from crokinole.analysis.practice import (
    PracticePosition,
    position_code,
    position_data,
    position_from_code,
    shot_from_data,
)
from crokinole.board import Shot
from crokinole.server import practice_http
from crokinole.server.accounts import Accounts
from crokinole.server.accounts_http import COOKIE
from crokinole.server.limits import ServerSettings
from crokinole.store import Store
from tests.server.helpers import serving
from tests.server_database import server_database

TODAY = datetime.date(2026, 12, 1)
CHEAP = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)
PHONE = {"X-Device-Token": "phone-" + "a" * 18}
LAPTOP = {"X-Device-Token": "laptop-" + "b" * 17}
OTHER = {"X-Device-Token": "other-" + "c" * 18}
OPEN_20 = {"position": 0, "direction": 0, "power": 28}  # stops over the hole: drops (R5)
SHORT = {"position": 0, "direction": 0, "power": 15}  # stops outside the 15: a foul (R4)


class Client:
    """Calls the routes in process, as a browser on the server's own site would."""

    def __init__(self, app: Starlette) -> None:
        self.app = app
        self.cookies: dict[str, str] = {}

    def call(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None,
        content: bytes | None = None,
    ) -> httpx.Response:  # fmt: skip
        async def go() -> httpx.Response:
            transport = httpx.ASGITransport(app=self.app)
            async with httpx.AsyncClient(
                transport=transport, base_url="http://test", cookies=self.cookies
            ) as client:
                return await client.request(
                    method, path, json=body, headers=headers, content=content
                )

        return anyio.run(go)

    def get(self, path: str, headers: dict[str, str] | None = None) -> httpx.Response:
        return self.call("GET", path, headers=headers)

    def post(self, path: str, body: Any, headers: dict[str, str] | None = None) -> httpx.Response:
        return self.call("POST", path, body, headers)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store.open(server_database(tmp_path / "practice.db"))
    yield opened
    opened.close()


@pytest.fixture
def accounts(store: Store) -> Accounts:
    return Accounts(store, hasher=CHEAP)


@pytest.fixture
def client(store: Store, accounts: Accounts, tmp_path: Path) -> Client:
    static = tmp_path / "static"
    static.mkdir()
    (static / "practice.html").write_text("<title>practice room</title>")
    (static / "drills.html").write_text("<title>drills</title>")
    routes = practice_http.routes(
        store, accounts, ServerSettings(warm_up=False), today=lambda: TODAY, static=static
    )
    return Client(Starlette(routes=routes))


def _refused(response: httpx.Response, status: int, words: str) -> None:
    assert response.status_code == status, response.text
    assert words in response.json()["error"]


# ------------------------------------------------------------------ pages and drills


def test_pages_are_served_without_caching(client: Client) -> None:
    for path, title in (("/practice", "practice room"), ("/drills", "drills")):
        page = client.get(path)
        assert page.status_code == 200 and title in page.text
        assert page.headers["cache-control"] == "no-cache"


def test_drills_list_their_setups_and_codes(client: Client) -> None:
    listed = client.get("/api/drills").json()["drills"]
    assert [d["id"] for d in listed] == list(DRILLS)
    for entry in listed:
        drill = DRILLS[entry["id"]]
        assert position_from_code(entry["code"]) == drill.setup
        assert entry["attempts"] == drill.attempts and entry["summary"] == drill.summary


# ------------------------------------------------------------------ shooting


def test_an_open_twenty_shot_in_the_practice_room(client: Client) -> None:
    empty = PracticePosition()
    by_code = client.post("/api/practice/shoot", {"code": position_code(empty), "shot": OPEN_20})
    by_position = client.post(
        "/api/practice/shoot", {"position": {"seat": "south", "discs": []}, "shot": OPEN_20}
    )
    assert by_code.status_code == 200 and by_code.json() == by_position.json()
    answer = by_code.json()
    # R4 open board, R5: the disc drops for 20; the board is empty again.
    assert answer["summary"]["valid"] and answer["summary"]["twenty"]
    assert answer["summary"]["points"] == 20
    assert answer["position"] == {"seat": "south", "discs": []}
    assert answer["code"] == position_code(empty)
    assert answer["report"]["valid"] and answer["report"]["discs"][0]["result"] == "hole"
    (moving,) = answer["trajectory"]["discs"]
    assert moving["leaves"]["how"] == "hole" and answer["board"] == []


def test_a_takeout_names_the_discs_by_id(client: Client) -> None:
    body = {"position": {"discs": [["n", 0, 6], ["s", -3, -5]]}, "shot": {
        "position": 0, "direction": 0, "power": 100}}  # fmt: skip
    answer = client.post("/api/practice/shoot", body).json()
    # The board before: north's disc and ours with their game ids; the shot disc is new.
    ids = {d["owner"]: d["id"] for d in answer["board"]}
    assert set(ids) == {"north", "south"}
    assert ids["north"] in answer["report"]["hit"]
    assert answer["summary"]["removed"] == {"mine": 0, "theirs": 1}
    assert [d[0] for d in answer["position"]["discs"]] == ["s", "s"]


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"shot": OPEN_20}, "send the position"),
        ({"code": "e30", "position": {"discs": []}, "shot": OPEN_20}, "not both"),
        ({"code": "bm90IGEgY29kZQ", "shot": OPEN_20}, "this position link is damaged"),
        ({"code": 7, "shot": OPEN_20}, "a position's code is text"),
        ({"position": {"discs": [["n", 0.1, 0.2]]}, "shot": OPEN_20}, "over the 20 hole"),
        ({"position": {"discs": [["n", 0, 11.8]]}, "shot": OPEN_20}, "beyond the shooting line"),
        ({"position": {"discs": []}}, "send the shot"),
        ({"position": {"discs": []}, "shot": {"position": 0, "direction": 0}}, "power is a number"),
        (
            {"position": {"discs": []}, "shot": {"position": 0, "direction": 0, "power": 150}},
            "power 150.0% must lie between 0% and 100%",
        ),
        (
            {"position": {"discs": []}, "shot": {"position": 60, "direction": 0, "power": 30}},
            "beyond the quadrant line",
        ),
        ({"position": {"discs": []}, "shot": OPEN_20, "hint": True}, "unknown field(s): hint"),
        ({"drill": "curling", "shot": OPEN_20}, "there is no drill 'curling'"),
        ({"drill": 3, "shot": OPEN_20}, "there is no drill 3"),
        ({"drill": "open20", "code": "e30", "shot": OPEN_20}, "the drill's own setup"),
        ({"drill": "open20"}, "send the shot"),
        ([1, 2], "the request body is a JSON object"),
    ],
)
def test_bad_shots_are_refused_plainly(client: Client, body: Any, words: str) -> None:
    _refused(client.post("/api/practice/shoot", body), 400, words)


def test_a_body_that_is_not_json_is_refused(client: Client) -> None:
    response = client.call(
        "POST", "/api/practice/shoot", content=b"code=abc",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )  # fmt: skip
    _refused(response, 415, "send the request as JSON")
    broken = client.call(
        "POST",
        "/api/practice/shoot",
        content=b"{oops",
        headers={"Content-Type": "application/json"},
    )
    _refused(broken, 400, "the request body cannot be read")


def test_posts_from_another_site_are_refused(client: Client) -> None:
    response = client.post(
        "/api/drills/open20/results", {"shots": [OPEN_20]}, {**PHONE, "Origin": "https://evil.test"}
    )
    _refused(response, 403, "another site")
    assert client.get("/api/drills/results", PHONE).json()["trend"] == []


# ------------------------------------------------------------------ drill results


def _set(client: Client, made: int, missed: int, headers: dict[str, str] = PHONE) -> Any:
    shots = [OPEN_20] * made + [SHORT] * missed
    response = client.post("/api/drills/open20/results", {"shots": shots}, headers)
    assert response.status_code == 200, response.text
    return response.json()


def test_results_are_verified_kept_and_personal_bests_flagged(client: Client) -> None:
    first = _set(client, 6, 4)
    assert (first["score"], first["attempts"], first["percent"]) == (6, 10, 60.0)
    assert first["points"] == [1] * 6 + [0] * 4 and first["personal_best"] is True
    assert _set(client, 5, 5)["personal_best"] is False
    assert _set(client, 2, 0)["personal_best"] is False  # 100%, but not a full set
    assert _set(client, 8, 2)["personal_best"] is True
    mine = client.get("/api/drills/results", PHONE).json()
    assert mine["bests"]["open20"]["percent"] == 80.0
    assert [t["percent"] for t in mine["trend"]] == [60.0, 50.0, 100.0, 80.0]
    assert mine["open20"] == {"made": 21, "attempts": 32, "rate": 21 / 32}
    # Another device has its own results.
    theirs = client.get("/api/drills/results", OTHER).json()
    assert theirs == {"bests": {}, "drill": "open20", "trend": [], "open20": None}


def test_a_drills_attempt_is_played_from_its_setup_and_scored_by_its_rule(client: Client) -> None:
    """Sent ``drill``, the shot is played from the drill's setup (the same answer as sending
    that setup) and ``drill_points`` is what the set's replay gives that attempt, for shots
    that score every amount an attempt can in the drills (the page's running count)."""
    seen: set[int] = set()
    for drill in DRILLS.values():
        e = drill.example
        for shot in (e, Shot(e.position, e.direction + 2.5, e.power), Shot(0.0, 25.0, 45.0)):
            body = {"position": shot.position, "direction": shot.direction, "power": shot.power}
            answer = client.post("/api/practice/shoot", {"drill": drill.id, "shot": body}).json()
            from_setup = client.post(
                "/api/practice/shoot", {"position": position_data(drill.setup), "shot": body}
            ).json()
            assert answer == {**from_setup, "drill_points": answer["drill_points"]}
            assert (drill.id, answer["drill_points"]) == (
                drill.id, score_drill(drill.id, [shot]).points[0],
            )  # fmt: skip
            seen.add(answer["drill_points"])
    assert seen >= {0, 1, 2}


def test_a_drill_is_scored_by_its_own_rule(client: Client) -> None:
    drill = DRILLS["far_side"]
    example = {"position": drill.example.position, "direction": drill.example.direction,
               "power": drill.example.power}  # fmt: skip
    miss = {**example, "direction": example["direction"] + 25}
    answer = client.post("/api/drills/far_side/results", {"shots": [example, miss]}, PHONE).json()
    assert answer["points"] == [2, 0] and answer["best_possible"] == 4
    assert answer["percent"] == 50.0 and answer["full"] is False
    trend = client.get("/api/drills/results?drill=far_side", PHONE).json()["trend"]
    assert [(t["score"], t["attempts"]) for t in trend] == [(2, 2)]


@pytest.mark.parametrize(
    ("path", "body", "headers", "words"),
    [
        ("/api/drills/open20/results", {"shots": [OPEN_20]}, {}, "X-Device-Token"),
        ("/api/drills/open20/results", {"shots": [OPEN_20]}, {"X-Device-Token": "x"}, "16–64"),
        ("/api/drills/curling/results", {"shots": [OPEN_20]}, PHONE, "there is no drill"),
        ("/api/drills/open20/results", {"shots": []}, PHONE, "send from 1 to 100 shots, not 0"),
        ("/api/drills/open20/results", {"shots": [OPEN_20] * 101}, PHONE, "not 101"),
        ("/api/drills/open20/results", {"shots": "lots"}, PHONE, "shots is a list"),
        (
            "/api/drills/open20/results",
            {"shots": [OPEN_20, {"position": 0, "direction": "left", "power": 30}]},
            PHONE,
            "shot 2: a shot's direction is a number",
        ),
        (
            "/api/drills/open20/results",
            {"shots": [OPEN_20, {"position": 99, "direction": 0, "power": 30}]},
            PHONE,
            "attempt 2: this shot cannot be played",
        ),
        # A client's own score is not taken: the field is refused.
        ("/api/drills/open20/results", {"shots": [SHORT], "score": 1}, PHONE, "unknown field"),
    ],
)
def test_bad_results_are_refused_and_nothing_kept(
    client: Client, path: str, body: Any, headers: dict[str, str], words: str
) -> None:
    _refused(client.post(path, body, headers), 400, words)
    assert client.get("/api/drills/results", PHONE).json()["trend"] == []


def test_results_of_an_account_count_on_all_its_devices(client: Client, accounts: Accounts) -> None:
    _, token = accounts.sign_up("Ann", "a fine long password")
    client.cookies = {COOKIE: token}
    _set(client, 9, 1, PHONE)
    assert _set(client, 7, 3, LAPTOP)["personal_best"] is False  # the phone's 90% stands
    assert client.get("/api/drills/results", LAPTOP).json()["bests"]["open20"]["percent"] == 90.0
    client.cookies = {}  # the laptop as a guest: only its own sets
    assert client.get("/api/drills/results", LAPTOP).json()["bests"]["open20"]["percent"] == 70.0


# ------------------------------------------------------------------ the daily challenge


def _shot(position: float, direction: float, power: float) -> dict[str, float]:
    return {"position": position, "direction": direction, "power": power}


def test_the_daily_challenge_is_the_days(client: Client) -> None:
    answer = client.get("/api/daily").json()
    challenge = daily_challenge(TODAY)
    assert answer["day"] == "2026-12-01" and answer["id"] == challenge.id
    assert position_from_code(answer["code"]) == challenge.position
    assert answer["attempts"] == 3 and answer["played"] is None


def test_daily_scores_are_replayed_ranked_and_one_per_device(client: Client) -> None:
    challenge = daily_challenge(TODAY)
    tries = [_shot(-20, 5, 60), _shot(-10, -10, 100), _shot(0, 0, 28)]
    expected = challenge_points(challenge, [shot_from_data(s) for s in tries])
    assert max(expected) > 0
    answer = client.post("/api/daily", {"day": "2026-12-01", "shots": tries, "name": "Ann"}, PHONE)
    assert answer.status_code == 200, answer.text
    assert answer.json()["points"] == list(expected)
    assert answer.json()["score"] == max(expected) and answer.json()["rank"] == 1
    # A zero-power shot from the line is out and touches nothing: a foul worth 0 (R4, R5).
    low = client.post(
        "/api/daily", {"day": "2026-12-01", "shots": [_shot(30, 0, 0)], "name": "Bob"}, OTHER
    ).json()
    assert (low["score"], low["rank"]) == (0, 2)
    board = client.get("/api/daily/leaderboard?day=2026-12-01").json()
    assert [(s["rank"], s["name"], s["score"]) for s in board["scores"]] == [
        (1, "Ann", max(expected)), (2, "Bob", 0),
    ]  # fmt: skip
    # The same device again: refused, nothing changes.
    again = client.post("/api/daily", {"day": "2026-12-01", "shots": tries, "name": "Ann"}, PHONE)
    _refused(again, 409, "has played the challenge of 2026-12-01 already")
    assert client.get("/api/daily/leaderboard").json() == board
    mine = client.get("/api/daily", PHONE).json()["played"]
    assert (mine["name"], mine["score"], mine["rank"]) == ("Ann", max(expected), 1)


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"day": "2026-11-30", "shots": [OPEN_20], "name": "Ann"}, "2026-11-30 is over"),
        ({"day": "2026-12-02", "shots": [OPEN_20], "name": "Ann"}, "has not begun"),
        ({"day": "1 Dec", "shots": [OPEN_20], "name": "Ann"}, "YYYY-MM-DD"),
        ({"day": "2026-02-30", "shots": [OPEN_20], "name": "Ann"}, "not a day of the calendar"),
        ({"day": "2026-12-01", "shots": [OPEN_20] * 4, "name": "Ann"}, "from 1 to 3 shots, not 4"),
        ({"day": "2026-12-01", "shots": [OPEN_20]}, "send the name"),
        ({"day": "2026-12-01", "shots": [OPEN_20], "name": "  "}, "a leaderboard name is 1 to 24"),
        ({"day": "2026-12-01", "shots": [OPEN_20], "name": "x" * 25}, "1 to 24"),
        ({"day": "2026-12-01", "shots": [OPEN_20], "name": "Ann", "score": 99}, "unknown field"),
    ],
)  # fmt: skip
def test_bad_daily_scores_are_refused_and_nothing_kept(
    client: Client, body: dict[str, Any], words: str
) -> None:
    _refused(client.post("/api/daily", body, PHONE), 400, words)
    assert client.get("/api/daily/leaderboard").json()["scores"] == []


def test_a_logged_in_player_is_shown_by_username(client: Client, accounts: Accounts) -> None:
    _, token = accounts.sign_up("Ann", "a fine long password")
    client.cookies = {COOKIE: token}
    body = {"day": "2026-12-01", "shots": [OPEN_20], "name": "Someone else"}
    assert client.post("/api/daily", body, PHONE).status_code == 200
    assert client.get("/api/daily/leaderboard").json()["scores"][0]["name"] == "Ann"
    # The account has played today, whichever device it uses.
    _refused(client.post("/api/daily", body, LAPTOP), 409, "this account has played")


def test_leaderboard_day_is_checked(client: Client) -> None:
    _refused(client.get("/api/daily/leaderboard?day=yesterday"), 400, "YYYY-MM-DD")
    assert client.get("/api/daily/leaderboard?day=2026-11-30").json() == {
        "day": "2026-11-30", "scores": [],
    }  # fmt: skip


# ------------------------------------------------------------------ the real server


def test_the_real_server_mounts_the_routes(tmp_path: Path) -> None:
    with serving(tmp_path / "crokinole.db", ServerSettings(warm_up=False)) as url:
        listed = httpx.get(f"{url}/api/drills", timeout=30).json()["drills"]
        assert len(listed) == 8
        shot = httpx.post(
            f"{url}/api/practice/shoot", json={"code": listed[0]["code"], "shot": OPEN_20},
            timeout=30,
        )  # fmt: skip
        assert shot.status_code == 200 and shot.json()["summary"]["twenty"]
        kept = httpx.post(
            f"{url}/api/drills/open20/results", json={"shots": [OPEN_20] * 10}, headers=PHONE,
            timeout=30,
        )  # fmt: skip
        assert kept.json()["percent"] == 100.0 and kept.json()["personal_best"]
        today = httpx.get(f"{url}/api/daily", timeout=30).json()
        day = datetime.date.fromisoformat(today["day"])
        assert position_from_code(today["code"]) == daily_challenge(day).position
