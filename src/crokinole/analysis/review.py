"""Game review: every shot of a game valued against the Expert's best, and graded.

A review replays a game's actions from the start.  Before each shot it asks
the Expert's search for the best shots there (:func:`~crokinole.analysis.hints.hints`,
its ``"fast"`` budget, three distinct shots), then values the shot **as
played** and those shots under the same accuracy and the same random draws
(:func:`~crokinole.analysis.value.value_shots`, common random numbers, so a
difference is the shots' and not the draws'):

* ``margin``: the expected round margin after the shot (the shooter's side
  minus the best other side, counted now as R6 counts, 20s set aside
  included);
* ``round_win``: the estimated chance that the shooter's side wins the
  round (:func:`~crokinole.analysis.value.round_win_chance`; on the last
  shot of a round it is 1, ½ or 0).

The best shot is the one worth most, round-win chance first, then margin;
when that is the shot played, it loses nothing.  The shot in the record is
what the player's hand really did; it is valued as if it had been aimed
exactly there and played again with the review's accuracy (by default the
human hand, the Expert's noise), so a lucky shot earns no more than its aim
deserves and an unlucky one no less.

**Grades** go by the loss of round-win chance against the best shot
(``best.round_win - played.round_win``, from 0 to 1):

==============  ======================
grade           loss of round-win chance
==============  ======================
good            below 0.05
inaccuracy      0.05 to below 0.12
mistake         0.12 to below 0.25
blunder         0.25 or more
==============  ======================

Timeouts (R3) are replayed but not reviewed: nobody chose a shot.  The
numbers are the same every time: each shot's draws are seeded from the
review's ``seed`` plus the action's index in the record.

>>> from crokinole import Game, Rules, Seat, Shot
>>> game = Game(Rules(rounds=1))
>>> _ = game.shoot(Seat.SOUTH, Shot(position=0.0, direction=0.0, power=28.0))  # an open 20
>>> report = review(game)
>>> [(s.seat.name, s.grade.value) for s in report.shots]
[('SOUTH', 'good')]
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from crokinole.analysis.hints import hints
from crokinole.analysis.practice import PracticePosition, position_code
from crokinole.analysis.value import Accuracy, ShotValue, shot_data, value_shots
from crokinole.board import Point, Seat, Shot
from crokinole.errors import AnalysisError, CrokinoleError, InvalidRecordError
from crokinole.rules import ActionReplayError, Game, Layout, ShotAction, ShotReport, Step, steps

__all__ = [
    "GRADE_THRESHOLDS",
    "GameReview",
    "Grade",
    "ReviewStep",
    "SeatSummary",
    "ShotEffect",
    "ShotReview",
    "assemble",
    "effect_of",
    "grade_of",
    "review",
    "review_step",
    "review_steps",
]


class Grade(StrEnum):
    """How good a shot was, by the round-win chance it gave away (see the module doc)."""

    GOOD = "good"
    INACCURACY = "inaccuracy"
    MISTAKE = "mistake"
    BLUNDER = "blunder"


#: Upper bounds (exclusive) of the loss of round-win chance for each grade but
#: the last: a loss below 0.05 is good, below 0.12 an inaccuracy, below 0.25 a
#: mistake, anything more a blunder.
GRADE_THRESHOLDS: tuple[tuple[Grade, float], ...] = (
    (Grade.GOOD, 0.05),
    (Grade.INACCURACY, 0.12),
    (Grade.MISTAKE, 0.25),
)


def grade_of(loss_win: float) -> Grade:
    """The grade of a shot that lost ``loss_win`` of round-win chance against the best.

    >>> [grade_of(x).value for x in (0.0, 0.049, 0.05, 0.2, 0.25, 1.0)]
    ['good', 'good', 'inaccuracy', 'mistake', 'blunder', 'blunder']
    """
    for grade, bound in GRADE_THRESHOLDS:
        if loss_win < bound:
            return grade
    return Grade.BLUNDER


@dataclass(frozen=True, slots=True)
class ShotEffect:
    """What a shot did to the board, so that a review can tell it in words.

    Attributes:
        lands: where the shot disc ended: 20 for the hole, 15, 10 or 5 for
            the zone it rests in, 0 for the ditch or out (R6).
        foul: why the shot was a foul (``"no_contact"``, ``"not_in_fifteen"``),
            or None for a valid shot.
        hit: whether it moved an opposing disc.
        taken: the zones (20, 15, 10, 5; 0 for a disc out on the line) that the
            opposing discs it sent off the board lay in before the shot, highest first.
        lost: likewise, the shooter's side's other discs it sent off the board.
    """

    lands: int
    foul: str | None
    hit: bool
    taken: tuple[int, ...]
    lost: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data."""
        return {
            "lands": self.lands,
            "foul": self.foul,
            "hit": self.hit,
            "taken": list(self.taken),
            "lost": list(self.lost),
        }


def effect_of(before: Game, report: ShotReport) -> ShotEffect:
    """What the shot ``report`` tells of did, from the game ``before`` it.

    >>> from crokinole import Game, Rules, Seat, Shot
    >>> game = Game(Rules(rounds=1))
    >>> report = game.copy().shoot(Seat.SOUTH, Shot(position=0.0, direction=0.0, power=28.0))
    >>> effect_of(game, report)
    ShotEffect(lands=20, foul=None, hit=False, taken=(), lost=())
    """
    board, side = before.board, before.side_of(report.seat)
    shot_id = report.simulated[-1].id if report.simulated else -1
    gone = {r.disc.id for r in report.removed} | {d.id for d in report.twenties}
    gone |= {d.id for d in report.cancelled_twenties}
    if any(d.id == shot_id for d in (*report.twenties, *report.cancelled_twenties)):
        lands = 20
    elif shot_id in gone:
        lands = 0
    else:
        rest = next((d for d in report.board_after if d.id == shot_id), None)
        lands = 0 if rest is None else int(board.zone_of(Point(rest.x, rest.y)).value)
    taken: list[int] = []
    lost: list[int] = []
    hit = False
    moved = set(report.moved)
    for disc in before.discs:
        theirs = before.side_of(disc.owner) != side
        hit = hit or (theirs and disc.id in moved)
        if disc.id in gone:
            zone = int(board.zone_of(Point(disc.x, disc.y)).value)
            (taken if theirs else lost).append(zone)
    foul = None if report.foul is None else report.foul.name.lower()
    return ShotEffect(
        lands=lands,
        foul=foul,
        hit=hit,
        taken=tuple(sorted(taken, reverse=True)),
        lost=tuple(sorted(lost, reverse=True)),
    )


def _aimed_effect(before: Game, shot: Shot) -> ShotEffect | None:
    """What ``shot`` does played exactly as aimed (None if it cannot be played there)."""
    seat = before.current_seat
    if seat is None:
        return None
    try:
        return effect_of(before, before.copy().shoot(seat, shot))
    except CrokinoleError:  # pragma: no cover - the hints and the record hold playable shots
        return None


@dataclass(frozen=True, slots=True)
class ShotReview:
    """One shot of the game, valued and graded.

    Attributes:
        index: the action's index in the record (``actions[index]``).
        round: the round it was played in, from 1.
        turn: its turn within the round, from 1.
        seat: who shot.
        shot: the shot as played (as the record holds it).
        played: the shot played, valued under the review's accuracy.
        best: the best shot found (the one played, when nothing better was found),
            valued with the same draws.
        loss_margin: ``best.margin - played.margin``: expected points given away
            (negative when the best shot trades points for a safer round).
        loss_win: ``best.round_win - played.round_win`` (0 to 1), what the grade goes by.
        grade: see :data:`GRADE_THRESHOLDS`.
        margin_after: the shooter's side's round margin really reached after the
            shot (R6, counted now): the round's swing, from the shooter's side.
        totals_after: every side's round total really reached after the shot.
        position_code: the practice-room code of the position before the shot,
            as it stands on the board, with the shooter's seat (``south`` or
            ``north``; the practice room turns a north shooter's position to
            the bottom); singles only, None otherwise.
        played_effect: what the shot really did in the game (the record's
            shot, as the hand played it).
        best_effect: what the best shot does played exactly as aimed (None
            when it cannot be told).
    """

    index: int
    round: int
    turn: int
    seat: Seat
    shot: Shot
    played: ShotValue
    best: ShotValue
    loss_margin: float
    loss_win: float
    grade: Grade
    margin_after: float
    totals_after: tuple[int, ...]
    position_code: str | None
    played_effect: ShotEffect | None = None
    best_effect: ShotEffect | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data; floats rounded to 4 places."""
        return {
            "index": self.index,
            "round": self.round,
            "turn": self.turn,
            "seat": self.seat.key,
            "shot": shot_data(self.shot),
            "played": self.played.to_dict(),
            "best": self.best.to_dict(),
            "loss_margin": round(self.loss_margin, 4),
            "loss_win": round(self.loss_win, 4),
            "grade": self.grade.value,
            "margin_after": round(self.margin_after, 4),
            "totals_after": list(self.totals_after),
            "position_code": self.position_code,
            "played_effect": None if self.played_effect is None else self.played_effect.to_dict(),
            "best_effect": None if self.best_effect is None else self.best_effect.to_dict(),
        }


@dataclass(frozen=True, slots=True)
class SeatSummary:
    """One seat's shots in a review: how many of each grade, and the mean losses."""

    seat: Seat
    shots: int
    grades: dict[Grade, int]
    mean_loss_win: float
    mean_loss_margin: float

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data."""
        return {
            "seat": self.seat.key,
            "shots": self.shots,
            "grades": {g.value: self.grades[g] for g in Grade},
            "mean_loss_win": round(self.mean_loss_win, 4),
            "mean_loss_margin": round(self.mean_loss_margin, 4),
        }


@dataclass(frozen=True, slots=True)
class GameReview:
    """A whole game's review.

    Attributes:
        accuracy: the name of the accuracy the shots were valued under.
        seed: the seed of the review's draws.
        seats: the seats of the game, clockwise from south.
        sides: the seats of each side (side numbers index ``totals_after``).
        shots: every shot reviewed, in the order played (timeouts left out).
    """

    accuracy: str
    seed: int
    seats: tuple[Seat, ...]
    sides: tuple[tuple[Seat, ...], ...]
    shots: tuple[ShotReview, ...]

    def summary(self) -> tuple[SeatSummary, ...]:
        """Per seat (every seat of the game): counts of each grade and the mean losses."""
        out = []
        for seat in self.seats:
            mine = [s for s in self.shots if s.seat is seat]
            n = len(mine)
            out.append(
                SeatSummary(
                    seat=seat,
                    shots=n,
                    grades={g: sum(1 for s in mine if s.grade is g) for g in Grade},
                    mean_loss_win=sum(s.loss_win for s in mine) / n if n else 0.0,
                    mean_loss_margin=sum(s.loss_margin for s in mine) / n if n else 0.0,
                )
            )
        return tuple(out)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data: the thresholds, the shots and the per-seat summary."""
        return {
            "accuracy": self.accuracy,
            "seed": self.seed,
            "thresholds": {grade.value: bound for grade, bound in GRADE_THRESHOLDS},
            "seats": [s.key for s in self.seats],
            "sides": [[s.key for s in side] for side in self.sides],
            "shots": [s.to_dict() for s in self.shots],
            "summary": {s.seat.key: s.to_dict() for s in self.summary()},
        }


def _shots(game: Game) -> Iterator[tuple[int, Step, ShotAction]]:
    """``game``'s shots, each with its place in the record and its step replayed (R9).

    Raises:
        AnalysisError: an action does not replay to the result it records.
    """
    try:
        for index, step in enumerate(steps(game)):
            if isinstance(step.action, ShotAction):
                yield index, step, step.action
    except ActionReplayError as exc:
        if exc.differs:
            raise AnalysisError(
                f"action {exc.index} of the game does not replay to the result it records"
            ) from None
        raise AnalysisError(
            f"action {exc.index} of the game cannot be replayed: {exc.reason}"
        ) from None
    except InvalidRecordError as exc:
        raise AnalysisError(f"the game does not replay: {exc}") from None


def _standing(game: Game, seat: Seat) -> tuple[float, tuple[int, ...]]:
    """The shooter's side's margin and every side's total, counted now (R6)."""
    totals = tuple(c.total for c in game.round_counts())
    side = game.side_of(seat)
    others = [t for k, t in enumerate(totals) if k != side]
    return float(totals[side] - max(others)), totals


def _position_code(game: Game, seat: Seat) -> str | None:
    """The practice-room code of the position before the shot, ``seat`` to shoot (singles)."""
    if game.rules.layout is not Layout.SINGLES:
        return None
    discs = tuple(("s" if d.owner is Seat.SOUTH else "n", d.x, d.y) for d in game.discs)
    try:
        return position_code(PracticePosition(discs, seat.key))
    except CrokinoleError:  # pragma: no cover - a position reached in play is always legal
        return None


def _better(a: ShotValue, b: ShotValue) -> bool:
    """Whether ``a`` is worth more than ``b``: round-win chance first, then margin."""
    return (a.round_win, a.margin) > (b.round_win, b.margin)


#: Distinct shots asked of the hint search (its "fast" budget) in each position.
HINTS = 3
#: Noise draws with which the shot played and the hints are valued together
#: (one when the accuracy is steady).
DRAWS = 128


def review_shot(
    before: Game, shot: Shot, accuracy: Accuracy, *, seed: int
) -> tuple[ShotValue, ShotValue]:
    """The shot as played and the best shot found, valued with the same draws.

    The hint search (:func:`~crokinole.analysis.hints.hints`, ``"fast"``
    budget, :data:`HINTS` distinct shots) proposes the best shots; they and
    the shot played are then valued together by
    :func:`~crokinole.analysis.value.value_shots` (:data:`DRAWS` draws seeded
    with ``seed``), so every figure of one shot's review comes from the same
    draws.  Returns ``(played, best)``; ``best`` is ``played`` when nothing
    better was found.
    """
    found = hints(before, accuracy, count=HINTS, seed=seed, budget="fast")
    shots = [shot, *(h.value.shot for h in found)]
    values = value_shots(before, shots, accuracy, draws=DRAWS, seed=seed)
    played, best = values[0], values[0]
    for value in values[1:]:
        if _better(value, best):
            best = value
    return played, best


@dataclass(frozen=True, slots=True)
class ReviewStep:
    """One shot of a game to review: the game before it and after it, replayed.

    A review is a list of these (:func:`review_steps`, quick), each valued
    on its own (:func:`review_step`, the slow part: a search), so a server
    can compute a long review one shot at a time, between other work.
    """

    index: int
    before: Game
    seat: Seat
    shot: Shot
    after: Game
    report: ShotReport | None = None


def review_steps(game: Game) -> list[ReviewStep]:
    """Every shot of ``game`` to review, replayed from the start (blocking, quick).

    Raises:
        AnalysisError: an action does not replay to the result it records.
    """
    return [
        ReviewStep(index, step.before, action.seat, action.shot, step.after, step.report)
        for index, step, action in _shots(game)
    ]


def review_step(step: ReviewStep, accuracy: Accuracy, *, seed: int = 0) -> ShotReview:
    """The review of one shot (blocking: a search); its draws are seeded ``seed + index``."""
    before, seat, shot = step.before, step.seat, step.shot
    played, best = review_shot(before, shot, accuracy, seed=seed + step.index)
    loss_win = max(best.round_win - played.round_win, 0.0)
    margin_after, totals_after = _standing(step.after, seat)
    return ShotReview(
        index=step.index,
        round=before.round_number,
        turn=before.turn_index + 1,
        seat=seat,
        shot=shot,
        played=played,
        best=best,
        loss_margin=best.margin - played.margin,
        loss_win=loss_win,
        grade=grade_of(loss_win),
        margin_after=margin_after,
        totals_after=totals_after,
        position_code=_position_code(before, seat),
        played_effect=None if step.report is None else effect_of(before, step.report),
        best_effect=_aimed_effect(before, best.shot),
    )


def assemble(game: Game, accuracy: Accuracy, seed: int, shots: Sequence[ShotReview]) -> GameReview:
    """The review of ``game`` made of its shots' reviews (:func:`review_step`), in order."""
    rules = game.rules
    return GameReview(
        accuracy=accuracy.name,
        seed=seed,
        seats=rules.seats,
        sides=rules.sides,
        shots=tuple(shots),
    )


def review(
    game: Game,
    *,
    accuracy: Accuracy | None = None,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> GameReview:
    """Review every shot of ``game`` (finished or not), replayed from the start.

    Args:
        game: the game; its actions are played again from its first seat.
        accuracy: how exactly the shots are played when valued; the default
            is :meth:`Accuracy.human` (a strong human's hand, the Expert's noise).
        seed: the draws of action ``k`` are seeded with ``seed + k``.
        progress: called with (shots reviewed, shots to review) after each shot.

    Raises:
        AnalysisError: an action does not replay to the result it records.

    >>> from crokinole import Game, Rules, Seat, Shot
    >>> game = Game(Rules(rounds=1))
    >>> _ = game.shoot(Seat.SOUTH, Shot(position=0.0, direction=0.0, power=100.0))  # off the board
    >>> shot = review(game, accuracy=Accuracy.steady()).shots[0]
    >>> shot.played.margin, shot.best.margin > 0, shot.grade.value
    (0.0, True, 'mistake')
    """
    accuracy = Accuracy.human() if accuracy is None else accuracy
    steps = review_steps(game)
    shots: list[ShotReview] = []
    for step in steps:
        shots.append(review_step(step, accuracy, seed=seed))
        if progress is not None:
            progress(len(shots), len(steps))
    return assemble(game, accuracy, seed, shots)
