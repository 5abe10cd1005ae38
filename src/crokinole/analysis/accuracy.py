"""A player's own accuracy, fitted from their open-20 rate.

The open 20 (R5: a disc shot from the line into the empty hole) is the one
shot every player practises and can count, so it measures a hand.  A
player's accuracy ("mine") is the tables' human hand noise
(:meth:`Accuracy.human`: the Expert's spreads) scaled by one factor ``s``
(placement, direction and power spreads all × ``s``), with ``s`` chosen so
that the simulated open-20 rate matches the rate the player made: ``s = 0``
is a steady hand, ``s = 1`` the human hand (about 75%), larger is wilder.

The simulated rate (:func:`open_twenty_rate`) aims as the Expert aims an
open 20 on an empty board: from the middle of the quarter straight at the
centre, at the slide length (past the centre) that makes the most 20s under
that noise.

>>> fit_accuracy(0.55).name
'mine'
"""

from __future__ import annotations

import math

import numpy as np

from crokinole.ai import Noise
from crokinole.ai.aim import powers_for
from crokinole.analysis.value import MINE, Accuracy
from crokinole.board import TOURNAMENT_BOARD, Board, Seat
from crokinole.errors import AnalysisError
from crokinole.physics import DiscStatus, simulate_batch

#: Slide lengths past the centre (inches) among which the open 20 is aimed.
OPEN_TWENTY_LENGTHS = (0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5)
#: The fitted rate is within this of the one asked for (the same seed).
FIT_TOLERANCE = 0.005
#: Rates that can be fitted: below the lowest the hand is too wild to tell apart.
LOWEST_RATE = 0.02


def open_twenty_rate(
    noise: Noise, *, draws: int = 4000, seed: int = 0, board: Board = TOURNAMENT_BOARD
) -> float:
    """Simulated share of open 20s made under ``noise`` (see the module doc).

    Every slide length is played with the same ``draws`` errors (common
    random numbers); the best length's share is the rate.

    >>> from crokinole.ai import NOISE, Level
    >>> open_twenty_rate(Noise())
    1.0
    >>> 0.65 < open_twenty_rate(NOISE[Level.EXPERT]) < 0.9
    True
    """
    if draws < 1:
        raise AnalysisError(f"at least one draw is needed to measure an open-20 rate, not {draws}")
    rng = np.random.default_rng(seed)
    z = (rng.normal(0.0, 1.0, draws), rng.normal(0.0, 1.0, draws), rng.normal(0.0, 1.0, draws))
    return _rate(board, noise, z, draws)


def _rate(
    board: Board, noise: Noise, z: tuple[np.ndarray, np.ndarray, np.ndarray], draws: int
) -> float:
    lengths = np.asarray(OPEN_TWENTY_LENGTHS)
    n = lengths.size
    powers = powers_for(board, board.shooting_line_radius + lengths, np.zeros(n))
    pos, dirs, pows = noise.apply(
        board,
        np.zeros(n * draws),
        np.zeros(n * draws),
        np.repeat(powers, draws),
        (np.tile(z[0], n), np.tile(z[1], n), np.tile(z[2], n)),
    )
    launches = board.launches(Seat.SOUTH, pos, dirs, pows)
    made = simulate_batch(board, [], launches).statuses[:, 0] == DiscStatus.IN_HOLE
    return float(made.reshape(n, draws).mean(axis=1).max())


def scaled_hand(scale: float) -> Noise:
    """The human hand's noise with every spread multiplied by ``scale``."""
    hand = Accuracy.human().noise
    return Noise(hand.position * scale, hand.direction * scale, hand.power * scale)


def fit_accuracy(rate: float, *, seed: int = 0, draws: int = 4000) -> Accuracy:
    """The accuracy ("mine") whose simulated open-20 rate is ``rate``.

    The scale ``s`` of the human hand is found by bisection until
    :func:`open_twenty_rate` (same ``seed`` and ``draws``) is within
    :data:`FIT_TOLERANCE` of ``rate``; a rate of 1 is a steady hand (``s = 0``).

    Raises:
        AnalysisError: ``rate`` is not a number between 0.02 and 1.

    >>> mine = fit_accuracy(0.55, seed=1)
    >>> abs(open_twenty_rate(mine.noise, seed=1) - 0.55) <= FIT_TOLERANCE
    True
    >>> fit_accuracy(1.0).noise == Noise()
    True
    """
    if not (isinstance(rate, int | float) and math.isfinite(rate)):
        raise AnalysisError(f"an open-20 rate is a number between 0.02 and 1, not {rate!r}")
    if not LOWEST_RATE <= rate <= 1.0:
        raise AnalysisError(
            f"an open-20 rate of {rate:.1%} cannot be fitted: it must lie between "
            f"{LOWEST_RATE:.0%} and 100%"
        )
    if rate == 1.0:
        return Accuracy(MINE, Noise())
    board = TOURNAMENT_BOARD
    rng = np.random.default_rng(seed)
    z = (rng.normal(0.0, 1.0, draws), rng.normal(0.0, 1.0, draws), rng.normal(0.0, 1.0, draws))

    def rate_at(scale: float) -> float:
        return _rate(board, scaled_hand(scale), z, draws)

    # The rate falls as the hand widens: bracket the rate asked for, then halve.
    low, high = 0.0, 1.0
    while rate_at(high) > rate:
        low, high = high, 2.0 * high
        if high > 1024.0:  # pragma: no cover - 2% is reached long before
            break
    best, best_gap = high, abs(rate_at(high) - rate)
    for _ in range(60):
        middle = (low + high) / 2.0
        made = rate_at(middle)
        gap = abs(made - rate)
        if gap < best_gap:
            best, best_gap = middle, gap
        if gap <= FIT_TOLERANCE / 2.0:
            break
        if made > rate:
            low = middle
        else:
            high = middle
    return Accuracy(MINE, scaled_hand(best))
