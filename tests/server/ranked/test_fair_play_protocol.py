"""Fair play over real websockets and HTTP (issue 19): ranked names, no engine help during a
ranked game, the no-show abort."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest

from crokinole.analysis.drills import daily_challenge
from crokinole.analysis.practice import position_data
from crokinole.server import create_app
from crokinole.server.http import practice as practice_http
from crokinole.server.limits import ServerSettings
from crokinole.store import Store
from tests.server.ranked.test_ranked_protocol import Ranked, open_table, queued_and_matched, sign_up
from tests.support import server as helpers
from tests.support.server import serving
from tests.support.server_database import server_database

EMPTY = {"seat": "south", "discs": []}


@pytest.fixture
def server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, Path]]:
    """A real server playing 1-round ranked games, its turn grace half a second."""
    monkeypatch.setattr(helpers, "create_app", functools.partial(create_app, ranked_rounds=1))
    db = tmp_path / "crokinole.db"
    settings = ServerSettings(warm_up=False, signups_per_hour=1000, turn_grace=0.5)
    with serving(db, settings) as url:
        yield url, db


def test_a_ranked_player_cannot_take_another_name(server: tuple[str, Path]) -> None:
    url, _db = server
    (ann, bob), _ = queued_and_matched(url, "ann", "bob")
    open_table(ann)
    open_table(bob)
    refused = ann.error({"type": "rename", "table": ann.table, "name": "bob"})
    assert refused["code"] == "ranked_table" and "names are the accounts'" in refused["message"]
    view = open_table(bob)["view"]
    assert [s["username"] for s in view["seats"]] == ["ann", "bob"]
    assert [m["name"] for m in view["members"]] == ["ann", "bob"]
    for player in (ann, bob):
        player.close()


def _help(web: httpx.Client, headers: dict[str, str]) -> list[httpx.Response]:
    """The practice room's hints, heat map and a shot tried there, and a record's review, for
    an empty board."""
    shot = {"position": 0, "direction": 0, "power": 28}
    return [
        web.post("/api/practice/shoot", json={"position": EMPTY, "shot": shot}, headers=headers),
        web.post("/api/analysis/hints", json={"position": EMPTY}, headers=headers),
        web.post(
            "/api/analysis/heatmap", json={"position": EMPTY, "position_deg": 0}, headers=headers
        ),
        web.post("/api/review", content=b"{}", headers=headers),
    ]


def test_no_engine_help_for_a_device_or_account_during_its_ranked_game(
    server: tuple[str, Path],
) -> None:
    url, _db = server
    (ann, bob), _ = queued_and_matched(url, "ann", "bob")
    open_table(ann)
    open_table(bob)
    device = {"X-Device-Token": ann.token}
    with httpx.Client(base_url=url, timeout=60) as web:
        # From the device ann plays on (no cookie), and from her account on another device.
        for headers, cookie in ((device, None), ({"X-Device-Token": "x" * 20}, ann.cookie)):
            web.cookies.clear()
            if cookie is not None:
                web.cookies.set("crokinole_session", cookie)
            for answer in _help(web, headers):
                assert answer.status_code == 403, answer.text
                assert "ranked game in play" in answer.json()["message"]
            table = web.get(f"/api/tables/{ann.table}/review.json", headers=headers)
            assert table.status_code == 403
        web.cookies.clear()
        # A drill's shot is not a position's: it is played as before.
        drill = web.post("/api/practice/shoot", json={"drill": "open20", "shot": {
            "position": 0, "direction": 0, "power": 28}}, headers=device)  # fmt: skip
        assert drill.status_code == 200, drill.text
        # Someone else is helped as before.
        other = web.post("/api/analysis/hints", json={"position": EMPTY}, headers={
            "X-Device-Token": "y" * 20})  # fmt: skip
        assert other.status_code == 200 and other.json()["hints"]
        # The game ends (bob resigns): ann is helped again.
        bob.act("resign")
        ann.until("finished", timeout=30)
        again = web.post("/api/analysis/hints", json={"position": EMPTY}, headers=device)
        assert again.status_code == 200, again.text
    for player in (ann, bob):
        player.close()


def test_no_hints_for_the_days_challenge_during_its_day(tmp_path: Path) -> None:
    with serving(tmp_path / "crokinole.db", ServerSettings(warm_up=False)) as url:
        day = practice_http.utc_today()
        position = daily_challenge(day).position
        turned = {
            "seat": "north",
            "discs": [["n" if side == "s" else "s", -x + 0.3, -y] for side, x, y in position.discs],
        }
        headers = {"X-Device-Token": "z" * 20}
        for body in (
            {"position": position_data(position)},
            {"position": turned},  # seen from the other seat, a little off: the same
        ):
            for path, extra in (
                ("/api/analysis/hints", {}),
                ("/api/analysis/heatmap", {"position_deg": 0}),
                ("/api/practice/shoot", {"shot": {"position": 0, "direction": 0, "power": 28}}),
            ):
                answer = httpx.post(f"{url}{path}", json={**body, **extra}, headers=headers,
                                    timeout=60)  # fmt: skip
                assert answer.status_code == 403, answer.text
                assert "today's daily challenge" in answer.json()["message"]
        yesterday = daily_challenge(day.fromordinal(day.toordinal() - 1)).position
        answer = httpx.post(
            f"{url}/api/analysis/hints", json={"position": position_data(yesterday)},
            headers=headers, timeout=60,
        )  # fmt: skip
        assert answer.status_code == 200, answer.text


@pytest.mark.slow
def test_a_player_who_never_shoots_first_aborts_the_game_unrated(
    server: tuple[str, Path],
) -> None:
    """Bob is matched but never comes: no CPU plays his game against ann; at his first turn's
    clock (30 s + grace) the game is aborted, both are told why, and no rating changes.
    Here ann shoots first; then bob's first turn runs out."""
    url, db = server
    (ann, bob), _ = queued_and_matched(url, "ann", "bob")
    bob.close()  # never opens the table
    view = open_table(ann)["view"]
    lo, hi = view["placement"]["south"][0]
    ann.shoot("south", position=(lo + hi) / 2, direction=0.0, power=26.0)
    ann.until("shot", timeout=30)
    aborted = ann.until("aborted", timeout=60)
    assert aborted["reason"] == "no_show" and aborted["seat"] == "north"
    assert "bob" in aborted["message"] and "not rated" in aborted["message"]
    finished = ann.until("finished", timeout=30)
    assert finished["abandoned"] is True and finished["aborted"]["seat"] == "north"
    assert finished["ratings"] == []
    assert open_table(ann)["view"]["aborted"]["reason"] == "no_show"
    store = Store.open(server_database(db))
    try:
        assert store.ratings_of([1, 2], "singles") == {}
        assert store.game_rating_changes(str(ann.table), 1) == []
    finally:
        store.close()
    # bob's no-show is kept: a second one bars him from the queue for a while.
    back = Ranked(url, bob.cookie)
    back.hello()
    back.send({"type": "queue", "ladder": "singles"})
    assert back.until("queued")["ladder"] == "singles"
    back.send({"type": "leave_queue"})
    back.until("queue_left")
    ann.close()
    back.close()


def test_error_no_shows(server: tuple[str, Path]) -> None:
    """An account that missed its first turn in two ranked games within a day is refused the
    queue (``no_shows``) in words that say until when; another account is not."""
    url, db = server
    cyd = Ranked(url, sign_up(url, "cyd"))
    dee = Ranked(url, sign_up(url, "dee"))
    store = Store.open(server_database(db))
    try:
        account = store.account_by_key("cyd")
        assert account is not None
        now = datetime.now(UTC).replace(tzinfo=None)
        for table_id, ago in (("a" * 32, timedelta(hours=2)), ("b" * 32, timedelta(minutes=1))):
            store.create_table(
                table_id, kind="ranked", code=None, events=[{"type": "created", "version": 1}],
                snapshot={}, members=[], deadline=None, status="playing",
            )  # fmt: skip
            store.append_table_events(
                table_id, 1, [{"type": "aborted", "version": 2}], None, deadline=None,
                status="finished", no_shows=[account.id], now=now - ago,
            )  # fmt: skip
    finally:
        store.close()
    cyd.hello()
    refused = cyd.error({"type": "queue", "ladder": "singles"})
    assert refused["code"] == "no_shows"
    assert "did not take your first shot in 2 ranked games" in refused["message"]
    assert "queue again at" in refused["message"]
    dee.hello()
    dee.send({"type": "queue", "ladder": "singles"})
    assert dee.until("queued")["ladder"] == "singles"
    for player in (cyd, dee):
        player.close()
