"""The tasks of :class:`~crokinole.env.CrokinoleEnv`: what an episode is and what it pays.

Plain Python over the rules engine (no gymnasium): an :class:`Episode` holds
a :class:`~crokinole.rules.Game` and plays the agent's shots through
:meth:`~crokinole.rules.Game.shoot`, so every rule (R3–R6, fouls included)
is the referee's own.  The agent sits south.

=================  ===============================  =========================================
task               an episode                       reward
=================  ===============================  =========================================
``open_20``        one shot on an empty board        the points the shot disc scores (R6): 20
                                                    in the hole, 15, 10 or 5 where it rests;
                                                    0 for a foul (R4: it must end touching
                                                    the 15 circle or in the hole) or out (R5)
a drill id         one attempt at the drill          the drill's points for the attempt
(``open20``,       (:data:`~crokinole.analysis.      (:mod:`crokinole.analysis.drills`;
``star8`` …)       drills.DRILLS`), its setup laid   a foul scores 0 unless the drill says)
                   out as the drill has it
``win_round``      one round of tournament singles   after each of the agent's turns, the
                   against a CPU level               change of the round's margin (the agent's
                                                    count minus the opponent's, R6, 20s
                                                    included) over the agent's shot and the
                                                    reply: the return is the round's margin
``win_game``       a game (four rounds, a tie        +1 when the agent wins, −1 when it loses,
                   drawn) against a CPU level        0 for a draw, on the last step; else 0
=================  ===============================  =========================================

Who opens a round of ``win_round`` / ``win_game`` is drawn from the
episode's generator unless ``agent_first`` says; the opponent's shots (its
level's noise) and the agent's hand noise (when asked for) are drawn from
that generator too, so an episode is a function of the seed and the actions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from crokinole.ai import CpuPlayer, Level, Noise, make_player
from crokinole.analysis.drills import DRILLS, Drill
from crokinole.analysis.practice import PracticePosition, PracticeResult, practice_game
from crokinole.board import Seat, Shot
from crokinole.env.actions import legal_position
from crokinole.errors import AnalysisError, IllegalActionError
from crokinole.rules import Game, Phase, Rules, ShotReport

__all__ = [
    "AGENT",
    "GAME_TASKS",
    "OPPONENT",
    "SETUP_REACH",
    "TASKS",
    "Episode",
    "check_setup_noise",
    "check_task",
    "jittered_setup",
]

#: The agent's seat, and its opponent's (singles).
AGENT = Seat.SOUTH
OPPONENT = Seat.NORTH
#: Tasks played over a whole round or game against a CPU level.
GAME_TASKS = ("win_round", "win_game")
#: Every task id: the open 20, each drill, a round, a game.
TASKS: tuple[str, ...] = ("open_20", *DRILLS, *GAME_TASKS)


def check_task(task: object) -> str:
    """``task`` if it is a task id, else an :class:`IllegalActionError` listing them."""
    if not isinstance(task, str) or task not in TASKS:
        raise IllegalActionError(f"there is no task {task!r}; the tasks are {', '.join(TASKS)}")
    return task


#: A jittered drill setup keeps its discs this close to the centre (inches): clear of every
#: placement spot on the line (a disc there would need 12 - 1.25 = 10.75 in or more).
SETUP_REACH = 10.5
#: Most draws of a jittered setup before the drill's own setup is used.
SETUP_DRAWS = 100


def check_setup_noise(value: object) -> float:
    """A setup noise in inches (0 to 2), else a plain error."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0.0 <= value <= 2.0:
        raise IllegalActionError(f"setup_noise is inches from 0 to 2, not {value!r}")
    return float(value)


def jittered_setup(
    setup: PracticePosition, sigma: float, rng: np.random.Generator
) -> PracticePosition:
    """``setup`` with each disc moved by a normal offset of ``sigma`` inches per axis.

    Coordinates in hundredths, as a position holds them; a draw that leaves a
    disc over the hole, on a peg or a disc, or beyond :data:`SETUP_REACH` is
    drawn again (at most :data:`SETUP_DRAWS` times, then the setup as it is).
    """
    if sigma == 0.0 or not setup.discs:
        return setup
    for _ in range(SETUP_DRAWS):
        offsets = rng.normal(0.0, sigma, (len(setup.discs), 2)).tolist()
        discs = tuple(
            (side, round(x + dx, 2), round(y + dy, 2))
            for (side, x, y), (dx, dy) in zip(setup.discs, offsets, strict=True)
        )
        if any(np.hypot(x, y) > SETUP_REACH for _, x, y in discs):
            continue
        try:
            return PracticePosition(discs, setup.seat)
        except AnalysisError:
            continue
    return setup


def _default_rules(task: str) -> Rules:
    return Rules(rounds=1) if task == "win_round" else Rules()


@dataclass
class Turn:
    """What one step did: the agent's shot as played and what followed.

    Attributes:
        reward: the step's reward (see the module's table).
        terminated: whether the episode ended.
        shot: the agent's shot as played (after hand noise and placement), or
            None when it had no room to place (a timeout, R3).
        report: the referee's report of the agent's shot.
        replies: the shots the opponent played after it, before the agent's
            next turn (or the end).
    """

    reward: float
    terminated: bool
    shot: Shot | None
    report: ShotReport
    replies: int

    def info(self) -> dict[str, Any]:
        """The step's ``info``: the shot played, its foul (or None) and the replies."""
        played = None if self.shot is None else (self.shot.position, self.shot.direction,
                                                 self.shot.power)  # fmt: skip
        foul = None if self.report.foul is None else self.report.foul.name.lower()
        return {"shot": played, "foul": foul, "replies": self.replies}


class Episode:
    """One episode of a task: the game, the opponent and the generator it draws from.

    Args:
        task: a task id (:data:`TASKS`).
        opponent: the CPU level of ``win_round`` / ``win_game``.
        rules: those tasks' rules (singles): default one round, or a
            tournament game of four rounds (a tie drawn).
        hand_noise: noise added to the agent's shots (e.g.
            :data:`~crokinole.ai.HAND_NOISE`), or None for a steady hand.
        agent_first: whether the agent opens the game; None draws it.
        setup_noise: a drill's discs are moved by this much (inches, the
            standard deviation per axis) each episode (:func:`jittered_setup`).
        rng: every random number of the episode comes from it.

    >>> episode = Episode("open_20", rng=np.random.default_rng(0))
    >>> episode.play(Shot(0.0, 0.0, 28.0)).reward   # an open 20
    20.0
    """

    def __init__(
        self,
        task: str,
        *,
        opponent: Level | str = Level.NORMAL,
        rules: Rules | None = None,
        hand_noise: Noise | None = None,
        agent_first: bool | None = None,
        setup_noise: float = 0.0,
        rng: np.random.Generator,
    ) -> None:
        self.task = check_task(task)
        self.drill: Drill | None = DRILLS.get(task)
        self.opponent: CpuPlayer = make_player(opponent)
        self.rules = _default_rules(task) if rules is None else rules
        if not isinstance(self.rules, Rules) or self.rules.seats != (AGENT, OPPONENT):
            raise IllegalActionError(
                f"a task is played in singles (south against north), not with rules {rules!r}"
            )
        if hand_noise is not None and not isinstance(hand_noise, Noise):
            raise IllegalActionError(f"hand_noise is a Noise or None, not {hand_noise!r}")
        self.hand_noise = hand_noise
        self.rng = rng
        # The round margin already paid for (the opponent's opening shots count in the first step).
        self._paid = 0
        self.setup_noise = check_setup_noise(setup_noise)
        self.setup: PracticePosition | None = None
        if self.drill is not None:
            self.setup = jittered_setup(self.drill.setup, self.setup_noise, rng)
            self.game = practice_game(self.setup)
        elif task == "open_20":
            self.game = Game(Rules.tournament_singles())
        else:
            first = agent_first if agent_first is not None else bool(rng.integers(2))
            self.game = Game(self.rules, first_seat=AGENT if first else OPPONENT)
            self._reply()

    @property
    def over(self) -> bool:
        """Whether the episode has ended."""
        return self.game.is_over or (self.task not in GAME_TASKS and self.game.actions != ())

    def margin(self) -> int:
        """The agent's round count minus the opponent's (R6, 20s included)."""
        counts = self.game.round_counts()
        mine = self.game.side_of(AGENT)
        return counts[mine].total - counts[1 - mine].total

    def _played(self, aimed: Shot) -> Shot | None:
        """The shot the agent's hand plays when it aims ``aimed``, placed legally (R3)."""
        shot = aimed
        if self.hand_noise is not None:
            shot = self.hand_noise.perturb(self.game.board, aimed, self.rng)
            if self.game.placement_problem(AGENT, shot.position) is not None:
                shot = Shot(aimed.position, shot.direction, shot.power)  # placing is deliberate
        position = legal_position(self.game, AGENT, shot.position)
        if position is None:
            return None
        return Shot(position, shot.direction, shot.power)

    def _reply(self) -> int:
        """Play the opponent (and the next round's start) until the agent is to shoot."""
        game = self.game
        replies = 0
        while not game.is_over:
            if game.phase is Phase.ROUND_OVER:
                game.next_round()
                continue
            seat = game.current_seat
            assert seat is not None
            if not game.can_place(seat):
                game.timeout(seat)  # no room anywhere on the quarter (R3)
            elif seat is AGENT:
                return replies
            else:
                game.shoot(seat, self.opponent.choose_shot(game, self.rng))
                replies += 1
        return replies

    def play(self, aimed: Shot) -> Turn:
        """Play the agent's shot ``aimed`` (and the opponent's replies): the step's result.

        Raises:
            IllegalActionError: the episode is over.
            InvalidShotError: ``aimed`` is out of range (R3).
        """
        if self.over:
            raise IllegalActionError("the episode is over: reset the environment")
        game = self.game
        shot = self._played(aimed)
        if self.drill is not None:
            assert self.setup is not None
            pre, before = game.copy(), self.margin()
            assert shot is not None  # a drill's setup leaves the line free
            report = game.shoot(AGENT, shot)
            result = PracticeResult(
                position=self.setup,
                shot=shot,
                position_after=self.setup,  # not read by the scoring rules
                report=report,
                game=pre,
                margin_before=before,
                margin_after=self.margin(),
            )
            return Turn(float(self.drill.score_attempt(result)), True, shot, report, 0)
        report = game.shoot(AGENT, shot) if shot is not None else game.timeout(AGENT)
        if self.task == "open_20":
            points = game.round_counts()[game.side_of(AGENT)].total
            return Turn(float(points), True, shot, report, 0)
        if self.task == "win_round":
            replies = self._reply()
            margin = self.margin()
            reward, self._paid = float(margin - self._paid), margin
            return Turn(reward, game.is_over, shot, report, replies)
        replies = self._reply()
        reward = 0.0
        if game.is_over:
            outcome = game.outcome
            assert outcome is not None
            if outcome.winner is not None:
                reward = 1.0 if outcome.winner == game.side_of(AGENT) else -1.0
        return Turn(reward, game.is_over, shot, report, replies)
