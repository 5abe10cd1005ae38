"""Server load benchmark: bot clients play N concurrent online parties on one server process.

Run it from a checkout: ``python benchmarks/server.py [--games N ...] [--seconds S]``
or ``crokinole bench server ...`` (the same); ``--help`` lists the options.  It
needs the ``websockets`` client library (the ``bench`` extra).

For each party count N (``--games 50 100 200`` measures several, each on a
fresh server), the benchmark

1. starts ``crokinole serve`` on a free loopback port with a new SQLite
   database in a temporary folder (or ``--db``), its kernel warm-up on, waits
   for ``/healthz``, and plays a warm-up game against the CPU until a person's
   shot and a CPU's shot have both come back, so no compilation is measured;
2. reads the server's resident memory (``VmRSS`` of ``/proc/PID/status``);
3. opens N parties over real websockets (protocol version 2,
   ``docs/protocol.md``): one bot creates a singles party, a second bot joins
   it by its code, each keeps the seat the server gave it (or takes a free
   one) and the host starts the game.  In
   ``--standin-share`` of the parties the second bot then disconnects, so the
   server's stand-in CPU plays that seat after the stand-in grace;
4. lets every game play for ``--seconds`` at ten times human pace: a bot
   shoots ``--pace`` seconds (0.5) after its game's previous shot was sent,
   or as soon as that shot's broadcast is back if that is later, always at a
   legal place (inside the view's ``placement`` stretches of the line); bots
   press Next after each round and offer (or accept) a rematch after each
   game (in a party whose second player left, its host first seats a CPU
   in the empty seat: a rematch is for present players only);
5. reads the server's memory again, stops the server and reports:

* **latency**: from sending ``shoot`` to receiving that shot's ``shot``
  message on the *other* player's socket, for person shots sent in the
  measuring window (the stand-in's shots arrive whenever the server has
  thought, so they are counted, not timed).  In parties whose second player
  left, the shooter's own socket times them instead, reported on its own
  row.  One monotonic clock in this process times both ends.  p50 and p99
  come with distribution-free 95% intervals (order statistics of the
  binomial, exact);
* **errors**: every ``error`` message, every socket the server closed or
  dropped, every person shot whose broadcast did not arrive within
  ``--drain`` seconds of the window's end, every party that could not be
  opened, and every game that stopped moving;
* **memory per game**: the server's RSS growth from before the parties were
  opened to the end of the window, divided by the parties;

beside the issue's target: p99 at most 100 ms and no errors at 200 parties.

The bots run in this process (on uvloop when it is installed, as the server
does) on the same machine, so on a small machine they take CPU time from the
server: the figures are an upper bound on what the server alone would show.
To tell the two apart the details give how late the bots' event loop woke
up (a delay every timed message may have suffered on the bots' side) and
the CPU share the server and the bots used in the window.  Everything stays
on the loopback interface.

Several processes (``--processes 1 2``)
---------------------------------------

With ``--processes``, each process count N runs a cluster of N ``crokinole
serve`` processes on PostgreSQL (a fresh schema of the database of ``--pg``,
migrated once by ``crokinole db upgrade`` before the servers start, dropped
afterwards) and Redis (``--redis``, under a key prefix of the run's own, its
keys deleted afterwards): every process count on the same set-up, so their
figures compare like with like.  Each server warms up with a game of its own.
Then the parties are added in steps (a ramp: ``--step``, ``2 × --step``, ...
up to ``--max-games``, or the ``--games`` values), on the same cluster: the
parties of the earlier steps keep playing, and each step measures its own
window of ``--seconds``.  A step that misses the target (p99 above 100 ms,
or any error) is measured again on the same parties (``--retries``, once by
default: a single stall of a shared machine can decide a p99) and held if
one of its windows meets it.  The ramp stops at the first step not held;
the games **held** by N processes are the parties of the last step before
it.  The report gives a table per
process count (parties, p50 and p99 with their intervals, errors, the CPU of
each server, of the bots, of PostgreSQL and Redis and of the whole machine),
then what each process count held and the ratio to the first, beside the
issue's target: 2 processes hold at least 1.6 times the games of one.

``--spread`` says which process each bot connects to: ``party`` (the default)
puts both sockets of a party on one process, parties in turn over the
processes, as a load balancer hashing on the party would; ``connection``
puts the joining player on the next process after the host's, so that
every command of one of the two players crosses Redis to the game's owner.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import math
import os
import secrets
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from collections.abc import Callable, Coroutine, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table

from crokinole.cli.main import count_argument
from crokinole.cli.serve import database_argument, redis_argument, shown_url

try:  # the client library is in the 'bench' (and 'dev') extra; main() says so if missing
    from websockets.asyncio.client import ClientConnection, connect
    from websockets.exceptions import ConnectionClosed, InvalidHandshake

    HAVE_WEBSOCKETS = True
except ImportError:  # pragma: no cover
    HAVE_WEBSOCKETS = False

DEFAULT_GAMES = 200
DEFAULT_SECONDS = 60.0
DEFAULT_PACE = 0.5
DEFAULT_STANDIN_SHARE = 0.25
DEFAULT_STANDIN_GRACE = 2.0
DEFAULT_DRAIN = 5.0
DEFAULT_SETUP_TIMEOUT = 300.0
DEFAULT_SEED = 0

#: The issue's target: at this many parties, p99 at most this, and no errors.
TARGET_GAMES = 200
TARGET_P99_MS = 100.0

#: Several processes (``--processes``): where the cluster keeps its data, and its ramp.
DEFAULT_PG = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
DEFAULT_REDIS = "redis://127.0.0.1:6379/0"
DEFAULT_STEP = 10
DEFAULT_MAX_GAMES = 400
#: A step that misses is measured again this many times: one stall can decide a p99.
DEFAULT_RETRIES = 1
#: The most server processes one run may start (each holds a core's worth of work).
MAX_PROCESSES = 16
#: The issue's target for several processes: 2 hold this many times the games of 1.
TARGET_RATIO = 1.6
#: How bots are spread over the processes (``--spread``).
SPREADS = ("party", "connection")
#: Seconds to wait for PostgreSQL or Redis to answer the first check.
BACKEND_TIMEOUT = 3

#: Where the websocket of protocol version 2 may be, in the order tried.
WS_PATHS = ("/ws/v2", "/ws")
#: Parties being opened at once (each is a few round trips).
OPEN_CONCURRENCY = 16
#: Seconds one setup step (a reply to create, join, take_seat, start) may take.
STEP_TIMEOUT = 60.0
#: Seconds the server has to answer /healthz, and to finish the warm-up game.
START_TIMEOUT = 120.0
WARM_UP_TIMEOUT = 300.0
#: A game that has not moved for this long beyond the stand-in grace has stalled.
STALL_SLACK = 15.0
#: Bots place a disc at least this far (degrees) inside a free stretch of the line.
PLACEMENT_MARGIN = 0.25
#: Bots aim within ±this many degrees of the centre, at this power range (%).
DIRECTION_SPREAD = 8.0
POWER_RANGE = (30.0, 65.0)
#: Seconds between two samples of the bots' event-loop lag.
LAG_TICK = 0.01
#: Error samples kept for the report.
ERROR_SAMPLES = 5

PLAYING_MESSAGES = frozenset({"shot", "timeout", "round", "game_started", "finished"})


# ------------------------------------------------------------------- figures


def quantile_interval(
    ordered: Sequence[float], q: float, confidence: float = 0.95
) -> tuple[float, float | None, float | None]:
    """The ``q`` quantile of sorted samples with a distribution-free confidence interval.

    The estimate is the nearest-rank quantile.  The interval is
    ``[X(l), X(u)]`` between two order statistics, chosen with the exact
    binomial law of how many samples fall below the true quantile, so it holds
    at least ``confidence`` for any distribution.  A bound that would need a
    sample beyond the smallest or largest is None (too few samples).

    >>> quantile_interval(list(range(1, 101)), 0.5)
    (50, 40, 61)
    >>> quantile_interval([1.0, 2.0, 3.0], 0.99)
    (3.0, 2.0, None)
    """
    n = len(ordered)
    if n == 0:
        raise ValueError("no samples: a quantile needs at least one")
    estimate = ordered[max(0, math.ceil(q * n) - 1)]
    alpha = 1.0 - confidence
    # cdf[k] = P(B <= k) for B ~ Binomial(n, q): how many samples fall below the quantile.
    log_q, log_p = math.log(q), math.log1p(-q)
    cdf: list[float] = []
    total = 0.0
    for k in range(n + 1):
        log_pmf = (
            math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
            + k * log_q + (n - k) * log_p
        )  # fmt: skip
        total += math.exp(log_pmf)
        cdf.append(total)
    # P(X(l) <= quantile) = P(B >= l); the largest l with P(B <= l - 1) <= alpha / 2.
    lower_rank = max((rank for rank in range(1, n + 1) if cdf[rank - 1] <= alpha / 2), default=None)
    # P(X(u) >= quantile) = P(B <= u - 1); the smallest u with that at least 1 - alpha / 2.
    upper_rank = next((rank for rank in range(1, n + 1) if cdf[rank - 1] >= 1 - alpha / 2), None)
    lower = None if lower_rank is None else ordered[lower_rank - 1]
    upper = None if upper_rank is None else ordered[upper_rank - 1]
    return estimate, lower, upper


@dataclass(frozen=True, slots=True)
class Quantile:
    """A latency quantile in milliseconds with its 95% interval (None: too few shots)."""

    q: float
    ms: float
    low_ms: float | None
    high_ms: float | None

    @classmethod
    def of(cls, seconds: Sequence[float], q: float) -> Quantile | None:
        """The quantile of latencies given in seconds, or None without any."""
        if not seconds:
            return None
        value, low, high = quantile_interval(sorted(seconds), q)
        return cls(
            q,
            1000.0 * value,
            None if low is None else 1000.0 * low,
            None if high is None else 1000.0 * high,
        )

    def text(self) -> str:
        """``"12.3 [11.9–13.0]"`` (milliseconds); an open bound is shown as ``?``."""
        low = "?" if self.low_ms is None else f"{self.low_ms:.1f}"
        high = "?" if self.high_ms is None else f"{self.high_ms:.1f}"
        return f"{self.ms:.1f} [{low}–{high}]"


@dataclass(frozen=True, slots=True)
class LoadFigures:
    """What one run at one party count measured.

    Attributes:
        games: parties asked for.
        opened: parties opened and started.
        standin_games: opened parties whose second player left (stand-in CPU).
        seconds: length of the measuring window.
        latencies: seconds from ``shoot`` to the shot on the other player's
            socket, person shots of the window, parties of two players.
        own_latencies: the same on the shooter's own socket, in parties whose
            second player left.
        standin_shots: stand-in CPU shots broadcast in the window.
        timeouts: turns the server ended without a shot in the window.
        rounds: rounds started in the window (all parties).
        errors: error counts by kind.
        error_samples: a few errors in words.
        rss_before_kib: server RSS after the warm-up, before the parties.
        rss_after_kib: server RSS at the end of the window.
        setup_seconds: time taken to open the parties.
        loop_lags: how late the bots' event loop woke up (seconds), sampled
            in the window: the bots' own share of the latency.
        server_cpu: CPU time the server used in the window per second (1.0:
            one core busy all the time); several processes: their sum.
        bots_cpu: the same for this process, the bots.
        shot_bytes: mean size of a ``shot`` message as received (text, after
            any decompression), in bytes.
        standin_grace: the server's stand-in grace in seconds.
        server_cpus: each server process's share, in the order started.
        postgres_cpu: the share of every PostgreSQL process of the machine
            (with the backends that ended in the window), or None when the
            run does not use PostgreSQL.
        redis_cpu: the same for every ``redis-server`` of the machine.
        machine_cpu: cores busy on the whole machine (``/proc/stat``), from
            every process, this run's or not.
    """

    games: int
    opened: int
    standin_games: int
    seconds: float
    latencies: tuple[float, ...]
    own_latencies: tuple[float, ...]
    standin_shots: int
    timeouts: int
    rounds: int
    errors: dict[str, int]
    error_samples: tuple[str, ...]
    rss_before_kib: int
    rss_after_kib: int
    setup_seconds: float
    standin_grace: float
    loop_lags: tuple[float, ...] = ()
    server_cpu: float = 0.0
    bots_cpu: float = 0.0
    shot_bytes: float = 0.0
    server_cpus: tuple[float, ...] = ()
    postgres_cpu: float | None = None
    redis_cpu: float | None = None
    machine_cpu: float | None = None

    @property
    def error_count(self) -> int:
        """All errors of the run."""
        return sum(self.errors.values())

    @property
    def p50(self) -> Quantile | None:
        """The median latency, or None without a measured shot."""
        return Quantile.of(self.latencies, 0.5)

    @property
    def p99(self) -> Quantile | None:
        """The 99th percentile latency, or None without a measured shot."""
        return Quantile.of(self.latencies, 0.99)

    @property
    def memory_per_game_kib(self) -> float | None:
        """The server's RSS growth per opened party, in KiB."""
        if self.opened == 0:
            return None
        return (self.rss_after_kib - self.rss_before_kib) / self.opened

    @property
    def others_cpu(self) -> float | None:
        """The machine's busy share beyond this run's own processes (others' work), or None.

        PostgreSQL and Redis count as this run's: their share includes any other
        client's work on them.
        """
        if self.machine_cpu is None:
            return None
        ours = (
            self.server_cpu + self.bots_cpu + (self.postgres_cpu or 0.0) + (self.redis_cpu or 0.0)
        )
        return max(0.0, self.machine_cpu - ours)

    @property
    def meets_target(self) -> bool:
        """p99 at most the target and no errors (the target is stated at 200 parties)."""
        p99 = self.p99
        return p99 is not None and p99.ms <= TARGET_P99_MS and self.error_count == 0


@dataclass(frozen=True, slots=True)
class RampFigures:
    """What one process count measured: its ramp's steps, and the games it held.

    Attributes:
        processes: server processes of the cluster.
        steps: the figures of each window measured, in order: one per step,
            more for a step measured again after a miss (the ramp stops after
            the first step that none of its windows held).
        top: the ramp's last step, had none missed.
    """

    processes: int
    steps: tuple[LoadFigures, ...]
    top: int

    @property
    def held_step(self) -> LoadFigures | None:
        """The window that held the last step of the ramp's unbroken run of held steps.

        A step measured several times (a miss, then again) is held when one
        of its windows met the target.
        """
        held = None
        for _games, windows in itertools.groupby(self.steps, key=lambda step: step.games):
            good = next((window for window in windows if window.meets_target), None)
            if good is None:
                break
            held = good
        return held

    @property
    def held(self) -> int:
        """Parties held with p99 at most the target and no errors (0: not even the first step)."""
        step = self.held_step
        return 0 if step is None else step.opened

    @property
    def capped(self) -> bool:
        """Whether the ramp reached its top without a miss: the cluster may hold more."""
        step = self.held_step
        return step is not None and step.games >= self.top


def held_ratio(held: int, first: int) -> float | None:
    """Games held by a cluster over the games held by the first (None when the first held none).

    >>> held_ratio(360, 200)
    1.8
    >>> held_ratio(100, 0) is None
    True
    """
    return None if first == 0 else held / first


def ramp_steps(step: int, top: int) -> list[int]:
    """The party counts of a ramp: ``step``, ``2 × step``, ... up to ``top`` (always included).

    >>> ramp_steps(25, 100)
    [25, 50, 75, 100]
    >>> ramp_steps(40, 100)
    [40, 80, 100]
    """
    steps = list(range(step, top + 1, step))
    if not steps or steps[-1] != top:
        steps.append(top)
    return steps


# ---------------------------------------------------------------- the server


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
    """CPU seconds used so far: by each server, the bots, PostgreSQL, Redis, the machine."""

    at: float
    servers: tuple[float, ...]
    bots: float
    postgres: float
    redis: float
    machine: float

    @classmethod
    def now(cls, pids: Sequence[int]) -> CpuSample:
        """Read the counters of the server processes ``pids`` and of the rest."""
        return cls(
            at=time.perf_counter(),
            servers=tuple(cpu_seconds(pid) for pid in pids),
            bots=time.process_time(),
            postgres=named_cpu_seconds(POSTGRES_NAMES),
            redis=named_cpu_seconds(REDIS_NAMES),
            machine=machine_busy_seconds(),
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


def delete_redis_keys(redis_url: str, prefix: str) -> None:
    """Delete the keys under ``prefix`` (the run's own) once its servers have stopped."""
    import redis  # noqa: PLC0415

    with contextlib.suppress(redis.RedisError), redis.Redis.from_url(redis_url) as client:
        keys = list(client.scan_iter(match=f"{prefix}*", count=1000))
        for start in range(0, len(keys), 1000):
            client.delete(*keys[start : start + 1000])


# ------------------------------------------------------------------ the bots


class BenchError(Exception):
    """A step of the run failed (a party's setup, the warm-up): the message says which and why."""


@dataclass(slots=True)
class Tally:
    """What the bots of one run count (mutable while the run lasts)."""

    measuring: bool = False
    shooting: bool = True
    latencies: list[float] = field(default_factory=list)
    own_latencies: list[float] = field(default_factory=list)
    events: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    error_samples: list[str] = field(default_factory=list)
    loop_lags: list[float] = field(default_factory=list)
    shot_bytes: list[int] = field(default_factory=list)

    def note(self, event: str) -> None:
        """Count one ``event`` (``standin_shot``, ``timeout``, ``round``) seen in the window."""
        if self.measuring:
            self.events[event] += 1

    def error(self, kind: str, detail: str) -> None:
        """Count an error of ``kind`` (e.g. ``error not_your_turn``) and keep a sample."""
        self.errors[kind] += 1
        if len(self.error_samples) < ERROR_SAMPLES:
            self.error_samples.append(f"{kind}: {detail}")


@dataclass(slots=True)
class Pending:
    """A person shot sent and not yet seen back on every socket that should get it.

    ``tally`` is the tally of the measuring window the shot was sent in, which
    times it whenever it comes back (None: sent outside any window, not timed).
    """

    seat: str
    sent: float
    tally: Tally | None
    own_seen: bool = False
    other_seen: bool = False

    @property
    def counted(self) -> bool:
        """Whether the shot was sent in a measuring window (its latency counts)."""
        return self.tally is not None


class Bot:
    """One player's device: a websocket, a token, a seat; plays when the view says so."""

    def __init__(self, party: Party, name: str, seat: str, *, compression: bool = True) -> None:
        self.party = party
        self.name = name
        self.seat = seat
        self.compression = compression
        self.token = secrets.token_urlsafe(24)
        self.ws: ClientConnection | None = None
        self.leaving = False
        self.game: dict[str, Any] | None = None
        self.placement: dict[str, list[list[float]]] = {}
        self.aiming = False
        self.shot_sent = False
        self.pressed_round: tuple[int, int] | None = None
        self.reader: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._waiters: list[tuple[Callable[[dict[str, Any]], bool], asyncio.Future[Any]]] = []

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        # The loop keeps only weak references to tasks: hold each until it ends.
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def cancel_tasks(self) -> None:
        """Cancel the bot's pending sends (a shot waiting for its turn to come)."""
        for task in list(self._tasks):
            task.cancel()

    @property
    def connected(self) -> bool:
        """Whether this bot's socket is open and meant to stay open."""
        return self.ws is not None and not self.leaving

    async def open(self, url: str) -> None:
        """Connect and say hello; return once welcomed."""
        self.ws = await connect(
            url,
            max_size=None,
            open_timeout=STEP_TIMEOUT,
            compression="deflate" if self.compression else None,
        )
        self.reader = asyncio.create_task(self._read())
        await self.ask({"type": "hello", "token": self.token}, "welcome")

    async def ask(self, message: dict[str, Any], answer: str, **match: Any) -> dict[str, Any]:
        """Send ``message``; return the first ``answer`` message with ``match``ing fields.

        Raises:
            BenchError: an ``error`` came first, or nothing within the step timeout.
        """

        def wanted(reply: dict[str, Any]) -> bool:
            if reply.get("type") == "error":
                return True
            return reply.get("type") == answer and all(reply.get(k) == v for k, v in match.items())

        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiters.append((wanted, future))
        await self.send(message)
        try:
            reply = await asyncio.wait_for(future, STEP_TIMEOUT)
        except TimeoutError:
            raise BenchError(
                f"{self.name}: no {answer} within {STEP_TIMEOUT:.0f} s of {message['type']}"
            ) from None
        if reply.get("type") == "error":
            raise BenchError(
                f"{self.name}: {message['type']} refused: {reply.get('code')}: "
                f"{reply.get('message')}"
            )
        return reply

    async def wait_for(self, answer: str) -> dict[str, Any]:
        """The next ``answer`` message (raises BenchError after the step timeout)."""
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiters.append((lambda reply: reply.get("type") == answer, future))
        try:
            return await asyncio.wait_for(future, STEP_TIMEOUT)
        except TimeoutError:
            raise BenchError(f"{self.name}: no {answer} within {STEP_TIMEOUT:.0f} s") from None

    async def take_a_seat(self, view: dict[str, Any]) -> None:
        """Keep the seat the server gave this bot in ``view``, or take the first free one."""
        held = view["you"]["seats"]
        if held:
            self.seat = held[0]
            return
        free = [s["seat"] for s in view["seats"] if s["occupant"] is None]
        if not free:
            raise BenchError(f"{self.name}: no free seat at the table")
        self.seat = free[0]
        await self.ask({"type": "take_seat", "table": view["table"], "seat": self.seat}, "seat")

    async def send(self, message: dict[str, Any]) -> None:
        """Send one message (a closed socket is counted when the reader ends)."""
        if self.ws is None:
            return
        with contextlib.suppress(ConnectionClosed):
            await self.ws.send(json.dumps(message))

    async def leave(self) -> None:
        """Disconnect on purpose (the server's stand-in CPU is to take the seat)."""
        self.leaving = True
        if self.ws is not None:
            await self.ws.close()

    async def _read(self) -> None:
        assert self.ws is not None
        tally = self.party.tally
        try:
            async for raw in self.ws:
                arrived = time.perf_counter()
                message = json.loads(raw)
                if message.get("type") == "shot" and tally.measuring:
                    tally.shot_bytes.append(len(raw))
                self._handle(message, arrived)
        except ConnectionClosed:
            pass
        except Exception as exc:  # a bug in the bot is reported, not swallowed
            tally.error("bot failure", f"{self.name}: {exc!r}")
        finally:
            if not self.leaving and not self.party.closing:
                code = self.ws.close_code
                tally.error("socket dropped", f"{self.name}: closed with code {code}")
            for _, future in self._waiters:
                if not future.done():
                    future.set_exception(BenchError(f"{self.name}: the socket closed"))

    def _handle(self, message: dict[str, Any], arrived: float) -> None:
        kind = message.get("type")
        for waiter in list(self._waiters):
            wanted, future = waiter
            if not future.done() and wanted(message):
                future.set_result(message)
                self._waiters.remove(waiter)
        if kind == "pong":
            return
        party = self.party
        if kind == "error":
            if party.started:
                party.tally.error(
                    f"error {message.get('code')}", f"{self.name}: {message.get('message')}"
                )
            if self.shot_sent:  # the shot was refused: nothing is coming back for it
                self.shot_sent = False
                party.pending = None
                self._spawn(self._aim_again())
            return
        view = message.get("view")
        if isinstance(view, dict):
            self.game = view.get("game")
            party.game_number = int(view.get("game_number") or party.game_number)
            self.placement = view.get("placement") or {}
        if "game" in message:
            self.game = message["game"]
        lobby = message.get("lobby")
        if isinstance(lobby, dict) and "placement" in lobby:
            self.placement = lobby["placement"] or {}
        if kind in PLAYING_MESSAGES:
            party.last_progress = arrived
        if kind == "shot":
            party.on_shot(self, message, arrived)
        elif kind == "timeout" and self.is_first_connected():
            party.tally.note("timeout")
        elif kind == "round" and self.is_first_connected():
            party.tally.note("round")
        elif kind == "finished" and party.started and not message.get("abandoned"):
            if party.standin and self is party.host:
                # The guest left: a rematch is for present players only, so the
                # host seats a CPU of the stand-in level there first.
                seat = {"type": "set_cpu", "table": party.table, "seat": party.guest.seat}
                self._spawn(self.send({**seat, "level": "normal"}))
            self._spawn(self.send({"type": "rematch", "table": party.table}))
        if party.started:
            self.act()

    def is_first_connected(self) -> bool:
        """Whether this bot counts the party's events (so each is counted once)."""
        return next((b for b in self.party.bots if b.connected), None) is self

    def act(self) -> None:
        """Do what the game asks of this bot now: press Next, or aim a shot."""
        game = self.game
        if game is None or not self.party.tally.shooting:
            return
        phase = game.get("phase")
        if phase == "round_over":
            key = (int(self.party.game_number), int(game.get("round", 0)))
            if self.pressed_round != key:
                self.pressed_round = key
                self._spawn(self.send({"type": "next_round", "table": self.party.table}))
        elif phase == "playing" and game.get("current_seat") == self.seat and not self.aiming:
            stretches = self.placement.get(self.seat)
            if stretches:
                self.aiming = True
                self._spawn(self._shoot(stretches))

    async def _aim_again(self) -> None:
        # A refused shot changed nothing, so no message will come to prompt the
        # next try: try again one pace later (the refusal is already an error).
        await asyncio.sleep(self.party.pace)
        self.aiming = False
        if self.party.started:
            self.act()

    async def _shoot(self, stretches: list[list[float]]) -> None:
        party = self.party
        delay = party.last_shot + party.pace - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        if not party.tally.shooting or self.ws is None:
            self.aiming = False
            return
        # The stretches as the latest message has them (they do not change
        # while it is this seat's turn, unless the game moved on).
        position, direction, power = party.choose_shot(self.placement.get(self.seat) or stretches)
        sent = time.perf_counter()
        party.last_shot = sent
        party.pending = Pending(self.seat, sent, party.tally if party.tally.measuring else None)
        self.shot_sent = True
        await self.send(
            {
                "type": "shoot",
                "table": party.table,
                "seat": self.seat,
                "position": position,
                "direction": direction,
                "power": power,
            }
        )


class Party:
    """Two bots at one singles table; in a stand-in party the second one leaves."""

    def __init__(
        self,
        index: int,
        standin: bool,
        tally: Tally,
        pace: float,
        seed: int,
        *,
        compression: bool = True,
    ) -> None:
        self.index = index
        self.standin = standin
        self.tally = tally
        self.pace = pace
        self.rng = np.random.default_rng([seed, index])
        self.host = Bot(self, f"party {index} host", "south", compression=compression)
        self.guest = Bot(self, f"party {index} guest", "north", compression=compression)
        self.bots = (self.host, self.guest)
        self.table: str | None = None
        self.game_number = 0
        self.started = False
        self.closing = False
        self.pending: Pending | None = None
        # The first shot of each party comes at a random point of one pace, so
        # the parties do not all shoot in step.
        self.last_shot = time.perf_counter() + float(self.rng.uniform(0.0, pace)) - pace
        self.last_progress = time.perf_counter()

    def choose_shot(self, stretches: list[list[float]]) -> tuple[float, float, float]:
        """A legal shot: a place inside a free stretch (picked by its length), an aim, a power."""
        widths = np.array([max(hi - lo, 0.0) for lo, hi in stretches])
        pick = int(self.rng.choice(len(stretches), p=widths / widths.sum())) if widths.sum() else 0
        lo, hi = stretches[pick]
        if hi - lo > 2 * PLACEMENT_MARGIN:
            position = float(self.rng.uniform(lo + PLACEMENT_MARGIN, hi - PLACEMENT_MARGIN))
        else:
            position = (lo + hi) / 2.0
        direction = float(self.rng.uniform(-DIRECTION_SPREAD, DIRECTION_SPREAD))
        power = float(self.rng.uniform(*POWER_RANGE))
        return round(position, 4), round(direction, 4), round(power, 3)

    def on_shot(self, bot: Bot, message: dict[str, Any], arrived: float) -> None:
        """A ``shot`` message reached ``bot``: time it if it is the pending person shot."""
        by = message.get("by")
        if by != "person":
            if bot.is_first_connected():
                self.tally.note("standin_shot")
                self.last_shot = max(self.last_shot, arrived)
            return
        if message.get("seat") == bot.seat:
            bot.aiming = bot.shot_sent = False  # its shot is played: it may aim the next one
        pending = self.pending
        if pending is None or message.get("seat") != pending.seat:
            return
        if bot.seat == pending.seat:
            pending.own_seen = True
            if not self.guest.connected and pending.tally is not None:
                pending.tally.own_latencies.append(arrived - pending.sent)
        else:
            pending.other_seen = True
            if pending.tally is not None:
                pending.tally.latencies.append(arrived - pending.sent)
        others = [b for b in self.bots if b.connected and b.seat != pending.seat]
        if pending.own_seen and (pending.other_seen or not others):
            self.pending = None

    async def open(self, url: str, guest_url: str | None = None) -> None:
        """Create the party, join it by code, take the seats, start; the guest may leave.

        The host connects to ``url``, the guest to ``guest_url`` (default: the same).
        """
        await asyncio.gather(self.host.open(url), self.guest.open(guest_url or url))
        created = await self.host.ask(
            {
                "type": "create",
                "kind": "party",
                "settings": {"layout": "singles"},
                "name": f"Host {self.index}",
            },
            "table",
        )
        view = created["view"]
        self.table = view["table"]
        await self.host.take_a_seat(view)
        joined = await self.guest.ask(
            {"type": "join", "code": view["code"], "name": f"Guest {self.index}"}, "table"
        )
        await self.guest.take_a_seat(joined["view"])
        waits = [asyncio.create_task(bot.wait_for("game_started")) for bot in self.bots]
        await self.host.send({"type": "start", "table": self.table})
        await asyncio.gather(*waits)
        self.started = True
        if self.standin:
            await self.guest.leave()
        for bot in self.bots:
            if bot.connected:
                bot.act()

    async def close(self) -> None:
        """Close every socket (the run is over: closing is not an error)."""
        self.closing = True
        for bot in self.bots:
            bot.cancel_tasks()
            if bot.ws is not None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(bot.ws.close(), 5.0)
            if bot.reader is not None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(bot.reader, 5.0)


async def protocol_2_websocket(base: str) -> str:
    """The URL of the server's websocket that speaks protocol 2 (its welcome says so)."""
    for path in WS_PATHS:
        url = f"{base}{path}"
        with contextlib.suppress(OSError, InvalidHandshake, ConnectionClosed, TimeoutError):
            async with connect(url, open_timeout=STEP_TIMEOUT) as ws:
                hello = {"type": "hello", "token": secrets.token_urlsafe(24)}
                await ws.send(json.dumps(hello))
                welcome = json.loads(await asyncio.wait_for(ws.recv(), STEP_TIMEOUT))
                if welcome.get("protocol") == 2:
                    return url
    raise BenchError(f"no websocket of {base} ({', '.join(WS_PATHS)}) speaks protocol 2")


async def warm_up(url: str) -> None:
    """A game against the CPU until a person's and a CPU's shot are back (kernels compiled)."""
    tally = Tally()
    party = Party(0, standin=False, tally=tally, pace=0.0, seed=0)
    bot = party.host
    bot.name = "warm-up game"
    await bot.open(url)
    try:
        created = await bot.ask(
            {
                "type": "create",
                "kind": "solo",
                "settings": {"layout": "singles"},
                "name": "Warm-up",
                "seats": {"south": "me", "north": "normal"},
            },
            "table",
        )
        party.table = created["view"]["table"]
        bot.seat = created["view"]["you"]["seats"][0]
        bot.game = created["view"].get("game")
        bot.placement = created["view"].get("placement") or {}
        seen: set[str] = set()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + WARM_UP_TIMEOUT
        party.started = True
        bot.act()
        while seen != {"person", "cpu"}:
            left = deadline - loop.time()
            if left <= 0:
                raise BenchError(f"the warm-up game took over {WARM_UP_TIMEOUT:.0f} s")
            shot = await asyncio.wait_for(bot.wait_for("shot"), left)
            seen.add(str(shot.get("by")))
        if tally.errors:
            raise BenchError(f"the warm-up game failed: {'; '.join(tally.error_samples)}")
        party.started = False
        await bot.send({"type": "resign", "table": party.table})
    finally:
        await party.close()


# ------------------------------------------------------------------- the run


@dataclass(frozen=True, slots=True)
class BenchOptions:
    """The benchmark's settings (one per command-line option)."""

    seconds: float = DEFAULT_SECONDS
    pace: float = DEFAULT_PACE
    standin_share: float = DEFAULT_STANDIN_SHARE
    standin_grace: float = DEFAULT_STANDIN_GRACE
    drain: float = DEFAULT_DRAIN
    setup_timeout: float = DEFAULT_SETUP_TIMEOUT
    seed: int = DEFAULT_SEED
    db: str | None = None
    server_log: Path | None = None
    compression: bool = True
    server_compress: bool = False
    spread: str = "party"
    retries: int = DEFAULT_RETRIES
    pg: str = DEFAULT_PG
    redis: str = DEFAULT_REDIS


def standin_parties(games: int, share: float) -> list[bool]:
    """Which parties lose their second player: ``share`` of them, spread evenly.

    >>> standin_parties(8, 0.25)
    [False, False, False, True, False, False, False, True]
    >>> sum(standin_parties(200, 0.25))
    50
    """
    return [math.floor((i + 1) * share) > math.floor(i * share) for i in range(games)]


def party_servers(standins: Sequence[bool], servers: int) -> list[int]:
    """The server hosting each party: in turn, stand-in parties and the others each on their own.

    Turns taken over all parties together would put every stand-in party
    (one in four, the odd ones) on the same server of two, with all the
    stand-in CPU's work.

    >>> party_servers([False, False, False, True, False, False, False, True], 2)
    [0, 1, 0, 0, 1, 0, 1, 1]
    >>> party_servers([False, True, False], 1)
    [0, 0, 0]
    """
    turns = {False: 0, True: 0}
    placed = []
    for standin in standins:
        placed.append(turns[standin] % servers)
        turns[standin] += 1
    return placed


async def _watch_loop(tally: Tally) -> None:
    """Sample how late this process's event loop wakes up: the bots' own delay.

    A message is timed when the bots' loop gets to it, so a busy loop adds to
    the latency; this lag says how much of it is the bots', not the server's.
    """
    while True:
        asked = time.perf_counter()
        await asyncio.sleep(LAG_TICK)
        tally.loop_lags.append(time.perf_counter() - asked - LAG_TICK)


async def _open_parties(
    new: Sequence[Party],
    urls: Sequence[str],
    opened: list[Party],
    hosts: Sequence[int],
    *,
    options: BenchOptions,
    progress: Progress,
    label: str,
) -> float:
    """Open the parties ``new`` (those opened join ``opened``); the seconds it took.

    Party ``i`` is hosted on server ``hosts[i]``; its guest connects there
    too, or with ``--spread connection`` to the next server.
    """
    if not new:
        return 0.0
    tally = new[0].tally
    opening = progress.add_task(f"{label}opening {len(new)} parties", total=len(new))
    gate = asyncio.Semaphore(OPEN_CONCURRENCY)

    async def open_party(party: Party) -> None:
        async with gate:
            host = hosts[party.index]
            guest = (host + 1) % len(urls) if options.spread == "connection" else host
            try:
                await party.open(urls[host], urls[guest])
                opened.append(party)
            except (BenchError, OSError, ConnectionClosed, TimeoutError) as exc:
                tally.error("party not opened", f"party {party.index}: {exc}")
                await party.close()
            progress.advance(opening)

    setup_start = time.perf_counter()
    tasks = [asyncio.create_task(open_party(p)) for p in new]
    _done, late = await asyncio.wait(tasks, timeout=options.setup_timeout)
    for task in late:
        task.cancel()
    if late:
        tally.errors["party not opened"] += len(late)
        tally.error_samples.append(
            f"party not opened: {len(late)} parties were not open after "
            f"{options.setup_timeout:.0f} s"
        )
    return time.perf_counter() - setup_start


def _check_alive(servers: Sequence[Server]) -> None:
    for number, server in enumerate(servers, 1):
        if server.proc.poll() is not None:
            which = "the server process" if len(servers) == 1 else f"server process {number}"
            raise BenchError(
                f"{which} ended during the run (exit status {server.proc.returncode}); "
                "--server-log FILE keeps its output"
            )


@dataclass(slots=True)
class Ramp:
    """The state of one cluster's run: its servers and every party opened so far."""

    servers: Sequence[Server]
    urls: Sequence[str]
    options: BenchOptions
    progress: Progress
    label: str
    backends: bool
    rss_before: int = 0
    parties: list[Party] = field(default_factory=list)
    opened: list[Party] = field(default_factory=list)

    async def step(self, games: int, standins: Sequence[bool], *, final: bool) -> LoadFigures:
        """Open parties up to ``games``, measure one window, wait for its broadcasts.

        ``final``: no window follows, so the games stop shooting once it ends.
        """
        options, progress, label = self.options, self.progress, self.label
        tally = Tally()
        for party in self.parties:
            party.tally = tally
        new = [
            Party(
                i, standins[i], tally, options.pace, options.seed, compression=options.compression
            )
            for i in range(len(self.parties), games)
        ]
        self.parties.extend(new)
        setup_seconds = await _open_parties(
            new,
            self.urls,
            self.opened,
            party_servers(standins, len(self.urls)),
            options=options,
            progress=progress,
            label=label,
        )

        pids = [server.proc.pid for server in self.servers]
        tally.measuring = True
        measuring = progress.add_task(f"{label}measuring", total=options.seconds)
        before = CpuSample.now(pids)
        watch = asyncio.create_task(_watch_loop(tally))
        while (elapsed := time.perf_counter() - before.at) < options.seconds:
            progress.update(
                measuring,
                completed=elapsed,
                description=f"{label}measuring: "
                f"{len(tally.latencies) + len(tally.own_latencies)} shots timed, "
                f"{tally.events['standin_shot']} stand-in shots, "
                f"{sum(tally.errors.values())} errors",
            )
            await asyncio.sleep(min(0.25, options.seconds - elapsed))
        tally.measuring = False
        window_end = time.perf_counter()
        _check_alive(self.servers)
        after = CpuSample.now(pids)
        watch.cancel()
        rss_after = sum(rss_kib(pid) for pid in pids)
        progress.update(measuring, completed=options.seconds)

        # The last window stops the games; a window before it lets them play
        # on while its own last shots come back.
        tally.shooting = not final
        draining = progress.add_task(f"{label}waiting for the last broadcasts", total=None)
        drain_end = window_end + options.drain
        while time.perf_counter() < drain_end and any(
            p.pending is not None and p.pending.tally is tally for p in self.opened
        ):
            await asyncio.sleep(0.05)
        progress.update(draining, total=1, completed=1)
        grace = self.servers[0].standin_grace
        for party in self.opened:
            pending = party.pending
            if pending is not None and pending.tally is tally:
                tally.error(
                    "shot not broadcast",
                    f"party {party.index}: {pending.seat}'s shot not back within "
                    f"{options.drain:.0f} s of the window's end",
                )
            idle = window_end - party.last_progress
            if idle > grace + STALL_SLACK:
                tally.error("game stalled", f"party {party.index}: no shot for {idle:.0f} s")
        wall = after.at - before.at
        servers_cpu = tuple(
            (b - a) / wall for a, b in zip(before.servers, after.servers, strict=True)
        )
        return LoadFigures(
            games=games,
            opened=len(self.opened),
            standin_games=sum(p.standin for p in self.opened),
            seconds=options.seconds,
            latencies=tuple(tally.latencies),
            own_latencies=tuple(tally.own_latencies),
            standin_shots=tally.events["standin_shot"],
            timeouts=tally.events["timeout"],
            rounds=tally.events["round"],
            errors=dict(tally.errors),
            error_samples=tuple(tally.error_samples),
            rss_before_kib=self.rss_before,
            rss_after_kib=rss_after,
            setup_seconds=setup_seconds,
            standin_grace=grace,
            loop_lags=tuple(tally.loop_lags),
            server_cpu=sum(servers_cpu),
            bots_cpu=(after.bots - before.bots) / wall,
            shot_bytes=float(np.mean(tally.shot_bytes)) if tally.shot_bytes else 0.0,
            server_cpus=servers_cpu,
            postgres_cpu=(after.postgres - before.postgres) / wall if self.backends else None,
            redis_cpu=(after.redis - before.redis) / wall if self.backends else None,
            machine_cpu=(after.machine - before.machine) / wall,
        )


async def play_ramp(
    servers: Sequence[Server],
    steps: Sequence[int],
    options: BenchOptions,
    progress: Progress,
    *,
    label: str = "",
    stop_on_miss: bool = False,
    retries: int = 0,
    backends: bool = False,
) -> list[LoadFigures]:
    """Warm each server up, then measure each step of ``steps`` (party counts, rising).

    Each step opens parties up to its count (the earlier steps' parties keep
    playing) and measures a window of ``options.seconds``; a step that misses
    the target is measured again, on the same parties, up to ``retries``
    times (every window is in the figures).  With ``stop_on_miss`` the ramp
    ends after the first step none of whose windows met the target.
    ``backends``: the servers run on PostgreSQL and Redis, whose CPU is
    measured too.  ``label`` starts every progress line.
    """
    urls = [await protocol_2_websocket(server.base) for server in servers]
    several = len(servers) > 1
    warm = progress.add_task(
        f"{label}warm-up game against the CPU" + (" on each server" if several else ""),
        total=len(servers) if several else None,
    )

    async def warm_one(url: str) -> None:
        await warm_up(url)
        if several:
            progress.advance(warm)

    await asyncio.gather(*(warm_one(url) for url in urls))
    if not several:
        progress.update(warm, total=1, completed=1)
    ramp = Ramp(servers, urls, options, progress, label, backends)
    ramp.rss_before = sum(rss_kib(server.proc.pid) for server in servers)
    standins = standin_parties(max(steps), options.standin_share)
    figures: list[LoadFigures] = []
    try:
        for number, games in enumerate(steps, 1):
            for attempt in range(retries + 1):
                if len(steps) > 1 or attempt:
                    for task in list(progress.task_ids):
                        progress.remove_task(task)
                    again = f" (measured again, {attempt} of {retries})" if attempt else ""
                    ramp.label = f"{label}step {number}/{len(steps)}, {games} parties{again}: "
                final = number == len(steps) and attempt == retries
                step = await ramp.step(games, standins, final=final)
                figures.append(step)
                if step.meets_target:
                    break
            if stop_on_miss and not figures[-1].meets_target:
                break
    finally:
        for party in ramp.parties:
            party.tally.shooting = False
        await asyncio.gather(*(p.close() for p in ramp.parties))
    return figures


def _loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's event loop when installed (as the server runs on it): less of the bots' lag."""
    try:
        import uvloop  # noqa: PLC0415 - optional, with uvicorn[standard]
    except ImportError:
        return None
    factory: Callable[[], asyncio.AbstractEventLoop] = uvloop.new_event_loop
    return factory


PROGRESS_COLUMNS = (
    SpinnerColumn(),
    TextColumn("{task.description}"),
    BarColumn(),
    MofNCompleteColumn(),
    TimeElapsedColumn(),
)


_Figures = TypeVar("_Figures")


def run_reported(
    what: str,
    run: Callable[[], _Figures],
    report: Callable[[_Figures], None],
    console: Console,
) -> int:
    """Run a benchmark of real servers and print its report: 0, 1 if the server could not
    run, 2 without the websockets client library (the exit codes of ``crokinole bench``)."""
    if not HAVE_WEBSOCKETS:
        console.print(f"the {what} benchmark needs the websockets client library")
        return 2
    start = time.perf_counter()
    try:
        figures = run()
    except (BenchError, RuntimeError) as exc:
        console.print(f"[red]the benchmark could not run:[/red] {exc}")
        return 1
    report(figures)
    console.print(f"benchmark ran in {time.perf_counter() - start:.0f} s")
    return 0


def run_server_bench(
    games: Sequence[int], options: BenchOptions, console: Console
) -> list[LoadFigures]:
    """Measure each party count on a fresh server; the figures in the same order."""
    figures: list[LoadFigures] = []
    with Progress(*PROGRESS_COLUMNS, console=console, transient=True) as progress:
        for count in games:
            starting: TaskID = progress.add_task(
                f"{count} parties: starting the server", total=None
            )
            log = options.server_log
            if log is not None and len(games) > 1:
                log = log.with_name(f"{log.stem}-{count}{log.suffix}")
            server = ServerOptions(
                count, options.standin_grace, options.db, log, options.server_compress
            )
            with running_server(server) as running:
                progress.update(starting, total=1, completed=1)
                with asyncio.Runner(loop_factory=_loop_factory()) as runner:
                    figures.extend(runner.run(play_ramp([running], [count], options, progress)))
            for task in list(progress.task_ids):
                progress.remove_task(task)
    return figures


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}es"


def run_cluster_bench(
    processes: Sequence[int],
    steps: Sequence[int],
    options: BenchOptions,
    console: Console,
    *,
    stop_on_miss: bool = True,
) -> list[RampFigures]:
    """Ramp each process count up on a fresh cluster (PostgreSQL schema, Redis prefix).

    Every process count runs on ``options.pg`` and ``options.redis``; the
    figures come in the order of ``processes``.  The ramp of each ends after
    its first step that misses the target, unless ``stop_on_miss`` is false.
    """
    results: list[RampFigures] = []
    with Progress(*PROGRESS_COLUMNS, console=console, transient=True) as progress:
        for count in processes:
            label = f"{_plural(count, 'process')}: "
            starting = progress.add_task(f"{label}starting the cluster", total=None)
            log = options.server_log
            if log is not None and len(processes) > 1:
                log = log.with_name(f"{log.stem}-{count}{log.suffix}")
            prefix = f"crokinole-bench-{secrets.token_hex(6)}:"
            try:
                with fresh_schema(options.pg) as db:
                    server = ServerOptions(
                        max(steps), options.standin_grace, db, log, options.server_compress,
                        processes=count, redis=options.redis, redis_prefix=prefix,
                    )  # fmt: skip
                    with running_cluster(server) as running:
                        progress.update(starting, total=1, completed=1)
                        ramp = play_ramp(
                            running, steps, options, progress,
                            label=label, stop_on_miss=stop_on_miss, retries=options.retries,
                            backends=True,
                        )  # fmt: skip
                        with asyncio.Runner(loop_factory=_loop_factory()) as runner:
                            figures = runner.run(ramp)
            finally:
                delete_redis_keys(options.redis, prefix)
            results.append(RampFigures(count, tuple(figures), max(steps)))
            for task in list(progress.task_ids):
                progress.remove_task(task)
    return results


# -------------------------------------------------------------------- report


def _verdict(figures: LoadFigures) -> str:
    if figures.games != TARGET_GAMES:
        return f"[dim]at {TARGET_GAMES}[/dim]"
    return "[green]PASS[/green]" if figures.meets_target else "[red]MISS[/red]"


def _quantile(value: Quantile | None) -> str:
    return "n/a" if value is None else value.text()


def _memory(kib: float | None) -> str:
    return "n/a" if kib is None else f"{kib:,.0f} KiB"


def print_server_report(
    figures: Sequence[LoadFigures], options: BenchOptions, console: Console
) -> None:
    """Print the latency table with the target, the errors and the memory per game."""
    if not figures:
        console.print("nothing was measured")
        return
    table = Table(
        title=(
            "Server load: shot to broadcast on the other player's socket "
            f"(target: p99 ≤ {TARGET_P99_MS:.0f} ms and no errors at {TARGET_GAMES} parties)"
        ),
        caption=(
            f"one server process on loopback; {options.seconds:g} s measured per row, a shot "
            f"every {options.pace:g} s per game; [95% order-statistic interval], '?': too few "
            f"shots; {os.cpu_count()} CPUs shared by the server and the bots; "
            + (
                "the server compresses (crokinole serve --compress)"
                if options.server_compress and options.compression
                else "no compression (crokinole serve's default)"
            )
        ),
    )
    for name in ("parties", "stand-in", "shots timed", "p50 ms", "p99 ms", "target",
                 "stand-in shots", "errors", "memory per game"):  # fmt: skip
        table.add_column(name, justify="right")
    for f in figures:
        table.add_row(
            f"{f.opened}" if f.opened == f.games else f"{f.opened} of {f.games}",
            str(f.standin_games),
            f"{len(f.latencies):,}",
            _quantile(f.p50),
            _quantile(f.p99),
            _verdict(f),
            f"{f.standin_shots:,}",
            str(f.error_count) if f.error_count == 0 else f"[red]{f.error_count}[/red]",
            _memory(f.memory_per_game_kib),
        )
    console.print(table)

    details = Table(
        title="Details",
        caption=(
            "own socket: the shooter's, in stand-in parties; bots' loop lag: how late the "
            "bots' event loop woke up, a part of every latency that is not the server's; "
            "CPU: share of one core used in the window (the server's threads together); "
            "shot message: mean size of its text"
        ),
    )
    for name in ("parties", "opening", "rounds", "timeouts", "own socket p50 ms", "own p99 ms",
                 "bots' loop lag p99 ms", "CPU server / bots", "shot message",
                 "stand-in grace", "server RSS"):  # fmt: skip
        details.add_column(name, justify="right")
    for f in figures:
        details.add_row(
            str(f.games),
            f"{f.setup_seconds:.1f} s",
            str(f.rounds),
            str(f.timeouts),
            _quantile(Quantile.of(f.own_latencies, 0.5)),
            _quantile(Quantile.of(f.own_latencies, 0.99)),
            _quantile(Quantile.of(f.loop_lags, 0.99)),
            f"{f.server_cpu:.0%} / {f.bots_cpu:.0%}",
            f"{f.shot_bytes / 1024:.1f} KiB",
            f"{f.standin_grace:g} s",
            f"{f.rss_before_kib / 1024:,.0f} → {f.rss_after_kib / 1024:,.0f} MiB",
        )
    console.print(details)

    for f in figures:
        if not f.errors:
            continue
        console.print(f"[red]errors at {f.games} parties:[/red]")
        for kind, count in sorted(f.errors.items()):
            console.print(f"  {kind}: {count}")
        for sample in f.error_samples:
            console.print(f"  e.g. {sample}", markup=False)
    if all(f.error_count == 0 for f in figures):
        console.print("no errors: no error message, no dropped socket, every shot came back")


SPREAD_WORDS = {
    "party": "party: both players of a party on one process, parties in turn over the processes",
    "connection": "connection: the joining player on the next process after the host's, so "
    "one player's every command crosses Redis",
}


def _share_text(share: float | None) -> str:
    return "n/a" if share is None else f"{share:.0%}"


#: Other work on the machine above this share of a core makes a step's figures suspect.
DISTURBED = 0.2


def _others_text(share: float | None) -> str:
    text = _share_text(share)
    return f"[yellow]{text}[/yellow]" if share is not None and share > DISTURBED else text


def _errors_text(count: int) -> str:
    return str(count) if count == 0 else f"[red]{count}[/red]"


def _step_verdict(step: LoadFigures) -> str:
    if step.meets_target:
        return "[green]held[/green]"
    p99 = step.p99
    reasons = []
    if p99 is None:
        reasons.append("no shot timed")
    elif p99.ms > TARGET_P99_MS:
        reasons.append(f"p99 > {TARGET_P99_MS:.0f} ms")
    if step.error_count:
        reasons.append("errors")
    return f"[red]MISS: {', '.join(reasons)}[/red]"


def _held_text(result: RampFigures) -> str:
    return f"{result.held}+" if result.capped else str(result.held)


def ratio_verdict(results: Sequence[RampFigures]) -> str | None:
    """The issue's verdict in words, when 1 and 2 processes were measured: the ratio and target."""
    by_count = {r.processes: r for r in results}
    one, two = by_count.get(1), by_count.get(2)
    if one is None or two is None:
        return None
    ratio = held_ratio(two.held, one.held)
    if ratio is None:
        return (
            f"[red]MISS[/red]: one process held no step of the ramp (not even {one.steps[0].games} "
            "parties), so there is no ratio; lower --step"
        )
    bound = ""
    if two.capped and not one.capped:
        bound = " (at least: 2 processes held the ramp's top; raise --max-games)"
    elif one.capped:
        bound = " (not measured: 1 process held the ramp's top; raise --max-games)"
    passed = ratio >= TARGET_RATIO and not one.capped
    verdict = "[green]PASS[/green]" if passed else "[red]MISS[/red]"
    return (
        f"{verdict}: 2 processes held {two.held} parties, 1 process {one.held}: "
        f"{ratio:.2f}× (target ≥ {TARGET_RATIO:g}× at p99 ≤ {TARGET_P99_MS:.0f} ms, "
        f"no errors){bound}"
    )


def print_cluster_report(
    results: Sequence[RampFigures], options: BenchOptions, console: Console
) -> None:
    """Print each process count's ramp, then the games each held and the ratio to the first."""
    if not results:
        console.print("nothing was measured")
        return
    cores = os.cpu_count()
    console.print(
        f"set-up: PostgreSQL {shown_url(options.pg)} (a fresh schema for each process count), "
        f"Redis {shown_url(options.redis)} (a key prefix of its own for each); spread: "
        f"{SPREAD_WORDS[options.spread]}",
        markup=False,
    )
    for result in results:
        table = Table(
            title=(
                f"{_plural(result.processes, 'process')} on PostgreSQL + Redis: "
                "shot to broadcast on the other player's socket, parties added step by step"
            ),
            caption=(
                f"{options.seconds:g} s measured per window, the earlier steps' parties playing "
                f"on; a step that missed is measured again ('again', up to {options.retries} "
                "times) and held if one window met the target; "
                f"a shot every {options.pace:g} s per game; [95% interval]; CPU: share of one "
                f"core in the window (servers: each process); others: the rest of the machine's "
                f"{cores} CPUs' busy time, other work than this run's (above {DISTURBED:.0%}: "
                "in yellow, the figures are not the servers' alone)"
            ),
        )
        for name in ("parties", "shots timed", "p50 ms", "p99 ms", "errors",
                     "bots' loop lag p99 ms", "CPU servers", "bots", "PostgreSQL",
                     "Redis", "others", "verdict"):  # fmt: skip
            table.add_column(name, justify="right")
        previous = None
        for step in result.steps:
            parties = (
                f"{step.opened}" if step.opened == step.games else f"{step.opened} of {step.games}"
            )
            if previous is not None and previous.games == step.games:
                parties += " again"
            previous = step
            table.add_row(
                parties,
                f"{len(step.latencies):,}",
                _quantile(step.p50),
                _quantile(step.p99),
                _errors_text(step.error_count),
                _quantile(Quantile.of(step.loop_lags, 0.99)),
                " + ".join(_share_text(share) for share in step.server_cpus),
                _share_text(step.bots_cpu),
                _share_text(step.postgres_cpu),
                _share_text(step.redis_cpu),
                _others_text(step.others_cpu),
                _step_verdict(step),
            )
        console.print(table)
        for step in result.steps:
            if step.errors:
                console.print(
                    f"[red]errors with {_plural(result.processes, 'process')} at "
                    f"{step.games} parties:[/red]"
                )
                for kind, count in sorted(step.errors.items()):
                    console.print(f"  {kind}: {count}", markup=False)
                for sample in step.error_samples:
                    console.print(f"  e.g. {sample}", markup=False)

    first = results[0]
    summary = Table(
        title=(
            f"Games held: the most parties with p99 ≤ {TARGET_P99_MS:.0f} ms and no errors "
            f"(target: 2 processes hold ≥ {TARGET_RATIO:g}× the games of one)"
        ),
        caption="'+': the ramp's top was held, the processes may hold more (raise --max-games)",
    )
    for name in ("processes", "games held", "p50 ms", "p99 ms", "CPU servers",
                 f"ratio to {_plural(first.processes, 'process')}"):  # fmt: skip
        summary.add_column(name, justify="right")
    for result in results:
        held = result.held_step
        ratio = held_ratio(result.held, first.held)
        summary.add_row(
            str(result.processes),
            _held_text(result),
            _quantile(None if held is None else held.p50),
            _quantile(None if held is None else held.p99),
            "n/a" if held is None else " + ".join(_share_text(s) for s in held.server_cpus),
            "n/a" if ratio is None else f"{ratio:.2f}×",
        )
    console.print(summary)
    verdict = ratio_verdict(results)
    if verdict is not None:
        console.print(verdict)


# ------------------------------------------------------------- command line


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text}")
    return value


def _share(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be a share between 0 and 1, got {text}")
    return value


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    """The options of the benchmark (``prog`` names the command in messages)."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description=(
            "Start one crokinole server process on a free loopback port with a fresh "
            "SQLite database, then let bot clients play concurrent online singles parties "
            "over real websockets (protocol 2) at ten times human pace, with the server's "
            "stand-in CPU playing for a player who left in some of them. Print the "
            "shot-to-broadcast latency (p50, p99, 95%% intervals), the errors and the "
            "server's memory per game, beside the target: p99 <= 100 ms and no errors at "
            "200 parties. With --processes 1 2: clusters of 1 and of 2 server processes on "
            "PostgreSQL and Redis, parties added step by step until a step misses p99 <= 100 "
            "ms with no errors; print the games each held and the ratio, beside the target: "
            "2 processes hold at least 1.6x the games of one. Needs the websockets library "
            "(the 'bench' extra)."
        ),
    )
    parser.add_argument(
        "--games",
        type=count_argument(1),
        nargs="+",
        default=None,
        metavar="N",
        help="concurrent parties (two bots each); several values measure each on a fresh "
        f"server, e.g. --games 50 100 200 (default: {DEFAULT_GAMES}); with --processes, the "
        "steps of the ramp instead of --step and --max-games",
    )
    parser.add_argument(
        "--seconds",
        type=_seconds,
        default=DEFAULT_SECONDS,
        metavar="S",
        help="length of the measuring window, after every party is open (default: %(default)s)",
    )
    parser.add_argument(
        "--pace",
        type=_seconds,
        default=DEFAULT_PACE,
        metavar="S",
        help="seconds between a game's shots: a bot shoots this long after its game's "
        "previous shot, or when that shot is back if later; 0.5 is ten times human pace "
        "(default: %(default)s)",
    )
    parser.add_argument(
        "--standin-share",
        type=_share,
        default=DEFAULT_STANDIN_SHARE,
        metavar="F",
        help="share of the parties whose second player disconnects once the game has "
        "started, so the server's stand-in CPU plays that seat (default: %(default)s)",
    )
    parser.add_argument(
        "--standin-grace",
        type=_seconds,
        default=DEFAULT_STANDIN_GRACE,
        metavar="S",
        help="the server's stand-in grace (crokinole serve --standin-grace): seconds a "
        "missing player's turn waits before the CPU takes over (default: %(default)s; "
        "players get 10)",
    )
    parser.add_argument(
        "--drain",
        type=_seconds,
        default=DEFAULT_DRAIN,
        metavar="S",
        help="after the window, seconds to wait for the broadcasts of shots sent in it; "
        "a shot not back by then is an error (default: %(default)s)",
    )
    parser.add_argument(
        "--setup-timeout",
        type=_seconds,
        default=DEFAULT_SETUP_TIMEOUT,
        metavar="S",
        help="seconds to open all parties; parties not open by then are errors "
        "(default: %(default)s)",
    )
    parser.add_argument(
        "--seed",
        type=count_argument(0),
        default=DEFAULT_SEED,
        metavar="N",
        help="seed of the bots' shots (default: %(default)s)",
    )
    parser.add_argument(
        "--db",
        default=None,
        metavar="URL",
        help="the server's database: a SQLAlchemy URL or SQLite path (default: a new "
        "SQLite file in a temporary folder, deleted afterwards)",
    )
    parser.add_argument(
        "--no-compression",
        action="store_true",
        help="the bots do not offer the websocket's permessage-deflate compression "
        "(browsers do; it matters only with --server-compress)",
    )
    parser.add_argument(
        "--server-compress",
        action="store_true",
        help="start the server with --compress, so it compresses its messages for the bots "
        "that offer it (off by default, as in crokinole serve)",
    )
    parser.add_argument(
        "--server-log",
        type=Path,
        default=None,
        metavar="FILE",
        help="keep the server's output (warnings and errors) in FILE; with several --games "
        "values, one file each, named FILE-N; with --processes, FILE-N for N processes and "
        "FILE-N-pK for process K (default: not kept)",
    )
    cluster = parser.add_argument_group(
        "several processes",
        "Clusters of server processes on PostgreSQL and Redis (crokinole serve --redis), "
        "each process count ramped up on its own fresh schema and Redis key prefix.",
    )
    cluster.add_argument(
        "--processes",
        type=count_argument(1),
        nargs="+",
        default=None,
        metavar="N",
        help="server processes of each cluster measured, e.g. --processes 1 2; for each, "
        "parties are added step by step (--step) until a step misses p99 <= 100 ms with no "
        "errors, and the report gives the games held and their ratio to the first count's "
        f"(at most {MAX_PROCESSES}; default: one process on SQLite, no ramp)",
    )
    cluster.add_argument(
        "--spread",
        choices=SPREADS,
        default=None,
        help="which process each bot connects to: 'party' puts a party's two players on one "
        "process, parties in turn over the processes (a load balancer hashing on the party); "
        "'connection' puts the joining player on the next process after the host's, so one "
        "player's every command crosses Redis (default: party)",
    )
    cluster.add_argument(
        "--step",
        type=count_argument(1),
        default=None,
        metavar="N",
        help=f"parties added at each step of the ramp (default: {DEFAULT_STEP})",
    )
    cluster.add_argument(
        "--max-games",
        type=count_argument(1),
        default=None,
        metavar="N",
        help="the ramp's last step: the most parties a cluster is given "
        f"(default: {DEFAULT_MAX_GAMES})",
    )
    cluster.add_argument(
        "--retries",
        type=count_argument(0),
        default=None,
        metavar="N",
        help="a step that misses is measured again, on the same parties, up to N times, and "
        "held if one of its windows meets the target (a single stall of the machine can "
        f"decide a p99); every window is shown (default: {DEFAULT_RETRIES})",
    )
    cluster.add_argument(
        "--pg",
        type=database_argument,
        default=None,
        metavar="URL",
        help="the PostgreSQL database whose fresh schema each cluster uses, dropped "
        f"afterwards (default: {DEFAULT_PG})",
    )
    cluster.add_argument(
        "--redis",
        type=redis_argument,
        default=None,
        metavar="URL",
        help="the Redis the clusters share games through, under a key prefix of each "
        f"cluster's own, deleted afterwards (default: {DEFAULT_REDIS})",
    )
    return parser


def check_options(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuse options that do not go together (argparse's error: status 2), fill defaults."""
    cluster_only = {
        "--spread": args.spread,
        "--step": args.step,
        "--max-games": args.max_games,
        "--retries": args.retries,
        "--pg": args.pg,
        "--redis": args.redis,
    }
    if args.processes is None:
        given = [flag for flag, value in cluster_only.items() if value is not None]
        if given:
            parser.error(f"{', '.join(given)} go(es) with --processes (several server processes)")
        if args.games is None:
            args.games = [DEFAULT_GAMES]
        return
    if args.db is not None:
        parser.error("--db is the one-process run's database; with --processes give --pg URL")
    if max(args.processes) > MAX_PROCESSES:
        parser.error(f"--processes: at most {MAX_PROCESSES} server processes")
    if args.games is not None and (args.step is not None or args.max_games is not None):
        parser.error("--games gives the ramp's steps itself: leave out --step and --max-games")
    pg = args.pg or DEFAULT_PG
    if not pg.startswith("postgresql+psycopg://"):
        parser.error("--pg: must be a postgresql+psycopg:// URL (the clusters share PostgreSQL)")
    args.pg = pg
    args.redis = args.redis or DEFAULT_REDIS
    args.spread = args.spread or "party"
    args.processes = sorted(set(args.processes))
    if args.games is not None:
        args.games = sorted(set(args.games))
    else:
        step = args.step or DEFAULT_STEP
        top = args.max_games or DEFAULT_MAX_GAMES
        if step > top:
            parser.error(f"--step {step} is above --max-games {top}")
        args.games = ramp_steps(step, top)


def command_line(argv: Sequence[str], prog: str | None) -> str:
    """The command as it was typed (``prog``: how it was called; the script's path if None).

    >>> command_line(["--processes", "1", "2"], "crokinole bench server")
    'crokinole bench server --processes 1 2'
    """
    called = prog or f"python {os.path.relpath(SCRIPT_PATH)}"
    return " ".join([called, *([shlex.join(argv)] if argv else [])])


SCRIPT_PATH = Path(__file__).resolve()


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    """Run the benchmark with command-line options; print the figures.

    Returns 0 once the figures are printed (a missed target is a figure, not a
    failure), 1 if the server could not be started or warmed up, and 2 without
    the websockets library or, with ``--processes``, when PostgreSQL or Redis
    cannot be reached (one line on stderr).  Bad options make argparse exit
    with status 2.
    """
    words = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(prog)
    args = parser.parse_args(words)
    check_options(parser, args)
    console = Console()
    if not HAVE_WEBSOCKETS:
        console.print(
            "the server benchmark needs the websockets client library: "
            "pip install 'crokinole\\[bench]'"
        )
        return 2
    options = BenchOptions(
        seconds=args.seconds,
        pace=args.pace,
        standin_share=args.standin_share,
        standin_grace=args.standin_grace,
        drain=args.drain,
        setup_timeout=args.setup_timeout,
        seed=args.seed,
        db=args.db,
        server_log=args.server_log,
        compression=not args.no_compression,
        server_compress=args.server_compress,
        spread=args.spread or "party",
        retries=DEFAULT_RETRIES if args.retries is None else args.retries,
        pg=args.pg or DEFAULT_PG,
        redis=args.redis or DEFAULT_REDIS,
    )
    if args.processes is not None:
        problem = backend_problem(options.pg, options.redis)
        if problem is not None:
            print(f"{parser.prog}: {problem}", file=sys.stderr)
            return 2
    console.print(f"command: {command_line(words, prog)}", markup=False, soft_wrap=True)
    start = time.perf_counter()
    try:
        if args.processes is None:
            figures = run_server_bench(args.games, options, console)
        else:
            results = run_cluster_bench(args.processes, args.games, options, console)
    except (BenchError, RuntimeError) as exc:
        console.print(f"[red]the benchmark could not run:[/red] {exc}", markup=True)
        return 1
    if args.processes is None:
        print_server_report(figures, options, console)
    else:
        print_cluster_report(results, options, console)
    console.print(f"benchmark ran in {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
