"""Swiss pairing: score groups, no rematch while avoidable, ≤ 1 bye each, first-shot balance.

A round of a Swiss is one maximum-weight matching (networkx's blossom
algorithm, ``max_weight_matching(maxcardinality=True)``) on a graph of the
entrants, rather than hand-rolled backtracking.  Entrants are ranked by
score, then rating, then id (the first is the top); with an odd count a
*bye* node joins the graph.  Each edge costs, from the most important to
the least (each level outweighs every level below it summed over the whole
round, so the matching is lexicographically best):

1. a second bye (a bye counts as a win: the entrant's byes so far);
2. a rematch (the two have met);
3. the bye's place: it goes to the lowest-ranked entrant still without one;
4. a first-shot imbalance of 3: an entrant who would have shot first
   three games more than second (or the other way);
5. the score difference, squared (so two floats of one point beat one
   of two);
6. first-shot imbalance: after the game, how far each ``firsts`` is past
   ±1 (squared), and whether someone shoots first twice in a row;
7. the classic Swiss shape within a score group: its top half against its
   bottom half (1 v 5, 2 v 6 … in a group of 8); between groups, the
   lowest of the higher group against the top of the lower one.

So a second bye is given only when everyone has had one, and a rematch
only when no round without one exists (a second bye is counted worse than
a rematch: both are "while avoidable", and a bye is a free win).

The full graph of 512 entrants has 130,816 edges, too slow for the
pure-Python blossom; each entrant is joined only to its nearest
``window`` in the ranking, to those around its top-half/bottom-half
counterpart in its group, and the bye node to the ``2 * window`` likeliest
to take it.  When the matching on that graph is not perfect, has a rematch,
or gives a needless second bye, the window doubles (up to the full graph)
and the round is paired again: those guarantees hold exactly.  While a pair
across more than two score groups is as far apart as the window reaches,
it doubles too,
up to ``FAR_FLOATS`` times its first width.  The finer levels are optimal
within the graph used.

The one who shoots first is the one with fewer ``firsts`` (games first
minus games second); level, the one who did not shoot first last; level
again, the higher-ranked.

>>> round_1 = pair_swiss([SwissEntrant(i, 0.0, r) for i, r in
...                       [("ann", 1600), ("bob", 1500), ("cy", 1400), ("dee", 1300)]], 1)
>>> [(p.table, p.sides, p.first) for p in round_1]
[(1, (('ann',), ('cy',)), 0), (2, (('bob',), ('dee',)), 0)]
>>> round_1[0].stage
'Round 1'
>>> odd = pair_swiss([SwissEntrant("a", 2.0, 0.0, frozenset({"b"}), firsts=1),
...                   SwissEntrant("b", 0.0, 0.0, frozenset({"a"}), firsts=-1),
...                   SwissEntrant("c", 2.0, 0.0, byes=1)], 2)
>>> [(p.sides, p.first) for p in odd]
[((('a',), ('c',)), 1), ((('b',), ()), 0)]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from crokinole.errors import ErrorCode, EventError
from crokinole.events.matching import cheapest_matching, check_round
from crokinole.events.model import Pairing

__all__ = ["SwissEntrant", "pair_swiss"]

#: Each entrant's first candidates on either side in the ranking (doubled as needed).
WINDOW = 8
#: How much wider the window grows while a pair spans more than two score groups.
FAR_FLOATS = 4


@dataclass(frozen=True, slots=True)
class SwissEntrant:
    """What Swiss pairing needs to know of an entrant so far.

    Attributes:
        id: the entrant's id.
        score: match points so far.
        rating: the seeding rating (breaks ties of score).
        opponents: every entrant met.
        byes: byes had.
        firsts: games shot first minus games shot second.
        last_first: whether they shot first in their last game (None: no game yet).
    """

    id: str
    score: float
    rating: float
    opponents: frozenset[str] = frozenset()
    byes: int = 0
    firsts: int = 0
    last_first: bool | None = None


def _fail(message: str) -> EventError:
    return EventError(ErrorCode.BAD_EVENT, message)


def _check(entrants: Sequence[SwissEntrant], round: int) -> None:
    check_round(entrants, round, SwissEntrant, "a Swiss entrant", "entrant")
    if not entrants:
        raise _fail("a Swiss round needs at least one entrant to pair")


def shoots_first(a: SwissEntrant, b: SwissEntrant) -> int:
    """The side (0: ``a``, 1: ``b``) that shoots first when ``a`` (the higher-ranked) meets ``b``.

    >>> shoots_first(SwissEntrant("a", 0, 0, firsts=1), SwissEntrant("b", 0, 0, firsts=-1))
    1
    >>> shoots_first(SwissEntrant("a", 0, 0, last_first=True), SwissEntrant("b", 0, 0))
    1
    """
    if a.firsts != b.firsts:
        return 0 if a.firsts < b.firsts else 1
    if bool(a.last_first) != bool(b.last_first):
        return 1 if a.last_first else 0
    return 0


def _past_one(firsts: int) -> int:
    return max(0, abs(firsts) - 1) ** 2


def _past_two(a: SwissEntrant, b: SwissEntrant) -> int:
    """How many of the two would shoot first (or second) three games more than the other way."""
    side = shoots_first(a, b)
    shooter, other = (a, b) if side == 0 else (b, a)
    return int(abs(shooter.firsts + 1) >= 3) + int(abs(other.firsts - 1) >= 3)


def _first_cost(a: SwissEntrant, b: SwissEntrant) -> int:
    side = shoots_first(a, b)
    shooter, other = (a, b) if side == 0 else (b, a)
    twice = 1 if shooter.last_first else 0
    return 2 * (_past_one(shooter.firsts + 1) + _past_one(other.firsts - 1)) + twice


class _Round:
    """The ranked entrants of a round and their edges' costs."""

    def __init__(self, ranked: Sequence[SwissEntrant]) -> None:
        self.ranked = ranked
        self.n = len(ranked)
        self.group: list[int] = []
        self.start: list[int] = []
        self.size: list[int] = []
        starts: list[int] = []
        for index, entrant in enumerate(ranked):
            if index == 0 or entrant.score != ranked[index - 1].score:
                starts.append(index)
            self.group.append(len(starts) - 1)
        ends = [*starts[1:], self.n]
        for index in range(self.n):
            g = self.group[index]
            self.start.append(starts[g])
            self.size.append(ends[g] - starts[g])
        self.fewest_byes = min(e.byes for e in ranked)
        # Who would take the bye, likeliest first.
        self.bye_order = sorted(range(self.n), key=lambda i: (ranked[i].byes, -i))

    def met(self, i: int, j: int) -> bool:
        a, b = self.ranked[i], self.ranked[j]
        return b.id in a.opponents or a.id in b.opponents

    def pair_cost(self, i: int, j: int) -> tuple[int, ...]:
        """The levels' costs of ``i`` (ranked higher) meeting ``j``."""
        a, b = self.ranked[i], self.ranked[j]
        score = round((2 * (a.score - b.score)) ** 2)
        if self.group[i] == self.group[j]:
            shape = (2 * (j - i) - self.size[i]) ** 2
        else:
            shape = (self.start[i] + self.size[i] - 1 - i + j - self.start[j]) ** 2
        return (0, int(self.met(i, j)), 0, _past_two(a, b), score, _first_cost(a, b), shape)

    def bye_cost(self, i: int) -> tuple[int, ...]:
        return (self.ranked[i].byes, 0, self.n - 1 - i, 0, 0, 0, 0)

    def edges(self, window: int) -> set[tuple[int, int]]:
        """Candidate pairs ``(i, j)``, ``i < j``; ``j == n`` is the bye."""
        n = self.n
        if window >= n:
            found = {(i, j) for i in range(n) for j in range(i + 1, n)}
            if n % 2:
                found |= {(i, n) for i in range(n)}
            return found
        found = set()
        for i in range(n):
            for j in range(i + 1, min(n, i + window + 1)):
                found.add((i, j))
            half = self.size[i] // 2
            end = self.start[i] + self.size[i]
            target = i + half
            if half > window and target < end:
                for j in range(max(i + 1, target - window), min(end, target + window + 1)):
                    found.add((i, j))
        if n % 2:
            found |= {(i, n) for i in self.bye_order[: 2 * window]}
        return found

    def match(self, window: int) -> tuple[list[tuple[int, int]], int | None, bool]:
        """The best pairs on the window's graph, the bye, and whether the result is sure."""
        n = self.n
        costs = {
            (i, j): self.bye_cost(i) if j == n else self.pair_cost(i, j)
            for i, j in self.edges(window)
        }
        matching = cheapest_matching(n + n % 2, costs)
        pairs: list[tuple[int, int]] = []
        bye: int | None = None
        for i, j in matching:
            if j == n:
                bye = i
            else:
                pairs.append((i, j))
        perfect = 2 * len(matching) == n + n % 2
        sure = (
            perfect
            and not any(self.met(i, j) for i, j in pairs)
            and (bye is None or self.ranked[bye].byes == self.fewest_byes)
        )
        # A float as far as the window reaches may be the window's doing: look a little
        # wider (not up to the full graph: a late round of a big field floats far anyway).
        near = window >= FAR_FLOATS * WINDOW or all(
            j - i < window or self.group[j] - self.group[i] <= 1 for i, j in pairs
        )
        return pairs, bye, (sure and near) or window >= n


def pair_swiss(entrants: Sequence[SwissEntrant], round: int) -> tuple[Pairing, ...]:
    """The pairings of Swiss round ``round``: score groups, no rematch while avoidable.

    Every entrant is paired once, or (odd count) one gets the bye: the
    lowest-ranked with no bye yet, unless that forces a rematch.  Tables are
    numbered from 1, the top score first; the bye comes last, as
    ``(("id",), ())``.  In a pairing the higher-ranked is side 0.

    Raises:
        EventError: ``bad_event`` for no entrants, repeated ids, a round below 1.
    """
    _check(entrants, round)
    ranked = sorted(entrants, key=lambda e: (-e.score, -e.rating, e.id))
    plan = _Round(ranked)
    window = WINDOW
    while True:
        pairs, bye, sure = plan.match(window)
        if sure:
            break
        window *= 2
    stage = f"Round {round}"
    pairings = [
        Pairing(
            round=round,
            table=table,
            sides=((ranked[i].id,), (ranked[j].id,)),
            first=shoots_first(ranked[i], ranked[j]),
            stage=stage,
        )
        for table, (i, j) in enumerate(sorted(pairs), 1)
    ]
    if bye is not None:
        pairings.append(
            Pairing(
                round=round, table=len(pairings) + 1, sides=((ranked[bye].id,), ()), stage=stage
            )
        )
    return tuple(pairings)
