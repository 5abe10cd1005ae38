"""The benchmark's figures: quantiles with distribution-free intervals, and what a run measured.

:func:`quantile_interval` gives a quantile of the latencies with an exact
order-statistic interval; :class:`LoadFigures` is one measuring window's
figures, :class:`RampFigures` one process count's ramp of them, beside the
issue's targets (:data:`TARGET_P99_MS` at :data:`TARGET_GAMES` parties,
:data:`TARGET_RATIO` for two processes).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

#: The issue's target: at this many parties, p99 at most this, and no errors.
TARGET_GAMES = 200
TARGET_P99_MS = 100.0
#: The issue's target for several processes: 2 hold this many times the games of 1.
TARGET_RATIO = 1.6


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
        counts: what the window cost, as the servers, PostgreSQL and Redis
            counted it (:class:`WindowCounts`), or None when not counted.
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
    counts: WindowCounts | None = None

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


# ------------------------------------------------------- fixed load (--fixed)

#: The fixed-load targets' conditions: this many parties, a shot every this many
#: seconds per game, over a window at least this long (one process on SQLite).
FIXED_GAMES = 200
FIXED_PACE = 0.5
FIXED_SECONDS = 120.0
#: One process on SQLite: server CPU per shot (ms), and p99 as in TARGET_P99_MS.
SQLITE_SERVER_MS = 1.0
#: Several processes on PostgreSQL + Redis, a party's players on one process:
#: server CPU and PostgreSQL CPU per shot (ms) ...
CLUSTER_SERVER_MS = 1.5
CLUSTER_POSTGRES_MS = 0.5
#: ... and a party split across two processes (``--spread connection``) at most this times that.
SPLIT_FACTOR = 1.5


def per_shot(value: float | None, shots: int, scale: float = 1.0) -> float | None:
    """``value`` divided among ``shots`` (times ``scale``: 1000 turns seconds into ms).

    None when there is no figure, or no shot to divide it among.

    >>> per_shot(0.5, 1000, 1000.0)
    0.5
    >>> per_shot(3.0, 0) is None
    True
    """
    if value is None or shots <= 0:
        return None
    return value * scale / shots


@dataclass(frozen=True, slots=True)
class WindowCounts:
    """What one window cost: counted by the servers, PostgreSQL, Redis and ``/proc``.

    Attributes:
        shots: shots the servers applied in the window (their counter ``shots``,
            summed over the processes): what every cost is divided by.
        shots_seen: shots whose broadcast the bots saw in the window (each
            party's once): the cross-check of ``shots``.
        server_commits: database commits the servers counted.
        server_connections: new database connections the servers counted.
        leases_lost: leases the servers lost (0 on one process without Redis).
        server_cpu: CPU seconds of each server process in the window.
        bots_cpu: CPU seconds of this process (the bots).
        postgres_cpu: CPU seconds of every PostgreSQL process of the machine
            (with the backends that ended), None when the run has no PostgreSQL.
        redis_cpu: the same for ``redis-server``, None without Redis.
        backends_cpu: CPU seconds of the PostgreSQL backends connected to the
            run's database (of ``postgres_cpu``, this run's own part; those that
            ended are not counted), None without PostgreSQL.
        pg_commits: ``xact_commit`` of ``pg_stat_database`` for the run's
            database (every client's, this run's or not), None without PostgreSQL.
        pg_sessions: the same of ``sessions``: new connections to it.
        pg_wal_bytes: bytes of write-ahead log PostgreSQL wrote (the whole
            server's, ``pg_stat_wal``), None without PostgreSQL.
        redis_commands: ``total_commands_processed`` of Redis (every client's),
            without the benchmark's own reads, None without Redis.
        parties: the parties playing in the window.
    """

    shots: int
    shots_seen: int
    server_commits: int
    server_connections: int
    leases_lost: int
    server_cpu: tuple[float, ...]
    bots_cpu: float
    postgres_cpu: float | None = None
    redis_cpu: float | None = None
    backends_cpu: float | None = None
    pg_commits: int | None = None
    pg_sessions: int | None = None
    pg_wal_bytes: int | None = None
    redis_commands: int | None = None
    parties: int = 0

    @property
    def server_ms(self) -> float | None:
        """Server CPU milliseconds per shot, the processes together."""
        return per_shot(sum(self.server_cpu), self.shots, 1000.0)

    @property
    def server_ms_each(self) -> tuple[float | None, ...]:
        """Each server process's CPU milliseconds per shot (of all the shots)."""
        return tuple(per_shot(cpu, self.shots, 1000.0) for cpu in self.server_cpu)

    @property
    def postgres_ms(self) -> float | None:
        """PostgreSQL's CPU milliseconds per shot (None without PostgreSQL)."""
        return per_shot(self.postgres_cpu, self.shots, 1000.0)

    @property
    def backends_ms(self) -> float | None:
        """CPU milliseconds per shot of the backends of the run's database (None without)."""
        return per_shot(self.backends_cpu, self.shots, 1000.0)

    @property
    def redis_ms(self) -> float | None:
        """Redis's CPU milliseconds per shot (None without Redis)."""
        return per_shot(self.redis_cpu, self.shots, 1000.0)

    @property
    def bots_ms(self) -> float | None:
        """The bots' CPU milliseconds per shot."""
        return per_shot(self.bots_cpu, self.shots, 1000.0)

    @property
    def commits(self) -> float | None:
        """Database commits per shot: PostgreSQL's count where there is one, else the servers'."""
        counted = self.server_commits if self.pg_commits is None else self.pg_commits
        return per_shot(counted, self.shots)

    @property
    def connections(self) -> float | None:
        """New database connections per shot: PostgreSQL's count if any, else the servers'."""
        counted = self.server_connections if self.pg_sessions is None else self.pg_sessions
        return per_shot(counted, self.shots)

    @property
    def wal_kib(self) -> float | None:
        """KiB of PostgreSQL's write-ahead log per shot (None without PostgreSQL)."""
        return per_shot(self.pg_wal_bytes, self.shots, 1 / 1024)

    @property
    def redis_per_shot(self) -> float | None:
        """Redis commands per shot (None without Redis)."""
        return per_shot(self.redis_commands, self.shots)

    @property
    def shots_agree(self) -> bool:
        """Whether the servers' count and the bots' differ by no more than the shots in flight.

        The two are not read at quite the same instants: a shot applied just
        before a window's end is seen by the bots just after it.  A party has
        one shot on its way at a time, so at most one per party (``parties``)
        at each end of the window (and 2 when the parties are not known).

        >>> import dataclasses
        >>> counts = WindowCounts(1000, 980, 0, 0, 0, (), 0.0, parties=10)
        >>> counts.shots_agree, dataclasses.replace(counts, shots_seen=979).shots_agree
        (True, False)
        """
        return abs(self.shots - self.shots_seen) <= max(2, 2 * self.parties)


@dataclass(frozen=True, slots=True)
class Verdict:
    """A target beside a figure: met or missed, and whether the run is at its conditions.

    >>> Verdict("≤ 1.0 ms", 0.8, 1.0, applies=True).text()
    'PASS'
    >>> Verdict("≤ 1.0 ms", 1.2, 1.0, applies=False).text()
    '(MISSED)'
    """

    target: str
    value: float | None
    limit: float
    applies: bool

    @property
    def passed(self) -> bool | None:
        """Whether the figure is within the limit (None: no figure)."""
        return None if self.value is None else self.value <= self.limit

    def text(self) -> str:
        """``PASS`` or ``MISSED``, in parentheses when the run is not at the target's conditions."""
        if self.passed is None:
            return "n/a"
        word = "PASS" if self.passed else "MISSED"
        return word if self.applies else f"({word})"


@dataclass(frozen=True, slots=True)
class FixedFigures:
    """One configuration of the fixed-load mode: its servers and its window.

    Attributes:
        processes: server processes.
        cluster: on PostgreSQL and Redis (else one process, on its own database).
        database: ``SQLite`` or ``PostgreSQL``: the servers' database.
        spread: how the bots were spread over the processes (``party``, ``connection``).
        pace: seconds between a game's shots.
        window: the window's figures; its ``counts`` are set.
    """

    processes: int
    cluster: bool
    database: str
    spread: str
    pace: float
    window: LoadFigures

    @property
    def counts(self) -> WindowCounts:
        """What the window cost (always counted in this mode)."""
        assert self.window.counts is not None, "a fixed-load window is counted"
        return self.window.counts

    def verdicts(self) -> dict[str, Verdict]:
        """The issue's targets for this configuration, by the figure they stand beside.

        One process on SQLite: server CPU and p99, at 200 parties, a shot every
        0.5 s, over 120 s.  Several processes on PostgreSQL + Redis: server and
        PostgreSQL CPU (1.5 times higher with a party split over two
        processes), no new database connection, and no lease lost at 200
        parties.  Other configurations get none.
        """
        window, counts = self.window, self.counts
        full = window.opened == FIXED_GAMES
        if not self.cluster:
            if self.database != "SQLite":
                return {}
            at = full and self.pace == FIXED_PACE and window.seconds >= FIXED_SECONDS
            p99 = window.p99
            return {
                "server": Verdict(f"≤ {SQLITE_SERVER_MS:.1f} ms", counts.server_ms,
                                  SQLITE_SERVER_MS, at),
                "p99": Verdict(f"≤ {TARGET_P99_MS:.0f} ms", None if p99 is None else p99.ms,
                               TARGET_P99_MS, at),
            }  # fmt: skip
        several = self.processes >= 2
        factor = SPLIT_FACTOR if self.spread == "connection" else 1.0
        server, postgres = CLUSTER_SERVER_MS * factor, CLUSTER_POSTGRES_MS * factor
        return {
            "server": Verdict(f"≤ {server:.3g} ms", counts.server_ms, server, several),
            "postgres": Verdict(f"≤ {postgres:.3g} ms", counts.postgres_ms, postgres, several),
            "connections": Verdict("0", counts.connections, 0.0, several),
            "leases": Verdict("0", counts.leases_lost, 0.0, several and full),
        }
