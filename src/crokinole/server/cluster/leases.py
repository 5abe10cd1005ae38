"""Ownership of tables on Redis: leases claimed, renewed, lost and released; leads.

``claim(table, owner)`` sets the lease ``{prefix}lease:{table}`` to ``owner``
(``SET NX PX lease_ms``; claiming again what one holds renews it), in one Lua
script that also registers the table as this process's
(``{prefix}held:{origin}``, a set; ``{prefix}holders`` lists the processes
that hold tables) and refreshes the process's heartbeat
``{prefix}alive:{origin}`` (it lasts a lease).  A background task renews
every lease this hub holds each ``lease_ms / 3`` in **one** round trip (one
script for them all, which refreshes the heartbeat too and says which were
lost); a lease found gone or someone else's (or that could not reach Redis
for a whole lease) is dropped and reported to ``on_lost(table)``: the owner
must give the table up, since another process may take it over.
``release`` deletes the lease only if it is still the owner's
(compare-and-delete in one script) and unregisters the table; with
``hand_over`` it registers the table instead to :data:`HANDED_OVER`, a
process that is never alive, so that the other processes' watchers take it
up (a live owner that cannot write a table gives it to them this way).

:meth:`Leases.orphans` is what the takeover watcher looks at: the tables
registered to processes whose heartbeat is gone (died, or cut off from
Redis for a lease), in one script call; nothing else is scanned.  A hub
that closes releases its leases but leaves its tables registered and its
heartbeat deleted, so that the others take up at once what it held.
:meth:`Leases.lead` is a lease on ``{prefix}lead:{name}`` claimed or renewed
at each call (who pairs the ranked queue).  The scripts build no key names
but the heartbeats and registers of :meth:`orphans` (one Redis, not a
Redis Cluster).
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from redis.exceptions import RedisError

from crokinole import metrics
from crokinole.server.cluster.redis_base import RedisBase, text, unreachable

if TYPE_CHECKING:
    from redis.asyncio import Redis
    from redis.commands.core import AsyncScript

log = logging.getLogger("crokinole.server")

#: Milliseconds a lease lasts without renewal (its owner is presumed dead after it).
LEASE_MS = 10_000

# Claim a lease, or renew it if it is the owner's: 1 if held, 0 if another's.  A claim
# registers the table as the process's and refreshes its heartbeat.
# KEYS: lease, held set, heartbeat, holders; ARGV: owner, lease_ms, table, origin.
_CLAIM = """
local holder = redis.call('GET', KEYS[1])
if holder == false then
    redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
elseif holder == ARGV[1] then
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
else
    return 0
end
redis.call('SADD', KEYS[2], ARGV[3])
redis.call('SET', KEYS[3], '1', 'PX', ARGV[2])
redis.call('SADD', KEYS[4], ARGV[4])
return 1
"""

# Renew every lease of the process that is still its owner's, and its heartbeat;
# unregister and return (by 1-based index) those that are not.
# KEYS: heartbeat, held set, holders, lease 1..n; ARGV: lease_ms, origin,
# then owner i and table i for each lease.
_RENEW_ALL = """
local lost = {}
for i = 1, #KEYS - 3 do
    local key = KEYS[3 + i]
    if redis.call('GET', key) == ARGV[1 + 2 * i] then
        redis.call('PEXPIRE', key, ARGV[1])
    else
        lost[#lost + 1] = i
        redis.call('SREM', KEYS[2], ARGV[2 + 2 * i])
    end
end
redis.call('SET', KEYS[1], '1', 'PX', ARGV[1])
redis.call('SADD', KEYS[3], ARGV[2])
return lost
"""

# The tables registered to processes whose heartbeat is gone: a flat list of
# origin, tables, origin, tables...; a dead process with none is dropped from the
# holders.  KEYS: holders; ARGV: the prefix, this process's origin.
_ORPHANS = """
local found = {}
for _, origin in ipairs(redis.call('SMEMBERS', KEYS[1])) do
    if origin ~= ARGV[2] and redis.call('EXISTS', ARGV[1] .. 'alive:' .. origin) == 0 then
        local held = redis.call('SMEMBERS', ARGV[1] .. 'held:' .. origin)
        if #held == 0 then
            redis.call('SREM', KEYS[1], origin)
        else
            found[#found + 1] = origin
            found[#found + 1] = held
        end
    end
end
return found
"""

# Take a lead, or renew it if it is this hub's: 1 if held, 0 if another's.
_LEAD = """
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
    return 1
end
if redis.call('GET', KEYS[1]) == ARGV[1] then
    return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""

# Delete a lease only if it is still the owner's: 1 if deleted, 0 if not.  With a
# second key (the process's held set) the table ARGV[2] is unregistered too; with
# a third and fourth (the handed-over set, the holders) it is registered there.
# KEYS: lease[, held set[, handed-over set, holders]]; ARGV: owner[, table[, its origin]].
_RELEASE = """
if KEYS[2] then
    redis.call('SREM', KEYS[2], ARGV[2])
end
if KEYS[3] then
    redis.call('SADD', KEYS[3], ARGV[2])
    redis.call('SADD', KEYS[4], ARGV[3])
end
if redis.call('GET', KEYS[1]) == ARGV[1] then
    return redis.call('DEL', KEYS[1])
end
return 0
"""

OnLost = Callable[[str], Awaitable[None] | None]

#: The origin that tables handed over by a live owner are registered to: it has
#: no heartbeat, so :meth:`Leases.orphans` lists them to every other process.
HANDED_OVER = "handed-over"


@dataclass
class Lease:
    """A lease this hub holds (and renews)."""

    owner: str
    renewed_at: float  # time.monotonic() of the last claim or renewal that succeeded


class Leases(RedisBase):
    """The part of :class:`~crokinole.server.cluster.redis_hub.RedisHub` that holds leases."""

    on_lost: OnLost | None
    _leases: dict[str, Lease]
    _leads: set[str]
    _renewer: asyncio.Task[None] | None
    _claim: AsyncScript
    _renew_all: AsyncScript
    _orphans: AsyncScript
    _release: AsyncScript
    _lead: AsyncScript

    def _init_leases(self, redis: Redis, on_lost: OnLost | None) -> None:
        self.on_lost = on_lost
        self._leases = {}
        self._leads = set()
        self._renewer = None
        self._claim = redis.register_script(_CLAIM)
        self._renew_all = redis.register_script(_RENEW_ALL)
        self._orphans = redis.register_script(_ORPHANS)
        self._release = redis.register_script(_RELEASE)
        self._lead = redis.register_script(_LEAD)

    # ------------------------------------------------------------ keys

    def _alive_key(self, origin: str) -> str:
        """The heartbeat of the process ``origin`` (there while it renews its leases)."""
        return f"{self._prefix}alive:{origin}"

    def _held_key(self, origin: str) -> str:
        """The set of the tables the process ``origin`` holds (or held when it died)."""
        return f"{self._prefix}held:{origin}"

    @property
    def _holders_key(self) -> str:
        """The set of the processes that registered tables."""
        return f"{self._prefix}holders"

    # ------------------------------------------------------------ who holds what

    async def owners(self, table_ids: Sequence[str]) -> dict[str, str | None]:
        """Who holds each table's lease now (None: nobody), in one call.

        Raises:
            HubUnavailableError: Redis could not be reached.
        """
        if not table_ids:
            return {}
        try:
            values = await self._redis.mget([self.lease_key(t) for t in table_ids])
        except RedisError as exc:
            raise unreachable(exc) from exc
        return {t: None if v is None else text(v) for t, v in zip(table_ids, values, strict=True)}

    async def owner_of(self, table_id: str) -> str | None:
        """Who holds the table's lease now (None: nobody).

        Raises:
            HubUnavailableError: Redis could not be reached.
        """
        try:
            value = await self._redis.get(self.lease_key(table_id))
        except RedisError as exc:
            raise unreachable(exc) from exc
        return None if value is None else text(value)

    async def orphans(self) -> dict[str, list[str]]:
        """The tables registered to each process whose heartbeat is gone, by its origin.

        Such a process died (or was cut off from Redis for a lease): its
        tables' leases expire with its heartbeat, and another process takes
        them up.  One script call, whatever the number of tables.

        Raises:
            HubUnavailableError: Redis could not be reached.
        """
        try:
            flat = await self._orphans(keys=[self._holders_key], args=[self._prefix, self.origin])
        except RedisError as exc:
            raise unreachable(exc) from exc
        return {text(flat[k]): sorted(text(t) for t in flat[k + 1]) for k in range(0, len(flat), 2)}

    async def forget(self, origin: str, table_ids: Sequence[str]) -> None:
        """Unregister ``table_ids`` from the dead process ``origin`` (taken up elsewhere).

        Raises:
            HubUnavailableError: Redis could not be reached.
        """
        if not table_ids:
            return
        try:
            await self._redis.srem(self._held_key(origin), *table_ids)
        except RedisError as exc:
            raise unreachable(exc) from exc

    # ------------------------------------------------------------ claiming

    async def claim(self, table_id: str, owner: str) -> bool:
        """Make ``owner`` the table's owner (or renew its lease); False if another holds it.

        Raises:
            HubUnavailableError: Redis could not be reached (nothing is claimed).
        """
        keys = [
            self.lease_key(table_id),
            self._held_key(self.origin),
            self._alive_key(self.origin),
            self._holders_key,
        ]
        now = time.monotonic()
        try:
            taken = bool(
                await self._claim(keys=keys, args=[owner, self.lease_ms, table_id, self.origin])
            )
        except RedisError as exc:
            raise unreachable(exc) from exc
        if not taken:
            lease = self._leases.get(table_id)
            if lease is not None and lease.owner == owner:
                del self._leases[table_id]  # it was lost: the renewer has not noticed yet
            return False
        self._leases[table_id] = Lease(owner, now)
        self._start_renewer()
        return True

    async def release(self, table_id: str, owner: str, *, hand_over: bool = False) -> None:
        """Give the table up, if ``owner`` holds it (another's lease is left alone).

        ``hand_over``: the other processes' watchers take the table up (it is
        registered to :data:`HANDED_OVER`), as they would a dead process's.

        Raises:
            HubUnavailableError: Redis could not be reached (the lease then expires).
        """
        lease = self._leases.get(table_id)
        if lease is not None and lease.owner == owner:
            del self._leases[table_id]
        keys = [self.lease_key(table_id), self._held_key(self.origin)]
        args = [owner, table_id]
        if hand_over:
            keys += [self._held_key(HANDED_OVER), self._holders_key]
            args.append(HANDED_OVER)
        try:
            await self._release(keys=keys, args=args)
        except RedisError as exc:
            raise unreachable(exc) from exc

    def holds(self, table_id: str) -> str | None:
        """The owner whose lease on the table this hub holds (and renews), or None."""
        lease = self._leases.get(table_id)
        return lease.owner if lease is not None else None

    # ------------------------------------------------------------ renewing

    def _start_renewer(self) -> None:
        if self._renewer is None and not self._closed:
            self._renewer = asyncio.get_running_loop().create_task(self._renew_forever())

    async def _renew_forever(self) -> None:
        while True:
            await asyncio.sleep(self.lease_ms / 3000)
            if self._closed:  # a cancellation absorbed on its way (see stop_tasks)
                return
            await self.renew()

    async def renew(self) -> None:
        """Renew every lease this hub holds now, and its heartbeat, in one round trip;
        report those lost to ``on_lost``.

        Runs every ``lease_ms / 3`` on its own; a lease that Redis could not
        renew for a whole ``lease_ms`` is reported lost too (it has expired,
        or is about to, and another process may take the table).
        """
        leases = list(self._leases.items())
        keys = [self._alive_key(self.origin), self._held_key(self.origin), self._holders_key]
        args: list[str | int] = [self.lease_ms, self.origin]
        for table_id, lease in leases:
            keys.append(self.lease_key(table_id))
            args += [lease.owner, table_id]
        started = time.monotonic()
        try:
            lost = {leases[int(i) - 1][0] for i in await self._renew_all(keys=keys, args=args)}
            renewed = True
        except RedisError as exc:
            lost = {t for t, lease in leases if started - lease.renewed_at >= self.lease_ms / 1000}
            renewed = False
            if len(lost) < len(leases):
                log.warning("could not renew the leases of %d tables: %s", len(leases), exc)
        for table_id, lease in leases:
            if self._leases.get(table_id) is not lease:
                continue  # released or claimed again meanwhile
            if table_id not in lost:
                if renewed:
                    lease.renewed_at = started
                continue
            del self._leases[table_id]
            log.warning("the lease of table %s was lost", table_id)
            self._lost(table_id)

    def _lost(self, table_id: str) -> None:
        metrics.count(metrics.LEASES_LOST)
        if self.on_lost is None:
            return
        try:
            result = self.on_lost(table_id)
        except Exception:
            log.exception("on_lost failed for table %s", table_id)
            return
        if inspect.isawaitable(result):
            self._spawn(_awaited(result))

    async def lead(self, name: str) -> bool:
        """Whether this hub leads ``name``: claims or renews the lease ``{prefix}lead:{name}``.

        Raises:
            HubUnavailableError: Redis could not be reached.
        """
        key = f"{self._prefix}lead:{name}"
        try:
            led = bool(await self._lead(keys=[key], args=[self.origin, self.lease_ms]))
        except RedisError as exc:
            raise unreachable(exc) from exc
        if led:
            self._leads.add(key)
        else:
            self._leads.discard(key)
        return led

    async def _release_all(self) -> None:
        """Release the leases and leads this hub holds, and its heartbeat, in one round trip.

        The tables stay registered as this process's: with its heartbeat
        gone, another process's watcher takes them up at once (their leases
        released), not a lease later.
        """
        leases, self._leases = list(self._leases.items()), {}
        leads, self._leads = list(self._leads), set()
        try:
            async with self._redis.pipeline(transaction=False) as pipe:
                for table_id, lease in leases:
                    await self._release(
                        keys=[self.lease_key(table_id)], args=[lease.owner], client=pipe
                    )
                for key in leads:
                    await self._release(keys=[key], args=[self.origin], client=pipe)
                pipe.delete(self._alive_key(self.origin))
                await pipe.execute()
        except RedisError as exc:
            log.warning("could not release %d tables (they expire): %s", len(leases), exc)


async def _awaited(result: Awaitable[None]) -> None:
    try:
        await result
    except Exception:
        log.exception("on_lost failed")
