"""Events (tournaments, league nights): an append-only log per event, and where its games are.

An event is the fold of its log (:mod:`crokinole.events.event`); the store
keeps the log as the JSON entries the server gives it, numbered from 1, and
knows no ``Event`` class.  :class:`EventStore` creates an event with its first
entry and its join code, appends entries at an expected version (a writer
that lost the race gets :class:`~crokinole.store.database.StoreConflictError`
and writes nothing, as a table's append does), reads the entries after a
version, finds an event by its code, and lists the events open, running or
finished lately, or an account's (organised or played in).  Beside the log
it keeps where each online table and each hall score sheet of an event
belongs: the round and the pairing (:class:`~crokinole.store.values.EventPlace`).

>>> store = EventStore.open("sqlite://")
>>> store.create_event("ev1", "K7QM2P", 7, {"type": "created"}, summary={"name": "Tuesday"})
>>> store.append_event_entries("ev1", [{"type": "joined", "name": "Ann"}], 1, accounts=[9])
2
>>> store.event_entries("ev1", after_version=1), store.event_by_code("K7QM2P")
([{'type': 'joined', 'name': 'Ann'}], 'ev1')
>>> [e.id for e in store.list_events(account_id=9)]
['ev1']
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from crokinole.store.database import (
    Database,
    StoreConflictError,
    StoreDataError,
    to_json,
    utc_now,
)
from crokinole.store.models import (
    EVENT_STATUSES,
    EventAccountRow,
    EventEntryRow,
    EventLogRow,
    EventSheetRow,
    EventTableRow,
)
from crokinole.store.values import EventData, EventPlace, from_row

__all__ = ["LIST_LIMIT", "RECENT_DAYS", "EventStore"]

#: Days a finished event stays in the public list.
RECENT_DAYS = 14.0
#: The most events a list gives.
LIST_LIMIT = 100

#: A time as the store is given it: a stored (UTC, naive) datetime, server
#: seconds since the epoch, or None for now.
When = datetime | float | None


def _at(now: When) -> datetime:
    """``now`` as the store keeps times (UTC, naive)."""
    if now is None:
        return utc_now()
    if isinstance(now, datetime):
        return now.astimezone(UTC).replace(tzinfo=None) if now.tzinfo else now
    return datetime.fromtimestamp(float(now), UTC).replace(tzinfo=None)


def _check_status(event_id: str, status: str) -> None:
    if status not in EVENT_STATUSES:
        raise StoreDataError(f"event {event_id}: unknown status {status!r} (not {EVENT_STATUSES})")


def _entry_rows(
    event_id: str, expected_version: int, entries: Sequence[dict[str, Any]]
) -> list[EventEntryRow]:
    if not entries:
        raise StoreDataError(f"event {event_id}: no entries to append")
    rows = []
    for version, entry in enumerate(entries, start=expected_version + 1):
        if not isinstance(entry, dict):
            raise StoreDataError(f"event {event_id}: entry {version} is not a JSON object")
        text = to_json(entry, f"entry {version} of event {event_id}")
        rows.append(EventEntryRow(event_id=event_id, version=version, entry_json=text))
    return rows


def _account_ids(event_id: str, accounts: Iterable[int]) -> set[int]:
    ids = set()
    for account in accounts:
        if isinstance(account, bool) or not isinstance(account, int):
            raise StoreDataError(f"event {event_id}: an account id is a number, not {account!r}")
        ids.add(account)
    return ids


def _add_accounts(session: Session, event_id: str, accounts: set[int]) -> None:
    """Add the accounts not yet listed as playing in the event."""
    if not accounts:
        return
    known = set(
        session.scalars(
            select(EventAccountRow.account_id).where(
                EventAccountRow.event_id == event_id, EventAccountRow.account_id.in_(accounts)
            )
        )
    )
    session.add_all(
        EventAccountRow(event_id=event_id, account_id=a) for a in sorted(accounts - known)
    )


def _event_data(row: EventLogRow) -> EventData:
    return from_row(EventData, row, summary=json.loads(row.summary_json))


def _place(event_id: str, round: int, table: int, game: int = 1) -> None:
    for what, value in (("round", round), ("pairing", table), ("game", game)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise StoreDataError(f"event {event_id}: a {what} is a number from 1, not {value!r}")


class EventStore(Database):
    """Events' logs, their join codes, and their tables' and sheets' places (see the module)."""

    def create_event(
        self,
        event_id: str,
        code: str,
        organiser_account_id: int,
        entry_json: dict[str, Any],
        now: When = None,
        *,
        status: str = "open",
        summary: dict[str, Any] | None = None,
        accounts: Iterable[int] = (),
        then: Sequence[dict[str, Any]] = (),
    ) -> None:
        """Store a new event with its first entry (version 1), all or nothing.

        ``summary`` is what the lists show (the event's name, date, format
        ...); ``accounts`` the accounts that play in it (the organiser is
        found by :meth:`list_events` without being listed); ``then`` the
        entries that follow the first at once (versions 2, 3 ...: an event
        imported whole).

        >>> store = EventStore.open("sqlite://")
        >>> store.create_event("ev1", "K7QM2P", 7, {"type": "created"})
        >>> store.create_event("ev2", "K7QM2P", 7, {"type": "created"})
        Traceback (most recent call last):
        ...
        crokinole.store.database.StoreConflictError: an event has the code K7QM2P already

        Raises:
            StoreConflictError: the id or the code is taken (pick another and
                try again); nothing was written.
            StoreDataError: an unknown status, an entry that is not JSON.
        """
        _check_status(event_id, status)
        at = _at(now)
        rows = _entry_rows(event_id, 0, [entry_json, *then])
        ids = _account_ids(event_id, accounts)
        row = EventLogRow(
            id=event_id,
            code=code,
            organiser_id=int(organiser_account_id),
            version=len(rows),
            status=status,
            summary_json=to_json(summary or {}, f"the summary of event {event_id}"),
            created_at=at,
            updated_at=at,
        )
        try:
            with self._writing() as session:
                session.add(row)
                session.flush()  # the event first: its entries refer to it
                session.add_all(rows)
                _add_accounts(session, event_id, ids)
        except IntegrityError:
            raise StoreConflictError(self._why_event_not_created(event_id, code)) from None

    def _why_event_not_created(self, event_id: str, code: str) -> str:
        with self._session() as session:
            if session.get(EventLogRow, event_id) is not None:
                return f"event {event_id} exists already"
        if self.event_by_code(code) is not None:
            return f"an event has the code {code} already"
        return f"event {event_id} could not be created: its id or code was taken meanwhile"

    def append_event_entries(
        self,
        event_id: str,
        entries: Sequence[dict[str, Any]],
        expected_version: int,
        *,
        status: str | None = None,
        summary: dict[str, Any] | None = None,
        accounts: Iterable[int] = (),
        now: When = None,
    ) -> int:
        """Commit ``entries`` as versions ``expected_version + 1, ...``, all or nothing.

        ``status`` and ``summary`` replace the stored ones when given;
        ``accounts`` are added to the accounts playing in it.  Answers the
        event's new version.

        >>> store = EventStore.open("sqlite://")
        >>> store.create_event("ev1", "K7QM2P", 7, {"type": "created"})
        >>> store.append_event_entries("ev1", [{"type": "a"}, {"type": "b"}], 1)
        3
        >>> store.append_event_entries("ev1", [{"type": "c"}], 1)
        Traceback (most recent call last):
        ...
        crokinole.store.database.StoreConflictError: event ev1 is not at version 1 (it is at 3)

        Raises:
            StoreConflictError: the event is not at ``expected_version``
                (another writer came first) or is missing; nothing was written.
            StoreDataError: no entries, an entry that is not a JSON object, an
                unknown status; nothing was written.
        """
        rows = _entry_rows(event_id, expected_version, entries)
        version = expected_version + len(rows)
        values: dict[str, Any] = {"version": version, "updated_at": _at(now)}
        if status is not None:
            _check_status(event_id, status)
            values["status"] = status
        if summary is not None:
            values["summary_json"] = to_json(summary, f"the summary of event {event_id}")
        ids = _account_ids(event_id, accounts)
        try:
            with self._writing() as session:
                # The guarded update takes the event's row lock: a second writer
                # of the same version waits, then finds the version moved on.
                moved = session.execute(
                    update(EventLogRow)
                    .where(EventLogRow.id == event_id, EventLogRow.version == expected_version)
                    .values(**values)
                )
                if moved.rowcount != 1:  # type: ignore[attr-defined]
                    stored = session.scalar(
                        select(EventLogRow.version).where(EventLogRow.id == event_id)
                    )
                    where = "missing" if stored is None else f"at {stored}"
                    raise StoreConflictError(
                        f"event {event_id} is not at version {expected_version} (it is {where})"
                    )
                session.add_all(rows)
                _add_accounts(session, event_id, ids)
                session.flush()
        except IntegrityError:
            # The (event, version) key: a log that disagrees with its row still
            # admits no second entry of a version.
            raise StoreConflictError(
                f"event {event_id}: an entry of versions {expected_version + 1}–{version} "
                "exists already"
            ) from None
        return version

    def event_entries(self, event_id: str, after_version: int = 0) -> list[dict[str, Any]]:
        """The event's entries after ``after_version``, in order (versions ``after_version + 1``
        on); ``[]`` for an unknown event."""
        with self._session() as session:
            texts = session.scalars(
                select(EventEntryRow.entry_json)
                .where(EventEntryRow.event_id == event_id, EventEntryRow.version > after_version)
                .order_by(EventEntryRow.version)
            ).all()
        return [json.loads(text) for text in texts]

    def event_data(self, event_id: str) -> EventData | None:
        """The event's row (code, organiser, version, status, summary), or None."""
        with self._session() as session:
            row = session.get(EventLogRow, event_id)
            return None if row is None else _event_data(row)

    def event_by_code(self, code: str) -> str | None:
        """The id of the event whose join code is ``code`` (matched exactly), or None."""
        with self._session() as session:
            return session.scalars(select(EventLogRow.id).where(EventLogRow.code == code)).first()

    def list_events(
        self,
        *,
        account_id: int | None = None,
        recent_days: float = RECENT_DAYS,
        limit: int = LIST_LIMIT,
        now: When = None,
    ) -> list[EventData]:
        """Events, the latest changed first, at most ``limit``.

        Without ``account_id``: those open or running, and those finished
        within ``recent_days``.  With it: the account's, whatever their
        status: those it organises and those it plays in.

        >>> store = EventStore.open("sqlite://")
        >>> store.create_event("ev1", "AAAAAA", 7, {}, datetime(2026, 1, 1), status="finished")
        >>> store.create_event("ev2", "BBBBBB", 8, {}, datetime(2026, 1, 30))
        >>> [e.id for e in store.list_events(now=datetime(2026, 2, 1))]
        ['ev2']
        >>> [e.id for e in store.list_events(account_id=7)]
        ['ev1']
        """
        query = select(EventLogRow)
        if account_id is None:
            since = _at(now) - timedelta(days=recent_days)
            query = query.where(
                or_(
                    EventLogRow.status != "finished",
                    EventLogRow.updated_at >= since,
                )
            )
        else:
            playing = select(EventAccountRow.event_id).where(
                EventAccountRow.account_id == account_id
            )
            query = query.where(
                or_(EventLogRow.organiser_id == account_id, EventLogRow.id.in_(playing))
            )
        query = query.order_by(EventLogRow.updated_at.desc(), EventLogRow.id).limit(limit)
        with self._session() as session:
            return [_event_data(row) for row in session.scalars(query)]

    # ------------------------------------------------------------ online tables

    def link_event_table(
        self, table_id: str, event_id: str, round: int, table: int, game: int = 1
    ) -> None:
        """Record that the online table ``table_id`` plays game ``game`` of the event's pairing
        ``table`` of round ``round``.

        Raises:
            StoreConflictError: the table belongs to an event already, or the
                event is missing.
            StoreDataError: a round, pairing or game that is not a number from 1.
        """
        _place(event_id, round, table, game)
        row = EventTableRow(
            table_id=table_id, event_id=event_id, round=round, pairing=table, game=game
        )
        try:
            with self._writing() as session:
                session.add(row)
        except IntegrityError:
            raise StoreConflictError(
                f"table {table_id} belongs to an event already (or event {event_id} is missing)"
            ) from None

    def event_of_table(self, table_id: str) -> EventPlace | None:
        """Where the online table belongs (its event, round, pairing and game), or None."""
        with self._session() as session:
            row = session.get(EventTableRow, table_id)
            if row is None:
                return None
            return EventPlace(row.event_id, row.round, row.pairing, row.game)

    def event_tables(self, event_id: str) -> dict[str, EventPlace]:
        """The event's online tables and their places, by table id."""
        with self._session() as session:
            rows = session.scalars(
                select(EventTableRow)
                .where(EventTableRow.event_id == event_id)
                .order_by(EventTableRow.round, EventTableRow.pairing, EventTableRow.game)
            ).all()
            return {r.table_id: EventPlace(r.event_id, r.round, r.pairing, r.game) for r in rows}

    # ------------------------------------------------------------ hall score sheets

    def link_event_sheet(self, sheet_id: str, event_id: str, round: int, table: int) -> None:
        """Record that the score sheet ``sheet_id`` keeps the event's pairing ``table`` of
        round ``round`` (a pairing has one sheet).

        Raises:
            StoreConflictError: the pairing has a sheet already, the sheet
                belongs to an event already, or the event is missing.
        """
        _place(event_id, round, table)
        row = EventSheetRow(sheet_id=sheet_id, event_id=event_id, round=round, pairing=table)
        try:
            with self._writing() as session:
                session.add(row)
        except IntegrityError:
            raise StoreConflictError(
                f"pairing {table} of round {round} of event {event_id} has a score sheet already"
            ) from None

    def event_sheet(self, event_id: str, round: int, table: int) -> str | None:
        """The id of the score sheet of the event's pairing, or None."""
        with self._session() as session:
            return session.scalars(
                select(EventSheetRow.sheet_id).where(
                    EventSheetRow.event_id == event_id,
                    EventSheetRow.round == round,
                    EventSheetRow.pairing == table,
                )
            ).first()

    def event_of_sheet(self, sheet_id: str) -> EventPlace | None:
        """Where the score sheet belongs (its event, round and pairing), or None."""
        with self._session() as session:
            row = session.get(EventSheetRow, sheet_id)
            return None if row is None else EventPlace(row.event_id, row.round, row.pairing)
