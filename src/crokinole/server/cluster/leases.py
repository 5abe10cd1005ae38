"""Ownership of tables on Redis: leases claimed, renewed, lost and released; leads.

``claim(table, owner)`` sets the lease ``{prefix}lease:{table}`` to ``owner``
(``SET NX PX lease_ms``); claiming again what one holds renews it.  A
background task renews every lease this hub holds each ``lease_ms / 3``; a
renewal that finds the lease gone or someone else's (or that could not reach
Redis for a whole lease) drops it and calls ``on_lost(table)``: the owner
must give the table up, since another process may take it over.  ``release``
deletes the lease only if it is still the owner's (compare-and-delete in one
Lua script).  :meth:`Leases.lead` is a lease on ``{prefix}lead:{name}``
claimed or renewed at each call (who pairs the ranked queue).
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
from crokinole.server.cluster.hub import HubUnavailableError
from crokinole.server.cluster.redis_base import RedisBase, text, unreachable

if TYPE_CHECKING:
    from redis.asyncio import Redis
    from redis.commands.core import AsyncScript

log = logging.getLogger("crokinole.server")

#: Milliseconds a lease lasts without renewal (its owner is presumed dead after it).
LEASE_MS = 10_000

# Renew a lease only if it is still the owner's: 1 if renewed, 0 if not.
_RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
    return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
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

# Delete a lease only if it is still the owner's: 1 if deleted, 0 if not.
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
    return redis.call('DEL', KEYS[1])
end
return 0
"""

OnLost = Callable[[str], Awaitable[None] | None]


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
    _renew: AsyncScript
    _release: AsyncScript
    _lead: AsyncScript

    def _init_leases(self, redis: Redis, on_lost: OnLost | None) -> None:
        self.on_lost = on_lost
        self._leases = {}
        self._leads = set()
        self._renewer = None
        self._renew = redis.register_script(_RENEW)
        self._release = redis.register_script(_RELEASE)
        self._lead = redis.register_script(_LEAD)

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

    async def claim(self, table_id: str, owner: str) -> bool:
        """Make ``owner`` the table's owner (or renew its lease); False if another holds it.

        Raises:
            HubUnavailableError: Redis could not be reached (nothing is claimed).
        """
        key = self.lease_key(table_id)
        now = time.monotonic()
        try:
            taken = await self._redis.set(key, owner, nx=True, px=self.lease_ms)
            if not taken:
                taken = bool(await self._renew(keys=[key], args=[owner, self.lease_ms]))
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

    async def release(self, table_id: str, owner: str) -> None:
        """Give the table up, if ``owner`` holds it (another's lease is left alone).

        Raises:
            HubUnavailableError: Redis could not be reached (the lease then expires).
        """
        lease = self._leases.get(table_id)
        if lease is not None and lease.owner == owner:
            del self._leases[table_id]
        try:
            await self._release(keys=[self.lease_key(table_id)], args=[owner])
        except RedisError as exc:
            raise unreachable(exc) from exc

    def holds(self, table_id: str) -> str | None:
        """The owner whose lease on the table this hub holds (and renews), or None."""
        lease = self._leases.get(table_id)
        return lease.owner if lease is not None else None

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
        """Renew every lease this hub holds now; report those lost to ``on_lost``.

        Runs every ``lease_ms / 3`` on its own; a lease that Redis could not
        renew for a whole ``lease_ms`` is reported lost too (it has expired,
        or is about to, and another process may take the table).
        """
        for table_id, lease in list(self._leases.items()):
            started = time.monotonic()
            try:
                renewed = bool(
                    await self._renew(
                        keys=[self.lease_key(table_id)], args=[lease.owner, self.lease_ms]
                    )
                )
            except RedisError as exc:
                if started - lease.renewed_at < self.lease_ms / 1000:
                    log.warning("could not renew the lease of table %s: %s", table_id, exc)
                    continue
                renewed = False
            if self._leases.get(table_id) is not lease:
                continue  # released or claimed again meanwhile
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
        """Release the leases and leads this hub holds (another process takes them at
        once, not a lease later)."""
        for table_id, lease in list(self._leases.items()):
            try:
                await self.release(table_id, lease.owner)
            except HubUnavailableError as exc:
                log.warning("could not release table %s (it expires): %s", table_id, exc)
        self._leases.clear()
        for key in self._leads:
            try:
                await self._release(keys=[key], args=[self.origin])
            except RedisError as exc:
                log.warning("could not give up the lead %s (it expires): %s", key, exc)
        self._leads.clear()


async def _awaited(result: Awaitable[None]) -> None:
    try:
        await result
    except Exception:
        log.exception("on_lost failed")
