"""Shot geometry for the CPU players: aiming at a point, the power for a distance.

>>> from crokinole.board import TOURNAMENT_BOARD as board, Seat
>>> round(direction_towards(board, Seat.SOUTH, 0.0, 0.0, 0.0), 9)   # straight at the centre
0.0
>>> round(power_for(board, distance=12.0, arrival_speed=0.0), 2)   # stop exactly at the centre
27.79
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from crokinole.board import Board, Seat

FloatArray = npt.NDArray[np.float64]


def direction_towards(board: Board, seat: Seat, position: float, x: float, y: float) -> float:
    """Direction (degrees, R3 convention) that sends a disc placed at ``position`` to (x, y)."""
    start = board.placement(seat, position)
    aim = math.atan2(y - start.y, x - start.x)
    inward = math.atan2(-start.y, -start.x)
    return (math.degrees(inward - aim) + 180.0) % 360.0 - 180.0


def directions_towards(
    board: Board, seat: Seat, positions: FloatArray, xs: FloatArray, ys: FloatArray
) -> FloatArray:
    """Vectorised :func:`direction_towards` (broadcasting)."""
    angle = np.radians(seat.value + positions)
    r = board.shooting_line_radius
    sx, sy = r * np.cos(angle), r * np.sin(angle)
    aim = np.arctan2(ys - sy, xs - sx)
    inward = np.arctan2(-sy, -sx)
    return np.asarray((np.degrees(inward - aim) + 180.0) % 360.0 - 180.0, dtype=np.float64)


def power_for(board: Board, distance: float, arrival_speed: float) -> float:
    """Power (percent, at most 100) to slide ``distance`` inches and arrive at ``arrival_speed``.

    From v0² = v² + 2 a d for constant deceleration a.
    """
    return float(powers_for(board, np.array(distance), np.array(arrival_speed)))


def powers_for(board: Board, distances: FloatArray, arrival_speeds: FloatArray) -> FloatArray:
    """Vectorised :func:`power_for` (broadcasting)."""
    v0 = np.sqrt(np.square(arrival_speeds) + 2.0 * board.deceleration * np.maximum(distances, 0.0))
    return np.asarray(np.minimum(100.0 * v0 / board.max_launch_speed, 100.0), dtype=np.float64)


def placement_points(board: Board, seat: Seat, positions: FloatArray) -> FloatArray:
    """``(P, 2)`` centres of discs placed at ``positions`` (degrees) on ``seat``'s quarter."""
    angle = np.radians(seat.value + positions)
    r = board.shooting_line_radius
    return np.stack([r * np.cos(angle), r * np.sin(angle)], axis=-1)


def path_is_clear(
    board: Board,
    start: tuple[float, float],
    end: tuple[float, float],
    obstacles: FloatArray,
    clearance: float,
) -> bool:
    """Whether a disc sliding from ``start`` to ``end`` clears each obstacle by ``clearance``."""
    if obstacles.size == 0:
        return True
    p = np.asarray(start)
    q = np.asarray(end)
    seg = q - p
    length2 = float(seg @ seg)
    if length2 == 0.0:
        return True
    t = np.clip(((obstacles - p) @ seg) / length2, 0.0, 1.0)
    nearest = p + t[:, None] * seg
    gaps = np.hypot(*(obstacles - nearest).T)
    return bool((gaps >= clearance).all())
