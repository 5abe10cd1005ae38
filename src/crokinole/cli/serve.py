"""``crokinole serve``: run the game server with uvicorn."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from pathlib import Path

DEFAULT_DB = Path(os.environ.get("CROKINOLE_DB", "~/.local/share/crokinole/crokinole.db"))


def run_serve(args: argparse.Namespace) -> int:
    """Start uvicorn on the app (blocks until interrupted)."""
    import uvicorn  # noqa: PLC0415 - the server stack loads only for this command

    from crokinole.server import create_app  # noqa: PLC0415

    db = str(Path(args.db).expanduser()) if "://" not in args.db else args.db
    app = create_app(db)
    print(f"crokinole: open http://{args.host}:{args.port} in a browser (database: {db})")
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level, ws_max_size=65536)
    return 0


def add_command(
    commands: argparse._SubParsersAction,  # type: ignore[type-arg]
    count: Callable[[int], Callable[[str], int]],
) -> None:
    """Register ``serve`` on the top-level parser."""
    serve = commands.add_parser(
        "serve",
        help="run the game server (open the printed address in a browser)",
        description="Run the crokinole game server: the browser game, its websocket and "
        "its SQLite database. Open http://HOST:PORT in a browser.",
    )
    serve.add_argument(
        "--host", default="127.0.0.1", help="interface to listen on (default: %(default)s)"
    )
    serve.add_argument(
        "--port", type=count(1), default=8000, metavar="N", help="port (default: %(default)s)"
    )
    serve.add_argument(
        "--db",
        default=str(DEFAULT_DB),
        metavar="PATH",
        help="SQLite file (created if missing) or a SQLAlchemy URL "
        "(default: %(default)s, or $CROKINOLE_DB)",
    )
    serve.add_argument(
        "--log-level",
        default="info",
        choices=["critical", "error", "warning", "info", "debug"],
        help="server log level (default: %(default)s)",
    )
    serve.set_defaults(handler=run_serve)
