"""The database under the store: its engine, sessions, transactions, migrations and errors.

This module owns the connection to SQLite (by default) or PostgreSQL (any
SQLAlchemy URL): the engine and its dialect's settings (SQLite's pragmas, a
server's connect timeout, a pool that replaces dropped connections), one
session per call and one transaction per write (SQLite's single writer queued
on a lock), the Alembic migrations run when a store is opened, and the
store's errors, among them how a lost database server becomes
:class:`StoreUnavailableError` (:func:`unreachable`).  Every part of the store
(:mod:`crokinole.store.tables`, :mod:`~crokinole.store.accounts` ...) is a
:class:`Database` with the queries of its aggregate.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Self

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, event, text
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.orm import Session, sessionmaker

from crokinole import metrics
from crokinole.errors import CrokinoleError

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
#: Seconds a new connection to a database server may take before the call fails.
CONNECT_TIMEOUT = 10

#: The PostgreSQL advisory lock key that migrations hold (any fixed number; "croki" in ASCII).
MIGRATION_LOCK = 0x63726F6B69

#: Seconds :meth:`Database.close` waits for calls still running in other threads.
CLOSE_WAIT_S = 5.0


class StoreConflictError(CrokinoleError):
    """A write that lost a race: the table is not at the expected version any more, is
    closed, or the id or code of a new table is taken.

    Nothing was written; the caller's view is stale.
    """


class StoreUnavailableError(CrokinoleError):
    """The database could not be reached (its server is down, or dropped the connection).

    Nothing was written (a transaction that failed is rolled back); the same
    call may succeed once the database is back.
    """


class StoreDataError(CrokinoleError, ValueError):
    """Data the store will not keep: an unknown status, an event out of sequence, bad JSON.

    Nothing was written; the caller has a bug.
    """


class AccountTakenError(StoreConflictError):
    """A new account whose username (in any case) belongs to an account already."""


class DeviceClaimedError(StoreConflictError):
    """A device attached to an account whose games count for another account already."""


class AlreadyQueuedError(StoreConflictError):
    """An account put in the ranked queue while it waits there already."""


class AlreadyPlayedError(StoreConflictError):
    """A second score at a day's challenge from a device (or account) that has one."""


def utc_now() -> datetime:
    """Now in UTC, naive (how the store keeps times)."""
    return datetime.now(UTC).replace(tzinfo=None)


class Database:
    """A SQL database reached through SQLAlchemy; each write is one transaction.

    The base of every part of the store: :meth:`open` makes the engine (a
    plain path means SQLite) and migrates the schema; the parts read in
    :meth:`_session` and write in :meth:`_writing`.

    >>> db = Database.open("sqlite://")
    >>> db.revision() == db.newest_revision()
    True
    >>> db.ping()
    """

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._sessions = sessionmaker(engine, expire_on_commit=False)
        # SQLite has one writer at a time: the server's writes (one per shot, from
        # many worker threads) queue here rather than on SQLite's file lock, whose
        # busy timeout a crowded server can outwait ("database is locked").  A
        # database with row locks (PostgreSQL) lets writers of different tables
        # run together.
        self._write_lock: contextlib.AbstractContextManager[Any] = (
            threading.Lock() if engine.dialect.name == "sqlite" else contextlib.nullcontext()
        )

    @classmethod
    def open(cls, url: str, *, migrate: bool = True) -> Self:
        """Open the database at ``url`` (a plain path means SQLite) and migrate it to the newest
        schema (unless ``migrate`` is false)."""
        if "://" not in url:
            path = Path(url).expanduser()
            path.parent.mkdir(parents=True, exist_ok=True)
            url = f"sqlite:///{path}"
        # A server's connections may be dropped (a restart, a failover): each is
        # tested as it leaves the pool, and a dead one replaced.  A database
        # server that does not answer is given up after a while (a clear
        # StoreUnavailableError rather than a call that hangs).
        options: dict[str, Any] = {"pool_pre_ping": True}
        parsed = make_url(url)
        if parsed.get_backend_name() == "postgresql" and "connect_timeout" not in parsed.query:
            options["connect_args"] = {"connect_timeout": CONNECT_TIMEOUT}
        engine = create_engine(url, **options)
        if engine.dialect.name == "sqlite":
            event.listen(engine, "connect", _sqlite_pragmas)
        event.listen(engine, "connect", _count_connection)
        event.listen(engine, "commit", _count_commit)
        database = cls(engine)
        if migrate:
            database.migrate()
        return database

    def revision(self) -> str | None:
        """The schema's migration (``"0004"``...), or None for a database never migrated.

        >>> db = Database.open("sqlite://", migrate=False)
        >>> db.revision() is None
        True
        >>> db.migrate()
        >>> db.revision() == db.newest_revision()
        True
        """
        with self._engine.connect() as connection:
            return MigrationContext.configure(connection).get_current_revision()

    @staticmethod
    def newest_revision() -> str:
        """The newest migration of this version of the code (what :meth:`migrate` reaches)."""
        head = ScriptDirectory(str(MIGRATIONS)).get_current_head()
        assert head is not None  # the package ships its migrations
        return head

    def migrate(self, revision: str = "head") -> None:
        """Bring the schema to ``revision`` (the newest migration by default).

        On PostgreSQL the migration holds an advisory lock for its
        transaction: several server processes started at once migrate one
        after another (the later ones find the schema already there).
        """
        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        with self._engine.begin() as connection:
            if connection.dialect.name == "postgresql":
                connection.execute(
                    text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK}
                )
            config.attributes["connection"] = connection
            command.upgrade(config, revision)

    def close(self) -> None:
        """Release the database connections, once the calls still running end.

        A call running in another thread (a server's task cancelled at
        shutdown leaves its worker thread to finish) gets up to
        :data:`CLOSE_WAIT_S` seconds: a connection it gave back to a pool
        already disposed would stay open until the collector found it.
        """
        checked_out = getattr(self._engine.pool, "checkedout", None)
        if checked_out is not None:
            deadline = time.monotonic() + CLOSE_WAIT_S
            while checked_out() > 0 and time.monotonic() < deadline:
                time.sleep(0.01)
        self._engine.dispose()

    def ping(self) -> None:
        """Check that the database answers.

        Raises:
            StoreUnavailableError: it does not.
        """
        with self._session() as session:
            session.execute(text("SELECT 1"))

    @contextlib.contextmanager
    def _session(self) -> Iterator[Session]:
        """A session for one call: closed (rolled back unless committed) at the end.

        Every call of the store reaches the database here, so this is where a
        lost database becomes :class:`StoreUnavailableError` (see
        :func:`unreachable`); other errors pass as they are.
        """
        try:
            with self._sessions() as session:
                yield session
        except DBAPIError as error:
            reason = unreachable(error, self._engine.dialect.name)
            if reason is None:
                raise
            raise StoreUnavailableError(
                f"the database cannot be reached ({reason}); nothing was written, "
                "try again once it is back"
            ) from error

    @contextlib.contextmanager
    def _writing(self) -> Iterator[Session]:
        """A session in a transaction that writes (committed at the end, or rolled back)."""
        with self._write_lock, self._session() as session, session.begin():
            yield session


def to_json(value: Any, what: str) -> str:
    """``value`` as compact JSON, or :class:`StoreDataError` saying that ``what`` is not JSON."""
    try:
        return json.dumps(value, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as error:
        raise StoreDataError(f"{what} is not JSON: {error}") from None


def iso_utc(at: datetime) -> str:
    """A stored (UTC, naive) time as ISO 8601 with a Z."""
    return at.replace(microsecond=0).isoformat() + "Z"


def unreachable(error: DBAPIError, dialect: str) -> str | None:
    """Why ``error`` means the database is out of reach (a plain reason), or None if it does not.

    A connection that the driver found dead (SQLAlchemy invalidated it) is
    out of reach on any database.  On a database server (PostgreSQL), so is
    every ``OperationalError`` (refused or dropped connections, a server
    shutting down, a transaction the server gave up: things of the server's
    state, not of the call) and ``InterfaceError`` (a connection already
    closed).  On SQLite those are about the file (a missing table, a locked
    file) and pass as they are.

    >>> closed = Exception("server closed the connection unexpectedly")
    >>> unreachable(OperationalError("SELECT 1", {}, closed), "postgresql")
    'server closed the connection unexpectedly'
    >>> unreachable(OperationalError("SELECT 1", {}, Exception("no such table: t")), "sqlite")
    """
    if not error.connection_invalidated and (
        dialect == "sqlite" or not isinstance(error, OperationalError | InterfaceError)
    ):
        return None
    lines = str(error.orig or error).strip().splitlines()
    return lines[0].strip() if lines and lines[0].strip() else type(error.orig).__name__


def _count_connection(_dbapi_connection: Any, _record: Any) -> None:
    metrics.count(metrics.DB_CONNECTIONS)


def _count_commit(_connection: Any) -> None:
    metrics.count(metrics.DB_COMMITS)


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    # Another process writing (``crokinole db upgrade``, a second server) is waited for.
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()
