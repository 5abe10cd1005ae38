"""The start screen starts (issue 22, point 1), in real Chromium against the real server.

What a player gets: the big choices first (the CPU at four levels, one tap each; Pass and play;
Play friends online, with joining by code beside it; Ranked once logged in) and the rest under
"More options"; at 360×640, 412×915 and 1280×800 the choices are on screen without scrolling;
from landing, a first shot on a small phone is two taps and one drag at most. Screenshots:
``artifacts/screenshots/start-*.png``.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from crokinole.server.ws.views import levels_payload
from tests.web.conftest import ARTIFACTS, open_more_options
from tests.web.test_browser import MY_TURN, board_point, new_page, open_client, state

pytestmark = pytest.mark.browser

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect

__all__ = ["new_page"]  # the fixture, imported for the tests below

SIZES = [(360, 640), (412, 915), (1280, 800)]
#: Where a player starts: one button a level, Pass and play, a party, joining one by code.
CHOICES = [
    *(f"quick-{level['id']}" for level in levels_payload()),
    "quick-device",
    "quick-party",
    "join-name-input",
    "code-input",
    "join-button",
    "more-options-toggle",
]
SCROLLED = "() => [window.scrollX, window.scrollY]"


def on_screen(page: Any, testid: str) -> None:
    """The element is shown whole inside the viewport, the page unscrolled."""
    target = page.get_by_test_id(testid)
    expect(target).to_be_visible()
    box = target.bounding_box()
    view = page.viewport_size
    assert box is not None, testid
    assert box["x"] >= 0 and box["y"] >= 0, (testid, box)
    assert box["x"] + box["width"] <= view["width"], (testid, box, view)
    assert box["y"] + box["height"] <= view["height"], (testid, box, view)
    assert page.evaluate(SCROLLED) == [0, 0]


def landing(page: Any, server_url: str, query: str = "") -> None:
    open_client(page, server_url, query)
    page.wait_for_function("() => window.crokinole.levels.length > 0")
    page.wait_for_function("() => window.crokinoleAccount && window.crokinoleAccount.ready")


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_big_choices_are_on_screen_at_once(
    server_url: str, new_page: Any, size: tuple[int, int]
) -> None:
    width, height = size
    page = new_page(viewport={"width": width, "height": height})
    landing(page, server_url)
    for testid in CHOICES:
        on_screen(page, testid)
    # Each level's button says its level, in the server's words, in the server's order.
    names = [level["name"] for level in levels_payload()]
    assert [n.strip() for n in page.locator(".levels .level-name").all_inner_texts()] == names
    # One h1, shown on the start screen.
    headings = page.locator("h1")
    expect(headings).to_have_count(1)
    expect(headings).to_be_visible()
    expect(headings).to_have_text("Play crokinole")
    # Everything else is folded under "More options"; a guest sees no ranked queue.
    expect(page.get_by_test_id("start-button")).to_be_hidden()
    expect(page.get_by_test_id("scoring-select")).to_be_hidden()
    expect(page.get_by_test_id("ranked-play")).to_be_hidden()
    # The account and ranked boxes are out of the way: beside the choices on a wide screen,
    # below them (and below More options) on a phone.
    choices = page.locator("#start-choices").bounding_box()
    more = page.get_by_test_id("more-options").bounding_box()
    assert choices is not None and more is not None
    for box_id in ("account", "ranked"):
        box = page.get_by_test_id(box_id).bounding_box()
        assert box is not None
        if width >= 960:
            assert box["x"] >= choices["x"] + choices["width"], (box_id, box, choices)
        else:
            assert box["y"] >= more["y"] + more["height"], (box_id, box, more)
    assert page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 0
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"start-{width}x{height}.png"))


def test_a_first_shot_on_a_small_phone_takes_two_taps_and_one_drag(
    server_url: str, new_page: Any
) -> None:
    page = new_page(viewport={"width": 360, "height": 640}, is_mobile=True, has_touch=True)
    landing(page, server_url, "?cpu_pause=0")
    taps: list[str] = []
    drags = 0

    def tap(testid: str) -> None:
        on_screen(page, testid)  # seen without scrolling, before the tap
        taps.append(testid)
        page.get_by_test_id(testid).tap()

    tap("quick-easy")  # the game starts at once
    page.wait_for_function(MY_TURN, timeout=30_000)
    assert page.evaluate(SCROLLED) == [0, 0]
    game = state(page)
    shots_before = page.locator("[data-testid=shot-log] li").count()
    # Drag the waiting disc straight back (away from the centre), as a finger would.
    disc = page.evaluate("() => window.crokinole.placedDisc")
    view = page.viewport_size
    assert 0 <= disc["x"] <= view["width"] and 0 <= disc["y"] <= view["height"], disc
    r = game["board"]["shooting_line_radius"]
    # South's quarter is at 270°: the disc's spot on the board, pulled 25% further out.
    bx, by = r * math.cos(math.radians(270)) * 1.25, r * math.sin(math.radians(270)) * 1.25
    tx, ty = board_point(page, bx, by)
    assert 0 <= tx <= view["width"] and 0 <= ty <= view["height"], (tx, ty)
    page.mouse.move(disc["x"], disc["y"])
    page.mouse.down()
    page.mouse.move((disc["x"] + tx) / 2, (disc["y"] + ty) / 2, steps=4)
    page.mouse.move(tx, ty, steps=6)
    page.mouse.up()
    drags += 1
    # The shot is played: the server's shot log has it, south's, and the page never scrolled.
    page.wait_for_function(
        f"() => document.querySelectorAll('[data-testid=shot-log] li').length > {shots_before}",
        timeout=90_000,
    )
    page.wait_for_function(
        "() => window.crokinole.state.seats.find((s) => s.seat === 'south').in_hand === 7",
        timeout=90_000,
    )
    assert page.evaluate(SCROLLED) == [0, 0]
    assert len(taps) <= 2 and drags <= 1, (taps, drags)


@pytest.mark.parametrize("level", [lv["id"] for lv in levels_payload()])
def test_each_level_starts_a_singles_game_at_that_level(
    server_url: str, new_page: Any, level: str
) -> None:
    page = new_page(viewport={"width": 412, "height": 915})
    landing(page, server_url)
    page.get_by_test_id(f"quick-{level}").click()
    page.wait_for_function("() => window.crokinole.state && window.crokinole.state.phase")
    game = state(page)
    assert page.evaluate("() => window.crokinole.you") == ["south"]
    assert {s["seat"]: s["cpu"] for s in game["seats"]} == {"south": None, "north": level}
    # The default rules: singles, four rounds, 8 discs each, required contact.
    rules = game["rules"]
    assert (rules["layout"], rules["scoring"], rules["discs_per_side"]) == (
        "singles",
        "four_rounds",
        8,
    )
    assert rules["required_contact"] is True


def test_pass_and_play_is_one_tap_for_two_people(server_url: str, new_page: Any) -> None:
    page = new_page(viewport={"width": 360, "height": 640}, is_mobile=True, has_touch=True)
    landing(page, server_url)
    page.get_by_test_id("quick-device").tap()
    page.wait_for_function("() => window.crokinole.state && window.crokinole.state.phase")
    game = state(page)
    # Both seats are people on this device: no CPU plays.
    assert sorted(page.evaluate("() => window.crokinole.you")) == ["north", "south"]
    assert all(s["cpu"] is None for s in game["seats"])
    assert game["rules"]["layout"] == "singles"


def test_a_party_is_created_from_the_online_choice(server_url: str, new_page: Any) -> None:
    page = new_page(viewport={"width": 360, "height": 640})
    landing(page, server_url)
    page.get_by_test_id("quick-party").click()
    # The others see the host's name: it is asked for first, where the player looks.
    expect(page.locator("#join-status")).to_have_text("Enter your name: the other players see it.")
    expect(page.get_by_test_id("join-name-input")).to_be_focused()
    assert page.evaluate("() => window.crokinole.screen") == "start"
    page.get_by_test_id("join-name-input").fill("Ann")
    page.get_by_test_id("quick-party").click()
    page.wait_for_function("() => window.crokinole.screen === 'lobby'")
    assert len(page.get_by_test_id("party-code").inner_text().strip()) == 6
    expect(page.get_by_test_id("lobby-seats")).to_contain_text("Ann")


def test_more_options_opens_the_full_form_and_its_start_works(
    server_url: str, new_page: Any
) -> None:
    page = new_page(viewport={"width": 360, "height": 640})
    landing(page, server_url)
    more = page.get_by_test_id("more-options")
    assert more.get_attribute("open") is None
    for testid in ("start-button", "layout-select", "record", "practice-link", "keep-score-link"):
        expect(page.get_by_test_id(testid)).to_be_hidden()
    page.get_by_test_id("more-options-toggle").click()
    assert more.get_attribute("open") is not None
    for testid in ("mode-cpu", "opponent-select", "scoring-select", "discs-select", "record"):
        expect(page.get_by_test_id(testid)).to_be_visible()
    for testid, href in (
        ("practice-link", "/practice"),
        ("drills-link", "/drills"),
        ("keep-score-link", "/keep-score"),
    ):
        expect(page.get_by_test_id(testid)).to_have_attribute("href", href)
    page.get_by_test_id("opponent-select").select_option("normal")
    page.get_by_test_id("scoring-select").select_option("to_100")
    page.get_by_test_id("discs-select").select_option("12")
    page.get_by_test_id("contact-toggle").uncheck()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "start-more-options-360x640.png"))
    page.get_by_test_id("start-button").click()
    page.wait_for_function("() => window.crokinole.state && window.crokinole.state.phase")
    game = state(page)
    assert game["rules"]["scoring"] == "to_100"
    assert game["rules"]["discs_per_side"] == 12
    assert game["rules"]["required_contact"] is False
    assert {s["seat"]: s["cpu"] for s in game["seats"]} == {"south": None, "north": "normal"}


def test_ranked_is_a_choice_only_when_logged_in(server_url: str, new_page: Any) -> None:
    page = new_page(viewport={"width": 1280, "height": 800})
    landing(page, server_url)
    choices = page.locator("#start-choices")
    # A guest: no queue, a note with the leaderboard, out of the choices.
    expect(page.get_by_test_id("ranked-play")).to_be_hidden()
    expect(page.get_by_test_id("ranked")).to_contain_text("Log in to play ranked")
    expect(choices.get_by_test_id("ranked")).to_have_count(0)
    # The top bar's "Log in" opens the dialog on this page; signing up from it is offered too.
    page.get_by_test_id("nav-account").click()
    dialog = page.get_by_test_id("account-dialog")
    expect(dialog).to_be_visible()
    expect(page.locator("#account-title")).to_have_text("Log in")
    page.locator("#account-cancel").click()
    expect(dialog).to_be_hidden()
    page.get_by_test_id("signup-open").click()
    dialog.get_by_label("Username").fill("start_ann")
    dialog.get_by_label("Password").fill("a long enough password")
    page.get_by_test_id("account-submit").click()
    expect(page.get_by_test_id("account-name")).to_have_text("start_ann")
    # Logged in: Ranked is one of the big choices, its Play button on screen.
    expect(choices.get_by_test_id("ranked")).to_have_count(1)
    on_screen(page, "ranked-play")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "start-logged-in-1280x800.png"))
    page.get_by_test_id("logout-button").click()
    expect(page.get_by_test_id("signup-open")).to_be_visible()
    expect(choices.get_by_test_id("ranked")).to_have_count(0)
    expect(page.get_by_test_id("ranked-play")).to_be_hidden()


def test_an_unfinished_game_is_offered_first(server_url: str, new_page: Any) -> None:
    page = new_page(viewport={"width": 360, "height": 640})
    landing(page, server_url, "?cpu_pause=0")
    page.get_by_test_id("quick-easy").click()
    page.wait_for_function(MY_TURN, timeout=30_000)
    table = page.evaluate("() => window.crokinole.table")
    page.evaluate("() => localStorage.removeItem('crokinole.game')")
    page.reload()
    page.wait_for_function("() => window.crokinole && window.crokinole.connected")
    # "Continue game" comes first, above the choices, on screen.
    on_screen(page, "continue-button")
    cont = page.get_by_test_id("continue-button").bounding_box()
    easy = page.get_by_test_id("quick-easy").bounding_box()
    assert cont is not None and easy is not None and cont["y"] < easy["y"]
    # A level's button asks before abandoning it (a loss against the CPU).
    page.get_by_test_id("quick-hard").click()
    expect(page.locator("#start-confirm")).to_be_visible()
    expect(page.locator("#start-confirm")).to_contain_text("counts as a loss")
    assert page.evaluate("() => window.crokinole.state") is None
    page.get_by_test_id("continue-button").click()
    page.wait_for_function(MY_TURN, timeout=30_000)
    assert page.evaluate("() => window.crokinole.table") == table


def test_the_full_form_is_reached_by_keyboard(server_url: str, new_page: Any) -> None:
    page = new_page(viewport={"width": 412, "height": 915})
    landing(page, server_url)
    page.get_by_test_id("more-options-toggle").focus()
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("start-button")).to_be_visible()
    open_more_options(page)  # already open: stays open
    expect(page.get_by_test_id("start-button")).to_be_visible()
