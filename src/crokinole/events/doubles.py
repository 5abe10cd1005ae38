"""Rotating-partner doubles (St. Jacobs style): new partners and opponents each round.

Each player is ranked alone (score, then rating, then id).  A round is
drawn in three steps, each one pure and deterministic:

1. **Byes**: the players beyond a multiple of 4 sit out, those with the
   fewest byes first, then the lowest-ranked (so nobody has a second bye
   while someone has none).
2. **Partners**: a maximum-weight matching of the players
   (:func:`~crokinole.events.matching.cheapest_matching`) whose costs are,
   most important first: a repeat partner (forbidden while avoidable),
   (on a redraw, below) the pairs weighed against, two who have never
   faced each other (a pair that has met as opponents is used up by
   partnering, leaving fresh pairs for later rounds), the opponents the two
   have had between them (a pair with few distinct past opponents is easier
   to seat against new ones in step 3), the score difference squared, then
   the distance in the ranking.  Partners
   are **of similar scores**, as a Swiss pairs them: the four at a table
   are near each other in the standings.
3. **Opponents**: a second matching, of the teams, whose costs are: the
   repeat meetings past each player's one allowed (or a third meeting),
   then the repeat meetings, then opponents who have never partnered
   (meeting a past partner uses up a pair that cannot partner again), then
   the teams' score difference squared, then their distance in the ranking.

The same round is also drawn the other way round, opponents first: a
matching gives each player one new opponent, a second joins two such pairs
at a table (the cheaper of its two splits).  Each draw is then improved by
swapping two seated players while that lowers the round's repeats; while
they remain, the draws are made again with the pairs of the tables that
had repeats weighed against (at most ``TRIES`` times, ``PATIENCE`` without
progress), and the best round is kicked (two swaps) and improved again
(``KICKS`` times).  The best round is kept: fewest repeat partners, then
repeats past one a player, then repeat meetings.  A clean round (no repeat
at all) of up to ``ROOMY`` players is then changed by swaps that keep it
clean while they leave more 4-cycles in the graph of pairs yet to meet as
opponents: each is a table of a later round without a repeat.  Without that
look ahead, a round drawn best on its own left no clean round 6 or 7 in a
few events of 16 (an exhaustive search showed none existed), and a player
met two opponents again.

Tables are numbered from 1, the best-ranked player's first; the team with
the better-ranked player is side 0 and shoots first.  Byes come last, one
pairing ``(("id",), ())`` each.

>>> ps = [DoublesPlayer(f"p{i}", 0.0, 1600.0 - i) for i in range(1, 10)]
>>> [(p.table, p.sides) for p in pair_rotating(ps, 1)]
[(1, (('p1', 'p2'), ('p3', 'p4'))), (2, (('p5', 'p6'), ('p7', 'p8'))), (3, (('p9',), ()))]
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from crokinole.errors import ErrorCode, EventError
from crokinole.events.matching import cheapest_matching, check_round
from crokinole.events.model import Pairing

__all__ = ["DoublesPlayer", "pair_rotating"]

#: Candidates on either side in the ranking for fields larger than this (doubled as needed).
WINDOW = 24
#: Draws of the partners at most, each without the teams that met old opponents in the last.
TRIES = 24
#: Draws without a better round before the best so far is taken.
PATIENCE = 6
#: Kicks of the best round (two swaps, then climbing again) while it has repeats.
KICKS = 48
#: The most players for whom a clean round is also made roomier for the rounds after it.
ROOMY = 32


@dataclass(frozen=True, slots=True)
class DoublesPlayer:
    """What rotating-doubles pairing needs to know of a player so far.

    Attributes:
        id: the player's id.
        score: match points so far (each player scored alone).
        rating: the seeding rating (breaks ties of score).
        partners: times partnered with each player.
        opponents: times played against each player.
        byes: byes had.
    """

    id: str
    score: float
    rating: float
    partners: Mapping[str, int] = field(default_factory=dict)
    opponents: Mapping[str, int] = field(default_factory=dict)
    byes: int = 0


def _fail(message: str) -> EventError:
    return EventError(ErrorCode.BAD_EVENT, message)


def _check(players: Sequence[DoublesPlayer], round: int) -> None:
    check_round(players, round, DoublesPlayer, "a doubles player", "player")
    if len(players) < 4:
        raise _fail(f"rotating doubles needs at least 4 players, not {len(players)}")


def _met(a: DoublesPlayer, b: DoublesPlayer) -> int:
    return max(a.opponents.get(b.id, 0), b.opponents.get(a.id, 0))


def _repeats(player: DoublesPlayer) -> int:
    """Meetings beyond the first with the same opponent."""
    return sum(max(0, times - 1) for times in player.opponents.values())


def _match(
    count: int,
    costs_of: Callable[[int, int], tuple[int, ...]],
    bad: Callable[[int, int], bool],
) -> list[tuple[int, int]]:
    """The cheapest perfect matching of ``count`` nodes, on a widening window of the ranking."""
    window = WINDOW
    while True:
        full = window >= count
        edges = {
            (i, j): costs_of(i, j)
            for i in range(count)
            for j in range(i + 1, count if full else min(count, i + window + 1))
        }
        pairs = cheapest_matching(count, edges)
        if full or (2 * len(pairs) == count and not any(bad(i, j) for i, j in pairs)):
            return pairs
        window *= 2


def _meetings(
    ours: Sequence[DoublesPlayer], theirs: Sequence[DoublesPlayer]
) -> tuple[int, int, int]:
    """What seating two teams against each other costs: the repeat meetings past each
    player's one allowed, the repeat meetings, and the opponents never partnered."""
    new: dict[str, int] = {}
    repeats = fresh = 0
    for a in ours:
        for b in theirs:
            times = _met(a, b)
            fresh += int(not _partnered(a, b))
            if times:
                repeats += times
                new[a.id] = new.get(a.id, 0) + times
                new[b.id] = new.get(b.id, 0) + times
    severe = 0
    for player in (*ours, *theirs):
        if player.id in new:
            before = _repeats(player)
            severe += max(0, before + new[player.id] - 1) - max(0, before - 1)
    return severe, repeats, fresh


def _team_cost(
    playing: Sequence[DoublesPlayer], teams: Sequence[tuple[int, int]]
) -> Callable[[int, int], tuple[int, ...]]:
    def cost(t: int, u: int) -> tuple[int, ...]:
        ours = [playing[k] for k in teams[t]]
        theirs = [playing[k] for k in teams[u]]
        severe, repeats, fresh = _meetings(ours, theirs)
        score = round_sq(sum(p.score for p in ours) - sum(p.score for p in theirs))
        return (severe, repeats, fresh, score, u - t)

    return cost


def _team_bad(
    playing: Sequence[DoublesPlayer], teams: Sequence[tuple[int, int]]
) -> Callable[[int, int], bool]:
    def bad(t: int, u: int) -> bool:
        return any(_met(playing[a], playing[b]) for a in teams[t] for b in teams[u])

    return bad


def _partnered(a: DoublesPlayer, b: DoublesPlayer) -> int:
    return max(a.partners.get(b.id, 0), b.partners.get(a.id, 0))


def _table_cost(playing: Sequence[DoublesPlayer], seats: Sequence[int]) -> tuple[int, ...]:
    a, b, c, d = (playing[k] for k in seats)
    again = sum(max(x.partners.get(y.id, 0), y.partners.get(x.id, 0)) for x, y in ((a, b), (c, d)))
    severe, repeats, fresh = _meetings((a, b), (c, d))
    fresh += int(not _met(a, b)) + int(not _met(c, d))
    return (again, severe, repeats, fresh)


def _joined(
    playing: Sequence[DoublesPlayer], one: tuple[int, int], two: tuple[int, int]
) -> list[int]:
    """Opponents ``a v c`` and ``b v d`` at one table, the cheaper way: ``a, b v c, d`` or
    ``a, d v c, b``."""
    (a, c), (b, d) = one, two
    return min([a, b, c, d], [a, d, c, b], key=lambda q: _table_cost(playing, q))


def _join_cost(
    playing: Sequence[DoublesPlayer], facings: Sequence[tuple[int, int]]
) -> Callable[[int, int], tuple[int, ...]]:
    def cost(t: int, u: int) -> tuple[int, ...]:
        seats = _joined(playing, facings[t], facings[u])
        return (*_table_cost(playing, seats), u - t)

    return cost


def _improve(playing: Sequence[DoublesPlayer], tables: list[list[int]]) -> list[tuple[int, ...]]:
    """Swap two seated players while that lowers the round's repeats (hill climbing, in order).

    The two matchings choose partners, then opponents, each best given the
    other; a swap between tables can still undo a repeat neither saw alone.
    """
    costs = [_table_cost(playing, t) for t in tables]
    improved = True
    while improved:
        improved = False
        for t in range(len(tables)):
            for u in range(t, len(tables)):
                for x in range(4):
                    for y in range(4):
                        if t == u and y <= x:
                            continue
                        first, second = tables[t], tables[u]
                        first[x], second[y] = second[y], first[x]
                        new_t = _table_cost(playing, first)
                        new_u = _table_cost(playing, second) if u != t else new_t
                        before = _add(costs[t], costs[u]) if u != t else costs[t]
                        after = _add(new_t, new_u) if u != t else new_t
                        if after < before:
                            costs[t], costs[u] = new_t, new_u
                            improved = True
                        else:
                            first[x], second[y] = second[y], first[x]
    # Partners in ranking order, the better team first, tables by their best player.
    ordered = []
    for a, b, c, d in tables:
        one, two = sorted((a, b)), sorted((c, d))
        ordered.append((*one, *two) if one < two else (*two, *one))
    return sorted(ordered)


def _add(x: tuple[int, ...], y: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(p + q for p, q in zip(x, y, strict=True))


def _kicked(
    playing: Sequence[DoublesPlayer], worst: tuple[int, ...], seats: list[tuple[int, ...]]
) -> list[tuple[int, ...]]:
    """Iterated local search: the best round kicked by two swaps, then climbing again."""
    count = len(seats)
    for kick in range(KICKS if count > 1 else 0):
        tables: list[list[int]] = [list(q) for q in seats]
        for step in (kick, kick * 7 + 3):
            t = step % count
            u = (t + 1 + (step // count) % (count - 1)) % count
            x, y = (step // 2) % 4, (step // 3 + kick) % 4
            tables[t][x], tables[u][y] = tables[u][y], tables[t][x]
        tried = _improve(playing, tables)
        costs = [_table_cost(playing, q) for q in tried]
        total = tuple(sum(c[k] for c in costs) for k in range(3))
        if total < worst:
            worst, seats = total, tried
            if worst == (0, 0, 0):
                break
    return seats


def _squares(playing: Sequence[DoublesPlayer], tables: Sequence[Sequence[int]]) -> int:
    """The 4-cycles of the graph of pairs yet to meet as opponents after these tables: each
    is a table of a later round without a repeat opponent (the more, the roomier)."""
    count = len(playing)
    faced = [[bool(_met(playing[i], playing[j])) for j in range(count)] for i in range(count)]
    for a, b, c, d in tables:
        for x in (a, b):
            for y in (c, d):
                faced[x][y] = faced[y][x] = True
    fresh = [sum(1 << j for j in range(count) if j != i and not faced[i][j]) for i in range(count)]
    total = 0
    for i in range(count):
        for j in range(i + 1, count):
            common = (fresh[i] & fresh[j]).bit_count()
            total += common * (common - 1) // 2
    return total // 2


def _roomier(
    playing: Sequence[DoublesPlayer], seats: list[tuple[int, ...]]
) -> list[tuple[int, ...]]:
    """Swaps that keep the round clean and leave later rounds more tables (hill climbing)."""
    tables: list[list[int]] = [list(q) for q in seats]
    room = _squares(playing, tables)
    improved = True
    while improved:
        improved = False
        for t in range(len(tables)):
            for u in range(t, len(tables)):
                for x in range(4):
                    for y in range(x + 1 if t == u else 0, 4):
                        one, two = tables[t], tables[u]
                        one[x], two[y] = two[y], one[x]
                        clean = _table_cost(playing, one)[:3] == (0, 0, 0) and _table_cost(
                            playing, two
                        )[:3] == (0, 0, 0)
                        more = _squares(playing, tables) if clean else -1
                        if more > room:
                            room, improved = more, True
                        else:
                            one[x], two[y] = two[y], one[x]
    return _improve(playing, tables)


def pair_rotating(players: Sequence[DoublesPlayer], round: int) -> tuple[Pairing, ...]:
    """The pairings of rotating-doubles round ``round``: sides ``((a, b), (c, d))``.

    Raises:
        EventError: ``bad_event`` for fewer than 4 players, repeated ids, a round below 1.
    """
    _check(players, round)
    ranked = sorted(players, key=lambda p: (-p.score, -p.rating, p.id))
    sitting = set(sorted(range(len(ranked)), key=lambda i: (ranked[i].byes, -i))[: len(ranked) % 4])
    playing = [p for i, p in enumerate(ranked) if i not in sitting]

    tabu: dict[tuple[int, int], int] = {}

    def partner_cost(i: int, j: int) -> tuple[int, ...]:
        a, b = playing[i], playing[j]
        again = max(a.partners.get(b.id, 0), b.partners.get(a.id, 0))
        faced = len(set(a.opponents) | set(b.opponents))
        fresh = int(not _met(a, b))
        return (again, tabu.get((i, j), 0), fresh, faced, round_sq(a.score - b.score), j - i)

    def partner_bad(i: int, j: int) -> bool:
        return partner_cost(i, j)[0] > 0

    facing: dict[tuple[int, int], int] = {}

    def opponent_cost(i: int, j: int) -> tuple[int, ...]:
        a, b = playing[i], playing[j]
        again = _met(a, b)
        fresh = int(not _partnered(a, b))
        return (again, facing.get((i, j), 0), fresh, round_sq(a.score - b.score), j - i)

    def opponent_bad(i: int, j: int) -> bool:
        return _met(playing[i], playing[j]) > 0

    best: tuple[tuple[int, ...], list[tuple[int, ...]]] | None = None
    stale = 0
    for _ in range(TRIES):
        # Partners first, then the teams against each other.
        teams = _match(len(playing), partner_cost, partner_bad)
        tables = _match(len(teams), _team_cost(playing, teams), _team_bad(playing, teams))
        by_partners = _improve(playing, [[*teams[t], *teams[u]] for t, u in tables])
        # Or one new opponent each first, then two such pairs to a table.
        facings = _match(len(playing), opponent_cost, opponent_bad)
        joined = _match(len(facings), _join_cost(playing, facings), lambda t, u: False)
        by_opponents = _improve(
            playing, [_joined(playing, facings[t], facings[u]) for t, u in joined]
        )
        for seated, penalties in ((by_partners, tabu), (by_opponents, facing)):
            costs = [_table_cost(playing, q) for q in seated]
            worst = tuple(sum(c[k] for c in costs) for k in range(3))
            if best is None or worst < best[0]:
                best = (worst, seated)
                stale = 0
            # Next time, draw again without the pairs at the tables that had repeats.
            for q, cost in zip(seated, costs, strict=True):
                if cost[:3] != (0, 0, 0):
                    for pair in (
                        (q[:2], q[2:]) if penalties is tabu else ((q[0], q[2]), (q[1], q[3]))
                    ):
                        key = (min(pair), max(pair))
                        penalties[key] = penalties.get(key, 0) + 1
        stale += 1
        if best is not None and (best[0] == (0, 0, 0) or stale > PATIENCE):
            break
    assert best is not None
    worst, seats = best
    if worst != (0, 0, 0):
        seats = _kicked(playing, worst, seats)
    elif len(playing) <= ROOMY:
        seats = _roomier(playing, seats)
    stage = f"Round {round}"
    pairings = [
        Pairing(
            round=round,
            table=number,
            sides=((playing[a].id, playing[b].id), (playing[c].id, playing[d].id)),
            stage=stage,
        )
        for number, (a, b, c, d) in enumerate(seats, 1)
    ]
    for index in sorted(sitting):
        pairings.append(
            Pairing(
                round=round, table=len(pairings) + 1, sides=((ranked[index].id,), ()), stage=stage
            )
        )
    return tuple(pairings)


def round_sq(difference: float) -> int:
    """A score difference squared, in half points (an integer cost)."""
    return round((2 * difference) ** 2)
