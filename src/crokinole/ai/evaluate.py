"""What a position is worth to a side: the evaluation the CPU players search with.

A shot is judged by the round standing it leaves, counted exactly as R6
will count it if the round ended now: 20 per disc set aside from the hole,
plus 15, 10 or 5 for each disc still on the board (rim-based).  The
**margin** is the shooter's side total minus the best other side's total;
fouls (R4) and discs sent out (R5) are already in it, because every
candidate goes through the batch simulator and the vectorised referee.

Hard maximises the margin.  Expert turns the margin into a **utility**, an
estimate of the chance of winning that knows the situation:

* the round is still open while shots remain, so the margin is uncertain
  by about ``3 + 5·sqrt(shots left)`` points; on the last shot of the round
  (the hammer) it is certain;
* four rounds: what counts is the round win (2 game points) and through it
  the game, so a comfortable lead is worth little more than a narrow one —
  ahead, the utility is flat and a safe shot beats a risky bigger one;
  behind, it is steep and risk is worth taking;
* to 100: the margin becomes points for the leader, so the projected game
  scores are compared, and a shot that reaches the target on the last shot
  of the round wins outright.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from crokinole.board import Seat
from crokinole.rules import Game, Scoring
from crokinole.rules.referee import BatchJudgement

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True, slots=True)
class Situation:
    """The facts about a turn that the evaluation needs.

    Attributes:
        seat: the shooter.
        side: the shooter's side.
        n_sides: number of sides.
        owner_sides: ``(N,)`` side of each disc on the board.
        twenties: 20s set aside this round, per side.
        my_shots_left: shots the shooter's side has after this one.
        other_shots_left: shots the other sides have after this one.
        scores: game scores per side.
        scoring: four rounds or to 100.
        rounds_left: four rounds: rounds still to play after this one (0 in the last).
        target: to 100: the points that win.
    """

    seat: Seat
    side: int
    n_sides: int
    owner_sides: IntArray
    twenties: tuple[int, ...]
    my_shots_left: int
    other_shots_left: int
    scores: tuple[int, ...]
    scoring: Scoring
    rounds_left: int
    target: int

    @classmethod
    def of(cls, game: Game) -> Situation:
        """The situation of the player to move in ``game``."""
        seat = game.current_seat
        if seat is None:
            raise ValueError("nobody is to shoot: the round or the game is over")
        side = game.side_of(seat)
        later = game.upcoming[1:]
        mine = sum(1 for s in later if game.side_of(s) == side)
        rules = game.rules
        rounds_left = max((rules.rounds or 0) - game.round_number, 0)
        return cls(
            seat=seat,
            side=side,
            n_sides=len(rules.sides),
            owner_sides=np.array([game.side_of(d.owner) for d in game.discs], dtype=np.int64),
            twenties=game.twenties,
            my_shots_left=mine,
            other_shots_left=len(later) - mine,
            scores=game.scores,
            scoring=rules.scoring,
            rounds_left=rounds_left,
            target=rules.target or 0,
        )

    @property
    def shots_left(self) -> int:
        """Shots left in the round after this one."""
        return self.my_shots_left + self.other_shots_left


def standings(judged: BatchJudgement, situation: Situation) -> IntArray:
    """``(K, sides)`` round totals after each candidate shot (R6, counted now)."""
    sides = np.append(situation.owner_sides, situation.side)
    totals = judged.side_points(sides, situation.n_sides)
    return totals + 20 * np.asarray(situation.twenties, dtype=np.int64)[None, :]


def margins(totals: IntArray, side: int) -> FloatArray:
    """The side's total minus the best other side's total, per shot."""
    others = np.delete(totals, side, axis=1)
    return np.asarray(totals[:, side] - others.max(axis=1), dtype=np.float64)


def _sigmoid(x: FloatArray) -> FloatArray:
    return np.asarray(0.5 * (1.0 + np.tanh(0.5 * x)), dtype=np.float64)


def utility(margin: FloatArray, situation: Situation) -> FloatArray:
    """Expert's estimate (0 to 1) of how good each resulting margin is; see the module doc."""
    round_scale = 3.0 + 5.0 * math.sqrt(situation.shots_left)
    mine = situation.scores[situation.side]
    best_other = max(s for i, s in enumerate(situation.scores) if i != situation.side)
    if situation.scoring is Scoring.FOUR_ROUNDS:
        p_round = _sigmoid(margin / round_scale)
        lead = (mine - best_other) + 2.0 * (2.0 * p_round - 1.0)
        return _sigmoid(lead / (0.7 + 1.5 * math.sqrt(situation.rounds_left)))
    my_after = mine + np.maximum(margin, 0.0)
    other_after = best_other + np.maximum(-margin, 0.0)
    to_go = max(situation.target - max(mine, best_other), 0) / 40.0
    game_scale = round_scale + 25.0 * math.sqrt(to_go)
    value = _sigmoid((my_after - other_after) / game_scale)
    if situation.shots_left == 0:
        value = np.where(my_after >= situation.target, 1.0, value)
        value = np.where(other_after >= situation.target, 0.0, value)
    return value
