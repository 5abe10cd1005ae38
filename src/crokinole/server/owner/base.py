"""What every part of the owner of the tables shares: the held table and the owner's state.

:class:`Held` is one table this process holds in memory, with its lock, its
timer and its CPU task; :class:`OwnerBase` declares the state of
:class:`~crokinole.server.owner.tables.Tables` (the store, the hub, the held
tables, the tasks) that its parts (:mod:`~crokinole.server.owner.commands`,
:mod:`~crokinole.server.owner.timers`, :mod:`~crokinole.server.owner.cpu_turns`,
:mod:`~crokinole.server.owner.loading`) work on, and the few methods one part
calls in another.  Nothing here is used on its own.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from crokinole.errors import ErrorCode
from crokinole.table import Command, Deadline, Event, Table, TableError

if TYPE_CHECKING:
    from crokinole.server.cluster.hub import ClusterHub, Hub
    from crokinole.server.owner.cpu import CpuPool
    from crokinole.store import Store


#: Seconds before a failed deadline or CPU move (the store was down) is tried again.
RETRY_S = 1.0

#: What the owner calls when the game of an event's table ends (the table, and the
#: events that ended it): the event's result hook (``crokinole.server.events.tables``).
EventGameHook = Callable[[Table, Sequence[Event]], Awaitable[None]]

#: What a player is told while Redis or the database cannot be reached.
UNAVAILABLE = "the game service is reconnecting: try again in a moment"


class ElsewhereError(TableError):
    """The table is held by another owner (``owner``: its origin, if known)."""

    def __init__(self, owner: str | None) -> None:
        super().__init__(ErrorCode.BUSY, "another server holds this table: try again")
        self.owner = owner


def unavailable() -> TableError:
    """The refusal of a command while the hub or the store cannot be reached."""
    return TableError(ErrorCode.UNAVAILABLE, UNAVAILABLE)


@dataclass(eq=False)
class Held:
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


class OwnerBase:
    """The state the parts of :class:`~crokinole.server.owner.tables.Tables` share.

    :class:`~crokinole.server.owner.tables.Tables` sets it up; the methods
    declared here for type checking only are each defined by one part.
    """

    #: This owner's name on the hub (the hub's ``origin`` unless given).
    owner: str
    #: The store behind the tables.
    store: Store
    #: The hub the tables publish on (and claim them on).
    hub: Hub
    #: The CPU players' pool.
    cpu: CpuPool
    #: Called when the game of an event's table ends here (None: nobody listens).
    on_event_game: EventGameHook | None
    _cluster: ClusterHub | None
    _clock: Callable[[], float]
    _held: dict[str, Held]
    _loading: dict[str, asyncio.Lock]
    _tasks: set[asyncio.Task[None]]
    _closed: bool
    #: The threads that apply commands (see ``commands.COMMAND_THREADS``).
    _workers: ThreadPoolExecutor

    def _spawn(self, coroutine: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        task: asyncio.Task[None] = asyncio.get_running_loop().create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def _holds(self, held: Held) -> bool:
        return not self._closed and self._held.get(held.table.id) is held

    if TYPE_CHECKING:  # defined by the parts (commands, loading) and by Tables

        async def command(self, table_id: str, command: Command) -> list[Event]: ...

        async def _apply(self, held: Held, command: Command) -> list[Event]: ...

        async def _load(self, table_id: str) -> Held | None: ...

        async def _take_up(self, table_id: str) -> None: ...

        async def _give_up(self, held: Held, *, hand_over: bool = False) -> None: ...

        def _after(self, held: Held) -> None: ...
