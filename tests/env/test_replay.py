"""1,000 seeded episodes, each played twice from the same seed and actions: bit-identical."""

from __future__ import annotations

import numpy as np
import pytest

from crokinole.ai import HAND_NOISE
from crokinole.env import TASKS, CrokinoleEnv

EPISODES = 1_000


def _episode(env: CrokinoleEnv, seed: int, actions: np.ndarray) -> list[bytes | float | object]:
    obs, _ = env.reset(seed=seed)
    trace: list[bytes | float | object] = [obs.tobytes()]
    for action in actions:
        obs, reward, terminated, truncated, info = env.step(action)
        trace += [obs.tobytes(), float(reward), terminated, truncated, info]
        if terminated:
            break
    trace.append(env.game.to_json())
    return trace


@pytest.mark.slow
def test_a_thousand_seeded_episodes_replay_bit_identically() -> None:
    # Every task in turn (rounds and games against the CPU levels), with the agent's hand
    # noise on: the opponent's choices, its noise and the agent's all come from the seed.
    levels = ("easy", "normal", "hard", "expert")
    first = {t: CrokinoleEnv(t, levels[k % 4], hand_noise=HAND_NOISE) for k, t in enumerate(TASKS)}
    again = {t: CrokinoleEnv(t, levels[k % 4], hand_noise=HAND_NOISE) for k, t in enumerate(TASKS)}
    source = np.random.default_rng(2026)
    lengths = []
    for k in range(EPISODES):
        task = TASKS[k % len(TASKS)]
        seed = int(source.integers(2**31))
        actions = source.uniform(-1.0, 1.0, (40, 3)).astype(np.float32)
        a = _episode(first[task], seed, actions)
        b = _episode(again[task], seed, actions)
        assert a == b, f"episode {k} ({task}, seed {seed}) differs on replay"
        lengths.append(len(a))
    assert len(lengths) == EPISODES
