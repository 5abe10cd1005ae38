"""Accounts against a stranger, on a real server: guessing limits that cannot lock the owner
out, a change of password that is no oracle, sign-ups counted as accounts made, answers no
cache keeps, and sockets that end with their login session (in every process)."""

from __future__ import annotations

import functools
import secrets
import socket
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import sqlalchemy as sa
from websockets.exceptions import ConnectionClosed

from crokinole.server import create_app
from crokinole.server.accounts import token_hash
from crokinole.server.http.accounts import COOKIE, DEVICE_COOKIE
from crokinole.server.limits import ServerSettings
from crokinole.store import Store
from tests.server.ranked.test_ranked_protocol import (
    PASSWORD,
    Ranked,
    open_table,
    queued_and_matched,
    sign_up,
)
from tests.support import server as helpers
from tests.support.server import serving
from tests.support.server_database import TEST_REDIS_URL, on_postgres, server_database


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "crokinole.db"


@pytest.fixture
def server(db: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setattr(helpers, "create_app", functools.partial(create_app, ranked_rounds=1))
    with serving(db, ServerSettings(warm_up=False, signups_per_hour=1000)) as url:
        yield url


def web(url: str, address: str | None = None, **options: object) -> httpx.Client:
    """A browser of its own, from ``address`` (uvicorn trusts 127.0.0.1's X-Forwarded-For)."""
    headers = {"X-Forwarded-For": address} if address else None
    return httpx.Client(base_url=url, timeout=30, headers=headers, **options)  # type: ignore[arg-type]


def login(client: httpx.Client, username: str, password: str) -> httpx.Response:
    return client.post("/api/account/login", json={"username": username, "password": password})


def closed_code(player: Ranked, timeout: float = 10.0) -> int:
    """Read until the server closes the socket: its close code."""
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            player.recv(timeout)
    assert closed.value.rcvd is not None
    return closed.value.rcvd.code


# ------------------------------------------------------------------ guessing


def test_strangers_guessing_from_many_addresses_cannot_lock_the_owners_browser_out(
    server: str,
) -> None:
    with web(server, "10.3.0.1") as phone:
        made = phone.post("/api/account/signup", json={"username": "Ada", "password": PASSWORD})
        assert made.status_code == 201 and DEVICE_COOKIE in phone.cookies
        for n in range(30):  # strangers, one guess from each address (no per-address limit hit)
            with web(server, f"10.4.0.{n}") as stranger:
                answer = login(stranger, "ada", f"guess-{n:04}")
                assert answer.status_code == (401 if n < 25 else 429)
        # A browser that never logged in to Ada is refused, even with the right password ...
        with web(server, "10.5.0.1") as fresh:
            refused = login(fresh, "ada", PASSWORD)
            assert refused.status_code == 429
            assert refused.json()["message"].startswith("too many login attempts for this account")
        # ... Ada's own phone, which did, is let in, from any address.
        phone.headers["X-Forwarded-For"] = "10.6.0.1"
        assert login(phone, "ada", PASSWORD).json() == {"username": "Ada"}
        assert phone.get("/api/account").json()["username"] == "Ada"


def test_five_wrong_guesses_lock_the_account_from_that_address_only(server: str) -> None:
    with web(server, "10.3.1.1") as owner:
        owner.post("/api/account/signup", json={"username": "Abe", "password": PASSWORD})
    with web(server, "10.3.1.2") as guesser:
        for _ in range(5):
            assert login(guesser, "abe", "guess-one").status_code == 401
        assert login(guesser, "abe", PASSWORD).status_code == 429
    with web(server, "10.3.1.3") as elsewhere:  # a browser Abe never used, elsewhere
        assert login(elsewhere, "abe", PASSWORD).status_code == 200


def test_wrong_current_passwords_are_refused_429_after_five(server: str) -> None:
    with web(server, "10.3.2.1") as thief:
        thief.post("/api/account/signup", json={"username": "Boz", "password": PASSWORD})
        for n in range(5):
            wrong = thief.post(
                "/api/account/password",
                json={"old_password": f"guess-{n:04}", "new_password": "pw-new-1234"},
            )
            assert wrong.status_code == 403, wrong.text
        for old in ("guess-9999", PASSWORD):  # the oracle is shut, the right one included
            locked = thief.post(
                "/api/account/password",
                json={"old_password": old, "new_password": "pw-new-1234"},
            )
            assert locked.status_code == 429
            assert locked.json()["code"] == "too_many_attempts"
            assert 14 * 60 < int(locked.headers["retry-after"]) <= 15 * 60
    with web(server, "10.3.2.2") as owner:  # the password did not change
        assert login(owner, "boz", PASSWORD).status_code == 200


def test_failed_logins_keep_no_name_or_password_typed(server: str, db: Path) -> None:
    typed = "Secret-Typed-Into-Name"
    with web(server, "10.3.3.1") as client:
        assert login(client, typed, "whatever-1").status_code == 401
        assert login(client, "nobody", "whatever-1").status_code == 401
    engine = sa.create_engine(
        server_database(db) if on_postgres() else f"sqlite:///{db}",
    )
    try:
        with engine.connect() as connection:
            keys = [str(k) for k in connection.execute(sa.text("SELECT key FROM login_failures"))]
    finally:
        engine.dispose()
    assert len(keys) == 6
    text = " ".join(keys).lower()
    assert typed.lower() not in text and "nobody" not in text and "10.3.3.1" not in text


# ------------------------------------------------------------------ sign-ups and caches


def test_sign_ups_refused_for_a_taken_name_do_not_count(db: Path, tmp_path: Path) -> None:
    with serving(db, ServerSettings(warm_up=False, signups_per_hour=3)) as url:
        with web(url, "10.3.4.1") as first:
            assert first.post(
                "/api/account/signup", json={"username": "Kin", "password": PASSWORD}
            ).status_code == 201  # fmt: skip
        with web(url, "10.3.4.2") as family:
            for _ in range(5):  # mistyped and taken names are refused, and not counted
                for body in ({"username": "kin", "password": PASSWORD},
                             {"username": "Kim", "password": "short"}):  # fmt: skip
                    assert family.post("/api/account/signup", json=body).status_code in (400, 409)
            for name in ("Kim", "Kit", "Kai"):
                made = family.post(
                    "/api/account/signup", json={"username": name, "password": PASSWORD}
                )
                assert made.status_code == 201, made.text
            fourth = family.post(
                "/api/account/signup", json={"username": "Kip", "password": PASSWORD}
            )
            assert fourth.status_code == 429 and fourth.json()["code"] == "too_many_signups"


def test_every_account_answer_says_no_store(server: str) -> None:
    with web(server, "10.3.5.1") as client:
        answers = [
            client.get("/api/account"),
            client.post("/api/account/signup", json={"username": "Cyd", "password": PASSWORD}),
            client.get("/api/account"),
            login(client, "cyd", "wrong-guess"),
            login(client, "cyd", PASSWORD),
            client.post(
                "/api/account/password", json={"old_password": "x" * 8, "new_password": "y" * 9}
            ),
            client.post("/api/account/attach", json={}, headers={"X-Device-Token": "d" * 24}),
            client.post("/api/account/logout", json={}),
            client.post("/api/account/login", content=b"{}"),  # not JSON: 415
            client.post("/api/account/logout", json={}, headers={"Origin": "https://evil.test"}),
        ]
    assert [a.status_code for a in answers] == [200, 201, 200, 401, 200, 403, 200, 200, 415, 403]
    assert [a.headers.get("cache-control") for a in answers] == ["no-store"] * len(answers)


# ------------------------------------------------------------------ sockets


def test_logging_out_closes_the_sockets_of_that_session_only(server: str) -> None:
    with web(server) as here, web(server) as there:
        here.post("/api/account/signup", json={"username": "Dot", "password": PASSWORD})
        login(there, "dot", PASSWORD)
        mine = Ranked(server, here.cookies[COOKIE])
        other = Ranked(server, there.cookies[COOKIE])
        for player in (mine, other):
            player.hello()
        assert here.post("/api/account/logout", json={}).status_code == 200
        assert closed_code(mine) == 1008
        # The other session's socket plays on.
        other.send({"type": "queue", "ladder": "singles"})
        assert other.until("queued", timeout=10)["ladder"] == "singles"
        other.close()


def test_a_new_password_ends_the_other_sessions_sockets_at_their_ranked_table(
    server: str,
) -> None:
    (eve, fay), matched = queued_and_matched(server, "eve", "fay")
    view = open_table(eve)["view"]
    open_table(fay)
    with web(server) as laptop:  # Eve, on another browser, changes her password
        assert login(laptop, "eve", PASSWORD).status_code == 200
        changed = laptop.post(
            "/api/account/password", json={"old_password": PASSWORD, "new_password": "pw-eve-new1"}
        )
        assert changed.status_code == 200
    assert closed_code(eve) == 1008
    # Coming back with the ended session's cookie, the socket is a guest: it cannot shoot.
    again = Ranked(server, eve.cookie)
    again.hello()
    again.table = matched["table"]
    seat = next(p["seat"] for p in matched["players"] if p["username"] == "eve")
    lo, hi = view["placement"][seat][0]
    again.shoot(seat, position=(lo + hi) / 2, direction=0.0, power=26.0)
    refused = again.until("error", timeout=10)
    assert refused["code"] == "ranked_table"
    again.close()
    fay.close()


def test_a_session_that_ended_unheard_of_closes_its_sockets_at_the_next_sweep(db: Path) -> None:
    # A session ended with no broadcast (a lost one, or an expiry) is found by the sweep.
    settings = ServerSettings(warm_up=False, session_sweep=0.2)
    with serving(db, settings) as url:
        cookie = sign_up(url, "hob")
        player = Ranked(url, cookie)
        player.hello()
        store = Store.open(server_database(db))
        try:
            assert store.delete_account_session(token_hash(cookie))
        finally:
            store.close()
        assert closed_code(player, timeout=30) == 1008


def _redis_url() -> str | None:
    url = TEST_REDIS_URL or "redis://127.0.0.1:6379/0"
    try:
        with socket.create_connection(("127.0.0.1", 6379), timeout=1):
            return url
    except OSError:
        return None if TEST_REDIS_URL is None else url


def test_a_logout_on_one_process_closes_the_sessions_sockets_on_another(db: Path) -> None:
    url = _redis_url()
    if url is None:
        pytest.skip("no Redis at 127.0.0.1:6379 or $CROKINOLE_TEST_REDIS_URL")
    prefix = f"crokinole-test-{secrets.token_hex(8)}:"
    settings = ServerSettings(warm_up=False, signups_per_hour=1000, lease_ms=2000)
    original = helpers.create_app
    if TEST_REDIS_URL is None:  # (else every server of this run is on Redis already)
        helpers.create_app = functools.partial(create_app, redis=url, redis_prefix=prefix)  # type: ignore[assignment]
    try:
        with serving(db, settings) as one, serving(db, settings) as two:
            cookie = sign_up(one, "gil")
            far = Ranked(two, cookie)  # a socket on the other process
            far.hello()
            with web(one, cookies={COOKIE: cookie}) as browser:
                assert browser.post("/api/account/logout", json={}).status_code == 200
            assert closed_code(far) == 1008
    finally:
        helpers.create_app = original  # type: ignore[assignment]
        import redis  # noqa: PLC0415 - only here

        client = redis.Redis.from_url(url)
        keys = list(client.scan_iter(f"{prefix}*"))
        if keys:
            client.delete(*keys)
        client.close()
