"""Hints and the aim heat map in play, in real Chromium against the real server (issue 13).

* A solo game (hints on by default): Hint draws three numbered aim lines, each from its
  hint's placement along its direction (R3), checked against the board's geometry worked out
  here, not against pixels; the labels read "1 · +12 pts · 64% round"; "Aim like this" sets
  the aim; the lines go with the shot; holding H shows them, letting go hides them; the game's
  result says how many hints were used, and the replay viewer links to the game's review.
* The heat map: its fan of cells starts at the placed disc, its legend and the direction ×
  power chart show; another metric is asked for and its scale follows; "mine" without drills
  is refused in plain words; a moved placement gets a new map; the chart aims where tapped.
* A ranked game offers no hint, and a hint forced onto the socket is refused in plain words.
* A party: only the host has the "Allow hints" switch; everyone reads the rule; once allowed,
  the player to shoot gets hints in the game.

Each check runs at 360×640, 412×915 and 1280×800 where the layout matters: nothing overlaps,
nothing sticks out sideways.  Pictures go to artifacts/screenshots; with
CROKINOLE_DOCS_IMAGES=1 also docs/images/hint.png and docs/images/heatmap.png.
"""

from __future__ import annotations

import json
import math
import os
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.web.conftest import (
    ARTIFACTS,
    GAME_SOCKET,
    REPO,
    inline_for_csp,
    open_more_options,
    with_csp,
)
from tests.web.test_party import create_party, join_by_code, sit
from tests.web.test_ranked import open_start, sign_up

pytestmark = pytest.mark.browser

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect

DOCS_IMAGES = REPO / "docs" / "images"
PHONE = {"width": 360, "height": 640}
TALL_PHONE = {"width": 412, "height": 915}
DESKTOP = {"width": 1280, "height": 800}
VIEWPORTS = [PHONE, TALL_PHONE, DESKTOP]
SIZE_ID = lambda v: f"{v['width']}x{v['height']}"  # noqa: E731
MY_TURN = "() => { const c = window.crokinole; return !!c && c.canShoot; }"
LINES = "() => window.crokinole.hints.lines.length"
LABEL = re.compile(
    r"^([123]) · (a sure 20|likely a 20 \(\d+%\)|takes out (their disc|\d+ of their discs)"
    r"|stops in the (15|10|5)|(\+\d+|−\d+|0) expected)$"
)
SENTENCE = re.compile(
    r"^(Best|Second|Third): (place (the middle|\d+° (left|right)), aim )?"
    r"(straight|\d+° (left|right)), \d{1,3}% power — .+ \((\d{1,3})% to win the round\)$"
)


@pytest.fixture
def device(browser: Any) -> Iterator[Any]:
    """Open a fresh device (context) with contract 4's policy; page and console errors fail."""
    contexts: list[Any] = []
    errors: list[str] = []

    def open_device(viewport: dict[str, int] = DESKTOP, ws: Any = None) -> Any:
        ctx = browser.new_context(viewport=viewport, reduced_motion="reduce")
        ctx.set_default_timeout(30_000)
        ctx.route("**/*", with_csp)
        if ws is not None:
            ctx.route_web_socket(GAME_SOCKET, ws)
        contexts.append(ctx)
        return watched(ctx.new_page())

    def watched(page: Any) -> Any:
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        return page

    # Another page of the same device (a link opened in a new tab).
    open_device.tab = lambda page: watched(page.context.new_page())  # type: ignore[attr-defined]
    yield open_device
    for ctx in contexts:
        ctx.close()
    assert errors == [], f"errors in the pages: {errors}"


def shot(page: Any, name: str, docs: str | None = None) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name))
    if docs is not None and os.environ.get("CROKINOLE_DOCS_IMAGES"):
        DOCS_IMAGES.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(DOCS_IMAGES / docs))


def hints(page: Any) -> dict[str, Any]:
    result: dict[str, Any] = page.evaluate("() => window.crokinole.hints")
    return result


def game(page: Any) -> dict[str, Any]:
    result: dict[str, Any] = page.evaluate("() => window.crokinole.state")
    return result


def start_solo(page: Any, url: str) -> None:
    page.goto(f"{url}/?cpu_pause=0")
    page.wait_for_function("() => window.crokinole && window.crokinole.connected")
    open_more_options(page)
    page.get_by_test_id("mode-cpu").check()
    page.wait_for_function("() => window.crokinole.levels.length > 0")
    page.get_by_test_id("opponent-select").select_option("easy")
    page.get_by_test_id("start-button").click()
    page.wait_for_function(MY_TURN)


def to_page(page: Any, x: float, y: float) -> tuple[float, float]:
    p = page.evaluate("([x, y]) => window.crokinole.toPage(x, y)", [x, y])
    return float(p["x"]), float(p["y"])


SEAT_ANGLE = {"south": 270.0, "west": 180.0, "north": 90.0, "east": 0.0}


def placed_at(board: dict[str, Any], position: float, seat: str = "south") -> tuple[float, float]:
    """R3: the disc's centre on the seat's part of the shooting line, ``position`` degrees."""
    r = board["shooting_line_radius"]
    a = math.radians(SEAT_ANGLE[seat] + position)
    return r * math.cos(a), r * math.sin(a)


def heading(board: dict[str, Any], position: float, direction: float, seat: str = "south") -> float:
    """R3: the launch's heading (radians, board axes): at the centre, turned ``direction``
    degrees to the shooter's right."""
    x, y = placed_at(board, position, seat)
    return math.atan2(-y, -x) - math.radians(direction)


def lines_follow_the_hints(page: Any, seat: str) -> None:
    """Each drawn line starts at its hint's placement and runs along its direction (R3),
    whichever seat is at the bottom of the screen."""
    h = hints(page)
    board = game(page)["board"]
    for hint, line in zip(h["hints"], h["lines"], strict=True):
        shot_ = hint["shot"]
        start = to_page(page, *placed_at(board, shot_["position"], seat))
        assert math.dist(start, line["from"]) < 1.0, (start, line["from"])
        # It ends where the disc stops played exactly (the server's stop).
        stop = to_page(page, hint["stop"]["x"], hint["stop"]["y"])
        assert math.dist(stop, line["to"]) < 1.0, (stop, line["to"])
        if len(hint["stop"]["path"]) > 2:
            continue  # bent by a contact: its end is not along the aim
        # The page's y runs down; the board's turned with the viewer's seat at the bottom.
        ahead = placed_at(board, shot_["position"], seat)
        a = heading(board, shot_["position"], shot_["direction"], seat)
        far = to_page(page, ahead[0] + math.cos(a), ahead[1] + math.sin(a))
        want = math.atan2(far[1] - start[1], far[0] - start[0])
        drawn = math.atan2(line["to"][1] - line["from"][1], line["to"][0] - line["from"][0])
        turn = (drawn - want + math.pi) % (2 * math.pi) - math.pi
        assert abs(math.degrees(turn)) < 0.5, (shot_, math.degrees(turn))


OVERLAPS = """() => {
  const sel = ['[data-testid=board-canvas]', '.scoreboard', '#message', '#controls', '#aids',
               '.shot-log', '#hint-list', '#heat-legend'];
  const shown = sel.map((s) => [s, document.querySelector(s)])
    .filter(([, e]) => e && !e.hidden && e.getClientRects().length);
  const bad = [];
  for (let i = 0; i < shown.length; i++) {
    for (let j = i + 1; j < shown.length; j++) {
      const [a, ea] = shown[i];
      const [b, eb] = shown[j];
      if (ea.contains(eb) || eb.contains(ea)) continue;
      const p = ea.getBoundingClientRect();
      const q = eb.getBoundingClientRect();
      const apart = p.right <= q.left + 0.5 || q.right <= p.left + 0.5
        || p.bottom <= q.top + 0.5 || q.bottom <= p.top + 0.5;
      if (!apart) bad.push(`${a} over ${b}`);
    }
  }
  const wide = document.documentElement.scrollWidth - window.innerWidth;
  if (wide > 0) bad.push(`the page is ${wide}px too wide`);
  for (const e of document.querySelectorAll('#aids *, #heat-chart-box *')) {
    if (!e.getClientRects().length || ['CANVAS', 'SELECT', 'OPTION'].includes(e.tagName)) continue;
    const name = e.id || e.className || e.tagName;
    const clipped = getComputedStyle(e).overflowX !== 'visible';
    if (clipped && e.scrollWidth > e.clientWidth + 1) bad.push(`${name} overflows`);
    if (e.getBoundingClientRect().right > window.innerWidth + 0.5) bad.push(`${name} sticks out`);
  }
  return bad;
}"""


def open_fine_aim(page: Any) -> None:
    """Open the "Fine aim" drawer where it is folded (phones), as a player does to type an aim."""
    if page.get_by_test_id("fine-aim").get_attribute("open") is None:
        page.get_by_test_id("fine-aim-toggle").click()


def no_overlap(page: Any) -> None:
    """The game screen's parts do not overlap, none sticks out sideways, no text overflows."""
    found = page.evaluate(OVERLAPS)
    assert found == [], found


def labels_apart(lines: list[dict[str, Any]]) -> None:
    """The lines' labels do not cover one another."""
    boxes = [ln["box"] for ln in lines]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            apart = (
                a["x"] + a["width"] <= b["x"] + 0.5
                or b["x"] + b["width"] <= a["x"] + 0.5
                or a["y"] + a["height"] <= b["y"] + 0.5
                or b["y"] + b["height"] <= a["y"] + 0.5
            )
            assert apart, (a, b)


def whose_turn(pages: list[Any]) -> int:
    """The index of the page that may shoot, once one may."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        for i, p in enumerate(pages):
            if p.evaluate(MY_TURN):
                return i
        pages[0].wait_for_timeout(100)
    pytest.fail("nobody may shoot")


def test_the_page_has_nothing_the_policy_refuses() -> None:
    assert inline_for_csp("index.html") == []
    assert inline_for_csp("replay.html") == []


# ------------------------------------------------------------------ hints in a solo game


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=SIZE_ID)
def test_a_hint_draws_three_numbered_aim_lines_from_the_hints_placements(
    server_url: str, device: Any, viewport: dict[str, int]
) -> None:
    page = device(viewport)
    start_solo(page, server_url)
    expect(page.get_by_test_id("aids")).to_be_visible()
    button = page.get_by_test_id("hint-button")
    expect(button).to_have_text("Hint")
    assert page.get_by_test_id("board-canvas").get_attribute("data-hint-lines") == "0"
    button.click()
    page.wait_for_function(f"{LINES} === 3")
    h = hints(page)
    board = game(page)["board"]
    scale = abs(to_page(page, 1.0, 0.0)[0] - to_page(page, 0.0, 0.0)[0])  # pixels per inch
    assert [ln["rank"] for ln in h["lines"]] == [1, 2, 3]
    assert len({ln["colour"] for ln in h["lines"]}) == 3
    for hint, line in zip(h["hints"], h["lines"], strict=True):
        m = LABEL.match(line["label"])
        assert m, line["label"]
        assert int(m.group(1)) == hint["rank"]
        assert 0.0 <= hint["round_win"] <= 1.0
        # It ends where the disc stops: at the edge of the playing surface only for the ditch.
        cx, cy = to_page(page, 0.0, 0.0)
        reach = math.dist(line["to"], (cx, cy)) / scale
        if hint["stop"]["status"] == "in_ditch":
            assert reach == pytest.approx(board["surface_radius"], abs=0.1)
        else:
            assert reach < board["surface_radius"] - board["disc_radius"]
        if hint["twenty"] >= 0.95:
            assert m.group(2) == "a sure 20"
    lines_follow_the_hints(page, "south")
    labels_apart(h["lines"])
    if not game(page)["discs"]:
        # An open board: the best shot is an open 20, its line through the hole (R6).
        first = h["lines"][0]
        cx, cy = to_page(page, 0.0, 0.0)
        (x1, y1), (x2, y2) = first["from"], first["to"]
        cross = (x2 - x1) * (y1 - cy) - (x1 - cx) * (y2 - y1)
        miss = abs(cross) / math.dist(first["from"], first["to"]) / scale
        assert miss < board["hole_radius"], miss
    # The same hints in words beside the board.
    items = page.get_by_test_id("hint-item")
    expect(items).to_have_count(3)
    for i in range(3):
        said = items.nth(i).locator(".hint-say").inner_text()
        m = SENTENCE.match(said)
        assert m, said
        assert int(m.group(7)) == round(h["hints"][i]["round_win"] * 100)
        # The board's words are the list's: "1 · a sure 20" by "Best: … — a sure 20 (…)".
        assert h["lines"][i]["label"].split(" · ", 1)[1] in said
        # The exact figures stay one look away (the item's title).
        title = items.nth(i).get_attribute("title") or ""
        assert f"round {round(h['hints'][i]['round_win'] * 100)}%" in title
    expect(button).to_have_text("Hide hints")
    expect(button).to_have_attribute("aria-pressed", "true")
    no_overlap(page)
    shot(page, f"hint-{SIZE_ID(viewport)}.png")

    # "Aim like this": the first hint's shot becomes the aim.
    page.get_by_test_id("hint-use-1").click()
    aim = page.evaluate("() => window.crokinole.aim")
    best = h["hints"][0]["shot"]
    assert aim["position"] == pytest.approx(best["position"], abs=0.01)
    assert aim["direction"] == pytest.approx(best["direction"], abs=0.01)
    assert aim["power"] == pytest.approx(best["power"], abs=0.05)
    expect(page.get_by_test_id("message-area")).to_have_text(
        "Aimed like hint 1: press Shoot to play it."
    )
    assert page.evaluate("() => window.crokinole.view.hints_used") == {"south": 1}
    # The lines are for this shot only: they go when it is played.
    page.get_by_test_id("shoot-button").click()
    page.wait_for_function(f"{LINES} === 0")
    expect(page.get_by_test_id("hint-list")).to_be_hidden()
    assert page.get_by_test_id("board-canvas").get_attribute("data-hint-lines") == "0"

    # Next turn: holding H shows the best shots, letting go hides them.
    page.wait_for_function(MY_TURN)
    page.locator("#board").focus()
    page.keyboard.down("h")
    page.wait_for_function(f"{LINES} === 3")
    assert hints(page)["shown"] is True
    page.keyboard.up("h")
    page.wait_for_function(f"{LINES} === 0")
    page.wait_for_function("() => window.crokinole.view.hints_used.south === 2")

    # The result counts them; the replay of the game links to its review.
    table = page.evaluate("() => window.crokinole.table")
    page.get_by_test_id("settings-button").click()
    page.get_by_test_id("settings-resign").click()
    page.get_by_test_id("settings-resign").click()
    result = page.get_by_test_id("game-result")
    expect(result).to_be_visible()
    expect(page.get_by_test_id("hints-used")).to_have_text("You used 2 hints.")
    expect(page.get_by_test_id("review-link")).to_have_attribute("href", f"/review/{table}?game=1")
    no_overlap(page)
    page = device.tab(page)  # as the result's replay link opens it: a new tab
    page.goto(f"{server_url}/replay/{table}")
    link = page.get_by_test_id("review-link")
    expect(link).to_be_visible()
    expect(link).to_have_text("Review this game")
    expect(link).to_have_attribute("href", f"/review/{table}?game=1")
    assert page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 0


# ------------------------------------------------------------------ the heat map


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=SIZE_ID)
def test_the_heat_map_draws_its_fan_from_the_placement_with_a_legend(
    server_url: str, device: Any, viewport: dict[str, int]
) -> None:
    page = device(viewport)
    start_solo(page, server_url)
    open_fine_aim(page)  # folded on a phone
    page.get_by_test_id("position-input").fill("0")
    page.get_by_test_id("heat-button").click()
    page.wait_for_function("() => !!window.crokinole.hints.heatDrawn")
    h = hints(page)
    heat, drawn = h["heat"], h["heatDrawn"]
    # "My hand" at a solo table is the steady hand (R2, against the CPU): the answer names it.
    assert heat["metric"] == "points" and heat["accuracy"] == "steady" and heat["position"] == 0
    assert heat["rows"] >= 8 and heat["columns"] >= 8
    # Every cell of the grid is drawn, as a fan from the placed disc.
    assert drawn["cells"] == heat["rows"] * heat["columns"]
    disc = page.evaluate("() => window.crokinole.placedDisc")
    assert math.dist(drawn["origin"], (disc["x"], disc["y"])) < 1.0
    assert page.get_by_test_id("board-canvas").get_attribute("data-heat-cells") == str(
        drawn["cells"]
    )
    legend = page.get_by_test_id("heat-legend")
    expect(legend).to_be_visible()
    expect(legend).to_contain_text(
        "Expected points after the shot, with the steady hand, from 0.0°"
    )
    ticks = [page.locator(f"#heat-{k}").inner_text() for k in ("lo", "mid", "hi")]
    values = [int(t.replace("−", "-").removesuffix(" pts")) for t in ticks]
    assert all(re.fullmatch(r"([+−]\d+|0) pts", t) for t in ticks), ticks
    assert values[0] <= values[1] <= values[2], ticks
    expect(page.get_by_test_id("heat-chart-box")).to_be_visible()
    expect(page.get_by_test_id("heat-button")).to_have_attribute("aria-pressed", "true")
    no_overlap(page)
    shot(page, f"heatmap-{SIZE_ID(viewport)}.png")

    # Another metric: a chance, on a 0 to 100% scale.
    page.get_by_test_id("heat-metric").select_option("twenty")
    page.wait_for_function("() => (window.crokinole.hints.heat || {}).metric === 'twenty'")
    expect(page.locator("#heat-lo")).to_have_text("0%")
    expect(page.locator("#heat-hi")).to_have_text("100%")
    expect(legend).to_contain_text("Chance of a 20")

    # The chart aims where it is tapped: its middle is the middle direction and power.
    chart = page.get_by_test_id("heat-chart")
    chart.scroll_into_view_if_needed()
    box = chart.bounding_box()
    assert box is not None
    chart.click(position={"x": box["width"] / 2, "y": box["height"] / 2})
    aim = page.evaluate("() => window.crokinole.aim")
    assert aim["power"] == pytest.approx(50, abs=3)
    assert abs(aim["direction"]) < 3

    # A new placement gets its own map (after the disc rests there a moment).
    page.get_by_test_id("position-input").fill("10")
    page.wait_for_function("() => (window.crokinole.hints.heat || {}).position === 10")
    disc = page.evaluate("() => window.crokinole.placedDisc")
    page.wait_for_function(
        "([x, y]) => { const d = window.crokinole.hints.heatDrawn;"
        " return !!d && Math.hypot(d.origin[0] - x, d.origin[1] - y) < 1; }",
        arg=[disc["x"], disc["y"]],
    )

    # "Mine" without drills played: refused in plain words, the map put away.
    page.get_by_test_id("heat-accuracy").select_option("mine")
    message = page.get_by_test_id("message-area")
    expect(message).to_have_text(
        re.compile(r"^[A-Z].*drill.*\. Until then, choose another accuracy\.$")
    )
    expect(message).to_have_class(re.compile(r"\bbad\b"))
    page.wait_for_function("() => !window.crokinole.hints.heatDrawn")
    assert page.get_by_test_id("board-canvas").get_attribute("data-heat-cells") == "0"
    expect(page.get_by_test_id("heat-legend")).to_be_hidden()
    no_overlap(page)

    # Another accuracy, a CPU level's, is drawn at once; the map goes with the shot.
    page.get_by_test_id("heat-accuracy").select_option("hard")
    page.wait_for_function("() => (window.crokinole.hints.heat || {}).accuracy === 'hard'")
    page.get_by_test_id("shoot-button").click()
    page.wait_for_function("() => !window.crokinole.hints.heatDrawn")
    expect(page.get_by_test_id("heat-button")).to_have_attribute("aria-pressed", "false")


def test_a_second_request_while_one_is_worked_out_is_busy_in_plain_words(
    server_url: str, device: Any
) -> None:
    """The server works out one hint or heat map at a time per connection: a second one on its
    way (sent here twice onto the socket) is refused ``busy``, told in plain words, and the
    first one's map still comes and is drawn.

    The request doubled is the Expert-hand map (32 noise draws a cell, a tenth of a second or
    more): the steady hand's single-draw map can be done before its copy is read."""
    doubled: list[str] = []

    def websocket(ws: Any) -> None:
        real = ws.connect_to_server()

        def from_page(text: str) -> None:
            real.send(text)
            sent = json.loads(text)
            if sent.get("type") == "heatmap" and sent.get("accuracy") == "expert" and not doubled:
                doubled.append(text)
                real.send(text)

        ws.on_message(from_page)

    page = device(PHONE, ws=websocket)
    start_solo(page, server_url)
    # The refusal is on screen only until the first map comes (a fraction of a second), too
    # briefly for polling to be sure to see it: every text the message area shows is recorded.
    page.evaluate(
        "() => { const m = document.querySelector('[data-testid=message-area]');"
        " window.__said = [];"
        " new MutationObserver(() => window.__said.push(m.textContent))"
        ".observe(m, {childList: true, characterData: true, subtree: true}); }"
    )
    page.get_by_test_id("heat-button").click()
    page.wait_for_function("() => !!window.crokinole.hints.heatDrawn")
    page.get_by_test_id("heat-accuracy").select_option("expert")
    busy = "The server is still working on your last request: wait a moment and ask again."
    page.wait_for_function("(busy) => window.__said.includes(busy)", arg=busy)
    page.wait_for_function(
        "() => { const h = window.crokinole.hints;"
        " return (h.heat || {}).accuracy === 'expert' && !!h.heatDrawn; }"
    )
    message = page.get_by_test_id("message-area")
    expect(message).to_have_text("")
    assert doubled, "the page sent no heat map"
    # The refused one is not counted (the server's rule): one heat map, one hint used.
    page.wait_for_function("() => window.crokinole.view.hints_used.south >= 1")
    assert page.evaluate("() => window.crokinole.view.hints_used") == {"south": 1}
    no_overlap(page)


def test_the_readme_pictures_of_a_hint_and_a_heat_map(server_url: str, device: Any) -> None:
    """A turn with discs on the board, at 1280×800: the hints, then the heat map."""
    page = device(DESKTOP)
    start_solo(page, server_url)
    page.get_by_test_id("position-input").fill("0")
    page.get_by_test_id("direction-input").fill("6")
    page.get_by_test_id("power-input").fill("30")
    page.get_by_test_id("shoot-button").click()
    page.wait_for_function(MY_TURN)
    page.get_by_test_id("hint-button").click()
    page.wait_for_function(f"{LINES} === 3")
    labels_apart(hints(page)["lines"])
    no_overlap(page)
    shot(page, "hint-readme.png", docs="hint.png")
    page.get_by_test_id("hint-button").click()
    page.wait_for_function(f"{LINES} === 0")
    page.get_by_test_id("heat-button").click()
    page.wait_for_function("() => !!window.crokinole.hints.heatDrawn")
    # Under a CPU's hand the map is smooth: each cell averages many noisy shots.
    page.get_by_test_id("heat-accuracy").select_option("hard")
    page.wait_for_function("() => (window.crokinole.hints.heat || {}).accuracy === 'hard'")
    no_overlap(page)
    shot(page, "heatmap-readme.png", docs="heatmap.png")


# ------------------------------------------------------------------ ranked: never


def test_a_ranked_game_has_no_hint_and_a_forced_one_is_refused_plainly(
    server_url: str, device: Any
) -> None:
    sockets: dict[str, Any] = {}
    sent: list[dict[str, Any]] = []

    def websocket(name: str) -> Any:
        def route(ws: Any) -> None:
            real = ws.connect_to_server()
            sockets[name] = real

            def from_page(text: str) -> None:
                sent.append({"by": name, **json.loads(text)})
                real.send(text)

            ws.on_message(from_page)

        return route

    stamp = str(int(time.time() * 1000) % 10_000_000)
    names = [f"hr{stamp}", f"hs{stamp}"]
    pages = []
    for name, viewport in zip(names, (PHONE, DESKTOP), strict=True):
        page = device(viewport, ws=websocket(name))
        open_start(page, server_url, "?cpu_pause=0")
        sign_up(page, server_url, name)
        pages.append(page)
    for page in pages:
        page.get_by_test_id("ranked-play").click()
    for page in pages:
        page.wait_for_function("() => window.crokinole.screen === 'game'")
        page.wait_for_function(
            "() => window.crokinole.state && window.crokinole.state.phase === 'playing'"
        )
    for page in pages:
        assert page.evaluate("() => window.crokinole.view.settings.hints") is False
        expect(page.get_by_test_id("aids")).to_be_hidden()
        expect(page.get_by_test_id("hint-button")).to_be_hidden()
    mover = whose_turn(pages)
    page = pages[mover]
    # Holding H asks for nothing.
    page.locator("#board").focus()
    page.keyboard.down("h")
    page.wait_for_timeout(300)
    page.keyboard.up("h")
    assert not [m for m in sent if m["type"] in ("hint", "heatmap")], sent
    # A hint forced onto the socket is refused, in words a player reads.
    table = page.evaluate("() => window.crokinole.table")
    seat = page.evaluate("() => window.crokinole.you[0]")
    sockets[names[mover]].send(json.dumps({"type": "hint", "table": table, "seat": seat}))
    message = page.get_by_test_id("message-area")
    expect(message).to_have_text("Hints are off: ranked games never allow them.")
    expect(message).to_have_class(re.compile(r"\bbad\b"))
    assert page.evaluate("() => window.crokinole.view.hints_used") in ({}, {seat: 0})
    shot(page, "hint-refused-ranked.png")


# ------------------------------------------------------------------ a party: the host decides


def test_the_party_host_allows_hints_and_everyone_sees_the_rule(
    server_url: str, device: Any
) -> None:
    ann = device(TALL_PHONE)
    bob = device(PHONE)
    code = create_party(ann, server_url, "singles", "Ann", query="?cpu_pause=0")
    join_by_code(bob, server_url, code, "Bob")
    sit(bob, "north")
    rules = [p.get_by_test_id("lobby-rules") for p in (ann, bob)]
    toggle = ann.get_by_test_id("hints-toggle")
    expect(toggle).to_be_visible()
    expect(toggle).not_to_be_checked()
    expect(bob.get_by_test_id("hints-toggle")).to_be_hidden()  # only the host decides
    for r in rules:
        expect(r).to_contain_text("No hints")
    shot(ann, "hints-lobby-off-412.png")
    toggle.check()
    for r in rules:
        expect(r).to_contain_text("Hints allowed: each player may ask for the best shots")
    for p in (ann, bob):
        p.wait_for_function("() => window.crokinole.view.settings.hints === true")
    expect(toggle).to_be_checked()
    # The rules dialog keeps the host's choice when other rules change.
    ann.get_by_test_id("rules-button").click()
    ann.get_by_test_id("rules-apply").click()
    ann.wait_for_timeout(300)
    assert ann.evaluate("() => window.crokinole.view.settings.hints") is True
    shot(ann, "hints-lobby-on-412.png")
    for p in (ann, bob):
        no_sideways = p.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
        assert no_sideways <= 0

    ann.get_by_test_id("party-start-button").click()
    for p in (ann, bob):
        p.wait_for_function("() => window.crokinole.screen === 'game'")
        expect(p.get_by_test_id("aids")).to_be_visible()
    mover = (ann, bob)[whose_turn([ann, bob])]
    other = bob if mover is ann else ann
    expect(other.get_by_test_id("hint-button")).to_be_disabled()
    expect(other.get_by_test_id("aid-status")).to_have_text(
        "Hints and the heat map are for your turn."
    )
    mover.get_by_test_id("hint-button").click()
    mover.wait_for_function(f"{LINES} === 3")
    seat = mover.evaluate("() => window.crokinole.you[0]")
    lines_follow_the_hints(mover, seat)  # Bob sees the board from north
    no_overlap(mover)
    no_overlap(other)
    for p in (ann, bob):
        p.wait_for_function(f"() => window.crokinole.view.hints_used['{seat}'] === 1")
