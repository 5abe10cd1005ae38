"""The game of RULES.md (R2–R6, R9) as a state machine.

A :class:`Game` changes only through three actions — :meth:`Game.shoot`,
:meth:`Game.timeout` and :meth:`Game.next_round` — each of which computes
the whole next :class:`~crokinole.rules.state.GameState` (the round's count
and score included) and only then replaces the old one, or raises a
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
from dataclasses import replace
from typing import Any, Generic, TypeVar, cast, overload

import numpy as np

from crokinole.board import TOURNAMENT_BOARD, Board, Seat, Shot
from crokinole.errors import (
    GameOver,
    IllegalActionError,
    IllegalPlacement,
    InvalidShotError,
    NotYourTurn,
)
from crokinole.physics import OVERLAP_TOLERANCE, ShotResult, simulate_shot
from crokinole.rules.actions import Action, NextRound, ShotAction, TimeoutAction, TurnResult
from crokinole.rules.options import Rules
from crokinole.rules.record_format import SavedGame, read_record, record_dict, write_record
from crokinole.rules.referee import Disc, Foul, Removal, Removed, ShotReport, judge_shot
from crokinole.rules.scoring import GameOutcome, SideCount
from crokinole.rules.state import GameState, Phase, RoundResult, round_opener, turn_order

__all__ = ["Game", "Phase", "RoundResult", "seat_name", "turn_order"]

_T = TypeVar("_T")


def seat_name(seat: Seat) -> str:
    """``Seat.NORTH`` → ``North`` (kept for callers: :attr:`Seat.title` is the one namer)."""
    return seat.title


class _OfState(Generic[_T]):
    """A read-only attribute of :class:`Game` that is a field of its :class:`GameState`."""

    def __init__(self, field: str, doc: str) -> None:
        self._field = field
        self.__doc__ = doc

    @overload
    def __get__(self, game: None, owner: type[Game]) -> _OfState[_T]: ...
    @overload
    def __get__(self, game: Game, owner: type[Game]) -> _T: ...
    def __get__(self, game: Game | None, owner: type[Game]) -> _OfState[_T] | _T:
        if game is None:
            return self
        return cast(_T, getattr(game.state, self._field))


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
            names = ", ".join(s.key for s in seats)
            raise IllegalActionError(f"{first!r} is not a seat in this game; the seats are {names}")
        self._first_seat = first
        self._side_of = {s: self._rules.side_of(s) for s in seats}
        self._seat_index = {s: k for k, s in enumerate(seats)}
        # The whole changing state is one immutable value, replaced (never
        # edited) by each action together with the action list and the turn
        # order; every value held here is immutable, so copy() shares them.
        self._state = GameState.first_round(self._rules, first)
        self._order = turn_order(self._rules, first)
        self._actions: tuple[Action, ...] = ()

    # ------------------------------------------------------------ queries

    # The state's facts, read through (``game.scores`` is ``game.state.scores``).
    phase: _OfState[Phase] = _OfState("phase", "Playing, showing a round result, or over.")
    round_number: _OfState[int] = _OfState("round", "The current round, from 1.")
    round_first_seat: _OfState[Seat] = _OfState("round_first", "Who opened the current round.")
    turn_index: _OfState[int] = _OfState("turn", "How many turns of this round have been played.")
    discs: _OfState[tuple[Disc, ...]] = _OfState(
        "discs", "Discs on the board, in the order they were shot."
    )
    next_disc_id: _OfState[int] = _OfState(
        "next_id", "The id the next disc shot this round will get."
    )
    twenties: _OfState[tuple[int, ...]] = _OfState(
        "twenties", "Discs set aside from the hole this round, per side."
    )
    ditch: _OfState[tuple[int, ...]] = _OfState("ditch", "Discs in the ditch this round, per side.")
    scores: _OfState[tuple[int, ...]] = _OfState(
        "scores", "Game score per side: game points (four rounds) or points (to 100)."
    )
    history: _OfState[tuple[RoundResult, ...]] = _OfState("history", "Finished rounds.")
    outcome: _OfState[GameOutcome | None] = _OfState(
        "outcome", "Winner or draw once the game is over."
    )

    @property
    def rules(self) -> Rules:
        """The options of this game."""
        return self._rules

    @property
    def board(self) -> Board:
        """The board it is played on."""
        return self._board

    @property
    def first_seat(self) -> Seat:
        """Who opened the game."""
        return self._first_seat

    @property
    def state(self) -> GameState:
        """Everything that changes during the game, as one immutable value."""
        return self._state

    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self._state.phase is Phase.GAME_OVER

    @property
    def current_seat(self) -> Seat | None:
        """Whose turn it is, or None between rounds and after the game."""
        state = self._state
        return self._order[state.turn] if state.phase is Phase.PLAYING else None

    @property
    def upcoming(self) -> tuple[Seat, ...]:
        """The turns left in this round, the current one first (empty between rounds)."""
        state = self._state
        return self._order[state.turn :] if state.phase is Phase.PLAYING else ()

    @property
    def actions(self) -> tuple[Action, ...]:
        """The shot record (R9): every action so far, with its result."""
        return self._actions

    def in_hand(self, seat: Seat) -> int:
        """Discs ``seat`` has still to shoot this round."""
        if seat not in self._seat_index:
            raise IllegalActionError(f"{seat!r} is not a seat in this game")
        return self._state.in_hand[self._seat_index[seat]]

    def side_of(self, seat: Seat) -> int:
        """The side a seat plays for."""
        return self._side_of[seat]

    def round_counts(self) -> tuple[SideCount, ...]:
        """Each side's score so far this round, counted from the board (R6)."""
        return self._state.round_counts(self._rules, self._board)

    def placement_problem(self, seat: Seat, position: float) -> str | None:
        """Why a disc may not be placed there (R3), or None if it may."""
        try:
            centre = self._board.placement(seat, position)
        except InvalidShotError as exc:
            return str(exc)
        limit = 2.0 * self._board.disc_radius - OVERLAP_TOLERANCE
        for disc in self._state.discs:
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
        for disc in self._state.discs:
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
        state = self._state
        if state.phase is Phase.GAME_OVER:
            raise GameOver(f"the game is over: no {action} is possible")
        if state.phase is Phase.ROUND_OVER:
            raise IllegalActionError(
                f"round {state.round} is over: start the next round before any {action}"
            )
        current = self._order[state.turn]
        if seat is not current:
            raise NotYourTurn(f"it is {seat_name(current)}'s turn")

    def shoot(self, seat: Seat, shot: Shot, *, outcome: ShotResult | None = None) -> ShotReport:
        """Place a disc for ``seat`` and shoot it (R3–R5).

        ``outcome`` is the simulator's result of this very shot when it is
        known already (another copy of the game simulated it): it is judged
        instead of simulating the shot again, the game ending exactly as
        that copy did.  It must start from this board and this shot's
        starting point.

        Raises:
            NotYourTurn: ``seat`` is not the shooter.
            IllegalActionError: the round or the game is over.
            IllegalPlacement: the position is off the seat's quarter or
                the disc would overlap a disc.
            InvalidShotError: direction or power out of range or not a number,
                or an ``outcome`` that does not start where this shot does.
        """
        self._check_turn(seat, "shot")
        if not isinstance(shot, Shot):
            raise InvalidShotError(f"a shot is Shot(position, direction, power), got {shot!r}")
        problem = self.placement_problem(seat, shot.position)
        if problem is not None:
            raise IllegalPlacement(problem)
        launch = self._board.launch(seat, shot)
        before = self._state.discs
        positions = np.array([(d.x, d.y) for d in before], dtype=np.float64).reshape(-1, 2)
        if outcome is None:
            result = simulate_shot(self._board, positions, launch)
        else:
            result = _checked_outcome(outcome, positions, launch.x, launch.y)
        report = judge_shot(
            self._board,
            before=before,
            side_of=self._side_of,
            seat=seat,
            shot=shot,
            shot_id=self._state.next_id,
            result=result,
            required_contact=self._rules.required_contact,
        )
        played = Shot(float(shot.position), float(shot.direction), float(shot.power))
        action = ShotAction(seat, played, TurnResult.of(report))
        self._commit(self._after_turn(seat, report), action)
        return report

    def timeout(self, seat: Seat) -> ShotReport:
        """The shooter's time ran out (R3): the disc goes to the ditch, unplayed.

        Raises:
            NotYourTurn: ``seat`` is not the shooter.
            IllegalActionError: the round or the game is over.
        """
        self._check_turn(seat, "timeout")
        centre = self._board.placement(seat, 0.0)
        disc = Disc(self._state.next_id, seat, centre.x, centre.y)
        report = ShotReport(
            seat=seat,
            shot=None,
            foul=Foul.TIMEOUT,
            twenties=(),
            cancelled_twenties=(),
            removed=(Removed(disc, Removal.TIMEOUT),),
            moved=(),
            board_after=self._state.discs,
            physics=None,
            simulated=(*self._state.discs, disc),
        )
        action = TimeoutAction(seat, TurnResult.of(report))
        self._commit(self._after_turn(seat, report), action)
        return report

    def _after_turn(self, seat: Seat, report: ShotReport) -> GameState:
        """The state after ``report``'s turn, the round's count included when it was the last.

        Computed whole before anything changes: if counting the round fails,
        the game is left as it was.
        """
        state = self._state
        twenties = list(state.twenties)
        for twenty in report.twenties:
            twenties[self._side_of[twenty.owner]] += 1
        ditch = list(state.ditch)
        for gone in report.removed:
            ditch[self._side_of[gone.disc.owner]] += 1
        in_hand = list(state.in_hand)
        in_hand[self._seat_index[seat]] -= 1
        after = replace(
            state,
            turn=state.turn + 1,
            in_hand=tuple(in_hand),
            discs=report.board_after,
            twenties=tuple(twenties),
            ditch=tuple(ditch),
            next_id=state.next_id + 1,
        )
        if after.turn == len(self._order):
            after = after.end_round(self._rules, self._board)
        return after

    def _commit(self, state: GameState, action: Action) -> None:
        # Plain assignments of values computed in full: nothing here can fail.
        if state.round != self._state.round:
            self._order = turn_order(self._rules, state.round_first)
        self._state = state
        self._actions = (*self._actions, action)

    def next_round(self) -> None:
        """Leave the round result and start the next round (R6 "Next").

        Raises:
            IllegalActionError: the round is still being played, or the game is over.
        """
        state = self._state
        if state.phase is Phase.PLAYING:
            raise IllegalActionError(
                f"round {state.round} is still being played: "
                f"{sum(state.in_hand)} discs are left to shoot"
            )
        if state.phase is Phase.GAME_OVER:
            raise GameOver("the game is over: there is no next round")
        number = state.round + 1
        first = round_opener(self._rules, self._first_seat, number)
        fresh = GameState.new_round(self._rules, number, first, state.scores, state.history)
        self._commit(fresh, NextRound())

    # ------------------------------------------------------------ copying

    def copy(self) -> Game:
        """An independent copy (for search): every value held is immutable, so all are shared."""
        other = Game.__new__(Game)
        other.__dict__.update(self.__dict__)
        return other

    # ------------------------------------------------------------ records

    def _saved(self) -> SavedGame:
        return SavedGame(self._rules, self._board, self._first_seat, self._actions, self._state)

    def snapshot(self) -> dict[str, Any]:
        """The whole state as plain JSON-ready data (see docs/record-format.md)."""
        return self._state.to_dict(self._rules)

    def to_record(self) -> dict[str, Any]:
        """The game record (R9) as plain data; see ``docs/record-format.md``."""
        return record_dict(self._saved())

    def to_json(self) -> str:
        """The game record (R9) as JSON; see ``docs/record-format.md``."""
        return write_record(self._saved())

    @classmethod
    def from_json(cls, text: str | bytes) -> Game:
        """Read a record written by :meth:`to_json` (exactly the same state).

        The state must be one that play can reach (see
        :func:`~crokinole.rules.state.check_reachable`), so the game read
        back can be played on.

        Raises:
            InvalidRecordError: the text is not a valid record, or its state
                cannot be reached under its rules; the message names the place.
        """
        saved = read_record(text)
        game = cls(saved.rules, saved.board, saved.first_seat)
        game._state = saved.state
        game._order = turn_order(saved.rules, saved.state.round_first)
        game._actions = saved.actions
        return game

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Game):
            return NotImplemented
        return (
            self._rules == other._rules
            and self._board == other._board
            and self._first_seat == other._first_seat
            and self._state == other._state
            and self._actions == other._actions
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"<Game {self._rules.layout.value} round {self._state.round} "
            f"{self._state.phase.value} scores={self.scores}>"
        )


def _checked_outcome(
    outcome: ShotResult, positions: np.ndarray[Any, Any], x: float, y: float
) -> ShotResult:
    """``outcome`` if it starts from ``positions`` with the shot disc at ``(x, y)``."""
    start = np.vstack([positions, [[x, y]]])
    if not (
        isinstance(outcome, ShotResult)
        and outcome.start_array.shape == start.shape
        and outcome.final_array.shape == start.shape
        and outcome.status_array.shape == start.shape[:1]
        and np.array_equal(outcome.start_array, start)
    ):
        raise InvalidShotError("the outcome given is not this shot's: it starts elsewhere")
    return outcome
