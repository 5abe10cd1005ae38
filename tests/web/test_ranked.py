"""Ranked play in real Chromium: the leaderboard and profile pages, the queue, a ranked game.

* The pages are checked against the JSON of docs/protocol.md (*Ranked play*),
  answered by the test itself, at 360×640, 412×915 and 1280×800: the provisional
  marker, the minimum-games choice, the chart, W/D/L, the games' replay links, a
  missing player's message.
* The queue panel is checked with the server's ``queued`` messages answered by the test
  over the page's websocket: the wait is counted from the server's ``since`` and
  ``server_time`` (a server clock far from the page's), the window, Leave.
* End to end (on the real server with one-round ranked games): two players sign up, press
  Play ranked, are matched, play the game to its end, see their ratings change in the result,
  on both profiles and on the leaderboard, then open the replay and step through it.

Every page gets contract 4's policy; page errors and console errors fail the test (a 404 of
a missing player's JSON excepted).  Pictures go to artifacts/screenshots; with
CROKINOLE_DOCS_IMAGES=1 also docs/images/ranked-queue.png (docs/images/
leaderboard.png, profile.png and ranked-result.png are of a real server's real games, taken by
hand: the contract's made-up JSON is only in artifacts/screenshots).
* Doubles with a named partner (the queue panel, over the page's websocket as above): the
  partner field only for doubles, ``queue``'s ``partner``, "Waiting for bob to queue with
  you…" then "Queued with bob" from ``queued``'s ``partner_ready``, ``bad_partner``.
* Resigning a ranked game: Settings says it counts as a loss for the rating.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crokinole.server.limits import ServerSettings
from tests.support.server import serving
from tests.support.server_process import running_server
from tests.web.conftest import ARTIFACTS, GAME_SOCKET, REPO, inline_for_csp, with_csp
from tests.web.test_party import GAME_OVER as GAME_OVER_JS
from tests.web.test_party import play_to_the_end

pytestmark = pytest.mark.browser

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect

DOCS_IMAGES = REPO / "docs" / "images"
PHONE = {"width": 360, "height": 640}
TALL_PHONE = {"width": 412, "height": 915}
DESKTOP = {"width": 1280, "height": 800}
VIEWPORTS = [PHONE, TALL_PHONE, DESKTOP]
PASSWORD = "a long enough password"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db: Path = tmp_path_factory.mktemp("db") / "crokinole.db"
    with serving(db, ServerSettings(warm_up=False)) as url:
        yield url


@pytest.fixture
def device(browser: Any) -> Iterator[Any]:
    """Opens a fresh device (its own cookies); page and console errors fail the test."""
    contexts: list[Any] = []
    errors: list[str] = []

    def open_device(viewport: dict[str, int], answer: Any = with_csp) -> Any:
        ctx = browser.new_context(viewport=viewport, reduced_motion="reduce")
        ctx.set_default_timeout(20_000)
        ctx.route("**/*", answer)
        contexts.append(ctx)
        return ctx

    def new_page(ctx: Any) -> Any:
        page = ctx.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on(
            "console",
            lambda m: (
                errors.append(m.text)
                if m.type == "error" and not re.search(r"status of 404", m.text)
                else None
            ),
        )
        return page

    open_device.new_page = new_page  # type: ignore[attr-defined]
    yield open_device
    for ctx in contexts:
        ctx.close()
    assert errors == [], f"errors in the pages: {errors}"


def fits(page: Any) -> None:
    """Nothing sticks out sideways (no horizontal scrolling)."""
    assert page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 0


def shot(page: Any, name: str, *, full: bool = False) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name), full_page=full)


# ------------------------------------------------------------------ the pages, from the contract

TABLES = [f"{i:032x}" for i in range(1, 8)]
HISTORY = [
    ("win", 1031),
    ("win", 1058),
    ("loss", 1040),
    ("draw", 1046),
    ("win", 1071),
    ("loss", 1052),
    ("win", 1080),
]
LEADERBOARD = {
    "ladder": "singles",
    "min_games": 5,
    "players": [
        {"rank": 1, "username": "Bartholomew_Long", "rating": 1312, "provisional": False,
         "games": 48, "wins": 30, "draws": 6, "losses": 12},
        {"rank": 2, "username": "ann", "rating": 1080, "provisional": True,
         "games": 7, "wins": 4, "draws": 1, "losses": 2},
        {"rank": 3, "username": "bob-k", "rating": 1005, "provisional": True,
         "games": 5, "wins": 2, "draws": 0, "losses": 3},
    ],
}  # fmt: skip
PROFILE = {
    "username": "ann",
    "ladders": {
        "singles": {
            "rating": 1080, "provisional": True, "games": 7, "wins": 4, "draws": 1, "losses": 2,
            "history": [
                {"at": 1_714_000_000 + 86_400 * i, "rating": r, "table": TABLES[i],
                 "game_number": 1, "outcome": o}
                for i, (o, r) in enumerate(HISTORY)
            ],
        },
        "doubles": {"rating": 0, "provisional": True, "games": 0, "wins": 0, "draws": 0,
                    "losses": 0, "history": []},
    },
    "games": [
        {"table": TABLES[i], "ladder": "singles", "at": 1_714_000_000 + 86_400 * i,
         "outcome": o, "opponents": ["bob-k"], "partners": [],
         "before": HISTORY[i - 1][1] if i else 1000, "after": r}
        for i, (o, r) in reversed(list(enumerate(HISTORY)))
    ],
}  # fmt: skip


def contract_answers(asked: list[str]) -> Any:
    """A route handler answering the ladders' JSON as the contract shows it."""

    def answer(route: Any) -> None:
        url = route.request.url
        if "/api/leaderboard" in url:
            asked.append(url)
            q = dict(p.split("=") for p in url.split("?", 1)[1].split("&"))
            players = LEADERBOARD["players"] if q["ladder"] == "singles" else []
            body = {"ladder": q["ladder"], "min_games": int(q["min_games"]), "players": players}
            route.fulfill(json=body)
        elif "/api/players/nobody" in url:
            missing = {"code": "not_found", "message": "no player is called nobody"}
            route.fulfill(status=404, json=missing)
        elif "/api/players/" in url:
            route.fulfill(json=PROFILE)
        else:
            with_csp(route)

    return answer


def test_the_pages_have_nothing_the_policy_refuses() -> None:
    assert inline_for_csp("leaderboard.html") == []
    assert inline_for_csp("profile.html") == []


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=lambda v: f"{v['width']}x{v['height']}")
def test_leaderboard_and_profile_from_the_contracts_json(
    server: str, device: Any, viewport: dict[str, int]
) -> None:
    asked: list[str] = []
    ctx = device(viewport, contract_answers(asked))
    page = device.new_page(ctx)
    page.goto(f"{server}/leaderboard")
    rows = page.get_by_test_id("leader-row")
    expect(rows).to_have_count(3)
    expect(page.get_by_test_id("board-status")).to_have_text(
        "Singles: the top 3 players with at least 5 games."
    )
    expect(rows.nth(0)).to_contain_text("Bartholomew_Long")
    expect(rows.nth(0)).to_contain_text("30–6–12")
    expect(rows.nth(0).get_by_test_id("provisional")).to_have_count(0)
    expect(rows.nth(1).get_by_test_id("provisional")).to_have_text("prov.")
    fits(page)
    # The minimum-games choice asks the server again and is kept in the address.
    page.get_by_test_id("min-games").select_option("0")
    expect(page.get_by_test_id("board-status")).to_have_text("Singles: the top 3 players.")
    assert asked[-1].endswith("/api/leaderboard?ladder=singles&min_games=0")
    assert page.url.endswith("/leaderboard?ladder=singles&min_games=0")
    page.get_by_test_id("ladder-doubles").check()
    expect(page.get_by_test_id("board-status")).to_have_text("No doubles players yet.")
    page.goto(f"{server}/leaderboard?ladder=singles&min_games=10")
    expect(page.get_by_test_id("min-games")).to_have_value("10")
    expect(rows).to_have_count(3)
    if viewport == PHONE:
        shot(page, "leaderboard.png", full=True)

    # A player's profile: from the leaderboard's link.
    rows.nth(1).get_by_role("link", name="ann").click()
    expect(page).to_have_url(re.compile(r"/players/ann$"))
    expect(page.get_by_test_id("player-name")).to_have_text("ann")
    expect(page.get_by_test_id("rating-singles")).to_have_text("1080")
    expect(page.get_by_test_id("wdl-singles")).to_have_text("7 games: 4 won, 1 drawn, 2 lost")
    expect(page.get_by_test_id("ladder-doubles")).to_contain_text("No ranked doubles games yet.")
    chart = page.get_by_test_id("rating-chart")
    expect(chart).to_have_count(1)
    expect(chart.locator("circle")).to_have_count(7)
    assert "from 1031 to 1080" in (chart.get_attribute("aria-label") or "")
    # The chart's labels are drawn at the page's size: its box is as wide as the chart's units.
    box = chart.bounding_box()
    view_width = float((chart.get_attribute("viewBox") or "0 0 0 0").split()[2])
    assert box is not None and abs(box["width"] - view_width) <= 2
    games = page.get_by_test_id("game-item")
    expect(games).to_have_count(7)
    expect(games.nth(0)).to_contain_text("Won")
    expect(games.nth(0).get_by_test_id("game-change")).to_have_text("1052 → 1080 (+28)")
    expect(games.nth(0).get_by_test_id("game-replay")).to_have_attribute(
        "href", f"/replay/{TABLES[6]}"
    )
    expect(games.nth(6).get_by_test_id("game-change")).to_have_text("1000 → 1031 (+31)")
    fits(page)
    if viewport == PHONE:
        shot(page, "profile-phone.png", full=True)
    if viewport == DESKTOP:
        shot(page, "profile.png", full=True)
    page.goto(f"{server}/players/nobody")
    expect(page.get_by_test_id("profile-status")).to_have_text("No player is called nobody.")
    fits(page)


# ------------------------------------------------------------------ the queue panel


def sign_up(page: Any, server: str, username: str) -> None:
    """Sign up through the start screen's dialog (the page is on the start screen)."""
    page.get_by_test_id("signup-open").click()
    dialog = page.get_by_test_id("account-dialog")
    dialog.get_by_label("Username").fill(username)
    dialog.get_by_label("Password").fill(PASSWORD)
    page.get_by_test_id("account-submit").click()
    expect(page.get_by_test_id("account-name")).to_have_text(username)


def open_start(page: Any, server: str, query: str = "") -> None:
    page.goto(f"{server}/{query}")
    page.wait_for_function("() => window.crokinoleAccount && window.crokinoleAccount.ready")
    page.wait_for_function("() => window.crokinole && window.crokinole.connected")


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=lambda v: f"{v['width']}x{v['height']}")
def test_the_queue_counts_the_wait_by_the_servers_clock(
    server: str, device: Any, viewport: dict[str, int]
) -> None:
    sent: list[dict[str, Any]] = []

    def websocket(ws: Any) -> None:
        real = ws.connect_to_server()

        def from_page(text: str) -> None:
            msg = json.loads(text)
            if msg.get("type") == "queue":
                sent.append(msg)
                # The server's clock is nothing like the page's: only since/server_time count.
                ws.send(json.dumps({"type": "queued", "ladder": msg["ladder"], "since": 5000.0,
                                    "server_time": 5065.0, "rating": 1000, "provisional": True,
                                    "window": 70}))  # fmt: skip
            elif msg.get("type") == "leave_queue":
                sent.append(msg)
                ws.send(json.dumps({"type": "queue_left", "reason": "left"}))
            else:
                real.send(text)

        ws.on_message(from_page)

    ctx = device(viewport)
    ctx.route_web_socket(GAME_SOCKET, websocket)
    page = device.new_page(ctx)
    open_start(page, server)
    ranked = page.get_by_test_id("ranked")
    expect(ranked).to_contain_text("Log in to play ranked")
    expect(page.get_by_test_id("ranked-play")).to_be_hidden()
    sign_up(page, server, f"q{viewport['width']}")
    expect(page.get_by_test_id("my-profile-link")).to_have_attribute(
        "href", f"/players/q{viewport['width']}"
    )
    page.get_by_test_id("ranked-doubles").check()
    page.get_by_test_id("ranked-play").click()
    expect(page.get_by_test_id("ranked-queue-title")).to_have_text(
        "Looking for three players (doubles)…"
    )
    assert sent[-1] == {"type": "queue", "ladder": "doubles"}
    expect(page.get_by_test_id("ranked-wait")).to_have_text(re.compile(r"^Waiting 1:0[5-6]$"))
    page.wait_for_timeout(2100)
    expect(page.get_by_test_id("ranked-wait")).to_have_text(re.compile(r"^Waiting 1:0[7-8]$"))
    expect(page.get_by_test_id("ranked-window")).to_have_text(
        "Your rating 1000 (provisional) · looking for 930–1070 (±70); the range widens as you wait."
    )
    fits(page)
    if viewport == TALL_PHONE and os.environ.get("CROKINOLE_DOCS_IMAGES"):
        page.get_by_test_id("ranked").screenshot(path=str(DOCS_IMAGES / "ranked-queue.png"))
    shot(page, f"ranked-queue-{viewport['width']}.png")
    page.get_by_test_id("ranked-leave").click()
    assert sent[-1] == {"type": "leave_queue"}
    expect(page.get_by_test_id("ranked-status")).to_have_text("You left the queue.")
    expect(page.get_by_test_id("ranked-play")).to_be_visible()


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=lambda v: f"{v['width']}x{v['height']}")
def test_doubles_with_a_named_partner(server: str, device: Any, viewport: dict[str, int]) -> None:
    """The partner field (doubles only), the ``queue`` message's ``partner``, the waiting and
    ready lines from ``queued``'s ``partner``/``partner_ready``, and ``bad_partner`` refusals."""
    sent: list[dict[str, Any]] = []
    sockets: list[Any] = []
    me = f"p{viewport['width']}"

    def queued(ladder: str, partner: str | None, ready: bool) -> str:
        return json.dumps({"type": "queued", "table": None, "event": 0, "ladder": ladder,
                           "since": 5000.0, "server_time": 5010.0, "rating": 1000,
                           "provisional": True, "window": 50, "partner": partner,
                           "partner_ready": ready})  # fmt: skip

    def websocket(ws: Any) -> None:
        real = ws.connect_to_server()
        sockets.append(ws)

        def from_page(text: str) -> None:
            msg = json.loads(text)
            if msg.get("type") == "queue":
                sent.append(msg)
                if msg.get("partner") == "zed":
                    ws.send(json.dumps({"type": "error", "table": None, "code": "bad_partner",
                                        "message": "no player is called zed"}))  # fmt: skip
                else:
                    # The server spells the partner as the partner's account does.
                    partner = "Bob_P" if msg.get("partner") else None
                    ws.send(queued(msg["ladder"], partner, False))
            elif msg.get("type") == "leave_queue":
                sent.append(msg)
                ws.send(json.dumps({"type": "queue_left", "reason": "left"}))
            else:
                real.send(text)

        ws.on_message(from_page)

    ctx = device(viewport)
    ctx.route_web_socket(GAME_SOCKET, websocket)
    page = device.new_page(ctx)
    open_start(page, server)
    sign_up(page, server, me)
    field = page.get_by_test_id("ranked-partner-field")
    partner_input = page.get_by_label("Partner (username)")
    # Singles: no partner field.
    expect(page.get_by_test_id("ranked-singles")).to_be_checked()
    expect(field).to_be_hidden()
    page.get_by_test_id("ranked-doubles").check()
    expect(field).to_be_visible()
    expect(field).to_contain_text(
        "Leave empty to be paired with others; your partner names you too."
    )
    page.get_by_test_id("ranked-singles").check()
    expect(field).to_be_hidden()
    page.get_by_test_id("ranked-doubles").check()
    partner_input.fill("  Bob_p ")
    fits(page)
    shot(page, f"ranked-partner-field-{viewport['width']}.png")

    # Queued with a partner who has not named this player yet: waiting for them.
    page.get_by_test_id("ranked-play").click()
    expect(page.get_by_test_id("ranked-partner")).to_have_text(
        "Waiting for Bob_P to queue with you…"
    )
    assert sent[-1] == {"type": "queue", "ladder": "doubles", "partner": "Bob_p"}
    expect(page.get_by_test_id("ranked-queue-title")).to_have_text("Doubles with a partner")
    expect(page.get_by_test_id("ranked-wait")).to_have_text(re.compile(r"^Waiting 0:1\d$"))
    fits(page)
    shot(page, f"ranked-partner-waiting-{viewport['width']}.png")
    # The partner queues naming this player: the server's next `queued` says so.
    sockets[-1].send(queued("doubles", "Bob_P", True))
    expect(page.get_by_test_id("ranked-partner")).to_have_text("Queued with Bob_P")
    expect(page.get_by_test_id("ranked-queue-title")).to_have_text(
        "Looking for two opponents (doubles)…"
    )
    fits(page)
    shot(page, f"ranked-partner-ready-{viewport['width']}.png")
    page.get_by_test_id("ranked-leave").click()
    assert sent[-1] == {"type": "leave_queue"}
    expect(page.get_by_test_id("ranked-play")).to_be_visible()
    expect(partner_input).to_have_value("  Bob_p ")  # kept for another try

    # The page's own check: yourself (any case) is not sent.
    asked = len(sent)
    partner_input.fill(me.upper())
    page.get_by_test_id("ranked-play").click()
    expect(page.get_by_test_id("ranked-status")).to_have_text("You cannot be your own partner.")
    assert len(sent) == asked
    # The server's refusal (bad_partner) shows in the panel, like the other ranked errors.
    partner_input.fill("zed")
    page.get_by_test_id("ranked-play").click()
    expect(page.get_by_test_id("ranked-status")).to_have_text("no player is called zed")
    expect(page.get_by_test_id("ranked-status")).to_have_class(re.compile(r"status-bad"))
    assert sent[-1] == {"type": "queue", "ladder": "doubles", "partner": "zed"}
    expect(page.get_by_test_id("ranked-play")).to_be_visible()
    expect(page.get_by_test_id("ranked-queue")).to_be_hidden()
    fits(page)
    shot(page, f"ranked-partner-refused-{viewport['width']}.png", full=True)

    # Doubles with the field empty, and singles (with a name still typed): no partner at all.
    partner_input.fill("   ")
    page.get_by_test_id("ranked-play").click()
    assert sent[-1] == {"type": "queue", "ladder": "doubles"}
    expect(page.get_by_test_id("ranked-queue-title")).to_have_text(
        "Looking for three players (doubles)…"
    )
    expect(page.get_by_test_id("ranked-partner")).to_be_hidden()
    page.get_by_test_id("ranked-leave").click()
    partner_input.fill("Bob_p")
    page.get_by_test_id("ranked-singles").check()
    page.get_by_test_id("ranked-play").click()
    assert sent[-1] == {"type": "queue", "ladder": "singles"}
    expect(page.get_by_test_id("ranked-queue-title")).to_have_text(
        "Looking for an opponent (singles)…"
    )
    expect(page.get_by_test_id("ranked-partner")).to_be_hidden()
    page.get_by_test_id("ranked-leave").click()


def test_a_guest_is_told_to_log_in(server: str, device: Any) -> None:
    page = device.new_page(device(PHONE))
    open_start(page, server)
    expect(page.get_by_test_id("ranked")).to_contain_text("Log in to play ranked")
    expect(page.get_by_test_id("leaderboard-link")).to_have_attribute("href", "/leaderboard")
    expect(page.get_by_test_id("my-profile-link")).to_be_hidden()
    fits(page)


# ------------------------------------------------------------------ a ranked game, end to end

REPLAY_LOADED = "() => { const r = window.crokinoleReplay; return !!r && !!r.game(); }"
REPLAY_STILL = "() => { const r = window.crokinoleReplay; return !r.animating && !r.playing; }"


@pytest.fixture(scope="module")
def ranked_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``crokinole serve --test-ranked-rounds 1``: ranked games of one round."""
    db: Path = tmp_path_factory.mktemp("db") / "crokinole.db"
    with running_server(db, "--test-ranked-rounds", "1") as url:
        yield str(url)


def rating_rows(page: Any) -> dict[str, tuple[int, int]]:
    """The result's ratings: {username: (before, after)}."""
    rows = page.get_by_test_id("rating-change")
    out: dict[str, tuple[int, int]] = {}
    for i in range(rows.count()):
        text = rows.nth(i).inner_text()
        m = re.search(r"^(\S+)\s+(\d+) → (\d+)", text)
        assert m, text
        out[m.group(1)] = (int(m.group(2)), int(m.group(3)))
    return out


def test_two_players_queue_are_matched_play_and_see_their_ratings(
    ranked_server: str, device: Any
) -> None:
    server = ranked_server
    stamp = str(int(time.time()) % 100000)
    names = [f"ann{stamp}", f"bob{stamp}"]
    pages = []
    for name, viewport in zip(names, (PHONE, DESKTOP), strict=True):
        page = device.new_page(device(viewport))
        open_start(page, server, "?cpu_pause=0")
        sign_up(page, server, name)
        pages.append(page)
    ann, bob = pages
    ann.get_by_test_id("ranked-play").click()
    expect(ann.get_by_test_id("ranked-queue-title")).to_have_text(
        "Looking for an opponent (singles)…"
    )
    expect(ann.get_by_test_id("ranked-wait")).to_have_text(re.compile(r"^Waiting 0:0\d$"))
    expect(ann.get_by_test_id("ranked-window")).to_contain_text("(provisional)")
    bob.get_by_test_id("ranked-play").click()
    for page in pages:
        page.wait_for_function("() => window.crokinole.screen === 'game'")
        expect(page.locator("#round-label")).to_have_text("Ranked · Round 1 of 1")
        for seat in ("south", "north"):
            expect(page.get_by_test_id(f"seat-rating-{seat}")).to_have_text(re.compile(r"^\d+$"))
        expect(page.get_by_test_id("provisional").first).to_be_visible()
        assert page.evaluate("() => window.crokinole.view.settings.turn_time") == 30
    table = ann.evaluate("() => window.crokinole.table")
    assert bob.evaluate("() => window.crokinole.table") == table
    shot(ann, "ranked-game-360.png")
    shot(bob, "ranked-game-1280.png")
    fits(ann)

    play_to_the_end(pages)
    changes = {}
    for page in pages:
        expect(page.get_by_test_id("rating-change")).to_have_count(2)
        expect(page.get_by_test_id("rematch-button")).to_be_hidden()
        expect(page.get_by_test_id("new-game-button")).to_have_text("Back to the start")
        changes = rating_rows(page)
        assert set(changes) == set(names)
    shot(ann, "ranked-result-360.png")
    shot(bob, "ranked-result-1280.png")
    fits(ann)
    fits(bob)
    # Reloading the page after the end shows the result again, not a dead board.
    for page in pages:
        page.reload()
        page.wait_for_function("() => window.crokinole && window.crokinole.connected")
        page.wait_for_timeout(1000)
        page.wait_for_function(GAME_OVER_JS)
        expect(page.get_by_test_id("rating-change")).to_have_count(2)
    shot(ann, "ranked-result-reloaded-360.png")
    outcome = ann.evaluate("() => window.crokinole.state.outcome")
    befores = {n: b for n, (b, _) in changes.items()}
    afters = {n: a for n, (_, a) in changes.items()}
    if outcome and outcome.get("winner") is not None:
        ann_side = ann.evaluate(
            "() => { const c = window.crokinole;"
            " return c.state.seats.find((x) => x.seat === c.you[0]).side; }"
        )
        winner = names[0] if outcome["winner"] == ann_side else names[1]
        loser = names[1] if winner == names[0] else names[0]
        assert afters[winner] > befores[winner]
        assert afters[loser] < befores[loser]

    # Both profiles and the leaderboard (min games 0) say the same ratings.
    for name in names:
        ann.goto(f"{server}/players/{name}")
        expect(ann.get_by_test_id("rating-singles")).to_have_text(str(afters[name]))
        expect(ann.get_by_test_id("wdl-singles")).to_contain_text("1 game:")
        expect(ann.get_by_test_id("game-item")).to_have_count(1)
        expect(ann.get_by_test_id("game-change")).to_have_text(
            re.compile(rf"^{befores[name]} → {afters[name]} ")
        )
        expect(ann.get_by_test_id("rating-chart").locator("circle")).to_have_count(1)
        fits(ann)
    bob.goto(f"{server}/leaderboard?ladder=singles&min_games=0")
    for name in names:
        row = bob.get_by_test_id("leader-row").filter(has_text=name)
        expect(row.get_by_test_id("leader-rating")).to_have_text(str(afters[name]))
        expect(row.get_by_test_id("provisional")).to_be_visible()
    expect(bob.locator("tr.me")).to_contain_text(names[1])
    shot(bob, "ranked-leaderboard-1280.png")

    # The game's replay, from the profile: step forward and back.
    ann.get_by_test_id("game-replay").click()
    expect(ann).to_have_url(re.compile(rf"/replay/{table}"))
    ann.wait_for_function(REPLAY_LOADED)
    ann.get_by_test_id("step-forward").click()
    ann.wait_for_function(REPLAY_STILL)
    assert ann.evaluate("() => window.crokinoleReplay.pos") == 1
    ann.get_by_test_id("step-forward").click()
    ann.wait_for_function(REPLAY_STILL)
    ann.get_by_test_id("step-back").click()
    ann.wait_for_function(REPLAY_STILL)
    assert ann.evaluate("() => window.crokinoleReplay.pos") == 1


def test_resigning_a_ranked_game_says_it_costs_rating(ranked_server: str, device: Any) -> None:
    """Settings at a ranked game in play: Resign is the one way out, and its question says
    that leaving a ranked game counts as a loss for the rating (not "It ends without a
    winner", as at a game on one device); the other player sees that a player left."""
    server = ranked_server
    stamp = str(int(time.time()) % 100000)
    names = [f"rex{stamp}", f"sue{stamp}"]
    pages = []
    for name, viewport in zip(names, (TALL_PHONE, DESKTOP), strict=True):
        page = device.new_page(device(viewport))
        open_start(page, server, "?cpu_pause=0")
        sign_up(page, server, name)
        pages.append(page)
    rex, sue = pages
    rex.get_by_test_id("ranked-play").click()
    expect(rex.get_by_test_id("ranked-queue-title")).to_be_visible()
    sue.get_by_test_id("ranked-play").click()
    for page in pages:
        page.wait_for_function("() => window.crokinole.screen === 'game'")
    rex.locator("#settings-button").click()
    expect(rex.locator("#settings-new")).to_be_hidden()
    # One player per device and no CPU opponent: no CPU pause, no turning the board.
    expect(rex.locator("#cpu-pause-field")).to_be_hidden()
    expect(rex.locator("#turn-board-field")).to_be_hidden()
    expect(rex.locator("#settings-dialog")).to_contain_text("Sound")
    shot(rex, "ranked-settings-412.png")
    resign = rex.locator("#settings-resign")
    expect(resign).to_have_text("Resign")
    resign.click()
    question = rex.locator("#settings-confirm p")
    expect(question).to_have_text(
        "Resign this ranked game? Leaving a ranked game counts as a loss for your rating."
    )
    expect(resign).to_have_text("Yes, resign")
    resign.click()
    for page in pages:
        page.wait_for_function(GAME_OVER_JS)
        expect(page.get_by_test_id("rating-change")).to_have_count(2)
    expect(sue.get_by_test_id("game-ratings")).to_contain_text("A player left")
    changes = rating_rows(sue)
    assert changes[names[0]][1] < changes[names[0]][0]
    assert changes[names[1]][1] > changes[names[1]][0]


def test_a_resigned_ranked_game_tells_each_player_their_result_and_names_both(
    ranked_server: str, device: Any
) -> None:
    """Rex resigns a ranked game: Sue reads "Your opponent left: you win", Rex "You resigned:
    a loss", and both final scores still name Rex (the server names his emptied seat "South").
    Reloading the page after the end shows the result again, not a dead board."""
    server = ranked_server
    stamp = str(int(time.time()) % 100000)
    names = [f"rey{stamp}", f"sal{stamp}"]
    pages = []
    for name, viewport in zip(names, (PHONE, DESKTOP), strict=True):
        page = device.new_page(device(viewport))
        open_start(page, server, "?cpu_pause=0")
        sign_up(page, server, name)
        pages.append(page)
    rey, sal = pages
    rey.get_by_test_id("ranked-play").click()
    expect(rey.get_by_test_id("ranked-queue-title")).to_be_visible()
    sal.get_by_test_id("ranked-play").click()
    for page in pages:
        page.wait_for_function("() => window.crokinole.screen === 'game'")
    rey.locator("#settings-button").click()
    rey.locator("#settings-resign").click()
    rey.locator("#settings-resign").click()
    titles = {rey: "You resigned: a loss", sal: "Your opponent left: you win"}
    for page in pages:
        page.wait_for_function(GAME_OVER_JS)
        expect(page.get_by_test_id("rating-change")).to_have_count(2)
        expect(page.locator("#game-title")).to_have_text(titles[page])
        score = page.locator("#game-body .result-line")
        for name in names:
            expect(score).to_contain_text(name)
        expect(score).not_to_contain_text("South")
        expect(score).not_to_contain_text("North")
    shot(rey, "ranked-resigned-360.png")
    shot(sal, "ranked-opponent-left-1280.png")
    fits(rey)
    for page in pages:
        page.reload()
        page.wait_for_function("() => window.crokinole && window.crokinole.connected")
        page.wait_for_timeout(1000)
        page.wait_for_function(GAME_OVER_JS)
        expect(page.locator("#game-title")).to_have_text(titles[page])
        expect(page.get_by_test_id("rating-change")).to_have_count(2)
        expect(page.locator("#game-body .result-line")).to_contain_text(names[0])
    shot(rey, "ranked-resigned-reloaded-360.png")
    shot(sal, "ranked-opponent-left-reloaded-1280.png")
