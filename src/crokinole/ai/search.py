"""Candidate shots and their evaluation through the batch simulator (Hard and Expert).

Candidates are (position × direction × power) triples built from the
geometry of the position: the open 20 at several lengths, every opposing
disc hit full and cut on both sides at speeds from a nudge to a takeout,
own discs raised or used as a link in a chain (R4), and a fan of plain
directions.  Each one is simulated, judged by the vectorised referee (so a
candidate that breaks R4 is scored as the foul it is) and given the margin
of :mod:`crokinole.ai.evaluate`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from crokinole.ai.aim import directions_towards, placement_points, powers_for
from crokinole.ai.evaluate import Situation, margins, standings
from crokinole.ai.noise import Noise
from crokinole.board import Seat
from crokinole.errors import IllegalActionError
from crokinole.physics import simulate_batch
from crokinole.rules import Game
from crokinole.rules.referee import BatchJudgement, judge_batch

FloatArray = npt.NDArray[np.float64]

#: Placements tried along the quarter, as fractions of the legal range, the
#: middle first: among equal candidates the first one generated wins.
PLACEMENT_FRACTIONS = (0.0, -0.2, 0.2, -0.4, 0.4, -0.65, 0.65, -0.9, 0.9)
#: Offsets of the aim from a target disc's centre, in disc radii (0 is a full hit).
CUT_OFFSETS = (-1.3, -0.7, 0.0, 0.7, 1.3)
#: Speeds (in/s) at which the shot disc should arrive at a target disc.
HIT_SPEEDS = (5.0, 14.0, 28.0, 50.0, 90.0)
#: Slide lengths past (+) or short of (−) the centre for open-20 attempts, inches.
HOLE_LENGTHS = (1.0, 2.0, 0.3, -0.2, 3.0, 4.0)
#: Aims beside the centre for open-20 attempts, inches.
HOLE_OFFSETS = (0.0, -0.3, 0.3)
#: The fan of plain directions (degrees) and powers (percent).
FAN_DIRECTIONS = tuple(float(d) for d in np.linspace(-36.0, 36.0, 13))
FAN_POWERS = (24.0, 32.0, 45.0, 65.0, 100.0)


@dataclass(frozen=True)
class Candidates:
    """Shots to try, as parallel arrays (R3's position, direction, power)."""

    positions: FloatArray
    directions: FloatArray
    powers: FloatArray

    def __len__(self) -> int:
        return int(self.positions.shape[0])

    def take(self, index: npt.NDArray[np.intp]) -> Candidates:
        """The candidates at ``index``."""
        return Candidates(self.positions[index], self.directions[index], self.powers[index])


def legal_positions(game: Game, seat: Seat, fractions: tuple[float, ...]) -> FloatArray:
    """Placements (degrees) among ``fractions`` of the range where a disc may go (R3)."""
    limit = game.board.placement_limit
    wanted = [f * limit for f in fractions]
    return np.array([p for p in wanted if game.placement_problem(seat, p) is None])


def generate(game: Game, seat: Seat, positions: FloatArray | None = None) -> Candidates:
    """The candidate shots for ``seat`` in ``game``."""
    board = game.board
    if positions is None:
        positions = legal_positions(game, seat, PLACEMENT_FRACTIONS)
    if positions.size == 0:
        # Every planned spot is blocked: the middle of each free stretch of the line.
        positions = np.array([(a + b) / 2.0 for a, b in game.placement_intervals(seat)])
    if positions.size == 0:
        raise IllegalActionError(f"{seat.title} has no room to place a disc")
    starts = placement_points(board, seat, positions)
    side = game.side_of(seat)
    discs = game.discs
    opp = np.array([(d.x, d.y) for d in discs if game.side_of(d.owner) != side]).reshape(-1, 2)
    own = np.array([(d.x, d.y) for d in discs if game.side_of(d.owner) == side]).reshape(-1, 2)
    r = board.disc_radius
    parts_pos: list[FloatArray] = []
    parts_dir: list[FloatArray] = []
    parts_pow: list[FloatArray] = []

    def aim(
        targets: FloatArray, offsets: tuple[float, ...], speeds: FloatArray, stop_short: float
    ) -> None:
        # targets (T, 2); every placement × target × offset × speed.
        if targets.size == 0:
            return
        sp = starts[:, None, None, :]
        tg = targets[None, :, None, :]
        along = tg - sp
        dist = np.hypot(along[..., 0], along[..., 1])
        unit = along / np.maximum(dist, 1e-9)[..., None]
        perp = np.stack([-unit[..., 1], unit[..., 0]], axis=-1)
        offs = np.asarray(offsets)[None, None, :, None] * r
        point = tg + offs * perp
        p_idx = np.broadcast_to(positions[:, None, None], point.shape[:-1])
        dirs = directions_towards(board, seat, p_idx, point[..., 0], point[..., 1])
        travel = np.broadcast_to(dist - stop_short, point.shape[:-1])
        pos4 = np.repeat(p_idx[..., None], speeds.size, axis=-1)
        dir4 = np.repeat(dirs[..., None], speeds.size, axis=-1)
        pow4 = powers_for(board, travel[..., None], speeds)
        parts_pos.append(pos4.ravel())
        parts_dir.append(dir4.ravel())
        parts_pow.append(np.broadcast_to(pow4, pos4.shape).ravel())

    # Open 20s (and draws to the centre): stop at several lengths past the centre.
    centre = np.zeros((1, 2))
    for length in HOLE_LENGTHS:
        aim(centre, HOLE_OFFSETS, np.array([0.0]), -length)
    # Hits on opposing discs: contact happens 2r before the centre.
    aim(opp, CUT_OFFSETS, np.asarray(HIT_SPEEDS), 2 * r)
    # Own discs: raises and chains (R4 allows a hit through own discs).
    aim(own, (-0.6, 0.0, 0.6), np.array([10.0, 30.0, 60.0]), 2 * r)
    # A plain fan.
    fan_p, fan_d, fan_w = np.meshgrid(positions, FAN_DIRECTIONS, FAN_POWERS, indexing="ij")
    parts_pos.append(fan_p.ravel())
    parts_dir.append(fan_d.ravel())
    parts_pow.append(fan_w.ravel())
    return Candidates(
        np.concatenate(parts_pos),
        np.clip(np.concatenate(parts_dir), -180.0, 180.0),
        np.clip(np.concatenate(parts_pow), 0.0, 100.0),
    )


def simulate_candidates(game: Game, seat: Seat, shots: Candidates) -> BatchJudgement:
    """Play every candidate from the current position and judge it (R4, R5)."""
    board = game.board
    discs = np.array([(d.x, d.y) for d in game.discs], dtype=np.float64).reshape(-1, 2)
    launches = board.launches(seat, shots.positions, shots.directions, shots.powers)
    batch = simulate_batch(board, discs, launches)
    return judge_batch(
        board,
        owner_sides=np.array([game.side_of(d.owner) for d in game.discs], dtype=np.int64),
        shooter_side=game.side_of(seat),
        batch=batch,
        required_contact=game.rules.required_contact,
    )


def candidate_margins(game: Game, shots: Candidates) -> tuple[FloatArray, BatchJudgement]:
    """Margin (shooter's side minus the best other) after each candidate, counted now."""
    situation = Situation.of(game)
    judged = simulate_candidates(game, situation.seat, shots)
    return margins(standings(judged, situation), situation.side), judged


def distinct_intentions(shots: Candidates, score: FloatArray, limit: int) -> list[int]:
    """Up to ``limit`` best candidates by ``score``, one per rounded intention.

    Two shots share an intention when their position (1°), direction (½°)
    and power (1 %) round alike; a shot scored ``-inf`` or NaN is never
    kept.  The Expert keeps its finalists so, and the hints their candidates.
    """
    keep: list[int] = []
    seen: set[tuple[int, int, int]] = set()
    for k in np.argsort(-score, kind="stable"):
        if not np.isfinite(score[k]):
            break
        key = (
            round(float(shots.positions[k])),
            round(float(shots.directions[k]) * 2),
            round(float(shots.powers[k])),
        )
        if key in seen:
            continue
        seen.add(key)
        keep.append(int(k))
        if len(keep) == limit:
            break
    return keep


def played_candidates(
    game: Game,
    seat: Seat,
    shots: Candidates,
    noise: Noise,
    errors: tuple[FloatArray, FloatArray, FloatArray],
) -> Candidates:
    """Every shot played once per draw of ``errors``, shot by shot (shot ``k``'s draws together).

    The same errors for every shot (common random numbers), so a comparison
    shows the shots' differences and not the draws'.  A noisy placement that
    is not free is replaced by the aimed one, as
    :meth:`crokinole.ai.CpuPlayer.choose_shot` does: placing is deliberate.
    """
    draws = int(errors[0].shape[0])
    count = len(shots)
    intended = np.repeat(shots.positions, draws)
    pos, dirs, pows = noise.apply(
        game.board,
        intended,
        np.repeat(shots.directions, draws),
        np.repeat(shots.powers, draws),
        (np.tile(errors[0], count), np.tile(errors[1], count), np.tile(errors[2], count)),
    )
    if noise.position:
        free = np.zeros(pos.shape, dtype=np.bool_)
        for a, b in game.placement_intervals(seat):
            free |= (pos >= a) & (pos <= b)
        pos = np.where(free, pos, intended)
    return Candidates(pos, dirs, pows)
