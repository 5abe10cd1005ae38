"""The store's accounts on real SQLite and PostgreSQL: names, sessions, failed logins, devices."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.config import Config

from crokinole.store import (
    AccountTakenError,
    DeviceClaimedError,
    Store,
    StoreConflictError,
    StoreDataError,
    TableResult,
)
from crokinole.store.database import MIGRATIONS

T0 = datetime(2026, 1, 1, 12, 0, 0)
HASH_A = "a" * 64
HASH_B = "b" * 64


def test_an_account_is_found_by_its_key_and_a_taken_key_writes_nothing(store: Store) -> None:
    ann = store.create_account("Ann", "ann", "$argon2id$one", T0)
    assert (ann.username, ann.username_key, ann.password_hash) == ("Ann", "ann", "$argon2id$one")
    assert (ann.created_at, ann.password_changed_at) == (T0, T0)
    assert store.account_by_key("ann") == ann == store.account(ann.id)
    assert store.account_by_key("Ann") is None  # the caller gives the lower-case key
    with pytest.raises(AccountTakenError, match="the username ANN is taken"):
        store.create_account("ANN", "ann", "$argon2id$two", T0)
    assert store.account_by_key("ann") == ann  # unchanged
    bob = store.create_account("bob", "bob", "h", T0)
    assert bob.id != ann.id
    # A taken name is a conflict (another writer came first), the family of the store's errors.
    assert issubclass(AccountTakenError, StoreConflictError)


def test_a_session_logs_in_until_it_expires_or_is_deleted(store: Store) -> None:
    ann = store.create_account("Ann", "ann", "h", T0)
    store.create_account_session(HASH_A, ann.id, T0, T0 + timedelta(days=30))
    assert store.session_account(HASH_A, T0 + timedelta(days=29)) == ann
    assert store.session_account(HASH_A, T0 + timedelta(days=30)) is None  # expired at the instant
    assert store.session_account(HASH_B, T0) is None
    assert store.delete_account_session(HASH_A) is True
    assert store.session_account(HASH_A, T0) is None
    assert store.delete_account_session(HASH_A) is False


def test_a_session_needs_a_sha256_and_an_account(store: Store) -> None:
    ann = store.create_account("Ann", "ann", "h", T0)
    with pytest.raises(StoreDataError, match="SHA-256"):
        store.create_account_session("the-token-itself", ann.id, T0, T0)
    with pytest.raises(StoreDataError, match="there is no account 999"):
        store.create_account_session(HASH_A, 999, T0, T0)
    store.create_account_session(HASH_A, ann.id, T0, T0 + timedelta(days=1))
    with pytest.raises(StoreConflictError):
        store.create_account_session(HASH_A, ann.id, T0, T0 + timedelta(days=1))
    assert store.account_session_count(ann.id) == 1


def test_a_new_password_ends_every_other_session_and_a_rehash_none(store: Store) -> None:
    ann = store.create_account("Ann", "ann", "old", T0)
    later = T0 + timedelta(days=30)
    for token_hash in (HASH_A, HASH_B, "c" * 64):
        store.create_account_session(token_hash, ann.id, T0, later)
    assert store.set_password_hash(ann.id, "rehashed", T0 + timedelta(hours=1), changed=False) == []
    after_rehash = store.account(ann.id)
    assert after_rehash is not None
    assert (after_rehash.password_hash, after_rehash.password_changed_at) == ("rehashed", T0)
    assert store.account_session_count(ann.id) == 3
    ended = store.set_password_hash(
        ann.id, "new", T0 + timedelta(hours=2), changed=True, keep_session=HASH_B
    )
    assert sorted(ended) == [HASH_A, "c" * 64]  # the sessions that ended, for their sockets
    changed = store.account(ann.id)
    assert changed is not None
    assert (changed.password_hash, changed.password_changed_at) == ("new", T0 + timedelta(hours=2))
    assert store.session_account(HASH_B, T0) == changed
    assert store.session_account(HASH_A, T0) is None
    assert store.account_session_count(ann.id) == 1
    with pytest.raises(StoreDataError, match="there is no account 999"):
        store.set_password_hash(999, "x", T0, changed=True)


def test_failed_logins_are_counted_per_key_in_a_window_and_purged(store: Store) -> None:
    for minute in (0, 5, 10):
        store.add_login_failure(["account:ann", "address:10.0.0.1"], T0 + timedelta(minutes=minute))
    store.add_login_failure(["account:bob", "address:10.0.0.1"], T0 + timedelta(minutes=11))
    assert store.login_failures("account:ann", since=T0 - timedelta(minutes=1)) == [
        T0,
        T0 + timedelta(minutes=5),
        T0 + timedelta(minutes=10),
    ]
    assert len(store.login_failures("address:10.0.0.1", since=T0 + timedelta(minutes=4))) == 3
    assert store.login_failures("account:carl", since=T0) == []
    store.clear_login_failures("account:ann")
    assert store.login_failures("account:ann", since=T0 - timedelta(minutes=1)) == []
    assert len(store.login_failures("address:10.0.0.1", since=T0 - timedelta(minutes=1))) == 4
    # Sessions expired at `now` and failures before the cut go; the rest stay.
    ann = store.create_account("Ann", "ann", "h", T0)
    store.create_account_session(HASH_A, ann.id, T0, T0 + timedelta(minutes=30))
    store.create_account_session(HASH_B, ann.id, T0, T0 + timedelta(days=1))
    gone = store.purge_accounts_data(T0 + timedelta(hours=1), T0 + timedelta(minutes=6))
    assert gone == 1 + 2  # one session; the address's failures at 0 and 5 minutes
    assert store.account_session_count(ann.id) == 1
    assert len(store.login_failures("address:10.0.0.1", since=T0 - timedelta(minutes=1))) == 2


def test_a_device_is_attached_to_one_account_and_its_games_counted(store: Store) -> None:
    ann = store.create_account("Ann", "ann", "h", T0)
    bob = store.create_account("Bob", "bob", "h", T0)
    device = "d" * 24
    # Two finished games of the device (one table with a rematch), one of another device.
    store.create_table(
        "t" * 32, kind="solo", code=None, events=[{"type": "created", "version": 1}],
        snapshot={}, members=[], deadline=None, status="playing",
    )  # fmt: skip
    results = [
        TableResult(1, device, "easy", "four_rounds", "win"),
        TableResult(2, device, "easy", "four_rounds", "loss"),
        TableResult(1, "e" * 24, "easy", "four_rounds", "loss"),
    ]
    store.append_table_events(
        "t" * 32, 1, [{"type": "finished", "version": 2}], {}, deadline=None,
        status="finished", results=results,
    )  # fmt: skip
    assert store.attach_device(ann.id, device, T0) == 2
    assert store.attach_device(ann.id, device, T0 + timedelta(days=1)) == 2  # again: harmless
    assert store.account_devices(ann.id) == [device]
    with pytest.raises(DeviceClaimedError, match="another account"):
        store.attach_device(bob.id, device, T0)
    assert store.account_devices(bob.id) == []
    with pytest.raises(StoreDataError, match="there is no account 999"):
        store.attach_device(999, device, T0)


def test_deleting_an_account_deletes_its_sessions_and_devices(store: Store, database: str) -> None:
    ann = store.create_account("Ann", "ann", "h", T0)
    store.create_account_session(HASH_A, ann.id, T0, T0 + timedelta(days=1))
    store.attach_device(ann.id, "d" * 24, T0)
    url = database if "://" in database else f"sqlite:///{database}"
    engine = sa.create_engine(url)
    try:
        with engine.begin() as connection:
            if engine.dialect.name == "sqlite":
                connection.execute(sa.text("PRAGMA foreign_keys=ON"))
            connection.execute(sa.text("DELETE FROM accounts WHERE id = :id"), {"id": ann.id})
    finally:
        engine.dispose()
    assert store.session_account(HASH_A, T0) is None
    assert store.account_devices(ann.id) == []
    assert store.account_session_count(ann.id) == 0


def test_migration_0005_goes_down_and_up_again(database: str) -> None:
    store = Store.open(database, migrate=False)
    try:
        store.migrate("0004")
        store.migrate("0005")
        assert store.revision() == "0005"
        store.create_account("Ann", "ann", "h", T0)
        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        with store._engine.begin() as connection:
            config.attributes["connection"] = connection
            command.downgrade(config, "0004")
        assert store.revision() == "0004"
        names = sa.inspect(store._engine).get_table_names()
        assert "accounts" not in names and "tables" in names
        store.migrate()
        assert store.account_by_key("ann") is None  # the data went with the tables
    finally:
        store.close()


def test_a_used_session_is_renewed_for_its_idle_time_up_to_its_lifetime(store: Store) -> None:
    ann = store.create_account("Ann", "ann", "h", T0)
    idle, lifetime = timedelta(days=7), timedelta(days=30)
    store.create_account_session(HASH_A, ann.id, T0, T0 + idle)
    store.create_account_session(HASH_B, ann.id, T0, T0 + idle)
    for day in (5, 10, 15, 20, 25):
        at = T0 + timedelta(days=day)
        assert store.session_account(HASH_A, at, idle=idle, lifetime=lifetime) == ann
    # Renewed to its lifetime, not past it; the session left alone expired after 7 days.
    assert store.session_account(HASH_A, T0 + lifetime - timedelta(seconds=1)) == ann
    assert store.session_account(HASH_A, T0 + lifetime, idle=idle, lifetime=lifetime) is None
    assert store.session_account(HASH_B, T0 + idle, idle=idle, lifetime=lifetime) is None
    # A read without idle and lifetime renews nothing.
    store.create_account_session("c" * 64, ann.id, T0, T0 + idle)
    assert store.session_account("c" * 64, T0 + timedelta(days=6)) == ann
    assert store.session_account("c" * 64, T0 + idle) is None


def test_a_browser_that_logged_in_is_known_to_that_account_only(store: Store) -> None:
    ann = store.create_account("Ann", "ann", "h", T0)
    bob = store.create_account("Bob", "bob", "h", T0)
    store.remember_login_device(HASH_A, ann.id, T0)
    store.remember_login_device(HASH_A, ann.id, T0 + timedelta(days=1))  # again: one row
    assert store.login_device_known(HASH_A, ann.id)
    assert not store.login_device_known(HASH_A, bob.id)
    assert not store.login_device_known(HASH_B, ann.id)
    store.remember_login_device(HASH_A, bob.id, T0)  # one browser, two accounts
    assert store.login_device_known(HASH_A, bob.id)
    with pytest.raises(StoreDataError, match="SHA-256"):
        store.remember_login_device("not a hash", ann.id, T0)
    # Unused for a year, a browser is forgotten (its cookie has expired).
    store.remember_login_device(HASH_B, ann.id, T0 + timedelta(days=200))
    gone = store.purge_accounts_data(T0, T0, devices_before=T0 + timedelta(days=100))
    assert gone == 2  # Ann's and Bob's rows of HASH_A
    assert not store.login_device_known(HASH_A, ann.id)
    assert store.login_device_known(HASH_B, ann.id)


def test_the_server_secret_is_made_once_and_shared_by_every_store(database: str) -> None:
    first, second = Store.open(database), Store.open(database)
    try:
        made = first.server_secret("login_limits", lambda: "s" * 64, T0)
        assert second.server_secret("login_limits", lambda: "t" * 64, T0) == made == "s" * 64
        assert first.server_secret("other", lambda: "u" * 64, T0) == "u" * 64
    finally:
        first.close()
        second.close()


def test_migration_0008_forgets_the_clear_failures_and_goes_down_and_up(database: str) -> None:
    store = Store.open(database, migrate=False)
    try:
        store.migrate("0007")
        store.add_login_failure(["account:Secret-Password", "address:10.0.0.1"], T0)
        store.migrate("0008")
        assert store.revision() == "0008"
        # What was counted in clear (a password typed as a name) is gone.
        assert store.login_failures("account:Secret-Password", since=T0 - timedelta(1)) == []
        ann = store.create_account("Ann", "ann", "h", T0)
        store.remember_login_device(HASH_A, ann.id, T0)
        store.server_secret("login_limits", lambda: "s" * 64, T0)
        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        with store._engine.begin() as connection:
            config.attributes["connection"] = connection
            command.downgrade(config, "0007")
        assert store.revision() == "0007"
        names = sa.inspect(store._engine).get_table_names()
        assert "login_devices" not in names and "server_secrets" not in names
        store.migrate()
        assert not store.login_device_known(HASH_A, ann.id)
        assert store.server_secret("login_limits", lambda: "t" * 64, T0) == "t" * 64
    finally:
        store.close()
