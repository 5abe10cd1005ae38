"""Drills that crokinole players practise, and a daily challenge, each scored by replaying shots.

Every drill is a fixed position (south shoots; ``"n"`` discs are the
opponent's) and a scoring rule for one shot.  A drill is a set of
attempts, each from the drill's setup as it was (the board is laid out
again, as players do when they practise one shot over and over).  The
score of a set is the sum of its attempts; the percentage is that score
out of the most the attempts could make.

The physics is deterministic, so the same shots always give the same
score: :func:`score_drill` and :func:`score_challenge` replay the shots
played, and that replay **is** the server's verification (a client sends
shots, never scores).

Drills and the daily challenge are played with the human hand (R3, the
tables' :data:`~crokinole.ai.HAND_NOISE`): :func:`hand_shot`
turns the aimed shot into the shot played with noise drawn from a seed and
the attempt's number.  The server keeps the seed of each set it hands out
and never sends it, so typing the numbers of a made shot again does not
make it again, and the noise cannot be probed before a shot.

The drills (scores per attempt; a foul, R4, scores 0 unless said):

========== ==================== =================================================================
id         setup                one attempt scores
========== ==================== =================================================================
open20     an empty board       1 for an open 20: the shot disc drops into the hole (R4, R5).
hanger20   your disc hanging    1 for each of your discs that drops into the hole: sink the
           on the hole's edge   hanger, and 2 when your shooter follows it in.
star8      8 of theirs on the   1 for each of their discs taken off (at most 2), and 1 more when
           15 line, between     your shooter stays on the board.
           the pegs
far_side   1 of theirs in the   1 for taking it off, and 1 more when your shooter stays on the
           far 10 ring          board (a hit and stick).
near_side  1 of theirs in your  as far_side.
           half of the 10 ring
inside_out 1 of theirs inside   1 for driving it out of the 15 (off the board or into an outer
           the 15, by the hole  ring, not into the hole), and 1 more when your shooter stays
                                inside the 15 (or drops for a 20).
follow20   1 of theirs just in  1 when your shooter drops into the hole after hitting it and
           front of the hole    theirs does not.
ricochet20 1 of theirs beside   as follow20: carom off their disc into the hole.
           the hole
========== ==================== =================================================================

>>> score = score_drill("open20", [Shot(0.0, 0.0, 28.0), Shot(0.0, 10.0, 28.0)])
>>> score.points, score.score, score.best_possible, score.percent
((1, 0), 1, 2, 50.0)
"""

from __future__ import annotations

import dataclasses
import datetime
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from crokinole.ai import HAND_NOISE
from crokinole.analysis.practice import (
    PracticePosition,
    PracticeResult,
    position_code,
    position_data,
    practice_game,
    practice_shot,
)
from crokinole.board import TOURNAMENT_BOARD, Point, Shot, Zone
from crokinole.errors import AnalysisError, InvalidShotError

__all__ = [
    "CHALLENGE_ATTEMPTS",
    "DRILLS",
    "MAX_ATTEMPTS",
    "Challenge",
    "Drill",
    "DrillScore",
    "challenge_points",
    "daily_challenge",
    "hand_shot",
    "holds_position",
    "score_challenge",
    "score_drill",
]

#: The most attempts one set of a drill may have (an open 20 × 100).
MAX_ATTEMPTS = 100
#: Attempts at the daily challenge: the best one counts.
CHALLENGE_ATTEMPTS = 3

_BOARD = TOURNAMENT_BOARD


@dataclass(frozen=True, slots=True)
class Drill:
    """A drill: a fixed setup, a scoring rule for one shot, and a usual number of attempts.

    Attributes:
        id: a short id (``open20`` ...).
        name: the name players know it by.
        summary: how to play it and how it scores, in plain words.
        attempts: the attempts of a full set (a personal best needs a full set).
        setup: the position every attempt starts from (south shoots).
        max_per_attempt: the most one attempt can score.
        example: a shot that scores ``max_per_attempt`` from the setup (a
            steady hand), to show how it can be done.
        score_attempt: the scoring rule: points of one shot's result.
    """

    id: str
    name: str
    summary: str
    attempts: int
    setup: PracticePosition
    max_per_attempt: int
    example: Shot
    score_attempt: Callable[[PracticeResult], int] = field(repr=False, compare=False)

    def with_example(self, shot: Shot) -> Drill:
        """The same drill with ``shot`` as its example."""
        return dataclasses.replace(self, example=shot)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: id, name, summary, attempts, max_per_attempt, setup, code, example."""
        return {
            "id": self.id,
            "name": self.name,
            "summary": self.summary,
            "attempts": self.attempts,
            "max_per_attempt": self.max_per_attempt,
            "setup": position_data(self.setup),
            "code": position_code(self.setup),
            "example": _shot_dict(self.example),
        }


def _shot_dict(shot: Shot) -> dict[str, float]:
    return {"position": shot.position, "direction": shot.direction, "power": shot.power}


@dataclass(frozen=True, slots=True)
class DrillScore:
    """A set of a drill, replayed and scored.

    Attributes:
        drill: the drill's id.
        attempts: how many attempts the set had.
        score: the points of all attempts.
        best_possible: the most those attempts could score.
        percent: ``score`` out of ``best_possible``, in percent (2 decimals).
        points: each attempt's points, in order.
        full: whether the set has the drill's usual attempts or more
            (only a full set can be a personal best).
    """

    drill: str
    attempts: int
    score: int
    best_possible: int
    percent: float
    points: tuple[int, ...]
    full: bool

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "drill": self.drill,
            "attempts": self.attempts,
            "score": self.score,
            "best_possible": self.best_possible,
            "percent": self.percent,
            "points": list(self.points),
            "full": self.full,
        }


# ------------------------------------------------------------------ scoring rules


def _open_twenty(result: PracticeResult) -> int:
    return int(result.valid and result.twenty)


def _own_twenties(result: PracticeResult) -> int:
    # 20s of a foul are cancelled (R4) and never in the report's twenties.
    return result.own_twenties


def _takeouts_and_stay(cap: int) -> Callable[[PracticeResult], int]:
    def score(result: PracticeResult) -> int:
        if not result.valid:
            return 0
        taken = min(len(result.removed_theirs), cap)
        return taken + int(taken > 0 and result.shot_disc is not None)

    return score


def _in_fifteen(point: Point) -> bool:
    return _BOARD.zone_of(point) is Zone.FIFTEEN


def _inside_out(result: PracticeResult) -> int:
    if not result.valid or result.their_twenties:
        return 0
    left = [d for d in result.report.board_after if d.owner is not result.seat]
    if any(_in_fifteen(d.centre) for d in left):
        return 0
    mine = result.shot_disc
    stays_in = result.twenty or (mine is not None and _in_fifteen(mine.centre))
    return 1 + int(stays_in)


def _carom_twenty(result: PracticeResult) -> int:
    return int(result.valid and result.twenty and result.their_twenties == 0)


def _star() -> PracticePosition:
    points = []
    for k in range(8):
        angle = math.radians(45.0 * k)
        points.append(("n", 4.0 * math.cos(angle), 4.0 * math.sin(angle)))
    return PracticePosition(tuple(points))


def _theirs(at: tuple[float, float]) -> PracticePosition:
    """One disc of theirs at ``at`` (inches), nothing else on the board."""
    return PracticePosition((("n", *at),))


def _takeout(drill_id: str, name: str, where: str, at: tuple[float, float]) -> Drill:
    """A hit and stick on their one disc sitting ``where``: take it off and stay."""
    return Drill(
        id=drill_id,
        name=name,
        summary=(
            f"Their disc sits {where}. Take it off: "
            "1 point, and 1 more when your shooter stays on the board."
        ),
        attempts=10,
        setup=_theirs(at),
        max_per_attempt=2,
        example=Shot(),
        score_attempt=_takeouts_and_stay(1),
    )


def _carom(drill_id: str, name: str, how: str, at: tuple[float, float]) -> Drill:
    """A 20 made off their one disc (``how``): 1 when the shooter drops and theirs does not."""
    return Drill(
        id=drill_id,
        name=name,
        summary=f"{how}: 1 point when your shooter drops and theirs does not.",
        attempts=10,
        setup=_theirs(at),
        max_per_attempt=1,
        example=Shot(),
        score_attempt=_carom_twenty,
    )


_DRILL_LIST = (
    Drill(
        id="open20",
        name="Open 20",
        summary=(
            "An empty board. Shoot your disc into the 20 hole. Each attempt that drops "
            "in scores 1; your score is the share of attempts made, in percent."
        ),
        attempts=10,
        setup=PracticePosition(),
        max_per_attempt=1,
        example=Shot(0.0, 0.0, 29.0),
        score_attempt=_open_twenty,
    ),
    Drill(
        id="hanger20",
        name="Hanger 20",
        summary=(
            "Your disc hangs on the edge of the 20 hole. Tap it in: 1 point for each of "
            "your discs that drops, so 2 when your shooter follows it in."
        ),
        attempts=10,
        setup=PracticePosition((("s", -0.10, -0.74),)),
        max_per_attempt=2,
        example=Shot(-20.0, 7.0, 45.0),
        score_attempt=_own_twenties,
    ),
    Drill(
        id="star8",
        name="Eight-point star",
        summary=(
            "Eight of their discs sit on the 15 line, one between each pair of pegs. "
            "Take them off: 1 point for each disc that leaves the board (at most 2), and "
            "1 more when your shooter stays on the board."
        ),
        attempts=8,
        setup=_star(),
        max_per_attempt=3,
        example=Shot(-20.0, 8.0, 95.0),
        score_attempt=_takeouts_and_stay(2),
    ),
    _takeout(
        "far_side", "Far-side takeout", "in the 10 ring on the far side of the hole", (2.5, 6.0)
    ).with_example(Shot(10.0, 13.0, 45.0)),
    _takeout(
        "near_side", "Near-side takeout", "in the 10 ring on your side of the board", (-3.0, -6.0)
    ).with_example(Shot(-40.0, 10.0, 45.0)),
    Drill(
        id="inside_out",
        name="Inside out",
        summary=(
            "Their disc sits inside the 15 beside the hole. Drive it out of the 15 "
            "(not into the hole): 1 point, and 1 more when your shooter stays inside the "
            "15 in its place (or drops for a 20)."
        ),
        attempts=10,
        setup=_theirs((1.2, 1.4)),
        max_per_attempt=2,
        example=Shot(-40.0, -1.0, 50.0),
        score_attempt=_inside_out,
    ),
    _carom(
        "follow20",
        "Follow-through 20",
        "Their disc sits just in front of the hole. Hit it aside and follow through into the 20",
        (0.35, -2.2),
    ).with_example(Shot(-10.0, 7.0, 70.0)),
    _carom(
        "ricochet20",
        "Ricochet 20",
        "Their disc sits beside the hole. Glance off it into the 20",
        (-1.9, 0.3),
    ).with_example(Shot(-40.0, -3.0, 35.0)),
)

#: The drills by id, in the order they are listed to players.
DRILLS: dict[str, Drill] = {d.id: d for d in _DRILL_LIST}


def _drill(drill_id: object) -> Drill:
    if not isinstance(drill_id, str) or drill_id not in DRILLS:
        known = ", ".join(DRILLS)
        raise AnalysisError(f"there is no drill {drill_id!r}; the drills are {known}")
    return DRILLS[drill_id]


def _played(pos: PracticePosition, shots: object, most: int) -> list[PracticeResult]:
    """Each shot played from ``pos`` (a steady hand), or a plain AnalysisError."""
    if not isinstance(shots, list | tuple):
        raise AnalysisError("the shots are a list of shots")
    if not 1 <= len(shots) <= most:
        raise AnalysisError(f"send from 1 to {most} shots, not {len(shots)}")
    results = []
    for k, shot in enumerate(shots, 1):
        if not isinstance(shot, Shot):
            raise AnalysisError(f"attempt {k}: a shot is (position, direction, power)")
        try:
            results.append(practice_shot(pos, shot))
        except AnalysisError as exc:
            raise AnalysisError(f"attempt {k}: {exc}") from None
    return results


def score_drill(drill_id: str, shots: Sequence[Shot]) -> DrillScore:
    """Replay a set of a drill, each shot from the drill's setup, and score it.

    Args:
        drill_id: the drill (a key of :data:`DRILLS`).
        shots: one shot per attempt, 1 to :data:`MAX_ATTEMPTS`.

    Raises:
        AnalysisError: an unknown drill, no shots or too many, or a shot that
            cannot be played (which attempt, and why).

    >>> score_drill("far_side", [DRILLS["far_side"].example]).points
    (2,)
    >>> score_drill("curling", [])
    Traceback (most recent call last):
    ...
    crokinole.errors.AnalysisError: there is no drill 'curling'; the drills are open20, hanger20, \
star8, far_side, near_side, inside_out, follow20, ricochet20
    """
    drill = _drill(drill_id)
    results = _played(drill.setup, shots, MAX_ATTEMPTS)
    points = tuple(drill.score_attempt(r) for r in results)
    best = len(points) * drill.max_per_attempt
    score = sum(points)
    return DrillScore(
        drill=drill.id,
        attempts=len(points),
        score=score,
        best_possible=best,
        percent=round(100.0 * score / best, 2),
        points=points,
        full=len(points) >= drill.attempts,
    )


# ------------------------------------------------------------------ the daily challenge


@dataclass(frozen=True, slots=True)
class Challenge:
    """The daily challenge: one position for everyone on a day, a few attempts, the best counts.

    Attributes:
        day: the (UTC) day it belongs to.
        id: ``daily-YYYY-MM-DD``.
        position: the position (south shoots), drawn from the day's date.
        attempts: the attempts allowed (each from the position as it was).
        summary: how it scores, in plain words.
    """

    day: datetime.date
    id: str
    position: PracticePosition
    attempts: int = CHALLENGE_ATTEMPTS
    summary: str = (
        "Make the best shot you can from this position. A shot scores what it gains: "
        "your round count minus theirs after it, less the same before it (R6: 20s count "
        "20, discs on a line the lower zone; a foul loses the discs it sends off). "
        "Your best attempt counts."
    )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: day, id, position, code, attempts, summary."""
        return {
            "day": self.day.isoformat(),
            "id": self.id,
            "position": position_data(self.position),
            "code": position_code(self.position),
            "attempts": self.attempts,
            "summary": self.summary,
        }


def daily_challenge(day: datetime.date) -> Challenge:
    """The challenge of ``day``: the same position for everyone, drawn from the date alone.

    Two to four of your discs and three to six of theirs, anywhere legal inside
    the 10 line's reach (centres within 10.5" of the centre).

    >>> a = daily_challenge(datetime.date(2026, 12, 1))
    >>> a == daily_challenge(datetime.date(2026, 12, 1)), a.id, a.attempts
    (True, 'daily-2026-12-01', 3)
    """
    if not isinstance(day, datetime.date):
        raise AnalysisError(f"a challenge's day is a date, not {day!r}")
    day = datetime.date(day.year, day.month, day.day)  # a datetime counts as its day
    rng = np.random.default_rng([day.year, day.month, day.day])
    mine = int(rng.integers(2, 5))
    theirs = int(rng.integers(3, 7))
    kinds = ["n"] * theirs + ["s"] * mine
    discs: list[tuple[str, float, float]] = []
    while len(discs) < len(kinds):
        radius = 10.5 * math.sqrt(float(rng.random()))
        angle = 2.0 * math.pi * float(rng.random())
        disc = (
            kinds[len(discs)],
            round(radius * math.cos(angle), 2),
            round(radius * math.sin(angle), 2),
        )
        try:
            PracticePosition((*discs, disc))
        except AnalysisError:
            continue  # over the hole, on a peg or a disc: draw again
        discs.append(disc)
    return Challenge(
        day=day, id=f"daily-{day.isoformat()}", position=PracticePosition(tuple(discs))
    )


def challenge_points(challenge: Challenge, shots: Sequence[Shot]) -> tuple[int, ...]:
    """Each attempt's points: the shooter's round margin after it minus before it (R6).

    Raises:
        AnalysisError: no shots, more than the challenge allows, or a shot
            that cannot be played.
    """
    results = _played(challenge.position, shots, challenge.attempts)
    return tuple(r.points for r in results)


def score_challenge(challenge: Challenge, shots: Sequence[Shot]) -> int:
    """The challenge's score: the best attempt's points (see :func:`challenge_points`).

    >>> challenge = daily_challenge(datetime.date(2026, 12, 1))
    >>> score_challenge(challenge, [Shot(0.0, 0.0, 0.0)])   # a disc left on the line is out
    0
    """
    return max(challenge_points(challenge, shots))


# ------------------------------------------------------------------ the human hand


def hand_shot(pos: PracticePosition, aimed: Shot, seed: int, attempt: int) -> Shot:
    """The shot played from ``pos`` when ``aimed`` is meant, with the human hand (R3).

    The noise is drawn from ``np.random.default_rng([seed, attempt])``: the
    same seed and attempt give the same shot, and without the seed the shot
    cannot be foretold.  As at the tables, the hand never slides the disc onto
    another: a placement the noise would make illegal stays as aimed.

    Raises:
        AnalysisError: the aimed shot cannot be played there (R3), in plain words.

    >>> aimed = Shot(0.0, 0.0, 28.0)
    >>> hand_shot(PracticePosition(), aimed, 7, 1) == hand_shot(PracticePosition(), aimed, 7, 1)
    True
    >>> hand_shot(PracticePosition(), aimed, 7, 1) == aimed
    False
    """
    if not isinstance(aimed, Shot):
        raise AnalysisError(f"a shot is Shot(position, direction, power), got {aimed!r}")
    game = practice_game(pos)
    seat = pos.shooter
    problem = game.placement_problem(seat, aimed.position)
    if problem is not None:
        raise AnalysisError(f"this shot cannot be played: {problem}")
    try:
        game.board.launch(seat, aimed)
    except InvalidShotError as exc:
        raise AnalysisError(f"this shot cannot be played: {exc}") from None
    rng = np.random.default_rng([int(seed), int(attempt)])
    played = HAND_NOISE.perturb(game.board, aimed, rng)
    if game.placement_problem(seat, played.position) is not None:
        played = Shot(aimed.position, played.direction, played.power)
    return played


def _shooters_view(pos: PracticePosition) -> list[tuple[bool, float, float]]:
    """The discs as the shooter sees them from south: (mine, x, y) each."""
    mine = "s" if pos.seat == "south" else "n"
    turn = 1.0 if pos.seat == "south" else -1.0
    return [(side == mine, turn * x, turn * y) for side, x, y in pos.discs]


def holds_position(pos: PracticePosition, target: PracticePosition, within: float = 1.0) -> bool:
    """Whether ``pos`` holds ``target``'s discs: each of them has a disc of the same
    side (the shooter's, or the other's) within ``within`` inches, seen from the
    shooter's seat, as laid out or mirrored left to right.  Discs added besides
    do not hide a position (the daily challenge's hints are refused for it).

    >>> day = daily_challenge(datetime.date(2026, 12, 1)).position
    >>> holds_position(day, day), holds_position(PracticePosition(), day)
    (True, False)
    """
    have = _shooters_view(pos)
    want = _shooters_view(target)
    if not want:
        return False
    for mirror in (1.0, -1.0):
        free = list(have)
        for side, x, y in want:
            near = [
                (math.hypot(mirror * hx - x, hy - y), k)
                for k, (hs, hx, hy) in enumerate(free)
                if hs == side
            ]
            best = min(near, default=None)
            if best is None or best[0] > within:
                break
            free.pop(best[1])
        else:
            return True
    return False
