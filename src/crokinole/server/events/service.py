"""The event service: an event loaded from its log, its commands run, every process told.

An event is a pure value (:class:`crokinole.events.event.Event`), the fold of
its log; the store keeps the log (:class:`crokinole.store.events.EventStore`).
:class:`EventService` is the one way the server changes an event:

- :meth:`EventService.load` folds the event from the store.  The folded event
  is kept per version, so a load reads only the entries appended since (one
  indexed read) and folds only those;
- :meth:`EventService.run` loads, lets a *decision* (a function of the event
  giving the log entries it makes: a command of the event, or several)
  choose, and appends the entries at the version it loaded.  Another writer
  that came first (another request, another process) makes the append fail
  with the store's conflict and nothing is written: the service loads again
  and decides again, a few times (:data:`RETRIES`).  A decision that refuses
  (:class:`~crokinole.errors.EventError`) changes nothing;
- after each change the service broadcasts ``{"event", "version"}`` on the
  hub's topic :data:`CHANGED` (in memory, or through Redis to every process):
  the live streams of every process (:mod:`crokinole.server.events.live`)
  and the online tables (:mod:`crokinole.server.events.tables`) hear it from
  :meth:`EventService.on_change`.

Decisions and folds run on worker threads (pairing 512 players takes a
while), and so do the store's calls; the event loop only waits for them.
Changes made in this process are run one at a time per event (fewer
conflicts); processes are kept apart by the store's version guard.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import anyio.to_thread

from crokinole.errors import ErrorCode, EventError
from crokinole.events.event import Actor, Entry, Event, entry_from_dict
from crokinole.events.model import Entrant, EventSettings, MatchResult, Pairing
from crokinole.events.view import event_view
from crokinole.server.cache import LruCache
from crokinole.server.cluster.hub import Hub, HubUnavailableError, MemoryHub
from crokinole.server.owner.tables import new_code
from crokinole.store import Store, StoreConflictError

__all__ = [
    "CHANGED",
    "RETRIES",
    "Decision",
    "EventService",
    "Loaded",
    "new_event_id",
]

log = logging.getLogger("crokinole.server")

#: The hub's topic of an event's changes: ``{"event": id, "version": n}``.
CHANGED = "events.changed"
#: Times a command is decided again after another writer came first.
RETRIES = 8
#: Folded events kept (by id, at their latest version seen).
CACHE_SIZE = 256

#: A decision: the log entries a command makes of the event as it stands (none:
#: nothing to do).  It raises :class:`~crokinole.errors.EventError` to refuse.
Decision = Callable[[Event], Sequence[Entry]]
#: Told of each change heard (``event id``, its new version), on the event loop.
ChangeListener = Callable[[str, int], None]


def new_event_id() -> str:
    """A new event's id: 16 hexadecimal digits.

    >>> len(new_event_id()), new_event_id() != new_event_id()
    (16, True)
    """
    return secrets.token_hex(8)


@dataclass(frozen=True, slots=True)
class Loaded:
    """An event folded from the store at ``version`` (its last entry's)."""

    event: Event
    version: int


class EventService:
    """Loads events from the store, runs their commands, and tells every process of changes.

    Args:
        store: where events' logs are.
        hub: how processes hear of each other's changes (one process: a
            :class:`~crokinole.server.cluster.hub.MemoryHub`).
        clock: server seconds (the ``now`` of commands).
    """

    def __init__(
        self,
        store: Store,
        hub: Hub | None = None,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.hub: Hub = hub if hub is not None else MemoryHub()
        self.clock = clock
        self._cache: LruCache[str, Loaded] = LruCache(CACHE_SIZE)
        self._views: LruCache[tuple[str, int], dict[str, Any]] = LruCache(CACHE_SIZE)
        self._locks: dict[str, asyncio.Lock] = {}
        self._listeners: list[ChangeListener] = []
        self._listening = False

    def now(self) -> float:
        """The server's time, for a command's ``now``."""
        return self.clock()

    # ------------------------------------------------------------ reading

    async def load(self, event_id: str) -> Event | None:
        """The event as its log stands now, or None if there is none."""
        loaded = await self.loaded(event_id)
        return None if loaded is None else loaded.event

    async def loaded(self, event_id: str) -> Loaded | None:
        """The event and the version it was folded at, or None if there is none."""
        return await anyio.to_thread.run_sync(self._load_sync, event_id)

    def _load_sync(self, event_id: str) -> Loaded | None:
        kept = self._cache.get(event_id)
        after = 0 if kept is None else kept.version
        dicts = self.store.event_entries(event_id, after_version=after)
        if not dicts:
            return kept
        entries = [entry_from_dict(d) for d in dicts]
        if kept is None:
            event = Event.fold(entries)
        else:
            event = kept.event
            for entry in entries:
                event = event.apply(entry)
        fresh = Loaded(event, after + len(entries))
        self._keep(event_id, fresh)
        return fresh

    def _keep(self, event_id: str, loaded: Loaded) -> None:
        """Keep ``loaded`` unless a newer version is kept already (another thread's)."""
        kept = self._cache.get(event_id)
        if kept is None or kept.version < loaded.version:
            self._cache.put(event_id, loaded)

    def view(self, event: Event) -> dict[str, Any]:
        """The event's public view, made once per version (a worker thread's call: it works
        out the standings).  Shared: a caller that adds to it copies it first."""
        return self._views.get_or_make((event.id, event.version), lambda: event_view(event))

    async def require(self, event_id: str) -> Loaded:
        """The event, or ``not_found`` (404) when there is none."""
        loaded = await self.loaded(event_id)
        if loaded is None:
            raise EventError(ErrorCode.NOT_FOUND, f"there is no event {event_id}")
        return loaded

    async def by_code(self, code: str) -> str | None:
        """The id of the event with the join code ``code`` (any case), or None."""
        typed = "".join(code.split()).upper()
        return await anyio.to_thread.run_sync(self.store.event_by_code, typed)

    def actor(self, event: Event, account_id: int | None, claim: str | None = None) -> Actor:
        """Who asks: an account (the event's organiser or not) and a device's claim."""
        organiser = account_id is not None and account_id == event.organiser
        return Actor(account_id=account_id, claim=claim, organiser=organiser)

    # ------------------------------------------------------------ changing

    async def run(self, event_id: str, decide: Decision) -> Event:
        """Decide on the event as it stands and append what the decision makes; the new event.

        The decision is made again on the event as it then stands when
        another writer came first (at most :data:`RETRIES` times).

        Raises:
            EventError: the decision refused (nothing changed), or
                ``not_found``: there is no such event.
            StoreConflictError: other writers came first every time.
            StoreUnavailableError: the database could not be reached.
        """
        async with self._lock(event_id):
            for attempt in range(RETRIES):
                loaded = await self.require(event_id)
                try:
                    changed = await anyio.to_thread.run_sync(self._decide, event_id, loaded, decide)
                except StoreConflictError:
                    if attempt == RETRIES - 1:
                        raise
                    continue
                if changed is None:
                    return loaded.event
                await self._tell(event_id, changed.version)
                return changed.event
        raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises

    def _decide(self, event_id: str, loaded: Loaded, decide: Decision) -> Loaded | None:
        """On a worker thread: the decision, its entries folded in and appended (None: none)."""
        entries = tuple(decide(loaded.event))
        if not entries:
            return None
        event = loaded.event
        for entry in entries:
            event = event.apply(entry)
        version = self.store.append_event_entries(
            event_id,
            [entry.to_dict() for entry in entries],
            loaded.version,
            status=_status(event),
            summary=summary(event),
            accounts=accounts_of(event),
        )
        fresh = Loaded(event, version)
        self._keep(event_id, fresh)
        return fresh

    async def create(
        self, organiser: int, settings: EventSettings, *, now: float | None = None
    ) -> Event:
        """A new event of ``organiser`` (an account) with ``settings``, and a join code of its own.

        Raises:
            EventError: the settings refused.
        """
        at = self.now() if now is None else now
        return await self._create(
            organiser,
            lambda event_id, code: (Event.create(event_id, code, organiser, settings, now=at),),
            at,
        )

    async def import_event(
        self,
        organiser: int,
        settings: EventSettings,
        entrants: Sequence[Entrant],
        matches: Sequence[tuple[Pairing, MatchResult | None]],
        *,
        now: float | None = None,
    ) -> Event:
        """A new event of ``organiser`` played elsewhere (a CMN 1.0 import): finished, every
        match confirmed (:meth:`~crokinole.events.event.Event.imported`).

        Raises:
            EventError: a match names an unknown entrant, two share a table.
        """
        at = self.now() if now is None else now

        def log(event_id: str, code: str) -> Sequence[Entry]:
            return Event.imported(
                event_id,
                code,
                organiser,
                settings=settings,
                entrants=entrants,
                matches=matches,
                now=at,
            )

        return await self._create(organiser, log, at)

    async def _create(
        self, organiser: int, log: Callable[[str, str], Sequence[Entry]], at: float
    ) -> Event:
        """A new event whose log ``log(id, code)`` makes, under a new id and a free code."""
        for _ in range(RETRIES):
            event_id, code = new_event_id(), new_code()
            entries = tuple(log(event_id, code))
            event = await anyio.to_thread.run_sync(Event.fold, entries)
            try:
                await anyio.to_thread.run_sync(self._create_sync, event, entries, at)
            except StoreConflictError:  # the code was taken: draw another
                continue
            self._keep(event_id, Loaded(event, len(entries)))
            await self._tell(event_id, len(entries))
            return event
        raise EventError(ErrorCode.CONFLICT, "no join code was free: try again")

    def _create_sync(self, event: Event, entries: Sequence[Entry], at: float) -> None:
        first, *then = (entry.to_dict() for entry in entries)
        self.store.create_event(
            event.id,
            event.code,
            event.organiser,
            first,
            at,
            status=_status(event),
            summary=summary(event),
            accounts=accounts_of(event),
            then=then,
        )

    def _lock(self, event_id: str) -> asyncio.Lock:
        lock = self._locks.get(event_id)
        if lock is None:
            if len(self._locks) > 10_000:  # forget the idle ones so memory stays bounded
                for idle in [k for k, v in self._locks.items() if not v.locked()]:
                    del self._locks[idle]
            lock = self._locks[event_id] = asyncio.Lock()
        return lock

    # ------------------------------------------------------------ telling

    def on_change(self, listener: ChangeListener) -> None:
        """Call ``listener(event_id, version)`` on the event loop for each change heard:
        this process's and (through the hub) every other's."""
        self._listeners.append(listener)
        if not self._listening:
            self._listening = True
            self.hub.listen(CHANGED, self._heard)

    def _heard(self, payload: dict[str, Any]) -> None:
        event_id, version = payload.get("event"), payload.get("version")
        if not isinstance(event_id, str) or not isinstance(version, int):
            log.warning("an event change without an event and a version: %r", payload)
            return
        for listener in list(self._listeners):
            try:
                listener(event_id, version)
            except Exception:
                log.exception("a listener of event %s's changes failed", event_id)

    async def _tell(self, event_id: str, version: int) -> None:
        """Broadcast the change (this process's listeners hear it at once)."""
        try:
            await self.hub.broadcast(CHANGED, {"event": event_id, "version": version})
        except HubUnavailableError as exc:
            # This process's listeners heard it; the others miss it, and their
            # streams find the new version when they next look (live.POLL_S).
            log.warning(
                "event %s's change (version %d) was not broadcast: %s", event_id, version, exc
            )


def _status(event: Event) -> str:
    return event.status.value


def summary(event: Event) -> dict[str, Any]:
    """What the lists show of an event without folding its log."""
    settings = event.settings
    return {
        "name": settings.name,
        "date": settings.date,
        "format": settings.format.value,
        "venue": settings.venue.value,
        "teams": settings.teams.value,
        "entrants": len(event.entrants),
        "rounds": len(event.rounds),
    }


def accounts_of(event: Event) -> list[int]:
    """The accounts that play in the event."""
    return sorted(
        {
            person.account_id
            for entrant in event.entrants
            for person in entrant.members
            if person.account_id is not None
        }
    )
