"""CrokinoleAEC: PettingZoo's API test for singles and doubles, turn order, rewards, bad input."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from crokinole.ai import HAND_NOISE
from crokinole.board import TOURNAMENT_BOARD as BOARD
from crokinole.env.aec import CrokinoleAEC
from crokinole.errors import IllegalActionError, InvalidShotError
from crokinole.rules import Rules, ShotAction

# PettingZoo suggests agent names like "player_0"; ours are the seats of RULES.md.
pytestmark = pytest.mark.filterwarnings("ignore:We recommend agents to be named")

OPEN_20 = np.array([0.0, 0.0, -0.44], dtype=np.float32)


@pytest.mark.parametrize(
    "make",
    [
        CrokinoleAEC,
        lambda: CrokinoleAEC(Rules.doubles()),
        lambda: CrokinoleAEC(Rules.doubles(), cpu={"west": "easy"}, reward="round"),
        lambda: CrokinoleAEC(cpu={"north": "normal"}, hand_noise=HAND_NOISE),
        lambda: CrokinoleAEC(Rules.doubles(), cpu={"north": "easy"}, raster=24),
    ],
    ids=["singles", "doubles", "doubles-with-a-cpu", "singles-against-a-cpu", "raster"],
)
# The raster's observation is a Dict, which PettingZoo's API test warns about (it allows it).
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be")
def test_pettingzoo_api_test_passes(make: object) -> None:
    api_test(make(), num_cycles=300)  # type: ignore[operator]


def test_pettingzoo_seed_test_passes() -> None:
    seed_test(lambda: CrokinoleAEC(Rules.doubles(), cpu={"east": "easy"}, hand_noise=HAND_NOISE))


def _play_out(env: CrokinoleAEC, seed: int) -> dict[str, float]:
    """Play random actions to the end; each agent's rewards summed over every step."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    totals = dict(env.rewards)
    while env.agents:
        agent = env.agent_selection
        done = env.terminations[agent]
        env.step(None if done else rng.uniform(-1, 1, 3).astype(np.float32))
        for name, value in env.rewards.items():
            totals[name] += value
    return totals


def test_doubles_turns_go_clockwise_from_south() -> None:
    # R2: in doubles, play alternates between players clockwise: S, W, N, E.
    env = CrokinoleAEC(Rules.doubles())
    env.reset(seed=0)
    order = []
    for _ in range(5):
        order.append(env.agent_selection)
        env.step(OPEN_20)
    assert order == ["south", "west", "north", "east", "south"]


def test_each_agent_sees_the_board_from_its_own_seat() -> None:
    env = CrokinoleAEC(Rules.doubles(), raster=32)
    env.reset(seed=0)
    # South's disc stops 2.5 in short of the centre, in the 15 (v² = 2 a s).
    power = 100.0 * np.sqrt(2.0 * BOARD.deceleration * 9.5) / BOARD.max_launch_speed
    env.step(np.array([0.0, 0.0, power / 50.0 - 1.0], dtype=np.float32))
    (disc,) = env.game.discs
    south, north = env.observe("south"), env.observe("north")
    # North sees the board half a turn round: south's disc at (-x, -y), owned by seat 2.
    assert south["state"][:7].tolist()[2:] == [1.0, 0.0, 0.0, 0.0, 1.0]
    assert north["state"][:7].tolist()[2:] == [0.0, 0.0, 1.0, 0.0, 1.0]
    assert north["state"][0] == np.float32(-disc.x / 13.0)
    assert north["state"][1] == np.float32(-disc.y / 13.0)
    # The same picture half a turn round, the disc drawn red (its own) for south and white
    # (the seat opposite's) for north.
    turned = south["raster"][::-1, ::-1].copy()
    red = (turned == [200, 30, 30]).all(axis=2)
    assert red.sum() > 0
    turned[red] = [240, 240, 240]
    assert np.array_equal(north["raster"], turned)


def test_cpu_seats_play_themselves() -> None:
    env = CrokinoleAEC(cpu={"north": "easy"})
    env.reset(seed=0)
    for _ in range(3):
        assert env.agent_selection == "south"
        env.step(OPEN_20)
    seats = [a.seat.key for a in env.game.actions if isinstance(a, ShotAction)]
    assert seats == ["south", "north"] * 3


def test_round_rewards_sum_to_each_sides_round_margins() -> None:
    env = CrokinoleAEC(Rules.doubles(), cpu={"west": "easy"}, reward="round")
    totals = _play_out(env, 4)
    margins = [0, 0]
    for result in env.game.history:
        a, b = (c.total for c in result.counts)
        margins[0] += a - b
        margins[1] += b - a
    side = {"south": 0, "north": 0, "east": 1}
    assert totals == {agent: float(margins[s]) for agent, s in side.items()}


def test_game_rewards_are_plus_and_minus_one_by_side() -> None:
    env = CrokinoleAEC(Rules.doubles())
    totals = _play_out(env, 9)
    outcome = env.game.outcome
    assert outcome is not None
    if outcome.winner is None:
        assert set(totals.values()) == {0.0}
    else:
        won = {0: ("south", "north"), 1: ("west", "east")}[outcome.winner]
        assert totals == {a: 1.0 if a in won else -1.0 for a in totals}


def test_the_same_seed_gives_the_same_game() -> None:
    make = lambda: CrokinoleAEC(cpu={"north": "normal"}, hand_noise=HAND_NOISE)  # noqa: E731
    first, again = make(), make()
    _play_out(first, 3)
    _play_out(again, 3)
    assert first.game.to_json() == again.game.to_json()


def test_bad_options_and_actions_are_refused() -> None:
    with pytest.raises(IllegalActionError, match="singles or doubles"):
        CrokinoleAEC(Rules.three_singles())
    with pytest.raises(IllegalActionError, match="west is not a seat of this game"):
        CrokinoleAEC(cpu={"west": "easy"})
    with pytest.raises(IllegalActionError, match="'up' is not a seat"):
        CrokinoleAEC(cpu={"up": "easy"})
    with pytest.raises(IllegalActionError, match="leave at least one to a program"):
        CrokinoleAEC(cpu={"south": "easy", "north": "easy"})
    with pytest.raises(IllegalActionError, match="reward is 'game' or 'round'"):
        CrokinoleAEC(reward="points")
    env = CrokinoleAEC()
    env.reset(seed=0)
    with pytest.raises(InvalidShotError, match="power"):
        env.step(np.array([0.0, 0.0, 2.0], dtype=np.float32))
    assert env.game.actions == () and env.agent_selection == "south"
