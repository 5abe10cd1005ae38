"""The server's rooms in process, on a real (in-memory SQLite) store."""

from __future__ import annotations

import asyncio
from pathlib import Path

from crokinole.server.protocol import NewGame
from crokinole.server.rooms import Rooms
from crokinole.store import Store
from tests.rules.test_scenarios import _blocked_quarter


def test_a_seat_with_no_room_to_place_loses_its_disc_at_once(tmp_path: Path) -> None:
    async def scenario() -> None:
        store = Store.open(str(tmp_path / "rooms.db"))
        rooms = Rooms(store)
        room = await rooms.create(
            "t" * 24, NewGame(type="new_game", opponent="local", required_contact=True)
        )
        room.game = _blocked_quarter()
        await rooms._no_room_to_place(room)
        assert room.event == 1
        assert room.game.current_seat is not None and room.game.current_seat.name == "NORTH"
        (event,) = store.events_after(room.id, 0, limit=5)
        assert event["type"] == "shot" and event["shot"] is None
        assert event["report"]["foul"] == "timeout"
        assert "No room on the line" in event["report"]["explanation"]

    asyncio.run(scenario())
