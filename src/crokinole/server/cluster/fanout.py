"""Fan-out on Redis: a table's events to every process's subscribers, and broadcasts.

``publish`` delivers to this process's subscribers at once (the owner's
table object as given) and publishes ``{"version", "events", "origin",
"outcomes"}`` on ``{prefix}table:{table}``: ``outcomes`` holds the simulated
result of each shot among the events (:mod:`~crokinole.server.cluster.outcomes`,
from the owner's ``shot_reports``).  Another process's hub keeps a *follower
copy* of each table it has subscribers for: read from the store
(:func:`crokinole.server.table_log.stored_table`) when the table gets its
first subscriber here, then folded with each published event
(:meth:`~crokinole.table.Table.fold`), a shot from its published outcome (no
physics here: the copy ends bit for bit as the owner's table).  The reader
queues each message for its table's worker task, which folds that table's
messages in order: tables never wait for each other.  Its subscribers get
``deliver(follower copy, events)``.  Redis pub/sub may drop messages: a
message whose first event does not follow the copy, whose events do not
fold, or whose outcome is not its shot's, makes the hub read the table again
from the store, and the events missed meanwhile are delivered with it (from
the store's log).  Messages from this hub itself are ignored.  A process
that takes a table over delivers first what the dead owner stored but never
published (:meth:`FanOut.catch_up`).  The registry of subscribers is local
and plain, as in ``MemoryHub``: the channel is joined (and left) in the
background.

:meth:`FanOut.broadcast` and :meth:`FanOut.listen` carry JSON payloads on
``{prefix}topic:{topic}`` (this process's listeners are called at once).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import anyio.to_thread
from redis.exceptions import RedisError

from crokinole.physics import ShotResult
from crokinole.server.cluster.hub import Listener, Subscriber, in_thread_to_the_end
from crokinole.server.cluster.outcomes import BadOutcomeError, outcome_from_dict, outcome_to_dict
from crokinole.server.cluster.redis_base import RedisBase, unreachable
from crokinole.server.table_log import stored_table
from crokinole.table import Event, ShotPlayed, Table, event_from_dict

log = logging.getLogger("crokinole.server")


@dataclass
class Follow:
    """This process's subscribers of one table, its follower copy, and the messages to fold.

    ``pending`` holds the table's messages as the reader got them, folded in
    order by the table's own ``worker`` task: a table waits for nobody else's.
    """

    subscribers: dict[Subscriber, None] = field(default_factory=dict)
    table: Table | None = None
    loaded: asyncio.Event = field(default_factory=asyncio.Event)
    pending: deque[bytes | str] = field(default_factory=deque)
    worker: asyncio.Task[None] | None = None


class FanOut(RedisBase):
    """The part of :class:`~crokinole.server.cluster.redis_hub.RedisHub` that fans events out."""

    _follows: dict[str, Follow]
    _joined: set[str]
    _listeners: dict[str, list[Listener]]
    _topics: set[str]

    def _init_fanout(self) -> None:
        self._follows = {}
        self._joined = set()
        self._listeners = {}
        self._topics = set()

    def subscribe(self, table_id: str, subscriber: Subscriber) -> None:
        """Send ``subscriber`` every event published for the table from now on.

        The table's first subscriber here makes the hub join its channel and
        read its follower copy from the store (in the background).
        """
        follow = self._follows.get(table_id)
        if follow is None:
            follow = self._follows[table_id] = Follow()
            self._spawn(self._follow(table_id, follow))
        follow.subscribers[subscriber] = None

    def unsubscribe(self, table_id: str, subscriber: Subscriber) -> None:
        """Stop sending the table's events to ``subscriber`` (unknown ones are ignored)."""
        follow = self._follows.get(table_id)
        if follow is None:
            return
        follow.subscribers.pop(subscriber, None)
        if not follow.subscribers:
            del self._follows[table_id]
            self._spawn(self._sync_channel(table_id))

    def subscribers(self, table_id: str) -> int:
        """How many subscribers the table has in this process."""
        follow = self._follows.get(table_id)
        return len(follow.subscribers) if follow is not None else 0

    def follower(self, table_id: str) -> Table | None:
        """This process's copy of the table (None before it is read, or with no subscriber)."""
        follow = self._follows.get(table_id)
        return follow.table if follow is not None else None

    def followed(self) -> list[str]:
        """The tables this process has subscribers for."""
        return list(self._follows)

    async def copy(self, table_id: str) -> Table | None:
        """The follower copy of the table once read (None: no subscriber here, or no table)."""
        follow = self._follows.get(table_id)
        if follow is None:
            return None
        await follow.loaded.wait()
        return follow.table

    async def following(self, table_id: str) -> None:
        """Wait until the table's channel is joined and its follower copy read."""
        follow = self._follows.get(table_id)
        if follow is not None:
            await follow.loaded.wait()

    async def publish(self, table_id: str, table: Table, events: Sequence[Event]) -> None:
        """Deliver to this process's subscribers, then publish for the other processes.

        Raises:
            HubUnavailableError: Redis could not be reached (this process's
                subscribers have their events; the others catch up later).
        """
        follow = self._follows.get(table_id)
        if follow is not None:
            if follow.table is None or follow.table.version < table.version:
                follow.table = table
            _deliver(table_id, follow, table, events)
        message = {
            "version": table.version,
            "events": [e.to_dict() for e in events],
            "origin": self.origin,
            "outcomes": _outcomes(table, events),
        }
        try:
            await self._redis.publish(self.channel(table_id), json.dumps(message))
        except RedisError as exc:
            raise unreachable(exc) from exc

    async def _follow(self, table_id: str, follow: Follow) -> None:
        """Join the table's channel, then read the follower copy (nothing falls between)."""
        try:
            await self._sync_channel(table_id)
            if self._follows.get(table_id) is follow:
                await self._reload(table_id, follow)
        finally:
            follow.loaded.set()

    async def _sync_channel(self, table_id: str) -> None:
        """Join or leave the table's channel, as its subscribers here now want."""
        async with self._channels() as pubsub:
            if pubsub is None:
                return
            wanted = table_id in self._follows
            if wanted == (table_id in self._joined):
                return
            try:
                if wanted:
                    await pubsub.subscribe(self.channel(table_id))
                    self._joined.add(table_id)
                    self._start_reader()
                else:
                    self._joined.discard(table_id)
                    await pubsub.unsubscribe(self.channel(table_id))
            except RedisError:
                log.exception("could not join or leave the channel of table %s", table_id)

    def _receive(self, channel: str, data: bytes | str) -> None:
        """One published message: queued for its table's worker (the reader never waits)."""
        table_id = channel.removeprefix(f"{self._prefix}table:")
        follow = self._follows.get(table_id)
        if follow is None:
            return
        follow.pending.append(data)
        if follow.worker is None:
            follow.worker = self._spawn(self._drain(table_id, follow))

    async def _drain(self, table_id: str, follow: Follow) -> None:
        """Fold the table's messages in the order they came, until none is left."""
        try:
            while follow.pending and self._follows.get(table_id) is follow:
                data = follow.pending.popleft()
                try:
                    await self._fold_message(table_id, follow, data)
                except Exception:
                    log.exception("a message of table %s could not be handled", table_id)
        finally:
            follow.worker = None
            follow.pending.clear()

    async def _fold_message(self, table_id: str, follow: Follow, data: bytes | str) -> None:
        """Fold one message into the follower copy and deliver it.

        A shot is folded from the outcome its owner published (no physics
        here); one published without it (an owner of an older version) is
        simulated again, off the event loop.  Events that do not follow the
        copy, or an outcome that is not the shot's, make the hub read the
        table again from the store.
        """
        body = json.loads(data)
        if body.get("origin") == self.origin:
            return
        await follow.loaded.wait()
        if self._follows.get(table_id) is not follow:
            return
        version = int(body["version"])
        if follow.table is not None and version <= follow.table.version:
            return  # already in the copy (read from the store after it was published)
        try:
            events = [event_from_dict(e) for e in body["events"]]
            copy = follow.table
            if copy is None:
                raise LookupError(f"no copy of table {table_id} yet")
            events = [e for e in events if e.version > copy.version]  # some already in
            outcomes = _published_outcomes(body.get("outcomes"), events)
            if any(isinstance(e, ShotPlayed) and e.version not in outcomes for e in events):
                table = await anyio.to_thread.run_sync(_folded, copy, events, outcomes)
            else:
                table = _folded(copy, events, outcomes)
        except Exception as exc:
            log.info("table %s: reading it again from the store (%s)", table_id, exc)
            await self._reload(table_id, follow)
            return
        if self._follows.get(table_id) is not follow:
            return
        if follow.table is not None and follow.table.version >= table.version:
            return  # a publish here moved it on meanwhile
        follow.table = table
        _deliver(table_id, follow, table, events)

    async def _reload(self, table_id: str, follow: Follow) -> None:
        """Read the follower copy from the store; deliver the events it gained, if any."""
        before = follow.table

        def read() -> tuple[Table | None, list[Event]]:
            stored = stored_table(self._store, table_id)
            if stored is None:
                return None, []
            table, _ = stored
            if before is None or table.version <= before.version:
                return table, []
            return table, [
                event_from_dict(e) for e in self._store.table_events(table_id, after=before.version)
            ]

        try:
            table, missed = await in_thread_to_the_end(read)
        except Exception:
            log.exception("could not read table %s from the store", table_id)
            return
        if self._follows.get(table_id) is not follow or table is None:
            return
        if follow.table is not None and follow.table.version >= table.version:
            return  # a publish here moved it on meanwhile
        follow.table = table
        missed = [e for e in missed if e.version <= table.version]
        if missed:
            _deliver(table_id, follow, table, missed)

    async def catch_up(self, table_id: str, table: Table) -> None:
        """Deliver the stored events the follower copy lacks up to ``table``, then hold it.

        A process that takes a table over (``table`` is what it read from the
        store once claimed) calls it before applying anything: the owner that
        died may have stored events it never published, and this process's
        subscribers are shown them (each shot as a shot, its report replayed
        from the copy) before what the new owner does.
        """
        follow = self._follows.get(table_id)
        if follow is None:
            return
        await follow.loaded.wait()
        before = follow.table
        if self._follows.get(table_id) is not follow:
            return
        if before is None or before.version >= table.version:
            if before is None:
                follow.table = table
            return

        def read() -> tuple[Table, list[Event]]:
            stored = self._store.table_events(table_id, after=before.version)
            missed = [event_from_dict(e) for e in stored]
            missed = [e for e in missed if e.version <= table.version]
            try:
                folded = _folded(before, missed, {})
            except Exception:  # the store's table is the truth: shown without the reports
                return table, missed
            return (folded if folded == table else table), missed

        try:
            shown, missed = await in_thread_to_the_end(read)
        except Exception:
            log.exception("could not read the events table %s missed from the store", table_id)
            shown, missed = table, []
        if self._follows.get(table_id) is not follow:
            return
        if follow.table is not None and follow.table.version >= table.version:
            return  # moved on meanwhile
        follow.table = shown
        if missed:
            _deliver(table_id, follow, shown, missed)

    async def broadcast(self, topic: str, payload: dict[str, Any]) -> None:
        """Call this process's listeners of ``topic``, then publish for the others.

        Raises:
            HubUnavailableError: Redis could not be reached (the others miss it).
        """
        self._call_listeners(topic, payload)
        message = {"origin": self.origin, "payload": payload}
        try:
            await self._redis.publish(self.topic(topic), json.dumps(message))
        except RedisError as exc:
            raise unreachable(exc) from exc

    def listen(self, topic: str, listener: Listener) -> None:
        """Call ``listener`` with each payload broadcast on ``topic`` (joined in the background)."""
        self._listeners.setdefault(topic, []).append(listener)
        if topic not in self._topics:
            self._topics.add(topic)
            self._spawn(self._join_topic(topic))

    async def _join_topic(self, topic: str) -> None:
        async with self._channels() as pubsub:
            if pubsub is None:
                return
            try:
                await pubsub.subscribe(self.topic(topic))
            except RedisError:
                log.exception("could not listen to %s", topic)
                return
            self._start_reader()

    def _call_listeners(self, topic: str, payload: dict[str, Any]) -> None:
        for listener in list(self._listeners.get(topic, ())):
            try:
                listener(payload)
            except Exception:
                log.exception("a listener of %s failed", topic)

    def _reload_all(self) -> None:
        """Read every follower copy again from the store (messages may have been lost)."""
        for table_id, follow in list(self._follows.items()):
            self._spawn(self._reload(table_id, follow))

    def _on_topic(self, channel: str, body: dict[str, Any]) -> None:
        """A broadcast of another process on a topic this one listens to."""
        topic = channel.removeprefix(f"{self._prefix}topic:")
        if topic in self._topics and body.get("origin") != self.origin:
            self._call_listeners(topic, body["payload"])


def _outcomes(table: Table, events: Sequence[Event]) -> dict[str, dict[str, Any]]:
    """The simulated outcome of each shot among ``events`` that ``table`` keeps, by version."""
    found = {}
    for event in events:
        played = table.report_of(event.version)
        if isinstance(event, ShotPlayed) and played is not None:
            physics = played.report.physics
            if physics is not None:
                found[str(event.version)] = outcome_to_dict(physics)
    return found


def _published_outcomes(raw: object, events: Sequence[Event]) -> dict[int, ShotResult]:
    """The outcomes a message carries for the shots among ``events``, by version.

    Raises:
        BadOutcomeError: one cannot be read.
    """
    if not isinstance(raw, dict):
        return {}
    found = {}
    for event in events:
        data = raw.get(str(event.version))
        if isinstance(event, ShotPlayed) and data is not None:
            if not isinstance(data, dict):
                raise BadOutcomeError(f"the outcome of shot {event.version} is not an object")
            found[event.version] = outcome_from_dict(data)
    return found


def _folded(table: Table, events: Sequence[Event], outcomes: Mapping[int, ShotResult]) -> Table:
    """``table`` folded with ``events``, with the shot reports of them all (as ``apply`` gives).

    A shot whose outcome is in ``outcomes`` is judged from it, the others simulated.
    """
    reports = {}
    for event in events:
        table = table.fold(event, outcomes.get(event.version))
        reports.update(table.shot_reports)
    return replace(table, shot_reports=reports)


def _deliver(table_id: str, follow: Follow, table: Table, events: Sequence[Event]) -> None:
    for subscriber in list(follow.subscribers):
        try:
            subscriber.deliver(table, events)
        except Exception:
            log.exception("a subscriber of table %s failed to take its events", table_id)
