"""Applying a command to a held table: in a worker thread, stored, then adopted and published.

A command is applied to the pure :class:`~crokinole.table.Table` in a worker
thread (a shot is a simulation), the events are appended to the store with
the version they follow, and only then is the new table adopted, its events
published on the hub, its deadline re-armed and its CPU asked to move: a
failed write leaves the table as it was, and nothing anyone was sent is ever
lost.  Commands for one table wait for each other (a lock per table); tables
never wait for each other.  A table another process holds gets the command
there (:meth:`Commands._forward`; its owner answers in :meth:`Commands._answer`).
On a hub shared by several processes, a table whose write finds the database
out of reach (down, or silent past the store's bound) is given up, so that a
process that reaches the database takes it over.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from typing import Any

import anyio

from crokinole import metrics
from crokinole.errors import ErrorCode
from crokinole.server.cluster.hub import HubUnavailableError, NoReceiverError
from crokinole.server.owner.base import (
    UNAVAILABLE,
    ElsewhereError,
    EventGameHook,
    Held,
    OwnerBase,
    unavailable,
)
from crokinole.server.owner.rows import members_of, results_of
from crokinole.server.ranked import rated
from crokinole.store import StoreConflictError, StoreUnavailableError
from crokinole.table import (
    Command,
    Event,
    GameFinished,
    Stage,
    Table,
    TableError,
    event_from_dict,
)
from crokinole.table.commands import command_from_dict

log = logging.getLogger("crokinole.server")

#: A table's snapshot is stored at least every this many events, and whenever
#: its stage changes; in between only its events are (a shot's write stays
#: small however long the game), and loading folds those after the snapshot.
SNAPSHOT_EVERY = 16

#: Threads that apply commands and store what they caused, apart from anyio's
#: (which every other call of the store shares).  Their hop costs a third of
#: ``anyio.to_thread``'s (a C queue, no limiter: 15 against 40 µs of CPU a
#: command, measured at 40 commands at once).  A shot is mostly the
#: physics (which lets go of the GIL) and one write: a few threads keep both
#: cores and the database busy; more would only wait for the GIL.
COMMAND_THREADS = 8

#: Seconds a command sent to the table's owner in another process may wait for its answer.
FORWARD_TIMEOUT_S = 5.0

#: Seconds between two tries to reach (or take over) a table whose owner is gone.
FORWARD_RETRY_S = 0.25

#: The answer of an owner that does not hold the table (any more): the sender tries again.
ELSEWHERE = "elsewhere"

#: The refusal of a command whose table another writer stored meanwhile.
STALE = "the table changed meanwhile: try again"

#: The answer to a command that came after its sender gave up on it.
TOO_LATE = "the command came too late: try again"


class Commands(OwnerBase):
    """The part of :class:`~crokinole.server.owner.tables.Tables` that applies commands."""

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
            except ElsewhereError as elsewhere:
                events = None
                if elsewhere.owner is not None and elsewhere.owner != self.owner:
                    events = await self._forward(table_id, elsewhere.owner, command)
                if events is not None:
                    return events
                if time.monotonic() > wait_until:
                    raise TableError(
                        ErrorCode.BUSY, "the server holding this game does not answer: try again"
                    ) from None
                await asyncio.sleep(FORWARD_RETRY_S)
                continue
            except HubUnavailableError:
                raise unavailable() from None
            if held is None:
                raise TableError(ErrorCode.UNKNOWN_TABLE, f"there is no table {table_id}")
            async with held.lock:
                if self._held.get(table_id) is held:
                    return await self._apply(held, command)
            stale += 1  # given up while this command waited: take the new one
            if stale >= 3:
                raise TableError(ErrorCode.STALE, STALE)

    async def _forward(self, table_id: str, owner: str, command: Command) -> list[Event] | None:
        """Send the command to the table's owner in another process: its events, or None
        if that owner is gone or no longer holds the table (try again).

        Raises:
            TableError: the owner's refusal, ``busy`` (no answer in time),
                ``unavailable`` (the hub cannot be reached).
        """
        cluster = self._cluster
        if cluster is None:
            raise TableError(ErrorCode.BUSY, "another server holds this table: try again")
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
                ErrorCode.BUSY, "the server holding this game did not answer: try again"
            ) from None
        except HubUnavailableError:
            raise unavailable() from None
        error = answer.get("error")
        if error == ELSEWHERE:
            return None
        if error is not None:
            raise TableError(str(error), str(answer.get("message", error)))
        return [event_from_dict(e) for e in answer.get("events", [])]

    async def _answer(self, body: dict[str, Any]) -> dict[str, Any]:
        """Answer a request of another process: a command for a table held here."""
        if body.get("op") != "command":
            return _refusal("bad_request", f"unknown request {body.get('op')!r}")
        table_id = str(body.get("table"))
        held = self._held.get(table_id)
        if held is None:
            return _refusal(ELSEWHERE, "this process does not hold the table")
        expires = body.get("expires")
        if _too_late(expires):
            return _refusal(ErrorCode.BUSY, TOO_LATE)
        try:
            command = command_from_dict(body.get("command"))
            async with held.lock:
                if self._held.get(table_id) is not held:
                    return _refusal(ELSEWHERE, "the table was given up")
                if _too_late(expires):
                    return _refusal(ErrorCode.BUSY, TOO_LATE)
                events = await self._apply(held, command)
        except TableError as exc:
            return _refusal(exc.code, exc.message)
        except (HubUnavailableError, StoreUnavailableError):
            return _refusal(ErrorCode.UNAVAILABLE, UNAVAILABLE)
        return {"events": [e.to_dict() for e in events]}

    async def _apply(self, held: Held, command: Command) -> list[Event]:
        """Apply, store, adopt, publish (the caller holds the table's lock)."""
        before = held.table
        now = self._clock()
        last_snapshot = held.snapshot_version

        def apply_and_store() -> tuple[Table, list[Event], bool]:
            # One trip to a command thread (see COMMAND_THREADS): the command
            # (a shot is a simulation), then the write of what it caused.
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
                loop = asyncio.get_running_loop()
                after, events, snapshot = await loop.run_in_executor(self._workers, apply_and_store)
            except StoreConflictError as exc:
                log.warning("table %s was written by another owner: %s", before.id, exc)
                await self._give_up(held)
                # Taken up again from the store unless another owner holds it:
                # the writer may have been this owner (a write that reached the
                # database but failed on its way back), and then nobody else
                # would fire the table's deadlines or move its CPU.
                self._spawn(self._take_up(before.id))
                raise TableError(ErrorCode.STALE, STALE) from None
            except StoreUnavailableError as exc:
                if self._cluster is not None:
                    # This process cannot write the table: another that reaches
                    # the database takes it over (its lease released here, not
                    # renewed for ever by a process whose every write fails).
                    # This one takes it up again once the database answers, if
                    # it still has a deadline or followers here (take_over).
                    log.warning("table %s given up: it cannot be written: %s", before.id, exc)
                    await self._give_up(held, hand_over=True)
                raise  # the player is told "unavailable"
            if not events:
                return []
            metrics.count(metrics.COMMANDS)
            if any(e.TYPE == "shot_played" for e in events):
                metrics.count(metrics.SHOTS)
            held.table = after
            if snapshot:
                held.snapshot_version = after.version
            self._after(held)
            if after.stage is Stage.CLOSED:
                await self._give_up(held)
            try:
                await self.hub.publish(after.id, after, events)
            except HubUnavailableError as exc:
                # An outage (or an owner that was paused past its socket
                # timeouts): one line; subscribers catch up from the store.
                log.warning("table %s: events not published: %s", after.id, exc)
            except Exception:
                # Subscribers that miss events catch up from the store by version.
                log.exception("publishing the events of table %s failed", after.id)
            hook = self.on_event_game
            ended = any(isinstance(e, GameFinished) for e in events)
            if after.event is not None and hook is not None and ended:
                # The owner alone reports an event's game, once it is stored.
                self._spawn(_report_event_game(hook, after, events))
        return list(events)

    def _store_create(self, table: Table, events: Sequence[Event]) -> None:
        self.store.create_table(
            table.id,
            kind=table.kind,
            code=table.code,
            events=[e.to_dict() for e in events],
            snapshot=table.to_dict(),
            members=members_of(table),
            deadline=table.next_deadline(),
            status=table.stage,
        )

    def _store_append(
        self, before: Table, after: Table, events: Sequence[Event], *, snapshot: bool
    ) -> None:
        members = members_of(after)
        self.store.append_table_events(
            after.id,
            before.version,
            [e.to_dict() for e in events],
            after.to_dict() if snapshot else None,
            members=members if members != members_of(before) else None,
            deadline=after.next_deadline(),
            status=after.stage,
            results=results_of(after, events, before=before),
            rating_changes=rated.rating_changes(self.store, before, after, events),
            no_shows=rated.no_shows(before, events),
        )


async def _report_event_game(hook: EventGameHook, table: Table, events: Sequence[Event]) -> None:
    try:
        await hook(table, events)
    except Exception:
        log.exception("the result of event table %s was not reported", table.id)


def _refusal(code: str, message: str) -> dict[str, Any]:
    """An owner's answer that refuses a forwarded command (``code``: the sender raises it)."""
    return {"error": str(code), "message": message}


def _too_late(expires: object) -> bool:
    """Whether a forwarded command's sender has given up on it (answered ``busy``)."""
    return isinstance(expires, int | float) and time.time() > expires
