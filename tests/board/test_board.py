"""Board geometry against BOARD.md and the rules' line conventions (R1, R3, R6)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from crokinole.board import TOURNAMENT_BOARD, Board, Point, Seat, Shot, Zone
from crokinole.errors import (
    CrokinoleError,
    InvalidBoardError,
    InvalidPositionError,
    InvalidShotError,
)

B = TOURNAMENT_BOARD
R = 0.625  # disc radius from BOARD.md
HALF_LINE = 0.0625 / 2


def test_defaults_are_the_tournament_board() -> None:
    # R1: figures of BOARD.md, in inches.
    assert B.surface_radius == 13.0
    assert B.shooting_line_radius == 12.0
    assert B.ten_radius == 8.0
    assert B.fifteen_radius == 4.0
    assert B.hole_radius == 1.375 / 2
    assert B.peg_radius == 0.375 / 2
    assert B.disc_radius == R
    assert B.restitution_disc == 0.9
    assert B.restitution_peg == 0.7
    assert B.max_launch_speed == 120.0
    assert B.deceleration == pytest.approx(0.12 * 386.0886, rel=1e-4)


def test_pegs_stand_on_the_fifteen_circle_in_the_gaps_of_the_seats() -> None:
    # R1: eight pegs at 22.5° + k·45°; each seat's centreline falls in a gap.
    assert len(B.pegs) == 8
    for k, peg in enumerate(B.pegs):
        assert peg.norm() == pytest.approx(4.0)
        assert math.degrees(math.atan2(peg.y, peg.x)) % 360 == pytest.approx((22.5 + 45 * k) % 360)
    for seat in Seat:
        gap = min(abs((seat.value - a + 180) % 360 - 180) for a in B.peg_angles)
        assert gap == pytest.approx(22.5)


@pytest.mark.parametrize(
    ("rim", "zone"),
    [
        # R6: judged by the rim; a disc touching a line takes the lower value.
        (4.0 - HALF_LINE - 1e-6, Zone.FIFTEEN),
        (4.0 - HALF_LINE + 1e-6, Zone.TEN),
        (8.0 - HALF_LINE - 1e-6, Zone.TEN),
        (8.0 - HALF_LINE + 1e-6, Zone.FIVE),
        (12.0 - HALF_LINE - 1e-6, Zone.FIVE),
        (12.0 - HALF_LINE + 1e-6, Zone.OUT),  # R5: touching the shooting line is out
        (12.9, Zone.OUT),
    ],
)
def test_zone_by_rim(rim: float, zone: Zone) -> None:
    for angle in (0.0, 1.0, 4.0):
        centre = Point((rim - R) * math.cos(angle), (rim - R) * math.sin(angle))
        assert B.zone_of(centre) is zone


def test_disc_over_hole_is_a_twenty_and_a_hanger_is_a_fifteen() -> None:
    # R5: a disc whose centre is over the hole drops; a hanger scores 15.
    assert B.zone_of(Point(0.3, 0.0)) is Zone.TWENTY
    assert B.zone_of(Point(0.0, 0.7)) is Zone.FIFTEEN


def test_touching_the_fifteen_circle_from_outside() -> None:
    # R4: touching the 15 line makes an open-board shot valid (while scoring 10).
    near_edge = 4.0 + HALF_LINE
    assert B.touches_fifteen_circle(Point(0.0, near_edge + R - 1e-9))
    assert not B.touches_fifteen_circle(Point(0.0, near_edge + R + 1e-6))
    assert B.zone_of(Point(0.0, near_edge + R - 1e-9)) is Zone.TEN


def test_placement_range_stops_where_the_disc_touches_the_quadrant_line() -> None:
    # R3: slide along the line up to where the disc touches a quadrant line.
    limit = B.placement_limit
    for seat in Seat:
        p = B.placement(seat, limit)
        line_angle = math.radians(seat.value + 45.0)
        # Distance from the disc centre to the radial quadrant line.
        dist = abs(p.x * math.sin(line_angle) - p.y * math.cos(line_angle))
        assert dist == pytest.approx(R + HALF_LINE, abs=1e-12)
        assert p.norm() == pytest.approx(12.0)
    with pytest.raises(InvalidShotError, match="beyond the quadrant line"):
        B.placement(Seat.SOUTH, limit + 0.01)


def test_position_and_direction_follow_the_shooters_right_hand() -> None:
    # South faces north: its right is east (+x).
    p = B.placement(Seat.SOUTH, 10.0)
    assert p.x > 0 and p.y < 0
    launch = B.launch(Seat.SOUTH, Shot(position=0.0, direction=10.0, power=50.0))
    assert launch.vx > 0 and launch.vy > 0
    assert math.degrees(math.atan2(launch.vx, launch.vy)) == pytest.approx(10.0)
    # North faces south: its right is west (-x).
    assert B.placement(Seat.NORTH, 10.0).x < 0
    assert launch.speed == pytest.approx(60.0)


def test_direction_zero_aims_at_the_centre_from_anywhere_on_the_line() -> None:
    for seat in Seat:
        for pos in (-30.0, 0.0, 25.0):
            lo = B.launch(seat, Shot(pos, 0.0, 100.0))
            # velocity parallel to -position
            assert lo.x * lo.vy - lo.y * lo.vx == pytest.approx(0.0, abs=1e-9)
            assert lo.x * lo.vx + lo.y * lo.vy < 0


def test_vectorised_launches_match_single_launches() -> None:
    positions = np.array([-20.0, 0.0, 33.0])
    directions = np.array([5.0, -12.0, 0.0])
    powers = np.array([10.0, 55.0, 100.0])
    arr = B.launches(Seat.WEST, positions, directions, powers)
    for k in range(3):
        lo = B.launch(Seat.WEST, Shot(positions[k], directions[k], powers[k]))
        assert arr[k].tolist() == pytest.approx([lo.x, lo.y, lo.vx, lo.vy], abs=1e-12)


@pytest.mark.parametrize(
    ("shot", "message"),
    [
        # The value is quoted as given, never rounded to the limit.
        (Shot(0.0, 0.0, -1.0), r"^power -1.0% must lie between 0% and 100%$"),
        (Shot(0.0, 0.0, 100.0001), r"^power 100.0001% must lie between 0% and 100%$"),
        (Shot(0.0, 0.0, np.float32(100.5)), r"^power 100.5% must lie"),
        (Shot(0.0, 0.0, 101), r"^power 101% must lie"),
        (Shot(0.0, 0.0, math.nan), r"^power must be a finite number of percent, got nan$"),
        (Shot(0.0, math.inf, 50.0), r"^direction must be a finite number of degrees, got inf$"),
        (Shot(0.0, 180.00001, 50.0), r"^direction 180.00001° must lie between -180° and 180°$"),
        (Shot(math.nan, 0.0, 50.0), "position must be a finite number"),
        (Shot(41.9, 0.0, 50.0), r"^position 41.9° is beyond the quadrant line of south's"),
    ],
)
def test_bad_shots_are_refused_with_a_plain_message(shot: Shot, message: str) -> None:
    with pytest.raises(InvalidShotError, match=message) as info:
        B.launch(Seat.SOUTH, shot)
    assert isinstance(info.value, CrokinoleError)
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize(
    "number",
    [np.float32, np.float64, np.float16, np.int64, np.int32, np.uint8, int, float],
)
def test_every_real_number_type_is_a_number(number: type) -> None:
    # A shot built from numpy scalars (e.g. a CPU player's arrays) is the same
    # shot as one built from Python floats holding the same values.
    values = (number(10), number(5), number(50))
    expected = B.launch(Seat.WEST, Shot(*(float(v) for v in values)))
    assert B.launch(Seat.WEST, Shot(*values)) == expected
    assert B.launch_speed(number(50)) == 60.0


def test_bad_vectorised_shot_names_its_index() -> None:
    with pytest.raises(InvalidShotError, match=r"^shot 1: power must lie in 0–100%, got -5.0$"):
        B.launches(Seat.SOUTH, [0.0, 0.0], [0.0, 0.0], [50.0, -5.0])
    with pytest.raises(InvalidShotError, match=r"^shot 0: power must lie in 0–100%, got 100.5$"):
        B.launches(Seat.SOUTH, 0.0, 0.0, np.array([100.5], dtype=np.float32))
    with pytest.raises(InvalidShotError, match=r"^shot 2: direction must be a finite number"):
        B.launches(Seat.SOUTH, 0.0, [0.0, 1.0, math.nan], 50.0)
    for bad in ([True], ["50"], [None]):
        with pytest.raises(InvalidShotError, match="powers must be real numbers"):
            B.launches(Seat.SOUTH, [0.0], [0.0], bad)
    # A bool among numbers is refused too (numpy alone would read it as 1.0),
    # and so is a ragged list.
    with pytest.raises(InvalidShotError, match=r"^powers must be real numbers, got \[True, 50.0\]"):
        B.launches(Seat.SOUTH, [0.0, 0.0], [0.0, 0.0], [True, 50.0])
    with pytest.raises(InvalidShotError, match="directions must be real numbers"):
        B.launches(Seat.SOUTH, 0.0, [[0.0], [0.0, 1.0]], 50.0)


def test_a_board_accepts_numpy_numbers_and_stays_a_plain_value() -> None:
    board = Board(disc_radius=np.float32(0.625), peg_count=np.int64(8))
    assert board == B
    assert type(board.disc_radius) is float and type(board.peg_count) is int


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"disc_radius": -1.0}, "disc_radius must be a positive number"),
        ({"restitution_disc": 1.5}, "restitution_disc must lie in"),
        ({"fifteen_radius": 9.0}, "circles must grow outwards"),
        ({"deceleration": math.nan}, "deceleration must be a positive number, got nan"),
        ({"disc_radius": "big"}, "disc_radius must be a number, got 'big'"),
        ({"disc_radius": True}, "disc_radius must be a number, got True"),
        ({"peg_count": 8.0}, "peg_count must be a whole number, got 8.0"),
    ],
)
def test_impossible_boards_are_refused(kwargs: dict[str, float], message: str) -> None:
    with pytest.raises(InvalidBoardError, match=message):
        Board(**kwargs)  # type: ignore[arg-type]


def test_hole_drop_time_is_free_fall_over_the_depth() -> None:
    g = 9.80665 / 0.0254
    assert B.hole_drop_time == pytest.approx(math.sqrt(2 * 0.24 / g))


def test_seats_go_clockwise() -> None:
    # R2: south, west, north, east.
    order = [Seat.SOUTH]
    for _ in range(3):
        order.append(order[-1].next_clockwise)
    assert order == [Seat.SOUTH, Seat.WEST, Seat.NORTH, Seat.EAST]
    assert Seat.EAST.next_clockwise is Seat.SOUTH


def test_zone_of_a_point_that_is_not_a_number_is_refused() -> None:
    with pytest.raises(InvalidPositionError, match="finite"):
        B.zone_of(Point(math.nan, 0.0))


@pytest.mark.parametrize("bad", ["50", None, True, np.bool_(True), [1.0]])
def test_shot_values_must_be_numbers(bad: object) -> None:
    for shot in (Shot(bad, 0.0, 50.0), Shot(0.0, bad, 50.0), Shot(0.0, 0.0, bad)):  # type: ignore[arg-type]
        with pytest.raises(InvalidShotError, match="must be a number"):
            B.launch(Seat.SOUTH, shot)
