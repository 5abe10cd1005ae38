"""Test configuration shared by every suite.

In CI (``CI`` set) hypothesis runs derandomized, so a run is repeatable and
a submission cannot fail on an example no earlier run met; locally it
explores new examples every time.

With ``CROKINOLE_TEST_DATABASE_URL`` set (``make test-postgres``) the
servers that tests start keep their data in PostgreSQL schemas
(``tests/server_database.py``), dropped when the session ends.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from hypothesis import settings

from tests.server_database import drop_schemas

settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


@pytest.fixture(scope="session", autouse=True)
def _server_schemas() -> Iterator[None]:
    """Drops the PostgreSQL schemas of the servers the tests started (``make test-postgres``)."""
    yield
    drop_schemas()
