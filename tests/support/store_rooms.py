"""Protocol-1 rooms as an old database holds them, for the tests of what still reads them.

No code writes a room any more (tables replaced them); these tests put rooms
and their events in the database directly, as protocol 1 left them, to check
that the device's record counts their results, that the purge compacts the
abandoned ones and that the migrations keep them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import sqlalchemy as sa

from crokinole.store import Store
from crokinole.store.models import EventRow, RoomRow

T0 = datetime(2026, 1, 1, 12, 0, 0)


def add_room(
    where: Store | sa.Engine,
    room_id: str,
    device_token: str = "tok",
    opponent: str = "easy",
    *,
    status: str = "playing",
    result: str | None = None,
    events: Sequence[dict[str, Any]] = (),
    record_json: str = "{}",
    settings: dict[str, Any] | None = None,
    scoring: str = "four_rounds",
    now: datetime = T0,
) -> None:
    """Put a room with its events (numbered from 1) in the database behind ``where``."""
    engine = where._engine if isinstance(where, Store) else where
    with engine.begin() as connection:
        connection.execute(
            sa.insert(RoomRow.__table__),
            {
                "id": room_id, "device_token": device_token, "opponent": opponent,
                "settings_json": json.dumps(settings or {}),
                "record_json": record_json, "event_number": len(events), "status": status,
                "result": result, "scoring": scoring, "created_at": now, "updated_at": now,
            },
        )  # fmt: skip
        for number, event in enumerate(events, start=1):
            connection.execute(
                sa.insert(EventRow.__table__),
                {"room_id": room_id, "number": number, "event_json": json.dumps(event)},
            )
