"""simulate_boards: one shot on each of many positions, shot for shot simulate_shot's result."""

from __future__ import annotations

import numpy as np
import pytest

from crokinole.board import TOURNAMENT_BOARD as BOARD
from crokinole.board import Launch, Seat
from crokinole.errors import InvalidPositionError, InvalidShotError
from crokinole.physics import check_position, simulate_boards, simulate_shot
from crokinole.physics.result import ContactKind


def _random_boards(rng: np.random.Generator, count: int, n: int) -> np.ndarray:
    """``count`` legal positions of ``n`` discs inside the 10 line, clear of the placement spot."""
    boards = np.empty((count, n, 2))
    for b in range(count):
        while True:
            r = 9.5 * np.sqrt(rng.random(n))
            a = rng.uniform(0, 2 * np.pi, n)
            discs = np.stack([r * np.cos(a), r * np.sin(a)], axis=1)
            try:
                check_position(BOARD, discs)
            except InvalidPositionError:
                continue
            boards[b] = discs
            break
    return boards


@pytest.mark.parametrize("n", [0, 1, 6])
def test_each_board_gives_what_simulate_shot_gives_for_it(n: int) -> None:
    rng = np.random.default_rng(n)
    count = 60
    boards = _random_boards(rng, count, n)
    launches = BOARD.launches(
        Seat.SOUTH,
        rng.uniform(-40, 40, count),
        rng.uniform(-40, 40, count),
        rng.uniform(0, 100, count),
    )
    batch = simulate_boards(BOARD, boards, launches)
    for b in range(count):
        one = simulate_shot(BOARD, boards[b], Launch(*launches[b].tolist()))
        assert np.array_equal(batch.positions[b], one.final_array)  # bit for bit
        assert np.array_equal(batch.statuses[b], one.status_array)
        assert np.array_equal(batch.moved[b], one.flag_array[:, 0])
        assert np.array_equal(batch.touched_beyond_line[b], one.flag_array[:, 2])
        touched = np.zeros((n + 1, n + 1), dtype=bool)
        for c in one.contacts:
            if c.kind is ContactKind.DISC:
                touched[c.disc, c.other] = touched[c.other, c.disc] = True
        assert np.array_equal(batch.contacts[b], touched)


def test_bad_boards_and_launches_are_refused_naming_the_board() -> None:
    launches = BOARD.launches(Seat.SOUTH, [0.0, 0.0], [0.0, 0.0], [30.0, 30.0])
    overlapping = np.array([[[3.0, 5.0], [-3.0, 5.0]], [[3.0, 5.0], [3.5, 5.0]]])
    with pytest.raises(InvalidPositionError, match=r"board 1: disc 1 at .* overlaps disc 0"):
        simulate_boards(BOARD, overlapping, launches)
    on_the_spot = np.array([[[3.0, 5.0]], [[0.0, -11.5]]])
    with pytest.raises(InvalidShotError, match=r"board 1: launch from .* overlaps disc 0"):
        simulate_boards(BOARD, on_the_spot, launches)
    with pytest.raises(InvalidShotError, match=r"launches must be a \(2, 4\) array"):
        simulate_boards(BOARD, overlapping[:, :1], launches[:1])
    with pytest.raises(InvalidPositionError, match=r"\(B, N, 2\)"):
        simulate_boards(BOARD, [[1.0, 2.0]], launches)
    fast = launches.copy()
    fast[0, 2] = np.nan
    with pytest.raises(InvalidShotError, match=r"launch 0 .* is not a finite velocity"):
        simulate_boards(BOARD, overlapping[:, :1], fast)
