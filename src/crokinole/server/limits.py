"""What one client may cost the server: settings, rate limits and the websocket origin check.

Every limit is a plain value of :class:`ServerSettings` (``crokinole serve``
options); the rate limiter takes the time as an argument so its rules are
tested without clocks.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from urllib.parse import urlsplit


@dataclass(frozen=True, slots=True)
class ServerSettings:
    """The server's limits and policies.

    Attributes:
        allowed_origins: websocket ``Origin`` values accepted besides the
            server's own (e.g. ``https://play.example.org``); ``*`` accepts any.
        rooms_per_minute: new tables and parties joined (``create``,
            ``join``) one device token may ask for in any 60 seconds (the
            name is protocol 1's, kept for ``--rooms-per-minute``).
        hello_timeout: seconds a new websocket has to say ``hello``.
        connections_per_address: open websockets from one IP address.
        retention_days: abandoned games are compacted after this many days.
        queue_messages: messages waiting for one connection before it is
            dropped as too slow.
        queue_bytes: bytes waiting for one connection before it is dropped.
        send_timeout: seconds one message may take to send before the
            connection is dropped.
        warm_up: compile the simulator and the CPU search at startup.
        cpu_workers: threads of the CPU players' own pool (CPU decisions
            computed at once; the others wait their turn).
        analysis_workers: threads of the analysis asked over HTTP (reviews,
            the practice room's hints and heat maps), apart from the CPU players'.
        analysis_queue: analysis requests that may wait for those threads;
            more are answered 503.
        turn_grace: seconds of latency grace added to a table's turn clock.
        standin_grace: seconds before the CPU takes over the turn of a player
            who is not connected.
        round_countdown: seconds after a round's end before the next round
            starts in a party (unless everyone pressed Next).
        reaction_gap: least seconds between two reactions of one member.
        rematch_offer: seconds a rematch offer waits for every seated
            player's answer before it lapses.
        short_clocks: allow turn clocks under 30 seconds (tests only).
        login_limit_pair: failed logins allowed per account from one address
            in 15 minutes (more are refused with "try again in N minutes").
        login_limit_address: failed logins allowed per address in 15 minutes.
        login_limit_account: failed logins allowed per account from anywhere
            in 15 minutes; browsers that logged in to it before are exempt.
        messages_per_second: messages one websocket may send a second, on
            average (a token bucket; more: an ``error``, then the socket is closed).
        message_burst: messages one websocket may send at once (the bucket's size).
        flood_cooldown: seconds an address whose websocket was closed for too
            many messages is refused new websockets (HTTP 403).
        signups_per_hour: new accounts one address may make in any hour
            (accounts made, counted in the process; a refused sign up does
            not count).
        session_sweep: seconds between two checks that the login sessions of
            this process's websockets still live (a socket whose session ended
            unheard of, a lost broadcast or an expiry, is closed then).
        lease_ms: with several processes (Redis), how long a process's claim on a
            game lasts without renewal: after its process died, another takes
            the game over within this time.
        own_process: the server has the process to itself (``crokinole serve``):
            it tunes the garbage collector for short pauses (see
            :func:`crokinole.server.app.tune_collector`); tests that run
            the app in their own process leave it alone.
    """

    allowed_origins: tuple[str, ...] = ()
    rooms_per_minute: int = 20
    hello_timeout: float = 10.0
    connections_per_address: int = 32
    retention_days: float = 30.0
    queue_messages: int = 256
    queue_bytes: int = 4 * 1024 * 1024
    send_timeout: float = 30.0
    warm_up: bool = True
    cpu_workers: int = 2
    analysis_workers: int = 1
    analysis_queue: int = 8
    turn_grace: float = 2.0
    standin_grace: float = 10.0
    round_countdown: float = 10.0
    reaction_gap: float = 2.0
    rematch_offer: float = 60.0
    short_clocks: bool = False
    login_limit_pair: int = 5
    login_limit_address: int = 20
    login_limit_account: int = 25
    signups_per_hour: int = 10
    session_sweep: float = 60.0
    messages_per_second: float = 20.0
    message_burst: int = 100
    flood_cooldown: float = 10.0
    lease_ms: int = 10_000
    own_process: bool = False


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
