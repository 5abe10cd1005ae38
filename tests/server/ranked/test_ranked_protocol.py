"""Ranked play over real websockets with real accounts: queue, match, play, ratings, HTTP."""

from __future__ import annotations

import functools
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.sync.client import connect

from crokinole.ranking import INITIAL, Outcome, display, rate, window
from crokinole.server import create_app
from crokinole.server.limits import ServerSettings
from tests.support import server as helpers
from tests.support.server import WS_V2, Player, serving
from tests.support.server_database import on_redis

PASSWORD = "pw-ranked-1"


class Ranked(Player):
    """A test client whose websocket handshake carries an account's session cookie."""

    def __init__(self, url: str, cookie: str | None = None) -> None:
        headers = {"Cookie": f"crokinole_session={cookie}"} if cookie else None
        self._connecting = connect(
            url.replace("http", "ws") + WS_V2, max_size=2**24, additional_headers=headers
        )
        self.ws = self._connecting.__enter__()
        self.token = secrets.token_hex(12)
        self.table: str | None = None
        self.cookie = cookie


def sign_up(url: str, username: str) -> str:
    """A new account; its session cookie."""
    with httpx.Client(base_url=url, timeout=30) as web:
        answer = web.post("/api/account/signup", json={"username": username, "password": PASSWORD})
        assert answer.status_code == 201, answer.text
        return str(web.cookies["crokinole_session"])


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, Path]]:
    """A real server playing 1-round ranked games (``--test-ranked-rounds 1``)."""
    monkeypatch.setattr(helpers, "create_app", functools.partial(create_app, ranked_rounds=1))
    db = tmp_path / "crokinole.db"
    settings = ServerSettings(warm_up=False, signups_per_hour=1000)
    with serving(db, settings) as url:
        yield url, db


def queued_and_matched(url: str, *names: str) -> tuple[list[Ranked], dict[str, Any]]:
    """Sign ``names`` up, queue them for singles one after the other; they are matched."""
    players = []
    for name in names:
        player = Ranked(url, sign_up(url, name))
        player.hello()
        player.send({"type": "queue", "ladder": "singles"})
        players.append(player)
    matched = [p.until("matched", timeout=30) for p in players]
    assert len({m["table"] for m in matched}) == 1
    for player, msg in zip(players, matched, strict=True):
        player.table = msg["table"]
    return players, matched[0]


def open_table(player: Ranked) -> dict[str, Any]:
    player.act("open")
    return player.until("table")


def play_to_the_end(by_seat: dict[str, Ranked], view: dict[str, Any]) -> list[dict[str, Any]]:
    """Shoot for whoever's turn it is (and press Next after a level round) until ``finished``;
    the ``finished`` message of each player."""
    watcher = next(iter(by_seat.values()))
    game, placement = view["game"], view["placement"]
    acted: dict[str, Any] | None = None
    while True:
        seat = game["current_seat"]
        if game is acted:
            pass  # a message that did not move the game (presence…): nothing to do again
        elif game["phase"] == "playing" and seat is not None and seat in placement:
            lo, hi = placement[seat][0]
            by_seat[seat].shoot(seat, position=(lo + hi) / 2, direction=0.0, power=26.0)
        elif game["phase"] == "round_over":
            for player in by_seat.values():
                player.act("next_round")
        acted = game
        msg = watcher.recv(60)
        if msg["type"] == "error":
            raise AssertionError(msg)
        if msg["type"] == "finished":
            break
        game = msg.get("game") or game
        placement = msg.get("lobby", {}).get("placement", placement)
    others = [p.until("finished", timeout=60) for p in by_seat.values() if p is not watcher]
    return [msg, *others]


def test_two_players_queue_are_matched_play_and_both_ratings_change(
    server: tuple[str, Path],
) -> None:
    url, _db = server
    (ann, bob), matched = queued_and_matched(url, "ann", "bob")
    assert matched["ladder"] == "singles"
    assert [
        (p["seat"], p["username"], p["rating"], p["provisional"]) for p in matched["players"]
    ] == [
        ("south", "ann", 1000, True),
        ("north", "bob", 1000, True),
    ]
    # In a ranked game: no queueing for another.
    assert ann.error({"type": "queue", "ladder": "singles"})["code"] == "in_ranked_game"
    views = [open_table(ann)["view"], open_table(bob)["view"]]
    for view in views:
        assert view["ranked"] is True and view["kind"] == "ranked"
        assert [
            (s["seat"], s["username"], s["rating"], s["provisional"]) for s in view["seats"]
        ] == [
            ("south", "ann", 1000, True),
            ("north", "bob", 1000, True),
        ]
        assert view["settings"]["turn_time"] == 30 and view["settings"]["hand"] == "human"
        assert view["settings"]["discs"] == 8 and view["settings"]["tie"] == "extra_rounds"
    assert views[0]["you"]["seats"] == ["south"] and views[1]["you"]["seats"] == ["north"]
    # A third person can neither open, join, nor act at the ranked table.
    cat = Ranked(url, sign_up(url, "cat"))
    cat.hello()
    cat.table = ann.table
    assert cat.error({"type": "open", "table": ann.table})["code"] == "ranked_table"
    refused = cat.error(
        {"type": "shoot", "table": ann.table, "seat": "south", "position": 0, "direction": 0,
         "power": 20}
    )  # fmt: skip
    assert refused["code"] == "ranked_table"
    assert refused["message"] == "this is a ranked game: only its players can join"
    # Nor can its players change its rules.
    assert (
        ann.error({"type": "settings", "table": ann.table, "settings": {}})["code"]
        == "ranked_table"
    )
    finished = play_to_the_end({"south": ann, "north": bob}, views[0])
    end = finished[0]
    assert not end["abandoned"]
    outcome = (
        Outcome.WIN if end["winner"] == 0 else Outcome.LOSS if end["winner"] == 1 else Outcome.DRAW
    )
    (ann_after,), (bob_after,) = rate([INITIAL], [INITIAL], outcome)
    expected = [
        {"username": "ann", "ladder": "singles", "before": 1000, "after": display(ann_after),
         "outcome": outcome.value, "provisional": True},
        {"username": "bob", "ladder": "singles", "before": 1000, "after": display(bob_after),
         "outcome": outcome.opposite.value, "provisional": True},
    ]  # fmt: skip
    for msg in finished:
        assert msg["ratings"] == expected
    assert display(ann_after) != 1000 and display(bob_after) != 1000
    # No rematch at a ranked table.
    assert ann.error({"type": "rematch", "table": ann.table})["code"] == "ranked_table"
    # The leaderboard and the profiles show the game.
    with httpx.Client(base_url=url, timeout=30) as web:
        board = web.get("/api/leaderboard", params={"ladder": "singles", "min_games": 1}).json()
        assert {p["username"]: p["rating"] for p in board["players"]} == {
            "ann": display(ann_after),
            "bob": display(bob_after),
        }
        assert board["players"][0]["rank"] == 1 and board["min_games"] == 1
        assert web.get("/api/leaderboard").json()["players"] == []  # 5 games by default
        profile = web.get("/api/players/ANN").json()
        singles = profile["ladders"]["singles"]
        assert singles["rating"] == display(ann_after) and singles["games"] == 1
        assert (singles["wins"], singles["draws"], singles["losses"]) == {
            Outcome.WIN: (1, 0, 0),
            Outcome.DRAW: (0, 1, 0),
            Outcome.LOSS: (0, 0, 1),
        }[outcome]
        assert [h["table"] for h in singles["history"]] == [ann.table]
        assert profile["ladders"]["doubles"]["games"] == 0
        (game,) = profile["games"]
        assert (game["opponents"], game["partners"], game["before"]) == (["bob"], [], 1000)
        assert game["after"] == display(ann_after) and game["outcome"] == outcome.value
        missing = web.get("/api/players/nobody")
        assert (missing.status_code, missing.json()) == (
            404,
            {"code": "not_found", "message": "no player is called nobody"},
        )
        assert web.get("/api/leaderboard", params={"ladder": "triples"}).status_code == 400
        assert web.get("/api/leaderboard", params={"min_games": "101"}).status_code == 400
        assert web.get("/api/players/a%20b").status_code == 400
    for player in (ann, bob, cat):
        player.close()


def test_abandoning_is_rated_as_a_loss(server: tuple[str, Path]) -> None:
    url, _db = server
    (dan, eve), _ = queued_and_matched(url, "dan", "eve")
    # Another device of dan's is told of his ranked table at hello.
    other = Ranked(url, dan.cookie)
    assert {"table": dan.table, "kind": "ranked", "stage": "playing"} in other.hello()["tables"]
    other.close()
    open_table(dan)
    open_table(eve)
    eve.act("resign")
    end = dan.until("finished", timeout=30)
    assert end["abandoned"] is True
    (dan_after,), (eve_after,) = rate([INITIAL], [INITIAL], Outcome.WIN)
    assert [(r["username"], r["outcome"], r["after"]) for r in end["ratings"]] == [
        ("dan", "win", display(dan_after)),
        ("eve", "loss", display(eve_after)),
    ]
    for player in (dan, eve):
        player.close()


def test_queue_errors_and_leaving(server: tuple[str, Path]) -> None:
    url, _db = server
    guest = Ranked(url)
    guest.hello()
    refused = guest.error({"type": "queue", "ladder": "singles"})
    assert (refused["code"], refused["message"]) == ("not_logged_in", "log in to play ranked")
    # A logged-out cookie does nothing.
    cookie = sign_up(url, "fay")
    with httpx.Client(base_url=url, timeout=30) as web:
        web.cookies.set("crokinole_session", cookie)
        assert web.post("/api/account/logout", json={}).status_code == 200
    gone = Ranked(url, cookie)
    gone.hello()
    assert gone.error({"type": "queue", "ladder": "singles"})["code"] == "not_logged_in"
    gus = Ranked(url, sign_up(url, "gus"))
    gus.hello()
    assert gus.error({"type": "queue", "ladder": "triples"})["code"] == "bad_ladder"
    gus.send({"type": "queue", "ladder": "singles"})
    queued = gus.until("queued")
    assert (queued["ladder"], queued["rating"], queued["provisional"]) == ("singles", 1000, True)
    assert queued["window"] == window(0) and queued["since"] <= queued["server_time"]
    assert gus.error({"type": "queue", "ladder": "singles"})["code"] == "already_queued"
    again = gus.until("queued", timeout=10)  # repeated while waiting
    assert again["since"] == queued["since"]
    gus.send({"type": "leave_queue"})
    assert gus.until("queue_left")["reason"] == "left"
    for player in (guest, gone, gus):
        player.close()


def test_the_queue_survives_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "crokinole.db"
    settings = ServerSettings(warm_up=False, signups_per_hour=1000)
    with serving(db, settings) as url:
        cookie = sign_up(url, "hal")
        hal = Ranked(url, cookie)
        hal.hello()
        hal.send({"type": "queue", "ladder": "doubles"})
        since = hal.until("queued")["since"]
        hal.close()
    with serving(db, settings) as url:
        hal = Ranked(url, cookie)
        hal.hello()
        hal.send({"type": "queue", "ladder": "doubles"})
        back = hal.until("queued")
        assert back["since"] == since and back["ladder"] == "doubles"
        hal.close()


def test_four_players_queued_alone_play_a_ranked_doubles_game(server: tuple[str, Path]) -> None:
    """Doubles end to end: four solo entries make two teams of partners opposite; both
    partners' ratings move as ranking.rate says for their team's outcome."""
    url, _db = server
    players = []
    for name in ("ida", "jon", "kim", "lee"):
        player = Ranked(url, sign_up(url, name))
        player.hello()
        player.send({"type": "queue", "ladder": "doubles"})
        players.append(player)
    matched = [p.until("matched", timeout=30) for p in players]
    assert len({m["table"] for m in matched}) == 1 and matched[0]["ladder"] == "doubles"
    seats = {p["username"]: p["seat"] for p in matched[0]["players"]}
    assert sorted(seats.values()) == ["east", "north", "south", "west"]
    by_seat: dict[str, Ranked] = {}
    for player, msg in zip(players, matched, strict=True):
        player.table = msg["table"]
        by_seat[msg["seat"]] = player
    views = [open_table(p)["view"] for p in players]
    assert all(v["ranked"] is True for v in views)
    finished = play_to_the_end(by_seat, views[0])
    end = finished[0]
    assert not end["abandoned"]
    # Partners sit opposite (R1): south and north against east and west; side 0 is
    # the south team (the game's sides in seat order).
    team_a = [u for u, s in seats.items() if s in ("south", "north")]
    team_b = [u for u, s in seats.items() if s in ("east", "west")]
    outcome = (
        Outcome.WIN if end["winner"] == 0 else Outcome.LOSS if end["winner"] == 1 else Outcome.DRAW
    )
    new_a, new_b = rate([INITIAL, INITIAL], [INITIAL, INITIAL], outcome)
    expected = {u: (display(new_a[0]), outcome.value) for u in team_a} | {
        u: (display(new_b[0]), outcome.opposite.value) for u in team_b
    }
    for msg in finished:
        got = {r["username"]: (r["after"], r["outcome"]) for r in msg["ratings"]}
        assert got == expected
        assert {r["ladder"] for r in msg["ratings"]} == {"doubles"}
    with httpx.Client(base_url=url, timeout=30) as web:
        board = web.get("/api/leaderboard", params={"ladder": "doubles", "min_games": 1}).json()
        assert {p["username"]: p["rating"] for p in board["players"]} == {
            u: after for u, (after, _) in expected.items()
        }
    for player in players:
        player.close()


def test_guest_games_attached_to_an_account_count_for_it_on_any_device(
    server: tuple[str, Path],
) -> None:
    url, _db = server
    # A guest loses to CPU Easy on device A (resigning counts as a loss).
    device_a = Ranked(url)
    device_a.hello()
    device_a.create("solo", "Ann", seats={"south": "me", "north": "easy"})
    device_a.act("resign")
    assert device_a.until("finished")["record"]["easy"]["four_rounds"]["losses"] == 1
    device_a.close()
    # She signs up and attaches device A's games to her account.
    cookie = sign_up(url, "ann")
    with httpx.Client(base_url=url, timeout=30) as web:
        web.cookies.set("crokinole_session", cookie)
        attached = web.post(
            "/api/account/attach", json={}, headers={"X-Device-Token": device_a.token}
        )
        assert (attached.status_code, attached.json()) == (200, {"attached": 1})
    # Logged in on device B, her record holds that game; a guest on device C has none.
    device_b = Ranked(url, cookie)
    assert device_b.hello()["record"]["easy"]["four_rounds"]["losses"] == 1
    device_c = Ranked(url)
    assert device_c.hello()["record"]["easy"]["four_rounds"]["losses"] == 0
    for player in (device_b, device_c):
        player.close()


def test_two_players_queue_for_doubles_as_a_team(server: tuple[str, Path]) -> None:
    """A pre-made team: each names the other as partner; until both have, neither is matched;
    then they play on one side (partners opposite) against two players who queued alone."""
    url, _db = server
    ann = Ranked(url, sign_up(url, "ann"))
    ann.hello()
    # bad_partner: only for doubles, not yourself, someone who exists.
    refused = ann.error({"type": "queue", "ladder": "singles", "partner": "bob"})
    assert (refused["code"], refused["message"]) == (
        "bad_partner",
        "name your partner only for doubles",
    )
    refused = ann.error({"type": "queue", "ladder": "doubles", "partner": "ANN"})
    assert refused["message"] == "you cannot be your own partner"
    refused = ann.error({"type": "queue", "ladder": "doubles", "partner": "nobody"})
    assert refused["message"] == "no player is called nobody"
    bob = Ranked(url, sign_up(url, "Bob"))
    bob.hello()
    ann.send({"type": "queue", "ladder": "doubles", "partner": "bob"})
    waiting = ann.until("queued")
    assert (waiting["partner"], waiting["partner_ready"]) == ("Bob", False)
    solos = []
    for name in ("cat", "dan", "eve"):
        solo = Ranked(url, sign_up(url, name))
        solo.hello()
        solo.send({"type": "queue", "ladder": "doubles"})
        assert solo.until("queued")["partner"] is None
        solos.append(solo)
    # Ann waits for Bob: three players who queued alone make no doubles game.
    for player in (ann, *solos):
        player.until("queued", timeout=10)  # the next repeat: still waiting, no match
    bob.send({"type": "queue", "ladder": "doubles", "partner": "ann"})
    ready = ann.until("queued", lambda m: m["partner_ready"], timeout=10)
    assert ready["partner"] == "Bob"
    matched = {p: p.until("matched", timeout=30) for p in (ann, bob)}
    seats = {m["username"]: m["seat"] for m in matched[ann]["players"]}
    assert {seats["ann"], seats["Bob"]} in ({"south", "north"}, {"east", "west"})
    others = [u for u in seats if u not in ("ann", "Bob")]
    assert len(others) == 2 and set(others) <= {"cat", "dan", "eve"}
    assert matched[ann]["table"] == matched[bob]["table"]
    for player in (ann, bob, *solos):
        player.close()


def test_players_on_two_processes_of_a_cluster_queue_together(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two servers on one database and one Redis prefix (``make test-cluster``): a second tab
    on the other process joins the wait and a leave there tells both; two players, one on
    each process, are matched to one table, play it to its end and are rated."""
    if not on_redis():
        pytest.skip("a cluster needs $CROKINOLE_TEST_REDIS_URL (make test-cluster)")
    monkeypatch.setattr(helpers, "create_app", functools.partial(create_app, ranked_rounds=1))
    db = tmp_path / "crokinole.db"
    settings = ServerSettings(warm_up=False, signups_per_hour=1000)
    with serving(db, settings) as one, serving(db, settings) as two:
        cookie = sign_up(one, "cat")
        here, there = Ranked(one, cookie), Ranked(two, cookie)
        for tab in (here, there):
            tab.hello()
            tab.send({"type": "queue", "ladder": "doubles"})
        assert here.until("queued")["since"] == there.until("queued")["since"]
        there.send({"type": "leave_queue"})
        assert here.until("queue_left", timeout=10)["reason"] == "left"
        assert there.until("queue_left")["reason"] == "left"
        ann, bob = Ranked(one, sign_up(one, "ann")), Ranked(two, sign_up(two, "bob"))
        for player in (ann, bob):
            player.hello()
            player.send({"type": "queue", "ladder": "singles"})
        matched = [p.until("matched", timeout=30) for p in (ann, bob)]
        assert matched[0]["table"] == matched[1]["table"]
        by_seat = {}
        for player, msg in zip((ann, bob), matched, strict=True):
            player.table = msg["table"]
            by_seat[msg["seat"]] = player
        views = [open_table(p)["view"] for p in (ann, bob)]
        finished = play_to_the_end(by_seat, views[0])
        assert [sorted(r["username"] for r in f["ratings"]) for f in finished] == [
            ["ann", "bob"],
            ["ann", "bob"],
        ]
        for player in (here, there, ann, bob):
            player.close()
