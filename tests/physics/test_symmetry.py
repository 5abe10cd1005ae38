"""Simultaneous contacts are resolved together: symmetric positions give symmetric results.

A shot straight at the seam of two touching discs meets both at the same
instant.  Resolving those contacts one after the other, in index order, made
mirror-image shots give results that were not mirror images; they are now one
impulse system.  Expected values come from the closed form of that system and
from symmetry itself: mirroring a position about the shot's axis mirrors the
outcome, and relabelling the discs (permuting their indices) changes no
status, contact or flag, and rest positions only by rounding.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from crokinole.board import TOURNAMENT_BOARD, Launch, Point
from crokinole.physics import (
    ContactKind,
    DiscStatus,
    ShotResult,
    simulate_batch,
    simulate_motion,
    simulate_shot,
)

B = TOURNAMENT_BOARD
A = B.deceleration
R = B.disc_radius
E = B.restitution_disc
PEGS = B.peg_array()
#: Mirrored results agree to this many inches.  Not to the bit: the pegs'
#: coordinates, from cos/sin, are mirror images only to rounding, and each
#: bounce off a peg magnifies that difference (a disc bouncing round an
#: empty board has been seen to end 1.3e-9 inch from its mirror image).
CLOSE = 1e-6


def _mirror_x(points: np.ndarray) -> np.ndarray:
    return np.column_stack([-points[:, 0], points[:, 1]])


def _assert_same_outcome(
    a: ShotResult, b: ShotResult, order: np.ndarray, mirror: bool = False
) -> None:
    """Disc i of ``a`` ended where disc ``order[i]`` of ``b`` did (mirrored in x if asked)."""
    final_b = b.final_array[order]
    if mirror:
        final_b = _mirror_x(final_b)
    assert a.status_array.tolist() == b.status_array[order].tolist()
    np.testing.assert_allclose(a.final_array, final_b, rtol=0.0, atol=CLOSE)


def _velocities_after(result: ShotResult, time: float) -> list[Point]:
    return [result.state_at(i, time)[1] for i in range(len(result.discs))]


def _velocities_before(result: ShotResult, time: float) -> list[Point]:
    return [result.state_at(i, time, before=True)[1] for i in range(len(result.discs))]


@pytest.mark.parametrize("speed", [25.0, 45.0, 80.0, 120.0])
def test_a_shot_at_the_seam_of_two_touching_discs_is_one_symmetric_impulse(speed: float) -> None:
    y0 = -6.0  # between the shot and the hole
    result = simulate_shot(B, [(-R, y0), (R, y0)], Launch(0.0, -12.0, 0.0, speed))
    contacts = [c for c in result.contacts if c.kind is ContactKind.DISC]
    first, second = contacts[0], contacts[1]
    assert {first.other, second.other} == {0, 1} and first.disc == second.disc == 2
    assert first.time == second.time
    # Closed form.  At contact the shot disc's centre is 2R from both, on the
    # axis: the normals are (∓1/2, √3/2).  Compression: the struck discs and
    # the shot disc stop approaching, λ = √3 vc / 5 each; restitution adds e λ.
    # Shot disc: vc (1 − 3 (1 + e) / 5); each struck disc (1 + e) λ along its normal.
    y_contact = y0 - 2 * R * math.sqrt(3) / 2
    vc = math.sqrt(speed * speed - 2 * A * (y_contact + 12.0))
    lam = math.sqrt(3) * vc / 5
    after = _velocities_after(result, first.time)
    assert after[2].x == pytest.approx(0.0, abs=1e-12)
    assert after[2].y == pytest.approx(vc * (1 - 3 * (1 + E) / 5), rel=1e-12)
    for disc, sign in ((0, -1.0), (1, 1.0)):
        assert after[disc].x == pytest.approx(sign * (1 + E) * lam / 2, rel=1e-12)
        assert after[disc].y == pytest.approx((1 + E) * lam * math.sqrt(3) / 2, rel=1e-12)
    # The outcome is its own mirror image: disc 0 ends where disc 1 does, mirrored.
    mirrored = _mirror_x(result.final_array[[1, 0, 2]])
    np.testing.assert_allclose(result.final_array, mirrored, rtol=0.0, atol=CLOSE)
    assert result.status_array[0] == result.status_array[1]


def test_simultaneous_contacts_conserve_momentum_and_never_add_energy() -> None:
    # A disc struck on the axis while touching two discs placed symmetrically
    # behind it, and the seam shot: contacts of several discs at one instant.
    behind = [(0.0, 2.0), (-R, 2.0 + 2 * R * math.sqrt(3) / 2), (R, 2.0 + R * math.sqrt(3))]
    scenes = [
        ([(-R, -6.0), (R, -6.0)], Launch(0.0, -12.0, 0.0, 60.0)),
        (behind, Launch(0.0, -12.0, 0.0, 70.0)),
    ]
    for discs, launch in scenes:
        result = simulate_shot(B, discs, launch)
        times = sorted({c.time for c in result.contacts if c.kind is ContactKind.DISC})
        assert len(times) < len([c for c in result.contacts if c.kind is ContactKind.DISC])
        for t in times:
            before = _velocities_before(result, t)
            after = _velocities_after(result, t)
            assert sum(v.x for v in after) == pytest.approx(sum(v.x for v in before), abs=1e-9)
            assert sum(v.y for v in after) == pytest.approx(sum(v.y for v in before), abs=1e-9)
            ke_before = sum(v.x**2 + v.y**2 for v in before)
            ke_after = sum(v.x**2 + v.y**2 for v in after)
            assert ke_after <= ke_before + 1e-9


@pytest.mark.parametrize("speed", [21.6, 22.0, 23.0, 26.0])
def test_a_slow_push_at_the_seam_finishes(speed: float) -> None:
    # Just enough speed to reach the pair (21.5 in/s) and push it a little:
    # repeated simultaneous contacts must end (the event cap raises otherwise).
    result = simulate_shot(B, [(-R, -6.0), (R, -6.0)], Launch(0.0, -12.0, 0.0, speed))
    assert len(result.contacts) >= 2
    final = result.final_array
    assert final[0, 0] == pytest.approx(-final[1, 0], abs=CLOSE)
    assert final[0, 1] == pytest.approx(final[1, 1], abs=CLOSE)


def test_three_discs_meeting_at_one_point_rebound_with_e_times_their_speed() -> None:
    # Three discs sliding at the same speed towards a point from 120° apart
    # meet at the same instant, centres 2R/√3 from it.  Jointly, compression
    # stops all three (momentum is zero and no pair may approach); restitution
    # sends each straight back at e times its arrival speed.
    centre = np.array([0.0, 7.5])
    angles = np.radians([90.0, 210.0, 330.0])
    dirs = np.column_stack([np.cos(angles), np.sin(angles)])
    v0 = 20.0
    result = simulate_motion(B, centre + 3.0 * dirs, -v0 * dirs)
    t = min(c.time for c in result.contacts)
    assert len([c for c in result.contacts if c.time == t]) == 3
    vc = math.sqrt(v0 * v0 - 2 * A * (3.0 - 2 * R / math.sqrt(3)))
    for k, v in enumerate(_velocities_after(result, t)):
        assert v.x == pytest.approx(E * vc * dirs[k, 0], abs=1e-9)
        assert v.y == pytest.approx(E * vc * dirs[k, 1], abs=1e-9)
    dist = np.hypot(*(result.final_array - centre).T)
    np.testing.assert_allclose(dist, dist[0], rtol=0.0, atol=CLOSE)


@st.composite
def symmetric_positions(draw: st.DrawFn) -> np.ndarray:
    """A position that is its own mirror image about x = 0.

    Discs right of the axis (far enough out that a disc and its mirror image
    do not overlap) with their mirror images, discs on the axis, and pairs
    touching at the axis (a seam).  Discs are kept greedily if legal.
    """
    kept: list[tuple[float, float]] = []

    def free(p: tuple[float, float]) -> bool:
        r = math.hypot(*p)
        if not (B.hole_radius + 1e-6 < r < 11.3):
            return False
        if np.min(np.hypot(PEGS[:, 0] - p[0], PEGS[:, 1] - p[1])) < R + B.peg_radius:
            return False
        # Keep the shot's start (0, -12) clear.
        return math.dist(p, (0.0, -12.0)) >= 2 * R and all(
            math.dist(p, q) >= 2 * R - 1e-12 for q in kept
        )

    items = draw(
        st.lists(
            st.tuples(
                st.sampled_from(["pair", "axis", "seam"]),
                st.floats(0.0, 11.3),
                st.floats(-11.3, 11.3),
            ),
            max_size=12,
        )
    )
    for kind, x, y in items:
        if kind == "axis":
            new = [(0.0, y)]
        elif kind == "seam":
            new = [(-R, y), (R, y)]
        else:
            new = [(-max(x, R), y), (max(x, R), y)]
        if all(free(p) for p in new):
            kept.extend(new)
    return np.array(kept, dtype=np.float64).reshape(-1, 2)


def _mirror_order(discs: np.ndarray) -> np.ndarray:
    """For each disc, the index of its mirror image (the shot disc, last, is its own)."""
    order = []
    for x, y in discs:
        match = np.flatnonzero((discs[:, 0] == -x) & (discs[:, 1] == y))
        order.append(int(match[0]))
    return np.array([*order, len(discs)])


@settings(max_examples=120, deadline=None)
@given(symmetric_positions(), st.floats(5.0, 120.0), st.randoms(use_true_random=False))
def test_a_symmetric_position_shot_along_its_axis_gives_a_symmetric_outcome(
    discs: np.ndarray, speed: float, rnd: object
) -> None:
    launch = Launch(0.0, -12.0, 0.0, speed)
    result = simulate_shot(B, discs, launch)
    _assert_same_outcome(result, result, _mirror_order(discs), mirror=True)


@st.composite
def positions(draw: st.DrawFn) -> np.ndarray:
    """Up to 14 legal discs, some placed touching an earlier one."""
    kept: list[tuple[float, float]] = []
    for _ in range(draw(st.integers(0, 14))):
        if kept and draw(st.booleans()):
            base = kept[draw(st.integers(0, len(kept) - 1))]
            angle = draw(st.floats(0.0, 2 * math.pi))
            p = (base[0] + 2 * R * math.cos(angle), base[1] + 2 * R * math.sin(angle))
        else:
            p = (draw(st.floats(-11.3, 11.3)), draw(st.floats(-11.3, 11.3)))
        if not B.hole_radius + 1e-6 < math.hypot(*p) < 11.3:
            continue
        if np.min(np.hypot(PEGS[:, 0] - p[0], PEGS[:, 1] - p[1])) < R + B.peg_radius:
            continue
        if all(math.dist(p, q) >= 2 * R - 1e-12 for q in kept):
            kept.append(p)
    return np.array(kept, dtype=np.float64).reshape(-1, 2)


# Start x on the south of the shooting line, the x aimed at on the north of
# it, and the speed; often straight along the y axis (the axis of the
# symmetric positions, where contacts tie).
launch_rows = st.tuples(
    st.just(0.0) | st.floats(-4.0, 4.0),
    st.just(0.0) | st.floats(-3.0, 3.0),
    st.floats(5.0, 120.0),
)


def _launch(discs: np.ndarray, x: float, aim: float, speed: float) -> Launch:
    start = np.array([x, -math.sqrt(12.0**2 - x * x)])
    direction = np.array([aim - x, 12.0 - start[1]])
    v = speed * direction / np.hypot(*direction)
    if discs.size:
        assume(np.hypot(discs[:, 0] - start[0], discs[:, 1] - start[1]).min() >= 2 * R)
    return Launch(float(start[0]), float(start[1]), float(v[0]), float(v[1]))


@settings(max_examples=80, deadline=None)
@given(positions(), launch_rows)
def test_mirroring_a_position_and_its_shot_mirrors_the_outcome(
    discs: np.ndarray, row: tuple[float, float, float]
) -> None:
    launch = _launch(discs, *row)
    result = simulate_shot(B, discs, launch)
    mirrored = simulate_shot(
        B, _mirror_x(discs), Launch(-launch.x, launch.y, -launch.vx, launch.vy)
    )
    _assert_same_outcome(result, mirrored, np.arange(len(discs) + 1), mirror=True)


#: Relabelled results agree to this many inches.  The kernel takes the
#: contacts of an instant in an order of their own and every disc's own event
#: of an instant together, so in 60,000 examples (20,000 for each of three
#: seeds) every rest position was the same to the bit; before, with index
#: order, 5% differed, by up to 8e-10 inch, and the contacts of some did too.
#: Not asserted to the bit: an exact tie between a contact and another disc's
#: own event is still taken in index order, a rounding apart.
RELABEL_CLOSE = 1e-12


def _contact_set(result: ShotResult, label: np.ndarray) -> list[tuple[object, ...]]:
    """The contacts as (kind, discs or disc and peg, beyond-line flags), discs as ``label``."""
    out: list[tuple[object, ...]] = []
    for c in result.contacts:
        disc = int(label[c.disc])
        if c.kind is ContactKind.DISC:
            other = int(label[c.other])
            pair = sorted([(disc, c.disc_beyond_line), (other, c.other_beyond_line)])
            out.append(("disc", *pair))
        else:
            out.append(("peg", disc, c.other, c.disc_beyond_line))
    return sorted(out, key=repr)


def _assert_relabelling_changes_nothing_but_rounding(
    discs: np.ndarray, perm: np.ndarray, launch: Launch
) -> None:
    """Shooting at ``discs[perm]`` gives what shooting at ``discs`` does, relabelled."""
    result = simulate_shot(B, discs, launch)
    relabelled = simulate_shot(B, discs[perm], launch)
    # Disc perm[k] of the original is disc k of the relabelled position.
    back = np.empty(len(discs) + 1, dtype=np.int64)
    back[perm] = np.arange(len(discs))
    back[-1] = len(discs)
    original = np.append(perm, len(discs))  # relabelled disc k is original disc original[k]
    assert result.status_array.tolist() == relabelled.status_array[back].tolist()
    assert np.array_equal(result.flag_array, relabelled.flag_array[back])
    assert _contact_set(result, np.arange(len(discs) + 1)) == _contact_set(relabelled, original)
    np.testing.assert_allclose(
        result.final_array, relabelled.final_array[back], rtol=0.0, atol=RELABEL_CLOSE
    )
    batch = simulate_batch(B, discs[perm], [[launch.x, launch.y, launch.vx, launch.vy]])
    assert np.array_equal(batch.positions[0], relabelled.final_array)
    assert np.array_equal(batch.statuses[0], relabelled.status_array)


class _Reversing:
    """Stands in for the drawn random: its shuffle reverses, for an explicit example."""

    def shuffle(self, items: np.ndarray) -> None:
        items[:] = items[::-1].copy()


@settings(max_examples=150, deadline=None)
@given(symmetric_positions() | positions(), launch_rows, st.randoms(use_true_random=False))
# The seam shot that failed (see the regression cases below): the two discs
# ended 2e-12 inch from where they ended relabelled.
@example(np.array([[-R, -3.0], [R, -3.0]]), (0.0, 0.0, 94.0), _Reversing())
def test_relabelling_the_discs_changes_nothing_but_rounding(
    discs: np.ndarray, row: tuple[float, float, float], rnd: object
) -> None:
    # What holds under relabelling (the kernel's docstring): the same
    # statuses, contacts and flags, and rest positions equal to rounding.
    launch = _launch(discs, *row)
    perm = np.arange(len(discs))
    rnd.shuffle(perm)  # type: ignore[attr-defined]
    _assert_relabelling_changes_nothing_but_rounding(discs, perm, launch)


# Inputs on which relabelling used to change the outcome (found by the
# property above with many more examples).
RELABELLING_CASES = {
    # Joint solve in index order: the seam contacts' impulses rounded apart
    # by an ulp, which the discs' bounces off pegs and each other then grew
    # to 2e-12 inch.
    "seam": ([[-R, -3.0], [R, -3.0]], [1, 0], (0.0, -12.0, 0.0, 94.0)),
    # A cluster of four touching discs struck at once: the same rounding,
    # grown to 6e-10 inch, ended a run of ever-closer bounces of discs 2
    # and 4 one bounce sooner (11 contacts instead of 12).
    "cluster": (
        [
            [1.6506612497616686, -1.1125369292536007e-308],
            [0.7320390555790757, -0.8477223981676776],
            [0.7413795891787942, -2.0976874994533388],
            [1.1336702726904604, 1.1380774708370942],
            [0.4336529091829949, -3.3092172309988603],
            [1.9913795891787942, -2.0976874994533388],
        ],
        [3, 2, 5, 1, 0, 4],
        (0.0, -12.0, 0.0, 59.560735097775854),
    ),
    # Discs 3 and 9 stick and slide on together, so they stop at the same
    # instant; stopped one at a time, the one behind touched the one in
    # front (one contact more) only when the front one had the lower index.
    "stuck pair": (
        [
            [-3.179642981389306, -6.934034275879608],
            [3.179642981389306, -6.934034275879608],
            [0.0, -2.851514172707292],
            [-R, 0.99999],
            [R, 0.99999],
            [-R, 8.068124645339928],
            [R, 8.068124645339928],
            [-R, -7.247629045144808],
            [R, -7.247629045144808],
            [-R, -0.99999],
            [R, -0.99999],
            [0.0, -10.349468866327404],
        ],
        [11, 7, 1, 6, 9, 5, 0, 4, 10, 3, 8, 2],
        (3.443015439568269, -11.495461916899838, -5.401804310387691, 87.95324289477566),
    ),
}


@pytest.mark.parametrize("case", list(RELABELLING_CASES))
def test_relabelling_known_cases_changes_nothing_but_rounding(case: str) -> None:
    discs, perm, launch = RELABELLING_CASES[case]
    _assert_relabelling_changes_nothing_but_rounding(
        np.array(discs, dtype=np.float64), np.array(perm), Launch(*launch)
    )


def test_statuses_of_the_seam_shot_agree_under_relabelling() -> None:
    one = simulate_shot(B, [(-R, 6.0), (R, 6.0)], Launch(0.0, -12.0, 0.0, 60.0))
    two = simulate_shot(B, [(R, 6.0), (-R, 6.0)], Launch(0.0, -12.0, 0.0, 60.0))
    assert len(one.contacts) >= 2
    _assert_same_outcome(one, two, np.array([1, 0, 2]))
    assert [d.status for d in one.discs] == [
        DiscStatus.IN_DITCH,
        DiscStatus.IN_DITCH,
        DiscStatus.ON_BOARD,
    ]
