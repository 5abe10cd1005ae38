"""``crokinole serve``: run the game server with uvicorn.

Its options are built from the settings' fields
(:mod:`crokinole.server.settings`, :mod:`crokinole.cli.settings_flags`); this
module checks what they name can be reached, then starts the server.
"""

from __future__ import annotations

import argparse
import dataclasses
import socket
import sys
from pathlib import Path

from crokinole.cli.arguments import (
    database_argument,
    driver_reason,
    redis_argument,
    shown_url,
)
from crokinole.cli.settings_flags import add_option, add_options, options, settings_from
from crokinole.server.settings import (
    DEFAULT_DB,
    SECTIONS,
    ProcessSettings,
    ServerSettings,
)

__all__ = [
    "DEFAULT_DB",
    "REDIS_NEEDS_POSTGRES",
    "add_command",
    "add_database_argument",
    "database_argument",
    "driver_reason",
    "redis_argument",
    "run_serve",
    "shown_url",
]

#: The refusal of ``--redis`` on a SQLite file (one file cannot take several processes' writes).
REDIS_NEEDS_POSTGRES = "several processes (--redis) share a PostgreSQL database, not a SQLite file"


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
    from crokinole.server.events.live import Server  # noqa: PLC0415 - ends the event streams

    process = settings_from(ProcessSettings, args)
    db = str(Path(process.db).expanduser()) if "://" not in process.db else process.db
    if process.redis is not None and "://" not in db:
        print(
            f"crokinole: {REDIS_NEEDS_POSTGRES}; give --db postgresql+psycopg://... "
            "(or $CROKINOLE_DATABASE_URL), or leave --redis unset to run one process",
            file=sys.stderr,
        )
        return 2
    settings = settings_from(ServerSettings, args, own_process=True)
    if process.redis is not None:
        reason = redis_unreachable(process.redis)
        if reason is not None:
            where = shown_url(process.redis)
            print(f"crokinole: cannot reach Redis at {where}: {reason}", file=sys.stderr)
            return 1
    try:
        app = create_app(
            db,
            settings,
            ranked_rounds=process.ranked_rounds,
            redis=process.redis,
            redis_prefix=process.redis_prefix,
        )
    except SQLAlchemyError as error:
        print(
            f"crokinole: cannot open the database {shown_url(db)}: {driver_reason(error)}",
            file=sys.stderr,
        )
        return 1
    print(
        f"crokinole: open http://{process.host}:{process.port} in a browser "
        f"(database: {shown_url(db)})"
    )
    config = uvicorn.Config(
        app,
        host=process.host,
        port=process.port,
        log_level=process.log_level,
        # uvicorn's own choice when websockets is installed, named so that it
        # stays: the cheapest of its implementations per message, 21 µs of
        # server CPU for a read and a send against 32 µs for "websockets", its
        # deprecated one (benchmarks/ws_send.py).
        ws="websockets-sansio",
        ws_max_size=65536,
        # A game's messages are a few KB each, seconds apart; compressing them
        # cost a crowded server half its event loop (crokinole bench server).
        ws_per_message_deflate=process.compress,
    )
    try:
        sock = listening_socket(process.host, process.port)
    except OSError as error:
        print(
            f"crokinole: cannot listen on {process.host}:{process.port}: {error}", file=sys.stderr
        )
        return 1
    # uvicorn's server, which ends the event streams first when it shuts down.
    Server(config).run(sockets=[sock])
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
    (db,) = (f for f in dataclasses.fields(ProcessSettings) if f.name == "db")
    add_option(parser, db)


def add_command(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Register ``serve`` on the top-level parser, with an option for each setting that is one."""
    serve = commands.add_parser(
        "serve",
        help="run the game server (open the printed address in a browser)",
        description="Run the crokinole game server: the browser game, its websocket and "
        "its database (a SQLite file, or PostgreSQL). Open http://HOST:PORT in a browser.",
    )
    # The process's options first; in a section, the limits before the test-only ones.
    fields = [
        *options(ProcessSettings, grouped=False),
        *options(ServerSettings, grouped=False),
        *options(ServerSettings, grouped=True),
        *options(ProcessSettings, grouped=True),
    ]
    add_options(serve, fields, SECTIONS)
    serve.set_defaults(handler=run_serve)
