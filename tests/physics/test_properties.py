"""Invariants over random legal positions (0–24 discs) and random shots (hypothesis).

Never an overlap (at rest, at any event, or at sampled times in between),
never a disc lost or duplicated, bit-identical answers when run twice, and
the batch API agreeing exactly with single shots.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from crokinole.board import TOURNAMENT_BOARD, Launch, Seat, Shot
from crokinole.errors import InvalidShotError
from crokinole.physics import (
    DiscStatus,
    EventKind,
    ShotResult,
    simulate_batch,
    simulate_shot,
)

B = TOURNAMENT_BOARD
R = B.disc_radius
TOL = 1e-9
PEGS = np.array([(p.x, p.y) for p in B.pegs])


@st.composite
def positions(draw: st.DrawFn) -> np.ndarray:
    """Up to 24 discs at legal resting places, kept greedily in drawn order."""
    wanted = draw(st.integers(0, 24))
    candidates = draw(
        st.lists(
            st.tuples(st.floats(B.hole_radius + 1e-6, 11.3), st.floats(0.0, 2 * math.pi)),
            min_size=wanted,
            max_size=wanted * 3,
        )
    )
    kept: list[tuple[float, float]] = []
    for radius, angle in candidates:
        if len(kept) == wanted:
            break
        p = (radius * math.cos(angle), radius * math.sin(angle))
        if np.min(np.hypot(PEGS[:, 0] - p[0], PEGS[:, 1] - p[1])) < R + B.peg_radius:
            continue
        if any(math.dist(p, q) < 2 * R for q in kept):
            continue
        kept.append(p)
    # Some draws bunch up near touching: include exact contacts too.
    if kept and draw(st.booleans()):
        x, y = kept[0]
        angle = draw(st.floats(0.0, 2 * math.pi))
        q = (x + 2 * R * math.cos(angle), y + 2 * R * math.sin(angle))
        free = all(math.dist(q, k) >= 2 * R - TOL for k in kept[1:])
        clear = np.min(np.hypot(PEGS[:, 0] - q[0], PEGS[:, 1] - q[1])) >= R + B.peg_radius
        if free and clear and B.hole_radius + 1e-6 < math.hypot(*q) < 11.3:
            kept.append(q)
    return np.array(kept, dtype=np.float64).reshape(-1, 2)


shots = st.builds(
    Shot,
    position=st.floats(-B.placement_limit, B.placement_limit),
    direction=st.floats(-70.0, 70.0),
    power=st.floats(0.0, 100.0),
)


def _launch(seat: Seat, shot: Shot, discs: np.ndarray) -> Launch:
    launch = B.launch(seat, shot)
    if discs.size:
        gaps = np.hypot(discs[:, 0] - launch.x, discs[:, 1] - launch.y)
        assume(gaps.min() >= 2 * R)
    return launch


def _assert_no_overlap(points: np.ndarray) -> None:
    if len(points) == 0:
        return
    peg_gap = np.hypot(points[:, None, 0] - PEGS[None, :, 0], points[:, None, 1] - PEGS[None, :, 1])
    assert peg_gap.min() >= R + B.peg_radius - TOL
    diff = points[:, None, :] - points[None, :, :]
    dist = np.hypot(diff[..., 0], diff[..., 1])
    np.fill_diagonal(dist, np.inf)
    assert dist.min() >= 2 * R - TOL


def _on_board_at(result: ShotResult, t: float) -> np.ndarray:
    left = {
        ev.disc: ev.time for ev in result.events if ev.kind in (EventKind.DROP, EventKind.DITCH)
    }
    keep = [i for i in range(len(result.discs)) if left.get(i, math.inf) > t]
    return result.positions_at(t)[keep]


@settings(max_examples=150, deadline=None)
@given(positions(), st.sampled_from(list(Seat)), shots)
def test_random_shots_keep_every_invariant(discs: np.ndarray, seat: Seat, shot: Shot) -> None:
    launch = _launch(seat, shot, discs)
    result = simulate_shot(B, discs, launch)
    n = len(discs) + 1
    # Conservation: every disc has exactly one fate.
    assert len(result.discs) == n
    statuses = [d.status for d in result.discs]
    assert all(isinstance(s, DiscStatus) for s in statuses)
    # Final positions: on-board discs on the surface, clear of everything.
    final = np.array([(d.position.x, d.position.y) for d in result.discs])
    on_board = np.array([s is DiscStatus.ON_BOARD for s in statuses])
    assert np.all(np.hypot(final[on_board, 0], final[on_board, 1]) <= B.surface_radius + TOL)
    _assert_no_overlap(final[on_board])
    for d in result.discs:
        if d.status is DiscStatus.IN_HOLE:
            assert d.position.norm() < B.hole_radius + TOL
        if d.status is DiscStatus.IN_DITCH:
            assert d.position.norm() >= B.surface_radius - TOL
    # Discs that never moved are exactly where they were.
    for i, d in enumerate(result.discs[:-1]):
        if not d.moved:
            assert (d.position.x, d.position.y) == tuple(discs[i])
    # Time runs forward, and no overlap at any event or in between.
    times = [ev.time for ev in result.events]
    assert times == sorted(times)
    samples = set(times) | set(np.linspace(0.0, result.duration, 25).tolist())
    for t in samples:
        _assert_no_overlap(_on_board_at(result, t))
    # The trajectory ends exactly at the reported final positions.
    for i, d in enumerate(result.discs):
        if d.status is DiscStatus.ON_BOARD:
            assert result.position_at(i, result.duration + 1.0) == d.position
    # Determinism: the same input gives bit-identical output.
    again = simulate_shot(B, discs, launch)
    assert np.array_equal(result.final_array, again.final_array)
    assert np.array_equal(result.event_floats, again.event_floats)
    assert np.array_equal(result.event_ints, again.event_ints)
    # The batch API gives the same answer, bit for bit.
    batch = simulate_batch(B, discs, np.array([[launch.x, launch.y, launch.vx, launch.vy]]))
    assert np.array_equal(batch.positions[0], result.final_array)
    assert np.array_equal(batch.statuses[0], result.status_array)
    assert np.array_equal(batch.moved[0], result.flag_array[:, 0])


@settings(max_examples=40, deadline=None)
@given(positions(), st.lists(shots, min_size=2, max_size=12))
def test_batch_equals_single_shots(discs: np.ndarray, many: list[Shot]) -> None:
    launches = []
    for shot in many:
        try:
            lo = B.launch(Seat.SOUTH, shot)
        except InvalidShotError:  # pragma: no cover - strategies stay in range
            continue
        if discs.size and np.hypot(discs[:, 0] - lo.x, discs[:, 1] - lo.y).min() < 2 * R:
            continue
        launches.append([lo.x, lo.y, lo.vx, lo.vy])
    assume(launches)
    arr = np.array(launches)
    batch = simulate_batch(B, discs, arr)
    assert len(batch) == len(launches)
    for k, row in enumerate(arr):
        single = simulate_shot(B, discs, Launch(*row.tolist()))
        assert np.array_equal(batch.positions[k], single.final_array)
        assert np.array_equal(batch.statuses[k], single.status_array)
        touched = np.zeros_like(batch.contacts[k])
        for c in single.contacts:
            if c.kind.value == "disc":
                touched[c.disc, c.other] = touched[c.other, c.disc] = True
        assert np.array_equal(batch.contacts[k], touched)
        assert batch.event_counts[k] == len(single.events)
