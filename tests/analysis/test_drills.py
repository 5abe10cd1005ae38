"""Drills and the daily challenge (crokinole.analysis.drills).

Each drill's setup is checked against what its name promises (R1's board,
R5's hanger, R6's zones), and its scoring against shots whose outcome
follows from geometry and the rules:

* a full hit (aimed through the target's centre) passes 95% of the
  shooter's speed to the target and leaves the shooter 5% (restitution 0.9,
  BOARD.md), so the shooter stops next to where the target was;
* a disc that misses every opposing disc makes a foul (R4), whatever it does;
* a disc dropping slowly into the hole is a 20 (R5), one faster than the
  capture speed (BOARD.md: about 32-45 in/s) skims over it.
"""

from __future__ import annotations

import datetime
import math

import numpy as np
import pytest

from crokinole import TOURNAMENT_BOARD, Seat, Shot, Zone
from crokinole.ai.aim import direction_towards, path_is_clear, power_for
from crokinole.analysis.drills import (
    CHALLENGE_ATTEMPTS,
    DRILLS,
    MAX_ATTEMPTS,
    challenge_points,
    daily_challenge,
    score_challenge,
    score_drill,
)
from crokinole.analysis.practice import PracticePosition, practice_game, practice_shot
from crokinole.board import Point
from crokinole.errors import AnalysisError
from crokinole.physics import ContactKind, DiscStatus
from crokinole.rules import Phase

BOARD = TOURNAMENT_BOARD
R = BOARD.disc_radius
PEGS = np.array([[p.x, p.y] for p in BOARD.pegs])


def _clear_line(position: float, target: tuple[float, float]) -> bool:
    """Whether a disc from ``position`` reaches ``target`` touching no peg and not crossing
    the hole (its centre stays a disc radius from the hole's edge)."""
    start = BOARD.placement(Seat.SOUTH, position)
    if not path_is_clear(BOARD, (start.x, start.y), target, PEGS, R + BOARD.peg_radius):
        return False
    hole = np.array([[0.0, 0.0]])
    return path_is_clear(BOARD, (start.x, start.y), target, hole, BOARD.hole_radius + R)


def _full_hit(position: float, target: tuple[float, float], power: float) -> Shot:
    assert _clear_line(position, target)
    return Shot(position, direction_towards(BOARD, Seat.SOUTH, position, *target), power)


def _only(drill: str) -> tuple[float, float]:
    (_, x, y), *others = DRILLS[drill].setup.discs
    assert not others
    return (x, y)


def _score(drill: str, shot: Shot) -> int:
    return score_drill(drill, [shot]).score


# ------------------------------------------------------------------ setups


def test_every_setup_is_a_legal_position_south_to_shoot() -> None:
    for drill in DRILLS.values():
        game = practice_game(drill.setup)  # a reachable game state (R2-R6)
        assert game.phase is Phase.PLAYING and game.current_seat is Seat.SOUTH
        assert game.can_place(Seat.SOUTH)  # R3: room on the line
        assert drill.attempts >= 1 and drill.max_per_attempt >= 1
        assert drill.summary and drill.name


def test_every_example_scores_the_most_an_attempt_can() -> None:
    for drill in DRILLS.values():
        result = practice_shot(drill.setup, drill.example)
        assert drill.score_attempt(result) == drill.max_per_attempt, drill.id


def test_setups_are_what_their_names_say() -> None:
    assert DRILLS["open20"].setup.discs == ()
    # R5: a hanger leans over the hole's edge, its centre outside the hole.
    ((side, x, y),) = DRILLS["hanger20"].setup.discs
    assert side == "s"
    assert BOARD.hole_radius < math.hypot(x, y) < BOARD.hole_radius + R
    # Eight of theirs on the 15 line, each halfway between two pegs (R1: the pegs
    # stand on the 15 circle); touching the line they count 10 (R6).
    star = DRILLS["star8"].setup.discs
    assert len(star) == 8 and {s for s, _, _ in star} == {"n"}
    for _, x, y in star:
        assert math.hypot(x, y) == pytest.approx(BOARD.fifteen_radius, abs=0.01)
        gaps = [math.dist((x, y), (p.x, p.y)) for p in BOARD.pegs]
        assert sorted(gaps)[0] == pytest.approx(sorted(gaps)[1], abs=0.02)
        assert BOARD.zone_of(Point(x, y)) is Zone.TEN
    far, near = _only("far_side"), _only("near_side")
    assert BOARD.zone_of(Point(*far)) is Zone.TEN and far[1] > 0  # beyond the hole
    assert BOARD.zone_of(Point(*near)) is Zone.TEN and near[1] < 0  # the shooter's half
    assert BOARD.zone_of(Point(*_only("inside_out"))) is Zone.FIFTEEN
    # Follow-through: theirs blocks the straight line to the hole; ricochet: beside it.
    fx, fy = _only("follow20")
    assert BOARD.zone_of(Point(fx, fy)) is Zone.FIFTEEN and fy < 0 and abs(fx) < 2 * R
    rx, ry = _only("ricochet20")
    assert BOARD.zone_of(Point(rx, ry)) is Zone.FIFTEEN and abs(rx) > 2 * R and abs(ry) < R


# ------------------------------------------------------------------ scoring


def test_open20_straight_at_the_centre_scores_and_a_miss_does_not() -> None:
    assert _score("open20", Shot(0.0, 0.0, 28.0)) == 1  # stops over the hole: drops (R5)
    assert _score("open20", Shot(0.0, 0.0, 15.0)) == 0  # stops short of the 15: a foul (R4)
    assert _score("open20", Shot(0.0, 10.0, 28.0)) == 0  # wide of the hole
    # Too hard: skims over the hole (faster than it can drop) and off the board.
    assert _score("open20", Shot(0.0, 0.0, 100.0)) == 0


def test_hanger20_a_gentle_full_hit_sinks_the_hanger_a_hard_one_skims() -> None:
    hanger = _only("hanger20")
    # The placement on the hanger's radial line: a full hit drives it over the hole's centre.
    position = (math.degrees(math.atan2(hanger[1], hanger[0])) % 360.0) - 270.0
    distance = BOARD.shooting_line_radius - math.hypot(*hanger) - 2 * R
    gentle = Shot(position, 0.0, power_for(BOARD, distance, arrival_speed=10.0))
    hard = Shot(position, 0.0, power_for(BOARD, distance, arrival_speed=60.0))
    # 9.5 in/s drops; 57 in/s is beyond the capture speed. The shooter stops just
    # where it hit, inside the 15 (so the shot is valid either way, R4) and not in the hole.
    assert _score("hanger20", gentle) == 1
    assert _score("hanger20", hard) == 0
    assert practice_shot(DRILLS["hanger20"].setup, hard).valid


def test_hanger20_both_discs_in_scores_two() -> None:
    drill = DRILLS["hanger20"]
    physics = practice_shot(drill.setup, drill.example).trajectory
    assert physics is not None
    assert [d.status for d in physics.discs] == [DiscStatus.IN_HOLE, DiscStatus.IN_HOLE]
    assert _score("hanger20", drill.example) == 2


def test_star8_a_full_hit_up_the_middle_passes_on_to_the_far_disc() -> None:
    # Straight up the middle the shooter meets the star's near disc (0, -4) full on;
    # that disc crosses the hole too fast to drop and meets the far disc (0, 4) full
    # on: the far one leaves the board, the near one stops where the far one was,
    # the shooter stops where the near one was. One disc off and the shooter stays: 2.
    result = practice_shot(DRILLS["star8"].setup, Shot(0.0, 0.0, 100.0))
    (gone,) = result.removed_theirs
    assert gone.y > BOARD.shooting_line_radius  # off the far (north) edge
    assert result.shot_disc is not None and result.shot_disc.y < -BOARD.fifteen_radius
    assert DRILLS["star8"].score_attempt(result) == 2
    # A shot short of every disc: R4 foul, nothing.
    assert _score("star8", Shot(0.0, 0.0, 10.0)) == 0


@pytest.mark.parametrize(("drill", "position"), [("far_side", 15.0), ("near_side", 0.0)])
def test_takeouts_a_full_hit_removes_it_and_sticks(drill: str, position: float) -> None:
    target = _only(drill)
    result = practice_shot(DRILLS[drill].setup, _full_hit(position, target, 100.0))
    assert len(result.removed_theirs) == 1
    stuck = result.shot_disc
    assert stuck is not None and math.dist((stuck.x, stuck.y), target) < 2 * R
    assert DRILLS[drill].score_attempt(result) == 2
    # Aimed 20 degrees wide it touches nothing of theirs: a foul (R4) scores 0.
    miss = _full_hit(position, target, 100.0)
    assert _score(drill, Shot(miss.position, miss.direction + 20.0, 100.0)) == 0


def test_inside_out_drives_theirs_out_and_stays_in_the_fifteen() -> None:
    target = _only("inside_out")
    full = _full_hit(30.0, target, 100.0)
    result = practice_shot(DRILLS["inside_out"].setup, full)
    # Their disc leaves with 95% of a strong shot; ours stops a diameter short of
    # where it was, still inside the 15.
    assert len(result.removed_theirs) == 1
    assert result.shot_disc is not None
    assert BOARD.zone_of(result.shot_disc.centre) is Zone.FIFTEEN
    assert DRILLS["inside_out"].score_attempt(result) == 2
    # A touch that leaves their disc in the 15 scores nothing.
    soft = Shot(full.position, full.direction, power_for(BOARD, 9.0, arrival_speed=3.0))
    soft_result = practice_shot(DRILLS["inside_out"].setup, soft)
    left = [d for d in soft_result.report.board_after if d.owner is Seat.NORTH]
    assert left and BOARD.zone_of(left[0].centre) is Zone.FIFTEEN
    assert DRILLS["inside_out"].score_attempt(soft_result) == 0


def test_follow20_a_full_hit_stops_the_shooter_short_of_the_hole() -> None:
    target = _only("follow20")
    # Straight through their disc the shooter keeps 5% of its speed: it stops a
    # diameter short of where theirs was, outside the hole: no 20.
    position = (math.degrees(math.atan2(target[1], target[0])) % 360.0) - 270.0
    shot = Shot(position, direction_towards(BOARD, Seat.SOUTH, position, *target), 60.0)
    result = practice_shot(DRILLS["follow20"].setup, shot)
    assert result.valid and not result.twenty
    assert DRILLS["follow20"].score_attempt(result) == 0


@pytest.mark.parametrize("drill", ["follow20", "ricochet20"])
def test_carom_twenties_the_example_drops_after_touching_theirs(drill: str) -> None:
    result = practice_shot(DRILLS[drill].setup, DRILLS[drill].example)
    physics = result.trajectory
    assert physics is not None
    shooter = len(physics.discs) - 1  # the simulator lists the shot disc last
    touched = {
        c.other if c.disc == shooter else c.disc
        for c in physics.contacts
        if c.kind is ContactKind.DISC and shooter in (c.disc, c.other)
    }
    assert touched == {0}  # their disc, the only other
    assert physics.discs[shooter].status is DiscStatus.IN_HOLE
    assert physics.discs[0].status is not DiscStatus.IN_HOLE
    assert _score(drill, DRILLS[drill].example) == 1


def test_ricochet20_a_twenty_that_misses_theirs_is_a_foul() -> None:
    # Their disc sits more than a diameter beside the straight line: an open 20 up
    # the middle drops without touching it. R4: a foul; the 20 is cancelled.
    x, _ = _only("ricochet20")
    assert abs(x) > 2 * R
    result = practice_shot(DRILLS["ricochet20"].setup, Shot(0.0, 0.0, 28.0))
    assert result.foul == "no_contact" and not result.twenty
    assert result.report.cancelled_twenties
    assert _score("ricochet20", Shot(0.0, 0.0, 28.0)) == 0


# ------------------------------------------------------------------ sets


def test_a_set_sums_its_attempts_and_gives_a_percentage() -> None:
    make, miss = Shot(0.0, 0.0, 28.0), Shot(0.0, 10.0, 28.0)
    score = score_drill("open20", [make, miss, make, make])
    assert score.points == (1, 0, 1, 1)
    assert (score.score, score.best_possible, score.percent) == (3, 4, 75.0)
    assert not score.full  # fewer than the drill's 10 attempts
    ten = score_drill("open20", [make] * 7 + [miss] * 3)
    assert ten.full and ten.percent == 70.0
    star = score_drill("star8", [DRILLS["star8"].example, Shot(0.0, 0.0, 10.0)])
    assert (star.score, star.best_possible, star.percent) == (3, 6, 50.0)


def test_the_replay_is_the_same_every_time() -> None:
    shots = [Shot(-12.0, 3.5, 47.0), Shot(20.0, -9.0, 80.0), Shot(0.0, 1.0, 33.0)]
    assert score_drill("near_side", shots) == score_drill("near_side", shots)


def test_bad_sets_are_refused_plainly() -> None:
    with pytest.raises(AnalysisError, match="there is no drill 'bowling'"):
        score_drill("bowling", [Shot()])
    with pytest.raises(AnalysisError, match="send from 1 to 100 shots, not 0"):
        score_drill("open20", [])
    with pytest.raises(AnalysisError, match=f"not {MAX_ATTEMPTS + 1}"):
        score_drill("open20", [Shot(0.0, 0.0, 28.0)] * (MAX_ATTEMPTS + 1))
    with pytest.raises(AnalysisError, match=r"attempt 2: .*beyond the quadrant line"):
        score_drill("open20", [Shot(0.0, 0.0, 28.0), Shot(50.0, 0.0, 28.0)])
    with pytest.raises(AnalysisError, match=r"attempt 1: .*power 120(\.0)?% must lie between"):
        score_drill("open20", [Shot(0.0, 0.0, 120.0)])


def test_drill_payload() -> None:
    data = DRILLS["far_side"].to_dict()
    assert data["setup"] == {"seat": "south", "discs": [["n", 2.5, 6]]}
    assert set(data) == {
        "id", "name", "summary", "attempts", "max_per_attempt", "setup", "code", "example",
    }  # fmt: skip


# ------------------------------------------------------------------ daily challenge


def test_the_daily_challenge_is_the_same_for_a_date_and_differs_across_dates() -> None:
    day = datetime.date(2026, 12, 1)
    assert daily_challenge(day) == daily_challenge(datetime.date(2026, 12, 1))
    assert daily_challenge(datetime.datetime(2026, 12, 1, 23, 59)) == daily_challenge(day)
    positions = {daily_challenge(day + datetime.timedelta(days=k)).position for k in range(10)}
    assert len(positions) == 10
    challenge = daily_challenge(day)
    assert challenge.id == "daily-2026-12-01" and challenge.attempts == CHALLENGE_ATTEMPTS


def test_daily_positions_are_legal_and_playable() -> None:
    for k in range(20):
        challenge = daily_challenge(datetime.date(2027, 1, 1) + datetime.timedelta(days=k))
        mine, theirs = challenge.position.mine(), challenge.position.theirs()
        assert 2 <= len(mine) <= 4 and 3 <= len(theirs) <= 6
        game = practice_game(challenge.position)
        assert game.can_place(Seat.SOUTH)


def _count(pos: PracticePosition, letter: str) -> int:
    """A side's round count from the board alone (R6: the zone by the rim)."""
    return sum(BOARD.zone_of(Point(x, y)).value for s, x, y in pos.discs if s == letter)


def test_a_challenge_shot_scores_its_margin_gain() -> None:
    challenge = daily_challenge(datetime.date(2026, 12, 3))
    pos = challenge.position
    before = _count(pos, "s") - _count(pos, "n")
    shots = [Shot(-20.0, 5.0, 60.0), Shot(10.0, -3.0, 45.0), Shot(0.0, 0.0, 28.0)]
    points = challenge_points(challenge, shots)
    for shot, got in zip(shots, points, strict=True):
        result = practice_shot(pos, shot)
        after = _count(result.position_after, "s") - _count(result.position_after, "n")
        after += 20 * (result.own_twenties - result.their_twenties)
        assert got == after - before
    assert score_challenge(challenge, shots) == max(points)


def test_a_challenge_takes_at_most_its_attempts() -> None:
    challenge = daily_challenge(datetime.date(2026, 12, 3))
    with pytest.raises(AnalysisError, match="send from 1 to 3 shots, not 4"):
        score_challenge(challenge, [Shot(0.0, 0.0, 28.0)] * 4)
