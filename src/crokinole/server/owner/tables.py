"""The owner of the tables: applies commands one at a time, stores them, publishes them.

:class:`Tables` is the one authority over each table it holds (it *claims*
the table on the hub first).  A command is applied to the pure
:class:`~crokinole.table.Table` in a worker thread (a shot is a
simulation), the events are appended to the store with the version they
follow, and only then is the new table adopted, its events published on
the hub, its deadline re-armed and its CPU asked to move: a failed write
leaves the table as it was, and nothing anyone was sent is ever lost.
Commands for one table wait for each other (a lock per table); tables never
wait for each other.

Each table has one timer, armed at ``table.next_deadline()`` (turn clock,
stand-in, round countdown) and fired as a ``Tick`` command, which the table
turns into events at most once per deadline.  A table loaded from the store
(after a restart, or by a new owner) has its timer re-armed at once, and
starts with nobody connected (those who are there come back with
``Connect``).  The CPU thinks on its own bounded pool
(:mod:`crokinole.server.owner.cpu`) and submits its shot with the version it
thought about: if the table moved meanwhile, it thinks again.  Tables
that nobody here follows and where nothing is due are forgotten
(:meth:`Tables.sweep`) and loaded again when asked for.

Time is read here only, through the injected ``clock`` (server seconds).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio
import anyio.to_thread

from crokinole.ai import Level
from crokinole.board import Seat
from crokinole.server.cluster.hub import (
    ClusterHub,
    Hub,
    HubUnavailableError,
    MemoryHub,
    NoReceiverError,
    Subscriber,
    stop_tasks,
)
from crokinole.server.limits import ServerSettings
from crokinole.server.owner.cpu import CpuPool
from crokinole.server.ranked import rated
from crokinole.store import (
    Store,
    StoreConflictError,
    StoreUnavailableError,
    TableMember,
    TableResult,
)
from crokinole.table import (
    Command,
    Cpu,
    Deadline,
    Disconnect,
    Event,
    GameAborted,
    GameFinished,
    Join,
    Kind,
    MemberLeft,
    RankedPlayer,
    Shoot,
    Stage,
    Table,
    TableError,
    TableSettings,
    Tick,
    Timings,
    event_from_dict,
)
from crokinole.table.commands import command_from_dict

log = logging.getLogger("crokinole.server")

#: Seconds before a failed deadline or CPU move (the store was down) is tried again.
RETRY_S = 1.0

#: Seconds between two sweeps of idle tables out of memory (see :meth:`Tables.sweep`).
SWEEP_S = 60.0

#: A table's snapshot is stored at least every this many events, and whenever
#: its stage changes; in between only its events are (a shot's write stays
#: small however long the game), and loading folds those after the snapshot.
SNAPSHOT_EVERY = 16

#: Seconds a command sent to the table's owner in another process may wait for its answer.
FORWARD_TIMEOUT_S = 5.0

#: Seconds between two tries to reach (or take over) a table whose owner is gone.
FORWARD_RETRY_S = 0.25

#: What a player is told while Redis or the database cannot be reached.
UNAVAILABLE = "the game service is reconnecting: try again in a moment"

#: Tag of the CPU's random streams, apart from the table's others.
CPU_STREAM = 1

#: Party codes: easy to read aloud (no 0/O, no 1/I/l).
CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
CODE_LENGTH = 6


def new_code() -> str:
    """A fresh party code.

    >>> code = new_code()
    >>> len(code) == CODE_LENGTH and set(code) <= set(CODE_ALPHABET)
    True
    """
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


class _ElsewhereError(TableError):
    """The table is held by another owner (``owner``: its origin, if known)."""

    def __init__(self, owner: str | None) -> None:
        super().__init__("busy", "another server holds this table: try again")
        self.owner = owner


@dataclass(eq=False)
class _Held:
    """A table this owner holds in memory, with its lock, timer and CPU task."""

    table: Table
    #: The version of the table's snapshot in the store.
    snapshot_version: int
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    armed: Deadline | None = None
    timer: asyncio.TimerHandle | None = None
    cpu_task: asyncio.Task[None] | None = None
    cpu_retry: asyncio.TimerHandle | None = None
    #: A deadline waits for the store or the hub to come back (warned once).
    waiting: bool = False


class Tables:
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
        self._store = store
        self._hub: Hub = hub if hub is not None else MemoryHub()
        self._own_cpu = not isinstance(cpu, CpuPool)
        self._cpu = cpu if isinstance(cpu, CpuPool) else CpuPool(cpu)
        self._clock = clock
        self._timings = timings if timings is not None else Timings()
        self._allow_short_clock = allow_short_clock
        self._codes = codes
        self.owner = owner or self._hub.origin
        self._cluster = self._hub if isinstance(self._hub, ClusterHub) else None
        self._held: dict[str, _Held] = {}
        self._loading: dict[str, asyncio.Lock] = {}
        self._tasks: set[asyncio.Task[None]] = set()
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

    @property
    def store(self) -> Store:
        """The store behind the tables."""
        return self._store

    @property
    def hub(self) -> Hub:
        """The hub the tables publish on."""
        return self._hub

    @property
    def cpu(self) -> CpuPool:
        """The CPU players' pool."""
        return self._cpu

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
        for tables nobody holds every half lease (:meth:`take_over`): the
        games of a process that died go on here.
        """
        if self._cluster is not None:
            await self._cluster.serve(self._answer)
            await self.take_over()
            if self._watcher is None:
                self._watcher = self._spawn(self._watch_forever())
        else:
            armed = await anyio.to_thread.run_sync(self._store.armed_tables)
            for table_id, _at in armed:
                try:
                    await self._load(table_id)
                except Exception:
                    log.exception("could not take up table %s at startup", table_id)
        if self._sweeper is None:
            self._sweeper = self._spawn(self._sweep_forever())

    async def take_over(self) -> int:
        """Take up the tables that nobody holds and that have a deadline or followers here.

        A table with a deadline (turn clock, stand-in, countdown) must have an
        owner to fire it; one followed here may have a CPU to move.  Returns
        how many were taken up.
        """
        cluster = self._cluster
        if cluster is None:
            return 0
        armed = await anyio.to_thread.run_sync(self._store.armed_tables)
        wanted = [t for t, _at in armed] + cluster.followed()
        candidates = list(dict.fromkeys(t for t in wanted if t not in self._held))
        owners = await cluster.owners(candidates)
        taken = 0
        for table_id in candidates:
            if owners.get(table_id) is not None:
                continue
            try:
                if await self._load(table_id) is not None:
                    taken += 1
                    log.info("took over table %s", table_id)
            except TableError as exc:
                log.info("table %s stays with another process: %s", table_id, exc.message)
            except Exception:
                log.exception("could not take over table %s", table_id)
        return taken

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

    def _idle(self, held: _Held) -> bool:
        task = held.cpu_task
        return (
            held.armed is None
            and held.timer is None
            and held.cpu_retry is None
            and (task is None or task.done())
            and not held.lock.locked()
            and held.table.cpu_turn() is None
            and self._hub.subscribers(held.table.id) == 0
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
        if self._own_cpu:
            self._cpu.close()

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
            raise TableError("bad_settings", f"a table is a party or solo, not {kind!r}") from None
        if not isinstance(settings, TableSettings):
            settings = TableSettings.from_dict(
                dict(settings), kind=kind, allow_short_clock=self._allow_short_clock
            )
        table_id = secrets.token_hex(16)
        seed = secrets.randbits(63)

        def new_table() -> tuple[Table, list[Event]]:
            return Table.create(
                id=table_id,
                kind=kind,
                code=self._codes() if kind is Kind.PARTY else None,
                host_device=device,
                host_name=name,
                settings=settings,
                timings=self._timings,
                seed=seed,
                now=self._clock(),
                seats=seats,
                names=names,
            )

        # A party's code may be taken: another is drawn (31**6 codes: a run of
        # eight taken ones is a bug).
        tries = 8 if kind is Kind.PARTY else 1
        return await self._store_new(table_id, new_table, tries=tries, subscriber=subscriber)

    async def create_ranked(
        self, *, settings: TableSettings, players: Mapping[Seat, RankedPlayer]
    ) -> Table:
        """A new ranked table with ``players`` seated and its game started, stored and held.

        Raises:
            TableError: ``bad_settings`` (not the ranked rules, seats not the
                layout's, a player twice); nothing was stored.
        """
        table_id = secrets.token_hex(16)
        seed = secrets.randbits(63)

        def new_table() -> tuple[Table, list[Event]]:
            return Table.create_ranked(
                id=table_id,
                players=players,
                settings=settings,
                timings=self._timings,
                seed=seed,
                now=self._clock(),
            )

        return await self._store_new(table_id, new_table, tries=1)

    async def _store_new(
        self,
        table_id: str,
        new_table: Callable[[], tuple[Table, list[Event]]],
        *,
        tries: int,
        subscriber: Subscriber | None = None,
    ) -> Table:
        """Make a new table, claim it, store it (made again after a conflict, up to
        ``tries`` times) and hold it; a refusal claims and stores nothing."""
        table, events = new_table()
        try:
            claimed = await self._hub.claim(table_id, self.owner)
        except HubUnavailableError:
            raise TableError("unavailable", UNAVAILABLE) from None
        if not claimed:
            raise TableError("busy", "the new table could not be claimed: try again")
        try:
            for attempt in range(tries):
                try:
                    with anyio.CancelScope(shield=True):
                        await anyio.to_thread.run_sync(self._store_create, table, events)
                    break
                except StoreConflictError:
                    if attempt == tries - 1:
                        raise
                    table, events = new_table()
        except BaseException:
            with anyio.CancelScope(shield=True):
                await self._release(table_id)
            raise
        held = _Held(table, table.version)
        self._held[table.id] = held
        if subscriber is not None:
            self._hub.subscribe(table.id, subscriber)
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
        except _ElsewhereError:
            return await self._follow(table_id, subscriber, at_least)
        except HubUnavailableError:
            raise TableError("unavailable", UNAVAILABLE) from None
        if held is None:
            return None
        if subscriber is not None:
            self._hub.subscribe(table_id, subscriber)
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
        table_id = await anyio.to_thread.run_sync(self._store.table_by_code, wanted)
        if table_id is None:
            raise TableError(
                "unknown_code",
                f"no party has the code {wanted}: check it, or ask for a new link",
            )
        events = await self.command(table_id, Join(device, name, spectator))
        at_least = max((e.version for e in events), default=0)
        table = await self.get(table_id, subscriber=subscriber, at_least=at_least)
        if table is None:  # pragma: no cover - a table is never deleted while it has a code
            raise TableError("unknown_code", f"no party has the code {wanted}")
        return table, events

    def held(self, table_id: str) -> Table | None:
        """The table if this owner holds it in memory (no loading)."""
        held = self._held.get(table_id)
        return held.table if held is not None else None

    async def command(self, table_id: str, command: Command) -> list[Event]:
        """Apply ``command`` to the table; stored, then adopted and published.

        A table another process holds gets the command there (its owner
        answers); if that process is gone, the command waits until its claim
        has expired and this process takes the table over.

        Returns the events (none if the command changed nothing).

        Raises:
            TableError: the table's refusal (nothing changed), ``unknown_table``,
                ``stale`` if another writer stored the table meanwhile (it is
                reloaded; the command may be sent again), ``busy`` if the
                table's owner did not answer, ``unavailable`` if the hub or
                the store cannot be reached.
        """
        stale = 0
        wait_until = time.monotonic() + FORWARD_TIMEOUT_S
        if self._cluster is not None:
            wait_until += self._cluster.lease_ms / 1000
        while True:
            try:
                held = await self._load(table_id)
            except _ElsewhereError as elsewhere:
                events = None
                if elsewhere.owner is not None and elsewhere.owner != self.owner:
                    events = await self._forward(table_id, elsewhere.owner, command)
                if events is not None:
                    return events
                if time.monotonic() > wait_until:
                    raise TableError(
                        "busy", "the server holding this game does not answer: try again"
                    ) from None
                await asyncio.sleep(FORWARD_RETRY_S)
                continue
            except HubUnavailableError:
                raise TableError("unavailable", UNAVAILABLE) from None
            if held is None:
                raise TableError("unknown_table", f"there is no table {table_id}")
            async with held.lock:
                if self._held.get(table_id) is held:
                    return await self._apply(held, command)
            stale += 1  # given up while this command waited: take the new one
            if stale >= 3:
                raise TableError("stale", "the table changed meanwhile: try again")

    async def _forward(self, table_id: str, owner: str, command: Command) -> list[Event] | None:
        """Send the command to the table's owner in another process: its events, or None
        if that owner is gone or no longer holds the table (try again).

        Raises:
            TableError: the owner's refusal, ``busy`` (no answer in time),
                ``unavailable`` (the hub cannot be reached).
        """
        cluster = self._cluster
        if cluster is None:
            raise TableError("busy", "another server holds this table: try again")
        # The owner drops a request it gets after this sender gave up on it (answered
        # ``busy``), so what a player was told was refused is never played later.
        expires = time.time() + FORWARD_TIMEOUT_S
        body = {
            "op": "command",
            "table": table_id,
            "command": command.to_dict(),
            "expires": expires,
        }
        try:
            answer = await cluster.request(owner, body, timeout=FORWARD_TIMEOUT_S)
        except NoReceiverError:
            return None  # its process is gone: its claim expires, then this one takes it
        except TimeoutError:
            raise TableError(
                "busy", "the server holding this game did not answer: try again"
            ) from None
        except HubUnavailableError:
            raise TableError("unavailable", UNAVAILABLE) from None
        error = answer.get("error")
        if error == "elsewhere":
            return None
        if error is not None:
            raise TableError(str(error), str(answer.get("message", error)))
        return [event_from_dict(e) for e in answer.get("events", [])]

    async def _answer(self, body: dict[str, Any]) -> dict[str, Any]:
        """Answer a request of another process: a command for a table held here."""
        if body.get("op") != "command":
            return {"error": "bad_request", "message": f"unknown request {body.get('op')!r}"}
        table_id = str(body.get("table"))
        held = self._held.get(table_id)
        if held is None:
            return {"error": "elsewhere", "message": "this process does not hold the table"}
        expires = body.get("expires")
        if isinstance(expires, int | float) and time.time() > expires:
            return {"error": "busy", "message": "the command came too late: try again"}
        try:
            command = command_from_dict(body.get("command"))
            async with held.lock:
                if self._held.get(table_id) is not held:
                    return {"error": "elsewhere", "message": "the table was given up"}
                if isinstance(expires, int | float) and time.time() > expires:
                    return {"error": "busy", "message": "the command came too late: try again"}
                events = await self._apply(held, command)
        except TableError as exc:
            return {"error": exc.code, "message": exc.message}
        except (HubUnavailableError, StoreUnavailableError):
            return {"error": "unavailable", "message": UNAVAILABLE}
        return {"events": [e.to_dict() for e in events]}

    async def _follow(
        self, table_id: str, subscriber: Subscriber | None, at_least: int
    ) -> Table | None:
        """A table another process holds: subscribe here and return this process's copy."""
        table = None
        if subscriber is not None:
            self._hub.subscribe(table_id, subscriber)
            if self._cluster is not None:
                table = await self._cluster.copy(table_id)
        if table is None or table.version < at_least:
            stored = await anyio.to_thread.run_sync(stored_table, self._store, table_id)
            table = None if stored is None else stored[0]
        return table

    # ------------------------------------------------------------ inside

    async def _load(self, table_id: str) -> _Held | None:
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
                exists = await anyio.to_thread.run_sync(self._store.table, table_id)
                if exists is None:
                    return None
                if not await self._hub.claim(table_id, self.owner):
                    owner = None
                    if self._cluster is not None:
                        owner = await self._cluster.owner_of(table_id)
                    raise _ElsewhereError(owner)
                # Read again once claimed: what it holds now is what nobody else writes.
                stored = await anyio.to_thread.run_sync(stored_table, self._store, table_id)
                if stored is None:  # pragma: no cover - a table is never deleted
                    return None
                table, snapshot_version = stored
                held = self._held.get(table_id)
                if held is not None:  # pragma: no cover - two loads after a failed one
                    return held
                held = _Held(table, snapshot_version)
                # Held locked: no command is applied before the members' presence is set.
                await held.lock.acquire()
                self._held[table_id] = held
        finally:
            if self._loading.get(table_id) is loading and not loading.locked():
                del self._loading[table_id]
        try:
            await self._absent(held)
        finally:
            held.lock.release()
        self._after(held)
        return held

    async def _absent(self, held: _Held) -> None:
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

    async def _apply(self, held: _Held, command: Command) -> list[Event]:
        """Apply, store, adopt, publish (the caller holds the table's lock)."""
        before = held.table
        now = self._clock()
        last_snapshot = held.snapshot_version

        def apply_and_store() -> tuple[Table, list[Event], bool]:
            # One trip to a worker thread: the command (a shot is a
            # simulation), then the write of what it caused.
            after, events = before.apply(command, now)
            if not events:
                return after, events, False
            snapshot = (
                after.stage is not before.stage or after.version - last_snapshot >= SNAPSHOT_EVERY
            )
            self._store_append(before, after, events, snapshot=snapshot)
            return after, events, snapshot

        # Once the store has the events, the table must adopt them: the
        # write and what follows cannot be cancelled halfway.
        with anyio.CancelScope(shield=True):
            try:
                after, events, snapshot = await anyio.to_thread.run_sync(apply_and_store)
            except StoreConflictError as exc:
                log.warning("table %s was written by another owner: %s", before.id, exc)
                await self._give_up(held)
                # Taken up again from the store unless another owner holds it:
                # the writer may have been this owner (a write that reached the
                # database but failed on its way back), and then nobody else
                # would fire the table's deadlines or move its CPU.
                self._spawn(self._take_up(before.id))
                raise TableError("stale", "the table changed meanwhile: try again") from None
            if not events:
                return []
            held.table = after
            if snapshot:
                held.snapshot_version = after.version
            self._after(held)
            if after.stage is Stage.CLOSED:
                await self._give_up(held)
            try:
                await self._hub.publish(after.id, after, events)
            except HubUnavailableError as exc:
                # An outage (or an owner that was paused past its socket
                # timeouts): one line; subscribers catch up from the store.
                log.warning("table %s: events not published: %s", after.id, exc)
            except Exception:
                # Subscribers that miss events catch up from the store by version.
                log.exception("publishing the events of table %s failed", after.id)
        return list(events)

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

    def _store_create(self, table: Table, events: Sequence[Event]) -> None:
        self._store.create_table(
            table.id,
            kind=table.kind,
            code=table.code,
            events=[e.to_dict() for e in events],
            snapshot=table.to_dict(),
            members=_members(table),
            deadline=table.next_deadline(),
            status=table.stage,
        )

    def _store_append(
        self, before: Table, after: Table, events: Sequence[Event], *, snapshot: bool
    ) -> None:
        members = _members(after)
        self._store.append_table_events(
            after.id,
            before.version,
            [e.to_dict() for e in events],
            after.to_dict() if snapshot else None,
            members=members if members != _members(before) else None,
            deadline=after.next_deadline(),
            status=after.stage,
            results=results_of(after, events, before=before),
            rating_changes=rated.rating_changes(self._store, before, after, events),
            no_shows=rated.no_shows(before, events),
        )

    async def _give_up(self, held: _Held) -> None:
        """Forget the table (the store keeps it): its timer and CPU stop."""
        table_id = held.table.id
        if self._held.get(table_id) is held:
            del self._held[table_id]
        self._stop(held)
        await self._release(table_id)

    async def _release(self, table_id: str) -> None:
        """Release the claim on the table (if the hub cannot be reached, it expires)."""
        try:
            await self._hub.release(table_id, self.owner)
        except HubUnavailableError as exc:
            log.warning("could not release table %s (its claim expires): %s", table_id, exc)

    def _stop(self, held: _Held) -> None:
        if held.timer is not None:
            held.timer.cancel()
            held.timer = None
        held.armed = None
        if held.cpu_retry is not None:
            held.cpu_retry.cancel()
            held.cpu_retry = None
        task = held.cpu_task
        if task is not None and task is not asyncio.current_task():
            task.cancel()

    def _holds(self, held: _Held) -> bool:
        return not self._closed and self._held.get(held.table.id) is held

    def _after(self, held: _Held) -> None:
        """After a change: the timer at the table's next deadline, and the CPU if it is to move."""
        if not self._holds(held):
            return
        self._arm(held)
        self._schedule_cpu(held)

    # ------------------------------------------------------------ the timer

    def _arm(self, held: _Held, *, delay: float | None = None) -> None:
        """Arm the table's one timer at its next deadline (unchanged: left as it is)."""
        deadline = held.table.next_deadline()
        if deadline == held.armed and delay is None:
            return
        if held.timer is not None:
            held.timer.cancel()
            held.timer = None
        held.armed = deadline
        if deadline is None:
            return
        wait = max(0.0, deadline.at - self._clock()) if delay is None else delay
        loop = asyncio.get_running_loop()
        held.timer = loop.call_later(wait, self._fire, held, deadline)

    def _fire(self, held: _Held, deadline: Deadline) -> None:
        held.timer = None
        if self._holds(held):
            self._spawn(self._tick(held, deadline))

    async def _tick(self, held: _Held, deadline: Deadline) -> None:
        """Fire the table's due deadlines (``Tick``); a deadline not yet due is re-armed."""
        table_id = held.table.id
        fired_at = self._clock()
        try:
            events = await self.command(table_id, Tick())
        except (StoreUnavailableError, HubUnavailableError) as exc:
            self._deadline_waits(held, str(exc))
            return
        except TableError as exc:
            if exc.code == "unavailable":
                self._deadline_waits(held, exc.message)
                return
            log.info("the deadline of table %s did nothing: %s", table_id, exc.message)
            events = []
        except Exception:
            log.exception("firing the deadline of table %s failed; trying again", table_id)
            if self._holds(held):
                self._arm(held, delay=RETRY_S)
            return
        if held.waiting:
            held.waiting = False
            log.warning("the deadline of table %s fired: the service is back", table_id)
        if events or not self._holds(held) or held.table.next_deadline() != deadline:
            return
        if fired_at < deadline.at:
            # The timer woke before the clock reached the deadline (the event
            # loop's clock is not the server's): wait for what is left, which
            # may be nothing by now (the Tick read the clock a moment earlier).
            self._arm(held, delay=max(0.0, deadline.at - self._clock()))
            return
        # Due when the Tick was made, yet it fired nothing: a bug, tried again
        # later rather than at once in a loop.
        log.warning("table %s: deadline %s is due but fired nothing", table_id, deadline)
        self._arm(held, delay=RETRY_S)

    def _deadline_waits(self, held: _Held, reason: str) -> None:
        """A deadline that could not fire for an outage: tried again every :data:`RETRY_S`
        (one warning per table and outage, not a line per try)."""
        if not held.waiting:
            held.waiting = True
            log.warning(
                "the deadline of table %s waits for the service to come back: %s",
                held.table.id,
                reason,
            )
        if self._holds(held):
            self._arm(held, delay=RETRY_S)

    # ------------------------------------------------------------ the CPU

    def _schedule_cpu(self, held: _Held) -> None:
        """Start the CPU's turns if a CPU (or a stand-in) is to move and not already thinking."""
        if held.cpu_task is not None and not held.cpu_task.done():
            return
        if held.cpu_retry is not None or held.table.cpu_turn() is None:
            return
        held.cpu_task = self._spawn(self._cpu_turns(held))

    async def _cpu_turns(self, held: _Held) -> None:
        table_id = held.table.id
        try:
            while self._holds(held):
                table = held.table
                turn = table.cpu_turn()
                if turn is None or table.game is None:
                    return
                seat, level = turn
                # Its own stream of the table's seed (the human hand draws from
                # [seed, version]): the same table and version, the same decision.
                seed = [table.seed, table.version, CPU_STREAM]
                shot = await self._cpu.choose_shot(table.game, Level(level), seed)
                if held.table.version != table.version:
                    continue  # the table moved while the CPU thought: think again
                command = Shoot(None, seat, shot, cpu=True, expected_version=table.version)
                try:
                    await self.command(table_id, command)
                except TableError as exc:
                    if exc.code != "stale":
                        log.info("the CPU of table %s stops: %s", table_id, exc.message)
                        return
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("the CPU of table %s failed; trying again", table_id)
            if self._holds(held):
                held.cpu_retry = asyncio.get_running_loop().call_later(
                    RETRY_S, self._retry_cpu, held
                )

    def _retry_cpu(self, held: _Held) -> None:
        held.cpu_retry = None
        self._after(held)

    def _spawn(self, coroutine: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        task: asyncio.Task[None] = asyncio.get_running_loop().create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task


# ---------------------------------------------------------------- store rows


def stored_table(store: Store, table_id: str) -> tuple[Table, int] | None:
    """The table as the store holds it, and the version of its stored snapshot; None if none.

    The snapshot is folded forward with the events stored after it.

    Raises:
        InvalidRecordError: the stored snapshot or events are not a table's.
    """
    data = store.table(table_id)
    if data is None:
        return None
    table = Table.from_dict(data.snapshot)
    snapshot_version = table.version
    for stored in store.table_events(table_id, after=snapshot_version):
        table = table.fold(event_from_dict(stored))
    return table, snapshot_version


def _members(table: Table) -> list[TableMember]:
    """The table's members as the store keeps them (what finds a device's tables)."""
    return [
        TableMember(
            m.mid,
            m.device,
            m.name,
            m.spectator,
            tuple(seat.name.lower() for seat in table.seats_of(m.mid)),
        )
        for m in table.members
    ]


def results_of(
    table: Table, events: Sequence[Event], *, before: Table | None = None
) -> list[TableResult]:
    """The device records of a game that ``events`` finish, or that a player left.

    Each device that plays exactly one side gets a win, draw or loss (a
    device on several sides, hot-seat on one screen, gets none).  The
    opponent is the CPU level when every opposing seat is a CPU of one
    level, else ``people``.  An abandoned game is a loss for the devices
    still playing it (a resigned game on one device), and for a player who
    leaves a game under way (``before``: the table before ``events``; one
    the host removed abandoned nothing).  A ranked game aborted for a
    no-show counts for nobody.
    """
    rows = _left_mid_game(before, events) if before is not None else []
    if any(isinstance(e, GameAborted) for e in events):
        return rows  # a ranked no-show: a game never played counts in nobody's record
    finished = [e for e in events if isinstance(e, GameFinished)]
    if not finished or table.game is None:
        return rows
    end = finished[-1]
    rules = table.game.rules
    sides_of: dict[str, set[int]] = {}
    for member in table.members:
        for seat in table.seats_of(member.mid):
            sides_of.setdefault(member.device, set()).add(rules.side_of(seat))
    for device, sides in sides_of.items():
        if len(sides) != 1:
            continue
        (side,) = sides
        opponent = _opponent(table, side)
        if end.abandoned:
            result = "loss"
        elif end.winner is None:
            result = "draw" if side in end.drawn else "loss"
        else:
            result = "win" if end.winner == side else "loss"
        rows.append(
            TableResult(
                game_number=table.game_number,
                device_token=device,
                opponent=opponent,
                scoring=rules.scoring.value,
                result=result,
            )
        )
    return rows


def _opponent(table: Table, side: int) -> str:
    """``people``, or the CPU level when every seat against ``side`` was a CPU of that level.

    A seat a person held when the game started is a person's, though a
    stand-in played it to the end after they left.
    """
    assert table.game is not None
    rules = table.game.rules
    opponents = [
        None if seat in table.people_seats else occupant
        for seat, occupant in table.seats.items()
        if rules.side_of(seat) != side
    ]
    levels = {o.level for o in opponents if isinstance(o, Cpu)}
    everyone_cpu = all(isinstance(o, Cpu) for o in opponents)
    return levels.pop() if everyone_cpu and len(levels) == 1 else "people"


def _left_mid_game(before: Table, events: Sequence[Event]) -> list[TableResult]:
    """A loss for each player who left (not removed) the game under way in ``before``."""
    game = before.game
    if before.stage is not Stage.PLAYING or game is None:
        return []
    rows = []
    for event in events:
        if not isinstance(event, MemberLeft) or event.removed:
            continue
        member = before.member(event.mid)
        sides = {game.rules.side_of(seat) for seat in before.seats_of(event.mid)}
        if member is None or len(sides) != 1:
            continue
        rows.append(
            TableResult(
                game_number=before.game_number,
                device_token=member.device,
                opponent=_opponent(before, sides.pop()),
                scoring=game.rules.scoring.value,
                result="loss",
            )
        )
    return rows
