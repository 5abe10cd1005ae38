"""Positions the analysis tests share: a crowded board (12 discs, 6 a side)."""

from __future__ import annotations

import numpy as np

from crokinole.board import TOURNAMENT_BOARD, Seat
from crokinole.rules import Game, Rules
from tests.support.rules_positions import game_at

B = TOURNAMENT_BOARD


def crowded(seed: int, count: int = 12, to_move: Seat = Seat.SOUTH) -> Game:
    """A singles game (12 discs a side) with ``count`` discs strewn inside the 10 line's reach.

    Discs alternate north, south; none overlaps another, a peg or the hole.
    """
    rng = np.random.default_rng(seed)
    pegs = B.peg_array()
    discs: list[tuple[Seat, float, float]] = []
    while len(discs) < count:
        r, a = rng.uniform(1.0, 10.5), rng.uniform(0.0, 2.0 * np.pi)
        x, y = r * np.cos(a), r * np.sin(a)
        if any(np.hypot(x - dx, y - dy) < 2 * B.disc_radius + 0.05 for _, dx, dy in discs):
            continue
        if np.hypot(*(pegs - (x, y)).T).min() < B.disc_radius + B.peg_radius + 0.05:
            continue
        discs.append((Seat.NORTH if len(discs) % 2 == 0 else Seat.SOUTH, float(x), float(y)))
    return game_at(Rules(discs_per_side=12), discs, to_move)
