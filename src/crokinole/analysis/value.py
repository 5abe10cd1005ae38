"""What a shot is worth under a given accuracy: the measure every analysis uses.

A shot is valued by playing it many times with an **accuracy** (the
execution noise of :mod:`crokinole.ai.noise`: a steady hand that plays
every shot exactly as aimed, a CPU level's noise, the human hand of the
tables, or one fitted to a player's own open-20 rate) through the batch
simulator and the vectorised referee, so fouls (R4) and discs sent out
(R5) are counted as the rules count them.  For each shot it reports:

* the expected round **margin** after it: the shooter's side total minus the
  best other side's, counted now as R6 counts it (20s already set aside
  this round included);
* the **round-win** chance: the margin turned into a probability with the
  uncertainty Expert uses (:func:`round_win_chance`);
* the share of draws that are **valid** shots (R4), and the share in which
  the shot disc drops into the hole for a **twenty** (R5, a credited 20).

Every shot of one call is played with the same standard-normal errors
(common random numbers), so their differences are the shots' and not the
draws'.

>>> from crokinole.board import Shot
>>> from crokinole.rules import Game, Rules
>>> value = value_shots(Game(Rules()), [Shot(0.0, 0.0, 29.0)], Accuracy.steady())[0]
>>> value.twenty, value.margin, value.valid
(1.0, 20.0, 1.0)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from crokinole.ai import NOISE, Level, Noise
from crokinole.ai.evaluate import Situation, margins, standings
from crokinole.ai.search import Candidates, played_candidates, simulate_candidates
from crokinole.board import Seat, Shot
from crokinole.errors import AnalysisError
from crokinole.rules import Game
from crokinole.rules.referee import FATE_TWENTY, BatchJudgement

#: Accuracy names that :meth:`Accuracy.named` knows, besides the CPU levels' ids.
STEADY = "steady"
HUMAN = "human"
#: The name of an accuracy fitted to a player's own open-20 rate (see :mod:`.accuracy`).
MINE = "mine"

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True, slots=True)
class Accuracy:
    """How exactly shots are played when they are valued.

    Attributes:
        name: ``"steady"``, ``"human"``, a CPU level's id (``"easy"`` ...
            ``"expert"``) or ``"mine"`` (fitted to a player's open-20 rate).
        noise: the execution noise (standard deviations) shots are played with.

    >>> Accuracy.named("hard").noise == NOISE[Level.HARD]
    True
    >>> Accuracy.human().to_dict()
    {'name': 'human', 'position': 0.1, 'direction': 1.9, 'power': 0.09}
    """

    name: str
    noise: Noise

    @classmethod
    def steady(cls) -> Accuracy:
        """Every shot played exactly as aimed (one draw suffices)."""
        return cls(STEADY, Noise())

    @classmethod
    def of_level(cls, level: Level | str) -> Accuracy:
        """A CPU level's execution noise (R8)."""
        try:
            chosen = Level(level)
        except ValueError:
            raise AnalysisError(_unknown(level)) from None
        return cls(chosen.value, NOISE[chosen])

    @classmethod
    def human(cls) -> Accuracy:
        """The hand noise of the tables' "human" hand (the Expert's noise)."""
        return cls(HUMAN, NOISE[Level.EXPERT])

    @classmethod
    def named(cls, name: str) -> Accuracy:
        """The accuracy called ``name``: ``steady``, ``human`` or a CPU level's id.

        Raises:
            AnalysisError: any other name (``mine`` needs a measured rate:
                see :func:`crokinole.analysis.fit_accuracy`).
        """
        if name == STEADY:
            return cls.steady()
        if name == HUMAN:
            return cls.human()
        if name == MINE:
            raise AnalysisError(
                "the accuracy 'mine' is fitted from your open-20 rate: play the open-20 drill first"
            )
        return cls.of_level(name)

    @property
    def is_steady(self) -> bool:
        """Whether shots are played exactly as aimed."""
        return self.noise == Noise()

    def to_dict(self) -> dict[str, Any]:
        """The accuracy as plain data (the name and the three spreads)."""
        return {
            "name": self.name,
            "position": self.noise.position,
            "direction": self.noise.direction,
            "power": self.noise.power,
        }


def _unknown(name: object) -> str:
    names = ", ".join([STEADY, HUMAN, *(level.value for level in Level)])
    return f"unknown accuracy {name!r}; choose one of {names}"


@dataclass(frozen=True, slots=True)
class ShotValue:
    """A shot and what it is worth under an accuracy (see the module doc).

    Attributes:
        shot: the shot as aimed.
        margin: expected round margin after it (shooter's side minus the best
            other side, counted now as R6, 20s set aside included).
        round_win: estimated chance (0 to 1) that the shooter's side wins the round.
        valid: share of draws that are valid shots (R4).
        twenty: share of draws in which the shot disc drops into the hole (a 20).
    """

    shot: Shot
    margin: float
    round_win: float
    valid: float
    twenty: float

    def to_dict(self) -> dict[str, Any]:
        """Plain data, figures rounded to 4 places."""
        return {
            "shot": shot_data(self.shot),
            "margin": round(self.margin, 4),
            "round_win": round(self.round_win, 4),
            "valid": round(self.valid, 4),
            "twenty": round(self.twenty, 4),
        }


def shot_data(shot: Shot) -> dict[str, float]:
    """A shot as plain data, rounded to 4 places (as the analysis answers show shots)."""
    return {
        "position": round(shot.position, 4),
        "direction": round(shot.direction, 4),
        "power": round(shot.power, 4),
    }


def round_win_chance(margin: FloatArray, situation: Situation) -> FloatArray:
    """Chance that the shooter's side wins the round, from the margin after a shot.

    On the last shot of the round the margin is final: 1 when ahead, 0.5 when
    level, 0 when behind.  Otherwise it is uncertain by about
    ``3 + 5·sqrt(shots left)`` points (the scale of
    :func:`crokinole.ai.evaluate.utility`) and the chance is a logistic curve.

    >>> from crokinole.rules import Game, Rules
    >>> situation = Situation.of(Game(Rules()))
    >>> round_win_chance(np.array([0.0, 20.0]), situation).round(3).tolist()
    [0.5, 0.71]
    """
    margin = np.asarray(margin, dtype=np.float64)
    if situation.shots_left == 0:
        return np.asarray(np.where(margin > 0, 1.0, np.where(margin < 0, 0.0, 0.5)))
    scale = 3.0 + 5.0 * math.sqrt(situation.shots_left)
    return np.asarray(0.5 * (1.0 + np.tanh(0.5 * margin / scale)), dtype=np.float64)


def situation_of(game: Game) -> Situation:
    """The situation of the shooter, or :class:`AnalysisError` when nobody is to shoot."""
    if game.current_seat is None:
        raise AnalysisError("nobody is to shoot: the round or the game is over")
    return Situation.of(game)


@dataclass(frozen=True)
class Rolled:
    """Per-draw results of K shots played ``draws`` times each (row-major: shot, then draw).

    Attributes:
        margin: ``(K·draws,)`` margin after each draw.
        round_win: ``(K·draws,)`` round-win chance after each draw.
        valid: ``(K·draws,)`` whether each draw is a valid shot (R4).
        twenty: ``(K·draws,)`` whether the shot disc made a 20.
        judged: the referee's batch judgement.
        draws: draws per shot.
    """

    margin: FloatArray
    round_win: FloatArray
    valid: BoolArray
    twenty: BoolArray
    judged: BatchJudgement
    draws: int

    def mean(self, values: npt.NDArray[Any]) -> FloatArray:
        """Per-shot mean of a per-draw array."""
        return np.asarray(values.reshape(-1, self.draws).mean(axis=1), dtype=np.float64)


def normal_errors(draws: int, seed: int) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Standard-normal errors (position, direction, power) for ``draws`` draws."""
    rng = np.random.default_rng(seed)
    return (rng.normal(0.0, 1.0, draws), rng.normal(0.0, 1.0, draws), rng.normal(0.0, 1.0, draws))


def roll(
    game: Game,
    situation: Situation,
    shots: Candidates,
    accuracy: Accuracy,
    errors: tuple[FloatArray, FloatArray, FloatArray],
) -> Rolled:
    """Play every shot once per draw of ``errors`` (the same errors for every shot), in one batch.

    A noisy placement that is not free is replaced by the aimed one, as
    :meth:`crokinole.ai.CpuPlayer.choose_shot` does: placing is deliberate.
    """
    seat: Seat = situation.seat
    draws = int(errors[0].shape[0])
    played = played_candidates(game, seat, shots, accuracy.noise, errors)
    judged = simulate_candidates(game, seat, played)
    margin = margins(standings(judged, situation), situation.side)
    shot_disc = judged.fate.shape[1] - 1
    return Rolled(
        margin=margin,
        round_win=round_win_chance(margin, situation),
        valid=judged.valid,
        twenty=judged.fate[:, shot_disc] == FATE_TWENTY,
        judged=judged,
        draws=draws,
    )


def check_placements(game: Game, seat: Seat, positions: npt.ArrayLike) -> None:
    """:class:`AnalysisError` naming the first placement that R3 does not allow now."""
    for k, position in enumerate(np.atleast_1d(np.asarray(positions, dtype=np.float64))):
        problem = game.placement_problem(seat, float(position))
        if problem is not None:
            raise AnalysisError(f"shot {k}: a disc cannot be placed at {position:g}°: {problem}")


def value_shots(
    game: Game, shots: Sequence[Shot], accuracy: Accuracy, *, draws: int = 64, seed: int = 0
) -> tuple[ShotValue, ...]:
    """Value each of ``shots`` for the player to move in ``game`` (see the module doc).

    Args:
        game: the position; its shooter plays the shots.
        shots: the shots as aimed.
        accuracy: how exactly they are played.
        draws: noise draws per shot (one when the accuracy is steady).
        seed: seed of the noise draws: the same seed gives the same figures.

    Raises:
        AnalysisError: nobody is to shoot, ``draws`` is below 1, or a shot's
            placement is not allowed (R3); a shot out of range raises
            :class:`~crokinole.errors.InvalidShotError`.

    >>> from crokinole.rules import Game, Rules
    >>> aimed = [Shot(0.0, 0.0, 29.0), Shot(0.0, 25.0, 29.0)]
    >>> twenty, wide = value_shots(Game(Rules()), aimed, Accuracy.human(), draws=200)
    >>> twenty.twenty > 0.5 > wide.valid
    True
    """
    situation = situation_of(game)
    if draws < 1:
        raise AnalysisError(f"at least one draw is needed to value a shot, not {draws}")
    if not shots:
        return ()
    candidates = Candidates(
        np.array([s.position for s in shots], dtype=np.float64),
        np.array([s.direction for s in shots], dtype=np.float64),
        np.array([s.power for s in shots], dtype=np.float64),
    )
    check_placements(game, situation.seat, candidates.positions)
    reps = 1 if accuracy.is_steady else draws
    rolled = roll(game, situation, candidates, accuracy, normal_errors(reps, seed))
    return values_of(shots, rolled)


def values_of(shots: Sequence[Shot], rolled: Rolled) -> tuple[ShotValue, ...]:
    """The :class:`ShotValue` of each shot from its rolled draws."""
    margin = rolled.mean(rolled.margin)
    win = rolled.mean(rolled.round_win)
    valid = rolled.mean(rolled.valid)
    twenty = rolled.mean(rolled.twenty)
    return tuple(
        ShotValue(
            shot=shot,
            margin=float(margin[k]),
            round_win=float(win[k]),
            valid=float(valid[k]),
            twenty=float(twenty[k]),
        )
        for k, shot in enumerate(shots)
    )
