"""Server load benchmark: bot clients play N concurrent online parties on one server process.

Run it from a checkout: ``crokinole bench server [--games N ...] [--seconds S] [--fixed]``,
or ``python -m benchmarks.server ...`` (or ``python benchmarks/server ...``),
the same; ``--help`` lists the options.  It needs the ``websockets`` client
library (the ``bench`` extra).

The package: :mod:`.bots` (the websocket clients that play),
:mod:`.processes` (the server processes, their memory and CPU),
:mod:`.statistics` (quantiles, the figures and the targets), :mod:`.run`
(the ramp of parties and its windows), :mod:`.report` (the tables) and
:mod:`.cli` (the options and :func:`main`).  What the other
benchmarks (``flood``, ``analysis_load``) and the tests use is re-exported here.

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
serve`` processes on PostgreSQL (a fresh database on the server of ``--pg``,
or a fresh schema of its database where the role may not create one,
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

Fixed load (``--fixed``)
------------------------

``--fixed --games N [N ...] --pace S --seconds T`` plays each party count
once at a fixed load (a shot every ``S`` seconds per game, a window of ``T``
seconds, 120 by default): on one process on SQLite (or ``--db``), or with
``--processes K [K ...]`` (and ``--spread party|connection``) on a cluster
of each process count on PostgreSQL and Redis, the party counts one after
the other on the same cluster.  There is no ramp and no second window.  No
stand-in CPU plays unless ``--standin-share`` says so (the CPU players'
thinking is not a shot's cost; given, the report says it is included).

The servers are started with ``crokinole serve --metrics``; at the two ends
of the window the benchmark reads each server's ``GET /metrics``
(:mod:`crokinole.metrics`: shots applied, database commits, new database
connections, leases lost), ``pg_stat_database``'s ``xact_commit`` and
``sessions`` of the cluster's database (a fresh database of its own, so
only the run's work counts there) and Redis's ``total_commands_processed``
(``INFO stats``, every client's).  Each cost of the window is divided by
**the shots the servers applied** in it (their counter ``shots``, summed
over the processes), cross-checked against the shots whose broadcast the
bots saw.  For each configuration the report gives:

* **CPU milliseconds per shot** of the servers (together and each process),
  of PostgreSQL (every postgres process of the machine, backends that ended
  included, and of those the backends of the run's database), of Redis
  (every ``redis-server``) and of the bots (this process);
* database commits, new database connections and Redis commands per shot
  (PostgreSQL's counts where there are any, the servers' beside them), and
  the leases lost in the window;
* p50 and p99 shot to broadcast with their intervals, and the errors;

beside the issue's targets, PASS or MISSED (in parentheses where the run
is not at the target's conditions): one process on SQLite at most 1.0 ms
of server CPU per shot and p99 at most 100 ms at 200 parties, a shot every
0.5 s, over 120 s; several processes on PostgreSQL + Redis at most 1.5 ms
of server CPU and 0.5 ms of PostgreSQL CPU per shot with a party's players
on one process (1.5 times that with ``--spread connection``), no new
database connection, and no lease lost at 200 parties.
"""

from .bots import BenchError, protocol_2_websocket, warm_up
from .cli import main
from .processes import ServerOptions, backend_problem, cpu_seconds, rss_kib, running_server
from .report import print_cluster_report, print_fixed_report, print_server_report
from .run import (
    DEFAULT_PACE,
    DEFAULT_PG,
    DEFAULT_REDIS,
    DEFAULT_STANDIN_GRACE,
    PROGRESS_COLUMNS,
    BenchOptions,
    Ramp,
    loop_factory,
    run_cluster_bench,
    run_fixed_bench,
    run_reported,
    run_server_bench,
)
from .statistics import FixedFigures, LoadFigures, Quantile, RampFigures, Verdict, WindowCounts

__all__ = [
    "DEFAULT_PACE",
    "DEFAULT_PG",
    "DEFAULT_REDIS",
    "DEFAULT_STANDIN_GRACE",
    "PROGRESS_COLUMNS",
    "BenchError",
    "BenchOptions",
    "FixedFigures",
    "LoadFigures",
    "Quantile",
    "Ramp",
    "RampFigures",
    "ServerOptions",
    "Verdict",
    "WindowCounts",
    "backend_problem",
    "cpu_seconds",
    "loop_factory",
    "main",
    "print_cluster_report",
    "print_fixed_report",
    "print_server_report",
    "protocol_2_websocket",
    "rss_kib",
    "run_cluster_bench",
    "run_fixed_bench",
    "run_reported",
    "run_server_bench",
    "running_server",
    "warm_up",
]
