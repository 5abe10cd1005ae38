"""The event pages in Debian's Chromium against the real server (issue 23, "Watch" and "Checks").

- an organiser creates an event on /events (the form's defaults, a tie-break moved), players
  join by its code and check in, the organiser adds players, pairs round 1 and starts it; every
  open page shows each change without a reload (the event's stream);
- the standings show every tie-break's value, the deciding one in bold with its caption
  ("decided by 20s"), against figures worked by hand from the rounds entered (R2: 2 game points
  a round won; the differential is round points scored minus conceded);
- the bracket page of an 8-player single elimination: three columns (quarter-finals,
  semi-finals, the final), a line from each match to the next, the winners marked;
- no sideways scroll at 360x640, 412x915 and 1280x800; axe finds no broken rule.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from crokinole.server.limits import ServerSettings
from tests.support.server import serving
from tests.web.conftest import open_site_page as open_with_csp
from tests.web.conftest import sign_up, with_csp
from tests.web.test_axe import axe_source, check
from tests.web.test_browser import new_page

__all__ = ["axe_source", "new_page"]  # the fixtures

pytestmark = pytest.mark.browser

sync_api = pytest.importorskip("playwright.sync_api")

PASSWORD = "a long password 1"
SIZES = ((360, 640), (412, 915), (1280, 800))
HALL = {"venue": "hall"}


def live_csp(route: Any) -> None:
    """Contract 4's policy added to every answer but the event's stream, which is let through
    as it is (a fulfilled answer would wait for the stream's end, which never comes)."""
    if route.request.url.endswith("/stream"):
        route.continue_()
    else:
        with_csp(route)


def open_site_page(new_page: Any, url: str, width: int = 1280, height: int = 800, **kw: Any) -> Any:
    """A page of the site (conftest's open_site_page), its event stream live."""
    return open_with_csp(new_page, url, width, height, route=live_csp, **kw)


def log_in(page: Any, url: str, username: str) -> None:
    """Log the page's browser context in (the session cookie is the context's)."""
    answer = page.request.post(
        f"{url}/api/account/login",
        data=json.dumps({"username": username, "password": PASSWORD}),
        headers={"Content-Type": "application/json"},
    )
    assert answer.ok, answer.text()


class Organiser:
    """The organiser's requests, over the HTTP routes of docs/events.md, in a logged-in context."""

    def __init__(self, page: Any, url: str, event_id: str = "") -> None:
        self.page, self.url, self.id = page, url, event_id

    def call(self, method: str, path: str, body: Any = None) -> Any:
        answer = self.page.request.fetch(
            f"{self.url}/api/events{path}",
            method=method,
            data=None if body is None else json.dumps(body),
            headers={"Content-Type": "application/json"},
        )
        assert answer.ok, f"{method} {path}: {answer.status} {answer.text()}"
        return answer.json() if answer.text() else None

    def create(self, settings: dict[str, Any]) -> dict[str, Any]:
        view = self.call("POST", "", {"settings": settings})
        self.id = view["id"]
        return dict(view)

    def event(self, method: str, path: str = "", body: Any = None) -> Any:
        return self.call(method, f"/{self.id}{path}", body)

    def view(self) -> dict[str, Any]:
        return dict(self.event("GET"))

    def add(self, names: Sequence[str], ratings: Sequence[float] = ()) -> list[str]:
        """Add named players (a hall's), checked in: their entrant ids."""
        for k, name in enumerate(names):
            body: dict[str, Any] = {"name": name}
            if ratings:
                body["rating"] = ratings[k]
            self.event("POST", "/entrants", body)
        ids = {e["name"]: e["id"] for e in self.view()["entrants"]}
        for name in names:
            self.event("POST", f"/entrants/{ids[name]}/check-in", {})
        return [ids[n] for n in names]

    def pair_and_start(self) -> dict[str, Any]:
        """Pair the next round and start it: the round as the view shows it."""
        self.event("POST", "/rounds")
        number = self.view()["rounds"][-1]["number"]
        self.event("POST", f"/rounds/{number}/start", {})
        return dict(self.view()["rounds"][-1])

    def result(self, round_: int, table: int, rounds: Sequence[tuple[int, int, int, int]]) -> None:
        """Enter a one-game result (each round: total, 20s, total, 20s) and see it confirmed."""
        games = [{"rounds": [{"totals": [a, c], "twenties": [b, d]} for a, b, c, d in rounds]}]
        self.event("POST", f"/rounds/{round_}/tables/{table}/result", {"games": games})
        if self.pairing(round_, table)["state"] == "reported":
            self.event("POST", f"/rounds/{round_}/tables/{table}/confirm", {})
        assert self.pairing(round_, table)["state"] == "confirmed"

    def pairing(self, round_: int, table: int) -> dict[str, Any]:
        r = next(r for r in self.view()["rounds"] if r["number"] == round_)
        return dict(next(p for p in r["pairings"] if p["table"] == table))


#: Side 0 wins 5–3 in game points: 35–10, 0–15, 20–20, 45–5 (100–50 in round points),
#: 20s 1+0+1+2 = 4 against 0+0+1+0 = 1.
CLOSE_WIN = ((35, 1, 10, 0), (0, 0, 15, 0), (20, 1, 20, 1), (45, 2, 5, 0))
#: Side 0 wins every round 30–0 (120–0), no 20s.
CLEAN_WIN = ((30, 0, 0, 0),) * 4


def organiser(new_page: Any, url: str, username: str, width: int = 1280, height: int = 800) -> Any:
    sign_up(url, username)
    page = open_site_page(new_page, f"{url}/events", width, height)
    log_in(page, url, username)
    return page


def no_reload_mark(page: Any) -> None:
    page.evaluate("() => { window.__sameDocument = true; }")


def still_same_document(page: Any) -> bool:
    return bool(page.evaluate("() => window.__sameDocument === true"))


def wait_version_above(page: Any, version: int) -> None:
    page.wait_for_function(
        f"() => Number(document.getElementById('main').dataset.version) > {version}",
        timeout=10_000,
    )


def test_create_join_check_in_pair_and_start(new_page: Any, server_url: str) -> None:
    """Issue 23, "Create an event" and "Join": the form's defaults, join by code with a
    check-in, the organiser adds, pairs and starts; the pages follow without a reload."""
    org = organiser(new_page, server_url, "evorg1")
    org.goto(f"{server_url}/events")
    org.wait_for_function("() => window.crokinoleEvents && window.crokinoleEvents.ready")
    org.get_by_test_id("ev-name").fill("Tuesday league")
    org.get_by_test_id("ev-format").select_option("swiss")
    org.get_by_test_id("ev-rounds").fill("3")
    org.get_by_test_id("ev-venue").select_option("hall")
    org.get_by_test_id("ev-more-toggle").click()
    # The default order (issue 23): match points, 20s, head-to-head, differential; one moved up.
    names = org.get_by_test_id("tie-breaks").locator("li .tb-name").all_inner_texts()
    assert names == ["1. match points", "2. 20s", "3. head-to-head", "4. points differential"]
    org.get_by_test_id("tie-break-up-head_to_head").click()
    org.get_by_test_id("create-button").click()
    org.wait_for_url("**/events/*")
    org.wait_for_function("() => window.crokinoleEvent && window.crokinoleEvent.view()")
    view = org.evaluate("() => window.crokinoleEvent.view()")
    settings = view["settings"]
    assert settings["name"] == "Tuesday league"
    assert (settings["format"], settings["rounds"], settings["venue"]) == ("swiss", 3, "hall")
    assert settings["tie_breaks"] == ["match_points", "head_to_head", "twenties", "differential"]
    assert settings["rules"]["discs_per_side"] == 8 and settings["rules"]["required_contact"]
    assert org.get_by_test_id("event-name").inner_text() == "Tuesday league"
    assert "Swiss, 3 rounds" in org.get_by_test_id("event-summary").inner_text()
    code = org.get_by_test_id("join-code").inner_text().strip()
    assert code == view["code"]
    assert org.get_by_test_id("join-link").input_value().endswith(f"/events/join/{code}")
    org.wait_for_function(
        "() => { const i = document.getElementById('join-qr');"
        " return i.complete && i.naturalWidth > 0; }"
    )
    assert org.get_by_test_id("organiser").is_visible()
    # The code on a screen in the hall: big, with its QR code.
    org.get_by_test_id("show-code").click()
    screen = org.get_by_test_id("code-dialog")
    assert screen.locator(".screen-code").inner_text() == code
    org.wait_for_function(
        "() => { const i = document.getElementById('screen-qr');"
        " return i.complete && i.naturalWidth > 0; }"
    )
    screen.get_by_role("button", name="Close").click()
    screen.wait_for(state="hidden")
    no_reload_mark(org)

    # Two players join by the code, each on their own device, and check in.
    players = []
    for name in ("Ann", "Bob"):
        page = open_site_page(new_page, f"{server_url}/events/join/{code}", 412, 915)
        page.wait_for_function("() => window.crokinoleEvent && window.crokinoleEvent.view()")
        assert page.get_by_test_id("organiser").is_hidden()
        page.get_by_test_id("join-name").fill(name)
        page.get_by_test_id("join-button").click()
        page.get_by_test_id("me-words").filter(has_text=f"You are in as {name}").wait_for()
        page.get_by_test_id("check-in").click()
        page.get_by_test_id("me-words").filter(has_text="checked in").wait_for()
        no_reload_mark(page)
        players.append(page)

    # The organiser adds two more by name and checks them in.
    for name in ("Cy", "Dee"):
        org.get_by_test_id("add-name").fill(name)
        org.get_by_test_id("add-button").click()
        org.locator(".entrant-name", has_text=name).wait_for()
    for e in org.evaluate("() => window.crokinoleEvent.view().entrants"):
        if not e["checked_in"]:
            org.get_by_test_id(f"check-in-{e['id']}").click()
    org.wait_for_function(
        "() => window.crokinoleEvent.view().entrants.filter((e) => e.checked_in).length === 4"
    )
    # Ann's page heard of every one of them (the stream), without a reload.
    players[0].locator(".entrant-name", has_text="Dee").wait_for(timeout=10_000)

    org.get_by_test_id("pair-next").click()
    org.get_by_test_id("round-1").wait_for()
    cards = org.locator("[data-testid^=pairing-1-]")
    assert cards.count() == 2
    assert "Board 1" in cards.nth(0).inner_text() and "Board 2" in cards.nth(1).inner_text()
    assert "shoots first" in cards.nth(0).inner_text()
    for page in players:
        page.get_by_test_id("round-1").wait_for(timeout=10_000)
        assert page.get_by_test_id("pairing-state-1-1").inner_text() == "Not started"

    org.get_by_test_id("start-round").click()
    org.get_by_test_id("pairing-state-1-1").filter(has_text="Playing").wait_for()
    for page in players:
        page.get_by_test_id("pairing-state-1-2").filter(has_text="Playing").wait_for(timeout=10_000)
        # Each player can open their board's score sheet; nobody but the organiser runs it.
        assert page.get_by_test_id("pair-next").is_hidden()
        assert still_same_document(page)
    assert still_same_document(org)

    # The list: the event is under way; the organiser's own list has it too.
    players[0].goto(f"{server_url}/events")
    players[0].get_by_test_id("running-events").filter(has_text="Tuesday league").wait_for()
    assert "4 players" in players[0].get_by_test_id(f"event-{view['id']}").inner_text()
    assert players[0].get_by_test_id("create-button").is_disabled()  # a guest cannot organise
    org.goto(f"{server_url}/events")
    org.get_by_test_id("my-events").filter(has_text="Tuesday league").wait_for()


@pytest.fixture(scope="module")
def swiss_after_round_1(browser: Any, server_url: str) -> str:
    """A hall Swiss of 4 named players, round 1 played: its id and its organiser's username."""
    sign_up(server_url, "evorg2")
    ctx = browser.new_context()
    try:
        page = ctx.new_page()
        page.goto(f"{server_url}/events")
        log_in(page, server_url, "evorg2")
        api = Organiser(page, server_url)
        api.create({"name": "Standings night", "format": "swiss", "rounds": 3, **HALL})
        api.add(["Ann", "Bob", "Cy", "Dee"])
        api.pair_and_start()
        return api.id
    finally:
        ctx.close()


def test_standings_show_every_tie_break_value(
    new_page: Any, server_url: str, swiss_after_round_1: str
) -> None:
    """Issue 23, "every standing shows the tie-break values that decided it": the results are
    entered on the page (board 1, the result dialog) and over HTTP (board 2); the values are
    worked by hand.

    Board 1: side 0 wins 5–3 (CLOSE_WIN: 100–50 in round points, 4 20s to 1); board 2: side 0
    wins 8–0 (CLEAN_WIN: 120–0, no 20s). Both winners have 2 match points: the board-1 winner
    is first, decided by 20s (4 to 0); both losers 0: the board-1 loser is third, by 20s (1 to 0).
    """
    page = open_site_page(new_page, f"{server_url}/events", 1280, 800)
    log_in(page, server_url, "evorg2")
    page.goto(f"{server_url}/events/{swiss_after_round_1}")
    page.wait_for_function("() => window.crokinoleEvent && window.crokinoleEvent.view()")
    api = Organiser(page, server_url, swiss_after_round_1)
    board1 = api.pairing(1, 1)
    board2 = api.pairing(1, 2)

    page.get_by_test_id("enter-1-1").click()
    dialog = page.get_by_test_id("result-dialog")
    rows = dialog.locator(".result-round:not(.result-head)")
    for k, (a, b, c, d) in enumerate(CLOSE_WIN):
        for role, value in (("total-0", a), ("twenties-0", b), ("total-1", c), ("twenties-1", d)):
            rows.nth(k).locator(f"[data-role={role}]").fill(str(value))
    dialog.get_by_test_id("result-save").click()
    dialog.wait_for(state="hidden")
    page.get_by_test_id("pairing-score-1-1").filter(has_text="5–3").wait_for()
    if api.pairing(1, 1)["state"] == "reported":
        page.get_by_test_id("confirm-1-1").click()
    page.get_by_test_id("pairing-state-1-1").filter(has_text="Finished").wait_for()
    api.result(1, 2, CLEAN_WIN)
    page.get_by_test_id("pairing-state-1-2").filter(has_text="Finished").wait_for(timeout=10_000)

    ids = [
        board1["sides"][0][0],
        board2["sides"][0][0],
        board1["sides"][1][0],
        board2["sides"][1][0],
    ]
    #: (match points, 20s, differential) by hand, in the expected order.
    expected = [("2", "4", "+50"), ("2", "0", "+120"), ("0", "1", "−50"), ("0", "0", "−120")]
    table = page.get_by_test_id("standings-table")
    table.wait_for()
    rows = table.locator("tbody tr")
    assert rows.count() == 4
    for k, (entrant, figures) in enumerate(zip(ids, expected, strict=True)):
        row = rows.nth(k)
        assert row.get_attribute("data-testid") == f"standing-{entrant}"
        cells = [
            row.locator(f"td[data-tie-break={key}]").inner_text()
            for key in ("match_points", "twenties", "differential")
        ]
        assert tuple(cells) == figures, (k, cells)
        assert row.locator("td[data-tie-break=head_to_head]").count() == 1
    # The deciding value is bold, with its caption.
    for k in (0, 3):
        row = rows.nth(k)
        assert row.locator("td.decider").get_attribute("data-tie-break") == "twenties"
        assert row.locator("td.decider strong").inner_text() == expected[k][1]
        assert row.get_by_test_id("decided-by").inner_text() == "decided by 20s"


@pytest.fixture(scope="module")
def bracket_event(browser: Any, server_url: str) -> str:
    """An 8-player single elimination on real boards played to its final: its id.

    Seeds by rating, Ann (1800) first to Hal (1100); side 0 of every match wins.
    """
    sign_up(server_url, "evorg3")
    ctx = browser.new_context()
    try:
        page = ctx.new_page()
        page.goto(f"{server_url}/events")
        log_in(page, server_url, "evorg3")
        api = Organiser(page, server_url)
        api.create({"name": "Winter cup", "format": "elimination", **HALL})
        names = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal"]
        api.add(names, [1800 - 100 * k for k in range(8)])
        for _ in range(3):
            round_ = api.pair_and_start()
            for p in round_["pairings"]:
                if not p["bye"]:
                    api.result(round_["number"], p["table"], CLOSE_WIN)
        return api.id
    finally:
        ctx.close()


def test_the_bracket_is_drawn_as_a_bracket(
    new_page: Any, server_url: str, bracket_event: str
) -> None:
    """Issue 23, "the bracket drawn as a bracket": 8 players give quarter-finals, semi-finals
    and a final (3 columns of 4, 2 and 1 matches), 4 + 2 lines joining them, a winner marked
    in each of the 7 matches, and the champion named."""
    page = open_site_page(new_page, f"{server_url}/events/{bracket_event}", 1280, 800)
    page.wait_for_function("() => window.crokinoleEvent && window.crokinoleEvent.view()")
    svg = page.get_by_test_id("bracket-svg")
    svg.wait_for()
    columns = svg.get_by_test_id("bracket-round")
    assert columns.count() == 3
    assert [columns.nth(k).get_by_test_id("bracket-match").count() for k in range(3)] == [4, 2, 1]
    heads = svg.locator(".bracket-head").all_text_contents()
    assert heads == ["Quarter-final", "Semi-final", "Final"]
    assert svg.get_by_test_id("bracket-line").count() == 6
    assert svg.get_by_test_id("bracket-winner").count() == 7
    view = page.evaluate("() => window.crokinoleEvent.view()")
    final = view["bracket"]["rounds"][2]["matches"][0]
    champion = final["names"][final["sides"].index(final["winner"])]
    assert page.get_by_test_id("bracket-champion").inner_text() == f"Winner: {champion}."
    # The columns stand left to right, each match of a later round between the two it follows.
    xs = [
        columns.nth(k).get_by_test_id("bracket-match").first.bounding_box()["x"] for k in range(3)
    ]
    assert xs[0] < xs[1] < xs[2]
    qf = [b.bounding_box() for b in columns.nth(0).get_by_test_id("bracket-match").all()]
    sf = columns.nth(1).get_by_test_id("bracket-match").first.bounding_box()
    assert qf[0]["y"] < sf["y"] < qf[1]["y"] + qf[1]["height"]


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_no_sideways_scroll(
    new_page: Any,
    server_url: str,
    bracket_event: str,
    swiss_after_round_1: str,
    width: int,
    height: int,
) -> None:
    """The list, an event with its standings and one with its bracket fit the screen's width
    (a wide bracket scrolls inside its own box, the page does not)."""
    for path in ("/events", f"/events/{swiss_after_round_1}", f"/events/{bracket_event}"):
        page = open_site_page(new_page, f"{server_url}{path}", width, height)
        page.wait_for_function(
            "() => document.getElementById('main').getAttribute('aria-busy') === 'false'"
        )
        wide = page.evaluate("() => document.documentElement.scrollWidth")
        assert wide <= width, f"{path} at {width}x{height}: {wide} px wide"


@pytest.mark.parametrize(("width", "height"), [SIZES[0], SIZES[2]])
def test_axe_finds_no_broken_rule(
    new_page: Any,
    server_url: str,
    axe_source: str,
    bracket_event: str,
    width: int,
    height: int,
) -> None:
    page = open_site_page(new_page, f"{server_url}/events", width, height, reduced_motion="reduce")
    page.wait_for_function("() => window.crokinoleEvents && window.crokinoleEvents.ready")
    check(page, axe_source, f"events, {width}")
    page.get_by_test_id("ev-more-toggle").click()
    check(page, axe_source, f"events with more options, {width}")
    page.goto(f"{server_url}/events/{bracket_event}")
    page.wait_for_function("() => window.crokinoleEvent && window.crokinoleEvent.view()")
    check(page, axe_source, f"an event with its bracket, {width}")
    # The organiser's page: the controls and the result dialog.
    log_in(page, server_url, "evorg3")
    page.reload()
    page.wait_for_function(
        "() => window.crokinoleEvent && window.crokinoleEvent.viewer().organiser"
    )
    check(page, axe_source, f"the organiser's event page, {width}")
    page.locator("[data-testid^=correct-]").first.click()
    page.get_by_test_id("result-dialog").wait_for()
    check(page, axe_source, f"the result dialog, {width}")


def test_the_organiser_corrects_a_result_and_reads_refusals_in_plain_words(
    browser: Any, server_url: str
) -> None:
    """Issue 23: "correct a result (corrections re-rank at once and are logged)", "drop",
    "re-pair a round before it starts"; a destructive control asks first, and a refusal is the
    server's words next to the control that asked."""
    sign_up(server_url, "evorg4")
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    errors: list[str] = []
    try:
        page = ctx.new_page()
        page.route("**/*", live_csp)
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto(f"{server_url}/events")
        log_in(page, server_url, "evorg4")
        api = Organiser(page, server_url)
        api.create({"name": "Corrections night", "format": "swiss", "rounds": 3, **HALL})
        api.add(["Ann", "Bob", "Cy", "Dee"])
        api.pair_and_start()
        api.result(1, 1, CLOSE_WIN)
        api.result(1, 2, CLEAN_WIN)
        board1 = api.pairing(1, 1)
        winner, loser = board1["sides"][0][0], board1["sides"][1][0]
        page.goto(f"{server_url}/events/{api.id}")
        page.wait_for_function(
            "() => window.crokinoleEvent && window.crokinoleEvent.viewer().organiser"
        )

        # A username nobody has: the server says so under the form.
        page.get_by_test_id("add-name").fill("Zed")
        page.get_by_test_id("add-account").fill("nobody-has-this-name")
        page.get_by_test_id("add-button").click()
        refusal = page.get_by_test_id("add-error")
        refusal.wait_for()
        assert refusal.inner_text() and "answered" not in refusal.inner_text()

        # Correct board 1: the dialog holds the result as entered; a reason is needed.
        before = [r.get_attribute("data-testid") for r in page.locator("tbody tr").all()]
        assert before.index(f"standing-{winner}") < before.index(f"standing-{loser}")
        page.get_by_test_id("correct-1-1").click()
        dialog = page.get_by_test_id("result-dialog")
        rows = dialog.locator(".result-round:not(.result-head)")
        assert rows.nth(0).locator("[data-role=total-0]").input_value() == "35"
        for k, (a, b, c, d) in enumerate(CLOSE_WIN):  # the sheet had the sides swapped
            for role, value in (
                ("total-0", c),
                ("twenties-0", d),
                ("total-1", a),
                ("twenties-1", b),
            ):
                rows.nth(k).locator(f"[data-role={role}]").fill(str(value))
        dialog.get_by_test_id("result-save").click()
        assert "why" in dialog.get_by_test_id("result-error").inner_text()
        dialog.get_by_test_id("result-reason").fill("the sides were swapped on the sheet")
        dialog.get_by_test_id("result-save").click()
        dialog.wait_for(state="hidden")
        page.get_by_test_id("corrections").filter(has_text="swapped on the sheet").wait_for()
        assert "Round 1, board 1" in page.get_by_test_id("corrections").inner_text()
        page.get_by_test_id("pairing-score-1-1").filter(has_text="3–5").wait_for()
        after = [r.get_attribute("data-testid") for r in page.locator("tbody tr").all()]
        assert after.index(f"standing-{loser}") < after.index(f"standing-{winner}")  # re-ranked

        # Dropping asks first: Cancel keeps the player, Yes drops them.
        page.get_by_test_id(f"drop-{loser}").click()
        page.get_by_test_id("confirm-no").click()
        assert "dropped" not in page.get_by_test_id(f"entrant-{loser}").inner_text()
        page.get_by_test_id(f"drop-{loser}").click()
        page.get_by_test_id("confirm-yes").click()
        page.get_by_test_id(f"entrant-{loser}").filter(has_text="dropped").wait_for()

        # Round 2 paired, then paired again before it starts (after a yes).
        page.get_by_test_id("pair-next").click()
        page.get_by_test_id("round-2").wait_for()
        version = int(
            page.get_by_test_id("repair").evaluate("() => window.crokinoleEvent.view().version")
        )
        page.get_by_test_id("repair").click()
        page.get_by_test_id("confirm-yes").click()
        wait_version_above(page, version)
        assert page.get_by_test_id("start-round").inner_text() == "Start round 2"
        assert page.get_by_test_id("organiser-error").inner_text() == ""
        # The organiser's own change: two players swap boards before the start.
        paired = api.view()["rounds"][1]["pairings"]
        a, b = paired[0]["sides"][0][0], paired[0]["sides"][1][0]
        others = [e for p in paired[1:] for e in p["sides"][0] + p["sides"][1]]
        page.get_by_test_id("swap-a").select_option(a)
        page.get_by_test_id("swap-b").select_option(others[0])
        page.get_by_test_id("swap-button").click()
        page.wait_for_function(
            "(id) => window.crokinoleEvent.view().rounds[1].pairings[0].sides.flat().includes(id)",
            arg=others[0],
        )
        now = api.view()["rounds"][1]["pairings"]
        assert now[0]["sides"] == [[others[0]], [b]]
        assert a in [e for p in now[1:] for e in p["sides"][0] + p["sides"][1]]

        # Pause and resume; finish (after a yes): no more rounds, the standings stay.
        page.get_by_test_id("pause-event").click()
        page.get_by_test_id("event-status").filter(has_text="Paused").wait_for()
        page.get_by_test_id("pause-event").filter(has_text="Resume the event").click()
        page.get_by_test_id("pause-event").filter(has_text="Pause the event").wait_for()
        page.get_by_test_id("finish-event").click()
        page.get_by_test_id("confirm-yes").click()
        page.get_by_test_id("event-status").filter(has_text="Finished").wait_for()
        assert page.get_by_test_id("pair-next").is_hidden()
        assert page.get_by_test_id("standings-table").locator("tbody tr").count() == 4
    finally:
        ctx.close()
    # The refused add is a 4xx the browser logs as a failed resource: expected; nothing else.
    unexpected = [
        e for e in errors if not re.match(r"Failed to load resource: .* status of 4\d\d", e)
    ]
    assert unexpected == []


def test_fixed_teams_join_and_are_added_as_teams(new_page: Any, server_url: str) -> None:
    """Issue 23, "doubles of fixed teams": a team joins by the code with its two players'
    names, the organiser adds another; both are listed with their players and paired."""
    org = organiser(new_page, server_url, "evorg5")
    api = Organiser(org, server_url)
    api.create({"name": "Doubles night", "format": "swiss", "rounds": 1, "teams": "fixed", **HALL})
    code = api.view()["code"]
    phone = open_site_page(new_page, f"{server_url}/events/join/{code}", 360, 640)
    phone.wait_for_function("() => window.crokinoleEvent && window.crokinoleEvent.view()")
    phone.get_by_test_id("join-name").fill("Tigers")
    phone.get_by_test_id("join-member-1").fill("Ann")
    phone.get_by_test_id("join-button").click()
    assert (
        "two players" in phone.get_by_test_id("join-error").inner_text()
    )  # one name is not a team
    phone.get_by_test_id("join-member-2").fill("Bob")
    phone.get_by_test_id("join-button").click()
    phone.get_by_test_id("check-in").click()
    phone.get_by_test_id("me-words").filter(has_text="Tigers, checked in").wait_for()

    org.goto(f"{server_url}/events/{api.id}")
    org.wait_for_function("() => window.crokinoleEvent && window.crokinoleEvent.viewer().organiser")
    org.get_by_test_id("add-name").fill("Lions")
    org.get_by_test_id("add-member-1").fill("Cy")
    org.get_by_test_id("add-member-2").fill("Dee")
    org.get_by_test_id("add-button").click()
    org.locator(".entrant-name", has_text="Lions").wait_for()
    teams = org.get_by_test_id("entrants").locator(".entrant-name").all_inner_texts()
    assert teams == ["Tigers (Ann & Bob)", "Lions (Cy & Dee)"]
    lions = next(e["id"] for e in api.view()["entrants"] if e["name"] == "Lions")
    org.get_by_test_id(f"check-in-{lions}").click()
    org.get_by_test_id("pair-next").click()
    card = org.get_by_test_id("pairing-1-1")
    card.wait_for()
    assert sorted(card.locator(".pairing-name").all_inner_texts()) == ["Lions", "Tigers"]
    phone.get_by_test_id("pairing-1-1").wait_for(timeout=10_000)


def test_an_online_event_needs_an_account_to_join(new_page: Any, server_url: str) -> None:
    """Issue 23, "players may be accounts or, for a hall, names": a guest is told to log in
    and cannot join an online event; an account joins under its username and checks in."""
    org = organiser(new_page, server_url, "evorg6")
    api = Organiser(org, server_url)
    api.create({"name": "Online ladder night", "format": "swiss", "rounds": 2, "venue": "online"})
    code = api.view()["code"]
    guest = open_site_page(new_page, f"{server_url}/events/join/{code}", 360, 640)
    guest.wait_for_function("() => window.crokinoleEvent && window.crokinoleEvent.view()")
    assert guest.get_by_test_id("join-button").is_disabled()
    assert "log in" in guest.locator("#join-login").inner_text()
    sign_up(server_url, "onlineann")
    player = open_site_page(new_page, f"{server_url}/events", 360, 640)
    log_in(player, server_url, "onlineann")
    player.goto(f"{server_url}/events/join/{code}")
    player.wait_for_function("() => window.crokinoleEvent && window.crokinoleEvent.view()")
    assert player.get_by_test_id("join-name").input_value() == "onlineann"
    player.get_by_test_id("join-button").click()
    player.get_by_test_id("check-in").click()
    player.get_by_test_id("me-words").filter(has_text="checked in").wait_for()
    (entrant,) = api.view()["entrants"]
    assert entrant["online"] and entrant["name"] == "onlineann"
    # The players list says what "online" means here: an account that can play at an online
    # table, not a player connected now ("online" alone read as the latter).
    sync_api.expect(player.get_by_test_id(f"entrant-{entrant['id']}")).to_contain_text(
        "checked in, plays online"
    )


def test_a_bracket_with_byes_shows_them(new_page: Any, server_url: str) -> None:
    """Issue 23, "single elimination, seeded, with byes to a power of two": 6 players fill a
    bracket of 8; the top two seeds have byes, drawn as such, and go through marked."""
    org = organiser(new_page, server_url, "evorg7")
    api = Organiser(org, server_url)
    api.create({"name": "Six cup", "format": "elimination", **HALL})
    api.add(["Ann", "Bob", "Cy", "Dee", "Eve", "Fay"], [1600, 1500, 1400, 1300, 1200, 1100])
    api.pair_and_start()
    org.goto(f"{server_url}/events/{api.id}")
    svg = org.get_by_test_id("bracket-svg")
    svg.wait_for()
    byes = svg.locator(".bracket-match.bye")
    assert byes.count() == 2
    texts = sorted(" ".join(byes.nth(k).locator("text").all_text_contents()) for k in range(2))
    assert texts == ["✓ Ann bye", "✓ Bob bye"]  # the top seeds (by rating) through
    assert svg.get_by_test_id("bracket-round").count() == 3


@pytest.fixture
def roomy_server(tmp_path: Path) -> Iterator[str]:
    """A server of its own (this module's signs up more accounts than an address may an
    hour on one server)."""
    with serving(tmp_path / "crokinole.db", ServerSettings(warm_up=False)) as url:
        yield url


def test_bot_entrants_are_marked_bot_in_pairings_standings_and_bracket(
    new_page: Any, roomy_server: str
) -> None:
    """Issue 24, "a bot account (marked BOT everywhere)": two bot accounts the organiser adds
    to a 4-player elimination carry BOT on their pairing cards, standings rows and bracket
    boxes; the two people do not."""
    server_url = roomy_server
    org = organiser(new_page, server_url, "evorg9", 360, 640)
    for username in ("marvbot", "robobot"):
        sign_up(server_url, username)
        log_in(org, server_url, username)
        made = org.request.post(
            f"{server_url}/api/account/bot",
            data=json.dumps({"password": PASSWORD}),
            headers={"Content-Type": "application/json"},
        )
        assert made.ok and made.json()["bot"] is True, made.text()
    log_in(org, server_url, "evorg9")
    api = Organiser(org, server_url)
    api.create({"name": "Robot cup", "format": "elimination", "venue": "both"})
    for name, account, rating in (
        ("Ann", None, 1600), ("Marvin", "marvbot", 1500), ("Robo", "robobot", 1400),
        ("Dee", None, 1300),
    ):  # fmt: skip
        body: dict[str, Any] = {"name": name, "rating": rating}
        if account:
            body["account"] = account
        api.event("POST", "/entrants", body)
    for entrant in api.view()["entrants"]:
        api.event("POST", f"/entrants/{entrant['id']}/check-in", {})
    round_ = api.pair_and_start()
    for p in round_["pairings"]:
        api.result(1, p["table"], CLOSE_WIN)  # side 0 wins: Ann (1) and Marvin (2) go through
    org.goto(f"{server_url}/events/{api.id}")
    org.get_by_test_id("bracket-svg").wait_for()
    sides = org.locator("#rounds .pairing-side")
    sides.first.wait_for()
    marked = sorted(
        sides.nth(k).locator(".pairing-name").inner_text()
        for k in range(sides.count())
        if sides.nth(k).get_by_test_id("bot-mark").count() == 1
    )
    assert marked == ["Marvin", "Robo"]
    players = org.locator("#entrants .entrant")
    assert sorted(
        players.nth(k).locator(".entrant-name").inner_text().replace("BOT", "").strip()
        for k in range(players.count())
        if players.nth(k).get_by_test_id("bot-mark").count() == 1
    ) == ["Marvin", "Robo"]
    rows = org.locator("#standings tbody tr")
    with_mark = sorted(
        rows.nth(k).locator("th.name span").first.inner_text()
        for k in range(rows.count())
        if rows.nth(k).get_by_test_id("bot-mark").count() == 1
    )
    assert with_mark == ["Marvin", "Robo"]
    assert org.locator("#standings [data-testid=bot-mark]").first.inner_text() == "BOT"
    bracket = org.get_by_test_id("bracket-svg")
    boxed = sorted(
        t.text_content().replace("BOT", "").strip(" ✓")
        for t in bracket.locator("text").all()
        if t.locator("tspan.bracket-bot").count() == 1
    )
    assert boxed == ["Marvin", "Marvin", "Robo"]  # a semi-final, and the final Marvin reached
