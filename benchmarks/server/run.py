"""A run: parties opened on the servers step by step, each step's window measured.

:class:`Ramp` holds one cluster's parties and measures a window per step;
:func:`play_ramp` warms the servers up and measures every step of a ramp;
:func:`run_server_bench` (one server per party count) and
:func:`run_cluster_bench` (one cluster per process count, on PostgreSQL and
Redis) start the servers and run it, and :func:`run_fixed_bench` runs either
for the fixed-load mode (each party count measured once, its costs
counted); :class:`BenchOptions` are the benchmark's settings.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import math
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

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

from .bots import HAVE_WEBSOCKETS, BenchError, Party, Tally, protocol_2_websocket, warm_up
from .processes import (
    CounterReader,
    CounterSample,
    CpuSample,
    Server,
    ServerOptions,
    delete_redis_keys,
    fresh_database,
    rss_kib,
    running_cluster,
    running_server,
)
from .statistics import FixedFigures, LoadFigures, RampFigures, WindowCounts

# The client library is in the 'bench' (and 'dev') extra: bots.HAVE_WEBSOCKETS says so.
with contextlib.suppress(ImportError):
    from websockets.exceptions import ConnectionClosed


#: The defaults of the options (``--seconds``, ``--pace`` ...).
DEFAULT_SECONDS = 60.0
DEFAULT_PACE = 0.5
DEFAULT_STANDIN_SHARE = 0.25
DEFAULT_STANDIN_GRACE = 2.0
DEFAULT_DRAIN = 5.0
DEFAULT_SETUP_TIMEOUT = 300.0
DEFAULT_SEED = 0
#: Several processes (``--processes``): where the cluster keeps its data.
DEFAULT_PG = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
DEFAULT_REDIS = "redis://127.0.0.1:6379/0"
#: A step that misses is measured again this many times: one stall can decide a p99.
DEFAULT_RETRIES = 1
#: Parties being opened at once (each is a few round trips).
OPEN_CONCURRENCY = 16
#: A game that has not moved for this long beyond the stand-in grace has stalled.
STALL_SLACK = 15.0
#: Seconds between two samples of the bots' event-loop lag.
LAG_TICK = 0.01


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
    counters: CounterReader
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
        # The counters are read off the event loop (a few round trips), just
        # outside the CPU samples: their reads are not the window's cost.
        counted_before = await asyncio.to_thread(self.counters.read)
        tally.measuring = True
        measuring = progress.add_task(f"{label}measuring", total=options.seconds)
        before = CpuSample.now(pids, self.counters.database)
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
        after = CpuSample.now(pids, self.counters.database)
        counted_after = await asyncio.to_thread(self.counters.read)
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
            counts=window_counts(
                counted_before, counted_after, before, after, tally.events["shot"],
                backends=self.backends, parties=len(self.opened),
            ),
        )  # fmt: skip


def _moved(before: CounterSample, after: CounterSample, name: str) -> int:
    # A counter of crokinole.metrics, summed over the servers.
    metric = f"crokinole_{name}_total"
    return round(
        sum(b.get(metric, 0.0) - a.get(metric, 0.0)
            for a, b in zip(before.servers, after.servers, strict=True))
    )  # fmt: skip


_Number = TypeVar("_Number", int, float)


def _difference(before: _Number | None, after: _Number | None, own: int = 0) -> _Number | None:
    return None if before is None or after is None else after - before - own


def window_counts(
    before: CounterSample,
    after: CounterSample,
    cpu_before: CpuSample,
    cpu_after: CpuSample,
    shots_seen: int,
    *,
    backends: bool,
    parties: int,
) -> WindowCounts:
    """What a window cost, from the counters and the CPU read at its two ends.

    ``backends``: the run is on PostgreSQL and Redis, whose CPU is its own;
    ``parties``: those playing in the window.
    """
    return WindowCounts(
        shots=_moved(before, after, "shots"),
        shots_seen=shots_seen,
        server_commits=_moved(before, after, "db_commits"),
        server_connections=_moved(before, after, "db_connections"),
        leases_lost=_moved(before, after, "leases_lost"),
        server_cpu=tuple(b - a for a, b in zip(cpu_before.servers, cpu_after.servers, strict=True)),
        bots_cpu=cpu_after.bots - cpu_before.bots,
        postgres_cpu=cpu_after.postgres - cpu_before.postgres
        if before.pg_commits is not None
        else None,
        redis_cpu=cpu_after.redis - cpu_before.redis if backends else None,
        backends_cpu=_difference(cpu_before.backends, cpu_after.backends),
        pg_commits=_difference(before.pg_commits, after.pg_commits),
        pg_sessions=_difference(before.pg_sessions, after.pg_sessions),
        pg_wal_bytes=_difference(before.pg_wal_bytes, after.pg_wal_bytes),
        redis_commands=_difference(
            before.redis_commands, after.redis_commands, CounterReader.REDIS_OWN_COMMANDS
        ),
        parties=parties,
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
    pg: str | None = None,
    redis: str | None = None,
) -> list[LoadFigures]:
    """Warm each server up, then measure each step of ``steps`` (party counts, rising).

    Each step opens parties up to its count (the earlier steps' parties keep
    playing) and measures a window of ``options.seconds``; a step that misses
    the target is measured again, on the same parties, up to ``retries``
    times (every window is in the figures).  With ``stop_on_miss`` the ramp
    ends after the first step none of whose windows met the target.
    ``backends``: the servers run on PostgreSQL and Redis, whose CPU is
    measured too.  Each window's counts (:class:`WindowCounts`) are read from
    the servers' ``/metrics``, and from ``pg``'s statistics and ``redis``'s
    INFO when given.  ``label`` starts every progress line.
    """
    counters = CounterReader([server.base for server in servers], pg, redis)
    try:
        return await _play_ramp(
            servers, steps, options, progress, counters,
            label=label, stop_on_miss=stop_on_miss, retries=retries, backends=backends,
        )  # fmt: skip
    finally:
        counters.close()


async def _play_ramp(
    servers: Sequence[Server],
    steps: Sequence[int],
    options: BenchOptions,
    progress: Progress,
    counters: CounterReader,
    *,
    label: str,
    stop_on_miss: bool,
    retries: int,
    backends: bool,
) -> list[LoadFigures]:
    # The first read opens the connections, long before the first window.
    await asyncio.to_thread(counters.read)
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
    ramp = Ramp(servers, urls, options, progress, label, backends, counters)
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


def loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
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
                with asyncio.Runner(loop_factory=loop_factory()) as runner:
                    played = play_ramp(
                        [running], [count], options, progress, pg=postgres_url(options.db)
                    )
                    figures.extend(runner.run(played))
            for task in list(progress.task_ids):
                progress.remove_task(task)
    return figures


def postgres_url(db: str | None) -> str | None:
    """``db`` if it is a PostgreSQL URL (the run reads its statistics), else None.

    >>> postgres_url("postgresql+psycopg://postgres@127.0.0.1/test") is not None
    True
    >>> postgres_url("bench.db") is None and postgres_url(None) is None
    True
    """
    return db if db is not None and db.startswith("postgresql") else None


def plural(count: int, word: str) -> str:
    """``1 process``, ``2 processes``: a count and its word (the report's too)."""
    return f"{count} {word}" if count == 1 else f"{count} {word}es"


def run_cluster_bench(
    processes: Sequence[int],
    steps: Sequence[int],
    options: BenchOptions,
    console: Console,
    *,
    stop_on_miss: bool = True,
) -> list[RampFigures]:
    """Ramp each process count up on a fresh cluster (PostgreSQL database, Redis prefix).

    Every process count runs on ``options.pg`` and ``options.redis``; the
    figures come in the order of ``processes``.  The ramp of each ends after
    its first step that misses the target, unless ``stop_on_miss`` is false.
    """
    results: list[RampFigures] = []
    with Progress(*PROGRESS_COLUMNS, console=console, transient=True) as progress:
        for count in processes:
            label = f"{plural(count, 'process')}: "
            starting = progress.add_task(f"{label}starting the cluster", total=None)
            log = options.server_log
            if log is not None and len(processes) > 1:
                log = log.with_name(f"{log.stem}-{count}{log.suffix}")
            prefix = f"crokinole-bench-{secrets.token_hex(6)}:"
            try:
                with fresh_database(options.pg) as db:
                    server = ServerOptions(
                        max(steps), options.standin_grace, db, log, options.server_compress,
                        processes=count, redis=options.redis, redis_prefix=prefix,
                    )  # fmt: skip
                    with running_cluster(server) as running:
                        progress.update(starting, total=1, completed=1)
                        ramp = play_ramp(
                            running, steps, options, progress,
                            label=label, stop_on_miss=stop_on_miss, retries=options.retries,
                            backends=True, pg=db, redis=options.redis,
                        )  # fmt: skip
                        with asyncio.Runner(loop_factory=loop_factory()) as runner:
                            figures = runner.run(ramp)
            finally:
                delete_redis_keys(options.redis, prefix)
            results.append(RampFigures(count, tuple(figures), max(steps)))
            for task in list(progress.task_ids):
                progress.remove_task(task)
    return results


def run_fixed_bench(
    processes: Sequence[int] | None,
    games: Sequence[int],
    options: BenchOptions,
    console: Console,
) -> list[FixedFigures]:
    """The fixed-load mode: each party count of ``games`` measured once, in one window.

    Without ``processes``, one server process per party count, on its own
    database (``options.db``, else a new SQLite file); with them, a cluster
    of each process count on PostgreSQL and Redis, whose party counts are
    measured one after the other on the same cluster (the earlier ones'
    parties playing on), never measured again.
    """
    if processes is None:
        database = "SQLite" if postgres_url(options.db) is None else "PostgreSQL"
        return [
            FixedFigures(1, False, database, "party", options.pace, window)
            for window in run_server_bench(games, options, console)
        ]
    once = dataclasses.replace(options, retries=0)
    return [
        FixedFigures(result.processes, True, "PostgreSQL", options.spread, options.pace, window)
        for result in run_cluster_bench(processes, games, once, console, stop_on_miss=False)
        for window in result.steps
    ]
