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
