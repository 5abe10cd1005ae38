"""One top bar on every page (issue 22, point 2): the logo, the same navigation, the account.

The bar is written once (static/partials/topbar.html) and put in each page by the server;
these tests read what a visitor gets from the running server, in Chromium: on every page the
same links in the same order, the page's own link marked as current, one ``h1``, the menu
behind a button on a phone, and no page wider than a 320 px screen.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.web.conftest import ARTIFACTS, STATIC, open_site_page, sign_up
from tests.web.test_browser import new_page

__all__ = ["new_page"]

pytestmark = pytest.mark.browser

#: The navigation the issue asks for, in its order, then the account's link.
NAV = [
    "Play", "Practice", "Drills", "Leaderboard", "Events", "Bots", "Keep score", "How to play",
    "Log in",
]  # fmt: skip

#: Each page a visitor can open, and the navigation entry that is its own (None: no entry).
PAGES = [
    ("/", "Play"),
    ("/practice", "Practice"),
    ("/drills", "Drills"),
    ("/leaderboard", "Leaderboard"),
    ("/players/barprofile", "Leaderboard"),
    ("/bots", "Bots"),
    ("/keep-score", "Keep score"),
    ("/how-to-play", "How to play"),
    ("/review", None),
    ("/replay/ABC234", None),
]


@pytest.fixture(scope="module", autouse=True)
def profile(server_url: str) -> None:
    """The account whose profile page is one of the pages (a missing one is a 404)."""
    sign_up(server_url, "barprofile")


def test_every_html_page_takes_the_bar_in_its_header() -> None:
    """Read from the files: each page says where the bar goes, once, inside a header."""
    for html in sorted(STATIC.glob("*.html")):
        text = html.read_text(encoding="utf-8")
        assert text.count("<!--#site-bar-->") == 1, html.name
        header = text[text.index('<header class="topbar">') : text.index("</header>")]
        assert "<!--#site-bar-->" in header, html.name


@pytest.mark.parametrize(("path", "current"), PAGES)
def test_the_same_bar_on_every_page(
    new_page: Any, server_url: str, path: str, current: str | None
) -> None:
    page = open_site_page(new_page, server_url + path)
    nav = page.get_by_test_id("site-nav")
    links = nav.locator("a")
    assert [t.strip() for t in links.all_inner_texts()] == NAV
    marked = nav.locator('a[aria-current="page"]')
    if current is None:
        assert marked.count() == 0
    else:
        assert marked.count() == 1 and marked.inner_text().strip() == current
    # The logo leads to the start page; every page has one h1, and it names something.
    assert page.get_by_test_id("home-link").get_attribute("href") == "/"
    # (a page of two views, as the drills' list and a drill, hides the other's h1)
    headings = page.evaluate(
        "() => [...document.querySelectorAll('h1')].filter((h) => !h.closest('[hidden]'))"
        ".map((h) => h.textContent.trim())"
    )
    assert len(headings) == 1 and headings[0], (path, headings)
    assert page.get_by_test_id("menu-button").is_hidden()  # wide screens show the links


def test_the_links_go_where_they_say(new_page: Any, server_url: str) -> None:
    page = open_site_page(new_page, server_url + "/leaderboard")
    for name, path, title in (
        ("nav-practice", "/practice", "Crokinole practice room"),
        ("nav-keep-score", "/keep-score", "Keep score — Crokinole"),
        ("nav-bots", "/bots", "Crokinole bots"),
        ("nav-how-to-play", "/how-to-play", "How to play crokinole"),
        ("nav-play", "/", "Crokinole"),
    ):
        page.get_by_test_id(name).click()
        page.wait_for_url(f"{server_url}{path}")
        assert page.title() == title


def test_the_old_address_of_the_rules_still_works(new_page: Any, server_url: str) -> None:
    page = open_site_page(new_page, server_url + "/static/how-to-play.html", route=None)
    assert page.url == f"{server_url}/how-to-play"
    assert page.locator("h1").inner_text() == "How to play crokinole"


def test_on_a_phone_the_links_are_behind_the_menu(new_page: Any, server_url: str) -> None:
    page = open_site_page(new_page, server_url + "/practice", 360, 640)
    menu, nav = page.get_by_test_id("menu-button"), page.get_by_test_id("site-nav")
    assert menu.is_visible() and nav.is_hidden()
    assert menu.get_attribute("aria-expanded") == "false"
    menu.click()
    assert nav.is_visible() and menu.get_attribute("aria-expanded") == "true"
    box = nav.bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 360
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "site-bar-menu-360x640.png"))
    page.keyboard.press("Escape")
    assert nav.is_hidden() and menu.get_attribute("aria-expanded") == "false"
    menu.click()
    page.get_by_test_id("nav-drills").click()
    page.wait_for_url(f"{server_url}/drills")


def test_on_a_phone_the_name_is_left_out_only_beside_tools_shown(
    new_page: Any, server_url: str
) -> None:
    """At 360 px the bar leaves "Crokinole" to its icon beside a page's tools (the game's Pause,
    Settings, Sound), not where its tools are all hidden (a guest's leaderboard, whose only
    tool is My profile): that bar has the room, as the bots page's has."""

    def name_shown(path: str) -> bool:
        page = open_site_page(new_page, server_url + path, 360, 640)
        width: float = page.evaluate(
            "() => document.querySelector('.brand-name').getBoundingClientRect().width"
        )
        fits = page.evaluate("() => document.documentElement.scrollWidth <= innerWidth")
        assert fits, f"{path} scrolls sideways at 360 px"
        return width > 20

    assert name_shown("/leaderboard")  # My profile hidden for a guest
    assert name_shown("/bots")  # no tools
    assert not name_shown("/")  # the game's tools


def test_the_game_page_opens_the_rules_in_a_dialog_from_the_bar(
    new_page: Any, server_url: str
) -> None:
    """In a game, the bar's How to play must not leave the game: it opens the rules over it."""
    page = open_site_page(new_page, server_url + "/")
    page.get_by_test_id("nav-how-to-play").click()
    dialog = page.locator("#help-dialog")
    dialog.wait_for(state="visible")
    assert page.url == f"{server_url}/"
    assert "required contact" in dialog.inner_text().lower()


def test_the_account_link_logs_in_from_any_page(new_page: Any, server_url: str) -> None:
    page = open_site_page(new_page, server_url + "/drills")
    page.get_by_test_id("nav-account").click()
    page.get_by_test_id("account-dialog").wait_for(state="visible")
    page.get_by_test_id("account-username").fill("barvisitor")
    page.get_by_test_id("account-password").fill("a long password 1")
    page.locator("#account-title").wait_for()
    # Sign up instead: a new account (the dialog opened for logging in).
    page.keyboard.press("Escape")
    page.get_by_test_id("signup-open").click()
    page.get_by_test_id("account-username").fill("barvisitor")
    page.get_by_test_id("account-password").fill("a long password 1")
    page.get_by_test_id("account-submit").click()
    link = page.get_by_test_id("nav-account")
    page.wait_for_function(
        "() => document.getElementById('nav-account').dataset.signedIn === 'true'"
    )
    assert link.inner_text().strip() == "barvisitor"
    assert link.get_attribute("href") == "/players/barvisitor"
    page.goto(server_url + "/keep-score")  # the next page knows it too
    page.wait_for_function(
        "() => document.getElementById('nav-account').dataset.signedIn === 'true'"
    )
    assert page.get_by_test_id("nav-account").inner_text().strip() == "barvisitor"


@pytest.mark.parametrize(("path", "current"), PAGES)
def test_no_page_scrolls_sideways_at_320_px(
    new_page: Any, server_url: str, path: str, current: str | None
) -> None:
    page = open_site_page(new_page, server_url + path, 320, 640)
    wide = page.evaluate("() => document.documentElement.scrollWidth")
    assert wide <= 320, f"{path} is {wide} px wide at 320 px"
    page.get_by_test_id("menu-button").click()
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 320, path
