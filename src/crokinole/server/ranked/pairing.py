"""The leader's pairing of the ranked queue: who can be paired, the matches, their tables.

One process pairs: the one whose ``hub.lead("ranked")`` is true at the tick.
It reads the whole queue from the store and pairs only the entries whose
player has a connection open somewhere (here, or said by another process
within :data:`~crokinole.server.ranked.waiting.PRESENT_WITHIN_S`); an entry
away for :data:`~crokinole.server.ranked.waiting.RETURN_WITHIN_S` is dropped.
It takes the matched entries out of the store one by one before making the
table (a second leader, for a moment, finds them gone and makes nothing),
makes the table, and broadcasts the match (``ranked.matched``).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

import anyio
import anyio.to_thread

from crokinole.board import Seat
from crokinole.ranking import Entry, Ladder, Match, pair
from crokinole.rules import Layout
from crokinole.server.cluster.hub import HubUnavailableError
from crokinole.server.ranked import rated
from crokinole.server.ranked.waiting import (
    LEAD,
    MATCHED,
    RETURN_WITHIN_S,
    QueueBase,
    Told,
    matched_payload,
)
from crokinole.store import AlreadyQueuedError, QueueEntryData, StoreUnavailableError
from crokinole.table import RankedPlayer, SeatRating, Table, TableSettings

log = logging.getLogger("crokinole.server")


@dataclass
class Candidate:
    """A stored entry the leader may pair: its player has a connection open somewhere."""

    account_id: int
    username: str
    ladder: Ladder
    since: float
    partner_id: int | None
    rating: int = 0
    provisional: bool = True


class Pairing(QueueBase):
    """The part of :class:`~crokinole.server.ranked.queue.RankedQueue` that pairs (as leader)."""

    async def _leading(self, now: float) -> bool:
        """Whether this process leads the pairing now (claimed or renewed at each tick)."""
        try:
            leading = await self._hub.lead(LEAD)
        except HubUnavailableError as exc:
            self._unavailable(f"the ranked queue cannot pair for now: {exc}")
            leading = False
        if not leading:
            self._leading_since = None
        elif self._leading_since is None:
            self._leading_since = now
        return leading

    async def _pair(self, stored: Sequence[QueueEntryData], now: float) -> list[Table]:
        """The leader's work: drop the entries away too long, pair the others, seat the matches."""
        candidates, gone = self._candidates(stored, now)
        if gone:
            await anyio.to_thread.run_sync(self._store.queue_remove, gone)
            for account in gone:
                self._waiting.pop(account, None)
                self._last_seen.pop(account, None)
        for ladder in Ladder:
            accounts = [c.account_id for c in candidates.values() if c.ladder is ladder]
            if accounts:
                ratings = await anyio.to_thread.run_sync(
                    rated.shown_ratings, self._store, accounts, ladder
                )
                for account in accounts:
                    candidates[account].rating, candidates[account].provisional = ratings[account]
        made: list[Table] = []
        for match in pair(_entries(candidates), now):
            table = await self._seat(match, candidates)
            if table is not None:
                made.append(table)
        return made

    def _candidates(
        self, stored: Sequence[QueueEntryData], now: float
    ) -> tuple[dict[int, Candidate], list[int]]:
        """The stored entries whose player is here or elsewhere (to pair), and the
        accounts away for :data:`RETURN_WITHIN_S` (to drop)."""
        here_since = self._leading_since if self._leading_since is not None else now
        candidates: dict[int, Candidate] = {}
        gone: list[int] = []
        for entry in stored:
            try:
                ladder = Ladder(entry.ladder)
            except ValueError:
                continue
            account = entry.account_id
            local = self._waiting.get(account)
            told = [h.accounts[account] for h in self._heard.values() if account in h.accounts]
            if (local is not None and local.clients) or any(t.here for t in told):
                partner = _partner_of(local.partner_id if local is not None else None, told)
                candidates[account] = Candidate(
                    account, entry.username, ladder, min(entry.joined_at, now), partner
                )
                continue
            seen = [self._last_seen.get(account)]
            if local is not None:
                seen.append(local.away_since)
            else:  # known only from the store: away from when this process began to lead
                seen.append(here_since)
            away_since = max((t for t in seen if t is not None), default=here_since)
            if now - away_since >= RETURN_WITHIN_S:
                gone.append(account)
        return candidates, gone

    async def _seat(self, match: Match, candidates: dict[int, Candidate]) -> Table | None:
        """Take the match's entries, make its ranked table and tell its players; None if it
        could not be made (the entries taken are put back)."""
        sides = (match.side_a, match.side_b)
        players = [candidates[int(p)] for side in sides for p in side]
        layout = Layout.DOUBLES if match.ladder is Ladder.DOUBLES else Layout.SINGLES
        settings = TableSettings.ranked(layout, self._rounds)
        seats: dict[Seat, RankedPlayer] = {}
        for side, accounts in enumerate(sides):
            for seat, account in zip(layout.sides[side], accounts, strict=True):
                c = candidates[int(account)]
                seats[seat] = RankedPlayer(
                    rated.identity(c.account_id, bot=match.ladder is Ladder.BOTS),
                    c.username,
                    SeatRating(c.rating, c.provisional),
                )
        with anyio.CancelScope(shield=True):
            taken = await anyio.to_thread.run_sync(self._take, [c.account_id for c in players])
            if len(taken) < len(players):  # another leader, for a moment, took some
                await self._put_back([c for c in players if c.account_id in taken])
                log.info("not all the entries of %s were there: none taken", match)
                return None
            try:
                table = await self._tables.create_ranked(settings=settings, players=seats)
            except (HubUnavailableError, StoreUnavailableError) as exc:
                self._unavailable(f"a ranked table could not be made: {exc}")
                await self._put_back(players)
                return None
            except Exception:
                log.exception("a ranked table for %s could not be made", match)
                await self._put_back(players)
                return None
        payload = matched_payload(table)
        try:
            await self._hub.broadcast(MATCHED, payload)
        except HubUnavailableError as exc:  # the others find the entries gone, and the table
            log.warning("could not tell the other processes of a match: %s", exc)
            self._on_matched(payload)
        return table

    def _take(self, accounts: list[int]) -> set[int]:
        """Take the accounts' entries out of the store, one by one; those that were there
        (fewer when the store failed on the way; in a thread)."""
        taken: set[int] = set()
        try:
            for account in accounts:
                if self._store.queue_remove([account]):
                    taken.add(account)
        except Exception as exc:  # the caller puts back what was taken
            log.warning("could not take the entries of a match from the queue: %s", exc)
        return taken

    async def _put_back(self, players: Sequence[Candidate]) -> None:
        def put_back() -> None:
            for c in players:
                try:
                    self._store.queue_add(c.account_id, c.ladder.value, c.since)
                except AlreadyQueuedError:
                    pass  # queued again meanwhile
                except Exception:
                    log.exception("could not put account %s back in the queue", c.account_id)

        await anyio.to_thread.run_sync(put_back)


def _partner_of(local: int | None, told: Sequence[Told]) -> int | None:
    """The partner named here, or else the first one another process said was named."""
    if local is not None:
        return local
    return next((t.partner_id for t in told if t.partner_id is not None), None)


def _entries(candidates: dict[int, Candidate]) -> list[Entry]:
    """The entries to pair: each player alone, or a team once both partners named each other."""
    entries: list[Entry] = []
    teamed: set[int] = set()
    for c in candidates.values():
        if c.account_id in teamed:
            continue
        if c.partner_id is None:
            entries.append(Entry((str(c.account_id),), c.ladder, c.rating, c.since))
            continue
        other = candidates.get(c.partner_id)
        if other is None or other.partner_id != c.account_id or other.ladder is not c.ladder:
            continue  # waits for the partner to queue naming this player (and be here)
        teamed |= {c.account_id, other.account_id}
        # A team waits from when both are in, at its players' mean rating.
        entries.append(
            Entry(
                (str(c.account_id), str(other.account_id)),
                c.ladder,
                round((c.rating + other.rating) / 2),
                max(c.since, other.since),
            )
        )
    return entries
