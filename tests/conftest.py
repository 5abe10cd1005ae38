"""Test configuration shared by every suite.

In CI (``CI`` set) hypothesis runs derandomized, so a run is repeatable and
a submission cannot fail on an example no earlier run met; locally it
explores new examples every time.

With ``CROKINOLE_TEST_DATABASE_URL`` set (``make test-postgres``) the
servers that tests start keep their data in PostgreSQL schemas
(``tests/support/server_database.py``), dropped when the session ends; with
``CROKINOLE_TEST_REDIS_URL`` too (``make test-cluster``) they run on Redis,
each path with a key prefix of its own, whose keys are deleted then too.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from hypothesis import settings

from tests.support.server_database import drop_redis_keys, drop_schemas, on_postgres, on_redis

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


def pytest_configure(config: pytest.Config) -> None:
    """A Redis run needs PostgreSQL too (``crokinole serve --redis`` refuses a SQLite file)."""
    if on_redis() and not on_postgres():
        raise pytest.UsageError(
            "CROKINOLE_TEST_REDIS_URL needs CROKINOLE_TEST_DATABASE_URL too "
            "(several processes share PostgreSQL, not a SQLite file): run make test-cluster"
        )


@pytest.fixture(scope="session", autouse=True)
def _server_schemas() -> Iterator[None]:
    """Drops the PostgreSQL schemas and Redis keys of the servers the tests started."""
    yield
    try:
        drop_schemas()
    finally:
        drop_redis_keys()
