"""What one client may cost the server: rate limits and the websocket origin check.

Every limit is a plain value of :class:`~crokinole.server.settings.ServerSettings`
(``crokinole serve`` options), which this module re-exports for its older
callers; the in-process rate limiters take the time as an argument so their
rules are tested without clocks.

On a site of several processes (``--redis``) the limits a client could
multiply by reaching several processes (new tables and joins per device,
sign-ups and open websockets per address) are counted in Redis, for the
whole site (:class:`SharedCounts`).  Each of those calls has a short
timeout; when Redis cannot be reached, each process counts in its own
memory meanwhile (N processes then let N times as much through) rather than
refusing everyone, says so once in its log, and asks Redis again
:data:`RETRY_REDIS_S` seconds later.
"""

from __future__ import annotations

import hashlib
import itertools
import logging
import os
import secrets
import socket
import time
from collections import Counter, deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlsplit

import anyio
from redis.asyncio import Redis
from redis.exceptions import RedisError

from crokinole.server.settings import ServerSettings

__all__ = [
    "AddressConnections",
    "Counted",
    "RateLimiter",
    "ServerSettings",
    "SharedCounts",
    "Slot",
    "TokenBucket",
    "origin_allowed",
]

log = logging.getLogger("crokinole.server")

T = TypeVar("T")

#: Seconds one call of the limits to Redis may take (connecting, or waiting for
#: the answer) before the limit is counted in this process instead.
REDIS_TIMEOUT_S = 1.0
#: After Redis failed a limit's call, the limits are counted in this process
#: this long before Redis is asked again (a hung Redis costs one timeout, not
#: one per client).
RETRY_REDIS_S = 10.0
#: A websocket counted in Redis lapses this long after its process last said
#: it is still open: the count of a process that died empties by itself.
CONNECTION_TTL_S = 60.0

# A sliding window of events per key: a sorted set of the events, scored by
# when they happened (Redis's clock, in ms, so the processes of several hosts
# agree).  Those older than the window go; at the limit, nothing is added.
_WINDOW = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  return 0
end
redis.call('ZADD', KEYS[1], now, ARGV[3])
redis.call('PEXPIRE', KEYS[1], window)
return 1
"""

# The open websockets of an address: a sorted set of connections, each scored
# by when its count lapses unless its process renews it (a dead process's
# connections lapse by themselves).
_ADMIT = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  return 0
end
redis.call('ZADD', KEYS[1], now + ttl, ARGV[3])
redis.call('PEXPIRE', KEYS[1], ttl)
return 1
"""

# A process's open websockets, all at once: KEYS are their addresses' sets;
# ARGV the lapse (ms), then for each key the number of its connections and
# their names.  A connection missing from its set (counted in the process
# while Redis was away, or lapsed during a pause) is added back: it is open.
_RENEW = """
local t = redis.call('TIME')
local ttl = tonumber(ARGV[1])
local lapse = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + ttl
local at = 2
for _, key in ipairs(KEYS) do
  local n = tonumber(ARGV[at])
  at = at + 1
  for _ = 1, n do
    redis.call('ZADD', key, lapse, ARGV[at])
    at = at + 1
  end
  redis.call('PEXPIRE', key, ttl)
end
return #KEYS
"""


def _key_part(key: str) -> str:
    """A client's key (a device token, an address) as a part of a Redis key: a
    digest, so that no token is kept in Redis and every key has one length."""
    return hashlib.sha256(key.encode()).hexdigest()[:32]


class SharedCounts:
    """The counts of the limits that the processes of one site share, in Redis.

    Args:
        redis: the client; :meth:`from_url` makes one (short timeouts) that
            :meth:`close` closes.
        prefix: the site's prefix of Redis keys (``--redis-prefix``); the
            counts are under ``PREFIX`` + ``limits:``.
        connection_ttl: seconds a counted websocket lapses after its
            process last renewed it.

    A call that fails (Redis unreachable, or silent for
    :data:`REDIS_TIMEOUT_S`) answers None: the caller counts in its process.
    """

    def __init__(
        self,
        redis: Redis,
        prefix: str,
        *,
        connection_ttl: float = CONNECTION_TTL_S,
        owns_client: bool = False,
    ) -> None:
        self._redis = redis
        self._prefix = f"{prefix}limits:"
        self._owns_client = owns_client
        self.connection_ttl_ms = max(1, round(connection_ttl * 1000))
        self._window = redis.register_script(_WINDOW)
        self._admit = redis.register_script(_ADMIT)
        self._renew = redis.register_script(_RENEW)
        #: Unique among the processes: the names of this one's events and connections.
        self._names = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}:"
        self._serial = itertools.count()
        #: Until when (monotonic) the limits are counted in this process (Redis failed).
        self._away_until = 0.0
        self._away = False

    @classmethod
    def from_url(cls, url: str, prefix: str, **options: Any) -> SharedCounts:
        """Counts on a client of their own for ``url`` (``redis://host:port/db``)."""
        client = Redis.from_url(
            url, socket_timeout=REDIS_TIMEOUT_S, socket_connect_timeout=REDIS_TIMEOUT_S
        )
        return cls(client, prefix, owns_client=True, **options)

    def name(self) -> str:
        """A new name, unique across processes, for one event or connection."""
        return f"{self._names}{next(self._serial)}"

    def key(self, kind: str, key: str) -> str:
        """The Redis key of what ``kind`` counts for ``key``."""
        return f"{self._prefix}{kind}:{_key_part(key)}"

    async def ping(self) -> None:
        """Check that Redis answers (within :data:`REDIS_TIMEOUT_S`).

        Raises:
            RedisError: it does not.
        """
        await self._redis.ping()

    async def close(self) -> None:
        """Close the client (if these counts made it)."""
        if self._owns_client:
            await self._redis.aclose()

    async def _call(self, call: Callable[[], Awaitable[T]]) -> T | None:
        """What Redis answered, or None (count in the process) when it cannot be reached."""
        if self._away and time.monotonic() < self._away_until:
            return None
        try:
            answer = await call()
        except (RedisError, OSError) as exc:
            self._away_until = time.monotonic() + RETRY_REDIS_S
            if not self._away:
                self._away = True
                log.warning(
                    "Redis could not be reached (%s): the limits are counted in this "
                    "process until it answers again",
                    exc,
                )
            return None
        if self._away:
            self._away = False
            log.warning("Redis answers again: the limits are counted there for every process")
        return answer

    async def window(self, key: str, limit: int, window: float, name: str) -> bool | None:
        """Count the event ``name`` in ``key``'s sliding window of ``window`` seconds if
        fewer than ``limit`` are there; None if Redis cannot be reached."""
        window_ms = max(1, round(window * 1000))
        answer = await self._call(lambda: self._window([key], [window_ms, limit, name]))
        return None if answer is None else bool(answer)

    async def admit(self, key: str, limit: int, name: str) -> bool | None:
        """Count the connection ``name`` in ``key`` if fewer than ``limit`` are open
        there; None if Redis cannot be reached."""
        answer = await self._call(lambda: self._admit([key], [self.connection_ttl_ms, limit, name]))
        return None if answer is None else bool(answer)

    async def forget(self, key: str, name: str) -> None:
        """Take the event or connection ``name`` out of ``key`` (a connection that lost
        it because Redis was away lapses by itself)."""
        await self._call(lambda: self._redis.zrem(key, name))

    async def count(self, key: str) -> int | None:
        """How many connections ``key`` has open (not lapsed); None if Redis cannot be reached."""
        now_ms = round(time.time() * 1000)
        answer = await self._call(lambda: self._redis.zcount(key, now_ms, "+inf"))
        return None if answer is None else int(answer)

    async def renew(self, open_: dict[str, list[str]]) -> None:
        """Say that the connections ``open_`` (their names, by key) are still open."""
        if not open_:
            return
        keys = list(open_)
        args: list[int | str] = [self.connection_ttl_ms]
        for key in keys:
            args += [len(open_[key]), *open_[key]]
        await self._call(lambda: self._renew(keys, args))


@dataclass(frozen=True, slots=True)
class Counted:
    """One event a :class:`RateLimiter` counted: what :meth:`RateLimiter.give_back` takes.

    Attributes:
        key: whose event (a device token, an address).
        at: when, on this process's monotonic clock (counted in the process).
        name: the event's name in Redis, or None if it was counted in the process.
    """

    key: str
    at: float
    name: str | None = None


class RateLimiter:
    """At most ``limit`` events per key in any ``window`` seconds (a sliding window).

    In the process with :meth:`allow` (the time an argument); for every
    process of a site with :meth:`take`, which counts in Redis when given
    ``shared`` counts (``kind`` names what is counted there) and in the
    process without, or while Redis cannot be reached.

    >>> limiter = RateLimiter(limit=2, window=60.0)
    >>> [limiter.allow("tok", now) for now in (0.0, 1.0, 2.0, 60.5)]
    [True, True, False, True]
    """

    def __init__(
        self,
        limit: int,
        window: float,
        *,
        shared: SharedCounts | None = None,
        kind: str = "events",
    ) -> None:
        self._limit = limit
        self._window = window
        self._seen: dict[str, deque[float]] = {}
        self._shared = shared
        self._kind = kind

    async def take(self, key: str) -> Counted | None:
        """Count an event for ``key`` now if the limit allows it (None: refused).

        >>> import asyncio
        >>> limiter = RateLimiter(limit=1, window=60.0)
        >>> async def twice() -> list[bool]:
        ...     return [await limiter.take("ip") is not None for _ in range(2)]
        >>> asyncio.run(twice())
        [True, False]
        """
        if self._shared is not None:
            name = self._shared.name()
            redis_key = self._shared.key(self._kind, key)
            allowed = await self._shared.window(redis_key, self._limit, self._window, name)
            if allowed is not None:
                return Counted(key, 0.0, name) if allowed else None
        now = time.monotonic()
        return Counted(key, now) if self.allow(key, now) else None

    async def give_back(self, counted: Counted) -> None:
        """Take back an event :meth:`take` counted (what it allowed did not happen)."""
        if counted.name is None:
            self.refund(counted.key, counted.at)
        elif self._shared is not None:
            await self._shared.forget(self._shared.key(self._kind, counted.key), counted.name)

    def allow(self, key: str, now: float) -> bool:
        """Count an event for ``key`` at time ``now`` if the limit allows it."""
        times = self._seen.setdefault(key, deque())
        while times and times[0] <= now - self._window:
            times.popleft()
        if len(times) >= self._limit:
            return False
        times.append(now)
        if len(self._seen) > 10_000:  # forget idle keys so memory stays bounded
            for idle in [k for k, v in self._seen.items() if not v or v[-1] <= now - self._window]:
                del self._seen[idle]
        return True

    def refund(self, key: str, at: float) -> None:
        """Take back the event counted for ``key`` at ``at`` (what it allowed did not happen).

        >>> limiter = RateLimiter(limit=1, window=60.0)
        >>> limiter.allow("ip", 0.0), limiter.allow("ip", 1.0)
        (True, False)
        >>> limiter.refund("ip", 0.0)
        >>> limiter.allow("ip", 2.0)
        True
        """
        times = self._seen.get(key)
        if times is not None and at in times:
            times.remove(at)


@dataclass(frozen=True, slots=True)
class Slot:
    """One open websocket that :class:`AddressConnections` counted.

    Attributes:
        address: the client's address.
        name: its name in Redis (also when it was counted in the process, so
            that the renewal adds it there once Redis is back).
    """

    address: str
    name: str


class AddressConnections:
    """At most ``limit`` open websockets per address, for every process of a site.

    Each process knows its own connections (:attr:`here`).  With ``shared``
    counts they are counted in Redis too, each one lapsing unless its
    process renews it (:meth:`renew`, every third of the lapse), so the
    connections of a process that died stop counting by themselves.  Without
    ``shared``, or while Redis cannot be reached, an address is held to
    ``limit`` in this process.

    >>> import asyncio
    >>> connections = AddressConnections(limit=2)
    >>> async def three() -> list[bool]:
    ...     slots = [await connections.open("10.0.0.1") for _ in range(3)]
    ...     await connections.close(slots[0])
    ...     return [s is not None for s in slots] + [await connections.open("10.0.0.1") is not None]
    >>> asyncio.run(three())
    [True, True, False, True]
    """

    def __init__(self, limit: int, shared: SharedCounts | None = None) -> None:
        self._limit = limit
        self._shared = shared
        #: This process's open websockets, by address.
        self.here: Counter[str] = Counter()
        #: This process's open websockets (their names), by the Redis key of their address.
        self._named: dict[str, set[str]] = {}
        self._serial = itertools.count()

    def _key(self, address: str) -> str:
        return "" if self._shared is None else self._shared.key("connections", address)

    async def open(self, address: str) -> Slot | None:
        """Count a new websocket of ``address`` if the limit allows it (None: refused)."""
        if self._shared is None:
            name = str(next(self._serial))
            allowed: bool | None = None
        else:
            name = self._shared.name()
            allowed = await self._shared.admit(self._key(address), self._limit, name)
        if allowed is None:  # counted in the process (alone, or Redis away)
            allowed = self.here[address] < self._limit
        if not allowed:
            return None
        self.here[address] += 1
        if self._shared is not None:
            self._named.setdefault(self._key(address), set()).add(name)
        return Slot(address, name)

    async def close(self, slot: Slot) -> None:
        """One websocket of ``slot.address`` fewer."""
        self.here[slot.address] -= 1
        if self.here[slot.address] <= 0:
            del self.here[slot.address]
        if self._shared is None:
            return
        key = self._key(slot.address)
        names = self._named.get(key, set())
        names.discard(slot.name)
        if not names:
            self._named.pop(key, None)
        await self._shared.forget(key, slot.name)

    async def count(self, address: str) -> int:
        """How many websockets ``address`` has open (in every process with shared counts)."""
        if self._shared is not None:
            counted = await self._shared.count(self._key(address))
            if counted is not None:
                return counted
        return self.here[address]

    async def renew(self) -> None:
        """Say in Redis that this process's websockets are still open (with shared counts)."""
        if self._shared is not None:
            await self._shared.renew({key: sorted(names) for key, names in self._named.items()})

    async def renew_forever(self) -> None:
        """:meth:`renew` every third of the lapse, until cancelled (nothing to do without
        shared counts)."""
        if self._shared is None:
            return
        while True:
            await anyio.sleep(self._shared.connection_ttl_ms / 3000)
            await self.renew()


class TokenBucket:
    """At most ``burst`` events at once, refilled at ``rate`` a second (time is an argument).

    >>> bucket = TokenBucket(rate=2.0, burst=3, now=0.0)
    >>> [bucket.take(0.0) for _ in range(4)]
    [True, True, True, False]
    >>> bucket.take(0.4), bucket.take(0.5), bucket.take(0.6)
    (False, True, False)
    """

    def __init__(self, rate: float, burst: int, now: float) -> None:
        self._rate = rate
        self._burst = float(burst)
        self._tokens = float(burst)
        self._at = now

    def take(self, now: float) -> bool:
        """Count one event at time ``now``; False when the bucket is empty (nothing counted)."""
        self._tokens = min(self._burst, self._tokens + (now - self._at) * self._rate)
        self._at = now
        if self._tokens < 1.0:
            return False
        self._tokens -= 1.0
        return True


def origin_allowed(origin: str | None, host: str | None, allowed: tuple[str, ...]) -> bool:
    """Whether a websocket handshake's ``Origin`` may open a connection.

    Browsers always send ``Origin`` on a websocket handshake, so a page of
    another site is refused unless it is listed in ``allowed``.  A client
    that sends no ``Origin`` at all is not a browser (a script, a test, a
    native app): it could set any header it likes, so refusing it would
    protect nothing; it is accepted.

    >>> origin_allowed("http://localhost:8000", "localhost:8000", ())
    True
    >>> origin_allowed("https://evil.example", "localhost:8000", ())
    False
    >>> origin_allowed("https://play.example", "10.0.0.2:8000", ("https://play.example",))
    True
    >>> origin_allowed(None, "localhost:8000", ())
    True
    """
    if origin is None:
        return True
    if "*" in allowed or origin in allowed:
        return True
    if origin == "null" or host is None:
        return False
    parts = urlsplit(origin)
    return parts.scheme in ("http", "https") and parts.netloc.lower() == host.lower()
