"""Aim heat maps (analysis.heatmap): each cell is the shot it stands for, as the rules judge it."""

from __future__ import annotations

import math

import numpy as np
import pytest

from crokinole.analysis import Accuracy, AnalysisError, HeatMap, Metric, heat_map, hints
from crokinole.board import TOURNAMENT_BOARD, Seat, Shot
from crokinole.rules import Game, Rules
from tests.support.analysis_positions import crowded
from tests.support.rules_positions import game_at

B = TOURNAMENT_BOARD
S, N = Seat.SOUTH, Seat.NORTH


def _played(game: Game, shot: Shot) -> Game:
    """``shot`` played exactly by the rules engine, on a copy."""
    after = game.copy()
    seat = after.current_seat
    assert seat is not None
    after.shoot(seat, shot)
    return after


def _cells(hm: HeatMap, count: int, seed: int) -> list[tuple[int, int]]:
    """``count`` cells at random, and the best one."""
    rng = np.random.default_rng(seed)
    size = hm.values.shape[0]
    picked = [(int(i), int(j)) for i, j in rng.integers(0, size, (count, 2))]
    best = (
        int(np.flatnonzero(hm.powers == hm.best.power)[0]),
        int(np.flatnonzero(hm.directions == hm.best.direction)[0]),
    )
    return [*picked, best]


def _cell_shot(hm: HeatMap, i: int, j: int) -> Shot:
    return Shot(hm.position, float(hm.directions[j]), float(hm.powers[i]))


def test_the_default_grid_is_64_by_64_over_40_degrees_each_way_and_all_powers() -> None:
    hm = heat_map(Game(Rules()), 0.0, Accuracy.human())
    assert hm.values.shape == (64, 64)
    assert hm.directions.shape == hm.powers.shape == hm.travel.shape == (64,)
    assert (hm.directions[0], hm.directions[-1]) == (-40.0, 40.0)
    assert (hm.powers[0], hm.powers[-1]) == (0.0, 100.0)
    assert (np.diff(hm.directions) > 0).all() and (np.diff(hm.powers) > 0).all()
    assert hm.metric is Metric.POINTS and hm.accuracy == "human"


def test_travel_is_the_sliding_distance_at_each_power_up_to_the_far_edge() -> None:
    hm = heat_map(Game(Rules()), 0.0, Accuracy.steady(), size=32)
    speed = B.max_launch_speed * hm.powers / 100.0
    expected = np.minimum(speed**2 / (2 * B.deceleration), 12.0 + 13.0)  # v² = 2ad
    assert hm.travel == pytest.approx(expected)
    assert hm.travel[0] == 0.0 and hm.travel[-1] == 25.0


def test_valid_is_zero_for_every_shot_that_misses_the_opposing_discs() -> None:
    # R4 with required contact: a cell is valid exactly when the rules engine,
    # playing its shot, finds that a south disc touched a north one.
    game = game_at(Rules(), [(N, 2.5, -5.5), (N, -5.0, 3.0)], S)
    hm = heat_map(game, 0.0, Accuracy.steady(), metric="valid", size=24)
    assert set(np.unique(hm.values)) == {0.0, 1.0}  # steady: each cell is one shot
    for i, j in _cells(hm, 40, seed=1):
        seat = game.current_seat
        assert seat is not None
        report = game.copy().shoot(seat, _cell_shot(hm, i, j))
        assert hm.values[i, j] == float(report.valid)
    # A gentle shot aimed far left of both discs misses them.
    assert hm.values[5, 0] == 0.0
    # Without required contact (house rule of R2) every shot is valid.
    free = game_at(Rules(required_contact=False), [(N, 2.5, -5.5)], S)
    assert (heat_map(free, 0.0, Accuracy.steady(), metric="valid", size=8).values == 1.0).all()


def test_twenty_and_points_are_what_the_rules_engine_counts() -> None:
    # R5: a cell's twenty is 1 when the disc drops; R6: points are the margin
    # counted on the board after the shot (the 20 included).
    game = game_at(Rules(), [(N, 1.0, 6.0), (S, -3.0, -2.5)], S)
    twenty = heat_map(game, 5.0, Accuracy.steady(), metric="twenty", size=20)
    points = heat_map(game, 5.0, Accuracy.steady(), metric="points", size=20)
    for i, j in _cells(points, 30, seed=2):
        after = _played(game, _cell_shot(points, i, j))
        south, north = (side.total for side in after.round_counts())
        assert points.values[i, j] == south - north
        assert twenty.values[i, j] == float(after.twenties[0] - game.twenties[0])


def test_the_best_cell_is_the_highest_value() -> None:
    hm = heat_map(crowded(0), 0.0, Accuracy.human(), size=24, draws=16)
    i = int(np.flatnonzero(hm.powers == hm.best.power)[0])
    j = int(np.flatnonzero(hm.directions == hm.best.direction)[0])
    assert hm.values[i, j] == hm.values.max()
    assert hm.best.position == 0.0


@pytest.mark.parametrize("seed", range(4))
def test_the_best_cell_agrees_with_the_best_hint_within_one_cell(seed: int) -> None:
    # The set-up: an open board under the human hand.  The best hint is the
    # open 20, and the map is drawn at the hint's own placement with the
    # default grid (64 cells over ±40°, 0-100%).  The open 20 has a plateau
    # of near-equal aims, so each side's optimum is a noisy estimate: the map
    # takes 128 draws a cell (rather than 32) so that its best is not one
    # cell of the plateau picked by luck, and the hint's shot, which lies
    # between cell centres, is compared by the cell it falls in.
    game = Game(Rules())
    accuracy = Accuracy.human()
    shot = hints(game, accuracy, seed=seed)[0].value.shot
    hm = heat_map(game, shot.position, accuracy, seed=seed, draws=128)
    hint_cell = (
        int(np.argmin(abs(hm.powers - shot.power))),
        int(np.argmin(abs(hm.directions - shot.direction))),
    )
    best_cell = (
        int(np.flatnonzero(hm.powers == hm.best.power)[0]),
        int(np.flatnonzero(hm.directions == hm.best.direction)[0]),
    )
    assert abs(best_cell[0] - hint_cell[0]) <= 1  # power
    assert abs(best_cell[1] - hint_cell[1]) <= 1  # direction


def test_a_steady_hand_best_open_twenty_is_the_middle_of_the_sweet_spot() -> None:
    # Steady, every cell of the open 20's sweet spot is worth exactly 20: the
    # best is the one in the middle of them, the safest aim.
    hm = heat_map(Game(Rules()), 0.0, Accuracy.steady(), metric="twenty", size=32)
    rows, cols = np.nonzero(hm.values == 1.0)
    assert rows.size > 4
    assert abs(hm.best.direction - hm.directions[cols].mean()) <= np.diff(hm.directions)[0]
    assert abs(hm.best.power - hm.powers[rows].mean()) <= np.diff(hm.powers)[0]


def test_the_same_seed_gives_the_same_map() -> None:
    game = crowded(2)
    one = heat_map(game, 0.0, Accuracy.human(), size=12, draws=8, seed=3)
    two = heat_map(game, 0.0, Accuracy.human(), size=12, draws=8, seed=3)
    assert np.array_equal(one.values, two.values) and one.best == two.best
    other = heat_map(game, 0.0, Accuracy.human(), size=12, draws=8, seed=4)
    assert not np.array_equal(one.values, other.values)


def test_a_heat_map_as_plain_data() -> None:
    hm = heat_map(Game(Rules()), 3.0, Accuracy.human(), metric="twenty", size=4, draws=4)
    data = hm.to_dict()
    assert set(data) == {
        "position",
        "metric",
        "accuracy",
        "directions",
        "powers",
        "travel",
        "values",
        "best",
    }
    assert data["metric"] == "twenty" and data["position"] == 3.0
    assert len(data["values"]) == 4 and all(len(row) == 4 for row in data["values"])
    assert all(round(v, 3) == v for row in data["values"] for v in row)
    assert set(data["best"]) == {"position", "direction", "power"}


@pytest.mark.parametrize(
    ("position", "message"),
    [
        (50.0, "runs from -41.87° to 41.87°"),
        (math.nan, "a placement is a number"),
        (0.0, "the disc would overlap"),
    ],
)
def test_a_bad_placement_is_refused_in_plain_words(position: float, message: str) -> None:
    game = game_at(Rules(), [(N, 0.0, -10.9)], S)  # sits over south's middle placement
    with pytest.raises(AnalysisError, match=message):
        heat_map(game, position, Accuracy.human())


def test_other_bad_requests_are_analysis_errors() -> None:
    game = Game(Rules())
    with pytest.raises(AnalysisError, match="unknown heat-map metric"):
        heat_map(game, 0.0, Accuracy.human(), metric="fun")
    with pytest.raises(AnalysisError, match="cells a side"):
        heat_map(game, 0.0, Accuracy.human(), size=1)
    with pytest.raises(AnalysisError, match="draws a cell"):
        heat_map(game, 0.0, Accuracy.human(), draws=0)
    with pytest.raises(AnalysisError, match="directions must run"):
        heat_map(game, 0.0, Accuracy.human(), directions=(10.0, -10.0))
    with pytest.raises(AnalysisError, match="powers must run"):
        heat_map(game, 0.0, Accuracy.human(), powers=(0.0, 150.0))
    over = Game(Rules(rounds=1))
    while over.current_seat is not None:
        over.shoot(over.current_seat, Shot(0.0, 0.0, 29.0))
    with pytest.raises(AnalysisError, match="nobody is to shoot"):
        heat_map(over, 0.0, Accuracy.human())
