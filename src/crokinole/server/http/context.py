"""What the HTTP routes work with, kept on the app: ``app.state.http``.

The routes are module-level functions; each reads the services it needs
(the store, the accounts, the tables, the analysis pool, the settings) and
the shared per-app state (caches, limiters, a clock for tests) from one
:class:`HttpContext`, which ``create_app`` makes and keeps on
``app.state.http``.  :func:`standalone` makes a small app of some routes on
a context (for tests, and to call a group of routes on its own).
"""

from __future__ import annotations

import asyncio
import datetime
import secrets
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.routing import BaseRoute

from crokinole.server.accounts import Accounts
from crokinole.server.bots import Bots
from crokinole.server.cache import LruCache
from crokinole.server.http.errors import EXCEPTION_HANDLERS
from crokinole.server.limits import RateLimiter, ServerSettings, SharedCounts
from crokinole.server.owner.cpu import AnalysisPool
from crokinole.server.owner.tables import Tables
from crokinole.store import Store
from crokinole.web import STATIC_DIR

if TYPE_CHECKING:
    from crokinole.server.cluster.redis_hub import RedisHub

__all__ = [
    "CACHE_SIZE",
    "HASHING_AT_ONCE",
    "Ended",
    "HttpContext",
    "context",
    "standalone",
    "utc_today",
]

#: Argon2 hashes computed at once (each takes 64 MiB and tens of milliseconds):
#: a burst of logins waits its turn instead of taking the server's memory.
HASHING_AT_ONCE = 2
#: Reviews and replays of tables' games kept ready (a finished game's never changes).
CACHE_SIZE = 32

#: Told the token hashes of sessions that ended (to close the sockets they logged in).
Ended = Callable[[list[str]], Awaitable[None]]
#: Told the ids of API tokens revoked (to close the sockets they logged in).
Revoked = Callable[[list[int]], Awaitable[None]]
#: Which of some bot accounts have a socket open now (in any process).
Online = Callable[[list[int]], Awaitable[set[int]]]


def utc_today() -> datetime.date:
    """Today's date in UTC: the daily challenge changes at midnight UTC for everyone."""
    return datetime.datetime.now(datetime.UTC).date()


def _seed() -> int:
    return secrets.randbits(63)


@dataclass(slots=True)
class HttpContext:
    """The services and the per-app state of the HTTP routes.

    Attributes:
        store: the database.
        settings: the server's settings (the origins allowed to POST, limits).
        accounts: the accounts service; without it everyone is a guest.
        tables: the tables' owner (its CPU pool fits the accuracies); needed
            by the review routes.
        analysis: the pool reviews, hints and heat maps are computed on (by
            default one of a thread, made on first use).
        on_ended: told of login sessions that ended.
        bots: the bot accounts' service (docs/bots.md), or None.
        on_revoked: told of API tokens revoked.
        bots_online: which bot accounts have a socket open now.
        redis_hub: the hub shared with the other processes (its connection is
            part of the server's health), or None.
        shared: the limits' counts shared with the other processes (in Redis,
            which the health check pings through them), or None.
        today: the current UTC date (a clock for tests).
        static: where the pages are.
        seeds: a new practice set's secret seed.
    """

    store: Store
    settings: ServerSettings = field(default_factory=ServerSettings)
    accounts: Accounts | None = None
    tables: Tables | None = None
    analysis: AnalysisPool | None = None
    on_ended: Ended | None = None
    bots: Bots | None = None
    on_revoked: Revoked | None = None
    bots_online: Online | None = None
    redis_hub: RedisHub | None = None
    shared: SharedCounts | None = None
    today: Callable[[], datetime.date] = utc_today
    static: Path = STATIC_DIR
    seeds: Callable[[], int] = _seed
    #: Argon2 hashes at once (logins, sign ups, new passwords).
    hashing: anyio.CapacityLimiter = field(
        default_factory=lambda: anyio.CapacityLimiter(HASHING_AT_ONCE)
    )
    #: New accounts per address and hour (made in ``__post_init__`` from the settings).
    signups: RateLimiter = field(init=False)
    #: The reviews of tables' games made last.
    reviews: LruCache[tuple[Any, ...], dict[str, Any]] = field(
        default_factory=lambda: LruCache(CACHE_SIZE)
    )
    #: The replays made last.
    replays: LruCache[tuple[Any, ...], dict[str, Any]] = field(
        default_factory=lambda: LruCache(CACHE_SIZE)
    )
    #: The client addresses with an analysis under way (one each at a time).
    analysing: set[str] = field(default_factory=set)
    #: Score sheets are read, changed and written one at a time.
    sheet_writing: asyncio.Lock = field(default_factory=asyncio.Lock)
    #: The health check's checks still under way, by name: a check that has not
    #: answered is waited for again rather than started once more.
    health_checks: dict[str, asyncio.Task[None]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.signups = RateLimiter(
            self.settings.signups_per_hour, 3600.0, shared=self.shared, kind="signups"
        )

    def pool(self) -> AnalysisPool:
        """The analysis pool (one of a thread is made if the app was given none)."""
        if self.analysis is None:
            self.analysis = AnalysisPool()
        return self.analysis

    def owner(self) -> Tables:
        """The tables' owner (the review routes need one)."""
        if self.tables is None:
            raise RuntimeError("these routes need the tables: HttpContext(tables=...)")
        return self.tables


def context(request: Request) -> HttpContext:
    """The context of the app that ``request`` came to."""
    return cast(HttpContext, request.app.state.http)


def standalone(routes: Sequence[BaseRoute], http: HttpContext) -> Starlette:
    """An app of ``routes`` alone on ``http``, its errors answered as the server's are.

    >>> from crokinole.server.http import practice
    >>> app = standalone(practice.routes, HttpContext(Store.open("sqlite://")))
    >>> [r.path for r in app.routes][:3]
    ['/practice', '/drills', '/api/drills']
    """
    app = Starlette(routes=list(routes), exception_handlers=EXCEPTION_HANDLERS)
    app.state.http = http
    return app
