"""Databases for the store's tests: a SQLite file, and PostgreSQL when one is reachable.

Every test that takes ``store`` (or ``database``) runs twice: on SQLite and,
marked ``postgres``, on the PostgreSQL at ``$CROKINOLE_TEST_POSTGRES_URL``
(default ``postgresql+psycopg://postgres@127.0.0.1:5432/test``), each test in
a schema of its own that is dropped afterwards, so tests may run side by side.
The PostgreSQL runs are skipped, with the reason, when the server cannot be
reached or the driver is not installed.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import make_url

from crokinole.store import Store

POSTGRES_URL = os.environ.get(
    "CROKINOLE_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)


def postgres_unavailable() -> str | None:
    """Why the PostgreSQL tests cannot run here, or None when they can."""
    url = make_url(POSTGRES_URL)
    if importlib.util.find_spec("psycopg") is None:
        return "the PostgreSQL driver psycopg is not installed (pip install -e '.[dev]')"
    host, port = url.host or "127.0.0.1", url.port or 5432
    try:
        socket.create_connection((host, port), timeout=1.0).close()
    except OSError as error:
        return f"PostgreSQL is not reachable at {host}:{port} ({error}); start it to run these"
    return None


@contextmanager
def postgres_schema() -> Iterator[str]:
    """A URL of an empty schema of its own on the test PostgreSQL, dropped afterwards.

    Its connections carry the schema's name as their ``application_name``,
    so a test can find (and drop) them without touching anyone else's.
    """
    reason = postgres_unavailable()
    if reason is not None:
        pytest.skip(reason)
    schema = f"test_{uuid.uuid4().hex}"
    admin = sa.create_engine(POSTGRES_URL)
    with admin.begin() as connection:
        connection.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    url = make_url(POSTGRES_URL).update_query_dict(
        {"options": f"-csearch_path={schema}", "application_name": schema}
    )
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        with admin.begin() as connection:
            connection.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The URL (or SQLite path) of an empty database."""
    if request.param == "sqlite":
        yield str(tmp_path / "store.db")
        return
    with postgres_schema() as url:
        yield url


@pytest.fixture
def postgres_database() -> Iterator[str]:
    """The URL of an empty PostgreSQL schema (for what only a database server does)."""
    with postgres_schema() as url:
        yield url


@pytest.fixture
def open_store(database: str) -> Iterator[Callable[[], Store]]:
    """Opens stores on the test's database (each its own engine); all closed afterwards."""
    stores: list[Store] = []

    def opened() -> Store:
        stores.append(Store.open(database))
        return stores[-1]

    yield opened
    for store in stores:
        store.close()


@pytest.fixture
def store(open_store: Callable[[], Store]) -> Store:
    return open_store()
