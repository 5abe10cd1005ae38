"""Fair play: no engine help during a ranked game or for the day's challenge, and the
ranked queue's bar for repeated no-shows.

* While a device or an account has a ranked game in play (the account sits
  at it, or a connection played it from the device), the practice room's
  hints and heat maps and the reviews are refused to it, for any position:
  :func:`engine_help_refused`.
* During its day, the daily challenge's position (or one that holds it,
  turned or mirrored) gets no hints or heat maps: :func:`daily_refused`.
* An account that did not show for the first shot of :data:`NO_SHOW_LIMIT`
  ranked games within :data:`NO_SHOW_WINDOW` is kept out of the queue for
  :data:`NO_SHOW_BAR` after the last one: :func:`queue_barred_until`.
"""

from __future__ import annotations

import datetime
from datetime import timedelta

from crokinole.analysis.drills import daily_challenge, holds_position
from crokinole.analysis.practice import PracticePosition
from crokinole.store import Store

__all__ = [
    "DAILY_REFUSED",
    "IN_RANKED_GAME",
    "NO_SHOW_BAR",
    "NO_SHOW_LIMIT",
    "NO_SHOW_WINDOW",
    "daily_refused",
    "engine_help_refused",
    "queue_barred_until",
]

#: What engine help during a ranked game is answered.
IN_RANKED_GAME = (
    "you have a ranked game in play: hints, heat maps and reviews come back when it ends"
)
#: What hints for the daily challenge's position during its day are answered.
DAILY_REFUSED = (
    "this is today's daily challenge: no hints or heat maps for its position until the day ends"
)
#: No-shows that bar an account from the queue, within this time.
NO_SHOW_LIMIT = 2
NO_SHOW_WINDOW = timedelta(hours=24)
#: How long the bar lasts after the last no-show.
NO_SHOW_BAR = timedelta(minutes=30)


def engine_help_refused(store: Store, device: str | None, account_id: int | None) -> str | None:
    """Why engine help is refused to the device or account (plain words), or None (blocking)."""
    if device is None and account_id is None:
        return None
    if store.ranked_game_in_play(device, account_id) is not None:
        return IN_RANKED_GAME
    return None


def daily_refused(position: PracticePosition, today: datetime.date) -> str | None:
    """Why hints for ``position`` are refused today (it holds the day's challenge), or None."""
    if holds_position(position, daily_challenge(today).position):
        return DAILY_REFUSED
    return None


def queue_barred_until(
    store: Store, account_id: int, now: datetime.datetime
) -> datetime.datetime | None:
    """Until when the account's repeated no-shows keep it out of the queue, or None (blocking)."""
    times = store.no_shows_since(account_id, now - NO_SHOW_WINDOW)
    if len(times) < NO_SHOW_LIMIT:
        return None
    until = times[-1] + NO_SHOW_BAR
    return until if until > now else None
