"""The replay viewer in Debian's Chromium against the real server (``crokinole serve``).

A short game against CPU Easy is played to its result in the live client;
its "Watch the replay" link opens the viewer, which is stepped forward and
back, by keys and buttons, jumped to a round and played to the end: the
scores it shows are the ones the live game ended with.
"""

from __future__ import annotations

import json
import re
import urllib.request
from typing import Any

import pytest

from tests.web.conftest import ARTIFACTS
from tests.web.test_browser import new_page, play_until, start_game, state

__all__ = ["new_page"]  # the fixture, shared with the live client's tests

sync_api = pytest.importorskip("playwright.sync_api")

LOADED = "() => { const r = window.crokinoleReplay; return !!r && !!r.game(); }"
STILL = "() => { const r = window.crokinoleReplay; return !r.animating && !r.playing; }"
SIZES = {"phone": (360, 640), "phone-tall": (412, 915), "desktop": (1280, 800)}

FITS = """() => {
  const c = document.querySelector('[data-testid=replay-board]').getBoundingClientRect();
  const controls = document.querySelector('.replay-controls').getBoundingClientRect();
  return {vw: document.documentElement.clientWidth, vh: window.innerHeight,
          scrollWidth: document.documentElement.scrollWidth,
          board: [c.left, c.top, c.right, c.bottom],
          controls: [controls.left, controls.top, controls.right, controls.bottom]};
}"""


def shown_scores(page: Any) -> list[int]:
    cards = page.locator("[data-testid^=replay-score-]")
    return [int(cards.nth(i).inner_text()) for i in range(cards.count())]


def replay_pos(page: Any) -> int:
    return int(page.evaluate("() => window.crokinoleReplay.pos"))


def check_fits(page: Any) -> None:
    """No sideways scrolling; the board and its controls are on screen from the top."""
    page.evaluate("() => window.scrollTo(0, 0)")
    f = page.evaluate(FITS)
    assert f["scrollWidth"] <= f["vw"], f
    left, top, right, bottom = f["board"]
    assert left >= 0 and top >= 0 and right <= f["vw"] + 0.5 and bottom <= f["vh"] + 0.5, f
    assert f["controls"][3] <= f["vh"] + 0.5 and f["controls"][2] <= f["vw"] + 0.5, f


@pytest.fixture(scope="module")
def finished(browser: Any, server_url: str) -> dict[str, Any]:
    """A two-round game against CPU Easy played to its result: its replay link and end."""
    ctx = browser.new_context(viewport={"width": 1200, "height": 860}, reduced_motion="reduce")
    try:
        page = ctx.new_page()
        start_game(page, server_url, "easy", query="?rounds=2&cpu_pause=0")
        play_until(page, "game-result")
        link = page.get_by_test_id("replay-link")
        sync_api.expect(link).to_have_text("Watch the replay")
        table = page.evaluate("() => window.crokinole.table")
        href = link.get_attribute("href")
        # The link names the table's game, so a rematch does not move it to the next game.
        assert href == f"/replay/{table}?game=1"
        assert link.get_attribute("target") == "_blank"
        game = state(page)
    finally:
        ctx.close()
    assert game["phase"] == "game_over"
    return {"href": href, "table": table, "game": game}


def test_the_replay_steps_jumps_and_ends_with_the_games_scores(
    new_page: Any, server_url: str, finished: dict[str, Any]
) -> None:
    width, height = SIZES["phone"]
    page = new_page(viewport={"width": width, "height": height}, is_mobile=True, has_touch=True)
    page.goto(f"{server_url}{finished['href']}&speed=20")
    page.wait_for_function(LOADED)
    # The address names the game, for the link to stay right after a rematch.
    assert page.evaluate("() => location.pathname") == f"/replay/{finished['table']}"
    assert page.evaluate("() => new URLSearchParams(location.search).get('game')") == "1"
    check_fits(page)
    game = finished["game"]
    history = game["history"]
    assert shown_scores(page) == [0, 0]
    words = page.get_by_test_id("replay-words")
    sync_api.expect(words).to_contain_text("shoots first")

    # Step forward (button): the first shot is animated, then worded as live play words it.
    page.get_by_test_id("step-forward").click()
    page.wait_for_function(STILL)
    assert replay_pos(page) == 1
    # The caption in words: which round of how many, which shot of the round, who shot it
    # (R2: 8 discs a side, 16 shots a round; south opens round 1).
    rounds = len(history)
    sync_api.expect(page.get_by_test_id("replay-position")).to_have_text(
        f"Round 1 of {rounds} · shot 1 of 16: South shot"
    )
    first_words = words.inner_text()
    assert first_words and "begins" not in first_words
    # Back (button), forward and back (keys).
    page.get_by_test_id("step-back").click()
    assert replay_pos(page) == 0
    page.keyboard.press("ArrowRight")
    page.wait_for_function(STILL)
    assert replay_pos(page) == 1 and words.inner_text() == first_words
    page.keyboard.press("ArrowLeft")
    assert replay_pos(page) == 0

    # Jump to round 2: its fresh board with the scores after round 1.
    page.get_by_test_id("round-select").select_option("2")
    page.wait_for_function(STILL)
    assert page.evaluate("() => window.crokinoleReplay.game().round") == 2
    assert page.evaluate("() => window.crokinoleReplay.game().discs.length") == 0
    assert shown_scores(page) == history[0]["scores_after"]
    sync_api.expect(words).to_contain_text("Round 2 begins")
    # Back one step: the end of round 1, its result shown as the live round result.
    page.keyboard.press("ArrowLeft")
    result = page.get_by_test_id("replay-result")
    sync_api.expect(result).to_contain_text("Round 1 result")
    assert shown_scores(page) == history[0]["scores_after"]
    totals = page.locator("[data-testid^=replay-round-total-]")
    assert [int(totals.nth(i).inner_text()) for i in range(2)] == history[0]["totals"]

    # Play (space) to the end: the game's final scores and outcome. The focus is on the
    # Play button (put there after the round was chosen): space toggles once, not twice.
    assert page.evaluate("() => document.activeElement.id") == "play-pause"
    page.keyboard.press("Space")
    page.wait_for_function("() => window.crokinoleReplay.playing")
    page.wait_for_function(
        "() => !window.crokinoleReplay.playing && !window.crokinoleReplay.animating",
        timeout=120_000,
    )
    end = page.evaluate("() => window.crokinoleReplay.game()")
    assert end["phase"] == "game_over"
    assert shown_scores(page) == [side["score"] for side in game["sides"]]
    assert end["history"] == history
    assert end["outcome"] == game["outcome"]
    sync_api.expect(page.get_by_test_id("replay-outcome")).to_be_visible()
    sync_api.expect(page.get_by_test_id("play-pause")).to_have_text("Play again")
    check_fits(page)
    page.evaluate("() => window.scrollTo(0, 0)")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "replay-360x640.png"))

    # The record's download is the table's record.json.
    download = page.get_by_test_id("download-record")
    href = download.get_attribute("href")
    assert href == f"/api/tables/{finished['table']}/record.json"
    with urllib.request.urlopen(server_url + href) as answer:
        record = json.loads(answer.read())
    assert record["state"]["scores"] == [side["score"] for side in game["sides"]]


@pytest.mark.parametrize("size", ["phone-tall", "desktop"])
def test_the_replay_fits_the_screen(
    new_page: Any, server_url: str, finished: dict[str, Any], size: str
) -> None:
    width, height = SIZES[size]
    mobile = size != "desktop"
    page = new_page(viewport={"width": width, "height": height}, is_mobile=mobile, has_touch=mobile)
    page.goto(f"{server_url}{finished['href']}&speed=20")
    page.wait_for_function(LOADED)
    check_fits(page)
    # A moment of the game with discs on the board and words under it.
    for _ in range(6):
        page.get_by_test_id("step-forward").click()
        page.wait_for_function(STILL)
    check_fits(page)
    assert re.search(r"shot 6 of \d+", page.get_by_test_id("replay-position").inner_text())
    page.screenshot(path=str(ARTIFACTS / f"replay-{width}x{height}.png"))
    # The end of round 1: its result beside (or under) the board with the scored discs.
    page.get_by_test_id("round-select").select_option("2")
    page.keyboard.press("ArrowLeft")
    sync_api.expect(page.get_by_test_id("replay-result")).to_contain_text("Round 1 result")
    check_fits(page)
    page.screenshot(path=str(ARTIFACTS / f"replay-{width}x{height}-result.png"))


def test_a_bad_replay_link_says_why(browser: Any, server_url: str) -> None:
    # Not new_page: the browser logs the server's 404 as a console error, as it should.
    ctx = browser.new_context()
    try:
        page = ctx.new_page()
        page.goto(f"{server_url}/replay/{'0' * 32}")
        status = page.get_by_test_id("replay-status")
        sync_api.expect(status).to_have_text(f"No replay: table {'0' * 32} has no game.")
    finally:
        ctx.close()


def test_the_replay_words_each_shot_as_the_live_game_did(new_page: Any, server_url: str) -> None:
    # Two people on one device: live play names every seat (nobody is "you"), as a replay does,
    # so the live shot log and the replay's words must be the same sentences.
    page = new_page(reduced_motion="reduce")
    start_game(page, server_url, "local", query="?rounds=1&cpu_pause=0")
    play_until(page, "game-result")
    live = page.locator("[data-testid=shot-log] li").all_inner_texts()[::-1]  # oldest first
    href = page.get_by_test_id("replay-link").get_attribute("href")
    assert len(live) == 16  # R2: one round, 8 discs a side
    assert href is not None and href.endswith("?game=1")
    page.goto(f"{server_url}{href}&speed=20")
    page.wait_for_function(LOADED)
    replayed = []
    for _ in live:
        page.get_by_test_id("step-forward").click()
        page.wait_for_function(STILL)
        replayed.append(page.get_by_test_id("replay-words").inner_text())
    assert replayed == live
    sync_api.expect(page.get_by_test_id("step-forward")).to_be_disabled()


def aria_name(locator: Any) -> str:
    """The accessible name Chromium's accessibility tree gives an element (Playwright's)."""
    snapshot = locator.aria_snapshot()
    found = re.match(r'- \w+ "([^"]*)"', snapshot)
    assert found, snapshot
    return found.group(1)


def test_the_replay_buttons_are_named_by_their_visible_words(
    new_page: Any, server_url: str, finished: dict[str, Any]
) -> None:
    # WCAG 2.5.3: a control's accessible name starts with the words it shows ("Next ▶" is
    # "Next shot", so that "click Next" works by voice).
    page = new_page()
    page.goto(f"{server_url}{finished['href']}")
    page.wait_for_function(LOADED)
    buttons = page.locator(".replay-controls button").all()
    assert len(buttons) == 3
    for button in buttons:
        visible = re.sub(r"[^\w ]", "", button.inner_text()).strip()
        name = aria_name(button)
        assert visible and name.lower().startswith(visible.lower()), (visible, name)
    sync_api.expect(page.get_by_role("button", name="Next shot")).to_have_attribute(
        "data-testid", "step-forward"
    )
    # One name per player: the player who gave none is their seat here, as in the review.
    scores = page.get_by_test_id("replay-scores").inner_text()
    assert "South" in scores and "You" not in scores
