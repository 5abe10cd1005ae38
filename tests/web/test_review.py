"""The game review (/review/{table}, /review) in Debian's Chromium against the real server.

A one-round game against CPU Easy is played to its end in the live client;
its review opens on each player's costliest shots in sentences ("Your three
costliest shots": what you played, what the best was, what it cost), read
by the player as "you"; the numbers are one tap away ("Show the numbers"):
every shot (R2: 8 a side) with a grade badge, each seat's grade counts, and
a swing chart per round that ends at the round's real margin. "Retry from
here" opens the position before that shot in the practice room: the discs
the replay shows before it (turned half a turn when north shot, so that the
shooter sits south). The same game's record
file, chosen on /review, is reviewed the same. The page is checked at a
phone, a tall phone and a desktop size (pictures: as in test_practice).
"""

from __future__ import annotations

import json
import re
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.web.conftest import inline_for_csp, with_csp
from tests.web.test_browser import new_page, play_until, start_game, state
from tests.web.test_practice import SIZES, check_layout, picture, position

__all__ = ["new_page"]  # the fixture, shared with the live client's tests

pytestmark = pytest.mark.browser

sync_api = pytest.importorskip("playwright.sync_api")

LOADED = "() => { const r = window.crokinoleReview; return !!r && !!r.data(); }"
REVIEW_PAGE = {
    "board": "#none",
    "side": "#none",
    "columns": "#review-body, #rounds, .round-block, .seat-summary",
}
GRADES = {"good", "inaccuracy", "mistake", "blunder"}


def get_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=120) as answer:
        return json.loads(answer.read())


@pytest.fixture(scope="module")
def finished(browser: Any, server_url: str) -> dict[str, Any]:
    """A one-round game against CPU Easy played to its end: its table, end and replay."""
    ctx = browser.new_context(viewport={"width": 1200, "height": 860}, reduced_motion="reduce")
    try:
        page = ctx.new_page()
        start_game(page, server_url, "easy", query="?rounds=1&cpu_pause=0")
        play_until(page, "game-result")
        table = page.evaluate("() => window.crokinole.table")
        game = state(page)
        player = ctx.storage_state()  # the player's device (its token): "you" in the review
    finally:
        ctx.close()
    assert game["phase"] == "game_over"
    replay = get_json(f"{server_url}/api/tables/{table}/replay.json?game=1")
    review = get_json(f"{server_url}/api/tables/{table}/review.json?game=1")
    return {"table": table, "game": game, "replay": replay, "review": review, "player": player}


def costly(shots: list[dict[str, Any]], seat: str) -> list[dict[str, Any]]:
    """What a player would call a seat's costliest shots: those that gave away a point of
    round-win chance or half a point, the most round-win chance first, at most three."""
    worth = [
        s for s in shots if s["seat"] == seat and (s["loss_win"] >= 0.01 or s["loss_margin"] >= 0.5)
    ]
    worth.sort(key=lambda s: (-s["loss_win"], -s["loss_margin"], s["index"]))
    return worth[:3]


COUNT_WORD = {1: "", 2: "two ", 3: "three "}


def open_review(page: Any, url: str, numbers: bool = True) -> None:
    """Open a review; ``numbers``: open "Show the numbers" too (the table, the charts)."""
    page.route("**/*", with_csp)
    page.goto(url)
    page.wait_for_function(LOADED, timeout=120_000)
    if numbers:
        page.get_by_test_id("review-numbers-toggle").click()
        sync_api.expect(page.get_by_test_id("review-rounds")).to_be_visible()


def test_the_page_has_nothing_the_policy_refuses() -> None:
    assert inline_for_csp("review.html") == []


def test_a_review_grades_every_shot_and_charts_each_round(
    new_page: Any, server_url: str, finished: dict[str, Any]
) -> None:
    page = new_page()
    open_review(page, f"{server_url}/review/{finished['table']}?game=1")
    shots = finished["review"]["shots"]
    # R2: a round of singles is 8 discs a side, each shot reviewed once (no timeouts here).
    assert len(shots) == 16
    rows = page.locator("[data-testid^=shot-row-]")
    assert rows.count() == 16
    for s in shots:
        badge = page.get_by_test_id(f"grade-{s['index']}")
        assert s["grade"] in GRADES
        sync_api.expect(badge).to_have_text(s["grade"].capitalize())
        sync_api.expect(badge).to_have_class(f"grade {s['grade']}")
    # Each seat's counts add up to its 8 shots.
    for seat in ("south", "north"):
        counts = [
            int(page.get_by_test_id(f"count-{seat}-{g}").inner_text().rsplit(" ", 1)[1])
            for g in sorted(GRADES)
        ]
        assert sum(counts) == 8
    # The thresholds are said (good below 5 points of round-win chance, then 12, then 25).
    about = page.get_by_test_id("review-about").inner_text()
    assert "below 5" in about and "below 12" in about and "below 25" in about
    # One swing chart for the round: a dot per shot, ending at the round's real margin (R6).
    chart = page.get_by_test_id("swing-chart-1")
    sync_api.expect(chart).to_be_visible()
    assert chart.locator("circle.dot").count() == 16
    totals = finished["game"]["history"][0]["totals"]
    label = chart.get_attribute("aria-label") or ""
    margin = totals[0] - totals[1]
    ending = "0" if margin == 0 else (f"+{margin}" if margin > 0 else f"−{-margin}")
    assert f"ending at {ending} " in label, (label, totals)


def test_the_review_opens_on_your_costliest_shots_in_sentences(
    new_page: Any, server_url: str, finished: dict[str, Any]
) -> None:
    # The player's own device: they are "you"; the CPU is named as in the game.
    page = new_page(storage_state=finished["player"])
    open_review(page, f"{server_url}/review/{finished['table']}?game=1", numbers=False)
    shots = finished["review"]["shots"]
    # The numbers are one tap away, not on screen: the table and the charts are closed.
    numbers = page.get_by_test_id("review-numbers")
    sync_api.expect(numbers).not_to_have_attribute("open", "")
    sync_api.expect(page.get_by_test_id("review-rounds")).to_be_hidden()
    sync_api.expect(page.get_by_test_id("review-numbers-toggle")).to_have_text("Show the numbers")
    # The sentences come first, above the numbers.
    cards = page.locator("[data-testid^=costly-]").filter(has=page.locator("h2"))
    assert cards.first.get_attribute("data-testid") == "costly-south"  # yours first
    top = page.get_by_test_id("review-costly").bounding_box()
    below = numbers.bounding_box()
    assert top is not None and below is not None and top["y"] < below["y"]
    for seat, owner, subject in (("south", "Your", "you"), ("north", "CPU Easy's", "CPU Easy")):
        card = page.get_by_test_id(f"costly-{seat}")
        worst = costly(shots, seat)
        heading = card.locator("h2").inner_text().strip()
        if worst:
            plural = "s" if len(worst) > 1 else ""
            assert heading == f"{owner} {COUNT_WORD[len(worst)]}costliest shot{plural}", heading
        items = card.locator("li")
        assert items.count() == len(worst)
        for item, s in zip(items.all(), worst, strict=True):
            text = item.inner_text()
            # "Round 1, shot 5: you played a soft straight shot that …; the best was …"
            assert text.startswith(f"Round 1, shot {s['turn']}: {subject} played a "), text
            assert "; the best was " in text and ("points" in text or "chance" in text), text
            # 28% reaches the 20 from the line: a soft shot; a takeout is played hard.
            power = s["shot"]["power"]
            feel = "soft" if power <= 35 else "firm" if power <= 60 else "hard"
            assert f"played a {feel} " in text, text
            lands = s["played_effect"]["lands"]
            if s["played_effect"]["foul"] is None and not s["played_effect"]["taken"]:
                said = "into the 20" if lands == 20 else f"in the {lands}" if lands else "the ditch"
                assert said in text, (said, text)
            # No analyst's words in a player's sentence.
            for jargon in ("margin", "expected", "round_win", "EV"):
                assert jargon not in text, text
            # What the CPU took out was yours; what you took out was theirs.
            if seat == "north" and s["played_effect"]["taken"]:
                assert "took out your " in text, text
            if seat == "south" and s["played_effect"]["taken"]:
                assert "took out their " in text, text
        # Each card says how the player's shots went, in words.
        grades = card.get_by_test_id(f"costly-grades-{seat}").inner_text()
        assert grades.startswith("8 shots: "), grades
    # "Try it again" opens the position before the shot in the practice room.
    south = costly(shots, "south")
    if south and south[0]["position_code"]:
        link = page.get_by_test_id(f"summary-retry-{south[0]['index']}")
        assert link.get_attribute("href") == f"/practice?p={south[0]['position_code']}"
    # One tap shows the numbers: the table of every shot.
    page.get_by_test_id("review-numbers-toggle").click()
    sync_api.expect(page.get_by_test_id("review-rounds")).to_be_visible()
    assert page.locator("[data-testid^=shot-row-]").count() == 16


def test_retry_from_here_opens_the_position_before_the_shot(
    new_page: Any, server_url: str, finished: dict[str, Any]
) -> None:
    replay = finished["replay"]
    shots = finished["review"]["shots"]

    def discs_before(index: int) -> list[dict[str, Any]]:
        game = replay["start"] if index == 0 else replay["steps"][index - 1]["game"]
        return list(game["discs"])

    # A shot of south (the player) late in the round, and one of north (the CPU).
    south = next(s for s in reversed(shots) if s["seat"] == "south" and discs_before(s["index"]))
    north = next(s for s in reversed(shots) if s["seat"] == "north" and discs_before(s["index"]))
    for shot, turn in ((south, 1.0), (north, -1.0)):
        page = new_page()
        open_review(page, f"{server_url}/review/{finished['table']}?game=1")
        link = page.get_by_test_id(f"retry-{shot['index']}")
        link.click()
        page.wait_for_url("**/practice?p=*")
        page.wait_for_function("() => !!window.crokinolePractice")
        shown = position(page)
        # The shooter sits south in the practice room: north's position is turned half a turn.
        expected = sorted(
            (
                "s" if d["owner"] == shot["seat"] else "n",
                round(turn * d["x"], 2),
                round(turn * d["y"], 2),
            )
            for d in discs_before(shot["index"])
        )
        got = sorted(tuple(d) for d in shown["discs"])
        assert len(got) == len(expected), (got, expected)
        for g, e in zip(got, expected, strict=True):
            assert g[0] == e[0] and abs(g[1] - e[1]) <= 0.021 and abs(g[2] - e[2]) <= 0.021, (g, e)
        assert page.evaluate("() => window.crokinolePractice.mode()") == "shoot"


def test_a_record_file_is_reviewed_the_same(
    new_page: Any, server_url: str, finished: dict[str, Any], tmp_path: Path
) -> None:
    record = tmp_path / "crokinole-game.json"
    with urllib.request.urlopen(
        f"{server_url}/api/tables/{finished['table']}/record.json"
    ) as answer:
        record.write_bytes(answer.read())
    page = new_page()
    page.route("**/*", with_csp)
    page.goto(f"{server_url}/review")
    sync_api.expect(page.get_by_test_id("record-file")).to_be_visible()
    page.get_by_test_id("record-file").set_input_files(str(record))
    page.wait_for_function(LOADED, timeout=120_000)
    sync_api.expect(page.locator("#review-title")).to_have_text("Review of crokinole-game.json")
    data = page.evaluate("() => window.crokinoleReview.data()")
    assert [s["grade"] for s in data["shots"]] == [s["grade"] for s in finished["review"]["shots"]]
    assert page.locator("[data-testid^=shot-row-]").count() == 16


def test_a_file_that_is_not_a_record_is_refused_plainly(
    new_page: Any, server_url: str, tmp_path: Path
) -> None:
    bad = tmp_path / "notes.json"
    bad.write_text("this is not json", encoding="utf-8")
    page = new_page()
    page.goto(f"{server_url}/review")
    page.get_by_test_id("record-file").set_input_files(str(bad))
    sync_api.expect(page.get_by_test_id("review-status")).to_have_text(
        '"notes.json" is not a record: it is not JSON.'
    )


def test_a_bad_review_link_says_why(browser: Any, server_url: str) -> None:
    # Not new_page: the browser logs the server's 404 as a console error, as it should.
    ctx = browser.new_context()
    try:
        page = ctx.new_page()
        page.goto(f"{server_url}/review/{'0' * 32}")
        status = page.get_by_test_id("review-status")
        sync_api.expect(status).to_have_text(f"No review: table {'0' * 32} has no game.")
    finally:
        ctx.close()


@pytest.mark.parametrize("size", list(SIZES))
def test_the_review_fits_the_screen(
    new_page: Any, server_url: str, finished: dict[str, Any], size: str
) -> None:
    width, height = SIZES[size]
    mobile = size != "desktop"
    page = new_page(
        viewport={"width": width, "height": height},
        is_mobile=mobile,
        has_touch=mobile,
        storage_state=finished["player"],
    )
    open_review(page, f"{server_url}/review/{finished['table']}?game=1", numbers=False)
    check_layout(page, REVIEW_PAGE)
    # What a player sees first: the sentences.
    picture(page, f"review-{width}x{height}")
    if size == "desktop":
        picture(page, "review", docs=True)
    page.get_by_test_id("review-numbers-toggle").click()
    check_layout(page, REVIEW_PAGE)
    page.get_by_test_id("review-round-1").scroll_into_view_if_needed()
    picture(page, f"review-numbers-{width}x{height}")


def test_retry_from_here_is_named_by_its_words_and_big_enough_to_tap(
    new_page: Any, server_url: str, finished: dict[str, Any]
) -> None:
    page = new_page(viewport={"width": 360, "height": 640}, is_mobile=True, has_touch=True)
    open_review(page, f"{server_url}/review/{finished['table']}?game=1")
    links = page.locator("[data-testid^=retry-]")
    count = links.count()
    assert count == len(finished["review"]["shots"]) > 0
    # WCAG 2.5.3: the accessible name starts with the visible words; 2.5.8: 24 px targets.
    by_name = page.get_by_role("link", name=re.compile(r"^Retry from here: shot \d+ of round 1"))
    sync_api.expect(by_name).to_have_count(count)
    for link in links.all():
        link.scroll_into_view_if_needed()
        box = link.bounding_box()
        assert box is not None and box["height"] >= 24, box
    # One name per player: the review and the replay name the player who gave none alike
    # (their seat), and the words read right ("South leads", never "You's lead").
    names = {s["seat"]: s["name"] for s in finished["replay"]["start"]["seats"]}
    assert finished["review"]["names"] == names == {"south": "South", "north": "CPU Easy"}
    text = page.locator("#review-body").inner_text()
    assert "You's" not in text and "You leads" not in text and "South's lead" in text
