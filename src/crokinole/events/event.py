"""The event: a frozen value, the fold of its log; commands give log entries.

As a table is (DESIGN.md, "Server"), an event is rebuilt from its log
(:meth:`Event.fold`) and changed only by entries (:meth:`Event.apply`).
Each command (:meth:`Event.join`, :meth:`Event.pair_next`,
:meth:`Event.report` …) checks who asks and what, and either returns the
entries it makes or raises :class:`~crokinole.errors.EventError` with a
plain reason, changing nothing.  Time comes in as ``now``; nothing here
reads a clock or draws a random number (pairings are deterministic).

>>> organiser = Actor(account_id=1, organiser=True)
>>> settings = EventSettings(name="Tuesday league", format=Format.SWISS, rounds=2, venue=Venue.HALL)
>>> event = Event.fold([Event.create("ev1", "K7QM2P", 1, settings, now=0.0)])
>>> for name in ("Ann", "Bo", "Cy"):
...     event = event.run(event.add(organiser, name, now=1.0))
>>> event = event.run(event.check_in(organiser, "e1", now=2.0))
>>> event.run(event.pair_next(organiser, now=3.0)).rounds
Traceback (most recent call last):
...
crokinole.errors.EventError: round 1 needs at least 2 checked-in players; 1 have checked in
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, ClassVar

from crokinole.errors import ErrorCode, EventError
from crokinole.events.bracket import Bracket, bracket_pairings, playoff_seeds, seeded_bracket
from crokinole.events.codec import (
    entrant_from_dict,
    entrant_to_dict,
    pairing_from_dict,
    pairing_to_dict,
    result_from_dict,
    result_to_dict,
)
from crokinole.events.doubles import DoublesPlayer, pair_rotating
from crokinole.events.model import (
    MAX_ENTRANTS,
    Entrant,
    EntrantStatus,
    EventSettings,
    Format,
    MatchResult,
    Pairing,
    Person,
    Teams,
    Venue,
)
from crokinole.events.schedule import pool_round, pool_rounds, snake_pools
from crokinole.events.standings import Standing, Tally, standings, tallies
from crokinole.events.swiss import SwissEntrant, pair_swiss
from crokinole.rules.sheet import clean_name

__all__ = [
    "Actor",
    "Correction",
    "Entry",
    "Event",
    "EventStatus",
    "RoundState",
    "TableResult",
    "entry_from_dict",
]


class EventStatus(StrEnum):
    """Where the event is."""

    OPEN = "open"  # players join and check in; no round paired yet
    RUNNING = "running"  # round 1 has been paired
    FINISHED = "finished"  # over: nothing changes but corrections


@dataclass(frozen=True, slots=True)
class Actor:
    """Who asks: an account, a device (its claim), the organiser, or the server.

    Attributes:
        account_id: the logged-in account, if any.
        claim: the opaque key of the device (the server's hash of its token).
        organiser: set by the server when ``account_id`` is the event's organiser.
        server: the server itself (the result of an online table).
    """

    account_id: int | None = None
    claim: str | None = None
    organiser: bool = False
    server: bool = False


#: The server's own actor: results of online tables.
SERVER = Actor(server=True)


@dataclass(frozen=True, slots=True)
class TableResult:
    """A pairing's result as it stands: who reported it, and whether it is confirmed.

    Attributes:
        result: the games.
        reported_by: the side that reported it (0 or 1), or None for the
            organiser or the server.
        confirmed: whether it counts (confirmed by the other side, the
            organiser, or entered by the organiser or the server).
        at: when it was last changed.
    """

    result: MatchResult
    reported_by: int | None
    confirmed: bool
    at: float


@dataclass(frozen=True, slots=True)
class Correction:
    """A confirmed result the organiser changed: logged, and the standings re-ranked."""

    round: int
    table: int
    reason: str
    before: MatchResult | None
    after: MatchResult
    at: float


@dataclass(frozen=True)
class RoundState:
    """A round of the event: its pairings, whether it started, its results and tables.

    Attributes:
        number: from 1.
        pairings: the matches (byes included).
        started: whether the organiser started it (tables made, sheets open).
        results: each table's result as it stands, by table number.
        tables: each table's online tables (one per game), by table number.
        sheets: each table's score sheet id, by table number.
    """

    number: int
    pairings: tuple[Pairing, ...]
    started: bool = False
    results: Mapping[int, TableResult] = field(default_factory=dict)
    tables: Mapping[int, tuple[str, ...]] = field(default_factory=dict)
    sheets: Mapping[int, str] = field(default_factory=dict)

    @property
    def over(self) -> bool:
        """Every pairing has a confirmed result (byes count at once)."""
        return all(
            p.bye or (p.table in self.results and self.results[p.table].confirmed)
            for p in self.pairings
        )

    def pairing(self, table: int) -> Pairing:
        """The pairing at ``table``.

        Raises:
            EventError: ``bad_event`` when the round has no such table.
        """
        for pairing in self.pairings:
            if pairing.table == table:
                return pairing
        raise EventError(ErrorCode.BAD_EVENT, f"round {self.number} has no table {table}")


# ------------------------------------------------------------------ the log


@dataclass(frozen=True)
class Entry:
    """One entry of an event's log: its kind, its data (JSON), and when.

    The data's shape per kind is what :meth:`Event.apply` reads; the
    commands make entries, the store keeps ``to_dict()``.
    """

    kind: str
    data: Mapping[str, Any]
    at: float

    KINDS: ClassVar[frozenset[str]] = frozenset(
        {
            "created",
            "entrant_added",
            "entrant_status",
            "checked_in",
            "round_paired",
            "round_started",
            "table_opened",
            "sheet_opened",
            "result_reported",
            "result_confirmed",
            "result_corrected",
            "paused",
            "finished",
        }
    )

    def to_dict(self) -> dict[str, Any]:
        """The stored form."""
        return {"kind": self.kind, "data": dict(self.data), "at": self.at}


def entry_from_dict(data: Mapping[str, Any]) -> Entry:
    """An entry from its stored form.

    Raises:
        EventError: ``bad_event`` for an unknown kind or a malformed entry.
    """
    kind = data.get("kind") if isinstance(data, Mapping) else None
    if kind not in Entry.KINDS or not isinstance(data.get("data"), Mapping):
        raise EventError(ErrorCode.BAD_EVENT, f"not an event log entry: {data!r:.80}")
    return Entry(str(kind), dict(data["data"]), float(data.get("at", 0.0)))


def _refuse(code: ErrorCode, message: str) -> EventError:
    return EventError(code, message)


# ---------------------------------------------------------------- the event


@dataclass(frozen=True)
class Event:
    """An event as its log makes it.

    Attributes:
        id: the event's id.
        code: the join code.
        organiser: the account that created it.
        settings: what the organiser chose.
        created_at: when.
        entrants: in the order they entered (ids ``e1``, ``e2`` …).
        rounds: the rounds paired so far.
        status: open, running or finished.
        paused: whether the organiser paused it (no round starts).
        pools: the pools, fixed when round 1 is paired (pool formats).
        corrections: every correction, in order.
        version: the number of entries folded.
    """

    id: str
    code: str
    organiser: int
    settings: EventSettings
    created_at: float = 0.0
    entrants: tuple[Entrant, ...] = ()
    rounds: tuple[RoundState, ...] = ()
    status: EventStatus = EventStatus.OPEN
    paused: bool = False
    pools: tuple[tuple[str, ...], ...] = ()
    corrections: tuple[Correction, ...] = ()
    version: int = 0

    # ------------------------------------------------------------ folding

    @staticmethod
    def create(
        event_id: str, code: str, organiser: int, settings: EventSettings, *, now: float
    ) -> Entry:
        """The first entry of a new event's log."""
        return Entry(
            "created",
            {
                "id": event_id,
                "code": code,
                "organiser": organiser,
                "settings": settings.to_dict(),
            },
            now,
        )

    @staticmethod
    def imported(
        event_id: str,
        code: str,
        organiser: int,
        *,
        settings: EventSettings,
        entrants: Sequence[Entrant],
        matches: Sequence[tuple[Pairing, MatchResult | None]],
        now: float,
    ) -> tuple[Entry, ...]:
        """The log of an event played elsewhere (a CMN 1.0 import): finished, all confirmed.

        Raises:
            EventError: ``bad_event`` when a match names an unknown entrant
                or two matches share a round's table.
        """
        known = {e.id for e in entrants}
        entries = [Event.create(event_id, code, organiser, settings, now=now)]
        entries += [
            Entry("entrant_added", {"entrant": entrant_to_dict(replace(e, claim=None))}, now)
            for e in entrants
        ]
        by_round: dict[int, list[tuple[Pairing, MatchResult | None]]] = {}
        for pairing, result in matches:
            unknown = set(pairing.entrants) - known
            if unknown:
                raise _refuse(
                    ErrorCode.BAD_EVENT, f"a match names unknown players {sorted(unknown)}"
                )
            by_round.setdefault(pairing.round, []).append((pairing, result))
        # Pools and a bracket's seeds are not in CMN: they are drawn again as round 1 drew
        # them (by rating, then by entry), so the bracket and the standings come back.
        first_pools: tuple[tuple[str, ...], ...] = ()
        if settings.format is not Format.SWISS and entrants:
            shell = Event(event_id, code, organiser, settings)
            first_pools = shell._first_pools(entrants)
        for number in sorted(by_round):
            played = by_round[number]
            tables = [p.table for p, _ in played]
            if len(set(tables)) != len(tables):
                raise _refuse(ErrorCode.BAD_EVENT, f"round {number} has two matches at one table")
            data: dict[str, Any] = {
                "round": number,
                "pairings": [pairing_to_dict(p) for p, _ in played],
            }
            if first_pools and number == min(by_round):
                data["pools"] = [list(pool) for pool in first_pools]
            entries.append(Entry("round_paired", data, now))
            entries.append(Entry("round_started", {"round": number}, now))
            for pairing, result in played:
                if result is None:
                    continue
                data = {
                    "round": number,
                    "table": pairing.table,
                    "result": result_to_dict(result),
                    "side": None,
                    "confirmed": True,
                }
                entries.append(Entry("result_reported", data, now))
        entries.append(Entry("finished", {"imported": True}, now))
        return tuple(entries)

    @classmethod
    def fold(cls, entries: Iterable[Entry]) -> Event:
        """The event its log makes (the first entry is ``created``).

        Raises:
            EventError: ``bad_event`` for a log that does not start with ``created``.
        """
        iterator = iter(entries)
        first = next(iterator, None)
        if first is None or first.kind != "created":
            raise EventError(ErrorCode.BAD_EVENT, "an event's log starts with its creation")
        data = first.data
        event = cls(
            id=str(data["id"]),
            code=str(data["code"]),
            organiser=int(data["organiser"]),
            settings=EventSettings.from_dict(data["settings"]),
            created_at=first.at,
            version=1,
        )
        for entry in iterator:
            event = event.apply(entry)
        return event

    def run(self, entries: Sequence[Entry]) -> Event:
        """The event after ``entries`` (a command's answer)."""
        event = self
        for entry in entries:
            event = event.apply(entry)
        return event

    def apply(self, entry: Entry) -> Event:
        """The event after one entry (the entries were checked by the command that made them)."""
        data = entry.data
        kind = entry.kind
        event = self
        if kind == "entrant_added":
            event = replace(self, entrants=(*self.entrants, entrant_from_dict(data["entrant"])))
        elif kind == "entrant_status":
            event = self._with_entrant(str(data["entrant"]), status=EntrantStatus(data["status"]))
        elif kind == "checked_in":
            event = self._with_entrant(str(data["entrant"]), checked_in=True)
        elif kind == "round_paired":
            number = int(data["round"])
            pairings = tuple(pairing_from_dict(p) for p in data["pairings"])
            rounds = tuple(r for r in self.rounds if r.number != number)
            pools = tuple(tuple(p) for p in data.get("pools") or ()) or self.pools
            event = replace(
                self,
                rounds=(*rounds, RoundState(number, pairings)),
                status=EventStatus.RUNNING,
                pools=pools,
            )
        elif kind == "round_started":
            event = self._with_round(int(data["round"]), started=True)
        elif kind in ("table_opened", "sheet_opened"):
            number, table = int(data["round"]), int(data["table"])
            state = self._round(number)
            if kind == "table_opened":
                tables = dict(state.tables)
                tables[table] = (*tables.get(table, ()), str(data["table_id"]))
                event = self._with_round(number, tables=tables)
            else:
                sheets = dict(state.sheets)
                sheets[table] = str(data["sheet_id"])
                event = self._with_round(number, sheets=sheets)
        elif kind in ("result_reported", "result_confirmed", "result_corrected"):
            event = self._apply_result(kind, data, entry.at)
        elif kind == "paused":
            event = replace(self, paused=bool(data["paused"]))
        elif kind == "finished":
            event = replace(self, status=EventStatus.FINISHED)
        return replace(event, version=self.version + 1)

    def _apply_result(self, kind: str, data: Mapping[str, Any], at: float) -> Event:
        number, table = int(data["round"]), int(data["table"])
        state = self._round(number)
        results = dict(state.results)
        if kind == "result_confirmed":
            results[table] = replace(results[table], confirmed=True, at=at)
            return self._with_round(number, results=results)
        result = result_from_dict(data["result"])
        if kind == "result_reported":
            side = data.get("side")
            results[table] = TableResult(
                result, None if side is None else int(side), bool(data["confirmed"]), at
            )
            return self._with_round(number, results=results)
        before = results[table].result if table in results else None
        results[table] = TableResult(result, None, True, at)
        correction = Correction(number, table, str(data["reason"]), before, result, at)
        event = self._with_round(number, results=results)
        return replace(event, corrections=(*event.corrections, correction))

    def _with_entrant(self, entrant_id: str, **changes: Any) -> Event:
        return replace(
            self,
            entrants=tuple(
                replace(e, **changes) if e.id == entrant_id else e for e in self.entrants
            ),
        )

    def _with_round(self, number: int, **changes: Any) -> Event:
        return replace(
            self,
            rounds=tuple(replace(r, **changes) if r.number == number else r for r in self.rounds),
        )

    # ------------------------------------------------------------ queries

    def entrant(self, entrant_id: str) -> Entrant:
        """The entrant with that id.

        Raises:
            EventError: ``unknown_entrant``.
        """
        for entrant in self.entrants:
            if entrant.id == entrant_id:
                return entrant
        raise _refuse(ErrorCode.UNKNOWN_ENTRANT, f"this event has no player {entrant_id!r}")

    def entrant_of(self, actor: Actor) -> Entrant | None:
        """The entrant the actor is (by account, else by device claim), or None."""
        for entrant in self.entrants:
            if actor.account_id is not None and any(
                p.account_id == actor.account_id for p in entrant.members
            ):
                return entrant
        for entrant in self.entrants:
            if actor.claim is not None and entrant.claim == actor.claim:
                return entrant
        return None

    def _round(self, number: int) -> RoundState:
        for state in self.rounds:
            if state.number == number:
                return state
        raise EventError(ErrorCode.BAD_EVENT, f"round {number} has not been paired")

    @property
    def current_round(self) -> RoundState | None:
        """The latest round paired, or None before round 1."""
        return self.rounds[-1] if self.rounds else None

    def matches(self) -> tuple[tuple[Pairing, MatchResult | None], ...]:
        """Every counted match: confirmed results and byes, round by round."""
        counted: list[tuple[Pairing, MatchResult | None]] = []
        for state in self.rounds:
            for pairing in state.pairings:
                if pairing.bye:
                    if state.started or state.over:
                        counted.append((pairing, None))
                elif pairing.table in state.results and state.results[pairing.table].confirmed:
                    counted.append((pairing, state.results[pairing.table].result))
        return tuple(counted)

    def tallies(self) -> dict[str, Tally]:
        """Each entrant's record over the counted matches."""
        return tallies(self.settings, self.matches(), [e.id for e in self.entrants])

    def standings(self) -> tuple[Standing, ...]:
        """The standings, with their tie-breaks (:mod:`crokinole.events.standings`).

        Once there is a bracket (a knockout, or the playoffs seeded), the round
        each entrant reached in it ranks first (:attr:`TieBreak.BRACKET`): the
        champion, then the losing finalist, then the semi-finalists …; the
        settings' tie-breaks order those level on it.
        """
        return standings(self.settings, self.entrants, self.matches(), reached=self.reached())

    def reached(self) -> dict[str, float] | None:
        """Each bracket entrant's round reached (the champion: one past the final), or None.

        An entrant is in round ``r`` when it is a side of a round-``r`` match
        (a bye's winner is in the next round); entrants outside the bracket
        are left out (they count 0).
        """
        bracket = self.bracket()
        if bracket is None:
            return None
        reached: dict[str, float] = {}
        for number, matches in enumerate(bracket.rounds, 1):
            for match in matches:
                for side in match.sides:
                    if side is not None:
                        reached[side] = max(reached.get(side, 0), number)
                if match.winner is not None:
                    reached[match.winner] = max(reached.get(match.winner, 0), number + 1)
        return reached

    def _bracket_seeds(self) -> tuple[str, ...] | None:
        if self.settings.format is Format.ELIMINATION:
            return tuple(self.pools[0]) if self.pools else None
        if self.settings.format is not Format.POOLS_PLAYOFFS or not self.pools:
            return None
        if not self._pools_done():
            return None
        ranked = []
        pool_matches = [
            (p, r) for p, r in self.matches() if p.slot is None and p.stage.startswith("Pool")
        ]
        for pool in self.pools:
            members = [e for e in self.entrants if e.id in pool]
            mine = [(p, r) for p, r in pool_matches if set(p.entrants) <= set(pool)]
            ranked.append(tuple(s.id for s in standings(self.settings, members, mine)))
        return playoff_seeds(ranked, self.settings.playoff_size)

    def _pools_done(self) -> bool:
        done = pool_rounds(self.pools)
        pool_states = [r for r in self.rounds if any(p.slot is None for p in r.pairings)]
        return len(pool_states) >= done and all(r.over for r in pool_states)

    def bracket(self) -> Bracket | None:
        """The bracket with the winners so far (elimination, and the playoffs once seeded)."""
        seeds = self._bracket_seeds()
        if seeds is None:
            return None
        winners: dict[tuple[int, int], str] = {}
        for pairing, result in self.matches():
            if pairing.slot is None or result is None:
                continue
            side = result.winner(self.settings.rules, pairing.best_of)
            if side is not None:
                winners[pairing.slot] = pairing.sides[side][0]
        return seeded_bracket(seeds, winners)

    @property
    def complete(self) -> bool:
        """Whether the format has no round left to play (every round played and over)."""
        last = self.current_round
        if last is None or not last.over:
            return False
        fmt = self.settings.format
        if fmt is Format.SWISS:
            return last.number >= self.settings.rounds
        if fmt in (Format.ROUND_ROBIN, Format.POOLS):
            return self._pools_done()
        bracket = self.bracket()
        return bracket is not None and bracket.champion is not None

    # ------------------------------------------------------------ commands

    def _organiser(self, actor: Actor, what: str) -> None:
        if not actor.organiser:
            raise _refuse(ErrorCode.NOT_ORGANISER, f"only the organiser can {what}")

    def _not_finished(self) -> None:
        if self.status is EventStatus.FINISHED:
            raise _refuse(ErrorCode.EVENT_OVER, "the event is over")

    def _name(self, name: object) -> str:
        try:
            cleaned = clean_name(name)
        except ValueError as exc:
            raise _refuse(ErrorCode.BAD_NAME, str(exc)) from None
        taken = {e.name.casefold() for e in self.entrants}
        if cleaned.casefold() in taken:
            raise _refuse(ErrorCode.BAD_NAME, f"there is already a player named {cleaned}")
        return cleaned

    def _joined_round(self) -> int:
        last = self.current_round
        if last is None:
            return 1
        return last.number + 1 if last.started else last.number

    def _entering(
        self,
        name: object,
        members: Sequence[Person] | None,
        *,
        rating: float,
        claim: str | None,
        now: float,
    ) -> tuple[Entry, ...]:
        self._not_finished()
        if len(self.entrants) >= MAX_ENTRANTS:
            raise _refuse(ErrorCode.BAD_EVENT, f"an event takes at most {MAX_ENTRANTS} players")
        cleaned = self._name(name)
        people = tuple(members) if members else (Person(cleaned),)
        fixed = self.settings.teams is Teams.FIXED
        if fixed and len(people) != 2:
            raise _refuse(ErrorCode.BAD_EVENT, "a team of this doubles event has two players")
        if not fixed and len(people) != 1:
            raise _refuse(ErrorCode.BAD_EVENT, "each player of this event enters alone")
        online_only = self.settings.venue is Venue.ONLINE
        if online_only and any(p.account_id is None for p in people):
            raise _refuse(
                ErrorCode.NOT_LOGGED_IN, "an online event's players play with an account: log in"
            )
        accounts = {p.account_id for e in self.entrants for p in e.members} - {None}
        for person in people:
            if person.account_id is not None and person.account_id in accounts:
                raise _refuse(ErrorCode.TAKEN, f"{person.name} has already entered this event")
        late = self.status is EventStatus.RUNNING
        entrant = Entrant(
            id=f"e{len(self.entrants) + 1}",
            name=cleaned,
            members=people,
            rating=float(rating),
            checked_in=late,
            joined_round=self._joined_round(),
            claim=claim,
        )
        return (Entry("entrant_added", {"entrant": entrant_to_dict(entrant)}, now),)

    def join(
        self,
        actor: Actor,
        name: object,
        *,
        rating: float = 0.0,
        members: Sequence[Person] | None = None,
        bot: bool = False,
        now: float,
    ) -> tuple[Entry, ...]:
        """A player (or a fixed team) enters by the link or code, before round 1.

        Online play needs an account; in a hall a name will do, and the
        device's claim lets that phone enter the player's results.  ``bot``:
        the actor's account is a bot's.
        """
        if self.status is not EventStatus.OPEN:
            raise _refuse(
                ErrorCode.ROUND_STARTED,
                "the event has started: ask the organiser to enter you",
            )
        mine = self.entrant_of(actor)
        if mine is not None:
            raise _refuse(ErrorCode.TAKEN, f"you have already joined as {mine.name}")
        if actor.account_id is None and actor.claim is None:
            raise _refuse(ErrorCode.NO_DEVICE, "joining needs an account or a device")
        if members is None:
            members = (Person(clean_name(name), actor.account_id, bot),)
        return self._entering(name, members, rating=rating, claim=actor.claim, now=now)

    def add(
        self,
        actor: Actor,
        name: object,
        *,
        account_id: int | None = None,
        rating: float = 0.0,
        members: Sequence[Person] | None = None,
        bot: bool = False,
        now: float,
    ) -> tuple[Entry, ...]:
        """The organiser enters a player (or a team); after round 1 this is a late entry.

        ``bot``: the player's account (``account_id``) is a bot's."""
        self._organiser(actor, "add players")
        if members is None:
            try:
                members = (Person(clean_name(name), account_id, bot),)
            except ValueError as exc:
                raise _refuse(ErrorCode.BAD_NAME, str(exc)) from None
        return self._entering(name, members, rating=rating, claim=None, now=now)

    def check_in(self, actor: Actor, entrant_id: str, *, now: float) -> tuple[Entry, ...]:
        """The player (or the organiser for them) says they are here."""
        self._not_finished()
        entrant = self.entrant(entrant_id)
        mine = self.entrant_of(actor)
        if not actor.organiser and (mine is None or mine.id != entrant_id):
            raise _refuse(ErrorCode.FORBIDDEN, f"only {entrant.name} or the organiser can check in")
        if entrant.checked_in:
            return ()
        return (Entry("checked_in", {"entrant": entrant_id}, now),)

    def set_status(
        self, actor: Actor, entrant_id: str, status: EntrantStatus | str, *, now: float
    ) -> tuple[Entry, ...]:
        """The organiser drops, pauses or resumes a player (their played games stay)."""
        self._organiser(actor, "drop or pause players")
        self._not_finished()
        entrant = self.entrant(entrant_id)
        try:
            new = EntrantStatus(status)
        except ValueError:
            raise _refuse(
                ErrorCode.BAD_EVENT, f"a player is active, paused or dropped, not {status!r}"
            ) from None
        if entrant.status is new:
            return ()
        return (Entry("entrant_status", {"entrant": entrant_id, "status": new.value}, now),)

    def set_paused(self, actor: Actor, paused: bool, *, now: float) -> tuple[Entry, ...]:
        """The organiser pauses the event (no round starts) or resumes it."""
        self._organiser(actor, "pause the event")
        self._not_finished()
        if self.paused is paused:
            return ()
        return (Entry("paused", {"paused": paused}, now),)

    def finish(self, actor: Actor, *, now: float) -> tuple[Entry, ...]:
        """The organiser ends the event (results still unconfirmed do not count)."""
        self._organiser(actor, "end the event")
        self._not_finished()
        return (Entry("finished", {}, now),)

    def _playing(self, number: int) -> list[Entrant]:
        """The entrants who can be paired in round ``number``."""
        return [
            e
            for e in self.entrants
            if e.status is EntrantStatus.ACTIVE and e.checked_in and e.joined_round <= number
        ]

    def _pairings_for(self, number: int) -> tuple[tuple[Pairing, ...], tuple[tuple[str, ...], ...]]:
        """Round ``number``'s pairings by the format, and the pools when round 1 fixes them."""
        settings = self.settings
        playing = self._playing(number)
        least = 4 if settings.teams is Teams.ROTATING else 2
        if number == 1 and len(playing) < least:
            raise _refuse(
                ErrorCode.BAD_EVENT,
                f"round 1 needs at least {least} checked-in players; "
                f"{len(playing)} have checked in",
            )
        fmt = settings.format
        if fmt is Format.SWISS:
            return self._swiss_round(number, playing), ()
        pools = self.pools or self._first_pools(playing)
        new_pools = () if self.pools else pools
        if fmt is not Format.ELIMINATION:
            pool_played = sum(1 for r in self.rounds if any(p.slot is None for p in r.pairings))
            if pool_played < pool_rounds(pools):
                present = {e.id for e in playing}
                pairings = pool_round(pools, pool_played + 1)
                kept = (_drop_absent(replace(p, round=number), present) for p in pairings)
                return tuple(p for p in kept if p.sides[0]), new_pools
            if fmt is not Format.POOLS_PLAYOFFS:
                raise _refuse(ErrorCode.EVENT_OVER, "every pool's round robin has been played")
        bracket = replace(self, pools=pools).bracket()
        if bracket is None or bracket.champion is not None:
            raise _refuse(ErrorCode.EVENT_OVER, "the bracket has its champion")
        pairings = bracket_pairings(bracket, number, settings.best_of)
        if not pairings:
            raise _refuse(ErrorCode.ROUND_NOT_OVER, f"no bracket match is ready for round {number}")
        return pairings, new_pools

    def _swiss_round(self, number: int, playing: Sequence[Entrant]) -> tuple[Pairing, ...]:
        settings = self.settings
        if number > settings.rounds:
            raise _refuse(ErrorCode.EVENT_OVER, f"all {settings.rounds} rounds have been played")
        record = self.tallies()
        if settings.teams is Teams.ROTATING:
            return pair_rotating([_doubles_player(e, record[e.id]) for e in playing], number)
        return pair_swiss([_swiss_entrant(e, record[e.id]) for e in playing], number)

    def _first_pools(self, playing: Sequence[Entrant]) -> tuple[tuple[str, ...], ...]:
        """Round 1 fixes the seeds: by rating, then by entry; pools snake-seeded."""
        seeds = tuple(e.id for e in sorted(playing, key=lambda e: (-e.rating, _order(e.id))))
        fmt = self.settings.format
        if fmt is Format.ELIMINATION:
            return (seeds,)
        count = 1 if fmt is Format.ROUND_ROBIN else self.settings.pools
        if len(seeds) < 2 * count:
            raise _refuse(
                ErrorCode.BAD_EVENT,
                f"{count} pools need at least {2 * count} players, not {len(seeds)}",
            )
        return snake_pools(seeds, count)

    def _paired_entry(
        self, number: int, pairings: Sequence[Pairing], pools: Sequence[Sequence[str]], now: float
    ) -> Entry:
        data: dict[str, Any] = {
            "round": number,
            "pairings": [pairing_to_dict(p) for p in pairings],
        }
        if pools:
            data["pools"] = [list(p) for p in pools]
        return Entry("round_paired", data, now)

    def pair_next(self, actor: Actor, *, now: float) -> tuple[Entry, ...]:
        """The organiser pairs the next round (the format decides who meets whom)."""
        self._organiser(actor, "pair a round")
        self._not_finished()
        last = self.current_round
        if last is not None and not last.over:
            waiting = sum(
                1
                for p in last.pairings
                if not p.bye and not (p.table in last.results and last.results[p.table].confirmed)
            )
            raise _refuse(
                ErrorCode.ROUND_NOT_OVER,
                f"round {last.number} is not over: {waiting} result(s) still to confirm",
            )
        if self.complete:
            raise _refuse(ErrorCode.EVENT_OVER, "every round has been played: end the event")
        number = 1 if last is None else last.number + 1
        pairings, pools = self._pairings_for(number)
        return (self._paired_entry(number, pairings, pools, now),)

    def repair(
        self,
        actor: Actor,
        number: int,
        *,
        now: float,
        pairings: Sequence[Pairing] | None = None,
    ) -> tuple[Entry, ...]:
        """Pair round ``number`` again before it starts: by the format, or as the organiser says."""
        self._organiser(actor, "pair a round again")
        self._not_finished()
        last = self.current_round
        if last is None or last.number != number:
            raise _refuse(ErrorCode.BAD_EVENT, f"round {number} is not the round being paired")
        if last.started:
            raise _refuse(
                ErrorCode.ROUND_STARTED, f"round {number} has started: it cannot be paired again"
            )
        before = replace(self, rounds=self.rounds[:-1])
        if number == 1:
            before = replace(before, pools=())
        if pairings is None:
            new, pools = before._pairings_for(number)
        else:
            new, pools = self._checked_pairings(number, pairings), ()
        return (self._paired_entry(number, new, pools, now),)

    def _checked_pairings(self, number: int, pairings: Sequence[Pairing]) -> tuple[Pairing, ...]:
        known = {e.id for e in self.entrants}
        seen: set[str] = set()
        per_side = 2 if self.settings.teams is Teams.ROTATING else 1
        tables: set[int] = set()
        checked = []
        for index, pairing in enumerate(pairings, 1):
            _check_sides(pairing, index, per_side)
            for entrant_id in pairing.entrants:
                if entrant_id not in known:
                    raise _refuse(ErrorCode.UNKNOWN_ENTRANT, f"there is no player {entrant_id!r}")
                if entrant_id in seen:
                    name = self.entrant(entrant_id).name
                    raise _refuse(ErrorCode.BAD_EVENT, f"{name} is paired twice in round {number}")
                seen.add(entrant_id)
            table = pairing.table or index
            if table in tables:
                raise _refuse(ErrorCode.BAD_EVENT, f"two pairings have table {table}")
            tables.add(table)
            checked.append(
                replace(
                    pairing, round=number, table=table, stage=pairing.stage or f"Round {number}"
                )
            )
        if not checked:
            raise _refuse(ErrorCode.BAD_EVENT, "a round has at least one pairing")
        return tuple(checked)

    def start_round(self, actor: Actor, number: int, *, now: float) -> tuple[Entry, ...]:
        """The organiser starts the round: online tables are made, sheets open."""
        self._organiser(actor, "start a round")
        self._not_finished()
        if self.paused:
            raise _refuse(ErrorCode.BAD_EVENT, "the event is paused: resume it first")
        state = self._round(number)
        if state is not self.current_round:
            raise _refuse(ErrorCode.BAD_EVENT, f"round {number} is not the latest round")
        if state.started:
            raise _refuse(ErrorCode.ROUND_STARTED, f"round {number} has already started")
        entries = [Entry("round_started", {"round": number}, now)]
        return tuple(entries)

    def table_opened(
        self, number: int, table: int, table_id: str, *, now: float, game: int = 1
    ) -> tuple[Entry, ...]:
        """The server made an online table for a pairing's game (``game`` from 1)."""
        state = self._round(number)
        pairing = state.pairing(table)
        if pairing.bye:
            raise _refuse(ErrorCode.BAD_EVENT, f"table {table} of round {number} is a bye")
        if table_id in state.tables.get(table, ()):
            return ()
        data = {"round": number, "table": table, "table_id": table_id, "game": game}
        return (Entry("table_opened", data, now),)

    def sheet_opened(
        self, actor: Actor, number: int, table: int, sheet_id: str, *, now: float
    ) -> tuple[Entry, ...]:
        """A player of the pairing (or the organiser) opened its score sheet (once)."""
        state = self._round(number)
        pairing = state.pairing(table)
        self._side_of(actor, pairing, "open this board's sheet")
        if table in state.sheets:
            return ()
        return (
            Entry("sheet_opened", {"round": number, "table": table, "sheet_id": sheet_id}, now),
        )

    def _side_of(self, actor: Actor, pairing: Pairing, what: str) -> int | None:
        """The actor's side in the pairing (None for the organiser or the server)."""
        if actor.server or actor.organiser:
            return None
        mine = self.entrant_of(actor)
        if mine is not None:
            for side, ids in enumerate(pairing.sides):
                if mine.id in ids:
                    return side
        raise _refuse(
            ErrorCode.FORBIDDEN,
            f"only the players of table {pairing.table} or the organiser can {what}",
        )

    def _checked_result(self, pairing: Pairing, result: MatchResult) -> MatchResult:
        winner = result.winner(self.settings.rules, pairing.best_of)
        if winner is None and pairing.slot is not None:
            raise _refuse(
                ErrorCode.BAD_RESULT,
                "a playoff match needs a winner: play extra rounds until one side leads",
            )
        return result

    def _closing(self, event: Event, entries: list[Entry], now: float) -> tuple[Entry, ...]:
        after = event.run(entries)
        if after.status is not EventStatus.FINISHED and after.complete:
            entries.append(Entry("finished", {"automatic": True}, now))
        return tuple(entries)

    def report(
        self, actor: Actor, number: int, table: int, result: MatchResult, *, now: float
    ) -> tuple[Entry, ...]:
        """A result for a pairing: from a side (the other confirms), the organiser or the server.

        A side's report waits for the other side (or the organiser) to
        confirm; the same result reported by the other side confirms it; a
        different one replaces it and waits for the first side.
        """
        self._not_finished()
        state = self._round(number)
        pairing = state.pairing(table)
        if pairing.bye:
            raise _refuse(ErrorCode.BAD_RESULT, f"table {table} is a bye: it has no result")
        if not state.started:
            raise _refuse(ErrorCode.BAD_RESULT, f"round {number} has not started")
        side = self._side_of(actor, pairing, "enter its result")
        self._checked_result(pairing, result)
        current = state.results.get(table)
        if current is not None and current.confirmed:
            if current.result == result:
                return ()
            raise _refuse(
                ErrorCode.CONFLICT,
                f"table {table}'s result is confirmed: the organiser can correct it",
            )
        if (
            current is not None
            and side is not None
            and current.reported_by not in (None, side)
            and current.result == result
        ):
            entry = Entry("result_confirmed", {"round": number, "table": table, "by": side}, now)
            return self._closing(self, [entry], now)
        data = {
            "round": number,
            "table": table,
            "result": result_to_dict(result),
            "side": side,
            "confirmed": side is None,
        }
        return self._closing(self, [Entry("result_reported", data, now)], now)

    def confirm(self, actor: Actor, number: int, table: int, *, now: float) -> tuple[Entry, ...]:
        """The other side (or the organiser) confirms a reported result: it counts."""
        self._not_finished()
        state = self._round(number)
        pairing = state.pairing(table)
        current = state.results.get(table)
        if current is None:
            raise _refuse(ErrorCode.BAD_RESULT, f"table {table} has no result to confirm yet")
        if current.confirmed:
            return ()
        side = self._side_of(actor, pairing, "confirm its result")
        if side is not None and side == current.reported_by:
            raise _refuse(
                ErrorCode.FORBIDDEN,
                "the other side or the organiser confirms the result you entered",
            )
        entry = Entry("result_confirmed", {"round": number, "table": table, "by": side}, now)
        return self._closing(self, [entry], now)

    def correct(
        self,
        actor: Actor,
        number: int,
        table: int,
        result: MatchResult,
        reason: object,
        *,
        now: float,
    ) -> tuple[Entry, ...]:
        """The organiser enters or changes a result (logged with the reason; re-ranks at once).

        A bracket match's winner cannot change once the next bracket round
        is paired with it.
        """
        self._organiser(actor, "correct a result")
        state = self._round(number)
        pairing = state.pairing(table)
        if pairing.bye:
            raise _refuse(ErrorCode.BAD_RESULT, f"table {table} is a bye: it has no result")
        words = " ".join(str(reason or "").split())
        if not 1 <= len(words) <= 200:
            raise _refuse(ErrorCode.BAD_REQUEST, "say why the result changes (1 to 200 characters)")
        self._checked_result(pairing, result)
        current = state.results.get(table)
        if current is not None and current.confirmed and current.result == result:
            return ()
        if pairing.slot is not None and current is not None and number != self.rounds[-1].number:
            rules = self.settings.rules
            if current.result.winner(rules, pairing.best_of) != result.winner(
                rules, pairing.best_of
            ):
                raise _refuse(
                    ErrorCode.ROUND_STARTED,
                    "the next bracket round was paired with this match's winner: "
                    "its winner cannot change now",
                )
        data = {"round": number, "table": table, "result": result_to_dict(result), "reason": words}
        entries = [Entry("result_corrected", data, now)]
        if self.status is EventStatus.FINISHED:
            return tuple(entries)
        return self._closing(self, entries, now)

    # ------------------------------------------------------------ the view

    def names(self, ids: Sequence[str]) -> str:
        """The names of a side: "Ann", or "Ann & Bo"."""
        by_id = self._names_by_id
        return " & ".join(by_id.get(i, i) for i in ids) if ids else "bye"

    @functools.cached_property
    def _names_by_id(self) -> dict[str, str]:
        # Kept in the instance's __dict__ (a cached_property writes past the frozen
        # __setattr__); a changed event is a new instance, so this never goes stale.
        return {e.id: e.name for e in self.entrants}


def _check_sides(pairing: Pairing, index: int, per_side: int) -> None:
    for side in pairing.sides:
        if side and len(side) != per_side:
            raise _refuse(ErrorCode.BAD_EVENT, f"table {index}: a side has {per_side} player(s)")
    if not pairing.sides[0]:
        raise _refuse(ErrorCode.BAD_EVENT, f"table {index}: the first side is empty")


def _order(entrant_id: str) -> tuple[int, str]:
    digits = entrant_id[1:]
    return (int(digits), entrant_id) if digits.isdigit() else (1 << 30, entrant_id)


def _swiss_entrant(entrant: Entrant, tally: Tally) -> SwissEntrant:
    return SwissEntrant(
        id=entrant.id,
        score=tally.match_points,
        rating=entrant.rating,
        opponents=frozenset(tally.opponents),
        byes=tally.byes,
        firsts=tally.firsts,
        last_first=tally.last_first,
    )


def _doubles_player(entrant: Entrant, tally: Tally) -> DoublesPlayer:
    partners: dict[str, int] = {}
    for other in tally.partners:
        partners[other] = partners.get(other, 0) + 1
    opponents: dict[str, int] = {}
    for other in tally.opponents:
        opponents[other] = opponents.get(other, 0) + 1
    return DoublesPlayer(
        id=entrant.id,
        score=tally.match_points,
        rating=entrant.rating,
        partners=partners,
        opponents=opponents,
        byes=tally.byes,
    )


def _drop_absent(pairing: Pairing, present: set[str]) -> Pairing:
    """A round-robin pairing with a dropped or paused player: the other side has a bye."""
    sides = [tuple(i for i in side if i in present) for side in pairing.sides]
    if not sides[0] and sides[1]:
        sides = [sides[1], ()]
    return replace(pairing, sides=(sides[0], sides[1]))
