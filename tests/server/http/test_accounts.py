"""Accounts: the service's rules on a clock of the test's, and the HTTP API on a real server."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import httpx
import pytest
from argon2 import PasswordHasher

from crokinole.server.accounts import AccountError, Accounts
from crokinole.server.limits import ServerSettings
from crokinole.store import Store
from crokinole.store.models import LoginFailureRow
from tests.support.server import serving

T0 = datetime(2026, 1, 1, 12, 0, 0)
#: Cheap parameters: the rules, not the cost, are under test here.
CHEAP = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def accounts(clock: Clock) -> Iterator[Accounts]:
    store = Store.open("sqlite://")
    yield Accounts(store, clock=clock, hasher=CHEAP)
    store.close()


def refused(code: str) -> pytest.RaisesExc[AccountError]:
    return pytest.raises(AccountError, check=lambda e: e.code == code)


# ------------------------------------------------------------------ the service


@pytest.mark.parametrize(
    "username",
    ["ab", "a" * 21, "ann b", "ann!", "anné", "", "ann\n"],
)
def test_usernames_outside_the_rules_are_refused(accounts: Accounts, username: str) -> None:
    with refused("bad_username"):
        accounts.sign_up(username, "a fine password")


@pytest.mark.parametrize("username", ["abc", "A" * 20, "ann_b-2", "___"])
def test_usernames_of_3_to_20_letters_digits_underscores_dashes_are_taken(
    accounts: Accounts, username: str
) -> None:
    account, _ = accounts.sign_up(username, "a fine password")
    assert account.username == username


@pytest.mark.parametrize(
    ("password", "why"),
    [
        ("1234567", "at least 8"),
        ("x" * 129, "at most 128"),
        ("Ann_Lee", "at least 8"),
        ("ann_lee1", "may not be the username"),
    ],
)
def test_passwords_outside_the_rules_are_refused_without_repeating_them(
    accounts: Accounts, password: str, why: str
) -> None:
    with refused("bad_password") as info:
        accounts.sign_up("Ann_Lee1", password)
    assert why in info.value.message and password not in info.value.message


def test_a_username_is_one_account_whatever_its_case(accounts: Accounts) -> None:
    accounts.sign_up("Ann", "a fine password")
    with refused("taken") as info:
        accounts.sign_up("aNN", "another password")
    assert info.value.message == "the username aNN is taken"
    # Logging in takes any case and shows the name as first typed.
    account, _ = accounts.log_in("ANN", "a fine password", address="10.0.0.1")
    assert account.username == "Ann"


def test_an_unknown_name_and_a_wrong_password_get_the_same_answer(accounts: Accounts) -> None:
    accounts.sign_up("Ann", "a fine password")
    with refused("wrong_login") as unknown:
        accounts.log_in("nobody", "a fine password", address="10.0.0.1")
    with refused("wrong_login") as wrong:
        accounts.log_in("ann", "a wrong password", address="10.0.0.1")
    assert unknown.value.message == wrong.value.message == "wrong username or password"


class CountingHasher(PasswordHasher):
    """The cheap hasher, counting its verifies."""

    def __init__(self) -> None:
        super().__init__(time_cost=1, memory_cost=1024, parallelism=1)
        self.verifies = 0

    def verify(self, hash: str | bytes, password: str | bytes) -> bool:
        self.verifies += 1
        return super().verify(hash, password)


@pytest.mark.parametrize("username", ["nobody", "ann", "not a name!", "Secret-Password-1"])
def test_a_login_takes_one_argon2_verify_whether_or_not_the_name_exists(
    username: str, clock: Clock
) -> None:
    hasher = CountingHasher()
    accounts = Accounts(Store.open("sqlite://"), clock=clock, hasher=hasher)
    accounts.sign_up("Ann", "a fine password")
    with refused("wrong_login"):
        accounts.log_in(username, "a wrong password", address="10.0.0.1")
    assert hasher.verifies == 1


def test_wrong_current_passwords_are_counted_like_failed_logins(accounts: Accounts) -> None:
    ann, token = accounts.sign_up("Ann", "a fine password")
    for n in range(5):
        with refused("wrong_password"):
            accounts.change_password(token, f"guess {n}", "a new password", address="10.0.0.1")
    with refused("too_many_attempts") as info:
        accounts.change_password(token, "a fine password", "a new password", address="10.0.0.1")
    assert info.value.retry_after == 15 * 60
    # They count as the account's failed logins from that address too.
    with refused("too_many_attempts"):
        accounts.log_in("ann", "a fine password", address="10.0.0.1")
    accounts.log_in("ann", "a fine password", address="10.0.0.2")
    assert accounts.account_for_token(token) == ann  # nothing changed


def test_failed_logins_are_counted_under_keyed_hashes_only(accounts: Accounts) -> None:
    accounts.sign_up("Ann", "a fine password")
    with refused("wrong_login"):
        accounts.log_in("Secret-Password-1", "a fine password", address="10.7.7.7")
    with refused("wrong_login"):
        accounts.log_in("ann", "wrong guess", address="10.7.7.7")
    with accounts._store._session() as session:
        keys = [row.key for row in session.query(LoginFailureRow)]
    assert len(keys) == 6  # three counts a failure
    for key in keys:
        kind, digest = key.split(":")
        assert kind in ("pair", "address", "account") and re.fullmatch("[0-9a-f]{64}", digest)
    assert not any(
        clear in key for key in keys for clear in ("secret", "Secret", "ann", "10.7.7.7")
    )


def test_login_starts_a_new_session_and_ends_the_one_it_was_sent_with(accounts: Accounts) -> None:
    ann, first = accounts.sign_up("Ann", "a fine password")
    _, second = accounts.log_in("ann", "a fine password", address="1.1.1.1", old_token=first)
    assert second != first
    assert accounts.account_for_token(first) is None
    assert accounts.account_for_token(second) == ann


def test_a_session_ends_after_7_idle_days_and_30_days_at_most(
    accounts: Accounts, clock: Clock
) -> None:
    ann, token = accounts.sign_up("Ann", "a fine password")
    _, idle = accounts.log_in("ann", "a fine password", address="10.0.0.1")
    # Used every 6 days, a session lasts its 30 days, and not a second more.
    for day in (6, 12, 18, 24, 29):
        clock.now = T0 + timedelta(days=day)
        assert accounts.account_for_token(token) == ann
    clock.now = T0 + timedelta(days=30) - timedelta(seconds=1)
    assert accounts.account_for_token(token) == ann
    clock.now = T0 + timedelta(days=30)
    assert accounts.account_for_token(token) is None
    # Not used for 7 days, a session has ended.
    clock.now = T0 + timedelta(days=7) - timedelta(seconds=1)
    _, fresh = accounts.log_in("ann", "a fine password", address="10.0.0.1")
    clock.now = T0 + timedelta(days=14) - timedelta(seconds=2)
    assert accounts.account_for_token(fresh) == ann
    clock.now = T0 + timedelta(days=21) - timedelta(seconds=2)
    assert accounts.account_for_token(fresh) is None
    assert accounts.account_for_token(idle) is None


def test_logout_ends_the_session_only(accounts: Accounts) -> None:
    ann, phone = accounts.sign_up("Ann", "a fine password")
    _, laptop = accounts.log_in("ann", "a fine password", address="1.1.1.1")
    assert accounts.log_out(phone) is True
    assert accounts.account_for_token(phone) is None
    assert accounts.account_for_token(laptop) == ann
    assert accounts.log_out(phone) is False
    assert accounts.log_out(None) is False


def test_a_new_password_ends_the_other_sessions_and_the_old_password(accounts: Accounts) -> None:
    ann, here = accounts.sign_up("Ann", "a fine password")
    _, elsewhere = accounts.log_in("ann", "a fine password", address="1.1.1.1")
    with refused("wrong_password"):
        accounts.change_password(here, "not the password", "a new password")
    with refused("bad_password"):
        accounts.change_password(here, "a fine password", "short")
    assert accounts.account_for_token(elsewhere) == ann  # refusals changed nothing
    accounts.change_password(here, "a fine password", "a new password")
    assert accounts.account_for_token(here) == ann
    assert accounts.account_for_token(elsewhere) is None
    with refused("wrong_login"):
        accounts.log_in("ann", "a fine password", address="1.1.1.1")
    accounts.log_in("ann", "a new password", address="1.1.1.1")
    with refused("not_logged_in"):
        accounts.change_password(elsewhere, "a new password", "a third password")


def test_five_failures_from_one_address_lock_the_account_there_for_15_minutes(
    accounts: Accounts, clock: Clock
) -> None:
    accounts.sign_up("Ann", "a fine password")
    for minute in range(5):  # failures at 12:00 ... 12:04, from one address
        clock.now = T0 + timedelta(minutes=minute)
        with refused("wrong_login"):
            accounts.log_in("ann", "wrong guess", address="10.0.0.1")
    # At 12:05 even the right password is refused from there: the earliest
    # failure (12:00) counts until 12:15, ten minutes from now.
    clock.now = T0 + timedelta(minutes=5)
    with refused("too_many_attempts") as info:
        accounts.log_in("ann", "a fine password", address="10.0.0.1")
    assert info.value.message == (
        "too many login attempts for this account: try again in 10 minutes"
    )
    assert info.value.retry_after == 600
    # From another address Ann is let in: the guesses were not hers.
    accounts.log_in("ann", "a fine password", address="10.0.0.99")
    # Another account is not locked by Ann's.
    accounts.sign_up("Bob", "bob's password")
    accounts.log_in("bob", "bob's password", address="10.0.0.1")
    # At 12:15 the first failure no longer counts: four remain, one more try is allowed.
    clock.now = T0 + timedelta(minutes=15)
    account, _ = accounts.log_in("ann", "a fine password", address="10.0.0.1")
    assert account.username == "Ann"


def test_guesses_from_many_addresses_lock_strangers_out_but_not_a_known_browser(
    accounts: Accounts,
) -> None:
    ann, _ = accounts.sign_up("Ann", "a fine password")
    accounts.remember_device(ann, "ann-phone-" + "p" * 30)
    for n in range(25):  # one guess from each of 25 addresses: under every per-address limit
        with refused("wrong_login"):
            accounts.log_in("ann", f"guess {n}", address=f"10.1.0.{n}")
    # Distributed guessing is capped: a 26th guess from a new address is refused ...
    with refused("too_many_attempts") as info:
        accounts.log_in("ann", "a fine password", address="10.2.0.1")
    assert info.value.message.startswith("too many login attempts for this account")
    with refused("too_many_attempts"):
        accounts.log_in("ann", "a fine password", address="10.2.0.2", device="x" * 43)
    # ... but Ann's phone, which logged in before, is let in with her password.
    account, _ = accounts.log_in(
        "ann", "a fine password", address="10.2.0.3", device="ann-phone-" + "p" * 30
    )
    assert account == ann
    # Her phone's wrong guesses are still capped, per address.
    for _ in range(5):
        with refused("wrong_login"):
            accounts.log_in("ann", "typo", address="10.2.0.3", device="ann-phone-" + "p" * 30)
    with refused("too_many_attempts"):
        accounts.log_in("ann", "typo", address="10.2.0.3", device="ann-phone-" + "p" * 30)


def test_a_refused_attempt_is_not_counted_and_the_wait_is_whole_minutes(
    accounts: Accounts, clock: Clock
) -> None:
    accounts.sign_up("Ann", "a fine password")
    for _ in range(5):
        with refused("wrong_login"):
            accounts.log_in("ann", "wrong guess", address="10.0.0.1")
    clock.now = T0 + timedelta(minutes=14, seconds=30)
    for _ in range(3):  # hammering while locked does not lengthen the lock
        with refused("too_many_attempts") as info:
            accounts.log_in("ann", "wrong guess", address="10.0.0.1")
    assert info.value.retry_after == 30
    assert info.value.message.endswith("try again in 1 minute")
    clock.now = T0 + timedelta(minutes=15)
    accounts.log_in("ann", "a fine password", address="10.0.0.1")


def test_twenty_failures_from_one_address_lock_that_address(
    accounts: Accounts, clock: Clock
) -> None:
    accounts.sign_up("Ann", "a fine password")
    for n in range(20):  # four guesses at each of five names: no account reaches its limit
        with refused("wrong_login"):
            accounts.log_in(f"user{n % 5}", "guess", address="10.9.9.9")
    with refused("too_many_attempts") as info:
        accounts.log_in("ann", "a fine password", address="10.9.9.9")
    assert (
        info.value.message == "too many login attempts from this address: try again in 15 minutes"
    )
    # Ann, from elsewhere, is let in.
    accounts.log_in("ann", "a fine password", address="10.0.0.1")


def test_a_successful_login_forgets_the_accounts_failures(accounts: Accounts) -> None:
    accounts.sign_up("Ann", "a fine password")
    for _ in range(4):
        with refused("wrong_login"):
            accounts.log_in("ann", "typo", address="10.0.0.1")
    accounts.log_in("ann", "a fine password", address="10.0.0.1")
    for _ in range(4):  # four more typos are allowed again
        with refused("wrong_login"):
            accounts.log_in("ann", "typo", address="10.0.0.2")
    accounts.log_in("ann", "a fine password", address="10.0.0.2")


def test_the_limits_hold_across_services_on_one_database(tmp_path: Path, clock: Clock) -> None:
    # Two server processes (here: two services, each its own engine) share the count.
    first, second = Store.open(str(tmp_path / "a.db")), Store.open(str(tmp_path / "a.db"))
    try:
        one = Accounts(first, clock=clock, hasher=CHEAP)
        two = Accounts(second, clock=clock, hasher=CHEAP)
        one.sign_up("Ann", "a fine password")
        for service in (one, two, one, two, one):
            with refused("wrong_login"):
                service.log_in("ann", "guess", address="10.0.0.1")
        with refused("too_many_attempts"):
            two.log_in("ann", "a fine password", address="10.0.0.1")
    finally:
        first.close()
        second.close()


def test_a_hash_made_with_old_parameters_is_replaced_at_login(clock: Clock) -> None:
    store = Store.open("sqlite://")
    try:
        Accounts(store, clock=clock, hasher=CHEAP).sign_up("Ann", "a fine password")
        old = store.account_by_key("ann")
        assert old is not None and "m=1024,t=1,p=1" in old.password_hash
        stronger = PasswordHasher(time_cost=2, memory_cost=2048, parallelism=1)
        Accounts(store, clock=clock, hasher=stronger).log_in(
            "ann", "a fine password", address="10.0.0.1"
        )
        new = store.account_by_key("ann")
        assert new is not None and new.password_hash.startswith("$argon2id$")
        assert "m=2048,t=2,p=1" in new.password_hash
        assert new.password_changed_at == old.password_changed_at  # the same password
        Accounts(store, clock=clock, hasher=stronger).log_in(
            "ann", "a fine password", address="10.0.0.1"
        )
    finally:
        store.close()


def test_a_device_is_attached_once_and_to_one_account(accounts: Accounts) -> None:
    _, ann = accounts.sign_up("Ann", "a fine password")
    _, bob = accounts.sign_up("Bob", "bob's password")
    assert accounts.attach_device(ann, "d" * 24) == 0
    assert accounts.attach_device(ann, "d" * 24) == 0
    with refused("device_claimed"):
        accounts.attach_device(bob, "d" * 24)
    with refused("not_logged_in"):
        accounts.attach_device("no such token", "e" * 24)


# ------------------------------------------------------------------ HTTP


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db = tmp_path_factory.mktemp("db") / "crokinole.db"
    settings = ServerSettings(
        warm_up=False, login_limit_account=3, login_limit_address=1000, signups_per_hour=1000
    )
    with serving(db, settings) as url:
        yield url


def client(url: str) -> httpx.Client:
    return httpx.Client(base_url=url, timeout=30)


def test_http_sign_up_log_out_log_in(server: str) -> None:
    with client(server) as web:
        # A guest (no cookie) is answered, not refused: browsers log every 4xx.
        assert web.get("/api/account").json() == {"username": None}
        answer = web.post("/api/account/signup", json={"username": "Cleo", "password": "pw-cleo-1"})
        assert (answer.status_code, answer.json()) == (201, {"username": "Cleo"})
        me = web.get("/api/account")
        assert me.status_code == 200 and me.json()["username"] == "Cleo"
        created = datetime.fromisoformat(me.json()["created_at"].removesuffix("Z"))
        assert abs((datetime.utcnow() - created).total_seconds()) < 60
        out = web.post("/api/account/logout", json={})
        assert (out.status_code, out.json()) == (200, {})
        assert "crokinole_session" not in web.cookies  # the cookie was cleared
        assert web.get("/api/account").json() == {"username": None}
        wrong = web.post("/api/account/login", json={"username": "cleo", "password": "nope-nope"})
        assert wrong.status_code == 401
        assert wrong.json() == {"message": "wrong username or password", "code": "wrong_login"}
        right = web.post("/api/account/login", json={"username": "cleo", "password": "pw-cleo-1"})
        assert (right.status_code, right.json()) == (200, {"username": "Cleo"})
        assert web.get("/api/account").json()["username"] == "Cleo"


def test_http_the_same_name_twice_is_a_conflict(server: str) -> None:
    with client(server) as web:
        web.post("/api/account/signup", json={"username": "Dora", "password": "pw-dora-1"})
    with client(server) as other:
        again = other.post("/api/account/signup", json={"username": "DORA", "password": "pw-x-123"})
        assert again.status_code == 409 and again.json()["code"] == "taken"
        assert other.get("/api/account").json() == {"username": None}  # no cookie was given


BAD_SIGNUPS = [
    ('{"username": "Eve"}', 400, "password is missing"),
    ('{"username": "Eve", "password": 12345678}', 400, "password is text"),
    ('{"username": ["Eve"], "password": "pw-eve-12"}', 400, "username is text"),
    ('{"username": "Eve", "password": "pw-eve-12", "admin": true}', 400, "unknown field"),
    ('["Eve", "pw-eve-12"]', 400, "a JSON object"),
    ("{oops", 400, "cannot be read"),
    ('{"username": "Eve", "password": "' + "x" * 200 + '"}', 400, "at most 128"),
    ('{"username": "' + "E" * 100 + '", "password": "pw-eve-12"}', 400, "at most 64"),
    ('{"username": "E", "password": "pw-eve-12"}', 400, "3–20 letters"),
    ('{"username": "Eve", "password": "short"}', 400, "at least 8"),
    ('{"username": "Eve", "password": "' + "x" * 5000 + '"}', 413, "larger than"),
]


def test_http_bad_input_is_a_plain_400_and_creates_nothing(server: str) -> None:
    with client(server) as web:
        for body, status, words in BAD_SIGNUPS:
            answer = web.post(
                "/api/account/signup", content=body, headers={"Content-Type": "application/json"}
            )
            assert answer.status_code == status, body
            assert words in answer.json()["message"] and answer.json()["code"], body
            assert "set-cookie" not in answer.headers
            assert web.get("/api/account").json() == {"username": None}
        # No refusal created Eve: her name is free.
        good = web.post("/api/account/signup", json={"username": "Eve", "password": "pw-eve-12"})
        assert good.status_code == 201


def test_http_posts_must_be_json_from_this_site(server: str) -> None:
    with client(server) as web:
        form = web.post("/api/account/signup", data={"username": "Finn", "password": "pw-finn-1"})
        assert form.status_code == 415 and "JSON" in form.json()["message"]
        plain = web.post(
            "/api/account/login",
            content='{"username": "Finn", "password": "pw-finn-1"}',
            headers={"Content-Type": "text/plain"},
        )
        assert plain.status_code == 415
        elsewhere = web.post(
            "/api/account/signup",
            json={"username": "Finn", "password": "pw-finn-1"},
            headers={"Origin": "https://evil.example"},
        )
        assert elsewhere.status_code == 403 and elsewhere.json()["code"] == "bad_origin"
        own = web.post(
            "/api/account/signup",
            json={"username": "Finn", "password": "pw-finn-1"},
            headers={"Origin": server},
        )
        assert own.status_code == 201
        # A cross-site page cannot log Finn out either.
        out = web.post("/api/account/logout", json={}, headers={"Origin": "https://evil.example"})
        assert out.status_code == 403
        assert web.get("/api/account").status_code == 200


def test_http_too_many_failures_is_429_with_retry_after(server: str) -> None:
    with client(server) as web:
        web.post("/api/account/signup", json={"username": "Gus", "password": "pw-gus-12"})
    with client(server) as web:
        for _ in range(3):  # this server's test limit: 3 per account
            wrong = web.post("/api/account/login", json={"username": "gus", "password": "guess-1"})
            assert wrong.status_code == 401
        locked = web.post("/api/account/login", json={"username": "gus", "password": "pw-gus-12"})
        assert locked.status_code == 429
        assert locked.json() == {
            "message": "too many login attempts for this account: try again in 15 minutes",
            "code": "too_many_attempts",
        }
        assert 14 * 60 < int(locked.headers["retry-after"]) <= 15 * 60
        assert "set-cookie" not in locked.headers


def test_http_change_password(server: str) -> None:
    with client(server) as here, client(server) as there:
        here.post("/api/account/signup", json={"username": "Hal", "password": "pw-hal-12"})
        there.post("/api/account/login", json={"username": "hal", "password": "pw-hal-12"})
        bad = here.post(
            "/api/account/password", json={"old_password": "not-it-1", "new_password": "pw-hal-34"}
        )
        assert bad.status_code == 403 and bad.json()["message"] == "the current password is wrong"
        ok = here.post(
            "/api/account/password", json={"old_password": "pw-hal-12", "new_password": "pw-hal-34"}
        )
        assert (ok.status_code, ok.json()) == (200, {"username": "Hal"})
        assert here.get("/api/account").status_code == 200
        ended = there.get("/api/account")
        assert ended.json() == {"message": "not logged in", "code": "not_logged_in"}
        assert ended.status_code == 401
    with client(server) as anon:
        nobody = anon.post(
            "/api/account/password", json={"old_password": "pw-hal-34", "new_password": "x" * 9}
        )
        assert nobody.status_code == 401 and nobody.json()["code"] == "not_logged_in"


def test_http_attach_this_devices_games(server: str) -> None:
    device = {"X-Device-Token": "i" * 24}
    with client(server) as web:
        anon = web.post("/api/account/attach", json={}, headers=device)
        assert anon.status_code == 401
        web.post("/api/account/signup", json={"username": "Ida", "password": "pw-ida-12"})
        missing = web.post("/api/account/attach", json={})
        assert missing.status_code == 400 and "X-Device-Token" in missing.json()["message"]
        done = web.post("/api/account/attach", json={}, headers=device)
        assert (done.status_code, done.json()) == (200, {"attached": 0})
    with client(server) as other:
        other.post("/api/account/signup", json={"username": "Joe", "password": "pw-joe-12"})
        taken = other.post("/api/account/attach", json={}, headers=device)
        assert taken.status_code == 409 and "another account" in taken.json()["message"]
