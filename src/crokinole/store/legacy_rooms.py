"""What protocol-1 games left in a database (the ``rooms`` and their ``events``), read-only.

Protocol 1 kept each game in a room; tables (:mod:`crokinole.store.tables`)
replaced them and no code writes a room any more.  A database from then still
holds rooms: their results count in a device's record (:func:`room_results`,
read by the tables' and the accounts' parts), :class:`LegacyRooms` reads a
room and its events back, and the server's hourly purge compacts the
abandoned ones past the retention period (:meth:`LegacyRooms.purge_abandoned`:
it rewrites no game, it only drops what the retention period lets go).  This
is the one module that knows the rooms.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import (
    delete,
    select,
    update,
)
from sqlalchemy.sql import Select

from crokinole.store.database import Database
from crokinole.store.models import (
    EventRow,
    RoomRow,
)
from crokinole.store.values import from_row


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


class LegacyRooms(Database):
    """Protocol 1's rooms and events, read (and compacted) only."""

    def room(self, room_id: str) -> RoomData | None:
        """The room, or None."""
        with self._session() as session:
            row = session.get(RoomRow, room_id)
            return None if row is None else _room_data(row)

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


def room_results(device_tokens: Sequence[str]) -> Select[str, str, str | None]:
    """The query of the devices' results in protocol-1 games: ``(opponent, scoring, result)``."""
    return select(RoomRow.opponent, RoomRow.scoring, RoomRow.result).where(
        RoomRow.device_token.in_(list(device_tokens)), RoomRow.result.is_not(None)
    )


def _room_data(row: RoomRow) -> RoomData:
    return from_row(RoomData, row, settings=json.loads(row.settings_json))
