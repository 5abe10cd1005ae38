"""The CPU players (R8): Easy, Normal, Hard, Expert and Master.

Every player answers ``choose_shot(game, rng)``: it decides the shot it
means (:meth:`CpuPlayer.intend`) and then plays it with its level's
execution noise, so every level can miss.  Randomness comes only from
``rng``.

* **Easy** aims roughly: straight at the centre, or at one opposing disc
  picked at random, from the placement nearest the middle that touches it,
  with wide noise.
* **Normal** plays basic contact shots: it picks the most valuable opposing
  disc it has a clear straight line to, and a placement that gives it one,
  and shoots to knock it out (a cut when no line is clear); on an open
  board it draws to the 20.
* **Hard** compares thousands of candidate shots through the batch
  simulator and the referee, each with near misses of its own noise, and
  plays the best average margin (small noise).
* **Expert** takes the best candidates of the same search judged at its own
  noise, plays each many times under that noise, re-tests the best few with
  many more draws, and picks the best expected utility, which knows the
  round and game situation (see :mod:`crokinole.ai.evaluate`).
* **Master** has a steadier hand than Expert's (three quarters of its
  spreads) and a wider shortlist, and looks one shot
  further before the round's last shot: for its best few it plays the
  likeliest outcomes and, from each, the opponent's best reply (the
  hammer), and picks the best value after the reply
  (:mod:`crokinole.ai.master`).

No level *means* a foul when it has a valid shot (R4): an easy player is
inaccurate, not ignorant of the rules.  Easy and Normal check their aims as
aimed (a line that drops into the hole or stops on a peg first is not
taken); Hard, Expert and Master rank every foul-as-aimed below every valid shot.

>>> import numpy as np
>>> from crokinole.rules import Game, Rules
>>> player = HardPlayer()
>>> shot = player.intend(Game(Rules()), np.random.default_rng(0))
>>> abs(shot.direction) < 3 and 25 < shot.power < 45     # an open 20
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import Enum
from typing import Protocol

import numpy as np
import numpy.typing as npt

from crokinole.ai.aim import direction_towards, path_is_clear, power_for
from crokinole.ai.evaluate import Situation, margins, standings, utility
from crokinole.ai.noise import Noise
from crokinole.ai.search import (
    Candidates,
    candidate_margins,
    distinct_intentions,
    generate,
    played_candidates,
    simulate_candidates,
)
from crokinole.board import Seat, Shot
from crokinole.errors import IllegalActionError
from crokinole.rules import Disc, Game

FloatArray = npt.NDArray[np.float64]


class Level(Enum):
    """CPU strength: the one list of levels (the server, store and client take it from here).

    The value is the id used in messages, records and on the command line;
    :attr:`label` is the name shown to people.

    >>> [(level.value, level.label) for level in Level]  # doctest: +NORMALIZE_WHITESPACE
    [('easy', 'Easy'), ('normal', 'Normal'), ('hard', 'Hard'), ('expert', 'Expert'),
     ('master', 'Master')]
    """

    EASY = "easy"
    NORMAL = "normal"
    HARD = "hard"
    EXPERT = "expert"
    MASTER = "master"

    @property
    def label(self) -> str:
        """The level's name for people, e.g. ``"Easy"`` (the CPU player is "CPU Easy")."""
        return self.value.title()


#: Execution noise per level, calibrated on the open 20 as each level really
#: plays it (``crokinole calibrate``: fresh ``choose_shot`` decisions on an empty
#: board): Easy ≈ 25%, Normal ≈ 45%, Hard ≈ 60%, Expert ≥ 75% (78% measured, at the
#: top of the best humans' 66-76%).
NOISE = {
    Level.EASY: Noise(position=0.5, direction=4.7, power=0.26),
    Level.NORMAL: Noise(position=0.3, direction=2.85, power=0.16),
    Level.HARD: Noise(position=0.2, direction=2.6, power=0.14),
    Level.EXPERT: Noise(position=0.1, direction=1.9, power=0.09),
}
#: Master's hand is steadier than Expert's: three quarters of its spreads, the
#: step from Hard's to Expert's (2.6 -> 1.9 degrees).  An open 20 about 91% of
#: the time, beyond the best humans (66-76%): a level to aim at, not a peer.
NOISE[Level.MASTER] = Noise(position=0.075, direction=1.425, power=0.0675)

#: The execution noise of the human hand (R3): the Expert CPU's noise, that of a
#: strong club player (an open 20 is made about 78% of the time, the top of
#: the best humans' 66-76%), so a shot is not made every time. Tables with the
#: human hand, drills and the daily challenge play a person's shots with it.
HAND_NOISE: Noise = NOISE[Level.EXPERT]


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
        raise IllegalActionError(f"{seat.title} has no room to place a disc")
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


def _first_valid(game: Game, seat: Seat, shots: list[Shot]) -> Shot | None:
    """The first of ``shots`` (in order of preference) that is valid as aimed (R4).

    Every shot is played exactly, once, through the batch simulator and the
    referee: a player of any level knows whether the line it means touches
    an opposing disc, or drops into the hole or onto a peg first.
    """
    if not shots:
        return None
    batch = Candidates(
        np.array([s.position for s in shots]),
        np.array([s.direction for s in shots]),
        np.array([s.power for s in shots]),
    )
    valid = simulate_candidates(game, seat, batch).valid
    hits = np.flatnonzero(valid)
    return shots[int(hits[0])] if hits.size else None


def _any_valid(game: Game, seat: Seat) -> Shot | None:
    """The first valid shot among Hard's candidates, for when simple aims all foul."""
    shots = generate(game, seat)
    valid = simulate_candidates(game, seat, shots).valid
    hits = np.flatnonzero(valid)
    if hits.size == 0:
        return None
    return _best(valid.astype(np.float64), shots)


def _spots(game: Game, seat: Seat, fractions: tuple[float, ...]) -> list[float]:
    """Legal placements among ``fractions`` of the range, in the order given."""
    limit = game.board.placement_limit
    return [f * limit for f in fractions if game.placement_problem(seat, f * limit) is None]


def _cut(
    game: Game, seat: Seat, position: float, target: Disc, *, offset: float, speed: float
) -> Shot:
    """A shot from ``position`` aimed ``offset`` disc radii beside ``target``'s centre."""
    board = game.board
    start = board.placement(seat, position)
    dx, dy = target.x - start.x, target.y - start.y
    length = float(np.hypot(dx, dy)) or 1.0
    x = target.x - offset * board.disc_radius * dy / length
    y = target.y + offset * board.disc_radius * dx / length
    distance = length - 2 * board.disc_radius
    direction = direction_towards(board, seat, position, x, y)
    return Shot(position, direction, power_for(board, distance, speed))


#: Placements Easy and Normal consider, as fractions of the legal range (middle first).
SIMPLE_FRACTIONS = (0.0, -0.15, 0.15, -0.3, 0.3, -0.45, 0.45, -0.6, 0.6, -0.75, 0.75, -0.9, 0.9)
#: Aims beside a target's centre (disc radii) that Easy and Normal consider: full hits first.
SIMPLE_OFFSETS = (0.0, -0.5, 0.5, -1.0, 1.0)


def _cuts(
    game: Game, seat: Seat, targets: list[Disc], spots: list[float], speed: float
) -> list[Shot]:
    """Cut shots at each target in turn, full hits before thin ones, from each spot."""
    return [
        _cut(game, seat, position, target, offset=offset, speed=speed)
        for target in targets
        for offset in SIMPLE_OFFSETS
        for position in spots
    ]


def _first_contact(game: Game, seat: Seat, shots: list[Shot]) -> Shot | None:
    """The first of ``shots`` that is valid as aimed (R4), else any valid shot, else None."""
    return _first_valid(game, seat, shots) or _any_valid(game, seat)


@dataclass(frozen=True)
class _SimplePlayer(CpuPlayer):
    """Easy and Normal: an open 20 when nothing must be hit, else a contact shot by geometry."""

    def intend(self, game: Game, rng: np.random.Generator) -> Shot:
        seat = _seat_to_move(game)
        targets = _opposing(game, seat)
        if not targets or not game.rules.required_contact:
            return _open_twenty(game, seat, past_centre=1.0)
        return self._hit(game, seat, targets, rng)

    def _hit(self, game: Game, seat: Seat, targets: list[Disc], rng: np.random.Generator) -> Shot:
        """The shot meant to touch one of ``targets`` (R4)."""
        raise NotImplementedError


@dataclass(frozen=True)
class EasyPlayer(_SimplePlayer):
    """Aims roughly: the centre, or straight at one opposing disc it can reach.

    The target is drawn at random among those it can touch (R4); it does not
    look for a clear line or weigh what a disc is worth.
    """

    level: Level = Level.EASY
    noise: Noise = NOISE[Level.EASY]
    name: str = f"CPU {Level.EASY.label}"

    def _hit(self, game: Game, seat: Seat, targets: list[Disc], rng: np.random.Generator) -> Shot:
        # A target at random, but one it can touch (R4): the placements from the
        # middle outwards, full hits before thin ones, the other targets after.
        order = [targets[int(i)] for i in rng.permutation(len(targets))]
        spots = _spots(game, seat, SIMPLE_FRACTIONS)
        chosen = _first_contact(game, seat, _cuts(game, seat, order, spots, 35.0))
        if chosen is not None:
            return chosen
        # Nothing touches an opposing disc: the old rough aim (a foul whatever it does).
        position = _first_free(game, seat, (0.0, 8.0, -8.0, 16.0, -16.0))
        return _straight_at(game, seat, position, order[0], 35.0)


@dataclass(frozen=True)
class NormalPlayer(_SimplePlayer):
    """Basic contact shots with simple geometry: a clear line to the best target."""

    level: Level = Level.NORMAL
    noise: Noise = NOISE[Level.NORMAL]
    name: str = f"CPU {Level.NORMAL.label}"

    def _hit(self, game: Game, seat: Seat, targets: list[Disc], rng: np.random.Generator) -> Shot:
        board = game.board
        spots = _spots(game, seat, SIMPLE_FRACTIONS)
        pegs = board.peg_array()
        # Inner (more valuable) discs first; nearer the middle of the quarter first.
        ranked = sorted(targets, key=lambda d: -board.zone_of(d.centre).value)
        clear: list[tuple[float, Shot]] = []
        for target in ranked:
            value = board.zone_of(target.centre).value
            others = np.array(
                [(d.x, d.y) for d in game.discs if d is not target], dtype=np.float64
            ).reshape(-1, 2)
            for position in spots:
                start = board.placement(seat, position)
                if path_is_clear(
                    board, (start.x, start.y), (target.x, target.y), others, 2 * board.disc_radius
                ) and path_is_clear(
                    board,
                    (start.x, start.y),
                    (target.x, target.y),
                    pegs,
                    board.disc_radius + board.peg_radius,
                ):
                    score = -value + abs(position) / 100.0
                    clear.append((score, _straight_at(game, seat, position, target, 45.0)))
        clear.sort(key=lambda item: item[0])
        # The clear lines, checked as aimed (one may still drop in the hole on
        # the way); then cut shots at each target, most valuable first.
        shots = [shot for _, shot in clear] + _cuts(game, seat, ranked, spots, 45.0)
        chosen = _first_contact(game, seat, shots)
        if chosen is not None:
            return chosen
        # Nothing touches an opposing disc: straight at the nearest one and hope.
        position = _first_free(game, seat, (0.0, 10.0, -10.0, 20.0, -20.0))
        start = board.placement(seat, position)
        target = min(targets, key=lambda d: start.distance_to(d.centre))
        return _straight_at(game, seat, position, target, 45.0)


def _best(values: np.ndarray, shots: Candidates) -> Shot:
    # Ties go to the first candidate: generation order puts central placements
    # and gentler shots of a kind together, so the choice is stable.
    k = int(np.argmax(values))
    return Shot(float(shots.positions[k]), float(shots.directions[k]), float(shots.powers[k]))


def _prefer_valid(values: FloatArray, valid: npt.NDArray[np.bool_]) -> FloatArray:
    """``values``, with every foul-as-aimed ranked below every valid shot when one exists.

    A player never *means* a foul when it has a valid shot (R4): whatever a
    foul's figures, it only sends the shooter's own discs to the ditch.
    """
    if not valid.any():
        return values
    return np.where(valid, values, -np.inf)


@dataclass(frozen=True)
class HardPlayer(CpuPlayer):
    """Searches many candidate shots and plays the best margin."""

    level: Level = Level.HARD
    noise: Noise = NOISE[Level.HARD]
    name: str = f"CPU {Level.HARD.label}"

    #: The stencil of slightly-off versions of each candidate that Hard also
    #: plays, in standard deviations of its own noise (direction, power): a
    #: shot that works only when hit exactly scores less than one that works
    #: when hit as Hard really hits.  One deviation each way, and the four
    #: diagonals at 1/√2 of it, cover the errors Hard makes most turns.
    stencil: tuple[tuple[float, float], ...] = (
        (0.0, 0.0),
        (-1.0, 0.0),
        (1.0, 0.0),
        (0.0, -1.0),
        (0.0, 1.0),
        (-0.7, -0.7),
        (0.7, 0.7),
        (-0.7, 0.7),
        (0.7, -0.7),
    )

    def intend(self, game: Game, rng: np.random.Generator) -> Shot:
        seat = _seat_to_move(game)
        shots = generate(game, seat)
        shots, values, valid = _stencil_margins(game, shots, self.noise, self.stencil)
        return _best(_prefer_valid(values.mean(axis=0), valid), shots)


#: The stencil's near misses are played only for this share of the candidates
#: (at least STENCIL_KEEP_MIN): the best as aimed, valid ones first.  On 48
#: positions of 2 to 20 discs (singles and doubles) the best stencil average
#: was always among the best 10% as aimed; a quarter leaves a wide margin
#: and plays 2.75 shots a candidate instead of 9 (34,263 -> 11,421 on a
#: 20-disc doubles board).
STENCIL_KEEP = 0.25
STENCIL_KEEP_MIN = 64


def _stencil_margins(
    game: Game,
    shots: Candidates,
    noise: Noise,
    stencil: tuple[tuple[float, float], ...],
    keep: float = STENCIL_KEEP,
) -> tuple[Candidates, FloatArray, npt.NDArray[np.bool_]]:
    """The shots worth a stencil, their ``(len(stencil), M)`` margins, and which are valid as aimed.

    Every shot is played as aimed; the best ``keep`` of them (valid ones
    first, then by margin, ties in generation order) are played at every
    stencil variant too and returned, in generation order.  The stencil is in
    standard deviations of ``noise`` (direction, power); its first entry must
    be the shot as aimed, (0, 0).
    """
    aimed, judged = candidate_margins(game, shots)
    k = len(shots)
    m = min(k, max(STENCIL_KEEP_MIN, math.ceil(keep * k)))
    order = np.lexsort((np.arange(k), -aimed, ~judged.valid))
    kept = np.sort(order[:m])
    shots = shots.take(kept)
    n = len(stencil) - 1
    turns = np.array([t for t, _ in stencil[1:]]) * noise.direction
    factors = 1.0 + np.array([f for _, f in stencil[1:]]) * noise.power
    variants = Candidates(
        np.tile(shots.positions, n),
        np.clip(np.repeat(turns, m) + np.tile(shots.directions, n), -180, 180),
        np.clip(np.repeat(factors, m) * np.tile(shots.powers, n), 0, 100),
    )
    values, _ = candidate_margins(game, variants)
    rows = np.concatenate([aimed[kept][None, :], values.reshape(n, m)])
    return shots, rows, judged.valid[kept]


@dataclass(frozen=True)
class ExpertPlayer(CpuPlayer):
    """Hard's search, then the best expected utility under its own noise."""

    level: Level = Level.EXPERT
    noise: Noise = NOISE[Level.EXPERT]
    name: str = f"CPU {Level.EXPERT.label}"
    finalists: int = 64
    rollouts: int = 40
    #: The best few after the rollouts are played again this many times each:
    #: 40 draws cannot tell shots a few percent apart, and the best of 64
    #: noisy estimates is mostly the luckiest one.
    recheck: int = 6
    recheck_rollouts: int = 400
    situation_aware: bool = field(default=True)

    def _expected(
        self,
        game: Game,
        situation: Situation,
        finalists: Candidates,
        reps: int,
        rng: np.random.Generator,
    ) -> FloatArray:
        """Each finalist's expected utility (plus the margin tie-break) over ``reps`` draws.

        The same errors for every finalist (common random numbers): the
        comparison then shows the shots' differences, not the draws'.
        """
        return self._rollouts(game, situation, finalists, reps, rng)[0]

    def _rollouts(
        self,
        game: Game,
        situation: Situation,
        finalists: Candidates,
        reps: int,
        rng: np.random.Generator,
    ) -> tuple[FloatArray, Candidates, FloatArray]:
        """:meth:`_expected`, with the shots played and the margin each left (shot by shot)."""
        seat = situation.seat
        z = (rng.normal(0.0, 1.0, reps), rng.normal(0.0, 1.0, reps), rng.normal(0.0, 1.0, reps))
        count = len(finalists)
        played = played_candidates(game, seat, finalists, self.noise, z)
        rolled = simulate_candidates(game, seat, played)
        margin = margins(standings(rolled, situation), situation.side)
        score = utility(margin, situation) if self.situation_aware else margin
        expected = score.reshape(count, reps).mean(axis=1)
        # Between shots of (nearly) equal utility, more points are better: a 20
        # beats a 15 early in a round, where the utility barely tells them apart.
        points = margin.reshape(count, reps).mean(axis=1)
        value = np.asarray(expected + MARGIN_TIE_BREAK * points, dtype=np.float64)
        return value, played, margin

    def _contenders(self, finalists: Candidates, expected: FloatArray) -> npt.NDArray[np.intp]:
        """Which finalists are re-tested: the best ``recheck`` by their first expected utility."""
        return np.argsort(-expected, kind="stable")[: self.recheck]

    def intend(self, game: Game, rng: np.random.Generator) -> Shot:
        _, short, again = self.shortlist(game, rng)
        return _best(again, short)

    def shortlist(
        self, game: Game, rng: np.random.Generator
    ) -> tuple[Situation, Candidates, FloatArray]:
        """The situation, the best ``recheck`` finalists and their re-tested expected utility.

        Expert plays the best of them.
        """
        situation, finalists, expected = self.first_round(game, rng)
        short = finalists.take(self._contenders(finalists, expected))
        # Fresh draws for the re-test, so the first round's luck does not carry over.
        again = self._expected(game, situation, short, self.recheck_rollouts, rng)
        return situation, short, again

    def first_round(
        self, game: Game, rng: np.random.Generator
    ) -> tuple[Situation, Candidates, FloatArray]:
        """The situation, the distinct finalists and their utility over ``rollouts`` draws."""
        seat = _seat_to_move(game)
        situation = Situation.of(game)
        # Hard's judgement (a stencil of near misses) at Expert's own noise
        # picks the finalists: the shot as aimed alone ties every open 20.
        shots, values, valid = _stencil_margins(
            game, generate(game, seat), self.noise, HardPlayer.stencil
        )
        first = _prefer_valid(utility(values, situation).mean(axis=0), valid)
        # Keep distinct finalists: the best of each (rounded) intention, and
        # only shots valid as aimed when there are any (see _prefer_valid).
        keep = distinct_intentions(shots, first, self.finalists)
        finalists = shots.take(np.array(keep))
        expected = self._expected(game, situation, finalists, self.rollouts, rng)
        return situation, finalists, expected
