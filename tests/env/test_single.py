"""CrokinoleEnv: Gymnasium's checker, rewards against the rules as written, seeding, bad input."""

from __future__ import annotations

import math

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from crokinole.ai import HAND_NOISE
from crokinole.analysis.drills import DRILLS
from crokinole.analysis.practice import PracticePosition, practice_game
from crokinole.board import TOURNAMENT_BOARD as BOARD
from crokinole.board import Seat
from crokinole.env import TASKS, CrokinoleEnv, shot_to_action
from crokinole.env.actions import legal_position
from crokinole.env.observe import OBS_SIZE, OFFSET_SCORES
from crokinole.env.single import ENV_ID
from crokinole.errors import CrokinoleError, IllegalActionError, InvalidShotError
from crokinole.rules import Phase, Rules


def straight(power: float, position: float = 0.0, direction: float = 0.0) -> np.ndarray:
    """The action of a shot of ``power`` percent (position and direction in degrees)."""
    return np.array(
        [position / BOARD.placement_limit, direction / 90.0, power / 50.0 - 1.0], dtype=np.float64
    )


def power_to_stop_at(distance: float) -> float:
    """Power (percent) that slides a disc ``distance`` inches: v² = 2 a s (Coulomb friction)."""
    return 100.0 * math.sqrt(2.0 * BOARD.deceleration * distance) / BOARD.max_launch_speed


@pytest.mark.parametrize("task", TASKS)
def test_gymnasium_check_env_passes_for_each_task(task: str) -> None:
    env = gym.make(ENV_ID, task=task, opponent="easy", render_mode="rgb_array")
    check_env(env.unwrapped)


def test_check_env_passes_with_the_raster_observation() -> None:
    env = gym.make(ENV_ID, task="win_round", opponent="easy", raster=48, hand_noise=HAND_NOISE)
    check_env(env.unwrapped, skip_render_check=True)
    obs, _ = env.reset(seed=3)
    assert obs["raster"].shape == (48, 48, 3) and obs["state"].shape == (OBS_SIZE,)


def test_an_open_20_scores_20() -> None:
    # R5: a gentle straight shot from the middle of the line drops (28% = 33.6 in/s, BOARD.md).
    env = CrokinoleEnv("open_20")
    env.reset(seed=0)
    _, reward, terminated, truncated, info = env.step(straight(28.0))
    assert (reward, terminated, truncated, info["foul"]) == (20.0, True, False, None)
    assert env.game.twenties == (1, 0)


def test_a_disc_resting_in_the_15_zone_scores_15() -> None:
    # Stops 2.5 in short of the centre (closed form): rim at 3.125 < 4 - 1/32, in the 15 (R6).
    env = CrokinoleEnv("open_20")
    env.reset(seed=0)
    _, reward, *_ = env.step(straight(power_to_stop_at(12.0 - 2.5)))
    assert reward == 15.0
    (disc,) = env.game.discs
    assert disc.x == pytest.approx(0.0, abs=1e-9) and disc.y == pytest.approx(-2.5, abs=1e-6)


def test_a_disc_touching_the_15_line_is_valid_and_scores_10() -> None:
    # R4: touching the 15 line makes an open-board shot valid; R6: on the line it scores the lower.
    rim_on_line = 4.0 + 0.625 - 0.01  # centre 4.615 in out: the rim over the line's near edge
    env = CrokinoleEnv("open_20")
    env.reset(seed=0)
    _, reward, _, _, info = env.step(straight(power_to_stop_at(12.0 - rim_on_line)))
    assert (reward, info["foul"]) == (10.0, None)


def test_an_open_board_shot_that_stops_outside_the_15_is_a_foul_scoring_0() -> None:
    # R4: with no opponent disc, a disc that ends in the 10 zone is a foul: to the ditch.
    env = CrokinoleEnv("open_20")
    env.reset(seed=0)
    _, reward, _, _, info = env.step(straight(power_to_stop_at(12.0 - 6.0)))
    assert (reward, info["foul"]) == (0.0, "not_in_fifteen")
    assert env.game.discs == () and env.game.ditch == (1, 0)


def test_a_20_made_without_touching_the_opponent_is_cancelled() -> None:
    # R4: their disc beside the hole (ricochet20: (-1.9, 0.3), 1.9 in from the straight line,
    # more than a disc's width) is on the board, so an open 20 that misses it is a foul:
    # the 20 is cancelled and the disc goes to the ditch.
    env = CrokinoleEnv("ricochet20")
    env.reset(seed=0)
    south = env.game.side_of(Seat.SOUTH)
    ditch_before = env.game.ditch[south]
    _, reward, _, _, info = env.step(straight(28.0))
    assert (reward, info["foul"]) == (0.0, "no_contact")
    assert env.game.twenties[south] == 0 and env.game.ditch[south] == ditch_before + 1
    assert env.game.round_counts()[south].total == 0


def test_the_far_side_drill_pays_its_points() -> None:
    # The drill's own example is a hit and stick: 2 points (crokinole.analysis.drills).
    env = CrokinoleEnv("far_side")
    env.reset(seed=0)
    _, reward, *_ = env.step(shot_to_action(BOARD, DRILLS["far_side"].example).astype(np.float64))
    assert reward == 2.0


def test_win_round_returns_the_rounds_margin() -> None:
    env = CrokinoleEnv("win_round", "easy", hand_noise=HAND_NOISE)
    env.reset(seed=11)
    total, done, steps = 0.0, False, 0
    while not done:
        _, reward, done, _, _ = env.step(straight(28.0))
        total += float(reward)
        steps += 1
    game = env.game
    assert game.phase is Phase.GAME_OVER and steps == 8
    (result,) = game.history
    mine, theirs = (c.total for c in result.counts)
    assert total == mine - theirs


def test_win_game_pays_plus_or_minus_one_at_the_end_only() -> None:
    env = CrokinoleEnv("win_game", "easy", agent_first=True)
    env.reset(seed=5)
    rewards = []
    done = False
    while not done:
        _, reward, done, _, _ = env.step(straight(28.0))
        rewards.append(float(reward))
    outcome = env.game.outcome
    assert outcome is not None and len(env.game.history) >= 4
    expected = 0.0 if outcome.winner is None else (1.0 if outcome.winner == 0 else -1.0)
    assert rewards[-1] == expected and all(r == 0.0 for r in rewards[:-1])


def test_round_scores_in_the_observation_follow_the_board() -> None:
    env = CrokinoleEnv("win_round", "easy", agent_first=True)
    env.reset(seed=2)
    obs, *_ = env.step(straight(28.0))
    counts = env.game.round_counts()
    assert obs[OFFSET_SCORES] == pytest.approx(counts[0].total / 100.0)
    assert obs[OFFSET_SCORES + 2] == pytest.approx(counts[1].total / 100.0)


def _play(env: CrokinoleEnv, seed: int, actions: list[np.ndarray]) -> list[object]:
    obs, _ = env.reset(seed=seed)
    trace: list[object] = [obs.tobytes()]
    for action in actions:
        obs, reward, done, _, info = env.step(action)
        trace += [obs.tobytes(), reward, info]
        if done:
            break
    trace.append(env.game.to_json())
    return trace


def test_the_same_seed_and_actions_give_the_same_episode() -> None:
    rng = np.random.default_rng(0)
    actions = [rng.uniform(-1, 1, 3).astype(np.float32) for _ in range(40)]
    env = CrokinoleEnv("win_game", "normal", hand_noise=HAND_NOISE)
    first = _play(env, 42, actions)
    again = _play(CrokinoleEnv("win_game", "normal", hand_noise=HAND_NOISE), 42, actions)
    assert first == again
    assert _play(env, 43, actions) != first


@pytest.mark.parametrize(
    ("action", "words"),
    [
        (np.array([0.0, np.nan, 0.0]), "direction (item 1) must be a finite number in [-1, 1]"),
        (np.array([1.5, 0.0, 0.0]), "position (item 0) must be a finite number in [-1, 1]"),
        (np.array([0.0, 0.0, -np.inf]), "power (item 2)"),
        (np.array([0.0, 0.0]), "got shape (2,)"),
        (["a", 0.0, 0.0], "three numbers"),
        ([True, 0.0, 0.0], "three numbers"),
        (None, "three numbers"),
    ],
)
def test_bad_actions_are_refused_with_a_plain_message(action: object, words: str) -> None:
    env = CrokinoleEnv("open_20")
    env.reset(seed=0)
    with pytest.raises(InvalidShotError) as caught:
        env.step(action)  # type: ignore[arg-type]
    assert words in str(caught.value)
    _, reward, *_ = env.step(straight(28.0))  # nothing changed: the episode goes on
    assert reward == 20.0


def test_a_step_after_the_end_and_bad_options_are_refused() -> None:
    env = CrokinoleEnv("open_20")
    env.reset(seed=0)
    env.step(straight(28.0))
    with pytest.raises(IllegalActionError, match="the episode is over"):
        env.step(straight(28.0))
    with pytest.raises(IllegalActionError, match="there is no task 'curling'"):
        CrokinoleEnv("curling")
    with pytest.raises(CrokinoleError, match="unknown CPU level 'grandmaster'"):
        CrokinoleEnv("win_game", "grandmaster")
    with pytest.raises(IllegalActionError, match="singles"):
        CrokinoleEnv("win_game", rules=Rules.doubles())
    with pytest.raises(IllegalActionError, match="raster"):
        CrokinoleEnv(raster=3)


def test_a_placement_on_a_disc_slides_to_the_nearest_free_spot() -> None:
    # R3: a disc may not be placed overlapping another; the env's hand slides it along the
    # line. Their disc 10.8 in below the centre blocks the middle of south's quarter up to the
    # angle where the centres are two radii apart (law of cosines).
    game = practice_game(PracticePosition((("n", 0.0, -10.8),)))
    radius, c, reach = 12.0, 10.8, 1.25 - 1e-9
    half = math.degrees(math.acos((radius**2 + c**2 - reach**2) / (2 * radius * c)))
    assert game.placement_problem(Seat.SOUTH, 0.0) is not None
    assert abs(legal_position(game, Seat.SOUTH, 1.0)) == pytest.approx(half, abs=1e-6)
    assert legal_position(game, Seat.SOUTH, 1.0) > 0 > legal_position(game, Seat.SOUTH, -1.0)
    assert legal_position(game, Seat.SOUTH, 20.0) == 20.0


def test_render_draws_the_board_with_the_agent_at_the_bottom() -> None:
    env = CrokinoleEnv("far_side", render_mode="rgb_array", render_size=64)
    env.reset(seed=0)
    image = env.render()
    assert image is not None and image.shape == (64, 64, 3)
    # Their disc at (2.5, 6.0) is drawn white (the seat opposite) above and right of the centre.
    col = int((2.5 + 15.0) / 30.0 * 64)
    row = int((15.0 - 6.0) / 30.0 * 64)
    assert image[row, col].tolist() == [240, 240, 240]
