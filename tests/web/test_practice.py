"""The practice room (/practice) in Debian's Chromium against the real server.

Discs are set up by tapping the board (only where a disc may lie, R5),
dragged and removed; shots are played from the south line with play's
controls and the position after each is the rules engine's own
(``practice_shot`` run here, in the test); Undo steps back, "Retry last
shot" restores the position and the exact placement, aim and power of the
last shot; hints and the heat map come from /api/analysis/*; "Share" gives
a /practice?p=CODE link whose code is the server's ``position_code``.
The codes the browser makes (static/lib/position.js) are checked against the
server's in node. Each page is checked at a phone, a tall phone and a
desktop size: nothing overflows or overlaps. Pictures go to the artifacts;
with CROKINOLE_DOCS_IMAGES=1 also docs/images/practice.png.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import urllib.request
from typing import Any

import pytest

from crokinole.analysis.practice import (
    PracticePosition,
    position_code,
    position_data,
    position_from_code,
    practice_shot,
)
from crokinole.board import TOURNAMENT_BOARD, Shot
from tests.web.conftest import ARTIFACTS, REPO, STATIC, inline_for_csp, open_more_options, with_csp
from tests.web.test_browser import new_page

__all__ = ["new_page"]  # the fixture, shared with the live client's tests

pytestmark = pytest.mark.browser

sync_api = pytest.importorskip("playwright.sync_api")

SIZES = {"phone": (360, 640), "phone-tall": (412, 915), "desktop": (1280, 800)}
IMAGES = REPO / "docs" / "images"
IDLE = (
    "() => { const p = window.crokinolePractice; return !!p && !p.animating"
    " && !document.getElementById('controls').disabled; }"
)

#: Their disc beyond the hole, mine in the 10 on my side: a position to shoot from.
START = PracticePosition((("n", 0.0, 3.0), ("s", -2.5, -5.0)))

# Whether the page lays out well: no sideways scrolling, the board whole and on screen from the
# top, no text wider than its button or heading, the board and the side column apart, and the
# side column's boxes one under another (none over the next).
LAYOUT = """(sel) => {
  const vw = document.documentElement.clientWidth;
  const out = {vw, vh: window.innerHeight, scrollWidth: document.documentElement.scrollWidth,
               overflowing: [], overlapping: [], board: null, apart: true};
  const shown = (e) => e.offsetParent !== null && e.getClientRects().length > 0;
  const name = (e) => (e.id || e.textContent).trim().slice(0, 40);
  const texts = 'button, select, h1, h2, h3, h4, label, .attempt-line, .grade';
  for (const e of document.querySelectorAll(texts)) {
    if (!shown(e) || e.closest('.sr-only')) continue; // a screen reader's heading has no width
    const r = e.getBoundingClientRect();
    if (e.scrollWidth > e.clientWidth + 1) out.overflowing.push(name(e));
    if (r.left < -0.5 || r.right > vw + 0.5) out.overflowing.push('off screen: ' + name(e));
  }
  const apart = (a, b) => a.right <= b.left + 0.5 || b.right <= a.left + 0.5
    || a.bottom <= b.top + 0.5 || b.bottom <= a.top + 0.5;
  const canvas = document.querySelector(sel.board);
  if (canvas && shown(canvas)) {
    const c = canvas.getBoundingClientRect();
    out.board = [c.left, c.top + window.scrollY, c.right, c.bottom + window.scrollY];
    const side = document.querySelector(sel.side);
    if (side && shown(side)) out.apart = apart(c, side.getBoundingClientRect());
  }
  for (const box of document.querySelectorAll(sel.columns)) {
    if (!shown(box)) continue;
    const kids = Array.from(box.children).filter(shown).map((e) => [e, e.getBoundingClientRect()]);
    for (let i = 1; i < kids.length; i += 1) {
      const [a, ra] = kids[i - 1];
      const [b, rb] = kids[i];
      if (ra.height > 0 && rb.height > 0 && !apart(ra, rb)) {
        out.overlapping.push([a.id || a.className, b.id || b.className]);
      }
    }
  }
  return out;
}"""

BOARD_PAGE = {
    "board": "#board",
    "side": "#side",
    "columns": "#side, .editor, .analysis-box, .tool-row",
}


def picture(page: Any, name: str, docs: bool = False) -> None:
    """A screenshot in the artifacts (`docs`: also docs/images with CROKINOLE_DOCS_IMAGES=1)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))
    if docs and os.environ.get("CROKINOLE_DOCS_IMAGES"):
        IMAGES.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(IMAGES / f"{name}.png"))


def check_layout(page: Any, selectors: dict[str, str] = BOARD_PAGE) -> None:
    """Nothing overflows or overlaps; the board is whole and inside the screen's width."""
    page.evaluate("() => window.scrollTo(0, 0)")
    f = page.evaluate(LAYOUT, selectors)
    assert f["scrollWidth"] <= f["vw"], f
    assert f["overflowing"] == [], f
    assert f["overlapping"] == [], f
    assert f["apart"], f
    if f["board"] is not None:
        left, top, right, bottom = f["board"]
        assert left >= -0.5 and right <= f["vw"] + 0.5 and top >= 0, f
        assert bottom <= f["vh"] + 0.5, f  # the whole board is on screen without scrolling


def open_practice(page: Any, url: str, query: str = "") -> None:
    page.route("**/*", with_csp)  # contract 4's policy on every answer
    page.goto(f"{url}/practice{query}")
    page.wait_for_function("() => !!window.crokinolePractice")


def position(page: Any) -> dict[str, Any]:
    result: dict[str, Any] = page.evaluate("() => window.crokinolePractice.position()")
    return result


def at(page: Any, x: float, y: float) -> tuple[float, float]:
    p = page.evaluate("([x, y]) => window.crokinolePractice.toPage(x, y)", [x, y])
    return p["x"], p["y"]


def tap(page: Any, x: float, y: float) -> None:
    page.mouse.click(*at(page, x, y))


def drag(page: Any, start: tuple[float, float], end: tuple[float, float]) -> None:
    x0, y0 = at(page, *start)
    x1, y1 = at(page, *end)
    page.mouse.move(x0, y0)
    page.mouse.down()
    page.mouse.move((x0 + x1) / 2, (y0 + y1) / 2, steps=4)
    page.mouse.move(x1, y1, steps=6)
    page.mouse.up()


def message(page: Any) -> str:
    return str(page.get_by_test_id("message-area").inner_text())


def set_aim(page: Any, shot: Shot) -> None:
    for name, value in (
        ("position", shot.position),
        ("direction", shot.direction),
        ("power", shot.power),
    ):
        page.get_by_test_id(f"{name}-input").fill(str(value))


def aim(page: Any) -> Shot:
    a = page.evaluate("() => window.crokinolePractice.aim()")
    return Shot(a["position"], a["direction"], a["power"])


def shoot(page: Any, shot: Shot | None = None) -> None:
    """Shoot (aimed as ``shot``, or as the page is aimed) and wait until it has been shown."""
    page.wait_for_function(IDLE)
    if shot is not None:
        set_aim(page, shot)
    shots = int(page.evaluate("() => window.crokinolePractice.shots"))
    page.get_by_test_id("shoot-button").click()
    page.wait_for_function(f"() => window.crokinolePractice.shots > {shots}", timeout=30_000)
    page.wait_for_function(IDLE, timeout=30_000)


def discs_near(found: dict[str, Any], expected: list[tuple[str, float, float]], tol: float) -> bool:
    got = sorted(found["discs"])
    want = sorted(expected)
    return len(got) == len(want) and all(
        g[0] == w[0] and abs(g[1] - w[1]) <= tol and abs(g[2] - w[2]) <= tol
        for g, w in zip(got, want, strict=True)
    )


def signed(n: int) -> str:
    """An integer as the page writes it: "+5", "−5" (a real minus sign), "0"."""
    return f"+{n}" if n > 0 else (f"−{-n}" if n < 0 else "0")


def post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    req = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(req, timeout=60) as answer:
        result: dict[str, Any] = json.loads(answer.read())
    return result


# ------------------------------------------------------------------ codes, in node


def test_the_page_has_nothing_the_policy_refuses() -> None:
    assert inline_for_csp("practice.html") == []


def test_the_browser_makes_and_reads_the_servers_position_codes() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the code check runs static/lib/position.js in node")
    positions = [
        PracticePosition(),
        START,
        PracticePosition((("s", 0.38, -0.65),)),
        PracticePosition(
            (("n", -6.86, -6.88), ("n", 7.62, -1.91), ("s", -2.82, 2.17), ("s", 1.51, 9.06))
        ),
        PracticePosition((("n", 1.0, 2.5), ("s", -3.25, -7.0)), seat="north"),
    ]
    data = [position_data(p) for p in positions]
    module = json.dumps((STATIC / "lib" / "position.js").as_uri())
    script = (
        f"import {{ positionCode, positionFromCode, southView }} from {module};\n"
        "const data = JSON.parse(process.argv[1]);\n"
        "const codes = JSON.parse(process.argv[2]);\n"
        "const damaged = () => {\n"
        "  try { positionFromCode('eyJ2Ijox'); return null; } catch (e) { return e.message; }\n"
        "};\n"
        "console.log(JSON.stringify({\n"
        "  made: data.map((d) => positionCode(d)),\n"
        "  read: codes.map((c) => positionFromCode(c)),\n"
        "  turned: codes.map((c) => southView(positionFromCode(c))),\n"
        "  damaged: damaged(),\n"
        "}));"
    )
    codes = [position_code(p) for p in positions]
    out = subprocess.run(
        [node, "--input-type=module", "-e", script, json.dumps(data), json.dumps(codes)],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    result = json.loads(out.stdout)
    # The same codes, both ways: a link made by either side opens on the other.
    assert result["made"] == codes
    for pos, read in zip(positions, result["read"], strict=True):
        assert position_from_code(position_code(pos)) == pos
        assert read == {"seat": pos.seat, "discs": [list(d) for d in position_data(pos)["discs"]]}
    # A position where north shoots is turned half a turn for the practice room (south shoots):
    # the shooter's discs become "s", every point (x, y) becomes (-x, -y); the board is the same.
    turned = result["turned"][-1]
    assert turned == {"seat": "south", "discs": [["s", -1, -2.5], ["n", 3.25, 7]]}
    north = positions[-1]
    assert (
        practice_shot(north, Shot(0.0, 0.0, 30.0)).points
        == practice_shot(
            PracticePosition((("s", -1.0, -2.5), ("n", 3.25, 7.0))), Shot(0.0, 0.0, 30.0)
        ).points
    )
    assert result["damaged"].startswith("This position link is damaged")


# ------------------------------------------------------------------ the board editor


def test_discs_are_placed_moved_and_removed_only_where_they_may_lie(
    new_page: Any, server_url: str
) -> None:
    page = new_page()
    open_practice(page, server_url)
    assert page.evaluate("() => window.crokinolePractice.mode()") == "edit"
    assert position(page)["discs"] == []

    tap(page, 0.0, -6.0)  # a disc of mine (the default) in the 10 on my side
    page.get_by_test_id("place-theirs").check()
    tap(page, 0.0, 3.0)  # theirs beyond the hole
    assert discs_near(position(page), [("s", 0.0, -6.0), ("n", 0.0, 3.0)], 0.1)
    sync_api.expect(page.get_by_test_id("disc-count")).to_have_text(
        "On the board: 1 of yours, 1 of theirs."
    )

    # R5: over the hole it would drop; touching the shooting line it is out; and no disc may
    # overlap another disc or a peg. Each is refused in words, and nothing changes.
    peg = TOURNAMENT_BOARD.pegs[0]
    for (x, y), words in (
        ((0.0, 0.2), "20 hole"),
        ((0.0, 11.6), "shooting line"),
        ((peg.x, peg.y), "peg"),
        ((0.0, -7.0), "overlap another disc"),
    ):
        before = position(page)
        tap(page, x, y)
        assert words in message(page), (x, y, message(page))
        assert page.get_by_test_id("message-area").get_attribute("class") == "message bad"
        assert position(page) == before

    # Drag theirs to the left of the hole; a drag onto the hole is refused and it stays.
    drag(page, (0.0, 3.0), (-3.0, 5.0))
    assert discs_near(position(page), [("s", 0.0, -6.0), ("n", -3.0, 5.0)], 0.1)
    drag(page, (-3.0, 5.0), (0.0, 0.0))
    assert "20 hole" in message(page)
    assert discs_near(position(page), [("s", 0.0, -6.0), ("n", -3.0, 5.0)], 0.1)

    # A tap on a disc removes it; Undo puts it back.
    tap(page, 0.0, -6.0)
    assert discs_near(position(page), [("n", -3.0, 5.0)], 0.1)
    page.get_by_test_id("undo-button").click()
    assert discs_near(position(page), [("s", 0.0, -6.0), ("n", -3.0, 5.0)], 0.1)

    # The position is what the server accepts: its code is the server's.
    shown = position(page)
    pos = PracticePosition(tuple(tuple(d) for d in shown["discs"]))
    assert page.evaluate("() => window.crokinolePractice.code()") == position_code(pos)


def test_discs_are_placed_by_numbers_from_the_keyboard(new_page: Any, server_url: str) -> None:
    """The editor's form places a disc of the chosen side by its distance from the centre and
    a clock direction seen from the shooter (12 the far side, 3 the right), with the keyboard
    only; a spot R5 refuses and an empty field are refused in words, nothing placed."""
    page = new_page(viewport={"width": 360, "height": 640}, is_mobile=True, has_touch=True)
    open_practice(page, server_url)
    page.get_by_test_id("place-distance").fill("6")
    page.get_by_test_id("place-clock").fill("6")
    page.get_by_test_id("place-clock").press("Enter")  # yours (the default), 6 in. your side
    page.get_by_test_id("place-theirs").check()
    page.get_by_test_id("place-distance").fill("7")
    page.get_by_test_id("place-clock").fill("3")
    page.get_by_test_id("place-submit").focus()
    page.keyboard.press("Enter")  # theirs, 7 in. to the right: within the 10 circle (8 in.)
    assert position(page)["discs"] == [["s", 0, -6], ["n", 7, 0]]
    assert message(page) == "Their disc placed in the 10 zone, east of the centre."

    before = position(page)
    page.get_by_test_id("place-distance").fill("0.3")
    page.get_by_test_id("place-clock").press("Enter")
    assert "20 hole" in message(page)
    page.get_by_test_id("place-distance").fill("")
    page.get_by_test_id("place-clock").press("Enter")
    assert message(page) == "Give the distance from the centre in inches, from 0 to 12."
    assert position(page) == before
    check_layout(page)


# ------------------------------------------------------------------ shooting, undo, retry


def test_shots_undo_and_retry_are_the_rules_engines(new_page: Any, server_url: str) -> None:
    page = new_page(reduced_motion="no-preference")
    open_practice(page, server_url, f"?p={position_code(START)}")
    assert page.evaluate("() => window.crokinolePractice.mode()") == "shoot"
    assert position(page) == position_data(START)

    first = Shot(0.0, 0.0, 35.0)
    shoot(page, first)
    expected = practice_shot(START, first)
    after_first = expected.position_after
    assert position(page) == position_data(after_first)
    result = page.get_by_test_id("shot-result").inner_text()
    # The shot disc dropped before it touched theirs: a foul (R4), worded as play words it, and
    # the round margin before and after it (R6) as the rules engine counts them.
    assert not expected.valid and expected.foul == "no_contact"
    assert result.startswith("Foul: no opposing disc was touched")
    gain = expected.margin_after - expected.margin_before
    margins = f"{signed(expected.margin_before)} → {signed(expected.margin_after)} ({signed(gain)}"
    assert f"Your round margin: {margins} points)." in result

    second = Shot(10.0, -5.0, 40.0)
    shoot(page, second)
    after_second = practice_shot(after_first, second).position_after
    assert position(page) == position_data(after_second)

    # Retry: the position before the last shot, and its placement, aim and power exactly.
    page.get_by_test_id("retry-button").click()
    assert position(page) == position_data(after_first)
    assert aim(page) == second
    assert "same placement" in message(page)
    # Shooting it again does the same (the steady hand, deterministic physics).
    shoot(page)
    assert position(page) == position_data(after_second)

    # Undo steps back: the retried shot, the retry, the second shot, the first.
    page.get_by_test_id("undo-button").click()
    assert position(page) == position_data(after_first)
    page.get_by_test_id("undo-button").click()
    assert position(page) == position_data(after_second)
    page.get_by_test_id("undo-button").click()
    assert position(page) == position_data(after_first)
    assert aim(page) == second  # the undone shot's aim comes back with its position
    page.get_by_test_id("undo-button").click()
    assert position(page) == position_data(START)
    sync_api.expect(page.get_by_test_id("undo-button")).to_be_disabled()


def test_a_shared_link_opens_the_same_position(new_page: Any, server_url: str) -> None:
    page = new_page()
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    open_practice(page, server_url)
    tap(page, 2.0, -6.0)
    page.get_by_test_id("place-theirs").check()
    tap(page, -1.5, 2.5)
    page.get_by_test_id("share-button").click()
    sync_api.expect(page.get_by_test_id("share-button")).to_have_text("Link copied")
    link = page.evaluate("() => navigator.clipboard.readText()")
    assert link == page.evaluate("() => location.href")
    code = link.split("/practice?p=", 1)[1]
    shown = position(page)
    assert position_data(position_from_code(code)) == shown

    other = new_page()
    other.goto(link)
    other.wait_for_function("() => !!window.crokinolePractice")
    assert position(other) == shown
    assert other.evaluate("() => window.crokinolePractice.mode()") == "shoot"


def test_a_damaged_link_says_so(new_page: Any, server_url: str) -> None:
    page = new_page()
    open_practice(page, server_url, "?p=eyJ2Ijox")
    assert message(page).startswith("This position link is damaged")
    assert position(page)["discs"] == []


# ------------------------------------------------------------------ hints and the heat map


def test_hints_and_the_heat_map(new_page: Any, server_url: str) -> None:
    page = new_page()
    open_practice(page, server_url, f"?p={position_code(START)}")
    page.get_by_test_id("hint-button").click()
    items = page.locator("#hint-list .hint-item")
    sync_api.expect(page.get_by_test_id("hint-list")).to_be_visible(timeout=30_000)
    answer = post(
        f"{server_url}/api/analysis/hints", {"position": position_data(START), "accuracy": "steady"}
    )
    hints = answer["hints"]
    assert len(hints) == 3
    assert items.count() == 3
    # The three aim lines are on the board, numbered, each from its hint's placement
    # (drawn at the next animation frame, which a busy machine may hold a while).
    page.wait_for_function(
        "() => (window.crokinolePractice.overlay().hints || []).length > 0", timeout=30_000
    )
    drawn = page.evaluate("() => window.crokinolePractice.overlay().hints")
    assert [h["rank"] for h in drawn] == [1, 2, 3]
    # Each ends where its disc stops played exactly (the answer's stop): a ghost disc there on
    # the board or in the hole, the board's edge for the ditch; its path has the stop's corners.
    for hint, line in zip(hints, drawn, strict=True):
        assert line["stop"]["status"] == hint["stop"]["status"]
        assert len(line["path"]) == len(hint["stop"]["path"])
    # "Aim like this" aims as the hint says.
    page.get_by_test_id("hint-use-1").click()
    best = hints[0]["shot"]
    assert aim(page) == Shot(best["position"], best["direction"], best["power"])

    page.get_by_test_id("heatmap-button").click()
    sync_api.expect(page.get_by_test_id("heat-legend")).to_be_visible(timeout=60_000)
    # The map is drawn at the next animation frame, which a busy machine may hold a while.
    page.wait_for_function("() => window.crokinolePractice.overlay().heat != null", timeout=30_000)
    heat = page.evaluate("() => window.crokinolePractice.overlay().heat")
    assert heat is not None and heat["rows"] == 64
    assert "Expected round margin" in page.get_by_test_id("heat-legend").inner_text()
    sync_api.expect(page.get_by_test_id("heatmap-button")).to_have_attribute("aria-pressed", "true")
    # The legend names the hand it assumed, as the select names it (views/hints.js's words):
    # the steady hand first, then CPU Master's once chosen (once "cpu master hand").
    sync_api.expect(page.get_by_test_id("heat-legend")).to_contain_text("the steady hand")
    page.get_by_test_id("accuracy-select").select_option("master")
    sync_api.expect(page.get_by_test_id("heat-legend")).to_contain_text(
        "CPU Master's hand", timeout=60_000
    )


# ------------------------------------------------------------------ layout


@pytest.mark.parametrize("size", list(SIZES))
def test_the_practice_room_fits_the_screen(new_page: Any, server_url: str, size: str) -> None:
    width, height = SIZES[size]
    mobile = size != "desktop"
    page = new_page(viewport={"width": width, "height": height}, is_mobile=mobile, has_touch=mobile)
    open_practice(page, server_url)
    check_layout(page)  # setting up
    tap(page, -2.5, -5.0)
    page.get_by_test_id("place-theirs").check()
    tap(page, 0.0, 3.0)
    tap(page, 3.5, 5.5)
    page.get_by_test_id("mode-shoot").click()
    check_layout(page)  # shooting
    page.get_by_test_id("hint-button").click()
    sync_api.expect(page.get_by_test_id("hint-list")).to_be_visible(timeout=30_000)
    check_layout(page)  # with the hints listed
    picture(page, f"practice-{width}x{height}")
    if size == "desktop":
        picture(page, "practice", docs=True)
    page.get_by_test_id("heatmap-button").click()
    sync_api.expect(page.get_by_test_id("heat-legend")).to_be_visible(timeout=60_000)
    check_layout(page)  # with the heat map's legend
    shoot(page, Shot(0.0, 0.0, 34.0))
    check_layout(page)  # with the shot's words
    assert page.get_by_test_id("shot-result").inner_text() != "No shot yet."


def test_the_practice_room_and_the_drills_are_reachable_from_the_start_screen(
    new_page: Any, server_url: str
) -> None:
    page = new_page(viewport={"width": 360, "height": 640})
    for link, path in (("practice-link", "/practice"), ("drills-link", "/drills")):
        page.goto(server_url)
        open_more_options(page)  # the links are under "More options" (the top bar has them too)
        page.get_by_test_id(link).click()
        page.wait_for_url(f"**{path}")
        assert page.title() in {"Crokinole practice room", "Crokinole drills"}
