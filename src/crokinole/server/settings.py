"""The server's settings: every value ``crokinole serve`` can be told, each written once.

:class:`ServerSettings` holds the app's limits and policies (what
:func:`crokinole.server.create_app` takes); :class:`ProcessSettings` holds
what only the process that serves needs (where to listen, the database, the
Redis of a cluster).  Every field carries its default and its help text once,
and, where it is a ``crokinole serve`` option, an :class:`Option` saying how:
the command line builds its flags from these fields
(:mod:`crokinole.cli.settings_flags`), so a default is never written twice.

This module knows no argparse: an option names its :class:`Kind` of value,
and the command line turns the kind into a parser of the text.
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

_T = TypeVar("_T")

#: The SQLite file of a server that is told of no database (``make run``).
DEFAULT_DB = Path("~/.local/share/crokinole/crokinole.db")


class Kind(enum.Enum):
    """What text an option takes (the command line maps each to a parser)."""

    TEXT = "text"
    COUNT = "count"  # an integer >= 1
    SECONDS = "seconds"  # a positive finite number
    CHOICE = "choice"  # one of Option.choices
    SWITCH = "switch"  # a flag without a value that sets the setting to True
    SWITCH_OFF = "switch off"  # a flag without a value that sets the setting to False
    ORIGINS = "origins"  # repeated; the environment gives them comma-separated
    DATABASE = "database"  # a SQLite file path or a database URL
    REDIS = "redis"  # a redis:// URL
    REDIS_PREFIX = "redis prefix"  # a key prefix
    LEASE = "lease"  # seconds, 0.5 to 300


@dataclass(frozen=True, slots=True)
class Option:
    """How a setting is a ``crokinole serve`` option.

    Attributes:
        flag: the option's name (``--rooms-per-minute``).
        kind: the text it takes.
        env: environment variables read, first set first, when the flag is not given.
        metavar: the value's name in ``--help``.
        group: the title of the ``--help`` section it is shown in (None: the main one).
        choices: the values of a :attr:`Kind.CHOICE` option.
        default_text: what ``--help`` says of the default, ``%(default)s`` standing
            for the value; None: the value, and the environment variable if any;
            empty: nothing.
        unit: the setting is the option's value times this (``--lease-seconds``
            sets milliseconds).
        help: the option's own help, where it says something else than the
            setting's (a switch that turns the setting off).
    """

    flag: str
    kind: Kind = Kind.TEXT
    env: tuple[str, ...] = ()
    metavar: str | None = None
    group: str | None = None
    choices: tuple[Any, ...] = ()
    default_text: str | None = None
    unit: int = 1
    help: str | None = None

    @classmethod
    def from_env(
        cls, flag: str, kind: Kind, metavar: str, group: str | None = None, unit: int = 1
    ) -> Option:
        """An option that ``$CROKINOLE_<FLAG>`` gives when the flag is not given.

        >>> Option.from_env("--turn-grace", Kind.SECONDS, "SECONDS").env
        ('CROKINOLE_TURN_GRACE',)
        """
        env = "CROKINOLE_" + flag.removeprefix("--").upper().replace("-", "_")
        return cls(flag, kind, (env,), metavar, group, unit=unit)


def setting(default: _T, about: str, option: Option | None = None) -> _T:
    """A settings field: its default, its help text and, for an option, how it is given."""
    field: _T = dataclasses.field(default=default, metadata={"help": about, "option": option})
    return field


def help_of(field: dataclasses.Field[Any]) -> str:
    """The help text of a settings field."""
    text: str = field.metadata["help"]
    return text


def option_of(field: dataclasses.Field[Any]) -> Option | None:
    """How a settings field is a ``crokinole serve`` option, or None if it is not one."""
    option: Option | None = field.metadata.get("option")
    return option


#: The ``--help`` section of the waits of online parties.
PARTY_TIMINGS = "party timings"

#: What each ``--help`` section of options is about.
SECTIONS = {
    PARTY_TIMINGS: "waits of online parties; shorten them only to test or to demonstrate",
}


@dataclass(frozen=True, slots=True)
class ServerSettings:
    """The server's limits and policies; each field's help says what it limits.

    >>> ServerSettings().rooms_per_minute
    20
    >>> help_of(dataclasses.fields(ServerSettings)[2])
    'new tables or parties joined a minute, per device'
    """

    lease_ms: int = setting(
        10_000,
        "with --redis: a process's claim on a game lasts this long unless renewed, so "
        "another process takes the game over this long after its owner died",
        Option.from_env("--lease-seconds", Kind.LEASE, "S", unit=1000),
    )
    allowed_origins: tuple[str, ...] = setting(
        (),
        "a web origin (e.g. https://play.example.org) whose pages may open the game "
        "websocket besides the server's own; repeat for several, '*' for any",
        Option(
            "--allowed-origin",
            Kind.ORIGINS,
            ("CROKINOLE_ALLOWED_ORIGINS",),
            "ORIGIN",
            default_text="same origin only, or the comma-separated $CROKINOLE_ALLOWED_ORIGINS",
        ),
    )
    rooms_per_minute: int = setting(
        20,
        "new tables or parties joined a minute, per device",
        Option.from_env("--rooms-per-minute", Kind.COUNT, "N"),
    )
    connections_per_address: int = setting(
        32,
        "open websockets from one IP address",
        Option.from_env("--connections-per-address", Kind.COUNT, "N"),
    )
    hello_timeout: float = setting(
        10.0,
        "a websocket that has not said hello by then is closed",
        Option.from_env("--hello-timeout", Kind.SECONDS, "SECONDS"),
    )
    retention_days: float = setting(
        30.0,
        "abandoned games are compacted after this many days",
        Option.from_env("--retention-days", Kind.SECONDS, "DAYS"),
    )
    warm_up: bool = setting(
        True,
        "compile the simulator and CPU search at startup (else they compile during the first game)",
        Option(
            "--no-warm-up",
            Kind.SWITCH_OFF,
            help="do not compile the simulator and CPU search at startup (they then compile "
            "during the first game)",
        ),
    )
    cpu_workers: int = setting(
        2,
        "threads of the CPU players' own pool: CPU decisions computed at once",
        Option.from_env("--cpu-workers", Kind.COUNT, "N"),
    )
    analysis_workers: int = setting(
        1,
        "threads of the analysis asked over HTTP (reviews, the practice room), "
        "apart from the CPU players'",
        Option.from_env("--analysis-workers", Kind.COUNT, "N"),
    )
    standin_grace: float = setting(
        10.0,
        "a player not connected when their turn comes is replaced by the CPU after this long",
        Option.from_env("--standin-grace", Kind.SECONDS, "SECONDS", PARTY_TIMINGS),
    )
    round_countdown: float = setting(
        10.0,
        "the next round of a party starts after this long unless everyone pressed Next sooner",
        Option.from_env("--round-countdown", Kind.SECONDS, "SECONDS", PARTY_TIMINGS),
    )
    turn_grace: float = setting(
        2.0,
        "latency grace added to every turn clock",
        Option.from_env("--turn-grace", Kind.SECONDS, "SECONDS", PARTY_TIMINGS),
    )
    metrics: bool = setting(
        False,
        "serve GET /metrics: this process's counters (database commits and new connections, "
        "commands and shots applied, leases lost) and its CPU seconds, in Prometheus's text "
        "format; off by default, as it tells anyone how busy the server is",
        Option("--metrics", Kind.SWITCH),
    )
    short_clocks: bool = setting(
        False,
        "accept turn clocks shorter than 30 seconds (for tests; players choose none, 30 or "
        "60 seconds)",
        Option("--test-clocks", Kind.SWITCH, group=PARTY_TIMINGS),
    )
    queue_messages: int = setting(
        256, "messages waiting for one connection before it is dropped as too slow"
    )
    queue_bytes: int = setting(
        4 * 1024 * 1024, "bytes waiting for one connection before it is dropped"
    )
    send_timeout: float = setting(
        30.0, "seconds one message may take to send before the connection is dropped"
    )
    analysis_queue: int = setting(
        8, "analysis requests that may wait for the analysis threads; more are answered 503"
    )
    reaction_gap: float = setting(2.0, "least seconds between two reactions of one member")
    rematch_offer: float = setting(
        60.0, "seconds a rematch offer waits for every seated player's answer before it lapses"
    )
    login_limit_pair: int = setting(
        5,
        "failed logins allowed per account from one address in 15 minutes "
        '(more are refused with "try again in N minutes")',
    )
    login_limit_address: int = setting(20, "failed logins allowed per address in 15 minutes")
    login_limit_account: int = setting(
        25,
        "failed logins allowed per account from anywhere in 15 minutes; browsers that "
        "logged in to it before are exempt",
    )
    signups_per_hour: int = setting(
        10,
        "new accounts one address may make in any hour (accounts made, counted for the "
        "whole site with --redis; a refused sign up does not count)",
    )
    session_sweep: float = setting(
        60.0,
        "seconds between two checks that the login sessions of this process's websockets "
        "still live (a socket whose session ended unheard of, a lost broadcast or an "
        "expiry, is closed then)",
    )
    messages_per_second: float = setting(
        20.0,
        "messages one websocket may send a second, on average (a token bucket; more: "
        "an ``error``, then the socket is closed)",
    )
    message_burst: int = setting(100, "messages one websocket may send at once (the bucket's size)")
    flood_cooldown: float = setting(
        10.0,
        "seconds an address whose websocket was closed for too many messages is refused "
        "new websockets (HTTP 403)",
    )
    own_process: bool = setting(
        False,
        "the server has the process to itself (``crokinole serve``): it tunes the garbage "
        "collector for short pauses (see :func:`crokinole.server.background.tune_collector`); "
        "tests that run the app in their own process leave it alone",
    )


@dataclass(frozen=True, slots=True)
class ProcessSettings:
    """What the process of ``crokinole serve`` needs besides :class:`ServerSettings`.

    >>> ProcessSettings().port
    8000
    """

    host: str = setting("127.0.0.1", "interface to listen on", Option("--host"))
    port: int = setting(8000, "port", Option("--port", Kind.COUNT, metavar="N"))
    db: str = setting(
        str(DEFAULT_DB),
        "the database: a SQLite file (created if missing) or a postgresql+psycopg:// URL",
        Option(
            "--db",
            Kind.DATABASE,
            ("CROKINOLE_DATABASE_URL", "CROKINOLE_DB"),
            "PATH|URL",
            default_text=f"$CROKINOLE_DATABASE_URL, else $CROKINOLE_DB, else {DEFAULT_DB}",
        ),
    )
    redis: str | None = setting(
        None,
        "a redis:// URL: run this process as one of several on one PostgreSQL database "
        "and Redis, which share the games",
        Option(
            "--redis",
            Kind.REDIS,
            ("CROKINOLE_REDIS_URL",),
            "URL",
            default_text="none, one process with its hub in memory; or $CROKINOLE_REDIS_URL",
        ),
    )
    redis_prefix: str = setting(
        "crokinole:",
        "the prefix of this site's Redis keys and channels: every process of one site "
        "gives the same, two sites on one Redis different ones",
        Option.from_env("--redis-prefix", Kind.REDIS_PREFIX, "TEXT"),
    )
    log_level: str = setting(
        "info",
        "server log level",
        Option(
            "--log-level", Kind.CHOICE, choices=("critical", "error", "warning", "info", "debug")
        ),
    )
    compress: bool = setting(
        False,
        "compress the websocket messages (permessage-deflate) for browsers that offer it: "
        "less traffic, more server CPU; off by default, as a game's messages are small",
        Option("--compress", Kind.SWITCH),
    )
    ranked_rounds: int | None = setting(
        None,
        "play ranked games of N rounds (1-4; for tests only: ranked games have 4)",
        Option(
            "--test-ranked-rounds",
            Kind.CHOICE,
            metavar="N",
            group=PARTY_TIMINGS,
            choices=(1, 2, 3, 4),
            default_text="",
        ),
    )
