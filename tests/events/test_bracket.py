"""Single elimination (crokinole.events.bracket): issue 23's "single elimination, seeded, with
byes to a power of two" and "the top K of each pool into a seeded single-elimination bracket,
each playoff match best-of-3"."""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from crokinole.errors import EventError
from crokinole.events import (
    Bracket,
    bracket_pairings,
    bracket_positions,
    playoff_seeds,
    seeded_bracket,
)


def seeds(count: int) -> list[str]:
    return [f"s{i}" for i in range(1, count + 1)]


def meeting_round(size: int, one: int, two: int) -> int:
    """The bracket round where seeds ``one`` and ``two`` would meet if both kept winning."""
    order = bracket_positions(size)
    a, b = order.index(one), order.index(two)
    rounds = 0
    while a != b:
        a, b, rounds = a // 2, b // 2, rounds + 1
    return rounds


def play_out(bracket: Bracket, seeds_: list[str], pick: st.DataObject | None = None) -> Bracket:
    """Every ready match won by the better seed (or as ``pick`` draws), round after round."""
    winners: dict[tuple[int, int], str] = {}
    while bracket.ready():
        for match in bracket.ready():
            a, b = match.sides
            assert a is not None and b is not None
            if pick is None:
                winners[match.slot] = min(a, b, key=seeds_.index)
            else:
                winners[match.slot] = pick.draw(st.sampled_from([a, b]))
        bracket = seeded_bracket(seeds_, winners)
    return bracket


def test_sixteen_places_by_hand() -> None:
    """1 v 16, 8 v 9, 4 v 13, 5 v 12, 2 v 15, 7 v 10, 3 v 14, 6 v 11."""
    assert bracket_positions(16) == (1, 16, 8, 9, 4, 13, 5, 12, 2, 15, 7, 10, 3, 14, 6, 11)
    bracket = seeded_bracket(seeds(16))
    assert [m.sides for m in bracket.rounds[0][:2]] == [("s1", "s16"), ("s8", "s9")]
    assert [bracket.round_name(r) for r in (1, 2, 3, 4)] == [
        "Round of 16",
        "Quarter-final",
        "Semi-final",
        "Final",
    ]


@given(st.integers(2, 70))
def test_size_byes_and_top_seeds_apart(count: int) -> None:
    """Size: the next power of two; the byes are the top seeds'; seeds 1 and 2 meet only in
    the final, the top 4 only from the semi-finals on."""
    bracket = seeded_bracket(seeds(count))
    size = bracket.size
    assert size >= count and size // 2 < count
    assert len(bracket.rounds) == size.bit_length() - 1
    assert [len(r) for r in bracket.rounds] == [
        size >> k for k in range(1, len(bracket.rounds) + 1)
    ]
    byes = [m for m in bracket.rounds[0] if m.bye]
    assert sorted((m.winner for m in byes), key=seeds(count).index) == seeds(count)[: size - count]
    assert all(m.winner in m.sides and None in m.sides for m in byes)
    final = len(bracket.rounds)
    assert meeting_round(size, 1, 2) == final
    if size >= 4:
        assert all(meeting_round(size, a, b) >= final - 1 for a, b in combinations(range(1, 5), 2))


@given(st.integers(2, 40), st.data())
def test_a_bracket_plays_down_to_one_champion(count: int, data: st.DataObject) -> None:
    """Whatever the results, every match is played once and the last winner is the champion."""
    bracket = play_out(seeded_bracket(seeds(count)), seeds(count), data)
    assert bracket.champion is not None and not bracket.ready()
    played = [m for r in bracket.rounds for m in r if not m.bye]
    assert len(played) == count - 1  # each match but the byes knocks one out


def test_favourites_meet_as_seeded() -> None:
    """Favourites win: the semi-finals are 1 v 4 and 2 v 3, the final 1 v 2, 1 champion."""
    bracket = play_out(seeded_bracket(seeds(8)), seeds(8))
    assert [m.sides for m in bracket.rounds[1]] == [("s1", "s4"), ("s2", "s3")]
    assert bracket.rounds[2][0].sides == ("s1", "s2")
    assert bracket.champion == "s1"


def test_byes_are_not_ready_and_the_pairings_carry_stage_slot_and_best_of() -> None:
    """6 entrants: s1 and s2 have byes; round 1 plays 4 v 5 and 3 v 6, best of 3."""
    bracket = seeded_bracket(seeds(6))
    pairings = bracket_pairings(bracket, 7, 3)
    assert [(p.table, p.sides, p.slot, p.stage, p.best_of, p.round) for p in pairings] == [
        (1, (("s4",), ("s5",)), (1, 2), "Quarter-final", 3, 7),
        (2, (("s3",), ("s6",)), (1, 4), "Quarter-final", 3, 7),
    ]
    later = seeded_bracket(seeds(6), {(1, 2): "s5", (1, 4): "s3"})
    assert [p.sides for p in bracket_pairings(later, 8, 3)] == [
        (("s1",), ("s5",)),
        (("s2",), ("s3",)),
    ]
    assert {p.stage for p in bracket_pairings(later, 8, 3)} == {"Semi-final"}


@pytest.mark.parametrize(
    ("winners", "message"),
    [
        ({(1, 2): "s1"}, "not a side"),
        ({(2, 1): "s1"}, "not ready"),
        ({(1, 1): "s4"}, "bye"),
        ({(5, 1): "s1"}, "no match"),
    ],
)
def test_bad_winners_are_refused(winners: dict[tuple[int, int], str], message: str) -> None:
    with pytest.raises(EventError, match=message) as caught:
        seeded_bracket(seeds(6), winners)
    assert caught.value.code == "bad_result"


def test_bad_brackets_are_refused() -> None:
    for call in (
        lambda: seeded_bracket(["a"]),
        lambda: seeded_bracket(["a", "a"]),
        lambda: playoff_seeds([["a"]], 1),
        lambda: playoff_seeds([["a", "b"]], 0),
        lambda: bracket_pairings(seeded_bracket(seeds(4)), 1, 2),
    ):
        with pytest.raises(EventError):
            call()


def test_playoff_seeds_by_hand() -> None:
    """4 pools, top 2: winners 1-4 in pool order, seconds at 5-8 each in the other half
    from their pool's winner (5 meets 4 first: B's or C's second; 6 meets 3: A's or D's …)."""
    pools = [[f"{p}{r}" for r in (1, 2)] for p in "abcd"]
    order = playoff_seeds(pools, 2)
    assert order[:4] == ("a1", "b1", "c1", "d1")
    assert order[4] in ("b2", "c2") and order[7] in ("b2", "c2")
    assert order[5] in ("a2", "d2") and order[6] in ("a2", "d2")


@given(st.sampled_from([2, 4, 8, 16]), st.integers(1, 2))
def test_pool_mates_meet_only_in_the_final(pools: int, per_pool: int) -> None:
    """With a power of two of pools and 2 from each, pool-mates meet only in the final."""
    ranked = [[f"p{p}r{r}" for r in range(per_pool + 1)] for p in range(pools)]
    order = playoff_seeds(ranked, per_pool)
    assert order[:pools] == tuple(pool[0] for pool in ranked)
    assert sorted(order) == sorted(pool[r] for pool in ranked for r in range(per_pool))
    size = seeded_bracket(list(order)).size
    final = size.bit_length() - 1
    for pool in ranked:
        mates = [order.index(e) + 1 for e in pool[:per_pool]]
        for a, b in combinations(mates, 2):
            assert meeting_round(size, a, b) == final


def test_four_of_each_of_four_pools_are_in_four_quarters() -> None:
    """4 pools × 4 into 16: each pool's four in different quarters (they meet from the semis)."""
    ranked = [[f"{p}{r}" for r in range(1, 5)] for p in "abcd"]
    order = playoff_seeds(ranked, 4)
    for pool in ranked:
        mates = [order.index(e) + 1 for e in pool]
        assert all(meeting_round(16, a, b) >= 3 for a, b in combinations(mates, 2))
