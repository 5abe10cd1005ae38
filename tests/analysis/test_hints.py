"""Hints (analysis.hints): the Expert's best distinct shots, valued under an accuracy."""

from __future__ import annotations

import math

import pytest

from crokinole.analysis import Accuracy, AnalysisError, Hint, hints, value_shots
from crokinole.analysis.hints import Stop, stop_of
from crokinole.board import Seat, Shot
from crokinole.physics import DiscStatus, ShotResult
from crokinole.rules import Game, Rules, ShotReport
from tests.support.analysis_positions import crowded
from tests.support.rules_positions import game_at

S, N = Seat.SOUTH, Seat.NORTH


def _played(game: Game, hint: Hint) -> tuple[Game, ShotReport]:
    """The hint's shot played exactly (no noise) by the rules engine, on a copy."""
    after = game.copy()
    seat = after.current_seat
    assert seat is not None
    return after, after.shoot(seat, hint.value.shot)


def _left(game: Game, hint: Hint) -> tuple[tuple[int, ...], dict[int, tuple[float, float]]]:
    """Twenties per side and where each disc lies after the hint's shot played exactly."""
    after, _ = _played(game, hint)
    return after.twenties, {d.id: (d.x, d.y) for d in after.discs}


def _same_position(a: tuple, b: tuple) -> bool:  # type: ignore[type-arg]
    (twenties_a, discs_a), (twenties_b, discs_b) = a, b
    if twenties_a != twenties_b or discs_a.keys() != discs_b.keys():
        return False
    return all(
        abs(discs_a[i][0] - discs_b[i][0]) + abs(discs_a[i][1] - discs_b[i][1]) < 1.0
        for i in discs_a
    )


@pytest.mark.parametrize("accuracy", [Accuracy.human(), Accuracy.steady()])
def test_on_an_open_board_the_best_hint_is_the_open_twenty(accuracy: Accuracy) -> None:
    game = Game(Rules())
    best = hints(game, accuracy)[0]
    assert best.rank == 1
    shot = best.value.shot
    assert abs(shot.direction) < 2.0  # aimed down the centre line
    # R5: played exactly, the disc drops into the hole and is set aside for 20.
    after, report = _played(game, best)
    assert report.valid and after.twenties == (1, 0)
    # Under the human hand most of them drop (its open-20 rate is about 80%).
    assert best.value.twenty > (0.99 if accuracy.is_steady else 0.65)


def test_three_distinct_hints_not_three_variants_of_one_open_twenty() -> None:
    game = Game(Rules())
    three = hints(game, Accuracy.human())
    assert [h.rank for h in three] == [1, 2, 3]
    after = [_left(game, h) for h in three]
    assert sum(twenties == (1, 0) for twenties, _ in after) == 1  # one open 20, not three
    for i in range(3):
        for j in range(i + 1, 3):
            assert not _same_position(after[i], after[j])


def test_hints_are_ranked_by_round_win_chance() -> None:
    three = hints(crowded(1), Accuracy.human())
    wins = [h.value.round_win for h in three]
    assert wins == sorted(wins, reverse=True)


def test_a_hint_value_is_the_value_of_its_shot() -> None:
    # The figures a hint shows are those value_shots gives its shot (same seed,
    # same draws): the hint's numbers mean what the module says they mean.
    game = crowded(2)
    best = hints(game, Accuracy.steady())[0]
    assert value_shots(game, [best.value.shot], Accuracy.steady())[0] == best.value


def test_the_same_seed_gives_the_same_hints() -> None:
    game = crowded(3)
    first = hints(game, Accuracy.human(), seed=5)
    assert hints(game, Accuracy.human(), seed=5) == first
    other = hints(game, Accuracy.human(), seed=6)
    assert [h.value for h in other] != [h.value for h in first]  # the draws come from the seed


@pytest.mark.parametrize("seed", range(4))
def test_on_a_crowded_board_every_hint_touches_an_opposing_disc(seed: int) -> None:
    # R4, required contact: opposing discs are on the board, so a valid shot
    # must touch one.  Played exactly, every hint is valid and moves a north disc;
    # under the human hand nearly every draw is valid.
    game = crowded(seed)
    north_ids = {d.id for d in game.discs if d.owner is N}
    three = hints(game, Accuracy.human(), seed=seed)
    assert len(three) == 3
    for hint in three:
        _, report = _played(game, hint)
        assert report.valid
        assert north_ids & set(report.moved)
        assert hint.value.valid >= 0.8


def test_a_lone_opposing_disc_is_hit_not_the_open_twenty_fouled() -> None:
    # R4: with a north disc on the board, an open 20 would be a foul (and the
    # 20 cancelled), so the hints play at the north disc instead.
    game = game_at(Rules(), [(N, 3.0, 7.0)], S)
    (north,) = game.discs
    for hint in hints(game, Accuracy.steady()):
        _, report = _played(game, hint)
        assert report.valid and north.id in report.moved
        assert hint.value.valid == 1.0


def test_fewer_hints_and_the_fast_budget() -> None:
    game = crowded(4)
    (only,) = hints(game, Accuracy.human(), count=1, budget="fast")
    assert only.rank == 1 and only.value.valid >= 0.8
    assert only.to_dict()["rank"] == 1
    assert set(only.to_dict()) == {"rank", "shot", "margin", "round_win", "valid", "twenty", "stop"}
    stop = {"x", "y", "status", "path", "zone", "theirs_out", "ours_out"}
    assert set(only.to_dict()["stop"]) == stop


def test_nobody_to_shoot_and_bad_requests_are_analysis_errors() -> None:
    game = Game(Rules(rounds=1))
    while game.current_seat is not None:
        seat = game.current_seat
        game.shoot(seat, hints(game, Accuracy.steady(), count=1, budget="fast")[0].value.shot)
    with pytest.raises(AnalysisError, match="nobody is to shoot"):
        hints(game, Accuracy.human())
    with pytest.raises(AnalysisError, match="at least one hint"):
        hints(Game(Rules()), Accuracy.human(), count=0)
    with pytest.raises(AnalysisError, match="unknown hint budget"):
        hints(Game(Rules()), Accuracy.human(), budget="huge")


def _physics(game: Game, shot: Shot) -> ShotResult:
    """The simulator's run of ``shot`` as the rules engine plays it (exactly, on a copy)."""
    after = game.copy()
    seat = after.current_seat
    assert seat is not None
    result = after.shoot(seat, shot).physics
    assert result is not None
    return result


def _assert_stop_is_the_physics(stop: Stop, result: ShotResult) -> None:
    me = result.shot_disc
    end = result.discs[me]
    assert stop.status is end.status
    assert (stop.x, stop.y) == pytest.approx((end.position.x, end.position.y), abs=1e-9)
    start = result.start[me]
    assert stop.path[0] == pytest.approx((start.x, start.y), abs=1e-9)
    assert stop.path[-1] == pytest.approx((stop.x, stop.y), abs=1e-9)
    # Straight between the corners: every moment of the disc's slide lies on the path.
    legs = list(zip(stop.path, stop.path[1:], strict=False))
    for k in range(201):
        p = result.position_at(me, result.duration * k / 200)
        assert min(_gap(p.x, p.y, a, b) for a, b in legs) < 1e-6


def _gap(x: float, y: float, a: tuple[float, float], b: tuple[float, float]) -> float:
    """Distance from (x, y) to the segment a-b."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    span = dx * dx + dy * dy
    t = 0.0 if span == 0 else max(0.0, min(1.0, ((x - a[0]) * dx + (y - a[1]) * dy) / span))
    return math.hypot(x - a[0] - t * dx, y - a[1] - t * dy)


@pytest.mark.parametrize("seed", range(3))
def test_a_hint_stops_where_its_shot_disc_stops_played_exactly(seed: int) -> None:
    # The drawing ends where the disc would: the simulator's final centre of the shot disc
    # when the rules engine plays the hint's shot without noise, along the path it slid.
    game = crowded(seed)
    for hint in hints(game, Accuracy.human(), seed=seed, budget="fast"):
        _assert_stop_is_the_physics(hint.stop, _physics(game, hint.value.shot))
    # What it knocks off, by side, as the rules engine counts the discs that left the board.
    for hint in hints(game, Accuracy.steady(), budget="fast"):
        result = _physics(game, hint.value.shot)
        off = [game.discs[i].owner for i, o in enumerate(result.discs[:-1]) if o.status.value]
        assert (hint.stop.theirs_out, hint.stop.ours_out) == (off.count(N), off.count(S))
    # A hit bends the path: some hint here has a corner between its ends.
    assert any(len(h.stop.path) > 2 for h in hints(game, Accuracy.steady(), budget="fast"))


def test_the_open_twenty_stops_in_the_hole() -> None:
    game = Game(Rules())
    best = hints(game, Accuracy.steady())[0]
    assert best.stop.status is DiscStatus.IN_HOLE
    assert math.hypot(best.stop.x, best.stop.y) < game.board.hole_radius
    assert best.to_dict()["stop"]["status"] == "in_hole" and best.stop.zone == 20


@pytest.mark.parametrize(
    ("power", "status"),
    [(12.0, DiscStatus.ON_BOARD), (20.0, DiscStatus.ON_BOARD), (100.0, DiscStatus.IN_DITCH)],
)
def test_a_short_shot_stops_short_a_long_one_at_the_edge(power: float, status: DiscStatus) -> None:
    game = Game(Rules())
    stop = stop_of(game, Shot(0.0, 0.0, power))
    assert stop.status is status
    _assert_stop_is_the_physics(stop, _physics(game, Shot(0.0, 0.0, power)))
    if status is DiscStatus.IN_DITCH:
        # Where it left the surface: on its edge.
        assert math.hypot(stop.x, stop.y) == pytest.approx(game.board.surface_radius, abs=1e-6)
        assert stop.zone == 0
    else:
        assert math.hypot(stop.x, stop.y) < game.board.surface_radius - game.board.disc_radius
        # R6 by the rim: the zone's ring holds the disc's whole rim.
        rim = math.hypot(stop.x, stop.y) + game.board.disc_radius
        board = game.board
        radii = {15: board.fifteen_radius, 10: board.ten_radius, 5: board.shooting_line_radius}
        assert stop.zone in radii and rim < radii[stop.zone]
        assert all(rim > r for z, r in radii.items() if z > stop.zone)


def test_a_takeout_counts_the_disc_it_knocks_off() -> None:
    # A lone north disc in the 5, hit full and hard from straight below: it leaves the board.
    game = game_at(Rules(), [(N, 0.0, -8.0)], S)
    stop = stop_of(game, Shot(0.0, 0.0, 90.0))
    assert (stop.theirs_out, stop.ours_out) == (1, 0)
    assert stop.to_dict()["theirs_out"] == 1
