"""Entry points of the simulator: one shot with its full trajectory, or a batch of shots.

Input is checked before anything is simulated: discs must be finite, on the
surface, off the hole, clear of the pegs and of each other; a launch must
start on the surface clear of every disc, with a finite speed of at most
:data:`MAX_LAUNCH_SPEED`.  A bad input raises
:class:`~crokinole.errors.InvalidPositionError` or
:class:`~crokinole.errors.InvalidShotError` quoting the offending value as it
was given.

Numbers may be of any real type: Python ``int`` and ``float``, numpy integer
and floating scalars (``np.int64``, ``np.float32`` ...), ``fractions.Fraction``
and the like (``numbers.Real``).  ``bool`` is refused: ``True`` as a
coordinate or a velocity is a mistake, not the number 1.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

from crokinole.board import Board, Launch, Point, is_real_number, quote_number
from crokinole.errors import InvalidPositionError, InvalidShotError, SimulationError
from crokinole.physics import kernel
from crokinole.physics.result import BatchResult, ShotResult

#: At most this many events per shot; reaching it raises SimulationError.
MAX_EVENTS = 20_000
#: A speed (in/s) under which a disc counts as at rest after a collision.
REST_SPEED = 1e-6
#: After this many bounces of one pair (or one disc on one peg) in a shot, the
#: next is perfectly inelastic: it ends inelastic collapse (see the kernel).
STICK_AFTER = 10
#: Discs closer than touching by more than this (inches) overlap.
OVERLAP_TOLERANCE = 1e-9
#: The fastest launch the simulator accepts, in in/s (2.5 km/s).  Full power
#: on the tournament board is 120 in/s (``Board.max_launch_speed``), so this
#: leaves any board a wide margin, and it is the fastest speed the simulator
#: is tested at (no tunnelling, exact contacts).  Far faster, squared speeds
#: overflow (from about 1e154 in/s) and event detection fails.
MAX_LAUNCH_SPEED = 100_000.0


def _is_number(value: object) -> bool:
    """:func:`~crokinole.board.is_real_number`, quick for plain floats and ints.

    The abstract-class check costs more than simulating an open shot, and
    nearly every number here is a plain float.
    """
    kind = type(value)
    return kind is float or kind is int or is_real_number(value)


DiscsLike = Sequence[Point] | Sequence[tuple[float, float]] | npt.NDArray[np.float64]

_WHY = {
    1: "has a coordinate that is not a finite number",
    2: "is off the playing surface",
    3: "is over the 20 hole (it would have dropped)",
    4: "overlaps peg {other}",
    5: "overlaps disc {other}",
}


_BoardArrays = tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]
# Kernel inputs of the boards used lately, found by identity: a Board is
# immutable, and hashing its nineteen fields on every shot costs more than
# simulating an open shot.
_RECENT_BOARDS: list[tuple[Board, _BoardArrays]] = []


def _board_arrays(board: Board) -> _BoardArrays:
    for known, arrays in _RECENT_BOARDS:
        if known is board:
            return arrays
    arrays = _compute_board_arrays(board)
    _RECENT_BOARDS.insert(0, (board, arrays))
    del _RECENT_BOARDS[8:]
    return arrays


def _compute_board_arrays(board: Board) -> _BoardArrays:
    kernel.prepare()  # before any kernel runs: every path asks for a board's arrays first
    params = np.zeros(kernel.N_PARAMS, dtype=np.float64)
    params[kernel.P_DISC_R] = board.disc_radius
    params[kernel.P_PEG_R] = board.peg_radius
    params[kernel.P_DECEL] = board.deceleration
    params[kernel.P_E_DISC] = board.restitution_disc
    params[kernel.P_E_PEG] = board.restitution_peg
    params[kernel.P_SURFACE_R] = board.surface_radius
    # R5: a disc reaches the shooting line when its rim touches the line's
    # near edge (BOARD.md), i.e. its centre is this far out (11.34375 in).
    params[kernel.P_LINE_R] = board.shooting_line_radius - board.line_width / 2 - board.disc_radius
    params[kernel.P_HOLE_R] = board.hole_radius
    params[kernel.P_DROP_T] = board.hole_drop_time
    params[kernel.P_V_REST] = REST_SPEED
    params[kernel.P_STICK_AFTER] = STICK_AFTER
    params.setflags(write=False)
    pegs = board.peg_array()
    pegs.setflags(write=False)
    return params, pegs


def discs_array(discs: DiscsLike) -> npt.NDArray[np.float64]:
    """Disc centres as a fresh ``(N, 2)`` float array.

    Raises:
        InvalidPositionError: the input is not a list of (x, y) pairs.
    """
    if isinstance(discs, np.ndarray):
        if discs.dtype.kind not in "iuf":
            raise InvalidPositionError(
                f"discs must be (x, y) pairs of numbers, got an array of {discs.dtype}"
            )
        arr = np.array(discs, dtype=np.float64)
    else:
        try:
            pairs = [(p.x, p.y) if isinstance(p, Point) else tuple(p) for p in discs]
        except TypeError as exc:
            raise InvalidPositionError(f"discs must be (x, y) pairs of numbers: {exc}") from exc
        for k, pair in enumerate(pairs):
            if len(pair) != 2:
                raise InvalidPositionError(f"discs must be (x, y) pairs, disc {k} is {pair!r}")
            for value in pair:
                if not _is_number(value):
                    raise InvalidPositionError(
                        f"discs must be (x, y) pairs of numbers, disc {k} has {value!r}"
                    )
        arr = np.array([[float(x), float(y)] for x, y in pairs], dtype=np.float64)
    if arr.size == 0:
        return np.zeros((0, 2), dtype=np.float64)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise InvalidPositionError(f"discs must be (x, y) pairs, got an array of shape {arr.shape}")
    return arr


def check_position(board: Board, discs: npt.NDArray[np.float64]) -> None:
    """Raise :class:`InvalidPositionError` unless the discs can all rest on the board.

    >>> from crokinole.board import TOURNAMENT_BOARD
    >>> check_position(TOURNAMENT_BOARD, np.array([[0.0, 6.0], [0.5, 6.2]]))
    Traceback (most recent call last):
    ...
    crokinole.errors.InvalidPositionError: disc 1 at (0.5000, 6.2000) overlaps disc 0
    """
    params, pegs = _board_arrays(board)
    code, i, other = kernel.first_invalid(discs, pegs, params, OVERLAP_TOLERANCE)
    if code:
        x, y = discs[i]
        raise InvalidPositionError(
            f"disc {i} at ({x:.4f}, {y:.4f}) " + _WHY[code].format(other=other)
        )


def _real_rows(what: str, values: npt.ArrayLike) -> npt.NDArray[np.generic]:
    """``values`` as given, as an array, checked to hold only real numbers."""
    try:
        given = np.asarray(values)
        # Nested lists are checked element by element: numpy would turn a
        # bool among floats into 1.0 or 0.0.
        items = given if isinstance(values, np.ndarray) else np.asarray(values, dtype=object)
    except ValueError as exc:  # ragged rows
        raise InvalidShotError(f"{what} must be rows of numbers, got {values!r}") from exc
    if isinstance(values, np.ndarray) and given.dtype.kind in "iuf":
        return given  # the common case, the CPU players' batches: no per-item check
    real = given.dtype.kind in "iufO" and all(_is_number(v) for v in items.ravel())
    if not real:
        raise InvalidShotError(f"{what} must be real numbers, got {values!r}")
    return given


def _check_speeds(what: str, given: npt.NDArray[np.generic], vel: npt.NDArray[np.float64]) -> None:
    """Refuse a velocity that is not finite or is faster than MAX_LAUNCH_SPEED.

    ``given`` holds the velocities as the caller gave them (quoted in the
    message), ``vel`` the same as floats.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        speed = np.hypot(vel[:, 0], vel[:, 1])
    bad = ~np.isfinite(vel).all(axis=1) | ~(speed <= MAX_LAUNCH_SPEED)
    if bad.any():
        k = int(np.argmax(bad))
        vx, vy = (quote_number(v) for v in given[k].tolist())
        if not np.isfinite(vel[k]).all():
            raise InvalidShotError(f"{what} {k} ({vx}, {vy}) in/s is not a finite velocity")
        raise InvalidShotError(
            f"{what} {k} ({vx}, {vy}) in/s is faster than the simulator's maximum of "
            f"{MAX_LAUNCH_SPEED:g} in/s"
        )


def _check_launches(
    board: Board, discs: npt.NDArray[np.float64], launches: npt.NDArray[np.float64]
) -> None:
    params, pegs = _board_arrays(board)
    code, k, other = kernel.first_invalid_launch(discs, launches, pegs, params, OVERLAP_TOLERANCE)
    if code:
        x, y, vx, vy = launches[k].tolist()
        why = "has a speed that is not a finite number" if code == 6 else _WHY[code]
        raise InvalidShotError(
            f"launch {k} from ({x:.4f}, {y:.4f}) with velocity ({vx:.4f}, {vy:.4f}): "
            "the shot disc " + why.format(other=other)
        )


def simulate_shot(board: Board, discs: DiscsLike, launch: Launch) -> ShotResult:
    """Simulate one shot: ``discs`` rest on the board and a disc is launched.

    Args:
        board: the board and physical constants.
        discs: centres of the discs already on the board (index = identity).
        launch: start point and velocity of the shot disc, which gets the
            index ``len(discs)``; see :meth:`Board.launch`.

    Returns:
        The outcome of every disc, the contact log and the exact trajectory.

    Raises:
        InvalidPositionError: a disc overlaps another or a peg, is off the
            board, over the hole, or not a number.
        InvalidShotError: a launch value is not a finite number (bools are
            refused), the speed is above ``MAX_LAUNCH_SPEED``, or the shot
            disc overlaps a disc or a peg.
        SimulationError: the shot needed more than ``MAX_EVENTS`` events.

    >>> from crokinole.board import TOURNAMENT_BOARD as board, Seat, Shot
    >>> launch = board.launch(Seat.SOUTH, Shot(position=0.0, direction=0.0, power=20.0))
    >>> result = simulate_shot(board, [(0.0, -6.0)], launch)
    >>> [c.kind.value for c in result.contacts], [d.status.label for d in result.discs]
    (['disc'], ['on_board', 'on_board'])
    >>> result.contacts[0].disc, result.contacts[0].other
    (1, 0)
    """
    if not isinstance(launch, Launch):
        raise InvalidShotError(
            f"a shot is played from a Launch (see Board.launch), got {type(launch).__name__}"
        )
    pos = discs_array(discs)
    x, y, vx, vy = launch.x, launch.y, launch.vx, launch.vy
    plain = type(x) is float and type(y) is float and type(vx) is float and type(vy) is float
    if not (plain and math.isfinite(x + y + vx + vy)):
        # Rarely needed, so only now: name the first value that is wrong.
        for name in ("x", "y", "vx", "vy"):
            value = getattr(launch, name)
            if not _is_number(value):
                raise InvalidShotError(f"launch {name} must be a number, got {value!r}")
            if not math.isfinite(value):
                raise InvalidShotError(f"launch {name} must be a finite number, got {value}")
        x, y, vx, vy = float(x), float(y), float(vx), float(vy)
    if not math.hypot(vx, vy) <= MAX_LAUNCH_SPEED:
        raise InvalidShotError(
            f"launch velocity ({quote_number(launch.vx)}, {quote_number(launch.vy)}) in/s "
            f"is faster than the simulator's maximum of {MAX_LAUNCH_SPEED:g} in/s"
        )
    n = pos.shape[0] + 1
    all_pos = np.empty((n, 2))
    all_pos[:-1] = pos
    all_pos[-1, 0] = x
    all_pos[-1, 1] = y
    params, pegs = _board_arrays(board)
    # One pass checks the resting discs and then the shot disc against them.
    code, i, other = kernel.first_invalid(all_pos, pegs, params, OVERLAP_TOLERANCE)
    if code and i < n - 1:
        check_position(board, pos)  # raises, naming the resting disc
    if code:
        raise InvalidShotError(
            f"launch from ({x:.4f}, {y:.4f}) with velocity ({vx:.4f}, {vy:.4f}): "
            "the shot disc " + _WHY[code].format(other=other)
        )
    all_vel = np.zeros((n, 2))
    all_vel[-1, 0] = vx
    all_vel[-1, 1] = vy
    return _run_recorded(board, all_pos, all_vel)


def _run_recorded(
    board: Board, all_pos: npt.NDArray[np.float64], all_vel: npt.NDArray[np.float64]
) -> ShotResult:
    params, pegs = _board_arrays(board)
    n = all_pos.shape[0]
    out_pos = np.empty((n, 2))
    out_status = np.empty(n, dtype=np.int8)
    out_flags = np.empty((n, 4), dtype=np.bool_)
    out_adj = np.empty((n, n), dtype=np.bool_)
    capacity = 256
    while True:
        evf = np.empty((capacity, 5))
        evi = np.empty((capacity, 4), dtype=np.int64)
        count, duration = kernel.run_shot(
            all_pos, all_vel, pegs, params, MAX_EVENTS, True, evf, evi,
            out_pos, out_status, out_flags, out_adj,
        )  # fmt: skip
        if count < 0:
            raise SimulationError(
                f"the motion needed more than {MAX_EVENTS} events; nothing was changed"
            )
        if count <= capacity:
            break
        capacity = count  # the simulation is deterministic: rerun with room for every event
    return ShotResult(
        duration=duration,
        deceleration=board.deceleration,
        start_array=all_pos,
        final_array=out_pos,
        status_array=out_status,
        flag_array=out_flags,
        event_floats=evf[:count],
        event_ints=evi[:count],
    )


def simulate_batch(board: Board, discs: DiscsLike, launches: npt.ArrayLike) -> BatchResult:
    """Simulate K shots from the same position in one compiled call.

    Args:
        board: the board and physical constants.
        discs: centres of the N discs already on the board.
        launches: ``(K, 4)`` rows of ``x, y, vx, vy`` (see :meth:`Board.launches`).

    Returns:
        Compact arrays; the shot disc of every shot is index N.

    Raises:
        InvalidPositionError: as for :func:`simulate_shot`.
        InvalidShotError: a launch row is not real numbers or not finite, is
            faster than ``MAX_LAUNCH_SPEED``, or its disc overlaps one.
        SimulationError: a shot needed more than ``MAX_EVENTS`` events.

    >>> from crokinole.board import TOURNAMENT_BOARD as board, Seat
    >>> shots = board.launches(Seat.SOUTH, [0.0, 0.0], [0.0, 0.0], [28.0, 100.0])
    >>> batch = simulate_batch(board, [], shots)
    >>> batch.statuses[:, 0].tolist()   # a gentle 20 drops; a hard one skims to the ditch
    [1, 2]
    """
    pos = discs_array(discs)
    check_position(board, pos)
    given = _real_rows("launches", launches)
    if given.ndim != 2 or given.shape[1] != 4:
        raise InvalidShotError(
            f"launches must be a (K, 4) array of x, y, vx, vy; got {given.shape}"
        )
    arr = np.ascontiguousarray(given, dtype=np.float64)
    _check_speeds("launch", given[:, 2:], arr[:, 2:])
    _check_launches(board, pos, arr)
    params, pegs = _board_arrays(board)
    return _run_many(
        kernel.run_batch, pos, arr, pegs, params, n=pos.shape[0] + 1,
        which=lambda first: f"launch {first} ({arr[first].tolist()})",
    )  # fmt: skip


def simulate_boards(board: Board, discs: npt.ArrayLike, launches: npt.ArrayLike) -> BatchResult:
    """Simulate one shot on each of B boards in one compiled call: a position per shot.

    What a vector of environments needs: every board has its own discs (the
    same number on each), and shot b is played on board b.  Shot b gives
    exactly what :func:`simulate_shot` gives for ``discs[b]`` and
    ``launches[b]`` (the same kernel), as :func:`simulate_batch`'s compact arrays.

    Args:
        board: the board and physical constants.
        discs: ``(B, N, 2)`` centres of the discs resting on each board.
        launches: ``(B, 4)`` rows of ``x, y, vx, vy``, one per board.

    Returns:
        Compact arrays with a leading B axis; the shot disc is index N.

    Raises:
        InvalidPositionError: a board's discs are not real numbers, or one
            overlaps another or a peg, is off the board or over the hole.
        InvalidShotError: launches of the wrong shape, not real numbers, faster
            than ``MAX_LAUNCH_SPEED``, or a shot disc that overlaps one.
        SimulationError: a shot needed more than ``MAX_EVENTS`` events.

    >>> from crokinole.board import TOURNAMENT_BOARD as board, Seat
    >>> shots = board.launches(Seat.SOUTH, [0.0, 0.0], [0.0, 0.0], [28.0, 28.0])
    >>> boards = np.array([[[5.0, 5.0]], [[0.0, -6.0]]])   # on the second, a disc in the way
    >>> simulate_boards(board, boards, shots).statuses.tolist()   # ... is knocked into the hole
    [[0, 1], [1, 0]]
    """
    given_discs = np.asarray(discs)
    if given_discs.dtype.kind not in "iuf" or given_discs.ndim != 3 or given_discs.shape[2] != 2:
        raise InvalidPositionError(
            "discs must be a (B, N, 2) array of numbers (B boards of N discs), "
            f"got {given_discs.dtype} of shape {given_discs.shape}"
        )
    given = _real_rows("launches", launches)
    if given.ndim != 2 or given.shape != (given_discs.shape[0], 4):
        raise InvalidShotError(
            f"launches must be a ({given_discs.shape[0]}, 4) array of x, y, vx, vy "
            f"(one per board); got {given.shape}"
        )
    pos = np.ascontiguousarray(given_discs, dtype=np.float64)
    arr = np.ascontiguousarray(given, dtype=np.float64)
    _check_speeds("launch", given[:, 2:], arr[:, 2:])
    params, pegs = _board_arrays(board)
    code, b, i, other = kernel.first_invalid_boards(pos, arr, pegs, params, OVERLAP_TOLERANCE)
    if code and i < pos.shape[1]:
        x, y = pos[b, i]
        raise InvalidPositionError(
            f"board {b}: disc {i} at ({x:.4f}, {y:.4f}) " + _WHY[code].format(other=other)
        )
    if code:
        x, y, vx, vy = arr[b].tolist()
        why = "has a speed that is not a finite number" if code == 6 else _WHY[code]
        raise InvalidShotError(
            f"board {b}: launch from ({x:.4f}, {y:.4f}) with velocity ({vx:.4f}, {vy:.4f}): "
            "the shot disc " + why.format(other=other)
        )
    return _run_many(
        kernel.run_boards, pos, arr, pegs, params, n=pos.shape[1] + 1,
        which=lambda first: f"board {first}: launch {arr[first].tolist()}",
    )  # fmt: skip


def _run_many(
    run: Callable[..., None],
    pos: npt.NDArray[np.float64],
    arr: npt.NDArray[np.float64],
    pegs: npt.NDArray[np.float64],
    params: npt.NDArray[np.float64],
    *,
    n: int,
    which: Callable[[int], str],
) -> BatchResult:
    """One batch kernel call (``run_batch`` or ``run_boards``) of ``arr``'s K launches, with
    ``n`` discs a shot: its outputs as a :class:`BatchResult`; a launch past MAX_EVENTS
    (named by ``which``) raises."""
    k = arr.shape[0]
    out_pos = np.empty((k, n, 2))
    out_status = np.empty((k, n), dtype=np.int8)
    out_flags = np.empty((k, n, 4), dtype=np.bool_)
    out_adj = np.empty((k, n, n), dtype=np.bool_)
    out_events = np.empty(k, dtype=np.int64)
    run(pos, arr, pegs, params, MAX_EVENTS, out_pos, out_status, out_flags, out_adj, out_events)
    failed = out_events < 0
    if failed.any():
        first = int(np.argmax(failed))
        raise SimulationError(f"{which(first)} needed more than {MAX_EVENTS} events")
    return BatchResult(
        positions=out_pos,
        statuses=out_status,
        moved=out_flags[:, :, 0].copy(),
        crossed_line=out_flags[:, :, 1].copy(),
        touched_beyond_line=out_flags[:, :, 2].copy(),
        touched_peg=out_flags[:, :, 3].copy(),
        contacts=out_adj,
        event_counts=out_events,
    )


def simulate_motion(board: Board, discs: DiscsLike, velocities: npt.ArrayLike) -> ShotResult:
    """Simulate discs that may all be moving at time 0 (no shot disc is added).

    The general form of :func:`simulate_shot`, for tests and analysis: disc i
    starts at ``discs[i]`` with velocity ``velocities[i]``.

    Raises:
        InvalidPositionError: as for :func:`simulate_shot`.
        InvalidShotError: a velocity is not a finite number or is faster than
            ``MAX_LAUNCH_SPEED``, or the shapes differ.
        SimulationError: the motion needed more than ``MAX_EVENTS`` events.

    >>> from crokinole.board import TOURNAMENT_BOARD as board
    >>> r = simulate_motion(board, [(-6.0, 6.0), (6.0, 6.0)], [(40.0, 0.0), (-40.0, 0.0)])
    >>> [round(c.time, 6) for c in r.contacts] == [round(r.events[2].time, 6)]
    True
    """
    pos = discs_array(discs)
    check_position(board, pos)
    given = _real_rows("velocities", velocities) if pos.size else np.zeros((0, 2))
    given = given.reshape(-1, 2) if given.size % 2 == 0 else given
    if given.shape != pos.shape:
        raise InvalidShotError(
            f"need one (vx, vy) velocity per disc: {pos.shape[0]} discs, "
            f"velocities of shape {np.shape(velocities)}"
        )
    vel = np.array(given, dtype=np.float64)
    _check_speeds("velocity of disc", given, vel)
    return _run_recorded(board, pos, vel)
