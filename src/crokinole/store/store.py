"""The store: rooms, their events and devices' records, in SQLite (or any SQLAlchemy URL)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import create_engine, event, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, sessionmaker

from crokinole.store.models import EventRow, RoomRow, SheetRow

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
LEVELS = ("easy", "normal", "hard", "expert")
FORMATS = ("four_rounds", "to_100")

#: A device's results against the CPU: level → format → wins/draws/losses.
DeviceRecord = dict[str, dict[str, dict[str, int]]]


@dataclass(frozen=True, slots=True)
class RoomData:
    """A room as stored.

    Attributes:
        id: the room id.
        device_token: the device that owns it.
        opponent: ``easy``/``normal``/``hard``/``expert`` or ``local``.
        settings: the new-game settings it was created with.
        record_json: the game record (R9) after the last action.
        event_number: number of the last event sent.
        status: ``playing``, ``finished`` or ``abandoned``.
    """

    id: str
    device_token: str
    opponent: str
    settings: dict[str, Any]
    record_json: str
    event_number: int
    status: str


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


class Store:
    """Rooms and events in a SQL database; every write is one transaction.

    >>> store = Store.open("sqlite://")
    >>> store.create_room("r1", "tok", "hard", settings={}, record_json="{}", scoring="to_100")
    >>> store.append_event("r1", 1, {"type": "shot"}, "{}")
    >>> [e["type"] for e in store.events_after("r1", 0, limit=10)]
    ['shot']
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

    def migrate(self) -> None:
        """Bring the schema to the newest migration."""
        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        with self._engine.begin() as connection:
            config.attributes["connection"] = connection
            command.upgrade(config, "head")

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
    ) -> None:
        """Store a new room; the device's other unfinished rooms are abandoned."""
        now = _now()
        with self._session() as session, session.begin():
            session.execute(
                update(RoomRow)
                .where(RoomRow.device_token == device_token, RoomRow.status == "playing")
                .values(status="abandoned", updated_at=now)
            )
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

    def append_event(
        self,
        room_id: str,
        number: int,
        payload: dict[str, Any],
        record_json: str,
        *,
        status: str | None = None,
        result: str | None = None,
    ) -> None:
        """Commit one event with the room's new record (and status) in one transaction."""
        with self._session() as session, session.begin():
            session.add(EventRow(room_id=room_id, number=number, payload_json=json.dumps(payload)))
            values: dict[str, Any] = {
                "record_json": record_json,
                "event_number": number,
                "updated_at": _now(),
            }
            if status is not None:
                values["status"] = status
            if result is not None:
                values["result"] = result
            session.execute(update(RoomRow).where(RoomRow.id == room_id).values(**values))

    def set_status(self, room_id: str, status: str, result: str | None = None) -> None:
        """Mark a room finished or abandoned (with the device's result vs the CPU)."""
        with self._session() as session, session.begin():
            session.execute(
                update(RoomRow)
                .where(RoomRow.id == room_id)
                .values(status=status, result=result, updated_at=_now())
            )

    def events_after(self, room_id: str, number: int, *, limit: int) -> list[dict[str, Any]]:
        """Up to ``limit`` events after ``number``, in order."""
        with self._session() as session:
            rows = session.scalars(
                select(EventRow)
                .where(EventRow.room_id == room_id, EventRow.number > number)
                .order_by(EventRow.number)
                .limit(limit)
            ).all()
            return [json.loads(r.payload_json) for r in rows]

    def device_record(self, device_token: str) -> DeviceRecord:
        """Wins, draws and losses of the device per CPU level and format."""
        record: DeviceRecord = {
            level: {fmt: {"wins": 0, "draws": 0, "losses": 0} for fmt in FORMATS}
            for level in LEVELS
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
    )


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()
