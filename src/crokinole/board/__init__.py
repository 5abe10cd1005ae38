"""Board geometry: one frozen value built from ``BOARD.md``, zones, pegs, seats, placement.

Every other module reads dimensions and physical constants from a :class:`Board`;
no length or constant is written anywhere else.  Lengths are in inches, times
in seconds, speeds in inches per second, as in ``BOARD.md``.

Coordinates: the centre of the board is the origin, x points east, y points
north.  Angles on the board are measured counter-clockwise from the east axis
in degrees.  Seats sit clockwise south, west, north, east.

A shot, seen from its shooter (R3): ``position`` is the angle in degrees along
the shooting line from the middle of the seat's quarter, positive to the
shooter's right; ``direction`` is the angle in degrees between the aim and the
line to the centre, positive turning to the shooter's right; ``power`` is a
percentage of :attr:`Board.max_launch_speed`.

>>> from crokinole.board import TOURNAMENT_BOARD as board, Seat, Shot, Zone
>>> board.zone_of(Point(0.0, 2.0))
<Zone.FIFTEEN: 15>
>>> board.zone_of(Point(0.0, 3.4))   # the rim touches the 15 line: the lower value (R6)
<Zone.TEN: 10>
>>> launch = board.launch(Seat.SOUTH, Shot(position=0.0, direction=0.0, power=50.0))
>>> (round(launch.y, 9), round(launch.vy, 9), abs(launch.x) < 1e-12, abs(launch.vx) < 1e-12)
(-12.0, 60.0, True, True)
"""

from __future__ import annotations

import itertools
import math
import numbers
from dataclasses import dataclass
from enum import Enum

import numpy as np
import numpy.typing as npt

from crokinole.errors import (
    InvalidBoardError,
    InvalidPositionError,
    InvalidShotError,
    UnknownSeatError,
)

FloatArray = npt.NDArray[np.float64]

#: Standard gravity in inches per second squared (9.80665 m/s²).
GRAVITY_IN_PER_S2 = 9.80665 / 0.0254


@dataclass(frozen=True, slots=True)
class Point:
    """A point on the board in inches (origin at the centre, y north).

    >>> p = Point(3.0, 4.0)
    >>> p.norm()
    5.0
    >>> p.distance_to(Point(0.0, 0.0))
    5.0
    """

    x: float
    y: float

    def norm(self) -> float:
        """Distance from the centre of the board."""
        return math.hypot(self.x, self.y)

    def distance_to(self, other: Point) -> float:
        """Distance between two points."""
        return math.hypot(self.x - other.x, self.y - other.y)


class Zone(Enum):
    """Scoring zone of a disc (R6), with its value in points."""

    TWENTY = 20
    FIFTEEN = 15
    TEN = 10
    FIVE = 5
    OUT = 0


class Seat(Enum):
    """A seat at the board; the value is the angle (degrees) of its quarter's middle.

    Seats go clockwise: south, west, north, east (R2).
    """

    SOUTH = 270.0
    WEST = 180.0
    NORTH = 90.0
    EAST = 0.0

    @property
    def next_clockwise(self) -> Seat:
        """The seat to the left of this one, next in turn order.

        >>> Seat.SOUTH.next_clockwise
        <Seat.WEST: 180.0>
        """
        order = _CLOCKWISE
        return order[(order.index(self) + 1) % len(order)]

    @property
    def key(self) -> str:
        """The seat's name on the wire, in records and in URLs.

        >>> Seat.NORTH.key
        'north'
        """
        return self.name.lower()

    @property
    def title(self) -> str:
        """The seat's name for people.

        >>> Seat.NORTH.title
        'North'
        """
        return self.name.title()

    @classmethod
    def parse(cls, text: object) -> Seat:
        """The seat named ``text`` (any case), or a plain error naming the four.

        >>> Seat.parse("West")
        <Seat.WEST: 180.0>
        >>> Seat.parse("up")
        Traceback (most recent call last):
        ...
        crokinole.errors.UnknownSeatError: 'up' is not a seat: south, west, north or east
        """
        if isinstance(text, str):
            seat = _BY_KEY.get(text.strip().lower())
            if seat is not None:
                return seat
        raise UnknownSeatError(f"{text!r} is not a seat: south, west, north or east")


_CLOCKWISE = (Seat.SOUTH, Seat.WEST, Seat.NORTH, Seat.EAST)
_BY_KEY = {seat.key: seat for seat in Seat}


@dataclass(frozen=True, slots=True)
class Shot:
    """What a shooter chooses (R3): where on the line, which way, how hard.

    Attributes:
        position: degrees along the shooting line from the middle of the
            seat's quarter, positive to the shooter's right.
        direction: degrees between the aim and the line to the centre,
            positive turning to the shooter's right.
        power: percent of the board's full launch speed, 0 to 100.
    """

    position: float = 0.0
    direction: float = 0.0
    power: float = 0.0


@dataclass(frozen=True, slots=True)
class Launch:
    """A disc's start point and velocity: what the simulator is given.

    Attributes:
        x: start x in inches.
        y: start y in inches.
        vx: velocity x in inches per second.
        vy: velocity y in inches per second.
    """

    x: float
    y: float
    vx: float
    vy: float

    @property
    def speed(self) -> float:
        """Launch speed in inches per second."""
        return math.hypot(self.vx, self.vy)


@dataclass(frozen=True, slots=True)
class Board:
    """The board, the discs and the physical constants (``BOARD.md``).

    The defaults describe the tournament (NCA) board.  A disc or line
    "touches" when a disc's rim reaches the line's near edge, so each circle
    is a band ``line_width`` wide centred on its radius.

    Attributes:
        surface_radius: radius of the playing surface; a disc whose centre
            passes it falls into the ditch.
        shooting_line_radius: the outer (5/out) circle, where discs are placed.
        ten_radius: the 10/5 circle.
        fifteen_radius: the 15/10 circle, on which the pegs stand.
        hole_radius: radius of the 20 hole.
        hole_depth: depth of the 20 hole (the drop model uses it).
        line_width: width of every drawn line.
        peg_radius: radius of a peg.
        peg_count: number of pegs, evenly spaced on the 15 circle.
        peg_angle_offset: angle in degrees of the first peg from the east axis.
        ditch_width: width of the ditch around the surface.
        disc_radius: radius of a disc.
        disc_thickness: thickness of a disc.
        disc_mass: mass of a disc in kilograms (all equal).
        deceleration: sliding deceleration in in/s² (Coulomb friction).
        restitution_disc: coefficient of restitution disc–disc.
        restitution_peg: coefficient of restitution disc–peg.
        max_launch_speed: launch speed at 100% power in in/s.
        gravity: gravitational acceleration in in/s² (the hole drop model).
    """

    surface_radius: float = 13.0
    shooting_line_radius: float = 12.0
    ten_radius: float = 8.0
    fifteen_radius: float = 4.0
    hole_radius: float = 0.6875
    hole_depth: float = 0.24
    line_width: float = 0.0625
    peg_radius: float = 0.1875
    peg_count: int = 8
    peg_angle_offset: float = 22.5
    ditch_width: float = 2.0
    disc_radius: float = 0.625
    disc_thickness: float = 0.375
    disc_mass: float = 0.0056
    deceleration: float = 0.12 * GRAVITY_IN_PER_S2
    restitution_disc: float = 0.90
    restitution_peg: float = 0.70
    max_launch_speed: float = 120.0
    gravity: float = GRAVITY_IN_PER_S2

    def __post_init__(self) -> None:
        self._store_numbers()
        self._check_values()
        self._check_geometry()

    def _store_numbers(self) -> None:
        # Any real number type is accepted (numpy scalars included) and stored
        # as a float, so the board is a plain value that JSON can write.
        for name in self.__dataclass_fields__:
            value = getattr(self, name)
            if name == "peg_count":
                if not is_whole_number(value):
                    raise InvalidBoardError(
                        f"board peg_count must be a whole number, got {value!r}"
                    )
                object.__setattr__(self, name, int(value))
            elif not is_real_number(value):
                raise InvalidBoardError(f"board {name} must be a number, got {value!r}")
            else:
                object.__setattr__(self, name, float(value))

    def _check_values(self) -> None:
        """Each dimension and constant in its range."""
        positive = (
            "surface_radius",
            "shooting_line_radius",
            "ten_radius",
            "fifteen_radius",
            "hole_radius",
            "hole_depth",
            "peg_radius",
            "disc_radius",
            "disc_thickness",
            "disc_mass",
            "deceleration",
            "max_launch_speed",
            "gravity",
        )
        for name in positive:
            value = getattr(self, name)
            if not (math.isfinite(value) and value > 0):
                raise InvalidBoardError(
                    f"board {name} must be a positive number, got {quote_number(value)}"
                )
        for name in ("restitution_disc", "restitution_peg"):
            value = getattr(self, name)
            if not (math.isfinite(value) and 0.0 <= value <= 1.0):
                raise InvalidBoardError(
                    f"board {name} must lie in [0, 1], got {quote_number(value)}"
                )
        if not (math.isfinite(self.line_width) and self.line_width >= 0):
            raise InvalidBoardError(
                f"board line_width must be >= 0, got {quote_number(self.line_width)}"
            )
        if self.peg_count < 0:
            raise InvalidBoardError(f"board peg_count must be >= 0, got {self.peg_count}")

    def _check_geometry(self) -> None:
        """The circles in order, and room for a disc on the shooting line."""
        order = (
            self.hole_radius,
            self.fifteen_radius,
            self.ten_radius,
            self.shooting_line_radius,
            self.surface_radius,
        )
        if any(a >= b for a, b in itertools.pairwise(order)):
            raise InvalidBoardError(
                "board circles must grow outwards: hole < 15 < 10 < shooting line < surface, "
                f"got {order!r}"
            )
        if self.shooting_line_radius + self.disc_radius > self.surface_radius:
            raise InvalidBoardError(
                "a disc placed on the shooting line must lie on the surface: "
                f"{self.shooting_line_radius} + {self.disc_radius} > {self.surface_radius}"
            )
        if self.placement_limit <= 0:
            raise InvalidBoardError("a disc does not fit between the quadrant lines")

    # ----------------------------------------------------------------- pegs

    @property
    def peg_angles(self) -> tuple[float, ...]:
        """Angles (degrees from east, counter-clockwise) of the pegs."""
        step = 360.0 / self.peg_count if self.peg_count else 0.0
        return tuple(self.peg_angle_offset + k * step for k in range(self.peg_count))

    @property
    def pegs(self) -> tuple[Point, ...]:
        """Centres of the pegs, on the 15 circle.

        >>> [round(p.x, 3) for p in TOURNAMENT_BOARD.pegs[:2]]
        [3.696, 1.531]
        """
        r = self.fifteen_radius
        return tuple(
            Point(r * math.cos(math.radians(a)), r * math.sin(math.radians(a)))
            for a in self.peg_angles
        )

    def peg_array(self) -> FloatArray:
        """Peg centres as a ``(peg_count, 2)`` float array (for kernels)."""
        return np.array([(p.x, p.y) for p in self.pegs], dtype=np.float64).reshape(-1, 2)

    # ---------------------------------------------------------------- zones

    @property
    def hole_drop_time(self) -> float:
        """Seconds a disc needs to fall the hole's depth from rest: sqrt(2 h / g)."""
        return math.sqrt(2.0 * self.hole_depth / self.gravity)

    def zone_of(self, centre: Point) -> Zone:
        """Scoring zone of a disc at rest with this centre, judged by its rim (R6).

        A disc touching a line takes the lower value; a disc whose centre is
        over the hole is in the hole (it drops).  A disc touching or beyond the
        shooting line is out.

        >>> TOURNAMENT_BOARD.zone_of(Point(0.0, 11.5))
        <Zone.OUT: 0>
        >>> TOURNAMENT_BOARD.zone_of(Point(0.0, 11.0))
        <Zone.FIVE: 5>
        """
        d = _finite_norm(centre)
        if d < self.hole_radius:
            return Zone.TWENTY
        rim = d + self.disc_radius
        half = self.line_width / 2.0
        if rim < self.fifteen_radius - half:
            return Zone.FIFTEEN
        if rim < self.ten_radius - half:
            return Zone.TEN
        if rim < self.shooting_line_radius - half:
            return Zone.FIVE
        return Zone.OUT

    def touches_fifteen_circle(self, centre: Point) -> bool:
        """Whether a disc at ``centre`` touches or lies inside the 15 circle (R4).

        >>> TOURNAMENT_BOARD.touches_fifteen_circle(Point(0.0, 4.65))
        True
        >>> TOURNAMENT_BOARD.touches_fifteen_circle(Point(0.0, 4.7))
        False
        """
        return (
            _finite_norm(centre) - self.disc_radius <= self.fifteen_radius + self.line_width / 2.0
        )

    def is_out(self, centre: Point) -> bool:
        """Whether a disc at rest here touches or lies beyond the shooting line (R5)."""
        return self.zone_of(centre) is Zone.OUT

    def on_surface(self, centre: Point) -> bool:
        """Whether a disc centred here is on the playing surface (not in the ditch)."""
        return _finite_norm(centre) <= self.surface_radius

    # ------------------------------------------------------------ placement

    @property
    def placement_limit(self) -> float:
        """Largest |position| in degrees: the disc then touches a quadrant line (R3).

        A quadrant line is radial, so a disc centred on the shooting line at an
        angle ``delta`` from it is ``R sin(delta)`` from the line's middle; it
        touches the line when that equals the disc radius plus half the width.

        >>> round(TOURNAMENT_BOARD.placement_limit, 3)
        41.865
        """
        reach = (self.disc_radius + self.line_width / 2.0) / self.shooting_line_radius
        if reach >= 1.0:
            return 0.0
        return 45.0 - math.degrees(math.asin(reach))

    def quarter(self, seat: Seat) -> tuple[float, float]:
        """The seat's quarter of the shooting line, as (start, end) angles in degrees.

        The quarter runs between two quadrant lines, counter-clockwise from
        ``start`` to ``end``; placements stay :attr:`placement_limit` inside it.

        >>> TOURNAMENT_BOARD.quarter(Seat.SOUTH)
        (225.0, 315.0)
        """
        return (seat.value - 45.0, seat.value + 45.0)

    def placement(self, seat: Seat, position: float) -> Point:
        """Centre of a disc placed on ``seat``'s quarter of the shooting line.

        Raises:
            InvalidShotError: the position is not a number or lies beyond the
                quadrant lines.

        >>> p = TOURNAMENT_BOARD.placement(Seat.NORTH, 0.0)
        >>> (round(p.x, 9), p.y)
        (0.0, 12.0)
        """
        limit = self.placement_limit
        given = position
        position = _finite("position", "degrees", position)
        if abs(position) > limit + 1e-9:
            raise InvalidShotError(
                f"position {quote_number(given)}° is beyond the quadrant line of "
                f"{seat.key}'s quarter (allowed -{limit:.2f}° to {limit:.2f}°)"
            )
        angle = math.radians(seat.value + position)
        r = self.shooting_line_radius
        return Point(r * math.cos(angle), r * math.sin(angle))

    def launch(self, seat: Seat, shot: Shot) -> Launch:
        """Start point and velocity of ``shot`` played from ``seat`` (R3).

        Raises:
            InvalidShotError: position, direction or power out of range or not a number.
        """
        start = self.placement(seat, shot.position)
        direction = _finite("direction", "degrees", shot.direction)
        if not -180.0 <= direction <= 180.0:
            raise InvalidShotError(
                f"direction {quote_number(shot.direction)}° must lie between -180° and 180°"
            )
        speed = self.launch_speed(shot.power)
        # Aim at the centre, then turn clockwise (to the shooter's right) by `direction`.
        inward = math.atan2(-start.y, -start.x) - math.radians(direction)
        return Launch(start.x, start.y, speed * math.cos(inward), speed * math.sin(inward))

    def launch_speed(self, power: float) -> float:
        """Launch speed in in/s for a power in percent (linear, 100% = max speed).

        >>> TOURNAMENT_BOARD.launch_speed(25.0)
        30.0
        """
        value = _finite("power", "percent", power)
        if not 0.0 <= value <= 100.0:
            raise InvalidShotError(f"power {quote_number(power)}% must lie between 0% and 100%")
        return self.max_launch_speed * value / 100.0

    def launches(
        self,
        seat: Seat,
        positions: npt.ArrayLike,
        directions: npt.ArrayLike,
        powers: npt.ArrayLike,
    ) -> FloatArray:
        """Vectorised :meth:`launch`: a ``(K, 4)`` array of ``x, y, vx, vy`` rows.

        Raises:
            InvalidShotError: any value out of range; the message names the first.

        >>> TOURNAMENT_BOARD.launches(Seat.SOUTH, [0.0, 10.0], [0.0, -5.0], [50, 100]).shape
        (2, 4)
        """
        given = np.broadcast_arrays(
            _real_array("position", positions),
            _real_array("direction", directions),
            _real_array("power", powers),
        )
        pos, dirs, pw = (np.asarray(g, dtype=np.float64).ravel() for g in given)
        limit = self.placement_limit
        checks = (
            ("position", pos, ~(np.abs(pos) <= limit + 1e-9), f"must lie in ±{limit:.2f}°"),
            ("direction", dirs, ~(np.abs(dirs) <= 180.0), "must lie in ±180°"),
            ("power", pw, ~((pw >= 0.0) & (pw <= 100.0)), "must lie in 0–100%"),
        )
        for (name, values, bad, why), raw in zip(checks, given, strict=True):
            if bad.any():
                k = int(np.argmax(bad))
                shown = quote_number(raw.ravel()[k])
                problem = why if math.isfinite(values[k]) else "must be a finite number"
                raise InvalidShotError(f"shot {k}: {name} {problem}, got {shown}")
        angle = np.radians(seat.value + pos)
        r = self.shooting_line_radius
        x, y = r * np.cos(angle), r * np.sin(angle)
        inward = np.arctan2(-y, -x) - np.radians(dirs)
        speed = self.max_launch_speed * pw / 100.0
        return np.stack([x, y, speed * np.cos(inward), speed * np.sin(inward)], axis=1)


def is_real_number(value: object) -> bool:
    """Whether ``value`` is a real number of any type (numpy scalars included), not a bool.

    >>> is_real_number(np.float32(2.5)), is_real_number(np.int64(3)), is_real_number(True)
    (True, True, False)
    """
    return not isinstance(value, bool | np.bool_) and isinstance(value, numbers.Real)


def is_whole_number(value: object) -> bool:
    """Whether ``value`` is a whole number of any integer type (numpy's included), not a bool.

    >>> is_whole_number(np.int64(3)), is_whole_number(3.0), is_whole_number(np.True_)
    (True, False, False)
    """
    return not isinstance(value, bool | np.bool_) and isinstance(value, numbers.Integral)


def quote_number(value: object) -> str:
    """A number as the caller wrote it, for error messages.

    ``str`` rather than ``repr`` so numpy scalars read as plain numbers and a
    float keeps every digit it was given (``100.0001``, not a rounded ``100``).

    >>> quote_number(100.0001), quote_number(np.float32(0.1)), quote_number("50")
    ('100.0001', '0.1', "'50'")
    """
    return str(value) if is_real_number(value) else repr(value)


def _finite(name: str, unit: str, value: object) -> float:
    """``value`` as a float, or a plain error if it is not a finite real number."""
    if not is_real_number(value):
        raise InvalidShotError(f"{name} must be a number of {unit}, got {value!r}")
    number = float(value)  # type: ignore[arg-type]  # a numbers.Real converts
    if not math.isfinite(number):
        raise InvalidShotError(f"{name} must be a finite number of {unit}, got {value}")
    return number


def _real_array(name: str, values: npt.ArrayLike) -> npt.NDArray[np.generic]:
    """``values`` as an array of real numbers (bools, text and objects refused)."""
    try:
        array = np.asarray(values)
        if isinstance(values, np.ndarray) and array.dtype.kind in "iuf":
            return array  # the CPU players' candidate arrays: no per-item check
        # Anything else item by item: numpy would turn a bool among floats into 1.0.
        items = np.asarray(values, dtype=object).ravel()
    except ValueError:  # ragged lists
        raise InvalidShotError(f"{name}s must be real numbers, got {values!r}") from None
    if array.dtype.kind in "iufO" and all(is_real_number(v) for v in items):
        return array
    raise InvalidShotError(f"{name}s must be real numbers, got {values!r}")


def _finite_norm(centre: Point) -> float:
    d = centre.norm()
    if not math.isfinite(d):
        raise InvalidPositionError(f"a disc centre must be finite numbers, got {centre!r}")
    return d


#: The default board: the tournament (NCA) board of ``BOARD.md``.
TOURNAMENT_BOARD = Board()

__all__ = [
    "GRAVITY_IN_PER_S2",
    "TOURNAMENT_BOARD",
    "Board",
    "Launch",
    "Point",
    "Seat",
    "Shot",
    "Zone",
    "is_real_number",
    "is_whole_number",
    "quote_number",
]
