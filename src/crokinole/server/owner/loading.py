"""Loading a table from its log, and taking up the tables nobody holds.

A table is loaded (read with :func:`crokinole.server.table_log.stored_table`)
when first asked for (:meth:`Loading._load`): claimed on the hub, read again
once claimed (what it holds then is what nobody else writes), and its members
marked disconnected (nobody is connected to a table this process did not hold:
those who are there come back with ``Connect``). A table another process holds
is followed from the hub's copy instead. On a hub shared by several processes,
the tables of the processes that are gone (their heartbeat expired) are taken
up every half lease (:meth:`Loading.take_over`): the games of a process that
died go on here.
"""

from __future__ import annotations

import asyncio
import logging

import anyio
import anyio.to_thread

from crokinole.server.cluster.hub import ClusterHub, HubUnavailableError, Subscriber
from crokinole.server.owner.base import ElsewhereError, Held, OwnerBase
from crokinole.server.table_log import stored_table
from crokinole.store import StoreUnavailableError
from crokinole.table import Disconnect, Table, TableError

log = logging.getLogger("crokinole.server")


class Loading(OwnerBase):
    """The part of :class:`~crokinole.server.owner.tables.Tables` that loads and takes up tables."""

    #: Tables whose lease this process lost, until someone (this one, maybe) holds them.
    _lost: set[str]

    async def take_over(self, *, everything: bool = False) -> int:
        """Take up the tables of the processes that are gone; returns how many were taken up.

        A process that died (or was cut off from Redis for a lease) leaves
        its tables registered under its name with its heartbeat expired
        (:meth:`~crokinole.server.cluster.hub.ClusterHub.orphans`): each is
        taken up here once its lease has expired, and unregistered from it
        once someone holds it.  Only those are looked at, every half lease.
        So are the tables whose lease this process lost and nobody took.
        With ``everything`` (at startup), so are the tables nobody holds that
        have a deadline (the store's) or followers here: after a restart of
        every process, no heartbeat tells whose they were.
        """
        cluster = self._cluster
        if cluster is None:
            return 0
        wanted = await self._unheld(cluster, everything=everything)
        owners = await cluster.owners([t for t in wanted if t not in self._held])
        taken = 0
        settled: dict[str, list[str]] = {}  # gone process -> its tables held elsewhere now
        for table_id, origin in wanted.items():
            holder: str | None = self.owner if table_id in self._held else owners.get(table_id)
            if holder is None:
                holder, took = await self._take_orphan(table_id)
                taken += took
            if holder is not None:
                self._lost.discard(table_id)
            if origin is not None and holder is not None and holder != origin:
                settled.setdefault(origin, []).append(table_id)
        for gone, table_ids in settled.items():
            await cluster.forget(gone, table_ids)
        return taken

    async def _unheld(self, cluster: ClusterHub, *, everything: bool) -> dict[str, str | None]:
        """The tables :meth:`take_over` looks at, each with the gone process it was
        registered to (None: another reason)."""
        wanted: dict[str, str | None] = {}
        for gone, table_ids in (await cluster.orphans()).items():
            for table_id in table_ids:
                wanted.setdefault(table_id, gone)
        # A lease lost here that nobody took (Redis restarted empty, or a renewal
        # came too late): the others only look at the tables of gone processes.
        for table_id in self._lost:
            wanted.setdefault(table_id, None)
        if everything:
            armed = await anyio.to_thread.run_sync(self.store.armed_tables)
            for table_id in [t for t, _at in armed] + cluster.followed():
                wanted.setdefault(table_id, None)
        return wanted

    async def _take_orphan(self, table_id: str) -> tuple[str | None, int]:
        """Load a table nobody holds: who holds it now (None: not known), and 1 if this
        process took it up."""
        try:
            took = await self._load(table_id) is not None
        except TableError as exc:
            log.info("table %s stays with another process: %s", table_id, exc.message)
            return None, 0
        except StoreUnavailableError as exc:
            # An outage, not a bug: the next pass tries again.
            log.warning("could not take over table %s yet: %s", table_id, exc)
            return None, 0
        except Exception:
            log.exception("could not take over table %s", table_id)
            return None, 0
        if took:
            log.info("took over table %s", table_id)
        return self.owner, int(took)  # (no such table: nothing is left to take either)

    async def _watch_forever(self) -> None:
        assert self._cluster is not None
        out: str | None = None  # the outage being waited out, warned once
        while True:
            await asyncio.sleep(self._cluster.lease_ms / 2000)
            if self._closed:  # a cancellation absorbed on its way (see stop_tasks)
                return
            try:
                await self.take_over()
            except (HubUnavailableError, StoreUnavailableError) as exc:
                if out is None:
                    log.warning("looking for tables nobody holds waits for the service: %s", exc)
                out = str(exc)
                continue
            except Exception:
                log.exception("looking for tables nobody holds failed")
                continue
            if out is not None:
                log.warning("looking for tables nobody holds works again")
                out = None

    async def _follow(
        self, table_id: str, subscriber: Subscriber | None, at_least: int
    ) -> Table | None:
        """A table another process holds: subscribe here and return this process's copy."""
        table = None
        if subscriber is not None:
            self.hub.subscribe(table_id, subscriber)
            if self._cluster is not None:
                table = await self._cluster.copy(table_id)
        if table is None or table.version < at_least:
            stored = await anyio.to_thread.run_sync(stored_table, self.store, table_id)
            table = None if stored is None else stored[0]
        return table

    async def _load(self, table_id: str) -> Held | None:
        """The held table, loaded from the store (and claimed) if need be; None if none."""
        held = self._held.get(table_id)
        if held is not None:
            return held
        loading = self._loading.setdefault(table_id, asyncio.Lock())
        try:
            async with loading:
                held = self._held.get(table_id)  # loaded while this one waited
                if held is not None:
                    return held
                exists = await anyio.to_thread.run_sync(self.store.table, table_id)
                if exists is None:
                    return None
                if not await self.hub.claim(table_id, self.owner):
                    owner = None
                    if self._cluster is not None:
                        owner = await self._cluster.owner_of(table_id)
                    raise ElsewhereError(owner)
                # Read again once claimed: what it holds now is what nobody else writes.
                stored = await anyio.to_thread.run_sync(stored_table, self.store, table_id)
                if stored is None:  # pragma: no cover - a table is never deleted
                    return None
                table, snapshot_version = stored
                held = self._held.get(table_id)
                if held is not None:  # pragma: no cover - two loads after a failed one
                    return held
                held = Held(table, snapshot_version)
                # Held locked: no command is applied before the members' presence is set.
                await held.lock.acquire()
                self._held[table_id] = held
        finally:
            if self._loading.get(table_id) is loading and not loading.locked():
                del self._loading[table_id]
        try:
            if self._cluster is not None:
                # What the last owner stored but never published (it died on the
                # way) is shown to this process's subscribers before anything new.
                await self._cluster.catch_up(table_id, held.table)
            await self._absent(held)
        finally:
            held.lock.release()
        self._after(held)
        return held

    async def _absent(self, held: Held) -> None:
        """Mark the members of a table just loaded as disconnected.

        Nobody is connected to a table this process did not hold (after a
        restart, none is): those who are there come back with ``Connect``,
        and a stand-in takes the turn of those who do not.
        """
        for member in held.table.members:
            if not member.connected:
                continue
            try:
                await self._apply(held, Disconnect(member.device))
            except TableError as exc:
                log.info("table %s: %s stays connected: %s", held.table.id, member.mid, exc)
            except Exception:
                log.exception("table %s: could not mark %s disconnected", held.table.id, member.mid)
                return

    async def _take_up(self, table_id: str) -> None:
        """Load a table given up after a conflict, if no other owner holds it (re-arms it)."""
        if self._closed or table_id in self._held:
            return
        try:
            await self._load(table_id)
        except TableError as exc:  # busy: another owner holds it and fires its deadlines
            log.info("table %s stays with its other owner: %s", table_id, exc.message)
        except Exception:
            log.exception("could not take table %s up again", table_id)
