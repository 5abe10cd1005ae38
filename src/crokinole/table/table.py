"""The table: one game's seats, people, clocks and game, as a pure value.

A :class:`Table` never changes.  :meth:`Table.apply` checks a command,
decides the events it causes and folds them into a new table; a refused
command raises :class:`~crokinole.errors.TableError` and, the table being a
value, changes nothing.  :meth:`Table.fold` applies one stored event, so
``Table.replay(events)`` rebuilds a table from its event log exactly.

Time is an argument (``now``, server seconds); randomness comes from the
table's ``seed`` (the human hand's noise for event ``v`` draws from
``np.random.default_rng([seed, v])``), so a table is deterministic.

Decisions taken where the issue and the contract are silent:

* **Seating.**  The host of a party sits at the first seat; a player who
  joins sits at the first empty seat if there is one (anyone may move
  before the start).  Seat commands (take, move, CPU, settings) work in the
  lobby and after a game, never during one (``in_game``).
* **Leaving mid-game.**  A person who leaves (or is removed) during a game
  hands their seat to a CPU of the stand-in level for the rest of the game
  (the seat then holds ``Cpu``); when no player is left, the game is
  abandoned and the table closes.
* **Stand-in.**  A disconnected person's turn is taken over after
  ``standin_grace``; the CPU keeps the seat until a turn of that seat starts
  with its person connected again.  While it plays, the person's own shots
  are refused (``not_your_turn``).  Solo tables never stand in.
* **Ready.**  The next round goes on when every *connected* seated
  person pressed, and at least one who pressed is connected (or pressing
  now): a disconnection, or one who pressed coming back, can complete it,
  but a table nobody is at starts nothing (a game for nobody would count
  in their records).
* **Rematch** (a party).  After a game a seated player offers a rematch
  (``Rematch``: it counts as their acceptance); it is open until
  ``rematch_until`` (``Timings.rematch_offer`` later).  The next game
  starts when every seated person accepted *and is connected*, and every
  seat is filled: a player who closed the tab never counts as agreeing
  (they accept when they are back, or the host fills their seat).  Any
  seated player may decline (``DeclineRematch``): the offer is withdrawn,
  as it is when it lapses unanswered (a deadline).  Another may then be
  offered.
* **Deadlines** fire at the time the server ticks, and the next turn's
  clock starts then: after a restart, every player gets a full turn.
* **Solo.**  One press of Next starts the next round and one Rematch the
  next game; Leave is Resign; joining and seat commands are ``solo_table``.
* **The hand** perturbs a person's aimed shot only: a CPU's (or a
  stand-in's) shot already carries its level's execution noise.
* Connect and Disconnect on a closed table do nothing (no error).
* **Hints.**  A player may take a hint (or a heat map) on their own
  turn where the settings allow them (never at a ranked table: ``no_hints``);
  each is counted for the seat in ``hints_used``, from zero each game.
* **Ranked.**  A ranked table is made with its players seated and its game
  started; they count as away until they connect (a stand-in takes the turn
  of one who does not come within ``standin_grace``).  Anyone else's command
  (join, watch, act) is ``ranked_table``, and so are rule and seat changes,
  Start and Rematch by its players.  A player who leaves or resigns during
  the game abandons it: it ends at once (``abandoned``), their seat empty.
  The names are the accounts': ``rename`` is ``ranked_table``.
* **No-shows.**  At a ranked table a seat's first turn of a game has no
  stand-in and no ditch: if its player has not shot by the end of that turn's
  clock (``turn_time + turn_grace``, the ranked clock), the game is aborted
  (``GameAborted``, then ``GameFinished`` abandoned) and is not rated.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, TypeVar

import numpy as np

from crokinole.ai import Level
from crokinole.board import Seat, Shot, is_real_number, is_whole_number
from crokinole.errors import (
    CrokinoleError,
    IllegalActionError,
    IllegalPlacement,
    InvalidRecordError,
    InvalidShotError,
    NotYourTurn,
    TableError,
)
from crokinole.rules import Game, Phase, ShotReport
from crokinole.rules.game import seat_name
from crokinole.table.commands import (
    HINT_KINDS,
    REACTIONS,
    ChangeSettings,
    Command,
    Connect,
    DeclineRematch,
    Disconnect,
    Join,
    Leave,
    MoveMember,
    NextRound,
    React,
    Rematch,
    Remove,
    Rename,
    Resign,
    SetCpu,
    Shoot,
    Start,
    TakeHint,
    TakeSeat,
    Tick,
)
from crokinole.table.events import (
    Closed,
    Event,
    GameAborted,
    GameFinished,
    GameStarted,
    HintTaken,
    HostChanged,
    MemberJoined,
    MemberLeft,
    NextPressed,
    Presence,
    RankedSeated,
    Reacted,
    RematchDeclined,
    RematchLapsed,
    RematchOffered,
    RematchVoted,
    Renamed,
    RoundStarted,
    SeatChanged,
    SeatNamed,
    SettingsChanged,
    ShotPlayed,
    StandInOff,
    StandInOn,
    TableCreated,
    TurnTimedOut,
    seat_from_name,
)
from crokinole.table.members import (
    Cpu,
    Member,
    Occupant,
    Person,
    RankedPlayer,
    SeatRating,
    check_name,
    occupant_from_dict,
    occupant_to_dict,
)
from crokinole.table.settings import (
    HAND_NOISE,
    RANKED_TURN_TIME,
    Hand,
    Kind,
    TableSettings,
    Timings,
)

__all__ = ["MAX_SPECTATORS", "ME", "Deadline", "DeadlineKind", "Played", "Stage", "Table"]

#: Spectators a party takes at most.
MAX_SPECTATORS = 32
#: A solo table's seat for the device itself (``Table.create(seats=...)``).
ME = "me"


class Stage(StrEnum):
    """Where a table stands."""

    LOBBY = "lobby"  # a party being set up
    PLAYING = "playing"
    FINISHED = "finished"  # a game ended; a rematch or new settings may follow
    CLOSED = "closed"  # takes no more commands


class DeadlineKind(StrEnum):
    """What happens at a deadline (see :meth:`Table.next_deadline`)."""

    TURN = "turn"  # the shooter's clock ran out: the disc goes to the ditch (R3)
    STANDIN = "standin"  # the missing shooter's seat is played by the stand-in CPU
    ROUND = "round"  # the round result has been shown long enough: next round
    NO_SHOW = "no_show"  # a ranked seat's first turn ran out unplayed: the game is aborted
    REMATCH = "rematch"  # the rematch offered was not answered in time: it lapses


@dataclass(frozen=True, slots=True)
class Deadline:
    """The next thing the table's clock will do, at server time ``at``."""

    at: float
    kind: DeadlineKind


@dataclass(frozen=True, slots=True)
class Played:
    """A shot or a timeout as it happened, for views: ``report`` took ``before`` to ``after``."""

    report: ShotReport
    before: Game
    after: Game


def _refuse(code: str, message: str) -> TableError:
    return TableError(code, message)


def _seat_word(seat: Seat) -> str:
    return seat.name.lower()


def _seat_text(seat: object) -> str:
    """A seat as a player reads it in a message (``east``), whatever was sent."""
    return _seat_word(seat) if isinstance(seat, Seat) else repr(seat)


@dataclass(frozen=True, slots=True)
class Table:
    """A table: its people, seats, settings, clocks and game, at one version.

    Attributes:
        id: the table's id (32 hex digits from the server).
        kind: party or solo.
        code: the party's code (None for solo).
        version: the version of the last event folded in (1 after creation's first).
        created_at: server time of creation.
        host: the host's mid (None: nobody).
        settings: house rules.
        timings: fixed waits.
        seed: the root of the table's randomness (the human hand).
        members: the members, in join order (spectators included).
        seats: every seat of the layout → its occupant, or None if empty.
        stage: lobby, playing, finished or closed.
        game: the current (or last) game; never mutated (copied, then played).
        game_number: games started so far.
        standing_in: seats whose missing person a CPU plays for.
        turn_started: server time the current turn started (None between turns).
        round_over_at: server time the round result appeared (None otherwise).
        next_pressed: mids that pressed Next for this round result.
        rematch_votes: mids that accepted the rematch offered (its offerer first).
        rematch_until: server time the rematch offered lapses (None: none is).
        joined: members who ever joined (the next mid is ``m{joined + 1}``).
        people_seats: the seats people held when the current (or last) game
            started (a seat a stand-in took over for the rest of a game was
            still played against a person: the records count it so).
        ratings: a ranked table's seats → the rating shown there (else empty).
        turns: each seat's turns (shots and timeouts) in the current game.
        standin_turns: the shots a CPU played for each seat's person in the
            current game (a stand-in, or a CPU given the seat).
        hints_used: the hints and heat maps each seat took in the current
            (or last) game: each kind counts once a turn, however often the
            player asks again (a heat map follows the disc as it moves).
        hinted: the (seat, kind, turn) of each help taken in the current
            game; the turn is the number of the game's actions before it.
        no_show: the seat whose player did not take a first shot, when the
            last game was aborted for it (ranked tables; else None).
        seat_names: on one device, the names its people gave their seats
            (a seat left out is named after itself).
        last_report: the last shot or timeout (not stored, not compared).
        shot_reports: the shots and timeouts of the last ``apply`` by event
            version (not stored, not compared).

    A party, from creation to a first shot:

    >>> from crokinole.board import Seat, Shot
    >>> table, events = Table.create(
    ...     id="t1", kind="party", code="ABC234", host_device="dev-ann", host_name="Ann",
    ...     settings=TableSettings.for_kind("party", hand="steady"), seed=7, now=100.0)
    >>> log = list(events)
    >>> [e.TYPE for e in events]
    ['table_created', 'member_joined', 'host_changed', 'seat_changed']
    >>> table.version, table.stage.value, table.seats[Seat.SOUTH]
    (4, 'lobby', Person(mid='m1'))
    >>> table, events = table.apply(Join("dev-bob", "Bob"), now=101.0)
    >>> [(e.TYPE, e.version) for e in events]
    [('member_joined', 5), ('seat_changed', 6)]
    >>> log += events
    >>> table.apply(Start("dev-bob"), now=102.0)
    Traceback (most recent call last):
    ...
    crokinole.errors.TableError: only the host (Ann) can do that
    >>> table, events = table.apply(Start("dev-ann"), now=102.0)
    >>> log += events
    >>> events[0].TYPE, table.game.current_seat
    ('game_started', <Seat.SOUTH: 270.0>)
    >>> table.apply(Shoot("dev-bob", Seat.NORTH, Shot(0.0, 0.0, 28.0)), now=103.0)
    Traceback (most recent call last):
    ...
    crokinole.errors.TableError: it is South's turn
    >>> table, events = table.apply(
    ...     Shoot("dev-ann", Seat.SOUTH, Shot(0.0, 0.0, 28.0), expected_version=7), now=104.0)
    >>> log += events
    >>> events[0].TYPE, table.last_report.report.valid, table.game.current_seat
    ('shot_played', True, <Seat.NORTH: 90.0>)

    A refused command raises and changes nothing; the log replays to the table:

    >>> table.apply(Shoot("dev-ann", Seat.SOUTH, Shot(0.0, 0.0, 28.0), expected_version=7), 105.0)
    Traceback (most recent call last):
    ...
    crokinole.errors.TableError: the table moved on (version 8, not 7): look again
    >>> Table.replay(log) == table, Table.from_dict(table.to_dict()) == table
    (True, True)
    >>> table.next_deadline() is None  # no turn clock, everyone connected
    True
    """

    id: str
    kind: Kind
    code: str | None
    version: int
    created_at: float
    host: str | None
    settings: TableSettings
    timings: Timings
    seed: int
    members: tuple[Member, ...]
    seats: dict[Seat, Occupant | None]
    stage: Stage
    game: Game | None
    game_number: int
    standing_in: frozenset[Seat]
    turn_started: float | None
    round_over_at: float | None
    next_pressed: frozenset[str]
    rematch_votes: frozenset[str]
    joined: int
    people_seats: frozenset[Seat] = frozenset()
    ratings: dict[Seat, SeatRating] = field(default_factory=dict)
    turns: dict[Seat, int] = field(default_factory=dict)
    standin_turns: dict[Seat, int] = field(default_factory=dict)
    hints_used: dict[Seat, int] = field(default_factory=dict)
    hinted: frozenset[tuple[Seat, str, int]] = frozenset()
    no_show: Seat | None = None
    seat_names: dict[Seat, str] = field(default_factory=dict)
    rematch_until: float | None = None
    last_report: Played | None = field(default=None, compare=False, repr=False)
    shot_reports: dict[int, Played] = field(default_factory=dict, compare=False, repr=False)

    # ------------------------------------------------------------ creating

    @classmethod
    def create(
        cls,
        *,
        id: str,
        kind: Kind | str,
        code: str | None,
        host_device: str,
        host_name: str,
        settings: TableSettings,
        timings: Timings | None = None,
        seed: int,
        now: float,
        seats: Mapping[Seat, str] | None = None,
        names: Mapping[Seat, str] | None = None,
    ) -> tuple[Table, list[Event]]:
        """A new table and its first events.

        A party starts in the lobby with its host at the first seat.  A solo
        table starts its game at once: ``seats`` maps every seat of the
        layout to ``"me"`` (the device plays it) or a CPU level; left out,
        the device plays the first seat against CPUs of the stand-in level.
        ``names`` (solo, optional) names the people sharing the device, seat
        by seat (a seat of the device left out is named after itself).

        Raises:
            TableError: ``bad_settings`` (kind, code, seed, seats' values,
                names for a party or a CPU's seat), ``bad_name`` (a name, or
                one name twice), ``not_a_seat`` or ``seats_empty`` (solo seats).
        """
        try:
            kind = Kind(kind)
        except ValueError:
            raise _refuse("bad_settings", f"a table is a party or solo, not {kind!r}") from None
        if not isinstance(settings, TableSettings):
            raise _refuse("bad_settings", f"settings are TableSettings, not {settings!r}")
        if kind is Kind.PARTY and (not isinstance(code, str) or not code):
            raise _refuse("bad_settings", "a party needs a code")
        if kind is Kind.PARTY and seats is not None:
            raise _refuse("bad_settings", "a party's players choose their seats in the lobby")
        if kind is Kind.SOLO and code is not None:
            raise _refuse("bad_settings", "a table on one device has no code")
        if not is_real_number(now) or not math.isfinite(float(now)):
            raise _refuse("bad_settings", f"the time is a number of seconds, not {now!r}")
        if not is_whole_number(seed) or seed < 0:
            raise _refuse("bad_settings", f"the seed is a whole number from 0, not {seed!r}")
        name = check_name(host_name)
        layout_seats = settings.seats
        plan: dict[Seat, Occupant] = {}
        if kind is Kind.SOLO:
            chosen = dict(seats) if seats is not None else {layout_seats[0]: ME}
            for seat in chosen:
                if seat not in layout_seats:
                    raise _refuse(
                        "not_a_seat", f"{_seat_text(seat)} is not a seat of {_layout(settings)}"
                    )
            for seat in layout_seats:
                value = chosen.get(seat, settings.standin_level if seats is None else None)
                if value is None:
                    raise _refuse("seats_empty", f"{_seat_word(seat)} needs a player or a CPU")
                plan[seat] = Person("m1") if value == ME else Cpu(value)
            if Person("m1") not in plan.values():
                raise _refuse(
                    "bad_settings", "a game on this device needs at least one seat of yours"
                )
        named = _seat_names(kind, plan, names)
        created = TableCreated(
            version=1,
            at=float(now),
            table_id=id,
            kind=kind,
            code=code,
            settings=settings,
            timings=Timings() if timings is None else timings,
            seed=int(seed),
            host_device=host_device,
        )
        draft = _Draft(cls._created(created), float(now), [created])
        draft.emit(MemberJoined, mid="m1", device=host_device, name=name, spectator=False)
        draft.emit(HostChanged, mid="m1")
        if kind is Kind.PARTY:
            draft.emit(SeatChanged, seat=layout_seats[0], occupant=Person("m1"))
        else:
            for seat, occupant in plan.items():
                draft.emit(SeatChanged, seat=seat, occupant=occupant)
            for seat, given in named.items():
                draft.emit(SeatNamed, seat=seat, name=given)
            draft.emit(GameStarted, game_number=1, first_seat=layout_seats[0])
            _begin_turn(draft)
        return draft.table, draft.events

    @classmethod
    def create_ranked(
        cls,
        *,
        id: str,
        players: Mapping[Seat, RankedPlayer],
        settings: TableSettings,
        timings: Timings | None = None,
        seed: int,
        now: float,
    ) -> tuple[Table, list[Event]]:
        """A ranked table with its players seated and its game started, and its first events.

        Every player is away until they connect (``Connect``); a stand-in
        takes the turn of one who does not come within ``standin_grace``.

        >>> from crokinole.board import Seat
        >>> players = {
        ...     Seat.SOUTH: RankedPlayer("account:1", "ann", SeatRating(1000, True)),
        ...     Seat.NORTH: RankedPlayer("account:2", "bob", SeatRating(1040, True)),
        ... }
        >>> table, events = Table.create_ranked(
        ...     id="t1", players=players, settings=TableSettings.ranked("singles"), seed=1, now=0.0)
        >>> table.kind.value, table.stage.value, table.host, table.ratings[Seat.NORTH].rating
        ('ranked', 'playing', None, 1040)
        >>> table.apply(Join("dev-cat", "Cat", spectator=True), now=1.0)
        Traceback (most recent call last):
        ...
        crokinole.errors.TableError: this is a ranked game: only its players can join

        Raises:
            TableError: ``bad_settings`` (settings that are not the ranked
                rules, seats that are not the layout's, a player twice, a bad
                seed or time), ``bad_name``.
        """
        if not isinstance(settings, TableSettings) or not settings.is_ranked:
            raise _refuse("bad_settings", f"a ranked table has the ranked rules, not {settings!r}")
        if not is_real_number(now) or not math.isfinite(float(now)):
            raise _refuse("bad_settings", f"the time is a number of seconds, not {now!r}")
        if not is_whole_number(seed) or seed < 0:
            raise _refuse("bad_settings", f"the seed is a whole number from 0, not {seed!r}")
        layout_seats = settings.seats
        if not isinstance(players, Mapping) or set(players) != set(layout_seats):
            wanted = ", ".join(_seat_word(s) for s in layout_seats)
            raise _refuse("bad_settings", f"a ranked {_layout(settings)} table seats {wanted}")
        seated = [players[seat] for seat in layout_seats]
        for player in seated:
            if not isinstance(player, RankedPlayer) or not isinstance(player.shown, SeatRating):
                raise _refuse("bad_settings", f"a ranked seat holds a RankedPlayer, not {player!r}")
            if not isinstance(player.device, str) or not player.device:
                raise _refuse("bad_settings", "a ranked player needs an identity")
        devices = [p.device for p in seated]
        if len(set(devices)) != len(devices):
            raise _refuse("bad_settings", "a ranked table seats each player once")
        names = [check_name(p.name) for p in seated]
        created = TableCreated(
            version=1,
            at=float(now),
            table_id=id,
            kind=Kind.RANKED,
            code=None,
            settings=settings,
            timings=Timings() if timings is None else timings,
            seed=int(seed),
            host_device=devices[0],
        )
        draft = _Draft(cls._created(created), float(now), [created])
        seating = zip(layout_seats, seated, names, strict=True)
        for number, (seat, player, name) in enumerate(seating, 1):
            mid = f"m{number}"
            draft.emit(MemberJoined, mid=mid, device=player.device, name=name, spectator=False)
            draft.emit(SeatChanged, seat=seat, occupant=Person(mid))
            draft.emit(
                RankedSeated,
                seat=seat,
                rating=player.shown.rating,
                provisional=player.shown.provisional,
            )
        for number in range(1, len(seated) + 1):
            draft.emit(Presence, mid=f"m{number}", connected=False)
        _start_game(draft)
        return draft.table, draft.events

    def standin_share(self, seat: Seat) -> float:
        """The share (0 to 1) of ``seat``'s turns in this game a CPU played for its person."""
        turns = self.turns.get(seat, 0)
        return self.standin_turns.get(seat, 0) / turns if turns else 0.0

    @classmethod
    def _created(cls, event: TableCreated) -> Table:
        if event.version != 1:
            raise InvalidRecordError(f"a table's first event has version 1, not {event.version}")
        return cls(
            id=event.table_id,
            kind=event.kind,
            code=event.code,
            version=1,
            created_at=event.at,
            host=None,
            settings=event.settings,
            timings=event.timings,
            seed=event.seed,
            members=(),
            seats=dict.fromkeys(event.settings.seats),
            stage=Stage.LOBBY,
            game=None,
            game_number=0,
            standing_in=frozenset(),
            turn_started=None,
            round_over_at=None,
            next_pressed=frozenset(),
            rematch_votes=frozenset(),
            joined=0,
        )

    @classmethod
    def replay(cls, events: Iterable[Event]) -> Table:
        """The table a whole event log describes (the first event is ``TableCreated``).

        Raises:
            InvalidRecordError: the log does not start with ``TableCreated``,
                has a gap, or an event that cannot happen where it stands.
        """
        table: Table | None = None
        for event in events:
            if table is None:
                if not isinstance(event, TableCreated):
                    raise InvalidRecordError(
                        f"a table's log starts with table_created, not {event.TYPE}"
                    )
                table = cls._created(event)
            else:
                table = table.fold(event)
        if table is None:
            raise InvalidRecordError("an empty event log holds no table")
        return table

    # ------------------------------------------------------------ queries

    def member_of(self, device: str | None) -> Member | None:
        """The member of a device token, or None."""
        for member in self.members:
            if member.device == device:
                return member
        return None

    def member(self, mid: str) -> Member | None:
        """The member with public id ``mid``, or None."""
        for member in self.members:
            if member.mid == mid:
                return member
        return None

    def seats_of(self, mid: str) -> tuple[Seat, ...]:
        """The seats member ``mid`` holds, in the layout's order."""
        mine = Person(mid)
        return tuple(seat for seat, occupant in self.seats.items() if occupant == mine)

    @property
    def spectators(self) -> int:
        """How many spectators watch."""
        return sum(1 for m in self.members if m.spectator)

    def occupant_name(self, seat: Seat) -> str:
        """Who plays ``seat``, in words: a member's name, ``CPU Hard``, or ``nobody``."""
        occupant = self.seats.get(seat)
        if isinstance(occupant, Person):
            member = self.member(occupant.mid)
            return member.name if member is not None else occupant.mid
        if isinstance(occupant, Cpu):
            return f"CPU {Level(occupant.level).label}"
        return "nobody"

    def cpu_turn(self) -> tuple[Seat, str] | None:
        """The seat a CPU must shoot for now and its level, or None.

        A ``Cpu`` seat plays at its level; a stood-in seat at the stand-in
        level.  The server submits the CPU's choice as
        ``Shoot(None, seat, shot, cpu=True, expected_version=version)``.
        """
        if self.stage is not Stage.PLAYING or self.game is None:
            return None
        seat = self.game.current_seat
        if seat is None:
            return None
        occupant = self.seats.get(seat)
        if isinstance(occupant, Cpu):
            return seat, occupant.level
        if seat in self.standing_in:
            return seat, self.settings.standin_level
        return None

    def next_deadline(self) -> Deadline | None:
        """The earliest deadline, as an absolute server time, or None.

        * turn: ``turn_started + turn_time + turn_grace`` when there is a
          clock and the shooter is a person not stood in;
        * standin: ``max(turn_started, disconnected_at) + standin_grace``
          when that person is not connected (not on one device);
        * round: ``round_over_at + round_countdown`` (not on one device:
          there the device counts R6's 10 s from when it shows the result,
          after the last shots are animated, and then presses Next).
        * no_show: at a ranked table, on a seat's first turn of the game,
          ``turn_started + turn_time + turn_grace`` instead of the other two
          (no stand-in, no ditch: the game is aborted);
        * rematch: ``rematch_until``, after a game while a rematch is offered.
        """
        game = self.game
        if self.stage is Stage.FINISHED and self.rematch_until is not None:
            return Deadline(self.rematch_until, DeadlineKind.REMATCH)
        if self.stage is not Stage.PLAYING or game is None:
            return None
        found: list[Deadline] = []
        timings = self.timings
        if game.phase is Phase.PLAYING and self.turn_started is not None:
            seat = game.current_seat
            occupant = self.seats.get(seat) if seat is not None else None
            if (
                self.kind is Kind.RANKED
                and seat is not None
                and isinstance(occupant, Person)
                and self.turns.get(seat, 0) == 0
            ):
                clock = self.settings.turn_time or RANKED_TURN_TIME
                at = self.turn_started + clock + timings.turn_grace
                return Deadline(at, DeadlineKind.NO_SHOW)
            if isinstance(occupant, Person) and seat not in self.standing_in:
                if self.settings.turn_time is not None:
                    at = self.turn_started + self.settings.turn_time + timings.turn_grace
                    found.append(Deadline(at, DeadlineKind.TURN))
                member = self.member(occupant.mid)
                if self.kind is not Kind.SOLO and member is not None and not member.connected:
                    since = max(self.turn_started, member.disconnected_at or self.turn_started)
                    found.append(Deadline(since + timings.standin_grace, DeadlineKind.STANDIN))
        elif (
            game.phase is Phase.ROUND_OVER
            and self.kind is not Kind.SOLO
            and self.round_over_at is not None
        ):
            found.append(Deadline(self.round_over_at + timings.round_countdown, DeadlineKind.ROUND))
        return min(found, key=lambda d: d.at) if found else None

    def report_of(self, version: int) -> Played | None:
        """The shot or timeout of event ``version`` of the last ``apply`` (for views)."""
        return self.shot_reports.get(version)

    # ------------------------------------------------------------ changing

    def apply(self, command: Command, now: float) -> tuple[Table, list[Event]]:
        """The table after ``command`` at server time ``now``, and the events it caused.

        A command that changes nothing (e.g. a second Connect) gives no
        events and this same table.

        Raises:
            TableError: the command is refused; the code says why (see
                :mod:`crokinole.table`); this table is unchanged.
        """
        handler = _HANDLERS.get(type(command))
        if handler is None:
            raise _refuse("illegal_action", f"a table takes commands, not {type(command).__name__}")
        if not is_real_number(now) or not math.isfinite(float(now)):
            raise _refuse("illegal_action", f"the time is a number of seconds, not {now!r}")
        if self.kind is Kind.RANKED:
            device = getattr(command, "device", None)
            if device is not None and self.member_of(device) is None:
                raise _refuse("ranked_table", "this is a ranked game: only its players can join")
        draft = _Draft(replace(self, shot_reports={}), float(now), [])
        handler(draft, command)
        if not draft.events:
            return self, []
        return draft.table, draft.events

    def fold(self, event: Event) -> Table:
        """The table after one stored event (its version must be the next one).

        Raises:
            InvalidRecordError: the event does not follow or cannot happen here.
        """
        return replace(self, shot_reports={})._fold(event, None)

    def _fold(self, event: Event, played: Played | None) -> Table:
        if event.version != self.version + 1:
            raise InvalidRecordError(
                f"event {event.version} ({event.TYPE}) cannot follow version {self.version}"
            )
        try:
            changes = _fold_changes(self, event, played)
        except InvalidRecordError:
            raise
        except CrokinoleError as exc:
            raise InvalidRecordError(f"event {event.version} ({event.TYPE}): {exc}") from None
        return replace(self, version=event.version, **changes)

    # ------------------------------------------------------------ snapshots

    def to_dict(self) -> dict[str, Any]:
        """The whole table as JSON-ready data (device tokens included: for the store only)."""
        return {
            "id": self.id,
            "kind": self.kind.value,
            "code": self.code,
            "version": self.version,
            "created_at": self.created_at,
            "host": self.host,
            "settings": self.settings.to_dict(),
            "timings": self.timings.to_dict(),
            "seed": self.seed,
            "members": [m.to_dict() for m in self.members],
            "seats": {_seat_word(s): occupant_to_dict(o) for s, o in self.seats.items()},
            "stage": self.stage.value,
            "game": None if self.game is None else self.game.to_json(),
            "game_number": self.game_number,
            "standing_in": sorted(_seat_word(s) for s in self.standing_in),
            "turn_started": self.turn_started,
            "round_over_at": self.round_over_at,
            "next_pressed": sorted(self.next_pressed),
            "rematch_votes": sorted(self.rematch_votes),
            "joined": self.joined,
            "people_seats": sorted(_seat_word(s) for s in self.people_seats),
            "ratings": {
                _seat_word(s): {"rating": r.rating, "provisional": r.provisional}
                for s, r in self.ratings.items()
            },
            "turns": {_seat_word(s): n for s, n in self.turns.items()},
            "standin_turns": {_seat_word(s): n for s, n in self.standin_turns.items()},
            "hints_used": {_seat_word(s): n for s, n in self.hints_used.items()},
            "hinted": sorted([_seat_word(s), k, n] for s, k, n in self.hinted),
            "no_show": None if self.no_show is None else _seat_word(self.no_show),
            "seat_names": {_seat_word(s): n for s, n in self.seat_names.items()},
            "rematch_until": self.rematch_until,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Table:
        """Inverse of :meth:`to_dict`.

        Raises:
            InvalidRecordError: the data is not a table snapshot.
        """
        try:
            game = data["game"]
            kind = Kind(data["kind"])
            return cls(
                id=data["id"],
                kind=kind,
                code=data["code"],
                version=int(data["version"]),
                created_at=float(data["created_at"]),
                host=data["host"],
                settings=TableSettings.from_dict(
                    data["settings"], kind=kind, allow_short_clock=True
                ),
                timings=Timings.from_dict(data["timings"]),
                seed=int(data["seed"]),
                members=tuple(Member.from_dict(m) for m in data["members"]),
                seats={seat_from_name(s): occupant_from_dict(o) for s, o in data["seats"].items()},
                stage=Stage(data["stage"]),
                game=None if game is None else Game.from_json(game),
                game_number=int(data["game_number"]),
                standing_in=frozenset(seat_from_name(s) for s in data["standing_in"]),
                turn_started=data["turn_started"],
                round_over_at=data["round_over_at"],
                next_pressed=frozenset(data["next_pressed"]),
                rematch_votes=frozenset(data["rematch_votes"]),
                joined=int(data["joined"]),
                people_seats=frozenset(seat_from_name(s) for s in data.get("people_seats", ())),
                ratings={
                    seat_from_name(s): SeatRating(int(r["rating"]), bool(r["provisional"]))
                    for s, r in data.get("ratings", {}).items()
                },
                turns={seat_from_name(s): int(n) for s, n in data.get("turns", {}).items()},
                standin_turns={
                    seat_from_name(s): int(n) for s, n in data.get("standin_turns", {}).items()
                },
                hints_used={
                    seat_from_name(s): int(n) for s, n in data.get("hints_used", {}).items()
                },
                hinted=frozenset(
                    (seat_from_name(s), str(k), int(n)) for s, k, n in data.get("hinted", [])
                ),
                no_show=None if data.get("no_show") is None else seat_from_name(data["no_show"]),
                seat_names={
                    seat_from_name(s): str(n) for s, n in data.get("seat_names", {}).items()
                },
                rematch_until=data.get("rematch_until"),
            )
        except InvalidRecordError:
            raise
        except (CrokinoleError, KeyError, TypeError, ValueError, AttributeError) as exc:
            raise InvalidRecordError(f"not a table snapshot: {exc!r}") from None


# ---------------------------------------------------------------- folding


def _layout(settings: TableSettings) -> str:
    return settings.layout.value.replace("_", " ")


def _fold_changes(t: Table, event: Event, played: Played | None) -> dict[str, Any]:
    """The fields ``event`` changes (it is known to follow ``t``)."""
    if isinstance(event, MemberJoined):
        number = int(event.mid[1:]) if event.mid[1:].isdigit() else t.joined + 1
        member = Member(event.mid, event.device, event.name, event.spectator, connected=True)
        return {"members": (*t.members, member), "joined": max(t.joined, number)}
    if isinstance(event, MemberLeft):
        gone = Person(event.mid)
        return {
            "members": tuple(m for m in t.members if m.mid != event.mid),
            "seats": {s: (None if o == gone else o) for s, o in t.seats.items()},
            "host": None if t.host == event.mid else t.host,
            "next_pressed": t.next_pressed - {event.mid},
            "rematch_votes": t.rematch_votes - {event.mid},
        }
    if isinstance(event, Renamed):
        return {"members": _update(t, event.mid, name=event.name)}
    if isinstance(event, HostChanged):
        return {"host": event.mid}
    if isinstance(event, SeatChanged):
        if event.seat not in t.seats:
            raise InvalidRecordError(f"{_seat_word(event.seat)} is not a seat of this table")
        return {
            "seats": {**t.seats, event.seat: event.occupant},
            "standing_in": t.standing_in - {event.seat},
        }
    if isinstance(event, SeatNamed):
        if t.kind is not Kind.SOLO or event.seat not in t.seats:
            raise InvalidRecordError(f"{_seat_word(event.seat)} is not named on one device here")
        return {"seat_names": {**t.seat_names, event.seat: event.name}}
    if isinstance(event, SettingsChanged):
        return {
            "settings": event.settings,
            "seats": {s: t.seats.get(s) for s in event.settings.seats},
            "rematch_votes": frozenset(),  # a vote was for a game under the old rules
            "rematch_until": None,
        }
    if isinstance(event, Presence):
        return {
            "members": _update(
                t,
                event.mid,
                connected=event.connected,
                disconnected_at=None if event.connected else event.at,
            )
        }
    if isinstance(event, RankedSeated):
        if t.kind is not Kind.RANKED or event.seat not in t.seats:
            raise InvalidRecordError(f"{_seat_word(event.seat)} is not a ranked seat here")
        return {"ratings": {**t.ratings, event.seat: SeatRating(event.rating, event.provisional)}}
    if isinstance(event, GameStarted):
        return {
            "turns": {},
            "standin_turns": {},
            "hints_used": {},
            "hinted": frozenset(),
            "no_show": None,
            "game": Game(t.settings.rules(), first_seat=event.first_seat),
            "game_number": event.game_number,
            "people_seats": frozenset(s for s, o in t.seats.items() if isinstance(o, Person)),
            "stage": Stage.PLAYING,
            "standing_in": frozenset(),
            "turn_started": event.at,
            "round_over_at": None,
            "next_pressed": frozenset(),
            "rematch_votes": frozenset(),
            "rematch_until": None,
        }
    if isinstance(event, ShotPlayed | TurnTimedOut):
        before = _game(t)
        if played is None:
            after = before.copy()
            if isinstance(event, ShotPlayed):
                report = after.shoot(event.seat, event.played)
            else:
                report = after.timeout(event.seat)
            played = Played(report, before, after)
        after = played.after
        phase = after.phase
        standin = isinstance(event, ShotPlayed) and event.by != "person"
        return {
            "turns": {**t.turns, event.seat: t.turns.get(event.seat, 0) + 1},
            "standin_turns": (
                {**t.standin_turns, event.seat: t.standin_turns.get(event.seat, 0) + 1}
                if standin
                else t.standin_turns
            ),
            "game": after,
            "turn_started": event.at if phase is Phase.PLAYING else None,
            "round_over_at": event.at if phase is Phase.ROUND_OVER else None,
            "next_pressed": frozenset(),
            "last_report": played,
            "shot_reports": {**t.shot_reports, event.version: played},
        }
    if isinstance(event, StandInOn):
        return {"standing_in": t.standing_in | {event.seat}}
    if isinstance(event, StandInOff):
        return {"standing_in": t.standing_in - {event.seat}}
    if isinstance(event, NextPressed):
        return {"next_pressed": t.next_pressed | {event.mid}}
    if isinstance(event, RoundStarted):
        game = _game(t).copy()
        game.next_round()
        if game.round_number != event.round:
            raise InvalidRecordError(
                f"round {event.round} cannot start: the next is {game.round_number}"
            )
        return {
            "game": game,
            "turn_started": event.at,
            "round_over_at": None,
            "next_pressed": frozenset(),
        }
    if isinstance(event, GameFinished):
        return {
            "stage": Stage.FINISHED,
            "standing_in": frozenset(),
            "turn_started": None,
            "round_over_at": None,
            "next_pressed": frozenset(),
            "rematch_votes": frozenset(),
            "rematch_until": None,
        }
    if isinstance(event, GameAborted):
        if t.stage is not Stage.PLAYING or event.seat not in t.seats:
            raise InvalidRecordError("only a game being played can be aborted")
        return {"no_show": event.seat}  # the GameFinished that follows ends it
    if isinstance(event, RematchVoted):
        return {"rematch_votes": t.rematch_votes | {event.mid}}
    if isinstance(event, RematchOffered):
        return {"rematch_votes": frozenset({event.mid}), "rematch_until": event.until}
    if isinstance(event, RematchDeclined | RematchLapsed):
        return {"rematch_votes": frozenset(), "rematch_until": None}
    if isinstance(event, HintTaken):
        if event.seat not in t.seats:
            raise InvalidRecordError(f"{_seat_word(event.seat)} is not a seat of this table")
        turn = len(t.game.actions) if t.game is not None else 0
        return {
            "hints_used": {**t.hints_used, event.seat: t.hints_used.get(event.seat, 0) + 1},
            "hinted": t.hinted | {(event.seat, event.kind, turn)},
        }
    if isinstance(event, Reacted):
        return {"members": _update(t, event.mid, reacted_at=event.at)}
    if isinstance(event, Closed):
        return {"stage": Stage.CLOSED, "turn_started": None, "round_over_at": None}
    raise InvalidRecordError(f"a {event.TYPE} event cannot happen at a table that exists")


def _game(t: Table) -> Game:
    if t.game is None:
        raise InvalidRecordError("no game has started at this table")
    return t.game


def _update(t: Table, mid: str, **changes: Any) -> tuple[Member, ...]:
    if t.member(mid) is None:
        raise InvalidRecordError(f"{mid} is not a member of this table")
    return tuple(replace(m, **changes) if m.mid == mid else m for m in t.members)


# ---------------------------------------------------------------- deciding

E = TypeVar("E", bound=Event)


class _Draft:
    """The events of one command so far, folded as they are decided."""

    def __init__(self, table: Table, now: float, events: list[Event]) -> None:
        self.table = table
        self.now = now
        self.events = events

    def emit(self, event_type: type[E], /, outcome: Played | None = None, **fields: Any) -> E:
        event = event_type(version=self.table.version + 1, at=self.now, **fields)
        self.table = self.table._fold(event, outcome)
        self.events.append(event)
        return event


def _seat_names(
    kind: Kind, plan: Mapping[Seat, Occupant], names: Mapping[Seat, str] | None
) -> dict[Seat, str]:
    """The names of the people sharing one device, by seat (checked; in the layout's order)."""
    if names is None:
        return {}
    if kind is not Kind.SOLO:
        raise _refuse("bad_settings", "in a party each player gives their own name when joining")
    if not isinstance(names, Mapping):
        raise _refuse("bad_settings", f"names are given seat by seat, not {names!r}")
    for seat in names:
        if seat not in plan:
            raise _refuse("not_a_seat", f"{_seat_text(seat)} is not a seat of this game")
    named: dict[Seat, str] = {}
    taken: dict[str, Seat] = {}
    for seat, occupant in plan.items():
        if seat not in names:
            continue
        if not isinstance(occupant, Person):
            raise _refuse(
                "bad_settings", f"{seat.name.title()} is played by a CPU: it cannot take a name"
            )
        try:
            name = check_name(names[seat])
        except TableError as exc:
            raise _refuse("bad_name", f"{seat.name.title()}'s name: {exc.message}") from None
        other = taken.get(name.casefold())
        if other is not None:
            raise _refuse(
                "bad_name",
                f"{other.name.title()} and {seat.name.title()} are both called {name}: "
                "give each player their own name",
            )
        taken[name.casefold()] = seat
        named[seat] = name
    return named


def _open(t: Table) -> None:
    if t.stage is Stage.CLOSED:
        raise _refuse("closed", "this table is closed: nothing more can happen at it")


def _sender(t: Table, device: str | None) -> Member:
    member = t.member_of(device)
    if member is None:
        raise _refuse("not_a_member", "you are not at this table: join it first")
    return member


def _player(t: Table, device: str | None) -> Member:
    member = _sender(t, device)
    if member.spectator:
        raise _refuse("spectator", "spectators watch: only players can do that")
    return member


def _host(t: Table, device: str) -> Member:
    member = _sender(t, device)
    if t.host != member.mid:
        host = t.member(t.host) if t.host is not None else None
        who = f"the host ({host.name})" if host is not None else "the host"
        raise _refuse("not_host", f"only {who} can do that")
    return member


def _party(t: Table) -> None:
    if t.kind is Kind.SOLO:
        raise _refuse(
            "solo_table", "this game is played on one device: nobody can join or change seats"
        )
    _not_ranked(t)


def _not_ranked(t: Table) -> None:
    if t.kind is Kind.RANKED:
        raise _refuse(
            "ranked_table", "this is a ranked game: its rules and seats are fixed, with no rematch"
        )


def _setup(t: Table) -> None:
    """Seats and rules change only in the lobby or between games."""
    _open(t)
    if t.stage is Stage.PLAYING:
        raise _refuse("in_game", "a game is being played: that can change only between games")


def _seated(t: Table, member: Member) -> None:
    if not t.seats_of(member.mid):
        raise _refuse("not_your_seat", "you have no seat in this game")


def _empty_seat(t: Table) -> Seat | None:
    return next((s for s, o in t.seats.items() if o is None), None)


def _check_seat(t: Table, seat: object) -> Seat:
    if not isinstance(seat, Seat) or seat not in t.seats:
        seats = ", ".join(_seat_word(s) for s in t.seats)
        raise _refuse(
            "not_a_seat", f"{_seat_text(seat)} is not a seat of {_layout(t.settings)} ({seats})"
        )
    return seat


def _stand_up(d: _Draft, mid: str) -> None:
    for seat in d.table.seats_of(mid):
        d.emit(SeatChanged, seat=seat, occupant=None)


def _first_seat(t: Table) -> Seat:
    """Game 1 opens with the first seat; each later game with the seat after the last opener."""
    seats = t.settings.seats
    if t.game is None or t.game.first_seat not in seats:
        return seats[0]
    return seats[(seats.index(t.game.first_seat) + 1) % len(seats)]


def _ready(t: Table, pressed: frozenset[str], present: str | None = None) -> bool:
    """Whether every connected seated person pressed, and one who pressed is here.

    ``present`` is the member pressing now (here, whatever their presence says).
    """
    seated = {o.mid for o in t.seats.values() if isinstance(o, Person)}
    connected = {mid for mid in seated if (m := t.member(mid)) is not None and m.connected}
    here = connected | ({present} & seated if present is not None else set())
    return bool(pressed & here) and connected <= pressed


def _person_back(t: Table, seat: Seat) -> bool:
    occupant = t.seats.get(seat)
    if not isinstance(occupant, Person):
        return False
    member = t.member(occupant.mid)
    return member is not None and member.connected


def _begin_turn(d: _Draft) -> None:
    """After a turn or a new round: end the game, end a stand-in, or skip a blocked disc."""
    for _ in range(200):  # a round has at most 12 discs a seat
        t = d.table
        game = t.game
        if game is None or t.stage is not Stage.PLAYING:
            return
        outcome = game.outcome
        if outcome is not None:
            d.emit(GameFinished, winner=outcome.winner, drawn=outcome.drawn, abandoned=False)
            return
        seat = game.current_seat
        if seat is None:
            return
        if seat in t.standing_in and _person_back(t, seat):
            d.emit(StandInOff, seat=seat)
        if game.can_place(seat):
            return
        # No room on the line (R3): the disc goes to the ditch at once.
        d.emit(TurnTimedOut, seat=seat, reason="no_room")


def _settle(d: _Draft, present: str | None = None) -> None:
    """Go on when everyone is ready: the next round, or a rematch (``present``: who pressed)."""
    t = d.table
    game = t.game
    if t.stage is Stage.PLAYING and game is not None and game.phase is Phase.ROUND_OVER:
        if _ready(t, t.next_pressed, present):
            d.emit(RoundStarted, round=game.round_number + 1)
            _begin_turn(d)
    elif t.stage is Stage.FINISHED and t.kind is Kind.PARTY and _rematch_agreed(t, present):
        _start_game(d)


def _offer_open(t: Table, now: float) -> bool:
    """Whether a rematch is offered now (not lapsed, even if its deadline has not fired)."""
    return t.rematch_until is not None and now < t.rematch_until


def _rematch_agreed(t: Table, present: str | None = None) -> bool:
    """Every seat filled, and every seated person accepted the offer and is here.

    ``present`` is the member accepting now (here, whatever their presence
    says).  An absent player never counts as agreeing.
    """
    if t.rematch_until is None or _empty_seat(t) is not None:
        return False
    seated = {o.mid for o in t.seats.values() if isinstance(o, Person)}
    here = {mid for mid in seated if (m := t.member(mid)) is not None and m.connected}
    if present is not None:
        here |= {present} & seated
    return bool(seated) and seated <= t.rematch_votes and seated <= here


def _start_game(d: _Draft) -> None:
    t = d.table
    d.emit(GameStarted, game_number=t.game_number + 1, first_seat=_first_seat(t))
    _begin_turn(d)


def _leave(d: _Draft, member: Member, *, removed: bool) -> None:
    """A member goes; mid-game their seats pass to the stand-in CPU."""
    if d.table.stage is Stage.PLAYING:
        for seat in d.table.seats_of(member.mid):
            d.emit(SeatChanged, seat=seat, occupant=Cpu(d.table.settings.standin_level))
    d.emit(MemberLeft, mid=member.mid, removed=removed)
    t = d.table
    players = [m for m in t.members if not m.spectator]
    if not players:
        if t.stage is Stage.PLAYING:
            d.emit(GameFinished, winner=None, drawn=(), abandoned=True)
        d.emit(Closed, reason="everyone left")
        return
    if t.host is None:
        connected = [m for m in players if m.connected]
        d.emit(HostChanged, mid=(connected or players)[0].mid)
    _settle(d)


def _abandon(d: _Draft) -> None:
    """Solo: the device gives up; the game is abandoned and the table closes."""
    if d.table.stage is Stage.PLAYING:
        d.emit(GameFinished, winner=None, drawn=(), abandoned=True)
        d.emit(Closed, reason="resigned")
    else:
        d.emit(Closed, reason="left")


# ---------------------------------------------------------------- commands


def _join(d: _Draft, c: Join) -> None:
    t = d.table
    _open(t)
    if t.kind is not Kind.RANKED:  # a ranked table's players come back below
        _party(t)
    existing = t.member_of(c.device)
    if existing is not None:
        if not existing.connected:
            d.emit(Presence, mid=existing.mid, connected=True)
            _settle(d)  # as Connect: one who pressed may now be the only one here
        return
    if not isinstance(c.device, str) or not c.device:
        raise _refuse("not_a_member", "a device token is needed to join")
    name = check_name(c.name)
    spectator = bool(c.spectator)
    if spectator and t.spectators >= MAX_SPECTATORS:
        raise _refuse("party_full", f"this party has its {MAX_SPECTATORS} spectators already")
    players = sum(1 for m in t.members if not m.spectator)
    if not spectator and players >= t.settings.layout.players:
        raise _refuse(
            "party_full",
            f"this party is full ({players} players for {_layout(t.settings)}): "
            "you can join as a spectator",
        )
    mid = f"m{t.joined + 1}"
    d.emit(MemberJoined, mid=mid, device=c.device, name=name, spectator=spectator)
    if not spectator:
        seat = _empty_seat(d.table)
        if seat is not None and t.stage is not Stage.PLAYING:
            d.emit(SeatChanged, seat=seat, occupant=Person(mid))
        if d.table.host is None:
            d.emit(HostChanged, mid=mid)


def _leave_command(d: _Draft, c: Leave | Resign) -> None:
    t = d.table
    _open(t)
    member = _sender(t, c.device)
    if t.kind is Kind.SOLO:
        _abandon(d)
    elif t.kind is Kind.RANKED:
        _leave_ranked(d, member)
    else:
        _leave(d, member, removed=False)


def _leave_ranked(d: _Draft, member: Member) -> None:
    """A ranked player goes: during the game, they abandon it (it ends at once)."""
    playing = d.table.stage is Stage.PLAYING
    d.emit(MemberLeft, mid=member.mid, removed=False)
    if playing:
        d.emit(GameFinished, winner=None, drawn=(), abandoned=True)
    if not any(not m.spectator for m in d.table.members):
        d.emit(Closed, reason="everyone left")


def _rename(d: _Draft, c: Rename) -> None:
    t = d.table
    _open(t)
    member = _sender(t, c.device)
    if t.kind is Kind.RANKED:
        raise _refuse(
            "ranked_table", "this is a ranked game: the names are the accounts' and cannot change"
        )
    name = check_name(c.name)
    if name != member.name:
        d.emit(Renamed, mid=member.mid, name=name)


def _take_seat(d: _Draft, c: TakeSeat) -> None:
    t = d.table
    _open(t)
    _party(t)
    member = _player(t, c.device)  # a spectator is told so first
    _setup(t)
    if c.seat is None:
        _stand_up(d, member.mid)
        return
    seat = _check_seat(t, c.seat)
    occupant = t.seats[seat]
    if occupant == Person(member.mid):
        return
    if occupant is not None:
        raise _refuse("seat_taken", f"{_seat_word(seat)} is taken by {t.occupant_name(seat)}")
    _stand_up(d, member.mid)
    d.emit(SeatChanged, seat=seat, occupant=Person(member.mid))


def _move_member(d: _Draft, c: MoveMember) -> None:
    t = d.table
    _open(t)
    _party(t)
    _setup(t)
    _host(t, c.device)
    target = t.member(c.mid)
    if target is None:
        raise _refuse("not_a_member", f"{c.mid!r} is not at this table")
    if target.spectator:
        raise _refuse("spectator", f"{target.name} is a spectator and cannot take a seat")
    if c.seat is None:
        _stand_up(d, target.mid)
        return
    seat = _check_seat(t, c.seat)
    occupant = t.seats[seat]
    if occupant == Person(target.mid):
        return
    if isinstance(occupant, Person):
        raise _refuse("seat_taken", f"{_seat_word(seat)} is taken by {t.occupant_name(seat)}")
    _stand_up(d, target.mid)
    d.emit(SeatChanged, seat=seat, occupant=Person(target.mid))
    _settle(d)


def _set_cpu(d: _Draft, c: SetCpu) -> None:
    t = d.table
    _open(t)
    _party(t)
    _setup(t)
    _host(t, c.device)
    seat = _check_seat(t, c.seat)
    occupant = None if c.level is None else Cpu(c.level)
    if occupant != t.seats[seat]:
        d.emit(SeatChanged, seat=seat, occupant=occupant)
        _settle(d)  # after a game: the seat of one who was away may complete a rematch


def _remove(d: _Draft, c: Remove) -> None:
    t = d.table
    _open(t)
    _party(t)
    host = _host(t, c.device)
    target = t.member(c.mid)
    if target is None:
        raise _refuse("not_a_member", f"{c.mid!r} is not at this table")
    if target.mid == host.mid:
        raise _refuse("illegal_action", "the host cannot remove themselves: leave instead")
    _leave(d, target, removed=True)


def _change_settings(d: _Draft, c: ChangeSettings) -> None:
    t = d.table
    _open(t)
    _party(t)
    _setup(t)
    _host(t, c.device)
    if not isinstance(c.settings, TableSettings):
        raise _refuse("bad_settings", f"settings are TableSettings, not {c.settings!r}")
    if c.settings != t.settings:
        d.emit(SettingsChanged, settings=c.settings)


def _start(d: _Draft, c: Start) -> None:
    t = d.table
    _not_ranked(t)
    _setup(t)
    _host(t, c.device)
    empty = _empty_seat(t)
    if empty is not None:
        raise _refuse("seats_empty", f"{_seat_word(empty)} is empty: seat a player or a CPU there")
    _start_game(d)


def _shoot(d: _Draft, c: Shoot) -> None:
    t = d.table
    _open(t)
    if not c.cpu:
        _player(t, c.device)  # a spectator is told so first
    if t.stage is Stage.LOBBY:
        raise _refuse("illegal_action", "the game has not started yet")
    if t.stage is Stage.FINISHED:
        raise _refuse("game_over", "the game is over: no more shots")
    if c.expected_version is not None and c.expected_version != t.version:
        raise _refuse(
            "stale",
            f"the table moved on (version {t.version}, not {c.expected_version}): look again",
        )
    seat = _check_seat(t, c.seat)
    occupant = t.seats[seat]
    if c.cpu:
        if c.device is not None:
            raise _refuse("not_your_seat", "only the server plays a CPU's shots")
        if isinstance(occupant, Cpu):
            by = "cpu"
        elif seat in t.standing_in:
            by = "standin"
        else:
            raise _refuse("not_your_seat", f"no CPU plays {_seat_word(seat)}")
    else:
        member = _player(t, c.device)
        if occupant != Person(member.mid):
            raise _refuse("not_your_seat", f"{_seat_word(seat)} is not your seat")
        if seat in t.standing_in:
            raise _refuse("not_your_turn", "a CPU plays this turn for you; your next one is yours")
        by = "person"
    game = _game(t)
    current = game.current_seat
    if current is None:
        raise _refuse(
            "illegal_action", f"round {game.round_number} is over: press Next for the next one"
        )
    if current is not seat:
        raise _refuse("not_your_turn", f"it is {seat_name(current)}'s turn")
    # R3: the server's clock decides, whether or not its timer has fired yet.
    deadline = t.next_deadline()
    if (
        by == "person"
        and deadline is not None
        and deadline.kind is DeadlineKind.TURN
        and d.now >= deadline.at
    ):
        raise _refuse("not_your_turn", "the clock ran out on this turn: the disc goes to the ditch")
    if (
        by == "person"
        and deadline is not None
        and deadline.kind is DeadlineKind.NO_SHOW
        and d.now >= deadline.at
    ):
        raise _refuse("not_your_turn", "the clock ran out on your first turn: this game is aborted")
    shot = c.shot
    if not isinstance(shot, Shot):
        raise _refuse("illegal_shot", f"a shot is (position, direction, power), not {shot!r}")
    # As Game.shoot: first where the disc is placed (R3), then the flick.
    problem = game.placement_problem(seat, shot.position)
    if problem is not None:
        raise _refuse("illegal_placement", problem)
    try:
        game.board.launch(seat, shot)
    except InvalidShotError as exc:
        raise _refuse("illegal_shot", str(exc)) from None
    aimed: Shot | None = None
    played = shot
    if by == "person" and t.settings.hand is Hand.HUMAN:
        rng = np.random.default_rng([t.seed, t.version + 1])
        played = HAND_NOISE.perturb(game.board, shot, rng)
        if game.placement_problem(seat, played.position) is not None:
            # Placing is deliberate: a hand does not slide the disc onto another.
            played = Shot(shot.position, played.direction, played.power)
        aimed = shot
    after = game.copy()
    try:
        report = after.shoot(seat, played)
    except NotYourTurn as exc:
        raise _refuse("not_your_turn", str(exc)) from None
    except IllegalPlacement as exc:
        raise _refuse("illegal_placement", str(exc)) from None
    except IllegalActionError as exc:
        raise _refuse("illegal_action", str(exc)) from None
    except CrokinoleError as exc:
        raise _refuse("illegal_shot", str(exc)) from None
    d.emit(
        ShotPlayed,
        outcome=Played(report, game, after),
        seat=seat,
        aimed=aimed,
        played=played,
        by=by,
    )
    _begin_turn(d)


def _next_round(d: _Draft, c: NextRound) -> None:
    t = d.table
    _open(t)
    member = _player(t, c.device)  # a spectator is told so first
    if t.stage is Stage.FINISHED:
        raise _refuse("game_over", "the game is over: there is no next round")
    game = t.game
    if t.stage is not Stage.PLAYING or game is None or game.phase is not Phase.ROUND_OVER:
        raise _refuse("illegal_action", "there is no round result to leave now")
    _seated(t, member)
    if member.mid not in t.next_pressed:
        d.emit(NextPressed, mid=member.mid)
    _settle(d, member.mid)  # pressed again: those who went away may have completed it


def _rematch(d: _Draft, c: Rematch) -> None:
    t = d.table
    _open(t)
    _not_ranked(t)
    member = _player(t, c.device)  # a spectator is told so first
    if t.stage is not Stage.FINISHED:
        raise _refuse("illegal_action", "a rematch is offered after a game")
    _seated(t, member)
    if t.kind is Kind.SOLO:
        _start_game(d)
        return
    if not _offer_open(t, d.now):
        if t.rematch_until is not None:
            d.emit(RematchLapsed)  # its deadline had not fired yet
        d.emit(RematchOffered, mid=member.mid, until=d.now + t.timings.rematch_offer)
    elif member.mid not in t.rematch_votes:
        d.emit(RematchVoted, mid=member.mid)
    _settle(d, member.mid)  # accepted again: those who went away may have completed it


def _decline_rematch(d: _Draft, c: DeclineRematch) -> None:
    t = d.table
    _open(t)
    _not_ranked(t)
    member = _player(t, c.device)
    if t.kind is Kind.SOLO or t.stage is not Stage.FINISHED or not _offer_open(t, d.now):
        raise _refuse("illegal_action", "no rematch is offered now: there is nothing to decline")
    _seated(t, member)
    d.emit(RematchDeclined, mid=member.mid)


def _presence(d: _Draft, c: Connect | Disconnect) -> None:
    t = d.table
    if t.stage is Stage.CLOSED:
        return
    member = _sender(t, c.device)
    connected = isinstance(c, Connect)
    if member.connected != connected:
        d.emit(Presence, mid=member.mid, connected=connected)
        # Gone: the others may all have pressed.  Back: one who pressed
        # may now be the only one here.
        _settle(d)


def _react(d: _Draft, c: React) -> None:
    t = d.table
    _open(t)
    member = _player(t, c.device)
    if c.reaction not in REACTIONS:
        raise _refuse(
            "unknown_reaction", f"{c.reaction!r} is not a reaction: {', '.join(REACTIONS)}"
        )
    last = member.reacted_at
    if last is not None and d.now < last + t.timings.reaction_gap:
        raise _refuse("too_many_reactions", "one reaction at a time: wait a moment")
    d.emit(Reacted, mid=member.mid, reaction=c.reaction)


def _no_hints(t: Table) -> TableError:
    if t.kind is Kind.RANKED:
        return _refuse("no_hints", "hints are off: ranked games never allow them")
    if t.kind is Kind.PARTY:
        return _refuse("no_hints", "the host has not allowed hints at this table")
    return _refuse("no_hints", "hints were turned off for this game")


def _take_hint(d: _Draft, c: TakeHint) -> None:
    t = d.table
    _open(t)
    if c.kind not in HINT_KINDS:
        raise _refuse("illegal_action", f"one asks for a hint or a heatmap, not {c.kind!r}")
    member = _player(t, c.device)  # a spectator is told so first
    if not t.settings.hints:
        raise _no_hints(t)
    if t.stage is Stage.LOBBY:
        raise _refuse("illegal_action", "the game has not started yet")
    if t.stage is Stage.FINISHED:
        raise _refuse("game_over", "the game is over: no more hints")
    seat = _check_seat(t, c.seat)
    if t.seats[seat] != Person(member.mid):
        raise _refuse("not_your_seat", f"{_seat_word(seat)} is not your seat")
    if seat in t.standing_in:
        raise _refuse("not_your_turn", "a CPU plays this turn for you; your next one is yours")
    game = _game(t)
    current = game.current_seat
    if current is None:
        raise _refuse(
            "illegal_action", f"round {game.round_number} is over: press Next for the next one"
        )
    if current is not seat:
        raise _refuse("not_your_turn", f"it is {seat_name(current)}'s turn")
    if (seat, c.kind, len(game.actions)) in t.hinted:
        return  # asked again this turn: counted once
    d.emit(HintTaken, member=member.mid, seat=seat, kind=c.kind)


def _tick(d: _Draft, c: Tick) -> None:
    for _ in range(200):
        t = d.table
        deadline = t.next_deadline()
        if deadline is None or deadline.at > d.now or t.game is None:
            return
        seat = t.game.current_seat
        if deadline.kind is DeadlineKind.REMATCH:
            d.emit(RematchLapsed)
        elif deadline.kind is DeadlineKind.ROUND:
            d.emit(RoundStarted, round=t.game.round_number + 1)
            _begin_turn(d)
        elif seat is not None and deadline.kind is DeadlineKind.NO_SHOW:
            # The player never took a first shot: nobody is rated for a game not played.
            d.emit(GameAborted, seat=seat, reason="no_show")
            d.emit(GameFinished, winner=None, drawn=(), abandoned=True)
        elif seat is not None and deadline.kind is DeadlineKind.STANDIN:
            d.emit(StandInOn, seat=seat)
        elif seat is not None:
            # R3: the clock ran out; the disc goes to the ditch unplayed.
            d.emit(TurnTimedOut, seat=seat, reason="clock")
            _begin_turn(d)


_HANDLERS: dict[type, Callable[[_Draft, Any], None]] = {
    Join: _join,
    Leave: _leave_command,
    Resign: _leave_command,
    Rename: _rename,
    TakeSeat: _take_seat,
    MoveMember: _move_member,
    SetCpu: _set_cpu,
    Remove: _remove,
    ChangeSettings: _change_settings,
    Start: _start,
    Shoot: _shoot,
    NextRound: _next_round,
    Rematch: _rematch,
    DeclineRematch: _decline_rematch,
    Connect: _presence,
    Disconnect: _presence,
    React: _react,
    TakeHint: _take_hint,
    Tick: _tick,
}
