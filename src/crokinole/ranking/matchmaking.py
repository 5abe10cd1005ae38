"""The ranked queue, pure: who plays whom, decided from the entries and ``now``.

Each entry is one player, or for doubles a pre-made pair, waiting on one
ladder with its displayed rating (:func:`~crokinole.ranking.ratings.display`).
An entry accepts opponents within its :func:`window`, which widens the longer
it waits.  :func:`pair` is called whenever the queue changes or a second has
passed; it returns the matches to start, and the caller takes their entries
out of the queue.

Rules of :func:`pair`:

- Entries are taken longest-waiting first (then by player id): each in turn is
  the *anchor* and gets the best group of other waiting entries of its ladder,
  if one fits.
- A group fits when every two entries in it are at most both their windows
  apart (the gap fits *both* players' windows).
- The best group has the smallest spread of ratings (highest minus lowest),
  then the longest waits (earliest ``joined_at``, compared in order), then the
  smallest player ids: the result never depends on the entries' order.
- Singles: one other player.  Doubles: two sides of two players, from two
  pairs, a pair against two solo players, or four solo players split into the
  most even sides (highest and lowest against the middle two).  Side A is the
  anchor's.
- No player may be in two entries, so no match holds a player twice.

Only the anchor's :data:`NEAREST` closest fitting entries are searched for a
doubles group, which keeps a call quick however long the queue.

>>> queue = [
...     Entry(("ann",), Ladder.SINGLES, 1500, joined_at=0.0),
...     Entry(("bob",), Ladder.SINGLES, 1580, joined_at=10.0),
...     Entry(("cat",), Ladder.SINGLES, 1540, joined_at=20.0),
... ]
>>> [(m.side_a, m.side_b) for m in pair(queue, now=20.0)]
[(('ann',), ('cat',))]
"""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from crokinole.errors import RankingError
from crokinole.ranking.ratings import Ladder

__all__ = [
    "NEAREST",
    "WINDOW_MAX",
    "WINDOW_START",
    "WINDOW_STEP",
    "WINDOW_STEP_S",
    "Entry",
    "Match",
    "pair",
    "window",
]

#: Display points an entry accepts either side of its rating when it joins.
WINDOW_START = 50
#: The window grows by this many points ...
WINDOW_STEP = 10
#: ... for each whole this many seconds waited ...
WINDOW_STEP_S = 5.0
#: ... up to this (reached after 175 s): beyond it a game would be too one-sided.
WINDOW_MAX = 400
#: The anchor's closest fitting entries searched for a doubles group.
NEAREST = 12


def _is_real(value: object) -> bool:
    return not isinstance(value, bool) and isinstance(value, numbers.Real)


def _is_whole(value: object) -> bool:
    return not isinstance(value, bool) and isinstance(value, numbers.Integral)


def window(waited_s: float) -> int:
    """The rating gap an entry accepts after waiting ``waited_s`` seconds.

    50 at first, 10 more for each whole 5 s waited, at most 400.

    >>> window(0), window(4.9), window(5), window(60), window(175), window(3600)
    (50, 50, 60, 170, 400, 400)
    """
    if not _is_real(waited_s) or not math.isfinite(waited_s) or waited_s < 0:
        raise RankingError(f"a wait is a number of seconds from 0, not {waited_s!r}")
    steps = math.floor(waited_s / WINDOW_STEP_S)
    return min(WINDOW_START + WINDOW_STEP * steps, WINDOW_MAX)


@dataclass(frozen=True, slots=True)
class Entry:
    """One entry of the ranked queue.

    Attributes:
        players: the player ids: one, or for doubles two (a pre-made pair).
        ladder: the ladder it waits on.
        rating: its displayed rating; for a pair, the pair's (e.g. the mean of
            its players' displayed doubles ratings, as the caller chooses).
        joined_at: when it joined the queue, in the caller's seconds.

    >>> Entry(("ann", "bob"), Ladder.SINGLES, 1000, 0.0)
    Traceback (most recent call last):
    ...
    crokinole.errors.RankingError: a singles entry is one player, not 2 ('ann', 'bob')
    """

    players: tuple[str, ...]
    ladder: Ladder
    rating: int
    joined_at: float

    def __post_init__(self) -> None:
        players: object = self.players
        if isinstance(players, str) or not isinstance(players, Sequence):
            raise RankingError(f"an entry's players are a list of ids, not {players!r}")
        players = tuple(players)
        for player in players:
            if not isinstance(player, str) or not player:
                raise RankingError(f"a player id is a non-empty string, not {player!r}")
        try:
            ladder = Ladder(self.ladder)
        except ValueError:
            raise RankingError(f"a ladder is singles or doubles, not {self.ladder!r}") from None
        if ladder.team_size == 1 and len(players) != 1:
            raise RankingError(f"a singles entry is one player, not {len(players)} {players!r}")
        if ladder is Ladder.DOUBLES and len(players) not in (1, 2):
            raise RankingError(
                f"a doubles entry is one player or a pair, not {len(players)} {players!r}"
            )
        if len(set(players)) != len(players):
            raise RankingError(f"a pair is two different players, not {players!r}")
        rating = self.rating
        if not _is_whole(rating) or rating < 0:
            raise RankingError(f"a displayed rating is a whole number from 0, not {rating!r}")
        joined = self.joined_at
        if not _is_real(joined) or not math.isfinite(joined):
            raise RankingError(f"joined_at is a time in seconds, not {joined!r}")
        put = object.__setattr__
        put(self, "players", players)
        put(self, "ladder", ladder)
        put(self, "rating", int(rating))
        put(self, "joined_at", float(joined))

    def window(self, now: float) -> int:
        """The gap this entry accepts at ``now`` (see :func:`window`)."""
        return window(now - self.joined_at)


@dataclass(frozen=True, slots=True)
class Match:
    """A ranked game to start.

    Attributes:
        ladder: its ladder.
        side_a: side A's player ids (the longest-waiting entry's side).
        side_b: side B's player ids.
        entries: the queue entries it takes, the anchor first.
    """

    ladder: Ladder
    side_a: tuple[str, ...]
    side_b: tuple[str, ...]
    entries: tuple[Entry, ...]

    @property
    def spread(self) -> int:
        """Highest rating minus lowest among its entries."""
        ratings = [e.rating for e in self.entries]
        return max(ratings) - min(ratings)


def _order(entry: Entry) -> tuple[float, tuple[str, ...]]:
    return (entry.joined_at, entry.players)


def _fits(group: Sequence[Entry], now: float) -> bool:
    return all(
        abs(x.rating - y.rating) <= min(x.window(now), y.window(now))
        for x, y in itertools.combinations(group, 2)
    )


def _rank(group: Sequence[Entry]) -> tuple[int, tuple[float, ...], tuple[tuple[str, ...], ...]]:
    """Smaller is better: spread, then waits, then ids (the anchor included)."""
    ratings = [e.rating for e in group]
    ordered = sorted(group, key=_order)
    return (
        max(ratings) - min(ratings),
        tuple(e.joined_at for e in ordered),
        tuple(e.players for e in ordered),
    )


def _groups(anchor: Entry, others: list[Entry]) -> Iterable[tuple[Entry, ...]]:
    """Every set of other entries that with ``anchor`` makes four doubles players."""
    need = 4 - len(anchor.players)
    for size in range(1, need + 1):
        for chosen in itertools.combinations(others, size):
            if sum(len(e.players) for e in chosen) == need:
                yield chosen


def _sides(anchor: Entry, group: tuple[Entry, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The two sides of a doubles match: side A holds the anchor."""
    everyone = (anchor, *group)
    pairs = [e for e in everyone if len(e.players) == 2]
    solos = [e for e in everyone if len(e.players) == 1]
    if len(pairs) == 2:
        return pairs[0].players, pairs[1].players
    if len(pairs) == 1:
        solo_side = solos[0].players + solos[1].players
        return (
            (pairs[0].players, solo_side) if anchor is pairs[0] else (solo_side, pairs[0].players)
        )
    # Four solos: the highest and lowest against the middle two (the most even sides).
    ranked = sorted(solos, key=lambda e: (e.rating, *_order(e)))
    outer = (ranked[0], ranked[3])
    inner = (ranked[1], ranked[2])
    mine, theirs = (outer, inner) if any(e is anchor for e in outer) else (inner, outer)
    (partner,) = (e for e in mine if e is not anchor)
    first, second = sorted(theirs, key=_order)
    return anchor.players + partner.players, first.players + second.players


def _check(entries: Sequence[Entry], now: float) -> list[Entry]:
    if not _is_real(now) or not math.isfinite(now):
        raise RankingError(f"now is a time in seconds, not {now!r}")
    if isinstance(entries, Entry) or not isinstance(entries, Sequence):
        raise RankingError(f"the queue is a list of entries, not {entries!r}")
    seen: dict[str, Entry] = {}
    for entry in entries:
        if not isinstance(entry, Entry):
            raise RankingError(f"the queue holds entries, not {entry!r}")
        if entry.joined_at > now:
            raise RankingError(
                f"{' and '.join(entry.players)} joined at {entry.joined_at}, after now ({now})"
            )
        for player in entry.players:
            if player in seen:
                raise RankingError(f"{player} is in the queue twice")
            seen[player] = entry
    return sorted(entries, key=_order)


def pair(entries: Sequence[Entry], now: float) -> list[Match]:
    """The matches to start now from the waiting ``entries`` (see the module's rules).

    Args:
        entries: the queue, in any order; no player in two entries.
        now: the current time, in the same seconds as ``joined_at``.

    Returns:
        The matches, in the order their anchors joined; each entry in one at most.

    >>> doubles = [
    ...     Entry(("ann", "bob"), Ladder.DOUBLES, 1200, joined_at=0.0),
    ...     Entry(("cat",), Ladder.DOUBLES, 1190, joined_at=1.0),
    ...     Entry(("dan",), Ladder.DOUBLES, 1230, joined_at=2.0),
    ... ]
    >>> [(m.side_a, m.side_b) for m in pair(doubles, now=2.0)]
    [(('ann', 'bob'), ('cat', 'dan'))]
    """
    waiting = _check(entries, now)
    taken: set[tuple[str, ...]] = set()
    matches: list[Match] = []
    for anchor in waiting:
        if anchor.players in taken:
            continue
        reach = anchor.window(now)
        fitting = [
            e
            for e in waiting
            if e.players not in taken
            and e is not anchor
            and e.ladder is anchor.ladder
            and abs(e.rating - anchor.rating) <= min(reach, e.window(now))
        ]
        if anchor.ladder.team_size == 1:
            candidates: Iterable[tuple[Entry, ...]] = ((e,) for e in fitting)
        else:
            fitting.sort(key=lambda e: (abs(e.rating - anchor.rating), *_order(e)))
            candidates = _groups(anchor, fitting[:NEAREST])
        best: tuple[Entry, ...] | None = None
        for group in candidates:
            if _fits((anchor, *group), now) and (
                best is None or _rank((anchor, *group)) < _rank((anchor, *best))
            ):
                best = group
        if best is None:
            continue
        if anchor.ladder.team_size == 1:
            side_a, side_b = anchor.players, best[0].players
        else:
            side_a, side_b = _sides(anchor, best)
        taken.update(e.players for e in (anchor, *best))
        matches.append(Match(anchor.ladder, side_a, side_b, (anchor, *sorted(best, key=_order))))
    return matches
