"""Master: Expert's hand, and a look at the opponent's reply (two plies on the batch simulator).

Expert judges a shot by the position it leaves, counted now (with the
round's and the game's score in its utility): a disc left in the open 15
counts as 15 although the next shot will take it out, and a clear road to
the hole is as good to leave as a blocked one.  Master looks one shot
further:

1. **Expert's shortlist**: its finalists, the best ``recheck`` re-tested
   with many draws of its noise (the one-ply expected utility *U₁*).
2. **The likeliest outcomes**: each of them played ``outcomes`` times under
   its noise, the same draws for every shot (common random numbers); each
   outcome is played by the rules engine on a copy of the game.
3. **The reply**: from each outcome, the next shooter's candidate shots (the
   same generator, on fewer placements) as aimed, the best ``replies`` of
   them by *its* utility played ``reply_draws`` times under the same noise
   (its hand is modelled as Master's own, which is Expert's); it is taken to
   play the one with the best expected utility for its side.  The outcome's
   value is Master's utility after that reply.
4. **The choice**: each shot's value is *U₁* corrected by the mean, over
   its outcomes, of (the value after the reply − the outcome's one-ply
   utility): the correction is what the reply changes, measured on a few
   outcomes, while *U₁* keeps its many draws (a control variate).  With
   ``caution`` above 0 the worst outcome's correction weighs in too.

On the round's last shot there is no reply: the one-ply utility is exact
there, and Master plays as Expert does.  Master never means a foul when a
valid shot exists (R4): its shortlist holds only shots valid as aimed then,
and the reply only reorders it.

>>> import numpy as np
>>> from crokinole.rules import Game, Rules
>>> shot = MasterPlayer().intend(Game(Rules()), np.random.default_rng(0))
>>> abs(shot.direction) < 3 and 25 < shot.power < 45     # an open 20
True
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from crokinole.ai.evaluate import Situation, margins, standings, utility
from crokinole.ai.noise import Noise
from crokinole.ai.players import (
    NOISE,
    ExpertPlayer,
    HardPlayer,
    Level,
    _best,
    _prefer_valid,
    _stencil_margins,
)
from crokinole.ai.search import (
    Candidates,
    distinct_intentions,
    generate,
    legal_positions,
    played_candidates,
    simulate_candidates,
)
from crokinole.board import Shot
from crokinole.errors import IllegalActionError
from crokinole.rules import Game

FloatArray = npt.NDArray[np.float64]

#: Placements the reply search tries (fractions of the range, the middle
#: first): five of the nine the first ply tries keep it cheap.
REPLY_FRACTIONS = (0.0, -0.4, 0.4, -0.8, 0.8)


@dataclass(frozen=True)
class MasterPlayer(ExpertPlayer):
    """Expert's shortlist, judged after the opponent's best reply to its likeliest outcomes."""

    level: Level = Level.MASTER
    noise: Noise = NOISE[Level.MASTER]
    name: str = f"CPU {Level.MASTER.label}"
    finalists: int = 96
    #: Shots of the shortlist that get a second ply (K): the best by the first
    #: rollouts, one per kind of shot (see :func:`coarse_kinds`).
    recheck: int = 8
    #: Outcomes of each of them under Master's noise.
    outcomes: int = 6
    #: The reply's best shots as aimed that are played under noise, and how often.
    replies: int = 10
    reply_draws: int = 8
    #: Weight of the worst outcome's correction beside the mean (0: expected value).
    caution: float = field(default=0.0)

    def _contenders(self, finalists: Candidates, expected: FloatArray) -> npt.NDArray[np.intp]:
        """The best ``recheck`` finalists, one per kind of shot: the reply tells kinds apart.

        Expert's best few are mostly the same shot a degree or a percent
        apart (five open 20s); what the reply can change is the choice
        between a 20 attempt, a draw behind a peg, a hit that sticks and one
        that rolls away.
        """
        order = np.argsort(-expected, kind="stable")
        kinds = coarse_kinds(finalists)
        seen: set[tuple[int, int, int]] = set()
        keep: list[int] = []
        for k in order:
            if kinds[k] in seen:
                continue
            seen.add(kinds[k])
            keep.append(int(k))
            if len(keep) == self.recheck:
                break
        return np.array(keep, dtype=np.intp)

    def intend(self, game: Game, rng: np.random.Generator) -> Shot:
        situation, short, again = self.shortlist(game, rng)
        if situation.shots_left == 0 or len(short) == 1:
            return _best(again, short)  # the round's last shot: nothing to reply to
        return _best(again + self._reply_corrections(game, situation, short, rng), short)

    def _reply_corrections(
        self, game: Game, situation: Situation, short: Candidates, rng: np.random.Generator
    ) -> FloatArray:
        """Per shot of ``short``: how much the next shooter's best reply changes its value."""
        seat = situation.seat
        count, draws = len(short), self.outcomes
        z = (rng.normal(0.0, 1.0, draws), rng.normal(0.0, 1.0, draws), rng.normal(0.0, 1.0, draws))
        played = played_candidates(game, seat, short, self.noise, z)
        rolled = simulate_candidates(game, seat, played)
        now = utility(margins(standings(rolled, situation), situation.side), situation)
        # The reply's errors: the same for every outcome (common random numbers).
        reply_z = tuple(rng.normal(0.0, 1.0, self.reply_draws) for _ in range(3))
        seen: dict[tuple[object, ...], float] = {}
        after = np.empty(count * draws)
        for i in range(count * draws):
            shot = Shot(
                float(played.positions[i]), float(played.directions[i]), float(played.powers[i])
            )
            outcome = game.copy()
            outcome.shoot(seat, shot)
            key = _position_key(outcome)
            if key not in seen:
                seen[key] = self._after_reply(outcome, situation, reply_z, float(now[i]))
            after[i] = seen[key]
        change = (after - now).reshape(count, draws)
        mean = change.mean(axis=1)
        return np.asarray(mean + self.caution * (change.min(axis=1) - mean), dtype=np.float64)

    def _after_reply(
        self,
        outcome: Game,
        mine: Situation,
        errors: tuple[FloatArray, ...],
        fallback: float,
    ) -> float:
        """Master's utility after the next shooter's best reply in ``outcome``.

        ``fallback`` (the outcome's one-ply utility) is the answer when the
        next shooter cannot shoot (no room to place a disc).
        """
        seat = outcome.current_seat
        if seat is None:
            return fallback
        theirs = Situation.of(outcome)
        try:
            shots = generate(outcome, seat, legal_positions(outcome, seat, REPLY_FRACTIONS))
        except IllegalActionError:
            return fallback
        # Hard's judgement at the shooter's noise (a stencil of near misses):
        # as aimed alone, every open 20 and every thin cut is made.
        shots, values, valid = _stencil_margins(outcome, shots, self.noise, HardPlayer.stencil)
        first = _prefer_valid(utility(values, theirs).mean(axis=0), valid)
        keep = distinct_intentions(shots, first, self.replies)
        if not keep:
            return fallback
        best = shots.take(np.array(keep))
        z = (errors[0], errors[1], errors[2])
        rolled = simulate_candidates(
            outcome, seat, played_candidates(outcome, seat, best, self.noise, z)
        )
        totals = standings(rolled, theirs)
        shape = (len(best), self.reply_draws)
        their_value = utility(margins(totals, theirs.side), theirs).reshape(shape).mean(axis=1)
        if theirs.side == mine.side:
            later = dataclasses.replace(mine, my_shots_left=mine.my_shots_left - 1)
        else:
            later = dataclasses.replace(mine, other_shots_left=mine.other_shots_left - 1)
        my_value = utility(margins(totals, mine.side), later).reshape(shape).mean(axis=1)
        return float(my_value[int(np.argmax(their_value))])


def coarse_kinds(shots: Candidates) -> list[tuple[int, int, int]]:
    """A kind of shot per candidate: its placement (10°), direction (2½°) and power (a sixth).

    >>> import numpy as np
    >>> shots = Candidates(np.array([0.0, 0.0, 0.0]), np.array([0.0, 0.9, 0.0]),
    ...                    np.array([30.0, 32.0, 80.0]))
    >>> a, b, c = coarse_kinds(shots)
    >>> a == b, a == c
    (True, False)
    """
    power = np.round(np.log(np.maximum(shots.powers, 1.0)) / np.log(1.18))
    return [
        (round(float(p) / 10.0), round(float(d) / 2.5), int(w))
        for p, d, w in zip(shots.positions, shots.directions, power, strict=True)
    ]


def _position_key(game: Game) -> tuple[object, ...]:
    """What the reply depends on: the discs (to a thousandth of an inch), the 20s, the shooter."""
    discs = tuple(sorted((d.owner.value, round(d.x, 3), round(d.y, 3)) for d in game.discs))
    return (game.current_seat, game.twenties, discs)
