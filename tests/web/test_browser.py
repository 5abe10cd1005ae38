"""The browser client driven in a real Chromium against the real server (Playwright, sync API).

Each test opens a fresh browser context (its own localStorage, so its own
device token) on the server of the ``server_url`` fixture.  Screenshots go
to ``$CROKINOLE_ARTIFACTS`` (default ``artifacts/screenshots/`` at the repo
root) for people to look at.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

import pytest

from tests.web.conftest import ARTIFACTS

pytestmark = pytest.mark.browser

sync_api = pytest.importorskip("playwright.sync_api")

QUIET = "() => { const c = window.crokinole; return !!c && !c.busy && !c.animating; }"
MY_TURN = "() => { const c = window.crokinole; return !!c && c.canShoot; }"


@pytest.fixture
def new_page(browser: Any) -> Iterator[Any]:
    """Open pages in fresh contexts; fail the test on any uncaught page error."""
    contexts: list[Any] = []
    errors: list[str] = []

    def open_page(**options: Any) -> Any:
        options.setdefault("viewport", {"width": 1200, "height": 860})
        ctx = browser.new_context(**options)
        ctx.set_default_timeout(20_000)
        contexts.append(ctx)
        page = ctx.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        return page

    yield open_page
    for ctx in contexts:
        ctx.close()
    assert errors == [], f"errors in the page: {errors}"


def shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def open_client(page: Any, url: str, query: str = "") -> None:
    page.goto(f"{url}/{query}")
    page.wait_for_function("() => window.crokinole && window.crokinole.connected")


def start_game(
    page: Any, url: str, opponent: str = "easy", query: str = "", contact: bool = True
) -> None:
    open_client(page, url, query)
    page.get_by_test_id("opponent-select").select_option(opponent)
    if not contact:
        page.get_by_test_id("contact-toggle").uncheck()
    page.get_by_test_id("start-button").click()
    page.wait_for_function("() => window.crokinole.state && window.crokinole.state.phase")
    expect_visible(page, "board-canvas")


def expect_visible(page: Any, testid: str) -> None:
    sync_api.expect(page.get_by_test_id(testid)).to_be_visible()


def wait_my_turn(page: Any, timeout: float = 30_000) -> None:
    page.wait_for_function(MY_TURN, timeout=timeout)


def state(page: Any) -> dict[str, Any]:
    result: dict[str, Any] = page.evaluate("() => window.crokinole.state")
    return result


def in_hand(game: dict[str, Any], seat: str) -> int:
    return int(next(s["in_hand"] for s in game["seats"] if s["seat"] == seat))


def last_event(page: Any) -> int:
    return int(page.evaluate("() => window.crokinole.lastEvent"))


def set_aim(page: Any, position: float, direction: float, power: float) -> None:
    for name, value in (("position", position), ("direction", direction), ("power", power)):
        page.get_by_test_id(f"{name}-input").fill(str(value))


def board_point(page: Any, x: float, y: float) -> tuple[float, float]:
    p = page.evaluate("([x, y]) => window.crokinole.toPage(x, y)", [x, y])
    return p["x"], p["y"]


def line_point(game: dict[str, Any], seat_angle: float, position: float) -> tuple[float, float]:
    r = game["board"]["shooting_line_radius"]
    a = math.radians(seat_angle + position)
    return r * math.cos(a), r * math.sin(a)


def free_position(game: dict[str, Any], seat_angle: float = 270.0) -> float:
    """A placement on the seat's quarter that overlaps no disc (the middle when free)."""
    reach = 2 * game["board"]["disc_radius"] + 0.05
    for position in (0.0, 12.0, -12.0, 24.0, -24.0, 36.0, -36.0):
        x, y = line_point(game, seat_angle, position)
        if all(math.hypot(d["x"] - x, d["y"] - y) >= reach for d in game["discs"]):
            return position
    raise AssertionError("no free place on the shooting line")


def shoot_from_a_free_place(page: Any, power: float = 30.0) -> None:
    """Press Shoot from the middle of the quarter, or the nearest free place."""
    set_aim(page, free_position(state(page)), 0, power)
    page.get_by_test_id("shoot-button").click()


def drag_shot(page: Any, pull_to: tuple[float, float]) -> None:
    """Press on the waiting disc, pull to the board point ``pull_to``, release."""
    disc = page.evaluate("() => window.crokinole.placedDisc")
    tx, ty = board_point(page, *pull_to)
    page.mouse.move(disc["x"], disc["y"])
    page.mouse.down()
    page.mouse.move((disc["x"] + tx) / 2, (disc["y"] + ty) / 2, steps=4)
    page.mouse.move(tx, ty, steps=6)
    page.mouse.up()


def test_start_screen_and_how_to_play(server_url: str, new_page: Any) -> None:
    page = new_page()
    open_client(page, server_url)
    for testid in (
        "start-button",
        "opponent-select",
        "scoring-select",
        "discs-select",
        "contact-toggle",
        "how-to-play-link",
        "settings-button",
        "sound-toggle",
    ):
        expect_visible(page, testid)
    sync_api.expect(page.get_by_test_id("continue-button")).to_be_hidden()
    shot(page, "start-screen")

    page.get_by_test_id("how-to-play-link").click()
    help_dialog = page.locator("#help-dialog")
    sync_api.expect(help_dialog).to_be_visible()
    sync_api.expect(help_dialog).to_contain_text("required contact", ignore_case=True)
    assert help_dialog.locator("svg").count() >= 4
    shot(page, "how-to-play")
    page.keyboard.press("Escape")
    sync_api.expect(help_dialog).to_be_hidden()

    sound = page.get_by_test_id("sound-toggle")
    assert sound.get_attribute("aria-pressed") == "false"  # sound is off by default
    sound.click()
    assert sound.get_attribute("aria-pressed") == "true"


def test_play_against_the_cpu_by_click_drag_and_keyboard(server_url: str, new_page: Any) -> None:
    page = new_page()
    start_game(page, server_url, "easy")
    wait_my_turn(page)
    game = state(page)
    assert page.evaluate("() => window.crokinole.you") == ["south"]

    # Place by clicking the shooting line 12° to the right of the middle of the quarter.
    page.get_by_test_id("board-canvas").click(
        position=_canvas_offset(page, *line_point(game, 270, 12.0))
    )
    assert page.evaluate("() => window.crokinole.aim.position") == pytest.approx(12.0, abs=0.3)

    # Shoot by dragging straight back, away from the centre: direction 0.
    hand = in_hand(game, "south")
    cx, cy = line_point(game, 270, page.evaluate("() => window.crokinole.aim.position"))
    drag_shot(page, (cx * 1.25, cy * 1.25))
    page.wait_for_function("() => window.crokinole.animating", timeout=10_000)
    sent = page.evaluate("() => window.crokinole.lastShot")
    assert sent["seat"] == "south"
    assert sent["direction"] == pytest.approx(0.0, abs=1.5)
    assert 10.0 < sent["power"] <= 100.0
    page.wait_for_function("() => !window.crokinole.animating")
    after = state(page)
    assert in_hand(after, "south") == hand - 1
    assert page.get_by_test_id("message-area").inner_text().strip() != ""

    # The CPU answers with a north shot, animated in turn.
    wait_my_turn(page)
    answered = state(page)
    assert in_hand(answered, "north") == in_hand(game, "north") - 1
    shot(page, "game-in-progress")

    # Keyboard: D moves the disc, arrows aim, Enter shoots.
    page.get_by_test_id("board-canvas").focus()
    page.keyboard.press("Escape")  # resets the aim: direction 0, power 30
    for _ in range(4):
        page.keyboard.press("d")
    page.keyboard.press("ArrowRight")
    for _ in range(3):
        page.keyboard.press("ArrowUp")
    aim = page.evaluate("() => window.crokinole.aim")
    assert aim["position"] == pytest.approx(2.0)
    assert aim["direction"] == pytest.approx(0.5)
    assert aim["power"] == pytest.approx(33.0)
    assert page.get_by_test_id("position-input").input_value() == "2"
    before = last_event(page)
    page.keyboard.press("Enter")
    page.wait_for_function(f"() => window.crokinole.lastEvent > {before}")
    sent = page.evaluate("() => window.crokinole.lastShot")
    assert (sent["position"], sent["direction"], sent["power"]) == (2.0, 0.5, 33.0)
    wait_my_turn(page)
    assert in_hand(state(page), "south") == hand - 2

    # Pause: an overlay that blocks input until resumed.
    page.get_by_test_id("pause-button").click()
    expect_visible(page, "pause-overlay")
    assert page.evaluate("() => window.crokinole.canShoot") is False
    page.get_by_test_id("resume-button").click()
    wait_my_turn(page, timeout=5_000)


def test_an_overlapping_placement_is_refused(server_url: str, new_page: Any) -> None:
    page = new_page()
    start_game(page, server_url, "local", contact=False)
    wait_my_turn(page)
    # A gentle shot stops just inside the shooting line, in front of the middle of the quarter.
    set_aim(page, 0, 0, 8)
    page.get_by_test_id("shoot-button").click()
    page.wait_for_function("() => window.crokinole.state.current_seat === 'north'")
    wait_my_turn(page)
    disc = next(d for d in state(page)["discs"] if d["owner"] == "south")
    assert -11.4 < disc["y"] < -10.5
    set_aim(page, 0, 0, 8)
    page.get_by_test_id("shoot-button").click()
    page.wait_for_function("() => window.crokinole.state.current_seat === 'south'")
    wait_my_turn(page)

    # Clicking the line at the middle of the quarter would overlap that disc: refused.
    game = state(page)
    page.get_by_test_id("position-input").fill("10")
    page.get_by_test_id("board-canvas").click(
        position=_canvas_offset(page, *line_point(game, 270, 0.0))
    )
    message = page.get_by_test_id("message-area")
    sync_api.expect(message).to_contain_text("overlap")
    assert page.evaluate("() => window.crokinole.aim.position") == pytest.approx(10.0)

    # Moving onto it with the slider shows the reason, and Shoot is refused.
    page.get_by_test_id("position-input").fill("0")
    before = last_event(page)
    page.get_by_test_id("shoot-button").click()
    sync_api.expect(message).to_contain_text("overlap")
    page.wait_for_timeout(300)
    assert last_event(page) == before
    assert in_hand(state(page), "south") == in_hand(game, "south")


def test_a_short_game_to_its_result(server_url: str, new_page: Any) -> None:
    # Reduced motion: animations jump to their end, which keeps the test quick.
    page = new_page(reduced_motion="reduce")
    start_game(page, server_url, "easy", query="?rounds=2")
    assert state(page)["rules"]["rounds"] == 2
    seen_round_result = False
    for _ in range(80):
        page.wait_for_function(
            "() => window.crokinole.canShoot"
            " || document.querySelector('[data-testid=round-result]').open"
            " || document.querySelector('[data-testid=game-result]').open",
            timeout=30_000,
        )
        if page.get_by_test_id("game-result").is_visible():
            break
        if page.get_by_test_id("round-result").is_visible():
            seen_round_result = True
            sync_api.expect(page.get_by_test_id("round-result")).to_contain_text("Round 1")
            shot(page, "round-result")
            page.get_by_test_id("next-button").click()
            page.wait_for_function("() => window.crokinole.state.round === 2")
            continue
        before = last_event(page)
        shoot_from_a_free_place(page)
        page.wait_for_function(f"() => window.crokinole.lastEvent > {before}")
    else:
        pytest.fail("the game did not end")
    assert seen_round_result
    result = page.get_by_test_id("game-result")
    sync_api.expect(result).to_be_visible()
    final = state(page)
    assert final["phase"] == "game_over"
    assert len(final["history"]) == 2
    shot(page, "game-result")

    room = page.evaluate("() => window.crokinole.room")
    page.get_by_test_id("rematch-button").click()
    page.wait_for_function(f"() => window.crokinole.room !== {json.dumps(room)}")
    sync_api.expect(result).to_be_hidden()
    fresh = state(page)
    assert fresh["phase"] == "playing"
    assert fresh["round"] == 1
    assert fresh["rules"]["rounds"] == 2


def test_reload_mid_game_continues(server_url: str, new_page: Any) -> None:
    page = new_page()
    start_game(page, server_url, "easy")
    wait_my_turn(page)
    shoot_from_a_free_place(page)
    wait_my_turn(page)
    before = state(page)
    event = last_event(page)

    page.reload()
    page.wait_for_function("() => window.crokinole.connected")
    wait_my_turn(page)
    assert state(page) == before
    assert last_event(page) == event

    # Reload while a shot is in the air: it is replayed from the position before it.
    shoot_from_a_free_place(page)
    page.wait_for_function("() => window.crokinole.animating")
    page.reload()
    page.wait_for_function("() => window.crokinole.connected")
    page.wait_for_function(f"() => window.crokinole.lastEvent > {event}")
    wait_my_turn(page)
    assert in_hand(state(page), "south") == in_hand(before, "south") - 1
    after_reload = state(page)

    # Without the saved game, the start screen offers to continue it.
    page.evaluate("() => localStorage.removeItem('crokinole.game')")
    page.reload()
    button = page.get_by_test_id("continue-button")
    sync_api.expect(button).to_be_visible()
    button.click()
    wait_my_turn(page)
    assert state(page) == after_reload


def test_reconnects_after_the_connection_drops(server_url: str, new_page: Any) -> None:
    page = new_page()
    sockets: list[Any] = []
    allow = {"connect": True}

    def route(ws: Any) -> None:
        if allow["connect"]:
            ws.connect_to_server()
            sockets.append(ws)
        else:
            ws.close()

    page.route_web_socket("**/ws", route)
    start_game(page, server_url, "easy")
    wait_my_turn(page)
    before = state(page)
    event = last_event(page)

    allow["connect"] = False
    sockets[-1].close()
    indicator = page.get_by_test_id("connection")
    sync_api.expect(indicator).to_be_visible()
    sync_api.expect(indicator).to_contain_text("reconnecting")
    assert page.evaluate("() => window.crokinole.canShoot") is False

    allow["connect"] = True
    page.wait_for_function("() => window.crokinole.connected", timeout=20_000)
    sync_api.expect(indicator).to_be_hidden()
    assert len(sockets) == 2
    wait_my_turn(page)
    assert state(page) == before
    shoot_from_a_free_place(page)
    page.wait_for_function(f"() => window.crokinole.lastEvent > {event}")
    wait_my_turn(page)
    assert in_hand(state(page), "south") == in_hand(before, "south") - 1


def test_two_players_on_one_device_alternate(server_url: str, new_page: Any) -> None:
    page = new_page()
    start_game(page, server_url, "local")
    assert page.evaluate("() => window.crokinole.you") == ["south", "north"]
    wait_my_turn(page)
    first = state(page)["current_seat"]
    assert first == "south"
    set_aim(page, 0, 0, 40)
    page.get_by_test_id("shoot-button").click()
    page.wait_for_function("() => window.crokinole.state.current_seat === 'north'")
    wait_my_turn(page)
    sync_api.expect(page.locator("#controls-legend")).to_contain_text("north")
    expect_visible(page, "turn-indicator")
    sync_api.expect(page.get_by_test_id("turn-indicator")).to_contain_text("North")

    # North drags from its disc at the top; pulling toward the north-east sends the disc
    # south-west, which is to the north player's right: a positive direction.
    game = state(page)
    x, y = line_point(game, 90, 0.0)
    drag_shot(page, (x + 2.0, y + 2.0))
    page.wait_for_function("() => window.crokinole.lastShot.seat === 'north'")
    sent = page.evaluate("() => window.crokinole.lastShot")
    assert sent["direction"] == pytest.approx(45.0, abs=3.0)
    page.wait_for_function("() => window.crokinole.state.current_seat === 'south'")
    wait_my_turn(page)
    game = state(page)
    assert in_hand(game, "south") == in_hand(game, "north") == 7


def test_settings_start_a_new_game_after_confirmation(server_url: str, new_page: Any) -> None:
    page = new_page()
    start_game(page, server_url, "easy")
    wait_my_turn(page)
    room = page.evaluate("() => window.crokinole.room")
    page.get_by_test_id("settings-button").click()
    dialog = page.get_by_test_id("settings-dialog")
    sync_api.expect(dialog).to_be_visible()
    dialog.locator("select[name=opponent]").select_option("hard")
    dialog.locator("select[name=scoring]").select_option("to_100")
    dialog.locator("select[name=discs]").select_option("12")
    dialog.locator("input[name=required_contact]").uncheck()
    apply = page.get_by_test_id("settings-apply")
    apply.click()
    # The first press only asks: the game in progress would be abandoned.
    sync_api.expect(dialog).to_contain_text("abandons")
    assert page.evaluate("() => window.crokinole.room") == room
    apply.click()
    page.wait_for_function(f"() => window.crokinole.room !== {json.dumps(room)}")
    game = state(page)
    assert game["rules"]["scoring"] == "to_100"
    assert game["rules"]["discs_per_side"] == 12
    assert game["rules"]["required_contact"] is False
    assert page.evaluate("() => window.crokinole.opponent") == "hard"

    # Resigning (also confirmed first) ends the game and offers a new one.
    page.get_by_test_id("settings-button").click()
    page.get_by_test_id("settings-resign").click()
    page.get_by_test_id("settings-resign").click()
    result = page.get_by_test_id("game-result")
    sync_api.expect(result).to_be_visible()
    sync_api.expect(result).to_contain_text("resigned")
    page.get_by_test_id("new-game-button").click()
    expect_visible(page, "start-button")
    record = page.get_by_test_id("record")
    sync_api.expect(record).to_contain_text("CPU Hard")


def test_phone_portrait_layout(server_url: str, new_page: Any) -> None:
    page = new_page(
        viewport={"width": 390, "height": 844},
        device_scale_factor=3,
        is_mobile=True,
        has_touch=True,
    )
    start_game(page, server_url, "normal")
    wait_my_turn(page)
    box = page.get_by_test_id("board-canvas").bounding_box()
    assert box is not None
    assert box["x"] >= 0
    assert box["x"] + box["width"] <= 390
    assert box["width"] >= 300
    # HiDPI: the backing store follows devicePixelRatio.
    width = page.evaluate("() => document.querySelector('[data-testid=board-canvas]').width")
    assert width == pytest.approx(box["width"] * 3, abs=3)
    shoot_box = page.get_by_test_id("shoot-button").bounding_box()
    assert shoot_box is not None
    assert shoot_box["y"] + shoot_box["height"] <= 844
    shot(page, "phone-portrait")


def _canvas_offset(page: Any, x: float, y: float) -> dict[str, float]:
    """Position of board point (x, y) relative to the canvas, for ``locator.click``."""
    px, py = board_point(page, x, y)
    box = page.get_by_test_id("board-canvas").bounding_box()
    return {"x": px - box["x"], "y": py - box["y"]}
