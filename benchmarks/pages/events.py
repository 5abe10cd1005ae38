"""Events for the screenshots (:mod:`benchmarks.pages.screens`), made over the events' HTTP routes.

An organiser's account (signed up in the browser, its session cookie the
context's) makes two events on real boards, the way the event page's
controls do (docs/events.md, *HTTP*):

- "Club night", a Swiss of 3 rounds for 8 named players: round 1 played,
  round 2 paired and started, two of its boards still playing (the pairings,
  the standings with their tie-breaks);
- "Winter cup", a single elimination of 8 seeded players: the quarter-finals
  and the semi-finals played, the final under way (the bracket).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from benchmarks.pages.site import PASSWORD, SetupError

__all__ = ["SHOTS", "Events", "make_events", "scroll_to"]

ORGANISER = "clubsecretary"
NAMES = ("Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal")

#: A few one-game results (each round: total, 20s, total, 20s), side 0 winning, then side 1.
RESULTS = (
    ((35, 1, 10, 0), (0, 0, 15, 0), (20, 1, 20, 1), (45, 2, 5, 0)),
    ((30, 0, 10, 0), (25, 1, 20, 0), (40, 2, 0, 0), (15, 0, 15, 0)),
    ((10, 0, 35, 1), (5, 0, 30, 0), (20, 0, 25, 1), (0, 0, 20, 1)),
    ((20, 1, 15, 0), (10, 0, 30, 1), (35, 1, 10, 0), (25, 0, 5, 0)),
)


#: The event pages captured: (name, which event, the part scrolled to the top).
SHOTS = (
    ("event-pairings", "swiss", "#rounds-title"),
    ("event-standings", "swiss", "#standings-title"),
    ("event-bracket", "bracket", "#bracket-title"),
)


@dataclass(frozen=True)
class Events:
    """The events made: their ids, and the organiser's username."""

    swiss: str
    bracket: str
    organiser: str


class _Api:
    def __init__(self, page: Any, base: str) -> None:
        self.page, self.base = page, base

    def __call__(self, method: str, path: str, body: Any = None) -> Any:
        answer = self.page.request.fetch(
            f"{self.base}/api/events{path}",
            method=method,
            data=None if body is None else json.dumps(body),
            headers={"Content-Type": "application/json"},
        )
        if not answer.ok:
            raise SetupError(f"{method} /api/events{path}: {answer.status} {answer.text()}")
        return answer.json() if answer.text() else None


def _games(result: tuple[tuple[int, int, int, int], ...]) -> list[dict[str, Any]]:
    return [{"rounds": [{"totals": [a, c], "twenties": [b, d]} for a, b, c, d in result]}]


def _event(api: _Api, settings: dict[str, Any], ratings: bool) -> str:
    event = api("POST", "", {"settings": {**settings, "venue": "hall"}})["id"]
    for k, name in enumerate(NAMES):
        body: dict[str, Any] = {"name": name}
        if ratings:
            body["rating"] = 1800 - 100 * k
        api("POST", f"/{event}/entrants", body)
    for entrant in api("GET", f"/{event}")["entrants"]:
        api("POST", f"/{event}/entrants/{entrant['id']}/check-in", {})
    return str(event)


def _play_round(api: _Api, event: str, *, leave: int = 0) -> None:
    """Pair and start the next round; enter every result but the last ``leave`` ones."""
    api("POST", f"/{event}/rounds")
    number = api("GET", f"/{event}")["rounds"][-1]["number"]
    api("POST", f"/{event}/rounds/{number}/start", {})
    pairings = [p for p in api("GET", f"/{event}")["rounds"][-1]["pairings"] if not p["bye"]]
    for k, pairing in enumerate(pairings[: len(pairings) - leave]):
        path = f"/{event}/rounds/{number}/tables/{pairing['table']}"
        api("POST", f"{path}/result", {"games": _games(RESULTS[k % len(RESULTS)])})
        state = api("GET", f"/{event}")["rounds"][-1]["pairings"][pairing["table"] - 1]
        if state["state"] == "reported":
            api("POST", f"{path}/confirm", {})


def make_events(browser: Any, base: str) -> Events:
    """The two events, made by a new organiser account."""
    ctx = browser.new_context()
    try:
        page = ctx.new_page()
        page.goto(f"{base}/events")
        answer = page.request.post(
            f"{base}/api/account/signup",
            data=json.dumps({"username": ORGANISER, "password": PASSWORD}),
            headers={"Content-Type": "application/json"},
        )
        if answer.status != 201:
            raise SetupError(f"signing {ORGANISER} up: {answer.status} {answer.text()}")
        api = _Api(page, base)
        swiss = _event(
            api, {"name": "Club night", "format": "swiss", "rounds": 3, "date": ""}, False
        )
        _play_round(api, swiss)
        _play_round(api, swiss, leave=2)
        bracket = _event(api, {"name": "Winter cup", "format": "elimination"}, True)
        _play_round(api, bracket)
        _play_round(api, bracket)
        _play_round(api, bracket, leave=1)
        return Events(swiss=swiss, bracket=bracket, organiser=ORGANISER)
    finally:
        ctx.close()


def scroll_to(page: Any, selector: str) -> None:
    """The page scrolled so that ``selector`` is at the top, under a little margin."""
    page.evaluate(
        """(sel) => {
          const el = document.querySelector(sel);
          if (el) window.scrollTo(0, el.getBoundingClientRect().top + window.scrollY - 8);
        }""",
        selector,
    )
