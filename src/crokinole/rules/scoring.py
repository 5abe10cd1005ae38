"""Scoring (R6) as pure functions, shared by the game and the score keeper.

A round's total for a side is 20 per disc set aside from the hole plus the
zone value of each of its discs left on the board (15, 10 or 5, judged by
the rim, a disc touching a line taking the lower value).

>>> round_points((45, 30), Scoring.FOUR_ROUNDS)
(2, 0)
>>> round_points((45, 45), Scoring.FOUR_ROUNDS)
(1, 1)
>>> round_points((45, 30, 10), Scoring.TO_100)   # winner adds winner minus second best
(15, 0, 0)
>>> round_total(twenties=1, fifteens=2, tens=0, fives=1)
55
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from crokinole.board import Board, Point, Zone
from crokinole.errors import InvalidRulesError
from crokinole.rules.options import MAX_EXTRA_ROUNDS, Rules, Scoring, TieSetting


@dataclass(frozen=True, slots=True)
class SideCount:
    """What one side has at the end of a round.

    Attributes:
        twenties: discs set aside from the 20 hole.
        fifteens: discs left in the 15 zone.
        tens: discs left in the 10 zone.
        fives: discs left in the 5 zone.
    """

    twenties: int = 0
    fifteens: int = 0
    tens: int = 0
    fives: int = 0

    @property
    def total(self) -> int:
        """Points of the round for this side."""
        return round_total(self.twenties, self.fifteens, self.tens, self.fives)


def round_total(twenties: int, fifteens: int, tens: int, fives: int) -> int:
    """Round points from counts of discs: 20, 15, 10 and 5 each (R6).

    Raises:
        InvalidRulesError: a count is negative or not a whole number.
    """
    counts = {"twenties": twenties, "fifteens": fifteens, "tens": tens, "fives": fives}
    for name, value in counts.items():
        if not _is_count(value):
            raise InvalidRulesError(f"{name} must be a whole number of discs, got {value!r}")
    return int(20 * twenties + 15 * fifteens + 10 * tens + 5 * fives)


def _is_count(value: object) -> bool:
    """A whole number >= 0 of any integer type (numpy's included), not a bool."""
    return (
        not isinstance(value, bool | np.bool_)
        and isinstance(value, numbers.Integral)
        and int(value) >= 0
    )


def count_side(board: Board, centres: Sequence[Point], twenties: int) -> SideCount:
    """Count one side's discs by zone from where they lie (rim-based, R6).

    Raises:
        InvalidRulesError: a disc lies out (touching or beyond the shooting line)
            or over the hole; such discs never stay on the board.
    """
    zones = {Zone.FIFTEEN: 0, Zone.TEN: 0, Zone.FIVE: 0}
    for centre in centres:
        zone = board.zone_of(centre)
        if zone not in zones:
            raise InvalidRulesError(f"a disc at ({centre.x:.4f}, {centre.y:.4f}) cannot score")
        zones[zone] += 1
    return SideCount(twenties, zones[Zone.FIFTEEN], zones[Zone.TEN], zones[Zone.FIVE])


def round_points(totals: Sequence[int], scoring: Scoring) -> tuple[int, ...]:
    """Game points each side earns from a round's totals (R2, R6).

    Four rounds: the best total takes 2; sides tied for the best take 1 each.
    To 100: a single best side adds its lead over the second best; a tie for
    the best adds nothing.

    Raises:
        InvalidRulesError: fewer than two sides, or a total that is negative
            or not a multiple of 5.
    """
    if len(totals) < 2:
        raise InvalidRulesError(f"a round needs at least two sides, got {len(totals)}")
    for total in totals:
        if not _is_count(total) or total % 5:
            raise InvalidRulesError(
                f"a round total is a multiple of 5 and at least 0, got {total!r}"
            )
    totals = [int(t) for t in totals]
    best = max(totals)
    leaders = [i for i, t in enumerate(totals) if t == best]
    if scoring is Scoring.FOUR_ROUNDS:
        share = 2 if len(leaders) == 1 else 1
        return tuple(share if i in leaders else 0 for i in range(len(totals)))
    if len(leaders) > 1:
        return tuple(0 for _ in totals)
    second = max(t for i, t in enumerate(totals) if i != leaders[0])
    return tuple(best - second if i == leaders[0] else 0 for i in range(len(totals)))


@dataclass(frozen=True, slots=True)
class GameOutcome:
    """How a finished game ended.

    Attributes:
        winner: index of the winning side, or None for a draw.
        drawn: the sides that share a draw (empty when there is a winner).
    """

    winner: int | None
    drawn: tuple[int, ...] = ()

    @property
    def is_draw(self) -> bool:
        """Whether the game was drawn."""
        return self.winner is None


def game_outcome(rules: Rules, scores: Sequence[int], rounds_played: int) -> GameOutcome | None:
    """The outcome once the format says the game is over, else None (R2, R6).

    Four rounds: after ``rules.rounds`` rounds the higher game score wins; a
    tie is a draw, or with extra rounds the game goes on until one side
    leads, at most four rounds more, then it is a draw among the leaders.
    To 100: the first side to reach the target wins (only one side scores
    in a round, so two cannot reach it together).

    >>> game_outcome(Rules(), (4, 4), 4)
    GameOutcome(winner=None, drawn=(0, 1))
    >>> game_outcome(Rules(tie=TieSetting.EXTRA_ROUNDS), (4, 4), 4) is None
    True
    >>> game_outcome(Rules.home_singles(), (100, 35), 6)
    GameOutcome(winner=0, drawn=())
    """
    if rules.scoring is Scoring.TO_100:
        assert rules.target is not None
        reached = [i for i, s in enumerate(scores) if s >= rules.target]
        if not reached:
            return None
        best = max(scores)
        top = [i for i in reached if scores[i] == best]
        return GameOutcome(top[0]) if len(top) == 1 else GameOutcome(None, tuple(top))
    assert rules.rounds is not None
    if rounds_played < rules.rounds:
        return None
    best = max(scores)
    leaders = tuple(i for i, s in enumerate(scores) if s == best)
    if len(leaders) == 1:
        return GameOutcome(leaders[0])
    if rules.tie is TieSetting.EXTRA_ROUNDS and rounds_played < rules.rounds + MAX_EXTRA_ROUNDS:
        return None
    return GameOutcome(None, leaders)
