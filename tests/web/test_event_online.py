"""A 4-player online Swiss played to the end in Debian's Chromium, in four browser contexts.

Issue 23's check: "a browser test of a 4-player Swiss online played to the end in
four contexts".  Four players sign up, each on a device of their own; they join the
organiser's online Swiss of 2 rounds by its code and check in.  At each round's start
their tables are made for them (issue 23, "Play"); from the event page each goes to
their game ("Play your game"), where the table says which event, round and table it
is; they play their one-round games to the end, and the results enter the event by
themselves: the event pages show the round over and the standings the games gave,
without a reload; after round 2 the event is over.  A guest watches a live table from
the event page ("Watch") as a spectator.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from crokinole.server.limits import ServerSettings
from tests.support.server import serving
from tests.web.conftest import sign_up, with_csp
from tests.web.test_browser import new_page
from tests.web.test_party import GAME_OVER, play_to_the_end

__all__ = ["new_page"]  # the fixture

pytestmark = pytest.mark.browser

sync_api = pytest.importorskip("playwright.sync_api")

PASSWORD = "a long password 1"
NAMES = ("ann", "bob", "cat", "dan")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db: Path = tmp_path_factory.mktemp("db") / "crokinole.db"
    with serving(db, ServerSettings(warm_up=False, signups_per_hour=1000)) as url:
        yield url


def live_csp(route: Any) -> None:
    """Contract 4's policy on every answer but the event's stream (let through as it is:
    a fulfilled answer would wait for the stream's end, which never comes)."""
    if route.request.url.endswith("/stream"):
        route.continue_()
    else:
        with_csp(route)


class Organiser:
    """The organiser, over the events' HTTP routes (their pages are ev-web's tests)."""

    def __init__(self, url: str, username: str) -> None:
        sign_up(url, username, PASSWORD)
        self.web = httpx.Client(base_url=url, timeout=30)
        answer = self.web.post(
            "/api/account/login", json={"username": username, "password": PASSWORD}
        )
        assert answer.status_code == 200, answer.text
        self.id = ""

    def post(self, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        answer = self.web.post(f"/api/events{path}", json=body or {})
        assert answer.status_code in (200, 201), answer.text
        data: dict[str, Any] = answer.json()
        return data

    def view(self) -> dict[str, Any]:
        data: dict[str, Any] = self.web.get(f"/api/events/{self.id}").json()
        return data


def player_page(new_page: Any, url: str, username: str, code: str) -> Any:
    """A player's own device: signed up, logged in, on the event's join link; joined
    and checked in there."""
    sign_up(url, username, PASSWORD)
    page = new_page(viewport={"width": 412, "height": 915})
    page.route("**/*", live_csp)
    answer = page.request.post(
        f"{url}/api/account/login",
        data=json.dumps({"username": username, "password": PASSWORD}),
        headers={"Content-Type": "application/json"},
    )
    assert answer.ok, answer.text()
    page.goto(f"{url}/events/join/{code}")
    page.wait_for_function("() => window.crokinoleEvent && window.crokinoleEvent.view()")
    page.get_by_test_id("join-name").fill(username)
    page.get_by_test_id("join-button").click()
    page.get_by_test_id("me-words").filter(has_text=f"You are in as {username}").wait_for()
    page.get_by_test_id("check-in").click()
    page.get_by_test_id("me-words").filter(has_text="checked in").wait_for()
    return page


def entrant_of(page: Any) -> str:
    entrant: str = page.evaluate("() => window.crokinoleEvent.viewer().entrant")
    return entrant


def to_my_table(page: Any, round_: int, table: int, label: str) -> None:
    """From the event page to the player's game: its card's "Play your game" opens it."""
    link = page.get_by_test_id(f"play-{round_}-{table}")
    link.wait_for(timeout=15_000)
    link.click()
    page.wait_for_function("() => window.crokinole && window.crokinole.screen === 'game'")
    # The table says where it is in the event, then the game's own round.
    sync_api.expect(page.locator("#round-label")).to_have_text(f"{label} · Round 1 of 1")


def play_round(
    pages: dict[str, Any], event_url: str, view: dict[str, Any], number: int
) -> dict[str, tuple[int, int, int]]:
    """Every pairing of round ``number`` goes to its table and plays it to the end; each
    entrant's (wins, draws, losses) in the round, from the game screens' outcomes."""
    record: dict[str, tuple[int, int, int]] = {}
    for pairing in view["rounds"][number - 1]["pairings"]:
        table = pairing["table"]
        label = f"Tuesday league · Round {number} · Table {table}"
        at_table = [pages[e] for side in pairing["sides"] for e in side]
        for page in at_table:
            to_my_table(page, number, table, label)
        play_to_the_end(at_table)
        for side, (entrant,) in enumerate(pairing["sides"]):
            page = pages[entrant]
            page.wait_for_function(GAME_OVER)
            outcome = page.evaluate("() => window.crokinole.state.outcome")
            mine = page.evaluate(
                "() => { const c = window.crokinole;"
                " return c.state.seats.find((x) => x.seat === c.you[0]).side; }"
            )
            winner = outcome["winner"]
            record[entrant] = (
                (0, 1, 0) if winner is None else (1, 0, 0) if winner == mine else (0, 0, 1)
            )
            assert (mine == 0) == (side == pairing["first"])  # the opener sits south (side 0)
            # The result says the game is not rated and leads back to the event.
            sync_api.expect(page.get_by_test_id("event-result")).to_contain_text("not rated")
            page.get_by_test_id("event-back").click()
            page.wait_for_url(event_url)
            page.wait_for_function("() => window.crokinoleEvent && window.crokinoleEvent.view()")
    return record


def test_a_four_player_online_swiss_is_played_to_the_end_in_four_browsers(
    new_page: Any, server: str
) -> None:
    organiser = Organiser(server, "org")
    try:
        play_the_event(new_page, server, organiser)
    finally:
        organiser.web.close()


def play_the_event(new_page: Any, server: str, organiser: Organiser) -> None:
    created = organiser.post(
        "",
        {
            "settings": {
                "name": "Tuesday league", "format": "swiss", "rounds": 2, "venue": "online",
                "rules": {"rounds": 1}, "turn_seconds": 60,
            }
        },
    )  # fmt: skip
    organiser.id = created["id"]
    event_url = f"{server}/events/{organiser.id}"
    pages: dict[str, Any] = {}
    for name in NAMES:
        page = player_page(new_page, server, name, created["code"])
        pages[entrant_of(page)] = page
    assert len(pages) == 4
    totals = {e: [0, 0, 0] for e in pages}
    guest = new_page(viewport={"width": 1280, "height": 800})
    guest.route("**/*", live_csp)
    for number in (1, 2):
        organiser.post(f"/{organiser.id}/rounds")
        organiser.post(f"/{organiser.id}/rounds/{number}/start")
        view = organiser.view()
        if number == 1:
            # Watch: a guest on the event page watches table 1 live, as a spectator.
            guest.goto(event_url)
            guest.get_by_test_id("watch-1-1").click()
            guest.wait_for_function("() => window.crokinole && window.crokinole.screen === 'game'")
            assert guest.evaluate("() => window.crokinole.view.you.spectator") is True
        record = play_round(pages, event_url, view, number)
        if number == 1:
            guest.wait_for_function(GAME_OVER)  # the guest saw table 1's game to its end
        for entrant, (w, d, lost) in record.items():
            totals[entrant][0] += w
            totals[entrant][1] += d
            totals[entrant][2] += lost
        # The results came in by themselves: every page shows the round over and the
        # standings the games gave (W–D–L), as its stream brings them.
        for page in pages.values():
            page.get_by_test_id(f"round-{number}").wait_for()
            for p in view["rounds"][number - 1]["pairings"]:
                page.get_by_test_id(f"pairing-state-{number}-{p['table']}").filter(
                    has_text="Finished"
                ).wait_for(timeout=15_000)
            for entrant, (w, d, lost) in totals.items():
                row = page.get_by_test_id(f"standing-{entrant}")
                sync_api.expect(row).to_contain_text(f"{w}–{d}–{lost}")
    final = organiser.view()
    assert final["status"] == "finished"
    for standing in final["standings"]:
        w, d, lost = totals[standing["id"]]
        assert (standing["wins"], standing["draws"], standing["losses"]) == (w, d, lost)
        assert standing["values"]["match_points"] == 2 * w + d
    # The two rounds paired nobody twice (a Swiss avoids rematches while it can).
    met = [frozenset(p["sides"][0] + p["sides"][1]) for r in final["rounds"] for p in r["pairings"]]
    assert len(set(met)) == 4
    for page in pages.values():
        page.get_by_test_id("event-status").filter(has_text="inished").wait_for(timeout=15_000)
