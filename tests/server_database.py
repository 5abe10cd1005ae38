"""The database of a test's server: its SQLite file, or a PostgreSQL schema of its own.

With ``$CROKINOLE_TEST_DATABASE_URL`` set (``make test-postgres`` sets
``postgresql+psycopg://postgres@127.0.0.1:5432/test``), every server the
tests start (:func:`tests.server.helpers.serving`,
:func:`tests.server_process.running_server`) keeps its data in a fresh
PostgreSQL schema instead of the SQLite file it was given.  The schema
belongs to the file's path: a server started again on the same path (a
restart, a second process) finds the same data.  The schemas are dropped
when the test session ends (``tests/conftest.py``).

Without the variable, the path is used as it is: SQLite, as before.
"""

from __future__ import annotations

import os
import threading
import uuid
import warnings
from pathlib import Path

#: The PostgreSQL that the server tests run on, or None: SQLite files.
TEST_DATABASE_URL = os.environ.get("CROKINOLE_TEST_DATABASE_URL", "").strip() or None

_schemas: dict[Path, str] = {}
_lock = threading.Lock()


def on_postgres() -> bool:
    """Whether the servers of this test run keep their data in PostgreSQL."""
    return TEST_DATABASE_URL is not None


def server_database(db: Path | str) -> str:
    """The database a server given ``db`` opens: ``db`` itself, or the URL of its schema.

    A URL (``...://``) is returned as given.
    """
    if TEST_DATABASE_URL is None or "://" in str(db):
        return str(db)
    import sqlalchemy as sa  # noqa: PLC0415 - only for the PostgreSQL runs
    from sqlalchemy.engine import make_url  # noqa: PLC0415

    key = Path(db).expanduser().resolve()
    with _lock:
        schema = _schemas.get(key)
        if schema is None:
            schema = f"test_server_{uuid.uuid4().hex}"
            engine = sa.create_engine(TEST_DATABASE_URL)
            try:
                with engine.begin() as connection:
                    connection.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
            finally:
                engine.dispose()
            _schemas[key] = schema
    url = make_url(TEST_DATABASE_URL).update_query_dict(
        {"options": f"-csearch_path={schema}", "application_name": schema}
    )
    return url.render_as_string(hide_password=False)


def drop_schemas() -> None:
    """Drop every schema :func:`server_database` made (their servers have stopped)."""
    if TEST_DATABASE_URL is None or not _schemas:
        return
    import sqlalchemy as sa  # noqa: PLC0415

    with _lock:
        schemas = list(_schemas.values())
        _schemas.clear()
    engine = sa.create_engine(TEST_DATABASE_URL)
    left: list[str] = []
    try:
        for schema in schemas:
            try:
                with engine.begin() as connection:
                    # A server that was not stopped would hold its tables: give up on
                    # that schema rather than wait for it.
                    connection.execute(sa.text("SET LOCAL lock_timeout = '5s'"))
                    connection.execute(sa.text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
            except sa.exc.OperationalError:
                left.append(schema)
    finally:
        engine.dispose()
    if left:
        warnings.warn(f"schemas still in use, not dropped: {', '.join(left)}", stacklevel=1)
