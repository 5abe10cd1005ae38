"""VectorCrokinoleEnv against CrokinoleEnv and the rules: same setups and shots, same results."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.wrappers.vector import RecordEpisodeStatistics

from crokinole.ai import HAND_NOISE
from crokinole.analysis.drills import DRILLS
from crokinole.analysis.practice import practice_game, practice_shot
from crokinole.board import TOURNAMENT_BOARD as BOARD
from crokinole.board import Seat, Shot
from crokinole.env import CrokinoleEnv, VectorCrokinoleEnv, observe, shot_to_action
from crokinole.env.vector import VECTOR_TASKS
from crokinole.errors import IllegalActionError, InvalidShotError
from crokinole.rules import Game, Rules

BOARDS = 64


def _example(task: str) -> np.ndarray:
    """The action of a shot that makes the task (the drill's example, or an open 20)."""
    shot = Shot(0.0, 0.0, 28.0) if task == "open_20" else DRILLS[task].example
    return shot_to_action(BOARD, shot)


def test_every_one_shot_task_is_supported() -> None:
    assert ("open_20", *DRILLS) == VECTOR_TASKS


@pytest.mark.parametrize("task", VECTOR_TASKS)
def test_each_board_scores_as_crokinole_env_does(task: str) -> None:
    # No noise: board b's step is CrokinoleEnv's step with the same action, bit for bit.
    envs = VectorCrokinoleEnv(BOARDS, task)
    envs.reset(seed=1)
    rng = np.random.default_rng(7)
    actions = rng.uniform(-1.0, 1.0, (BOARDS, 3)).astype(np.float32)
    actions[: BOARDS // 4, 0] = rng.uniform(-0.1, 0.1, BOARDS // 4)  # aimed at the middle too
    actions[: BOARDS // 4, 1] = rng.uniform(-0.1, 0.1, BOARDS // 4)
    actions[-8:] = _example(task)
    _, rewards, terminated, _, info = envs.step(actions)
    assert terminated.all()
    single = CrokinoleEnv(task)
    for b in range(BOARDS):
        single.reset(seed=b)
        obs, reward, *_ = single.step(actions[b])
        assert rewards[b] == reward, f"board {b}"
        assert np.array_equal(info["final_obs"][b], obs), f"board {b}"


def _expected(task: str, setup: object, shot: Shot) -> tuple[float, np.ndarray]:
    """The reward and observation the rules give for ``shot`` from a board's setup."""
    if task == "open_20":
        game = Game(Rules.tournament_singles())
        game.shoot(Seat.SOUTH, shot)
        return float(game.round_counts()[0].total), observe(game, Seat.SOUTH)
    game = practice_game(setup)  # type: ignore[arg-type]
    game.shoot(Seat.SOUTH, shot)
    points = DRILLS[task].score_attempt(practice_shot(setup, shot))  # type: ignore[arg-type]
    return float(points), observe(game, Seat.SOUTH)


@pytest.mark.parametrize("task", VECTOR_TASKS)
def test_noisy_setups_and_hands_replay_through_the_rules(task: str) -> None:
    # With setup and hand noise, each board's setup and played shot, replayed through
    # Game.shoot and the drill's own scoring, give the board's reward and observation.
    envs = VectorCrokinoleEnv(BOARDS, task, hand_noise=HAND_NOISE, setup_noise=0.4)
    obs, _ = envs.reset(seed=3)
    rng = np.random.default_rng(11)
    for _ in range(2):
        setups = [envs.setup_position(b) for b in range(BOARDS)] if task != "open_20" else []
        for b, setup in enumerate(setups):
            assert np.array_equal(obs[b], observe(practice_game(setup), Seat.SOUTH))
        actions = rng.uniform(-1.0, 1.0, (BOARDS, 3)).astype(np.float32)
        actions[:, :2] *= 0.2
        actions[-16:] = _example(task)
        obs, rewards, _, _, info = envs.step(actions)
        for b in range(BOARDS):
            shot = Shot(*envs.shots[b].tolist())
            reward, final = _expected(task, setups[b] if setups else None, shot)
            assert rewards[b] == reward, f"board {b}"
            assert np.array_equal(info["final_obs"][b], final), f"board {b}"


def test_the_same_seed_and_actions_give_the_same_steps() -> None:
    def run(seed: int) -> list[bytes]:
        envs = VectorCrokinoleEnv(32, "star8", hand_noise=HAND_NOISE, setup_noise=0.5)
        obs, _ = envs.reset(seed=seed)
        out = [obs.tobytes()]
        rng = np.random.default_rng(0)
        for _ in range(5):
            obs, rewards, *_ = envs.step(rng.uniform(-1, 1, (32, 3)).astype(np.float32))
            out += [obs.tobytes(), rewards.tobytes()]
        return out

    assert run(5) == run(5)
    assert run(5) != run(6)


def test_bad_actions_and_options_are_refused() -> None:
    envs = VectorCrokinoleEnv(4)
    envs.reset(seed=0)
    actions = np.zeros((4, 3), dtype=np.float32)
    actions[2, 1] = np.nan
    with pytest.raises(InvalidShotError, match=r"board 2: .*direction \(item 1\)"):
        envs.step(actions)
    with pytest.raises(InvalidShotError, match=r"a \(4, 3\) array"):
        envs.step(np.zeros((3, 3)))
    with pytest.raises(IllegalActionError, match="one-shot tasks"):
        VectorCrokinoleEnv(4, "win_game")
    with pytest.raises(IllegalActionError, match="num_envs"):
        VectorCrokinoleEnv(0)
    with pytest.raises(IllegalActionError, match="setup_noise"):
        VectorCrokinoleEnv(4, "star8", setup_noise=-1.0)


def test_it_works_with_gymnasiums_vector_wrappers_and_spaces() -> None:
    envs = RecordEpisodeStatistics(VectorCrokinoleEnv(8, "star8", setup_noise=0.3))
    obs, _ = envs.reset(seed=0)
    assert envs.observation_space.contains(obs)
    envs.action_space.seed(0)
    obs, rewards, terminated, _, info = envs.step(envs.action_space.sample())
    assert envs.observation_space.contains(obs) and envs.observation_space.contains(
        info["final_obs"]
    )
    assert terminated.all() and np.array_equal(info["episode"]["r"], rewards)
    assert info["episode"]["l"].tolist() == [1] * 8


def test_the_tasks_of_many_shots_run_on_many_boards_in_gymnasiums_vector_env() -> None:
    # docs/env.md: win_round and win_game on many boards are CrokinoleEnvs in Gymnasium's
    # SyncVectorEnv.  Board i, seeded seed + i by the vector env's reset, takes the same
    # steps as a CrokinoleEnv of its own with that seed and those actions.
    def vector() -> Any:
        return gym.make_vec(
            "crokinole.env.single:crokinole/Crokinole-v0",
            num_envs=3,
            vectorization_mode="sync",
            task="win_round",
            opponent="easy",
        )

    actions = np.random.default_rng(3).uniform(-1, 1, (12, 3, 3)).astype(np.float32)
    runs = []
    for _ in range(2):
        envs = vector()
        obs, _ = envs.reset(seed=7)
        steps = [obs.copy()]
        for action in actions:
            obs, rewards, terminated, truncated, _ = envs.step(action)
            steps.append((obs.copy(), rewards.copy(), terminated.copy()))
        envs.close()
        runs.append(steps)
    assert all(np.array_equal(a, b) for a, b in zip(runs[0][0], runs[1][0], strict=True))
    for one, two in zip(runs[0][1:], runs[1][1:], strict=True):
        assert all(np.array_equal(a, b) for a, b in zip(one, two, strict=True))
    single = CrokinoleEnv(task="win_round", opponent="easy")
    obs, _ = single.reset(seed=8)  # board 1
    assert np.array_equal(obs, runs[0][0][1])
    for k, action in enumerate(actions):
        obs, reward, terminated, truncated, _ = single.step(action[1])
        vec_obs, vec_rewards, vec_terminated = runs[0][k + 1]
        assert reward == vec_rewards[1] and terminated == vec_terminated[1]
        if terminated or truncated:
            break  # (the vector env resets the board on its next step)
        assert np.array_equal(obs, vec_obs[1])
    single.close()
