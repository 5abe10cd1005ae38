"""The types of the command line's options: each parses one text, with a plain-words error.

An argparse ``type`` raises :class:`argparse.ArgumentTypeError` with a
message that says what was expected; none repeats a database URL (it may
hold a password), and :func:`shown_url` hides one for printing.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import re
from collections.abc import Callable


def count_argument(least: int) -> Callable[[str], int]:
    """An argparse type: an integer at least ``least``, with a plain-words error.

    >>> count_argument(1)("3")
    3
    >>> count_argument(1)("0")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be a positive integer, got 0
    """
    what = {0: "a non-negative integer", 1: "a positive integer"}.get(
        least, f"an integer >= {least}"
    )

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {what}, got {text!r}") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"must be {what}, got {value}")
        return value

    parse.__name__ = what  # argparse names the type in some messages
    return parse


def positive_number(text: str) -> float:
    """An argparse type: a positive finite number, with a plain-words error.

    >>> positive_number("2.5")
    2.5
    >>> positive_number("-1")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be a positive number, got -1
    """
    return number(text, lambda value: math.isfinite(value) and value > 0, "a positive number")


def number(text: str, accept: Callable[[float], bool], what: str) -> float:
    """``text`` as a number that ``accept`` takes, else an argparse error: it must be ``what``.

    >>> number("0.5", lambda v: 0 <= v <= 1, "a share between 0 and 1")
    0.5
    >>> number("x", lambda v: 0 <= v <= 1, "a share between 0 and 1")
    Traceback (most recent call last):
    argparse.ArgumentTypeError: must be a share between 0 and 1, got x
    """
    try:
        value = float(text)
    except ValueError:
        value = float("nan")  # refused by every test below, as a number out of range
    if not accept(value):
        raise argparse.ArgumentTypeError(f"must be {what}, got {text}")
    return value


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

    >>> lease_argument("2"), lease_argument("300")
    (2.0, 300.0)
    """
    return number(text, lambda value: 0.5 <= value <= 300, "a number of seconds from 0.5 to 300")


def command_group(
    commands: argparse._SubParsersAction,  # type: ignore[type-arg]
    name: str,
    *,
    about: str,
    description: str,
    title: str,
    metavar: str,
) -> argparse._SubParsersAction:  # type: ignore[type-arg]
    """A command of sub-commands (``db upgrade``, ``bench NAME``); alone, it shows its help."""
    group = commands.add_parser(name, help=about, description=description)
    group.set_defaults(help_parser=group)
    subcommands: argparse._SubParsersAction = group.add_subparsers(  # type: ignore[type-arg]
        title=title, metavar=metavar
    )
    return subcommands
