"""Event tables benchmark: a round's online tables made, and each game's result entering the event.

Run it from a checkout: ``PYTHONPATH=src python benchmarks/event_tables.py
[--players 64] [--db URL]``.  In one process, on a fresh SQLite file (or
the database given), it runs the server's owner of the tables
(:class:`~crokinole.server.owner.tables.Tables`) and the event service with
:class:`~crokinole.server.events.tables.EventTables` installed, as
``create_app`` does.  ``--players`` accounts enter an online Swiss of one
round; the organiser pairs and starts it, and the tables are made by
themselves (issue 23, "Play": each pairing is a table created for them at the
round's start).  Then in each table a player resigns, one table after the
other, and the delay from just before the ``Resign`` command until the
event's log has the table's confirmed result is measured (the owner's hook:
the game's end stored, the result reported by the server, appended to the
event's log).

It prints the time from the start of the round until every table was made
(wall and this process's CPU time), per table, and the result's delay: p50,
p99 and max over the tables, and the CPU time per result.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from datetime import datetime
from pathlib import Path

from crokinole.events.event import Event
from crokinole.events.model import EventSettings, Format
from crokinole.rules import Rules
from crokinole.server.events.service import EventService
from crokinole.server.events.tables import EventTables
from crokinole.server.owner.tables import Tables
from crokinole.store import Store
from crokinole.table import Resign


async def started_round(store: Store, events: EventService, players: int) -> tuple[str, Event]:
    """An online Swiss of ``players`` accounts, its round 1 paired; its id, and the event."""
    hashed, when = "$argon2id$x", datetime(2026, 1, 1)
    org = store.create_account("org", "org", hashed, when).id
    quick = Rules(rounds=1)
    settings = EventSettings(name="Bench night", format=Format.SWISS, rounds=1, rules=quick)
    event_id = (await events.create(org, settings)).id

    async def organise(command: str, *args: object, **kw: object) -> Event:
        def decide(e: Event) -> object:
            return getattr(e, command)(events.actor(e, org), *args, now=events.now(), **kw)

        return await events.run(event_id, decide)  # type: ignore[arg-type]

    for n in range(1, players + 1):
        account = store.create_account(f"p{n}", f"p{n}", hashed, when).id
        event = await organise("add", f"Player {n}", account_id=account)
    for entrant in event.entrants:
        await organise("check_in", entrant.id)
    await organise("pair_next")
    wall, cpu = time.perf_counter(), time.process_time()
    await organise("start_round", 1)
    while True:
        loaded = await events.load(event_id)
        assert loaded is not None
        if sum(1 for ids in loaded.rounds[0].tables.values() if ids) == players // 2:
            break
        await asyncio.sleep(0.001)
    made_wall, made_cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(
        f"{players // 2} tables made at the round's start: {made_wall * 1000:.0f} ms wall, "
        f"{made_cpu * 1000:.0f} ms CPU ({made_cpu / (players // 2) * 1000:.1f} ms CPU a table)"
    )
    return event_id, loaded


async def results(tables: Tables, events: EventService, event_id: str, event: Event) -> None:
    """In each table a player resigns: the delay until the event has its confirmed result."""
    delays: list[float] = []
    cpu_total = 0.0
    for pairing in event.rounds[0].pairings:
        (table_id,) = event.rounds[0].tables[pairing.table]
        table = await tables.get(table_id)
        assert table is not None
        start, cpu = time.perf_counter(), time.process_time()
        await tables.command(table_id, Resign(table.members[0].device))
        while True:
            now = await events.load(event_id)
            assert now is not None
            result = now.rounds[0].results.get(pairing.table)
            if result is not None and result.confirmed:
                break
            await asyncio.sleep(0.0005)
        delays.append(time.perf_counter() - start)
        cpu_total += time.process_time() - cpu
    delays.sort()
    p99 = delays[min(len(delays) - 1, round(0.99 * (len(delays) - 1)))]
    print(
        f"a game's end -> its confirmed result in the event ({len(delays)} tables): "
        f"p50 {statistics.median(delays) * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms, "
        f"max {delays[-1] * 1000:.1f} ms; {cpu_total / len(delays) * 1000:.1f} ms CPU a result"
    )


async def bench(db: str, players: int) -> None:
    store = Store.open(db)
    tables = Tables(store)
    events = EventService(store, tables.hub)
    online = EventTables.installed(events, tables)
    online.listen()
    try:
        event_id, event = await started_round(store, events, players)
        await results(tables, events, event_id, event)
    finally:
        await online.close()
        await tables.close()
        store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=64, help="players (even): tables = half")
    parser.add_argument("--db", default=None, help="a database URL (default: a fresh SQLite file)")
    args = parser.parse_args()
    if args.players < 2 or args.players % 2:
        parser.error("--players is an even number from 2")
    with tempfile.TemporaryDirectory() as folder:
        db = args.db or str(Path(folder) / "bench.db")
        asyncio.run(bench(db, args.players))


if __name__ == "__main__":
    main()
