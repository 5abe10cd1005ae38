"""The limits counted in Redis for every process of a site (:mod:`crokinole.server.limits`).

Two :class:`SharedCounts` on one Redis prefix stand for two processes.  The
real Redis (``$CROKINOLE_TEST_REDIS_URL``, else ``redis://127.0.0.1:6379/0``)
counts; the tests are skipped when it cannot be reached.  What a limit does
when Redis is away (refused, or silent through a hung cable) is checked
too: it counts in the process, says so once, and answers within the
timeout.  The limits' own rules without Redis are the doctests of the module
and the server's tests (tests/server/ws/test_session_limits.py,
tests/server/http/test_accounts_limits.py).
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable, Coroutine, Iterator
from typing import Any, TypeVar

import pytest
import redis

from crokinole.server.limits import (
    REDIS_TIMEOUT_S,
    AddressConnections,
    RateLimiter,
    SharedCounts,
)
from tests.support.cluster import REDIS_URL, TcpProxy
from tests.support.server_process import free_port

T = TypeVar("T")

#: The window of the tests' rate limits, and the lapse of their websockets (seconds):
#: long enough for a busy machine to make its calls within, short for the test.
WINDOW_S = 2.0
TTL_S = 1.5


@pytest.fixture
def prefix() -> Iterator[str]:
    """A Redis prefix of the test's own (its keys deleted afterwards)."""
    try:
        with redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1.0) as client:
            client.ping()
    except redis.RedisError as error:
        pytest.skip(f"Redis is not reachable at {REDIS_URL} ({error})")
    made = f"crokinole-test-{uuid.uuid4().hex[:16]}:"
    yield made
    with redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1.0) as client:
        keys = list(client.scan_iter(match=f"{made}*"))
        if keys:
            client.delete(*keys)


def run(scenario: Callable[[], Coroutine[Any, Any, T]]) -> T:
    return asyncio.run(scenario())


def _processes(prefix: str) -> list[SharedCounts]:
    return [SharedCounts.from_url(REDIS_URL, prefix) for _ in range(2)]


def test_two_processes_share_one_sliding_window(prefix: str) -> None:
    async def scenario() -> list[bool]:
        one, two = _processes(prefix)
        here = RateLimiter(2, WINDOW_S, shared=one, kind="rooms")
        there = RateLimiter(2, WINDOW_S, shared=two, kind="rooms")
        first = await here.take("tok")
        verdicts = [first is not None, await there.take("tok") is not None]
        verdicts.append(await here.take("tok") is not None)  # the limit, on either
        verdicts.append(await there.take("tok") is not None)
        verdicts.append(await there.take("other") is not None)  # another key is apart
        assert first is not None
        await here.give_back(first)  # what it allowed did not happen: a place again
        verdicts.append(await there.take("tok") is not None)
        verdicts.append(await here.take("tok") is not None)
        await asyncio.sleep(WINDOW_S + 0.1)  # the window slides past both
        verdicts.append(await here.take("tok") is not None)
        for counts in (one, two):
            await counts.close()
        return verdicts

    assert run(scenario) == [True, True, False, False, True, True, False, True]


def test_two_processes_share_the_open_websockets_of_an_address(prefix: str) -> None:
    async def scenario() -> list[bool]:
        one, two = _processes(prefix)
        here, there = AddressConnections(2, one), AddressConnections(2, two)
        slot = await here.open("10.0.0.1")
        verdicts = [slot is not None, await there.open("10.0.0.1") is not None]
        verdicts.append(await there.open("10.0.0.1") is not None)  # the limit
        verdicts.append(await here.open("10.0.0.2") is not None)  # another address
        assert slot is not None
        await here.close(slot)
        verdicts.append(await there.open("10.0.0.1") is not None)
        verdicts.append(dict(there.here) == {"10.0.0.1": 2})  # what this process holds
        for counts in (one, two):
            await counts.close()
        return verdicts

    assert run(scenario) == [True, True, False, True, True, True]


def test_the_websockets_of_a_process_that_died_stop_counting_and_renewed_ones_do_not(
    prefix: str,
) -> None:
    async def scenario() -> list[bool]:
        dead, alive, other = [
            SharedCounts.from_url(REDIS_URL, prefix, connection_ttl=TTL_S) for _ in range(3)
        ]
        gone = AddressConnections(2, dead)  # never renews: its process died
        staying = AddressConnections(3, alive)
        newcomer = AddressConnections(3, other)
        assert await gone.open("10.0.0.9") and await gone.open("10.0.0.9")
        assert await staying.open("10.0.0.9")
        verdicts = [await newcomer.open("10.0.0.9") is None]  # 3 open: full
        for _ in range(8):  # past the lapse, renewing every sixth of it
            await asyncio.sleep(TTL_S / 6)
            await staying.renew()
        # The dead process's two lapsed; the renewed one still counts.
        verdicts += [await newcomer.open("10.0.0.9") is not None for _ in range(3)]
        for counts in (dead, alive, other):
            await counts.close()
        return verdicts

    assert run(scenario) == [True, True, True, False]


def test_redis_refusing_connections_the_limits_count_in_the_process_and_say_so_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    nowhere = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there

    async def scenario() -> tuple[list[bool], list[bool]]:
        counts = SharedCounts.from_url(nowhere, "crokinole-test-nowhere:")
        limiter = RateLimiter(2, 60.0, shared=counts, kind="signups")
        taken = [await limiter.take("10.0.0.3") is not None for _ in range(3)]
        connections = AddressConnections(1, counts)
        opened = [await connections.open("10.0.0.3") is not None for _ in range(2)]
        await counts.close()
        return taken, opened

    with caplog.at_level(logging.WARNING, logger="crokinole.server"):
        taken, opened = run(scenario)
    assert taken == [True, True, False]  # the limit holds, in the process
    assert opened == [True, False]
    said = [r.getMessage() for r in caplog.records if "counted in this process" in r.getMessage()]
    assert len(said) == 1, said
    assert "Redis could not be reached" in said[0]


def test_a_hung_redis_fails_a_limit_within_its_timeout_then_it_counts_in_the_process(
    prefix: str, caplog: pytest.LogCaptureFixture
) -> None:
    proxy = TcpProxy("127.0.0.1", int(REDIS_URL.rsplit(":", 1)[1].split("/")[0]))
    url = f"redis://127.0.0.1:{proxy.port}/0"

    async def scenario() -> tuple[list[bool], bool]:
        counts = SharedCounts.from_url(url, prefix)
        limiter = RateLimiter(3, 60.0, shared=counts, kind="rooms")
        assert await limiter.take("tok")  # counted in Redis
        proxy.hang()
        # Each call is bounded by the timeout (a generous bound: no take waits for ever).
        verdicts = [
            await asyncio.wait_for(limiter.take("tok"), 10 * REDIS_TIMEOUT_S) is not None
            for _ in range(4)
        ]
        proxy.restore()
        await counts.close()
        with redis.Redis.from_url(REDIS_URL) as client:
            in_redis = client.zcard(counts.key("rooms", "tok")) == 1
        return verdicts, in_redis

    try:
        with caplog.at_level(logging.WARNING, logger="crokinole.server"):
            verdicts, in_redis = run(scenario)
    finally:
        proxy.close()
    # In the process the window starts afresh (3 more, then the limit); Redis kept its one.
    assert verdicts == [True, True, True, False] and in_redis
    said = [r.getMessage() for r in caplog.records if "counted in this process" in r.getMessage()]
    assert len(said) == 1, said
