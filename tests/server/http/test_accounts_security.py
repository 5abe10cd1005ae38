"""Accounts' security on a real server: no clear password anywhere, no fixation, dead cookies.

The passwords and session tokens used here are looked for in every row of
every table, in the database's files, and in everything the server logged at
DEBUG (its own loggers and uvicorn's, access log included).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from http.cookies import SimpleCookie
from pathlib import Path

import httpx
import pytest
import sqlalchemy as sa

from crokinole.server.http.accounts import COOKIE
from crokinole.server.limits import ServerSettings
from tests.support.server import serving
from tests.support.server_database import on_postgres, server_database

PASSWORDS = ("Secret-Ann-Password-1", "Secret-Ann-Password-2", "Wrong-Guess-Password")
LOGGERS = ("", "crokinole", "uvicorn", "uvicorn.error", "uvicorn.access", "starlette")


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "crokinole.db"


@pytest.fixture
def server(db: Path) -> Iterator[str]:
    with serving(db, ServerSettings(warm_up=False)) as url:
        yield url


@pytest.fixture
def logged(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    """Everything logged at DEBUG and up by every logger of the server (even non-propagating)."""
    caplog.set_level(logging.DEBUG)
    added = []
    for name in LOGGERS:
        logger = logging.getLogger(name)
        added.append((logger, logger.level))
        logger.setLevel(logging.DEBUG)
        if name and not logger.propagate:
            logger.addHandler(caplog.handler)
    yield caplog
    for logger, level in added:
        logger.setLevel(level)
        if caplog.handler in logger.handlers:
            logger.removeHandler(caplog.handler)


def cookies_of(answer: httpx.Response) -> SimpleCookie:
    jar = SimpleCookie()
    for header in answer.headers.get_list("set-cookie"):
        jar.load(header)
    return jar


def cookie_of(answer: httpx.Response) -> str:
    return cookies_of(answer)[COOKIE].value


def test_no_password_or_session_token_is_stored_or_logged(
    server: str, db: Path, logged: pytest.LogCaptureFixture
) -> None:
    first, second, wrong = PASSWORDS
    tokens = []
    with httpx.Client(base_url=server, timeout=30) as web:
        signup = web.post("/api/account/signup", json={"username": "Ann", "password": first})
        tokens.append(cookie_of(signup))
        assert (
            web.post("/api/account/login", json={"username": "ann", "password": wrong}).status_code
            == 401
        )
        # A password sent where a username goes (a common slip) is not logged either.
        web.post("/api/account/login", json={"username": wrong, "password": first})
        web.post("/api/account/login", json={"username": "ann", "password": 12})
        login = web.post("/api/account/login", json={"username": "ann", "password": first})
        tokens.append(cookie_of(login))
        changed = web.post(
            "/api/account/password", json={"old_password": first, "new_password": second}
        )
        assert changed.status_code == 200
        web.post("/api/account/password", json={"old_password": wrong, "new_password": first})
    secrets_ = [*PASSWORDS, *tokens]
    assert logged.records, "the test saw no log records at all: it would prove nothing"
    # The test's own HTTP client (httpx, httpcore) logs the cookies it is sent: not the server's.
    server_records = [r for r in logged.records if not r.name.startswith(("httpx", "httpcore"))]
    assert any(r.name.startswith("uvicorn.access") for r in server_records)
    assert any(r.name == "crokinole.accounts" for r in server_records)
    text = "\n".join(r.getMessage() + repr(r.args) for r in server_records)
    for secret in secrets_:
        assert secret not in text
    # Every row of every table, read back through SQL.
    url = server_database(db)
    engine = sa.create_engine(url if "://" in url else f"sqlite:///{url}")
    try:
        with engine.connect() as connection:
            names = sa.inspect(connection).get_table_names()
            assert {"accounts", "account_sessions", "login_failures"} <= set(names)
            rows = [
                " ".join(map(str, row))
                for name in names
                for row in connection.execute(sa.text(f'SELECT * FROM "{name}"'))
            ]
            hashes = connection.execute(sa.text("SELECT password_hash FROM accounts")).scalars()
            assert [h.split("$")[1] for h in hashes] == ["argon2id"]
    finally:
        engine.dispose()
    dump = "\n".join(rows)
    for secret in secrets_:
        assert secret not in dump
    # And the database's files themselves (the log of a WAL too; SQLite only).
    for path in [] if on_postgres() else db.parent.glob(db.name + "*"):
        raw = path.read_bytes()
        for secret in secrets_:
            assert secret.encode() not in raw, path.name


def test_login_gives_a_new_session_and_the_cookie_sent_with_it_dies(server: str) -> None:
    with httpx.Client(base_url=server, timeout=30) as web:
        signup = web.post("/api/account/signup", json={"username": "Bea", "password": PASSWORDS[0]})
        before = cookie_of(signup)
        login = web.post("/api/account/login", json={"username": "bea", "password": PASSWORDS[0]})
        after = cookie_of(login)
        assert after != before
    with httpx.Client(base_url=server, timeout=30, cookies={COOKIE: before}) as old:
        assert old.get("/api/account").status_code == 401
    with httpx.Client(base_url=server, timeout=30, cookies={COOKIE: after}) as new:
        assert new.get("/api/account").json()["username"] == "Bea"


def test_a_session_id_planted_before_login_is_never_used(server: str) -> None:
    planted = "planted-by-an-attacker-0123456789"
    with httpx.Client(base_url=server, timeout=30) as web:
        web.post("/api/account/signup", json={"username": "Cyd", "password": PASSWORDS[0]})
    with httpx.Client(base_url=server, timeout=30, cookies={COOKIE: planted}) as victim:
        login = victim.post(
            "/api/account/login", json={"username": "cyd", "password": PASSWORDS[0]}
        )
        assert cookie_of(login) != planted
    with httpx.Client(base_url=server, timeout=30, cookies={COOKIE: planted}) as attacker:
        assert attacker.get("/api/account").status_code == 401


def test_a_logged_out_cookie_does_nothing(server: str) -> None:
    device = {"X-Device-Token": "d" * 24}
    with httpx.Client(base_url=server, timeout=30) as web:
        signup = web.post("/api/account/signup", json={"username": "Dee", "password": PASSWORDS[0]})
        token = cookie_of(signup)
        out = web.post("/api/account/logout", json={})
        assert out.status_code == 200
        assert (
            f'{COOKIE}=""' in out.headers["set-cookie"] and "Max-Age=0" in out.headers["set-cookie"]
        )
    with httpx.Client(base_url=server, timeout=30, cookies={COOKIE: token}) as replayed:
        dead = replayed.get("/api/account")
        assert dead.status_code == 401 and dead.json()["code"] == "not_logged_in"
        assert "Max-Age=0" in dead.headers["set-cookie"]  # told to forget it
        replayed.cookies.set(COOKIE, token)
        again = replayed.post(
            "/api/account/password",
            json={"old_password": PASSWORDS[0], "new_password": PASSWORDS[1]},
        )
        assert again.status_code == 401
        assert replayed.post("/api/account/attach", json={}, headers=device).status_code == 401
    with httpx.Client(base_url=server, timeout=30) as web:  # the password did not change
        ok = web.post("/api/account/login", json={"username": "dee", "password": PASSWORDS[0]})
        assert ok.status_code == 200


def test_the_cookie_is_httponly_lax_site_wide_30_days_and_secure_over_https(server: str) -> None:
    with httpx.Client(base_url=server, timeout=30) as web:
        plain = web.post("/api/account/signup", json={"username": "Eli", "password": PASSWORDS[0]})
        # Behind a proxy that ends TLS (uvicorn trusts 127.0.0.1's X-Forwarded-Proto).
        https = web.post(
            "/api/account/login",
            json={"username": "eli", "password": PASSWORDS[0]},
            headers={"X-Forwarded-Proto": "https"},
        )
    for answer, secure in ((plain, False), (https, True)):
        morsel = cookies_of(answer)[COOKIE]
        assert morsel["httponly"] is True
        assert morsel["samesite"] == "lax"
        assert morsel["path"] == "/"
        assert morsel["max-age"] == str(30 * 24 * 3600)
        assert bool(morsel["secure"]) is secure
        assert len(morsel.value) >= 40  # 32 random bytes


def test_one_address_makes_at_most_10_accounts_an_hour(server: str) -> None:
    # Each sign up hashes a password at Argon2's cost: a flood of them is refused early.
    crowd = {"X-Forwarded-For": "10.1.1.1"}  # from uvicorn's trusted proxy, 127.0.0.1
    with httpx.Client(base_url=server, timeout=30) as web:
        for n in range(10):
            made = web.post(
                "/api/account/signup",
                json={"username": f"crowd{n}", "password": PASSWORDS[0]},
                headers=crowd,
            )
            assert made.status_code == 201
        refused = web.post(
            "/api/account/signup",
            json={"username": "crowd10", "password": PASSWORDS[0]},
            headers=crowd,
        )
        assert refused.status_code == 429 and refused.json()["code"] == "too_many_signups"
        assert "set-cookie" not in refused.headers
        elsewhere = web.post(
            "/api/account/signup",
            json={"username": "crowd10", "password": PASSWORDS[0]},
            headers={"X-Forwarded-For": "10.2.2.2"},
        )
        assert elsewhere.status_code == 201  # the name was still free
