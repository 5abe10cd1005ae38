"""Execution noise: the shot a CPU player means is not quite the shot it plays (R8).

Placement is deliberate, so the position barely moves; the flick errs in
direction (degrees, normal) and in power (relative, normal).  Spreads per
level are calibrated on the open 20 (see ``crokinole calibrate``).

>>> import numpy as np
>>> from crokinole.board import TOURNAMENT_BOARD as board, Shot
>>> noisy = Noise(position=0.2, direction=2.0, power=0.05)
>>> shot = noisy.perturb(board, Shot(0.0, 0.0, 30.0), np.random.default_rng(1))
>>> shot != Shot(0.0, 0.0, 30.0) and 0.0 <= shot.power <= 100.0
True
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from crokinole.board import Board, Shot

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class Noise:
    """Standard deviations of the execution error.

    Attributes:
        position: degrees along the shooting line.
        direction: degrees of aim.
        power: relative error of the power (0.05 is 5% of the intended power).
    """

    position: float = 0.0
    direction: float = 0.0
    power: float = 0.0

    def perturb(self, board: Board, shot: Shot, rng: np.random.Generator) -> Shot:
        """The shot actually played when ``shot`` is meant (kept within R3's limits).

        The same shot as :meth:`perturb_many` of the one shot plays from the
        same ``rng``: its three draws of one error each are the three values
        of one draw of three, and a shot of plain floats (or small ints) is
        worked out with Python's floats, which are numpy's float64.
        """
        meant = (shot.position, shot.direction, shot.power)
        if not all(_plain(v) for v in meant):
            pos, dirs, pows = self.perturb_many(
                board,
                np.array([shot.position]),
                np.array([shot.direction]),
                np.array([shot.power]),
                rng,
            )
            return Shot(float(pos[0]), float(dirs[0]), float(pows[0]))
        position, direction, power = (float(v) for v in meant)
        z_pos, z_dir, z_pow = rng.normal(0.0, 1.0, 3).tolist()
        limit = board.placement_limit
        return Shot(
            _clip(position + z_pos * self.position, -limit, limit),
            _clip(direction + z_dir * self.direction, -180.0, 180.0),
            _clip(power * (1.0 + z_pow * self.power), 0.0, 100.0),
        )

    def perturb_many(
        self,
        board: Board,
        positions: FloatArray,
        directions: FloatArray,
        powers: FloatArray,
        rng: np.random.Generator,
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        """Vectorised :meth:`perturb`: one independent error per element."""
        k = positions.shape
        return self.apply(
            board,
            positions,
            directions,
            powers,
            (rng.normal(0.0, 1.0, k), rng.normal(0.0, 1.0, k), rng.normal(0.0, 1.0, k)),
        )

    def apply(
        self,
        board: Board,
        positions: FloatArray,
        directions: FloatArray,
        powers: FloatArray,
        errors: tuple[FloatArray, FloatArray, FloatArray],
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        """The shots played for given standard-normal errors (position, direction, power).

        Using the same errors for several intended shots compares them on equal
        terms (common random numbers), as Expert's rollouts do.
        """
        limit = board.placement_limit
        z_pos, z_dir, z_pow = errors
        pos = np.clip(positions + z_pos * self.position, -limit, limit)
        dirs = np.clip(directions + z_dir * self.direction, -180.0, 180.0)
        pows = np.clip(powers * (1.0 + z_pow * self.power), 0.0, 100.0)
        return pos, dirs, pows


def _plain(value: object) -> bool:
    """A float, or an int that a float holds exactly: numpy takes either as a float64."""
    kind = type(value)
    return kind is float or (kind is int and -(2**53) <= value <= 2**53)  # type: ignore[operator]


def _clip(value: float, low: float, high: float) -> float:
    """``np.clip`` of one float (NaN stays NaN)."""
    return min(max(value, low), high)
