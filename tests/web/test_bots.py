"""Bots in real Chromium against the real server (issue 24): the bots page, a bot account's
API tokens, the BOT mark, and a person's challenge to a bot that plays over a real websocket.

Each is checked from what a person sees, against the contract (docs/engines.md, "Contract
between the parts"; docs/bots.md): a token is shown once (``crk_`` and 43 URL-safe
characters) and never again, a revoked token is marked revoked and its program is
disconnected, a bot is marked BOT wherever its name is shown, and a challenge the bot
accepts opens the table at once. At 360×640, 412×915 and 1280×800 nothing sticks out
sideways and axe-core finds no broken rule. With ``CROKINOLE_DOCS_IMAGES=1``:
``docs/images/bots-token.png``, ``bots-list.png`` and ``bots-challenge-table.png``.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crokinole.server.limits import ServerSettings
from tests.server.bots.conftest import run_example
from tests.support.server import serving
from tests.web.conftest import ARTIFACTS, REPO, with_csp
from tests.web.test_axe import axe_source, check

__all__ = ["axe_source"]  # the fixture

pytestmark = pytest.mark.browser

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect
ws_client = pytest.importorskip("websockets.sync.client")

DOCS_IMAGES = REPO / "docs" / "images"
SIZES = {
    "phone": {"width": 360, "height": 640},
    "tall-phone": {"width": 412, "height": 915},
    "desktop": {"width": 1280, "height": 800},
}
PASSWORD = "a long password 1"
TOKEN = re.compile(r"^crk_[A-Za-z0-9_-]{43}$")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db: Path = tmp_path_factory.mktemp("db") / "crokinole.db"
    with serving(db, ServerSettings(warm_up=False)) as url:
        yield url


@pytest.fixture
def device(browser: Any) -> Iterator[Any]:
    """A page on a fresh device (its own cookies); a page or unexpected console error fails."""
    contexts: list[Any] = []
    errors: list[str] = []

    def open_page(url: str, size: str = "phone") -> Any:
        ctx = browser.new_context(viewport=SIZES[size], reduced_motion="reduce")
        ctx.set_default_timeout(20_000)
        ctx.route("**/*", with_csp)
        ctx.grant_permissions(["clipboard-read", "clipboard-write"])
        contexts.append(ctx)
        page = ctx.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on(
            "console",
            lambda m: (
                errors.append(m.text)
                if m.type == "error" and not re.search(r"status of (400|401|403|404|409) ", m.text)
                else None
            ),
        )
        page.goto(url)
        return page

    yield open_page
    for ctx in contexts:
        ctx.close()
    assert errors == [], f"errors in the pages: {errors}"


def sign_up(page: Any, username: str) -> None:
    """A new account, signed in on this page's device (the signup form's request)."""
    status = page.evaluate(
        """async ([u, p]) => (await fetch('/api/account/signup', {method: 'POST',
        headers: {'Content-Type': 'application/json'},
        body: JSON.stringify({username: u, password: p})})).status""",
        [username, PASSWORD],
    )
    assert status == 201


def loaded(page: Any) -> None:
    page.wait_for_function("() => document.body.dataset.loaded === 'true'")


def fits(page: Any) -> None:
    wide = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert wide <= 0, f"the page is {wide}px wider than the window"


#: The screenshots the README shows (the rest are only artifacts).
DOCS = {"bots-token", "bots-list", "bots-challenge-table"}


def shoot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
    if os.environ.get("CROKINOLE_DOCS_IMAGES") and name in DOCS:
        page.screenshot(path=str(DOCS_IMAGES / f"{name}.png"), full_page=True)


def make_bot(page: Any, server: str, username: str) -> str:
    """``username`` signed up and made a bot on this page, through the bots page; its new token."""
    page.goto(f"{server}/bots")
    sign_up(page, username)
    page.reload()
    loaded(page)
    page.get_by_test_id("bot-password").fill(PASSWORD)
    page.get_by_test_id("bot-sure").check()
    page.get_by_test_id("make-bot").click()
    expect(page.get_by_test_id("token-name")).to_be_visible()
    page.get_by_test_id("token-name").fill("test runner")
    page.get_by_test_id("scope-challenge").check()
    page.get_by_test_id("create-token").click()
    expect(page.get_by_test_id("new-token")).to_be_visible()
    token = page.get_by_test_id("new-token-text").input_value()
    assert TOKEN.match(token), token
    page.get_by_test_id("hide-token").click()
    return str(token)


class Bot:
    """A bot program over a real websocket with its token: says hello, then answers
    challenges (``accept``: yes, no, or None: never answers)."""

    def __init__(self, server: str, token: str, *, accept: bool | None) -> None:
        url = server.replace("http", "ws", 1) + "/ws"
        self._connecting = ws_client.connect(
            url, additional_headers={"Authorization": f"Bearer {token}"}
        )
        self.ws = self._connecting.__enter__()
        self.accept = accept
        self.seen: list[dict[str, Any]] = []
        self.ws.send(json.dumps({"type": "hello"}))
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self) -> None:
        try:
            for raw in self.ws:
                msg = json.loads(raw)
                self.seen.append(msg)
                if msg.get("type") == "challenge" and self.accept is not None:
                    answer = {"type": "challenge_answer", "id": msg["id"], "accept": self.accept}
                    self.ws.send(json.dumps(answer))
        except Exception:  # the socket closed: the test reads what was seen
            return

    def close(self) -> None:
        self._connecting.__exit__(None, None, None)
        self.thread.join(5)


def test_a_guest_sees_the_bots_and_how_to_make_one(
    server: str, device: Any, axe_source: str
) -> None:
    for size in SIZES:
        page = device(f"{server}/bots", size)
        loaded(page)
        expect(page.get_by_test_id("bots-status")).to_contain_text(re.compile(r"bots? |No bots"))
        expect(page.get_by_test_id("my-bot")).to_contain_text("log in or sign up")
        expect(page.get_by_test_id("nav-bots")).to_have_attribute("aria-current", "page")
        fits(page)
        check(page, axe_source, f"bots page, guest, {size}")
        shoot(page, f"bots-guest-{size}")


def test_a_bot_account_its_tokens_shown_once_and_revoked(
    server: str, device: Any, axe_source: str
) -> None:
    page = device(f"{server}/bots", "phone")
    sign_up(page, "tokenbot")
    page.reload()
    loaded(page)
    # A wrong password is refused in the server's words, and the account stays a person's.
    page.get_by_test_id("bot-password").fill("not my password")
    page.get_by_test_id("bot-sure").check()
    page.get_by_test_id("make-bot").click()
    # The server's words (accounts.py: "the password is wrong") as a sentence.
    expect(page.get_by_test_id("make-bot-error")).to_have_text("The password is wrong.")
    assert page.evaluate("async () => (await (await fetch('/api/account')).json()).bot") is False
    # Without the tick the page asks for it before asking the server.
    page.get_by_test_id("bot-sure").uncheck()
    page.get_by_test_id("bot-password").fill(PASSWORD)
    page.get_by_test_id("make-bot").click()
    expect(page.get_by_test_id("make-bot-error")).to_contain_text("cannot be undone")
    page.get_by_test_id("bot-sure").check()
    page.get_by_test_id("make-bot").click()
    expect(page.get_by_test_id("tokens")).to_contain_text("No tokens yet")
    assert page.evaluate("async () => (await (await fetch('/api/account')).json()).bot") is True
    # A nameless token is the page's own refusal.
    page.get_by_test_id("create-token").click()
    expect(page.get_by_test_id("token-error")).to_contain_text("Name the token")
    page.get_by_test_id("token-name").fill("laptop")
    page.get_by_test_id("scope-ladder").check()
    page.get_by_test_id("create-token").click()
    expect(page.get_by_test_id("new-token")).to_be_visible()
    token = page.get_by_test_id("new-token-text").input_value()
    assert TOKEN.match(token), token
    page.get_by_test_id("copy-token").click()
    expect(page.get_by_test_id("copy-status")).to_have_text("Copied.")
    assert page.evaluate("() => navigator.clipboard.readText()") == token
    expect(page.get_by_test_id("token-item")).to_have_count(1)
    expect(page.get_by_test_id("token-item")).to_contain_text("may play, ladder")
    expect(page.get_by_test_id("token-item")).to_contain_text("Never used")
    fits(page)
    check(page, axe_source, "bots page, a new token")
    shoot(page, "bots-token")
    # Shown once: after a reload the token is nowhere on the page nor in the list's answer.
    page.reload()
    loaded(page)
    assert token not in page.content()
    listed = page.evaluate("async () => (await fetch('/api/account/tokens')).text()")
    assert token not in listed
    # The program connects with it; revoking it disconnects the program.
    bot = Bot(server, token, accept=False)
    try:
        page.once("dialog", lambda d: d.accept())
        page.get_by_role("button", name="Revoke laptop").click()
        expect(page.get_by_test_id("token-item")).to_contain_text("Revoked")
        bot.thread.join(10)
        assert not bot.thread.is_alive(), "the revoked token's socket is still open"
        assert bot.ws.close_code == 4401
    finally:
        bot.close()
    # The bot's profile says what it is.
    page.goto(f"{server}/players/tokenbot")
    loaded(page)
    expect(page.get_by_test_id("player-name").get_by_test_id("bot-mark")).to_have_text("BOT")
    expect(page.get_by_test_id("bot-note")).to_be_visible()
    expect(page.get_by_test_id("ladder-bots")).to_have_text(
        re.compile(r"No ranked games on the bots' ladder yet\.")
    )
    fits(page)
    check(page, axe_source, "a bot's profile")


def person_and_online_bot(
    device: Any, server: str, bot_name: str, person_name: str, size: str, *, accept: bool
) -> tuple[Any, Bot]:
    """A bot made on a desktop and online, and a person signed up on a ``size`` device
    looking at the Bots page (its list loaded once the bot is there)."""
    token = make_bot(device(f"{server}/bots", "desktop"), server, bot_name)
    person = device(f"{server}/bots", size)
    sign_up(person, person_name)
    bot = Bot(server, token, accept=accept)
    person.reload()
    loaded(person)
    return person, bot


def test_a_person_challenges_a_bot_and_plays_it(server: str, device: Any) -> None:
    person, bot = person_and_online_bot(
        device, server, "acceptor", "challenger", "tall-phone", accept=True
    )
    try:
        row = person.get_by_test_id("bot-row").filter(has_text="acceptor")
        expect(row).to_contain_text("online")
        expect(row.get_by_test_id("bot-mark")).to_have_text("BOT")
        fits(person)
        shoot(person, "bots-list")
        person.get_by_test_id("challenge-game").select_option("one")
        person.get_by_test_id("challenge-acceptor").click()
        # Accepted: the table opens with the bot in its seat, marked BOT.
        bars = person.locator("#bars-top, #bars-bottom")
        expect(bars.get_by_test_id("bot-mark")).to_have_count(1)
        asked = [m for m in bot.seen if m.get("type") == "challenge"]
        assert asked and asked[0]["settings"]["rounds"] == 1  # the game chosen: one round
        fits(person)
        shoot(person, "bots-challenge-table")
    finally:
        bot.close()


def test_the_bots_list_fits_the_smallest_phone(server: str, device: Any) -> None:
    """At 360 px an online bot's row holds a short name whole, its BOT mark on one line and
    the Challenge button, in a table no wider than its box (it once squeezed "robo_s" to
    "rob/o_s" and split the mark into "BO/T"; a longer name may wrap, never the page)."""
    person, bot = person_and_online_bot(
        device, server, "robo_q", "narrowann", "phone", accept=False
    )
    try:
        row = person.get_by_test_id("bot-row").filter(has_text="robo_q")
        expect(row.get_by_test_id("challenge-robo_q")).to_be_visible()
        lines = row.evaluate(
            """(tr) => ({
              name: tr.querySelector('.who a').getClientRects().length,
              mark: tr.querySelector('.bot-mark').getClientRects().length,
              nameTall: tr.querySelector('.who a').getBoundingClientRect().height,
              markTall: tr.querySelector('.bot-mark').getBoundingClientRect().height,
              lineTall: parseFloat(getComputedStyle(tr.querySelector('.who a')).lineHeight),
            })"""
        )
        assert lines["name"] == 1 and lines["nameTall"] < 1.5 * lines["lineTall"], lines
        assert lines["mark"] == 1 and lines["markTall"] < lines["lineTall"], lines
        box = person.locator(".ladder-table-wrap")
        over = box.evaluate("(w) => w.scrollWidth - w.clientWidth")
        assert over <= 0, f"the bots table is {over}px wider than its box"
        # The word beside the dot is for screen readers on a phone; the row still says it.
        expect(row.locator(".presence")).to_have_text(re.compile(r"^\s*online\s*$"))
        fits(person)
    finally:
        bot.close()


def test_a_declined_challenge_says_so(server: str, device: Any) -> None:
    bot_page = device(f"{server}/bots", "desktop")
    token = make_bot(bot_page, server, "decliner")
    person = device(f"{server}/bots", "phone")
    sign_up(person, "hopeful")
    bot = Bot(server, token, accept=False)
    try:
        person.goto(f"{server}/?challenge=decliner")
        expect(person.get_by_test_id("challenge-text")).to_have_text(
            "decliner declined the challenge."
        )

        fits(person)
    finally:
        bot.close()
    # A challenge to a player who is no bot is refused in words, and no table opens.
    person.goto(f"{server}/?challenge=hopeful")
    expect(person.get_by_test_id("challenge-text")).to_have_text(
        "hopeful is not a bot: only bots are challenged (play people in a party or ranked)."
    )
    expect(person.get_by_test_id("challenge-box")).to_have_class(re.compile("status-bad"))


def test_a_waiting_challenge_counts_down_and_can_be_cancelled(server: str, device: Any) -> None:
    bot_page = device(f"{server}/bots", "desktop")
    token = make_bot(bot_page, server, "ponderer")
    person = device(f"{server}/bots", "phone")
    sign_up(person, "patient")
    bot = Bot(server, token, accept=None)
    try:
        person.goto(f"{server}/?challenge=ponderer")
        # The minute to answer, counted by the server's clock (its expires and server_time).
        expect(person.get_by_test_id("challenge-text")).to_have_text(
            re.compile(r"^Challenge sent to ponderer: waiting for its answer \((60|59|58) s\)…$")
        )
        fits(person)
        person.get_by_test_id("challenge-cancel").click()
        expect(person.get_by_test_id("challenge-text")).to_have_text("You cancelled the challenge.")
        expect(person.get_by_test_id("challenge-cancel")).to_be_hidden()
        # The bot is told too (the server's words: cancelled by its sender).
        for _ in range(50):
            if any(m.get("type") == "challenge_declined" for m in bot.seen):
                break
            person.wait_for_timeout(100)
    finally:
        bot.close()
    told = [m for m in bot.seen if m.get("type") == "challenge_declined"]
    assert told and told[0].get("reason") == "cancelled", bot.seen


def test_the_leaderboard_has_the_bots_ladder(server: str, device: Any) -> None:
    page = device(f"{server}/leaderboard?ladder=bots&min_games=0", "phone")
    loaded(page)
    expect(page.get_by_test_id("ladder-bots")).to_be_checked()
    expect(page.get_by_test_id("board-status")).to_contain_text(re.compile(r"[Bb]ots"))
    fits(page)


def test_a_bots_finished_game_is_marked_bot_in_its_replay_and_review(
    server: str, device: Any
) -> None:
    """Issue 24, "marked BOT everywhere": the example bot (examples/bot.py) plays a game
    against CPU Expert at south; its replay's score card of side 0 and its review's summary
    of south carry BOT, CPU Expert's do not."""
    page = device(f"{server}/bots", "phone")
    token = make_bot(page, server, "replayed")
    done = run_example(server, token)
    assert done.returncode == 0, done.stderr
    found = re.search(r"finished: table ([0-9a-f]{32})", done.stdout)
    assert found is not None, done.stdout
    page.goto(f"{server}/replay/{found[1]}")
    expect(page.get_by_test_id("replay-side-0").get_by_test_id("bot-mark")).to_have_text("BOT")
    expect(page.get_by_test_id("replay-side-1").get_by_test_id("bot-mark")).to_have_count(0)
    fits(page)
    page.goto(f"{server}/review/{found[1]}")
    summary = page.get_by_test_id("summary-south")
    expect(summary.get_by_test_id("bot-mark")).to_have_text("BOT", timeout=120_000)
    expect(page.get_by_test_id("summary-north").get_by_test_id("bot-mark")).to_have_count(0)
    fits(page)
