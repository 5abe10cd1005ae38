"""The owner of the tables: the one authority over each table it holds.

:class:`Tables` *claims* a table on the hub before it applies its commands,
and is what every caller uses.  It is made of one part per job:
:mod:`~crokinole.server.owner.commands` (a command applied in a worker thread,
appended with the version it follows, adopted, published; sent to the owner
in another process), :mod:`~crokinole.server.owner.timers` (each deadline
fired exactly once), :mod:`~crokinole.server.owner.cpu_turns` (the CPU
players' moves, on :mod:`~crokinole.server.owner.cpu`'s pool) and
:mod:`~crokinole.server.owner.loading` (a table loaded from its log, the
tables nobody holds taken up).  This module creates tables, finds them, and
runs the life cycle: tables that nobody here follows and where nothing is due
are forgotten (:meth:`Tables.sweep`) and loaded again when asked for.

Time is read here only, through the injected ``clock`` (server seconds).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import anyio
import anyio.to_thread

from crokinole.board import Seat
from crokinole.errors import ErrorCode
from crokinole.server.cluster.hub import (
    ClusterHub,
    Hub,
    HubUnavailableError,
    MemoryHub,
    Subscriber,
    stop_tasks,
)
from crokinole.server.limits import ServerSettings
from crokinole.server.owner.base import UNAVAILABLE, ElsewhereError, Held, unavailable
from crokinole.server.owner.commands import COMMAND_THREADS, SNAPSHOT_EVERY, Commands
from crokinole.server.owner.cpu import CpuPool
from crokinole.server.owner.cpu_turns import CpuTurns
from crokinole.server.owner.loading import Loading
from crokinole.server.owner.rows import results_of
from crokinole.server.owner.timers import Timers
from crokinole.server.table_log import stored_table
from crokinole.store import Store, StoreConflictError
from crokinole.table import (
    Event,
    EventLink,
    Join,
    Kind,
    RankedPlayer,
    Table,
    TableError,
    TableSettings,
    Timings,
)

__all__ = [
    "SNAPSHOT_EVERY",
    "UNAVAILABLE",
    "Tables",
    "new_code",
    "results_of",
    "stored_table",
]

log = logging.getLogger("crokinole.server")

#: Seconds between two sweeps of idle tables out of memory (see :meth:`Tables.sweep`).
SWEEP_S = 60.0

#: Party codes: easy to read aloud (no 0/O, no 1/I/l).
CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
CODE_LENGTH = 6

#: Makes a new table (and its first events) from its id, seed and the time: what
#: :meth:`Tables._store_new` calls again when a party's code is taken.
NewTable = Callable[[str, int, float], tuple[Table, list[Event]]]


def new_code() -> str:
    """A fresh party code.

    >>> code = new_code()
    >>> len(code) == CODE_LENGTH and set(code) <= set(CODE_ALPHABET)
    True
    """
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


class Tables(Commands, Loading, Timers, CpuTurns):
    """Every table this server process owns, loaded from the store on demand.

    Args:
        store: where the events, snapshots, members and deadlines are kept.
        hub: where events are published and tables claimed (one process:
            a :class:`MemoryHub`).
        cpu: the CPU players' pool, or the number of threads of a pool of
            its own (which :meth:`close` shuts down).
        clock: server time in seconds (``time.time``; tests pass their own).
        timings: the grace periods and countdowns of new tables.
        allow_short_clock: accept turn clocks under 30 s (test servers).
        owner: this owner's name on the hub (its ``origin`` if not given: a
            hub shared by several processes sends commands there).
        codes: makes party codes (:func:`new_code`; tests pass their own).

    A party created, then joined with its code (any case):

    >>> import shutil, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> store = Store.open(f"{folder}/doc.db")
    >>> async def party() -> tuple[list[str], int, str]:
    ...     tables = Tables(store)
    ...     table = await tables.create(kind="party", device="dev-ann", name="Ann", settings={})
    ...     joined, events = await tables.join_by_code(
    ...         table.code.lower(), device="dev-bob", name="Bob")
    ...     await tables.close()
    ...     return [e.TYPE for e in events], joined.version, joined.stage.value
    >>> anyio.run(party)
    (['member_joined', 'seat_changed'], 6, 'lobby')
    >>> store.close(); shutil.rmtree(folder)
    """

    def __init__(
        self,
        store: Store,
        *,
        hub: Hub | None = None,
        cpu: CpuPool | int = 2,
        clock: Callable[[], float] = time.time,
        timings: Timings | None = None,
        allow_short_clock: bool = False,
        owner: str | None = None,
        codes: Callable[[], str] = new_code,
    ) -> None:
        self.store = store
        self.hub = hub if hub is not None else MemoryHub()
        self._own_cpu = not isinstance(cpu, CpuPool)
        self.cpu = cpu if isinstance(cpu, CpuPool) else CpuPool(cpu)
        self._clock = clock
        self._timings = timings if timings is not None else Timings()
        self._allow_short_clock = allow_short_clock
        self._codes = codes
        self.owner = owner or self.hub.origin
        self._cluster = self.hub if isinstance(self.hub, ClusterHub) else None
        self.on_event_game = None
        self._held: dict[str, Held] = {}
        self._loading: dict[str, asyncio.Lock] = {}
        self._lost: set[str] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._workers = ThreadPoolExecutor(
            max_workers=COMMAND_THREADS, thread_name_prefix="crokinole-commands"
        )
        self._sweeper: asyncio.Task[None] | None = None
        self._watcher: asyncio.Task[None] | None = None
        self._closed = False

    @classmethod
    def from_settings(
        cls,
        store: Store,
        settings: ServerSettings,
        *,
        hub: Hub | None = None,
        clock: Callable[[], float] = time.time,
    ) -> Tables:
        """The owner a server with ``settings`` runs (its CPU pool, timings and test options)."""
        timings = Timings(
            turn_grace=settings.turn_grace,
            standin_grace=settings.standin_grace,
            round_countdown=settings.round_countdown,
            reaction_gap=settings.reaction_gap,
            rematch_offer=settings.rematch_offer,
        )
        return cls(
            store,
            hub=hub,
            cpu=settings.cpu_workers,
            clock=clock,
            timings=timings,
            allow_short_clock=settings.short_clocks,
        )

    def now(self) -> float:
        """Server time (seconds), as every deadline is measured."""
        return self._clock()

    # ------------------------------------------------------------ life cycle

    async def startup(self) -> None:
        """Take up every table the store has a deadline for, and re-arm its timer.

        Also starts forgetting idle tables every :data:`SWEEP_S` seconds
        (see :meth:`sweep`); :meth:`close` stops it.  On a hub shared by
        several processes only the tables nobody holds are taken up, this
        process answers the commands other processes send it, and it looks
        for the tables of processes that are gone every half lease
        (:meth:`take_over`): the games of a process that died go on here.
        """
        if self._cluster is not None:
            await self._cluster.serve(self._answer)
            await self.take_over(everything=True)
            if self._watcher is None:
                self._watcher = self._spawn(self._watch_forever())
        else:
            armed = await anyio.to_thread.run_sync(self.store.armed_tables)
            for table_id, _at in armed:
                try:
                    await self._load(table_id)
                except Exception:
                    log.exception("could not take up table %s at startup", table_id)
        if self._sweeper is None:
            self._sweeper = self._spawn(self._sweep_forever())

    async def lost(self, table_id: str) -> None:
        """The hub found this process's claim on the table lost: give it up (stop its
        timer and CPU); another process may hold it now."""
        held = self._held.get(table_id)
        if held is None:
            return
        log.warning("table %s: its lease was lost; giving it up", table_id)
        if self._held.get(table_id) is held:
            del self._held[table_id]
        self._stop(held)
        # Taken up again by the watcher if nobody else takes it (see take_over).
        self._lost.add(table_id)

    async def sweep(self) -> int:
        """Forget the tables that nobody here follows and where nothing is to happen.

        A table is idle with no subscriber in this process, no deadline, no
        CPU to move and no command under way; the store keeps it, and it is
        loaded again when asked for.  Returns how many were forgotten.
        """
        idle = [held for held in self._held.values() if self._idle(held)]
        for held in idle:
            await self._give_up(held)
        return len(idle)

    def _idle(self, held: Held) -> bool:
        return (
            held.armed is None
            and held.timer is None
            and self._cpu_idle(held)
            and not held.lock.locked()
            and self.hub.subscribers(held.table.id) == 0
        )

    async def _sweep_forever(self) -> None:
        while True:
            await asyncio.sleep(SWEEP_S)
            try:
                await self.sweep()
            except Exception:
                log.exception("forgetting idle tables failed")

    async def close(self) -> None:
        """Stop every timer and CPU, give the tables up (the store keeps them)."""
        self._closed = True
        held = list(self._held.values())
        for one in held:
            self._stop(one)
        tasks = [t for t in self._tasks if t is not asyncio.current_task()]
        await stop_tasks(tasks)
        for table_id in list(self._held):
            del self._held[table_id]
            with contextlib.suppress(Exception):
                await self._release(table_id)
        self._workers.shutdown(wait=False)
        if self._own_cpu:
            self.cpu.close()

    # ------------------------------------------------------------ tables

    async def create(
        self,
        *,
        kind: Kind | str,
        device: str,
        name: str,
        settings: TableSettings | Mapping[str, Any],
        seats: Mapping[Seat, str] | None = None,
        names: Mapping[Seat, str] | None = None,
        subscriber: Subscriber | None = None,
    ) -> Table:
        """A new table (``party`` or ``solo``) created by ``device``, stored and held.

        ``settings`` may be a ``TableSettings`` or its dict form (validated
        here).  ``seats`` (solo) maps seats to ``"me"`` or a CPU level, and
        ``names`` (solo) names the people sharing the device by seat.  A
        solo table starts its game at once (its CPU moves if it is first).
        ``subscriber`` is subscribed before anything can happen at the table.

        Raises:
            TableError: ``bad_settings``, ``bad_name``, ``not_a_seat``,
                ``seats_empty`` (nothing was stored).
        """
        try:
            kind = Kind(kind)
        except ValueError:
            raise TableError(
                ErrorCode.BAD_SETTINGS, f"a table is a party or solo, not {kind!r}"
            ) from None
        if not isinstance(settings, TableSettings):
            settings = TableSettings.from_dict(
                dict(settings), kind=kind, allow_short_clock=self._allow_short_clock
            )

        def new_table(table_id: str, seed: int, now: float) -> tuple[Table, list[Event]]:
            return Table.create(
                id=table_id,
                kind=kind,
                host_device=device,
                host_name=name,
                settings=settings,
                code=self._codes() if kind is Kind.PARTY else None,
                timings=self._timings,
                seed=seed,
                now=now,
                seats=seats,
                names=names,
            )

        # A party's code may be taken: another is drawn (31**6 codes: a run of
        # eight taken ones is a bug).
        tries = 8 if kind is Kind.PARTY else 1
        return await self._store_new(new_table, tries=tries, subscriber=subscriber)

    async def create_ranked(
        self,
        *,
        settings: TableSettings,
        players: Mapping[Seat, RankedPlayer],
        event: EventLink | None = None,
    ) -> Table:
        """A new ranked table with ``players`` seated and its game started, stored and held.

        ``event``: the table is an event's, linked to it, on the event's settings, with a
        code its spectators join it by.

        Raises:
            TableError: ``bad_settings`` (not the ranked rules, seats not the
                layout's, a player twice); nothing was stored.
        """
        timings = self._timings
        # An event's table has a code for its spectators (drawn again if it is taken).
        return await self._store_new(
            lambda table_id, seed, now: Table.create_ranked(
                id=table_id,
                players=players,
                settings=settings,
                timings=timings,
                seed=seed,
                now=now,
                event=event,
                code=None if event is None else self._codes(),
            ),
            tries=1 if event is None else 8,
        )

    async def _store_new(
        self, new_table: NewTable, *, tries: int = 1, subscriber: Subscriber | None = None
    ) -> Table:
        """Make a new table, claim it, store it (made again after a conflict, up to
        ``tries`` times) and hold it; a refusal claims and stores nothing."""
        table_id = secrets.token_hex(16)
        seed = secrets.randbits(63)
        table, events = new_table(table_id, seed, self._clock())
        try:
            claimed = await self.hub.claim(table_id, self.owner)
        except HubUnavailableError:
            raise unavailable() from None
        if not claimed:
            raise TableError(ErrorCode.BUSY, "the new table could not be claimed: try again")
        try:
            for attempt in range(tries):
                try:
                    with anyio.CancelScope(shield=True):
                        await anyio.to_thread.run_sync(self._store_create, table, events)
                    break
                except StoreConflictError:
                    if attempt == tries - 1:
                        raise
                    table, events = new_table(table_id, seed, self._clock())
        except BaseException:
            with anyio.CancelScope(shield=True):
                await self._release(table_id)
            raise
        held = Held(table, table.version)
        self._held[table.id] = held
        if subscriber is not None:
            self.hub.subscribe(table.id, subscriber)
        self._after(held)
        return table

    async def get(
        self, table_id: str, *, subscriber: Subscriber | None = None, at_least: int = 0
    ) -> Table | None:
        """The table as it stands (loaded from the store if need be), or None if there is none.

        Loading re-arms its deadline and lets its CPU move.  ``subscriber``
        is subscribed before anything more can happen at the table.  A table
        another process holds is this process's copy of it, kept up to date
        by the hub (read from the store without ``subscriber``, or if the copy
        is not yet at version ``at_least``).

        Raises:
            TableError: ``unavailable`` (the hub or the store cannot be reached).
        """
        try:
            held = await self._load(table_id)
        except ElsewhereError:
            return await self._follow(table_id, subscriber, at_least)
        except HubUnavailableError:
            raise unavailable() from None
        if held is None:
            return None
        if subscriber is not None:
            self.hub.subscribe(table_id, subscriber)
        self._after(held)
        return held.table

    async def join_by_code(
        self,
        code: str,
        *,
        device: str,
        name: str,
        spectator: bool = False,
        subscriber: Subscriber | None = None,
    ) -> tuple[Table, list[Event]]:
        """Join the party with ``code`` (any case); a member's device just comes back.

        Raises:
            TableError: ``unknown_code`` if no open party has the code, or
                the table's refusal (``party_full``, ``solo_table``…).
        """
        wanted = code.strip().upper()
        table_id = await anyio.to_thread.run_sync(self.store.table_by_code, wanted)
        if table_id is None:
            raise TableError(
                ErrorCode.UNKNOWN_CODE,
                f"no party has the code {wanted}: check it, or ask for a new link",
            )
        events = await self.command(table_id, Join(device, name, spectator))
        at_least = max((e.version for e in events), default=0)
        table = await self.get(table_id, subscriber=subscriber, at_least=at_least)
        if table is None:  # pragma: no cover - a table is never deleted while it has a code
            raise TableError(ErrorCode.UNKNOWN_CODE, f"no party has the code {wanted}")
        return table, events

    def held(self, table_id: str) -> Table | None:
        """The table if this owner holds it in memory (no loading)."""
        held = self._held.get(table_id)
        return held.table if held is not None else None

    async def _give_up(self, held: Held, *, hand_over: bool = False) -> None:
        """Forget the table (the store keeps it): its timer and CPU stop.

        ``hand_over``: another process is to take it up (this one cannot write it).
        """
        table_id = held.table.id
        if self._held.get(table_id) is held:
            del self._held[table_id]
        self._stop(held)
        await self._release(table_id, hand_over=hand_over)

    async def _release(self, table_id: str, *, hand_over: bool = False) -> None:
        """Release the claim on the table (if the hub cannot be reached, it expires)."""
        try:
            await self.hub.release(table_id, self.owner, hand_over=hand_over)
        except HubUnavailableError as exc:
            log.warning("could not release table %s (its claim expires): %s", table_id, exc)

    def _stop(self, held: Held) -> None:
        self._stop_timer(held)
        self._stop_cpu(held)

    def _after(self, held: Held) -> None:
        """After a change: the timer at the table's next deadline, and the CPU if it is to move."""
        if not self._holds(held):
            return
        self._arm(held)
        self._schedule_cpu(held)
