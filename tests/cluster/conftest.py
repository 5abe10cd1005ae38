"""Fixtures of the cluster tests: the services they need, and a cluster closed after each test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.cluster import Cluster, cluster, require_services


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[Cluster]:
    """A cluster on the test PostgreSQL and Redis, with no processes yet (``servers.start(n)``)."""
    require_services()
    with cluster(tmp_path) as made:
        yield made
