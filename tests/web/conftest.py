"""Fixtures of the browser tests: the real server, and Debian's Chromium through Playwright.

Without /usr/bin/chromium the browser tests are skipped with a message,
except in CI (``CI`` set), where they must run and fail instead.
"""

from __future__ import annotations

import json
import os
import re
import urllib.request
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from tests.support.server_process import running_server

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    # A page whose response a test fulfils itself (to add contract 4's policy header) is
    # seen as coming from no address; Chromium would then refuse its websocket to 127.0.0.1.
    "--disable-features=LocalNetworkAccessChecks",
]
REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("CROKINOLE_ARTIFACTS") or REPO / "artifacts" / "screenshots")
STATIC = REPO / "src" / "crokinole" / "web" / "static"

# Contract 4's policy, written out here so that the browser tests add it to the pages
# themselves rather than trust the server's headers.
#: The game's websocket, with or without the ``?party=``/``?table=`` a reconnection adds
#: for the load balancer's affinity (a glob ``**/ws/v2`` misses those).
GAME_SOCKET = re.compile(r"/ws/v2(\?[^/]*)?$")
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)


def with_csp(route: Any) -> None:
    """A Playwright route handler: the server's answer, with contract 4's policy added.

    A page closed while its answer was on its way (its test ended or went on
    to another page) has nobody left to show it to: that answer is dropped,
    not raised into whichever test Playwright runs next.
    """
    from playwright.sync_api import Error as PlaywrightError  # noqa: PLC0415 (lazy: this module loads without Playwright)

    try:
        answer = route.fetch()
        route.fulfill(response=answer, headers={**answer.headers, "content-security-policy": CSP})
    except PlaywrightError as exc:
        if "disposed" not in str(exc) and "closed" not in str(exc):
            raise


class _InlineFinder(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = {k for k, _ in attrs}
        if tag == "script" and "src" not in names:
            self.found.append("inline <script>")
        if tag == "style":
            self.found.append("<style> element")
        self.found += [f"{tag} {k}=" for k in names if k == "style" or k.startswith("on")]


def inline_for_csp(page: str) -> list[str]:
    """What in a static page the CSP would refuse: inline scripts, styles and handlers."""
    finder = _InlineFinder()
    finder.feed((STATIC / page).read_text(encoding="utf-8"))
    return finder.found


def open_more_options(page: Any) -> None:
    """Open the start screen's "More options" (the full start form, the other pages' links,
    the record): the big choices come first and the rest is folded under it."""
    page.wait_for_function("() => !!document.getElementById('more-options')")
    if not page.evaluate("() => document.getElementById('more-options').open"):
        page.get_by_test_id("more-options-toggle").click()
    page.wait_for_function("() => document.getElementById('more-options').open")


def need_chromium() -> None:
    """Skip (or, in CI, fail) when Debian's Chromium is not installed."""
    if CHROMIUM.exists():
        return
    message = f"{CHROMIUM} is missing (Debian's chromium package); the browser tests need it"
    if os.environ.get("CI"):
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """A headless Chromium (Debian's, driven by Playwright)."""
    need_chromium()
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """URL of a running ``crokinole serve`` (module-scoped, its own SQLite file)."""
    db: Path = tmp_path_factory.mktemp("db") / "crokinole.db"
    with running_server(db) as url:
        yield url


def open_site_page(
    new_page: Any,
    url: str,
    width: int = 1280,
    height: int = 800,
    *,
    route: Any = with_csp,
    **context: Any,
) -> Any:
    """A page of the site at ``url`` in a ``width`` x ``height`` window, once the network is quiet.

    ``route`` answers every request (contract 4's policy added, by default; None: the server's
    answers as they are); ``context`` are more options of the browser context (a colour scheme…).
    """
    page = new_page(viewport={"width": width, "height": height}, **context)
    if route is not None:
        page.route("**/*", route)
    page.goto(url)
    page.wait_for_load_state("networkidle")
    return page


def sign_up(server_url: str, username: str, password: str = "a long password 1") -> None:
    """A new account on the server, over its HTTP API (as its signup form sends it)."""
    body = json.dumps({"username": username, "password": password}).encode()
    request = urllib.request.Request(
        f"{server_url}/api/account/signup", body, {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        assert answer.status == 201
