"""Catching up: a reconnecting tab's missed events, rebuilt in process on a real SQLite store."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio

from crokinole.board import Seat, Shot
from crokinole.server.protocol import NewGame
from crokinole.server.rooms import Rooms
from crokinole.store import DeviceRecord, Store


class CountingStore(Store):
    """The real store, counting how often the device record is read."""

    record_reads = 0

    def device_record(self, device_token: str, levels: Sequence[str]) -> DeviceRecord:
        self.record_reads += 1
        return super().device_record(device_token, levels)


def test_a_catch_up_without_the_end_does_not_read_the_device_record(tmp_path: Path) -> None:
    # A file, not sqlite:// (one database per thread): the store runs in worker threads.
    store = CountingStore.open(str(tmp_path / "catch-up.db"))
    assert isinstance(store, CountingStore)
    rooms = Rooms(store)
    token = secrets.token_hex(12)

    async def play() -> list[dict[str, Any]]:
        settings = NewGame.model_validate({"type": "new_game", "opponent": "local"})
        room = await rooms.create(token, settings)
        await rooms.shoot(room, Seat.SOUTH, Shot(0.0, 0.0, 28.0))
        await rooms.shoot(room, Seat.NORTH, Shot(0.0, 0.0, 28.0))
        before = store.record_reads
        missed = await rooms.catch_up(room, 0)
        assert store.record_reads == before
        return missed

    missed = anyio.run(play)
    assert [(m["type"], m["event"], m["seat"]) for m in missed] == [
        ("shot", 1, "south"),
        ("shot", 2, "north"),
    ]
    store.close()
