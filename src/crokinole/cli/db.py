"""``crokinole db upgrade``: bring a database's schema to the newest migration.

``crokinole serve`` migrates its database when it starts, which suits one
process on SQLite; where several processes share one PostgreSQL database the
schema is upgraded once, by this command, before they start.
"""

from __future__ import annotations

import argparse
import sys

from crokinole.cli.arguments import command_group, driver_reason, shown_url
from crokinole.cli.serve import add_database_argument


def run_upgrade(args: argparse.Namespace) -> int:
    """Migrate the database at ``args.db`` and say what changed; 1 if that cannot be done."""
    from alembic.util import CommandError  # noqa: PLC0415 - loaded only for this command
    from sqlalchemy.exc import SQLAlchemyError  # noqa: PLC0415

    from crokinole.store import Store  # noqa: PLC0415

    shown = shown_url(args.db)
    before: str | None = None
    try:
        store = Store.open(args.db, migrate=False)
        try:
            before = store.revision()
            store.migrate()
            after = store.revision()
        finally:
            store.close()
    except SQLAlchemyError as error:
        reason = driver_reason(error)
        print(f"crokinole: cannot upgrade the database {shown}: {reason}", file=sys.stderr)
        return 1
    except CommandError:
        print(
            f"crokinole: cannot upgrade the database {shown}: its schema {before} is not one "
            f"this version of crokinole knows (the newest it knows is "
            f"{Store.newest_revision()}); was it made by a newer version?",
            file=sys.stderr,
        )
        return 1
    if before == after:
        print(f"crokinole: the database {shown} is up to date (schema {after})")
    else:
        print(f"crokinole: upgraded the database {shown} from schema {before or 'none'} to {after}")
    return 0


def add_command(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Register ``db upgrade`` on the top-level parser."""
    actions = command_group(
        commands,
        "db",
        about="manage the database (upgrade its schema)",
        description="Manage the game server's database.",
        title="actions",
        metavar="ACTION",
    )
    upgrade = actions.add_parser(
        "upgrade",
        help="migrate the database to the newest schema (created if missing)",
        description="Run the database's pending migrations (Alembic) and print its schema "
        "before and after. `crokinole serve` does this itself when it starts; run it once "
        "before starting several servers on one database.",
    )
    add_database_argument(upgrade)
    upgrade.set_defaults(handler=run_upgrade)
