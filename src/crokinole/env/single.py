"""``CrokinoleEnv``: one seat of crokinole as a Gymnasium environment.

The agent sits south; the task (:mod:`crokinole.env.tasks`) says what an
episode is and what it pays.  Actions are :mod:`crokinole.env.actions`'
three numbers, observations :mod:`crokinole.env.observe`'s vector (and, with
``raster=``, the board as an image too).  Every random number of an episode
comes from the generator seeded by ``reset(seed=...)``, so the same seed and
actions give the same episode, bit for bit.
"""

from __future__ import annotations

from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from crokinole.ai import Level, Noise
from crokinole.env.actions import action_to_shot
from crokinole.env.observe import OBS_HIGH, OBS_LOW, OBS_SIZE, observe, raster
from crokinole.env.tasks import AGENT, Episode, Turn, check_task
from crokinole.errors import IllegalActionError
from crokinole.rules import Game, Rules

__all__ = ["ENV_ID", "CrokinoleEnv", "observation_space"]

Observation = npt.NDArray[np.float32] | dict[str, npt.NDArray[Any]]


def vector_space() -> spaces.Box:
    """The space of :func:`~crokinole.env.observe.observe`'s vector."""
    return spaces.Box(OBS_LOW, OBS_HIGH, shape=(OBS_SIZE,), dtype=np.float32)


def observation_space(raster_size: int | None) -> spaces.Space[Any]:
    """The vector alone, or ``{"state": vector, "raster": image}`` with a raster size."""
    if raster_size is None:
        return vector_space()
    image = spaces.Box(0, 255, shape=(raster_size, raster_size, 3), dtype=np.uint8)
    return spaces.Dict({"state": vector_space(), "raster": image})


def check_raster(size: object) -> int | None:
    """A raster size (8 to 1024 pixels) or None, else a plain error."""
    if size is None:
        return None
    if isinstance(size, bool) or not isinstance(size, int) or not 8 <= size <= 1024:
        raise IllegalActionError(f"raster is a size in pixels from 8 to 1024 or None, not {size!r}")
    return size


class CrokinoleEnv(gym.Env[Observation, npt.NDArray[np.float32]]):
    """One seat (south) of crokinole: a shot, a drill, a round or a game against a CPU level.

    Args:
        task: ``"open_20"``, a drill id, ``"win_round"`` or ``"win_game"``
            (:data:`~crokinole.env.tasks.TASKS`).
        opponent: the CPU level (:class:`~crokinole.ai.Level`) of a round or game.
        rules: singles rules of a round or game (default: one round, or four).
        hand_noise: the agent's execution noise (e.g.
            :data:`~crokinole.ai.HAND_NOISE`); None plays the actions exactly.
        agent_first: whether the agent opens; None draws it each episode.
        setup_noise: move a drill's discs by this much (inches, per axis) each episode.
        raster: also observe the board as a ``raster`` × ``raster`` RGB image.
        render_mode: ``"rgb_array"`` to render the board (``render_size`` pixels).

    Raises:
        IllegalActionError: an unknown task or level, rules that are not singles,
            a bad raster size or render mode.

    >>> env = CrokinoleEnv("open_20")
    >>> obs, info = env.reset(seed=7)
    >>> obs, reward, terminated, truncated, info = env.step(np.array([0.0, 0.0, -0.44]))
    >>> reward, terminated, info["foul"]   # 28% straight at the hole: an open 20
    (20.0, True, None)
    """

    metadata: dict[str, Any] = {"render_modes": ["rgb_array"], "render_fps": 1}  # noqa: RUF012

    def __init__(
        self,
        task: str = "open_20",
        opponent: Level | str = Level.NORMAL,
        *,
        rules: Rules | None = None,
        hand_noise: Noise | None = None,
        agent_first: bool | None = None,
        setup_noise: float = 0.0,
        raster: int | None = None,
        render_mode: str | None = None,
        render_size: int = 256,
    ) -> None:
        self.task = check_task(task)
        self._opponent = opponent
        self._rules = rules
        self._hand_noise = hand_noise
        self._agent_first = agent_first
        self._setup_noise = setup_noise
        if render_mode not in (None, "rgb_array"):
            raise IllegalActionError(f"render_mode is None or 'rgb_array', not {render_mode!r}")
        self.render_mode = render_mode
        self.raster_size = check_raster(raster)
        self.render_size = check_raster(render_size) or 256
        self.action_space = spaces.Box(-1.0, 1.0, shape=(3,), dtype=np.float32)
        self.observation_space = observation_space(self.raster_size)
        # Checks the options now (a bad level or rules fail here, not at reset).
        self._episode = self._new_episode(np.random.default_rng(0))

    def _new_episode(self, rng: np.random.Generator) -> Episode:
        return Episode(
            self.task,
            opponent=self._opponent,
            rules=self._rules,
            hand_noise=self._hand_noise,
            agent_first=self._agent_first,
            setup_noise=self._setup_noise,
            rng=rng,
        )

    @property
    def game(self) -> Game:
        """The game being played (read it, never change it: the episode owns it)."""
        return self._episode.game

    def _observation(self) -> Observation:
        vector = observe(self._episode.game, AGENT)
        if self.raster_size is None:
            return vector
        return {"state": vector, "raster": raster(self._episode.game, AGENT, self.raster_size)}

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        """Start an episode; ``seed`` seeds its generator (as Gymnasium's ``np_random``)."""
        super().reset(seed=seed)
        self._episode = self._new_episode(self.np_random)
        return self._observation(), {}

    def step(
        self, action: npt.NDArray[np.float32]
    ) -> tuple[Observation, SupportsFloat, bool, bool, dict[str, Any]]:
        """Play the agent's shot (and the opponent's replies).

        Raises:
            InvalidShotError: the action is not three finite numbers in [-1, 1].
            IllegalActionError: the episode is over (call reset).
        """
        shot = action_to_shot(self._episode.game.board, action)
        turn: Turn = self._episode.play(shot)
        return self._observation(), turn.reward, turn.terminated, False, turn.info()

    def render(self) -> npt.NDArray[np.uint8] | None:
        """The board as an RGB image (``render_mode="rgb_array"``), the agent at the bottom."""
        if self.render_mode != "rgb_array":
            return None
        return raster(self._episode.game, AGENT, self.render_size)


#: ``gymnasium.make("crokinole/Crokinole-v0", task=..., opponent=...)`` makes a CrokinoleEnv.
ENV_ID = "crokinole/Crokinole-v0"
if ENV_ID not in gym.registry:
    gym.register(ENV_ID, entry_point="crokinole.env.single:CrokinoleEnv")
