"""Fixtures of the server tests that run on Redis (two hubs stand for two processes)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis

from crokinole.store import Store

#: The Redis of these tests (a key prefix per test keeps them apart).
REDIS_URL = os.environ.get("CROKINOLE_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


def redis_unavailable() -> str | None:
    """Why these tests cannot run here, or None when they can."""
    try:
        with redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1.0) as client:
            client.ping()
    except redis.RedisError as error:
        return f"Redis is not reachable at {REDIS_URL} ({error}); start redis-server to run these"
    return None


@pytest.fixture
def prefix() -> Iterator[str]:
    """A key prefix of this test's own on the test Redis; its keys are deleted afterwards."""
    reason = redis_unavailable()
    if reason is not None:
        if os.environ.get("CI"):
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)
    name = f"test:{uuid.uuid4().hex}:"
    yield name
    with redis.Redis.from_url(REDIS_URL) as client:
        keys = list(client.scan_iter(match=f"{name}*"))
        if keys:
            client.delete(*keys)


@pytest.fixture
def redis_db(tmp_path: Path) -> Path:
    return tmp_path / "tables.db"


@pytest.fixture
def open_store(redis_db: Path) -> Iterator[Callable[[], Store]]:
    """Opens stores on the test's SQLite file (one per "process"); all closed afterwards."""
    stores: list[Store] = []

    def opened() -> Store:
        stores.append(Store.open(str(redis_db)))
        return stores[-1]

    yield opened
    for store in stores:
        store.close()
