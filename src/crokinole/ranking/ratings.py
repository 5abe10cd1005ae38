"""Ratings of ranked play: openskill's Plackett-Luce model, one rating per ladder.

A player's skill is a normal belief (``mu``, ``sigma``) updated after each
ranked game by the Plackett-Luce model of Weng & Lin (2011, "A Bayesian
approximation method for online ranking", Algorithm 4) as implemented by
``openskill``.  What players see is :func:`display`, a conservative estimate.

R7: a draw counts halfway between a win and a loss.  Openskill's own tie (two
teams ranked equal) is not that, so :func:`rate` computes both the win's and the
loss's update and gives each player their mean (``mu`` and ``sigma``): the
draw's change lies strictly between the two.

>>> ann, bob = INITIAL, INITIAL
>>> (ann2,), (bob2,) = rate([ann], [bob], Outcome.WIN)
>>> display(ann), display(ann2), display(bob2)
(1000, 1138, 927)
>>> (ann3,), (bob3,) = rate([ann], [bob], Outcome.DRAW)
>>> display(bob2) < display(ann3) == display(bob3) < display(ann2)
True

Who is rated as what when a side left the game or a CPU played for it is
decided by :func:`result_of`; :func:`rate_verdict` applies that decision.

Pure and deterministic: the same ratings and outcome always give the same
result.  (openskill gives each of its rating objects a ``uuid4`` name, which
reads the system's random source; the name takes no part in the arithmetic,
and the objects never leave this module.)
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from openskill.models import PlackettLuce, PlackettLuceRating

from crokinole.errors import RankingError

__all__ = [
    "DISPLAY_BASE",
    "DISPLAY_SCALE",
    "INITIAL",
    "PROVISIONAL_GAMES",
    "STANDIN_LIMIT",
    "Ladder",
    "Outcome",
    "Rating",
    "SideResult",
    "Verdict",
    "display",
    "is_provisional",
    "rate",
    "rate_verdict",
    "result_of",
]


class Ladder(StrEnum):
    """A ranked ladder; each player has one rating per ladder."""

    SINGLES = "singles"
    DOUBLES = "doubles"
    #: Bots' singles, rated apart from people's (docs/bots.md).
    BOTS = "bots"

    @property
    def team_size(self) -> int:
        """Players per side: 1 for singles (and bots), 2 for doubles."""
        return 2 if self is Ladder.DOUBLES else 1


class Outcome(StrEnum):
    """How a game ended for side A (the other side had the opposite)."""

    WIN = "win"
    DRAW = "draw"
    LOSS = "loss"

    @property
    def opposite(self) -> Outcome:
        """The same game seen from the other side.

        >>> Outcome.WIN.opposite, Outcome.DRAW.opposite
        (<Outcome.LOSS: 'loss'>, <Outcome.DRAW: 'draw'>)
        """
        return {Outcome.WIN: Outcome.LOSS, Outcome.LOSS: Outcome.WIN}.get(self, self)


def _is_real(value: object) -> bool:
    return not isinstance(value, bool) and isinstance(value, numbers.Real)


def _is_whole(value: object) -> bool:
    return not isinstance(value, bool) and isinstance(value, numbers.Integral)


@dataclass(frozen=True, slots=True)
class Rating:
    """A player's skill on one ladder: the belief's mean and spread.

    Attributes:
        mu: the mean of the belief (openskill's scale: a new player has 25).
        sigma: its standard deviation (a new player has 25/3); positive.

    >>> Rating(25.0, 0.0)
    Traceback (most recent call last):
    ...
    crokinole.errors.RankingError: a rating's sigma is a positive number, not 0.0
    """

    mu: float
    sigma: float

    def __post_init__(self) -> None:
        if not _is_real(self.mu) or not math.isfinite(self.mu):
            raise RankingError(f"a rating's mu is a finite number, not {self.mu!r}")
        if not _is_real(self.sigma) or not math.isfinite(self.sigma) or self.sigma <= 0:
            raise RankingError(f"a rating's sigma is a positive number, not {self.sigma!r}")
        object.__setattr__(self, "mu", float(self.mu))
        object.__setattr__(self, "sigma", float(self.sigma))

    @property
    def conservative(self) -> float:
        """``mu - 3 sigma``: the skill the player has with 99.7% confidence at least."""
        return self.mu - 3.0 * self.sigma


#: The model: openskill's defaults (mu 25, sigma 25/3, beta 25/6, tau 25/300),
#: with ``limit_sigma`` so that no game makes anyone's sigma grow.  It is never
#: changed after this line (openskill's ``rate`` can, when given ``limit_sigma``;
#: this module never passes it).
_MODEL = PlackettLuce(limit_sigma=True)

#: A new player's rating on any ladder.
INITIAL = Rating(_MODEL.mu, _MODEL.sigma)

#: The displayed number of a rating whose conservative estimate is 0 (a new player).
DISPLAY_BASE = 1000
#: Display points per unit of ``mu``.  One beta (25/6: between settled players,
#: the gap that gives the stronger about a 2-in-3 chance to win) is about 167.
DISPLAY_SCALE = 40


def display(rating: Rating) -> int:
    """The number players see: a conservative estimate on a friendly scale.

    ``round(1000 + 40 * (mu - 3 sigma))``, never below 0.  A new player shows
    1000; it climbs as results come in and sigma shrinks, so a settled
    average player shows about 1800.  Conservative: a lucky streak of a few
    games does not put a new player above an established one.

    >>> display(INITIAL), display(Rating(25.0, 1.0)), display(Rating(-40.0, 2.0))
    (1000, 1880, 0)
    """
    return max(0, round(DISPLAY_BASE + DISPLAY_SCALE * rating.conservative))


#: A player is provisional on a ladder until this many ranked games there.
PROVISIONAL_GAMES = 10


def is_provisional(games: int) -> bool:
    """Whether a rating from ``games`` ranked games is still provisional (shown with a "?").

    >>> is_provisional(0), is_provisional(9), is_provisional(10)
    (True, True, False)
    """
    if not _is_whole(games) or games < 0:
        raise RankingError(f"a count of games is a whole number from 0, not {games!r}")
    return games < PROVISIONAL_GAMES


def _side(name: str, side: Sequence[Rating]) -> tuple[Rating, ...]:
    if isinstance(side, Rating) or not isinstance(side, Sequence):
        raise RankingError(f"{name} is a list of ratings, not {side!r}")
    players = tuple(side)
    if not 1 <= len(players) <= 2:
        raise RankingError(f"{name} has 1 or 2 players, not {len(players)}")
    for player in players:
        if not isinstance(player, Rating):
            raise RankingError(f"{name} holds ratings, not {player!r}")
    return players


def _winner_first(
    winner: tuple[Rating, ...], loser: tuple[Rating, ...]
) -> tuple[tuple[Rating, ...], tuple[Rating, ...]]:
    """Openskill's update of a game ``winner`` won against ``loser``."""

    def model(side: tuple[Rating, ...]) -> list[PlackettLuceRating]:
        return [_MODEL.rating(mu=r.mu, sigma=r.sigma) for r in side]

    # Teams in rank order, first beat second: no ranks list needed.
    new_winner, new_loser = _MODEL.rate([model(winner), model(loser)])
    return (
        tuple(Rating(p.mu, p.sigma) for p in new_winner),
        tuple(Rating(p.mu, p.sigma) for p in new_loser),
    )


def _mean(one: tuple[Rating, ...], other: tuple[Rating, ...]) -> tuple[Rating, ...]:
    return tuple(
        Rating((x.mu + y.mu) / 2.0, (x.sigma + y.sigma) / 2.0)
        for x, y in zip(one, other, strict=True)
    )


def rate(
    side_a: Sequence[Rating], side_b: Sequence[Rating], outcome: Outcome
) -> tuple[tuple[Rating, ...], tuple[Rating, ...]]:
    """The ratings after a ranked game between ``side_a`` and ``side_b``.

    Args:
        side_a: the ratings of side A's players (1 for singles, 2 for doubles).
        side_b: side B's, as many as side A.
        outcome: how the game ended for side A.

    Returns:
        The new ratings of side A's and of side B's players, in the order given.
        A draw gives each player the mean (``mu`` and ``sigma``) of the update a
        win and the update a loss would have given (R7).

    >>> (ann, bea), (cal, dee) = rate([INITIAL, INITIAL], [INITIAL, INITIAL], Outcome.LOSS)
    >>> ann == bea, cal == dee, ann.mu < 25.0 < cal.mu
    (True, True, True)
    >>> rate([INITIAL], [INITIAL, INITIAL], Outcome.WIN)
    Traceback (most recent call last):
    ...
    crokinole.errors.RankingError: side A has 1 player and side B 2: sides are of equal size
    """
    a = _side("side A", side_a)
    b = _side("side B", side_b)
    if len(a) != len(b):
        players = "player" if len(a) == 1 else "players"
        raise RankingError(
            f"side A has {len(a)} {players} and side B {len(b)}: sides are of equal size"
        )
    try:
        outcome = Outcome(outcome)
    except ValueError:
        raise RankingError(f"an outcome is win, draw or loss, not {outcome!r}") from None
    if outcome is Outcome.WIN:
        return _winner_first(a, b)
    if outcome is Outcome.LOSS:
        new_b, new_a = _winner_first(b, a)
        return new_a, new_b
    a_won, b_lost = _winner_first(a, b)
    b_won, a_lost = _winner_first(b, a)
    return _mean(a_won, a_lost), _mean(b_lost, b_won)


#: A side loses as if beaten when a CPU stood in for more than this share of its shots.
STANDIN_LIMIT = 0.5


@dataclass(frozen=True, slots=True)
class SideResult:
    """What a side did in a ranked game, beyond the score.

    Attributes:
        abandoned: it left the game for good or resigned.
        standin_share: the share (0 to 1) of its shots a CPU stood in for; for
            doubles, that of the seat the CPU played most (a seat the CPU played
            for most of the game makes its side lose).

    >>> SideResult(standin_share=0.75).forfeits, SideResult(standin_share=0.5).forfeits
    (True, False)
    """

    abandoned: bool = False
    standin_share: float = 0.0

    def __post_init__(self) -> None:
        if not isinstance(self.abandoned, bool):
            raise RankingError(f"abandoned is true or false, not {self.abandoned!r}")
        share = self.standin_share
        if not _is_real(share) or not math.isfinite(share) or not 0 <= share <= 1:
            raise RankingError(f"a stand-in share is a number from 0 to 1, not {share!r}")
        object.__setattr__(self, "standin_share", float(share))

    @property
    def forfeits(self) -> bool:
        """Whether the side is rated as beaten whatever the score."""
        return self.abandoned or self.standin_share > STANDIN_LIMIT


@dataclass(frozen=True, slots=True)
class Verdict:
    """What each side of a ranked game is rated as.

    Usually the two are opposite (a win and a loss, or two draws); when both
    sides forfeited, both are rated as losses (see :func:`result_of`).
    """

    side_a: Outcome
    side_b: Outcome

    def __post_init__(self) -> None:
        for name in ("side_a", "side_b"):
            value = getattr(self, name)
            try:
                object.__setattr__(self, name, Outcome(value))
            except ValueError:
                raise RankingError(f"an outcome is win, draw or loss, not {value!r}") from None
        pair = (self.side_a, self.side_b)
        if pair not in ((self.side_a, self.side_a.opposite), (Outcome.LOSS, Outcome.LOSS)):
            raise RankingError(
                f"side A rated as a {self.side_a} and side B as a {self.side_b} "
                "cannot come from one game"
            )


def result_of(score: Outcome | None, side_a: SideResult, side_b: SideResult) -> Verdict:
    """Decide what each side of a ranked game is rated as.

    A side forfeits when it abandoned (left or resigned) or a CPU stood in for
    more than half its shots (:data:`STANDIN_LIMIT`).  A forfeiting side is
    rated as beaten and its opponents as winners, whatever the score.  When
    both forfeited, both are rated as beaten: leaving is a loss for whoever
    leaves, and leaving second must not save a player from it.  Otherwise the
    score decides.

    Args:
        score: how the score ended for side A; None when the game stopped
            before its end (allowed only when a side forfeited).
        side_a: what side A did.
        side_b: what side B did.

    >>> result_of(Outcome.WIN, SideResult(abandoned=True), SideResult())
    Verdict(side_a=<Outcome.LOSS: 'loss'>, side_b=<Outcome.WIN: 'win'>)
    >>> result_of(Outcome.DRAW, SideResult(), SideResult(standin_share=0.6)).side_a
    <Outcome.WIN: 'win'>
    >>> result_of(None, SideResult(), SideResult())
    Traceback (most recent call last):
    ...
    crokinole.errors.RankingError: a game nobody forfeited is rated by its score, and none was given
    """
    for name, side in (("side A", side_a), ("side B", side_b)):
        if not isinstance(side, SideResult):
            raise RankingError(f"{name}'s result is a SideResult, not {side!r}")
    if side_a.forfeits and side_b.forfeits:
        return Verdict(Outcome.LOSS, Outcome.LOSS)
    if side_a.forfeits:
        return Verdict(Outcome.LOSS, Outcome.WIN)
    if side_b.forfeits:
        return Verdict(Outcome.WIN, Outcome.LOSS)
    if score is None:
        raise RankingError("a game nobody forfeited is rated by its score, and none was given")
    try:
        outcome = Outcome(score)
    except ValueError:
        raise RankingError(f"an outcome is win, draw or loss, not {score!r}") from None
    return Verdict(outcome, outcome.opposite)


def rate_verdict(
    side_a: Sequence[Rating], side_b: Sequence[Rating], verdict: Verdict
) -> tuple[tuple[Rating, ...], tuple[Rating, ...]]:
    """The ratings after a ranked game, rated as :func:`result_of` decided.

    The same as :func:`rate` with side A's outcome, except when both sides
    forfeited: then each side gets the update of a loss to the other.

    >>> both_left = result_of(None, SideResult(abandoned=True), SideResult(abandoned=True))
    >>> (ann,), (bob,) = rate_verdict([INITIAL], [INITIAL], both_left)
    >>> ann == bob, ann.mu < INITIAL.mu
    (True, True)
    """
    if not isinstance(verdict, Verdict):
        raise RankingError(f"a verdict is a Verdict, not {verdict!r}")
    if verdict.side_b is verdict.side_a.opposite:
        return rate(side_a, side_b, verdict.side_a)
    a_lost, _ = rate(side_a, side_b, Outcome.LOSS)
    _, b_lost = rate(side_a, side_b, Outcome.WIN)
    return a_lost, b_lost
