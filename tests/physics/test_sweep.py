"""A wide sweep through the batch API: crowded boards, touching clusters, every seat.

Marked slow (about ten seconds); CI runs it.  It looks for what the property
tests might be too small to meet: overlaps after chains of contacts and shots
that fail to finish (inelastic collapse).
"""

from __future__ import annotations

import numpy as np
import pytest

from crokinole.board import TOURNAMENT_BOARD, Seat
from crokinole.errors import InvalidPositionError
from crokinole.physics import check_position, simulate_batch

B = TOURNAMENT_BOARD
R = B.disc_radius
PEGS = B.peg_array()


def _crowded_scene(rng: np.random.Generator, n: int) -> np.ndarray:
    """Up to n discs; a third of them placed touching an earlier one."""
    kept: list[np.ndarray] = []
    for _ in range(4000):
        if len(kept) == n:
            break
        if kept and rng.random() < 0.35:
            angle = rng.uniform(0, 2 * np.pi)
            p = kept[rng.integers(len(kept))] + 2 * R * np.array([np.cos(angle), np.sin(angle)])
        else:
            radius, angle = np.sqrt(rng.uniform(0.7**2, 11.3**2)), rng.uniform(0, 2 * np.pi)
            p = np.array([radius * np.cos(angle), radius * np.sin(angle)])
        if not 0.7 < np.hypot(*p) < 11.3:
            continue
        try:
            check_position(B, np.vstack([*kept, p]))
        except InvalidPositionError:
            continue
        kept.append(p)
    return np.array(kept).reshape(-1, 2)


@pytest.mark.slow
def test_many_shots_on_crowded_boards_never_overlap_and_always_finish() -> None:
    rng = np.random.default_rng(20261130)
    worst = 0.0
    total = 0
    for scene in range(60):
        discs = _crowded_scene(rng, int(rng.integers(0, 25)))
        seat = list(Seat)[scene % 4]
        k = 800
        launches = B.launches(
            seat,
            rng.uniform(-B.placement_limit, B.placement_limit, k),
            rng.uniform(-80, 80, k),
            rng.uniform(0, 100, k),
        )
        if len(discs):
            gaps = np.hypot(
                discs[None, :, 0] - launches[:, None, 0], discs[None, :, 1] - launches[:, None, 1]
            )
            launches = launches[gaps.min(axis=1) >= 2 * R]
        batch = simulate_batch(B, discs, launches)  # raises if a shot cannot finish
        total += len(launches)
        for shot in range(len(launches)):
            on_board = batch.positions[shot][batch.statuses[shot] == 0]
            if len(on_board) > 1:
                diff = on_board[:, None, :] - on_board[None, :, :]
                dist = np.hypot(diff[..., 0], diff[..., 1])
                np.fill_diagonal(dist, np.inf)
                worst = max(worst, 2 * R - dist.min())
            if len(on_board):
                peg = np.hypot(
                    on_board[:, None, 0] - PEGS[None, :, 0], on_board[:, None, 1] - PEGS[None, :, 1]
                )
                worst = max(worst, R + B.peg_radius - peg.min())
    assert total > 30_000
    assert worst <= 1e-9
