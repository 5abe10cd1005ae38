"""Random legal (and illegal) play in every preset, checking the invariants after each action.

A hypothesis state machine plays shots, timeouts and round changes, and
tries actions out of turn.  After every step: discs are conserved (in hand
+ on board + 20s + ditch = total, per side), nothing overlaps, no disc rests
out, the round score equals an independent recount from the positions, the
game score equals the sum of round points, and the JSON record reads back
to an equal game.  Whole random games are played to their end and replayed.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from crokinole.board import TOURNAMENT_BOARD, Seat, Shot, Zone
from crokinole.errors import CrokinoleError, IllegalActionError
from crokinole.rules import Game, Phase, Rules, Scoring, TieSetting, replay, round_points

B = TOURNAMENT_BOARD
PRESETS = {
    "tournament singles": Rules.tournament_singles(),
    "home singles": Rules.home_singles(),
    "doubles": Rules.doubles(),
    "two vs one": Rules.two_vs_one(),
    "three singles": Rules.three_singles(),
    "extra rounds": Rules(tie=TieSetting.EXTRA_ROUNDS, rounds=1),
    "no contact rule": Rules(required_contact=False, rounds=2),
}
VALUE = {Zone.FIFTEEN: 15, Zone.TEN: 10, Zone.FIVE: 5}


def check_invariants(game: Game) -> None:
    rules = game.rules
    n_sides = len(rules.sides)
    # Conservation of discs, per side.
    for side, seats in enumerate(rules.sides):
        total = (
            sum(game.in_hand(s) for s in seats)
            + sum(1 for d in game.discs if d.owner in seats)
            + game.twenties[side]
            + game.ditch[side]
        )
        assert total == rules.discs_per_side
    # No overlaps, nothing out.
    pts = np.array([(d.x, d.y) for d in game.discs]).reshape(-1, 2)
    if len(pts) > 1:
        diff = pts[:, None, :] - pts[None, :, :]
        dist = np.hypot(diff[..., 0], diff[..., 1])
        np.fill_diagonal(dist, np.inf)
        assert dist.min() >= 2 * B.disc_radius - 1e-9
    for d in game.discs:
        assert B.zone_of(d.centre) in VALUE
        assert min(d.centre.distance_to(p) for p in B.pegs) >= B.disc_radius + B.peg_radius - 1e-9
    # The round score equals a recount from the positions.
    for side, count in enumerate(game.round_counts()):
        recount = 20 * game.twenties[side] + sum(
            VALUE[B.zone_of(d.centre)] for d in game.discs if rules.side_of(d.owner) == side
        )
        assert count.total == recount
    # Game score = sum of round points, each from the round totals.
    assert list(game.scores) == [sum(r.points[s] for r in game.history) for s in range(n_sides)]
    for r in game.history:
        assert r.points == round_points(r.totals, rules.scoring)
    # The record reads back to the same game.
    assert Game.from_json(game.to_json()) == game


@st.composite
def shots(draw: st.DrawFn) -> Shot:
    limit = B.placement_limit
    return Shot(
        draw(st.floats(-limit, limit)),
        draw(st.floats(-40.0, 40.0)),
        draw(st.floats(0.0, 100.0)),
    )


class GameMachine(RuleBasedStateMachine):
    """Plays one game of a preset drawn at the start."""

    def __init__(self) -> None:
        super().__init__()
        self.game: Game | None = None

    @rule(name=st.sampled_from(sorted(PRESETS)))
    @precondition(lambda self: self.game is None)
    def start(self, name: str) -> None:
        self.game = Game(PRESETS[name])

    @rule(shot=shots())
    @precondition(lambda self: self.game is not None and self.game.phase is Phase.PLAYING)
    def shoot(self, shot: Shot) -> None:
        assert self.game is not None
        seat = self.game.current_seat
        assert seat is not None
        before = self.game.snapshot()
        problem = self.game.placement_problem(seat, shot.position)
        try:
            report = self.game.shoot(seat, shot)
        except CrokinoleError:
            assert problem is not None
            assert self.game.snapshot() == before
            return
        assert problem is None
        assert report.seat is seat

    @rule()
    @precondition(lambda self: self.game is not None and self.game.phase is Phase.PLAYING)
    def timeout(self) -> None:
        assert self.game is not None
        seat = self.game.current_seat
        assert seat is not None
        self.game.timeout(seat)

    @rule(data=st.data())
    @precondition(lambda self: self.game is not None and self.game.phase is Phase.PLAYING)
    def out_of_turn(self, data: st.DataObject) -> None:
        assert self.game is not None
        others = [s for s in Seat if s is not self.game.current_seat]
        seat = data.draw(st.sampled_from(others))
        before = self.game.snapshot()
        with pytest.raises(IllegalActionError):
            self.game.shoot(seat, Shot(0.0, 0.0, 30.0))
        assert self.game.snapshot() == before

    @rule()
    @precondition(lambda self: self.game is not None and self.game.phase is Phase.ROUND_OVER)
    def next_round(self) -> None:
        assert self.game is not None
        self.game.next_round()

    @rule()
    @precondition(lambda self: self.game is not None and self.game.is_over)
    def after_the_end(self) -> None:
        assert self.game is not None
        before = self.game.snapshot()
        with pytest.raises(IllegalActionError, match="the game is over"):
            self.game.next_round()
        with pytest.raises(IllegalActionError, match="the game is over"):
            self.game.timeout(Seat.SOUTH)
        assert self.game.snapshot() == before
        assert self.game.outcome is not None

    @invariant()
    def holds(self) -> None:
        if self.game is not None:
            check_invariants(self.game)


GameMachine.TestCase.settings = settings(
    max_examples=25,
    stateful_step_count=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
TestGameMachine = GameMachine.TestCase


def _random_shot(rng: np.random.Generator) -> Shot:
    limit = B.placement_limit
    return Shot(
        float(rng.uniform(-limit, limit)),
        float(np.clip(rng.normal(0.0, 12.0), -60, 60)),
        float(rng.uniform(15.0, 55.0)),
    )


def play_to_the_end(rules: Rules, rng: np.random.Generator, max_rounds: int = 80) -> Game:
    game = Game(rules)
    while not game.is_over:
        assert game.round_number <= max_rounds, "the game did not end"
        if game.phase is Phase.ROUND_OVER:
            game.next_round()
            continue
        seat = game.current_seat
        assert seat is not None
        for _ in range(50):
            shot = _random_shot(rng)
            if game.placement_problem(seat, shot.position) is None:
                game.shoot(seat, shot)
                break
        else:
            game.timeout(seat)
    return game


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(PRESETS))
def test_random_games_end_and_replay_disc_for_disc(name: str) -> None:
    rng = np.random.default_rng(sum(map(ord, name)))
    for _ in range(2):
        game = play_to_the_end(PRESETS[name], rng)
        check_invariants(game)
        outcome = game.outcome
        assert outcome is not None
        assert (outcome.winner is None) == bool(outcome.drawn)
        replayed = replay(game.to_json())
        assert replayed == game
        if game.rules.scoring is Scoring.TO_100:
            assert max(game.scores) >= (game.rules.target or math.inf)
