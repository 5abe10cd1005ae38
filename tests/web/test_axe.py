"""axe-core's accessibility rules on the pages of a game, in Debian's Chromium against the
real server: the start screen, a game, its result, How to play, the replay and the review,
at a phone and a desktop size. No rule may be broken, whatever its impact.

axe-core is not a Python package: ``make axe`` (and ``make test``) installs the pinned
version with npm into ``.cache/axe``; ``$CROKINOLE_AXE`` may name another ``axe.min.js``.
Without it the test is skipped with a message, except in CI, where it fails.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import REPO
from tests.web.test_browser import new_page, open_client, play_until, start_game, wait_my_turn

__all__ = ["new_page"]  # the fixture, shared with the live client's tests

pytestmark = pytest.mark.browser

sync_api = pytest.importorskip("playwright.sync_api")

AXE = Path(os.environ.get("CROKINOLE_AXE") or REPO / ".cache/axe/node_modules/axe-core/axe.min.js")
SIZES = {"phone": {"width": 360, "height": 640}, "desktop": {"width": 1280, "height": 800}}
RUN = """async () => {
  const r = await axe.run(document, {resultTypes: ['violations']});
  return r.violations.map((v) => ({
    rule: v.id, impact: v.impact, help: v.help,
    where: v.nodes.slice(0, 3).map((n) => n.target.join(' ')),
  }));
}"""


@pytest.fixture(scope="module")
def axe_source() -> str:
    if not AXE.exists():
        message = f"{AXE} is missing: `make axe` installs axe-core with npm"
        if os.environ.get("CI"):
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    return AXE.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def finished(browser: Any, server_url: str) -> Iterator[str]:
    """A one-round game against CPU Easy played to its end: its table."""
    ctx = browser.new_context(viewport=SIZES["desktop"], reduced_motion="reduce")
    try:
        page = ctx.new_page()
        start_game(page, server_url, "easy", query="?rounds=1&cpu_pause=0")
        play_until(page, "game-result")
        yield str(page.evaluate("() => window.crokinole.table"))
    finally:
        ctx.close()


def check(page: Any, axe_source: str, where: str) -> None:
    page.evaluate(axe_source)  # through the debugger: the page's policy does not apply
    broken = page.evaluate(RUN)
    assert broken == [], f"{where}: {json.dumps(broken, indent=1)}"


@pytest.mark.parametrize("size", list(SIZES))
def test_the_start_screen_and_a_game_break_no_rule(
    server_url: str, new_page: Any, axe_source: str, size: str
) -> None:
    page = new_page(viewport=SIZES[size], reduced_motion="reduce")
    open_client(page, server_url)
    page.wait_for_function("() => window.crokinole.levels.length > 0")
    check(page, axe_source, f"start screen, {size}")
    start_game(page, server_url, "easy", query="?cpu_pause=0")
    wait_my_turn(page)
    check(page, axe_source, f"game, {size}")


def test_how_to_play_breaks_no_rule(server_url: str, new_page: Any, axe_source: str) -> None:
    page = new_page(viewport=SIZES["phone"])
    page.goto(f"{server_url}/how-to-play")
    check(page, axe_source, "how to play")


@pytest.mark.parametrize("size", list(SIZES))
def test_the_replay_and_the_review_break_no_rule(
    server_url: str, new_page: Any, axe_source: str, finished: str, size: str
) -> None:
    page = new_page(viewport=SIZES[size], reduced_motion="reduce")
    page.goto(f"{server_url}/replay/{finished}")
    page.wait_for_function("() => window.crokinoleReplay && window.crokinoleReplay.game()")
    check(page, axe_source, f"replay, {size}")
    page.goto(f"{server_url}/review/{finished}")
    page.wait_for_function(
        "() => window.crokinoleReview && window.crokinoleReview.data()", timeout=120_000
    )
    check(page, axe_source, f"review, {size}")
    # The numbers, one tap away: the grades, the charts and the table of shots.
    page.get_by_test_id("review-numbers-toggle").click()
    check(page, axe_source, f"review with its numbers, {size}")
