"""A game's state as one immutable value, and the checks that the rules can reach it.

:class:`~crokinole.rules.game.Game` holds a :class:`GameState` and replaces it
whole after each action, so an action either applies fully or changes
nothing.  :func:`check_reachable` states what every state reached by play
satisfies (R2–R6); the record reader refuses a state that breaks it, so a
game read back can always be played on.

>>> from crokinole.rules.options import Rules
>>> state = GameState.first_round(Rules(), Seat.SOUTH)
>>> state.round, state.turn, state.in_hand, state.phase
(1, 0, (8, 8), <Phase.PLAYING: 'playing'>)
>>> check_reachable(state, Rules(), TOURNAMENT_BOARD, Seat.SOUTH)
>>> check_reachable(state, Rules(), TOURNAMENT_BOARD, Seat.NORTH)
Traceback (most recent call last):
...
crokinole.errors.InvalidRecordError: state.round_first: round 1 is opened by north, not south
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from enum import Enum

import numpy as np

from crokinole.board import TOURNAMENT_BOARD, Board, Seat, Zone
from crokinole.errors import CrokinoleError, InvalidRecordError
from crokinole.physics import check_position
from crokinole.rules.actions import SEAT_KEYS
from crokinole.rules.options import Rules
from crokinole.rules.referee import Disc
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


def round_opener(rules: Rules, first_seat: Seat, number: int) -> Seat:
    """Who opens round ``number`` of a game opened by ``first_seat``: the next seat each round.

    >>> round_opener(Rules.three_singles(), Seat.SOUTH, 3)
    <Seat.NORTH: 90.0>
    """
    seats = rules.seats
    return seats[(seats.index(first_seat) + number - 1) % len(seats)]


@dataclass(frozen=True, slots=True)
class GameState:
    """Everything that changes during a game, as one value (see ``docs/record-format.md``).

    Attributes:
        round: the current round, from 1.
        round_first: who opened the current round.
        turn: turns played in the current round.
        phase: playing, showing the round result, or over.
        in_hand: discs each seat has still to shoot, in the order of ``Rules.seats``.
        discs: discs on the board, in the order they were shot.
        twenties: per side, discs set aside from the hole this round.
        ditch: per side, discs in the ditch this round.
        next_id: the id the next disc shot this round gets (equal to ``turn``).
        scores: per side, game points (four rounds) or points (to 100).
        history: finished rounds.
        outcome: winner or draw once the game is over.
    """

    round: int
    round_first: Seat
    turn: int
    phase: Phase
    in_hand: tuple[int, ...]
    discs: tuple[Disc, ...]
    twenties: tuple[int, ...]
    ditch: tuple[int, ...]
    next_id: int
    scores: tuple[int, ...]
    history: tuple[RoundResult, ...]
    outcome: GameOutcome | None

    @classmethod
    def first_round(cls, rules: Rules, first: Seat) -> GameState:
        """The state before the first shot of a game opened by ``first``."""
        return cls.new_round(rules, 1, first, (0,) * len(rules.sides), ())

    @classmethod
    def new_round(
        cls,
        rules: Rules,
        number: int,
        first: Seat,
        scores: tuple[int, ...],
        history: tuple[RoundResult, ...],
    ) -> GameState:
        """The state at the start of round ``number``, opened by ``first``."""
        n_sides = len(rules.sides)
        return cls(
            round=number,
            round_first=first,
            turn=0,
            phase=Phase.PLAYING,
            in_hand=tuple(rules.discs_per_player(s) for s in rules.seats),
            discs=(),
            twenties=(0,) * n_sides,
            ditch=(0,) * n_sides,
            next_id=0,
            scores=scores,
            history=history,
            outcome=None,
        )

    def round_counts(self, rules: Rules, board: Board) -> tuple[SideCount, ...]:
        """Each side's score so far this round, counted from the board (R6).

        Raises:
            InvalidRulesError: a disc lies where no disc can rest (out or over the hole).
        """
        return tuple(
            count_side(
                board,
                [d.centre for d in self.discs if rules.side_of(d.owner) == side],
                self.twenties[side],
            )
            for side in range(len(rules.sides))
        )

    def end_round(self, rules: Rules, board: Board) -> GameState:
        """The state once the last disc of the round has been shot: counted and scored (R6).

        Raises:
            InvalidRulesError: a disc lies where no disc can rest (nothing changes).
        """
        counts = self.round_counts(rules, board)
        points = round_points([c.total for c in counts], rules.scoring)
        scores = tuple(s + p for s, p in zip(self.scores, points, strict=True))
        history = (*self.history, RoundResult(self.round, counts, points, scores))
        outcome = game_outcome(rules, scores, self.round)
        phase = Phase.GAME_OVER if outcome is not None else Phase.ROUND_OVER
        return replace(self, scores=scores, history=history, outcome=outcome, phase=phase)

    def to_dict(self, rules: Rules) -> dict[str, object]:
        """The plain JSON-ready form: the ``state`` of ``docs/record-format.md``."""
        return {
            "round": self.round,
            "round_first": self.round_first.key,
            "turn": self.turn,
            "phase": self.phase.value,
            "in_hand": {s.key: n for s, n in zip(rules.seats, self.in_hand, strict=True)},
            "discs": [[d.id, SEAT_KEYS[d.owner], d.x, d.y] for d in self.discs],
            "twenties": list(self.twenties),
            "ditch": list(self.ditch),
            "next_id": self.next_id,
            "scores": list(self.scores),
            "history": [
                {
                    "number": r.number,
                    "counts": [[c.twenties, c.fifteens, c.tens, c.fives] for c in r.counts],
                    "points": list(r.points),
                    "scores_after": list(r.scores_after),
                }
                for r in self.history
            ],
            "outcome": None
            if self.outcome is None
            else {"winner": self.outcome.winner, "drawn": list(self.outcome.drawn)},
        }


def check_reachable(
    state: GameState, rules: Rules, board: Board = TOURNAMENT_BOARD, first_seat: Seat | None = None
) -> None:
    """Raise :class:`InvalidRecordError` unless play under ``rules`` can reach ``state``.

    What every reachable state satisfies: the round's opener follows from
    the game's first seat (R2); the turn, the discs in hand and the next id
    follow from the turn order; each disc on the board was shot by the seat
    whose turn it was, in order, and rests where a disc can rest: inside the
    shooting line (R5), not over the hole (R5), overlapping no disc or peg,
    on the board; every side's discs add up (in hand + on the board + 20s +
    ditch); the history is a sequence of rounds scored by R6 whose scores add
    up to the game score, the game ended exactly when the format says, and a
    shown round result is the count of the board.

    Args:
        state: the state to check.
        rules: the options of the game.
        board: the board it is played on.
        first_seat: who opened the game (the first of ``rules.seats`` when None).
    """
    first_seat = rules.seats[0] if first_seat is None else first_seat
    opener = round_opener(rules, first_seat, state.round)
    if state.round_first is not opener:
        raise InvalidRecordError(
            f"state.round_first: round {state.round} is opened by {opener.key}, "
            f"not {state.round_first.key}"
        )
    order = turn_order(rules, state.round_first)
    if state.turn > len(order):
        raise InvalidRecordError(f"state.turn: {state.turn} is past the end of the round")
    if (state.phase is Phase.PLAYING) != (state.turn < len(order)):
        raise InvalidRecordError(
            f"state: phase {state.phase.value} does not match turn {state.turn} of {len(order)}"
        )
    for seat, held in zip(rules.seats, state.in_hand, strict=True):
        expected = rules.discs_per_player(seat) - order[: state.turn].count(seat)
        if held != expected:
            raise InvalidRecordError(
                f"state.in_hand.{seat.key}: {held} discs, but after turn {state.turn} "
                f"the seat has {expected}"
            )
    if state.next_id != state.turn:
        raise InvalidRecordError(
            f"state.next_id: {state.next_id}, but after turn {state.turn} the next disc "
            f"is number {state.turn}"
        )
    _check_discs(state, order, board)
    _check_conservation(state, rules)
    _check_history(state, rules, board)


def _check_discs(state: GameState, order: tuple[Seat, ...], board: Board) -> None:
    previous = -1
    for k, disc in enumerate(state.discs):
        where = f"state.discs[{k}]"
        if not previous < disc.id < state.turn:
            raise InvalidRecordError(
                f"{where}: disc id {disc.id} must be one of the turns played ({state.turn}) "
                "and the discs listed in the order they were shot"
            )
        previous = disc.id
        if disc.owner is not order[disc.id]:
            raise InvalidRecordError(
                f"{where}: disc {disc.id} was shot by {order[disc.id].key} "
                f"(turn {disc.id + 1} of the round), not {disc.owner.key}"
            )
        if not (math.isfinite(disc.x) and math.isfinite(disc.y)):
            raise InvalidRecordError(f"{where}: the centre ({disc.x}, {disc.y}) is not finite")
        zone = board.zone_of(disc.centre)
        if zone is Zone.OUT:
            raise InvalidRecordError(
                f"{where}: {disc.describe()} touches or lies beyond the shooting line, "
                "where no disc stays after a shot (R5)"
            )
        if zone is Zone.TWENTY:
            raise InvalidRecordError(
                f"{where}: {disc.describe()} has its centre over the 20 hole, "
                "where a disc drops (R5)"
            )
    centres = np.array([(d.x, d.y) for d in state.discs], dtype=np.float64).reshape(-1, 2)
    try:
        check_position(board, centres)
    except CrokinoleError as exc:
        raise InvalidRecordError(f"state.discs: {exc}") from None


def _check_conservation(state: GameState, rules: Rules) -> None:
    hands = dict(zip(rules.seats, state.in_hand, strict=True))
    for side, seats in enumerate(rules.sides):
        total = (
            sum(hands[s] for s in seats)
            + sum(1 for d in state.discs if d.owner in seats)
            + state.twenties[side]
            + state.ditch[side]
        )
        if total != rules.discs_per_side:
            raise InvalidRecordError(
                f"state: side {side} accounts for {total} discs "
                "(in hand + on the board + 20s + ditch), "
                f"not {rules.discs_per_side}"
            )


def _check_round_result(
    state: GameState, rules: Rules, k: int, scores: tuple[int, ...]
) -> tuple[int, ...]:
    """Check finished round ``k`` of the history (R6); the scores after it."""
    result = state.history[k]
    where = f"state.history[{k}]"
    if result.number != k + 1:
        raise InvalidRecordError(f"{where}.number: {result.number}, expected {k + 1}")
    for side, count in enumerate(result.counts):
        discs = count.twenties + count.fifteens + count.tens + count.fives
        if discs > rules.discs_per_side:
            raise InvalidRecordError(
                f"{where}.counts[{side}]: {discs} discs, more than the "
                f"{rules.discs_per_side} a side shoots"
            )
    expected = round_points(result.totals, rules.scoring)
    if result.points != expected:
        raise InvalidRecordError(
            f"{where}.points: {list(result.points)}, but round totals "
            f"{list(result.totals)} give {list(expected)} (R6)"
        )
    scores = tuple(s + p for s, p in zip(scores, result.points, strict=True))
    if result.scores_after != scores:
        raise InvalidRecordError(
            f"{where}.scores_after: {list(result.scores_after)}, but the points "
            f"so far add up to {list(scores)}"
        )
    is_last = k == len(state.history) - 1
    ended = game_outcome(rules, scores, k + 1)
    if ended is not None and not (is_last and state.phase is Phase.GAME_OVER):
        raise InvalidRecordError(f"{where}: the game was over after round {k + 1}")
    return scores


def _check_history(state: GameState, rules: Rules, board: Board) -> None:
    finished = state.round - 1 if state.phase is Phase.PLAYING else state.round
    if len(state.history) != finished:
        raise InvalidRecordError(
            f"state.history: {len(state.history)} rounds, but {finished} are finished "
            f"in round {state.round} ({state.phase.value})"
        )
    scores = (0,) * len(rules.sides)
    for k in range(len(state.history)):
        scores = _check_round_result(state, rules, k, scores)
    if state.scores != scores:
        raise InvalidRecordError(
            f"state.scores: {list(state.scores)}, but the rounds played add up to {list(scores)}"
        )
    outcome = game_outcome(rules, scores, len(state.history))
    if state.phase is Phase.GAME_OVER and outcome is None:
        raise InvalidRecordError("state.phase: the game is not over after these rounds")
    if state.outcome != (outcome if state.phase is Phase.GAME_OVER else None):
        raise InvalidRecordError(
            f"state.outcome: {state.outcome!r} does not follow from the scores {list(scores)}"
        )
    if state.phase is not Phase.PLAYING:
        counted = state.round_counts(rules, board)
        if state.history[-1].counts != counted:
            raise InvalidRecordError(
                f"state.history[{len(state.history) - 1}].counts: the round result must be "
                "the count of the discs on the board and the 20s (R6)"
            )
