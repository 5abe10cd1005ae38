"""The game of RULES.md (R2–R6, R9) as a state machine.

A :class:`Game` changes only through three actions — :meth:`Game.shoot`,
:meth:`Game.timeout` and :meth:`Game.next_round` — each of which checks
everything first and then applies fully, or raises a
:class:`~crokinole.errors.CrokinoleError` with a message a player can read
and leaves the game exactly as it was.  The game never reads a clock or
draws a random number: a timeout is an action given to it, and shots come
from players.

Decisions taken where RULES.md is silent (what a tournament official would do):

* **Turn order.**  Sides alternate one disc at a time; a side with two
  players alternates them.  For a round whose first shooter is F, the order
  of sides and of each side's players is the order in which they appear
  going clockwise from F.  Doubles from south: S, W, N, E.  2-vs-1 from
  south: S, W, N, W, S, ….
* **2-vs-1 seats.**  The pair sits south and north (opposite, like partners
  in doubles) with 6 discs each; the single player sits west with 12.
* **First shooter.**  South (or the seat given) opens the game; each new
  round opens with the next seat clockwise among the seats in use, which is
  R2's alternation in singles.
* **Three sides, four rounds.**  The best round total takes 2 game points;
  sides tied for the best take 1 each; the others take 0.  To 100: a single
  best side adds its lead over the second best; a tie for the best adds
  nothing.
* **Extra rounds (tie setting).**  After the last round, if two or more
  sides share the best game score, another round is played until one side
  leads alone, at most four more; then the leaders draw.
* **Fouls and the hole.**  On a foul, opposing discs stay where they stopped:
  one knocked into the hole still counts 20 for its owner; the shooter's
  side's discs that dropped are cancelled and go to the ditch with the
  others that moved.
* **The open-board rule** is judged on discs that are still on the board
  after R5 (a disc sent out by the come-back rule does not make a shot
  valid).  A zero-power shot counts as played: its disc stays on the line,
  which puts it out.
* **Beyond the shooting line** (R5's come-back rule) means the disc's centre
  crossed the shooting line's circle; the placed disc starts on it, not beyond.
* **Timeout** (R3): the disc goes to the ditch unplayed, scores 0, and the
  turn passes; the board is untouched.
* **No room to place** (discs block the whole quarter of the line): the
  shooter cannot play the disc; it is treated as a timeout (the server
  applies it at once, see :meth:`Game.can_place`).
* **Round end.**  The discs stay on the board for the round result until
  :meth:`Game.next_round`; a finished game needs no confirmation.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

import numpy as np

from crokinole.board import TOURNAMENT_BOARD, Board, Seat, Shot
from crokinole.errors import (
    IllegalActionError,
    IllegalPlacement,
    InvalidShotError,
    NotYourTurn,
)
from crokinole.physics import OVERLAP_TOLERANCE, simulate_shot
from crokinole.rules.options import Rules
from crokinole.rules.referee import Disc, Foul, Removal, Removed, ShotReport, judge_shot
from crokinole.rules.scoring import (
    GameOutcome,
    SideCount,
    count_side,
    game_outcome,
    round_points,
)


class Phase(Enum):
    """Where the game stands."""

    PLAYING = "playing"
    ROUND_OVER = "round_over"  # the round result is shown; next_round() goes on
    GAME_OVER = "game_over"


@dataclass(frozen=True, slots=True)
class RoundResult:
    """The result of a finished round (R6).

    Attributes:
        number: the round's number, from 1.
        counts: each side's 20s and discs by zone.
        points: game points earned (four rounds) or points added (to 100).
        scores_after: each side's game score after the round.
    """

    number: int
    counts: tuple[SideCount, ...]
    points: tuple[int, ...]
    scores_after: tuple[int, ...]

    @property
    def totals(self) -> tuple[int, ...]:
        """Each side's round total."""
        return tuple(c.total for c in self.counts)


def seat_name(seat: Seat) -> str:
    """``Seat.NORTH`` → ``North``."""
    return seat.name.title()


def turn_order(rules: Rules, first: Seat) -> tuple[Seat, ...]:
    """Every turn of a round whose first shooter is ``first``, in order.

    >>> [s.name[0] for s in turn_order(Rules.two_vs_one(), Seat.SOUTH)][:6]
    ['S', 'W', 'N', 'W', 'S', 'W']
    >>> [s.name[0] for s in turn_order(Rules.doubles(), Seat.WEST)][:4]
    ['W', 'N', 'E', 'S']
    """
    seats = rules.seats
    k = seats.index(first)
    clockwise = seats[k:] + seats[:k]
    side_order: list[int] = []
    players: dict[int, list[Seat]] = {}
    for seat in clockwise:
        side = rules.side_of(seat)
        if side not in players:
            side_order.append(side)
            players[side] = []
        players[side].append(seat)
    shots = rules.discs_per_side * len(side_order)
    played = dict.fromkeys(side_order, 0)
    order: list[Seat] = []
    for t in range(shots):
        side = side_order[t % len(side_order)]
        order.append(players[side][played[side] % len(players[side])])
        played[side] += 1
    return tuple(order)


class Game:
    """A game of crokinole under ``rules`` on ``board``.

    >>> game = Game(Rules.tournament_singles())
    >>> game.current_seat, game.in_hand(Seat.SOUTH), game.phase
    (<Seat.SOUTH: 270.0>, 8, <Phase.PLAYING: 'playing'>)
    >>> report = game.shoot(Seat.SOUTH, Shot(position=0.0, direction=0.0, power=28.0))
    >>> report.valid, [d.owner for d in report.twenties]   # an open 20
    (True, [<Seat.SOUTH: 270.0>])
    >>> game.shoot(Seat.SOUTH, Shot(power=50.0))
    Traceback (most recent call last):
    ...
    crokinole.errors.NotYourTurn: it is North's turn
    """

    def __init__(
        self,
        rules: Rules | None = None,
        board: Board = TOURNAMENT_BOARD,
        first_seat: Seat | None = None,
    ) -> None:
        self._rules = Rules() if rules is None else rules
        if not isinstance(self._rules, Rules):
            raise IllegalActionError(f"rules must be a Rules value, got {rules!r}")
        self._board = board
        seats = self._rules.seats
        first = seats[0] if first_seat is None else first_seat
        if first not in seats:
            names = ", ".join(s.name.lower() for s in seats)
            raise IllegalActionError(f"{first!r} is not a seat in this game; the seats are {names}")
        self._first_seat = first
        self._side_of = {s: self._rules.side_of(s) for s in seats}
        n_sides = len(self._rules.sides)
        self._scores = [0] * n_sides
        self._history: list[RoundResult] = []
        self._outcome: GameOutcome | None = None
        self._actions: list[dict[str, Any]] = []
        self._last_report: ShotReport | None = None
        self._start_round(1, first)

    def _start_round(self, number: int, first: Seat) -> None:
        n_sides = len(self._rules.sides)
        self._round = number
        self._round_first = first
        self._order = turn_order(self._rules, first)
        self._turn = 0
        self._in_hand = {s: self._rules.discs_per_player(s) for s in self._rules.seats}
        self._discs: tuple[Disc, ...] = ()
        self._twenties = [0] * n_sides
        self._ditch = [0] * n_sides
        self._next_id = 0
        self._phase = Phase.PLAYING

    # ------------------------------------------------------------ queries

    @property
    def rules(self) -> Rules:
        """The options of this game."""
        return self._rules

    @property
    def board(self) -> Board:
        """The board it is played on."""
        return self._board

    @property
    def phase(self) -> Phase:
        """Playing, showing a round result, or over."""
        return self._phase

    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self._phase is Phase.GAME_OVER

    @property
    def round_number(self) -> int:
        """The current round, from 1."""
        return self._round

    @property
    def round_first_seat(self) -> Seat:
        """Who opened the current round."""
        return self._round_first

    @property
    def current_seat(self) -> Seat | None:
        """Whose turn it is, or None between rounds and after the game."""
        return self._order[self._turn] if self._phase is Phase.PLAYING else None

    @property
    def upcoming(self) -> tuple[Seat, ...]:
        """The turns left in this round, the current one first (empty between rounds)."""
        return self._order[self._turn :] if self._phase is Phase.PLAYING else ()

    @property
    def turn_index(self) -> int:
        """How many turns of this round have been played."""
        return self._turn

    @property
    def discs(self) -> tuple[Disc, ...]:
        """Discs on the board, in the order they were shot."""
        return self._discs

    @property
    def next_disc_id(self) -> int:
        """The id the next disc shot this round will get."""
        return self._next_id

    @property
    def twenties(self) -> tuple[int, ...]:
        """Discs set aside from the hole this round, per side."""
        return tuple(self._twenties)

    @property
    def ditch(self) -> tuple[int, ...]:
        """Discs in the ditch this round, per side."""
        return tuple(self._ditch)

    @property
    def scores(self) -> tuple[int, ...]:
        """Game score per side: game points (four rounds) or points (to 100)."""
        return tuple(self._scores)

    @property
    def history(self) -> tuple[RoundResult, ...]:
        """Finished rounds."""
        return tuple(self._history)

    @property
    def outcome(self) -> GameOutcome | None:
        """Winner or draw once the game is over."""
        return self._outcome

    @property
    def last_report(self) -> ShotReport | None:
        """What the last action did."""
        return self._last_report

    @property
    def actions(self) -> tuple[dict[str, Any], ...]:
        """The shot record (R9): every action so far, with its result."""
        return tuple(self._actions)

    def in_hand(self, seat: Seat) -> int:
        """Discs ``seat`` has still to shoot this round."""
        return self._in_hand[seat]

    def side_of(self, seat: Seat) -> int:
        """The side a seat plays for."""
        return self._side_of[seat]

    def total_discs(self, side: int) -> int:
        """Discs a side has in a round."""
        return self._rules.discs_per_side

    def round_counts(self) -> tuple[SideCount, ...]:
        """Each side's score so far this round, counted from the board (R6)."""
        return tuple(
            count_side(
                self._board,
                [d.centre for d in self._discs if self._side_of[d.owner] == side],
                self._twenties[side],
            )
            for side in range(len(self._rules.sides))
        )

    def placement_problem(self, seat: Seat, position: float) -> str | None:
        """Why a disc may not be placed there (R3), or None if it may."""
        try:
            centre = self._board.placement(seat, position)
        except InvalidShotError as exc:
            return str(exc)
        limit = 2.0 * self._board.disc_radius - OVERLAP_TOLERANCE
        for disc in self._discs:
            if math.hypot(disc.x - centre.x, disc.y - centre.y) < limit:
                return f"the disc would overlap {disc.describe()}"
        return None

    def placement_intervals(self, seat: Seat) -> list[tuple[float, float]]:
        """The positions (degrees) where ``seat`` may place a disc now, as closed intervals.

        A disc on the board blocks the positions where the placed disc would
        overlap it: on the line of radius R, the centre at angle φ is closer
        than 2r to a disc at distance c and angle θ exactly when
        cos(φ − θ) > (R² + c² − (2r)²) / (2 R c).  Empty when the whole
        quarter is blocked.
        """
        board = self._board
        radius = board.shooting_line_radius
        reach = 2.0 * board.disc_radius - OVERLAP_TOLERANCE
        limit = board.placement_limit
        intervals = [(-limit, limit)]
        for disc in self._discs:
            c = math.hypot(disc.x, disc.y)
            if c == 0.0:
                continue
            k = (radius * radius + c * c - reach * reach) / (2.0 * radius * c)
            if k >= 1.0:
                continue
            half = math.degrees(math.acos(max(k, -1.0)))
            middle = (math.degrees(math.atan2(disc.y, disc.x)) - seat.value + 180.0) % 360.0 - 180.0
            lo, hi = middle - half, middle + half
            kept: list[tuple[float, float]] = []
            for a, b in intervals:
                if hi <= a or lo >= b:
                    kept.append((a, b))
                    continue
                if lo > a:
                    kept.append((a, lo))
                if hi < b:
                    kept.append((hi, b))
            intervals = kept
        return intervals

    def can_place(self, seat: Seat) -> bool:
        """Whether ``seat`` has room to place a disc anywhere on its quarter (R3)."""
        return bool(self.placement_intervals(seat))

    # ------------------------------------------------------------ actions

    def _check_turn(self, seat: Seat, action: str) -> None:
        if not isinstance(seat, Seat):
            raise IllegalActionError(f"a seat is one of south, west, north, east; got {seat!r}")
        if self._phase is Phase.GAME_OVER:
            raise IllegalActionError(f"the game is over: no {action} is possible")
        if self._phase is Phase.ROUND_OVER:
            raise IllegalActionError(
                f"round {self._round} is over: start the next round before any {action}"
            )
        current = self._order[self._turn]
        if seat is not current:
            raise NotYourTurn(f"it is {seat_name(current)}'s turn")

    def shoot(self, seat: Seat, shot: Shot) -> ShotReport:
        """Place a disc for ``seat`` and shoot it (R3–R5).

        Raises:
            NotYourTurn: ``seat`` is not the shooter.
            IllegalActionError: the round or the game is over.
            IllegalPlacement: the position is off the seat's quarter or
                the disc would overlap a disc.
            InvalidShotError: direction or power out of range or not a number.
        """
        self._check_turn(seat, "shot")
        if not isinstance(shot, Shot):
            raise InvalidShotError(f"a shot is Shot(position, direction, power), got {shot!r}")
        problem = self.placement_problem(seat, shot.position)
        if problem is not None:
            raise IllegalPlacement(problem)
        launch = self._board.launch(seat, shot)
        before = self._discs
        positions = np.array([(d.x, d.y) for d in before], dtype=np.float64).reshape(-1, 2)
        result = simulate_shot(self._board, positions, launch)
        report = judge_shot(
            self._board,
            before=before,
            side_of=self._side_of,
            seat=seat,
            shot=shot,
            shot_id=self._next_id,
            result=result,
            required_contact=self._rules.required_contact,
        )
        action = {
            "type": "shoot",
            "seat": seat.name.lower(),
            "position": float(shot.position),
            "direction": float(shot.direction),
            "power": float(shot.power),
            "result": _report_summary(report),
        }
        self._apply(seat, report, action)
        return report

    def timeout(self, seat: Seat) -> ShotReport:
        """The shooter's time ran out (R3): the disc goes to the ditch, unplayed.

        Raises:
            NotYourTurn: ``seat`` is not the shooter.
            IllegalActionError: the round or the game is over.
        """
        self._check_turn(seat, "timeout")
        centre = self._board.placement(seat, 0.0)
        disc = Disc(self._next_id, seat, centre.x, centre.y)
        report = ShotReport(
            seat=seat,
            shot=None,
            foul=Foul.TIMEOUT,
            twenties=(),
            cancelled_twenties=(),
            removed=(Removed(disc, Removal.TIMEOUT),),
            moved=(),
            board_after=self._discs,
            physics=None,
        )
        action = {"type": "timeout", "seat": seat.name.lower(), "result": _report_summary(report)}
        self._apply(seat, report, action)
        return report

    def _apply(self, seat: Seat, report: ShotReport, action: dict[str, Any]) -> None:
        # Everything is computed; from here on nothing can fail.
        for twenty in report.twenties:
            self._twenties[self._side_of[twenty.owner]] += 1
        for gone in report.removed:
            self._ditch[self._side_of[gone.disc.owner]] += 1
        self._discs = report.board_after
        self._in_hand[seat] -= 1
        self._next_id += 1
        self._turn += 1
        self._last_report = report
        self._actions.append(action)
        if self._turn == len(self._order):
            self._end_round()

    def _end_round(self) -> None:
        counts = self.round_counts()
        points = round_points([c.total for c in counts], self._rules.scoring)
        for side, p in enumerate(points):
            self._scores[side] += p
        self._history.append(RoundResult(self._round, counts, points, tuple(self._scores)))
        self._outcome = game_outcome(self._rules, self._scores, self._round)
        self._phase = Phase.GAME_OVER if self._outcome is not None else Phase.ROUND_OVER

    def next_round(self) -> None:
        """Leave the round result and start the next round (R6 "Next").

        Raises:
            IllegalActionError: the round is still being played, or the game is over.
        """
        if self._phase is Phase.PLAYING:
            raise IllegalActionError(
                f"round {self._round} is still being played: "
                f"{sum(self._in_hand.values())} discs are left to shoot"
            )
        if self._phase is Phase.GAME_OVER:
            raise IllegalActionError("the game is over: there is no next round")
        seats = self._rules.seats
        first = seats[(seats.index(self._round_first) + 1) % len(seats)]
        self._actions.append({"type": "next_round"})
        self._last_report = None
        self._start_round(self._round + 1, first)

    # ------------------------------------------------------------ copying

    def copy(self) -> Game:
        """An independent copy (for search); values are shared, lists are not."""
        other = Game.__new__(Game)
        other.__dict__.update(self.__dict__)
        other._scores = list(self._scores)
        other._history = list(self._history)
        other._actions = list(self._actions)
        other._in_hand = dict(self._in_hand)
        other._twenties = list(self._twenties)
        other._ditch = list(self._ditch)
        return other

    # ------------------------------------------------------------ records

    def snapshot(self) -> dict[str, Any]:
        """The whole state as plain JSON-ready data (see docs/record-format.md)."""
        return {
            "round": self._round,
            "round_first": self._round_first.name.lower(),
            "turn": self._turn,
            "phase": self._phase.value,
            "in_hand": {s.name.lower(): n for s, n in self._in_hand.items()},
            "discs": [[d.id, d.owner.name.lower(), d.x, d.y] for d in self._discs],
            "twenties": list(self._twenties),
            "ditch": list(self._ditch),
            "next_id": self._next_id,
            "scores": list(self._scores),
            "history": [_round_to_dict(r) for r in self._history],
            "outcome": None
            if self._outcome is None
            else {"winner": self._outcome.winner, "drawn": list(self._outcome.drawn)},
        }

    def to_json(self) -> str:
        """The game record (R9) as JSON; see ``docs/record-format.md``."""
        from crokinole.rules.record import game_to_json  # noqa: PLC0415 - record imports Game

        return game_to_json(self)

    @classmethod
    def from_json(cls, text: str) -> Game:
        """Read a record written by :meth:`to_json` (exactly the same state).

        Raises:
            InvalidRecordError: the text is not a valid record.
        """
        from crokinole.rules.record import game_from_json  # noqa: PLC0415 - record imports Game

        return game_from_json(text)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Game):
            return NotImplemented
        return (
            self._rules == other._rules
            and self._board == other._board
            and self._first_seat == other._first_seat
            and self.snapshot() == other.snapshot()
            and self._actions == other._actions
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"<Game {self._rules.layout.value} round {self._round} {self._phase.value} "
            f"scores={self.scores}>"
        )


def _round_to_dict(r: RoundResult) -> dict[str, Any]:
    return {
        "number": r.number,
        "counts": [[c.twenties, c.fifteens, c.tens, c.fives] for c in r.counts],
        "points": list(r.points),
        "scores_after": list(r.scores_after),
    }


def _report_summary(report: ShotReport) -> dict[str, Any]:
    return {
        "foul": None if report.foul is None else report.foul.name.lower(),
        "twenties": [d.id for d in report.twenties],
        "cancelled": [d.id for d in report.cancelled_twenties],
        "removed": [[r.disc.id, r.reason.name.lower()] for r in report.removed],
        "board": [[d.id, d.owner.name.lower(), d.x, d.y] for d in report.board_after],
    }


def seats_named(names: Sequence[str]) -> tuple[Seat, ...]:
    """Seats from their lower-case names."""
    return tuple(Seat[n.upper()] for n in names)
