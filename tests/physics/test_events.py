"""Exactness of event detection: no tunnelling at any speed, grazes found to 1e-7 inch."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from crokinole.board import TOURNAMENT_BOARD, Launch, Point
from crokinole.physics import (
    MAX_LAUNCH_SPEED,
    ContactKind,
    DiscStatus,
    EventKind,
    simulate_motion,
    simulate_shot,
)
from tests.physics.test_properties import _assert_no_overlap, _on_board_at, positions

B = TOURNAMENT_BOARD
A = B.deceleration
R = B.disc_radius
PEG_CONTACT = R + B.peg_radius


@pytest.mark.parametrize("speed", [120.0, 1_000.0, 100_000.0])
def test_no_tunnelling_into_a_peg_at_any_speed(speed: float) -> None:
    peg = B.pegs[6]
    result = simulate_shot(B, [], Launch(peg.x, -12.0, 0.0, speed))
    first = result.contacts[0]
    assert (first.kind, first.other) == (ContactKind.PEG, 6)
    ev = next(ev for ev in result.events if ev.kind is EventKind.PEG_CONTACT)
    assert ev.y == pytest.approx(peg.y - PEG_CONTACT, abs=1e-9)


@pytest.mark.parametrize("clearance", [1e-7, -1e-7])
def test_full_power_through_the_gap_between_pegs_grazes_exactly(clearance: float) -> None:
    # A vertical path at x = c passes the pegs at 292.5° and 67.5° at distance
    # PEG_CONTACT + clearance; every other peg and the hole are far from it.
    peg = B.pegs[6]
    x = peg.x - PEG_CONTACT - clearance
    result = simulate_shot(B, [], Launch(x, -12.0, 0.0, B.max_launch_speed))
    pegs_hit = [c.other for c in result.contacts if c.kind is ContactKind.PEG]
    if clearance > 0:
        assert pegs_hit == []
        assert result.discs[0].status is DiscStatus.IN_DITCH
        assert result.discs[0].position.x == pytest.approx(x, abs=1e-12)
    else:
        assert pegs_hit[:1] == [6]


@pytest.mark.parametrize("speed", [70.0, 5_000.0])
def test_no_tunnelling_through_a_resting_disc(speed: float) -> None:
    result = simulate_shot(B, [(0.0, 3.0)], Launch(0.0, -12.0, 0.0, speed))
    # Before anything else the shot disc meets the resting disc (the hole is passed over).
    disc_contacts = [c for c in result.contacts if c.kind is ContactKind.DISC]
    assert disc_contacts[0].disc == 1 and disc_contacts[0].other == 0


@pytest.mark.parametrize(("half_gap", "touch"), [(R - 1e-7, True), (R + 1e-7, False)])
def test_glancing_touch_between_two_moving_discs(half_gap: float, touch: bool) -> None:
    # Mirror-image discs on parallel paths 2·half_gap apart meet at x = 0 at the
    # same moment, both still moving: they touch iff half_gap <= R.
    v = 45.0
    assert v * v / (2 * A) > 6.0
    result = simulate_motion(B, [(-6.0, 6.0 + half_gap), (6.0, 6.0 - half_gap)], [(v, 0), (-v, 0)])
    contacts = [c for c in result.contacts if c.kind is ContactKind.DISC]
    assert bool(contacts) is touch
    if touch:
        t_meet = (v - math.sqrt(v * v - 2 * A * 6.0)) / A
        assert contacts[0].time == pytest.approx(t_meet, abs=1e-3)


def _min_gap_brute_force(
    p: tuple[tuple[float, float], tuple[float, float]],
    v: tuple[tuple[float, float], tuple[float, float]],
) -> tuple[float, float]:
    """Minimum centre distance of two free-sliding discs (dense sampling), and its time."""
    speeds = [math.hypot(*v[0]), math.hypot(*v[1])]
    t_end = max(speeds) / A
    t = np.linspace(0.0, t_end, 400_001)
    pos = []
    for k in range(2):
        u = np.array(v[k]) / speeds[k]
        tk = np.minimum(t, speeds[k] / A)  # each disc rests once it has stopped
        s = speeds[k] * tk - A * tk * tk / 2
        pos.append(np.array(p[k])[None, :] + s[:, None] * u[None, :])
    d = np.hypot(*(pos[0] - pos[1]).T)
    k = int(np.argmin(d))
    return float(d[k]), float(t[k])


@settings(max_examples=80, deadline=None)
@given(
    st.floats(5.0, 9.0),
    st.floats(0.0, 2 * math.pi),
    st.floats(1.5, 4.0),
    st.floats(0.0, 2 * math.pi),
    st.floats(0.0, 2 * math.pi),
    st.floats(15.0, 60.0),
    st.floats(0.0, 2 * math.pi),
    st.floats(15.0, 60.0),
)
def test_moving_pair_contact_matches_a_brute_force_search(
    r1: float, t1: float, sep: float, ts: float, a1: float, s1: float, a2: float, s2: float
) -> None:
    # Two discs in the open ring between the pegs and the shooting line, both moving.
    p1 = (r1 * math.cos(t1), r1 * math.sin(t1))
    p2 = (p1[0] + sep * math.cos(ts), p1[1] + sep * math.sin(ts))
    assume(5.0 < math.hypot(*p2) < 10.0)
    v1, v2 = (s1 * math.cos(a1), s1 * math.sin(a1)), (s2 * math.cos(a2), s2 * math.sin(a2))
    # Only judge cases where neither disc meets a peg, the hole or the edge
    # before the pair's closest approach: the brute force knows nothing of them.
    d_min, t_min = _min_gap_brute_force((p1, p2), (v1, v2))
    assume(abs(d_min - 2 * R) > 1e-4)
    result = simulate_motion(B, [p1, p2], [v1, v2])
    first = result.contacts[0] if result.contacts else None
    gone = [e.time for e in result.events if e.kind in (EventKind.DROP, EventKind.DITCH)]
    # A disc that drops or falls off before the closest approach ends the comparison.
    assume(not gone or min(gone) > t_min or (first is not None and first.time < min(gone)))
    before = first is None or first.time > t_min
    assume(before or (first is not None and first.kind is ContactKind.DISC))
    touched = first is not None and first.kind is ContactKind.DISC
    assert touched is (d_min < 2 * R)
    if touched:
        assert first is not None
        q1, q2 = result.position_at(0, first.time), result.position_at(1, first.time)
        assert q1.distance_to(q2) == pytest.approx(2 * R, abs=1e-9)


def test_discs_placed_touching_do_not_trigger_endless_contacts() -> None:
    # A disc resting against another and a peg, hit from behind.
    peg = B.pegs[6]
    ux, uy = peg.x / peg.norm(), peg.y / peg.norm()
    d1 = Point(peg.x + ux * PEG_CONTACT, peg.y + uy * PEG_CONTACT)
    d2 = Point(d1.x + ux * 2 * R, d1.y + uy * 2 * R)
    start = Point(d2.x + ux * 4.0, d2.y + uy * 4.0)
    result = simulate_shot(B, [d1, d2], Launch(start.x, start.y, -ux * 60, -uy * 60))
    assert len(result.events) < 200
    assert [d.status for d in result.discs[:2]] == [DiscStatus.ON_BOARD] * 2
    positions = [d.position for d in result.discs if d.status is DiscStatus.ON_BOARD]
    for i in range(len(positions)):
        assert positions[i].distance_to(peg) >= PEG_CONTACT - 1e-9
        for j in range(i):
            assert positions[i].distance_to(positions[j]) >= 2 * R - 1e-9


@settings(max_examples=60, deadline=None)
@given(
    positions(),
    st.floats(-5.0, 5.0),
    st.floats(-math.pi / 3, math.pi / 3),
    # A hair under the maximum: sin and cos round, and the speed with them.
    st.floats(1_000.0, MAX_LAUNCH_SPEED * (1 - 1e-12)),
)
def test_shots_up_to_the_maximum_speed_never_tunnel_or_overlap(
    discs: np.ndarray, x: float, angle: float, speed: float
) -> None:
    # The fastest accepted launches keep every invariant: at every event and
    # at the end, no disc overlaps another or a peg (nothing passed through).
    start = (x, -math.sqrt(12.0**2 - x * x))
    if discs.size:
        assume(np.hypot(discs[:, 0] - start[0], discs[:, 1] - start[1]).min() >= 2 * R)
    launch = Launch(start[0], start[1], speed * math.sin(angle), speed * math.cos(angle))
    result = simulate_shot(B, discs, launch)
    for t in {ev.time for ev in result.events} | {result.duration + 1.0}:
        _assert_no_overlap(_on_board_at(result, t))
