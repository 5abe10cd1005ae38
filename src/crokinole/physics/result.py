"""Value types of the simulator's output: disc outcomes, contacts, events, the trajectory.

The trajectory is exact: every disc's motion between two of its events is
``p(τ) = p0 + u (w τ − a τ² / 2)`` until it stops, so :meth:`ShotResult.position_at`
evaluates the closed form at any time instead of interpolating frames.
"""

from __future__ import annotations

import bisect
import math
import numbers
from dataclasses import dataclass, field
from enum import Enum, IntEnum
from functools import cached_property

import numpy as np
import numpy.typing as npt

from crokinole.board import Point, is_real_number
from crokinole.errors import InvalidShotError
from crokinole.physics import kernel

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


class DiscStatus(IntEnum):
    """Where a disc is after a shot.

    The values are the simulator's status codes, so a status compares
    directly with the status arrays (:attr:`ShotResult.status_array`,
    :attr:`BatchResult.statuses`):

    >>> import numpy as np
    >>> codes = np.array([0, 1, 2, 1], dtype=np.int8)
    >>> (codes == DiscStatus.IN_HOLE).tolist()
    [False, True, False, True]
    >>> DiscStatus(2), DiscStatus.IN_DITCH.label
    (<DiscStatus.IN_DITCH: 2>, 'in_ditch')
    """

    ON_BOARD = kernel.ON_BOARD
    IN_HOLE = kernel.IN_HOLE
    IN_DITCH = kernel.IN_DITCH

    @property
    def label(self) -> str:
        """The status as a lower-case word (``"on_board"``, ``"in_hole"``, ``"in_ditch"``)."""
        return self.name.lower()


class EventKind(Enum):
    """What happened to a disc at an event of the trajectory."""

    LAUNCH = kernel.LAUNCH
    STOP = kernel.STOP
    DISC_CONTACT = kernel.DISC
    PEG_CONTACT = kernel.PEG
    LINE_OUT = kernel.LINE_OUT
    LINE_IN = kernel.LINE_IN
    HOLE_ENTER = kernel.HOLE_ENTER
    HOLE_EXIT = kernel.HOLE_EXIT
    DROP = kernel.DROP
    DITCH = kernel.DITCH

    @property
    def changes_motion(self) -> bool:
        """Whether the disc's velocity may change here (a new closed-form segment starts)."""
        return self not in _PASSIVE


_PASSIVE = frozenset(
    {EventKind.LINE_OUT, EventKind.LINE_IN, EventKind.HOLE_ENTER, EventKind.HOLE_EXIT}
)


class ContactKind(Enum):
    """What a disc touched."""

    DISC = "disc"
    PEG = "peg"


@dataclass(frozen=True, slots=True)
class Event:
    """One event of one disc: its position and velocity just after it.

    Attributes:
        time: seconds since the launch.
        disc: index of the disc (input order; the shot disc is last).
        kind: what happened.
        other: the disc or peg touched, for contacts; otherwise -1.
        beyond_line: whether the disc was beyond the shooting line: its rim had reached
            the line (R5) and it was not yet fully inside again.
        x: centre x at the event.
        y: centre y at the event.
        vx: velocity x just after the event.
        vy: velocity y just after the event.
    """

    time: float
    disc: int
    kind: EventKind
    other: int
    beyond_line: bool
    x: float
    y: float
    vx: float
    vy: float


@dataclass(frozen=True, slots=True)
class Contact:
    """A touch between a disc and another disc or a peg, in time order.

    Attributes:
        time: seconds since the launch.
        disc: the disc (for disc–disc contacts, the one that was moving).
        other: the other disc's index, or the peg's index.
        kind: disc or peg.
        disc_beyond_line: whether ``disc`` was beyond the shooting line then.
        other_beyond_line: whether the other disc was (always False for a peg).
    """

    time: float
    disc: int
    other: int
    kind: ContactKind
    disc_beyond_line: bool
    other_beyond_line: bool


@dataclass(frozen=True, slots=True)
class DiscOutcome:
    """A disc's fate after the shot.

    Attributes:
        status: on the board, in the 20 hole, or in the ditch.
        position: final centre; for a disc that left the surface, where it left.
        moved: whether the disc moved at all during the shot.
        crossed_line: whether its rim reached the shooting line (R5; the shot disc
            only after it had once been fully inside).
        touched_beyond_line: whether it touched a disc or peg while beyond it.
    """

    status: DiscStatus
    position: Point
    moved: bool
    crossed_line: bool
    touched_beyond_line: bool


@dataclass(frozen=True, slots=True)
class _Segment:
    time: float
    x: float
    y: float
    speed: float
    ux: float
    uy: float


_KIND_BY_CODE = {k.value: k for k in EventKind}
_MOTION_CODES = frozenset(k.value for k in EventKind if k.changes_motion)


@dataclass(frozen=True, eq=False)
class ShotResult:
    """Everything a shot did: final discs, contact log and the exact trajectory.

    Discs keep the indices of the input; the shot disc is the last one.  The
    kernel's arrays are kept as they are and turned into value objects on
    first access, so a caller that only needs the outcomes pays for nothing
    else.

    Attributes:
        duration: time of the last event (when the last disc came to rest).
        deceleration: the sliding deceleration used (for evaluating motion).
        start_array: ``(N, 2)`` centres at time 0.
        final_array: ``(N, 2)`` final centres.
        status_array: ``(N,)`` int8 status codes, the values of :class:`DiscStatus`.
        flag_array: ``(N, 4)`` moved, crossed line, touched beyond line, touched a peg.
        event_floats: ``(E, 5)`` time, x, y, vx, vy of every event.
        event_ints: ``(E, 4)`` disc, kind, other, beyond-line of every event.
    """

    duration: float
    deceleration: float
    start_array: FloatArray = field(repr=False)
    final_array: FloatArray = field(repr=False)
    status_array: npt.NDArray[np.int8] = field(repr=False)
    flag_array: BoolArray = field(repr=False)
    event_floats: FloatArray = field(repr=False)
    event_ints: IntArray = field(repr=False)

    @property
    def shot_disc(self) -> int:
        """Index of the shot disc (the last one)."""
        return int(self.start_array.shape[0]) - 1

    @cached_property
    def discs(self) -> tuple[DiscOutcome, ...]:
        """Outcome of every disc, by index."""
        pos = self.final_array.tolist()
        flags = self.flag_array.tolist()
        return tuple(
            DiscOutcome(DiscStatus(code), Point(*pos[i]), *flags[i][:3])
            for i, code in enumerate(self.status_array.tolist())
        )

    @cached_property
    def start(self) -> tuple[Point, ...]:
        """Centres of the discs at time 0."""
        return tuple(Point(x, y) for x, y in self.start_array.tolist())

    @cached_property
    def events(self) -> tuple[Event, ...]:
        """Every event of every disc, in time order."""
        return tuple(
            Event(t, disc, _KIND_BY_CODE[code], other, bool(beyond), x, y, vx, vy)
            for (t, x, y, vx, vy), (disc, code, other, beyond) in zip(
                self.event_floats.tolist(), self.event_ints.tolist(), strict=True
            )
        )

    @cached_property
    def contacts(self) -> tuple[Contact, ...]:
        """Every touch, in time order (a disc–disc contact is listed once)."""
        out: list[Contact] = []
        pending: Event | None = None
        for ev in self.events:
            if ev.kind is EventKind.PEG_CONTACT:
                out.append(
                    Contact(ev.time, ev.disc, ev.other, ContactKind.PEG, ev.beyond_line, False)
                )
            elif ev.kind is EventKind.DISC_CONTACT:
                # The kernel logs a disc–disc contact as two consecutive events,
                # the moving disc first.
                if pending is None:
                    pending = ev
                else:
                    out.append(
                        Contact(
                            pending.time,
                            pending.disc,
                            pending.other,
                            ContactKind.DISC,
                            pending.beyond_line,
                            ev.beyond_line,
                        )
                    )
                    pending = None
        return tuple(out)

    @cached_property
    def _segments(self) -> tuple[tuple[_Segment, ...], ...]:
        segments: list[list[_Segment]] = [[] for _ in range(self.start_array.shape[0])]
        for (t, x, y, vx, vy), (disc, code, _, _) in zip(
            self.event_floats.tolist(), self.event_ints.tolist(), strict=True
        ):
            if code in _MOTION_CODES:
                speed = math.hypot(vx, vy)
                ux, uy = (vx / speed, vy / speed) if speed > 0.0 else (0.0, 0.0)
                segments[disc].append(_Segment(t, x, y, speed, ux, uy))
        return tuple(tuple(s) for s in segments)

    @cached_property
    def _segment_times(self) -> tuple[list[float], ...]:
        return tuple([s.time for s in segs] for segs in self._segments)

    def _checked(self, disc: object, time: object) -> tuple[int, float]:
        """``disc`` and ``time`` as an index and a float, or a plain error.

        Any integer type is an index (numpy's included) and any real number a
        time; a bool is neither.
        """
        n = int(self.start_array.shape[0])
        if isinstance(disc, bool | np.bool_) or not isinstance(disc, numbers.Integral):
            raise InvalidShotError(f"disc index must be a whole number, got {disc!r}")
        index = int(disc)
        if not 0 <= index < n:
            raise InvalidShotError(f"disc index {disc} out of range 0..{n - 1}")
        if not isinstance(time, numbers.Real) or not is_real_number(time):
            raise InvalidShotError(f"time must be a number of seconds, got {time!r}")
        if not math.isfinite(time):
            raise InvalidShotError(f"time must be a finite number of seconds, got {time}")
        return index, float(time)

    def _segment(self, disc: int, time: float, before: bool) -> _Segment | None:
        times = self._segment_times[disc]
        k = (bisect.bisect_left(times, time) if before else bisect.bisect_right(times, time)) - 1
        return self._segments[disc][k] if k >= 0 else None

    def state_at(self, disc: int, time: float, *, before: bool = False) -> tuple[Point, Point]:
        """Exact centre and velocity of ``disc`` at ``time``.

        With ``before`` set, an event exactly at ``time`` is not yet applied
        (the velocity just before a contact).  After a disc drops or falls into
        the ditch it stays where it left the surface, at rest.
        """
        disc, time = self._checked(disc, time)
        seg = self._segment(disc, time, before)
        if seg is None:
            x, y = self.start_array[disc].tolist()
            return Point(x, y), Point(0.0, 0.0)
        tau = max(time - seg.time, 0.0)
        a = self.deceleration
        if tau >= seg.speed / a:
            s = seg.speed * seg.speed / (2.0 * a)
            left = 0.0
        else:
            left = seg.speed - a * tau
            s = tau * (seg.speed + left) * 0.5
        return (
            Point(seg.x + seg.ux * s, seg.y + seg.uy * s),
            Point(seg.ux * left, seg.uy * left),
        )

    def position_at(self, disc: int, time: float) -> Point:
        """Exact centre of ``disc`` at ``time`` seconds after the launch.

        >>> from crokinole.board import TOURNAMENT_BOARD as board, Launch
        >>> from crokinole.physics import simulate_shot
        >>> r = simulate_shot(board, [], Launch(0.0, -12.0, 0.0, 30.0))
        >>> p = r.position_at(0, 0.5)
        >>> abs(p.y - (-12.0 + 30.0 * 0.5 - board.deceleration * 0.5**2 / 2)) < 1e-12
        True
        """
        return self.state_at(disc, time)[0]

    def positions_at(self, time: float) -> FloatArray:
        """Centres of all discs at ``time`` as an ``(N, 2)`` array."""
        n = int(self.start_array.shape[0])
        pts = [self.position_at(i, time) for i in range(n)]
        return np.array([(p.x, p.y) for p in pts], dtype=np.float64).reshape(-1, 2)

    def on_board_at(self, disc: int, time: float) -> bool:
        """Whether ``disc`` is still on the playing surface at ``time``."""
        disc, time = self._checked(disc, time)
        for ev in self.events:
            if ev.time > time:
                break
            if ev.disc == disc and ev.kind in (EventKind.DROP, EventKind.DITCH):
                return False
        return True


def _indices(group: npt.ArrayLike, n: int) -> npt.NDArray[np.intp]:
    """Disc indices of ``group`` (an index list or a boolean mask over ``n`` discs)."""
    g = np.asarray(group)
    if g.dtype == np.bool_:
        return np.flatnonzero(g)
    return np.arange(n)[g.astype(np.intp)]


@dataclass(frozen=True)
class BatchResult:
    """Compact results of K shots from one position (the shot disc is index N).

    Attributes:
        positions: ``(K, N+1, 2)`` final centres (where a disc left the surface,
            for discs in the hole or the ditch).
        statuses: ``(K, N+1)`` int8 status codes, the values of :class:`DiscStatus`
            (compare with ``batch.statuses == DiscStatus.IN_HOLE``).
        moved: ``(K, N+1)`` whether each disc moved.
        crossed_line: ``(K, N+1)`` whether each disc's rim reached the shooting line.
        touched_beyond_line: ``(K, N+1)`` whether each disc touched something while beyond it.
        touched_peg: ``(K, N+1)`` whether each disc touched a peg.
        contacts: ``(K, N+1, N+1)`` whether discs i and j touched during shot k.
        event_counts: ``(K,)`` number of events of each shot.
    """

    positions: FloatArray
    statuses: npt.NDArray[np.int8]
    moved: BoolArray
    crossed_line: BoolArray
    touched_beyond_line: BoolArray
    touched_peg: BoolArray
    contacts: BoolArray
    event_counts: IntArray

    def __len__(self) -> int:
        return int(self.statuses.shape[0])

    def touched_any(self, group_a: npt.ArrayLike, group_b: npt.ArrayLike) -> BoolArray:
        """Per shot, whether any disc of ``group_a`` touched any disc of ``group_b``.

        Groups are index lists (or boolean masks) over the N+1 discs, e.g. the
        shooter's discs and the opponents' discs for the contact rule.
        """
        k, n, _ = self.contacts.shape
        a = _indices(group_a, n)
        b = _indices(group_b, n)
        # The (a, b) cells of each shot's flattened contact matrix, gathered at
        # once: a few dozen columns of K rows, not K copies of sub-matrices.
        cells = (a[:, None] * n + b[None, :]).ravel()
        if cells.size == 0:
            return np.zeros(k, dtype=np.bool_)
        flat = self.contacts.reshape(k, n * n)
        return np.asarray(flat[:, cells].any(axis=1), dtype=np.bool_)
