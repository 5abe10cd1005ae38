"""Tables and their event logs: append with an expected version, members, deadlines, results.

A table (a party, a solo game, a ranked game) is an append-only log of domain
events numbered from 1, with a snapshot beside it so that it loads in one
read.  :class:`TableStore` creates a table with its first events, appends
events at an expected version (a writer that lost the race gets
:class:`~crokinole.store.database.StoreConflictError`; a shot on PostgreSQL is
one statement), keeps the members, the next deadline and the devices'
results (a device's record), and reads them back.  The store keeps the JSON
the server gives it and knows no ``Table`` class.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Table as SqlTable
from sqlalchemy import (
    bindparam,
    insert,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from crokinole import metrics
from crokinole.store.database import (
    Database,
    StoreConflictError,
    StoreDataError,
    to_json,
    utc_now,
)
from crokinole.store.legacy_rooms import room_results
from crokinole.store.models import (
    TABLE_STATUSES,
    NoShowRow,
    TableEventRow,
    TableMemberRow,
    TableResultRow,
    TableRow,
)
from crokinole.store.ranked import check_change, rate
from crokinole.store.values import (
    FORMATS,
    RESULTS,
    TABLE_KINDS,
    DeadlineIn,
    DeviceRecord,
    MemberIn,
    RatingChange,
    ResultIn,
    TableData,
    TableDeadline,
    TableMember,
    TableResult,
    from_row,
)

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


def _shot_sql(dialect: str, snapshot: bool) -> str:
    """A shot's append in the driver's own SQL (``dialect``: sqlite or postgresql).

    On SQLite the guarded update of the table's row (the events follow it in
    the same transaction).  On PostgreSQL the update and the events' insert
    as one data-modifying statement, atomic on its own (no BEGIN and COMMIT
    round trips): the events are inserted only from the row the update moved
    (none when the table is not at the expected version), and a failing
    insert undoes the update.
    """
    if dialect == "sqlite":
        snapshot_set = ", snapshot_json = :p_snapshot" if snapshot else ""
        return (
            f"UPDATE {_TABLE_ROWS.name} SET version = :p_version, status = :p_status,"
            " deadline = :p_deadline, deadline_kind = :p_deadline_kind,"
            f" updated_at = :p_updated_at{snapshot_set}"
            " WHERE id = :p_id AND version = :p_expected AND status != 'closed'"
        )
    snapshot_set = ", snapshot_json = %(p_snapshot)s" if snapshot else ""
    return (
        "WITH moved AS ("
        f" UPDATE {_TABLE_ROWS.name} SET version = %(p_version)s, status = %(p_status)s,"
        " deadline = %(p_deadline)s, deadline_kind = %(p_deadline_kind)s,"
        f" updated_at = %(p_updated_at)s{snapshot_set}"
        " WHERE id = %(p_id)s AND version = %(p_expected)s AND status != 'closed'"
        " RETURNING id)"
        f" INSERT INTO {_EVENT_ROWS.name} (table_id, version, event_json)"
        " SELECT moved.id, e.version, e.event_json FROM moved,"
        " unnest(CAST(%(p_versions)b AS integer[]), CAST(%(p_jsons)b AS text[]))"
        " AS e(version, event_json)"
    )


#: A shot's statements per dialect and with (True) or without the snapshot.
_SHOT_SQL = {
    (dialect, snapshot): _shot_sql(dialect, snapshot)
    for dialect in ("sqlite", "postgresql")
    for snapshot in (False, True)
}
#: SQLite's insert of a shot's events (after :data:`_SHOT_SQL`'s update).
_SQLITE_EVENTS = f"INSERT INTO {_EVENT_ROWS.name} (table_id, version, event_json) VALUES (?, ?, ?)"
#: The status and version of a table, in each driver's SQL (a conflict's message).
_STATE_OF = {
    "sqlite": f"SELECT status, version FROM {_TABLE_ROWS.name} WHERE id = ?",
    "postgresql": f"SELECT status, version FROM {_TABLE_ROWS.name} WHERE id = %s",
}


def _not_at(table_id: str, expected_version: int, row: Any) -> StoreConflictError:
    """The conflict of an append whose table (``row``: its status and version, or None when
    missing) is not at the expected version."""
    where = "missing" if row is None else f"{row[0]} at version {row[1]}"
    return StoreConflictError(
        f"table {table_id} is not at version {expected_version} (it is {where})"
    )


class TableStore(Database):
    """Tables and their event logs (see the module's docstring)."""

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

        >>> store = TableStore.open("sqlite://")
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
        crokinole.store.database.StoreConflictError: an open table has the code ABC234 already

        Raises:
            StoreConflictError: the id is taken, or an open table holds the
                code (pick another and try again); nothing was written.
            StoreDataError: an unknown kind or status, an event whose version
                is not its place, a member listed twice, data that is not JSON.
        """
        if kind not in TABLE_KINDS:
            raise StoreDataError(f"table {table_id}: unknown kind {kind!r} (not {TABLE_KINDS})")
        _check_status(table_id, status)
        now = now or utc_now()
        at, deadline_kind = _deadline(table_id, deadline)
        row = TableRow(
            id=table_id,
            kind=kind,
            code=code,
            version=len(events),
            status=status,
            snapshot_json=to_json(snapshot, f"the snapshot of table {table_id}"),
            deadline=at,
            deadline_kind=deadline_kind,
            created_at=now,
            updated_at=now,
        )
        event_rows = [
            TableEventRow(table_id=table_id, version=version, event_json=event_json)
            for version, event_json in _event_rows(table_id, 0, events)
        ]
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

        >>> store = TableStore.open("sqlite://")
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
        crokinole.store.database.StoreConflictError: table t1 is not at version 1 (it is playing ...

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
        now = now or utc_now()
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
            params["p_snapshot"] = to_json(snapshot, f"the snapshot of table {table_id}")
            statement = _APPEND_STATE_AND_SNAPSHOT
        event_rows = _event_rows(table_id, expected_version, events)
        member_rows = None if members is None else _member_rows(table_id, members)
        result_rows = [_result_row(table_id, result, now) for result in results]
        for change in rating_changes:
            check_change(table_id, change)
        try:
            if member_rows is None and not (result_rows or rating_changes or no_shows):
                # A shot (nothing but the events and the table's state): the
                # server's most frequent write, on the driver's own connection.
                self._append_shot(table_id, expected_version, params, event_rows)
                return
            with self._writing() as session:
                # The guarded update takes the table's row lock: a second writer
                # of the same version waits, then finds the version moved on.
                changed = session.execute(statement, params)
                if changed.rowcount != 1:  # type: ignore[attr-defined]
                    raise _not_at(table_id, expected_version, _state_of(session, table_id))
                session.execute(
                    _INSERT_EVENTS,
                    [
                        {"table_id": table_id, "version": version, "event_json": event_json}
                        for version, event_json in event_rows
                    ],
                )
                session.add_all(result_rows)
                if member_rows is not None:
                    _replace_members(session, table_id, member_rows)
                rate(session, table_id, rating_changes, now)
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

    def _append_shot(
        self,
        table_id: str,
        expected_version: int,
        params: dict[str, Any],
        event_rows: Sequence[tuple[int, str]],
    ) -> None:
        """:meth:`append_table_events`'s common case: one commit, on the driver's connection.

        No session and no statement compiled (the SQL is made once,
        :data:`_SHOT_SQL`; sqlite3 and psycopg prepare it once per
        connection).  On PostgreSQL one statement in autocommit (see
        :func:`_shot_sql`); on SQLite the update and the events in one
        transaction, under the write lock.
        """
        dialect = self._engine.dialect.name
        sql = _SHOT_SQL[dialect, "p_snapshot" in params]
        if dialect == "postgresql":
            values = {
                **params,
                "p_versions": [version for version, _ in event_rows],
                "p_jsons": [event_json for _, event_json in event_rows],
            }
            with self._raw() as connection:
                connection.autocommit = True
                try:
                    inserted = connection.execute(sql, values).rowcount
                    metrics.count(metrics.DB_COMMITS)  # the statement is its own transaction
                    if inserted != len(event_rows):
                        row = connection.execute(_STATE_OF[dialect], (table_id,)).fetchone()
                        raise _not_at(table_id, expected_version, row)
                finally:
                    if not (connection.closed or connection.broken):
                        connection.autocommit = False
            return
        values = {**params, "p_updated_at": self._stored_time(params["p_updated_at"])}
        # What this leaves uncommitted (a conflict, a failure) is rolled back as
        # the connection goes back to the pool, still under the write lock.
        with self._write_lock, self._raw() as connection:
            if connection.execute(sql, values).rowcount != 1:
                row = connection.execute(_STATE_OF[dialect], (table_id,)).fetchone()
                raise _not_at(table_id, expected_version, row)
            connection.executemany(
                _SQLITE_EVENTS,
                [(table_id, version, event_json) for version, event_json in event_rows],
            )
            connection.commit()
            metrics.count(metrics.DB_COMMITS)

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

        >>> store = TableStore.open("sqlite://")
        >>> store.devices_record(["tok-a", "tok-b"], ["easy"])["easy"]["four_rounds"]
        {'wins': 0, 'draws': 0, 'losses': 0}
        """
        tokens = sorted(set(device_tokens))
        record: DeviceRecord = {
            level: {fmt: {"wins": 0, "draws": 0, "losses": 0} for fmt in FORMATS}
            for level in levels
        }
        tables = select(
            TableResultRow.opponent, TableResultRow.scoring, TableResultRow.result
        ).where(TableResultRow.device_token.in_(tokens))
        with self._session() as session:
            rows = session.execute(room_results(tokens).union_all(tables)).all()
        key = {"win": "wins", "draw": "draws", "loss": "losses"}
        for opponent, scoring, result in rows:
            if opponent in record and scoring in record[opponent] and result in key:
                record[opponent][scoring][key[result]] += 1
        return record


def _check_status(table_id: str, status: str) -> None:
    if status not in TABLE_STATUSES:
        raise StoreDataError(f"table {table_id}: unknown status {status!r} (not {TABLE_STATUSES})")


def _event_rows(
    table_id: str, expected_version: int, events: Sequence[dict[str, Any]]
) -> list[tuple[int, str]]:
    """The events' (version, JSON), each checked to be at its place after ``expected_version``."""
    rows = []
    for version, item in enumerate(events, start=expected_version + 1):
        if item.get("version") != version:
            raise StoreDataError(
                f"table {table_id}: the event {item.get('type')!r} has version "
                f"{item.get('version')!r} where version {version} comes"
            )
        rows.append((version, to_json(item, f"event {version} of table {table_id}")))
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


def _state_of(session: Session, table_id: str) -> Any:
    """The table's (status, version), or None when it is missing."""
    return session.execute(
        select(_TABLE_ROWS.c.status, _TABLE_ROWS.c.version).where(_TABLE_ROWS.c.id == table_id)
    ).first()


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
    return from_row(TableData, row, snapshot=json.loads(row.snapshot_json), deadline=deadline)
