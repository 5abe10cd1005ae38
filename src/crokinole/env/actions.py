"""The environments' action: three numbers in [-1, 1] that make a :class:`~crokinole.board.Shot`.

The mapping is the browser's (``web/static/views/controls.js``): its three
aim controls span position ±:attr:`~crokinole.board.Board.placement_limit`
degrees (the disc touches a quadrant line at either end, R3), direction
±90° (0° aims at the centre, positive to the shooter's right) and power
0–100%.  An action ``a`` is

* position = ``a[0]`` × placement limit (41.87° on the tournament board),
* direction = ``a[1]`` × 90°,
* power = (``a[2]`` + 1) × 50%.

No gymnasium here: this module is plain numpy and is what the docs' example runs.

>>> from crokinole.board import TOURNAMENT_BOARD as board
>>> action_to_shot(board, [0.0, 0.0, -0.44])
Shot(position=0.0, direction=0.0, power=28.000000000000004)
>>> shot_to_action(board, action_to_shot(board, [0.5, -0.25, 0.0])).tolist()
[0.5, -0.25, 0.0]
>>> action_to_shot(board, [0.0, float("nan"), 0.0])
Traceback (most recent call last):
...
crokinole.errors.InvalidShotError: action [0.0, nan, 0.0]: direction (item 1) must be a finite \
number in [-1, 1], got nan
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from crokinole.board import Board, Seat, Shot, is_real_number
from crokinole.errors import InvalidShotError
from crokinole.rules import Game

__all__ = [
    "ACTION_NAMES",
    "MAX_DIRECTION",
    "action_to_shot",
    "check_action",
    "check_actions",
    "legal_position",
    "shot_to_action",
]

#: The three numbers of an action, in order.
ACTION_NAMES = ("position", "direction", "power")
#: The browser's direction control spans ±90°.
MAX_DIRECTION = 90.0

FloatArray = npt.NDArray[np.float64]


def _quoted(values: Any) -> str:
    try:
        return str([float(v) for v in np.asarray(values, dtype=np.float64).ravel().tolist()])
    except (TypeError, ValueError):
        return repr(values)


def check_action(action: object) -> FloatArray:
    """``action`` as three float64s in [-1, 1], or an :class:`InvalidShotError` saying why.

    Any array-like of three real numbers will do (a numpy ``float32`` array
    from a policy, a list); bools, text, NaN and values outside [-1, 1] are refused.
    """
    if isinstance(action, np.ndarray):
        if action.dtype.kind not in "iuf":
            raise InvalidShotError(f"an action is three numbers in [-1, 1], got {action!r}")
        values = action.astype(np.float64).ravel()
        shape: tuple[int, ...] = action.shape
    else:
        try:
            items = list(action)  # type: ignore[call-overload]
        except TypeError:
            raise InvalidShotError(
                f"an action is three numbers in [-1, 1], got {action!r}"
            ) from None
        if not all(is_real_number(v) for v in items):
            raise InvalidShotError(f"an action is three numbers in [-1, 1], got {action!r}")
        values = np.array([float(v) for v in items], dtype=np.float64)
        shape = (len(items),)
    if shape != (3,):
        raise InvalidShotError(
            f"an action is three numbers (position, direction, power), got shape {shape}"
        )
    for k, value in enumerate(values.tolist()):
        if not (math.isfinite(value) and -1.0 <= value <= 1.0):
            raise InvalidShotError(
                f"action {_quoted(values)}: {ACTION_NAMES[k]} (item {k}) must be a finite "
                f"number in [-1, 1], got {value}"
            )
    return values


def check_actions(actions: object, count: int) -> FloatArray:
    """A batch of ``count`` actions as a ``(count, 3)`` float64 array, checked as one is."""
    array = np.asarray(actions)
    if array.dtype.kind not in "iuf" or array.shape != (count, 3):
        raise InvalidShotError(
            f"actions are a ({count}, 3) array of numbers in [-1, 1], "
            f"got {array.dtype} of shape {array.shape}"
        )
    values = array.astype(np.float64)
    bad = ~(np.abs(values) <= 1.0)  # NaN is bad too
    if bad.any():
        board, item = (int(i) for i in np.argwhere(bad)[0])
        raise InvalidShotError(
            f"board {board}: action {_quoted(values[board])}: {ACTION_NAMES[item]} "
            f"(item {item}) must be a finite number in [-1, 1], got {values[board, item]}"
        )
    return values


def action_to_shot(board: Board, action: object) -> Shot:
    """The shot an action stands for (see the module's mapping).

    Raises:
        InvalidShotError: not three finite numbers in [-1, 1].
    """
    a = check_action(action).tolist()
    return Shot(
        position=a[0] * board.placement_limit,
        direction=a[1] * MAX_DIRECTION,
        power=(a[2] + 1.0) * 50.0,
    )


def shot_to_action(board: Board, shot: Shot) -> npt.NDArray[np.float32]:
    """The action nearest to ``shot`` (direction clipped to ±90°), as float32.

    The inverse of :func:`action_to_shot`, for playing a CPU level's shots as
    a policy; float32 rounds, so the shot played back is within 1e-5 of it.
    """
    values = (
        shot.position / board.placement_limit,
        shot.direction / MAX_DIRECTION,
        shot.power / 50.0 - 1.0,
    )
    return np.clip(np.array(values, dtype=np.float32), -1.0, 1.0)


def legal_position(game: Game, seat: Seat, position: float) -> float | None:
    """``position`` if a disc may be placed there (R3), else the nearest position that may.

    A disc slides along the line to the nearest free spot, as a player's hand
    would; None when the whole quarter is blocked (the rules then treat the
    turn as a timeout, :meth:`~crokinole.rules.Game.can_place`).
    """
    if game.placement_problem(seat, position) is None:
        return position
    best: float | None = None
    for lo, hi in game.placement_intervals(seat):
        nearest = min(max(position, lo), hi)
        # An interval's ends touch a disc exactly; step inside past rounding.
        nudged = min(max(nearest, lo + 1e-7), hi - 1e-7) if hi - lo > 2e-7 else (lo + hi) / 2
        if game.placement_problem(seat, nudged) is not None:
            continue
        if best is None or abs(nudged - position) < abs(best - position):
            best = nudged
    return best
