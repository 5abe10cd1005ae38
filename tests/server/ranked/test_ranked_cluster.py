"""The ranked queue across several server processes, without websockets.

Each "process" is a :class:`RankedQueue` with its own :class:`Tables`, its
own hub and its own store on one shared SQLite file, in this one test
process.  The hubs are :class:`RedisHub` on the real Redis (each test has a
key prefix of its own): skipped when Redis cannot be reached, failing
instead under ``CI`` (the fixtures ``prefix`` and ``open_store`` are in
tests/server/conftest.py).  The outage tests at the end need no Redis.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import anyio
import pytest
from redis.asyncio import Redis

from crokinole.server.cluster.hub import HubUnavailableError, Listener, MemoryHub
from crokinole.server.cluster.redis_hub import RedisHub
from crokinole.server.owner.tables import Tables
from crokinole.server.protocol import WireError
from crokinole.server.ranked import queue as ranked
from crokinole.server.ranked import rated
from crokinole.server.ranked.queue import RankedQueue
from crokinole.store import Store, StoreUnavailableError
from crokinole.table import Table
from tests.server.conftest import REDIS_URL

#: Upper bound on any wait of these tests (a safety net against a hang, not a measurement).
PATIENCE = 20.0

#: A short lease, so that a lead passes within a test.
LEASE_MS = 900


def accounts(store: Store, *names: str) -> list[int]:
    return [store.create_account(n, n, "$argon2id$x", datetime(2026, 1, 1)).id for n in names]


class Client:
    """A connection as the queue sees it: what it was sent."""

    def __init__(self, account_id: int | None) -> None:
        self.account_id = account_id
        self.sent: list[dict[str, Any]] = []

    def send(self, payload: dict[str, Any]) -> None:
        self.sent.append(payload)

    def got(self, kind: str) -> list[dict[str, Any]]:
        return [m for m in self.sent if m["type"] == kind]


@dataclass
class Process:
    """One server process's share of the queue."""

    store: Store
    hub: RedisHub
    tables: Tables
    queue: RankedQueue
    made: list[Table]
    open: bool = True

    async def tick(self) -> None:
        if self.open:
            self.made += await self.queue.pair_now()

    async def close(self) -> None:
        """Its queue stops, as with the process (a closed hub gives its lead up)."""
        if self.open:
            self.open = False
            await self.queue.close()
            await self.tables.close()
            await self.hub.close()


class Deaf(RedisHub):
    """A hub that never hears some topics (their broadcasts are lost on the way here)."""

    deaf_to: frozenset[str] = frozenset()

    def listen(self, topic: str, listener: Listener) -> None:
        if topic not in self.deaf_to:
            super().listen(topic, listener)


@contextlib.asynccontextmanager
async def cluster(
    open_store: Callable[[], Store],
    prefix: str,
    n: int = 2,
    *,
    deaf: dict[int, set[str]] | None = None,
) -> AsyncIterator[list[Process]]:
    """``n`` processes sharing the store and the hub's prefix (closed afterwards)."""
    processes = []
    for i in range(n):
        store = open_store()
        hub_class = Deaf if deaf and i in deaf else RedisHub
        hub = hub_class.from_url(REDIS_URL, store, prefix=prefix, lease_ms=LEASE_MS)
        if isinstance(hub, Deaf):
            hub.deaf_to = frozenset((deaf or {})[i])
        tables = Tables(store, hub=hub, cpu=1)
        processes.append(Process(store, hub, tables, RankedQueue(store, tables, rounds=1), []))
    try:
        yield processes
    finally:
        for process in processes:
            await process.close()


async def until(
    done: Callable[[], bool], processes: list[Process], *, patience: float = PATIENCE
) -> None:
    """Tick every open process (as their pairing loops would) until ``done()``."""
    with anyio.fail_after(patience):
        while not done():
            for process in processes:
                await process.tick()
            await asyncio.sleep(0.02)


def ranked_tables(store: Store, account: int) -> list[str]:
    return [
        t
        for t in store.open_tables_of_device(rated.identity(account))
        if (data := store.table(t)) is not None and data.kind == "ranked"
    ]


def test_a_player_on_each_process_makes_one_table_and_both_are_told(
    open_store: Callable[[], Store], prefix: str
) -> None:
    async def scenario() -> tuple[list[Process], list[Client], list[int]]:
        async with cluster(open_store, prefix) as processes:
            a, b = processes
            ids = accounts(a.store, "ann", "bob")
            clients = [Client(ids[0]), Client(ids[1])]
            await a.queue.queue(clients[0], "singles")
            await b.queue.queue(clients[1], "singles")
            await until(lambda: all(c.got("matched") for c in clients), processes)
            for _ in range(5):  # more ticks make no second table
                await a.tick()
                await b.tick()
                await asyncio.sleep(0.02)
        return processes, clients, ids

    processes, clients, ids = anyio.run(scenario)
    made = [t for p in processes for t in p.made]
    assert len(made) == 1
    assert sum(1 for p in processes if p.made) == 1  # one leader paired
    (table,) = made
    ann, bob = (c.got("matched") for c in clients)
    assert len(ann) == len(bob) == 1
    assert ann[0]["table"] == bob[0]["table"] == table.id
    assert {ann[0]["seat"], bob[0]["seat"]} == {"south", "north"}
    assert ann[0]["players"] == bob[0]["players"]
    assert [p["username"] for p in ann[0]["players"]] == ["ann", "bob"]  # ann waited longest
    store = processes[0].store
    assert store.queue_entries() == []
    assert [ranked_tables(store, i) for i in ids] == [[table.id], [table.id]]
    assert all(p.queue.waiting() == {} for p in processes)


def test_the_lead_passes_to_another_process_when_the_leader_stops(
    open_store: Callable[[], Store], prefix: str
) -> None:
    async def scenario() -> tuple[list[Table], list[Client], bytes | None, bytes | None]:
        async with cluster(open_store, prefix) as processes:
            a, b = processes
            await a.tick()  # a leads
            async with Redis.from_url(REDIS_URL) as client:
                led = await client.get(f"{prefix}lead:ranked")
                await a.close()  # a closed hub gives its lead up: b leads at its next tick
                after = await client.get(f"{prefix}lead:ranked")
            ids = accounts(b.store, "cat", "dan")
            clients = [Client(ids[0]), Client(ids[1])]
            for client in clients:
                await b.queue.queue(client, "singles")
            await until(lambda: all(c.got("matched") for c in clients), processes)
            return b.made, clients, led, after

    made, clients, led, after = anyio.run(scenario)
    (table,) = made
    assert {c.got("matched")[0]["table"] for c in clients} == {table.id}
    assert led is not None and after is None


def test_the_leader_pairs_only_players_with_a_connection_somewhere(
    open_store: Callable[[], Store], prefix: str
) -> None:
    """Away on one process: not paired; back on another process: the wait goes on, paired."""

    async def scenario() -> tuple[list[Client], Client, float, list[Process]]:
        async with cluster(open_store, prefix) as processes:
            a, b = processes
            ann_id, bob_id = accounts(a.store, "ann", "bob")
            ann, bob = Client(ann_id), Client(bob_id)
            await a.queue.queue(ann, "singles")
            await b.queue.queue(bob, "singles")
            since = bob.got("queued")[0]["since"]
            b.queue.disconnected(bob)  # bob's tab closes before any pairing
            ends = time.monotonic() + 3 * ranked.PAIR_EVERY_S
            await until(lambda: time.monotonic() > ends, processes)
            assert not ann.got("matched") and a.store.queue_entries() != []
            back = Client(bob_id)
            await a.queue.queue(back, "singles")  # bob is back, on the other process
            await until(lambda: bool(ann.got("matched") and back.got("matched")), processes)
            return [ann, back], bob, since, processes

    (ann, back), gone, since, processes = anyio.run(scenario)
    assert back.got("queued")[0]["since"] == since  # the wait went on
    assert ann.got("matched")[0]["table"] == back.got("matched")[0]["table"]
    assert gone.got("matched") == []
    assert len([t for p in processes for t in p.made]) == 1


def test_a_team_across_processes_is_matched_together(
    open_store: Callable[[], Store], prefix: str
) -> None:
    async def scenario() -> dict[str, Client]:
        async with cluster(open_store, prefix) as processes:
            a, b = processes
            ids = dict(
                zip(
                    ["ann", "bob", "cat", "dan"],
                    accounts(a.store, "ann", "bob", "cat", "dan"),
                    strict=True,
                )
            )
            clients = {name: Client(i) for name, i in ids.items()}
            await a.queue.queue(clients["ann"], "doubles", "bob")
            assert clients["ann"].got("queued")[-1]["partner_ready"] is False
            await a.queue.queue(clients["cat"], "doubles")
            await b.queue.queue(clients["dan"], "doubles")
            await b.queue.queue(clients["bob"], "doubles", "ann")
            await until(
                lambda: (
                    any(m["partner_ready"] for m in clients["ann"].got("queued"))
                    or bool(clients["ann"].got("matched"))
                ),
                processes,
            )
            await until(lambda: all(c.got("matched") for c in clients.values()), processes)
            return clients

    clients = anyio.run(scenario)
    matched = {name: c.got("matched")[0] for name, c in clients.items()}
    assert len({m["table"] for m in matched.values()}) == 1
    seats = {name: m["seat"] for name, m in matched.items()}
    assert {seats["ann"], seats["bob"]} in ({"south", "north"}, {"east", "west"})
    # ann's page heard at once (before the match) that bob named her.
    assert any(m["partner_ready"] for m in clients["ann"].got("queued"))


def test_a_second_tab_on_another_process_joins_the_wait_and_leaving_tells_both(
    open_store: Callable[[], Store], prefix: str
) -> None:
    async def scenario() -> tuple[Client, Client, Store, list[str]]:
        async with cluster(open_store, prefix) as processes:
            a, b = processes
            (eve_id,) = accounts(a.store, "eve")
            here, there = Client(eve_id), Client(eve_id)
            await a.queue.queue(here, "doubles")
            codes = []
            try:
                await b.queue.queue(Client(eve_id), "singles")
            except WireError as exc:
                codes.append(exc.code)
            await b.queue.queue(there, "doubles")
            await b.queue.leave(there)
            await until(lambda: bool(here.got("queue_left")), processes)
            return here, there, a.store, codes

    here, there, store, codes = anyio.run(scenario)
    assert codes == ["already_queued"]  # the other ladder
    assert here.got("queued")[0]["since"] == there.got("queued")[0]["since"]
    assert (
        here.got("queue_left")
        == there.got("queue_left")
        == [{"type": "queue_left", "table": None, "event": 0, "reason": "left"}]
    )
    assert store.queue_entries() == []


def test_a_lost_match_broadcast_is_caught_up_from_the_store(
    open_store: Callable[[], Store], prefix: str
) -> None:
    async def scenario() -> tuple[Client, Client, list[Table]]:
        async with cluster(open_store, prefix, deaf={1: {ranked.MATCHED}}) as processes:
            a, b = processes
            await a.tick()  # a leads; b never hears of its matches
            fay_id, gus_id = accounts(a.store, "fay", "gus")
            fay, gus = Client(fay_id), Client(gus_id)
            await a.queue.queue(fay, "singles")
            await b.queue.queue(gus, "singles")
            await until(lambda: bool(fay.got("matched") and gus.got("matched")), processes)
            return fay, gus, a.made + b.made

    fay, gus, made = anyio.run(scenario)
    (table,) = made
    (to_fay,), (to_gus,) = fay.got("matched"), gus.got("matched")
    assert to_fay["table"] == to_gus["table"] == table.id
    assert {to_fay["seat"], to_gus["seat"]} == {"south", "north"}
    assert to_gus["players"] == to_fay["players"] and to_gus["ladder"] == "singles"


def test_a_lost_leave_broadcast_is_caught_up_from_the_store(
    open_store: Callable[[], Store], prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(ranked, "MISSING_FOR_S", 0.3)

    async def scenario() -> tuple[Client, Client]:
        async with cluster(open_store, prefix, deaf={1: {ranked.LEFT}}) as processes:
            a, b = processes
            (hal_id,) = accounts(a.store, "hal")
            here, there = Client(hal_id), Client(hal_id)
            await a.queue.queue(here, "singles")
            await b.queue.queue(there, "singles")
            await a.queue.leave(here)
            await until(lambda: bool(there.got("queue_left")), processes)
            return here, there

    here, there = anyio.run(scenario)
    assert [m["reason"] for m in here.got("queue_left")] == ["left"]
    assert [m["reason"] for m in there.got("queue_left")] == ["left"]
    assert there.got("matched") == []


def test_two_leaders_at_once_make_one_table(open_store: Callable[[], Store]) -> None:
    """Two processes that both think they lead (each on a memory hub of its own: no word
    passes between them) pair the same entries at the same moment: one table is made, and
    the other process's players learn of it from the store."""

    async def scenario() -> tuple[list[Table], list[Client]]:
        stores = [open_store(), open_store()]
        tables = [Tables(store, cpu=1) for store in stores]
        queues = [RankedQueue(s, t, rounds=1) for s, t in zip(stores, tables, strict=True)]
        ids = accounts(stores[0], "kim", "lee")
        clients = [Client(i) for _ in queues for i in ids]  # a tab of each on each
        for n, client in enumerate(clients):
            await queues[n // 2].queue(client, "singles")
        made: list[Table] = []
        with anyio.fail_after(PATIENCE):
            while not all(c.got("matched") for c in clients):
                # (Each may take one entry of the other's match: both put theirs back.)
                for tick in await asyncio.gather(*(q.pair_now() for q in queues)):
                    made += tick
        for queue, table in zip(queues, tables, strict=True):
            await queue.close()
            await table.close()
        return made, clients

    made, clients = anyio.run(scenario)
    (table,) = made
    assert [[m["table"] for m in c.got("matched")] for c in clients] == [[table.id]] * 4


# ---------------------------------------------------------------- outages (no Redis)


class FlakyHub(MemoryHub):
    """A memory hub that can be down: its network calls then raise HubUnavailableError."""

    down = False

    async def broadcast(self, topic: str, payload: dict[str, Any]) -> None:
        if self.down:
            raise HubUnavailableError("the hub is down (test)")
        await super().broadcast(topic, payload)

    async def lead(self, name: str) -> bool:
        if self.down:
            raise HubUnavailableError("the hub is down (test)")
        return await super().lead(name)


def test_the_pairing_loop_goes_on_through_hub_and_store_outages(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(ranked, "PAIR_EVERY_S", 0.02)
    store = Store.open(str(tmp_path / "ranked.db"))
    ivy_id, jon_id = accounts(store, "ivy", "jon")
    entries = store.queue_entries
    store_down = True

    def queue_entries() -> Any:
        if store_down:
            raise StoreUnavailableError("the database is down (test)")
        return entries()

    async def scenario() -> tuple[Client, Client]:
        nonlocal store_down
        hub = FlakyHub()
        tables = Tables(store, hub=hub, cpu=1)
        queue = RankedQueue(store, tables, rounds=1)
        ivy, jon = Client(ivy_id), Client(jon_id)
        await queue.queue(ivy, "singles")
        await queue.queue(jon, "singles")
        hub.down = True
        assert await queue.pair_now() == []  # the hub is down: no lead, nothing paired
        monkeypatch.setattr(store, "queue_entries", queue_entries)
        await queue.startup()
        try:
            await asyncio.sleep(0.2)  # ticks through both outages
            assert not ivy.got("matched")
            hub.down = False
            await asyncio.sleep(0.2)
            assert not ivy.got("matched")  # the store is still down
            store_down = False
            with anyio.fail_after(PATIENCE):
                while not (ivy.got("matched") and jon.got("matched")):
                    await asyncio.sleep(0.02)
        finally:
            await queue.close()
            await tables.close()
        return ivy, jon

    try:
        ivy, jon = anyio.run(scenario)
    finally:
        store.close()
    assert ivy.got("matched")[0]["table"] == jon.got("matched")[0]["table"]
    outages = [r.getMessage() for r in caplog.records if "ranked queue" in r.getMessage()]
    assert outages[-1] == "the ranked queue works again"
    assert len(outages) == 2  # logged once (not at every tick), and once back
    assert not any(r.exc_info for r in caplog.records)  # no traceback: an outage is expected
