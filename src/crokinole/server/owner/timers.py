"""The tables' deadlines: one timer per held table, each deadline fired exactly once.

A table has one timer, armed at ``table.next_deadline()`` (turn clock,
stand-in, round countdown) and fired as a ``Tick`` command, which the table
turns into events at most once per deadline.  A timer that wakes before the
server's clock reaches the deadline waits for what is left; a deadline that
could not fire because the store or the hub is down is tried again every
:data:`~crokinole.server.owner.base.RETRY_S` (one warning per outage).  A
table loaded from the store has its timer re-armed at once
(:mod:`~crokinole.server.owner.loading`).
"""

from __future__ import annotations

import asyncio
import logging

from crokinole.errors import ErrorCode
from crokinole.server.cluster.hub import HubUnavailableError
from crokinole.server.owner.base import RETRY_S, Held, OwnerBase
from crokinole.store import StoreUnavailableError
from crokinole.table import Deadline, TableError, Tick

log = logging.getLogger("crokinole.server")


class Timers(OwnerBase):
    """The part of :class:`~crokinole.server.owner.tables.Tables` that fires deadlines."""

    def _arm(self, held: Held, *, delay: float | None = None) -> None:
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

    def _fire(self, held: Held, deadline: Deadline) -> None:
        held.timer = None
        if self._holds(held):
            self._spawn(self._tick(held, deadline))

    async def _tick(self, held: Held, deadline: Deadline) -> None:
        """Fire the table's due deadlines (``Tick``); a deadline not yet due is re-armed."""
        table_id = held.table.id
        fired_at = self._clock()
        try:
            events = await self.command(table_id, Tick())
        except (StoreUnavailableError, HubUnavailableError) as exc:
            self._deadline_waits(held, str(exc))
            return
        except TableError as exc:
            if exc.code == ErrorCode.UNAVAILABLE:
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

    def _deadline_waits(self, held: Held, reason: str) -> None:
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

    def _stop_timer(self, held: Held) -> None:
        if held.timer is not None:
            held.timer.cancel()
            held.timer = None
        held.armed = None
