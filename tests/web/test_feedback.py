"""Feedback with feeling (issue 22, point 5), in Chromium against the real server.

A 20 pops: a straight shot at 29% power drops into the 20 on the open board (the rules'
engine; tests/web/test_browser.py's shot log test plays the same shot), and a "+20" shows at
the hole, rising (or still, under reduced motion), with its sound when sound is on and none
when it is off. The results: the winner's disc large, and the buttons (Next, Rematch, New
game) on the screen without scrolling at a small phone, a large phone and a desktop.
Screenshots: ``artifacts/screenshots/results-*.png``, ``pop-twenty-*.png``.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.web.test_browser import (
    new_page,
    play_until,
    set_aim,
    shot,
    start_game,
    state,
    wait_my_turn,
)

__all__ = ["new_page"]  # the fixture, shared with the live client's tests

pytestmark = pytest.mark.browser

sync_api = pytest.importorskip("playwright.sync_api")

SIZES = [(360, 640), (412, 915), (1280, 800)]

#: The first "+20" on the page (its box and its animation) and the hole's place on screen.
POP = """() => {
  const el = document.querySelector('[data-testid=pop-twenty]');
  if (!el) return null;
  const r = el.getBoundingClientRect();
  const hole = window.crokinole.toPage(0, 0);
  return {text: el.textContent, x: r.left + r.width / 2, y: r.top + r.height / 2, height: r.height,
          hole, hidden: el.getAttribute('aria-hidden'),
          animations: el.getAnimations().map((a) => a.animationName)};
}"""

NO_POP = "() => !document.querySelector('[data-testid=pop-twenty]')"
SOUND = """async () => (await import('/static/lib/sound.js')).soundRecord()"""
#: The animations of the winner's disc at the head of the result.
FLOURISH = """() => document.querySelector('#game-hero .hero-disc').getAnimations()
  .map((a) => a.animationName)"""
#: How tall the result's body is, and the room it has on the screen.
BODY_ROOM = """() => { const b = document.querySelector('#game-body');
  return [b.scrollHeight, b.clientHeight]; }"""
PHONE = {"is_mobile": True, "has_touch": True, "reduced_motion": "reduce"}


def shoot_a_twenty(page: Any) -> None:
    wait_my_turn(page)
    set_aim(page, 0, 0, 29)
    page.get_by_test_id("shoot-button").click()


def catch_the_pop(page: Any) -> dict[str, Any]:
    handle = page.wait_for_function(POP, timeout=20_000, polling="raf")
    pop: dict[str, Any] = handle.json_value()
    return pop


def test_a_twenty_pops_at_the_hole_with_its_sound(server_url: str, new_page: Any) -> None:
    page = new_page(viewport={"width": 1280, "height": 800})
    start_game(page, server_url, "easy", query="?cpu_pause=0.5")
    page.get_by_test_id("sound-toggle").click()
    assert page.get_by_test_id("sound-toggle").get_attribute("aria-pressed") == "true"
    shoot_a_twenty(page)
    pop = catch_the_pop(page)
    assert pop["text"] == "+20"
    assert pop["hidden"] == "true"  # the shot's sentence says it for a screen reader
    assert "pop-rise" in pop["animations"]
    # At the hole: centred on it across, and on it or risen above it (it rises as it fades).
    assert abs(pop["x"] - pop["hole"]["x"]) <= 2, pop
    assert pop["hole"]["y"] - 3 * pop["height"] <= pop["y"] <= pop["hole"]["y"] + 2, pop
    shot(page, "pop-twenty-1280x800")
    page.wait_for_function(NO_POP, timeout=5_000)
    log = page.evaluate("() => window.crokinole.log")
    assert log[0] == "Your disc went into the 20."
    # The sounds went to an AudioContext: the flick, then the 20 as the disc dropped.
    record = page.evaluate(SOUND)
    assert record["enabled"] is True
    assert record["state"] == "running", record
    kinds = [c["kind"] for c in record["played"]]
    assert "shoot" in kinds and "twenty" in kinds, kinds
    assert kinds.index("shoot") < kinds.index("twenty"), kinds
    times = [c["at"] for c in record["played"]]
    assert times == sorted(times)


def test_sound_off_plays_nothing_and_reduced_motion_pops_still(
    server_url: str, new_page: Any
) -> None:
    page = new_page(viewport={"width": 412, "height": 915}, **PHONE)
    start_game(page, server_url, "easy", query="?cpu_pause=0.5")
    # Sound is off by default.
    assert page.get_by_test_id("sound-toggle").get_attribute("aria-pressed") == "false"
    shoot_a_twenty(page)
    pop = catch_the_pop(page)
    assert pop["text"] == "+20"
    # No motion: it stands on the hole and only fades away.
    assert "pop-rise" not in pop["animations"], pop
    assert abs(pop["x"] - pop["hole"]["x"]) <= 2 and abs(pop["y"] - pop["hole"]["y"]) <= 2, pop
    shot(page, "pop-twenty-still-412x915")
    wait_my_turn(page)
    assert page.evaluate("() => window.crokinole.log")[0] == "Your disc went into the 20."
    record = page.evaluate(SOUND)
    assert record["enabled"] is False and record["played"] == [], record


#: Where each shown button of a dialog is, and whether a tap at its centre reaches it.
BUTTONS = """(id) => {
  const d = document.querySelector(`[data-testid=${id}]`);
  const box = d.getBoundingClientRect();
  return [...d.querySelectorAll('.buttons button')].filter((b) => !b.hidden).map((b) => {
    const r = b.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return {id: b.id, text: b.textContent, top: r.top, bottom: r.bottom, left: r.left,
            right: r.right, reached: b === hit || b.contains(hit), dialogBottom: box.bottom,
            vw: document.documentElement.clientWidth, vh: window.innerHeight};
  });
}"""


def buttons_in_view(page: Any, testid: str, expected: set[str]) -> None:
    page.wait_for_timeout(100)  # the layout follows a resize at the next frame
    buttons = page.evaluate(BUTTONS, testid)
    assert {b["id"] for b in buttons} == expected, buttons
    for b in buttons:
        assert b["left"] >= 0 and b["right"] <= b["vw"], b
        assert b["top"] >= 0 and b["bottom"] <= b["vh"], b
        assert b["bottom"] <= b["dialogBottom"] + 0.5, b
        assert b["reached"], b
    # Not scrolled to them: the dialog's title is on the screen too.
    title = page.locator(f"[data-testid={testid}] h2").bounding_box()
    assert title is not None and title["y"] >= 0, title


def test_the_results_keep_their_buttons_in_view(server_url: str, new_page: Any) -> None:
    width, height = SIZES[0]
    page = new_page(viewport={"width": width, "height": height}, **PHONE)
    start_game(page, server_url, "easy", query="?rounds=2&cpu_pause=0")
    play_until(page, "round-result")
    buttons_in_view(page, "round-result", {"peek-button", "next-button"})
    shot(page, f"results-round-{width}x{height}")
    play_until(page, "game-result")
    final = state(page)
    winner = final["outcome"]["winner"]
    # The winner's disc, large, at the head of the result (a draw: each side's).
    marks = page.locator("#game-hero [data-side]")
    if winner is None:
        assert marks.count() == len(final["sides"])
    else:
        assert marks.count() == 1 and marks.get_attribute("data-side") == str(winner)
    box = page.locator("#game-hero svg").first.bounding_box()
    assert box is not None and box["width"] >= 56, box
    # The body is longer than the room a small phone leaves it: it scrolls, the buttons stay.
    room = page.evaluate(BODY_ROOM)
    assert room[0] > room[1], room
    # Reduced motion: no flourish; asked for motion, the winner's disc comes in with one.
    assert page.evaluate(FLOURISH) == []
    for w, h in SIZES:
        page.set_viewport_size({"width": w, "height": h})
        buttons_in_view(page, "game-result", {"rematch-button", "new-game-button"})
        shot(page, f"results-{w}x{h}")
    page.emulate_media(reduced_motion="no-preference")
    names = page.evaluate(FLOURISH)
    assert "hero-in" in names, names
