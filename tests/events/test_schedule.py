"""Round robins and pools (crokinole.events.schedule): issue 23's "round robin, single or in
pools (snake-seeded by rating)", with first shots alternating (colour balance)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from itertools import combinations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from crokinole.errors import EventError
from crokinole.events import pool_name, pool_round, pool_rounds, round_robin, snake_pools


def ids(count: int) -> list[str]:
    return [f"e{i}" for i in range(1, count + 1)]


@given(st.integers(0, 24))
def test_everyone_meets_everyone_exactly_once(count: int) -> None:
    """n - 1 rounds (even n) or n (odd, one bye each), everyone once a round."""
    rounds = round_robin(ids(count))
    assert len(rounds) == (0 if count == 0 else count - 1 if count % 2 == 0 else count)
    met: Counter[frozenset[str]] = Counter()
    for pairs in rounds:
        assert sorted(e for pair in pairs for e in pair if e) == sorted(ids(count))
        met.update(frozenset(pair) for pair in pairs if pair[1] is not None)
    assert set(met) == {frozenset(p) for p in combinations(ids(count), 2)}
    assert set(met.values()) <= {1}
    byes = Counter(a for pairs in rounds for a, b in pairs if b is None)
    assert byes == (Counter(ids(count)) if count % 2 else Counter())


@given(st.integers(2, 24))
def test_first_shots_alternate(count: int) -> None:
    """Each entrant shoots first in half their games, give or take one, never 3 in a row."""
    shots: dict[str, list[bool]] = {e: [] for e in ids(count)}
    for pairs in round_robin(ids(count)):
        for a, b in pairs:
            if b is not None:
                shots[a].append(True)
                shots[b].append(False)
    for row in shots.values():
        assert abs(2 * sum(row) - len(row)) <= 1
        assert all(len(set(row[k : k + 3])) == 2 for k in range(len(row) - 2))


def test_four_entrants_by_hand() -> None:
    """The circle method: e1 fixed, the others turning: (1 4, 2 3), (1 3, 4 2), (1 2, 3 4)."""
    rounds = round_robin(ids(4))
    assert [{frozenset(p) for p in r} for r in rounds] == [
        {frozenset({"e1", "e4"}), frozenset({"e2", "e3"})},
        {frozenset({"e1", "e3"}), frozenset({"e4", "e2"})},
        {frozenset({"e1", "e2"}), frozenset({"e3", "e4"})},
    ]


@given(st.integers(1, 40), st.integers(1, 8))
def test_snake_pools_differ_by_one_at_most_and_snake(count: int, pools: int) -> None:
    """Seeds dealt A B C C B A A B C …: sizes differ by ≤ 1; every entrant in one pool."""
    if pools > count:
        with pytest.raises(EventError):
            snake_pools(ids(count), pools)
        return
    dealt = snake_pools(ids(count), pools)
    assert len(dealt) == pools
    sizes = [len(p) for p in dealt]
    assert max(sizes) - min(sizes) <= 1
    assert sorted(e for pool in dealt for e in pool) == sorted(ids(count))
    where = {e: k for k, pool in enumerate(dealt) for e in pool}
    order = [where[e] for e in ids(count)]
    lap = list(range(pools)) + list(reversed(range(pools)))
    assert order == [lap[k % (2 * pools)] for k in range(count)]


def test_snake_pools_by_hand() -> None:
    """12 seeds, 3 pools: A 1 6 7 12, B 2 5 8 11, C 3 4 9 10."""
    assert snake_pools([str(s) for s in range(1, 13)], 3) == (
        ("1", "6", "7", "12"),
        ("2", "5", "8", "11"),
        ("3", "4", "9", "10"),
    )


def test_pool_names() -> None:
    assert [pool_name(k) for k in (0, 1, 2, 25, 26, 27, 63)] == [
        "Pool A",
        "Pool B",
        "Pool C",
        "Pool Z",
        "Pool AA",
        "Pool AB",
        "Pool BL",
    ]
    with pytest.raises(EventError):
        pool_name(-1)


def test_pool_rounds_play_every_pool_round_robin_then_nothing() -> None:
    """Pools of 4 and 3: 3 rounds each; tables numbered on from first_table, byes last."""
    pools = [ids(4), ["f1", "f2", "f3"]]
    assert pool_rounds(pools) == 3
    seen: Counter[frozenset[str]] = Counter()
    for number in range(1, 4):
        pairings = pool_round(pools, number, first_table=5)
        assert [p.table for p in pairings] == [5, 6, 7, 8]
        assert [p.stage for p in pairings] == ["Pool A", "Pool A", "Pool B", "Pool B"]
        assert pairings[-1].bye and not any(p.bye for p in pairings[:-1])
        assert all(p.round == number for p in pairings)
        seen.update(frozenset(p.entrants) for p in pairings if not p.bye)
    assert len(seen) == 6 + 3 and set(seen.values()) == {1}
    assert pool_round(pools, 4) == ()


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: round_robin(["a", "a"]), "distinct"),
        (lambda: snake_pools(["a", "b"], 0), "at least one pool"),
        (lambda: pool_round([["a", "b"], ["b", "c"]], 1), "distinct"),
        (lambda: pool_round([["a", "b"]], 0), "numbered from 1"),
    ],
)
def test_bad_input_is_refused_in_plain_words(call: Callable[[], object], message: str) -> None:
    with pytest.raises(EventError, match=message):
        call()
