"""The ranked queue: logged-in players wait, are paired, and sit down at a ranked table.

A connection logged in to an account sends ``queue`` with a ladder; the
service answers ``queued`` (when the wait began, the rating, the window of
ratings it accepts) and repeats it every :data:`REPEAT_S` seconds while the
window widens.  About once a second (:data:`PAIR_EVERY_S`, the server's
clock) :func:`crokinole.ranking.pair` pairs the waiting entries; each match
becomes a ranked table (:meth:`Tables.create_ranked`), and each of its
players' connections is sent ``matched`` with the table's id and their seat.

:class:`RankedQueue` is what callers use; this module has the messages
(``queue``, ``leave_queue``) and the tick, and the queue's other jobs have a
module each: who waits here and what they are sent
(:mod:`~crokinole.server.ranked.waiting`), the other processes' word
(:mod:`~crokinole.server.ranked.presence`), the leader's pairing
(:mod:`~crokinole.server.ranked.pairing`); the ratings shown and those a
ranked game's end moves are :mod:`~crokinole.server.ranked.rated`'s.

**Several processes.**  The queue itself is kept in the store (so it also
survives a restart); each process keeps only its own connections' entries.
The processes talk through the hub (:class:`crokinole.server.cluster.hub.Hub`);
with one process and its :class:`~crokinole.server.cluster.hub.MemoryHub` all of
this happens in that process:

- Every :data:`PAIR_EVERY_S` each process broadcasts which queued accounts
  it has (topic ``ranked.present``: its origin, and for each account its
  ladder, its named partner and whether a connection of it is open here).
- One process pairs: the one whose ``hub.lead("ranked")`` is true at the
  tick.  It reads the whole queue from the store and pairs only the entries
  whose player has a connection open somewhere (here, or said by another
  process within :data:`PRESENT_WITHIN_S`).  It takes the matched entries
  out of the store one by one before making the table (a second leader, for
  a moment, finds them gone and makes nothing), makes the table, and
  broadcasts the match (``ranked.matched``: the table, each account's
  seat, the players); every process sends ``matched`` to its connections of
  those accounts.
- ``leave_queue`` takes the entry out of the store from any process and
  broadcasts ``ranked.left``; every process tells its connections of the
  account ``queue_left`` (unless the store shows it queued again meanwhile).
- A broadcast may be lost.  Each tick, a process whose entry is no longer
  in the store looks for the account's ranked game in the store: found, its
  connections are sent ``matched``; not found for :data:`MISSING_FOR_S`
  seconds, ``queue_left`` (the entry was left from elsewhere).

An entry whose player has no connection anywhere (after a restart, or once
the player's last connection closed) is *away*: not matched, and dropped
after :data:`RETURN_WITHIN_S` seconds unless the player sends ``queue``
again (on any process), in which case it goes on with its original
``since``.  A process that has just become the leader counts an entry it
knows nothing of as away from then on.

A hub or store that cannot be reached stops nobody's tick for good: it is
logged, and the next tick tries again.

Errors are :class:`~crokinole.server.protocol.WireError` with the protocol's
codes: ``not_logged_in``, ``already_queued``, ``in_ranked_game``,
``bad_ladder``, ``bad_partner``, ``no_shows`` (the account did not take its
first shot in :data:`~crokinole.server.ranked.fair_play.NO_SHOW_LIMIT` ranked games
lately, and waits :data:`~crokinole.server.ranked.fair_play.NO_SHOW_BAR` after the
last: :func:`~crokinole.server.ranked.fair_play.queue_barred_until`).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import logging
from collections.abc import Callable, Sequence
from typing import Any

import anyio
import anyio.to_thread

from crokinole.errors import ErrorCode
from crokinole.ranking import Ladder
from crokinole.server import protocol
from crokinole.server.cluster.hub import HubUnavailableError
from crokinole.server.owner.tables import Tables, stored_table
from crokinole.server.ranked import fair_play, rated
from crokinole.server.ranked.pairing import Pairing
from crokinole.server.ranked.presence import Presence
from crokinole.server.ranked.waiting import (
    LEFT,
    MATCHED,
    PRESENT,
    PRESENT_WITHIN_S,
    RETURN_WITHIN_S,
    QueueClient,
    Waiting,
    matched_payload,
    queue_left,
)
from crokinole.store import AlreadyQueuedError, QueueEntryData, Store, StoreUnavailableError
from crokinole.table import Table

__all__ = [
    "MISSING_FOR_S",
    "PAIR_EVERY_S",
    "PRESENT_WITHIN_S",
    "REPEAT_S",
    "RETURN_WITHIN_S",
    "QueueClient",
    "RankedQueue",
]

log = logging.getLogger("crokinole.server")

#: Seconds between two pairings of the queue.
PAIR_EVERY_S = 1.0
#: ``queued`` is sent again every this many seconds while a player waits.
REPEAT_S = 5.0
#: An entry gone from the store, with no ranked game for it, is given up after
#: this many seconds (the match may be on its way).
MISSING_FOR_S = 3.0


def _ladder(value: str) -> Ladder:
    try:
        return Ladder(value)
    except ValueError:
        raise protocol.WireError(
            ErrorCode.BAD_LADDER, f"a ladder is singles, doubles or bots, not {value!r}"
        ) from None


class RankedQueue(Presence, Pairing):
    """The ranked queue, as one server process runs it (see the module).

    Args:
        store: where the queue and the ratings are kept.
        tables: the owner that creates the ranked tables; its hub
            (:attr:`Tables.hub`) carries the queue's word between processes.
        clock: server time in seconds (the tables' clock by default).
        rounds: rounds of a ranked game (4; fewer only for the test option).

    Two players queue for singles; the next tick seats them (one process
    on its memory hub: it leads):

    >>> import shutil, tempfile
    >>> from datetime import datetime
    >>> folder = tempfile.mkdtemp()
    >>> store = Store.open(f"{folder}/doc.db")
    >>> ids = [store.create_account(n, n, "$x", datetime(2026, 1, 1)).id for n in ("ann", "bob")]
    >>> class Tab:
    ...     def __init__(self, account_id): self.account_id, self.sent = account_id, []
    ...     def send(self, payload): self.sent.append(payload["type"])
    >>> async def play() -> list[list[str]]:
    ...     tables = Tables(store)
    ...     queue = RankedQueue(store, tables)
    ...     tabs = [Tab(account) for account in ids]
    ...     for tab in tabs:
    ...         await queue.queue(tab, "singles")
    ...     made = await queue.pair_now()
    ...     await tables.close()
    ...     return [tab.sent for tab in tabs] + [[made[0].kind.value]]
    >>> anyio.run(play)
    [['queued', 'matched'], ['queued', 'matched'], ['ranked']]
    >>> store.close(); shutil.rmtree(folder)
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
        self._hub = tables.hub
        self._clock = clock or tables.now
        self._rounds = rounds
        self._waiting = {}
        self._lock = asyncio.Lock()
        self._task: asyncio.Task[None] | None = None
        self._tasks = set()
        self._listening = False
        self._heard = {}
        self._last_seen = {}
        self._leading_since = None
        self._said_any = False
        self._trouble = None
        self._troubled = False

    # ------------------------------------------------------------ life cycle

    async def startup(self) -> None:
        """Listen to the other processes, start pairing.

        The stored queue stays in the store: each entry is away until its
        player sends ``queue`` again (to any process).
        """
        self._listen()
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._pair_forever())

    async def close(self) -> None:
        """Stop pairing (the stored queue stays for the next start, or another process)."""
        task, self._task = self._task, None
        tasks = [t for t in (task, *self._tasks) if t is not None]
        for one in tasks:
            one.cancel()
        for one in tasks:
            with contextlib.suppress(BaseException):
                await one

    async def _pair_forever(self) -> None:
        while True:
            await asyncio.sleep(PAIR_EVERY_S)
            self._troubled = False
            try:
                await self.pair_now()
            except (HubUnavailableError, StoreUnavailableError) as exc:
                self._unavailable(f"the ranked queue waits for the service: {exc}")
            except Exception:
                log.exception("pairing the ranked queue failed")
                continue
            if not self._troubled:
                self._available()

    def _listen(self) -> None:
        if self._listening:
            return
        self._listening = True
        self._hub.listen(PRESENT, self._on_present)
        self._hub.listen(MATCHED, self._on_matched)
        self._hub.listen(LEFT, self._on_left)

    # ------------------------------------------------------------ messages

    async def queue(
        self, client: QueueClient, ladder_name: str, partner: str | None = None
    ) -> None:
        """``queue``: wait for a ranked game on a ladder (or go on waiting, after a reconnection).

        ``partner`` (doubles only) names the player to queue with as a team:
        the two are matched together once each has named the other.  An
        account that waits already (another tab, another process, or before
        a restart) goes on waiting with its original ``since``.

        Raises:
            WireError: ``not_logged_in``, ``bad_ladder``, ``bad_partner``,
                ``in_ranked_game``, ``already_queued`` (this connection waits
                already, or the account waits on the other ladder).
            StoreUnavailableError: the store could not be reached (nothing changed).
        """
        account = client.account_id
        if account is None:
            raise protocol.WireError(ErrorCode.NOT_LOGGED_IN, "log in to play ranked")
        ladder = _ladder(ladder_name)
        partner_account = await self._partner(account, ladder, partner)
        self._listen()
        async with self._lock:
            waiting = self._waiting.get(account)
            if waiting is not None and not waiting.clients:
                # Away here: the leader may have dropped it meanwhile.
                stored = await anyio.to_thread.run_sync(self._entry_of, account)
                if stored is None or stored.ladder != waiting.ladder.value:
                    del self._waiting[account]
                    waiting = None
                else:
                    waiting.since = stored.joined_at
            if waiting is not None:
                if client in waiting.clients or waiting.ladder is not ladder:
                    raise protocol.WireError(
                        ErrorCode.ALREADY_QUEUED,
                        f"you are in the {waiting.ladder.value} queue already",
                    )
                waiting.clients.append(client)  # back, or another tab: the wait goes on
                waiting.away_since = None
                if partner_account is not None:  # named again (the server may have restarted)
                    waiting.partner_id, waiting.partner_name = partner_account
                self._send_queued(waiting, only=client)
                self._tell_partner(waiting)
                await self._announce()
                return
            if await self._in_ranked_game(account):
                raise protocol.WireError(ErrorCode.IN_RANKED_GAME, "finish your ranked game first")
            await self._not_barred(account)
            entry = await anyio.to_thread.run_sync(self._enter, account, ladder, self._clock())
            rating, provisional = await self._rating(account, ladder)
            waiting = Waiting(
                account, entry.username, ladder, entry.joined_at, rating, provisional, [client]
            )
            if partner_account is not None:
                waiting.partner_id, waiting.partner_name = partner_account
            else:  # an entry of another process's connection: its partner goes on
                told = self._told(account)
                if told is not None and told.ladder == ladder.value:
                    waiting.partner_id, waiting.partner_name = told.partner_id, told.partner_name
            self._waiting[account] = waiting
            self._send_queued(waiting)
            self._tell_partner(waiting)
            await self._announce()

    def _enter(self, account: int, ladder: Ladder, now: float) -> QueueEntryData:
        """The account's new entry, or the one it has on this ladder already (in a thread)."""
        for _ in range(2):
            try:
                return self._store.queue_add(account, ladder.value, now)
            except AlreadyQueuedError:
                found = self._entry_of(account)
                if found is None:
                    continue  # left meanwhile: add it again
                if found.ladder != ladder.value:
                    raise protocol.WireError(
                        ErrorCode.ALREADY_QUEUED, f"you are in the {found.ladder} queue already"
                    ) from None
                return found
        raise protocol.WireError(ErrorCode.ALREADY_QUEUED, "you are in the queue already")

    async def _partner(
        self, account: int, ladder: Ladder, partner: str | None
    ) -> tuple[int, str] | None:
        """The named partner's account and username, checked; None when none is named."""
        if partner is None or not partner.strip():
            return None
        if ladder is not Ladder.DOUBLES:
            raise protocol.WireError(ErrorCode.BAD_PARTNER, "name your partner only for doubles")
        name = partner.strip()
        found = await anyio.to_thread.run_sync(self._store.account_by_key, name.lower())
        if found is None:
            raise protocol.WireError(ErrorCode.BAD_PARTNER, f"no player is called {name}")
        if found.id == account:
            raise protocol.WireError(ErrorCode.BAD_PARTNER, "you cannot be your own partner")
        return found.id, found.username

    async def leave(self, client: QueueClient) -> None:
        """``leave_queue``: stop waiting (every connection of the account is told, in any process).

        Raises:
            StoreUnavailableError: the store could not be reached (nothing changed).
        """
        account = client.account_id
        self._listen()
        removed = 0
        waiting = None
        async with self._lock:
            if account is not None:
                removed = await anyio.to_thread.run_sync(self._store.queue_remove, [account])
                waiting = self._waiting.pop(account, None)
        told = waiting.clients if waiting is not None else [client]
        if client not in told:
            told = [*told, client]
        for one in told:
            one.send(queue_left())
        if account is not None and (removed or waiting is not None):
            try:
                await self._hub.broadcast(LEFT, {"origin": self._hub.origin, "account": account})
            except HubUnavailableError as exc:  # the others find the entry gone from the store
                log.warning("could not tell the other processes of a left queue: %s", exc)

    def disconnected(self, client: QueueClient) -> None:
        """A connection closed: its account's entry is away once no connection of it is left."""
        account = client.account_id
        waiting = self._waiting.get(account) if account is not None else None
        if waiting is None or client not in waiting.clients:
            return
        waiting.clients.remove(client)
        if not waiting.clients:
            waiting.away_since = self._clock()
            self._spawn(self._announce())  # the leader hears of it before the next tick

    def waiting(self) -> dict[int, str]:
        """Who waits with this process: account → ladder (for tests and the health of the queue)."""
        return {a: w.ladder.value for a, w in self._waiting.items()}

    # ------------------------------------------------------------ the other processes' word

    # ------------------------------------------------------------ the tick

    async def pair_now(self) -> list[Table]:
        """One tick: tell the others who waits here, pair (if this process leads), catch up.

        The leader drops the entries away too long, pairs the others and
        seats each match.  Every process then checks its entries against the
        store (a match or a leave whose broadcast was lost) and repeats
        ``queued``.  Returns the tables made here.

        Raises:
            StoreUnavailableError: the store could not be reached (the next
                tick tries again).
        """
        self._listen()
        made: list[Table] = []
        async with self._lock:
            now = self._clock()
            self._forget_stale(now)
            await self._announce()
            leading = await self._leading(now)
            if not leading and not self._waiting:
                return made
            stored = await anyio.to_thread.run_sync(self._store.queue_entries)
            if leading:
                made = await self._pair(stored, now)
            await self._catch_up(stored, now)
            for w in list(self._waiting.values()):
                if w.clients and now - w.last_sent >= REPEAT_S:
                    self._send_queued(w)
        return made

    async def _catch_up(self, stored: Sequence[QueueEntryData], now: float) -> None:
        """Our entries gone from the store: matched (tell them) or left elsewhere (in a while)."""
        in_store = {e.account_id: e for e in stored}
        for waiting in list(self._waiting.values()):
            entry = in_store.get(waiting.account_id)
            if entry is not None and entry.ladder == waiting.ladder.value:
                waiting.since = entry.joined_at
                waiting.missing_since = None
                continue
            payload = await anyio.to_thread.run_sync(self._ranked_game_of, waiting.account_id)
            if self._waiting.get(waiting.account_id) is not waiting:
                continue  # told meanwhile
            if payload is not None:
                self._on_matched(payload)
                continue
            if waiting.missing_since is None:
                waiting.missing_since = now
            elif now - waiting.missing_since >= MISSING_FOR_S:
                del self._waiting[waiting.account_id]
                for client in waiting.clients:
                    client.send(queue_left())

    # ------------------------------------------------------------ inside

    async def _rating(self, account: int, ladder: Ladder) -> tuple[int, bool]:
        shown = await anyio.to_thread.run_sync(rated.shown_ratings, self._store, [account], ladder)
        return shown[account]

    def _ranked_tables(self, account: int) -> list[str]:
        """The account's ranked tables being played (in a thread)."""
        playing = []
        found = [
            *self._store.open_tables_of_device(rated.identity(account)),
            *self._store.open_tables_of_device(rated.identity(account, bot=True)),
        ]
        for table_id in found:
            data = self._store.table(table_id)
            if data is not None and data.kind == "ranked" and data.status == "playing":
                playing.append(table_id)
        return playing

    def _ranked_game_of(self, account: int) -> dict[str, Any] | None:
        """The ``ranked.matched`` payload of the account's ranked game in play (in a thread)."""
        for table_id in self._ranked_tables(account):
            found = stored_table(self._store, table_id)
            if found is not None:
                return matched_payload(found[0])
        return None

    async def _not_barred(self, account: int) -> None:
        """Refuse an account that repeatedly did not show for its ranked games' first shot."""
        now = datetime.datetime.now(datetime.UTC).replace(tzinfo=None)
        until = await anyio.to_thread.run_sync(
            fair_play.queue_barred_until, self._store, account, now
        )
        if until is not None:
            raise protocol.WireError(
                ErrorCode.NO_SHOWS,
                f"you did not take your first shot in {fair_play.NO_SHOW_LIMIT} ranked games "
                f"lately: you can queue again at {until:%H:%M} UTC",
            )

    async def _in_ranked_game(self, account: int) -> bool:
        return bool(await anyio.to_thread.run_sync(self._ranked_tables, account))
