"""The store: tables and their event logs, rooms, score sheets and devices' records.

SQLite by default, PostgreSQL (or any SQLAlchemy URL) when configured.
"""

from __future__ import annotations

import contextlib
import json
import math
import re
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Protocol, cast

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Table as SqlTable
from sqlalchemy import (
    bindparam,
    create_engine,
    delete,
    event,
    func,
    insert,
    or_,
    select,
    text,
    update,
)
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import DBAPIError, IntegrityError, InterfaceError, OperationalError
from sqlalchemy.orm import Session, sessionmaker

from crokinole.errors import CrokinoleError
from crokinole.store.models import (
    TABLE_STATUSES,
    AccountDeviceRow,
    AccountRow,
    AccountSessionRow,
    DailyScoreRow,
    DrillResultRow,
    EventRow,
    LoginDeviceRow,
    LoginFailureRow,
    NoShowRow,
    PracticeSetRow,
    RankedDeviceRow,
    RankedQueueRow,
    RatingChangeRow,
    RatingRow,
    RoomRow,
    ServerSecretRow,
    SheetRow,
    TableEventRow,
    TableMemberRow,
    TableResultRow,
    TableRow,
)

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
FORMATS = ("four_rounds", "to_100")
TABLE_KINDS = ("party", "solo", "ranked")
RESULTS = ("win", "draw", "loss")
LADDERS = ("singles", "doubles")
#: Seconds a new connection to a database server may take before the call fails.
CONNECT_TIMEOUT = 10

#: A device's results against the CPU: level → format → wins/draws/losses.
DeviceRecord = dict[str, dict[str, dict[str, int]]]


#: The PostgreSQL advisory lock key that migrations hold (any fixed number; "croki" in ASCII).
MIGRATION_LOCK = 0x63726F6B69

#: Seconds :meth:`Store.close` waits for calls still running in other threads.
CLOSE_WAIT_S = 5.0


class StoreConflictError(CrokinoleError):
    """A write that lost a race: the table (or room) is not at the expected version any more,
    is closed, or the id or code of a new table is taken.

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


_SHA256_HEX = re.compile(r"^[0-9a-f]{64}$")


@dataclass(frozen=True, slots=True)
class AccountData:
    """An account as stored.

    Attributes:
        id: the account's number.
        username: the username as typed at sign up (``Ann``).
        username_key: its lower-case key, unique (``ann``).
        password_hash: the Argon2id hash of the password (never the password).
        created_at: when it signed up (UTC, naive).
        password_changed_at: when the password last changed (UTC, naive).
    """

    id: int
    username: str
    username_key: str
    password_hash: str
    created_at: datetime
    password_changed_at: datetime

    def __repr__(self) -> str:  # the hash stays out of logs and tracebacks
        return f"AccountData(id={self.id}, username={self.username!r})"


def _account_data(row: AccountRow) -> AccountData:
    return AccountData(
        id=row.id,
        username=row.username,
        username_key=row.username_key,
        password_hash=row.password_hash,
        created_at=row.created_at,
        password_changed_at=row.password_changed_at,
    )


class DeadlineLike(Protocol):
    """Anything with an absolute server time ``at`` and a ``kind`` (the table's ``Deadline``)."""

    @property
    def at(self) -> float: ...

    @property
    def kind(self) -> str: ...


@dataclass(frozen=True, slots=True)
class TableDeadline:
    """A table's next deadline as stored: server time ``at`` (seconds) and its ``kind``."""

    at: float
    kind: str


@dataclass(frozen=True, slots=True)
class TableMember:
    """A member of a table as stored (what finds a device's tables).

    Attributes:
        mid: the public member id (``m1``, ``m2``...).
        device_token: the device's token (a secret).
        name: the display name.
        spectator: whether the member only watches.
        seats: the seats the member holds (none, one in a party, several in solo).
    """

    mid: str
    device_token: str
    name: str
    spectator: bool = False
    seats: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class TableResult:
    """A device's result in a finished game of a table, counted in its record.

    Attributes:
        game_number: the game of the table (1, 2 ... with rematches).
        device_token: the device whose result it is.
        opponent: the CPU level played against, or ``people``.
        scoring: the format (``four_rounds`` or ``to_100``).
        result: ``win``, ``draw`` or ``loss``.
    """

    game_number: int
    device_token: str
    opponent: str
    scoring: str
    result: str


@dataclass(frozen=True, slots=True)
class TableData:
    """A table as stored.

    Attributes:
        id: the table id.
        kind: ``party`` or ``solo``.
        code: the party code, or None.
        version: the version of its last event (the number of events).
        status: ``lobby``, ``playing``, ``finished`` or ``closed``.
        snapshot: the table as the server last gave it: after its last event,
            or after an earlier one (the events since then are in the log).
        deadline: its next deadline, or None.
        created_at: when it was created (UTC, naive).
        updated_at: when it last changed (UTC, naive).
    """

    id: str
    kind: str
    code: str | None
    version: int
    status: str
    snapshot: dict[str, Any]
    deadline: TableDeadline | None
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class RoomData:
    """A room as stored.

    Attributes:
        id: the room id.
        device_token: the device that owns it.
        opponent: a CPU level (``easy`` ...) or ``local``.
        settings: the new-game settings it was created with.
        record_json: the game record (R9) after the last action ("" once purged).
        event_number: number of the last event.
        status: ``playing``, ``finished`` or ``abandoned``.
        result: ``win``/``draw``/``loss`` of the device against the CPU, or None.
        updated_at: when it last changed (UTC, naive).
    """

    id: str
    device_token: str
    opponent: str
    settings: dict[str, Any]
    record_json: str
    event_number: int
    status: str
    result: str | None = None
    updated_at: datetime | None = None


#: A member as the server hands it over: a :class:`TableMember`, or a dict with
#: ``mid``, ``device_token``, ``name``, ``spectator`` and ``seats`` (a list) or
#: ``seat`` (one seat or None).
MemberIn = TableMember | Mapping[str, Any]
#: A result: a :class:`TableResult`, or a dict with the same keys.
ResultIn = TableResult | Mapping[str, Any]
#: A deadline: anything with ``at`` and ``kind`` (the table's ``Deadline``), or ``(at, kind)``.
DeadlineIn = DeadlineLike | tuple[float, str]


#: The tables' rows and their events as Core tables (for the writes of every shot).
_TABLE_ROWS = cast(SqlTable, TableRow.__table__)
_EVENT_ROWS = cast(SqlTable, TableEventRow.__table__)

#: An append's statements, made once: the guarded update of the table's row
#: (version, status, deadline; with or without the snapshot) and the events.
_APPEND_STATE = (
    update(_TABLE_ROWS)
    .where(
        _TABLE_ROWS.c.id == bindparam("p_id"),
        _TABLE_ROWS.c.version == bindparam("p_expected"),
        _TABLE_ROWS.c.status != "closed",
    )
    .values(
        version=bindparam("p_version"),
        status=bindparam("p_status"),
        deadline=bindparam("p_deadline"),
        deadline_kind=bindparam("p_deadline_kind"),
        updated_at=bindparam("p_updated_at"),
    )
)
_APPEND_STATE_AND_SNAPSHOT = _APPEND_STATE.values(snapshot_json=bindparam("p_snapshot"))
_INSERT_EVENTS = insert(_EVENT_ROWS)


def _pg_append(snapshot: bool) -> Any:
    """A shot's append on PostgreSQL as one statement (no BEGIN and COMMIT round trips).

    The guarded update and the events' insert run as one data-modifying
    statement, atomic on its own: the events are inserted only from the row
    the update moved (none when the table is not at the expected version),
    and a failing insert undoes the update.
    """
    snapshot_set = ", snapshot_json = :p_snapshot" if snapshot else ""
    return text(
        "WITH moved AS ("
        f" UPDATE {_TABLE_ROWS.name} SET version = :p_version, status = :p_status,"
        " deadline = :p_deadline, deadline_kind = :p_deadline_kind,"
        f" updated_at = :p_updated_at{snapshot_set}"
        " WHERE id = :p_id AND version = :p_expected AND status != 'closed'"
        " RETURNING id)"
        f" INSERT INTO {_EVENT_ROWS.name} (table_id, version, event_json)"
        " SELECT moved.id, e.version, e.event_json FROM moved,"
        " unnest(CAST(:p_versions AS integer[]), CAST(:p_jsons AS text[]))"
        " AS e(version, event_json)"
    )


_PG_APPEND = _pg_append(snapshot=False)
_PG_APPEND_AND_SNAPSHOT = _pg_append(snapshot=True)


def _not_at(table_id: str, expected_version: int, row: Any) -> StoreConflictError:
    """The conflict of an append whose table (``row``: its status and version, or None when
    missing) is not at the expected version."""
    where = "missing" if row is None else f"{row.status} at version {row.version}"
    return StoreConflictError(
        f"table {table_id} is not at version {expected_version} (it is {where})"
    )


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


class Store:
    """Tables and their event logs, rooms, sheets, in a SQL database; each write is one transaction.

    Events are the room's domain events (``{"type": "shot", "seat": ...,
    "shot": ..., "cpu": ...}``, ``{"type": "round"}``, ``{"type":
    "finished"}``), numbered from 1; the messages clients are sent are built
    from them and the game record, so an event row is a few dozen bytes.

    >>> store = Store.open("sqlite://")
    >>> store.create_room("r1", "tok", "hard", settings={}, record_json="{}", scoring="to_100")
    []
    >>> store.append_events("r1", 0, [{"type": "shot"}], "{}")
    >>> store.events_after("r1", 0, limit=10)
    [(1, {'type': 'shot'})]
    >>> store.append_events("r1", 0, [{"type": "shot"}], "{}")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    crokinole.store.store.StoreConflictError: room r1 is not playing at event 0 (it is ...
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
    def open(cls, url: str, *, migrate: bool = True) -> Store:
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
        store = cls(engine)
        if migrate:
            store.migrate()
        return store

    def revision(self) -> str | None:
        """The schema's migration (``"0004"``...), or None for a database never migrated.

        >>> store = Store.open("sqlite://", migrate=False)
        >>> store.revision() is None
        True
        >>> store.migrate()
        >>> store.revision() == store.newest_revision()
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
        :func:`_unreachable`); other errors pass as they are.
        """
        try:
            with self._sessions() as session:
                yield session
        except DBAPIError as error:
            reason = _unreachable(error, self._engine.dialect.name)
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

    # ---------------------------------------------------------------- tables

    def create_table(
        self,
        table_id: str,
        *,
        kind: str,
        code: str | None,
        events: Sequence[dict[str, Any]],
        snapshot: dict[str, Any],
        members: Sequence[MemberIn],
        deadline: DeadlineIn | None,
        status: str,
        now: datetime | None = None,
    ) -> None:
        """Store a new table with its first events (versions 1, 2 ...), all or nothing.

        Each event is a JSON-safe dict whose ``"version"`` is its place in the
        log; ``snapshot`` is the table after the last one.  Members are
        :class:`TableMember` values or dicts (:data:`MemberIn`), the deadline
        anything with ``at`` and ``kind`` or an ``(at, kind)`` pair.

        >>> store = Store.open("sqlite://")
        >>> store.create_table(
        ...     "t1", kind="party", code="ABC234", events=[{"type": "created", "version": 1}],
        ...     snapshot={"stage": "lobby"}, members=[TableMember("m1", "tok", "Ann")],
        ...     deadline=None, status="lobby")
        >>> store.table_by_code("ABC234"), store.open_tables_of_device("tok")
        ('t1', ['t1'])
        >>> store.create_table(
        ...     "t2", kind="party", code="ABC234", events=[], snapshot={}, members=[],
        ...     deadline=None, status="lobby")
        Traceback (most recent call last):
        ...
        crokinole.store.store.StoreConflictError: an open table has the code ABC234 already

        Raises:
            StoreConflictError: the id is taken, or an open table holds the
                code (pick another and try again); nothing was written.
            StoreDataError: an unknown kind or status, an event whose version
                is not its place, a member listed twice, data that is not JSON.
        """
        if kind not in TABLE_KINDS:
            raise StoreDataError(f"table {table_id}: unknown kind {kind!r} (not {TABLE_KINDS})")
        _check_status(table_id, status)
        now = now or _now()
        at, deadline_kind = _deadline(table_id, deadline)
        row = TableRow(
            id=table_id,
            kind=kind,
            code=code,
            version=len(events),
            status=status,
            snapshot_json=_dumps(snapshot, f"the snapshot of table {table_id}"),
            deadline=at,
            deadline_kind=deadline_kind,
            created_at=now,
            updated_at=now,
        )
        event_rows = _event_rows(table_id, 0, events)
        member_rows = _member_rows(table_id, members)
        try:
            with self._writing() as session:
                session.add(row)
                session.flush()  # the table first: events and members refer to it
                session.add_all([*event_rows, *member_rows])
        except IntegrityError:
            raise StoreConflictError(self._why_not_created(table_id, code)) from None

    def _why_not_created(self, table_id: str, code: str | None) -> str:
        with self._session() as session:
            if session.get(TableRow, table_id) is not None:
                return f"table {table_id} exists already"
        if code is not None and self.table_by_code(code) is not None:
            return f"an open table has the code {code} already"
        return f"table {table_id} could not be created: its id or code was taken meanwhile"

    def append_table_events(
        self,
        table_id: str,
        expected_version: int,
        events: Sequence[dict[str, Any]],
        snapshot: dict[str, Any] | None,
        *,
        members: Sequence[MemberIn] | None = None,
        deadline: DeadlineIn | None,
        status: str,
        results: Sequence[ResultIn] = (),
        rating_changes: Sequence[RatingChange] = (),
        no_shows: Sequence[int] = (),
        now: datetime | None = None,
    ) -> None:
        """Commit events ``expected_version + 1, ...`` with the table's new state, all or nothing.

        The status and deadline replace the stored ones, and so does the
        snapshot when one is given (None: the stored one stays, and whoever
        loads the table folds the events that follow it); ``members``
        (when given) become the table's members (None: unchanged); ``results``
        are added to the devices' records (:class:`TableResult` values or dicts
        with the same keys); ``rating_changes`` (a ranked game's end) become
        the accounts' ratings and are kept with the game (see
        :meth:`rating_changes`); ``no_shows`` are the accounts whose no-show
        aborted the game (:meth:`no_shows_since`).

        >>> store = Store.open("sqlite://")
        >>> store.create_table(
        ...     "t1", kind="solo", code=None, events=[{"type": "created", "version": 1}],
        ...     snapshot={}, members=[], deadline=None, status="playing")
        >>> store.append_table_events(
        ...     "t1", 1, [{"type": "shot", "version": 2}], {"shots": 1},
        ...     deadline=TableDeadline(1e9, "turn"), status="playing")
        >>> store.table_events("t1", after=1), store.armed_tables()
        ([{'type': 'shot', 'version': 2}], [('t1', 1000000000.0)])
        >>> store.append_table_events(
        ...     "t1", 1, [{"type": "shot", "version": 2}], {"shots": 1},
        ...     deadline=None, status="playing")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        crokinole.store.store.StoreConflictError: table t1 is not at version 1 (it is playing ...

        Raises:
            StoreConflictError: the table is not at ``expected_version`` (another
                writer came first), is closed or missing; nothing was written.
            StoreDataError: no events, an event whose version is not its place,
                an unknown status or result, a member listed twice, data that
                is not JSON; nothing was written.
        """
        if not events:
            raise StoreDataError(f"table {table_id}: no events to append")
        _check_status(table_id, status)
        now = now or _now()
        version = expected_version + len(events)
        at, deadline_kind = _deadline(table_id, deadline)
        params: dict[str, Any] = {
            "p_id": table_id,
            "p_expected": expected_version,
            "p_version": version,
            "p_status": status,
            "p_deadline": at,
            "p_deadline_kind": deadline_kind,
            "p_updated_at": now,
        }
        statement = _APPEND_STATE
        if snapshot is not None:
            params["p_snapshot"] = _dumps(snapshot, f"the snapshot of table {table_id}")
            statement = _APPEND_STATE_AND_SNAPSHOT
        event_rows = _event_rows(table_id, expected_version, events)
        member_rows = None if members is None else _member_rows(table_id, members)
        result_rows = [_result_row(table_id, result, now) for result in results]
        for change in rating_changes:
            _check_change(table_id, change)
        try:
            if self._engine.dialect.name == "postgresql" and not (
                member_rows is not None or result_rows or rating_changes or no_shows
            ):
                # A shot (nothing but the events and the table's state): one statement.
                self._append_in_one_statement(table_id, expected_version, params, event_rows)
                return
            with self._writing() as session:
                # The guarded update takes the table's row lock: a second writer
                # of the same version waits, then finds the version moved on.
                # Statements made once (below), on the Core tables: a shot's
                # write is the server's most frequent, and this is its cost.
                changed = session.execute(statement, params)
                if changed.rowcount != 1:  # type: ignore[attr-defined]
                    row = session.get(TableRow, table_id)
                    raise _not_at(table_id, expected_version, row)
                session.execute(
                    _INSERT_EVENTS,
                    [
                        {"table_id": r.table_id, "version": r.version, "event_json": r.event_json}
                        for r in event_rows
                    ],
                )
                session.add_all(result_rows)
                if member_rows is not None:
                    _replace_members(session, table_id, member_rows)
                _rate(session, table_id, rating_changes, now)
                session.add_all(
                    NoShowRow(account_id=int(a), table_id=table_id, at=now) for a in no_shows
                )
                session.flush()
        except IntegrityError as error:
            # The (table, version) key: a writer that got past the version check
            # anyway (it cannot, unless the log and the table disagree) still
            # cannot write an event that exists.
            failed = str(error.statement)
            what = (
                "a result of this game is stored already"
                if "table_results" in failed
                else "a rating change of this game is stored already"
                if "rating_changes" in failed
                else f"an event of versions {expected_version + 1}–{version} exists already"
            )
            raise StoreConflictError(f"table {table_id}: {what}") from None

    def _append_in_one_statement(
        self,
        table_id: str,
        expected_version: int,
        params: dict[str, Any],
        event_rows: Sequence[TableEventRow],
    ) -> None:
        """:meth:`append_table_events`'s common case on PostgreSQL (see :func:`_pg_append`)."""
        statement = _PG_APPEND_AND_SNAPSHOT if "p_snapshot" in params else _PG_APPEND
        values = {
            **params,
            "p_versions": [r.version for r in event_rows],
            "p_jsons": [r.event_json for r in event_rows],
        }
        with self._session() as session:
            connection = session.connection(execution_options={"isolation_level": "AUTOCOMMIT"})
            inserted = connection.execute(statement, values).rowcount
            if inserted != len(event_rows):
                row = connection.execute(
                    select(_TABLE_ROWS.c.status, _TABLE_ROWS.c.version).where(
                        _TABLE_ROWS.c.id == table_id
                    )
                ).first()
                raise _not_at(table_id, expected_version, row)

    def table(self, table_id: str) -> TableData | None:
        """The table as stored, or None."""
        with self._session() as session:
            row = session.get(TableRow, table_id)
            return None if row is None else _table_data(row)

    def table_events(
        self, table_id: str, after: int = 0, limit: int | None = None
    ) -> list[dict[str, Any]]:
        """The table's events after version ``after``, in order (at most ``limit``; None: all)."""
        with self._session() as session:
            rows = session.scalars(
                select(TableEventRow.event_json)
                .where(TableEventRow.table_id == table_id, TableEventRow.version > after)
                .order_by(TableEventRow.version)
                .limit(limit)
            ).all()
            return [json.loads(text) for text in rows]

    def table_members(self, table_id: str) -> list[TableMember]:
        """The table's members, in join order (``m1``, ``m2`` ... ``m10``)."""
        with self._session() as session:
            rows = session.scalars(
                select(TableMemberRow).where(TableMemberRow.table_id == table_id)
            ).all()
            members = [
                TableMember(r.mid, r.device_token, r.name, r.spectator, _split_seats(r.seats))
                for r in rows
            ]
        return sorted(members, key=lambda m: (len(m.mid), m.mid))

    def table_by_code(self, code: str) -> str | None:
        """The id of the open (not closed) table with the party code ``code``, or None.

        Codes are matched exactly: the caller normalises what a player typed.
        """
        with self._session() as session:
            return session.scalars(
                select(TableRow.id).where(TableRow.code == code, TableRow.status != "closed")
            ).first()

    def open_tables_of_device(self, device_token: str) -> list[str]:
        """The ids of the tables, not closed, that the device is a member of; latest first."""
        with self._session() as session:
            return list(
                session.scalars(
                    select(TableRow.id)
                    .join(TableMemberRow, TableMemberRow.table_id == TableRow.id)
                    .where(TableMemberRow.device_token == device_token, TableRow.status != "closed")
                    .order_by(TableRow.updated_at.desc(), TableRow.id)
                ).all()
            )

    def armed_tables(self) -> list[tuple[str, float]]:
        """Every table, not closed, with a deadline: ``(id, deadline)``, the earliest first.

        A server that starts (or takes tables over) re-arms their timers from these.
        """
        with self._session() as session:
            rows = session.execute(
                select(TableRow.id, TableRow.deadline)
                .where(TableRow.deadline.is_not(None), TableRow.status != "closed")
                .order_by(TableRow.deadline, TableRow.id)
            ).all()
            return [(table_id, float(at)) for table_id, at in rows if at is not None]

    # ----------------------------------------------------------------- rooms

    def create_room(
        self,
        room_id: str,
        device_token: str,
        opponent: str,
        *,
        settings: dict[str, Any],
        record_json: str,
        scoring: str,
        now: datetime | None = None,
    ) -> list[str]:
        """Store a new room; the device's other unfinished rooms are abandoned.

        Abandoning a game against the CPU is a loss, however it is done
        (contract 6): those rooms get the result ``loss``.

        Returns:
            The ids of the rooms abandoned.
        """
        now = now or _now()
        with self._writing() as session:
            playing = session.scalars(
                select(RoomRow).where(
                    RoomRow.device_token == device_token, RoomRow.status == "playing"
                )
            ).all()
            for row in playing:
                row.status = "abandoned"
                row.result = None if row.opponent == "local" else "loss"
                row.updated_at = now
            session.add(
                RoomRow(
                    id=room_id,
                    device_token=device_token,
                    opponent=opponent,
                    settings_json=json.dumps(settings),
                    record_json=record_json,
                    event_number=0,
                    status="playing",
                    result=None,
                    scoring=scoring,
                    created_at=now,
                    updated_at=now,
                )
            )
            return [row.id for row in playing]

    def room(self, room_id: str) -> RoomData | None:
        """The room, or None."""
        with self._session() as session:
            row = session.get(RoomRow, room_id)
            return None if row is None else _room_data(row)

    def unfinished_room(self, device_token: str) -> str | None:
        """The id of the device's game in progress, if any."""
        with self._session() as session:
            row = session.scalars(
                select(RoomRow)
                .where(RoomRow.device_token == device_token, RoomRow.status == "playing")
                .order_by(RoomRow.updated_at.desc())
                .limit(1)
            ).first()
            return None if row is None else row.id

    def append_events(
        self,
        room_id: str,
        expected: int,
        events: Sequence[dict[str, Any]],
        record_json: str,
        *,
        status: str | None = None,
        result: str | None = None,
        now: datetime | None = None,
        current_status: str = "playing",
    ) -> None:
        """Commit events ``expected + 1, ...`` with the room's new record, all or nothing.

        The room must be ``current_status`` (playing) and at event
        ``expected``; the last shot of a game and its ``finished`` event are
        written together, with the status.

        Raises:
            StoreConflictError: the room is not playing at event ``expected``
                (another write came first, or the game was abandoned); nothing
                was written.
        """
        last = expected + len(events)
        with self._writing() as session:
            values: dict[str, Any] = {
                "record_json": record_json,
                "event_number": last,
                "updated_at": now or _now(),
            }
            if status is not None:
                values["status"] = status
            if result is not None:
                values["result"] = result
            changed = session.execute(
                update(RoomRow)
                .where(
                    RoomRow.id == room_id,
                    RoomRow.status == current_status,
                    RoomRow.event_number == expected,
                )
                .values(**values)
            )
            if changed.rowcount != 1:  # type: ignore[attr-defined]
                row = session.get(RoomRow, room_id)
                where = "missing" if row is None else f"{row.status} at event {row.event_number}"
                raise StoreConflictError(
                    f"room {room_id} is not {current_status} at event {expected} (it is {where})"
                )
            for number, item in enumerate(events, start=expected + 1):
                session.add(EventRow(room_id=room_id, number=number, event_json=json.dumps(item)))

    def abandon(self, room_id: str, result: str | None, now: datetime | None = None) -> bool:
        """Mark a playing room abandoned (with the device's result vs the CPU).

        Returns:
            False if the room was not playing (finished or abandoned already):
            nothing changed.
        """
        with self._writing() as session:
            changed = session.execute(
                update(RoomRow)
                .where(RoomRow.id == room_id, RoomRow.status == "playing")
                .values(status="abandoned", result=result, updated_at=now or _now())
            )
            return bool(changed.rowcount == 1)  # type: ignore[attr-defined]

    def events_after(
        self, room_id: str, number: int, *, limit: int
    ) -> list[tuple[int, dict[str, Any]]]:
        """Up to ``limit`` events after ``number``, in order, with their numbers."""
        with self._session() as session:
            rows = session.scalars(
                select(EventRow)
                .where(EventRow.room_id == room_id, EventRow.number > number)
                .order_by(EventRow.number)
                .limit(limit)
            ).all()
            return [(r.number, json.loads(r.event_json)) for r in rows]

    def device_record(self, device_token: str, levels: Sequence[str]) -> DeviceRecord:
        """Wins, draws and losses of the device per CPU level (``levels``) and format.

        Both the old rooms' results and the tables' (``table_results``) count;
        a caller that lists ``people`` among the levels gets the device's
        results against other people too.
        """
        return self.devices_record([device_token], levels)

    def devices_record(self, device_tokens: Sequence[str], levels: Sequence[str]) -> DeviceRecord:
        """The record of several devices together (a device and those attached to its account).

        A device listed twice counts once.

        >>> store = Store.open("sqlite://")
        >>> store.devices_record(["tok-a", "tok-b"], ["easy"])["easy"]["four_rounds"]
        {'wins': 0, 'draws': 0, 'losses': 0}
        """
        tokens = sorted(set(device_tokens))
        record: DeviceRecord = {
            level: {fmt: {"wins": 0, "draws": 0, "losses": 0} for fmt in FORMATS}
            for level in levels
        }
        rooms = select(RoomRow.opponent, RoomRow.scoring, RoomRow.result).where(
            RoomRow.device_token.in_(tokens), RoomRow.result.is_not(None)
        )
        tables = select(
            TableResultRow.opponent, TableResultRow.scoring, TableResultRow.result
        ).where(TableResultRow.device_token.in_(tokens))
        with self._session() as session:
            rows = session.execute(rooms.union_all(tables)).all()
        key = {"win": "wins", "draw": "draws", "loss": "losses"}
        for opponent, scoring, result in rows:
            if opponent in record and scoring in record[opponent] and result in key:
                record[opponent][scoring][key[result]] += 1
        return record

    def purge_abandoned(self, before: datetime) -> int:
        """Compact abandoned games last changed before ``before`` (the retention period).

        Their events and game record go; a game against the CPU keeps its row
        (settings and result) because the loss counts in the device's record,
        a two-player game is deleted.

        Returns:
            The number of rooms compacted or deleted.
        """
        # Set-based statements: the ids never come into Python (the first purge
        # after a long pause may find a great many rooms).
        old = (RoomRow.status == "abandoned", RoomRow.updated_at < before)
        with self._writing() as session:
            session.execute(
                delete(EventRow).where(EventRow.room_id.in_(select(RoomRow.id).where(*old)))
            )
            deleted = session.execute(delete(RoomRow).where(*old, RoomRow.result.is_(None)))
            compacted = session.execute(
                update(RoomRow)
                .where(*old, RoomRow.result.is_not(None), RoomRow.record_json != "")
                .values(record_json="")
            )
            return int(deleted.rowcount + compacted.rowcount)  # type: ignore[attr-defined]

    # ---------------------------------------------------------------- sheets

    def create_sheet(
        self, sheet_id: str, share_id: str, device_token: str, data: dict[str, Any]
    ) -> None:
        """Store a new score sheet."""
        now = _now()
        with self._writing() as session:
            session.add(
                SheetRow(
                    id=sheet_id,
                    share_id=share_id,
                    device_token=device_token,
                    data_json=json.dumps(data),
                    created_at=now,
                    updated_at=now,
                )
            )

    def sheet(self, sheet_id: str) -> SheetData | None:
        """The sheet, or None."""
        with self._session() as session:
            row = session.get(SheetRow, sheet_id)
            return None if row is None else _sheet_data(row)

    def shared_sheet(self, share_id: str) -> SheetData | None:
        """The sheet behind a read-only link, or None."""
        with self._session() as session:
            row = session.scalars(select(SheetRow).where(SheetRow.share_id == share_id)).first()
            return None if row is None else _sheet_data(row)

    def save_sheet(self, sheet_id: str, data: dict[str, Any]) -> None:
        """Replace a sheet's content."""
        with self._writing() as session:
            session.execute(
                update(SheetRow)
                .where(SheetRow.id == sheet_id)
                .values(data_json=json.dumps(data), updated_at=_now())
            )

    def delete_sheet(self, sheet_id: str) -> None:
        """Remove a sheet."""
        with self._writing() as session:
            row = session.get(SheetRow, sheet_id)
            if row is not None:
                session.delete(row)

    def device_sheets(self, device_token: str) -> list[SheetData]:
        """The device's sheets, the latest first."""
        with self._session() as session:
            rows = session.scalars(
                select(SheetRow)
                .where(SheetRow.device_token == device_token)
                .order_by(SheetRow.updated_at.desc())
            ).all()
            return [_sheet_data(r) for r in rows]

    # ---------------------------------------------------------------- accounts

    def create_account(
        self, username: str, username_key: str, password_hash: str, now: datetime
    ) -> AccountData:
        """Store a new account; the username's key (lower case) must be free.

        The store keeps what it is given: the service checks the username's
        rules and hashes the password (the store never sees the password).

        >>> store = Store.open("sqlite://")
        >>> ann = store.create_account("Ann", "ann", "$argon2id$...", datetime(2026, 1, 1))
        >>> (ann.id, ann.username, store.account_by_key("ann") == ann)
        (1, 'Ann', True)
        >>> store.create_account("ANN", "ann", "$argon2id$...", datetime(2026, 1, 1))
        Traceback (most recent call last):
        ...
        crokinole.store.store.AccountTakenError: the username ANN is taken

        Raises:
            AccountTakenError: an account has that key; nothing was written.
        """
        row = AccountRow(
            username=username,
            username_key=username_key,
            password_hash=password_hash,
            created_at=now,
            password_changed_at=now,
        )
        try:
            with self._writing() as session:
                session.add(row)
                session.flush()
                return _account_data(row)
        except IntegrityError:
            raise AccountTakenError(f"the username {username} is taken") from None

    def account_by_key(self, username_key: str) -> AccountData | None:
        """The account whose username's key (lower case) is ``username_key``, or None."""
        with self._session() as session:
            row = session.scalars(
                select(AccountRow).where(AccountRow.username_key == username_key)
            ).first()
            return None if row is None else _account_data(row)

    def account(self, account_id: int) -> AccountData | None:
        """The account with the id, or None."""
        with self._session() as session:
            row = session.get(AccountRow, account_id)
            return None if row is None else _account_data(row)

    def set_password_hash(
        self,
        account_id: int,
        password_hash: str,
        now: datetime,
        *,
        changed: bool,
        keep_session: str | None = None,
    ) -> list[str]:
        """Replace the account's password hash; the token hashes of the sessions it ended.

        A new password (``changed``) ends every session of the account but
        ``keep_session`` (a token hash) and stamps ``password_changed_at``; a
        rehash of the same password with new parameters changes the hash only.

        Raises:
            StoreDataError: there is no such account; nothing was written.
        """
        values: dict[str, Any] = {"password_hash": password_hash}
        if changed:
            values["password_changed_at"] = now
        with self._writing() as session:
            done = session.execute(
                update(AccountRow).where(AccountRow.id == account_id).values(**values)
            )
            if done.rowcount != 1:  # type: ignore[attr-defined]
                raise StoreDataError(f"there is no account {account_id}")
            if not changed:
                return []
            others = (
                AccountSessionRow.account_id == account_id,
                AccountSessionRow.token_hash != (keep_session or ""),
            )
            ended = list(session.scalars(select(AccountSessionRow.token_hash).where(*others)))
            session.execute(delete(AccountSessionRow).where(*others))
            return ended

    def create_account_session(
        self, token_hash: str, account_id: int, now: datetime, expires_at: datetime
    ) -> None:
        """Store a login session under the hash of its token (the token itself is never stored).

        Raises:
            StoreDataError: the hash is not 64 hexadecimal digits, or there is
                no such account; nothing was written.
            StoreConflictError: a session has this hash already.
        """
        if not _SHA256_HEX.match(token_hash):
            raise StoreDataError("a session is stored under a SHA-256 in hex (64 digits)")
        try:
            with self._writing() as session:
                if session.get(AccountRow, account_id) is None:
                    raise StoreDataError(f"there is no account {account_id}")
                session.add(
                    AccountSessionRow(
                        token_hash=token_hash,
                        account_id=account_id,
                        created_at=now,
                        expires_at=expires_at,
                    )
                )
        except IntegrityError:
            raise StoreConflictError("a session with that token exists already") from None

    def session_account(
        self,
        token_hash: str,
        now: datetime,
        *,
        idle: timedelta | None = None,
        lifetime: timedelta | None = None,
    ) -> AccountData | None:
        """The account of the session stored under ``token_hash`` if it has not expired at ``now``.

        With ``idle`` and ``lifetime``, a session used at ``now`` is renewed:
        it expires ``idle`` after its last use, but never later than
        ``lifetime`` after it began (it is written at most once a minute).

        >>> store = Store.open("sqlite://")
        >>> ann = store.create_account("Ann", "ann", "h", datetime(2026, 1, 1))
        >>> store.create_account_session("ab" * 32, ann.id, datetime(2026, 1, 1),
        ...                              datetime(2026, 1, 8))
        >>> week, month = timedelta(days=7), timedelta(days=30)
        >>> store.session_account("ab" * 32, datetime(2026, 1, 7), idle=week,
        ...                       lifetime=month).username
        'Ann'
        >>> store.session_account("ab" * 32, datetime(2026, 1, 13)).username  # renewed
        'Ann'
        >>> store.session_account("ab" * 32, datetime(2026, 1, 14)) is None  # idle a week
        True
        """
        with self._session() as session:
            found = session.execute(
                select(AccountRow, AccountSessionRow.created_at, AccountSessionRow.expires_at)
                .join(AccountSessionRow, AccountSessionRow.account_id == AccountRow.id)
                .where(
                    AccountSessionRow.token_hash == token_hash, AccountSessionRow.expires_at > now
                )
            ).first()
            if found is None:
                return None
            row, created_at, expires_at = found
            account = _account_data(row)
        if idle is not None and lifetime is not None:
            renewed = min(created_at + lifetime, now + idle)
            if renewed - expires_at >= timedelta(minutes=1):
                with self._writing() as session:
                    session.execute(
                        update(AccountSessionRow)
                        .where(
                            AccountSessionRow.token_hash == token_hash,
                            AccountSessionRow.expires_at < renewed,
                        )
                        .values(expires_at=renewed)
                    )
        return account

    def live_account_sessions(self, token_hashes: Sequence[str], now: datetime) -> set[str]:
        """Those of ``token_hashes`` whose sessions are stored and have not expired at ``now``.

        >>> store = Store.open("sqlite://")
        >>> ann = store.create_account("Ann", "ann", "h", datetime(2026, 1, 1))
        >>> store.create_account_session("ab" * 32, ann.id, datetime(2026, 1, 1),
        ...                              datetime(2026, 1, 8))
        >>> store.live_account_sessions(["ab" * 32, "cd" * 32], datetime(2026, 1, 2)) == {"ab" * 32}
        True
        """
        live: set[str] = set()
        hashes = sorted(set(token_hashes))
        with self._session() as session:
            for start in range(0, len(hashes), 500):
                live.update(
                    session.scalars(
                        select(AccountSessionRow.token_hash).where(
                            AccountSessionRow.token_hash.in_(hashes[start : start + 500]),
                            AccountSessionRow.expires_at > now,
                        )
                    )
                )
        return live

    def delete_account_session(self, token_hash: str) -> bool:
        """End a session; False if there was none."""
        with self._writing() as session:
            done = session.execute(
                delete(AccountSessionRow).where(AccountSessionRow.token_hash == token_hash)
            )
            return bool(done.rowcount == 1)  # type: ignore[attr-defined]

    def account_session_count(self, account_id: int) -> int:
        """How many sessions of the account are stored (expired ones included until purged)."""
        with self._session() as session:
            return int(
                session.scalar(
                    select(func.count())
                    .select_from(AccountSessionRow)
                    .where(AccountSessionRow.account_id == account_id)
                )
                or 0
            )

    def add_login_failure(self, keys: Sequence[str], at: datetime) -> None:
        """Count a failed login at ``at`` under each key (``account:ann``, ``address:1.2.3.4``)."""
        with self._writing() as session:
            session.add_all([LoginFailureRow(key=key, at=at) for key in keys])

    def login_failures(self, key: str, since: datetime) -> list[datetime]:
        """The times of the failed logins under ``key`` after ``since``, earliest first.

        >>> store = Store.open("sqlite://")
        >>> store.add_login_failure(["account:ann", "address:10.0.0.1"], datetime(2026, 1, 1, 12))
        >>> store.login_failures("account:ann", since=datetime(2026, 1, 1, 11, 50))
        [datetime.datetime(2026, 1, 1, 12, 0)]
        >>> store.login_failures("account:ann", since=datetime(2026, 1, 1, 12))
        []
        """
        with self._session() as session:
            return list(
                session.scalars(
                    select(LoginFailureRow.at)
                    .where(LoginFailureRow.key == key, LoginFailureRow.at > since)
                    .order_by(LoginFailureRow.at)
                ).all()
            )

    def clear_login_failures(self, key: str) -> None:
        """Forget the failed logins under ``key`` (after a successful login)."""
        with self._writing() as session:
            session.execute(delete(LoginFailureRow).where(LoginFailureRow.key == key))

    def purge_accounts_data(
        self, now: datetime, failures_before: datetime, devices_before: datetime | None = None
    ) -> int:
        """Delete the sessions expired at ``now``, the failed logins before ``failures_before``
        and the login devices last used before ``devices_before`` (if given).

        Returns:
            The number of rows deleted.
        """
        with self._writing() as session:
            sessions = session.execute(
                delete(AccountSessionRow).where(AccountSessionRow.expires_at <= now)
            )
            failures = session.execute(
                delete(LoginFailureRow).where(LoginFailureRow.at < failures_before)
            )
            deleted = int(sessions.rowcount + failures.rowcount)  # type: ignore[attr-defined]
            if devices_before is not None:
                devices = session.execute(
                    delete(LoginDeviceRow).where(LoginDeviceRow.last_at < devices_before)
                )
                deleted += int(devices.rowcount)  # type: ignore[attr-defined]
            return deleted

    def remember_login_device(self, device_hash: str, account_id: int, now: datetime) -> None:
        """Note that the browser whose device cookie hashes to ``device_hash`` logged in to the
        account at ``now`` (the SHA-256 in hex of the cookie's token; the token is never stored).

        Raises:
            StoreDataError: the hash is not 64 hexadecimal digits; nothing was written.
        """
        if not _SHA256_HEX.match(device_hash):
            raise StoreDataError("a device is stored under a SHA-256 in hex (64 digits)")
        key = {"device_hash": device_hash, "account_id": account_id}
        # (suppressed: the same browser remembered at once by another login)
        with contextlib.suppress(IntegrityError), self._writing() as session:
            row = session.get(LoginDeviceRow, key)
            if row is None:
                session.add(LoginDeviceRow(**key, first_at=now, last_at=now))
            else:
                row.last_at = now

    def login_device_known(self, device_hash: str, account_id: int) -> bool:
        """Whether the browser of ``device_hash`` has logged in to the account before.

        >>> store = Store.open("sqlite://")
        >>> ann = store.create_account("Ann", "ann", "h", datetime(2026, 1, 1))
        >>> store.remember_login_device("cd" * 32, ann.id, datetime(2026, 1, 2))
        >>> store.login_device_known("cd" * 32, ann.id), store.login_device_known("ef" * 32, ann.id)
        (True, False)
        """
        with self._session() as session:
            key = {"device_hash": device_hash, "account_id": account_id}
            return session.get(LoginDeviceRow, key) is not None

    def server_secret(self, name: str, make: Callable[[], str], now: datetime) -> str:
        """The server's secret called ``name``: made by ``make`` and stored the first time.

        Every process on the database gets the same one (the first stored wins).

        >>> store = Store.open("sqlite://")
        >>> first = store.server_secret("login", lambda: "s1", datetime(2026, 1, 1))
        >>> first, store.server_secret("login", lambda: "s2", datetime(2026, 1, 2))
        ('s1', 's1')
        """
        for _ in range(3):
            with self._session() as session:
                row = session.get(ServerSecretRow, name)
                if row is not None:
                    return row.value
            # (suppressed: another process made it first; it is read again)
            with contextlib.suppress(IntegrityError), self._writing() as session:
                session.add(ServerSecretRow(name=name, value=make(), created_at=now))
        raise StoreDataError(f"the server secret {name} could not be stored")

    def attach_device(self, account_id: int, device_token: str, now: datetime) -> int:
        """Count the device's guest games for the account; the number of its finished games.

        Attaching again is harmless (the count is returned again).  A device's
        games count for one account only.

        >>> store = Store.open("sqlite://")
        >>> ann = store.create_account("Ann", "ann", "h", datetime(2026, 1, 1))
        >>> bob = store.create_account("Bob", "bob", "h", datetime(2026, 1, 1))
        >>> store.attach_device(ann.id, "tok" * 6, datetime(2026, 1, 2))
        0
        >>> store.account_devices(ann.id)
        ['toktoktoktoktoktok']
        >>> store.attach_device(bob.id, "tok" * 6, datetime(2026, 1, 2))
        Traceback (most recent call last):
        ...
        crokinole.store.store.DeviceClaimedError: this device's games count for another account

        Raises:
            DeviceClaimedError: another account has the device; nothing was written.
            StoreDataError: there is no such account.
        """
        with self._writing() as session:
            if session.get(AccountRow, account_id) is None:
                raise StoreDataError(f"there is no account {account_id}")
            owners = set(
                session.scalars(
                    select(AccountDeviceRow.account_id).where(
                        AccountDeviceRow.device_token == device_token
                    )
                )
            )
            if owners - {account_id}:
                raise DeviceClaimedError("this device's games count for another account")
            if not owners:
                session.add(
                    AccountDeviceRow(
                        account_id=account_id, device_token=device_token, attached_at=now
                    )
                )
            rooms = (
                select(func.count())
                .select_from(RoomRow)
                .where(RoomRow.device_token == device_token, RoomRow.result.is_not(None))
            )
            tables = (
                select(func.count())
                .select_from(TableResultRow)
                .where(TableResultRow.device_token == device_token)
            )
            return int(session.scalar(rooms) or 0) + int(session.scalar(tables) or 0)

    def account_devices(self, account_id: int) -> list[str]:
        """The device tokens attached to the account, in the order they were attached."""
        with self._session() as session:
            return list(
                session.scalars(
                    select(AccountDeviceRow.device_token)
                    .where(AccountDeviceRow.account_id == account_id)
                    .order_by(AccountDeviceRow.attached_at, AccountDeviceRow.device_token)
                ).all()
            )

    # ---------------------------------------------------------------- ranked play

    def ratings_of(self, account_ids: Sequence[int], ladder: str) -> dict[int, RatingData]:
        """The ratings on ``ladder`` of the accounts that have one (an account
        that never played there has none: it starts at the initial rating)."""
        _check_ladder(ladder)
        if not account_ids:
            return {}
        with self._session() as session:
            rows = session.execute(
                select(RatingRow, AccountRow.username)
                .join(AccountRow, AccountRow.id == RatingRow.account_id)
                .where(RatingRow.ladder == ladder, RatingRow.account_id.in_(list(account_ids)))
            ).all()
            return {row.account_id: _rating_data(row, name) for row, name in rows}

    def account_ratings(self, account_id: int) -> list[RatingData]:
        """The account's ratings, one per ladder it played on."""
        with self._session() as session:
            rows = session.execute(
                select(RatingRow, AccountRow.username)
                .join(AccountRow, AccountRow.id == RatingRow.account_id)
                .where(RatingRow.account_id == account_id)
                .order_by(RatingRow.ladder)
            ).all()
            return [_rating_data(row, name) for row, name in rows]

    def leaderboard(self, ladder: str, min_games: int, limit: int = 100) -> list[RatingData]:
        """The best ``limit`` ratings on ``ladder`` of accounts with ``min_games`` games or more.

        Highest displayed rating first; a tie goes to more games, then the
        username's alphabetical order.

        >>> store = Store.open("sqlite://")
        >>> store.leaderboard("singles", 5)
        []
        >>> store.leaderboard("triples", 5)
        Traceback (most recent call last):
        ...
        crokinole.store.store.StoreDataError: a ladder is singles or doubles, not 'triples'
        """
        _check_ladder(ladder)
        with self._session() as session:
            rows = session.execute(
                select(RatingRow, AccountRow.username)
                .join(AccountRow, AccountRow.id == RatingRow.account_id)
                .where(RatingRow.ladder == ladder, RatingRow.games >= min_games)
                .order_by(RatingRow.rating.desc(), RatingRow.games.desc(), AccountRow.username_key)
                .limit(limit)
            ).all()
            return [_rating_data(row, name) for row, name in rows]

    def rating_changes(
        self, account_id: int, ladder: str | None = None, limit: int = 1000
    ) -> list[RatingChangeData]:
        """The account's latest ``limit`` rating changes (on ``ladder``, or all), oldest first."""
        with self._session() as session:
            query = (
                select(RatingChangeRow, AccountRow.username)
                .join(AccountRow, AccountRow.id == RatingChangeRow.account_id)
                .where(RatingChangeRow.account_id == account_id)
            )
            if ladder is not None:
                _check_ladder(ladder)
                query = query.where(RatingChangeRow.ladder == ladder)
            rows = session.execute(query.order_by(RatingChangeRow.id.desc()).limit(limit)).all()
            return [_change_data(row, name) for row, name in reversed(rows)]

    def game_rating_changes(self, table_id: str, game_number: int) -> list[RatingChangeData]:
        """Every player's rating change caused by one game, side A's first."""
        with self._session() as session:
            rows = session.execute(
                select(RatingChangeRow, AccountRow.username)
                .join(AccountRow, AccountRow.id == RatingChangeRow.account_id)
                .where(
                    RatingChangeRow.table_id == table_id,
                    RatingChangeRow.game_number == game_number,
                )
                .order_by(RatingChangeRow.side, RatingChangeRow.id)
            ).all()
            return [_change_data(row, name) for row, name in rows]

    def ranked_games(self, account_id: int, limit: int = 50) -> list[list[RatingChangeData]]:
        """The account's latest ``limit`` ranked games, latest first: each game's changes of
        every player (side A's first), the account's among them."""
        mine = self.rating_changes(account_id, limit=limit)
        games = [(c.table_id, c.change.game_number) for c in reversed(mine)]
        if not games:
            return []
        with self._session() as session:
            rows = session.execute(
                select(RatingChangeRow, AccountRow.username)
                .join(AccountRow, AccountRow.id == RatingChangeRow.account_id)
                .where(RatingChangeRow.table_id.in_([table for table, _ in games]))
                .order_by(RatingChangeRow.side, RatingChangeRow.id)
            ).all()
        by_game: dict[tuple[str, int], list[RatingChangeData]] = {}
        for row, name in rows:
            by_game.setdefault((row.table_id, row.game_number), []).append(_change_data(row, name))
        return [by_game[game] for game in games if game in by_game]

    def queue_add(self, account_id: int, ladder: str, joined_at: float) -> QueueEntryData:
        """Put the account in the ranked queue of ``ladder`` since ``joined_at`` (server seconds).

        Raises:
            AlreadyQueuedError: it waits there already (on any ladder).
            StoreDataError: an unknown ladder or account.
        """
        _check_ladder(ladder)
        if not math.isfinite(joined_at):
            raise StoreDataError(f"a queue entry's time is a number of seconds, not {joined_at!r}")
        try:
            with self._writing() as session:
                account = session.get(AccountRow, account_id)
                if account is None:
                    raise StoreDataError(f"there is no account {account_id}")
                session.add(
                    RankedQueueRow(account_id=account_id, ladder=ladder, joined_at=joined_at)
                )
                session.flush()
                return QueueEntryData(account_id, account.username, ladder, float(joined_at))
        except IntegrityError:
            raise AlreadyQueuedError(f"account {account_id} waits in the queue already") from None

    def queue_remove(self, account_ids: Sequence[int]) -> int:
        """Take the accounts out of the ranked queue; how many were in it."""
        if not account_ids:
            return 0
        with self._writing() as session:
            result = session.execute(
                delete(RankedQueueRow).where(RankedQueueRow.account_id.in_(list(account_ids)))
            )
            return int(result.rowcount)  # type: ignore[attr-defined]

    def queue_entries(self) -> list[QueueEntryData]:
        """Everyone in the ranked queue, the longest waiting first."""
        with self._session() as session:
            rows = session.execute(
                select(RankedQueueRow, AccountRow.username)
                .join(AccountRow, AccountRow.id == RankedQueueRow.account_id)
                .order_by(RankedQueueRow.joined_at, RankedQueueRow.account_id)
            ).all()
            return [
                QueueEntryData(row.account_id, name, row.ladder, float(row.joined_at))
                for row, name in rows
            ]

    # ---------------------------------------------------------------- practice

    def add_drill_result(
        self,
        device: str,
        account_id: int | None,
        drill: str,
        *,
        score: int,
        attempts: int,
        percent: float,
        shots: list[dict[str, Any]],
        full: bool = True,
        set_id: str | None = None,
        now: datetime | None = None,
    ) -> bool:
        """Keep a verified set of a drill; whether it is a new personal best.

        A personal best is a full set whose percentage is higher than that of
        every full set of the drill before it on this device or account
        (:meth:`drill_bests`).  The set was played with the human hand
        (``set_id``: the server's set it was played in); the sets of a steady
        hand kept before migration 0009 count for no best, trend or record.
        Each shot may carry its attempt's ``points`` (the open-20 record
        counts attempts from them).

        >>> store = Store.open("sqlite://")
        >>> def add(score: int) -> bool:
        ...     return store.add_drill_result(
        ...         "d" * 16, None, "open20", score=score, attempts=10, percent=10.0 * score,
        ...         shots=[],
        ...     )
        >>> add(6), add(5), add(7)
        (True, False, True)

        Raises:
            StoreDataError: a value the store will not keep; nothing was written.
        """
        _check_practice(device, drill, score, attempts)
        if not (isinstance(percent, int | float) and 0.0 <= percent <= 100.0):
            raise StoreDataError(f"a percentage is from 0 to 100, not {percent!r}")
        shots_json = _dumps(shots, "the shots")
        at = _now() if now is None else now
        with self._writing() as session:
            best = None
            if full:
                best = session.scalar(
                    select(func.max(DrillResultRow.percent)).where(
                        DrillResultRow.drill == drill,
                        DrillResultRow.full.is_(True),
                        DrillResultRow.hand == "human",
                        _practice_owner(DrillResultRow, device, account_id),
                    )
                )
            session.add(
                DrillResultRow(
                    device_token=device,
                    account_id=account_id,
                    drill=drill,
                    score=score,
                    attempts=attempts,
                    percent=float(percent),
                    full=full,
                    shots_json=shots_json,
                    at=at,
                    hand="human",
                    set_id=set_id,
                )
            )
            return full and (best is None or float(percent) > float(best))

    def drill_bests(self, device: str, account_id: int | None) -> dict[str, dict[str, Any]]:
        """The best full set of each drill played on this device or account.

        Best by percentage, then score; the earliest of equals.  Each is
        ``{"score", "attempts", "percent", "at"}`` (``at`` ISO 8601 UTC).
        """
        with self._session() as session:
            rows = session.execute(
                select(
                    DrillResultRow.drill,
                    DrillResultRow.score,
                    DrillResultRow.attempts,
                    DrillResultRow.percent,
                    DrillResultRow.at,
                )
                .where(
                    DrillResultRow.full.is_(True),
                    DrillResultRow.hand == "human",
                    _practice_owner(DrillResultRow, device, account_id),
                )
                .order_by(
                    DrillResultRow.drill,
                    DrillResultRow.percent.desc(),
                    DrillResultRow.score.desc(),
                    DrillResultRow.id,
                )
            ).all()
        bests: dict[str, dict[str, Any]] = {}
        for drill, score, attempts, percent, at in rows:
            if drill not in bests:
                bests[drill] = {
                    "score": score,
                    "attempts": attempts,
                    "percent": float(percent),
                    "at": _iso(at),
                }
        return bests

    def drill_trend(
        self, device: str, account_id: int | None, drill: str = "open20", limit: int = 50
    ) -> list[dict[str, Any]]:
        """The latest ``limit`` sets of a drill on this device or account, oldest first:
        ``{"at", "percent", "score", "attempts"}`` each."""
        with self._session() as session:
            rows = session.execute(
                select(
                    DrillResultRow.at,
                    DrillResultRow.percent,
                    DrillResultRow.score,
                    DrillResultRow.attempts,
                )
                .where(
                    DrillResultRow.drill == drill,
                    DrillResultRow.hand == "human",
                    _practice_owner(DrillResultRow, device, account_id),
                )
                .order_by(DrillResultRow.id.desc())
                .limit(limit)
            ).all()
        return [
            {"at": _iso(at), "percent": float(percent), "score": score, "attempts": attempts}
            for at, percent, score, attempts in reversed(rows)
        ]

    def open_twenty_record(
        self, device: str, account_id: int | None, last: int = 100
    ) -> tuple[int, int] | None:
        """Open 20s made and attempted over the latest ``last`` attempts of the open-20 drill
        on this device or account, or None when it was never played.

        Attempts are counted shot by shot from the shots' ``points``; a set
        kept without them counts whole (its score made of its attempts).

        >>> store = Store.open("sqlite://")
        >>> store.open_twenty_record("d" * 16, None) is None
        True
        >>> shots = [{"points": p} for p in (1, 0, 1, 1)]
        >>> _ = store.add_drill_result(
        ...     "d" * 16, None, "open20", score=3, attempts=4, percent=75.0, shots=shots, full=False
        ... )
        >>> store.open_twenty_record("d" * 16, None), store.open_twenty_record("d" * 16, None, 2)
        ((3, 4), (2, 2))
        """
        made = attempted = 0
        with self._session() as session:
            rows = session.execute(
                select(DrillResultRow.score, DrillResultRow.attempts, DrillResultRow.shots_json)
                .where(
                    DrillResultRow.drill == "open20",
                    DrillResultRow.hand == "human",
                    _practice_owner(DrillResultRow, device, account_id),
                )
                .order_by(DrillResultRow.id.desc())
            )
            for score, attempts, shots_json in rows:
                points = _attempt_points(shots_json, attempts)
                if points is None:  # counted whole
                    made, attempted = made + score, attempted + attempts
                else:
                    taken = points[-(last - attempted) :]
                    made, attempted = made + sum(taken), attempted + len(taken)
                if attempted >= last:
                    break
        return None if attempted == 0 else (made, attempted)

    def add_daily_score(
        self,
        day: str,
        device: str,
        account_id: int | None,
        *,
        name: str,
        score: int,
        shots: list[dict[str, Any]],
        now: datetime | None = None,
    ) -> int:
        """Keep a verified score at ``day``'s challenge; its rank on the day's leaderboard.

        One score per device, and per account, and day.

        >>> store = Store.open("sqlite://")
        >>> def add(device: str, name: str, score: int) -> int:
        ...     return store.add_daily_score(
        ...         "2026-12-01", device, None, name=name, score=score, shots=[]
        ...     )
        >>> add("a" * 16, "Ann", 15), add("b" * 16, "Bob", 20), add("c" * 16, "Cy", 15)
        (1, 1, 3)
        >>> add("a" * 16, "Ann", 25)
        Traceback (most recent call last):
        ...
        crokinole.store.store.AlreadyPlayedError: this device has played the challenge of \
2026-12-01 already (score 15)

        Raises:
            AlreadyPlayedError: the device or account has a score that day.
            StoreDataError: a value the store will not keep; nothing was written.
        """
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", day):
            raise StoreDataError(f"a day is written YYYY-MM-DD, not {day!r}")
        if not isinstance(name, str) or not 1 <= len(name) <= 32:
            raise StoreDataError(f"a leaderboard name is 1 to 32 characters, not {name!r}")
        _check_practice(device, "daily", score, 1)
        shots_json = _dumps(shots, "the shots")
        at = _now() if now is None else now
        try:
            with self._writing() as session:
                played = session.scalars(
                    select(DailyScoreRow).where(
                        DailyScoreRow.day == day,
                        _practice_owner(DailyScoreRow, device, account_id),
                    )
                ).first()
                if played is not None:
                    who = "this device" if played.device_token == device else "this account"
                    raise AlreadyPlayedError(
                        f"{who} has played the challenge of {day} already (score {played.score})"
                    )
                row = DailyScoreRow(
                    day=day,
                    device_token=device,
                    account_id=account_id,
                    name=name,
                    score=score,
                    shots_json=shots_json,
                    at=at,
                )
                session.add(row)
                session.flush()
                return _daily_rank(session, row)
        except IntegrityError:
            raise AlreadyPlayedError(
                f"this device has played the challenge of {day} already"
            ) from None

    def daily_entry(self, day: str, device: str, account_id: int | None) -> dict[str, Any] | None:
        """This device's (or account's) score at ``day``'s challenge with its rank, or None:
        ``{"name", "score", "rank", "at"}``."""
        with self._session() as session:
            row = session.scalars(
                select(DailyScoreRow).where(
                    DailyScoreRow.day == day,
                    _practice_owner(DailyScoreRow, device, account_id),
                )
            ).first()
            if row is None:
                return None
            rank = _daily_rank(session, row)
            return {"name": row.name, "score": row.score, "rank": rank, "at": _iso(row.at)}

    def daily_leaderboard(
        self, day: str, limit: int = 20, *, guests: bool = False
    ) -> list[dict[str, Any]]:
        """The best ``limit`` scores of accounts (``guests``: of guests) at ``day``'s
        challenge: the highest first, then the earliest: ``{"rank", "name", "score", "at"}``
        each.  An account's name is its username (as it is now); the two boards are
        ranked apart."""
        with self._session() as session:
            if guests:
                query = select(DailyScoreRow.name, DailyScoreRow.score, DailyScoreRow.at).where(
                    DailyScoreRow.day == day, DailyScoreRow.account_id.is_(None)
                )
            else:
                query = (
                    select(AccountRow.username, DailyScoreRow.score, DailyScoreRow.at)
                    .join(AccountRow, AccountRow.id == DailyScoreRow.account_id)
                    .where(DailyScoreRow.day == day)
                )
            rows = session.execute(
                query.order_by(
                    DailyScoreRow.score.desc(), DailyScoreRow.at, DailyScoreRow.id
                ).limit(limit)
            ).all()
        return [
            {"rank": rank, "name": name, "score": score, "at": _iso(at)}
            for rank, (name, score, at) in enumerate(rows, 1)
        ]

    # ---------------------------------------------------------------- fair play (0009)

    def create_practice_set(
        self,
        set_id: str,
        *,
        kind: str,
        drill: str,
        device: str,
        account_id: int | None,
        seed: int,
        attempts: int,
        day: str | None = None,
        now: datetime | None = None,
    ) -> None:
        """Keep a new set the server hands out, with its secret ``seed``.

        A daily set (``kind`` ``daily``, ``day``) is the entry of an account
        (or, for a guest, of the device) at that day's challenge: one a day.

        >>> store = Store.open("sqlite://")
        >>> def enter(set_id: str, device: str) -> None:
        ...     store.create_practice_set(set_id, kind="daily", drill="daily", day="2026-12-01",
        ...         device=device, account_id=None, seed=7, attempts=3)
        >>> enter("s1", "a" * 16)
        >>> enter("s2", "a" * 16)
        Traceback (most recent call last):
        ...
        crokinole.store.store.AlreadyPlayedError: this device has entered the challenge of \
2026-12-01 already: one entry a day

        Raises:
            AlreadyPlayedError: a second daily entry of the account or device.
            StoreDataError: a value the store will not keep; nothing was written.
        """
        _check_practice(device, drill, 0, attempts)
        if kind not in ("drill", "daily") or (kind == "daily") != (day is not None):
            raise StoreDataError(f"a set is of a drill, or of a day's challenge, not {kind!r}")
        if not isinstance(set_id, str) or not 1 <= len(set_id) <= 32:
            raise StoreDataError("a set's id is 1 to 32 characters")
        key = None
        if day is not None:
            key = (
                f"{day}:account:{account_id}"
                if account_id is not None
                else f"{day}:device:{device}"
            )
        try:
            with self._writing() as session:
                if day is not None:
                    entered = session.scalar(
                        select(func.count())
                        .select_from(PracticeSetRow)
                        .where(
                            PracticeSetRow.kind == "daily",
                            PracticeSetRow.day == day,
                            _practice_owner(PracticeSetRow, device, account_id),
                        )
                    )
                    if entered:
                        raise _entered(day, account_id)
                session.add(
                    PracticeSetRow(
                        id=set_id, kind=kind, drill=drill, day=day, device_token=device,
                        account_id=account_id, seed=int(seed), attempts=int(attempts), played=0,
                        shots_json="[]", finished=False, entry_key=key,
                        created_at=_now() if now is None else now,
                    )
                )  # fmt: skip
                session.flush()
        except IntegrityError:
            raise _entered(day, account_id) from None

    def practice_set(self, set_id: str) -> PracticeSetData | None:
        """A set the server handed out (its seed included: never for a client), or None."""
        with self._session() as session:
            row = session.get(PracticeSetRow, set_id)
            if row is None:
                return None
            return PracticeSetData(
                id=row.id, kind=row.kind, drill=row.drill, day=row.day, device=row.device_token,
                account_id=row.account_id, seed=int(row.seed), attempts=row.attempts,
                shots=tuple(json.loads(row.shots_json)), finished=row.finished,
            )  # fmt: skip

    def daily_set(self, day: str, device: str, account_id: int | None) -> str | None:
        """The id of the device's (or account's) entry at ``day``'s challenge, or None."""
        with self._session() as session:
            found = session.scalar(
                select(PracticeSetRow.id)
                .where(
                    PracticeSetRow.kind == "daily",
                    PracticeSetRow.day == day,
                    _practice_owner(PracticeSetRow, device, account_id),
                )
                .limit(1)
            )
            return None if found is None else str(found)

    def add_practice_shot(self, set_id: str, played: int, shot: dict[str, Any]) -> bool:
        """Add attempt ``played + 1`` to an open set; False when the set moved on (another
        shot came first) or is finished: nothing was written."""
        shot_json = _dumps(shot, "the shot")
        with self._writing() as session:
            row = session.get(PracticeSetRow, set_id)
            if row is None or row.finished or row.played != played or played >= row.attempts:
                return False
            shots = [*json.loads(row.shots_json), json.loads(shot_json)]
            changed = session.execute(
                update(PracticeSetRow)
                .where(
                    PracticeSetRow.id == set_id,
                    PracticeSetRow.played == played,
                    PracticeSetRow.finished.is_(False),
                )
                .values(played=played + 1, shots_json=json.dumps(shots))
            )
            return bool(changed.rowcount == 1)  # type: ignore[attr-defined]

    def finish_practice_set(self, set_id: str) -> bool:
        """Close a set (its result is being kept); False when it was closed already."""
        with self._writing() as session:
            changed = session.execute(
                update(PracticeSetRow)
                .where(PracticeSetRow.id == set_id, PracticeSetRow.finished.is_(False))
                .values(finished=True)
            )
            return bool(changed.rowcount == 1)  # type: ignore[attr-defined]

    def add_ranked_device(self, table_id: str, device: str, now: datetime | None = None) -> None:
        """Note that a ranked table's player plays from ``device`` (kept once)."""
        with self._writing() as session:
            if session.get(RankedDeviceRow, (table_id, device)) is None:
                session.add(
                    RankedDeviceRow(
                        table_id=table_id, device_token=device, at=_now() if now is None else now
                    )
                )

    def ranked_game_in_play(self, device: str | None, account_id: int | None) -> str | None:
        """The ranked table being played by the account, or from the device, or None."""
        with self._session() as session:
            if account_id is not None:
                found = session.scalar(
                    select(TableRow.id)
                    .join(TableMemberRow, TableMemberRow.table_id == TableRow.id)
                    .where(
                        TableMemberRow.device_token == f"account:{account_id}",
                        TableRow.kind == "ranked",
                        TableRow.status == "playing",
                    )
                    .limit(1)
                )
                if found is not None:
                    return str(found)
            if device is not None:
                found = session.scalar(
                    select(TableRow.id)
                    .join(RankedDeviceRow, RankedDeviceRow.table_id == TableRow.id)
                    .where(
                        RankedDeviceRow.device_token == device,
                        TableRow.kind == "ranked",
                        TableRow.status == "playing",
                    )
                    .limit(1)
                )
                if found is not None:
                    return str(found)
        return None

    def no_shows_since(self, account_id: int, since: datetime) -> list[datetime]:
        """When the account's no-shows since ``since`` were, the earliest first."""
        with self._session() as session:
            return list(
                session.scalars(
                    select(NoShowRow.at)
                    .where(NoShowRow.account_id == account_id, NoShowRow.at >= since)
                    .order_by(NoShowRow.at)
                ).all()
            )


@dataclass(frozen=True, slots=True)
class RatingData:
    """An account's rating on one ladder as stored.

    Attributes:
        account_id: the account.
        username: its username as typed.
        ladder: ``singles`` or ``doubles``.
        mu: the belief's mean.
        sigma: the belief's standard deviation.
        rating: the displayed number the belief gives.
        games: ranked games played on the ladder (``wins + draws + losses``).
        wins: games rated as won.
        draws: games rated as drawn.
        losses: games rated as lost.
    """

    account_id: int
    username: str
    ladder: str
    mu: float
    sigma: float
    rating: int
    games: int
    wins: int
    draws: int
    losses: int


@dataclass(frozen=True, slots=True)
class RatingChange:
    """A rating change to store with the game that caused it (``append_table_events``).

    Attributes:
        account_id: whose rating changed.
        ladder: ``singles`` or ``doubles``.
        game_number: the game of the table.
        side: the player's side (0: side A, 1: side B).
        mu_before: the belief's mean before the game.
        sigma_before: its standard deviation before.
        mu_after: the mean after.
        sigma_after: the standard deviation after.
        rating_before: the displayed number before.
        rating_after: the displayed number after.
        outcome: what the player was rated as: ``win``, ``draw`` or ``loss``.
    """

    account_id: int
    ladder: str
    game_number: int
    side: int
    mu_before: float
    sigma_before: float
    mu_after: float
    sigma_after: float
    rating_before: int
    rating_after: int
    outcome: str


@dataclass(frozen=True, slots=True)
class RatingChangeData:
    """A stored rating change: :class:`RatingChange` with its table, username and time."""

    table_id: str
    username: str
    change: RatingChange
    at: datetime


@dataclass(frozen=True, slots=True)
class PracticeSetData:
    """A set the server handed out (:meth:`Store.create_practice_set`).

    ``shots`` are the attempts played so far: ``{"aimed", "played", "points"}``
    each (shots as ``{"position", "direction", "power"}``).
    """

    id: str
    kind: str
    drill: str
    day: str | None
    device: str
    account_id: int | None
    seed: int
    attempts: int
    shots: tuple[dict[str, Any], ...]
    finished: bool


def _entered(day: str | None, account_id: int | None) -> AlreadyPlayedError:
    who = "this device" if account_id is None else "this account"
    return AlreadyPlayedError(f"{who} has entered the challenge of {day} already: one entry a day")


@dataclass(frozen=True, slots=True)
class QueueEntryData:
    """An account in the ranked queue: since ``joined_at`` (server seconds)."""

    account_id: int
    username: str
    ladder: str
    joined_at: float


def _check_ladder(ladder: str) -> None:
    if ladder not in LADDERS:
        raise StoreDataError(f"a ladder is singles or doubles, not {ladder!r}")


def _check_change(table_id: str, change: RatingChange) -> None:
    if not isinstance(change, RatingChange):
        raise StoreDataError(f"table {table_id}: a rating change is a RatingChange, not {change!r}")
    _check_ladder(change.ladder)
    if change.outcome not in RESULTS:
        raise StoreDataError(
            f"table {table_id}: unknown outcome {change.outcome!r} (not {RESULTS})"
        )
    numbers = (change.mu_before, change.sigma_before, change.mu_after, change.sigma_after)
    if not all(math.isfinite(x) for x in numbers) or change.side not in (0, 1):
        raise StoreDataError(f"table {table_id}: a rating change out of range: {change!r}")


def _rate(session: Session, table_id: str, changes: Sequence[RatingChange], now: datetime) -> None:
    """Write ``changes`` into the ratings, and keep each with its game."""
    won = {"win": (1, 0, 0), "draw": (0, 1, 0), "loss": (0, 0, 1)}
    for c in changes:
        row = session.get(RatingRow, (c.account_id, c.ladder), with_for_update=True)
        wins, draws, losses = won[c.outcome]
        if row is None:
            session.add(
                RatingRow(
                    account_id=c.account_id, ladder=c.ladder, mu=c.mu_after, sigma=c.sigma_after,
                    rating=c.rating_after, games=1, wins=wins, draws=draws, losses=losses,
                    updated_at=now,
                )
            )  # fmt: skip
        else:
            row.mu, row.sigma, row.rating = c.mu_after, c.sigma_after, c.rating_after
            row.games += 1
            row.wins += wins
            row.draws += draws
            row.losses += losses
            row.updated_at = now
        session.add(
            RatingChangeRow(
                account_id=c.account_id, ladder=c.ladder, table_id=table_id,
                game_number=c.game_number, side=c.side, mu_before=c.mu_before,
                sigma_before=c.sigma_before, mu_after=c.mu_after, sigma_after=c.sigma_after,
                rating_before=c.rating_before, rating_after=c.rating_after, outcome=c.outcome,
                at=now,
            )
        )  # fmt: skip


def _rating_data(row: RatingRow, username: str) -> RatingData:
    return RatingData(
        account_id=row.account_id, username=username, ladder=row.ladder, mu=row.mu,
        sigma=row.sigma, rating=row.rating, games=row.games, wins=row.wins, draws=row.draws,
        losses=row.losses,
    )  # fmt: skip


def _change_data(row: RatingChangeRow, username: str) -> RatingChangeData:
    change = RatingChange(
        account_id=row.account_id, ladder=row.ladder, game_number=row.game_number,
        side=row.side, mu_before=row.mu_before, sigma_before=row.sigma_before,
        mu_after=row.mu_after, sigma_after=row.sigma_after, rating_before=row.rating_before,
        rating_after=row.rating_after, outcome=row.outcome,
    )  # fmt: skip
    return RatingChangeData(row.table_id, username, change, row.at)


@dataclass(frozen=True, slots=True)
class SheetData:
    """A stored score sheet.

    Attributes:
        id: the sheet id (for its owner).
        share_id: the id of its read-only link.
        device_token: the device that owns it.
        data: the sheet (``ScoreSheet.to_dict()``).
        updated_at: when it last changed (UTC).
    """

    id: str
    share_id: str
    device_token: str
    data: dict[str, Any]
    updated_at: datetime


def _sheet_data(row: SheetRow) -> SheetData:
    return SheetData(
        row.id, row.share_id, row.device_token, json.loads(row.data_json), row.updated_at
    )


def _room_data(row: RoomRow) -> RoomData:
    return RoomData(
        id=row.id,
        device_token=row.device_token,
        opponent=row.opponent,
        settings=json.loads(row.settings_json),
        record_json=row.record_json,
        event_number=row.event_number,
        status=row.status,
        result=row.result,
        updated_at=row.updated_at,
    )


def _dumps(value: Any, what: str) -> str:
    try:
        return json.dumps(value, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as error:
        raise StoreDataError(f"{what} is not JSON: {error}") from None


def _iso(at: datetime) -> str:
    """A stored (UTC, naive) time as ISO 8601 with a Z."""
    return at.replace(microsecond=0).isoformat() + "Z"


def _practice_owner(row: Any, device: str, account_id: int | None) -> Any:
    """The rows of a device, or of a device and an account together."""
    if account_id is None:
        return row.device_token == device
    return or_(row.device_token == device, row.account_id == account_id)


def _check_practice(device: str, drill: str, score: int, attempts: int) -> None:
    if not isinstance(device, str) or not 1 <= len(device) <= 64:
        raise StoreDataError("a device token is 1 to 64 characters")
    if not isinstance(drill, str) or not 1 <= len(drill) <= 16:
        raise StoreDataError(f"a drill id is 1 to 16 characters, not {drill!r}")
    for what, value in (("score", score), ("attempts", attempts)):
        if not isinstance(value, int) or isinstance(value, bool):
            raise StoreDataError(f"the {what} is a whole number, not {value!r}")
    if attempts < 1:
        raise StoreDataError(f"a set has at least 1 attempt, not {attempts}")


def _attempt_points(shots_json: str, attempts: int) -> list[int] | None:
    """Each attempt's points kept with a set's shots, or None when they were not kept."""
    try:
        shots = json.loads(shots_json)
    except ValueError:
        return None
    if not isinstance(shots, list) or len(shots) != attempts:
        return None
    points = [s.get("points") if isinstance(s, dict) else None for s in shots]
    if not all(isinstance(p, int) and not isinstance(p, bool) for p in points):
        return None
    return cast(list[int], points)


def _daily_rank(session: Session, row: DailyScoreRow) -> int:
    """1 + the scores of the day ahead of ``row`` (higher, or equal and earlier)."""
    ahead = session.scalar(
        select(func.count())
        .select_from(DailyScoreRow)
        .where(
            DailyScoreRow.day == row.day,
            # Accounts and guests are ranked apart.
            DailyScoreRow.account_id.is_(None)
            if row.account_id is None
            else DailyScoreRow.account_id.is_not(None),
            or_(
                DailyScoreRow.score > row.score,
                (DailyScoreRow.score == row.score) & (DailyScoreRow.at < row.at),
                (DailyScoreRow.score == row.score)
                & (DailyScoreRow.at == row.at)
                & (DailyScoreRow.id < row.id),
            ),
        )
    )
    return int(ahead or 0) + 1


def _check_status(table_id: str, status: str) -> None:
    if status not in TABLE_STATUSES:
        raise StoreDataError(f"table {table_id}: unknown status {status!r} (not {TABLE_STATUSES})")


def _event_rows(
    table_id: str, expected_version: int, events: Sequence[dict[str, Any]]
) -> list[TableEventRow]:
    rows = []
    for version, item in enumerate(events, start=expected_version + 1):
        if item.get("version") != version:
            raise StoreDataError(
                f"table {table_id}: the event {item.get('type')!r} has version "
                f"{item.get('version')!r} where version {version} comes"
            )
        event_json = _dumps(item, f"event {version} of table {table_id}")
        rows.append(TableEventRow(table_id=table_id, version=version, event_json=event_json))
    return rows


def _member_rows(table_id: str, members: Sequence[MemberIn]) -> list[TableMemberRow]:
    given = [_member(table_id, m) for m in members]
    mids = [m.mid for m in given]
    if len(set(mids)) != len(mids):
        raise StoreDataError(f"table {table_id}: a member is listed twice in {mids}")
    return [
        TableMemberRow(
            table_id=table_id,
            mid=m.mid,
            device_token=m.device_token,
            name=m.name,
            spectator=m.spectator,
            seats=",".join(m.seats),
        )
        for m in given
    ]


def _member(table_id: str, member: MemberIn) -> TableMember:
    if isinstance(member, TableMember):
        return member
    seats = member.get("seats")
    if seats is None:
        seat = member.get("seat")
        seats = () if seat is None else (seat,)
    try:
        return TableMember(
            mid=str(member["mid"]),
            device_token=str(member["device_token"]),
            name=str(member["name"]),
            spectator=bool(member.get("spectator", False)),
            seats=tuple(str(seat) for seat in seats),
        )
    except KeyError as missing:
        raise StoreDataError(f"table {table_id}: a member without {missing}: {member}") from None


def _deadline(table_id: str, deadline: DeadlineIn | None) -> tuple[float | None, str | None]:
    if deadline is None:
        return None, None
    at, kind = deadline if isinstance(deadline, tuple) else (deadline.at, deadline.kind)
    if not math.isfinite(at):
        raise StoreDataError(f"table {table_id}: a deadline at {at} is not a time")
    return float(at), str(kind)


def _split_seats(seats: str) -> tuple[str, ...]:
    return tuple(seats.split(",")) if seats else ()


def _replace_members(session: Session, table_id: str, rows: list[TableMemberRow]) -> None:
    stored = {
        r.mid: r
        for r in session.scalars(select(TableMemberRow).where(TableMemberRow.table_id == table_id))
    }
    for row in rows:
        old = stored.pop(row.mid, None)
        if old is None:
            session.add(row)
        else:  # the ORM writes only what changed
            old.device_token, old.name = row.device_token, row.name
            old.spectator, old.seats = row.spectator, row.seats
    for gone in stored.values():
        session.delete(gone)


def _result_row(table_id: str, result: ResultIn, now: datetime) -> TableResultRow:
    if not isinstance(result, TableResult):
        try:
            result = TableResult(
                game_number=int(result["game_number"]),
                device_token=str(result["device_token"]),
                opponent=str(result["opponent"]),
                scoring=str(result["scoring"]),
                result=str(result["result"]),
            )
        except KeyError as missing:
            raise StoreDataError(
                f"table {table_id}: a result without {missing}: {result}"
            ) from None
    if result.result not in RESULTS:
        raise StoreDataError(f"table {table_id}: unknown result {result.result!r} (not {RESULTS})")
    return TableResultRow(
        table_id=table_id,
        game_number=result.game_number,
        device_token=result.device_token,
        opponent=result.opponent,
        scoring=result.scoring,
        result=result.result,
        finished_at=now,
    )


def _table_data(row: TableRow) -> TableData:
    deadline = None
    if row.deadline is not None:
        deadline = TableDeadline(float(row.deadline), row.deadline_kind or "")
    return TableData(
        id=row.id,
        kind=row.kind,
        code=row.code,
        version=row.version,
        status=row.status,
        snapshot=json.loads(row.snapshot_json),
        deadline=deadline,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


def _unreachable(error: DBAPIError, dialect: str) -> str | None:
    """Why ``error`` means the database is out of reach (a plain reason), or None if it does not.

    A connection that the driver found dead (SQLAlchemy invalidated it) is
    out of reach on any database.  On a database server (PostgreSQL), so is
    every ``OperationalError`` (refused or dropped connections, a server
    shutting down, a transaction the server gave up: things of the server's
    state, not of the call) and ``InterfaceError`` (a connection already
    closed).  On SQLite those are about the file (a missing table, a locked
    file) and pass as they are.

    >>> closed = Exception("server closed the connection unexpectedly")
    >>> _unreachable(OperationalError("SELECT 1", {}, closed), "postgresql")
    'server closed the connection unexpectedly'
    >>> _unreachable(OperationalError("SELECT 1", {}, Exception("no such table: t")), "sqlite")
    """
    if not error.connection_invalidated and (
        dialect == "sqlite" or not isinstance(error, OperationalError | InterfaceError)
    ):
        return None
    lines = str(error.orig or error).strip().splitlines()
    return lines[0].strip() if lines and lines[0].strip() else type(error.orig).__name__


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    # Another process writing (``crokinole db upgrade``, a second server) is waited for.
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()
