"""An event's online tables on two server processes sharing one Redis and one store.

Issue 23's "How it is built": the event's state runs on several processes like a
table.  Both processes hear the round start; one (the leader) makes each table,
once; the game is played through the other process (its commands go to the
table's owner), and the owner alone reports the result, once.  The fixtures (a
key prefix of the test's own, skipped without Redis) are in tests/server/conftest.py.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

import anyio

from crokinole.events.event import Entry, Event
from crokinole.events.model import EventSettings, Format
from crokinole.rules import Rules
from crokinole.server.events.service import EventService
from crokinole.server.events.tables import EventTables
from crokinole.store import Store
from crokinole.table import Connect, Shoot, Stage
from tests.server.cluster.test_redis_hub import run
from tests.server.owner.test_tables_redis import Process
from tests.support.table import legal_shot


class EventProcess(Process):
    """A server process with the events' service and their online tables."""

    def __init__(self, store: Store, prefix: str) -> None:
        super().__init__(store, prefix)
        self.events = EventService(store, self.hub)
        self.online = EventTables.installed(self.events, self.tables)

    async def start(self) -> EventProcess:
        await super().start()
        self.online.listen()
        return self

    async def close(self) -> None:
        await self.online.close()
        await super().close()


def kinds(store: Store, event_id: str) -> list[str]:
    return [str(e["kind"]) for e in store.event_entries(event_id)]


async def waiting(check: Callable[[], bool], what: str) -> None:
    with anyio.fail_after(20):
        while not check():
            await anyio.sleep(0.02)


def test_two_processes_make_each_table_once_and_its_owner_reports_once(
    open_store: Callable[[], Store], prefix: str
) -> None:
    """The round starts on process a; both hear it, one table is made (one
    ``table_opened``); bob plays from process b (forwarded to the owner); the result is
    reported once (one ``result_reported``), and settling again on either process adds
    nothing."""

    async def scenario() -> None:
        a = EventProcess(open_store(), prefix)
        b = EventProcess(open_store(), prefix)
        await a.start()
        await b.start()
        store = a.tables.store
        try:
            org, ann, bob = (
                store.create_account(n, n, "$argon2id$x", datetime(2026, 1, 1)).id
                for n in ("org", "ann", "bob")
            )
            settings = EventSettings(
                name="Tuesday league", format=Format.SWISS, rounds=1, rules=Rules(rounds=1)
            )
            event_id = (await a.events.create(org, settings)).id

            async def organise(command: str, *args: Any, **kw: Any) -> Event:
                def decide(e: Event) -> Sequence[Entry]:
                    entries: Sequence[Entry] = getattr(e, command)(
                        a.events.actor(e, org), *args, now=a.events.now(), **kw
                    )
                    return entries

                return await a.events.run(event_id, decide)

            await organise("add", "Ann", account_id=ann)
            await organise("add", "Bob", account_id=bob)
            await organise("check_in", "e1")
            await organise("check_in", "e2")
            await organise("pair_next")
            await organise("start_round", 1)
            await waiting(lambda: "table_opened" in kinds(store, event_id), "the table")
            await anyio.sleep(0.5)  # both processes heard the start by now
            assert kinds(store, event_id).count("table_opened") == 1
            loaded = await b.events.load(event_id)
            assert loaded is not None
            (table_id,) = loaded.rounds[0].tables[1]
            for who in (ann, bob):
                await b.tables.command(table_id, Connect(f"account:{who}"))
            while True:
                table = await b.tables.get(table_id)
                assert table is not None and table.game is not None
                if table.stage is not Stage.PLAYING:
                    break
                seat = table.game.current_seat
                assert seat is not None
                occupant = table.seats[seat]
                member = table.member(getattr(occupant, "mid", ""))
                assert member is not None
                shot = legal_shot(table.game, seat)
                await b.tables.command(table_id, Shoot(member.device, seat, shot))
            await waiting(lambda: "result_reported" in kinds(store, event_id), "the result")
            owner = a if a.tables.held(table_id) is not None else b
            for process in (a, b):
                await process.online.settle(event_id)
            held = owner.tables.held(table_id)
            assert held is not None
            await owner.online.game_ended(held)
            await anyio.sleep(0.3)
            assert kinds(store, event_id).count("result_reported") == 1
            final = await a.events.load(event_id)
            assert final is not None and final.rounds[0].over
        finally:
            await b.close()
            await a.close()

    run(scenario)
