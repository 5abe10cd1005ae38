"""One visual system on every page (issue 22, point 2): one primary colour, one type, one
button style, in the light and the dark scheme.

css/base.css, first on every page, holds the site's colours, type scale and buttons; these
tests read what Chromium computes on each page a visitor can open (the list of
tests/web/test_site_bar.py), so a page whose own stylesheet brings its own palette, fonts or
buttons (as the score keeper's once did, with a brown accent) fails them:

* a primary button is the same colour on every page, the colour of the current page's link in
  the bar, and the page's text is in the same font family; every page's h1 is the same size,
  larger than its h2s;
* the score keeper's buttons (primary, plain, disabled, hovered, focused) are drawn as the
  game's are;
* in the dark scheme every page is dark, in the light one light;
* axe-core finds nothing serious or critical on the score keeper, the leaderboard, a profile
  and How to play, in either scheme (tests/web/test_axe.py covers the game's pages);
* pictures of those four pages at 360x640 and 1280x800 (artifacts/screenshots/system-*.png).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.web.conftest import ARTIFACTS, open_more_options, open_site_page, sign_up, with_csp
from tests.web.test_axe import RUN, axe_source
from tests.web.test_browser import new_page
from tests.web.test_ranked import contract_answers

__all__ = ["axe_source", "new_page"]  # the fixtures, shared with the other browser tests

pytestmark = pytest.mark.browser

sync_api = pytest.importorskip("playwright.sync_api")

SCHEMES = ["light", "dark"]
PROFILE = "systemprofile"
#: Each page a visitor can open (as tests/web/test_site_bar.py lists them).
PAGES = [
    "/",
    "/practice",
    "/drills",
    "/leaderboard",
    f"/players/{PROFILE}",
    "/keep-score",
    "/how-to-play",
    "/review",
    "/replay/ABC234",
]

#: What a page shows of the system: a primary button's colour (one added to the page, so that
#: every page is measured alike, whatever buttons it has), the current link's colour, the text's
#: font family, the page's h1 and h2 sizes, and the page's background.
LOOK = """() => {
  const probe = document.createElement('button');
  probe.className = 'primary';
  probe.textContent = 'Probe';
  document.querySelector('main').append(probe);
  const primary = getComputedStyle(probe).backgroundColor;
  const primaryInk = getComputedStyle(probe).color;
  probe.remove();
  const current = document.querySelector('.site-nav a[aria-current="page"]');
  const shown = (h) => !h.closest('[hidden]');
  const h1 = [...document.querySelectorAll('h1')].filter(shown);
  const h2 = [...document.querySelectorAll('main h2')].filter(shown)
    .filter((h) => h.getClientRects().length && getComputedStyle(h).display !== 'none');
  const px = (e) => parseFloat(getComputedStyle(e).fontSize);
  return {
    primary,
    primaryInk,
    current: current ? getComputedStyle(current).color : null,
    font: getComputedStyle(document.body).fontFamily,
    main: getComputedStyle(document.querySelector('main')).fontFamily,
    h1: h1.map(px),
    h2: h2.map(px),
    // the page's background: the body's, or where it has none the root's
    bg: [document.body, document.documentElement].map((e) => getComputedStyle(e).backgroundColor)
      .find((c) => c !== 'rgba(0, 0, 0, 0)') ?? null,
  };
}"""

#: The properties that make a button look like the site's (its size is the page's to choose:
#: the score keeper's are 44 px tall, for thumbs).
BUTTON = """(e) => {
  const s = getComputedStyle(e);
  return {
    background: s.backgroundColor, color: s.color, border: s.borderTopColor,
    borderWidth: s.borderTopWidth, borderStyle: s.borderTopStyle, radius: s.borderTopLeftRadius,
    font: s.fontFamily, weight: s.fontWeight, opacity: s.opacity,
  };
}"""
FOCUS = """(e) => {
  e.focus();
  const s = getComputedStyle(e);
  return {style: s.outlineStyle, width: s.outlineWidth, color: s.outlineColor,
          offset: s.outlineOffset, visible: e.matches(':focus-visible')};
}"""


@pytest.fixture(scope="module", autouse=True)
def profile(server_url: str) -> None:
    """The account whose profile page is one of the pages (a missing one is a 404)."""
    sign_up(server_url, PROFILE)


def open_page(
    new_page: Any, url: str, scheme: str, width: int = 1280, height: int = 800, route: Any = None
) -> Any:
    return open_site_page(
        new_page,
        url,
        width,
        height,
        route=route or with_csp,
        color_scheme=scheme,
        reduced_motion="reduce",
    )


def luminance(css: str) -> float:
    """The relative luminance (WCAG) of an ``rgb(r, g, b)`` colour."""
    r, g, b = (int(float(x)) for x in css[css.index("(") + 1 : css.index(")")].split(",")[:3])

    def channel(c: int) -> float:
        v = c / 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(a: str, b: str) -> float:
    """WCAG's contrast ratio of two colours."""
    light, dark = sorted((luminance(a), luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_one_primary_colour_one_font_one_heading_size_on_every_page(
    new_page: Any, server_url: str, scheme: str
) -> None:
    looks = {}
    for path in PAGES:
        looks[path] = open_page(new_page, server_url + path, scheme).evaluate(LOOK)
    start = looks["/"]
    for path, look in looks.items():
        assert look["primary"] == start["primary"], (path, look["primary"], start["primary"])
        if look["current"] is not None:  # the bar marks the page's own link in that colour
            assert look["current"] == start["primary"], (path, look["current"])
        assert look["font"] == start["font"] and look["main"] == start["font"], path
        assert len(look["h1"]) == 1 and look["h1"] == start["h1"], (path, look["h1"])
        assert all(h2 < look["h1"][0] for h2 in look["h2"]), (path, look)
        # The scheme is the visitor's: a light page in the light one, a dark one in the dark.
        assert look["bg"] is not None, path
        bg = luminance(look["bg"])
        assert bg > 0.6 if scheme == "light" else bg < 0.05, (path, look["bg"])
    # Text on a primary button can be read (WCAG AA, 4.5:1), and so can the current link.
    assert contrast(start["primary"], start["primaryInk"]) >= 4.5
    assert contrast(start["primary"], start["bg"]) >= 4.5
    # Every page's heading is a real heading: larger than the text (16 px).
    assert start["h1"][0] >= 24


def _sheet(page: Any) -> None:
    """A singles score sheet with one round, as a player starts one."""
    page.get_by_test_id("sheet-name-0").fill("Ann")
    page.get_by_test_id("sheet-name-1").fill("Bob")
    page.get_by_test_id("sheet-create").click()
    page.get_by_test_id("sheet-next").wait_for()


@pytest.mark.parametrize("scheme", SCHEMES)
def test_the_score_keepers_buttons_are_the_games(
    new_page: Any, server_url: str, scheme: str
) -> None:
    game = open_page(new_page, server_url + "/", scheme)
    game.wait_for_function("() => window.crokinole && window.crokinole.levels.length > 0")
    open_more_options(game)  # the full form's Start: the game page's plain primary button
    g_primary = game.get_by_test_id("start-button")
    g_plain = game.get_by_test_id("signup-open")
    g_disabled = game.get_by_test_id("pause-button")  # no game yet: disabled
    assert g_disabled.is_disabled()
    keeper = open_page(new_page, server_url + "/keep-score", scheme, 360, 640)
    k_start = keeper.get_by_test_id("sheet-create")
    assert k_start.evaluate(BUTTON) == g_primary.evaluate(BUTTON)
    _sheet(keeper)
    keeper.get_by_test_id("mode-counts").check()
    k_primary = keeper.get_by_test_id("sheet-add-round")
    k_plain = keeper.get_by_test_id("sheet-print")
    k_disabled = keeper.locator('[data-step="minus"]').first  # no disc counted yet
    assert k_disabled.is_disabled()
    assert k_primary.evaluate(BUTTON) == g_primary.evaluate(BUTTON)
    assert k_plain.evaluate(BUTTON) == g_plain.evaluate(BUTTON)
    assert k_disabled.evaluate(BUTTON) == g_disabled.evaluate(BUTTON)
    # A primary button is the primary colour, a plain one is not.
    assert k_plain.evaluate(BUTTON)["background"] != k_primary.evaluate(BUTTON)["background"]
    # Hovered, each changes as the game's does.
    for k, g in ((k_primary, g_primary), (k_plain, g_plain)):
        k.hover()
        g.hover()
        assert k.evaluate(BUTTON) == g.evaluate(BUTTON)
    # Focused from the keyboard, each shows the site's focus ring.
    keeper.keyboard.press("Shift")
    game.keyboard.press("Shift")
    k_ring, g_ring = k_plain.evaluate(FOCUS), g_plain.evaluate(FOCUS)
    assert k_ring["visible"] and g_ring["visible"]
    assert k_ring == g_ring and k_ring["style"] == "solid" and float(k_ring["width"][:-2]) >= 2
    # The score keeper keeps its 44 px targets (tests/web/test_scorekeeper.py counts them all).
    box = k_plain.bounding_box()
    assert box is not None and box["height"] >= 44


#: The pages of this part of the issue, each in a state a player sees: the score keeper's new
#: sheet form and a sheet with a round; the ladders with players (the contract's JSON).
SYSTEM_PAGES = {
    "scorekeeper": "/keep-score",
    "leaderboard": "/leaderboard",
    "profile": "/players/ann",
    "how-to-play": "/how-to-play",
}


def _open_system_page(
    new_page: Any, server_url: str, name: str, scheme: str, size: tuple[int, int]
) -> Any:
    page = open_page(
        new_page, server_url + SYSTEM_PAGES[name], scheme, *size, route=contract_answers([])
    )
    if name in ("leaderboard", "profile"):
        page.wait_for_function("() => document.body.dataset.loaded === 'true'")
    return page


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("name", list(SYSTEM_PAGES))
def test_the_pages_break_no_serious_accessibility_rule(
    new_page: Any, server_url: str, axe_source: str, name: str, scheme: str
) -> None:
    page = _open_system_page(new_page, server_url, name, scheme, (360, 640))
    states = [name]
    if name == "scorekeeper":
        states.append("a sheet, counting discs")
    for state in states:
        if state != name:
            _sheet(page)
            page.get_by_test_id("mode-counts").check()
        page.evaluate(axe_source)
        broken = [v for v in page.evaluate(RUN) if v["impact"] in ("serious", "critical")]
        assert broken == [], f"{state}, {scheme}: {json.dumps(broken, indent=1)}"


@pytest.mark.parametrize("size", [(360, 640), (1280, 800)], ids=["360x640", "1280x800"])
def test_pictures_of_the_pages(new_page: Any, server_url: str, size: tuple[int, int]) -> None:
    """For a person to look at: the four pages beside the game's start page, light and dark."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    w, h = size
    for scheme in SCHEMES:
        suffix = "" if scheme == "light" else "-dark"
        start = open_page(new_page, server_url + "/", scheme, w, h)
        start.screenshot(path=str(ARTIFACTS / f"system-start-{w}x{h}{suffix}.png"))
        for name in SYSTEM_PAGES:
            page = _open_system_page(new_page, server_url, name, scheme, size)
            assert page.evaluate("() => document.documentElement.scrollWidth") <= w, name
            page.screenshot(path=str(ARTIFACTS / f"system-{name}-{w}x{h}{suffix}.png"))
            if name == "scorekeeper":
                _sheet(page)
                page.get_by_test_id("mode-counts").check()
                page.evaluate("() => window.scrollTo(0, 0)")
                page.screenshot(path=str(ARTIFACTS / f"system-scoresheet-{w}x{h}{suffix}.png"))


@pytest.mark.parametrize("width", [1024, 1100, 1199, 1200, 1280])
def test_the_bars_links_never_run_under_the_pages_tools(
    new_page: Any, server_url: str, width: int
) -> None:
    """The game's bar is the fullest (Pause, Settings, Sound beside the links): from 1024 px,
    where the links are inline, the account's link ends before the tools begin."""
    page = open_page(new_page, server_url + "/", "light", width, 700)
    account = page.get_by_test_id("nav-account").bounding_box()
    tools = page.locator(".topbar .tools").bounding_box()
    assert account is not None and tools is not None
    assert account["x"] + account["width"] <= tools["x"], (account, tools)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
