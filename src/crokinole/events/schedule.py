"""Round robins (the circle method) and pools snake-seeded by rating.

:func:`round_robin` schedules everyone against everyone once, by the circle
method: one place stays fixed while the others turn one step each round.
With an odd count the fixed place is the bye (so each entrant has one bye,
and the others' first shots alternate exactly, game after game); with an
even count it is the first entrant's, who alternates between first and
second.  Elsewhere the board's two rows alternate by table, so over the
whole round robin each entrant shoots first in half their games, give or
take one, never three times running.  In each pair the first named shoots
first.

:func:`snake_pools` deals entrants, best seed first, into pools A B C C B A
A B C …; :func:`pool_round` is one round of every pool's round robin.

>>> round_robin(["a", "b", "c", "d"])
((('a', 'd'), ('c', 'b')), (('c', 'a'), ('b', 'd')), (('a', 'b'), ('d', 'c')))
>>> round_robin(["a", "b", "c"])
((('c', None), ('b', 'a')), (('b', None), ('a', 'c')), (('a', None), ('c', 'b')))
>>> snake_pools(["s1", "s2", "s3", "s4", "s5", "s6", "s7"], 3)
(('s1', 's6', 's7'), ('s2', 's5'), ('s3', 's4'))
>>> [(p.table, p.sides, p.stage) for p in pool_round([["a", "b"], ["c", "d", "e"]], 1)]
[(1, (('a',), ('b',)), 'Pool A'), (2, (('d',), ('c',)), 'Pool B'), (3, (('e',), ()), 'Pool B')]
"""

from __future__ import annotations

from collections.abc import Sequence

from crokinole.errors import ErrorCode, EventError
from crokinole.events.model import Pairing

__all__ = ["pool_name", "pool_round", "pool_rounds", "round_robin", "snake_pools"]


def _fail(message: str) -> EventError:
    return EventError(ErrorCode.BAD_EVENT, message)


def _check_ids(ids: Sequence[str], what: str) -> None:
    if isinstance(ids, str):
        raise _fail(f"{what} is a list of entrant ids, not the string {ids!r}")
    seen: set[str] = set()
    for entrant in ids:
        if not isinstance(entrant, str) or not entrant or entrant in seen:
            raise _fail(f"{what}: entrant ids are distinct and not empty, {entrant!r} is not")
        seen.add(entrant)


def round_robin(ids: Sequence[str]) -> tuple[tuple[tuple[str, str | None], ...], ...]:
    """Everyone against everyone once: rounds of pairs, the first of each shooting first.

    ``(id, None)`` is a bye.  An even count plays ``len(ids) - 1`` rounds, an
    odd count ``len(ids)`` (one bye each).  Each round's bye comes first.

    Raises:
        EventError: ``bad_event`` for repeated or empty ids.
    """
    _check_ids(ids, "a round robin")
    if not ids:
        return ()
    places: list[str | None] = ([None] if len(ids) % 2 else []) + list(ids)
    count = len(places)
    rounds: list[tuple[tuple[str, str | None], ...]] = []
    for number in range(count - 1):
        pairs: list[tuple[str, str | None]] = []
        for table in range(count // 2):
            a, b = places[table], places[count - 1 - table]
            if (number % 2 if table == 0 else table % 2) == 1:
                a, b = b, a
            if a is None:
                a, b = b, None
            assert a is not None  # one place at most is the bye
            pairs.append((a, b))
        rounds.append(tuple(pairs))
        places = [places[0], places[-1], *places[1:-1]]
    return tuple(rounds)


def snake_pools(ids_by_seed: Sequence[str], pools: int) -> tuple[tuple[str, ...], ...]:
    """Entrants dealt into ``pools`` pools, best seed first: A B C C B A A B C …

    The pools' sizes differ by one at most; each pool lists its entrants by seed.

    Raises:
        EventError: ``bad_event`` for fewer than one pool, more pools than
            entrants, or repeated ids.
    """
    _check_ids(ids_by_seed, "the pools' seeds")
    if isinstance(pools, bool) or not isinstance(pools, int) or pools < 1:
        raise _fail(f"entrants are dealt into at least one pool, not {pools!r}")
    if pools > len(ids_by_seed):
        raise _fail(f"{len(ids_by_seed)} entrants cannot fill {pools} pools")
    dealt: list[list[str]] = [[] for _ in range(pools)]
    for seed, entrant in enumerate(ids_by_seed):
        lap, place = divmod(seed, pools)
        dealt[place if lap % 2 == 0 else pools - 1 - place].append(entrant)
    return tuple(tuple(pool) for pool in dealt)


def pool_name(index: int) -> str:
    """The name of pool ``index`` (from 0): "Pool A" … "Pool Z", then "Pool AA" …

    >>> pool_name(0), pool_name(25), pool_name(26)
    ('Pool A', 'Pool Z', 'Pool AA')
    """
    if isinstance(index, bool) or not isinstance(index, int) or index < 0:
        raise _fail(f"pools are numbered from 0, not {index!r}")
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return f"Pool {letters}"


def pool_rounds(pools: Sequence[Sequence[str]]) -> int:
    """The rounds the longest pool's round robin needs.

    >>> pool_rounds([["a", "b", "c", "d"], ["e", "f", "g"]])
    3
    """
    return max((len(round_robin(pool)) for pool in pools), default=0)


def pool_round(
    pools: Sequence[Sequence[str]], round: int, first_table: int = 1
) -> tuple[Pairing, ...]:
    """Round ``round`` (from 1) of every pool's round robin, stage "Pool A" ….

    Tables are numbered from ``first_table``, pool A's games first; the byes
    (``(("id",), ())``) come after every game.  A pool whose round robin is
    over has no pairing; once every pool's is, the round is empty.

    Raises:
        EventError: ``bad_event`` for a round below 1, an id in two pools, or
            repeated ids.
    """
    if isinstance(round, bool) or not isinstance(round, int) or round < 1:
        raise _fail(f"a round is numbered from 1, not {round!r}")
    if isinstance(first_table, bool) or not isinstance(first_table, int) or first_table < 1:
        raise _fail(f"tables are numbered from 1, not {first_table!r}")
    _check_ids([entrant for pool in pools for entrant in pool], "the pools")
    games: list[tuple[tuple[str, ...], tuple[str, ...], str]] = []
    byes: list[tuple[tuple[str, ...], tuple[str, ...], str]] = []
    for index, pool in enumerate(pools):
        schedule = round_robin(pool)
        if round > len(schedule):
            continue
        for a, b in schedule[round - 1]:
            if b is None:
                byes.append(((a,), (), pool_name(index)))
            else:
                games.append(((a,), (b,), pool_name(index)))
    return tuple(
        Pairing(round=round, table=table, sides=(one, two), stage=stage)
        for table, (one, two, stage) in enumerate(games + byes, first_table)
    )
