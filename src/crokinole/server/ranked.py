"""The ranked queue: logged-in players wait, are paired, and sit down at a ranked table.

A connection logged in to an account sends ``queue`` with a ladder; the
service answers ``queued`` (when the wait began, the rating, the window of
ratings it accepts) and repeats it every :data:`REPEAT_S` seconds while the
window widens.  About once a second (:data:`PAIR_EVERY_S`, the server's
clock) :func:`crokinole.ranking.pair` pairs the waiting entries; each match
becomes a ranked table (:meth:`Tables.create_ranked`), and each of its
players' connections is sent ``matched`` with the table's id and their seat.

The queue is kept in the store as well as here, so it survives a restart.
An entry whose player has no connection (after a restart, or once their
last connection closed) is *away*: not matched, and dropped after
:data:`RETURN_WITHIN_S` seconds unless the player sends ``queue`` again, in
which case it goes on with its original ``since``.

Errors are :class:`~crokinole.server.wire.WireError` with the protocol's
codes: ``not_logged_in``, ``already_queued``, ``in_ranked_game``,
``bad_ladder``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import anyio
import anyio.to_thread

from crokinole.board import Seat
from crokinole.ranking import INITIAL, Entry, Ladder, Match, Rating, display, is_provisional, pair
from crokinole.rules import Layout
from crokinole.server import rated, wire
from crokinole.server.tables import Tables
from crokinole.store import AlreadyQueuedError, Store
from crokinole.table import RankedPlayer, SeatRating, Table, TableSettings

__all__ = ["PAIR_EVERY_S", "REPEAT_S", "RETURN_WITHIN_S", "QueueClient", "RankedQueue"]

log = logging.getLogger("crokinole.server")

#: Seconds between two pairings of the queue.
PAIR_EVERY_S = 1.0
#: ``queued`` is sent again every this many seconds while a player waits.
REPEAT_S = 5.0
#: An entry whose player has no connection is dropped after this many seconds.
RETURN_WITHIN_S = 60.0


class QueueClient(Protocol):
    """A connection as the queue sees it: its account, and a way to send it a message."""

    @property
    def account_id(self) -> int | None: ...

    def send(self, payload: dict[str, Any]) -> None: ...


@dataclass(eq=False)
class _Waiting:
    """One account waiting, with its connections (none: away since ``away_since``)."""

    account_id: int
    username: str
    ladder: Ladder
    since: float
    rating: int
    provisional: bool
    clients: list[QueueClient] = field(default_factory=list)
    away_since: float | None = None
    last_sent: float = 0.0
    #: Doubles as a team: the partner's account and username (matched once both name each other).
    partner_id: int | None = None
    partner_name: str | None = None


def _ladder(value: str) -> Ladder:
    try:
        return Ladder(value)
    except ValueError:
        raise wire.WireError(
            "bad_ladder", f"a ladder is singles or doubles, not {value!r}"
        ) from None


class RankedQueue:
    """The ranked queue of one server process.

    Args:
        store: where the queue and the ratings are kept.
        tables: the owner that creates the ranked tables.
        clock: server time in seconds (the tables' clock by default).
        rounds: rounds of a ranked game (4; fewer only for the test option).
    """

    def __init__(
        self,
        store: Store,
        tables: Tables,
        *,
        clock: Callable[[], float] | None = None,
        rounds: int | None = None,
    ) -> None:
        self._store = store
        self._tables = tables
        self._clock = clock or tables.now
        self._rounds = rounds
        self._waiting: dict[int, _Waiting] = {}
        self._lock = asyncio.Lock()
        self._task: asyncio.Task[None] | None = None

    # ------------------------------------------------------------ life cycle

    async def startup(self) -> None:
        """Take up the stored queue (every entry away until its player is back), start pairing."""
        stored = await anyio.to_thread.run_sync(self._store.queue_entries)
        now = self._clock()
        for entry in stored:
            try:
                ladder = Ladder(entry.ladder)
            except ValueError:
                continue
            rating, provisional = await self._rating(entry.account_id, ladder)
            self._waiting[entry.account_id] = _Waiting(
                entry.account_id, entry.username, ladder, entry.joined_at, rating, provisional,
                away_since=now,
            )  # fmt: skip
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._pair_forever())

    async def close(self) -> None:
        """Stop pairing (the stored queue stays for the next start)."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(BaseException):
                await task

    async def _pair_forever(self) -> None:
        while True:
            await asyncio.sleep(PAIR_EVERY_S)
            try:
                await self.pair_now()
            except Exception:
                log.exception("pairing the ranked queue failed")

    # ------------------------------------------------------------ messages

    async def queue(
        self, client: QueueClient, ladder_name: str, partner: str | None = None
    ) -> None:
        """``queue``: wait for a ranked game on a ladder (or go on waiting, after a reconnection).

        ``partner`` (doubles only) names the player to queue with as a team:
        the two are matched together once each has named the other.

        Raises:
            WireError: ``not_logged_in``, ``bad_ladder``, ``bad_partner``,
                ``in_ranked_game``, ``already_queued`` (this connection waits
                already, or the account waits on the other ladder).
        """
        account = client.account_id
        if account is None:
            raise wire.WireError("not_logged_in", "log in to play ranked")
        ladder = _ladder(ladder_name)
        partner_account = await self._partner(account, ladder, partner)
        async with self._lock:
            waiting = self._waiting.get(account)
            if waiting is not None:
                if client in waiting.clients or waiting.ladder is not ladder:
                    raise wire.WireError(
                        "already_queued",
                        f"you are in the {waiting.ladder.value} queue already",
                    )
                waiting.clients.append(client)  # back, or another tab: the wait goes on
                waiting.away_since = None
                if partner_account is not None:  # named again (the server may have restarted)
                    waiting.partner_id, waiting.partner_name = partner_account
                self._send_queued(waiting, only=client)
                self._tell_partner(waiting)
                return
            if await self._in_ranked_game(account):
                raise wire.WireError("in_ranked_game", "finish your ranked game first")
            now = self._clock()
            try:
                entry = await anyio.to_thread.run_sync(
                    self._store.queue_add, account, ladder.value, now
                )
            except AlreadyQueuedError:  # another process queued it: rare, and refused
                raise wire.WireError("already_queued", "you are in the queue already") from None
            rating, provisional = await self._rating(account, ladder)
            waiting = _Waiting(
                account, entry.username, ladder, entry.joined_at, rating, provisional, [client]
            )
            if partner_account is not None:
                waiting.partner_id, waiting.partner_name = partner_account
            self._waiting[account] = waiting
            self._send_queued(waiting)
            self._tell_partner(waiting)

    async def _partner(
        self, account: int, ladder: Ladder, partner: str | None
    ) -> tuple[int, str] | None:
        """The named partner's account and username, checked; None when none is named."""
        if partner is None or not partner.strip():
            return None
        if ladder is not Ladder.DOUBLES:
            raise wire.WireError("bad_partner", "name your partner only for doubles")
        name = partner.strip()
        found = await anyio.to_thread.run_sync(self._store.account_by_key, name.lower())
        if found is None:
            raise wire.WireError("bad_partner", f"no player is called {name}")
        if found.id == account:
            raise wire.WireError("bad_partner", "you cannot be your own partner")
        return found.id, found.username

    def _team_of(self, waiting: _Waiting) -> _Waiting | None:
        """The partner's entry if the two named each other on the same ladder, else None."""
        if waiting.partner_id is None:
            return None
        other = self._waiting.get(waiting.partner_id)
        if (
            other is None
            or other.partner_id != waiting.account_id
            or other.ladder is not waiting.ladder
        ):
            return None
        return other

    def _tell_partner(self, waiting: _Waiting) -> None:
        """The partner's page learns at once that this player queued naming them."""
        other = self._team_of(waiting)
        if other is not None and other.clients:
            self._send_queued(other)

    async def leave(self, client: QueueClient) -> None:
        """``leave_queue``: stop waiting (every connection of the account is told)."""
        account = client.account_id
        async with self._lock:
            waiting = self._waiting.pop(account, None) if account is not None else None
            if waiting is not None:
                await anyio.to_thread.run_sync(self._store.queue_remove, [waiting.account_id])
        told = waiting.clients if waiting is not None else [client]
        if client not in told:
            told = [*told, client]
        for one in told:
            one.send(wire.message("queue_left", None, 0, reason="left"))

    def disconnected(self, client: QueueClient) -> None:
        """A connection closed: its account's entry is away once no connection of it is left."""
        account = client.account_id
        waiting = self._waiting.get(account) if account is not None else None
        if waiting is None or client not in waiting.clients:
            return
        waiting.clients.remove(client)
        if not waiting.clients:
            waiting.away_since = self._clock()

    def waiting(self) -> dict[int, str]:
        """Who waits now: account → ladder (for tests and the health of the queue)."""
        return {a: w.ladder.value for a, w in self._waiting.items()}

    # ------------------------------------------------------------ pairing

    async def pair_now(self) -> list[Table]:
        """Drop the entries away too long, pair the others, seat each match; the tables made."""
        made: list[Table] = []
        async with self._lock:
            now = self._clock()
            gone = [
                w
                for w in self._waiting.values()
                if w.away_since is not None and now - w.away_since >= RETURN_WITHIN_S
            ]
            if gone:
                accounts = [w.account_id for w in gone]
                await anyio.to_thread.run_sync(self._store.queue_remove, accounts)
                for w in gone:
                    del self._waiting[w.account_id]
            here = [w for w in self._waiting.values() if w.clients]
            entries: list[Entry] = []
            teamed: set[int] = set()
            for w in here:
                if w.account_id in teamed:
                    continue
                if w.partner_id is None:
                    entries.append(Entry((str(w.account_id),), w.ladder, w.rating, w.since))
                    continue
                other = self._team_of(w)
                if other is None or not other.clients:
                    continue  # waits for the partner to queue naming this player
                teamed |= {w.account_id, other.account_id}
                # A team waits from when both are in, at its players' mean rating.
                entries.append(
                    Entry(
                        (str(w.account_id), str(other.account_id)),
                        w.ladder,
                        round((w.rating + other.rating) / 2),
                        max(w.since, other.since),
                    )
                )
            for match in pair(entries, now):
                table = await self._seat(match)
                if table is not None:
                    made.append(table)
            for w in self._waiting.values():
                if w.clients and now - w.last_sent >= REPEAT_S:
                    self._send_queued(w)
        return made

    async def _seat(self, match: Match) -> Table | None:
        """Make the match's ranked table and tell its players; None if it could not be made."""
        sides = (match.side_a, match.side_b)
        players = [self._waiting[int(p)] for side in sides for p in side]
        layout = Layout.SINGLES if match.ladder is Ladder.SINGLES else Layout.DOUBLES
        settings = TableSettings.ranked(layout, self._rounds)
        seats: dict[Seat, RankedPlayer] = {}
        seat_of: dict[int, Seat] = {}
        for side, accounts in enumerate(sides):
            for seat, account in zip(layout.sides[side], accounts, strict=True):
                w = self._waiting[int(account)]
                seats[seat] = RankedPlayer(
                    rated.identity(w.account_id), w.username, SeatRating(w.rating, w.provisional)
                )
                seat_of[w.account_id] = seat
        try:
            table = await self._tables.create_ranked(settings=settings, players=seats)
        except Exception:
            log.exception("a ranked table for %s could not be made", match)
            return None
        await anyio.to_thread.run_sync(self._store.queue_remove, [w.account_id for w in players])
        listed = [
            {
                "seat": wire.seat_name(seat_of[w.account_id]),
                "username": w.username,
                "rating": w.rating,
                "provisional": w.provisional,
            }
            for w in sorted(players, key=lambda w: list(Seat).index(seat_of[w.account_id]))
        ]
        for w in players:
            del self._waiting[w.account_id]
            for client in w.clients:
                client.send(
                    wire.message(
                        "matched",
                        table.id,
                        0,
                        ladder=match.ladder.value,
                        seat=wire.seat_name(seat_of[w.account_id]),
                        players=listed,
                    )
                )
        return table

    # ------------------------------------------------------------ inside

    def _send_queued(self, waiting: _Waiting, only: QueueClient | None = None) -> None:
        now = self._clock()
        waiting.last_sent = now
        entry = Entry((str(waiting.account_id),), waiting.ladder, waiting.rating, waiting.since)
        payload = wire.message(
            "queued",
            None,
            0,
            ladder=waiting.ladder.value,
            since=waiting.since,
            server_time=now,
            rating=waiting.rating,
            provisional=waiting.provisional,
            window=entry.window(max(now, waiting.since)),
            partner=waiting.partner_name,
            partner_ready=self._team_of(waiting) is not None,
        )
        for client in [only] if only is not None else waiting.clients:
            client.send(payload)

    async def _rating(self, account: int, ladder: Ladder) -> tuple[int, bool]:
        found = await anyio.to_thread.run_sync(self._store.ratings_of, [account], ladder.value)
        if account not in found:
            return display(INITIAL), True
        data = found[account]
        return display(Rating(data.mu, data.sigma)), is_provisional(data.games)

    async def _in_ranked_game(self, account: int) -> bool:
        store = self._store

        def playing() -> bool:
            for table_id in store.open_tables_of_device(rated.identity(account)):
                data = store.table(table_id)
                if data is not None and data.kind == "ranked" and data.status == "playing":
                    return True
            return False

        return await anyio.to_thread.run_sync(playing)
