"""How soon an open event page shows a result (issue 23: "every screen updates within a second").

A fresh server; an organiser's hall Swiss of 16 named players; ``--pages`` event pages open
in headless Chromium (each its own context, as phones in a hall). Round by round, every
result is entered over HTTP; each page notes (``Date.now()``) when its drawn version reaches
the version the answer gave. The figure is that time minus the moment the result was sent
(the same machine's clock), over every result and page: median, p95 and the largest.

    python -m benchmarks.pages.event_updates --help
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Sequence
from typing import Any

from benchmarks.pages.site import CHROMIUM, PASSWORD, SetupError, need_chromium, serve

__all__ = ["main"]

NAMES = [f"Player {k}" for k in range(1, 17)]
WON = {"totals": [35, 10], "twenties": [1, 0]}
LOST = {"totals": [0, 15], "twenties": [0, 0]}
RESULT = [{"rounds": [WON, WON, WON, LOST]}]
#: Each page keeps the time its drawn version first reached each number.
WATCH = """() => {
  window.__seen = {};
  const main = document.getElementById('main');
  const note = () => {
    const v = main.dataset.version;
    if (v && !(v in window.__seen)) window.__seen[v] = Date.now();
  };
  new MutationObserver(note).observe(main, {attributes: true, attributeFilter: ['data-version']});
  note();
}"""


def _call(page: Any, base: str, method: str, path: str, body: Any = None) -> Any:
    answer = page.request.fetch(
        f"{base}/api/events{path}",
        method=method,
        data=None if body is None else json.dumps(body),
        headers={"Content-Type": "application/json"},
    )
    if not answer.ok:
        raise SetupError(f"{method} {path}: {answer.status} {answer.text()}")
    return answer.json()


def measure(browser: Any, base: str, pages: int, rounds: int) -> list[float]:
    """Seconds from each result's sending to each page's drawing of it."""
    ctx = browser.new_context()
    org = ctx.new_page()
    org.goto(f"{base}/events")
    answer = org.request.post(
        f"{base}/api/account/signup",
        data=json.dumps({"username": "benchorganiser", "password": PASSWORD}),
        headers={"Content-Type": "application/json"},
    )
    if answer.status != 201:
        raise SetupError(f"sign up: {answer.status} {answer.text()}")
    settings = {"name": "Benchmark night", "format": "swiss", "rounds": rounds, "venue": "hall"}
    event = _call(org, base, "POST", "", {"settings": settings})["id"]
    for name in NAMES:
        _call(org, base, "POST", f"/{event}/entrants", {"name": name})
    for e in _call(org, base, "GET", f"/{event}")["entrants"]:
        _call(org, base, "POST", f"/{event}/entrants/{e['id']}/check-in", {})
    watchers = []
    for _ in range(pages):
        c = browser.new_context(viewport={"width": 412, "height": 915})
        p = c.new_page()
        p.goto(f"{base}/events/{event}")
        p.wait_for_function("() => window.crokinoleEvent && window.crokinoleEvent.view()")
        p.evaluate(WATCH)
        watchers.append((c, p))
    delays: list[float] = []
    try:
        for _ in range(rounds):
            _call(org, base, "POST", f"/{event}/rounds")
            number = _call(org, base, "GET", f"/{event}")["rounds"][-1]["number"]
            view = _call(org, base, "POST", f"/{event}/rounds/{number}/start", {})
            for p in view["rounds"][-1]["pairings"]:
                path = f"/{event}/rounds/{number}/tables/{p['table']}/result"
                at = time.time() * 1000  # the result is sent
                answered = _call(org, base, "POST", path, {"games": RESULT})
                version = answered["version"]
                for _, page in watchers:
                    page.wait_for_function(
                        f"() => Object.keys(window.__seen).some((v) => Number(v) >= {version})",
                        timeout=10_000,
                    )
                    seen = page.evaluate(
                        f"""() => Math.min(...Object.entries(window.__seen)
                          .filter(([v]) => Number(v) >= {version}).map(([, t]) => t))"""
                    )
                    delays.append(max(0.0, (seen - at) / 1000))
    finally:
        for c, _ in watchers:
            c.close()
        ctx.close()
    return delays


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.pages.event_updates",
        description="Seconds from a result sent to its drawing on open event pages.",
    )
    parser.add_argument("--pages", type=int, default=10, help="event pages open (default 10)")
    parser.add_argument("--rounds", type=int, default=3, help="Swiss rounds of 8 results (3)")
    options = parser.parse_args(argv)
    need_chromium()
    from playwright.sync_api import sync_playwright  # noqa: PLC0415 (an optional extra)

    with serve() as base, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        try:
            delays = sorted(measure(browser, base, options.pages, options.rounds))
        finally:
            browser.close()
    p95 = delays[min(len(delays) - 1, int(0.95 * len(delays)))]
    print(
        f"{len(delays)} updates ({options.pages} pages x {len(delays) // options.pages} results): "
        f"median {statistics.median(delays) * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms, "
        f"max {delays[-1] * 1000:.0f} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
