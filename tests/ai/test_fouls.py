"""No CPU level means a foul (R4) when a valid hit exists; Hard and Expert choose robust shots.

The full measurement, with confidence intervals, is ``benchmarks/cpu_fouls.py``;
these tests use fewer positions.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from crokinole.ai import Level, make_player
from crokinole.ai.fouls import (
    faces_an_opponent,
    intended_fouls,
    positions_from_play,
    valid_hit_exists,
)
from crokinole.ai.players import HardPlayer
from crokinole.ai.search import Candidates, simulate_candidates
from crokinole.board import Seat, Shot
from crokinole.rules import Game, Rules
from tests.support.rules_positions import game_at

S, N = Seat.SOUTH, Seat.NORTH


@pytest.fixture(scope="module")
def positions() -> list[Game]:
    """150 positions from CPU play where the shooter faces an opposing disc and can touch it."""
    games = positions_from_play(150, seed=2024)
    assert all(faces_an_opponent(g) for g in games)
    return [g for g in games if valid_hit_exists(g)]


@pytest.mark.parametrize(
    "level",
    [pytest.param(lv, marks=pytest.mark.slow) if lv is Level.MASTER else lv for lv in Level],
)
def test_no_level_means_a_foul_when_a_valid_hit_exists(level: Level, positions: list[Game]) -> None:
    # R4: with an opposing disc on the board the shot must touch one.  Every
    # level checks its intended shot as aimed, so it means a foul only where
    # every valid shot lies outside what it considers; the targets allow 10%
    # (Easy), 5% (Normal) and 2% (Hard, Expert).  Before the fix Easy meant
    # a foul in about half of these positions and Normal in 3-8%.
    assert len(positions) >= 140
    figure = intended_fouls(level, positions, seed=7)
    assert figure.turns == len(positions)
    assert figure.fouls <= 0.01 * figure.turns, f"{figure.fouls} intended fouls"


def test_easy_aims_round_a_peg_and_past_the_hole() -> None:
    # R4.  A north disc straight behind the hole (as seen from the middle of
    # south's quarter), and one hidden behind a peg from there: Easy, whichever
    # it picks, must mean a shot that touches it, not a straight line that
    # drops into the hole or stops on the peg.
    behind_hole = game_at(Rules(), [(N, 0.0, 4.0)], S)
    for seed in range(8):
        rng = np.random.default_rng(seed)
        shot = make_player(Level.EASY).intend(behind_hole, rng)
        assert behind_hole.copy().shoot(S, shot).valid, shot


def _foul_chance(player: HardPlayer, game: Game, shot: Shot, z: np.ndarray) -> float:
    """Share of ``z``'s noise draws (direction, power) with which ``shot`` is a foul (R4)."""
    seat = game.current_seat
    assert seat is not None
    k = z.shape[1]
    at = np.full(k, shot.position)
    _, dirs, pows = player.noise.apply(
        game.board, at, np.full(k, shot.direction), np.full(k, shot.power), (np.zeros(k), *z)
    )
    return 1.0 - float(simulate_candidates(game, seat, Candidates(at, dirs, pows)).valid.mean())


def test_hard_tests_its_shots_against_its_real_noise(positions: list[Game]) -> None:
    # Hard used to judge each shot by near misses of half its real noise
    # (±1.2° and ±7% for errors of 2.4° and 13%) and so chose shots that its
    # real errors turn into fouls.  Judged at its real noise, the shots it
    # means foul less often when played with that noise.  The comparison is
    # paired (same positions, same 200 noise draws); on two sets of 150
    # positions the gain was 2.3 and 3.1 points with a standard error of
    # 0.9 and 0.7, so "fewer" is a margin of about three standard errors.
    hard = HardPlayer()
    d, p = 1.2 / hard.noise.direction, 0.07 / hard.noise.power  # the old stencil, in deviations
    half = HardPlayer(stencil=((0.0, 0.0), (-d, 0.0), (d, 0.0), (0.0, -p), (0.0, p)))
    z = np.random.default_rng(3).normal(size=(2, 200))
    rng = np.random.default_rng(0)
    now = [_foul_chance(hard, g, hard.intend(g, rng), z) for g in positions]
    before = [_foul_chance(hard, g, half.intend(g, rng), z) for g in positions]
    assert np.mean(now) < np.mean(before)


def test_the_benchmark_prints_each_level_with_an_interval() -> None:
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [sys.executable, str(root / "benchmarks" / "cpu_fouls.py"), "--positions", "6"],
        capture_output=True, text=True, check=True, env={**os.environ, "COLUMNS": "130"},
    )  # fmt: skip
    assert "Fouls where a valid hit exists" in out.stdout
    for level in Level:
        assert re.search(
            rf"{level.label} +│ +\d+ of \d+ \(\d+\.\d%\) │ \d+\.\d%–\d+\.\d%", out.stdout
        )
