"""The game on one device in Debian's Chromium against the real server: the board turned to
the player to move, the players' names, the round result's countdown against the CPU, and
the game result's record (seen at 360x640, 412x915 and 1280x800)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.web.conftest import open_more_options
from tests.web.test_browser import (
    board_point,
    expect_visible,
    last_event,
    new_page,
    open_client,
    play_until,
    shoot_from_a_free_place,
    shot,
    start_game,
    state,
    wait_my_turn,
)

__all__ = ["new_page"]  # the fixture, shared with the live client's tests

pytestmark = pytest.mark.browser

sync_api = pytest.importorskip("playwright.sync_api")

PHONE = {"width": 360, "height": 640}
TALL = {"width": 412, "height": 915}
DESKTOP = {"width": 1280, "height": 800}


def drag_back(page: Any, pixels: float) -> None:
    """Press on the waiting disc and pull it straight down the screen, then release."""
    disc = page.evaluate("() => window.crokinole.placedDisc")
    page.mouse.move(disc["x"], disc["y"])
    page.mouse.down()
    page.mouse.move(disc["x"], disc["y"] + pixels / 2, steps=4)
    page.mouse.move(disc["x"], disc["y"] + pixels, steps=6)
    page.mouse.up()


def test_the_board_turns_to_the_player_to_move_by_default(server_url: str, new_page: Any) -> None:
    page = new_page(viewport=TALL, is_mobile=True, has_touch=True, reduced_motion="reduce")
    start_game(page, server_url, "local", layout="three_singles")
    for seat in ("south", "west", "north"):
        page.wait_for_function(f"() => window.crokinole.state.current_seat === '{seat}'")
        wait_my_turn(page)
        # Nobody touched Settings: the player to move sits at the bottom, and a pull straight
        # down the screen from their disc is a shot straight at the centre for them.
        assert page.evaluate("() => window.crokinole.bottom") == seat
        disc = page.evaluate("() => window.crokinole.placedDisc")
        centre = board_point(page, 0.0, 0.0)
        assert abs(disc["x"] - centre[0]) < 2 and disc["y"] > centre[1]  # below the centre
        before = last_event(page)
        drag_back(page, 90)
        page.wait_for_function(
            f"() => window.crokinole.lastShot && window.crokinole.lastShot.seat === '{seat}'"
        )
        sent = page.evaluate("() => window.crokinole.lastShot")
        assert sent["direction"] == pytest.approx(0.0, abs=2.0), sent
        page.wait_for_function(f"() => window.crokinole.lastEvent > {before}")
        if seat == "west":
            shot(page, "one-device-turned-west-412x915")
    # Settings can still fix the board south-up.
    wait_my_turn(page)
    page.get_by_test_id("settings-button").click()
    box = page.locator("#turn-board")
    sync_api.expect(box).to_be_checked()
    box.uncheck()
    page.locator("#settings-close").click()
    page.wait_for_function("() => window.crokinole.state.current_seat === 'south'")
    page.reload()
    page.wait_for_function("() => window.crokinole.connected && window.crokinole.canShoot")
    page.wait_for_function("() => window.crokinole.bottom === 'south'")


def test_people_on_one_device_give_their_names(server_url: str, new_page: Any) -> None:
    page = new_page(viewport=PHONE, is_mobile=True, has_touch=True, reduced_motion="reduce")
    open_client(page, server_url, "?rounds=1&cpu_pause=0")
    open_more_options(page)
    page.get_by_test_id("mode-device").check()
    page.get_by_test_id("layout-select").select_option("singles")
    sync_api.expect(page.get_by_test_id("name-input")).to_be_hidden()
    names = page.get_by_test_id("seat-names")
    sync_api.expect(names).to_be_visible()
    sync_api.expect(names).to_contain_text("optional")
    page.get_by_test_id("seat-name-south").fill("  Ann ")
    page.get_by_test_id("seat-name-north").fill("Bartholomew")
    names.scroll_into_view_if_needed()
    shot(page, "one-device-names-360x640")
    page.get_by_test_id("start-button").click()
    page.wait_for_function("() => window.crokinole.state && window.crokinole.state.phase")
    game = state(page)
    assert {s["seat"]: s["name"] for s in game["seats"]} == {"south": "Ann", "north": "Bartholomew"}
    wait_my_turn(page)
    sync_api.expect(page.get_by_test_id("turn-indicator")).to_have_text("Ann to shoot")
    sync_api.expect(page.locator("#controls-legend")).to_have_text("Ann's shot")
    sync_api.expect(page.locator("#side-card-0")).to_contain_text("Ann")
    before = last_event(page)
    shoot_from_a_free_place(page, power=24)
    page.wait_for_function(f"() => window.crokinole.lastEvent > {before}")
    wait_my_turn(page)
    sync_api.expect(page.get_by_test_id("message-area")).to_contain_text("Ann's disc")
    sync_api.expect(page.get_by_test_id("turn-indicator")).to_have_text("Bartholomew to shoot")
    shot(page, "one-device-named-turn-360x640")
    play_until(page, "game-result")
    result = page.get_by_test_id("game-result")
    title = page.locator("#game-title").inner_text()
    assert title in {"Ann wins!", "Bartholomew wins!", "A draw"}, title
    sync_api.expect(result).to_contain_text("Ann")
    sync_api.expect(result).to_contain_text("Bartholomew")
    assert "South" not in result.inner_text() and "North" not in result.inner_text()
    log = " ".join(page.evaluate("() => window.crokinole.log"))
    assert "Ann's" in log and "Bartholomew's" in log and "South" not in log
    # The replay names them as the game did.
    href = page.get_by_test_id("replay-link").get_attribute("href")
    page.goto(f"{server_url}{href}")
    page.wait_for_function(
        "() => document.querySelector('[data-testid=replay-scores]').textContent.length > 0"
    )
    scores = page.get_by_test_id("replay-scores")
    sync_api.expect(scores).to_contain_text("Ann")
    sync_api.expect(scores).to_contain_text("Bartholomew")
    page.get_by_test_id("step-forward").click()
    sync_api.expect(page.get_by_test_id("replay-words")).to_contain_text("Ann")


def test_two_people_with_one_name_are_told_in_plain_words(server_url: str, new_page: Any) -> None:
    page = new_page(viewport=PHONE)
    open_client(page, server_url)
    open_more_options(page)
    page.get_by_test_id("mode-device").check()
    page.get_by_test_id("layout-select").select_option("singles")
    page.get_by_test_id("seat-name-south").fill("Ann")
    page.get_by_test_id("seat-name-north").fill("ann")
    page.get_by_test_id("start-button").click()
    sync_api.expect(page.locator("#start-status")).to_contain_text(
        "South and North are both called ann: give each player their own name"
    )
    assert page.evaluate("() => window.crokinole.screen") == "start"
    assert page.evaluate("() => window.crokinole.table") is None


def test_against_the_cpu_the_round_result_counts_down_and_the_result_counts_the_game(
    server_url: str, new_page: Any
) -> None:
    page = new_page(viewport=DESKTOP, reduced_motion="reduce")
    start_game(page, server_url, "easy", query="?rounds=2&cpu_pause=0&round_countdown=4")
    for _ in range(40):
        page.wait_for_function(
            "() => window.crokinole.canShoot"
            " || document.querySelector('[data-testid=round-result]').open",
            timeout=30_000,
        )
        if page.get_by_test_id("round-result").is_visible():
            break
        before = last_event(page)
        shoot_from_a_free_place(page, power=24)
        page.wait_for_function(f"() => window.crokinole.lastEvent > {before}")
    else:
        pytest.fail("the round did not end")
    # R6: Next, or the next round after the countdown, which the result shows.
    countdown = page.get_by_test_id("round-countdown")
    sync_api.expect(countdown).to_have_text(re.compile(r"^The next round starts in [1-4] s\.$"))
    sync_api.expect(page.get_by_test_id("next-button")).to_have_text(
        re.compile(r"^Next \([1-4]\)$")
    )
    shot(page, "cpu-round-countdown-1280x800")
    # Nobody presses Next: the round moves on by itself.
    page.wait_for_function("() => window.crokinole.state.round === 2", timeout=20_000)
    sync_api.expect(page.get_by_test_id("round-result")).to_be_hidden()
    play_until(page, "game-result")
    # The record under the result counts this game (the device's first): the one the
    # server keeps, not the one from before the game.
    title = page.locator("#game-title").inner_text()
    record = page.get_by_test_id("game-record")
    sync_api.expect(record).to_have_text(re.compile(r"\d+ won, \d+ drawn, \d+ lost\.$"))
    won, drawn, lost = (
        int(n) for n in re.findall(r"(\d+) (?:won|drawn|lost)", record.inner_text())
    )
    assert won + drawn + lost == 1
    expected = {"You win!": (1, 0, 0), "A draw": (0, 1, 0)}.get(title, (0, 0, 1))
    assert (won, drawn, lost) == expected, (title, record.inner_text())
    expect_visible(page, "game-result")
    shot(page, "cpu-game-result-record-1280x800")
    # Reopened, the result shows the same record (the welcome's, current).
    text = record.inner_text()
    page.reload()
    expect_visible(page, "game-result")
    sync_api.expect(page.get_by_test_id("game-record")).to_have_text(text)
