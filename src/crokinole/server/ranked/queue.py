"""The ranked queue: logged-in players wait, are paired, and sit down at a ranked table.

A connection logged in to an account sends ``queue`` with a ladder; the
service answers ``queued`` (when the wait began, the rating, the window of
ratings it accepts) and repeats it every :data:`REPEAT_S` seconds while the
window widens.  About once a second (:data:`PAIR_EVERY_S`, the server's
clock) :func:`crokinole.ranking.pair` pairs the waiting entries; each match
becomes a ranked table (:meth:`Tables.create_ranked`), and each of its
players' connections is sent ``matched`` with the table's id and their seat.

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

Errors are :class:`~crokinole.server.ws.wire.WireError` with the protocol's
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
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import anyio
import anyio.to_thread

from crokinole.board import Seat
from crokinole.ranking import INITIAL, Entry, Ladder, Match, Rating, display, is_provisional, pair
from crokinole.rules import Layout
from crokinole.server.cluster.hub import HubUnavailableError
from crokinole.server.owner.tables import Tables, stored_table
from crokinole.server.ranked import fair_play, rated
from crokinole.server.ws import wire
from crokinole.store import AlreadyQueuedError, QueueEntryData, Store, StoreUnavailableError
from crokinole.table import Person, RankedPlayer, SeatRating, Table, TableSettings

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
#: An entry whose player has no connection is dropped after this many seconds.
RETURN_WITHIN_S = 60.0
#: A process's word that a player's connection is open holds this many seconds.
PRESENT_WITHIN_S = 3.0
#: An entry gone from the store, with no ranked game for it, is given up after
#: this many seconds (the match may be on its way).
MISSING_FOR_S = 3.0

#: The lead of the pairing, and the hub's topics of the queue.
LEAD = "ranked"
PRESENT = "ranked.present"
MATCHED = "ranked.matched"
LEFT = "ranked.left"


class QueueClient(Protocol):
    """A connection as the queue sees it: its account, and a way to send it a message."""

    @property
    def account_id(self) -> int | None: ...

    def send(self, payload: dict[str, Any]) -> None: ...


@dataclass(eq=False)
class _Waiting:
    """One account waiting, with this process's connections (none: away since ``away_since``)."""

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
    #: When the tick first found the entry gone from the store (no ranked game for it yet).
    missing_since: float | None = None


@dataclass(frozen=True)
class _Told:
    """What another process said of one of its queued accounts."""

    ladder: str
    partner_id: int | None
    partner_name: str | None
    here: bool  # a connection of the account is open there


@dataclass
class _Heard:
    """Another process's last word on its queued accounts, and when it came (our clock)."""

    at: float
    accounts: dict[int, _Told]


@dataclass
class _Candidate:
    """A stored entry the leader may pair: its player has a connection open somewhere."""

    account_id: int
    username: str
    ladder: Ladder
    since: float
    partner_id: int | None
    rating: int = 0
    provisional: bool = True


def _ladder(value: str) -> Ladder:
    try:
        return Ladder(value)
    except ValueError:
        raise wire.WireError(
            "bad_ladder", f"a ladder is singles or doubles, not {value!r}"
        ) from None


class RankedQueue:
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
        self._waiting: dict[int, _Waiting] = {}
        self._lock = asyncio.Lock()
        self._task: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._listening = False
        #: Each other process's last word (by its hub origin).
        self._heard: dict[str, _Heard] = {}
        #: When another process last said an account's connection was open there.
        self._last_seen: dict[int, float] = {}
        #: Since when this process leads the pairing (None: it does not).
        self._leading_since: float | None = None
        self._said_any = False  # the last presence broadcast named someone
        self._trouble: str | None = None  # the outage logged, until a tick goes through
        self._troubled = False  # this tick met an outage

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

    def _unavailable(self, what: str) -> None:
        """Log an outage once (until a tick goes through: :meth:`_available`)."""
        self._troubled = True
        if self._trouble is None:
            log.warning("%s", what)
        self._trouble = what

    def _available(self) -> None:
        if self._trouble is not None:
            log.warning("the ranked queue works again")
            self._trouble = None

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
            raise wire.WireError("not_logged_in", "log in to play ranked")
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
                await self._announce()
                return
            if await self._in_ranked_game(account):
                raise wire.WireError("in_ranked_game", "finish your ranked game first")
            await self._not_barred(account)
            entry = await anyio.to_thread.run_sync(self._enter, account, ladder, self._clock())
            rating, provisional = await self._rating(account, ladder)
            waiting = _Waiting(
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
                    raise wire.WireError(
                        "already_queued", f"you are in the {found.ladder} queue already"
                    ) from None
                return found
        raise wire.WireError("already_queued", "you are in the queue already")

    def _entry_of(self, account: int) -> QueueEntryData | None:
        """The account's stored entry, or None (in a thread)."""
        return next((e for e in self._store.queue_entries() if e.account_id == account), None)

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

    def _partner_ready(self, waiting: _Waiting) -> bool:
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

    def _tell_partner(self, waiting: _Waiting) -> None:
        """The partner's page here learns at once that this player queued naming them
        (another process's learns from the presence broadcast)."""
        other = self._waiting.get(waiting.partner_id) if waiting.partner_id is not None else None
        if other is not None and other.clients and self._partner_ready(waiting):
            self._send_queued(other)

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
            one.send(_queue_left())
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
            int(one["account"]): _Told(
                str(one["ladder"]),
                None if one.get("partner") is None else int(one["partner"]),
                None if one.get("partner_name") is None else str(one["partner_name"]),
                bool(one.get("here")),
            )
            for one in payload["accounts"]
        }
        self._heard[origin] = _Heard(now, accounts)
        for account, told in accounts.items():
            if told.here:
                self._last_seen[account] = now
        for account, was in ready.items():
            waiting = self._waiting.get(account)
            if waiting is not None and waiting.clients and self._partner_ready(waiting) != was:
                self._send_queued(waiting)  # the partner's page learns at once

    def _on_matched(self, payload: dict[str, Any]) -> None:
        """``ranked.matched`` (from any process, this one too): tell our players, forget them."""
        for key, seat in dict(payload["seats"]).items():
            waiting = self._waiting.pop(int(key), None)
            if waiting is None:
                continue
            message = wire.message(
                "matched",
                str(payload["table"]),
                0,
                ladder=payload["ladder"],
                seat=seat,
                players=payload["players"],
            )
            for client in waiting.clients:
                client.send(message)

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
                        client.send(_queue_left())
        except Exception as exc:  # the next ticks find the entry gone from the store
            log.warning("could not check a left queue entry: %s", exc)

    def _told(self, account: int) -> _Told | None:
        """The latest word of another process on the account (within :data:`PRESENT_WITHIN_S`)."""
        latest: tuple[float, _Told] | None = None
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

    def _spawn(self, coroutine: Coroutine[Any, Any, None]) -> None:
        try:
            task = asyncio.get_running_loop().create_task(coroutine)
        except RuntimeError:  # no event loop (a test's plain call): the next tick tells
            coroutine.close()
            return
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

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

    def _forget_stale(self, now: float) -> None:
        self._heard = {
            origin: heard
            for origin, heard in self._heard.items()
            if now - heard.at < PRESENT_WITHIN_S
        }
        self._last_seen = {
            account: at for account, at in self._last_seen.items() if now - at < 2 * RETURN_WITHIN_S
        }

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
        here_since = self._leading_since if self._leading_since is not None else now
        candidates: dict[int, _Candidate] = {}
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
                partner: int | None
                if local is not None and local.partner_id is not None:
                    partner = local.partner_id
                else:
                    partner = next((t.partner_id for t in told if t.partner_id is not None), None)
                candidates[account] = _Candidate(
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
        if gone:
            await anyio.to_thread.run_sync(self._store.queue_remove, gone)
            for account in gone:
                self._waiting.pop(account, None)
                self._last_seen.pop(account, None)
        for ladder in Ladder:
            accounts = [c.account_id for c in candidates.values() if c.ladder is ladder]
            if accounts:
                ratings = await self._ratings(accounts, ladder)
                for account in accounts:
                    candidates[account].rating, candidates[account].provisional = ratings[account]
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
        made: list[Table] = []
        for match in pair(entries, now):
            table = await self._seat(match, candidates)
            if table is not None:
                made.append(table)
        return made

    async def _seat(self, match: Match, candidates: dict[int, _Candidate]) -> Table | None:
        """Take the match's entries, make its ranked table and tell its players; None if it
        could not be made (the entries taken are put back)."""
        sides = (match.side_a, match.side_b)
        players = [candidates[int(p)] for side in sides for p in side]
        layout = Layout.SINGLES if match.ladder is Ladder.SINGLES else Layout.DOUBLES
        settings = TableSettings.ranked(layout, self._rounds)
        seats: dict[Seat, RankedPlayer] = {}
        for side, accounts in enumerate(sides):
            for seat, account in zip(layout.sides[side], accounts, strict=True):
                c = candidates[int(account)]
                seats[seat] = RankedPlayer(
                    rated.identity(c.account_id), c.username, SeatRating(c.rating, c.provisional)
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
        payload = _matched(table)
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

    async def _put_back(self, players: Sequence[_Candidate]) -> None:
        def put_back() -> None:
            for c in players:
                try:
                    self._store.queue_add(c.account_id, c.ladder.value, c.since)
                except AlreadyQueuedError:
                    pass  # queued again meanwhile
                except Exception:
                    log.exception("could not put account %s back in the queue", c.account_id)

        await anyio.to_thread.run_sync(put_back)

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
                    client.send(_queue_left())

    # ------------------------------------------------------------ inside

    def _send_queued(self, waiting: _Waiting, only: QueueClient | None = None) -> None:
        now = self._clock()
        waiting.last_sent = now
        entry = Entry(
            (str(waiting.account_id),), waiting.ladder, waiting.rating, min(waiting.since, now)
        )
        payload = wire.message(
            "queued",
            None,
            0,
            ladder=waiting.ladder.value,
            since=waiting.since,
            server_time=now,
            rating=waiting.rating,
            provisional=waiting.provisional,
            window=entry.window(now),
            partner=waiting.partner_name,
            partner_ready=self._partner_ready(waiting),
        )
        for client in [only] if only is not None else waiting.clients:
            client.send(payload)

    async def _rating(self, account: int, ladder: Ladder) -> tuple[int, bool]:
        return (await self._ratings([account], ladder))[account]

    async def _ratings(self, accounts: list[int], ladder: Ladder) -> dict[int, tuple[int, bool]]:
        """Each account's displayed rating on ``ladder`` and whether it is provisional."""
        found = await anyio.to_thread.run_sync(self._store.ratings_of, accounts, ladder.value)
        shown: dict[int, tuple[int, bool]] = {}
        for account in accounts:
            data = found.get(account)
            if data is None:
                shown[account] = display(INITIAL), True
            else:
                shown[account] = display(Rating(data.mu, data.sigma)), is_provisional(data.games)
        return shown

    def _ranked_tables(self, account: int) -> list[str]:
        """The account's ranked tables being played (in a thread)."""
        playing = []
        for table_id in self._store.open_tables_of_device(rated.identity(account)):
            data = self._store.table(table_id)
            if data is not None and data.kind == "ranked" and data.status == "playing":
                playing.append(table_id)
        return playing

    def _ranked_game_of(self, account: int) -> dict[str, Any] | None:
        """The ``ranked.matched`` payload of the account's ranked game in play (in a thread)."""
        for table_id in self._ranked_tables(account):
            found = stored_table(self._store, table_id)
            if found is not None:
                return _matched(found[0])
        return None

    async def _not_barred(self, account: int) -> None:
        """Refuse an account that repeatedly did not show for its ranked games' first shot."""
        now = datetime.datetime.now(datetime.UTC).replace(tzinfo=None)
        until = await anyio.to_thread.run_sync(
            fair_play.queue_barred_until, self._store, account, now
        )
        if until is not None:
            raise wire.WireError(
                "no_shows",
                f"you did not take your first shot in {fair_play.NO_SHOW_LIMIT} ranked games "
                f"lately: you can queue again at {until:%H:%M} UTC",
            )

    async def _in_ranked_game(self, account: int) -> bool:
        return bool(await anyio.to_thread.run_sync(self._ranked_tables, account))


def _matched(table: Table) -> dict[str, Any]:
    """The ``ranked.matched`` payload of a new ranked table: each account's seat, the players."""
    seats: dict[str, str] = {}
    players: list[dict[str, Any]] = []
    for seat in Seat:  # south, west, north, east
        occupant = table.seats.get(seat)
        shown = table.ratings.get(seat)
        if not isinstance(occupant, Person) or shown is None:
            continue
        member = table.member(occupant.mid)
        account = rated.account_of(member.device if member is not None else None)
        if member is None or account is None:
            continue
        seats[str(account)] = wire.seat_name(seat)
        players.append(
            {
                "seat": wire.seat_name(seat),
                "username": member.name,
                "rating": shown.rating,
                "provisional": shown.provisional,
            }
        )
    ladder = Ladder.SINGLES if table.settings.layout is Layout.SINGLES else Ladder.DOUBLES
    return {"table": table.id, "ladder": ladder.value, "seats": seats, "players": players}


def _queue_left() -> dict[str, Any]:
    return wire.message("queue_left", None, 0, reason="left")
