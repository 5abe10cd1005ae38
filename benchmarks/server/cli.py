"""The benchmark's command line: its options, how they go together, and ``main``.

``crokinole bench server``, ``python -m benchmarks.server`` and ``python
benchmarks/server`` all run :func:`main`.
"""

from __future__ import annotations

import argparse
import math
import os
import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console

from crokinole.cli.arguments import count_argument, database_argument, number, redis_argument

from .bots import HAVE_WEBSOCKETS, BenchError
from .processes import backend_problem
from .report import print_cluster_report, print_fixed_report, print_server_report
from .run import (
    DEFAULT_DRAIN,
    DEFAULT_PACE,
    DEFAULT_PG,
    DEFAULT_REDIS,
    DEFAULT_RETRIES,
    DEFAULT_SECONDS,
    DEFAULT_SEED,
    DEFAULT_SETUP_TIMEOUT,
    DEFAULT_STANDIN_GRACE,
    DEFAULT_STANDIN_SHARE,
    BenchOptions,
    run_cluster_bench,
    run_fixed_bench,
    run_server_bench,
)
from .statistics import FIXED_SECONDS, ramp_steps

#: Parties of the one-process run when --games is not given.
DEFAULT_GAMES = 200
#: The ramp of several processes (``--processes``): its step and its top.
DEFAULT_STEP = 10
DEFAULT_MAX_GAMES = 400
#: The most server processes one run may start (each holds a core's worth of work).
MAX_PROCESSES = 16
#: How bots are spread over the processes (``--spread``).
SPREADS = ("party", "connection")


def _seconds(text: str) -> float:
    return number(text, lambda v: math.isfinite(v) and v > 0, "a positive number of seconds")


def _share(text: str) -> float:
    return number(text, lambda v: 0.0 <= v <= 1.0, "a share between 0 and 1")


def _add_counts(
    parser: argparse._ActionsContainer,
    flag: str,
    *,
    about: str,
    least: int = 1,
    many: bool = False,
) -> None:
    # A count left out is None: check_options() fills in what it depends on.
    parser.add_argument(
        flag, type=count_argument(least), nargs="+" if many else None, metavar="N", help=about
    )


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
            "2 processes hold at least 1.6x the games of one. With --fixed: each --games value "
            "played once at a fixed load, and what a shot costs: CPU milliseconds per shot of "
            "the servers, PostgreSQL, Redis and the bots, database commits, new database "
            "connections and Redis commands per shot, leases lost, p50 and p99, beside the "
            "targets (one process on SQLite: <= 1.0 ms of server CPU per shot and p99 <= 100 "
            "ms at 200 parties, a shot every 0.5 s, over 120 s; several processes on PostgreSQL "
            "+ Redis: <= 1.5 ms of server CPU and <= 0.5 ms of PostgreSQL CPU per shot, 1.5x "
            "that with --spread connection, no new database connection, no lease lost at 200 "
            "parties). Needs the websockets library (the 'bench' extra)."
        ),
    )
    _add_counts(
        parser,
        "--games",
        many=True,
        about="concurrent parties (two bots each); several values measure each on a fresh "
        f"server, e.g. --games 50 100 200 (default: {DEFAULT_GAMES}); with --processes, the "
        "steps of the ramp instead of --step and --max-games (with --fixed too: each measured "
        "once on the same cluster)",
    )
    parser.add_argument(
        "--seconds",
        type=_seconds,
        default=None,
        metavar="S",
        help="length of the measuring window, after every party is open (default: "
        f"{DEFAULT_SECONDS:g}; with --fixed {FIXED_SECONDS:g}, the target's window)",
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
        default=None,
        metavar="F",
        help="share of the parties whose second player disconnects once the game has "
        "started, so the server's stand-in CPU plays that seat (default: "
        f"{DEFAULT_STANDIN_SHARE:g}; with --fixed 0, as the CPU players' thinking is not a "
        "shot's cost: given, the report says their thinking is in the servers' CPU)",
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
    fixed = parser.add_argument_group(
        "fixed load",
        "Each --games value played once, on one process on SQLite (or --db), or with "
        "--processes on clusters on PostgreSQL and Redis; the report divides the window's "
        "costs by the shots the servers applied (their GET /metrics).",
    )
    fixed.add_argument(
        "--fixed",
        action="store_true",
        help="fixed-load mode: N parties (--games), a shot every --pace seconds per game, for "
        "--seconds; print per shot the CPU milliseconds of the servers (together and each), "
        "PostgreSQL, Redis and the bots, the database commits and new connections, the "
        "Redis commands, the leases lost, p50/p99 shot to broadcast and the errors, beside "
        "the targets (no ramp: --step, --max-games and --retries do not apply)",
    )
    cluster = parser.add_argument_group(
        "several processes",
        "Clusters of server processes on PostgreSQL and Redis (crokinole serve --redis), "
        "each process count ramped up on its own fresh PostgreSQL database and Redis key "
        "prefix.",
    )
    _add_counts(
        cluster,
        "--processes",
        many=True,
        about="server processes of each cluster measured, e.g. --processes 1 2; for each, "
        "parties are added step by step (--step) until a step misses p99 <= 100 ms with no "
        "errors, and the report gives the games held and their ratio to the first count's "
        f"(at most {MAX_PROCESSES}; default: one process on SQLite, no ramp); with --fixed, "
        "each cluster plays each --games value once, at a fixed load",
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
    _add_counts(
        cluster,
        "--step",
        about=f"parties added at each step of the ramp (default: {DEFAULT_STEP})",
    )
    _add_counts(
        cluster,
        "--max-games",
        about="the ramp's last step: the most parties a cluster is given "
        f"(default: {DEFAULT_MAX_GAMES})",
    )
    _add_counts(
        cluster,
        "--retries",
        least=0,
        about="a step that misses is measured again, on the same parties, up to N times, and "
        "held if one of its windows meets the target (a single stall of the machine can "
        f"decide a p99); every window is shown (default: {DEFAULT_RETRIES})",
    )
    cluster.add_argument(
        "--pg",
        type=database_argument,
        default=None,
        metavar="URL",
        help="the PostgreSQL on whose server each cluster gets a fresh database (or, "
        "where the role may not create one, a fresh schema of this database), dropped "
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


def _check_fixed(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    # The fixed-load mode's own defaults, and no ramp.
    if args.seconds is None:
        args.seconds = FIXED_SECONDS if args.fixed else DEFAULT_SECONDS
    if args.standin_share is None:
        args.standin_share = 0.0 if args.fixed else DEFAULT_STANDIN_SHARE
    if not args.fixed:
        return
    ramp = {"--step": args.step, "--max-games": args.max_games, "--retries": args.retries}
    given = [flag for flag, value in ramp.items() if value is not None]
    if given:
        parser.error(f"{', '.join(given)}: --fixed measures each --games value once, with no ramp")
    if args.processes is not None and args.games is None:
        args.games = [DEFAULT_GAMES]


def check_options(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuse options that do not go together (argparse's error: status 2), fill defaults."""
    _check_fixed(parser, args)
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


#: The package's folder: ``python benchmarks/server`` runs it.
SCRIPT_PATH = Path(__file__).resolve().parent


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
        if args.fixed:
            fixed = run_fixed_bench(args.processes, args.games, options, console)
        elif args.processes is None:
            figures = run_server_bench(args.games, options, console)
        else:
            results = run_cluster_bench(args.processes, args.games, options, console)
    except (BenchError, RuntimeError) as exc:
        console.print(f"[red]the benchmark could not run:[/red] {exc}", markup=True)
        return 1
    if args.fixed:
        print_fixed_report(fixed, options, console)
    elif args.processes is None:
        print_server_report(figures, options, console)
    else:
        print_cluster_report(results, options, console)
    console.print(f"benchmark ran in {time.perf_counter() - start:.0f} s")
    return 0
