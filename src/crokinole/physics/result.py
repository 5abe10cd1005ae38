"""Value types of the simulator's output: disc outcomes, contacts, events, the trajectory.

The trajectory is exact: every disc's motion between two of its events is
``p(τ) = p0 + u (w τ − a τ² / 2)`` until it stops, so :meth:`ShotResult.position_at`
evaluates the closed form at any time instead of interpolating frames.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, field
from enum import Enum

import numpy as np
import numpy.typing as npt

from crokinole.board import Point
from crokinole.errors import InvalidShotError
from crokinole.physics import kernel

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


class DiscStatus(Enum):
    """Where a disc is after a shot."""

    ON_BOARD = "on_board"
    IN_HOLE = "in_hole"
    IN_DITCH = "in_ditch"


STATUS_BY_CODE = {
    kernel.ON_BOARD: DiscStatus.ON_BOARD,
    kernel.IN_HOLE: DiscStatus.IN_HOLE,
    kernel.IN_DITCH: DiscStatus.IN_DITCH,
}


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
        beyond_line: whether the disc's centre was beyond the shooting line.
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
        crossed_line: whether its centre went beyond the shooting line.
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


@dataclass(frozen=True)
class ShotResult:
    """Everything a shot did: final discs, contact log and the exact trajectory.

    Discs keep the indices of the input; the shot disc is the last one.

    Attributes:
        discs: outcome of every disc.
        contacts: every touch, in time order.
        events: every event of every disc, in time order.
        duration: time of the last event (when the last disc came to rest).
        start: centres of the discs at time 0.
        deceleration: the sliding deceleration used (for evaluating motion).
    """

    discs: tuple[DiscOutcome, ...]
    contacts: tuple[Contact, ...]
    events: tuple[Event, ...]
    duration: float
    start: tuple[Point, ...]
    deceleration: float
    _segments: tuple[tuple[_Segment, ...], ...] = field(repr=False, compare=False)

    @property
    def shot_disc(self) -> int:
        """Index of the shot disc (the last one)."""
        return len(self.discs) - 1

    def _segment(self, disc: int, time: float, before: bool) -> _Segment | None:
        if not 0 <= disc < len(self.discs):
            raise InvalidShotError(f"disc index {disc} out of range 0..{len(self.discs) - 1}")
        if not math.isfinite(time):
            raise InvalidShotError(f"time must be a finite number of seconds, got {time!r}")
        segs = self._segments[disc]
        times = [s.time for s in segs]
        k = (
            bisect.bisect_left(times, time) if before else bisect.bisect_right(times, time)
        ) - 1
        return segs[k] if k >= 0 else None

    def state_at(self, disc: int, time: float, *, before: bool = False) -> tuple[Point, Point]:
        """Exact centre and velocity of ``disc`` at ``time``.

        With ``before`` set, an event exactly at ``time`` is not yet applied
        (the velocity just before a contact).  After a disc drops or falls into
        the ditch it stays where it left the surface, at rest.
        """
        seg = self._segment(disc, time, before)
        if seg is None:
            p = self.start[disc]
            return p, Point(0.0, 0.0)
        tau = max(time - seg.time, 0.0)
        a = self.deceleration
        t_stop = seg.speed / a
        if tau >= t_stop:
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
        >>> round(p.y, 6) == round(-12.0 + 30.0 * 0.5 - board.deceleration * 0.25 / 2, 6)
        True
        """
        return self.state_at(disc, time)[0]

    def positions_at(self, time: float) -> FloatArray:
        """Centres of all discs at ``time`` as an ``(N, 2)`` array."""
        return np.array(
            [(p.x, p.y) for p in (self.position_at(i, time) for i in range(len(self.discs)))],
            dtype=np.float64,
        ).reshape(-1, 2)

    def on_board_at(self, disc: int, time: float) -> bool:
        """Whether ``disc`` is still on the playing surface at ``time``."""
        for ev in self.events:
            if ev.time > time:
                break
            if ev.disc == disc and ev.kind in (EventKind.DROP, EventKind.DITCH):
                return False
        return True


def build_result(
    start: FloatArray,
    evf: FloatArray,
    evi: IntArray,
    count: int,
    duration: float,
    out_pos: FloatArray,
    out_status: npt.NDArray[np.int8],
    out_flags: BoolArray,
    deceleration: float,
) -> ShotResult:
    """Turn the kernel's arrays into a :class:`ShotResult` (called once per shot)."""
    n = start.shape[0]
    events: list[Event] = []
    contacts: list[Contact] = []
    segments: list[list[_Segment]] = [[] for _ in range(n)]
    kinds = list(EventKind)
    kind_of = {k.value: k for k in kinds}
    rows_f = evf[:count].tolist()
    rows_i = evi[:count].tolist()
    pending_pair: Event | None = None
    for (t, x, y, vx, vy), (disc, code, other, beyond) in zip(rows_f, rows_i, strict=True):
        kind = kind_of[code]
        ev = Event(t, disc, kind, other, bool(beyond), x, y, vx, vy)
        events.append(ev)
        if kind.changes_motion:
            speed = math.hypot(vx, vy)
            ux, uy = (vx / speed, vy / speed) if speed > 0.0 else (0.0, 0.0)
            segments[disc].append(_Segment(t, x, y, speed, ux, uy))
        if kind is EventKind.PEG_CONTACT:
            contacts.append(Contact(t, disc, other, ContactKind.PEG, bool(beyond), False))
        elif kind is EventKind.DISC_CONTACT:
            # The kernel logs a disc–disc contact as two consecutive events.
            if pending_pair is None:
                pending_pair = ev
            else:
                first = pending_pair
                contacts.append(
                    Contact(
                        first.time,
                        first.disc,
                        first.other,
                        ContactKind.DISC,
                        first.beyond_line,
                        ev.beyond_line,
                    )
                )
                pending_pair = None
    outcomes = tuple(
        DiscOutcome(
            STATUS_BY_CODE[int(out_status[i])],
            Point(float(out_pos[i, 0]), float(out_pos[i, 1])),
            bool(out_flags[i, 0]),
            bool(out_flags[i, 1]),
            bool(out_flags[i, 2]),
        )
        for i in range(n)
    )
    return ShotResult(
        discs=outcomes,
        contacts=tuple(contacts),
        events=tuple(events),
        duration=duration,
        start=tuple(Point(float(x), float(y)) for x, y in start.tolist()),
        deceleration=deceleration,
        _segments=tuple(tuple(s) for s in segments),
    )


@dataclass(frozen=True)
class BatchResult:
    """Compact results of K shots from one position (the shot disc is index N).

    Attributes:
        positions: ``(K, N+1, 2)`` final centres (where a disc left the surface,
            for discs in the hole or the ditch).
        statuses: ``(K, N+1)`` int8 codes: 0 on the board, 1 in the hole, 2 in the ditch.
        moved: ``(K, N+1)`` whether each disc moved.
        crossed_line: ``(K, N+1)`` whether each disc went beyond the shooting line.
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
        a = np.asarray(group_a)
        b = np.asarray(group_b)
        sub = self.contacts[:, a][:, :, b]
        return np.asarray(sub.reshape(sub.shape[0], -1).any(axis=1), dtype=np.bool_)
