"""What one client may cost the server: rate limits and the websocket origin check.

Every limit is a plain value of :class:`~crokinole.server.settings.ServerSettings`
(``crokinole serve`` options), which this module re-exports for its older
callers; the rate limiters take the time as an argument so their rules are
tested without clocks.
"""

from __future__ import annotations

from collections import deque
from urllib.parse import urlsplit

from crokinole.server.settings import ServerSettings

__all__ = ["RateLimiter", "ServerSettings", "TokenBucket", "origin_allowed"]


class RateLimiter:
    """At most ``limit`` events per key in any ``window`` seconds (a sliding window).

    >>> limiter = RateLimiter(limit=2, window=60.0)
    >>> [limiter.allow("tok", now) for now in (0.0, 1.0, 2.0, 60.5)]
    [True, True, False, True]
    """

    def __init__(self, limit: int, window: float) -> None:
        self._limit = limit
        self._window = window
        self._seen: dict[str, deque[float]] = {}

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
