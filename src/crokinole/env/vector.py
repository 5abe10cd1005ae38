"""``VectorCrokinoleEnv``: many boards of a one-shot task, stepped in one batch-simulator call.

The one-shot tasks — ``open_20`` and each drill — are an episode of one shot
from a setup (the drill's, or the empty board), so a vector of B boards
keeps its state in arrays: the B setups, ``(B, N, 2)``.  A step turns the B
actions into launches (:mod:`crokinole.env.actions`' mapping, the hand
noise drawn for all boards at once), plays every board's shot in **one
kernel call** (:func:`~crokinole.physics.simulate_boards`), applies R4 and
R5 with the referee's vectorised twin (:func:`~crokinole.rules.referee.judge_batch`)
and scores each board as :class:`~crokinole.env.CrokinoleEnv` does (the same
rules, in numpy).  Every board's episode then ends and the next begins at
once (Gymnasium's same-step autoreset): the observation returned is the new
setup's, and ``info["final_obs"]`` holds each board's observation after its shot.

The tests check it board for board against :class:`~crokinole.env.CrokinoleEnv`
and the rules engine (the same setups and shots give the same rewards and
observations); ``crokinole bench env`` measures its speed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from crokinole.ai import Noise
from crokinole.analysis.drills import DRILLS
from crokinole.analysis.practice import PracticePosition, practice_game
from crokinole.board import Seat
from crokinole.env.actions import MAX_DIRECTION, check_actions
from crokinole.env.observe import (
    DISC_FEATURES,
    OFFSET_LEFT,
    OFFSET_SCORES,
    OFFSET_TURN,
    observe,
)
from crokinole.env.single import vector_space
from crokinole.env.tasks import AGENT, SETUP_REACH, check_setup_noise
from crokinole.errors import IllegalActionError
from crokinole.physics import OVERLAP_TOLERANCE, simulate_boards
from crokinole.rules import Game, Rules
from crokinole.rules.referee import (
    FATE_BOARD,
    FATE_DITCH,
    FATE_TWENTY,
    BatchJudgement,
    judge_batch,
    zone_points,
)

__all__ = ["VECTOR_TASKS", "VectorCrokinoleEnv"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
#: A task's score of every board: (judgement, own disc mask, N) → rewards.
Scorer = Callable[[BatchJudgement, BoolArray, int], FloatArray]


def _open_20(j: BatchJudgement, own: BoolArray, n: int) -> FloatArray:
    # The board is empty before the shot: the shooter's count after it is its disc's points.
    return np.asarray(j.points[:, n], dtype=np.float64)


def _open_twenty(j: BatchJudgement, own: BoolArray, n: int) -> FloatArray:
    return np.asarray(j.valid & (j.fate[:, n] == FATE_TWENTY), dtype=np.float64)


def _own_twenties(j: BatchJudgement, own: BoolArray, n: int) -> FloatArray:
    return np.asarray(((j.fate == FATE_TWENTY) & own).sum(axis=1), dtype=np.float64)


def _takeouts_and_stay(cap: int) -> Scorer:
    def score(j: BatchJudgement, own: BoolArray, n: int) -> FloatArray:
        taken = np.minimum(((j.fate == FATE_DITCH) & ~own).sum(axis=1), cap)
        stays = (taken > 0) & (j.fate[:, n] == FATE_BOARD)
        return np.asarray(j.valid * (taken + stays), dtype=np.float64)

    return score


def _their_twenties(j: BatchJudgement, own: BoolArray) -> IntArray:
    return np.asarray(((j.fate == FATE_TWENTY) & ~own).sum(axis=1), dtype=np.int64)


def _inside_out(j: BatchJudgement, own: BoolArray, n: int) -> FloatArray:
    in_fifteen = (j.fate == FATE_BOARD) & (j.points == 15)
    theirs_left_in = (in_fifteen & ~own).any(axis=1)
    ok = j.valid & (_their_twenties(j, own) == 0) & ~theirs_left_in
    stays_in = (j.fate[:, n] == FATE_TWENTY) | in_fifteen[:, n]
    return np.asarray(ok * (1 + stays_in), dtype=np.float64)


def _carom_twenty(j: BatchJudgement, own: BoolArray, n: int) -> FloatArray:
    made = j.valid & (j.fate[:, n] == FATE_TWENTY) & (_their_twenties(j, own) == 0)
    return np.asarray(made, dtype=np.float64)


#: The one-shot tasks and their scoring in numpy (the drills' rules of crokinole.analysis.drills).
_SCORERS: dict[str, Scorer] = {
    "open_20": _open_20,
    "open20": _open_twenty,
    "hanger20": _own_twenties,
    "star8": _takeouts_and_stay(2),
    "far_side": _takeouts_and_stay(1),
    "near_side": _takeouts_and_stay(1),
    "inside_out": _inside_out,
    "follow20": _carom_twenty,
    "ricochet20": _carom_twenty,
}
#: The tasks a vector env plays (the ones of one shot whose drill it knows).
VECTOR_TASKS = tuple(t for t in ("open_20", *DRILLS) if t in _SCORERS)


def _task_game(task: str) -> Game:
    """The game a task's episode starts from (the agent, south, to shoot)."""
    if task == "open_20":
        return Game(Rules.tournament_singles())
    return practice_game(DRILLS[task].setup)


class VectorCrokinoleEnv(VectorEnv[npt.NDArray[np.float32], npt.NDArray[np.float32], Any]):
    """``num_envs`` boards of a one-shot task (``open_20`` or a drill), one shot each per step.

    Args:
        num_envs: how many boards.
        task: a task of :data:`VECTOR_TASKS`.
        hand_noise: the agent's execution noise, or None to play actions exactly.
        setup_noise: move a drill's discs by this much (inches, per axis) each
            episode, as :class:`~crokinole.env.CrokinoleEnv` does.

    Raises:
        IllegalActionError: an unknown or unsupported task, a bad board count or noise.

    >>> envs = VectorCrokinoleEnv(4, "open_20")
    >>> obs, _ = envs.reset(seed=0)
    >>> obs, rewards, terminated, truncated, info = envs.step(np.tile([0.0, 0.0, -0.44], (4, 1)))
    >>> rewards.tolist(), bool(terminated.all())
    ([20.0, 20.0, 20.0, 20.0], True)
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.SAME_STEP}  # noqa: RUF012

    def __init__(
        self,
        num_envs: int,
        task: str = "open_20",
        *,
        hand_noise: Noise | None = None,
        setup_noise: float = 0.0,
    ) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise IllegalActionError(f"num_envs is a whole number of boards >= 1, not {num_envs!r}")
        if task not in _SCORERS:
            raise IllegalActionError(
                f"the vector env plays the one-shot tasks {', '.join(VECTOR_TASKS)}; "
                f"not {task!r}: for many boards of it, gymnasium.make_vec("
                f"'crokinole/Crokinole-v0', num_envs=..., task={task!r}) steps CrokinoleEnvs"
            )
        if hand_noise is not None and not isinstance(hand_noise, Noise):
            raise IllegalActionError(f"hand_noise is a Noise or None, not {hand_noise!r}")
        self.num_envs = num_envs
        self.task = task
        self.hand_noise = hand_noise
        self.setup_noise = check_setup_noise(setup_noise)
        self._score = _SCORERS[task]
        game = _task_game(task)
        self.board = game.board
        self._start = game
        # The setup in the game's order (the simulator's disc order in Game.shoot).
        self._base = np.array([(d.x, d.y) for d in game.discs], dtype=np.float64).reshape(-1, 2)
        self._letters = ["s" if d.owner is AGENT else "n" for d in game.discs]
        sides = np.array([game.side_of(d.owner) for d in game.discs], dtype=np.int64)
        self._sides = sides
        self._shooter_side = game.side_of(AGENT)
        self._own = np.append(sides == self._shooter_side, True)
        self._template = observe(game, AGENT)
        self._template[:OFFSET_TURN] = 0.0
        self._template[OFFSET_SCORES : OFFSET_SCORES + 4] = 0.0
        self._after = self._template.copy()
        self._after[OFFSET_TURN : OFFSET_TURN + 4] = 0.0
        self._after[OFFSET_TURN + 2] = 1.0  # north (the seat opposite) shoots next
        self._after[OFFSET_LEFT] = np.float32((game.in_hand(AGENT) - 1) / 12.0)
        self.single_action_space = spaces.Box(-1.0, 1.0, shape=(3,), dtype=np.float32)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.single_observation_space = vector_space()
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self._rng = np.random.default_rng(0)
        self.setups = np.repeat(self._base[None], num_envs, axis=0)
        #: The shots played at the last step: ``(B, 3)`` position, direction, power.
        self.shots = np.zeros((num_envs, 3))

    # ---------------------------------------------------------------- setups

    def _draw_setups(self, count: int) -> FloatArray:
        """``count`` setups: the task's, each disc moved by the setup noise when there is one."""
        base = self._base
        if self.setup_noise == 0.0 or base.shape[0] == 0:
            return np.repeat(base[None], count, axis=0)
        out = np.empty((count, *base.shape))
        todo = np.arange(count)
        for _ in range(100):
            draws = base[None] + self._rng.normal(0.0, self.setup_noise, (todo.size, *base.shape))
            draws = np.rint(draws * 100.0) / 100.0 + 0.0  # hundredths, as a position holds them
            ok = self._legal(draws)
            out[todo[ok]] = draws[ok]
            todo = todo[~ok]
            if todo.size == 0:
                return out
        out[todo] = base  # pragma: no cover - a draw is legal far more often than not
        return out

    def _legal(self, setups: FloatArray) -> BoolArray:
        """Which setups a practice position accepts (R5) and keep the line free (R3)."""
        b = self.board
        d = np.hypot(setups[..., 0], setups[..., 1])
        ok = ((d <= SETUP_REACH) & (d >= b.hole_radius)).all(axis=1)
        pegs = b.peg_array()
        gap = np.hypot(setups[:, :, None, 0] - pegs[:, 0], setups[:, :, None, 1] - pegs[:, 1])
        ok &= (gap >= b.disc_radius + b.peg_radius - OVERLAP_TOLERANCE).all(axis=(1, 2))
        n = setups.shape[1]
        if n > 1:
            rows, cols = np.triu_indices(n, 1)
            apart = np.hypot(*(setups[:, rows] - setups[:, cols]).transpose(2, 0, 1))
            ok &= (apart >= 2.0 * b.disc_radius - OVERLAP_TOLERANCE).all(axis=1)
        return np.asarray(ok, dtype=np.bool_)

    def setup_position(self, index: int) -> PracticePosition:
        """Board ``index``'s setup as a practice position (to replay it through the rules)."""
        discs = tuple(
            (letter, float(x), float(y))
            for letter, (x, y) in zip(self._letters, self.setups[index].tolist(), strict=True)
        )
        return PracticePosition(discs)

    # ----------------------------------------------------------- observations

    def _counts(self, positions: FloatArray, points: IntArray | None) -> FloatArray:
        """Each side's round count per board: the setup's zones, or the shot's points."""
        per_disc = zone_points(self.board, positions) if points is None else points
        own = self._own[: per_disc.shape[1]]
        return np.stack([per_disc[:, own].sum(axis=1), per_disc[:, ~own].sum(axis=1)], axis=1)

    def _observe(
        self, template: npt.NDArray[np.float32], positions: FloatArray, on_board: BoolArray,
        counts: FloatArray,
    ) -> npt.NDArray[np.float32]:  # fmt: skip
        """:func:`~crokinole.env.observe.observe` of every board, from arrays."""
        count = on_board.shape[0]
        obs = np.repeat(template[None], count, axis=0)
        rank = np.cumsum(on_board, axis=1) - 1
        board_index, disc = np.nonzero(on_board)
        row = rank[board_index, disc] * DISC_FEATURES
        scale = 1.0 / self.board.surface_radius
        obs[board_index, row] = positions[board_index, disc, 0] * scale
        obs[board_index, row + 1] = positions[board_index, disc, 1] * scale
        mine = self._own[disc]
        obs[board_index, row + 2 + np.where(mine, 0, 2)] = 1.0
        obs[board_index, row + 6] = 1.0
        obs[:, OFFSET_SCORES] = counts[:, 0] / 100.0
        obs[:, OFFSET_SCORES + 2] = counts[:, 1] / 100.0
        return obs

    def _setup_observations(self) -> npt.NDArray[np.float32]:
        on_board = np.ones(self.setups.shape[:2], dtype=np.bool_)
        return self._observe(self._template, self.setups, on_board, self._counts(self.setups, None))

    # ------------------------------------------------------------- the API

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[npt.NDArray[np.float32], dict[str, Any]]:
        """Lay out every board's setup; ``seed`` seeds every random number that follows."""
        if seed is not None and not (isinstance(seed, int) and not isinstance(seed, bool)):
            raise IllegalActionError(f"seed is one whole number for all boards, not {seed!r}")
        self._rng = np.random.default_rng(seed)
        self.setups = self._draw_setups(self.num_envs)
        return self._setup_observations(), {}

    def step(
        self, actions: npt.NDArray[np.float32]
    ) -> tuple[npt.NDArray[np.float32], FloatArray, BoolArray, BoolArray, dict[str, Any]]:
        """Play one shot on every board; each episode ends and the next starts (same step).

        Raises:
            InvalidShotError: actions that are not a ``(num_envs, 3)`` array of
                finite numbers in [-1, 1] (the message names the board).
        """
        a = check_actions(actions, self.num_envs)
        board = self.board
        position = a[:, 0] * board.placement_limit
        direction = a[:, 1] * MAX_DIRECTION
        power = (a[:, 2] + 1.0) * 50.0
        if self.hand_noise is not None:
            position, direction, power = self.hand_noise.perturb_many(
                board, position, direction, power, self._rng
            )
        self.shots = np.stack([position, direction, power], axis=1)
        launches = board.launches(Seat.SOUTH, position, direction, power)
        batch = simulate_boards(board, self.setups, launches)
        judged = judge_batch(
            board,
            owner_sides=self._sides,
            shooter_side=self._shooter_side,
            batch=batch,
            required_contact=self._start.rules.required_contact,
        )
        n = self._base.shape[0]
        rewards = self._score(judged, self._own, n)
        on_board = judged.fate == FATE_BOARD
        counts = self._counts(batch.positions, judged.points)
        final = self._observe(self._after, batch.positions, on_board, counts)
        self.setups = self._draw_setups(self.num_envs)
        done = np.ones(self.num_envs, dtype=np.bool_)
        infos = {"final_obs": final, "_final_obs": done.copy()}
        return (
            self._setup_observations(),
            rewards,
            done,
            np.zeros(self.num_envs, dtype=np.bool_),
            infos,
        )
