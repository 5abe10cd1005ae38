"""The drills page (/drills) in Debian's Chromium against the real server.

The list holds every drill of ``crokinole.analysis.drills.DRILLS`` with its
summary; a drill is played to its score attempt by attempt ("Attempt 3 of
10 · 2 made") with the human hand: each attempt is played as the server drew
it (the shot ``played`` it answers, never the numbers typed), the count
following the drill's own scoring rule of those shots (run here, in the
test, on the rules engine), and the score shown at the end is the server's
score of the set it kept, a personal best the first time and not when
beaten; the open-20 trend chart gains a point per full set. Typing the same
numbers again is played with new noise each time. The daily challenge is
played the same way, scored as ``score_challenge`` scores the shots played
and put on the players' or the guests' leaderboard. Each view is checked at
a phone, a tall phone and a desktop size (pictures: as in test_practice).
"""

from __future__ import annotations

import datetime
import json
import urllib.request
from typing import Any

import pytest

from crokinole.analysis.drills import (
    DRILLS,
    challenge_points,
    daily_challenge,
    score_challenge,
    score_drill,
)
from crokinole.analysis.practice import position_from_data
from crokinole.board import Shot
from tests.web.conftest import inline_for_csp, with_csp
from tests.web.test_browser import new_page
from tests.web.test_practice import SIZES, check_layout, picture

__all__ = ["new_page"]  # the fixture, shared with the live client's tests

pytestmark = pytest.mark.browser

sync_api = pytest.importorskip("playwright.sync_api")

LISTED = "() => !!window.crokinoleDrills && window.crokinoleDrills.drills().length > 0"
READY = "() => { const d = window.crokinoleDrills; return !!d && !!d.run() && !d.busy; }"
MAKE = Shot(0.0, 0.0, 29.0)  # the open 20 (the drill's example shot)
MISS = Shot(0.0, 10.0, 28.0)  # aimed wide: a foul on an open board (R4)
LIST_PAGE = {"board": "#none", "side": "#none", "columns": "#list-view, .drill-list"}
PLAY_PAGE = {"board": "#board", "side": "#side", "columns": "#side, .bench-head"}


def open_drills(page: Any, url: str) -> None:
    page.route("**/*", with_csp)
    page.goto(f"{url}/drills")
    page.wait_for_function(LISTED)


def set_aim(page: Any, shot: Shot) -> None:
    for name, value in (
        ("position", shot.position),
        ("direction", shot.direction),
        ("power", shot.power),
    ):
        page.get_by_test_id(f"{name}-input").fill(str(value))


def play_attempt(page: Any, shot: Shot, number: int) -> None:
    page.wait_for_function(READY, timeout=30_000)
    set_aim(page, shot)
    page.get_by_test_id("shoot-button").click()
    page.wait_for_function(f"() => window.crokinoleDrills.run().shots === {number}", timeout=30_000)


def attempt_line(page: Any) -> str:
    return str(page.get_by_test_id("attempt-line").inner_text())


def played(page: Any) -> list[Shot]:
    """The shots the server played for this set's attempts (the hand's, R3)."""
    shots = page.evaluate("() => window.crokinoleDrills.run().played")
    return [Shot(s["position"], s["direction"], s["power"]) for s in shots]


def play_open20(page: Any, shots: list[Shot], again: bool = False) -> list[Shot]:
    """Play the open-20 drill aiming these shots, checking the count after each attempt; the
    shots the server played."""
    page.get_by_test_id("again-button" if again else "play-open20").click()
    page.wait_for_function(
        "() => { const r = window.crokinoleDrills.run(); return !!r && !r.done && r.shots === 0; }",
        timeout=30_000,
    )
    assert attempt_line(page) == "Attempt 1 of 10 · 0 made"
    for k, shot in enumerate(shots, start=1):
        play_attempt(page, shot, k)
        made = sum(score_drill("open20", played(page)).points)
        head = "10 attempts played" if k == 10 else f"Attempt {k + 1} of 10"
        assert attempt_line(page) == f"{head} · {made} made"
    sync_api.expect(page.get_by_test_id("verified-score")).to_be_visible(timeout=30_000)
    return played(page)


def test_the_page_has_nothing_the_policy_refuses() -> None:
    assert inline_for_csp("drills.html") == []


def test_the_list_holds_every_drill(new_page: Any, server_url: str) -> None:
    page = new_page()
    open_drills(page, server_url)
    for drill in DRILLS.values():
        card = page.get_by_test_id(f"drill-{drill.id}")
        sync_api.expect(card).to_contain_text(drill.name)
        sync_api.expect(card).to_contain_text(drill.summary)
        sync_api.expect(card).to_contain_text(f"{drill.attempts} attempts · No full set yet.")
    assert page.locator(".drill-card").count() == len(DRILLS)
    sync_api.expect(page.get_by_test_id("open20-rate")).to_contain_text("No open-20 attempts yet")
    assert page.locator("#trend-figure").is_hidden()


def test_a_drill_is_played_with_the_human_hand_to_its_verified_score_and_best(
    new_page: Any, server_url: str
) -> None:
    """The keyboard user types the open 20's numbers ten times: under the steady hand that
    was 100%; here each attempt is played with the noise the server drew."""
    page = new_page(reduced_motion="reduce")
    open_drills(page, server_url)
    page.get_by_test_id("play-open20").click()
    sync_api.expect(page.get_by_test_id("hand-note")).to_contain_text(
        "the server draws each shot's small error"
    )
    page.get_by_test_id("back-button").click()
    first = play_open20(page, [MAKE] * 10)
    assert len(set(first)) == 10 and MAKE not in first  # each attempt its own noise
    score = score_drill("open20", first)
    sync_api.expect(page.get_by_test_id("verified-score")).to_have_text(
        f"{score.score} of 10 · {round(score.percent)}%"
    )
    sync_api.expect(page.get_by_test_id("personal-best")).to_have_text("A new personal best!")
    sync_api.expect(page.get_by_test_id("message-area")).to_contain_text(
        "the server drew the error"
    )

    # Aimed wide: a worse (or equal) set is scored, and the best stays.
    second = play_open20(page, [MISS] * 10, again=True)
    worse = score_drill("open20", second)
    assert worse.score <= score.score
    sync_api.expect(page.get_by_test_id("verified-score")).to_have_text(
        f"{worse.score} of 10 · {round(worse.percent)}%"
    )
    sync_api.expect(page.get_by_test_id("personal-best")).to_have_text(
        f"Your best is {score.score} of 10 ({round(score.percent)}%)."
    )

    page.get_by_test_id("list-button").click()
    sync_api.expect(page.get_by_test_id("best-open20")).to_have_text(f"{score.score} of 10")
    # The trend: one point per full set, oldest first.
    chart = page.get_by_test_id("trend-chart")
    sync_api.expect(chart).to_be_visible()
    sync_api.expect(chart.locator("circle.dot")).to_have_count(2)
    trend = f"from {round(score.percent)}% to {round(worse.percent)}%"
    assert trend in (chart.get_attribute("aria-label") or "")
    made = score.score + worse.score
    sync_api.expect(page.get_by_test_id("open20-rate")).to_contain_text(
        f"{made} made of your last 20 attempts ({round(100 * made / 20)}%)"
    )


def test_a_drill_of_several_points_counts_points(new_page: Any, server_url: str) -> None:
    drill = DRILLS["star8"]
    page = new_page(reduced_motion="reduce")
    open_drills(page, server_url)
    page.get_by_test_id("play-star8").click()
    shots = [drill.example, Shot(0.0, 0.0, 29.0)] * 4
    for k, shot in enumerate(shots, start=1):
        play_attempt(page, shot, k)
        expected = score_drill("star8", played(page))
        total = sum(expected.points[:k])
        head = (
            f"{drill.attempts} attempts played"
            if k == drill.attempts
            else f"Attempt {k + 1} of {drill.attempts}"
        )
        assert attempt_line(page) == f"{head} · {total} point{'' if total == 1 else 's'}"
    most = drill.attempts * drill.max_per_attempt
    sync_api.expect(page.get_by_test_id("verified-score")).to_have_text(
        f"{expected.score} of {most} · {round(expected.percent)}%", timeout=30_000
    )


def test_the_daily_challenge_is_scored_and_ranked(new_page: Any, server_url: str) -> None:
    with urllib.request.urlopen(f"{server_url}/api/daily") as answer:
        today = json.loads(answer.read())
    challenge = daily_challenge(datetime.date.fromisoformat(today["day"]))
    assert position_from_data(today["position"]) == challenge.position
    shots = [Shot(0.0, 0.0, 30.0), Shot(5.0, -3.0, 40.0), Shot(-10.0, 5.0, 35.0)]

    page = new_page(reduced_motion="reduce")
    open_drills(page, server_url)
    page.get_by_test_id("daily-name").fill("Tester")
    page.get_by_test_id("daily-play").click()
    for k, shot in enumerate(shots, start=1):
        play_attempt(page, shot, k)
        points = challenge_points(challenge, played(page))
        assert page.evaluate("() => window.crokinoleDrills.run().points") == list(points[:k])
    assert all(p != a for p, a in zip(played(page), shots, strict=True))
    score = score_challenge(challenge, played(page))
    shown = f"+{score}" if score > 0 else ("0" if score == 0 else f"−{-score}")
    sync_api.expect(page.get_by_test_id("verified-score")).to_contain_text(shown, timeout=30_000)
    sync_api.expect(page.get_by_test_id("daily-rank")).to_contain_text(
        "You are 1st on today's leaderboard"
    )
    page.get_by_test_id("list-button").click()
    # A guest (not logged in): on the guests' board, apart from the players' accounts.
    row = page.get_by_test_id("guest-board").locator("tr", has_text="Tester")
    sync_api.expect(row).to_contain_text(shown)
    sync_api.expect(page.get_by_test_id("leaderboard")).to_contain_text("No player's score yet")
    # Once a day: this device's score is shown in place of the Play button, in a new tab too.
    again = page.context.new_page()
    again.goto(f"{server_url}/drills")
    entered = again.get_by_test_id("daily-played")
    sync_api.expect(entered).to_contain_text(f"You have played today's challenge: {shown} point")
    sync_api.expect(entered).to_contain_text("1st on the leaderboard")
    sync_api.expect(again.get_by_test_id("daily-play")).to_be_hidden()
    again.wait_for_load_state("networkidle")  # its other requests answered before the end
    for tab in (page, again):
        tab.unroute_all(behavior="ignoreErrors")


@pytest.mark.parametrize("size", list(SIZES))
def test_the_drills_fit_the_screen(new_page: Any, server_url: str, size: str) -> None:
    width, height = SIZES[size]
    mobile = size != "desktop"
    page = new_page(
        viewport={"width": width, "height": height},
        is_mobile=mobile,
        has_touch=mobile,
        reduced_motion="reduce",
    )
    open_drills(page, server_url)
    check_layout(page, LIST_PAGE)
    page.get_by_test_id("play-open20").click()
    check_layout(page, PLAY_PAGE)
    for k, shot in enumerate([MAKE, MISS, MAKE, MAKE], start=1):
        play_attempt(page, shot, k)
    page.wait_for_function(READY)
    check_layout(page, PLAY_PAGE)
    picture(page, f"drills-{width}x{height}")
    if size == "desktop":
        picture(page, "drills", docs=True)
