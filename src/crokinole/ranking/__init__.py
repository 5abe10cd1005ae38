"""Ranked play, pure: ratings (openskill Plackett-Luce) and the matchmaking queue.

No I/O, clock or randomness: time is the ``now`` argument.  The server keeps
the ratings, the queue and the games; this layer only decides.  Errors are
:class:`~crokinole.errors.RankingError` (also a ``ValueError``).
"""

from crokinole.errors import RankingError
from crokinole.ranking.matchmaking import (
    NEAREST,
    WINDOW_MAX,
    WINDOW_START,
    WINDOW_STEP,
    WINDOW_STEP_S,
    Entry,
    Match,
    pair,
    window,
)
from crokinole.ranking.ratings import (
    DISPLAY_BASE,
    DISPLAY_SCALE,
    INITIAL,
    PROVISIONAL_GAMES,
    STANDIN_LIMIT,
    Ladder,
    Outcome,
    Rating,
    SideResult,
    Verdict,
    display,
    is_provisional,
    rate,
    rate_verdict,
    result_of,
)

__all__ = [
    "DISPLAY_BASE",
    "DISPLAY_SCALE",
    "INITIAL",
    "NEAREST",
    "PROVISIONAL_GAMES",
    "STANDIN_LIMIT",
    "WINDOW_MAX",
    "WINDOW_START",
    "WINDOW_STEP",
    "WINDOW_STEP_S",
    "Entry",
    "Ladder",
    "Match",
    "Outcome",
    "RankingError",
    "Rating",
    "SideResult",
    "Verdict",
    "display",
    "is_provisional",
    "pair",
    "rate",
    "rate_verdict",
    "result_of",
    "window",
]
