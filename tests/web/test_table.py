"""The game's table in Debian's Chromium against the real server (issue 22, points 3, 4, 7):
the player bars around the board, discs drawn rather than counted, whose turn it is, the
"Fine aim" drawer on phones and the first shot's coach, at 360x640, 412x915 and 1280x800."""

from __future__ import annotations

import math
from typing import Any

import pytest

from tests.web.test_browser import (
    drag_shot,
    line_point,
    new_page,
    set_aim,
    shot,
    start_game,
    state,
    wait_my_turn,
)

__all__ = ["new_page"]  # the fixture, shared with the live client's tests

pytestmark = pytest.mark.browser

sync_api = pytest.importorskip("playwright.sync_api")

SIZES = [
    pytest.param({"width": 360, "height": 640}, True, id="360x640"),
    pytest.param({"width": 412, "height": 915}, True, id="412x915"),
    pytest.param({"width": 1280, "height": 800}, False, id="1280x800"),
]
PHONES = SIZES[:2]

#: The bars, the board, the waiting disc and the viewport, in CSS pixels of the page.
GEOMETRY = """() => {
  const box = (e) => { const r = e.getBoundingClientRect();
    return {left: r.left, top: r.top, right: r.right, bottom: r.bottom}; };
  const c = window.crokinole;
  const cards = Array.from(document.querySelectorAll('.side-card:not([hidden])'), (e) => ({
    id: e.id, ...box(e), toMove: e.classList.contains('to-move'),
    glow: getComputedStyle(e).boxShadow,
    hand: e.querySelectorAll('.hand .hand-disc').length,
    stack: e.querySelectorAll('.stack .stack-disc').length,
    twenties: Number(e.querySelector('[data-testid^=twenties-]').textContent),
  }));
  return {
    cards, board: box(document.querySelector('[data-testid=board-canvas]')),
    disc: c.placedDisc, vw: document.documentElement.clientWidth, vh: window.innerHeight,
  };
}"""


#: Watches, frame by frame, for the CPU's bar glowing while mine does not.
WATCH_THEIR_GLOW = """() => {
  window.sawTheirs = false;
  const moving = (i) => document.getElementById(`side-card-${i}`).classList.contains('to-move');
  const look = () => {
    if (moving(1) && !moving(0)) window.sawTheirs = true;
    requestAnimationFrame(look);
  };
  look();
}"""


def open_phone_or_desktop(new_page: Any, viewport: dict[str, int], touch: bool) -> Any:
    return new_page(
        viewport=viewport, is_mobile=touch, has_touch=touch, device_scale_factor=2 if touch else 1,
        reduced_motion="reduce",
    )  # fmt: skip


def weak_shot(page: Any) -> None:
    """A shot that stops short of the 15 circle on an open board, or nudges a disc: either way
    a short one from the middle of the line (an open board's such shot is a foul: to the ditch)."""
    set_aim(page, 0, 0, 8)
    page.get_by_test_id("shoot-button").click()


def sides_in_hand(game: dict[str, Any]) -> list[int]:
    """Each side's discs still to play, by the rules: the sum of its seats' discs in hand."""
    return [
        sum(x["in_hand"] for x in game["seats"] if x["side"] == side["side"])
        for side in game["sides"]
    ]


def inside(r: dict[str, float], vw: float, vh: float) -> bool:
    return r["left"] >= 0 and r["top"] >= 0 and r["right"] <= vw + 0.5 and r["bottom"] <= vh + 0.5


@pytest.mark.parametrize(("viewport", "touch"), SIZES)
def test_the_bars_draw_the_discs_the_rules_count(
    server_url: str, new_page: Any, viewport: dict[str, int], touch: bool
) -> None:
    page = open_phone_or_desktop(new_page, viewport, touch)
    start_game(page, server_url, "easy")  # the CPU's usual pause: its turn is seen
    for _ in range(2):
        wait_my_turn(page)
        hand = sides_in_hand(state(page))[0]
        weak_shot(page)
        page.wait_for_function(f"() => window.crokinole.state.seats[0].in_hand === {hand - 1}")
    wait_my_turn(page)
    game = state(page)
    page.evaluate("() => window.scrollTo(0, 0)")  # the page as the turn comes, unscrolled
    g = page.evaluate(GEOMETRY)
    rules = game["rules"]["discs_per_side"]
    # Two turns each have gone: the rules leave 8 - 2 discs to play for me, 8 - 2 for the CPU.
    assert sides_in_hand(game) == [rules - 2, rules - 2]
    cards = {c["id"]: c for c in g["cards"]}
    for i, count in enumerate(sides_in_hand(game)):
        card = cards[f"side-card-{i}"]
        assert card["hand"] == count, card  # one small disc drawn per disc in hand
        twenties = game["sides"][i]["twenties"]
        assert card["twenties"] == twenties and card["stack"] == min(twenties, 5), card

    # The discs in the ditch are drawn in the ditch: the gutter ring outside the playing surface.
    drawn = page.evaluate("() => window.crokinole.ditchDrawn")
    for i, side in enumerate(game["sides"]):
        assert sum(d["side"] == i for d in drawn) == side["ditch"], (drawn, game["sides"])
    assert game["sides"][0]["ditch"] >= 1, game["sides"]  # my short shots were fouls
    board = game["board"]
    centre = page.evaluate("() => window.crokinole.toPage(0, 0)")
    edge = page.evaluate(f"() => window.crokinole.toPage({board['surface_radius']}, 0)")
    pixels = math.dist((centre["x"], centre["y"]), (edge["x"], edge["y"]))
    px_per_inch = pixels / board["surface_radius"]
    for d in drawn:
        r = math.dist((d["x"], d["y"]), (centre["x"], centre["y"])) / px_per_inch
        assert board["surface_radius"] < r < board["surface_radius"] + board["ditch_width"], d

    # The opponent's bar above the board, mine below it, as lichess has them.
    mine, theirs = cards["side-card-0"], cards["side-card-1"]
    assert theirs["bottom"] <= g["board"]["top"] + 0.5, (theirs, g["board"])
    assert mine["top"] >= g["board"]["bottom"] - 0.5, (mine, g["board"])

    # My turn: my bar glows, and "Your turn" is written large.
    assert mine["toMove"] and not theirs["toMove"]
    assert mine["glow"] != "none" and theirs["glow"] == "none"
    turn = page.get_by_test_id("turn-indicator")
    sync_api.expect(turn).to_have_text("Your turn")
    sync_api.expect(turn).to_be_in_viewport()
    size = float(turn.evaluate("(e) => parseFloat(getComputedStyle(e).fontSize)"))
    assert size >= 1.4 * 16, size

    # The whole board, my disc on it and my bar are on the screen without scrolling.
    assert inside(g["board"], g["vw"], g["vh"]), g
    disc = g["disc"]
    assert g["board"]["left"] < disc["x"] < g["board"]["right"], g
    assert g["board"]["top"] < disc["y"] < g["board"]["bottom"], g
    assert inside(mine, g["vw"], g["vh"]) and inside(theirs, g["vw"], g["vh"]), g
    shot(page, f"table-{viewport['width']}x{viewport['height']}")

    # The CPU's turn: its bar glows, mine no longer does.
    set_aim(page, 0, 0, 8)
    page.evaluate(WATCH_THEIR_GLOW)
    page.get_by_test_id("shoot-button").click()
    wait_my_turn(page)
    assert page.evaluate("() => window.sawTheirs") is True


@pytest.mark.parametrize(("viewport", "touch"), SIZES)
def test_fine_aim_folds_on_phones_and_opens(
    server_url: str, new_page: Any, viewport: dict[str, int], touch: bool
) -> None:
    page = open_phone_or_desktop(new_page, viewport, touch)
    start_game(page, server_url, "easy", query="?cpu_pause=0")
    wait_my_turn(page)
    drawer = page.get_by_test_id("fine-aim")
    toggle = page.get_by_test_id("fine-aim-toggle")
    slider = page.get_by_test_id("direction-input")
    sync_api.expect(toggle).to_have_text("Fine aim")
    sync_api.expect(page.get_by_test_id("shoot-button")).to_be_in_viewport()
    if viewport["width"] > 640:
        # A desktop has the room: the sliders are out.
        sync_api.expect(drawer).to_have_attribute("open", "")
        sync_api.expect(slider).to_be_visible()
        return
    # A phone: folded, the board and Shoot fill the screen; one tap opens the sliders.
    assert drawer.get_attribute("open") is None
    sync_api.expect(slider).to_be_hidden()
    toggle.click()
    sync_api.expect(drawer).to_have_attribute("open", "")
    sync_api.expect(slider).to_be_visible()
    slider.fill("5")
    assert page.evaluate("() => window.crokinole.aim.direction") == 5
    toggle.click()
    sync_api.expect(slider).to_be_hidden()


@pytest.mark.parametrize(("viewport", "touch"), PHONES)
def test_the_hint_list_is_read_beside_the_board_on_phones(
    server_url: str, new_page: Any, viewport: dict[str, int], touch: bool
) -> None:
    page = open_phone_or_desktop(new_page, viewport, touch)
    start_game(page, server_url, "easy", query="?cpu_pause=0")
    wait_my_turn(page)
    page.get_by_test_id("hint-button").click()
    items = page.get_by_test_id("hint-item")
    sync_api.expect(items).to_have_count(3, timeout=30_000)
    # Scrolled so that the list's first hint is in view, most of the board still is: the list
    # sits right under the board and Shoot, not below the sliders and the shot log.
    items.first.scroll_into_view_if_needed()
    board = page.get_by_test_id("board-canvas").bounding_box()
    assert board is not None
    visible = min(board["y"] + board["height"], viewport["height"]) - max(board["y"], 0)
    assert visible >= 0.6 * board["height"], board
    shot(page, f"table-hints-{viewport['width']}x{viewport['height']}")


def coach_state(page: Any) -> dict[str, Any]:
    result: dict[str, Any] = page.evaluate(
        """() => {
          const coach = document.querySelector('[data-testid=coach]');
          const d = window.crokinole.placedDisc;
          const at = d ? document.elementFromPoint(d.x, d.y) : null;
          return {shown: !coach.hidden && coach.getClientRects().length > 0,
                  words: coach.innerText, discReachable: !!at && at.id === 'board'};
        }"""
    )
    return result


@pytest.mark.parametrize(("viewport", "touch"), SIZES)
def test_the_first_shot_is_coached_once(
    server_url: str, new_page: Any, viewport: dict[str, int], touch: bool
) -> None:
    page = open_phone_or_desktop(new_page, viewport, touch)
    start_game(page, server_url, "easy", query="?cpu_pause=0")
    wait_my_turn(page)
    # A new player's first turn: the ghost drag and its words, over the board…
    c = coach_state(page)
    assert c["shown"], c
    assert "Press on your disc, pull back, let go" in c["words"]
    # …that never stands between the player and their disc: a drag on it shoots.
    assert c["discReachable"], c
    game = state(page)
    cx, cy = line_point(game, 270, page.evaluate("() => window.crokinole.aim.position"))
    drag_shot(page, (cx * 1.15, cy * 1.15))
    page.wait_for_function("() => window.crokinole.state.seats[0].in_hand === 7")
    wait_my_turn(page)
    assert not coach_state(page)["shown"]  # once: not on the second turn
    page.reload()
    page.wait_for_function("() => window.crokinole && window.crokinole.connected")
    wait_my_turn(page)
    assert not coach_state(page)["shown"]  # nor after a reload


def test_the_coach_is_dismissed_with_got_it_and_stays_away(server_url: str, new_page: Any) -> None:
    page = new_page(viewport={"width": 360, "height": 640}, is_mobile=True, has_touch=True)
    start_game(page, server_url, "easy", query="?cpu_pause=0")
    wait_my_turn(page)
    sync_api.expect(page.get_by_test_id("coach")).to_be_visible()
    page.get_by_test_id("coach-close").click()
    sync_api.expect(page.get_by_test_id("coach")).to_be_hidden()
    # A reload during that same first turn: it was shown once, it is not shown again.
    page.reload()
    page.wait_for_function("() => window.crokinole && window.crokinole.connected")
    wait_my_turn(page)
    assert not coach_state(page)["shown"]
