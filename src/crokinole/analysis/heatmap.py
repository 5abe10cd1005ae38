"""Aim heat maps: what every (direction, power) is worth from one placement.

For the placement the player has chosen (R3's position on the line), a grid
of directions × powers is played under an accuracy, every cell with the
same ``draws`` noise errors (common random numbers, so neighbouring cells
differ by their aim and not by luck), through the batch simulator and the
referee.  Each cell holds one of three metrics (:class:`Metric`):

* ``points``: the expected round margin after the shot (R6, counted now;
  see :mod:`crokinole.analysis.value`);
* ``twenty``: the chance that the shot disc drops into the hole (R5);
* ``valid``: the chance that the shot is valid (R4): 0 for a shot that
  misses every opposing disc when contact is required.

The **best** cell is the highest value; where several cells share it (a
steady hand's whole "sweet spot" of open 20s), the one nearest the middle of
those cells, which is the safest aim among them.

>>> from crokinole.rules import Game, Rules
>>> hm = heat_map(Game(Rules()), 0.0, Accuracy.steady(), metric="twenty", size=16)
>>> hm.values.shape, abs(hm.best.direction) < 6, 25 < hm.best.power < 40
((16, 16), True, True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import numpy as np
import numpy.typing as npt

from crokinole.ai.search import Candidates
from crokinole.analysis.value import Accuracy, normal_errors, roll, shot_data, situation_of
from crokinole.board import Board, Seat, Shot, is_real_number
from crokinole.errors import AnalysisError
from crokinole.rules import Game

FloatArray = npt.NDArray[np.float64]

#: Half-width (degrees) of the default direction window, around the centre (0°, R3).
DEFAULT_HALF_WINDOW = 40.0
#: Bounds on the grid, so that one request cannot take the server's CPU for long.
MAX_SIZE = 128
MAX_DRAWS = 256


class Metric(StrEnum):
    """What a heat-map cell shows (see the module doc)."""

    POINTS = "points"
    TWENTY = "twenty"
    VALID = "valid"


@dataclass(frozen=True)
class HeatMap:
    """A heat map over direction × power from one placement.

    Attributes:
        position: the placement (degrees along the line, R3).
        metric: what the values are.
        accuracy: the name of the accuracy the shots were played with.
        directions: ``(W,)`` directions in degrees (R3), ascending.
        powers: ``(H,)`` powers in percent, ascending.
        travel: ``(H,)`` inches a lone disc slides at each power on an empty
            board (at most to the far edge straight through the centre): where
            to draw a row of cells along each aim line.
        values: ``(H, W)``; ``values[i, j]`` is the value of ``powers[i]``,
            ``directions[j]``.
        best: the best cell's shot.
    """

    position: float
    metric: Metric
    accuracy: str
    directions: FloatArray
    powers: FloatArray
    travel: FloatArray
    values: FloatArray
    best: Shot

    def to_dict(self) -> dict[str, Any]:
        """Plain data (lists; values rounded to 3 places, the axes to 4)."""
        return {
            "position": round(self.position, 4),
            "metric": self.metric.value,
            "accuracy": self.accuracy,
            "directions": np.round(self.directions, 4).tolist(),
            "powers": np.round(self.powers, 4).tolist(),
            "travel": np.round(self.travel, 4).tolist(),
            "values": np.round(self.values, 3).tolist(),
            "best": shot_data(self.best),
        }


def travel_of(board: Board, powers: FloatArray) -> FloatArray:
    """Inches a lone disc slides at each power (v² = 2·a·d), at most to the far edge."""
    speed = board.max_launch_speed * np.asarray(powers, dtype=np.float64) / 100.0
    far_edge = board.shooting_line_radius + board.surface_radius
    return np.asarray(
        np.minimum(speed * speed / (2.0 * board.deceleration), far_edge), dtype=np.float64
    )


def heat_map(
    game: Game,
    position: float,
    accuracy: Accuracy,
    *,
    metric: Metric | str = Metric.POINTS,
    size: int = 64,
    draws: int = 32,
    seed: int = 0,
    directions: tuple[float, float] | None = None,
    powers: tuple[float, float] = (0.0, 100.0),
) -> HeatMap:
    """The heat map of the shots from ``position`` for the player to move.

    Args:
        game: the position.
        position: the placement (degrees, R3); it must be free.
        accuracy: how the shots are played (one draw when steady).
        metric: ``points``, ``twenty`` or ``valid``.
        size: cells along each axis (``size × size`` cells).
        draws: noise draws per cell.
        seed: seed of the noise draws.
        directions: the (lowest, highest) direction; by default ±40° around
            the centre.
        powers: the (lowest, highest) power in percent.

    Raises:
        AnalysisError: nobody is to shoot; the placement is not allowed (R3);
            or a metric, size, draw count or window that cannot be drawn.

    >>> from crokinole.rules import Game, Rules
    >>> hm = heat_map(Game(Rules()), 5.0, Accuracy.human(), size=8, draws=4)
    >>> sorted(hm.to_dict())[:4], len(hm.to_dict()["values"])
    (['accuracy', 'best', 'directions', 'metric'], 8)
    """
    situation = situation_of(game)
    chosen = _metric(metric)
    _check_position(game, position, situation.seat)
    if not (isinstance(size, int) and 2 <= size <= MAX_SIZE):
        raise AnalysisError(f"a heat map has 2 to {MAX_SIZE} cells a side, not {size!r}")
    if not (isinstance(draws, int) and 1 <= draws <= MAX_DRAWS):
        raise AnalysisError(f"a heat map takes 1 to {MAX_DRAWS} draws a cell, not {draws!r}")
    low_dir, high_dir = _window(
        "directions",
        (-DEFAULT_HALF_WINDOW, DEFAULT_HALF_WINDOW) if directions is None else directions,
        -180.0,
        180.0,
        "°",
    )
    low_pow, high_pow = _window("powers", powers, 0.0, 100.0, "%")
    dirs = np.linspace(low_dir, high_dir, size)
    pows = np.linspace(low_pow, high_pow, size)
    cells = size * size
    grid = Candidates(
        np.full(cells, float(position)),
        np.tile(dirs, size),
        np.repeat(pows, size),
    )
    reps = 1 if accuracy.is_steady else draws
    rolled = roll(game, situation, grid, accuracy, normal_errors(reps, seed))
    per_draw = {
        Metric.POINTS: rolled.margin,
        Metric.TWENTY: rolled.twenty,
        Metric.VALID: rolled.valid,
    }[chosen]
    values = rolled.mean(per_draw).reshape(size, size)
    i, j = _best_cell(values)
    return HeatMap(
        position=float(position),
        metric=chosen,
        accuracy=accuracy.name,
        directions=dirs,
        powers=pows,
        travel=travel_of(game.board, pows),
        values=values,
        best=Shot(float(position), float(dirs[j]), float(pows[i])),
    )


def _best_cell(values: FloatArray) -> tuple[int, int]:
    """The highest cell; among equal ones, the one nearest their middle."""
    top = values.max()
    rows, cols = np.nonzero(values == top)
    middle_row, middle_col = rows.mean(), cols.mean()
    k = int(np.argmin(np.hypot(rows - middle_row, cols - middle_col)))
    return int(rows[k]), int(cols[k])


def _metric(metric: Metric | str) -> Metric:
    try:
        return Metric(metric)
    except ValueError:
        names = ", ".join(m.value for m in Metric)
        raise AnalysisError(f"unknown heat-map metric {metric!r}; choose one of {names}") from None


def _check_position(game: Game, position: float, seat: Seat) -> None:
    if not (is_real_number(position) and math.isfinite(position)):
        raise AnalysisError(f"a placement is a number of degrees along the line, not {position!r}")
    limit = game.board.placement_limit
    if abs(position) > limit:
        raise AnalysisError(
            f"a disc cannot be placed at {position:g}°: {seat.key}'s quarter of the "
            f"shooting line runs from -{limit:.2f}° to {limit:.2f}° (R3)"
        )
    problem = game.placement_problem(seat, float(position))
    if problem is not None:
        raise AnalysisError(f"a disc cannot be placed at {position:g}°: {problem} (R3)")


def _window(
    name: str, window: tuple[float, float], lowest: float, highest: float, unit: str
) -> tuple[float, float]:
    try:
        low, high = (float(v) for v in window)
    except (TypeError, ValueError):
        raise AnalysisError(f"{name} is a pair (lowest, highest), not {window!r}") from None
    if not (math.isfinite(low) and math.isfinite(high) and lowest <= low < high <= highest):
        raise AnalysisError(
            f"{name} must run from a lower to a higher value within {lowest:g}{unit} to "
            f"{highest:g}{unit}, not {low:g}{unit} to {high:g}{unit}"
        )
    return low, high
