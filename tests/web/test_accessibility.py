"""Accessibility points of the live client in Debian's Chromium against the real server:
heading order (no level skipped, one h1) on the start and game screens and How to play, no
sideways scrolling at 320 px wide, and the accessible names of controls starting with their
visible words (WCAG 2.5.3). The replay's and the review's are checked in their own tests."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from tests.web.conftest import with_csp
from tests.web.test_browser import (
    new_page,
    open_client,
    shoot_from_a_free_place,
    shot,
    start_game,
    wait_my_turn,
)

__all__ = ["new_page"]  # the fixture, shared with the live client's tests

pytestmark = pytest.mark.browser

sync_api = pytest.importorskip("playwright.sync_api")

#: The headings a screen reader lists on the page (those hidden from everyone left out, the
#: sr-only ones kept), in document order, with their levels.
HEADINGS = """() => Array.from(document.querySelectorAll('h1, h2, h3, h4, h5, h6'))
  .filter((h) => !h.closest('[hidden], dialog:not([open])'))
  .filter((h) => getComputedStyle(h).display !== 'none')
  .map((h) => [Number(h.tagName[1]), h.textContent.trim()])"""

SIDEWAYS = """() => {
  const over = (e) => e.scrollWidth - e.clientWidth;
  return {page: over(document.documentElement), bar: over(document.querySelector('.topbar'))};
}"""


def check_heading_order(page: Any) -> list[tuple[int, str]]:
    headings = [tuple(h) for h in page.evaluate(HEADINGS)]
    assert headings and headings[0][0] == 1, headings
    assert [h for h in headings if h[0] == 1] == headings[:1], headings  # one h1, first
    for (before, _), (level, text) in itertools.pairwise(headings):
        assert level <= before + 1, f"{text!r} (h{level}) follows an h{before}: {headings}"
    return headings  # type: ignore[return-value]


def test_the_start_and_game_screens_keep_their_heading_order(
    server_url: str, new_page: Any
) -> None:
    page = new_page()
    open_client(page, server_url)
    start = check_heading_order(page)
    assert start[0] == (1, "Play crokinole")
    choices = ("Play the CPU", "Pass and play", "Play friends online", "More options", "Ranked")
    for choice in choices:
        assert (2, choice) in start, start
    start_game(page, server_url, "easy", query="?cpu_pause=0")
    wait_my_turn(page)
    game = check_heading_order(page)
    assert (2, "Game") in game and (3, "Shots in round 1") in game


def test_how_to_play_has_one_h1_and_no_skipped_level(server_url: str, new_page: Any) -> None:
    page = new_page()
    page.route("**/*", with_csp)
    page.goto(f"{server_url}/how-to-play")
    headings = check_heading_order(page)
    assert headings[0] == (1, "How to play crokinole")


@pytest.mark.parametrize("height", [568, 640])
def test_nothing_scrolls_sideways_at_320_px(server_url: str, new_page: Any, height: int) -> None:
    page = new_page(viewport={"width": 320, "height": height}, is_mobile=True, has_touch=True)
    open_client(page, server_url)
    assert page.evaluate(SIDEWAYS) == {"page": 0, "bar": 0}
    start_game(page, server_url, "easy", query="?cpu_pause=0")
    wait_my_turn(page)
    assert page.evaluate(SIDEWAYS) == {"page": 0, "bar": 0}
    shoot_from_a_free_place(page, power=24)
    wait_my_turn(page)
    assert page.evaluate(SIDEWAYS) == {"page": 0, "bar": 0}
    shot(page, f"game-320x{height}")
    # The menu's buttons are on screen, whole, and still at least 24 px high.
    for box in page.locator(".topbar .tools > *").all():
        b = box.bounding_box()
        assert b is not None and b["x"] >= 0 and b["x"] + b["width"] <= 320 and b["height"] >= 24
