"""The other processes' word on the ranked queue: who waits where, partners, leaves.

Every tick each process broadcasts which queued accounts it has (topic
``ranked.present``: its origin, and for each account its ladder, its named
partner and whether a connection of it is open here); what the others said
holds :data:`~crokinole.server.ranked.waiting.PRESENT_WITHIN_S` seconds.  A
player's named partner is ready once the partner (here or in another
process) named them too.  ``ranked.left`` tells the other processes that an
account left the queue.
"""

from __future__ import annotations

import logging
from typing import Any

import anyio
import anyio.to_thread

from crokinole.server.cluster.hub import HubUnavailableError
from crokinole.server.ranked.waiting import (
    PRESENT,
    PRESENT_WITHIN_S,
    RETURN_WITHIN_S,
    Heard,
    QueueBase,
    Told,
    Waiting,
    queue_left,
)
from crokinole.store import QueueEntryData

log = logging.getLogger("crokinole.server")


class Presence(QueueBase):
    """The part of :class:`~crokinole.server.ranked.queue.RankedQueue` that hears the others."""

    def _partner_ready(self, waiting: Waiting) -> bool:
        """Whether the named partner (here or in another process) named this player too."""
        if waiting.partner_id is None:
            return False
        other = self._waiting.get(waiting.partner_id)
        if other is not None:
            return other.partner_id == waiting.account_id and other.ladder is waiting.ladder
        told = self._told(waiting.partner_id)
        return (
            told is not None
            and told.partner_id == waiting.account_id
            and told.ladder == waiting.ladder.value
        )

    def _tell_partner(self, waiting: Waiting) -> None:
        """The partner's page here learns at once that this player queued naming them
        (another process's learns from the presence broadcast)."""
        other = self._waiting.get(waiting.partner_id) if waiting.partner_id is not None else None
        if other is not None and other.clients and self._partner_ready(waiting):
            self._send_queued(other)

    def _on_present(self, payload: dict[str, Any]) -> None:
        """``ranked.present`` from another process: its queued accounts, here or away."""
        origin = str(payload["origin"])
        if origin == self._hub.origin:
            return
        ready = {
            w.account_id: self._partner_ready(w)
            for w in self._waiting.values()
            if w.partner_id is not None
        }
        now = self._clock()
        accounts = {
            int(one["account"]): Told(
                str(one["ladder"]),
                None if one.get("partner") is None else int(one["partner"]),
                None if one.get("partner_name") is None else str(one["partner_name"]),
                bool(one.get("here")),
            )
            for one in payload["accounts"]
        }
        self._heard[origin] = Heard(now, accounts)
        for account, told in accounts.items():
            if told.here:
                self._last_seen[account] = now
        for account, was in ready.items():
            waiting = self._waiting.get(account)
            if waiting is not None and waiting.clients and self._partner_ready(waiting) != was:
                self._send_queued(waiting)  # the partner's page learns at once

    def _on_left(self, payload: dict[str, Any]) -> None:
        """``ranked.left`` from another process: the account left the queue there."""
        if payload.get("origin") != self._hub.origin:
            account = int(payload["account"])
            if account in self._waiting:
                self._spawn(self._left_elsewhere(account))

    async def _left_elsewhere(self, account: int) -> None:
        """Tell our connections of the account that it left, unless it queued again since."""
        try:
            async with self._lock:
                waiting = self._waiting.get(account)
                if waiting is None:
                    return
                stored = await anyio.to_thread.run_sync(self._entry_of, account)
                if stored is not None and stored.ladder == waiting.ladder.value:
                    return  # queued again meanwhile (from another tab)
                if self._waiting.get(account) is waiting:
                    del self._waiting[account]
                    for client in waiting.clients:
                        client.send(queue_left())
        except Exception as exc:  # the next ticks find the entry gone from the store
            log.warning("could not check a left queue entry: %s", exc)

    def _told(self, account: int) -> Told | None:
        """The latest word of another process on the account (within :data:`PRESENT_WITHIN_S`)."""
        latest: tuple[float, Told] | None = None
        horizon = self._clock() - PRESENT_WITHIN_S
        for heard in self._heard.values():
            told = heard.accounts.get(account)
            if (
                told is not None
                and heard.at >= horizon
                and (latest is None or heard.at > latest[0])
            ):
                latest = (heard.at, told)
        return latest[1] if latest is not None else None

    async def _announce(self) -> None:
        """Broadcast this process's queued accounts (skipped while there are none to tell)."""
        accounts = [
            {
                "account": w.account_id,
                "ladder": w.ladder.value,
                "partner": w.partner_id,
                "partner_name": w.partner_name,
                "here": bool(w.clients),
            }
            for w in self._waiting.values()
        ]
        if not accounts and not self._said_any:
            return
        payload = {"origin": self._hub.origin, "at": self._clock(), "accounts": accounts}
        try:
            await self._hub.broadcast(PRESENT, payload)
        except HubUnavailableError as exc:
            self._unavailable(f"the ranked queue could not tell the other processes: {exc}")
            return
        self._said_any = bool(accounts)

    def _forget_stale(self, now: float) -> None:
        self._heard = {
            origin: heard
            for origin, heard in self._heard.items()
            if now - heard.at < PRESENT_WITHIN_S
        }
        self._last_seen = {
            account: at for account, at in self._last_seen.items() if now - at < 2 * RETURN_WITHIN_S
        }

    def _entry_of(self, account: int) -> QueueEntryData | None:
        """The account's stored entry, or None (in a thread)."""
        return next((e for e in self._store.queue_entries() if e.account_id == account), None)
