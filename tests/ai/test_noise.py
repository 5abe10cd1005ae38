"""The execution noise of one shot: the shot the vectorised form plays from the same seed."""

from __future__ import annotations

import math

import numpy as np
import pytest

from crokinole.ai import HAND_NOISE
from crokinole.ai.noise import Noise
from crokinole.board import TOURNAMENT_BOARD, Shot


def _one_of_many(noise: Noise, shot: Shot, rng: np.random.Generator) -> Shot:
    """The shot ``perturb_many`` plays for a batch of this one shot."""
    pos, dirs, pows = noise.perturb_many(
        TOURNAMENT_BOARD,
        np.array([shot.position]),
        np.array([shot.direction]),
        np.array([shot.power]),
        rng,
    )
    return Shot(float(pos[0]), float(dirs[0]), float(pows[0]))


def _same(a: Shot, b: Shot) -> bool:
    """Equal floats, signs of zero included."""
    pairs = zip((a.position, a.direction, a.power), (b.position, b.direction, b.power), strict=True)
    return all(x == y and math.copysign(1.0, x) == math.copysign(1.0, y) for x, y in pairs)


@pytest.mark.parametrize(
    "noise",
    [HAND_NOISE, Noise(position=20.0, direction=150.0, power=2.5), Noise()],
    ids=["hand", "wild", "none"],
)
def test_one_shot_plays_as_a_batch_of_it_from_the_same_seed(noise: Noise) -> None:
    draw = np.random.default_rng(5)
    for k in range(2000):
        shot = Shot(
            float(draw.uniform(-45.0, 45.0)),
            float(draw.uniform(-180.0, 180.0)),
            float(draw.uniform(0.0, 100.0)),
        )
        if k % 5 == 0:  # whole numbers, as a client may send them
            shot = Shot(int(shot.position), int(shot.direction), int(shot.power))
        if k % 11 == 0:  # the limits themselves
            shot = Shot(41.865, 180.0, 100.0) if k % 2 else Shot(-41.865, -180.0, 0.0)
        one = noise.perturb(TOURNAMENT_BOARD, shot, np.random.default_rng([11, k]))
        assert _same(one, _one_of_many(noise, shot, np.random.default_rng([11, k]))), shot


def test_numpy_numbers_play_as_a_batch_of_them() -> None:
    shot = Shot(np.float32(3.3), np.float64(-2.7), np.int64(31))  # type: ignore[arg-type]
    one = HAND_NOISE.perturb(TOURNAMENT_BOARD, shot, np.random.default_rng(9))
    assert _same(one, _one_of_many(HAND_NOISE, shot, np.random.default_rng(9)))
    assert all(type(v) is float for v in (one.position, one.direction, one.power))


def test_the_noise_keeps_a_shot_within_the_limits() -> None:
    limit = TOURNAMENT_BOARD.placement_limit
    wild = Noise(position=1e6, direction=1e6, power=1e6)
    for k in range(200):
        shot = wild.perturb(TOURNAMENT_BOARD, Shot(0.0, 0.0, 50.0), np.random.default_rng(k))
        assert -limit <= shot.position <= limit
        assert -180.0 <= shot.direction <= 180.0
        assert 0.0 <= shot.power <= 100.0
    assert {
        wild.perturb(TOURNAMENT_BOARD, Shot(), np.random.default_rng(k)).power for k in range(50)
    } == {0.0}
