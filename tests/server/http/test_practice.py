"""The practice room, drills and daily challenge over HTTP (issue 13; server/http/practice.py).

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
import sqlalchemy as sa
from argon2 import PasswordHasher
from starlette.applications import Starlette

from crokinole.analysis.drills import (
    DRILLS,
    challenge_points,
    daily_challenge,
    hand_shot,
    score_drill,
)
from crokinole.analysis.practice import (
    PracticePosition,
    position_code,
    position_data,
    position_from_code,
    practice_shot,
    shot_from_data,
)
from crokinole.board import Shot
from crokinole.server.accounts import Accounts
from crokinole.server.http import practice as practice_http
from crokinole.server.http.accounts import COOKIE
from crokinole.server.http.context import HttpContext, standalone
from crokinole.server.limits import ServerSettings
from crokinole.store import Store
from tests.support.server import serving
from tests.support.server_database import server_database

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
    seeds = iter(range(1000, 2000))  # each set's seed, known to the test (kept by the server)
    http = HttpContext(
        store, ServerSettings(warm_up=False), accounts=accounts, today=lambda: TODAY,
        static=static, seeds=lambda: next(seeds),
    )  # fmt: skip
    return Client(standalone(practice_http.routes, http))


def _refused(response: httpx.Response, status: int, words: str) -> None:
    assert response.status_code == status, response.text
    assert words in response.json()["message"]


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


def _start(
    client: Client, drill: str = "open20", headers: dict[str, str] = PHONE, **body: Any
) -> str:
    response = client.post(f"/api/drills/{drill}/sets", body, headers)
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["hand"] == "human" and "seed" not in answer
    return str(answer["set"])


def _attempt(client: Client, set_id: str, shot: Any, headers: dict[str, str] = PHONE) -> Any:
    response = client.post("/api/practice/shoot", {"set": set_id, "shot": shot}, headers)
    assert response.status_code == 200, response.text
    return response.json()


def _set(
    client: Client, shots: list[Any], headers: dict[str, str] = PHONE, drill: str = "open20"
) -> Any:
    set_id = _start(client, drill, headers, attempts=len(shots))
    for shot in shots:
        _attempt(client, set_id, shot, headers)
    response = client.post(f"/api/drills/{drill}/results", {"set": set_id}, headers)
    assert response.status_code == 200, response.text
    return response.json()


def _replayed(store: Store, set_id: str, drill: str = "open20") -> list[int]:
    """What the set's attempts score when replayed here from its kept seed (the hand, R3)."""
    kept = store.practice_set(set_id)
    assert kept is not None
    pos = DRILLS[drill].setup
    return [
        DRILLS[drill].score_attempt(
            practice_shot(pos, hand_shot(pos, shot_from_data(row["aimed"]), kept.seed, k))
        )
        for k, row in enumerate(kept.shots, 1)
    ]


def test_typing_a_made_shot_again_does_not_make_it_again(client: Client, store: Store) -> None:
    """Under the steady hand the same numbers made an open 20 every time (100%); under the
    human hand each attempt is played with noise the server draws, so they do not."""
    made = client.post("/api/practice/shoot", {"drill": "open20", "shot": OPEN_20}).json()
    assert made["drill_points"] == 1  # the numbers make an open 20 as aimed
    set_id = _start(client, attempts=20)
    answers = [_attempt(client, set_id, OPEN_20) for _ in range(20)]
    played = [a["played"] for a in answers]
    assert all(a["aimed"] == {"position": 0.0, "direction": 0.0, "power": 28.0} for a in answers)
    assert len({tuple(p.values()) for p in played}) == 20  # each attempt its own noise
    assert [a["attempt"] for a in answers] == list(range(1, 21))
    points = [a["drill_points"] for a in answers]
    assert points == _replayed(store, set_id)
    result = client.post("/api/drills/open20/results", {"set": set_id}, PHONE).json()
    assert result["points"] == points and result["percent"] < 100.0
    assert result["hand"] == "human"


def test_the_seed_is_never_sent_and_a_set_takes_its_attempts_once(
    client: Client, store: Store
) -> None:
    set_id = _start(client, attempts=2)
    seed = store.practice_set(set_id).seed  # type: ignore[union-attr]
    texts = [client.post("/api/practice/shoot", {"set": set_id, "shot": OPEN_20}, PHONE).text]
    texts.append(client.post("/api/practice/shoot", {"set": set_id, "shot": OPEN_20}, PHONE).text)
    _refused(
        client.post("/api/practice/shoot", {"set": set_id, "shot": OPEN_20}, PHONE),
        409, "all 2 attempts of this set are played",
    )  # fmt: skip
    texts.append(client.post("/api/drills/open20/results", {"set": set_id}, PHONE).text)
    texts.append(client.get("/api/drills/results", PHONE).text)
    assert not any(str(seed) in t or "seed" in t for t in texts)
    # Kept once: the set is over.
    _refused(client.post("/api/drills/open20/results", {"set": set_id}, PHONE), 409, "kept")
    _refused(
        client.post("/api/practice/shoot", {"set": set_id, "shot": OPEN_20}, PHONE),
        409, "this set is over",
    )  # fmt: skip
    # Another device cannot play or keep it.
    other = _start(client)
    _refused(client.post("/api/practice/shoot", {"set": other, "shot": OPEN_20}, OTHER), 404, "")
    _refused(client.post("/api/drills/open20/results", {"set": other}, OTHER), 404, "no such set")


def test_results_are_verified_kept_and_personal_bests_flagged(client: Client, store: Store) -> None:
    first = _set(client, [OPEN_20] * 6 + [SHORT] * 4)
    # A short shot stays short under the hand: the made ones decide the score.
    assert first["attempts"] == 10 and first["points"][6:] == [0] * 4
    assert first["personal_best"] is True
    assert first["score"] == sum(first["points"]) and first["full"] is True
    partial = _set(client, [OPEN_20] * 2)
    assert partial["personal_best"] is False and partial["full"] is False
    mine = client.get("/api/drills/results", PHONE).json()
    assert mine["bests"]["open20"]["percent"] == first["percent"]
    assert [t["attempts"] for t in mine["trend"]] == [10, 2]
    made = first["score"] + partial["score"]
    assert mine["open20"] == {"made": made, "attempts": 12, "rate": made / 12}
    # Another device has its own results.
    theirs = client.get("/api/drills/results", OTHER).json()
    assert theirs == {"bests": {}, "drill": "open20", "trend": [], "open20": None}


def test_a_steady_set_kept_before_counts_for_no_best(client: Client, store: Store) -> None:
    store.add_drill_result(
        PHONE["X-Device-Token"], None, "open20", score=10, attempts=10, percent=100.0,
        shots=[], full=True,
    )  # fmt: skip
    with store._engine.begin() as connection:  # as migration 0009 marks the sets before it
        connection.execute(sa.text("UPDATE drill_results SET hand = 'steady'"))
    assert client.get("/api/drills/results", PHONE).json()["bests"] == {}
    assert _set(client, [SHORT] * 10)["personal_best"] is True  # 0%, the first under the hand


def test_a_drills_attempt_is_played_from_its_setup_and_scored_by_its_rule(client: Client) -> None:
    """Sent ``drill``, the shot is played from the drill's setup (the same answer as sending
    that setup) and ``drill_points`` is what the drill's rule gives it (the practice room's
    steady hand, to try a shot; a set is played with the human hand)."""
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


def test_a_drill_is_scored_by_its_own_rule(client: Client, store: Store) -> None:
    drill = DRILLS["far_side"]
    example = {"position": drill.example.position, "direction": drill.example.direction,
               "power": drill.example.power}  # fmt: skip
    set_id = _start(client, "far_side", attempts=2)
    _attempt(client, set_id, example)
    _attempt(client, set_id, {**example, "direction": example["direction"] + 25})
    answer = client.post("/api/drills/far_side/results", {"set": set_id}, PHONE).json()
    assert answer["points"] == _replayed(store, set_id, "far_side")
    assert answer["points"][1] == 0 and answer["best_possible"] == 4 and answer["full"] is False
    trend = client.get("/api/drills/results?drill=far_side", PHONE).json()["trend"]
    assert [t["attempts"] for t in trend] == [2]


@pytest.mark.parametrize(
    ("path", "body", "headers", "words"),
    [
        ("/api/drills/open20/sets", {}, {}, "X-Device-Token"),
        ("/api/drills/open20/sets", {}, {"X-Device-Token": "x"}, "16–64"),
        ("/api/drills/curling/sets", {}, PHONE, "there is no drill"),
        ("/api/drills/open20/sets", {"attempts": 0}, PHONE, "from 1 to 100, not 0"),
        ("/api/drills/open20/sets", {"attempts": 101}, PHONE, "not 101"),
        ("/api/drills/open20/sets", {"seed": 1}, PHONE, "unknown field"),
        # Own shots are not taken for a result any more: a set is played with the hand.
        ("/api/drills/open20/results", {"shots": [OPEN_20]}, PHONE, "shot by shot"),
        ("/api/drills/open20/results", {"set": "nope"}, PHONE, "32 hexadecimal"),
        ("/api/practice/shoot", {"set": "a" * 32, "shot": OPEN_20}, {}, "X-Device-Token"),
        ("/api/practice/shoot", {"set": 5, "shot": OPEN_20}, PHONE, "32 hexadecimal"),
        ("/api/drills/open20/results", {"shots": [SHORT], "score": 1}, PHONE, "unknown field"),
    ],
)
def test_bad_results_are_refused_and_nothing_kept(
    client: Client, path: str, body: Any, headers: dict[str, str], words: str
) -> None:
    _refused(client.post(path, body, headers), 400, words)
    assert client.get("/api/drills/results", PHONE).json()["trend"] == []


def test_a_bad_attempt_is_refused_and_uses_no_attempt(client: Client, store: Store) -> None:
    set_id = _start(client, attempts=1)
    bad = {"position": 99, "direction": 0, "power": 30}
    _refused(client.post("/api/practice/shoot", {"set": set_id, "shot": bad}, PHONE), 400,
             "cannot be played")  # fmt: skip
    _refused(client.post("/api/practice/shoot", {"set": set_id}, PHONE), 400, "send the shot")
    _refused(
        client.post("/api/practice/shoot", {"set": set_id, "drill": "open20", "shot": OPEN_20},
                    PHONE),
        400, "send no other",
    )  # fmt: skip
    assert store.practice_set(set_id).shots == ()  # type: ignore[union-attr]
    _refused(client.post("/api/drills/open20/results", {"set": set_id}, PHONE), 400, "at least")
    _refused(client.post("/api/drills/far_side/results", {"set": set_id}, PHONE), 400,
             "of the drill open20")  # fmt: skip


def test_results_of_an_account_count_on_all_its_devices(client: Client, accounts: Accounts) -> None:
    _, token = accounts.sign_up("Ann", "a fine long password")
    client.cookies = {COOKIE: token}
    phone = _set(client, [OPEN_20] * 10, PHONE)
    laptop = _set(client, [SHORT] * 10, LAPTOP)
    assert laptop["personal_best"] is False  # the phone's set stands
    assert (
        client.get("/api/drills/results", LAPTOP).json()["bests"]["open20"]["percent"]
        == (phone["percent"])
    )
    client.cookies = {}  # the laptop as a guest: only its own sets
    assert client.get("/api/drills/results", LAPTOP).json()["bests"]["open20"]["percent"] == 0.0


# ------------------------------------------------------------------ the daily challenge


def _shot(position: float, direction: float, power: float) -> dict[str, float]:
    return {"position": position, "direction": direction, "power": power}


def test_the_daily_challenge_is_the_days(client: Client) -> None:
    answer = client.get("/api/daily").json()
    challenge = daily_challenge(TODAY)
    assert answer["day"] == "2026-12-01" and answer["id"] == challenge.id
    assert position_from_code(answer["code"]) == challenge.position
    assert answer["attempts"] == 3 and answer["played"] is None


def _enter(client: Client, headers: dict[str, str]) -> httpx.Response:
    return client.post("/api/daily/sets", {"day": "2026-12-01"}, headers)


def _play_daily(
    client: Client, headers: dict[str, str], tries: list[Any], name: str | None = None
) -> httpx.Response:
    entered = _enter(client, headers)
    assert entered.status_code == 200, entered.text
    set_id = entered.json()["set"]
    for shot in tries:
        _attempt(client, set_id, shot, headers)
    body: dict[str, Any] = {"day": "2026-12-01", "set": set_id}
    if name is not None:
        body["name"] = name
    return client.post("/api/daily", body, headers)


def test_daily_scores_are_the_hands_shots_replayed_ranked_and_one_per_device(
    client: Client, store: Store
) -> None:
    challenge = daily_challenge(TODAY)
    tries = [_shot(-20, 5, 60), _shot(-10, -10, 100), _shot(0, 0, 28)]
    answer = _play_daily(client, PHONE, tries, "Ann")
    assert answer.status_code == 200, answer.text
    set_id = store.daily_set("2026-12-01", PHONE["X-Device-Token"], None)
    kept = store.practice_set(set_id)  # type: ignore[arg-type]
    assert kept is not None and kept.finished
    expected = [
        challenge_points(
            challenge, [hand_shot(challenge.position, shot_from_data(s), kept.seed, k)]
        )[0]
        for k, s in enumerate(tries, 1)
    ]
    assert answer.json()["points"] == expected
    assert answer.json()["score"] == max(expected) and answer.json()["rank"] == 1
    # A zero-power shot from the line is out and touches nothing: a foul worth 0 (R4, R5).
    low = _play_daily(client, OTHER, [_shot(30, 0, 0)], "Bob").json()
    assert (low["score"], low["rank"]) == (0, 2)  # behind Ann (higher, or as high and earlier)
    board = client.get("/api/daily/leaderboard?day=2026-12-01").json()
    assert board["scores"] == []  # no account played: the guests are shown apart
    assert [(s["rank"], s["name"], s["score"]) for s in board["guests"]] == [
        (1, "Ann", max(expected)), (2, "Bob", 0),
    ]  # fmt: skip
    # The same device again: no second entry, nothing changes.
    _refused(_enter(client, PHONE), 409, "this device has entered the challenge of 2026-12-01")
    again = client.post("/api/daily", {"day": "2026-12-01", "set": set_id, "name": "Ann"}, PHONE)
    _refused(again, 409, "kept already")
    assert client.get("/api/daily/leaderboard").json() == board
    mine = client.get("/api/daily", PHONE).json()
    assert (mine["played"]["name"], mine["played"]["score"]) == ("Ann", max(expected))
    assert mine["entry"]["finished"] and mine["entry"]["played"] == 3


def test_a_new_device_token_is_a_guest_apart_and_cannot_take_an_accounts_name(
    client: Client, accounts: Accounts
) -> None:
    _, token = accounts.sign_up("Ann", "a fine long password")
    client.cookies = {COOKIE: token}
    assert _play_daily(client, PHONE, [OPEN_20], "Someone else").status_code == 200
    board = client.get("/api/daily/leaderboard").json()
    assert [s["name"] for s in board["scores"]] == ["Ann"]  # the account's name, not the one sent
    # The account has entered today, whichever device it uses.
    _refused(_enter(client, LAPTOP), 409, "this account has entered")
    # A fresh device token is a guest: it cannot play under a registered username.
    client.cookies = {}
    for name in ("Ann", "ann"):
        _refused(_play_daily_fresh(client, name), 400, "is a player's username")
    assert client.get("/api/daily/leaderboard").json() == board


def _play_daily_fresh(client: Client, name: str) -> httpx.Response:
    headers = {"X-Device-Token": f"fresh-{name}-" + "f" * 16}
    entered = _enter(client, headers)
    if entered.status_code == 409:  # the same fresh device tried once already
        set_id = client.get("/api/daily", headers).json()["entry"]["set"]
    else:
        set_id = entered.json()["set"]
        _attempt(client, set_id, OPEN_20, headers)
    return client.post("/api/daily", {"day": "2026-12-01", "set": set_id, "name": name}, headers)


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"day": "2026-11-30", "set": "a" * 32, "name": "Ann"}, "2026-11-30 is over"),
        ({"day": "2026-12-02", "set": "a" * 32, "name": "Ann"}, "has not begun"),
        ({"day": "1 Dec", "set": "a" * 32, "name": "Ann"}, "YYYY-MM-DD"),
        ({"day": "2026-02-30", "set": "a" * 32, "name": "Ann"}, "not a day of the calendar"),
        ({"day": "2026-12-01", "shots": [OPEN_20], "name": "Ann"}, "shot by shot"),
        ({"day": "2026-12-01", "set": "x", "name": "Ann"}, "32 hexadecimal"),
        ({"day": "2026-12-01", "set": "a" * 32, "name": "Ann", "score": 99}, "unknown field"),
    ],
)  # fmt: skip
def test_bad_daily_scores_are_refused_and_nothing_kept(
    client: Client, body: dict[str, Any], words: str
) -> None:
    _refused(client.post("/api/daily", body, PHONE), 400, words)
    assert client.get("/api/daily/leaderboard").json()["guests"] == []


@pytest.mark.parametrize(
    ("name", "words"),
    [(None, "send the name"), ("  ", "a leaderboard name is 1 to 24"), ("x" * 25, "1 to 24")],
)
def test_a_guests_name_is_checked(client: Client, name: str | None, words: str) -> None:
    _refused(_play_daily(client, PHONE, [OPEN_20], name), 400, words)
    assert client.get("/api/daily/leaderboard").json()["guests"] == []


def test_leaderboard_day_is_checked(client: Client) -> None:
    _refused(client.get("/api/daily/leaderboard?day=yesterday"), 400, "YYYY-MM-DD")
    assert client.get("/api/daily/leaderboard?day=2026-11-30").json() == {
        "day": "2026-11-30", "scores": [], "guests": [],
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
        made = httpx.post(
            f"{url}/api/drills/open20/sets", json={"attempts": 2}, headers=PHONE, timeout=30
        ).json()["set"]
        for _ in range(2):
            attempt = httpx.post(
                f"{url}/api/practice/shoot", json={"set": made, "shot": OPEN_20},
                headers=PHONE, timeout=30,
            )  # fmt: skip
            assert attempt.status_code == 200 and attempt.json()["hand"] == "human"
        kept = httpx.post(
            f"{url}/api/drills/open20/results", json={"set": made}, headers=PHONE, timeout=30
        )
        assert kept.json()["attempts"] == 2 and kept.json()["hand"] == "human"
        today = httpx.get(f"{url}/api/daily", timeout=30).json()
        day = datetime.date.fromisoformat(today["day"])
        assert position_from_code(today["code"]) == daily_challenge(day).position
