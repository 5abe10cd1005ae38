"""Leases on the real Redis: all of a process's renewed at once, and the tables of gone processes.

Two hubs in one test stand for two processes (see test_redis_hub.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from redis.asyncio import Redis

from crokinole import metrics
from crokinole.store import Store
from tests.server.cluster.test_redis_hub import SHORT_LEASE_MS, hub_on, run
from tests.server.conftest import REDIS_URL


def test_one_renewal_renews_every_lease_and_reports_exactly_the_lost_ones(
    open_store: Callable[[], Store], prefix: str
) -> None:
    async def scenario() -> tuple[list[str], list[int], int, int]:
        lost: list[str] = []
        a = hub_on(open_store(), prefix, lease_ms=60_000, on_lost=lost.append)
        try:
            tables = [f"t{n}" for n in range(40)]
            for table_id in tables:
                assert await a.claim(table_id, "owner-a")
            async with Redis.from_url(REDIS_URL) as client:
                await client.set(a.lease_key("t3"), "owner-b", px=60_000)  # taken
                await client.delete(a.lease_key("t17"))  # expired
                for table_id in tables:
                    await client.pexpire(a.lease_key(table_id), 5_000)
                await client.delete(f"{prefix}alive:{a.origin}")
                counted = metrics.counts().get(metrics.LEASES_LOST, 0)
                await a.renew()
                ttls = [await client.pttl(a.lease_key(t)) for t in tables]
                alive = await client.pttl(f"{prefix}alive:{a.origin}")
            held = [t for t in tables if a.holds(t) is not None]
            assert held == [t for t in tables if t not in ("t3", "t17")]
            return lost, ttls, alive, metrics.counts().get(metrics.LEASES_LOST, 0) - counted
        finally:
            await a.close()

    lost, ttls, alive, counted = run(scenario)
    assert sorted(lost) == ["t17", "t3"]
    assert counted == 2
    renewed = [ttl for n, ttl in enumerate(ttls) if n not in (3, 17)]
    assert all(ttl > 5_000 for ttl in renewed)  # renewed to a whole lease again
    assert ttls[3] > 0 and ttls[17] == -2  # the thief's lease is left alone
    assert 0 < alive <= 60_000  # the heartbeat came with the renewal


def test_the_tables_of_a_process_whose_heartbeat_is_gone_are_orphans_until_forgotten(
    open_store: Callable[[], Store], prefix: str
) -> None:
    async def scenario() -> tuple[str, list[dict[str, list[str]]]]:
        a = hub_on(open_store(), prefix, lease_ms=SHORT_LEASE_MS)
        b = hub_on(open_store(), prefix, lease_ms=SHORT_LEASE_MS)
        seen = []
        try:
            assert await a.claim("t1", "owner-a")
            assert await a.claim("t2", "owner-a")
            assert await b.claim("t3", "owner-b")
            await a.release("t2", "owner-a")  # given up alive: no longer a's
            seen.append(await b.orphans())  # a lives: nothing
            assert a._renewer is not None
            a._renewer.cancel()  # a dies: its heartbeat and leases expire
            await asyncio.sleep(2 * SHORT_LEASE_MS / 1000)
            seen.append(await b.orphans())
            seen.append(await a.orphans())  # (a process never sees itself gone)
            await b.forget(a.origin, ["t1"])  # taken up by b
            seen.append(await b.orphans())
            async with Redis.from_url(REDIS_URL) as client:
                holders = {m.decode() for m in await client.smembers(f"{prefix}holders")}
            assert a.origin not in holders and b.origin in holders
            return a.origin, seen
        finally:
            await a.close()
            await b.close()

    origin_a, seen = run(scenario)
    assert seen[0] == {}
    assert seen[1] == {origin_a: ["t1"]}
    assert seen[2] == {}
    assert seen[3] == {}  # a, with nothing left, is dropped from the holders


def test_a_hub_that_closes_leaves_its_tables_to_the_others_at_once(
    open_store: Callable[[], Store], prefix: str
) -> None:
    async def scenario() -> tuple[str, dict[str, list[str]], bool]:
        a = hub_on(open_store(), prefix, lease_ms=60_000)
        b = hub_on(open_store(), prefix, lease_ms=60_000)
        try:
            assert await a.claim("t1", "owner-a")
            await a.close()  # leases released, heartbeat deleted: no lease to wait for
            return a.origin, await b.orphans(), await b.claim("t1", "owner-b")
        finally:
            await b.close()

    origin, orphans, taken = run(scenario)
    assert orphans == {origin: ["t1"]}
    assert taken
