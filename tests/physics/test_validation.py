"""Bad input is refused before anything is simulated, with a message naming the value."""

from __future__ import annotations

import math
import re
from fractions import Fraction

import numpy as np
import pytest

from crokinole.board import TOURNAMENT_BOARD, Launch, Point
from crokinole.errors import (
    CrokinoleError,
    InvalidPositionError,
    InvalidShotError,
    SimulationError,
)
from crokinole.physics import (
    MAX_LAUNCH_SPEED,
    DiscStatus,
    simulate,
    simulate_batch,
    simulate_motion,
    simulate_shot,
)

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
    with pytest.raises(
        InvalidShotError, match=r"velocity of disc 1 \(nan, 0.0\) in/s is not a finite"
    ):
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


# --------------------------------------------------------------- launch speed


def test_the_maximum_speed_is_far_above_full_power() -> None:
    assert 100 * B.max_launch_speed <= MAX_LAUNCH_SPEED


@pytest.mark.parametrize(
    ("vy", "quoted"),
    [
        (1e156, "1e+156"),  # squared, it overflowed: the simulator broke
        (1e308, "1e+308"),  # a disc passed through another
        (math.nextafter(MAX_LAUNCH_SPEED, math.inf), "100000.00000000001"),
    ],
)
def test_launches_faster_than_the_maximum_are_refused_quoting_the_value(
    vy: float, quoted: str
) -> None:
    launch = Launch(0.0, -12.0, 0.0, vy)
    message = re.escape(f"launch velocity (0.0, {quoted}) in/s is faster than")
    with pytest.raises(InvalidShotError, match=message):
        simulate_shot(B, [(0.0, -6.0)], launch)
    with pytest.raises(InvalidShotError, match=re.escape(f"launch 1 (0.0, {quoted}) in/s")):
        simulate_batch(B, [(0.0, 6.0)], np.array([[0.0, -12.0, 0.0, 40.0], [0.0, -12.0, 0.0, vy]]))
    with pytest.raises(InvalidShotError, match=re.escape(f"velocity of disc 0 (0.0, {quoted})")):
        simulate_motion(B, [(0.0, -11.0)], [(0.0, vy)])


def test_an_infinite_speed_or_one_that_overflows_is_refused() -> None:
    with pytest.raises(InvalidShotError, match="launch vy must be a finite number, got inf"):
        simulate_shot(B, [], Launch(0.0, -12.0, 0.0, math.inf))
    # Each component is finite, the speed is not (hypot overflows).
    with pytest.raises(InvalidShotError, match=r"\(1e\+308, 1e\+308\) in/s is faster"):
        simulate_shot(B, [], Launch(0.0, -12.0, 1e308, 1e308))
    with pytest.raises(InvalidShotError, match=r"launch 0 .* not a finite velocity"):
        simulate_batch(B, [], np.array([[0.0, -12.0, 0.0, math.inf]]))


def test_the_maximum_itself_and_just_below_are_played() -> None:
    # A disc at the maximum speed hits a disc in its path (no tunnelling) and
    # both leave the board.
    for speed in (MAX_LAUNCH_SPEED, math.nextafter(MAX_LAUNCH_SPEED, 0.0)):
        result = simulate_shot(B, [(0.0, -6.0)], Launch(0.0, -12.0, 0.0, speed))
        assert (result.contacts[0].disc, result.contacts[0].other) == (1, 0)
        assert [d.status for d in result.discs] == [DiscStatus.IN_DITCH] * 2
        batch = simulate_batch(B, [(0.0, -6.0)], np.array([[0.0, -12.0, 0.0, speed]]))
        assert np.array_equal(batch.positions[0], result.final_array)


# -------------------------------------------------------------------- numbers


def test_numpy_and_other_real_number_types_are_numbers() -> None:
    plain = simulate_shot(B, [(0.0, -6.0), (3.0, 6.0)], Launch(0.0, -12.0, 0.0, 40.0))
    launches = [
        Launch(np.float32(0.0), np.float32(-12.0), np.int64(0), np.float32(40.0)),  # type: ignore[arg-type]
        Launch(np.int32(0), Fraction(-12), np.float64(0.0), np.uint8(40)),  # type: ignore[arg-type]
    ]
    discs = [
        [(np.float32(0.0), np.int64(-6)), (np.int16(3), np.float32(6.0))],
        [Point(np.float32(0.0), np.float32(-6.0)), Point(Fraction(3), np.int8(6))],  # type: ignore[arg-type]
        np.array([[0, -6], [3, 6]], dtype=np.int32),
        np.array([[0.0, -6.0], [3.0, 6.0]], dtype=np.float32),
    ]
    for launch in launches:
        for position in discs:
            result = simulate_shot(B, position, launch)  # type: ignore[arg-type]
            assert np.array_equal(result.final_array, plain.final_array)
    motion = simulate_motion(B, [(0.0, -11.0)], np.array([[0, 40]], dtype=np.int64))
    assert motion.discs[0].moved
    rows = np.array([[0.0, -12.0, 0.0, 40.0]], dtype=np.float32)
    batch = simulate_batch(B, np.array([[0.0, -6.0], [3.0, 6.0]]), rows)
    assert np.array_equal(batch.positions[0], plain.final_array)
    # Trajectory queries take numpy indices and times too.
    t = plain.contacts[0].time
    assert plain.position_at(np.int64(1), np.float32(0.25)) == plain.position_at(1, 0.25)  # type: ignore[arg-type]
    assert plain.on_board_at(np.int32(0), t) is True  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: simulate_shot(B, [], Launch(0.0, -12.0, 0.0, True)),
            "launch vy must be a number, got True",
        ),  # type: ignore[arg-type]
        (
            lambda: simulate_shot(B, [], Launch("0", -12.0, 0.0, 4.0)),
            "launch x must be a number, got '0'",
        ),  # type: ignore[arg-type]
        (lambda: simulate_shot(B, [(True, 6.0)], OK_LAUNCH), "disc 0 has True"),  # type: ignore[list-item]
        (lambda: simulate_shot(B, [("1.5", 6.0)], OK_LAUNCH), "disc 0 has '1.5'"),  # type: ignore[list-item]
        (lambda: simulate_shot(B, np.array([[True, False]]), OK_LAUNCH), "array of bool"),
        (lambda: simulate_batch(B, [], [[0.0, -12.0, 0.0, "40"]]), "launches must be real numbers"),
        (
            lambda: simulate_batch(B, [], np.ones((1, 4), dtype=bool)),
            "launches must be real numbers",
        ),
        (
            lambda: simulate_motion(B, [(0.0, 6.0)], [(False, 1.0)]),
            "velocities must be real numbers",
        ),
        (
            lambda: simulate_shot(B, [], OK_LAUNCH).position_at(True, 0.1),
            "disc index must be a whole number, got True",
        ),  # type: ignore[arg-type]
        (
            lambda: simulate_shot(B, [], OK_LAUNCH).position_at(0, "0.1"),
            "time must be a number of seconds, got '0.1'",
        ),  # type: ignore[arg-type]
    ],
)
def test_bools_and_text_are_not_numbers(call: object, message: str) -> None:
    with pytest.raises((InvalidShotError, InvalidPositionError), match=re.escape(message)):
        call()  # type: ignore[operator]


def test_messages_quote_the_value_as_given() -> None:
    # float32 0.1 reads 0.1, not 0.10000000149011612; a huge speed reads as typed.
    with pytest.raises(InvalidShotError, match=re.escape("(0.1, 200000.0) in/s")):
        simulate_shot(B, [], Launch(0.0, -12.0, np.float32(0.1), 2e5))  # type: ignore[arg-type]
    with pytest.raises(InvalidShotError, match="launch vx must be a finite number, got nan"):
        simulate_shot(B, [], Launch(0.0, -12.0, np.float32("nan"), 2.0))  # type: ignore[arg-type]


def test_reaching_the_event_cap_raises_and_names_the_shot(monkeypatch: pytest.MonkeyPatch) -> None:
    # The seam shot needs a launch, two simultaneous contacts and stops: more
    # than 3 events.  With the cap at 3 it is refused, never cut short.
    r = B.disc_radius
    discs = [(-r, -6.0), (r, -6.0)]
    launch = Launch(0.0, -12.0, 0.0, 60.0)
    full = simulate_shot(B, discs, launch)
    assert len(full.events) > 3
    monkeypatch.setattr(simulate, "MAX_EVENTS", 3)
    with pytest.raises(SimulationError, match="more than 3 events; nothing was changed"):
        simulate_shot(B, discs, launch)
    rows = np.array([[0.0, -12.0, 0.0, 0.0], [0.0, -12.0, 0.0, 60.0]])
    with pytest.raises(SimulationError, match=r"launch 1 .* more than 3 events"):
        simulate_batch(B, discs, rows)
