"""Master: Expert's hand, and a look at the opponent's reply (two plies on the batch simulator).

Expert judges a shot by the position it leaves, counted now (with the
round's and the game's score in its utility): a disc left in the open 15
counts as 15 although the next shot will take it out, and a clear road to
the hole is as good to leave as a blocked one.  Master looks one shot
further:

1. **Expert's shortlist**: its finalists (more of them), the best
   ``recheck``, one per kind of shot, re-tested with many draws of its
   noise (the one-ply expected utility *U₁*).
2. **The likeliest outcomes**: each contender's draws grouped by the
   margin they leave; the likeliest groups (weighted by their share of the
   draws) are each represented by a few of their draws, played by the
   rules engine on a copy of the game.
3. **The reply**: from each outcome, the shot the next shooter means,
   found by Expert's own search (lighter: fewer finalists and draws), played
   ``reply_draws`` times under Expert's noise (the same draws for every
   outcome).  Modelling the opponent by a weaker search of Master's own
   (``expert_replies=False``: the generator on fewer placements, Hard's
   stencil, the best ``replies`` played under noise) let Master prefer
   positions that search misjudged, such as a disc behind the hole, which
   Expert's wider search takes out.  The outcome's value is Master's utility
   after the reply.
4. **Master's next shot** (``leaves`` above 0, off by default): from the
   reply's likeliest outcomes, the shot Master's model means there.  Taking
   only the likeliest outcomes drops the others' share (a takeout made 51%
   or 99% of the time both count as made), which cost games; the reply's
   draws all count instead, each by Master's utility after it.
5. **The choice**: each shot's value is *U₁* plus ``weight`` times the
   mean, over its outcomes, of (the value after the reply − the outcome's
   one-ply utility): the correction is what the reply changes, measured on
   a few outcomes, while *U₁* keeps its many draws (a control variate).
   Before the round's last shot (the reply ends the round, so the value
   after it is the round's result) the correction counts in full.  With
   ``caution`` above 0 the worst outcome's correction weighs in too.

A shot budget bounds the second ply on crowded boards.  On the round's last
shot there is no reply: the one-ply utility is exact there, and Master
plays its best *U₁*.  Master never means a foul when a
valid shot exists (R4): its shortlist holds only shots valid as aimed then,
and the reply only reorders it.

Measured (``crokinole match --a master --b expert --games 200 --seed 1
--jobs 2``, 2026-12-04): 74 wins, 52 draws, 74 losses, 50.0% of decided
games (95% CI 42.0-58.0%): the issue's 65% is not met.  With the same hand
the reply changes the choice only between shots whose values differ by
about as much as the correction's own error (see ``weight``).

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
    MARGIN_TIE_BREAK,
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
from crokinole.rules.referee import FATE_BOARD

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: Placements the reply search tries (fractions of the range, the middle
#: first): five of the nine the first ply tries keep it cheap.
REPLY_FRACTIONS = (0.0, -0.4, 0.4, -0.8, 0.8)
#: The share of the reply's candidates (the best as aimed) that get Hard's stencil.
REPLY_STENCIL_KEEP = 0.1


#: The reply modelled by Expert's search, lighter: fewer finalists and draws.
REPLY_EXPERT = ExpertPlayer(finalists=24, rollouts=24, recheck=3, recheck_rollouts=120)


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
    kinds: bool = True
    #: The likeliest outcomes of each (groups of draws leaving the same margin),
    #: at most this many, together at least ``coverage`` of the draws.
    outcomes: int = 5
    coverage: float = 0.9
    #: Draws that represent a group: this many for a group of half the draws or more.
    samples: int = 3
    #: The reply's best shots as aimed that are played under noise, and how often.
    replies: int = 10
    reply_draws: int = 24
    #: The reply's likeliest outcomes from which Master's own next shot is searched.
    leaves: int = 0
    #: Shots the second ply may simulate (after each contender's likeliest outcome).
    budget: int = 150_000
    #: Weight of the worst outcome's correction beside the mean (0: expected value).
    caution: float = field(default=0.0)
    #: Weight of the correction beside U₁ before the round's last two shots.  The
    #: correction rests on a few outcomes and replies: its noise (about 0.005 of
    #: utility between seeds) is as large as the contenders' differences; at
    #: full weight, with a weaker model of the reply, it lost to Expert (51 wins,
    #: 76 losses over 160 games of tuning).
    weight: float = 0.5
    #: The reply's placements (fractions of the range) and stencil share.
    reply_fractions: tuple[float, ...] = REPLY_FRACTIONS
    reply_keep: float = REPLY_STENCIL_KEEP
    #: Model the reply (and Master's next shot) by Expert's own search.
    expert_replies: bool = True
    #: What a disc left on the board counts for, beside a 20 (which no reply
    #: can take back), while two shots or more remain in the round (1: as
    #: Expert counts it).
    board_share: float = 1.0
    #: Before the round's last shot: the draws of Master's noise on which each
    #: of the best ``paired_contenders`` is followed by the reply (0: the
    #: likeliest outcomes of :meth:`_reply_corrections` instead).
    paired: int = 0
    paired_contenders: int = 4
    #: Expert's search as the reply's model; before the round's last shot
    #: (once a round, the reply ends it) the opponent's model may be Expert itself.
    reply_model: ExpertPlayer = REPLY_EXPERT
    last_reply_model: ExpertPlayer = REPLY_EXPERT

    def _rollouts(
        self,
        game: Game,
        situation: Situation,
        finalists: Candidates,
        reps: int,
        rng: np.random.Generator,
    ) -> tuple[FloatArray, Candidates, FloatArray]:
        """Expert's rollouts; with ``board_share`` below 1, discs left on the board discounted."""
        if self.board_share == 1.0 or situation.shots_left < 2:
            return super()._rollouts(game, situation, finalists, reps, rng)
        seat = situation.seat
        z = (rng.normal(0.0, 1.0, reps), rng.normal(0.0, 1.0, reps), rng.normal(0.0, 1.0, reps))
        count = len(finalists)
        played = played_candidates(game, seat, finalists, self.noise, z)
        rolled = simulate_candidates(game, seat, played)
        points = np.where(rolled.fate == FATE_BOARD, self.board_share, 1.0) * rolled.points
        sides = np.append(situation.owner_sides, situation.side)
        totals = np.stack([points[:, sides == k].sum(axis=1) for k in range(situation.n_sides)], 1)
        totals = totals + 20.0 * np.asarray(situation.twenties, dtype=np.float64)[None, :]
        margin = margins(totals, situation.side)
        expected = utility(margin, situation).reshape(count, reps).mean(axis=1)
        mean_margin = margin.reshape(count, reps).mean(axis=1)
        value = np.asarray(expected + MARGIN_TIE_BREAK * mean_margin, dtype=np.float64)
        return value, played, margin

    def _contenders(self, finalists: Candidates, expected: FloatArray) -> npt.NDArray[np.intp]:
        """The best ``recheck`` finalists, one per kind of shot: the reply tells kinds apart.

        Expert's best few are mostly the same shot a degree or a percent
        apart (five open 20s); what the reply can change is the choice
        between a 20 attempt, a draw behind a peg, a hit that sticks and one
        that rolls away.
        """
        order = np.argsort(-expected, kind="stable")
        if not self.kinds:
            return order[: self.recheck]
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
        situation, finalists, expected = self.first_round(game, rng)
        short = finalists.take(self._contenders(finalists, expected))
        again, played, margin = self._rollouts(game, situation, short, self.recheck_rollouts, rng)
        if situation.shots_left == 0 or len(short) == 1:
            return _best(again, short)  # the round's last shot: nothing to reply to
        # Before the round's last shot the reply ends the round, and the value
        # after it is the round's result, exactly: the correction counts in full.
        weight = 1.0 if situation.shots_left == 1 else self.weight
        if weight == 0:
            return _best(again, short)
        if self.paired > 0:
            chooser = self
            if situation.shots_left == 1 and self.last_reply_model != self.reply_model:
                chooser = dataclasses.replace(self, reply_model=self.last_reply_model)
            return chooser._paired_choice(
                game,
                situation,
                short,
                again=again,
                played=played,
                margin=margin,
                rng=rng,
                weight=weight,
            )
        correction = self._reply_corrections(game, situation, played, margin, rng)
        return _best(again + weight * correction, short)

    def _paired_choice(
        self,
        game: Game,
        situation: Situation,
        short: Candidates,
        *,
        again: FloatArray,
        played: Candidates,
        margin: FloatArray,
        rng: np.random.Generator,
        weight: float = 1.0,
    ) -> Shot:
        """The best of the ``paired_contenders`` best by *U₁*, after the reply, draw for draw.

        Every contender is judged on the same ``paired`` draws of Master's
        noise (the rollouts' common draws) and the same draws of the reply's
        noise, and all with equal precision: the contenders' differences are
        measured on the same luck, and no contender wins on fewer, luckier
        samples.  The value is *U₁* plus the mean change the reply makes.
        """
        reps = self.recheck_rollouts
        rows = margin.reshape(-1, reps)
        now = utility(rows, situation)
        top = np.argsort(-again, kind="stable")[: self.paired_contenders]
        errors = tuple(rng.normal(0.0, 1.0, self.reply_draws) for _ in range(3))
        # The reply's own search draws the same numbers from every outcome too.
        search_seed = int(rng.integers(2**63))
        seen: dict[tuple[object, ...], float] = {}
        spent = [0]
        change = np.zeros(len(short))
        used = 0
        # Draw by draw, every contender on the same draw: over ``budget`` shots
        # the draws stop for all of them at once (equal precision).
        for d in range(min(self.paired, reps)):
            for k in top:
                i = int(k) * reps + d
                outcome = game.copy()
                outcome.shoot(situation.seat, Shot(
                    float(played.positions[i]), float(played.directions[i]),
                    float(played.powers[i]),
                ))  # fmt: skip
                key = _position_key(outcome)
                if key not in seen:
                    seen[key] = self._after_reply(
                        outcome,
                        situation,
                        errors,
                        fallback=float(now[k, d]),
                        spent=spent,
                        rng=np.random.default_rng(search_seed),
                    )
                change[k] += seen[key] - float(now[k, d])
            used += 1
            if spent[0] >= self.budget:
                break
        value = np.full(len(short), -np.inf)
        value[top] = again[top] + weight * change[top] / used
        return _best(value, short)

    def _reply_corrections(
        self,
        game: Game,
        situation: Situation,
        played: Candidates,
        margin: FloatArray,
        rng: np.random.Generator,
    ) -> FloatArray:
        """Per contender: how much the next shooter's best reply changes its value.

        ``played`` and ``margin`` are the contenders' rollouts (contender by
        contender).  A contender's outcomes are grouped by the margin they
        leave; the likeliest groups (at most ``outcomes``, together at least
        ``coverage`` of the draws) are each represented by up to two of
        their draws, and weighted by their share of all the draws.  Groups
        are taken in turn, each contender's likeliest first, until
        ``budget`` shots have been simulated (every contender gets its
        likeliest group): a crowded board costs more per reply.
        """
        seat = situation.seat
        reps = self.recheck_rollouts
        rows = margin.reshape(-1, reps)
        now = utility(rows, situation)
        # The reply's errors: the same for every outcome (common random numbers).
        errors = tuple(rng.normal(0.0, 1.0, self.reply_draws) for _ in range(3))
        seen: dict[tuple[object, ...], float] = {}
        spent = [0]
        groups: list[list[tuple[float, npt.NDArray[np.intp]]]] = []
        for row in rows:
            _, inverse, counts = np.unique(row, return_inverse=True, return_counts=True)
            mine: list[tuple[float, npt.NDArray[np.intp]]] = []
            covered = 0.0
            for c in np.argsort(-counts, kind="stable")[: self.outcomes]:
                share = float(counts[c]) / reps
                # The likelier a group, the more of its draws represent it.
                take = min(self.samples, 1 + int(2 * share * (self.samples - 1)))
                mine.append((share, np.flatnonzero(inverse == c)[:take]))
                covered += share
                if covered >= self.coverage:
                    break
            groups.append(mine)
        weights: list[list[float]] = [[] for _ in rows]
        changes: list[list[float]] = [[] for _ in rows]
        for rank in range(max(len(g) for g in groups)):
            for k, mine in enumerate(groups):
                if rank >= len(mine) or (rank > 0 and spent[0] >= self.budget):
                    continue
                share, draws = mine[rank]
                change = 0.0
                if spent[0] >= self.budget:
                    draws = draws[:1]  # over budget: one draw a group
                for d in draws:
                    i = k * reps + int(d)
                    shot = Shot(
                        float(played.positions[i]),
                        float(played.directions[i]),
                        float(played.powers[i]),
                    )
                    outcome = game.copy()
                    outcome.shoot(seat, shot)
                    key = _position_key(outcome)
                    if key not in seen:
                        seen[key] = self._after_reply(
                            outcome,
                            situation,
                            errors,
                            fallback=float(now[k, d]),
                            spent=spent,
                            rng=rng,
                        )
                    change += seen[key] - float(now[k, d])
                weights[k].append(share)
                changes[k].append(change / len(draws))
        corrections = np.zeros(rows.shape[0])
        for k in range(rows.shape[0]):
            w, v = np.array(weights[k]), np.array(changes[k])
            mean = float((w * v).sum() / w.sum())
            corrections[k] = mean + self.caution * (float(v.min()) - mean)
        return corrections

    def _search(
        self,
        position: Game,
        errors: tuple[FloatArray, ...],
        spent: list[int],
        rng: np.random.Generator,
    ) -> tuple[Situation, Candidates, IntArray, FloatArray] | None:
        """The shooter's best shots in ``position``, each played under Master's noise.

        Candidates from fewer placements, judged by Hard's stencil at
        Master's noise (as aimed alone, every open 20 and every thin cut is
        made); the best ``replies`` of them played once per draw of
        ``errors`` (the same draws for each).  Returns the shooter's
        situation, the shots played (shot by shot), the round totals they
        leave and each shot's expected utility for the shooter; None when
        the shooter has no room to place a disc.  The shots simulated are
        added to ``spent[0]``.
        """
        seat = position.current_seat
        assert seat is not None
        situation = Situation.of(position)
        if self.expert_replies:
            return self._expert_search(position, situation, errors, spent, rng)
        try:
            shots = generate(position, seat, legal_positions(position, seat, self.reply_fractions))
        except IllegalActionError:
            return None
        generated = len(shots)
        shots, values, valid = _stencil_margins(
            position, shots, self.noise, HardPlayer.stencil, keep=self.reply_keep
        )
        spent[0] += generated + (len(HardPlayer.stencil) - 1) * len(shots)
        first = _prefer_valid(utility(values, situation).mean(axis=0), valid)
        keep = distinct_intentions(shots, first, self.replies)
        if not keep:
            return None
        best = shots.take(np.array(keep))
        draws = int(errors[0].shape[0])
        played = played_candidates(
            position, seat, best, self.noise, (errors[0], errors[1], errors[2])
        )
        rolled = simulate_candidates(position, seat, played)
        spent[0] += len(played)
        totals = standings(rolled, situation)
        value = utility(margins(totals, situation.side), situation).reshape(len(best), draws)
        return situation, played, totals, value.mean(axis=1)

    def _expert_search(
        self,
        position: Game,
        situation: Situation,
        errors: tuple[FloatArray, ...],
        spent: list[int],
        rng: np.random.Generator,
    ) -> tuple[Situation, Candidates, IntArray, FloatArray] | None:
        """:meth:`_search` with the shot Expert would mean there (the opponent's own search)."""
        seat = situation.seat
        try:
            count = len(generate(position, seat))
            meant = self.reply_model.intend(position, rng)
        except IllegalActionError:
            return None
        # Expert's search: every candidate and the stencil for a quarter, then its rollouts.
        model = self.reply_model
        spent[0] += 4 * count + model.finalists * model.rollouts
        spent[0] += model.recheck * model.recheck_rollouts
        best = Candidates(
            np.array([meant.position]), np.array([meant.direction]), np.array([meant.power])
        )
        played = played_candidates(
            position, seat, best, self.noise, (errors[0], errors[1], errors[2])
        )
        rolled = simulate_candidates(position, seat, played)
        spent[0] += len(played)
        totals = standings(rolled, situation)
        value = utility(margins(totals, situation.side), situation)
        return situation, played, totals, np.array([value.mean()])

    def _after_reply(
        self,
        outcome: Game,
        mine: Situation,
        errors: tuple[FloatArray, ...],
        *,
        fallback: float,
        spent: list[int],
        rng: np.random.Generator | None = None,
    ) -> float:
        """Master's utility after the next shooter's best reply in ``outcome``.

        ``fallback`` (the outcome's one-ply utility) is the answer when the
        next shooter cannot shoot (no room to place a disc).
        """
        seat = outcome.current_seat
        if seat is None:
            return fallback
        rng = rng or np.random.default_rng(0)
        found = self._search(outcome, errors, spent, rng)
        if found is None:
            return fallback
        theirs, replies, totals, their_value = found
        if theirs.side == mine.side:
            later = dataclasses.replace(mine, my_shots_left=mine.my_shots_left - 1)
        else:
            later = dataclasses.replace(mine, other_shots_left=mine.other_shots_left - 1)
        draws = self.reply_draws
        j = int(np.argmax(their_value))
        mine_after = margins(totals, mine.side).reshape(-1, draws)[j]
        my_value = utility(mine_after, later)
        if self.leaves == 0 or later.shots_left == 0 or spent[0] >= self.budget:
            return float(my_value.mean())
        # Master's next shot from the reply's likeliest outcomes: the position
        # after the reply is worth what Master can make of it.
        _, inverse, counts = np.unique(mine_after, return_inverse=True, return_counts=True)
        total = weight = 0.0
        for c in np.argsort(-counts, kind="stable")[: self.leaves]:
            d = int(np.flatnonzero(inverse == c)[0])
            i = j * draws + d
            leaf = outcome.copy()
            leaf.shoot(seat, Shot(
                float(replies.positions[i]), float(replies.directions[i]), float(replies.powers[i])
            ))  # fmt: skip
            share = counts[c] / draws
            total += share * self._best_next(
                leaf, mine.side, float(my_value[d]), errors=errors, spent=spent, rng=rng
            )
            weight += share
        return total / weight

    def _best_next(
        self,
        leaf: Game,
        side: int,
        fallback: float,
        *,
        errors: tuple[FloatArray, ...],
        spent: list[int],
        rng: np.random.Generator,
    ) -> float:
        """What the shooter of ``leaf`` makes of it when that is ``side``: its best utility.

        ``fallback`` when another side shoots next or the shooter has no room.
        """
        seat = leaf.current_seat
        if seat is None or leaf.side_of(seat) != side:
            return fallback
        found = self._search(leaf, errors, spent, rng)
        return fallback if found is None else float(found[3].max())


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
