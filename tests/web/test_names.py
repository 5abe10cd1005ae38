"""One name per person across the game, the replay and the review (issue 22, point 6).

A one-round game is played in the live client with named players: "Ann"
against CPU Easy, and "Ann" and "Bartholomew" sharing one device. The game
calls them by those names; the replay (its score cards, its captions) and
the review (its sentences, its table of shots) call them by the very same
strings. In the review the person reading is "you" when they held one seat
(Ann on her own device); to anyone else, and on a shared device, everyone
is named.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.web.conftest import open_more_options, with_csp
from tests.web.test_browser import new_page, open_client, play_until, state

__all__ = ["new_page"]  # the fixture, shared with the live client's tests

pytestmark = pytest.mark.browser

sync_api = pytest.importorskip("playwright.sync_api")

REPLAY_LOADED = "() => { const r = window.crokinoleReplay; return !!r && !!r.game(); }"
REVIEW_LOADED = "() => { const r = window.crokinoleReview; return !!r && !!r.data(); }"
STILL = "() => { const r = window.crokinoleReplay; return !r.animating && !r.playing; }"

GAMES = {
    "against the CPU": {"mode": "cpu", "typed": {"south": "Ann"}},
    "on one device": {"mode": "device", "typed": {"south": "Ann", "north": "Bartholomew"}},
}


def play_named(page: Any, url: str, mode: str, typed: dict[str, str]) -> dict[str, Any]:
    """Start and finish a one-round singles game with the names typed; the table and game."""
    open_client(page, url, "?rounds=1&cpu_pause=0")
    open_more_options(page)
    page.get_by_test_id(f"mode-{mode}").check()
    page.get_by_test_id("layout-select").select_option("singles")
    if mode == "cpu":
        page.wait_for_function("() => window.crokinole.levels.length > 0")
        page.get_by_test_id("opponent-select").select_option("easy")
        page.get_by_test_id("name-input").fill(typed["south"])
    else:
        for seat, name in typed.items():
            page.get_by_test_id(f"seat-name-{seat}").fill(name)
    page.get_by_test_id("start-button").click()
    page.wait_for_function("() => window.crokinole.state && window.crokinole.state.phase")
    play_until(page, "game-result")
    return {"table": page.evaluate("() => window.crokinole.table"), "game": state(page)}


@pytest.mark.parametrize("kind", list(GAMES))
def test_each_player_has_one_name_in_the_game_the_replay_and_the_review(
    new_page: Any, server_url: str, kind: str
) -> None:
    mode, typed = GAMES[kind]["mode"], GAMES[kind]["typed"]
    expected = {"south": typed["south"], "north": typed.get("north", "CPU Easy")}
    page = new_page(reduced_motion="reduce")
    page.route("**/*", with_csp)
    played = play_named(page, server_url, mode, typed)
    table = played["table"]

    # The game: the names chosen, on the screen and in its state.
    game = played["game"]
    assert {s["seat"]: s["name"] for s in game["seats"]} == expected
    result = page.get_by_test_id("game-result")
    for name in expected.values():
        sync_api.expect(result).to_contain_text(name)

    # The replay: the same strings on its score cards (side 0 is south's) and captions.
    page.goto(f"{server_url}/replay/{table}?game=1&speed=20")
    page.wait_for_function(REPLAY_LOADED)
    cards = [
        page.locator(f"[data-testid=replay-side-{i}] .name").inner_text().strip() for i in (0, 1)
    ]
    assert cards == [expected["south"], expected["north"]]
    page.get_by_test_id("step-forward").click()
    page.wait_for_function(STILL)
    sync_api.expect(page.get_by_test_id("replay-position")).to_contain_text(
        f": {expected['south']} shot"
    )
    sync_api.expect(page.get_by_test_id("replay-words")).to_contain_text(expected["south"])

    # The review, read on the device that played: the same names in the table of shots.
    page.goto(f"{server_url}/review/{table}?game=1")
    page.wait_for_function(REVIEW_LOADED, timeout=120_000)
    data = page.evaluate("() => window.crokinoleReview.data()")
    assert data["names"] == expected
    sync_api.expect(page.locator("#review-title")).to_have_text(
        f"Game review: {expected['south']} v {expected['north']}"
    )
    page.get_by_test_id("review-numbers-toggle").click()
    who = {t.strip() for t in page.locator(".shots-table td.who").all_inner_texts()}
    assert who == set(expected.values())
    south = page.get_by_test_id("costly-south").locator("h2").inner_text().strip()
    north = page.get_by_test_id("costly-north").locator("h2").inner_text().strip()
    if mode == "cpu":
        # Ann held one seat: she is "you"; the CPU is called as in the game.
        assert south.startswith("Your ") or south == "Ann: no costly shot", south
    else:
        # Two people on one device: the review cannot tell who reads it, so it names both.
        assert south.startswith(("Ann's ", "Ann: ")), south
    assert north.startswith((f"{expected['north']}'s ", f"{expected['north']}' ")) or (
        north == f"{expected['north']}: no costly shot"
    ), north

    # Anyone else reading the review: everyone by the same name, nobody "you".
    other = new_page()
    other.route("**/*", with_csp)
    other.goto(f"{server_url}/review/{table}?game=1")
    other.wait_for_function(REVIEW_LOADED, timeout=120_000)
    heading = other.get_by_test_id("costly-south").locator("h2").inner_text().strip()
    assert heading.startswith(("Ann's ", "Ann: ")), heading
    text = other.get_by_test_id("review-costly").inner_text()
    assert "Your " not in text and " you played" not in text
