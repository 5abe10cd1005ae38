"""The server processes of a run: starting and stopping them, their memory and CPU.

:func:`running_cluster` starts ``crokinole serve`` processes on free loopback
ports (one on a new SQLite file, or several on PostgreSQL and Redis) and
stops them afterwards; :class:`CpuSample` reads the CPU time of the servers,
the bots, PostgreSQL, Redis and the whole machine from ``/proc``;
:class:`CounterReader` reads the servers' ``/metrics`` and PostgreSQL's and
Redis's statistics; :func:`backend_problem`, :func:`fresh_database` (or
:func:`fresh_schema`) and :func:`delete_redis_keys` prepare and clean up a
cluster's PostgreSQL database and Redis keys.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

#: Seconds to wait for PostgreSQL or Redis to answer the first check.
BACKEND_TIMEOUT = 3
#: Seconds the server has to answer /healthz, and ``crokinole db upgrade`` to finish.
START_TIMEOUT = 120.0


def free_port() -> int:
    """A TCP port of the loopback interface that is free now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def rss_kib(pid: int) -> int:
    """The resident memory of process ``pid`` in KiB (``VmRSS`` of ``/proc/PID/status``)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"process {pid} reports no VmRSS")


def _stat_fields(text: str) -> tuple[str, list[str]]:
    # /proc/PID/stat: the command is in parentheses and may hold spaces; the
    # fields after it are counted from the state (field 3).
    head, _, rest = text.rpartition(")")
    return head.split("(", 1)[-1], rest.split()


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system, every thread) process ``pid`` has used, in seconds."""
    # utime and stime are fields 14 and 15, counted from after the command.
    _, fields = _stat_fields(Path(f"/proc/{pid}/stat").read_text())
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def named_cpu_seconds(names: frozenset[str]) -> float:
    """CPU seconds of every process of the machine named one of ``names`` (its ``comm``).

    Each process counts with its children that ended (``cutime``, ``cstime``),
    so a PostgreSQL backend that closed during the window still counts in the
    postmaster that reaped it.  Processes that cannot be read are left out.
    """
    ticks = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            name, fields = _stat_fields((entry / "stat").read_text())
        except OSError:  # ended meanwhile, or not ours to read
            continue
        if name in names:
            ticks += sum(int(value) for value in fields[11:15])
    return ticks / os.sysconf("SC_CLK_TCK")


def backends_cpu_seconds(database: str) -> float:
    """CPU seconds of the PostgreSQL backends now connected to ``database``.

    A backend's title (its command line) names its database: ``postgres:
    USER DATABASE HOST(PORT) STATE``.  Backends that ended are not counted:
    this is a run's own share of PostgreSQL while it opens no connection.
    """
    ticks = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            name, fields = _stat_fields((entry / "stat").read_text())
            if name not in POSTGRES_NAMES:
                continue
            title = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:  # ended meanwhile, or not ours to read
            continue
        if f" {database} " in title:
            ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def machine_busy_seconds() -> float:
    """CPU seconds the whole machine spent busy (every core, not idle or waiting on I/O)."""
    # /proc/stat's first line: cpu user nice system idle iowait irq softirq steal ...
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = fields
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


POSTGRES_NAMES = frozenset({"postgres", "postmaster"})
REDIS_NAMES = frozenset({"redis-server"})


@dataclass(frozen=True, slots=True)
class CpuSample:
    """CPU seconds used so far: by each server, the bots, PostgreSQL, Redis, the machine.

    ``backends``: PostgreSQL's backends of the run's own database (None: not asked).
    """

    at: float
    servers: tuple[float, ...]
    bots: float
    postgres: float
    redis: float
    machine: float
    backends: float | None = None

    @classmethod
    def now(cls, pids: Sequence[int], database: str | None = None) -> CpuSample:
        """Read the counters of the server processes ``pids`` and of the rest (and of the
        backends of the PostgreSQL ``database``, if given)."""
        return cls(
            at=time.perf_counter(),
            servers=tuple(cpu_seconds(pid) for pid in pids),
            bots=time.process_time(),
            postgres=named_cpu_seconds(POSTGRES_NAMES),
            redis=named_cpu_seconds(REDIS_NAMES),
            machine=machine_busy_seconds(),
            backends=None if database is None else backends_cpu_seconds(database),
        )


@dataclass(frozen=True, slots=True)
class ServerOptions:
    """How to start the servers: ``crokinole serve`` options the benchmark sets.

    ``processes`` above one (or ``redis``) start a cluster: every process on
    the database ``db`` (a PostgreSQL URL) and on ``redis`` under ``redis_prefix``.
    """

    games: int
    standin_grace: float
    db: str | None
    log: Path | None = None
    compress: bool = False
    processes: int = 1
    redis: str | None = None
    redis_prefix: str | None = None


@dataclass(frozen=True, slots=True)
class Server:
    """A running server: its address, its process and its stand-in grace."""

    base: str
    proc: subprocess.Popen[bytes]
    standin_grace: float


def _serve_command(options: ServerOptions, port: int, db: str) -> list[str]:
    # Two sockets per party plus the warm-up's; every new game of a bot counts
    # against the per-device limit, so neither limit may refuse a bot.
    connections = 2 * options.games + 16
    cluster = ["--redis", options.redis] if options.redis else []
    if cluster and options.redis_prefix:
        cluster += ["--redis-prefix", options.redis_prefix]
    return [
        sys.executable, "-m", "crokinole", "serve",
        "--host", "127.0.0.1", "--port", str(port), "--db", db, "--log-level", "warning",
        "--connections-per-address", str(connections), "--rooms-per-minute", "1000",
        "--standin-grace", str(options.standin_grace),
        # GET /metrics: the servers' own counts of what each window cost.
        "--metrics",
        *(["--compress"] if options.compress else []),
        *cluster,
    ]  # fmt: skip


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def migrate(db: str, folder: Path) -> None:
    """Bring the database to the newest schema once (``crokinole db upgrade``) before a cluster.

    The servers of a cluster start at the same time: left to migrate on their
    own they would race for the same empty schema.
    """
    log_path = folder / "upgrade.log"
    with log_path.open("wb") as log:
        done = subprocess.run(
            [sys.executable, "-m", "crokinole", "db", "upgrade", "--db", db],
            stdout=log,
            stderr=subprocess.STDOUT,
            check=False,
            timeout=START_TIMEOUT,
        )
    if done.returncode != 0:
        raise RuntimeError(f"crokinole db upgrade failed:\n{_log_tail(log_path)}")


@contextlib.contextmanager
def running_cluster(options: ServerOptions) -> Iterator[tuple[Server, ...]]:
    """Run ``options.processes`` ``crokinole serve`` processes on free loopback ports.

    With one process and no ``options.db``, the server gets a new SQLite file
    in a temporary folder.  Each server's output goes to a log file whose end
    is shown if it fails to start; they are copied to ``options.log`` at the
    end when that is set (``FILE-pK`` for process K of several).
    """
    folder = Path(tempfile.mkdtemp(prefix="crokinole-bench-server-"))
    db = options.db or str(folder / "bench.db")
    procs: list[subprocess.Popen[bytes]] = []
    logs: list[Path] = []
    try:
        if options.processes > 1 or options.redis:
            migrate(db, folder)
        ports = [free_port() for _ in range(options.processes)]
        for number, port in enumerate(ports, 1):
            log_path = folder / f"server-{number}.log"
            logs.append(log_path)
            with log_path.open("wb") as log:
                procs.append(
                    subprocess.Popen(
                        _serve_command(options, port, db),
                        stdout=log,
                        stderr=subprocess.STDOUT,
                        env={**os.environ, "PYTHONUNBUFFERED": "1"},
                    )
                )
        for port, proc, log_path in zip(ports, procs, logs, strict=True):
            _wait_healthy(f"http://127.0.0.1:{port}", proc, log_path)
        yield tuple(
            Server(f"ws://127.0.0.1:{port}", proc, options.standin_grace)
            for port, proc in zip(ports, procs, strict=True)
        )
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            _stop(proc)
        if options.log is not None:
            for number, log_path in enumerate(logs, 1):
                kept = options.log
                if len(logs) > 1:
                    kept = kept.with_name(f"{kept.stem}-p{number}{kept.suffix}")
                shutil.copyfile(log_path, kept)
        shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def running_server(options: ServerOptions) -> Iterator[Server]:
    """Run one ``crokinole serve`` on a free loopback port until the block ends."""
    with running_cluster(options) as servers:
        yield servers[0]


def _log_tail(path: Path, lines: int = 30) -> str:
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])


def _wait_healthy(url: str, proc: subprocess.Popen[bytes], log_path: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            if proc.poll() is not None:
                raise RuntimeError(f"the server did not start:\n{_log_tail(log_path)}") from None
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"the server did not answer /healthz within {START_TIMEOUT:.0f} s"
                ) from None
            time.sleep(0.2)


# ------------------------------------------------------- counters

#: Seconds one read of a counter (a server's /metrics, PostgreSQL's, Redis's) may take.
COUNTER_TIMEOUT = 10.0


def http_base(base: str) -> str:
    """The HTTP address of a server whose websocket base is ``base``.

    >>> http_base("ws://127.0.0.1:8123")
    'http://127.0.0.1:8123'
    """
    return "http" + base.removeprefix("ws") if base.startswith("ws") else base


def parse_exposition(text: str) -> dict[str, float]:
    """The samples of a Prometheus text exposition (``GET /metrics``), by name.

    >>> parse_exposition("# TYPE a_total counter\\na_total 3\\nb{x=\\"1\\"} 2.5\\n")
    {'a_total': 3.0, 'b{x="1"}': 2.5}
    """
    samples = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            samples[name] = float(value)
    return samples


def server_counters(base: str) -> dict[str, float]:
    """A server's counters now: its ``GET /metrics`` (``crokinole serve --metrics``)."""
    url = f"{http_base(base)}/metrics"
    try:
        with urllib.request.urlopen(url, timeout=COUNTER_TIMEOUT) as answer:
            return parse_exposition(answer.read().decode())
    except OSError as error:
        raise RuntimeError(f"could not read the server's counters at {url}: {error}") from None


@dataclass(frozen=True, slots=True)
class CounterSample:
    """The counters of a run at one instant: each server's, PostgreSQL's and Redis's.

    ``pg_commits`` and ``pg_sessions`` are ``pg_stat_database``'s
    ``xact_commit`` and ``sessions`` of the run's database (None without
    PostgreSQL); ``pg_wal_bytes`` is ``pg_stat_wal``'s ``wal_bytes`` (the
    whole server's write-ahead log, every database's); ``redis_commands`` is
    Redis's ``total_commands_processed`` (None without Redis).
    """

    servers: tuple[dict[str, float], ...]
    pg_commits: int | None = None
    pg_sessions: int | None = None
    pg_wal_bytes: int | None = None
    redis_commands: int | None = None


class CounterReader:
    """Reads a run's counters: the servers' ``/metrics``, PostgreSQL's statistics, Redis's INFO.

    It keeps one connection to each of PostgreSQL and Redis, opened by the
    first read: read once well before a window (PostgreSQL reports a new
    session a second or so late), its reads add no new session.  Each
    PostgreSQL read is rolled back as its connection goes back to the pool
    (never a commit); each Redis read is one command
    (:data:`REDIS_OWN_COMMANDS`), to be taken off the difference of two reads.
    """

    #: Commands of one Redis read, counted in the next read's total.
    REDIS_OWN_COMMANDS = 1

    def __init__(self, bases: Sequence[str], pg: str | None, redis_url: str | None) -> None:
        import redis  # noqa: PLC0415 - only the runs on PostgreSQL and Redis need the clients
        import sqlalchemy as sa  # noqa: PLC0415

        self.bases = tuple(bases)
        #: The run's PostgreSQL database (None: not on PostgreSQL).
        self.database = None if pg is None else sa.engine.make_url(pg).database
        timeout_ms = int(COUNTER_TIMEOUT * 1000)
        self._pg = (
            None
            if pg is None
            else sa.create_engine(
                pg,
                pool_size=1,
                max_overflow=0,
                connect_args={
                    "connect_timeout": BACKEND_TIMEOUT,
                    "options": f"-c statement_timeout={timeout_ms}",
                },
            )
        )
        self._redis = (
            None
            if redis_url is None
            else redis.Redis.from_url(
                redis_url, socket_connect_timeout=BACKEND_TIMEOUT, socket_timeout=COUNTER_TIMEOUT
            )
        )

    def read(self) -> CounterSample:
        """Every counter now (blocking: a few round trips on the loopback).

        Raises:
            RuntimeError: a server, PostgreSQL or Redis did not answer (one line).
        """
        import redis  # noqa: PLC0415
        import sqlalchemy as sa  # noqa: PLC0415

        servers = tuple(server_counters(base) for base in self.bases)
        try:
            return self._read_backends(servers)
        except sa.exc.SQLAlchemyError as error:
            reason = str(getattr(error, "orig", None) or error).strip().splitlines()[0]
            raise RuntimeError(f"could not read PostgreSQL's statistics: {reason}") from None
        except redis.RedisError as error:
            raise RuntimeError(f"could not read Redis's INFO: {error}") from None

    def _read_backends(self, servers: tuple[dict[str, float], ...]) -> CounterSample:
        import sqlalchemy as sa  # noqa: PLC0415

        commits = sessions = wal = commands = None
        if self._pg is not None:
            # A transaction of its own per read: the statistics' snapshot is fresh.
            with self._pg.connect() as connection:
                row = connection.execute(
                    sa.text(
                        "SELECT xact_commit, sessions, (SELECT wal_bytes FROM pg_stat_wal) "
                        "FROM pg_stat_database WHERE datname = current_database()"
                    )
                ).one()
                commits, sessions, wal = int(row[0]), int(row[1]), int(row[2])
        if self._redis is not None:
            commands = int(self._redis.info("stats")["total_commands_processed"])
        return CounterSample(servers, commits, sessions, wal, commands)

    def close(self) -> None:
        """Close the connections to PostgreSQL and Redis."""
        if self._pg is not None:
            self._pg.dispose()
        if self._redis is not None:
            self._redis.close()


# ------------------------------------------------------- PostgreSQL and Redis


def backend_problem(pg: str, redis_url: str) -> str | None:
    """Why the cluster cannot run on ``pg`` and ``redis_url`` (one line), or None if it can."""
    try:
        import redis  # noqa: PLC0415 - only the cluster's runs need the clients
        import sqlalchemy as sa  # noqa: PLC0415
        from sqlalchemy.engine import make_url  # noqa: PLC0415
    except ImportError as error:  # pragma: no cover - both are dependencies
        return f"a library is missing: {error.name}"
    try:
        url = make_url(pg)
    except sa.exc.ArgumentError:
        return f"--pg {pg!r} is not a database URL"
    if url.drivername != "postgresql+psycopg":
        return f"--pg must be a postgresql+psycopg:// URL, got {url.drivername}://"
    shown = url.render_as_string(hide_password=True)
    try:
        engine = sa.create_engine(url, connect_args={"connect_timeout": BACKEND_TIMEOUT})
    except ImportError:
        return "the PostgreSQL driver is missing: pip install 'psycopg[binary]'"
    try:
        with engine.connect() as connection:
            connection.execute(sa.text("SELECT 1"))
    except sa.exc.SQLAlchemyError as error:
        reason = str(getattr(error, "orig", None) or error).strip().splitlines()[0]
        return f"PostgreSQL is not reachable at {shown}: {reason}"
    finally:
        engine.dispose()
    try:
        with redis.Redis.from_url(
            redis_url, socket_connect_timeout=BACKEND_TIMEOUT, socket_timeout=BACKEND_TIMEOUT
        ) as client:
            client.ping()
    except (redis.RedisError, ValueError) as error:
        return f"Redis is not reachable at {redis_url}: {error}"
    return None


@contextlib.contextmanager
def fresh_schema(pg: str) -> Iterator[str]:
    """A new schema of the PostgreSQL database ``pg``; yields the URL whose tables live there.

    The schema is dropped at the end (its servers must have stopped).
    """
    import sqlalchemy as sa  # noqa: PLC0415
    from sqlalchemy.engine import make_url  # noqa: PLC0415

    schema = f"crokinole_bench_{secrets.token_hex(6)}"
    engine = sa.create_engine(pg)
    try:
        with engine.begin() as connection:
            connection.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
        url = make_url(pg).update_query_dict(
            {"options": f"-csearch_path={schema}", "application_name": schema}
        )
        yield url.render_as_string(hide_password=False)
    finally:
        with contextlib.suppress(sa.exc.SQLAlchemyError), engine.begin() as connection:
            connection.execute(sa.text("SET LOCAL lock_timeout = '10s'"))
            connection.execute(sa.text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        engine.dispose()


@contextlib.contextmanager
def fresh_database(pg: str) -> Iterator[str]:
    """A new database on the PostgreSQL server of ``pg``; yields its URL (dropped at the end).

    On a database of its own a run's ``pg_stat_database`` counts only its
    own commits and sessions, not those of other clients of ``pg``'s
    database.  A role that may not create databases gets a new schema of
    ``pg``'s database instead (:func:`fresh_schema`).
    """
    import sqlalchemy as sa  # noqa: PLC0415
    from sqlalchemy.engine import make_url  # noqa: PLC0415

    name = f"crokinole_bench_{secrets.token_hex(6)}"
    # CREATE and DROP DATABASE cannot run inside a transaction.
    engine = sa.create_engine(
        pg, isolation_level="AUTOCOMMIT", connect_args={"connect_timeout": BACKEND_TIMEOUT}
    )
    try:
        with engine.connect() as connection:
            connection.execute(sa.text(f'CREATE DATABASE "{name}"'))
    except (sa.exc.ProgrammingError, sa.exc.OperationalError):
        # No CREATEDB privilege (or template1 in use by another session).
        engine.dispose()
        with fresh_schema(pg) as schema_url:
            yield schema_url
        return
    try:
        url = make_url(pg).set(database=name).update_query_dict({"application_name": name})
        yield url.render_as_string(hide_password=False)
    finally:
        with contextlib.suppress(sa.exc.SQLAlchemyError), engine.connect() as connection:
            connection.execute(sa.text("SET lock_timeout = '10s'"))
            connection.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        engine.dispose()


def delete_redis_keys(redis_url: str, prefix: str) -> None:
    """Delete the keys under ``prefix`` (the run's own) once its servers have stopped."""
    import redis  # noqa: PLC0415

    with contextlib.suppress(redis.RedisError), redis.Redis.from_url(redis_url) as client:
        keys = list(client.scan_iter(match=f"{prefix}*", count=1000))
        for start in range(0, len(keys), 1000):
            client.delete(*keys[start : start + 1000])
