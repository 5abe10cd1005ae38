"""Hints: the Expert's best few shots for a position, valued under an accuracy.

The search is the Expert's (:class:`crokinole.ai.ExpertPlayer`):

1. every candidate of :func:`crokinole.ai.search.generate` (open 20s at
   several lengths, hits and cuts on every opposing disc, raises and chains
   through own discs, a fan) is played as aimed and at a stencil of near
   misses of the accuracy's own noise, and screened by its mean round-win
   chance; a shot that is a foul as aimed (R4) ranks below every valid one;
2. the candidates are grouped by **what they do**: two shots are the same
   idea when, played as aimed, they leave the same position (the same discs
   off the board, each disc left within a disc's width of the other's
   spot).  Three variants of one open 20 are one idea;
3. the best few of each of the leading ideas are played many times under the
   accuracy (common random numbers, :mod:`crokinole.analysis.value`), and
   the best of each idea is kept, ranked by round-win chance and then
   expected margin (as shown, to 4 places).

Each hint also says where its shot disc comes to rest when the shot is
played exactly as aimed (:class:`Stop`: one noise-free run of the
simulator per hint), so that a drawing of it ends where the disc would.

>>> from crokinole.rules import Game, Rules
>>> best = hints(Game(Rules()), Accuracy.human())[0]
>>> best.rank, best.value.twenty > 0.6        # on an open board: the open 20
(1, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from crokinole.ai.evaluate import margins, standings
from crokinole.ai.players import MARGIN_TIE_BREAK, HardPlayer
from crokinole.ai.search import Candidates, distinct_intentions, generate, simulate_candidates
from crokinole.analysis.value import (
    Accuracy,
    ShotValue,
    normal_errors,
    roll,
    round_win_chance,
    situation_of,
    values_of,
)
from crokinole.board import Point, Shot
from crokinole.errors import AnalysisError, IllegalActionError
from crokinole.physics import DiscStatus, simulate_shot
from crokinole.rules import Game
from crokinole.rules.referee import FATE_BOARD, BatchJudgement

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class Budget:
    """How much work a hint may take.

    Attributes:
        finalists: candidates valued with the accuracy's draws.
        draws: noise draws per finalist.
        screened: best screened candidates that are grouped into ideas.
        stencil: near misses (in the accuracy's standard deviations of
            direction and power) each candidate is screened with.
    """

    finalists: int
    draws: int
    screened: int
    stencil: tuple[tuple[float, float], ...]


#: "full" for a player's hint; "fast" where many positions are analysed (a game review).
BUDGETS = {
    "full": Budget(finalists=36, draws=96, screened=256, stencil=HardPlayer.stencil[:5]),
    "fast": Budget(finalists=12, draws=32, screened=128, stencil=HardPlayer.stencil[:3]),
}
#: Two shots leave "the same position" when each disc ends within this of the other's spot (in).
SAME_SPOT = 1.25


@dataclass(frozen=True, slots=True)
class Stop:
    """Where a shot's own disc ends when the shot is played exactly as aimed.

    Attributes:
        x: final centre x, in board inches (for a disc that left the
            surface, where it left: at the hole or at the edge of the ditch).
        y: final centre y.
        status: on the board, in the 20 hole, or in the ditch.
        path: the disc's centre where its motion started or changed (the
            launch, each contact) and where it ended, in order: its path is
            straight between them.
        zone: the zone it rests in as R6 scores it (0 when out or gone; 20
            for the hole, whether or not the rules credit that 20).
        theirs_out: other sides' discs the shot knocks off the board (into
            the ditch or the hole), so the shot can be told in words.
        ours_out: the shooter's side's other discs it knocks off.
    """

    x: float
    y: float
    status: DiscStatus
    path: tuple[tuple[float, float], ...]
    zone: int = 0
    theirs_out: int = 0
    ours_out: int = 0

    def to_dict(self) -> dict[str, Any]:
        """Plain data, to 4 places; ``status`` as a word (``"on_board"``, ``"in_hole"`` ...)."""
        return {
            "x": round(self.x, 4),
            "y": round(self.y, 4),
            "status": self.status.label,
            "path": [[round(x, 4), round(y, 4)] for x, y in self.path],
            "zone": self.zone,
            "theirs_out": self.theirs_out,
            "ours_out": self.ours_out,
        }


@dataclass(frozen=True, slots=True)
class Hint:
    """One suggested shot: its rank (1 is the best), its value and where its disc stops."""

    rank: int
    value: ShotValue
    stop: Stop

    def to_dict(self) -> dict[str, Any]:
        """Plain data: the rank, the shot's value (see :meth:`ShotValue.to_dict`) and the stop."""
        return {"rank": self.rank, **self.value.to_dict(), "stop": self.stop.to_dict()}


def stop_of(game: Game, shot: Shot) -> Stop:
    """Where the shooter's disc ends when ``shot`` is played without noise.

    >>> from crokinole.rules import Game, Rules
    >>> stop = stop_of(Game(Rules()), Shot(0.0, 0.0, 29.0))
    >>> stop.status.label, abs(stop.x) < 1e-9, len(stop.path)
    ('in_hole', True, 2)
    """
    seat = situation_of(game).seat
    discs = [(d.x, d.y) for d in game.discs]
    result = simulate_shot(game.board, discs, game.board.launch(seat, shot))
    me = result.shot_disc
    end = result.discs[me]
    start = result.start[me]
    path = [(start.x, start.y)]
    path += [(ev.x, ev.y) for ev in result.events if ev.disc == me and ev.kind.changes_motion]
    path.append((end.position.x, end.position.y))
    # The launch and the rest are events too: keep each corner once.
    corners = [p for k, p in enumerate(path) if k == 0 or p != path[k - 1]]
    side = game.side_of(seat)
    off = [
        game.side_of(d.owner) == side
        for d, o in zip(game.discs, result.discs, strict=False)
        if o.status is not DiscStatus.ON_BOARD
    ]
    return Stop(
        end.position.x,
        end.position.y,
        end.status,
        tuple(corners),
        zone=_zone(game, end.status, end.position),
        theirs_out=off.count(False),
        ours_out=off.count(True),
    )


def hints(
    game: Game, accuracy: Accuracy, *, count: int = 3, seed: int = 0, budget: str = "full"
) -> tuple[Hint, ...]:
    """The best ``count`` distinct shots for the player to move (see the module doc).

    Args:
        game: the position.
        accuracy: how the shots will be played.
        count: how many hints; fewer come back only when the position allows
            fewer distinct ideas.
        seed: seed of the noise draws: the same seed gives the same hints.
        budget: ``"full"`` or ``"fast"`` (fewer finalists and draws).

    Raises:
        AnalysisError: nobody is to shoot, the shooter has no room to place
            a disc, or ``count``/``budget`` is not one the function knows.

    >>> from crokinole.rules import Game, Rules
    >>> [h.rank for h in hints(Game(Rules()), Accuracy.steady(), budget="fast")]
    [1, 2, 3]
    """
    situation = situation_of(game)
    if count < 1:
        raise AnalysisError(f"ask for at least one hint, not {count}")
    if budget not in BUDGETS:
        raise AnalysisError(f"unknown hint budget {budget!r}; choose one of full, fast")
    plan = BUDGETS[budget]
    seat = situation.seat
    try:
        shots = generate(game, seat)
    except IllegalActionError as exc:
        raise AnalysisError(str(exc)) from None
    stencil = ((0.0, 0.0),) if accuracy.is_steady else plan.stencil
    score, aimed = _screen(game, shots, accuracy, stencil)
    order = distinct_intentions(shots, score, plan.screened)
    ideas = _ideas(game, aimed, order)
    chosen, idea_of = _finalists(ideas, plan.finalists, count)
    finalists = shots.take(np.array(chosen, dtype=np.intp))
    reps = 1 if accuracy.is_steady else plan.draws
    rolled = roll(game, situation, finalists, accuracy, normal_errors(reps, seed))
    values = values_of(_as_shots(finalists), rolled)
    # Best first by round-win chance, then margin, as the player sees them (4 places).
    ranked = sorted(
        range(len(values)),
        key=lambda k: (-round(values[k].round_win, 4), -round(values[k].margin, 4)),
    )
    picked: list[ShotValue] = []
    used: set[int] = set()
    for k in ranked:
        if idea_of[k] in used:
            continue
        used.add(idea_of[k])
        picked.append(values[k])
        if len(picked) == count:
            break
    return tuple(
        Hint(rank, value, stop_of(game, value.shot)) for rank, value in enumerate(picked, start=1)
    )


def _zone(game: Game, status: DiscStatus, at: Point) -> int:
    if status is DiscStatus.IN_HOLE:
        return 20
    if status is DiscStatus.IN_DITCH:
        return 0
    return int(game.board.zone_of(at).value)


def _as_shots(shots: Candidates) -> list[Shot]:
    return [
        Shot(float(p), float(d), float(w))
        for p, d, w in zip(shots.positions, shots.directions, shots.powers, strict=True)
    ]


def _screen(
    game: Game,
    shots: Candidates,
    accuracy: Accuracy,
    stencil: tuple[tuple[float, float], ...],
) -> tuple[FloatArray, BatchJudgement]:
    """Each candidate's mean round-win chance over the stencil (fouls as aimed last).

    Returns the scores and the judgement of the shots as aimed (the first
    stencil entry), in one batch.
    """
    situation = situation_of(game)
    noise = accuracy.noise
    k = len(shots)
    n = len(stencil)
    turns = np.array([t for t, _ in stencil]) * noise.direction
    factors = 1.0 + np.array([f for _, f in stencil]) * noise.power
    variants = Candidates(
        np.tile(shots.positions, n),
        np.clip(np.repeat(turns, k) + np.tile(shots.directions, n), -180.0, 180.0),
        np.clip(np.repeat(factors, k) * np.tile(shots.powers, n), 0.0, 100.0),
    )
    judged = simulate_candidates(game, situation.seat, variants)
    margin = margins(standings(judged, situation), situation.side)
    win = round_win_chance(margin, situation).reshape(n, k).mean(axis=0)
    score = win + MARGIN_TIE_BREAK * margin.reshape(n, k).mean(axis=0)
    valid = judged.valid[:k]
    if valid.any():
        score = np.where(valid, score, -np.inf)
    aimed = BatchJudgement(
        valid=valid,
        fate=judged.fate[:k],
        points=judged.points[:k],
        positions=judged.positions[:k],
    )
    return np.asarray(score, dtype=np.float64), aimed


def _ideas(game: Game, aimed: BatchJudgement, order: list[int]) -> list[list[int]]:
    """``order`` grouped by the position each shot leaves as aimed (groups in order)."""
    idx = np.array(order, dtype=np.intp)
    fate = aimed.fate[idx]
    pos = aimed.positions[idx]
    # same[i, j]: shots i and j leave the same position (every pair at once).
    same_fate = (fate[:, None, :] == fate[None, :, :]).all(axis=2)
    gap = np.hypot(pos[:, None, :, 0] - pos[None, :, :, 0], pos[:, None, :, 1] - pos[None, :, :, 1])
    on_board = fate == FATE_BOARD
    near = np.where(on_board[:, None, :], gap <= SAME_SPOT, True).all(axis=2)
    same = same_fate & near
    groups: list[list[int]] = []
    heads: list[int] = []
    for i, k in enumerate(order):
        match = [g for g, head in enumerate(heads) if same[i, head]]
        if match:
            groups[match[0]].append(k)
        else:
            heads.append(i)
            groups.append([k])
    return groups


def _finalists(ideas: list[list[int]], total: int, count: int) -> tuple[list[int], list[int]]:
    """The best few of each leading idea (at most ``total``), and each one's idea."""
    per_idea = max(2, total // max(count, 1))
    chosen: list[int] = []
    idea_of: list[int] = []
    for number, members in enumerate(ideas):
        for k in members[:per_idea]:
            chosen.append(k)
            idea_of.append(number)
        if len(chosen) >= total and number + 1 >= count:
            break
    return chosen, idea_of
