"""The Redis hub: leases and pub/sub on the real Redis, follower copies from a real store.

Each test has a key prefix of its own (its keys are deleted afterwards), so
tests may run side by side on one Redis.  They are skipped, with the reason,
when Redis cannot be reached at ``$CROKINOLE_TEST_REDIS_URL`` (default
``redis://127.0.0.1:6379/0``), and fail instead under ``CI`` (the fixtures
``prefix`` and ``open_store`` are in ``tests/server/conftest.py``).

Two hubs in one test stand for two processes: each has its own client and
its own store on the same SQLite file.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeVar

import anyio
import numpy as np
import pytest
from redis.asyncio import Redis

from crokinole.ai import make_player
from crokinole.board import Seat, Shot
from crokinole.server.cluster.hub import Hub
from crokinole.server.cluster.redis_hub import RedisHub
from crokinole.server.owner.tables import Tables
from crokinole.store import Store
from crokinole.table import Event, Join, Shoot, ShotPlayed, Start, Table
from tests.server.conftest import REDIS_URL

T = TypeVar("T")

#: Upper bound on any wait of these tests (a safety net against a hang, not a measurement).
PATIENCE = 20.0

#: A short lease, so that expiry and renewal happen within a test.
SHORT_LEASE_MS = 300


def run(scenario: Callable[[], Awaitable[T]]) -> T:
    return anyio.run(scenario)


def hub_on(store: Store, prefix: str, **options: Any) -> RedisHub:
    """A hub with its own client (made on the running loop)."""
    return RedisHub.from_url(REDIS_URL, store, prefix=prefix, **options)


class Recorder:
    """A subscriber that keeps every event it is delivered, and the table after them."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.table: Table | None = None
        self._changed = asyncio.Event()

    def deliver(self, table: Table, events: Sequence[Event]) -> None:
        self.table = table
        self.events.extend(events)
        self._changed.set()

    async def at(self, version: int) -> Table:
        """Wait until the table is at ``version`` (or past it)."""
        with anyio.fail_after(PATIENCE):
            while self.table is None or self.table.version < version:
                self._changed.clear()
                await self._changed.wait()
        return self.table

    def versions(self) -> list[int]:
        return [e.version for e in self.events]


def easy_shot(table: Table, seed: int) -> Shot:
    assert table.game is not None
    return make_player("easy").choose_shot(table.game.copy(), np.random.default_rng(seed))


def test_a_redis_hub_is_a_hub(open_store: Callable[[], Store], prefix: str) -> None:
    async def scenario() -> None:
        hub: Hub = hub_on(open_store(), prefix)  # mypy checks the protocol
        await hub.close()  # type: ignore[attr-defined]

    run(scenario)


# ---------------------------------------------------------------- leases


def test_one_owner_per_table_across_processes(open_store: Callable[[], Store], prefix: str) -> None:
    async def scenario() -> list[bool]:
        a, b = hub_on(open_store(), prefix), hub_on(open_store(), prefix)
        try:
            return [
                await a.claim("t1", "owner-a"),
                await a.claim("t1", "owner-a"),  # claiming again what one holds: renewed
                await b.claim("t1", "owner-b"),  # another process
                await a.claim("t1", "owner-b"),  # another owner in the same process
                await b.claim("t2", "owner-b"),  # another table: free
            ]
        finally:
            await a.close()
            await b.close()

    assert run(scenario) == [True, True, False, False, True]


def test_renewal_keeps_a_lease_past_its_first_expiry(
    open_store: Callable[[], Store], prefix: str
) -> None:
    async def scenario() -> tuple[bool, int, str | None]:
        a = hub_on(open_store(), prefix, lease_ms=SHORT_LEASE_MS)
        b = hub_on(open_store(), prefix, lease_ms=SHORT_LEASE_MS)
        try:
            assert await a.claim("t1", "owner-a")
            await asyncio.sleep(3 * SHORT_LEASE_MS / 1000)  # three leases long
            taken = await b.claim("t1", "owner-b")
            async with Redis.from_url(REDIS_URL) as client:
                ttl = await client.pttl(a.lease_key("t1"))
            return taken, ttl, a.holds("t1")
        finally:
            await a.close()
            await b.close()

    taken, ttl, holder = run(scenario)
    assert not taken
    assert 0 < ttl <= SHORT_LEASE_MS
    assert holder == "owner-a"


@pytest.mark.parametrize("thief", ["owner-b", None], ids=["taken", "expired"])
def test_a_lost_lease_calls_on_lost_once_and_is_no_longer_held(
    open_store: Callable[[], Store], prefix: str, thief: str | None
) -> None:
    async def scenario() -> tuple[list[str], str | None, bool]:
        lost: list[str] = []
        noticed = asyncio.Event()

        async def on_lost(table_id: str) -> None:  # a coroutine, as Tables' give-up will be
            lost.append(table_id)
            noticed.set()

        a = hub_on(open_store(), prefix, lease_ms=SHORT_LEASE_MS, on_lost=on_lost)
        try:
            assert await a.claim("t1", "owner-a")
            assert await a.claim("t2", "owner-a")
            async with Redis.from_url(REDIS_URL) as client:
                if thief is None:  # expired while the owner was away (paused, partitioned)
                    await client.delete(a.lease_key("t1"))
                else:
                    await client.set(a.lease_key("t1"), thief, px=10_000)
            with anyio.fail_after(PATIENCE):
                await noticed.wait()
            await asyncio.sleep(SHORT_LEASE_MS / 1000)  # a few renewals more: no second call
            return lost, a.holds("t1"), await a.claim("t1", "owner-a")
        finally:
            await a.close()

    lost, holder, claimed_again = run(scenario)
    assert lost == ["t1"]
    assert holder is None
    assert claimed_again is (thief is None)


def test_release_by_a_non_owner_does_nothing(open_store: Callable[[], Store], prefix: str) -> None:
    async def scenario() -> list[bool]:
        a, b = hub_on(open_store(), prefix), hub_on(open_store(), prefix)
        try:
            await a.claim("t1", "owner-a")
            await b.release("t1", "owner-b")  # not b's to give up
            await a.release("t1", "owner-b")  # nor another owner's in a's process
            taken = await b.claim("t1", "owner-b")
            await a.release("t1", "owner-a")
            return [taken, a.holds("t1") is None, await b.claim("t1", "owner-b")]
        finally:
            await a.close()
            await b.close()

    assert run(scenario) == [False, True, True]


def test_close_releases_the_leases_held(open_store: Callable[[], Store], prefix: str) -> None:
    async def scenario() -> bool:
        a, b = hub_on(open_store(), prefix), hub_on(open_store(), prefix)
        try:
            await a.claim("t1", "owner-a")
            await a.close()
            return await b.claim("t1", "owner-b")
        finally:
            await b.close()

    assert run(scenario)


def test_close_waits_for_a_follower_copy_being_read_from_the_store(
    open_store: Callable[[], Store], prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A follower copy read in a worker thread when the hub closes is over before the close
    is: the server closes its store next, and a read still running would open a connection
    on the closed store's engine that nobody closes."""
    store = open_store()
    reading, release = threading.Event(), threading.Event()
    order: list[str] = []
    stored = store.table

    def slow_table(table_id: str) -> Any:
        reading.set()
        release.wait(PATIENCE)
        found = stored(table_id)
        order.append("read over")
        return found

    monkeypatch.setattr(store, "table", slow_table)

    async def scenario() -> None:
        hub = hub_on(store, prefix)
        hub.subscribe("t1", Recorder())  # its follower copy is read in the background
        await anyio.to_thread.run_sync(reading.wait, PATIENCE)
        closing = asyncio.ensure_future(hub.close())
        closing.add_done_callback(lambda _: order.append("hub closed"))
        await asyncio.wait({closing}, timeout=1.0)  # long enough for a close that did not wait
        release.set()
        await closing

    run(scenario)
    assert order == ["read over", "hub closed"]


# ---------------------------------------------------------------- fan-out


async def _party(tables: Tables, recorder: Recorder) -> Table:
    """Ann's party, with a subscriber in its owner's process (creation is not published)."""
    return await tables.create(
        kind="party", device="dev-ann", name="Ann", settings={}, subscriber=recorder
    )


def test_events_published_by_one_process_reach_another_with_the_publishers_table(
    open_store: Callable[[], Store], prefix: str
) -> None:
    async def scenario() -> tuple[Table, Table, Recorder, Recorder]:
        store_a = open_store()
        a, b = hub_on(store_a, prefix), hub_on(open_store(), prefix)
        tables = Tables(store_a, hub=a, cpu=1)
        try:
            local, remote = Recorder(), Recorder()
            table = await _party(tables, local)
            b.subscribe(table.id, remote)
            await b.following(table.id)
            assert b.follower(table.id) == table  # read from the store
            await tables.command(table.id, Join("dev-bob", "Bob"))
            await tables.command(table.id, Start("dev-ann"))
            for seed in range(3):
                now = tables.held(table.id)
                assert now is not None and now.game is not None
                seat = now.game.current_seat
                device = "dev-ann" if seat is Seat.SOUTH else "dev-bob"
                await tables.command(table.id, Shoot(device, seat, easy_shot(now, seed)))
            held = tables.held(table.id)
            assert held is not None
            await remote.at(held.version)
            return table, held, local, remote
        finally:
            await tables.close()
            await a.close()
            await b.close()

    created, held, local, remote = run(scenario)
    assert remote.table == held
    # The last shot's report (what a view shows of it) came with the follower copy too.
    assert isinstance(remote.events[-1], ShotPlayed)
    remote_report, held_report = remote.table.report_of(held.version), held.report_of(held.version)
    assert remote_report is not None and held_report is not None
    assert remote_report.report.board_after == held_report.report.board_after
    assert remote.versions() == list(range(created.version + 1, held.version + 1))
    # The owner's process delivers once (its own messages are ignored), the owner's table itself.
    assert local.versions() == remote.versions()
    assert local.table is held


def test_a_dropped_message_makes_the_follower_read_the_store_and_deliver_what_it_missed(
    open_store: Callable[[], Store], prefix: str, monkeypatch: pytest.MonkeyPatch, caplog: Any
) -> None:
    caplog.set_level(logging.INFO, logger="crokinole.server")

    async def scenario() -> tuple[Table, Table, Recorder, list[int]]:
        store_a = open_store()
        client = Redis.from_url(REDIS_URL)
        a = RedisHub(client, store_a, prefix=prefix, owns_client=True)
        b = hub_on(open_store(), prefix)
        tables = Tables(store_a, hub=a, cpu=1)
        dropped: list[int] = []
        publish = client.publish

        async def lossy(channel: str, message: str) -> int:
            body = json.loads(message)
            if not dropped:  # the first message is lost on its way (pub/sub may drop)
                dropped.append(body["version"])
                return 0
            return await publish(channel, message)

        monkeypatch.setattr(client, "publish", lossy)
        try:
            remote = Recorder()
            table = await _party(tables, Recorder())
            b.subscribe(table.id, remote)
            await b.following(table.id)
            await tables.command(table.id, Join("dev-bob", "Bob"))  # version n: dropped
            await tables.command(table.id, Start("dev-ann"))  # version n + k: a gap
            held = tables.held(table.id)
            assert held is not None
            await remote.at(held.version)
            return table, held, remote, dropped
        finally:
            await tables.close()
            await a.close()
            await b.close()

    created, held, remote, dropped = run(scenario)
    assert len(dropped) == 1
    assert remote.table == held
    assert remote.versions() == list(range(created.version + 1, held.version + 1))
    assert "reading it again from the store" in caplog.text


def test_a_message_that_does_not_fold_is_read_again_from_the_store_and_the_next_ones_follow(
    open_store: Callable[[], Store], prefix: str, caplog: Any
) -> None:
    caplog.set_level(logging.INFO, logger="crokinole.server")

    async def scenario() -> tuple[Table, Table, Recorder]:
        store_a = open_store()
        a, b = hub_on(store_a, prefix), hub_on(open_store(), prefix)
        tables = Tables(store_a, hub=a, cpu=1)
        try:
            remote = Recorder()
            table = await _party(tables, Recorder())
            b.subscribe(table.id, remote)
            await b.following(table.id)
            async with Redis.from_url(REDIS_URL) as client:
                bad = {"type": "no_such_event", "version": table.version + 1}
                await client.publish(a.channel(table.id), "not json")
                await client.publish(
                    a.channel(table.id),
                    json.dumps({"version": table.version + 1, "events": [bad], "origin": "x"}),
                )
            await tables.command(table.id, Join("dev-bob", "Bob"))
            held = tables.held(table.id)
            assert held is not None
            await remote.at(held.version)
            return table, held, remote
        finally:
            await tables.close()
            await a.close()
            await b.close()

    created, held, remote = run(scenario)
    assert remote.table == held
    assert remote.versions() == list(range(created.version + 1, held.version + 1))
    assert "could not be handled" in caplog.text  # "not json": logged, the reader goes on
    assert "reading it again from the store" in caplog.text


def test_unsubscribed_gets_nothing_more_and_the_follower_copy_is_dropped(
    open_store: Callable[[], Store], prefix: str
) -> None:
    async def scenario() -> tuple[Recorder, Recorder, int, Table | None]:
        store_a = open_store()
        a, b = hub_on(store_a, prefix), hub_on(open_store(), prefix)
        tables = Tables(store_a, hub=a, cpu=1)
        try:
            table = await _party(tables, Recorder())
            gone, stays = Recorder(), Recorder()
            b.subscribe(table.id, gone)
            b.subscribe(table.id, gone)  # twice: delivered once
            b.subscribe(table.id, stays)
            await b.following(table.id)
            await tables.command(table.id, Join("dev-bob", "Bob"))
            await stays.at(table.version + 1)
            b.unsubscribe(table.id, gone)
            b.unsubscribe(table.id, gone)  # again: ignored
            b.unsubscribe("never", gone)
            await tables.command(table.id, Start("dev-ann"))
            held = tables.held(table.id)
            assert held is not None
            await stays.at(held.version)
            b.unsubscribe(table.id, stays)
            return gone, stays, b.subscribers(table.id), b.follower(table.id)
        finally:
            await tables.close()
            await a.close()
            await b.close()

    gone, stays, left, follower = run(scenario)
    assert gone.table is not None and stays.table is not None
    assert gone.table.version < stays.table.version
    assert len(gone.versions()) == len(set(gone.versions()))
    assert (left, follower) == (0, None)
