"""The CPU players (R8): Easy, Normal, Hard and Expert.

Every player answers ``choose_shot(game, rng)``: it decides the shot it
means (:meth:`CpuPlayer.intend`) and then plays it with its level's
execution noise, so every level can miss.  Randomness comes only from
``rng``.

* **Easy** aims roughly: straight at the centre, or straight at one
  opposing disc from the middle of its quarter, with wide noise.
* **Normal** plays basic contact shots: it picks the most valuable opposing
  disc it has a clear straight line to, and a placement that gives it one,
  and shoots to knock it out; on an open board it draws to the 20.
* **Hard** compares thousands of candidate shots through the batch
  simulator and the referee and plays the best margin (small noise).
* **Expert** takes Hard's best candidates, plays each many times under its
  own noise, and picks the best expected utility, which knows the round and
  game situation (see :mod:`crokinole.ai.evaluate`).

>>> import numpy as np
>>> from crokinole.rules import Game, Rules
>>> player = make_player(Level.HARD)
>>> shot = player.intend(Game(Rules()), np.random.default_rng(0))
>>> abs(shot.direction) < 3 and 25 < shot.power < 45     # an open 20
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Protocol

import numpy as np

from crokinole.ai.aim import direction_towards, path_is_clear, power_for
from crokinole.ai.evaluate import Situation, margins, standings, utility
from crokinole.ai.noise import Noise
from crokinole.ai.search import Candidates, candidate_margins, generate, simulate_candidates
from crokinole.board import Seat, Shot
from crokinole.errors import IllegalActionError
from crokinole.rules import Disc, Game


class Level(Enum):
    """CPU strength."""

    EASY = "easy"
    NORMAL = "normal"
    HARD = "hard"
    EXPERT = "expert"


#: Execution noise per level, calibrated on the open 20 from the middle of the
#: line (``crokinole calibrate``): Easy ≈ 25%, Normal ≈ 45%, Hard ≈ 60%, Expert ≥ 75%.
NOISE = {
    Level.EASY: Noise(position=0.5, direction=4.7, power=0.26),
    Level.NORMAL: Noise(position=0.3, direction=2.85, power=0.16),
    Level.HARD: Noise(position=0.2, direction=2.4, power=0.13),
    Level.EXPERT: Noise(position=0.1, direction=2.0, power=0.095),
}


#: Weight of the expected margin (points) beside Expert's utility (0 to 1):
#: 20 points are worth 0.004, far less than any real difference in utility.
MARGIN_TIE_BREAK = 2e-4


class Player(Protocol):
    """Anything that can take a turn."""

    name: str

    def choose_shot(self, game: Game, rng: np.random.Generator) -> Shot:
        """The shot to play for the seat to move."""
        ...


def _seat_to_move(game: Game) -> Seat:
    seat = game.current_seat
    if seat is None:
        raise IllegalActionError("nobody is to shoot: the round or the game is over")
    return seat


@dataclass(frozen=True)
class CpuPlayer:
    """Base of the CPU levels: an intention plus execution noise."""

    level: Level
    noise: Noise
    name: str = ""

    def intend(self, game: Game, rng: np.random.Generator) -> Shot:
        """The shot the player means, before noise."""
        raise NotImplementedError

    def choose_shot(self, game: Game, rng: np.random.Generator) -> Shot:
        """The shot actually played: the intention with noise, placed legally (R3)."""
        seat = _seat_to_move(game)
        meant = self.intend(game, rng)
        played = self.noise.perturb(game.board, meant, rng)
        if game.placement_problem(seat, played.position) is not None:
            # Placing is deliberate: a player does not slide onto a disc.
            played = Shot(meant.position, played.direction, played.power)
        return played


def _open_twenty(game: Game, seat: Seat, past_centre: float) -> Shot:
    board = game.board
    position = _first_free(game, seat, (0.0, 5.0, -5.0, 10.0, -10.0, 20.0, -20.0, 30.0, -30.0))
    distance = board.shooting_line_radius + past_centre
    return Shot(position, 0.0, power_for(board, distance, 0.0))


def _first_free(game: Game, seat: Seat, preferred: tuple[float, ...]) -> float:
    for position in preferred:
        if game.placement_problem(seat, position) is None:
            return position
    free = game.placement_intervals(seat)
    if not free:
        raise IllegalActionError(f"{seat.name.title()} has no room to place a disc")
    a, b = max(free, key=lambda ab: ab[1] - ab[0])
    return (a + b) / 2.0


def _opposing(game: Game, seat: Seat) -> list[Disc]:
    side = game.side_of(seat)
    return [d for d in game.discs if game.side_of(d.owner) != side]


def _straight_at(game: Game, seat: Seat, position: float, target: Disc, speed: float) -> Shot:
    """A shot from ``position`` straight at ``target``, arriving at ``speed`` in/s."""
    board = game.board
    start = board.placement(seat, position)
    distance = start.distance_to(target.centre) - 2 * board.disc_radius
    direction = direction_towards(board, seat, position, target.x, target.y)
    return Shot(position, direction, power_for(board, distance, speed))


@dataclass(frozen=True)
class EasyPlayer(CpuPlayer):
    """Aims roughly: the centre, or straight at one opposing disc from the middle."""

    level: Level = Level.EASY
    noise: Noise = NOISE[Level.EASY]
    name: str = "CPU Easy"

    def intend(self, game: Game, rng: np.random.Generator) -> Shot:
        seat = _seat_to_move(game)
        targets = _opposing(game, seat)
        if not targets or not game.rules.required_contact:
            return _open_twenty(game, seat, past_centre=1.0)
        target = targets[int(rng.integers(len(targets)))]
        position = _first_free(game, seat, (0.0, 8.0, -8.0, 16.0, -16.0))
        return _straight_at(game, seat, position, target, 35.0)


@dataclass(frozen=True)
class NormalPlayer(CpuPlayer):
    """Basic contact shots with simple geometry: a clear line to the best target."""

    level: Level = Level.NORMAL
    noise: Noise = NOISE[Level.NORMAL]
    name: str = "CPU Normal"

    def intend(self, game: Game, rng: np.random.Generator) -> Shot:
        seat = _seat_to_move(game)
        board = game.board
        targets = _opposing(game, seat)
        if not targets or not game.rules.required_contact:
            return _open_twenty(game, seat, past_centre=1.0)
        limit = board.placement_limit
        positions = [float(p) for p in np.linspace(-0.9 * limit, 0.9 * limit, 19)]
        positions.sort(key=abs)
        pegs = board.peg_array()
        best: tuple[float, Shot] | None = None
        for target in targets:
            value = board.zone_of(target.centre).value  # inner (more valuable) discs first
            others = np.array(
                [(d.x, d.y) for d in game.discs if d is not target], dtype=np.float64
            ).reshape(-1, 2)
            for position in positions:
                if game.placement_problem(seat, position) is not None:
                    continue
                start = board.placement(seat, position)
                clear = path_is_clear(
                    board, (start.x, start.y), (target.x, target.y), others, 2 * board.disc_radius
                ) and path_is_clear(
                    board,
                    (start.x, start.y),
                    (target.x, target.y),
                    pegs,
                    board.disc_radius + board.peg_radius,
                )
                if not clear:
                    continue
                score = -value + abs(position) / 100.0
                shot = _straight_at(game, seat, position, target, 45.0)
                if best is None or score < best[0]:
                    best = (score, shot)
                break
        if best is not None:
            return best[1]
        # No clear line: straight at the nearest opposing disc and hope.
        position = _first_free(game, seat, (0.0, 10.0, -10.0, 20.0, -20.0))
        start = board.placement(seat, position)
        target = min(targets, key=lambda d: start.distance_to(d.centre))
        return _straight_at(game, seat, position, target, 45.0)


def _best(values: np.ndarray, shots: Candidates) -> Shot:
    # Ties go to the first candidate: generation order puts central placements
    # and gentler shots of a kind together, so the choice is stable.
    k = int(np.argmax(values))
    return Shot(float(shots.positions[k]), float(shots.directions[k]), float(shots.powers[k]))


@dataclass(frozen=True)
class HardPlayer(CpuPlayer):
    """Searches many candidate shots and plays the best margin."""

    level: Level = Level.HARD
    noise: Noise = NOISE[Level.HARD]
    name: str = "CPU Hard"

    #: The stencil of slightly-off versions of each candidate that Hard also
    #: plays (direction in degrees, power as a factor): a shot that works
    #: only when hit exactly scores less than one that works when hit nearly.
    stencil: tuple[tuple[float, float], ...] = (
        (0.0, 1.0),
        (-1.2, 1.0),
        (1.2, 1.0),
        (0.0, 0.93),
        (0.0, 1.07),
    )

    def intend(self, game: Game, rng: np.random.Generator) -> Shot:
        seat = _seat_to_move(game)
        shots = generate(game, seat)
        k = len(shots)
        turns = np.array([t for t, _ in self.stencil])
        factors = np.array([f for _, f in self.stencil])
        variants = Candidates(
            np.tile(shots.positions, len(self.stencil)),
            np.clip(np.repeat(turns, k) + np.tile(shots.directions, len(self.stencil)), -180, 180),
            np.clip(np.repeat(factors, k) * np.tile(shots.powers, len(self.stencil)), 0, 100),
        )
        values, judged = candidate_margins(game, variants)
        mean = values.reshape(len(self.stencil), k).mean(axis=0)
        # A valid shot is worth a little more than an equal foul (it keeps options).
        return _best(mean + 0.5 * judged.valid[:k], shots)


@dataclass(frozen=True)
class ExpertPlayer(CpuPlayer):
    """Hard's search, then the best expected utility under its own noise."""

    level: Level = Level.EXPERT
    noise: Noise = NOISE[Level.EXPERT]
    name: str = "CPU Expert"
    finalists: int = 64
    rollouts: int = 40
    situation_aware: bool = field(default=True)

    def intend(self, game: Game, rng: np.random.Generator) -> Shot:
        seat = _seat_to_move(game)
        situation = Situation.of(game)
        shots = generate(game, seat)
        values, judged = candidate_margins(game, shots)
        first = utility(values, situation) + 1e-3 * judged.valid
        order = np.argsort(-first, kind="stable")
        # Keep distinct finalists: the best of each (rounded) intention.
        keep: list[int] = []
        seen: set[tuple[int, int, int]] = set()
        for k in order:
            key = (
                round(float(shots.positions[k])),
                round(float(shots.directions[k]) * 2),
                round(float(shots.powers[k])),
            )
            if key in seen:
                continue
            seen.add(key)
            keep.append(int(k))
            if len(keep) == self.finalists:
                break
        finalists = shots.take(np.array(keep))
        reps = self.rollouts
        # The same errors for every finalist (common random numbers): the
        # comparison then shows the shots' differences, not the draws'.
        z_dir, z_pow = rng.normal(0.0, 1.0, reps), rng.normal(0.0, 1.0, reps)
        count = len(keep)
        _, dirs, pows = self.noise.apply(
            game.board,
            np.repeat(finalists.positions, reps),
            np.repeat(finalists.directions, reps),
            np.repeat(finalists.powers, reps),
            (np.zeros(count * reps), np.tile(z_dir, count), np.tile(z_pow, count)),
        )
        # Placement is deliberate (see choose_shot): keep the intended spot.
        pos = np.repeat(finalists.positions, reps)
        noisy = Candidates(pos, dirs, pows)
        rolled = simulate_candidates(game, seat, noisy)
        margin = margins(standings(rolled, situation), situation.side)
        score = utility(margin, situation) if self.situation_aware else margin
        expected = score.reshape(len(keep), reps).mean(axis=1)
        # Between shots of (nearly) equal utility, more points are better: a 20
        # beats a 15 early in a round, where the utility barely tells them apart.
        points = margin.reshape(len(keep), reps).mean(axis=1)
        return _best(expected + MARGIN_TIE_BREAK * points, finalists)


def make_player(level: Level | str) -> CpuPlayer:
    """The CPU player of a level.

    >>> make_player("normal").name
    'CPU Normal'
    """
    try:
        level = Level(level)
    except ValueError:
        names = ", ".join(lv.value for lv in Level)
        raise IllegalActionError(f"unknown CPU level {level!r}; choose one of {names}") from None
    players: dict[Level, CpuPlayer] = {
        Level.EASY: EasyPlayer(),
        Level.NORMAL: NormalPlayer(),
        Level.HARD: HardPlayer(),
        Level.EXPERT: ExpertPlayer(),
    }
    return players[level]


__all__ = [
    "NOISE",
    "CpuPlayer",
    "EasyPlayer",
    "ExpertPlayer",
    "HardPlayer",
    "Level",
    "NormalPlayer",
    "Player",
    "make_player",
]
