"""``crokinole serve``: run the game server with uvicorn."""

from __future__ import annotations

import argparse
import importlib.util
import math
import os
import re
import socket
import sys
from collections.abc import Callable
from pathlib import Path

#: The SQLite file of a server that is told of no database (``make run``).
DEFAULT_DB = Path("~/.local/share/crokinole/crokinole.db")

#: The refusal of ``--redis`` on a SQLite file (one file cannot take several processes' writes).
REDIS_NEEDS_POSTGRES = "several processes (--redis) share a PostgreSQL database, not a SQLite file"


def positive_number(text: str) -> float:
    """An argparse type: a positive finite number, with a plain-words error.

    >>> positive_number("2.5")
    2.5
    >>> positive_number("-1")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be a positive number, got -1
    """
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text}")
    return value


def _env(name: str, default: str) -> str:
    # argparse converts a string default with the option's type, so a bad
    # environment value gets the same plain error as a bad option.
    return os.environ.get(name, "").strip() or default


def default_database() -> str:
    """The database when ``--db`` is not given: ``$CROKINOLE_DATABASE_URL``, else
    ``$CROKINOLE_DB`` (its older name), else the SQLite file :data:`DEFAULT_DB`."""
    return _env("CROKINOLE_DATABASE_URL", "") or _env("CROKINOLE_DB", str(DEFAULT_DB))


def database_argument(text: str) -> str:
    """An argparse type: a SQLite file path, or a ``sqlite://`` or ``postgresql+psycopg://``
    URL, with a plain-words error (that never repeats the URL: it may hold a password).

    >>> database_argument("postgresql+psycopg://crokinole@db.example.org/crokinole")
    'postgresql+psycopg://crokinole@db.example.org/crokinole'
    >>> database_argument("/var/lib/crokinole/crokinole.db")
    '/var/lib/crokinole/crokinole.db'
    >>> database_argument("mysql://crokinole:secret@db.example.org/crokinole")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: a database URL of the kind 'mysql' is not one crokinole uses; \
give a SQLite file path or a postgresql+psycopg://USER:PASSWORD@HOST:PORT/DATABASE URL
    """
    text = text.strip()
    if not text:
        raise argparse.ArgumentTypeError("must be a SQLite file path or a database URL, got ''")
    if "://" not in text:
        return text
    usage = "give a SQLite file path or a postgresql+psycopg://USER:PASSWORD@HOST:PORT/DATABASE URL"
    from sqlalchemy.engine import make_url  # noqa: PLC0415 - loaded only for a URL
    from sqlalchemy.exc import ArgumentError  # noqa: PLC0415

    try:
        url = make_url(text)
        url.port  # noqa: B018 - a port that is not a number raises here
    except (ArgumentError, ValueError):
        raise argparse.ArgumentTypeError(f"not a database URL that can be read; {usage}") from None
    if url.drivername in ("postgresql", "postgres"):
        raise argparse.ArgumentTypeError(
            "a PostgreSQL URL names its driver: write postgresql+psycopg:// (the driver "
            f"crokinole installs) instead of {url.drivername}://"
        )
    if url.drivername not in ("sqlite", "sqlite+pysqlite", "postgresql+psycopg"):
        raise argparse.ArgumentTypeError(
            f"a database URL of the kind {url.drivername!r} is not one crokinole uses; {usage}"
        )
    if url.drivername == "postgresql+psycopg" and importlib.util.find_spec("psycopg") is None:
        raise argparse.ArgumentTypeError(
            "the PostgreSQL driver is not installed: pip install 'psycopg[binary]>=3.1'"
        )
    if url.drivername == "postgresql+psycopg" and not url.database:
        raise argparse.ArgumentTypeError(
            f"the PostgreSQL URL names no database (…/DATABASE at its end); {usage}"
        )
    return text


def redis_argument(text: str) -> str:
    """An argparse type: a ``redis://`` (or ``rediss://``, over TLS) URL.

    >>> redis_argument("redis://127.0.0.1:6379/0")
    'redis://127.0.0.1:6379/0'
    >>> redis_argument("127.0.0.1:6379")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be a redis:// URL such as redis://127.0.0.1:6379/0
    """
    from urllib.parse import urlsplit  # noqa: PLC0415

    text = text.strip()
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 - a port that is not a number raises here
    except ValueError:
        parts = urlsplit("")
    if parts.scheme not in ("redis", "rediss") or not parts.hostname:
        raise argparse.ArgumentTypeError("must be a redis:// URL such as redis://127.0.0.1:6379/0")
    return text


def shown_url(url: str) -> str:
    """The database as it may be printed: a URL's password is hidden.

    >>> shown_url("postgresql+psycopg://crokinole:secret@db.example.org/crokinole")
    'postgresql+psycopg://crokinole:***@db.example.org/crokinole'
    >>> shown_url("/var/lib/crokinole/crokinole.db")
    '/var/lib/crokinole/crokinole.db'
    """
    if "://" not in url:
        return url
    from sqlalchemy.engine import make_url  # noqa: PLC0415 - loaded only when printing a URL

    return make_url(url).render_as_string(hide_password=True)


def driver_reason(error: Exception) -> str:
    """The first line of what the database driver said (refused, no such database ...)."""
    return str(getattr(error, "orig", None) or error).strip().splitlines()[0]


def redis_prefix_argument(text: str) -> str:
    """An argparse type: a Redis key prefix (1-64 letters, digits, ``:_-.``).

    >>> redis_prefix_argument("crokinole-eu:")
    'crokinole-eu:'
    >>> redis_prefix_argument("a b")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: must be 1-64 letters, digits, ':', '_', '-' or '.'
    """
    if not re.fullmatch(r"[A-Za-z0-9:_.\-]{1,64}", text):
        raise argparse.ArgumentTypeError("must be 1-64 letters, digits, ':', '_', '-' or '.'")
    return text


def lease_argument(text: str) -> float:
    """An argparse type: a lease in seconds, 0.5 to 300.

    >>> lease_argument("2")
    2.0
    >>> lease_argument("0.1")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: must be a number of seconds from 0.5 to 300
    """
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0.5 <= value <= 300:
        raise argparse.ArgumentTypeError("must be a number of seconds from 0.5 to 300")
    return value


def redis_unreachable(url: str) -> str | None:
    """Why Redis at ``url`` cannot be used (the first line of the reason), or None if it answers."""
    import redis  # noqa: PLC0415 - only for several processes

    try:
        with redis.Redis.from_url(url, socket_connect_timeout=3, socket_timeout=3) as client:
            client.ping()
    except redis.RedisError as error:
        return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    return None


def run_serve(args: argparse.Namespace) -> int:
    """Start uvicorn on the app (blocks until interrupted)."""
    import uvicorn  # noqa: PLC0415 - the server stack loads only for this command
    from sqlalchemy.exc import SQLAlchemyError  # noqa: PLC0415

    from crokinole.server import create_app  # noqa: PLC0415
    from crokinole.server.limits import ServerSettings  # noqa: PLC0415

    db = str(Path(args.db).expanduser()) if "://" not in args.db else args.db
    if args.redis is not None and "://" not in db:
        print(
            f"crokinole: {REDIS_NEEDS_POSTGRES}; give --db postgresql+psycopg://... "
            "(or $CROKINOLE_DATABASE_URL), or leave --redis unset to run one process",
            file=sys.stderr,
        )
        return 2
    settings = ServerSettings(
        allowed_origins=tuple(args.allowed_origin),
        rooms_per_minute=args.rooms_per_minute,
        hello_timeout=args.hello_timeout,
        connections_per_address=args.connections_per_address,
        retention_days=args.retention_days,
        warm_up=not args.no_warm_up,
        cpu_workers=args.cpu_workers,
        analysis_workers=args.analysis_workers,
        standin_grace=args.standin_grace,
        round_countdown=args.round_countdown,
        turn_grace=args.turn_grace,
        short_clocks=args.test_clocks,
        lease_ms=round(args.lease_seconds * 1000),
        own_process=True,
    )
    if args.redis is not None:
        reason = redis_unreachable(args.redis)
        if reason is not None:
            where = shown_url(args.redis)
            print(f"crokinole: cannot reach Redis at {where}: {reason}", file=sys.stderr)
            return 1
    try:
        app = create_app(
            db,
            settings,
            ranked_rounds=args.test_ranked_rounds,
            redis=args.redis,
            redis_prefix=args.redis_prefix,
        )
    except SQLAlchemyError as error:
        print(
            f"crokinole: cannot open the database {shown_url(db)}: {driver_reason(error)}",
            file=sys.stderr,
        )
        return 1
    print(
        f"crokinole: open http://{args.host}:{args.port} in a browser (database: {shown_url(db)})"
    )
    config = uvicorn.Config(
        app,
        host=args.host,
        port=args.port,
        log_level=args.log_level,
        ws_max_size=65536,
        # A game's messages are a few KB each, seconds apart; compressing them
        # cost a crowded server half its event loop (crokinole bench server).
        ws_per_message_deflate=args.compress,
    )
    try:
        sock = listening_socket(args.host, args.port)
    except OSError as error:
        print(f"crokinole: cannot listen on {args.host}:{args.port}: {error}", file=sys.stderr)
        return 1
    uvicorn.Server(config).run(sockets=[sock])
    return 0


#: The kernel's receive buffer of each connection, in bytes.  A client's
#: message is at most 16 KiB; a small buffer means that one read of a socket
#: that floods hands the websocket parser a few hundred frames, not 256 KiB
#: of them (every frame of a read is parsed at once, on the event loop, before
#: the message limit can close the socket: ``crokinole bench flood``).
RECEIVE_BUFFER = 32 * 1024


def listening_socket(host: str, port: int) -> socket.socket:
    """The server's TCP socket, bound (connections it accepts inherit its receive buffer)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RECEIVE_BUFFER)
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    return sock


def add_database_argument(parser: argparse.ArgumentParser) -> None:
    """``--db`` of ``serve`` and ``db upgrade``: the flag, else the environment, else a file."""
    parser.add_argument(
        "--db",
        type=database_argument,
        default=default_database(),
        metavar="PATH|URL",
        help="the database: a SQLite file (created if missing) or a postgresql+psycopg:// URL "
        f"(default: $CROKINOLE_DATABASE_URL, else $CROKINOLE_DB, else {DEFAULT_DB})",
    )


def add_command(
    commands: argparse._SubParsersAction,  # type: ignore[type-arg]
    count: Callable[[int], Callable[[str], int]],
) -> None:
    """Register ``serve`` on the top-level parser."""
    serve = commands.add_parser(
        "serve",
        help="run the game server (open the printed address in a browser)",
        description="Run the crokinole game server: the browser game, its websocket and "
        "its database (a SQLite file, or PostgreSQL). Open http://HOST:PORT in a browser.",
    )
    serve.add_argument(
        "--host", default="127.0.0.1", help="interface to listen on (default: %(default)s)"
    )
    serve.add_argument(
        "--port", type=count(1), default=8000, metavar="N", help="port (default: %(default)s)"
    )
    add_database_argument(serve)
    serve.add_argument(
        "--redis",
        type=redis_argument,
        default=_env("CROKINOLE_REDIS_URL", "") or None,
        metavar="URL",
        help="a redis:// URL: run this process as one of several on one PostgreSQL database "
        "and Redis, which share the games (default: none, one process with its hub in memory; "
        "or $CROKINOLE_REDIS_URL)",
    )
    serve.add_argument(
        "--redis-prefix",
        type=redis_prefix_argument,
        default=_env("CROKINOLE_REDIS_PREFIX", "crokinole:"),
        metavar="TEXT",
        help="the prefix of this site's Redis keys and channels: every process of one site "
        "gives the same, two sites on one Redis different ones "
        "(default: %(default)s, or $CROKINOLE_REDIS_PREFIX)",
    )
    serve.add_argument(
        "--lease-seconds",
        type=lease_argument,
        default=_env("CROKINOLE_LEASE_SECONDS", "10"),
        metavar="S",
        help="with --redis: a process's claim on a game lasts this long unless renewed, so "
        "another process takes the game over this long after its owner died "
        "(default: %(default)s, or $CROKINOLE_LEASE_SECONDS)",
    )
    serve.add_argument(
        "--log-level",
        default="info",
        choices=["critical", "error", "warning", "info", "debug"],
        help="server log level (default: %(default)s)",
    )
    origins = os.environ.get("CROKINOLE_ALLOWED_ORIGINS", "")
    serve.add_argument(
        "--allowed-origin",
        action="append",
        default=[o.strip() for o in origins.split(",") if o.strip()],
        metavar="ORIGIN",
        help="a web origin (e.g. https://play.example.org) whose pages may open the game "
        "websocket besides the server's own; repeat for several, '*' for any "
        "(default: same origin only, or the comma-separated $CROKINOLE_ALLOWED_ORIGINS)",
    )
    serve.add_argument(
        "--rooms-per-minute",
        type=count(1),
        default=_env("CROKINOLE_ROOMS_PER_MINUTE", "20"),
        metavar="N",
        help="new tables or parties joined a minute, per device (default: %(default)s, "
        "or $CROKINOLE_ROOMS_PER_MINUTE)",
    )
    serve.add_argument(
        "--connections-per-address",
        type=count(1),
        default=_env("CROKINOLE_CONNECTIONS_PER_ADDRESS", "32"),
        metavar="N",
        help="open websockets from one IP address (default: %(default)s, "
        "or $CROKINOLE_CONNECTIONS_PER_ADDRESS)",
    )
    serve.add_argument(
        "--hello-timeout",
        type=positive_number,
        default=_env("CROKINOLE_HELLO_TIMEOUT", "10"),
        metavar="SECONDS",
        help="a websocket that has not said hello by then is closed (default: %(default)s, "
        "or $CROKINOLE_HELLO_TIMEOUT)",
    )
    serve.add_argument(
        "--retention-days",
        type=positive_number,
        default=_env("CROKINOLE_RETENTION_DAYS", "30"),
        metavar="DAYS",
        help="abandoned games are compacted after this many days (default: %(default)s, "
        "or $CROKINOLE_RETENTION_DAYS)",
    )
    serve.add_argument(
        "--no-warm-up",
        action="store_true",
        help="do not compile the simulator and CPU search at startup (they then compile "
        "during the first game)",
    )
    serve.add_argument(
        "--cpu-workers",
        type=count(1),
        default=_env("CROKINOLE_CPU_WORKERS", "2"),
        metavar="N",
        help="threads of the CPU players' own pool: CPU decisions computed at once "
        "(default: %(default)s, or $CROKINOLE_CPU_WORKERS)",
    )
    serve.add_argument(
        "--analysis-workers",
        type=count(1),
        default=_env("CROKINOLE_ANALYSIS_WORKERS", "1"),
        metavar="N",
        help="threads of the analysis asked over HTTP (reviews, the practice room), "
        "apart from the CPU players' (default: %(default)s, or $CROKINOLE_ANALYSIS_WORKERS)",
    )
    timing = serve.add_argument_group(
        "party timings", "waits of online parties; shorten them only to test or to demonstrate"
    )
    timing.add_argument(
        "--standin-grace",
        type=positive_number,
        default=_env("CROKINOLE_STANDIN_GRACE", "10"),
        metavar="SECONDS",
        help="a player not connected when their turn comes is replaced by the CPU after "
        "this long (default: %(default)s, or $CROKINOLE_STANDIN_GRACE)",
    )
    timing.add_argument(
        "--round-countdown",
        type=positive_number,
        default=_env("CROKINOLE_ROUND_COUNTDOWN", "10"),
        metavar="SECONDS",
        help="the next round of a party starts after this long unless everyone pressed "
        "Next sooner (default: %(default)s, or $CROKINOLE_ROUND_COUNTDOWN)",
    )
    timing.add_argument(
        "--turn-grace",
        type=positive_number,
        default=_env("CROKINOLE_TURN_GRACE", "2"),
        metavar="SECONDS",
        help="latency grace added to every turn clock (default: %(default)s, "
        "or $CROKINOLE_TURN_GRACE)",
    )
    timing.add_argument(
        "--test-ranked-rounds",
        type=int,
        choices=range(1, 5),
        default=None,
        metavar="N",
        help="play ranked games of N rounds (1-4; for tests only: ranked games have 4)",
    )
    timing.add_argument(
        "--test-clocks",
        action="store_true",
        help="accept turn clocks shorter than 30 seconds (for tests; players choose "
        "none, 30 or 60 seconds)",
    )
    serve.add_argument(
        "--compress",
        action="store_true",
        help="compress the websocket messages (permessage-deflate) for browsers that offer "
        "it: less traffic, more server CPU; off by default, as a game's messages are small",
    )
    serve.set_defaults(handler=run_serve)
