"""A database out of reach: clear errors, nothing half written, and recovery once it is back.

On a real PostgreSQL (skipped when none is reachable): the store's
connections are dropped by the server (``pg_terminate_backend``, what a
restart or a failover does), between calls and in the middle of a write.
A write cut short raises :class:`StoreUnavailableError` and writes nothing;
the next call gets a fresh connection and works.  On SQLite the store's
errors are unchanged.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError

from crokinole.errors import CrokinoleError
from crokinole.store import Store, StoreUnavailableError, TableMember
from tests.store.conftest import POSTGRES_URL, postgres_unavailable
from tests.support.server_process import free_port

ANN = TableMember("m1", "tok-ann", "Ann", seats=("south",))


def _create(store: Store, table_id: str = "t1") -> None:
    store.create_table(
        table_id,
        kind="party",
        code=None,
        events=[{"type": "created", "version": 1}],
        snapshot={"version": 1},
        members=[ANN],
        deadline=None,
        status="lobby",
    )


def _append(store: Store, version: int, table_id: str = "t1") -> None:
    store.append_table_events(
        table_id,
        version - 1,
        [{"type": "shot", "version": version}],
        {"version": version},
        deadline=None,
        status="playing",
    )


def _terminate(application_name: str, pid: int | None = None) -> int:
    """Drop the store's connections on the server's side (all, or the one of ``pid``).

    Each is waited for until its server process is gone (it said goodbye on
    its socket).
    """
    admin = sa.create_engine(POSTGRES_URL)
    try:
        with admin.begin() as connection:
            dropped = connection.execute(
                sa.text(
                    "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity "
                    "WHERE application_name = :name AND (CAST(:pid AS int) IS NULL OR pid = :pid)"
                ),
                {"name": application_name, "pid": pid},
            ).all()
    finally:
        admin.dispose()
    return len(dropped)


@pytest.fixture
def pg_store(postgres_database: str) -> Iterator[tuple[Store, str]]:
    """A store on a PostgreSQL schema of its own, and its connections' application_name."""
    store = Store.open(postgres_database)
    name = make_url(postgres_database).query["application_name"]
    assert isinstance(name, str)
    yield store, name
    store.close()


@pytest.mark.postgres
def test_connections_dropped_between_calls_are_replaced(pg_store: tuple[Store, str]) -> None:
    store, name = pg_store
    _create(store)
    _append(store, 2)
    assert _terminate(name) >= 1  # the pooled connection, idle
    # The pool looks at a connection's socket as it lends it (the server's
    # goodbye waits there; no round trip): the dead one is replaced and the
    # call works as if nothing happened.
    table = store.table("t1")
    assert table is not None and table.version == 2
    _append(store, 3)
    assert [e["version"] for e in store.table_events("t1")] == [1, 2, 3]


@pytest.mark.postgres
@pytest.mark.parametrize("members", [None, [ANN]], ids=["a shot", "with the members"])
def test_a_connection_dropped_in_a_write_is_unavailable_and_writes_nothing(
    pg_store: tuple[Store, str],
    members: list[TableMember] | None,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A shot's append is one statement (the update and the insert together): the connection
    is dropped as it is sent. An append that also writes the members is a transaction: it is
    dropped before the insert of events, the table's row updated already."""
    store, name = pg_store
    _create(store)
    cut: list[int] = []
    psycopg = pytest.importorskip("psycopg")
    execute = psycopg.Cursor.execute

    def drop_mid_write(cursor: Any, query: Any, *args: Any, **kwargs: Any) -> Any:
        # On the driver's cursor: a shot's append is written on the driver's own
        # connection, the other writes through SQLAlchemy's session.
        if not cut and "INSERT INTO TABLE_EVENTS" in str(query).upper():
            cut.append(_terminate(name, cursor.connection.info.backend_pid))
        return execute(cursor, query, *args, **kwargs)

    monkeypatch.setattr(psycopg.Cursor, "execute", drop_mid_write)
    with pytest.raises(StoreUnavailableError) as failed:
        store.append_table_events(
            "t1", 1, [{"type": "shot", "version": 2}], {"version": 2},
            members=members, deadline=None, status="playing",
        )  # fmt: skip
    monkeypatch.undo()
    assert cut == [1]
    message = str(failed.value)
    assert message.startswith("the database cannot be reached (")
    assert "nothing was written" in message
    assert isinstance(failed.value, CrokinoleError)
    # Rolled back: the update of the table's row went with the connection.
    table = store.table("t1")
    assert table is not None and (table.version, table.status) == (1, "lobby")
    assert [e["version"] for e in store.table_events("t1")] == [1]
    # The same write again, on a new connection: it works.
    _append(store, 2)
    assert [e["version"] for e in store.table_events("t1")] == [1, 2]


@pytest.mark.postgres
def test_reads_and_writes_after_every_connection_was_dropped_many_times(
    pg_store: tuple[Store, str],
) -> None:
    store, name = pg_store
    _create(store)
    for version in range(2, 8):
        _terminate(name)
        try:
            _append(store, version)
        except StoreUnavailableError:  # pragma: no cover - only if the drop raced the checkout
            _append(store, version)
        assert store.table("t1").version == version  # type: ignore[union-attr]
    assert [e["version"] for e in store.table_events("t1")] == list(range(1, 8))


def test_a_database_server_that_is_down_is_unavailable_with_a_plain_message() -> None:
    reason = postgres_unavailable()
    if reason is not None and "psycopg" in reason:
        pytest.skip(reason)
    # Nothing listens on this port: PostgreSQL is down (the password stays secret).
    url = f"postgresql+psycopg://crokinole:sekret@127.0.0.1:{free_port()}/crokinole"
    store = Store.open(url, migrate=False)
    try:
        with pytest.raises(StoreUnavailableError) as failed:
            store.table("t1")
        with pytest.raises(StoreUnavailableError):
            _create(store)
    finally:
        store.close()
    message = str(failed.value)
    assert message.startswith("the database cannot be reached (") and "\n" not in message
    assert "sekret" not in message


def test_sqlite_errors_pass_as_they_are(tmp_path: Path) -> None:
    # On SQLite an OperationalError is about the file (here: a schema never
    # made), not a lost server: it is not called unavailable.
    store = Store.open(str(tmp_path / "store.db"), migrate=False)
    try:
        with pytest.raises(OperationalError) as failed:
            store.table("t1")
    finally:
        store.close()
    assert not isinstance(failed.value, StoreUnavailableError)
    assert "no such table" in str(failed.value)


def test_servers_started_at_once_on_a_new_database_migrate_one_after_another(
    postgres_database: str,
) -> None:
    """Four processes' stores opened together on an empty schema: each opens (none trips over
    another's tables), and the schema ends at the newest migration."""
    opened: list[Store] = []
    failures: list[BaseException] = []
    start = threading.Barrier(4)

    def open_one() -> None:
        start.wait()
        try:
            opened.append(Store.open(postgres_database))
        except BaseException as error:
            failures.append(error)

    threads = [threading.Thread(target=open_one, daemon=True) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)  # without the lock they wait on each other's DDL for ever
    try:
        assert not any(thread.is_alive() for thread in threads), "the migrations are stuck"
        assert failures == []
        assert len(opened) == 4
        assert {store.revision() for store in opened} == {Store.newest_revision()}
    finally:
        for store in opened:
            store.close()
