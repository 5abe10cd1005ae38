"""A cluster of real ``crokinole serve`` processes on one PostgreSQL schema and one Redis prefix.

What the fault tests (``tests/cluster``) are made of:

- :class:`Cluster`: a fresh PostgreSQL schema (migrated once by ``crokinole
  db upgrade``), a Redis key prefix of its own, and N server processes on
  both (``--redis``, a short lease, short test timings).  It finds a
  table's owner by its Redis lease (``{prefix}lease:{table}`` holds the
  owner's ``host:pid:hex``), kills or pauses a process, drops the servers'
  PostgreSQL connections, and reads a table's event log straight from
  PostgreSQL.  Everything is removed at :meth:`Cluster.close`.
- :class:`RedisServer`: a ``redis-server`` of the test's own on a free port,
  to stop and start again (the shared Redis is never touched).
- :class:`Client`: a websocket client (:class:`tests.support.server.Player`)
  that keeps every message and what they tell: the table's version, the
  game, the shots acknowledged, the errors.
- :func:`play`: shoots for whoever's turn it is until the game is over (or
  a number of shots is acknowledged), retrying commands refused as
  ``unavailable`` or ``busy`` or left without an answer.

Services are found at ``$CROKINOLE_TEST_DATABASE_URL`` (what ``make
test-cluster`` sets), else ``$CROKINOLE_TEST_POSTGRES_URL``, else
``postgresql+psycopg://postgres@127.0.0.1:5432/test``; and at
``$CROKINOLE_TEST_REDIS_URL`` (default ``redis://127.0.0.1:6379/0``);
the tests are skipped when they cannot be reached, and fail under ``CI``.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import redis
import sqlalchemy as sa
from sqlalchemy.engine import make_url
from websockets.exceptions import ConnectionClosed

from tests.support.server import Player
from tests.support.server_process import free_port

POSTGRES_URL = (
    os.environ.get("CROKINOLE_TEST_DATABASE_URL", "").strip()
    or os.environ.get("CROKINOLE_TEST_POSTGRES_URL", "").strip()
    or "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)
REDIS_URL = os.environ.get("CROKINOLE_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")

#: The servers' lease (seconds): a dead owner's games are taken over within this.
LEASE_SECONDS = 2.0

#: A one-round singles party played exactly as aimed: 16 shots, then ``finished``.
QUICK_PARTY = {"layout": "singles", "rounds": 1, "hand": "steady", "tie": "draw"}

#: Error codes that mean "not now, try again": nothing changed.
TRY_AGAIN = frozenset({"unavailable", "busy"})


def services_unavailable() -> str | None:
    """Why PostgreSQL or Redis cannot be reached (or a program is missing), or None."""
    url = make_url(POSTGRES_URL)
    host, port = url.host or "127.0.0.1", url.port or 5432
    try:
        socket.create_connection((host, port), timeout=1.0).close()
    except OSError as error:
        return f"PostgreSQL is not reachable at {host}:{port} ({error})"
    try:
        with redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1.0) as client:
            client.ping()
    except redis.RedisError as error:
        return f"Redis is not reachable at {REDIS_URL} ({error})"
    return None


def require_services(*, redis_server: bool = False) -> None:
    """Skip the test (fail it under ``CI``) when the services it needs are out of reach."""
    reason = services_unavailable()
    if reason is None and redis_server and shutil.which("redis-server") is None:
        reason = "the redis-server program is not installed"
    if reason is None:
        return
    if os.environ.get("CI"):
        pytest.fail(reason, pytrace=False)
    pytest.skip(reason)


def wait_for(check: Callable[[], Any], timeout: float, what: str, step: float = 0.05) -> Any:
    """Call ``check`` until it returns something true: that value (after ``timeout``: an error)."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(step)


# ---------------------------------------------------------------- Redis of the test's own


class RedisServer:
    """A ``redis-server`` on a free port, nothing saved; stopped and started again at will."""

    def __init__(self, directory: Path) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self._directory = directory
        self._log = directory / f"redis-{self.port}.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Start it (on the same port as before) and wait until it answers."""
        assert self.proc is None or self.proc.poll() is not None
        with self._log.open("ab") as log:
            self.proc = subprocess.Popen(
                ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1",
                 "--save", "", "--appendonly", "no", "--dir", str(self._directory)],
                stdout=log,
                stderr=subprocess.STDOUT,
            )  # fmt: skip

        def answers() -> bool:
            try:
                with redis.Redis.from_url(self.url, socket_connect_timeout=0.5) as client:
                    return bool(client.ping())
            except redis.RedisError:
                return False

        wait_for(answers, 15, f"redis-server on port {self.port}")

    def stop(self) -> None:
        """Stop it (SIGTERM, as a restart does) and wait for it to exit."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


# ---------------------------------------------------------------- a cable to cut


class TcpProxy:
    """A TCP relay on a free port of this machine to ``host:port``, that a test can cut.

    :meth:`cut` closes every relayed connection and stops listening (new
    connections are refused), as a database server that went down or a
    network that failed; :meth:`hang` keeps every connection open and
    accepts new ones but relays nothing either way (what is sent is read
    and dropped), as a server that stopped answering or a network that
    swallows packets; :meth:`restore` listens (and relays) again.
    """

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.port = free_port()
        self._lock = threading.Lock()
        self._sockets: set[socket.socket] = set()
        self._listener: socket.socket | None = None
        self._accepting: threading.Thread | None = None
        self.hung = False
        self.restore()

    def restore(self) -> None:
        """Listen (again) and relay every new connection (a hung proxy relays again)."""
        if self.hung:
            self.hung = False
            return
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        self._listener = listener
        self._accepting = threading.Thread(target=self._accept, args=(listener,), daemon=True)
        self._accepting.start()

    def cut(self) -> None:
        """Drop every relayed connection and refuse new ones."""
        listener, self._listener = self._listener, None
        if listener is not None:
            with contextlib.suppress(OSError):
                listener.shutdown(socket.SHUT_RDWR)
            listener.close()
        if self._accepting is not None:
            self._accepting.join(timeout=5)
        with self._lock:
            sockets, self._sockets = self._sockets, set()
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def hang(self) -> None:
        """Relay nothing from now on, keeping every connection open and accepting new ones.

        Bytes sent either way are read (so the sender's TCP sees them
        delivered) and dropped: a peer waiting for an answer waits forever,
        unless it has a timeout of its own.
        """
        self.hung = True

    def close(self) -> None:
        self.hung = False
        self.cut()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return  # cut
            if self.hung:
                # A hung server still accepts: the client waits on a silent
                # connection (its handshake never answered).
                with self._lock:
                    self._sockets.add(client)
                threading.Thread(target=self._swallow, args=(client,), daemon=True).start()
                continue
            try:
                server = socket.create_connection(self.target, timeout=5)
            except OSError:
                client.close()
                continue
            server.settimeout(None)
            with self._lock:
                if self._listener is not listener:
                    client.close()
                    server.close()
                    return
                self._sockets |= {client, server}
            for one, other in ((client, server), (server, client)):
                threading.Thread(target=self._pipe, args=(one, other), daemon=True).start()

    def _swallow(self, client: socket.socket) -> None:
        try:
            while client.recv(65536):
                pass
        except OSError:
            pass

    def _pipe(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                if not self.hung:
                    sink.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)


# ---------------------------------------------------------------- server processes


@dataclass
class Node:
    """One ``crokinole serve`` process of the cluster."""

    name: str
    port: int
    proc: subprocess.Popen[bytes]
    log_path: Path
    #: With ``Cluster(redis_proxy=True)``: the cable between this process and Redis.
    redis_cable: TcpProxy | None = None
    #: With ``Cluster(db_proxy=True)``: the cable between this process and PostgreSQL.
    db_cable: TcpProxy | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int:
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc.poll() is None

    def output(self) -> str:
        """What the process printed so far."""
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""


class Cluster:
    """N ``crokinole serve`` processes sharing one PostgreSQL schema and one Redis prefix.

    Args:
        directory: where the processes' logs go.
        redis_url: the Redis they share (the test Redis, or a :class:`RedisServer`).
        options: more ``crokinole serve`` options for every process.
        proxy: the processes reach PostgreSQL through a :class:`TcpProxy`
            (``cluster.proxy``), to cut it for all of them.
        redis_proxy: each process reaches Redis through a :class:`TcpProxy` of its
            own (``node.redis_cable``), to cut one process off Redis.
        db_proxy: each process reaches PostgreSQL through a :class:`TcpProxy` of its
            own (``node.db_cable``), to cut or hang one process's database.
    """

    def __init__(
        self,
        directory: Path,
        *,
        redis_url: str = REDIS_URL,
        options: Iterable[str] = (),
        proxy: bool = False,
        redis_proxy: bool = False,
        db_proxy: bool = False,
    ) -> None:
        self.directory = directory
        self.redis_url = redis_url
        self.prefix = f"crokinole-test-{uuid.uuid4().hex[:16]}:"
        self.schema = f"cluster_{uuid.uuid4().hex}"
        self.options = list(options)
        self.redis_proxy = redis_proxy
        self.db_proxy = db_proxy
        self.nodes: list[Node] = []
        self._admin = sa.create_engine(POSTGRES_URL)
        with self._admin.begin() as connection:
            connection.execute(sa.text(f'CREATE SCHEMA "{self.schema}"'))
        base = make_url(POSTGRES_URL)
        #: With ``proxy``: the cable between the servers and PostgreSQL (to cut).
        self.proxy: TcpProxy | None = None
        server_base = base
        if proxy:
            self.proxy = TcpProxy(base.host or "127.0.0.1", base.port or 5432)
            server_base = base.set(host="127.0.0.1", port=self.proxy.port)
        # The servers' connections carry the schema's name as application_name
        # (what drop_connections finds); this harness's own reader does not.
        self.db_url = server_base.update_query_dict(
            {"options": f"-csearch_path={self.schema}", "application_name": self.schema}
        ).render_as_string(hide_password=False)
        self._reader = sa.create_engine(
            base.update_query_dict({"options": f"-csearch_path={self.schema}"}),
            pool_pre_ping=True,
        )
        self._run_cli("db", "upgrade", "--db", self.db_url)

    def _run_cli(self, *args: str) -> None:
        done = subprocess.run(
            [sys.executable, "-m", "crokinole", *args],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(
                f"crokinole {' '.join(args[:2])} failed:\n{done.stdout}{done.stderr}"
            )

    # -------------------------------------------------------- processes

    def start(self, count: int = 2) -> list[Node]:
        """Start ``count`` more processes (at once) and wait until each answers /healthz."""
        started = [self._spawn() for _ in range(count)]
        for node in started:
            self._wait_healthy(node)
        return started

    def _spawn(self) -> Node:
        port = free_port()
        name = f"node{len(self.nodes) + 1}"
        log_path = self.directory / f"{name}-{port}.log"
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        for variable in ("CROKINOLE_DATABASE_URL", "CROKINOLE_DB", "CROKINOLE_REDIS_URL"):
            env.pop(variable, None)
        redis_url, cable = self.redis_url, None
        if self.redis_proxy:
            target = make_url(self.redis_url.replace("redis://", "postgresql://", 1))
            cable = TcpProxy(target.host or "127.0.0.1", target.port or 6379)
            redis_url = f"redis://127.0.0.1:{cable.port}/{target.database or 0}"
        db_url, db_cable = self.db_url, None
        if self.db_proxy:
            url = make_url(self.db_url)
            db_cable = TcpProxy(url.host or "127.0.0.1", url.port or 5432)
            db_url = url.set(host="127.0.0.1", port=db_cable.port).render_as_string(False)
        with log_path.open("wb") as log:
            proc = subprocess.Popen(
                [sys.executable, "-m", "crokinole", "serve", "--port", str(port),
                 "--db", db_url, "--redis", redis_url, "--redis-prefix", self.prefix,
                 "--lease-seconds", f"{LEASE_SECONDS:g}", "--no-warm-up",
                 "--log-level", "warning", "--standin-grace", "120", "--round-countdown", "1",
                 "--turn-grace", "0.2", *self.options],
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )  # fmt: skip
        node = Node(name, port, proc, log_path, cable, db_cable)
        self.nodes.append(node)
        return node

    def _wait_healthy(self, node: Node) -> None:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{node.url}/healthz", timeout=1) as answer:
                    if answer.status == 200:
                        return
            except OSError:
                pass
            if not node.alive():
                raise RuntimeError(f"{node.name} did not start:\n{node.output()}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"{node.name} did not answer within 60 s:\n{node.output()}")
            time.sleep(0.1)

    def kill(self, node: Node) -> None:
        """``kill -9`` the process: no goodbye, its leases stay until they expire."""
        node.proc.send_signal(signal.SIGKILL)
        node.proc.wait(timeout=10)

    def pause(self, node: Node) -> None:
        """Stop the process (SIGSTOP): alive but silent, as a process stuck for a while is."""
        node.proc.send_signal(signal.SIGSTOP)

    def resume(self, node: Node) -> None:
        """Let a paused process go on (SIGCONT)."""
        node.proc.send_signal(signal.SIGCONT)

    # -------------------------------------------------------- Redis

    def _redis(self) -> redis.Redis:
        return redis.Redis.from_url(self.redis_url, socket_connect_timeout=2.0, socket_timeout=2.0)

    def lease(self, table_id: str) -> str | None:
        """The table's lease as stored in Redis (the owner's ``host:pid:hex``), or None."""
        with self._redis() as client:
            value = client.get(f"{self.prefix}lease:{table_id}")
        return None if value is None else bytes(value).decode()

    def owner(self, table_id: str, timeout: float = 10.0) -> Node:
        """The process holding the table's lease (waits for one, among the live processes)."""

        def find() -> Node | None:
            lease = self.lease(table_id)
            if lease is None:
                return None
            pid = int(lease.rsplit(":", 2)[1])
            return next((n for n in self.nodes if n.pid == pid and n.alive()), None)

        return wait_for(find, timeout, f"an owner of table {table_id}")  # type: ignore[no-any-return]

    # -------------------------------------------------------- PostgreSQL

    def drop_connections(self) -> int:
        """Drop every PostgreSQL connection of the servers (``pg_terminate_backend``); how many."""
        with self._admin.begin() as connection:
            rows = connection.execute(
                sa.text(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE application_name = :name"
                ),
                {"name": self.schema},
            ).all()
        return len(rows)

    def log(self, table_id: str) -> list[tuple[int, dict[str, Any]]]:
        """The table's event log in PostgreSQL: (version, event) in order of version."""
        with self._reader.connect() as connection:
            rows = connection.execute(
                sa.text(
                    "SELECT version, event_json FROM table_events WHERE table_id = :t "
                    "ORDER BY version"
                ),
                {"t": table_id},
            ).all()
        return [(int(version), json.loads(text)) for version, text in rows]

    def stored_version(self, table_id: str) -> int | None:
        """The table's version in its row (what the next append expects), or None."""
        with self._reader.connect() as connection:
            value = connection.execute(
                sa.text("SELECT version FROM tables WHERE id = :t"), {"t": table_id}
            ).scalar()
        return None if value is None else int(value)

    # -------------------------------------------------------- the end

    def outputs(self) -> str:
        """Every process's output, for a failure's message."""
        return "\n".join(f"--- {n.name} (pid {n.pid}):\n{n.output()[-4000:]}" for n in self.nodes)

    def close(self) -> None:
        """Stop every process, drop the schema and delete the prefix's keys."""
        for node in self.nodes:
            if node.alive():
                with contextlib.suppress(ProcessLookupError):
                    node.proc.send_signal(signal.SIGCONT)
                node.proc.terminate()
        for node in self.nodes:
            try:
                node.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                node.proc.kill()
                node.proc.wait()
        self._reader.dispose()
        if self.proxy is not None:
            self.proxy.close()
        for node in self.nodes:
            for cable in (node.redis_cable, node.db_cable):
                if cable is not None:
                    cable.close()
        try:
            with self._admin.begin() as connection:
                connection.execute(sa.text("SET LOCAL lock_timeout = '5s'"))
                connection.execute(sa.text(f'DROP SCHEMA IF EXISTS "{self.schema}" CASCADE'))
        finally:
            self._admin.dispose()
        with contextlib.suppress(redis.RedisError), self._redis() as client:
            keys = list(client.scan_iter(match=f"{self.prefix}*", count=1000))
            if keys:
                client.delete(*keys)


# ---------------------------------------------------------------- clients

#: Messages of domain events (each advances the table's version by one).
DOMAIN = frozenset(
    {"member", "seat", "settings", "presence", "game_started", "shot", "timeout", "stand_in",
     "next_pressed", "round", "finished", "rematch_vote", "reaction", "closed"}
)  # fmt: skip


class Client(Player):
    """A websocket client that keeps every message and what the table's messages say.

    Attributes:
        messages: every message received, in order.
        version: the newest version of the table this client was shown (its ``last_event``).
        game: the newest game snapshot shown, or None.
        acked: the ``shot`` messages received, by version.
        errors: the ``error`` messages received.
        finished: the ``finished`` message, once received.
        closed: the connection was closed under it (its process died).
        skips: (version shown, event received) for each event message that did not
            follow the version shown (an event number skipped or repeated; a whole
            ``table`` view sets the version without counting).
    """

    def __init__(self, url: str, token: str | None = None, table: str | None = None) -> None:
        super().__init__(url, token)
        self.table = table
        self.messages: list[dict[str, Any]] = []
        self.version = 0
        self.game: dict[str, Any] | None = None
        self.placement: dict[str, Any] = {}
        self.acked: dict[int, dict[str, Any]] = {}
        self.errors: list[dict[str, Any]] = []
        self.finished: dict[str, Any] | None = None
        self.closed = False
        self.skips: list[tuple[int, int]] = []

    def recv(self, timeout: float = 30.0) -> dict[str, Any]:
        msg = super().recv(timeout)
        self._note(msg)
        return msg

    def _note(self, msg: dict[str, Any]) -> None:
        msg["_at"] = time.monotonic()  # when it arrived (this harness's own field)
        self.messages.append(msg)
        kind = msg.get("type")
        if kind == "error":
            self.errors.append(msg)
            return
        if self.table is None and kind == "table":
            self.table = msg["table"]  # the answer to create or join
        if self.table is None or msg.get("table") != self.table:
            return
        if kind == "table" or kind in DOMAIN:
            event = msg.get("event")
            if kind in DOMAIN and isinstance(event, int) and event != self.version + 1:
                self.skips.append((self.version, event))
            if isinstance(event, int) and event >= self.version:
                self.version = event
                view = msg.get("view") or {}
                self.game = msg.get("game") or view.get("game") or self.game
                lobby = msg.get("lobby") or view
                self.placement = lobby.get("placement") or self.placement
        if kind == "shot":
            self.acked[msg["event"]] = msg
        if kind == "finished" or (kind == "table" and msg["view"].get("stage") == "finished"):
            self.finished = msg

    def pump(self, wait: float = 0.0) -> list[dict[str, Any]]:
        """Every message waiting now (or arriving within ``wait`` s of silence); [] when closed."""
        got: list[dict[str, Any]] = []
        if self.closed:
            return got
        while True:
            try:
                got.append(self.recv(timeout=wait))
            except TimeoutError:
                return got
            except ConnectionClosed:
                self.closed = True
                return got

    def wait_finished(self, timeout: float = 30.0) -> dict[str, Any]:
        """The ``finished`` message (received already, or within ``timeout`` s)."""
        return wait_for(  # type: ignore[no-any-return]
            lambda: self.pump(0.05) is None or self.finished, timeout, "the game's end"
        )

    def abandon(self) -> None:
        """Drop the connection without waiting for the server (a dead or stuck process)."""
        self.ws.close_timeout = 0.2
        with contextlib.suppress(Exception):
            self.close()

    def rejoin(self, url: str) -> Client:
        """The same device back on the server at ``url``: hello with the table and last event."""
        self.abandon()
        again = Client(url, self.token, self.table)
        again.version, again.game, again.placement = self.version, self.game, self.placement
        again.acked = dict(self.acked)
        again.hello_tolerant()
        return again

    def hello_tolerant(self, timeout: float = 30.0) -> dict[str, Any]:
        """Say hello with the table (retrying while the service answers ``unavailable``)."""
        deadline = time.monotonic() + timeout
        while True:
            self.send(
                {"type": "hello", "token": self.token, "table": self.table,
                 "last_event": self.version}
            )  # fmt: skip
            while True:
                msg = self.recv(timeout=max(0.1, deadline - time.monotonic()))
                if msg["type"] == "welcome":
                    return msg
                if msg["type"] == "error":
                    break
            if time.monotonic() > deadline:
                raise AssertionError(f"hello refused until the end: {self.errors[-3:]}")
            time.sleep(0.3)


def quick_party(url_a: str, url_b: str, **settings: Any) -> tuple[Client, Client]:
    """Ann creates a quick singles party on ``url_a``, Bob joins on ``url_b``, Ann starts it."""
    ann = Client(url_a)
    ann.hello()
    created = ann.create("party", "Ann", **{**QUICK_PARTY, **settings})
    bob = Client(url_b)
    bob.hello()
    bob.join(created["view"]["code"], "Bob")
    ann.act("start")
    ann.until("game_started")
    bob.until("game_started")
    return ann, bob


def owned_party(cluster: Cluster, a: Node, b: Node) -> tuple[Client, Client, str]:
    """:func:`quick_party` with Ann on ``a`` and Bob on ``b``; its table, checked to be ``a``'s."""
    ann, bob = quick_party(a.url, b.url)
    table = ann.table
    assert table is not None
    assert cluster.owner(table) is a
    return ann, bob, table


@dataclass
class Play:
    """What :func:`play` did: commands sent, and errors by code."""

    sent: int = 0
    errors: dict[str, int] = field(default_factory=dict)


def freshest(clients: Iterable[Client]) -> Client:
    """The client shown the newest version of the table."""
    return max(clients, key=lambda c: c.version)


def shot_for(version: int) -> dict[str, float]:
    """A shot told apart by its version: stays on the line (power 0: out at once)."""
    return {"position": 0.0, "direction": float(version % 15 - 7), "power": 0.0}


def play(
    by_seat: dict[str, Client],
    *,
    watchers: Iterable[Client] = (),
    shots: int | None = None,
    timeout: float = 60.0,
    retry: float = 3.0,
    report: Play | None = None,
) -> Play:
    """Shoot for whoever's turn it is until the game is over (or ``shots`` more are acknowledged).

    A command refused as ``unavailable`` or ``busy``, or not answered within
    ``retry`` seconds, is sent again (a command that did apply after all is
    then refused as out of turn: nothing changes).  Other errors are counted
    too (``report.errors``) and the game goes on.
    """
    report = report or Play()
    clients = [*by_seat.values(), *watchers]
    start = freshest(clients)
    goal = None if shots is None else len(start.acked) + shots
    sent_at: dict[tuple[int, str], float] = {}
    seen_errors = {id(c): len(c.errors) for c in clients}
    deadline = time.monotonic() + timeout
    while True:
        for client in clients:
            client.pump()
            for error in client.errors[seen_errors[id(client)] :]:
                report.errors[error["code"]] = report.errors.get(error["code"], 0) + 1
                if error["code"] in TRY_AGAIN:  # not applied: send again soon
                    soon = time.monotonic() - retry + 0.3
                    sent_at = {key: min(at, soon) for key, at in sent_at.items()}
            seen_errors[id(client)] = len(client.errors)
        best = freshest(clients)
        if any(c.finished for c in by_seat.values()):
            return report
        if goal is not None and len(best.acked) >= goal:
            return report
        if time.monotonic() > deadline:
            raise AssertionError(
                f"the game did not end in {timeout:g} s: at version {best.version}, "
                f"game {json.dumps(best.game)[:300]}, errors {report.errors}"
            )
        game = best.game or {}
        now = time.monotonic()
        if game.get("phase") == "playing" and game.get("current_seat") in by_seat:
            seat = game["current_seat"]
            key = (best.version, seat)
            if now - sent_at.get(key, -1e9) >= retry and not by_seat[seat].closed:
                by_seat[seat].shoot(seat, **shot_for(best.version))
                sent_at[key] = now
                report.sent += 1
        elif game.get("phase") == "round_over":
            key = (best.version, "next")
            if now - sent_at.get(key, -1e9) >= retry:
                for client in by_seat.values():
                    if not client.closed:
                        client.act("next_round")
                sent_at[key] = now
        time.sleep(0.02)


def check_log(
    log: list[tuple[int, dict[str, Any]]], clients: Iterable[Client]
) -> list[tuple[int, dict[str, Any]]]:
    """Assert the log's versions are exactly 1..N and every shot a client saw acknowledged is in it.

    Returns the log's shots.
    """
    versions = [version for version, _ in log]
    assert versions == list(range(1, len(log) + 1)), f"versions repeated or skipped: {versions}"
    by_version = dict(log)
    for client in clients:
        for version, msg in client.acked.items():
            event = by_version.get(version)
            assert event is not None, f"shot {version} acknowledged but not in the log"
            assert event["type"] == "shot_played", f"event {version} is {event}, not the shot"
            assert event["seat"] == msg["seat"], (version, event, msg["seat"])
            assert event["played"] == msg["played"], (version, event["played"], msg["played"])
    return [(v, e) for v, e in log if e["type"] == "shot_played"]


def check_shown_everything(servers: Cluster, table_id: str, clients: Iterable[Client]) -> None:
    """Assert each (live) client was shown the table up to its last stored event, every
    event once and in order (no event number skipped or repeated on its connection)."""
    for client in clients:

        def caught_up(client: Client = client) -> bool:
            client.pump(0.05)
            return client.version == len(servers.log(table_id))

        wait_for(caught_up, 10, f"client {client.token[:6]} to be shown the last event")
        assert client.skips == [], f"events skipped or repeated (shown, got): {client.skips}"


@contextlib.contextmanager
def cluster(
    directory: Path,
    *,
    redis_url: str = REDIS_URL,
    options: Iterable[str] = (),
    proxy: bool = False,
    redis_proxy: bool = False,
    db_proxy: bool = False,
) -> Iterator[Cluster]:
    """A :class:`Cluster` (no processes yet), closed afterwards; its logs printed on failure."""
    made = Cluster(
        directory,
        redis_url=redis_url,
        options=options,
        proxy=proxy,
        redis_proxy=redis_proxy,
        db_proxy=db_proxy,
    )
    try:
        yield made
    except BaseException:
        print(made.outputs())  # shown by pytest with the failure
        raise
    finally:
        made.close()
