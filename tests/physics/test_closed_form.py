"""The simulator against closed-form mechanics (DESIGN.md "Physics").

Every expected value here is computed from the textbook formula, not from the
simulator: stop distance v²/2a, the equal-mass impulse with restitution, the
peg reflection, momentum and energy balance, the hole's drop time.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from crokinole.board import TOURNAMENT_BOARD, Launch, Point, Seat, Shot
from crokinole.physics import (
    ContactKind,
    DiscStatus,
    EventKind,
    ShotResult,
    simulate_batch,
    simulate_motion,
    simulate_shot,
)

B = TOURNAMENT_BOARD
A = B.deceleration
R = B.disc_radius


def _speed(v: Point) -> float:
    return math.hypot(v.x, v.y)


@pytest.mark.parametrize("distance", [0.5, 3.0, 6.5])
def test_free_slide_stops_after_v_squared_over_2a(distance: float) -> None:
    v = math.sqrt(2 * A * distance)
    result = simulate_shot(B, [], Launch(0.0, -12.0, 0.0, v))
    final = result.discs[0]
    assert final.status is DiscStatus.ON_BOARD
    assert final.position.x == pytest.approx(0.0, abs=1e-12)
    assert final.position.y == pytest.approx(-12.0 + distance, abs=1e-12)
    assert result.duration == pytest.approx(v / A, rel=1e-12)
    assert result.contacts == ()


def test_oblique_slide_follows_the_closed_form_path() -> None:
    start, v, ang = Point(-9.0, -7.0), 25.0, math.radians(20.0)
    vx, vy = v * math.cos(ang), v * math.sin(ang)
    result = simulate_shot(B, [], Launch(start.x, start.y, vx, vy))
    for t in np.linspace(0.0, v / A * 1.2, 17):
        s = v * t - A * t * t / 2 if t < v / A else v * v / (2 * A)
        p = result.position_at(0, float(t))
        assert p.x == pytest.approx(start.x + math.cos(ang) * s, abs=1e-12)
        assert p.y == pytest.approx(start.y + math.sin(ang) * s, abs=1e-12)


@pytest.mark.parametrize("v0", [25.0, 40.0, 90.0])
def test_head_on_hit_gives_v_1_minus_e_over_2_and_v_1_plus_e_over_2(v0: float) -> None:
    e = B.restitution_disc
    target = Point(0.0, -6.0)
    result = simulate_shot(B, [target], Launch(0.0, -12.0, 0.0, v0))
    gap = (target.y - 2 * R) - (-12.0)
    vc = math.sqrt(v0 * v0 - 2 * A * gap)
    contact = result.contacts[0]
    assert (contact.disc, contact.other, contact.kind) == (1, 0, ContactKind.DISC)
    assert contact.time == pytest.approx((v0 - vc) / A, rel=1e-12)
    after = {ev.disc: ev for ev in result.events if ev.kind is EventKind.DISC_CONTACT}
    assert after[1].vy == pytest.approx(vc * (1 - e) / 2, rel=1e-12)
    assert after[0].vy == pytest.approx(vc * (1 + e) / 2, rel=1e-12)
    assert after[1].vx == pytest.approx(0.0, abs=1e-12)
    # Both then slide the closed-form distances (if they stay on the board).
    shooter_stop = -12.0 + gap + (vc * (1 - e) / 2) ** 2 / (2 * A)
    assert result.discs[1].position.y == pytest.approx(shooter_stop, abs=1e-9)


def test_peg_bounce_head_on_reflects_scaled_by_e() -> None:
    e = B.restitution_peg
    peg = B.pegs[6]  # at 292.5°
    ux, uy = peg.x / peg.norm(), peg.y / peg.norm()
    start = Point(peg.x + ux * 6.0, peg.y + uy * 6.0)
    v0 = 40.0
    result = simulate_shot(B, [], Launch(start.x, start.y, -ux * v0, -uy * v0))
    first = result.contacts[0]
    assert (first.kind, first.other) == (ContactKind.PEG, 6)
    travelled = 6.0 - (R + B.peg_radius)
    vc = math.sqrt(v0 * v0 - 2 * A * travelled)
    ev = next(ev for ev in result.events if ev.kind is EventKind.PEG_CONTACT)
    assert ev.vx == pytest.approx(ux * e * vc, rel=1e-9)
    assert ev.vy == pytest.approx(uy * e * vc, rel=1e-9)


@pytest.mark.parametrize("offset", [0.1, 0.4, 0.7])
def test_oblique_peg_bounce_keeps_tangent_and_scales_normal(offset: float) -> None:
    e = B.restitution_peg
    peg = B.pegs[7]  # at 337.5°, the first peg met going north along x ≈ 3.7
    start = Point(peg.x - offset, -9.0)
    v0 = 60.0
    result = simulate_shot(B, [], Launch(start.x, start.y, 0.0, v0))
    ev = next(ev for ev in result.events if ev.kind is EventKind.PEG_CONTACT)
    # Independent contact point: on x = start.x at distance R + r_peg below the peg.
    y_contact = peg.y - math.sqrt((R + B.peg_radius) ** 2 - offset**2)
    assert ev.x == pytest.approx(start.x, abs=1e-12)
    assert ev.y == pytest.approx(y_contact, abs=1e-9)
    vc = math.sqrt(v0 * v0 - 2 * A * (y_contact - start.y))
    nx, ny = (ev.x - peg.x) / (R + B.peg_radius), (ev.y - peg.y) / (R + B.peg_radius)
    # Incoming velocity (0, vc); normal n from the peg to the disc, tangent t = (-ny, nx).
    vn_in, vt_in = vc * ny, vc * nx
    vn_out = ev.vx * nx + ev.vy * ny
    vt_out = ev.vx * (-ny) + ev.vy * nx
    assert vn_in < 0
    assert vn_out == pytest.approx(-e * vn_in, rel=1e-9)
    assert vt_out == pytest.approx(vt_in, rel=1e-9, abs=1e-12)


def _pre_post(result: ShotResult, disc: int, time: float) -> tuple[Point, Point]:
    _, before = result.state_at(disc, time, before=True)
    _, after = result.state_at(disc, time)
    return before, after


def _scatter_result() -> ShotResult:
    discs = [(0.3, -6.0), (-1.0, -3.0), (1.5, 1.6), (-2.0, 5.5), (5.0, -2.0), (-6.0, 1.0)]
    return simulate_shot(B, discs, Launch(0.2, -12.0, 1.0, 110.0))


def test_momentum_is_conserved_and_energy_never_rises_in_disc_contacts() -> None:
    e = B.restitution_disc
    result = _scatter_result()
    disc_contacts = [c for c in result.contacts if c.kind is ContactKind.DISC]
    assert len(disc_contacts) >= 2
    for c in disc_contacts:
        bi, ai = _pre_post(result, c.disc, c.time)
        bj, aj = _pre_post(result, c.other, c.time)
        assert ai.x + aj.x == pytest.approx(bi.x + bj.x, abs=1e-9)
        assert ai.y + aj.y == pytest.approx(bi.y + bj.y, abs=1e-9)
        ke_before = _speed(bi) ** 2 + _speed(bj) ** 2
        ke_after = _speed(ai) ** 2 + _speed(aj) ** 2
        assert ke_after <= ke_before + 1e-9
        # Relative normal speed reverses, scaled by e.
        pi = result.position_at(c.disc, c.time)
        pj = result.position_at(c.other, c.time)
        d = pi.distance_to(pj)
        assert d == pytest.approx(2 * R, abs=1e-9)
        nx, ny = (pj.x - pi.x) / d, (pj.y - pi.y) / d
        rel_before = (bi.x - bj.x) * nx + (bi.y - bj.y) * ny
        rel_after = (ai.x - aj.x) * nx + (ai.y - aj.y) * ny
        if rel_before > 0:
            assert rel_after == pytest.approx(-e * rel_before, rel=1e-9, abs=1e-9)


def test_kinetic_energy_never_rises_between_events() -> None:
    result = _scatter_result()
    times = sorted({ev.time for ev in result.events} | set(np.linspace(0, result.duration, 50)))
    energies = []
    for t in times:
        energy = 0.0
        for i in range(len(result.discs)):
            if result.on_board_at(i, t):
                _, v = result.state_at(i, t)
                energy += _speed(v) ** 2
        energies.append(energy)
    assert all(b <= a + 1e-9 for a, b in itertools.pairwise(energies))


def _entry_speed_threshold() -> float:
    """Speed at which a disc crossing the hole's centre spends exactly the fall time over it."""
    t_fall = math.sqrt(2 * B.hole_depth / B.gravity)
    chord = 2 * B.hole_radius
    return (chord + A * t_fall**2 / 2) / t_fall


def _launch_for_entry_speed(v_in: float) -> Launch:
    to_hole = 12.0 - B.hole_radius
    return Launch(0.0, -12.0, 0.0, math.sqrt(v_in**2 + 2 * A * to_hole))


def test_hole_capture_threshold_matches_the_fall_time() -> None:
    threshold = _entry_speed_threshold()
    assert 32.0 < threshold < 45.0  # BOARD.md: published capture speeds 32–45 in/s
    slow = simulate_shot(B, [], _launch_for_entry_speed(threshold - 0.5))
    fast = simulate_shot(B, [], _launch_for_entry_speed(threshold + 0.5))
    assert slow.discs[0].status is DiscStatus.IN_HOLE
    assert fast.discs[0].status is not DiscStatus.IN_HOLE
    kinds = [ev.kind for ev in fast.events]
    assert EventKind.HOLE_ENTER in kinds and EventKind.HOLE_EXIT in kinds


def test_slow_disc_drops_and_full_power_skims_to_the_ditch() -> None:
    slow = simulate_shot(B, [], Launch(0.0, -12.0, 0.0, math.sqrt(2 * A * 12.2)))
    assert slow.discs[0].status is DiscStatus.IN_HOLE
    assert slow.discs[0].position.norm() < B.hole_radius
    fast = simulate_shot(B, [], Launch(0.0, -12.0, 0.0, 120.0))
    assert fast.discs[0].status is DiscStatus.IN_DITCH
    assert fast.discs[0].position.norm() == pytest.approx(B.surface_radius, abs=1e-9)
    assert fast.discs[0].crossed_line


def test_disc_stopping_with_its_centre_over_the_hole_drops_after_the_fall_time() -> None:
    # It stops 0.02" inside the hole's edge, sooner than the fall time, then drops.
    t_fall = B.hole_drop_time
    inside = 0.02
    assert math.sqrt(2 * inside / A) < t_fall
    stop_y = -(B.hole_radius - inside)
    result = simulate_shot(B, [], Launch(0.0, -12.0, 0.0, math.sqrt(2 * A * (12.0 + stop_y))))
    assert result.discs[0].status is DiscStatus.IN_HOLE
    assert result.discs[0].position.y == pytest.approx(stop_y, abs=1e-9)
    by_kind = {ev.kind: ev for ev in result.events}
    assert by_kind[EventKind.STOP].time < by_kind[EventKind.DROP].time
    assert by_kind[EventKind.DROP].time == pytest.approx(
        by_kind[EventKind.HOLE_ENTER].time + t_fall, rel=1e-12
    )


def test_slow_disc_over_the_hole_drops_once_the_fall_time_has_passed() -> None:
    v0 = math.sqrt(2 * A * (12.0 - 0.4))
    result = simulate_shot(B, [], Launch(0.0, -12.0, 0.0, v0))
    enter = next(ev for ev in result.events if ev.kind is EventKind.HOLE_ENTER)
    drop = next(ev for ev in result.events if ev.kind is EventKind.DROP)
    t_fall = B.hole_drop_time
    assert drop.time == pytest.approx(enter.time + t_fall, rel=1e-12)
    t = drop.time
    assert drop.y == pytest.approx(-12.0 + v0 * t - A * t * t / 2, abs=1e-9)
    assert result.discs[0].status is DiscStatus.IN_HOLE


def test_hanger_stays_on_the_board() -> None:
    # The centre stops just outside the hole: the disc leans over it and stays.
    stop_y = -(B.hole_radius + 1e-6)
    result = simulate_shot(B, [], Launch(0.0, -12.0, 0.0, math.sqrt(2 * A * (12.0 + stop_y))))
    assert result.discs[0].status is DiscStatus.ON_BOARD
    assert result.discs[0].position.y == pytest.approx(stop_y, abs=1e-9)


#: R5 / BOARD.md: a disc reaches the shooting line when its rim touches the
#: line's near edge, its centre 12 − 1/32 − 0.625 in from the board's centre.
REACH = B.shooting_line_radius - B.line_width / 2 - R
#: A hair, far above the simulator's rounding (1e-12 in) and its 1e-9 in line tolerance.
HAIR = 1e-6


def test_the_line_is_reached_when_the_rim_touches_it() -> None:
    # R5: a disc sliding outward from just inside reaches the line when its
    # centre is at 11.34375, not 12.
    assert REACH == 11.34375
    result = simulate_motion(B, [(0.0, 11.0)], [(0.0, 10.0)])
    out = next(ev for ev in result.events if ev.kind is EventKind.LINE_OUT)
    assert math.hypot(out.x, out.y) == pytest.approx(REACH, abs=1e-9)
    travel = REACH - 11.0
    assert out.time == pytest.approx((10 - math.sqrt(100 - 2 * A * travel)) / A, rel=1e-9)
    assert out.beyond_line and result.discs[0].crossed_line


@pytest.mark.parametrize(("stop", "reached"), [(REACH + HAIR, True), (REACH - HAIR, False)])
def test_a_disc_stopping_a_hair_over_or_short_of_the_line(stop: float, reached: bool) -> None:
    # R5 boundary both ways: the centre stops a hair past 11.34375 (the rim
    # over the line's near edge) or a hair short of it.
    start = 9.0
    result = simulate_motion(B, [(0.0, start)], [(0.0, math.sqrt(2 * A * (stop - start)))])
    assert result.discs[0].position.y == pytest.approx(stop, abs=1e-9)
    assert result.discs[0].crossed_line is reached
    assert (EventKind.LINE_OUT in [ev.kind for ev in result.events]) is reached


def _head_on_at(contact_y: float) -> ShotResult:
    """Disc 0 slides outward up x = 0 and meets disc 1, coming in, with its centre at contact_y.

    Closed form: both decelerate at A; they touch (centres 2R apart) at
    t = 0.01 s with disc 0 at contact_y doing 2 in/s and disc 1 doing 10 in/s.
    The impulse sends disc 0 back in (0.95·10 − 0.05·2 = 9.4 in/s) to stop
    9.4²/2A ≈ 0.95 in inside, fully inside the line.
    """
    t, v0, v1 = 0.01, 2.0, 10.0
    w0, w1 = v0 + A * t, v1 + A * t
    y0 = contact_y - (w0 * t - A * t * t / 2)
    y1 = contact_y + 2 * R + (w1 * t - A * t * t / 2)
    return simulate_motion(B, [(0.0, y0), (0.0, y1)], [(0.0, w0), (0.0, -w1)])


@pytest.mark.parametrize(("contact_y", "over"), [(REACH + HAIR, True), (REACH - HAIR, False)])
def test_a_touch_a_hair_over_or_short_of_the_line(contact_y: float, over: bool) -> None:
    # R5: a disc that touches another while its rim is over the line is judged
    # by the come-back rule; a hair short of the line it is not.
    result = _head_on_at(contact_y)
    (contact,) = result.contacts
    assert contact.disc == 0 and contact.other == 1
    assert contact.time == pytest.approx(0.01, abs=1e-9)
    assert contact.disc_beyond_line is over
    first = result.discs[0]
    assert first.touched_beyond_line is over and first.crossed_line is over
    assert first.status is DiscStatus.ON_BOARD
    back = contact_y - 9.4**2 / (2 * A)
    assert first.position.y == pytest.approx(back, abs=1e-6)
    # It came back fully inside in both cases: a LINE_IN only where it had reached the line.
    assert (EventKind.LINE_IN in [ev.kind for ev in result.events if ev.disc == 0]) is over


def test_a_disc_shot_inwards_from_the_line_never_counts_as_beyond_it() -> None:
    # The shot disc starts on the shooting line (R3); rounding of its placement
    # must not make it "beyond the line" (which R5's come-back rule would judge).
    rng = np.random.default_rng(3)
    for seat in Seat:
        launches = B.launches(
            seat,
            rng.uniform(-B.placement_limit, B.placement_limit, 400),
            rng.uniform(-60.0, 60.0, 400),
            rng.uniform(1.0, 20.0, 400),
        )
        batch = simulate_batch(B, [], launches)
        assert not batch.crossed_line[:, 0].any()


def test_a_disc_shot_outwards_never_reaches_the_line() -> None:
    # R5: the shot disc starts on the line and counts as reaching it only
    # after it has once been fully inside; shot outwards it never is.
    launch = B.launch(Seat.SOUTH, Shot(position=0.0, direction=180.0, power=10.0))
    result = simulate_shot(B, [], launch)
    assert [ev.kind for ev in result.events] == [EventKind.LAUNCH, EventKind.DITCH]
    assert not result.discs[0].crossed_line


def test_the_shot_disc_reaches_the_line_on_the_far_side_after_being_inside() -> None:
    # R5: shot straight across, it is fully inside 0.65625 in from its start
    # and reaches the line again where its centre is 11.34375 from the centre.
    result = simulate_shot(B, [], Launch(0.0, -12.0, 0.0, 100.0))
    outs = [ev for ev in result.events if ev.kind is EventKind.LINE_OUT]
    assert len(outs) == 1 and outs[0].y == pytest.approx(REACH, abs=1e-9)
    assert result.discs[0].crossed_line
    assert result.discs[0].status is DiscStatus.IN_DITCH
