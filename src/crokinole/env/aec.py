"""``CrokinoleAEC``: singles or doubles as a PettingZoo AEC environment.

Each seat (``"south"``, ``"west"``, ``"north"``, ``"east"``) is played by a
program (an agent of the environment) or by a CPU level.  Agents take turns
as the rules say (R2: one disc at a time, clockwise in doubles); the CPU
seats' shots, the next round's start and the turns of a seat with no room
to place (R3, a timeout) are played inside :meth:`CrokinoleAEC.step` and
:meth:`CrokinoleAEC.reset`, so the selected agent is always the shooter.

Observations and actions are :class:`~crokinole.env.CrokinoleEnv`'s, seen
from each agent's own seat (:mod:`crokinole.env.observe`).  Rewards, to
every agent of a side alike:

* ``reward="game"`` (the default): +1 to the winning side, −1 to the other,
  0 for a draw, when the game ends;
* ``reward="round"``: after every step, the change of the side's round
  margin (its count minus the other side's, R6, 20s included), so an
  agent's return is the sum of its side's round margins.

The opponent's and the agents' noise come from the generator seeded by
``reset(seed=...)``: the same seed and actions give the same game.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv  # type: ignore[import-untyped]  # no py.typed

from crokinole.ai import CpuPlayer, Level, Noise, make_player
from crokinole.board import Seat, Shot
from crokinole.env.actions import action_to_shot, legal_position
from crokinole.env.observe import observe, raster
from crokinole.env.single import check_raster, observation_space
from crokinole.errors import IllegalActionError, UnknownSeatError
from crokinole.rules import Game, Layout, Phase, Rules

__all__ = ["REWARDS", "CrokinoleAEC"]

#: The reward schemes.
REWARDS = ("game", "round")


class CrokinoleAEC(AECEnv):  # type: ignore[misc]  # AECEnv is untyped (Any)
    """A game of singles or doubles; the seats in ``cpu`` are CPU levels, the others agents.

    Args:
        rules: singles or doubles rules (default tournament singles).
        cpu: seat name → CPU level for the seats no program plays, e.g.
            ``{"north": "expert"}``; every other seat of the rules is an agent.
        reward: ``"game"`` or ``"round"`` (see the module).
        hand_noise: the agents' execution noise, or None to play actions exactly.
        raster: also observe the board as a ``raster`` × ``raster`` image, from
            each agent's seat (``{"state": vector, "raster": image}``).
        render_mode: ``"rgb_array"`` to render the board from south.

    Raises:
        IllegalActionError: rules that are not singles or doubles, an unknown
            seat or level, no seat left for a program, an unknown reward.

    >>> env = CrokinoleAEC(Rules.doubles(), cpu={"west": "easy", "east": "easy"})
    >>> env.reset(seed=1)
    >>> env.possible_agents, env.agent_selection
    (['south', 'north'], 'south')
    """

    metadata: dict[str, Any] = {  # noqa: RUF012
        "render_modes": ["rgb_array"],
        "name": "crokinole_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        rules: Rules | None = None,
        cpu: Mapping[str, Level | str] | None = None,
        *,
        reward: str = "game",
        hand_noise: Noise | None = None,
        raster: int | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        self.rules = Rules.tournament_singles() if rules is None else rules
        if not isinstance(self.rules, Rules) or self.rules.layout not in (
            Layout.SINGLES,
            Layout.DOUBLES,
        ):
            raise IllegalActionError(f"CrokinoleAEC plays singles or doubles, not {rules!r}")
        self.cpu: dict[Seat, CpuPlayer] = {}
        for name, level in (cpu or {}).items():
            try:
                seat = Seat.parse(name)
            except UnknownSeatError as exc:
                raise IllegalActionError(str(exc)) from None
            if seat not in self.rules.seats:
                seats = ", ".join(s.key for s in self.rules.seats)
                raise IllegalActionError(f"{seat.key} is not a seat of this game: {seats}")
            self.cpu[seat] = make_player(level)
        self.seats = tuple(s for s in self.rules.seats if s not in self.cpu)
        if not self.seats:
            raise IllegalActionError("every seat is a CPU: leave at least one to a program")
        if reward not in REWARDS:
            raise IllegalActionError(f"reward is 'game' or 'round', not {reward!r}")
        if hand_noise is not None and not isinstance(hand_noise, Noise):
            raise IllegalActionError(f"hand_noise is a Noise or None, not {hand_noise!r}")
        if render_mode not in (None, "rgb_array"):
            raise IllegalActionError(f"render_mode is None or 'rgb_array', not {render_mode!r}")
        self.reward_scheme = reward
        self.hand_noise = hand_noise
        self.render_mode = render_mode
        self.possible_agents = [s.key for s in self.seats]
        self._seat = {s.key: s for s in self.seats}
        self._action_space = spaces.Box(-1.0, 1.0, shape=(3,), dtype=np.float32)
        self.raster_size = check_raster(raster)
        self._observation_space = observation_space(self.raster_size)
        self._rng = np.random.default_rng(0)
        self.game = Game(self.rules)
        self._paid = [0, 0]

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        """The observation vector's space (the same for every agent)."""
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """Box(3) in [-1, 1]: position, direction, power."""
        return self._action_space

    def observe(self, agent: str) -> npt.NDArray[np.float32] | dict[str, npt.NDArray[Any]]:
        """The game seen from ``agent``'s seat."""
        seat = self._seat[agent]
        vector = observe(self.game, seat)
        if self.raster_size is None:
            return vector
        return {"state": vector, "raster": raster(self.game, seat, self.raster_size)}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a game; ``seed`` seeds every random number of it."""
        self._rng = np.random.default_rng(seed)
        self.game = Game(self.rules)
        self._paid = [0, 0]
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._advance()
        self._select(self.agents[0])
        self._accumulate_rewards()

    def _margins(self) -> list[int]:
        counts = self.game.round_counts()
        totals = [c.total for c in counts]
        return [totals[0] - totals[1], totals[1] - totals[0]]

    def _pay_round(self) -> None:
        """``reward="round"``: pay each side the change of its margin since last paid."""
        if self.reward_scheme != "round":
            return
        now = self._margins()
        for agent in self.agents:
            side = self.game.side_of(self._seat[agent])
            self.rewards[agent] += float(now[side] - self._paid[side])
        self._paid = now

    def _advance(self) -> None:
        """Play CPU seats, timeouts and new rounds until an agent is to shoot or the game ends."""
        game = self.game
        while not game.is_over:
            if game.phase is Phase.ROUND_OVER:
                self._pay_round()
                self._paid = [0, 0]
                game.next_round()
                continue
            seat = game.current_seat
            assert seat is not None
            if not game.can_place(seat):
                game.timeout(seat)  # no room anywhere on the quarter (R3)
            elif seat in self.cpu:
                game.shoot(seat, self.cpu[seat].choose_shot(game, self._rng))
            else:
                break
        self._pay_round()

    def _select(self, fallback: str) -> None:
        seat = self.game.current_seat
        self.agent_selection = seat.key if seat is not None and not self.game.is_over else fallback

    def _played(self, seat: Seat, aimed: Shot) -> Shot | None:
        shot = aimed
        if self.hand_noise is not None:
            shot = self.hand_noise.perturb(self.game.board, aimed, self._rng)
            if self.game.placement_problem(seat, shot.position) is not None:
                shot = Shot(aimed.position, shot.direction, shot.power)
        position = legal_position(self.game, seat, shot.position)
        return None if position is None else Shot(position, shot.direction, shot.power)

    def step(self, action: npt.NDArray[np.float32] | None) -> None:
        """Play the selected agent's shot (None once it is done), then the CPU seats.

        Raises:
            InvalidShotError: the action is not three finite numbers in [-1, 1].
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self._seat[agent]
        aimed = action_to_shot(self.game.board, action)  # checks before anything changes
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        shot = self._played(seat, aimed)
        report = self.game.shoot(seat, shot) if shot is not None else self.game.timeout(seat)
        self.infos[agent] = {
            "shot": None if shot is None else (shot.position, shot.direction, shot.power),
            "foul": None if report.foul is None else report.foul.name.lower(),
        }
        self._advance()
        if self.game.is_over:
            outcome = self.game.outcome
            assert outcome is not None
            if self.reward_scheme == "game" and outcome.winner is not None:
                for other in self.agents:
                    won = self.game.side_of(self._seat[other]) == outcome.winner
                    self.rewards[other] += 1.0 if won else -1.0
            self.terminations = dict.fromkeys(self.agents, True)
        following = self.agents[(self.agents.index(agent) + 1) % len(self.agents)]
        self._select(following)
        self._accumulate_rewards()

    def render(self) -> npt.NDArray[np.uint8] | None:
        """The board from south as an RGB image (``render_mode="rgb_array"``)."""
        if self.render_mode != "rgb_array":
            return None
        return raster(self.game, Seat.SOUTH, 256)

    def close(self) -> None:
        """Nothing to release."""
