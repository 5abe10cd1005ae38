"""Accounts in real Chromium against the real server: sign up, log out, log in, messages, password.

The server runs in this process (``tests.support.server.serving``) with a
login limit of 3 failures per account, so the rate-limit message is reached
in a few tries.  Every page gets contract 4's policy; any page error or
console error fails the test.  With ``CROKINOLE_DOCS_IMAGES=1``: ``docs/images/account.png`` (phone,
just signed up) and ``docs/images/account-desktop.png`` (1280×800, the login
dialog with the server's message).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crokinole.server.limits import ServerSettings
from tests.support.server import serving
from tests.web.conftest import ARTIFACTS, REPO, with_csp

pytestmark = pytest.mark.browser

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect

DOCS_IMAGES = REPO / "docs" / "images"
PHONE = {"width": 360, "height": 640}
TALL_PHONE = {"width": 412, "height": 915}
DESKTOP = {"width": 1280, "height": 800}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db: Path = tmp_path_factory.mktemp("db") / "crokinole.db"
    # Both browsers are at one address (127.0.0.1): three guesses there lock the account there.
    settings = ServerSettings(warm_up=False, login_limit_account=3, login_limit_pair=3)
    with serving(db, settings) as url:
        yield url


@pytest.fixture
def device(browser: Any) -> Iterator[Any]:
    """Opens a page on a fresh device (its own cookies and storage); page errors fail the test."""
    contexts: list[Any] = []
    errors: list[str] = []

    def open_page(url: str, viewport: dict[str, int]) -> Any:
        ctx = browser.new_context(viewport=viewport, reduced_motion="reduce")
        ctx.set_default_timeout(20_000)
        ctx.route("**/*", with_csp)
        contexts.append(ctx)
        page = ctx.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.console_errors = []  # what the page logged as errors (a refused login logs its 4xx)
        page.on(
            "console", lambda m: page.console_errors.append(m.text) if m.type == "error" else None
        )
        page.goto(url)
        page.wait_for_function("() => window.crokinoleAccount && window.crokinoleAccount.ready")
        return page

    yield open_page
    pages = [page for ctx in contexts for page in ctx.pages]
    for ctx in contexts:
        ctx.close()
    # A refused sign up, login or password is a 4xx the browser logs as a failed
    # resource: those are expected; anything else is not.
    refused = re.compile(r"Failed to load resource: .* status of (400|401|403|409|429) ")
    errors += [t for page in pages for t in page.console_errors if not refused.match(t)]
    assert errors == [], f"errors in the pages: {errors}"


def fits(page: Any) -> None:
    """Nothing sticks out sideways (no horizontal scrolling)."""
    wide = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert wide <= 0


def fill_account(page: Any, mode: str, username: str, password: str) -> None:
    page.get_by_test_id(f"{mode}-open").click()
    dialog = page.get_by_test_id("account-dialog")
    expect(dialog).to_be_visible()
    dialog.get_by_label("Username").fill(username)
    dialog.get_by_label("Password").fill(password)
    page.get_by_test_id("account-submit").click()


def signed_in_as(page: Any, name: str) -> None:
    expect(page.get_by_test_id("account-name")).to_have_text(name)
    expect(page.get_by_test_id("logout-button")).to_be_visible()
    expect(page.get_by_test_id("signup-open")).to_be_hidden()


def guest(page: Any) -> None:
    expect(page.get_by_test_id("signup-open")).to_be_visible()
    expect(page.get_by_test_id("login-open")).to_be_visible()
    expect(page.get_by_test_id("account-name")).to_be_hidden()


def test_sign_up_attach_log_out_log_in_and_change_password(server: str, device: Any) -> None:
    page = device(server, PHONE)
    guest(page)
    fits(page)
    # Asking who the guest is logs nothing in the console (no 4xx on a page load).
    page.wait_for_timeout(200)
    assert page.console_errors == []
    # Sign up: the rules are shown, a rule broken is the server's message, as it comes.
    fill_account(page, "signup", "Ann_Lee", "short")
    expect(page.get_by_test_id("account-error")).to_have_text("a password is at least 8 characters")
    expect(page.get_by_test_id("account-dialog")).to_be_visible()
    page.get_by_test_id("account-password").fill("ann's first password")
    page.get_by_test_id("account-submit").click()
    expect(page.get_by_test_id("account-dialog")).to_be_hidden()
    signed_in_as(page, "Ann_Lee")
    expect(page.get_by_test_id("account-status")).to_have_text(
        "Welcome, Ann_Lee: your account is ready."
    )
    expect(page.get_by_test_id("attach-offer")).to_be_visible()
    fits(page)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    if os.environ.get("CROKINOLE_DOCS_IMAGES"):
        DOCS_IMAGES.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(DOCS_IMAGES / "account.png"))
    page.get_by_test_id("attach-button").click()
    # A new device has played no games yet.
    expect(page.get_by_test_id("account-status")).to_have_text(
        "0 games of this device now count for your account."
    )
    expect(page.get_by_test_id("attach-offer")).to_be_hidden()
    # The session is a cookie: a reload is still signed in.
    page.reload()
    page.wait_for_function("() => window.crokinoleAccount.ready")
    signed_in_as(page, "Ann_Lee")
    # Log out, and a reload stays logged out.
    page.get_by_test_id("logout-button").click()
    guest(page)
    expect(page.get_by_test_id("account-status")).to_have_text(
        "Logged out. You play as a guest on this device."
    )
    page.reload()
    page.wait_for_function("() => window.crokinoleAccount.ready")
    guest(page)
    # A wrong password: the server's words, in the dialog, which stays open.
    fill_account(page, "login", "ann_lee", "not the password")
    expect(page.get_by_test_id("account-error")).to_have_text("wrong username or password")
    guest(page)
    page.get_by_test_id("account-password").fill("ann's first password")
    page.get_by_test_id("account-submit").click()
    signed_in_as(page, "Ann_Lee")  # as typed at sign up
    # Change the password: a wrong current one is refused, then the right one works.
    page.get_by_test_id("password-open").click()
    page.get_by_test_id("old-password").fill("a wrong guess")
    page.get_by_test_id("new-password").fill("ann's second password")
    page.get_by_test_id("password-submit").click()
    expect(page.get_by_test_id("password-error")).to_have_text("the current password is wrong")
    page.get_by_test_id("old-password").fill("ann's first password")
    page.get_by_test_id("password-submit").click()
    expect(page.get_by_test_id("password-dialog")).to_be_hidden()
    expect(page.get_by_test_id("account-status")).to_have_text(
        "Your password is changed. Your other devices are signed out."
    )
    signed_in_as(page, "Ann_Lee")
    page.get_by_test_id("logout-button").click()
    guest(page)
    fill_account(page, "login", "Ann_Lee", "ann's first password")
    expect(page.get_by_test_id("account-error")).to_have_text("wrong username or password")
    page.get_by_test_id("account-password").fill("ann's second password")
    page.get_by_test_id("account-submit").click()
    signed_in_as(page, "Ann_Lee")


def test_too_many_wrong_passwords_get_the_rate_limit_message(server: str, device: Any) -> None:
    page = device(server, DESKTOP)
    fill_account(page, "signup", "Bob", "bob's password")
    signed_in_as(page, "Bob")
    page.get_by_test_id("logout-button").click()
    guest(page)
    other = device(server, TALL_PHONE)
    fill_account(other, "login", "bob", "guess number 1")
    error = other.get_by_test_id("account-error")
    expect(error).to_have_text("wrong username or password")
    for n in (2, 3):
        other.get_by_test_id("account-password").fill(f"guess number {n}")
        other.get_by_test_id("account-submit").click()
        # The message is cleared when the form is sent: the same words are a new answer.
        expect(error).to_have_text("wrong username or password")
    other.get_by_test_id("account-password").fill("bob's password")
    other.get_by_test_id("account-submit").click()
    expect(error).to_have_text("too many login attempts for this account: try again in 15 minutes")
    guest(other)
    fits(other)
    # The desktop picture: the login dialog with the server's message.
    fill_account(page, "login", "bob", "bob's password")
    expect(page.get_by_test_id("account-error")).to_have_text(
        "too many login attempts for this account: try again in 15 minutes"
    )
    fits(page)
    if os.environ.get("CROKINOLE_DOCS_IMAGES"):
        page.screenshot(path=str(DOCS_IMAGES / "account-desktop.png"))
    other.screenshot(path=str(ARTIFACTS / "account-limit-412.png"))
