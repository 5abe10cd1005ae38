"""Single elimination: standard seeding, byes to a power of two, progression, playoff seeds.

A bracket of ``size`` places (the power of two at or above the entrants)
is seeded the standard way: seed 1 against seed ``size``, 8 against 9 …,
placed so that the top two seeds can meet only in the final, the top four
only from the semi-finals on, and so on.  The places beyond the entrants
are byes, so they fall to the top seeds: a round-1 match with one side
empty is a *bye* whose winner is already known.  Each later match is fed by
two of the round before; the bracket is rebuilt from its seeds and the
winners known so far (:func:`seeded_bracket`).

:func:`playoff_seeds` orders the qualifiers of pools: the pool winners
first (in pool order), then the seconds, each at the seed that keeps them
farthest from their pool-mates (a matching per rank,
:func:`~crokinole.events.matching.cheapest_matching`).

>>> bracket = seeded_bracket(["s1", "s2", "s3", "s4", "s5", "s6"])
>>> for m in bracket.rounds[0]:
...     print(m.slot, m.sides, m.winner, m.bye)
(1, 1) ('s1', None) s1 True
(1, 2) ('s4', 's5') None False
(1, 3) ('s2', None) s2 True
(1, 4) ('s3', 's6') None False
>>> [m.slot for m in bracket.ready()], bracket.round_name(1)
([(1, 2), (1, 4)], 'Quarter-final')
>>> later = seeded_bracket(["s1", "s2", "s3", "s4", "s5", "s6"], {(1, 2): "s5", (1, 4): "s3"})
>>> [m.sides for m in later.ready()]
[('s1', 's5'), ('s2', 's3')]
>>> playoff_seeds([["a1", "a2"], ["b1", "b2"]], 2)
('a1', 'b1', 'a2', 'b2')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from crokinole.errors import ErrorCode, EventError
from crokinole.events.matching import cheapest_matching
from crokinole.events.model import Pairing

__all__ = [
    "Bracket",
    "BracketMatch",
    "bracket_pairings",
    "bracket_positions",
    "playoff_seeds",
    "seeded_bracket",
]


def _fail(message: str) -> EventError:
    return EventError(ErrorCode.BAD_EVENT, message)


@dataclass(frozen=True, slots=True)
class BracketMatch:
    """One match of a bracket.

    Attributes:
        slot: its place: (bracket round from 1, match from 1 within it).
        sides: the two entrants, None while not known (or a round-1 bye's empty side).
        winner: who went through, once known.
        bye: a round-1 match with one side empty: the other goes through.
    """

    slot: tuple[int, int]
    sides: tuple[str | None, str | None]
    winner: str | None = None
    bye: bool = False


@dataclass(frozen=True, slots=True)
class Bracket:
    """A single-elimination bracket: its rounds of matches, round 1 first.

    Attributes:
        size: the places, a power of two at or above the entrants.
        rounds: the matches of each round (``size // 2`` in round 1 … 1 in the final).
    """

    size: int
    rounds: tuple[tuple[BracketMatch, ...], ...]

    def ready(self) -> tuple[BracketMatch, ...]:
        """The matches to play now: both sides known, no winner yet (never a bye)."""
        return tuple(
            match
            for matches in self.rounds
            for match in matches
            if None not in match.sides and match.winner is None and not match.bye
        )

    @property
    def champion(self) -> str | None:
        """The final's winner, once known."""
        return self.rounds[-1][0].winner if self.rounds else None

    def round_name(self, round: int) -> str:
        """A bracket round's name: "Final", "Semi-final", "Quarter-final", "Round of 16" …

        >>> seeded_bracket([f"s{i}" for i in range(1, 17)]).round_name(1)
        'Round of 16'
        """
        if (
            isinstance(round, bool)
            or not isinstance(round, int)
            or not 1 <= round <= len(self.rounds)
        ):
            raise _fail(f"this bracket has rounds 1 to {len(self.rounds)}, not {round!r}")
        left = len(self.rounds) - round
        names = {0: "Final", 1: "Semi-final", 2: "Quarter-final"}
        return names.get(left, f"Round of {2 ** (left + 1)}")


def bracket_positions(size: int) -> tuple[int, ...]:
    """The seeds (from 1) in bracket order for ``size`` places: round-1 matches are
    consecutive pairs, each pair's winners meet next, and so on.

    >>> bracket_positions(8)
    (1, 8, 4, 5, 2, 7, 3, 6)
    """
    if isinstance(size, bool) or not isinstance(size, int) or size < 1 or size & (size - 1):
        raise _fail(f"a bracket has a power of two places, not {size!r}")
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [seed for top in order for seed in (top, total - top)]
    return tuple(order)


def _check_ids(ids: Sequence[str], what: str) -> None:
    if isinstance(ids, str):
        raise _fail(f"{what} is a list of entrant ids, not the string {ids!r}")
    seen: set[str] = set()
    for entrant in ids:
        if not isinstance(entrant, str) or not entrant or entrant in seen:
            raise _fail(f"{what}: entrant ids are distinct and not empty, {entrant!r} is not")
        seen.add(entrant)


def seeded_bracket(
    seeds: Sequence[str], winners: Mapping[tuple[int, int], str] | None = None
) -> Bracket:
    """The bracket of ``seeds`` (best first) with the ``winners`` known so far.

    Args:
        seeds: the entrants, seed 1 first (at least 2).
        winners: each decided match's winner under its slot; a bye's may be
            given (it must be the entrant who has it).

    Raises:
        EventError: ``bad_event`` for fewer than 2 seeds or repeated ids;
            ``bad_result`` for a winner of a slot that does not exist, whose
            match is not ready, or who is not one of its sides.
    """
    _check_ids(seeds, "a bracket's seeds")
    if len(seeds) < 2:
        raise _fail(f"a bracket needs at least 2 entrants, not {len(seeds)}")
    winners = dict(winners or {})
    size = 1
    while size < len(seeds):
        size *= 2
    entrant = {seed: seeds[seed - 1] for seed in range(1, len(seeds) + 1)}
    order = [entrant.get(seed) for seed in bracket_positions(size)]
    count = size.bit_length() - 1
    rounds: list[tuple[BracketMatch, ...]] = []
    used: set[tuple[int, int]] = set()
    feeders: list[str | None] = order
    for number in range(1, count + 1):
        matches: list[BracketMatch] = []
        for index in range(len(feeders) // 2):
            slot = (number, index + 1)
            a, b = feeders[2 * index], feeders[2 * index + 1]
            bye = number == 1 and (a is None or b is None)
            winner = (a or b) if bye else None
            given = winners.get(slot)
            if given is not None:
                used.add(slot)
                if bye and given != winner:
                    raise EventError(
                        ErrorCode.BAD_RESULT, f"match {slot} is {winner}'s bye, not {given}'s"
                    )
                if not bye:
                    if a is None or b is None:
                        raise EventError(
                            ErrorCode.BAD_RESULT, f"match {slot} has no winner yet: it is not ready"
                        )
                    if given not in (a, b):
                        raise EventError(
                            ErrorCode.BAD_RESULT,
                            f"{given} is not a side of match {slot} ({a} v {b})",
                        )
                    winner = given
            matches.append(BracketMatch(slot=slot, sides=(a, b), winner=winner, bye=bye))
        rounds.append(tuple(matches))
        feeders = [match.winner for match in matches]
    unknown = sorted(set(winners) - used)
    if unknown:
        raise EventError(ErrorCode.BAD_RESULT, f"this bracket has no match {unknown[0]}")
    return Bracket(size=size, rounds=tuple(rounds))


def _meeting_round(one: int, two: int) -> int:
    """The bracket round in which places ``one`` and ``two`` (from 0) would meet."""
    return (one ^ two).bit_length()


def playoff_seeds(pools_ranked: Sequence[Sequence[str]], per_pool: int) -> tuple[str, ...]:
    """The playoff's seeds: the top ``per_pool`` of each pool, the pool winners first.

    The winners take seeds 1, 2 … in pool order; each later rank takes the
    next seeds, each entrant at the one whose place in the bracket meets its
    pool-mates latest (earliest meetings weigh most; level: pool order).  A
    pool with fewer entrants sends all it has.

    Raises:
        EventError: ``bad_event`` for ``per_pool`` below 1, an id in two pools,
            or fewer than 2 qualifiers.
    """
    if isinstance(per_pool, bool) or not isinstance(per_pool, int) or per_pool < 1:
        raise _fail(f"at least one entrant of each pool goes through, not {per_pool!r}")
    _check_ids([e for pool in pools_ranked for e in pool], "the pools' rankings")
    total = sum(min(per_pool, len(pool)) for pool in pools_ranked)
    if total < 2:
        raise _fail(f"a playoff needs at least 2 entrants, not {total}")
    size = 1
    while size < total:
        size *= 2
    place_of_seed = {seed: place for place, seed in enumerate(bracket_positions(size))}
    count = size.bit_length() - 1
    seeds: list[str] = []
    places: dict[int, list[int]] = {p: [] for p in range(len(pools_ranked))}
    for rank in range(per_pool):
        pools = [p for p, pool in enumerate(pools_ranked) if rank < len(pool)]
        numbers = list(range(len(seeds) + 1, len(seeds) + len(pools) + 1))
        # Node k < len(pools) is a pool, node len(pools) + s a seed number.
        costs: dict[tuple[int, int], tuple[int, ...]] = {}
        for k, pool in enumerate(pools):
            for s, number in enumerate(numbers):
                here = place_of_seed[number]
                early = [0] * count
                for mate in places[pool]:
                    early[_meeting_round(here, mate) - 1] += 1
                costs[(k, len(pools) + s)] = (*early, abs(k - s))
        by_number = {
            numbers[node - len(pools)]: pools[k]
            for k, node in cheapest_matching(2 * len(pools), costs)
        }
        for number in numbers:
            pool = by_number[number]
            seeds.append(pools_ranked[pool][rank])
            places[pool].append(place_of_seed[number])
    return tuple(seeds)


def bracket_pairings(bracket: Bracket, round: int, best_of: int) -> tuple[Pairing, ...]:
    """The bracket's ready matches as the pairings of event round ``round``.

    Tables are numbered from 1 in slot order; each pairing's stage is its
    bracket round's name and its slot is set.

    >>> [(p.table, p.sides, p.stage, p.slot) for p in
    ...  bracket_pairings(seeded_bracket(["a", "b", "c"]), 1, 3)]
    [(1, (('b',), ('c',)), 'Semi-final', (1, 2))]
    """
    if isinstance(round, bool) or not isinstance(round, int) or round < 1:
        raise _fail(f"a round is numbered from 1, not {round!r}")
    if best_of not in (1, 3, 5):
        raise _fail(f"a playoff match is best of 1, 3 or 5 games, not {best_of!r}")
    pairings = []
    for table, match in enumerate(bracket.ready(), 1):
        a, b = match.sides
        assert a is not None and b is not None  # ready: both known
        pairings.append(
            Pairing(
                round=round,
                table=table,
                sides=((a,), (b,)),
                stage=bracket.round_name(match.slot[0]),
                best_of=best_of,
                slot=match.slot,
            )
        )
    return tuple(pairings)
