"""The database under the store: its engine, sessions, transactions, migrations and errors.

This module owns the connection to SQLite (by default) or PostgreSQL (any
SQLAlchemy URL): the engine and its dialect's settings (SQLite's pragmas; a
server's timeouts, :mod:`crokinole.store.postgres`), a pool of a fixed size
that keeps its connections, one session per call and one transaction per
write (SQLite's single writer queued on a lock), the DBAPI connection itself
for the hottest write (:meth:`Database._raw`), the Alembic migrations run
when a store is opened, and the store's errors, among them how a lost or
silent database server becomes :class:`StoreUnavailableError`
(:func:`unreachable`).  Every part of the store
(:mod:`crokinole.store.tables`, :mod:`~crokinole.store.accounts` ...) is a
:class:`Database` with the queries of its aggregate.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Self, cast

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import DateTime, create_engine, event, text
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.engine.default import DefaultDialect
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeoutError
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import QueuePool

from crokinole import metrics
from crokinole.errors import CrokinoleError
from crokinole.rules.record_format import compact_json

MIGRATIONS = Path(__file__).resolve().parent / "migrations"

#: Seconds a new connection to a database server may take before the call fails
#: (libpq's ``connect_timeout``, which psycopg enforces itself).
CONNECT_TIMEOUT = 5

#: Seconds a statement may run on a database server before the server cancels it
#: (``statement_timeout``): every statement of the server is an indexed read or
#: a small write, so one that runs this long meets a database in trouble (a lock
#: held by a stuck writer, a server out of resources).  Migrations have none.
STATEMENT_TIMEOUT_S = 4.0

#: Seconds a call waits for the database server's answer (each round trip) before
#: it gives up: the connection is shut down and discarded, and the call raises
#: :class:`StoreUnavailableError` (a server that accepts connections and then
#: says nothing, which no server-side timeout ends).  Longer than
#: :data:`STATEMENT_TIMEOUT_S`, so that a slow statement gets the server's own
#: cancel first; also how long a call waits for a connection of a full pool.
ANSWER_TIMEOUT_S = 5.0

#: Seconds :meth:`Database.ping` waits for the answer (the health check calls it).
PING_TIMEOUT_S = 2.0

#: TCP keepalive on a server's connections (seconds idle before the first probe,
#: between probes, probes unanswered): a server gone from the network (no
#: reset ever comes) is found on an idle pooled connection in about 11 s, and
#: data sent that the peer never acknowledges fails the connection after
#: :data:`ANSWER_TIMEOUT_S` (``tcp_user_timeout``).
KEEPALIVE = (5, 2, 3)

#: Connections a pool keeps: the worker threads that call the store (anyio's
#: default thread limiter, which ``anyio.to_thread`` and Starlette share, has 40;
#: the server's owner applies commands on 8 threads of its own,
#: ``crokinole.server.owner.commands.COMMAND_THREADS``), plus the event loop's
#: own thread.  A fixed size (no overflow): connections are opened once and
#: kept, never opened and closed under load.
POOL_SIZE = 49

#: The PostgreSQL drivers on libpq, which take its connection settings.
LIBPQ_DRIVERS = ("psycopg", "psycopg2")

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
    """The database could not be reached (its server is down, dropped the connection, or did
    not answer in time: :data:`ANSWER_TIMEOUT_S`).

    A transaction that failed is rolled back; the same call may succeed once
    the database is back.  (A write whose answer never came may have been
    committed all the same: the version guard of a table's append makes the
    next write find out.)
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
        # The driver's errors, and how a time is stored (SQLite: as text), for
        # the calls made on the driver's own connection (:meth:`_raw`).
        self._dbapi_error: type[Exception] = engine.dialect.loaded_dbapi.Error
        stored = DateTime().dialect_impl(engine.dialect).bind_processor(engine.dialect)
        self._stored_time: Callable[[datetime], Any] = stored or _as_it_is
        # SQLite has one writer at a time: the server's writes (one per shot, from
        # many worker threads) queue here rather than on SQLite's file lock, whose
        # busy timeout a crowded server can outwait ("database is locked").  A
        # database with row locks (PostgreSQL) lets writers of different tables
        # run together.
        self._write_lock: contextlib.AbstractContextManager[Any] = (
            threading.Lock() if engine.dialect.name == "sqlite" else contextlib.nullcontext()
        )
        # The calls running (:meth:`_call`), which :meth:`close` waits for; once
        # closed, the store refuses calls rather than open connections anew.
        self._calls_over = threading.Condition()
        self._running = 0
        self._closed = False

    @classmethod
    def open(cls, url: str, *, migrate: bool = True) -> Self:
        """Open the database at ``url`` (a plain path means SQLite) and migrate it to the newest
        schema (unless ``migrate`` is false)."""
        if "://" not in url:
            path = Path(url).expanduser()
            path.parent.mkdir(parents=True, exist_ok=True)
            url = f"sqlite:///{path}"
        parsed = make_url(url)
        dialect = parsed.get_dialect()
        options: dict[str, Any] = {}
        # A QueuePool for every database but an in-memory SQLite (one per thread).
        if cast(type[DefaultDialect], dialect).get_pool_class(parsed) is QueuePool:
            options.update(pool_size=POOL_SIZE, max_overflow=0, pool_timeout=ANSWER_TIMEOUT_S)
        if dialect.name == "postgresql" and dialect.driver in LIBPQ_DRIVERS:
            options["connect_args"] = _server_timeouts(parsed.query)
        engine = create_engine(url, **options)
        if engine.dialect.name == "postgresql" and engine.dialect.driver == "psycopg":
            from crokinole.store import postgres as pg  # noqa: PLC0415 - its driver is optional

            event.listen(engine, "do_connect", _connect_timed)
            # No pre-ping (a round trip before every call): a connection the
            # server closed is found as it leaves the pool, and one that dies
            # in a call is discarded by SQLAlchemy (the call is unavailable).
            event.listen(engine.pool, "checkout", pg.check_alive)
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
        # A migration's DDL on a big table may rightly run for minutes, and waits
        # for other processes' migrations: no bound on its waits.
        with (
            self._engine.begin() as connection,
            _unbounded(connection.connection.driver_connection),
        ):
            if connection.dialect.name == "postgresql":
                connection.execute(text("SET LOCAL statement_timeout = 0"))
                connection.execute(
                    text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK}
                )
            config.attributes["connection"] = connection
            command.upgrade(config, revision)

    def close(self) -> None:
        """Release the database connections, once the calls still running end; refuse new calls.

        A call running in another thread (a server's task cancelled at
        shutdown leaves its worker thread to finish) gets up to
        :data:`CLOSE_WAIT_S` seconds.  A call made after the close raises
        :class:`StoreUnavailableError` and opens nothing: SQLAlchemy's
        ``dispose`` leaves the engine a fresh pool, and a connection opened on
        it would stay open until the collector found it.

        >>> db = Database.open("sqlite://")
        >>> db.close()
        >>> try:
        ...     db.ping()
        ... except StoreUnavailableError as error:
        ...     print(error)
        the store is closed (the server is shutting down); nothing was read or written
        """
        with self._calls_over:
            self._closed = True
            self._calls_over.wait_for(lambda: self._running == 0, timeout=CLOSE_WAIT_S)
        self._engine.dispose()

    @contextlib.contextmanager
    def _call(self) -> Iterator[None]:
        """One call of the store on the database, counted while it runs (see :meth:`close`).

        Raises:
            StoreUnavailableError: the store is closed.
        """
        with self._calls_over:
            if self._closed:
                raise StoreUnavailableError(
                    "the store is closed (the server is shutting down); nothing was read or written"
                )
            self._running += 1
        try:
            yield
        finally:
            with self._calls_over:
                self._running -= 1
                self._calls_over.notify_all()

    def ping(self) -> None:
        """Check that the database answers, within :data:`PING_TIMEOUT_S` seconds (or
        :data:`CONNECT_TIMEOUT` when a connection must be opened).

        Raises:
            StoreUnavailableError: it does not.
        """
        with self._raw(answer_within=PING_TIMEOUT_S) as connection:
            connection.cursor().execute("SELECT 1")

    @contextlib.contextmanager
    def _session(self) -> Iterator[Session]:
        """A session for one call: closed (rolled back unless committed) at the end.

        Every call of the store reaches the database here, so this is where a
        lost database becomes :class:`StoreUnavailableError` (see
        :func:`unreachable`); other errors pass as they are.
        """
        try:
            with self._call(), self._sessions() as session:
                yield session
        except DBAPIError as error:
            reason = unreachable(error, self._engine.dialect.name)
            if reason is None:
                raise
            raise _unavailable(reason) from error
        except PoolTimeoutError as error:
            raise _pool_timeout() from error

    @contextlib.contextmanager
    def _raw(self, *, answer_within: float | None = None) -> Iterator[Any]:
        """The driver's own connection (sqlite3's, psycopg's) for one call, from the pool.

        What the hottest write costs (a shot's append) is the driver's alone:
        no session, no statement compiled.  The driver's errors become the
        store's as in :meth:`_session` (SQLAlchemy's wrappers, an
        ``IntegrityError`` among them, or :class:`StoreUnavailableError`); a
        connection found dead is discarded.  The call commits (or rolls back)
        what it wrote; what it left open is rolled back as the connection
        goes back to the pool.  ``answer_within``: the seconds it waits for
        each answer of a server (:data:`ANSWER_TIMEOUT_S` unless given).
        """
        with self._call():
            dialect = self._engine.dialect
            try:
                pooled = self._engine.raw_connection()
            except self._dbapi_error as error:
                wrapped = _wrapped(error, self._dbapi_error, invalidated=False)
                reason = unreachable(wrapped, dialect.name)
                if reason is None:
                    raise
                raise _unavailable(reason) from error
            except PoolTimeoutError as error:
                raise _pool_timeout() from error
            connection: Any = pooled.driver_connection
            bounded = getattr(connection, "answer_within", None) is not None
            if bounded and answer_within is not None:
                connection.answer_within = answer_within
            try:
                yield connection
            except self._dbapi_error as error:
                dead = dialect.is_disconnect(error, connection, None)  # type: ignore[arg-type]
                if dead:
                    pooled.invalidate(error)
                wrapped = _wrapped(error, self._dbapi_error, invalidated=dead)
                reason = unreachable(wrapped, dialect.name)
                if reason is None:
                    raise wrapped from error
                raise _unavailable(reason) from error
            finally:
                if bounded:
                    connection.answer_within = ANSWER_TIMEOUT_S
                pooled.close()

    @contextlib.contextmanager
    def _writing(self) -> Iterator[Session]:
        """A session in a transaction that writes (committed at the end, or rolled back)."""
        with self._write_lock, self._session() as session, session.begin():
            yield session


def _as_it_is(value: Any) -> Any:
    return value


def _unavailable(reason: str) -> StoreUnavailableError:
    """The error of a call that could not reach the database (``reason``: why, plainly)."""
    if reason.startswith("the database did not answer"):
        return StoreUnavailableError(f"{reason}; try again once it is back")
    return StoreUnavailableError(
        f"the database cannot be reached ({reason}); nothing was written, try again once it is back"
    )


def _pool_timeout() -> StoreUnavailableError:
    return StoreUnavailableError(
        f"the database did not answer within {ANSWER_TIMEOUT_S:g} s: every connection "
        "to it is busy; try again once it is back"
    )


def _wrapped(error: Exception, base: type[Exception], *, invalidated: bool) -> DBAPIError:
    """The driver's ``error`` as SQLAlchemy wraps it (``IntegrityError``, ``OperationalError``)."""
    wrapped = DBAPIError.instance(None, None, error, base, connection_invalidated=invalidated)
    assert isinstance(wrapped, DBAPIError)  # a driver's error is wrapped as one
    return wrapped


def _server_timeouts(query: Mapping[str, str | tuple[str, ...]]) -> dict[str, Any]:
    """libpq's settings that bound every wait on a server (those the URL sets win).

    The server's ``statement_timeout`` rides in the connection's ``options``,
    ahead of the URL's own (a ``-c statement_timeout`` there wins).
    """
    idle, interval, count = KEEPALIVE
    settings: dict[str, Any] = {
        "connect_timeout": CONNECT_TIMEOUT,
        "keepalives": 1,
        "keepalives_idle": idle,
        "keepalives_interval": interval,
        "keepalives_count": count,
        "tcp_user_timeout": round(ANSWER_TIMEOUT_S * 1000),
    }
    settings = {key: value for key, value in settings.items() if key not in query}
    given = query.get("options", "")
    given = given if isinstance(given, str) else " ".join(given)
    ours = f"-c statement_timeout={round(STATEMENT_TIMEOUT_S * 1000)}"
    settings["options"] = f"{ours} {given}".strip()
    return settings


def _connect_timed(_dialect: Any, _record: Any, cargs: Any, cparams: Any) -> Any:
    """SQLAlchemy's ``do_connect`` on psycopg: a
    :class:`~crokinole.store.postgres.TimedConnection`, its waits bounded."""
    from crokinole.store.postgres import TimedConnection  # noqa: PLC0415 - optional driver

    connection = TimedConnection.connect(*cargs, **cparams)
    connection.answer_within = ANSWER_TIMEOUT_S
    return connection


@contextlib.contextmanager
def _unbounded(connection: Any) -> Iterator[None]:
    """No bound on the waits of ``connection`` meanwhile (a migration's)."""
    if getattr(connection, "answer_within", None) is None:
        yield
        return
    connection.answer_within = None
    try:
        yield
    finally:
        connection.answer_within = ANSWER_TIMEOUT_S


def to_json(value: Any, what: str) -> str:
    """``value`` as compact JSON, or :class:`StoreDataError` saying that ``what`` is not JSON.

    Written by :func:`~crokinole.rules.record_format.compact_json` (orjson
    where its text reads back equal, else the standard library's).

    >>> to_json({"at": 1.5, "aimed": None}, "event 1")
    '{"at":1.5,"aimed":null}'
    >>> to_json({"x": float("nan")}, "the snapshot")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    crokinole.store.database.StoreDataError: the snapshot is not JSON: Out of range float values ...
    """
    try:
        return compact_json(value)
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
