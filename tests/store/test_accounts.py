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
from crokinole.store.store import MIGRATIONS

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
    store.set_password_hash(ann.id, "rehashed", T0 + timedelta(hours=1), changed=False)
    after_rehash = store.account(ann.id)
    assert after_rehash is not None
    assert (after_rehash.password_hash, after_rehash.password_changed_at) == ("rehashed", T0)
    assert store.account_session_count(ann.id) == 3
    store.set_password_hash(
        ann.id, "new", T0 + timedelta(hours=2), changed=True, keep_session=HASH_B
    )
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
