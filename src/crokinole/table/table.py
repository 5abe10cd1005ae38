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
* **Events.**  An event's table (``event``: :class:`EventLink`) is a ranked
  table on the event's settings; anyone may join it as a spectator by its
  code (a spectator who leaves abandons nothing).
* **No-shows.**  At a ranked table a seat's first turn of a game has no
  stand-in and no ditch: if its player has not shot by the end of that turn's
  clock (``turn_time + turn_grace``, the ranked clock), the game is aborted
  (``GameAborted``, then ``GameFinished`` abandoned) and is not rated.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from crokinole.ai import Level
from crokinole.board import Seat, is_real_number
from crokinole.errors import ErrorCode, TableError
from crokinole.physics import ShotResult
from crokinole.rules import Game, Phase
from crokinole.table import commands as cmd
from crokinole.table import evolve, hints, lobby, play, presence, ranked, snapshot
from crokinole.table.commands import Command
from crokinole.table.draft import Draft, check_clock_and_seed, open_draft
from crokinole.table.event_link import EventLink
from crokinole.table.events import Event, EventLinked
from crokinole.table.members import (
    Cpu,
    Member,
    Occupant,
    Person,
    RankedPlayer,
    SeatRating,
    check_name,
)
from crokinole.table.settings import RANKED_TURN_TIME, Kind, TableSettings, Timings
from crokinole.table.state import MAX_SPECTATORS, ME, Deadline, DeadlineKind, Played, Stage

__all__ = ["MAX_SPECTATORS", "ME", "Deadline", "DeadlineKind", "Played", "Stage", "Table"]


@dataclass(frozen=True, slots=True)
class Table:
    """A table: its people, seats, settings, clocks and game, at one version.

    Attributes:
        id: the table's id (32 hex digits from the server).
        kind: party or solo.
        code: the party's code (None for solo), or the spectators' code of an event's table.
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
        event: where an event's table stands in its event (a ranked table an
            event opened for a pairing; else None).
        last_report: the last shot or timeout (not stored, not compared).
        shot_reports: the shots and timeouts of the last ``apply`` by event
            version (not stored, not compared).

    A party, from creation to a first shot:

    >>> from crokinole.board import Seat, Shot
    >>> from crokinole.table.commands import Join, Shoot, Start
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
    event: EventLink | None = None
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
        kind = lobby.kind_of(kind, code, settings, seats)
        check_clock_and_seed(now, seed)
        name = check_name(host_name)
        plan = lobby.solo_plan(settings, seats) if kind is Kind.SOLO else {}
        named = lobby.seat_names(kind, plan, names)
        draft = open_draft(
            cls, id, kind, code, settings, timings=timings, seed=seed, now=now, device=host_device
        )
        lobby.seat_first(draft, (host_device, name), plan, named)
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
        event: EventLink | None = None,
        code: str | None = None,
    ) -> tuple[Table, list[Event]]:
        """A ranked table with its players seated and its game started, and its first events.

        Every player is away until they connect (``Connect``); a stand-in
        takes the turn of one who does not come within ``standin_grace``.
        An event's table (``event``: its link to the event) plays the
        event's settings (any rules of singles or doubles, no hints) rather
        than the ranked ones, and its ``code`` lets spectators join it (``/watch/{code}``).

        >>> from crokinole.board import Seat
        >>> players = {
        ...     Seat.SOUTH: RankedPlayer("account:1", "ann", SeatRating(1000, True)),
        ...     Seat.NORTH: RankedPlayer("account:2", "bob", SeatRating(1040, True)),
        ... }
        >>> table, events = Table.create_ranked(
        ...     id="t1", players=players, settings=TableSettings.ranked("singles"), seed=1, now=0.0)
        >>> table.kind.value, table.stage.value, table.host, table.ratings[Seat.NORTH].rating
        ('ranked', 'playing', None, 1040)
        >>> from crokinole.table.commands import Join
        >>> table.apply(Join("dev-cat", "Cat", spectator=True), now=1.0)
        Traceback (most recent call last):
        ...
        crokinole.errors.TableError: this is a ranked game: only its players can join

        Raises:
            TableError: ``bad_settings`` (settings that are not the ranked
                rules, seats that are not the layout's, a player twice, a bad
                seed or time), ``bad_name``.
        """
        seated = ranked.check_players(settings, players, now, seed, event=event)
        if code is not None and event is None:
            raise TableError(ErrorCode.BAD_SETTINGS, "only an event's ranked table has a code")
        host = seated[0].device
        draft = open_draft(
            cls, id, Kind.RANKED, code, settings, timings=timings, seed=seed, now=now, device=host
        )
        if event is not None:
            draft.emit(EventLinked, link=event)
        ranked.seat_players(draft, seated)
        return draft.table, draft.events

    @classmethod
    def replay(cls, events: Iterable[Event]) -> Table:
        """The table a whole event log describes (the first event is ``TableCreated``).

        Raises:
            InvalidRecordError: the log does not start with ``TableCreated``,
                has a gap, or an event that cannot happen where it stands.
        """
        return evolve.replay(cls, events)

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

    def standin_share(self, seat: Seat) -> float:
        """The share (0 to 1) of ``seat``'s turns in this game a CPU played for its person."""
        turns = self.turns.get(seat, 0)
        return self.standin_turns.get(seat, 0) / turns if turns else 0.0

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
            raise TableError(
                ErrorCode.ILLEGAL_ACTION, f"a table takes commands, not {type(command).__name__}"
            )
        if not is_real_number(now) or not math.isfinite(float(now)):
            raise TableError(
                ErrorCode.ILLEGAL_ACTION, f"the time is a number of seconds, not {now!r}"
            )
        ranked.check_sender(self, command)
        draft = Draft(replace(self, shot_reports={}), float(now), [])
        handler(draft, command)
        if not draft.events:
            return self, []
        return draft.table, draft.events

    def fold(self, event: Event, outcome: ShotResult | None = None) -> Table:
        """The table after one stored event (its version must be the next one).

        A shot is simulated again, unless its ``outcome`` (the simulator's
        result, as the owner's ``shot_reports`` hold it) is given: a copy
        of the table then folds the owner's shot without the physics, and
        ends exactly as the owner's table (its report included).

        Raises:
            InvalidRecordError: the event does not follow or cannot happen
                here, or ``outcome`` is not this shot's from this board.
        """
        return evolve.fold(replace(self, shot_reports={}), event, None, outcome)

    # ------------------------------------------------------------ snapshots

    def to_dict(self) -> dict[str, Any]:
        """The whole table as JSON-ready data (device tokens included: for the store only)."""
        return snapshot.to_dict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Table:
        """Inverse of :meth:`to_dict`.

        Raises:
            InvalidRecordError: the data is not a table snapshot.
        """
        return snapshot.from_dict(cls, data)


#: The handler of each command, by its type (see the modules by kind).
_HANDLERS: dict[type, Callable[[Draft, Any], None]] = {
    cmd.Join: lobby.join,
    cmd.Leave: lobby.leave_command,
    cmd.Resign: lobby.leave_command,
    cmd.Rename: lobby.rename,
    cmd.TakeSeat: lobby.take_seat,
    cmd.MoveMember: lobby.move_member,
    cmd.SetCpu: lobby.set_cpu,
    cmd.Remove: lobby.remove,
    cmd.ChangeSettings: lobby.change_settings,
    cmd.Start: lobby.start,
    cmd.Shoot: play.shoot,
    cmd.NextRound: play.next_round,
    cmd.Rematch: play.rematch,
    cmd.DeclineRematch: play.decline_rematch,
    cmd.Tick: play.tick,
    cmd.Connect: presence.presence,
    cmd.Disconnect: presence.presence,
    cmd.React: presence.react,
    cmd.TakeHint: hints.take_hint,
}
