"""The store: rooms, their events and devices' records, in SQLite (or any SQLAlchemy URL)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import create_engine, delete, event, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, sessionmaker

from crokinole.errors import CrokinoleError
from crokinole.store.models import EventRow, RoomRow, SheetRow

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
FORMATS = ("four_rounds", "to_100")

#: A device's results against the CPU: level → format → wins/draws/losses.
DeviceRecord = dict[str, dict[str, dict[str, int]]]


class StoreConflictError(CrokinoleError):
    """A write that lost a race: the room is no longer at the expected event, or not playing.

    Nothing was written; the caller's view of the room is stale.
    """


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


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


class Store:
    """Rooms and events in a SQL database; every write is one transaction.

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

    @classmethod
    def open(cls, url: str) -> Store:
        """Open (and migrate) the database at ``url``; a plain path means SQLite."""
        if "://" not in url:
            path = Path(url).expanduser()
            path.parent.mkdir(parents=True, exist_ok=True)
            url = f"sqlite:///{path}"
        engine = create_engine(url)
        if engine.dialect.name == "sqlite":
            event.listen(engine, "connect", _sqlite_pragmas)
        store = cls(engine)
        store.migrate()
        return store

    def migrate(self, revision: str = "head") -> None:
        """Bring the schema to ``revision`` (the newest migration by default)."""
        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        with self._engine.begin() as connection:
            config.attributes["connection"] = connection
            command.upgrade(config, revision)

    def close(self) -> None:
        """Release the database connections."""
        self._engine.dispose()

    def _session(self) -> Session:
        return self._sessions()

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
        with self._session() as session, session.begin():
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
        with self._session() as session, session.begin():
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
        with self._session() as session, session.begin():
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
        """Wins, draws and losses of the device per CPU level (``levels``) and format."""
        record: DeviceRecord = {
            level: {fmt: {"wins": 0, "draws": 0, "losses": 0} for fmt in FORMATS}
            for level in levels
        }
        with self._session() as session:
            rows = session.execute(
                select(RoomRow.opponent, RoomRow.scoring, RoomRow.result).where(
                    RoomRow.device_token == device_token, RoomRow.result.is_not(None)
                )
            ).all()
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
        with self._session() as session, session.begin():
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
        with self._session() as session, session.begin():
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
        with self._session() as session, session.begin():
            session.execute(
                update(SheetRow)
                .where(SheetRow.id == sheet_id)
                .values(data_json=json.dumps(data), updated_at=_now())
            )

    def delete_sheet(self, sheet_id: str) -> None:
        """Remove a sheet."""
        with self._session() as session, session.begin():
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


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()
