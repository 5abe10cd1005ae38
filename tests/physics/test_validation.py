"""Bad input is refused before anything is simulated, with a message naming the value."""

from __future__ import annotations

import math

import numpy as np
import pytest

from crokinole.board import TOURNAMENT_BOARD, Launch
from crokinole.errors import CrokinoleError, InvalidPositionError, InvalidShotError
from crokinole.physics import simulate_batch, simulate_motion, simulate_shot

B = TOURNAMENT_BOARD
OK_LAUNCH = Launch(0.0, -12.0, 0.0, 40.0)


@pytest.mark.parametrize(
    ("discs", "message"),
    [
        ([(0.0, 6.0), (0.5, 6.2)], r"disc 1 at \(0.5000, 6.2000\) overlaps disc 0"),
        ([(14.0, 0.0)], r"disc 0 at \(14.0000, 0.0000\) is off the playing surface"),
        ([(0.1, 0.2)], r"disc 0 at \(0.1000, 0.2000\) is over the 20 hole"),
        ([(3.7, 1.5)], r"disc 0 at \(3.7000, 1.5000\) overlaps peg 0"),
        ([(math.nan, 1.0)], r"disc 0 at \(nan, 1.0000\) has a coordinate that is not a finite"),
        ([(math.inf, 1.0)], "not a finite number"),
        ([(1.0, 2.0, 3.0)], r"discs must be \(x, y\) pairs"),
        ([("a", 2.0)], r"discs must be \(x, y\) pairs"),
    ],
)
def test_bad_positions_are_refused(discs: list[tuple[object, ...]], message: str) -> None:
    with pytest.raises(InvalidPositionError, match=message) as info:
        simulate_shot(B, discs, OK_LAUNCH)  # type: ignore[arg-type]
    assert isinstance(info.value, CrokinoleError) and isinstance(info.value, ValueError)


@pytest.mark.parametrize(
    ("launch", "message"),
    [
        (Launch(0.0, -12.0, math.nan, 40.0), "finite"),
        (Launch(0.0, -12.0, 0.0, math.inf), "finite"),
        (Launch(0.0, -6.2, 0.0, 40.0), r"the shot disc overlaps disc 0"),
        (Launch(0.0, -13.5, 0.0, 40.0), "off the playing surface"),
    ],
)
def test_bad_launches_are_refused(launch: Launch, message: str) -> None:
    with pytest.raises(InvalidShotError, match=message):
        simulate_shot(B, [(0.0, -6.0)], launch)


def test_a_touching_position_from_the_simulator_is_accepted_again() -> None:
    # Discs resting exactly in contact (to rounding) are a legal position.
    first = simulate_shot(B, [(0.0, -6.0)], Launch(0.0, -12.0, 0.0, 30.0))
    after = [d.position for d in first.discs]
    again = simulate_shot(B, after, Launch(5.0, -10.9, 0.0, 0.0))
    assert [d.position for d in again.discs[:2]] == after


def test_batch_validates_every_launch_and_names_the_bad_one() -> None:
    good = [0.0, -12.0, 0.0, 40.0]
    with pytest.raises(InvalidShotError, match="launch 2"):
        simulate_batch(B, [], np.array([good, good, [0.0, -12.0, math.nan, 1.0]]))
    with pytest.raises(InvalidShotError, match=r"\(K, 4\)"):
        simulate_batch(B, [], np.zeros((3, 3)))


def test_motion_needs_one_finite_velocity_per_disc() -> None:
    with pytest.raises(InvalidShotError, match="one \\(vx, vy\\) velocity per disc"):
        simulate_motion(B, [(0.0, 6.0), (0.0, -6.0)], [(1.0, 0.0)])
    with pytest.raises(InvalidShotError, match="velocity of disc 1 is not finite"):
        simulate_motion(B, [(0.0, 6.0), (0.0, -6.0)], [(1.0, 0.0), (math.nan, 0.0)])


def test_inputs_are_left_unchanged() -> None:
    discs = np.array([[0.0, -6.0], [3.0, 6.0]])
    copy = discs.copy()
    simulate_shot(B, discs, OK_LAUNCH)
    simulate_batch(B, discs, np.array([[0.0, -12.0, 0.0, 40.0]]))
    assert np.array_equal(discs, copy)


def test_trajectory_queries_check_their_arguments() -> None:
    result = simulate_shot(B, [], OK_LAUNCH)
    with pytest.raises(InvalidShotError, match="disc index 3 out of range"):
        result.position_at(3, 0.1)
    with pytest.raises(InvalidShotError, match="time must be a finite"):
        result.position_at(0, math.nan)


def test_a_shot_needs_a_launch() -> None:
    with pytest.raises(InvalidShotError, match="from a Launch"):
        simulate_shot(B, [], (0.0, -12.0, 0.0, 40.0))  # type: ignore[arg-type]
