"""Your turn, even in another tab (issue 22, point 8), in two Chromium contexts of a party.

Ann asks to be notified (Settings, from her click: the browser's permission is granted to
her context beforehand, as a player who allowed it would have), then leaves the page for
another tab (emulated: ``document.visibilityState`` says "hidden" and ``visibilitychange``
fires). When Bob's shot makes it her turn, her page's title and favicon say so and one
Notification is made (``window.Notification`` is wrapped by an init script that records
what the page makes of it); back on the page, all three are undone. Bob, who asked for
nothing, is never notified, and a turn that comes while the page is looked at changes
nothing.
"""

from __future__ import annotations

import urllib.request
from typing import Any

import pytest

from tests.web.conftest import ARTIFACTS
from tests.web.test_party import connected, create_party, join_by_link, people, shoot, sit

__all__ = ["people"]  # the fixture, shared with the party's tests

pytestmark = pytest.mark.browser

sync_api = pytest.importorskip("playwright.sync_api")

TITLE = "Crokinole"
TURN_TITLE = "● Your turn — Crokinole"

# Records each Notification the page makes (and what it does with it) instead of showing it.
RECORD_NOTIFICATIONS = """
(() => {
  const made = [];
  const Real = window.Notification;
  class Recorded extends EventTarget {
    constructor(title, options = {}) {
      super();
      this.title = title;
      this.body = options.body || "";
      this.tag = options.tag || "";
      this.closed = false;
      made.push(this);
    }
    close() { this.closed = true; }
    static get permission() { return Real ? Real.permission : "denied"; }
    static requestPermission() { return Real.requestPermission(); }
  }
  window.Notification = Recorded;
  window.__notifications = made;
  window.__focused = 0;
  const focus = window.focus.bind(window);
  window.focus = () => { window.__focused += 1; focus(); };
})();
"""

NOTES = (
    "() => (window.__notifications || [])"
    ".map((n) => ({title: n.title, body: n.body, closed: n.closed}))"
)
ICON = "() => document.querySelector('link[rel=icon]').getAttribute('href')"


def set_hidden(page: Any, hidden: bool) -> None:
    """The page is left for another tab (or come back to), as the browser tells it."""
    page.evaluate(
        """(hidden) => {
          const v = hidden ? 'hidden' : 'visible';
          Object.defineProperty(document, 'visibilityState', {configurable: true, get: () => v});
          Object.defineProperty(document, 'hidden', {configurable: true, get: () => hidden});
          document.dispatchEvent(new Event('visibilitychange'));
        }""",
        hidden,
    )


def my_turn_on(page: Any) -> None:
    page.wait_for_function("() => window.crokinole.canShoot")


def test_a_turn_waiting_in_a_hidden_tab_shows_in_the_title_favicon_and_a_notification(
    server_url: str, people: Any
) -> None:
    ann = people(viewport={"width": 360, "height": 640})
    ann.context.grant_permissions(["notifications"], origin=server_url)
    ann.context.add_init_script(RECORD_NOTIFICATIONS)
    code = create_party(ann, server_url, "singles", "Ann", query="?rounds=1")
    sit(ann, "south")
    bob = people()
    bob.context.add_init_script(RECORD_NOTIFICATIONS)
    join_by_link(bob, server_url, code, "Bob")
    sit(bob, "north")

    # Ann asks for notifications in Settings, from the lobby where she waits.
    ann.get_by_test_id("settings-button").click()
    toggle = ann.get_by_test_id("notify-toggle")
    sync_api.expect(toggle).to_be_visible()
    sync_api.expect(toggle).not_to_be_checked()
    toggle.check()
    sync_api.expect(toggle).to_be_checked()
    assert ann.evaluate("() => JSON.parse(localStorage.getItem('crokinole.prefs')).notify") is True
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    ann.screenshot(path=str(ARTIFACTS / "attention-settings-360x640.png"))
    ann.locator("#settings-close").click()

    ann.wait_for_function(
        "() => window.crokinole.view.seats.every((s) => s.occupant && s.occupant.connected)"
    )
    ann.get_by_test_id("party-start-button").click()
    for p in (ann, bob):
        p.wait_for_function("() => window.crokinole.screen === 'game'")
        p.wait_for_function("() => window.crokinole.canShoot || !window.crokinole.busy")

    # A turn seen coming on a page looked at changes neither the title nor the favicon.
    if ann.evaluate("() => !window.crokinole.canShoot"):
        before = bob.evaluate("() => window.crokinole.lastEvent")
        my_turn_on(bob)
        shoot(bob)
        ann.wait_for_function(f"() => window.crokinole.lastEvent > {before}")
    my_turn_on(ann)
    assert ann.title() == TITLE
    assert ann.evaluate(ICON) == "/static/favicon.svg"
    assert ann.evaluate(NOTES) == []
    shoot(ann)
    my_turn_on(bob)

    # Ann leaves for another tab while Bob aims: nothing to tell her yet.
    set_hidden(ann, True)
    assert ann.title() == TITLE
    before = ann.evaluate("() => window.crokinole.lastEvent")
    shoot(bob)
    ann.wait_for_function(f"() => window.crokinole.lastEvent > {before}")
    ann.wait_for_function(f"() => document.title === {TURN_TITLE!r}")
    assert ann.evaluate(ICON) == "/static/favicon-turn.svg"
    assert ann.evaluate(NOTES) == [
        {"title": "Your turn in crokinole", "body": "Against Bob.", "closed": False}
    ]
    # The favicon of the turn is served like the page's own, an SVG from /static/.
    with urllib.request.urlopen(server_url + "/static/favicon-turn.svg", timeout=10) as answer:
        assert answer.status == 200
        assert answer.headers["content-type"].startswith("image/svg+xml")
        assert b"<svg" in answer.read()

    # More news of the same turn (Bob reacts) makes no second notification.
    before = ann.evaluate("() => window.crokinole.lastEvent")
    bob.get_by_test_id("react-nice_shot").click()
    ann.wait_for_function(f"() => window.crokinole.lastEvent > {before}")
    assert len(ann.evaluate(NOTES)) == 1
    assert ann.title() == TURN_TITLE

    # Back on the page: the title and favicon are the page's own, the notification closed.
    set_hidden(ann, False)
    ann.wait_for_function(f"() => document.title === {TITLE!r}")
    assert ann.evaluate(ICON) == "/static/favicon.svg"
    assert ann.evaluate(NOTES) == [
        {"title": "Your turn in crokinole", "body": "Against Bob.", "closed": True}
    ]
    connected(ann)
    my_turn_on(ann)  # still her turn: only the call back was undone

    # Her next turn, away again, gets a notification of its own; clicking it brings her back.
    shoot(ann)
    my_turn_on(bob)
    set_hidden(ann, True)
    before = ann.evaluate("() => window.crokinole.lastEvent")
    shoot(bob)
    ann.wait_for_function(f"() => window.crokinole.lastEvent > {before}")
    ann.wait_for_function(f"() => document.title === {TURN_TITLE!r}")
    notes = ann.evaluate(NOTES)
    assert [n["closed"] for n in notes] == [True, False]
    ann.evaluate("() => window.__notifications[1].dispatchEvent(new Event('click'))")
    assert ann.evaluate("() => window.__focused") == 1
    assert ann.evaluate(NOTES)[1]["closed"] is True

    # Bob asked for nothing: no notification on his screen, whatever was hidden.
    assert bob.evaluate(NOTES) == []


@pytest.mark.parametrize("reduced", ["no-preference", "reduce"])
def test_a_phone_vibrates_by_default_and_a_refused_permission_unticks_the_box(
    server_url: str, people: Any, reduced: str
) -> None:
    """On a touch screen "Vibrate" starts on, unless the device asks for reduced motion; a
    browser that does not allow notifications leaves "Notify me" off, and says so."""
    phone = people(
        viewport={"width": 360, "height": 640},
        has_touch=True,
        is_mobile=True,
        reduced_motion=reduced,
    )
    phone.goto(server_url)
    connected(phone)
    phone.get_by_test_id("settings-button").click()
    vibrate = phone.get_by_test_id("vibrate-toggle")
    sync_api.expect(vibrate).to_be_visible()
    assert vibrate.is_checked() is (reduced == "no-preference")
    # The browser refuses: headless Chromium answers the prompt that the click asks for with
    # "denied", as a player who blocked the site would.
    notify = phone.get_by_test_id("notify-toggle")
    notify.click()  # ticks the box; its handler unticks it once the browser has answered
    sync_api.expect(phone.get_by_test_id("notify-status")).to_have_text(
        "Notifications are blocked for this site: allow them in your browser's site settings,"
        " then tick this again."
    )
    sync_api.expect(notify).not_to_be_checked()
    prefs = phone.evaluate("() => JSON.parse(localStorage.getItem('crokinole.prefs') || '{}')")
    assert prefs.get("notify") is False
    # A choice made is kept: the box now says what the player chose, not the default.
    vibrate.set_checked(not vibrate.is_checked())
    prefs = phone.evaluate("() => JSON.parse(localStorage.getItem('crokinole.prefs'))")
    assert prefs["vibrate"] is (reduced == "reduce")
