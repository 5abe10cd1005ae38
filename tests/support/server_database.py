"""Where a test's server keeps its data: its SQLite file, or PostgreSQL (and Redis) of its own.

With ``$CROKINOLE_TEST_DATABASE_URL`` set (``make test-postgres`` and
``make test-cluster`` set ``postgresql+psycopg://postgres@127.0.0.1:5432/test``),
every server the tests start (:func:`tests.support.server.serving`,
:func:`tests.support.server_process.running_server`) keeps its data in a fresh
PostgreSQL schema instead of the SQLite file it was given.  The schema
belongs to the file's path: a server started again on the same path (a
restart, a second process) finds the same data.  The schemas are dropped
when the test session ends (``tests/conftest.py``).

With ``$CROKINOLE_TEST_REDIS_URL`` set too (``make test-cluster`` sets
``redis://127.0.0.1:6379/0``), every such server also runs on Redis, as one
process of a cluster (``crokinole serve --redis``), with a key prefix that
likewise belongs to the file's path (:func:`server_redis`) and a short lease
(:data:`TEST_LEASE_MS`), so that a server started again after a ``kill -9``
takes its games back within seconds.  The prefixes' keys are deleted when the
session ends.

Without the variables, the path is used as it is: SQLite and the in-memory
hub, as before; neither PostgreSQL nor Redis is needed.
"""

from __future__ import annotations

import os
import sys
import threading
import uuid
import warnings
from pathlib import Path

#: The PostgreSQL that the server tests run on, or None: SQLite files.
TEST_DATABASE_URL = os.environ.get("CROKINOLE_TEST_DATABASE_URL", "").strip() or None

#: The Redis that the server tests' servers share games through, or None: the in-memory hub.
TEST_REDIS_URL = os.environ.get("CROKINOLE_TEST_REDIS_URL", "").strip() or None

#: The lease of a test server on Redis (``crokinole serve`` has 10 s): a server
#: started again after a ``kill -9`` takes its games back within this.
TEST_LEASE_MS = 2_000

_schemas: dict[Path | str, str] = {}
_prefixes: dict[Path | str, str] = {}
_lock = threading.Lock()


def on_postgres() -> bool:
    """Whether the servers of this test run keep their data in PostgreSQL."""
    return TEST_DATABASE_URL is not None


def on_redis() -> bool:
    """Whether the servers of this test run share games through Redis."""
    return TEST_REDIS_URL is not None


def _key(db: Path | str) -> Path | str:
    """What the schema and the prefix of ``db`` belong to: its resolved path (a URL as given)."""
    return str(db) if "://" in str(db) else Path(db).expanduser().resolve()


def server_redis(db: Path | str) -> tuple[str, str] | None:
    """The Redis URL and key prefix of the server given ``db``, or None (the in-memory hub).

    The prefix belongs to ``db``: a server started again on the same path,
    or a second one beside it, shares the first one's games.
    """
    if TEST_REDIS_URL is None:
        return None
    key = _key(db)
    with _lock:
        prefix = _prefixes.get(key)
        if prefix is None:
            prefix = _prefixes[key] = f"crokinole-test-{uuid.uuid4().hex[:16]}:"
    return TEST_REDIS_URL, prefix


def server_options(db: Path | str) -> list[str]:
    """The ``crokinole serve`` options that put a server given ``db`` where this run wants it.

    ``--db`` (:func:`server_database`), and under ``$CROKINOLE_TEST_REDIS_URL``
    ``--redis``, ``--redis-prefix`` (:func:`server_redis`) and a short
    ``--lease-seconds``.
    """
    options = ["--db", server_database(db)]
    redis = server_redis(db)
    if redis is not None:
        url, prefix = redis
        options += ["--redis", url, "--redis-prefix", prefix,
                    "--lease-seconds", f"{TEST_LEASE_MS / 1000:g}"]  # fmt: skip
    return options


def server_database(db: Path | str) -> str:
    """The database a server given ``db`` opens: ``db`` itself, or the URL of its schema.

    A URL (``...://``) is returned as given.
    """
    if TEST_DATABASE_URL is None or "://" in str(db):
        return str(db)
    import sqlalchemy as sa  # noqa: PLC0415 - only for the PostgreSQL runs
    from sqlalchemy.engine import make_url  # noqa: PLC0415

    key = _key(db)
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


def drop_redis_keys() -> None:
    """Delete the keys under every prefix :func:`server_redis` gave (their servers have stopped)."""
    if TEST_REDIS_URL is None or not _prefixes:
        return
    import redis  # noqa: PLC0415 - only for the Redis runs

    with _lock:
        prefixes = list(_prefixes.values())
        _prefixes.clear()
    try:
        with redis.Redis.from_url(TEST_REDIS_URL, socket_connect_timeout=5.0) as client:
            for prefix in prefixes:
                # The prefixes are hex digits, '-' and ':': nothing a pattern would read.
                keys = list(client.scan_iter(match=f"{prefix}*", count=1000))
                for start in range(0, len(keys), 500):
                    client.delete(*keys[start : start + 500])
    except redis.RedisError as error:
        warnings.warn(f"could not delete the test servers' Redis keys: {error}", stacklevel=1)


def unreachable() -> str | None:
    """Why this run's PostgreSQL or Redis cannot be reached, or None (also when none is set)."""
    if TEST_DATABASE_URL is not None:
        import sqlalchemy as sa  # noqa: PLC0415

        engine = sa.create_engine(TEST_DATABASE_URL, connect_args={"connect_timeout": 3})
        try:
            with engine.connect() as connection:
                connection.execute(sa.text("SELECT 1"))
        except sa.exc.SQLAlchemyError as error:
            shown = sa.engine.make_url(TEST_DATABASE_URL).render_as_string(hide_password=True)
            return f"PostgreSQL is not reachable at {shown} ({type(error.orig or error).__name__})"
        finally:
            engine.dispose()
    if TEST_REDIS_URL is not None:
        import redis  # noqa: PLC0415

        try:
            with redis.Redis.from_url(TEST_REDIS_URL, socket_connect_timeout=3.0) as client:
                client.ping()
        except redis.RedisError as error:
            return f"Redis is not reachable at {TEST_REDIS_URL} ({error})"
    return None


if __name__ == "__main__":
    # `python -m tests.support.server_database`: exit status 0 when the run's services answer
    # (the Makefile's `test` runs the server tests on them only then, or in CI).
    reason = unreachable()
    if reason is not None:
        print(reason, file=sys.stderr)
    sys.exit(0 if reason is None else 1)
