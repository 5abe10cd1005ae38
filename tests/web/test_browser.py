"""The browser client driven in a real Chromium against the real server (Playwright, sync API).

Each test opens a fresh browser context (its own localStorage, so its own
device token) on the server of the ``server_url`` fixture.  Screenshots go
to ``$CROKINOLE_ARTIFACTS`` (default ``artifacts/screenshots/`` at the repo
root) for people to look at.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from typing import Any

import pytest

from crokinole import TOURNAMENT_BOARD, DiscStatus, Seat, Shot, simulate_shot
from crokinole.server.ws.views import levels_payload
from tests.web.conftest import ARTIFACTS, GAME_SOCKET, inline_for_csp, open_more_options, with_csp

pytestmark = pytest.mark.browser

sync_api = pytest.importorskip("playwright.sync_api")

QUIET = "() => { const c = window.crokinole; return !!c && !c.busy && !c.animating; }"
MY_TURN = "() => { const c = window.crokinole; return !!c && c.canShoot; }"


@pytest.fixture
def new_page(browser: Any) -> Iterator[Any]:
    """Open pages in fresh contexts.

    The test fails on any uncaught page error and on any console error, which
    includes every Content-Security-Policy violation (contract 4: no inline
    script, style attribute or handler may be refused by the policy).
    """
    contexts: list[Any] = []
    errors: list[str] = []

    def on_console(msg: Any) -> None:
        if msg.type == "error":
            errors.append(f"console: {msg.text}")

    def open_page(**options: Any) -> Any:
        options.setdefault("viewport", {"width": 1200, "height": 860})
        ctx = browser.new_context(**options)
        ctx.set_default_timeout(20_000)
        contexts.append(ctx)
        page = ctx.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("console", on_console)
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
    page: Any,
    url: str,
    opponent: str = "easy",
    query: str = "",
    contact: bool = True,
    layout: str = "singles",
) -> None:
    """Start a game on this device: against a CPU ``opponent`` level, or ``"local"`` (people),
    from the full form (under "More options")."""
    open_client(page, url, query)
    open_more_options(page)
    if opponent == "local":
        page.get_by_test_id("mode-device").check()
    else:
        page.get_by_test_id("mode-cpu").check()
        page.wait_for_function("() => window.crokinole.levels.length > 0")
        page.get_by_test_id("opponent-select").select_option(opponent)
    page.get_by_test_id("layout-select").select_option(layout)
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


def open_fine_aim(page: Any) -> None:
    """Open the "Fine aim" drawer where it is folded (phones), as a player does to type an aim."""
    if page.get_by_test_id("fine-aim").get_attribute("open") is None:
        page.get_by_test_id("fine-aim-toggle").click()


def set_aim(page: Any, position: float, direction: float, power: float) -> None:
    open_fine_aim(page)
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
    open_more_options(page)
    for testid in (
        "start-button",
        "opponent-select",
        "scoring-select",
        "discs-select",
        "contact-toggle",
        "nav-how-to-play",
        "settings-button",
        "sound-toggle",
    ):
        expect_visible(page, testid)
    sync_api.expect(page.get_by_test_id("continue-button")).to_be_hidden()
    shot(page, "start-screen")

    page.get_by_test_id("nav-how-to-play").click()
    help_dialog = page.locator("#help-dialog")
    sync_api.expect(help_dialog).to_be_visible()
    sync_api.expect(help_dialog).to_contain_text("required contact", ignore_case=True)
    assert help_dialog.locator("svg").count() >= 4
    # Under the dialog's own heading the page's headings come one level down (h1 -> h2).
    assert help_dialog.locator("h1").count() == 0
    assert help_dialog.locator("h2").count() == 1 and help_dialog.locator("h3").count() >= 8
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
    page.wait_for_function("() => window.crokinole.lastShot !== null")
    sent = page.evaluate("() => window.crokinole.lastShot")
    assert sent["seat"] == "south"
    assert sent["direction"] == pytest.approx(0.0, abs=1.5)
    assert 10.0 < sent["power"] <= 100.0
    # The module's first shot may wait for the server to compile its kernel on a busy machine.
    page.wait_for_function(
        f"() => window.crokinole.state.seats[0].in_hand === {hand - 1}", timeout=90_000
    )
    after = state(page)
    assert in_hand(after, "south") == hand - 1
    assert page.get_by_test_id("message-area").inner_text().strip() != ""

    # The CPU answers with a north shot, animated in turn.
    wait_my_turn(page)
    answered = state(page)
    assert in_hand(answered, "north") == in_hand(game, "north") - 1
    shot(page, "game-in-progress")

    # R3: the turn starts at the middle of the line (or the nearest free place), not at the
    # last placement (12); keyboard: D moves the disc, arrows aim, Enter shoots.
    middle = page.evaluate("() => window.crokinole.freePosition(0)")
    assert page.evaluate("() => window.crokinole.aim.position") == pytest.approx(middle, abs=0.01)
    assert abs(middle) < 11.5
    page.get_by_test_id("position-input").fill("0")
    page.get_by_test_id("board-canvas").focus()
    page.keyboard.press("Escape")  # resets the aim: direction 0, power 20
    for _ in range(4):
        page.keyboard.press("d")
    page.keyboard.press("ArrowRight")
    for _ in range(3):
        page.keyboard.press("ArrowUp")
    aim = page.evaluate("() => window.crokinole.aim")
    assert aim["position"] == pytest.approx(2.0)
    assert aim["direction"] == pytest.approx(0.5)
    assert aim["power"] == pytest.approx(23.0)
    assert page.get_by_test_id("position-input").input_value() == "2"
    before = last_event(page)
    page.keyboard.press("Enter")
    page.wait_for_function(f"() => window.crokinole.lastEvent > {before}")
    sent = page.evaluate("() => window.crokinole.lastShot")
    assert (sent["position"], sent["direction"], sent["power"]) == (2.0, 0.5, 23.0)
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
    sync_api.expect(message).to_contain_text("overlap one of your discs")
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
    start_game(page, server_url, "easy", query="?rounds=2&cpu_pause=0")
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

    # A rematch: a new game at the same table.
    table = page.evaluate("() => window.crokinole.table")
    page.get_by_test_id("rematch-button").click()
    page.wait_for_function("() => window.crokinole.state.phase === 'playing'")
    sync_api.expect(result).to_be_hidden()
    assert page.evaluate("() => window.crokinole.table") == table
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
    # The table's version moved on only by the device's presence (gone, back).
    assert last_event(page) >= event
    event = last_event(page)

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


def test_a_reconnect_keeps_the_start_form_as_the_player_left_it(
    server_url: str, new_page: Any
) -> None:
    page = new_page()
    sockets: list[Any] = []

    def route(ws: Any) -> None:
        server = ws.connect_to_server()
        sockets.append(ws)
        again = len(sockets) > 1

        def from_server(message: str | bytes) -> None:
            # The second connection's welcome renames a level, so the test can tell that
            # the page has handled it.
            msg = json.loads(message)
            if again and msg.get("type") == "welcome":
                msg["levels"][0]["name"] += " (again)"
            ws.send(json.dumps(msg))

        server.on_message(from_server)

    page.route_web_socket(GAME_SOCKET, route)
    open_client(page, server_url)
    open_more_options(page)
    page.get_by_test_id("opponent-select").select_option("hard")
    page.get_by_test_id("name-input").fill("Ada")
    sockets[-1].close()
    page.wait_for_function(
        "() => window.crokinole.levels.some((l) => l.name.endsWith('(again)'))", timeout=20_000
    )
    # A new connection's welcome must not put back the saved choices over the player's own.
    assert page.get_by_test_id("opponent-select").input_value() == "hard"
    assert page.get_by_test_id("name-input").input_value() == "Ada"


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

    page.route_web_socket(GAME_SOCKET, route)
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
    # The board turns to the player to move unless Settings fixes it: fixed, south-up, here.
    page.get_by_test_id("settings-button").click()
    page.locator("#turn-board").uncheck()
    page.locator("#settings-close").click()
    first = state(page)["current_seat"]
    assert first == "south"
    set_aim(page, 0, 0, 40)
    page.get_by_test_id("shoot-button").click()
    page.wait_for_function("() => window.crokinole.state.current_seat === 'north'")
    wait_my_turn(page)
    # One device, two people who gave no names: each is named by their seat; the board is
    # fixed south-up.
    sync_api.expect(page.locator("#controls-legend")).to_contain_text("North's shot")
    sync_api.expect(page.locator("#controls-hint")).to_contain_text("from the top")
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


def test_doubles_against_the_cpu_with_a_cpu_partner(server_url: str, new_page: Any) -> None:
    page = new_page(reduced_motion="reduce")
    start_game(page, server_url, "easy", query="?cpu_pause=0", layout="doubles")
    wait_my_turn(page)
    assert page.evaluate("() => window.crokinole.you") == ["south"]
    game = state(page)
    # R2: doubles, partners opposite; 12 discs a team, 6 each. The partner north is a CPU.
    names = {s["seat"]: (s["name"], s["cpu"]) for s in game["seats"]}
    # Three CPUs of one level are told apart by their seats.
    assert names["north"] == ("CPU Easy (North)", "easy")
    assert names["west"][0] == "CPU Easy (West)"
    assert names["west"][1] == names["east"][1] == "easy"
    assert [s["seats"] for s in game["sides"]] == [["south", "north"], ["west", "east"]]
    assert in_hand(game, "south") == 6
    shoot_from_a_free_place(page)
    # West, north and east (the CPUs) shoot in turn before south again (R2: clockwise).
    wait_my_turn(page)
    after = state(page)
    assert [in_hand(after, s) for s in ("south", "west", "north", "east")] == [5, 5, 5, 5]
    assert len(page.evaluate("() => window.crokinole.log")) == 4
    shot(page, "doubles-vs-cpu")


def test_three_people_on_one_device_with_the_board_turned(server_url: str, new_page: Any) -> None:
    page = new_page(reduced_motion="reduce")
    start_game(page, server_url, "local", layout="three_singles")
    assert page.evaluate("() => window.crokinole.you") == ["south", "west", "north"]
    wait_my_turn(page)
    for seat, word in (("south", "South"), ("west", "West"), ("north", "North")):
        page.wait_for_function(f"() => window.crokinole.state.current_seat === '{seat}'")
        wait_my_turn(page)
        # The board turns so that the player to move sits at the bottom (by default).
        assert page.evaluate("() => window.crokinole.bottom") == seat
        sync_api.expect(page.locator("#controls-legend")).to_contain_text(f"{word}'s shot")
        shoot_from_a_free_place(page, power=24)
    page.wait_for_function("() => window.crokinole.state.current_seat === 'south'")
    game = state(page)
    assert [in_hand(game, s) for s in ("south", "west", "north")] == [7, 7, 7]
    assert len(game["sides"]) == 3
    shot(page, "three-on-one-device")


def test_people_on_one_device_are_asked_their_names(server_url: str, new_page: Any) -> None:
    # Sharing a device, the players name their seats (optional): no one name for the device.
    page = new_page()
    open_client(page, server_url)
    open_more_options(page)
    name = page.get_by_test_id("name-input")
    sync_api.expect(name).to_be_visible()
    sync_api.expect(page.get_by_test_id("seat-names")).to_be_hidden()
    page.get_by_test_id("mode-device").check()
    page.get_by_test_id("layout-select").select_option("three_singles")
    sync_api.expect(name).to_be_hidden()
    note = page.get_by_test_id("layout-note")
    sync_api.expect(note).to_have_text(
        "3 people take turns on this device as South, West and North."
    )
    fields = page.get_by_test_id("seat-names").locator("input")
    assert [f.get_attribute("placeholder") for f in fields.all()] == ["South", "West", "North"]
    page.get_by_test_id("seat-name-west").fill("Bob")
    page.get_by_test_id("people-select").select_option("2")
    sync_api.expect(note).to_have_text(
        "2 people take turns on this device as South and West; CPUs play the other seats."
    )
    sync_api.expect(fields).to_have_count(2)
    sync_api.expect(page.get_by_test_id("seat-name-west")).to_have_value("Bob")  # kept
    page.get_by_test_id("mode-cpu").check()
    sync_api.expect(name).to_be_visible()
    sync_api.expect(page.get_by_test_id("seat-names")).to_be_hidden()


def test_settings_resign_or_start_anew_after_confirmation(server_url: str, new_page: Any) -> None:
    page = new_page()
    start_game(page, server_url, "hard", query="?cpu_pause=0")
    wait_my_turn(page)
    table = page.evaluate("() => window.crokinole.table")
    page.get_by_test_id("settings-button").click()
    dialog = page.get_by_test_id("settings-dialog")
    sync_api.expect(dialog).to_be_visible()
    apply = page.get_by_test_id("settings-apply")
    apply.click()
    # The first press only asks: the game in progress would be abandoned, a loss vs the CPU.
    sync_api.expect(dialog).to_contain_text("counts as a loss")
    assert page.evaluate("() => window.crokinole.table") == table
    page.locator("#settings-close").click()

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


# ---------------------------------------------------------------- issue 9: phones, results, words


VIEWPORTS = [
    pytest.param({"width": 360, "height": 640}, True, id="360x640"),
    pytest.param({"width": 375, "height": 667}, True, id="375x667"),
    pytest.param({"width": 390, "height": 844}, True, id="390x844"),
    pytest.param({"width": 412, "height": 915}, True, id="412x915"),
    pytest.param({"width": 640, "height": 360}, True, id="landscape-640x360"),
    pytest.param({"width": 1280, "height": 800}, False, id="desktop-1280x800"),
]

FITS = """() => {
  const canvas = document.querySelector('[data-testid=board-canvas]');
  const r = canvas.getBoundingClientRect();
  const c = window.crokinole;
  const b = c.state.board;
  // Board points that must be visible and touchable: the placed disc, the four ends of the
  // playing surface, and the centre.
  const R = b.surface_radius;
  const points = [[0, 0], [0, -R], [0, R], [-R, 0], [R, 0]].map(([x, y]) => c.toPage(x, y));
  if (c.placedDisc) points.push(c.placedDisc);
  const hits = points.map((p) => document.elementFromPoint(p.x, p.y) === canvas);
  return {
    left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width,
    vw: document.documentElement.clientWidth, vh: window.innerHeight,
    scrollWidth: document.documentElement.scrollWidth, hits,
  };
}"""


def check_board_fits(page: Any) -> None:
    """The whole board in the visible area, nothing over it, no sideways scrolling."""
    page.evaluate("() => window.scrollTo(0, 0)")
    f = page.evaluate(FITS)
    assert f["left"] >= 0 and f["top"] >= 0, f
    assert f["right"] <= f["vw"] + 0.5 and f["bottom"] <= f["vh"] + 0.5, f
    assert all(f["hits"]), f"the board is covered at some of its points: {f}"
    assert f["scrollWidth"] <= f["vw"], f"the page scrolls sideways: {f}"


@pytest.mark.parametrize(("viewport", "touch"), VIEWPORTS)
def test_board_fits_every_screen(
    server_url: str, new_page: Any, viewport: dict[str, int], touch: bool
) -> None:
    page = new_page(viewport=viewport, is_mobile=touch, has_touch=touch, device_scale_factor=2)
    start_game(page, server_url, "easy", query="?cpu_pause=0")
    wait_my_turn(page)
    check_board_fits(page)
    # A tap on the disc reaches the board (not a slider over it), and a drag shoots.
    game = state(page)
    hand = in_hand(game, "south")
    cx, cy = line_point(game, 270, page.evaluate("() => window.crokinole.aim.position"))
    drag_shot(page, (cx * 1.2, cy * 1.2))
    page.wait_for_function(f"() => window.crokinole.state.seats[0].in_hand === {hand - 1}")
    wait_my_turn(page)
    check_board_fits(page)
    name = f"game-{viewport['width']}x{viewport['height']}"
    shot(page, name)


@pytest.mark.parametrize("layout", ["two_vs_one", "three_singles", "doubles"])
@pytest.mark.parametrize("size", [(360, 640), (640, 360)], ids=["360x640", "landscape-640x360"])
def test_three_and_four_players_fit_a_phone(
    server_url: str, new_page: Any, layout: str, size: tuple[int, int]
) -> None:
    width, height = size
    page = new_page(
        viewport={"width": width, "height": height}, is_mobile=True, has_touch=True,
        device_scale_factor=2, reduced_motion="reduce",
    )  # fmt: skip
    start_game(page, server_url, "easy", query="?cpu_pause=0", layout=layout)
    wait_my_turn(page)
    check_board_fits(page)
    # Every side's card is on the screen, side by side, none cut off.
    cards = page.evaluate(
        """() => Array.from(document.querySelectorAll('.side-card:not([hidden])')).map((c) => {
             const r = c.getBoundingClientRect();
             return {left: r.left, right: r.right, scroll: c.scrollWidth, width: c.clientWidth};
           })"""
    )
    assert len(cards) == len(state(page)["sides"])
    for card in cards:
        assert card["left"] >= 0 and card["right"] <= width, cards
        assert card["scroll"] <= card["width"] + 1, cards
    shot(page, f"{layout}-{width}x{height}")


def play_until(page: Any, selector: str, limit: int = 80) -> None:
    """Shoot from free places (pressing Next on round results) until ``selector`` opens."""
    for _ in range(limit):
        page.wait_for_function(
            "() => window.crokinole.canShoot"
            " || document.querySelector('[data-testid=round-result]').open"
            " || document.querySelector('[data-testid=game-result]').open",
            timeout=30_000,
        )
        if page.get_by_test_id(selector).is_visible():
            return
        if page.get_by_test_id("round-result").is_visible():
            page.get_by_test_id("next-button").click()
            page.wait_for_function("() => window.crokinole.state.phase === 'playing'")
            continue
        before = last_event(page)
        shoot_from_a_free_place(page, power=24)
        page.wait_for_function(f"() => window.crokinole.lastEvent > {before}")
    pytest.fail(f"{selector} never opened")


TABLES_FIT = """(id) => {
  const d = document.querySelector(`[data-testid=${id}]`);
  const r = d.getBoundingClientRect();
  const tables = Array.from(d.querySelectorAll('table')).map((t) => ({
    width: t.scrollWidth, room: t.parentElement.clientWidth,
  }));
  return {left: r.left, right: r.right, vw: document.documentElement.clientWidth,
          dialogScroll: d.scrollWidth, dialogWidth: d.clientWidth, tables};
}"""


def check_tables_fit(page: Any, testid: str) -> None:
    f = page.evaluate(TABLES_FIT, testid)
    assert f["tables"], f
    assert f["left"] >= 0 and f["right"] <= f["vw"], f
    assert f["dialogScroll"] <= f["dialogWidth"], f
    for t in f["tables"]:
        assert t["width"] <= t["room"], f


def test_result_tables_fit_a_390_phone(server_url: str, new_page: Any) -> None:
    page = new_page(
        viewport={"width": 390, "height": 844},
        is_mobile=True,
        has_touch=True,
        reduced_motion="reduce",
    )
    start_game(page, server_url, "easy", query="?rounds=2&cpu_pause=0")
    play_until(page, "round-result")
    check_tables_fit(page, "round-result")
    shot(page, "round-result-390")
    # "Look at the board" folds the result away from the board, and back.
    page.get_by_test_id("peek-button").click()
    check_board_fits(page)
    page.get_by_test_id("peek-button").click()
    sync_api.expect(page.locator("#round-body table")).to_be_visible()
    play_until(page, "game-result")
    check_tables_fit(page, "game-result")
    shot(page, "game-result-390")


def test_round_result_beside_the_board_on_a_desktop(server_url: str, new_page: Any) -> None:
    page = new_page(viewport={"width": 1280, "height": 800}, reduced_motion="reduce")
    start_game(page, server_url, "easy", query="?rounds=2&cpu_pause=0")
    play_until(page, "round-result")
    board = page.get_by_test_id("board-canvas").bounding_box()
    result = page.get_by_test_id("round-result").bounding_box()
    assert board is not None and result is not None
    # Side by side: the result starts right of the board and stays on the screen.
    assert result["x"] >= board["x"] + board["width"], (board, result)
    assert result["x"] + result["width"] <= 1280
    check_tables_fit(page, "round-result")
    shot(page, "round-result")


def words(page: Any, report: dict[str, Any], game: dict[str, Any], you: list[str]) -> str:
    text: str = page.evaluate(
        """async ([report, game, you]) => {
          const m = await import('/static/lib/words.js');
          return m.describeShot(report, m.viewerOf(game, you, false), report.seat);
        }""",
        [report, game, you],
    )
    return text


def disc(did: int, owner: str, **kw: Any) -> dict[str, Any]:
    base = {
        "id": did, "owner": owner, "side": 0 if owner == "south" else 1, "shot": False,
        "from_zone": None, "result": "board", "zone": None, "reason": None,
        "cancelled_twenty": False,
    }  # fmt: skip
    return {**base, **kw}


def test_shot_reports_are_worded_for_the_viewer(server_url: str, new_page: Any) -> None:
    page = new_page()
    open_client(page, server_url)
    game = {"seats": [{"seat": "south", "name": "You"}, {"seat": "north", "name": "CPU Easy"}]}
    twenty = {
        "seat": "south", "valid": True, "foul": None, "unplayed": False, "hit": [],
        "discs": [disc(8, "south", shot=True, result="hole", zone=20)],
    }  # fmt: skip
    assert words(page, twenty, game, ["south"]) == "Your disc went into the 20."
    knock = {
        "seat": "south", "valid": True, "foul": None, "unplayed": False, "hit": [2],
        "discs": [
            disc(8, "south", shot=True, zone=10),
            disc(2, "north", from_zone=10, result="ditch", reason="off_board"),
        ],
    }  # fmt: skip
    assert words(page, knock, game, ["south"]) == (
        "Your disc stopped in the 10. CPU Easy's disc in the 10 went into the ditch."
    )
    # The same shot seen by the other player (the CPU's seat, had it a screen).
    ann = {"seats": [{"seat": "south", "name": "Ann"}, {"seat": "north", "name": "Bob"}]}
    assert words(page, knock, ann, ["north"]) == (
        "Ann's disc stopped in the 10. Your disc in the 10 went into the ditch."
    )
    foul = {
        "seat": "south", "valid": False, "foul": "no_contact", "unplayed": False, "hit": [],
        "discs": [
            disc(9, "south", shot=True, result="ditch", reason="foul"),
            disc(3, "south", from_zone=5, result="ditch", reason="foul"),
        ],
    }  # fmt: skip
    assert words(page, foul, game, ["south"]) == (
        "Foul: no opposing disc was touched — your disc and 1 disc of yours it moved"
        " go to the ditch."
    )
    cpu = {
        "seat": "north", "valid": True, "foul": None, "unplayed": False, "hit": [4],
        "discs": [
            disc(10, "north", shot=True, zone=15),
            disc(4, "south", from_zone=15, zone=5),
        ],
    }  # fmt: skip
    assert words(page, cpu, game, ["south"]) == (
        "CPU Easy's disc stopped in the 15. Your disc in the 15 was knocked into the 5."
    )
    unplayed = {
        "seat": "north", "valid": False, "foul": "timeout", "unplayed": True, "hit": [],
        "discs": [disc(11, "north", shot=True, result="ditch", reason="timeout")],
    }  # fmt: skip
    assert words(page, unplayed, game, ["south"]) == (
        "CPU Easy had no room on the shooting line: the disc goes to the ditch unplayed."
    )
    # R4 on an open board; a 20 of the shot disc that the foul cancels.
    open_foul = {
        "seat": "north", "valid": False, "foul": "not_in_fifteen", "unplayed": False, "hit": [],
        "discs": [disc(12, "north", shot=True, result="ditch", reason="foul",
                       cancelled_twenty=True)],
    }  # fmt: skip
    assert words(page, open_foul, game, ["south"]) == (
        "Foul: on an open board a disc must stop in the 15 circle — CPU Easy's disc"
        " (its drop into the 20 does not count) goes to the ditch."
    )
    # A player without a name is named by the seat.
    nameless = {"seats": [{"seat": "south", "name": ""}, {"seat": "north", "name": "CPU Easy"}]}
    assert words(page, cpu, nameless, []) == (
        "CPU Easy's disc stopped in the 15. South's disc in the 15 was knocked into the 5."
    )


SEAT_OR_COORDINATES = re.compile(r"\b(South|North|East|West)\b|\(-?\d+\.\d+, -?\d+\.\d+\)")


def test_shot_log_lists_the_round_in_words(server_url: str, new_page: Any) -> None:
    page = new_page()
    start_game(page, server_url, "easy", query="?cpu_pause=0.2")
    wait_my_turn(page)
    set_aim(page, 0, 0, 29)  # a straight 29% drops on the open board (the figure)
    page.get_by_test_id("shoot-button").click()
    wait_my_turn(page)
    log = page.get_by_test_id("shot-log").locator("li")
    sync_api.expect(log).to_have_count(2)
    texts = page.evaluate("() => window.crokinole.log")
    assert texts[0] == "Your disc went into the 20."
    assert texts[1].startswith("CPU Easy's disc") or texts[1].startswith("Foul")
    # Newest first on screen; the first shot is still there after the CPU's answer.
    assert log.nth(1).inner_text() == "Your disc went into the 20."
    for text in [*texts, page.get_by_test_id("message-area").inner_text()]:
        assert not SEAT_OR_COORDINATES.search(text), text
    # The screen reader's list of discs speaks the same way.
    items = page.get_by_test_id("disc-list").locator("li").all_inner_texts()
    for item in items:
        assert item.startswith(("Your disc", "CPU Easy's disc", "No discs")), item
    shot(page, "shot-log")


def test_the_cpu_thinks_visibly_before_its_shot(server_url: str, new_page: Any) -> None:
    page = new_page()
    start_game(page, server_url, "easy")  # the default pause
    wait_my_turn(page)
    shoot_from_a_free_place(page, power=24)
    # The CPU's shot has arrived, is held back, and the turn says it is thinking, with
    # no disc moving: the previous result stays readable.
    page.wait_for_function(
        "() => window.crokinole.thinking && !window.crokinole.animating"
        " && document.querySelector('[data-testid=turn-indicator]').textContent"
        ".includes('CPU Easy is thinking')",
        polling="raf",
    )
    assert page.get_by_test_id("message-area").inner_text().startswith("Your disc")
    wait_my_turn(page)
    assert in_hand(state(page), "north") == 7

    # Settings can remove the pause: the CPU's next shot is shown as soon as it arrives.
    page.get_by_test_id("settings-button").click()
    page.get_by_test_id("cpu-pause-select").select_option("0")
    page.locator("#settings-close").click()
    page.evaluate(
        """() => { window.sawThinking = false; const look = () => {
             if (window.crokinole.thinking) window.sawThinking = true;
             requestAnimationFrame(look); }; look(); }"""
    )
    shoot_from_a_free_place(page, power=24)
    page.wait_for_function("() => window.crokinole.state.seats[1].in_hand === 6")
    wait_my_turn(page)
    assert page.evaluate("() => window.sawThinking") is False


def test_aim_defaults(server_url: str, new_page: Any) -> None:
    page = new_page()
    start_game(page, server_url, "easy", query="?cpu_pause=0")
    wait_my_turn(page)
    aim = page.evaluate("() => window.crokinole.aim")
    # A first shot without aiming is not a made 20 on the open board (checked by the engine).
    first = Shot(position=aim["position"], direction=aim["direction"], power=aim["power"])
    result = simulate_shot(TOURNAMENT_BOARD, [], TOURNAMENT_BOARD.launch(Seat.SOUTH, first))
    assert result.discs[0].status is not DiscStatus.IN_HOLE, aim
    # R3: the next turn's disc starts at the middle of the line (or, taken, the nearest free
    # place); the direction and power are the last shot's, and the screen says so.
    set_aim(page, 6.5, 3, 25)
    page.get_by_test_id("shoot-button").click()
    page.wait_for_function("() => window.crokinole.state.seats[0].in_hand === 7")
    wait_my_turn(page)
    middle = page.evaluate("() => window.crokinole.freePosition(0)")
    assert middle is not None and abs(middle) < 6.5
    assert page.evaluate("() => window.crokinole.aim") == {
        "position": pytest.approx(middle, abs=0.01),
        "direction": 3,
        "power": 25,
    }
    sync_api.expect(page.get_by_test_id("aim-carry")).to_have_text(
        "Each turn your disc starts at the middle of the line; the direction and power stay"
        " as you last set them."
    )


def test_cards_say_this_round(server_url: str, new_page: Any) -> None:
    page = new_page()
    start_game(page, server_url, "easy")
    wait_my_turn(page)
    card = page.locator("#side-card-0").inner_text()
    assert "This round" in card
    assert not re.search(r"(?<!This )Round \d", card), card
    # The name may be cut short on a phone; its tooltip is the whole name, never seat words.
    name = page.locator("#side-card-0 .name span")
    assert name.get_attribute("title") == name.inner_text(), name.get_attribute("title")


def _luminance(hex_colour: str) -> float:
    def channel(c: int) -> float:
        v = c / 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    h = hex_colour.lstrip("#")
    r, g, b = (int(h[i : i + 2], 16) for i in (0, 2, 4))
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(a: str, b: str) -> float:
    """WCAG 2 contrast ratio of two sRGB colours."""
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def _over(base: str, tint: list[float]) -> str:
    h = base.lstrip("#")
    rgb = [int(h[i : i + 2], 16) for i in (0, 2, 4)]
    a = tint[3]
    return "#" + "".join(
        f"{round(c * (1 - a) + t * a):02x}" for c, t in zip(rgb, tint[:3], strict=True)
    )


def test_discs_contrast_with_the_maple_board(server_url: str, new_page: Any) -> None:
    page = new_page()
    open_client(page, server_url)
    colours = page.evaluate(
        """async () => {
          const m = await import('/static/views/board.js');
          return {style: m.SIDE_STYLE, maple: m.MAPLE, tints: m.ZONE_TINTS, schemes: m.SCHEMES,
                  edge: m.EDGE_MIN_PX};
        }"""
    )
    surface = list(colours["maple"])
    surface += [_over(m, t) for m in colours["maple"] for t in colours["tints"]]
    assert contrast("#ffffff", "#000000") == pytest.approx(21.0)
    used = {"light", "dark"}  # the server's colours (classic scheme)
    for scheme in colours["schemes"].values():
        if scheme:
            used |= {side["colour"] for side in scheme}
    assert colours["edge"] >= 2
    for name in used:
        style = colours["style"][name]
        # The ring that meets the board: at least 3:1 on every part of the surface.
        worst = min(contrast(style["edge"], c) for c in surface)
        assert worst >= 3.0, (name, worst)
        # The mark stands out of the disc.
        assert contrast(style["mark"], style["fill"]) >= 3.0, name


def test_colour_schemes_setting(server_url: str, new_page: Any) -> None:
    page = new_page()
    start_game(page, server_url, "easy")
    wait_my_turn(page)
    centre = """() => {
      const c = window.crokinole, canvas = document.querySelector('[data-testid=board-canvas]');
      const p = c.placedDisc, r = canvas.getBoundingClientRect(), k = canvas.width / r.width;
      // Halfway between the centre and the rim of the waiting disc, on its left: body colour.
      const off = c.state.board.disc_radius * 0.65 * (r.width / (2 * (c.state.board.surface_radius
        + c.state.board.ditch_width + 0.3)));
      const px = canvas.getContext('2d').getImageData(Math.round((p.x - off - r.left) * k),
        Math.round((p.y - r.top) * k), 1, 1).data;
      return [px[0], px[1], px[2]];
    }"""
    r, g, b = page.evaluate(centre)
    assert min(r, g, b) > 170, (r, g, b)  # the server's light disc
    page.get_by_test_id("settings-button").click()
    page.get_by_test_id("scheme-select").select_option("blue_red")
    page.locator("#settings-close").click()
    page.wait_for_timeout(100)
    r, g, b = page.evaluate(centre)
    assert b > r + 40 and b > g, (r, g, b)  # blue
    # The setting is kept for the next visit.
    page.reload()
    wait_my_turn(page)
    r, g, b = page.evaluate(centre)
    assert b > r + 40 and b > g, (r, g, b)


def test_a_slow_answer_shows_the_server_is_working(server_url: str, new_page: Any) -> None:
    page = new_page()
    held: list[str] = []
    hold = {"state": False}
    routes: list[Any] = []

    def route(ws: Any) -> None:
        server = ws.connect_to_server()
        routes.append(ws)

        def from_server(message: str | bytes) -> None:
            if hold["state"] and json.loads(message).get("type") == "table":
                held.append(str(message))
            else:
                ws.send(message)

        server.on_message(from_server)

    page.route_web_socket(GAME_SOCKET, route)
    open_client(page, server_url)
    busy = page.get_by_test_id("busy")
    sync_api.expect(busy).to_be_hidden()
    hold["state"] = True
    open_more_options(page)
    page.get_by_test_id("opponent-select").select_option("easy")
    page.get_by_test_id("start-button").click()
    for _ in range(100):  # let the route's handlers run until the server's answer is held
        if held:
            break
        page.wait_for_timeout(100)
    assert held, "the server never answered"
    # The answer is late: the page says the server is working, and nothing can be shot.
    sync_api.expect(busy).to_be_visible()
    assert page.evaluate("() => window.crokinole.state") is None
    hold["state"] = False
    routes[-1].send(held.pop())
    sync_api.expect(busy).to_be_hidden()
    wait_my_turn(page)


def record_of(page: Any) -> dict[str, Any]:
    record: dict[str, Any] = page.evaluate(
        """async () => {
          const token = JSON.parse(localStorage.getItem('crokinole.token'));
          const r = await fetch('/api/record', {headers: {'X-Device-Token': token}});
          return (await r.json()).record;
        }"""
    )
    return record


def test_abandoning_is_a_loss_and_the_client_says_so(server_url: str, new_page: Any) -> None:
    page = new_page()
    start_game(page, server_url, "easy", query="?cpu_pause=0")
    wait_my_turn(page)
    assert record_of(page)["easy"]["four_rounds"]["losses"] == 0
    page.get_by_test_id("settings-button").click()
    page.get_by_test_id("settings-apply").click()
    sync_api.expect(page.get_by_test_id("settings-dialog")).to_contain_text("counts as a loss")
    page.get_by_test_id("settings-apply").click()
    expect_visible(page, "start-button")
    page.wait_for_function("() => window.crokinole.table === null")
    page.wait_for_timeout(500)
    assert record_of(page)["easy"]["four_rounds"]["losses"] == 1

    # From the start screen: the unfinished game is offered; a new one says it would be a loss.
    start_game(page, server_url, "easy", query="?cpu_pause=0")
    wait_my_turn(page)
    page.evaluate("() => localStorage.removeItem('crokinole.game')")
    page.reload()
    sync_api.expect(page.get_by_test_id("continue-button")).to_be_visible()
    open_more_options(page)
    page.get_by_test_id("start-button").click()
    sync_api.expect(page.locator("#start-confirm")).to_contain_text("counts as a loss")
    assert page.evaluate("() => window.crokinole.state") is None
    page.get_by_test_id("start-button").click()
    wait_my_turn(page)
    assert record_of(page)["easy"]["four_rounds"]["losses"] == 2


def test_levels_come_from_the_server_and_the_record_from_a_header(
    server_url: str, new_page: Any
) -> None:
    page = new_page()
    requests: list[Any] = []

    # Playwright cannot take a bound builtin as a handler; hence the function.
    def keep(request: Any) -> None:
        requests.append(request)

    page.on("request", keep)
    open_client(page, server_url)
    open_more_options(page)
    sync_api.expect(page.get_by_test_id("record")).to_be_visible()
    page.wait_for_function("() => window.crokinole.levels.length > 0")
    options = page.get_by_test_id("opponent-select").locator("option")
    expected = [(f"CPU {lvl['name']}", lvl["id"]) for lvl in levels_payload()]
    got = [
        (options.nth(i).inner_text(), options.nth(i).get_attribute("value"))
        for i in range(options.count())
    ]
    assert got == expected
    token = page.evaluate("() => JSON.parse(localStorage.getItem('crokinole.token'))")
    record_requests = [r for r in requests if r.url.endswith("/api/record")]
    assert record_requests, [r.url for r in requests]
    assert all(r.headers.get("x-device-token") == token for r in record_requests)
    assert not any(token in r.url for r in requests)


@pytest.mark.parametrize("name", ["index.html", "how-to-play.html"])
def test_pages_have_nothing_inline_for_the_csp(name: str) -> None:
    assert inline_for_csp(name) == []


def test_the_game_runs_under_the_content_security_policy(server_url: str, new_page: Any) -> None:
    """Contract 4's policy on every page load (added here, whatever the server sends).

    Anything inline that the policy refuses is a console error, which fails the test
    (see ``new_page``); so the start screen, a shot, the dialogs and the help all run under it.
    """
    page = new_page()

    page.route("**/*", with_csp)
    violations: list[str] = []
    page.on(
        "console", lambda m: violations.append(m.text) if "Content Security" in m.text else None
    )
    start_game(page, server_url, "easy", query="?cpu_pause=0.2")
    wait_my_turn(page)
    shoot_from_a_free_place(page, power=24)
    wait_my_turn(page)
    sync_api.expect(page.get_by_test_id("shot-log").locator("li")).to_have_count(2)
    page.get_by_test_id("settings-button").click()
    page.get_by_test_id("scheme-select").select_option("dot")
    page.locator("#settings-close").click()
    page.get_by_test_id("nav-how-to-play").click()
    sync_api.expect(page.locator("#help-dialog")).to_contain_text("required contact")
    page.keyboard.press("Escape")
    page.goto(f"{server_url}/how-to-play")
    sync_api.expect(page.locator("main")).to_contain_text("How to play")
    # The page's own stylesheet applies (no <style> element is needed any more).
    assert (
        page.evaluate("() => getComputedStyle(document.querySelector('main')).maxWidth") != "none"
    )
    assert violations == []
