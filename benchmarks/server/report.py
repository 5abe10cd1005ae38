"""The report: the tables a run prints, beside the targets.

:func:`print_server_report` prints one server's figures per party count;
:func:`print_cluster_report` each process count's ramp, the games each held
and the ratio to the first (:func:`ratio_verdict`); :func:`print_fixed_report`
what a shot cost in each configuration of the fixed-load mode.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from rich.console import Console
from rich.table import Table

from crokinole.cli.arguments import shown_url

from .run import BenchOptions, plural
from .statistics import (
    FIXED_GAMES,
    FIXED_PACE,
    FIXED_SECONDS,
    SPLIT_FACTOR,
    TARGET_GAMES,
    TARGET_P99_MS,
    TARGET_RATIO,
    FixedFigures,
    LoadFigures,
    Quantile,
    RampFigures,
    Verdict,
    held_ratio,
    per_shot,
)


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
        f"set-up: PostgreSQL {shown_url(options.pg)} (a fresh database for each process count), "
        f"Redis {shown_url(options.redis)} (a key prefix of its own for each); spread: "
        f"{SPREAD_WORDS[options.spread]}",
        markup=False,
    )
    for result in results:
        table = Table(
            title=(
                f"{plural(result.processes, 'process')} on PostgreSQL + Redis: "
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
                    f"[red]errors with {plural(result.processes, 'process')} at "
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
                 f"ratio to {plural(first.processes, 'process')}"):  # fmt: skip
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


# ------------------------------------------------------- fixed load (--fixed)


def _ms(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def _ratio(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3g}"


def _counted(primary: float | None, servers: float | None, *, on_pg: bool) -> str:
    # PostgreSQL's figure first where it has one, the servers' own count beside it.
    if not on_pg:
        return _ratio(servers)
    return f"{_ratio(primary)} ({_ratio(servers)} by the servers)"


def _verdict_cell(verdict: Verdict | None) -> tuple[str, str]:
    if verdict is None:
        return "", ""
    text = verdict.text()
    if verdict.passed is None:
        return verdict.target, text
    colour = ("green" if verdict.passed else "red") if verdict.applies else "dim"
    return verdict.target, f"[{colour}]{text}[/{colour}]"


def fixed_title(result: FixedFigures) -> str:
    """What one configuration ran: parties, processes, database, spread, pace and window.

    >>> from .statistics import LoadFigures
    >>> window = LoadFigures(200, 200, 0, 120.0, (), (), 0, 0, 0, {}, (), 0, 0, 0.0, 2.0)
    >>> fixed_title(FixedFigures(1, False, "SQLite", "party", 0.5, window))
    '200 parties on 1 process (SQLite), a shot every 0.5 s per game, 120 s'
    """
    window = result.window
    parties = (
        f"{window.opened}"
        if window.opened == window.games
        else f"{window.opened} of {window.games}"
    )
    where = (
        f"{plural(result.processes, 'process')} (PostgreSQL + Redis, spread {result.spread})"
        if result.cluster
        else f"{plural(result.processes, 'process')} ({result.database})"
    )
    return (
        f"{parties} parties on {where}, a shot every {result.pace:g} s per game, "
        f"{window.seconds:g} s"
    )


def fixed_table(result: FixedFigures, standins: str) -> Table:
    """The table of one configuration: each figure per shot, its target and verdict."""
    window, counts = result.window, result.counts
    verdicts = result.verdicts()
    notes = [
        "per shot: the window's total divided by the shots the servers applied in it (their "
        "counter, summed over the processes)",
        "CPU: user + system time from /proc; the bots': this process's",
    ]
    if counts.postgres_cpu is not None:
        notes.append(
            "PostgreSQL: every postgres process of the machine (backends that ended "
            "included); its counts are of the run's database, the servers' own in parentheses"
        )
    if counts.redis_cpu is not None:
        notes.append("Redis: every redis-server; its commands are every client's")
    notes += [standins, f"{os.cpu_count()} CPUs shared by the servers, the bots and the rest"]
    if result.cluster:
        notes.append(
            "a verdict in parentheses: the run is not at the target's conditions (several "
            f"processes; the leases at {FIXED_GAMES} parties); spread connection: "
            f"{SPLIT_FACTOR:g}× the targets of spread party"
        )
    elif verdicts:
        notes.append(
            "a verdict in parentheses: the run is not at the target's conditions "
            f"({FIXED_GAMES} parties, a shot every {FIXED_PACE:g} s, {FIXED_SECONDS:g} s or more)"
        )
    table = Table(title=f"Fixed load: {fixed_title(result)}", caption="; ".join(notes))
    for name in ("figure", "value", "target", "verdict"):
        table.add_column(name, justify="left" if name == "figure" else "right")

    def row(figure: str, value: str, key: str | None = None) -> None:
        table.add_row(figure, value, *_verdict_cell(verdicts.get(key or "")))

    row(
        "shots applied by the servers", f"{counts.shots:,} ({counts.shots / window.seconds:,.0f}/s)"
    )
    seen = f"{counts.shots_seen:,}"
    row("shots the bots saw broadcast", seen if counts.shots_agree else f"[yellow]{seen}[/yellow]")
    row("server CPU, ms per shot", _ms(counts.server_ms), "server")
    if result.processes > 1:
        row("  each process", " + ".join(_ms(ms) for ms in counts.server_ms_each))
    if counts.postgres_cpu is not None:
        row("PostgreSQL CPU, ms per shot", _ms(counts.postgres_ms), "postgres")
        row("  the run's database's backends", _ms(counts.backends_ms))
    if counts.redis_cpu is not None:
        row("Redis CPU, ms per shot", _ms(counts.redis_ms))
    row("bots' CPU, ms per shot", _ms(counts.bots_ms))
    on_pg = counts.pg_commits is not None
    row(
        "database commits per shot",
        _counted(counts.commits, per_shot(counts.server_commits, counts.shots), on_pg=on_pg),
    )
    row(
        "new database connections per shot",
        _counted(
            counts.connections, per_shot(counts.server_connections, counts.shots), on_pg=on_pg
        ),
        "connections",
    )
    if counts.pg_wal_bytes is not None:
        row("PostgreSQL WAL, KiB per shot", _ratio(counts.wal_kib))
    if counts.redis_commands is not None:
        row("Redis commands per shot", _ratio(counts.redis_per_shot))
    if result.cluster:
        row("leases lost in the window", str(counts.leases_lost), "leases")
    row("p50 shot to broadcast, ms", _quantile(window.p50))
    row("p99 shot to broadcast, ms", _quantile(window.p99), "p99")
    row("errors", _errors_text(window.error_count))
    return table


def print_fixed_report(
    results: Sequence[FixedFigures], options: BenchOptions, console: Console
) -> None:
    """Print, for each configuration, what a shot cost beside the issue's targets."""
    if not results:
        console.print("nothing was measured")
        return
    if any(r.cluster for r in results):
        console.print(
            f"set-up: PostgreSQL {shown_url(options.pg)} (a fresh database for each process "
            f"count), Redis {shown_url(options.redis)} (a key prefix of its own for each)",
            markup=False,
        )
    standins = (
        "the stand-in CPU plays in some parties (--standin-share): its thinking is part of "
        "the servers' CPU per shot"
        if options.standin_share > 0
        else "no stand-in CPU plays (--standin-share 0): every shot is a person's"
    )
    for result in results:
        console.print(fixed_table(result, standins))
        window = result.window
        if window.errors:
            console.print(f"[red]errors in {fixed_title(result)}:[/red]")
            for kind, count in sorted(window.errors.items()):
                console.print(f"  {kind}: {count}", markup=False)
            for sample in window.error_samples:
                console.print(f"  e.g. {sample}", markup=False)
