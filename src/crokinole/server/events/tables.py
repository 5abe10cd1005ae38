"""The online tables of an event: made at a round's start, their results entered by themselves.

For each pairing of a started round whose every player has an account, when
the event is played online (or both online and in a hall),
:meth:`EventTables.open_round_tables` makes a ranked table linked to the event
(:class:`~crokinole.table.EventLink`): the event's rules and clock, each seat
reserved for one of the pairing's accounts, the no-show abort of ranked play.
Side 0 sits south and opens the game: it is the pairing's ``first`` side in
game 1, and the other side in game 2 (the opener alternates game by game in
a best-of-N); doubles partners sit opposite.  The table is recorded on the
event (``table_opened``) and in the store (``link_event_table``).  Every
process hears each event's change (:meth:`EventService.on_change`); when a
round has started with pairings still without tables, the process that leads
:data:`LEAD` on the hub makes them (so a round's tables are made once, and
those a failure left out are made at the next change).

When the game of such a table ends (played out, resigned or left, or aborted
for a no-show), its owner, the one process that applies its commands, calls
:meth:`EventTables.game_ended` (``Tables.on_event_game``).  The table's rounds
become :class:`~crokinole.events.model.RoundScore` values in the pairing's
side order (each side's round total and its 20s, R6); a no-show, or a player
who resigned or left, loses by forfeit (``GameScore(forfeit=side)``).  The
server reports the match to the event, confirmed at once; a best-of-N match
not decided yet gets its next game's table instead.  A result reported
already is not reported twice: the event answers the same result with
nothing, and a different one with ``conflict``, which is logged and left to
the organiser.  :meth:`EventTables.settle` reports what a restart may have
missed (a game that ended while no process was there to report it); the
leading process settles every running event when the server starts.

Anyone may watch an event's table: it has a code for its spectators, and
whoever opens it by its id who is not one of its players joins as a spectator
(:mod:`crokinole.server.ws.session`).

Whether a game counts on the ranked ladder is the table's own
(``EventLink.rated``: the ranked ratings of :mod:`crokinole.server.ranked.rated`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Hashable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

import anyio.to_thread

from crokinole.board import Seat
from crokinole.errors import ErrorCode, EventError
from crokinole.events.codec import MAX_GAMES
from crokinole.events.event import SERVER, Entry, Event, EventStatus, RoundState
from crokinole.events.model import (
    Entrant,
    EventSettings,
    GameScore,
    MatchResult,
    Pairing,
    Person,
    RoundScore,
    Venue,
    entrants_by_id,
)
from crokinole.server.bots import EVENT_TABLE
from crokinole.server.cluster.hub import HubUnavailableError
from crokinole.server.events.service import EventService
from crokinole.server.owner.tables import Tables
from crokinole.server.ranked import rated
from crokinole.store import StoreConflictError, StoreUnavailableError
from crokinole.table import (
    Event as TableEvent,
)
from crokinole.table import (
    EventLink,
    Hand,
    RankedPlayer,
    SeatRating,
    Stage,
    Table,
    TableError,
    TableSettings,
)
from crokinole.table.members import MAX_NAME

__all__ = [
    "LEAD",
    "EventTables",
    "Seated",
    "game_score",
    "opener",
    "seating",
    "table_settings",
]

log = logging.getLogger("crokinole.server")

_K = TypeVar("_K", bound=Hashable)

#: What the process that makes the rounds' tables leads on the hub (one at a time).
LEAD = "events.tables"
#: Tries, and seconds between them, of a game's report while the store or the hub is out.
OUTAGE_TRIES = 5
OUTAGE_WAIT_S = 1.0


# ------------------------------------------------------------------ pure parts


def table_settings(settings: EventSettings) -> TableSettings:
    """The settings of an event's online tables: the event's rules and clock, the human
    hand (as online play has it), a Normal stand-in, no hints.

    >>> from crokinole.events.model import Format
    >>> s = table_settings(EventSettings(name="Tuesday", format=Format.SWISS, rounds=2,
    ...                                  turn_seconds=30))
    >>> s.layout.value, s.discs, s.rounds, s.turn_time, s.hand.value, s.hints
    ('singles', 8, 4, 30.0, 'human', False)

    Raises:
        EventError: ``bad_event`` when the event's rules cannot be played at a
            table (a game of more than 4 rounds, a game to another target than 100).
    """
    rules = settings.rules
    if rules.target not in (None, 100):
        raise EventError(
            ErrorCode.BAD_EVENT, f"online tables play games to 100, not to {rules.target}"
        )
    try:
        return TableSettings(
            layout=rules.layout,
            discs=rules.discs_per_side,
            scoring=rules.scoring,
            rounds=rules.rounds,
            tie=rules.tie,
            required_contact=rules.required_contact,
            turn_time=None if settings.turn_seconds is None else float(settings.turn_seconds),
            hand=Hand.HUMAN,
            hints=False,
        )
    except TableError as exc:
        raise EventError(ErrorCode.BAD_EVENT, f"online tables cannot play it: {exc}") from None


def opener(pairing: Pairing, game: int) -> int:
    """The pairing's side that opens game ``game`` (from 1): ``first``, then alternating.

    >>> p = Pairing(round=1, table=1, sides=(("e1",), ("e2",)), first=1, best_of=3)
    >>> [opener(p, game) for game in (1, 2, 3)]
    [1, 0, 1]
    """
    return pairing.first if game % 2 == 1 else 1 - pairing.first


@dataclass(frozen=True, slots=True)
class Seated:
    """One player of an event's table: the seat, the pairing's side, who."""

    seat: Seat
    side: int
    person: Person


def seating(
    settings: EventSettings, entrants: Sequence[Entrant], pairing: Pairing, game: int
) -> tuple[Seated, ...] | None:
    """Who sits where at the table of the pairing's game ``game``, or None when a player
    has no account (that pairing plays on a board).

    The opening side (:func:`opener`) sits on the table's side 0 (south, and
    north in doubles), the other on side 1; a fixed team's two members, or a
    rotating pair's two entrants, are partners, opposite each other.

    >>> from crokinole.events.model import Format
    >>> settings = EventSettings(name="Tuesday", format=Format.SWISS, rounds=2)
    >>> ann = Entrant("e1", "Ann", (Person("Ann", account_id=1),))
    >>> bob = Entrant("e2", "Bob", (Person("Bob", account_id=2),))
    >>> pairing = Pairing(round=1, table=1, sides=(("e1",), ("e2",)), first=1)
    >>> [(s.seat.key, s.side, s.person.name) for s in seating(settings, [ann, bob], pairing, 1)]
    [('south', 1, 'Bob'), ('north', 0, 'Ann')]
    """
    layout = settings.rules.layout
    by_id = entrants_by_id(entrants)
    first = opener(pairing, game)
    seated: list[Seated] = []
    for table_side, side in enumerate((first, 1 - first)):
        people = [person for eid in pairing.sides[side] for person in by_id[eid].members]
        seats = layout.sides[table_side]
        if len(people) != len(seats) or any(p.account_id is None for p in people):
            return None
        seated.extend(Seated(seat, side, p) for seat, p in zip(seats, people, strict=True))
    return tuple(seated)


def game_score(table: Table, first: int) -> GameScore | None:
    """The game an event's table played, in the pairing's side order (``first``: the
    pairing's side that sat on the table's side 0), or None while it is not over.

    A played-out game is its rounds: each side's round total and 20s (R6).
    A game aborted for a no-show (R2, the ranked clock) is lost by forfeit by
    the side that did not show; a game a player resigned or left is lost by
    forfeit by that player's side (their seat is empty since).
    """
    game = table.game
    if game is None or table.stage not in (Stage.FINISHED, Stage.CLOSED):
        return None
    rules = game.rules

    def pairing_side(table_side: int) -> int:
        # The swap of sides is its own inverse: it maps pairing sides to table sides too.
        return first if table_side == 0 else 1 - first

    if table.no_show is not None:
        return GameScore(forfeit=pairing_side(rules.side_of(table.no_show)))
    if game.outcome is not None:
        rounds = []
        for played in game.history:
            totals = played.totals
            twenties = tuple(c.twenties for c in played.counts)
            rounds.append(
                RoundScore(
                    (totals[pairing_side(0)], totals[pairing_side(1)]),
                    (twenties[pairing_side(0)], twenties[pairing_side(1)]),
                )
            )
        return GameScore(tuple(rounds))
    empty = [seat for seat, occupant in table.seats.items() if occupant is None]
    if not empty:
        return None  # abandoned, yet nobody's seat is empty: nothing says who left
    return GameScore(forfeit=pairing_side(rules.side_of(empty[0])))


def _needs_tables(event: Event) -> bool:
    """Whether the event's current round has started with a pairing of online players
    that has no table yet."""
    state = event.current_round
    if state is None or not state.started or event.settings.venue is Venue.HALL:
        return False
    if event.status is EventStatus.FINISHED:
        return False
    by_id = entrants_by_id(event.entrants)
    return any(
        not p.bye
        and not state.tables.get(p.table)
        and p.table not in state.results
        and all(by_id[e].online for e in p.entrants)
        for p in state.pairings
    )


def _round_of(event: Event, number: int) -> RoundState:
    if not 1 <= number <= len(event.rounds):
        raise EventError(ErrorCode.BAD_EVENT, f"the event has no round {number}")
    return event.rounds[number - 1]


def _decided(event: Event, pairing: Pairing, games: Sequence[GameScore]) -> MatchResult | None:
    """The match's result once its games decide it (a single game always does), else None."""
    result = MatchResult(tuple(games))
    try:
        result.winner(event.settings.rules, pairing.best_of)
    except EventError:
        return None
    return result


# ------------------------------------------------------------------ the service


class _Locks(Generic[_K]):
    """One lock per key, kept while someone holds or waits for it."""

    def __init__(self) -> None:
        self._held: dict[_K, tuple[asyncio.Lock, list[int]]] = {}

    @contextlib.asynccontextmanager
    async def hold(self, key: _K) -> AsyncIterator[None]:
        lock, users = self._held.setdefault(key, (asyncio.Lock(), [0]))
        users[0] += 1
        try:
            async with lock:
                yield
        finally:
            users[0] -= 1
            if not users[0]:
                del self._held[key]


class EventTables:
    """Makes the online tables of an event's rounds and reports their results.

    Args:
        events: the events (their logs) and the one way to change them.
        tables: the owner of the tables; :meth:`install` makes it call
            :meth:`game_ended` when an event's game ends.
    """

    def __init__(self, events: EventService, tables: Tables) -> None:
        self.events = events
        self.tables = tables
        # One settling at a time per pairing here (the hook and settle() may meet), and
        # one making of a round's tables at a time per event.
        self._settling: _Locks[tuple[str, int, int]] = _Locks()
        self._opening: _Locks[str] = _Locks()
        self._tasks: set[asyncio.Task[None]] = set()
        self._closing = False
        self._listening = False

    @classmethod
    def installed(cls, events: EventService, tables: Tables) -> EventTables:
        """The event tables of a server, hearing the end of its event games (:meth:`install`);
        :meth:`run` (or :meth:`listen`) makes them hear the events' changes too."""
        made = cls(events, tables)
        made.install()
        return made

    def install(self) -> None:
        """Hear the end of every event's game this process owns."""
        self.tables.on_event_game = self.game_ended

    def listen(self) -> None:
        """Hear every event's change (a round started: its tables are made by the process
        that leads :data:`LEAD`).  On the event loop: a hub shared through Redis
        subscribes there."""
        if not self._listening:
            self._listening = True
            self.events.on_change(self._changed)

    def _changed(self, event_id: str, _version: int) -> None:
        """An event changed (here or in another process): its round may need its tables."""
        if self._closing:
            return
        task = asyncio.get_running_loop().create_task(self._open_if_leading(event_id))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _open_if_leading(self, event_id: str) -> None:
        try:
            event = await self.events.load(event_id)
            if event is None or not _needs_tables(event):
                return
            if not await self.tables.hub.lead(LEAD):
                return  # the leading process makes them (it hears the change too)
            state = event.current_round
            assert state is not None  # _needs_tables
            await self.open_round_tables(event_id, state.number)
        except Exception:
            log.exception("the online tables of event %s could not all be made", event_id)

    async def run(self) -> None:
        """A server's life of the event tables: :meth:`listen`, :meth:`startup`, then
        until cancelled (then :meth:`close`)."""
        try:
            self.listen()
            await self.startup()
            await anyio.sleep_forever()
        finally:
            with anyio.CancelScope(shield=True):
                await self.close()

    async def startup(self) -> None:
        """What a restart may have missed: the process that leads :data:`LEAD` settles
        every running event (:meth:`settle`)."""
        try:
            if not await self.tables.hub.lead(LEAD):
                return
            rows = await anyio.to_thread.run_sync(self.tables.store.list_events)
        except Exception:
            log.exception("the running events' online tables could not be settled")
            return
        for row in rows:
            if row.status != "running":
                continue
            try:
                await self.settle(row.id)
            except Exception:
                log.exception("the online tables of event %s could not be settled", row.id)

    async def close(self) -> None:
        """Stop making tables (the tasks under way are cancelled)."""
        self._closing = True
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task

    async def open_round_tables(self, event_id: str, number: int) -> tuple[str, ...]:
        """Make the online tables of round ``number`` (started) of the event; their ids.

        Pairings that have their table already, byes, and pairings with a
        player without an account (a board in the hall) get none; so does an
        event played in a hall only.  Calling it again makes only the tables
        still missing.

        Raises:
            EventError: ``not_found`` (no such event), ``bad_event`` (no such
                round, not started, or rules the tables cannot play).
        """
        async with self._opening.hold(event_id):
            event = await self._event(event_id)  # as it stands once the lock is ours
            if event.settings.venue is Venue.HALL:
                return ()
            state = _round_of(event, number)
            if not state.started:
                raise EventError(ErrorCode.BAD_EVENT, f"round {number} has not started")
            made: list[tuple[Pairing, int, str]] = []
            try:
                for pairing in state.pairings:
                    if pairing.bye or state.tables.get(pairing.table):
                        continue
                    table_id = await self._make(event, pairing, 1)
                    if table_id is not None:
                        made.append((pairing, 1, table_id))
            finally:
                # What was made is recorded, even when a table could not be made.
                with anyio.CancelScope(shield=True):
                    await self._record(event_id, made)
            return tuple(table_id for _, _, table_id in made)

    async def game_ended(self, table: Table, _events: Sequence[TableEvent] = ()) -> None:
        """An event's game ended at ``table`` (held here): report the match if it is
        decided, else open its next game's table."""
        link = table.event
        if link is None:
            return
        for attempt in range(OUTAGE_TRIES):
            try:
                await self._settle_pairing(link.event_id, link.round, link.table, ended=table)
                return
            except (StoreUnavailableError, HubUnavailableError, StoreConflictError) as exc:
                reason = str(exc)
            except TableError as exc:
                if exc.code not in (ErrorCode.UNAVAILABLE, ErrorCode.BUSY, ErrorCode.STALE):
                    raise
                reason = exc.message
            if attempt < OUTAGE_TRIES - 1:
                await anyio.sleep(OUTAGE_WAIT_S)
        log.warning("table %s's result waits for the next start (settle): %s", table.id, reason)

    async def settle(self, event_id: str) -> None:
        """Report every finished game of the event's current round that was not reported
        (a game that ended while its process was going down), and open the tables that
        are missing (a round's start that was not heard, a best-of's next game)."""
        event = await self.events.load(event_id)
        if event is None or event.current_round is None or not event.current_round.started:
            return
        state = event.current_round
        if _needs_tables(event):
            await self.open_round_tables(event_id, state.number)
        for pairing in state.pairings:
            result = state.results.get(pairing.table)
            if pairing.bye or (result is not None and result.confirmed):
                continue
            if state.tables.get(pairing.table):
                await self._settle_pairing(event_id, state.number, pairing.table)

    # ------------------------------------------------------------ inside

    async def _event(self, event_id: str) -> Event:
        event = await self.events.load(event_id)
        if event is None:
            raise EventError(ErrorCode.NOT_FOUND, f"there is no event {event_id}")
        return event

    async def _open(self, event: Event, pairing: Pairing, *, game: int) -> str | None:
        """Make the table of the pairing's game ``game`` and record it on the event; its id
        (None: a player without an account)."""
        table_id = await self._make(event, pairing, game)
        if table_id is not None:
            await self._record(event.id, [(pairing, game, table_id)])
        return table_id

    async def _record(self, event_id: str, made: Sequence[tuple[Pairing, int, str]]) -> None:
        """The tables made, recorded on the event at once (one change: one new view)."""
        if not made:
            return
        now = self.events.now()

        def decide(event: Event) -> list[Entry]:
            return [
                entry
                for pairing, game, table_id in made
                for entry in event.table_opened(
                    pairing.round, pairing.table, table_id, now=now, game=game
                )
            ]

        await self.events.run(event_id, decide)

    async def _make(self, event: Event, pairing: Pairing, game: int) -> str | None:
        """Make the table of the pairing's game ``game`` and link it to its pairing in the
        store; its id (None: a player without an account)."""
        seated = seating(event.settings, event.entrants, pairing, game)
        if seated is None:
            return None
        settings = table_settings(event.settings)
        # A bot sits as its bot identity (it plays by its token's socket).  Bots among
        # themselves count on the bots' ladder; a game of bots and people on none (a
        # person is never rated on the bots' ladder, nor a bot on people's).
        bots = [s.person.bot for s in seated]
        ladder = rated.ladder_of(settings.layout, bots=all(bots))
        accounts = [s.person.account_id for s in seated if s.person.account_id is not None]
        shown = await anyio.to_thread.run_sync(
            rated.shown_ratings, self.tables.store, accounts, ladder
        )
        players = {}
        for number, s in enumerate(seated, 1):
            account = s.person.account_id
            assert account is not None  # seating() gives accounts only
            rating, provisional = shown[account]
            name = _seat_name(s.person.name, number)
            players[s.seat] = RankedPlayer(
                rated.identity(account, bot=s.person.bot), name, SeatRating(rating, provisional)
            )
        link = EventLink(
            event.id,
            event.settings.name,
            pairing.stage or f"Round {pairing.round}",
            round=pairing.round,
            table=pairing.table,
            game=game,
            best_of=pairing.best_of,
            rated=event.settings.rated and (all(bots) or not any(bots)),
        )
        table = await self.tables.create_ranked(settings=settings, players=players, event=link)
        try:
            await anyio.to_thread.run_sync(
                lambda: self.tables.store.link_event_table(
                    table.id, event.id, pairing.round, pairing.table, game
                )
            )
        except StoreConflictError as exc:  # pragma: no cover - a new table's id is new
            log.warning("table %s was linked to an event already: %s", table.id, exc)
        log.info("event %s: round %d table %d game %d at %s", event.id, pairing.round,
                 pairing.table, game, table.id)  # fmt: skip
        bot_accounts = [s.person.account_id for s in seated if s.person.bot]
        await self._tell_bots(event, link, table.id, bot_accounts)
        return table.id

    async def _tell_bots(
        self, event: Event, link: EventLink, table_id: str, bots: Sequence[int | None]
    ) -> None:
        """Tell the seated bots (their accounts ``bots``; their sockets, in every process)
        that the table is theirs: a person has the event's page, a program has only its
        socket.  (Missed, a bot finds the table in its ``welcome`` or in the event's view.)"""
        if not bots:
            return
        payload = {
            "accounts": list(bots),
            "table": table_id,
            "event": event.id,
            "name": link.name,
            "stage": link.stage,
            "round": link.round,
            "board": link.table,
            "game": link.game,
        }
        try:
            await self.tables.hub.broadcast(EVENT_TABLE, payload)
        except HubUnavailableError as exc:  # the bot finds it in its welcome or the view
            log.warning("could not tell the bots of table %s: %s", table_id, exc)

    async def _settle_pairing(
        self, event_id: str, number: int, table_number: int, *, ended: Table | None = None
    ) -> None:
        """The pairing's games so far: report the match once they decide it, else open
        the next game's table (if the last game is over and the next is not open yet)."""
        async with self._settling.hold((event_id, number, table_number)):
            event = await self.events.load(event_id)
            if event is None:
                log.warning("an online table's event %s is gone", event_id)
                return
            await self._settle_locked(event, number, table_number, ended)

    async def _settle_locked(
        self, event: Event, number: int, table_number: int, ended: Table | None
    ) -> None:
        state = _round_of(event, number)
        pairing = state.pairing(table_number)
        ids = state.tables.get(table_number, ())
        current = state.results.get(table_number)
        if current is not None and current.confirmed:
            return  # reported (by this hook before, or entered by the organiser)
        if ended is not None and ended.id not in ids:
            log.warning("table %s is not one of table %d's in round %d of event %s",
                        ended.id, table_number, number, event.id)  # fmt: skip
            return
        games: list[GameScore] = []
        for game, table_id in enumerate(ids, 1):
            table = ended if ended is not None and ended.id == table_id else None
            if table is None:
                table = await self.tables.get(table_id)
            score = None if table is None else game_score(table, opener(pairing, game))
            if score is None:
                return  # a game still being played (or gone): nothing to report yet
            games.append(score)
        if not games:
            return
        result = _decided(event, pairing, games)
        if result is None:
            if len(games) >= MAX_GAMES:
                log.warning("event %s round %d table %d: %d games and no winner; the "
                            "organiser enters the result", event.id, number, table_number,
                            len(games))  # fmt: skip
                return
            await self._open(event, pairing, game=len(games) + 1)
            return
        await self._report(event, number, table_number, result)

    async def _report(self, event: Event, number: int, table: int, result: MatchResult) -> None:
        now = self.events.now()
        try:
            await self.events.run(
                event.id, lambda e: e.report(SERVER, number, table, result, now=now)
            )
        except EventError as exc:
            # Reported already with another result (the organiser's entry or
            # correction wins), or the event is over: nothing more to do here.
            log.info("event %s round %d table %d: the online result was not entered: %s",
                     event.id, number, table, exc.message)  # fmt: skip


def _seat_name(name: str, number: int) -> str:
    """The name shown at the seat: the player's, cut to a table's names, or ``Player n``."""
    cut = " ".join(name.split())[:MAX_NAME].strip()
    return cut or f"Player {number}"
