"""The ranked queue: windows that widen, closest fitting opponents, doubles sides.

Every expected match below is worked out by hand in the comments.
"""

from __future__ import annotations

import itertools
import math

import pytest

from crokinole.errors import RankingError
from crokinole.ranking import NEAREST, WINDOW_MAX, Entry, Ladder, Match, pair, window

S, DB = Ladder.SINGLES, Ladder.DOUBLES


def solo(name: str, rating: int, joined_at: float, ladder: Ladder = S) -> Entry:
    return Entry((name,), ladder, rating, joined_at)


def duo(a: str, b: str, rating: int, joined_at: float) -> Entry:
    return Entry((a, b), DB, rating, joined_at)


def sides(matches: list[Match]) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    return [(m.side_a, m.side_b) for m in matches]


@pytest.mark.parametrize(
    ("waited", "width"),
    [
        (0, 50),
        (4.999, 50),
        (5, 60),
        (9.9, 60),
        (10, 70),
        (30, 110),
        (100, 250),
        (170, 390),
        (175, 400),
        (180, 400),
        (86400, 400),
    ],
)
def test_the_window_widens_by_10_every_5_seconds_up_to_400(waited: float, width: int) -> None:
    assert window(waited) == width
    assert WINDOW_MAX == 400


@pytest.mark.parametrize("waited", [-1, math.nan, math.inf, "5", None, True])
def test_a_bad_wait_is_refused(waited: object) -> None:
    with pytest.raises(RankingError, match="a wait is a number of seconds from 0"):
        window(waited)  # type: ignore[arg-type]


def test_an_empty_or_lonely_queue_makes_no_match() -> None:
    assert pair([], now=0.0) == []
    assert pair([solo("ann", 1000, 0.0)], now=600.0) == []


def test_singles_pairs_the_closest_fitting_opponent() -> None:
    # now 20: ann waited 20 s (window 90), bob 10 s (70), cat 0 s (50).
    # ann first: bob is 80 away (> 70, bob's window), cat 40 (<= 50): ann-cat.
    queue = [
        solo("ann", 1500, 0.0),
        solo("bob", 1580, 10.0),
        solo("cat", 1540, 20.0),
    ]
    [match] = pair(queue, now=20.0)
    assert (match.side_a, match.side_b, match.ladder) == (("ann",), ("cat",), S)
    assert match.entries == (queue[0], queue[2])
    assert match.spread == 40


def test_the_gap_must_fit_both_windows() -> None:
    # ann joined at 0, bob at 100, 120 apart.  At 100: ann's window is 250 but
    # bob's 50.  At 135: ann's 320, bob's 50 + 10 * 7 = 120: it fits.
    queue = [solo("ann", 1000, 0.0), solo("bob", 1120, 100.0)]
    assert pair(queue, now=100.0) == []
    assert pair(queue, now=134.9) == []
    assert sides(pair(queue, now=135.0)) == [(("ann",), ("bob",))]


def test_the_longest_waiting_chooses_first() -> None:
    # Windows all 50 at now=2.  ann (first) takes bob (30 away; cat is 60).
    # cat could have had bob (30 away) had she chosen first; she waits.
    queue = [solo("cat", 1560, 2.0), solo("bob", 1530, 1.0), solo("ann", 1500, 0.0)]
    assert sides(pair(queue, now=2.0)) == [(("ann",), ("bob",))]


def test_equal_gaps_go_to_the_longer_wait_then_the_id() -> None:
    # ann 1500: bob and cat both 20 away; cat joined earlier.
    queue = [solo("ann", 1500, 0.0), solo("bob", 1480, 3.0), solo("cat", 1520, 1.0)]
    assert sides(pair(queue, now=3.0)) == [(("ann",), ("cat",))]
    # Same join times: ids decide, for the anchor and for the opponent.
    same = [solo("dan", 1500, 0.0), solo("eve", 1480, 0.0), solo("bea", 1520, 0.0)]
    # bea anchors (first id); dan is 20 away, eve 40: bea-dan.
    assert sides(pair(same, now=0.0)) == [(("bea",), ("dan",))]


def test_several_matches_at_once_and_the_rest_wait() -> None:
    # now 10: windows ann 70, bob 70, cat 60, dan 60, eve 50, fay 50.
    # ann 1000 (first): bob 1010 (10), fay 1040 (40, fay's 50): bob.
    # cat 1300: dan 1390 is 90 away (> 60): none; eve 1600 none.
    # dan 1390: eve 210, fay 350 away: none.  eve 1600 / fay 1040: 560: none.
    queue = [
        solo("ann", 1000, 0.0),
        solo("bob", 1010, 0.0),
        solo("cat", 1300, 5.0),
        solo("dan", 1390, 5.0),
        solo("eve", 1600, 10.0),
        solo("fay", 1040, 10.0),
    ]
    assert sides(pair(queue, now=10.0)) == [(("ann",), ("bob",))]
    # At 50 s: cat and dan have 140 (both), 90 apart: cat-dan; fay (130) and
    # eve (130) are 560 apart; ann-bob as before.
    assert sides(pair(queue, now=50.0)) == [(("ann",), ("bob",)), (("cat",), ("dan",))]


def test_ladders_never_mix() -> None:
    queue = [solo("ann", 1000, 0.0), solo("bob", 1000, 0.0, DB)]
    assert pair(queue, now=60.0) == []


def test_the_result_does_not_depend_on_the_queues_order() -> None:
    queue = [
        solo("ann", 1000, 0.0),
        solo("bob", 1030, 0.0),
        solo("cat", 1060, 0.0),
        solo("dan", 1090, 0.0),
        solo("eve", 1020, 0.0, DB),
        duo("fay", "gus", 1010, 0.0),
        solo("hal", 1000, 0.0, DB),
    ]
    expected = pair(queue, now=0.0)
    for order in itertools.permutations(queue):
        assert pair(list(order), now=0.0) == expected
    # ann-bob (30), then cat-dan (30); eve+hal against the pair fay/gus.
    assert sides(expected) == [
        (("ann",), ("bob",)),
        (("cat",), ("dan",)),
        (("eve", "hal"), ("fay", "gus")),
    ]


def test_four_solo_players_make_the_most_even_sides() -> None:
    # 1000, 1010, 1030, 1040: highest and lowest (2040) against the middle
    # two (2040).  ann (1000) anchors: side A is ann and dan.
    queue = [
        solo("ann", 1000, 0.0, DB),
        solo("bob", 1010, 1.0, DB),
        solo("cat", 1030, 2.0, DB),
        solo("dan", 1040, 3.0, DB),
    ]
    [match] = pair(queue, now=3.0)
    assert (match.side_a, match.side_b) == (("ann", "dan"), ("bob", "cat"))
    assert match.entries == tuple(queue)
    assert match.spread == 40


def test_an_anchor_in_the_middle_plays_with_the_other_middle_player() -> None:
    # bob (1010) joined first: sides {ann 1000, dan 1040} and {bob, cat 1030};
    # side A is bob's, bob first.
    queue = [
        solo("ann", 1000, 1.0, DB),
        solo("bob", 1010, 0.0, DB),
        solo("cat", 1030, 2.0, DB),
        solo("dan", 1040, 3.0, DB),
    ]
    assert sides(pair(queue, now=3.0)) == [(("bob", "cat"), ("ann", "dan"))]


def test_a_pair_plays_a_pair_or_two_solo_players() -> None:
    pairs = [duo("ann", "bob", 1200, 0.0), duo("cat", "dan", 1240, 1.0)]
    assert sides(pair(pairs, now=1.0)) == [(("ann", "bob"), ("cat", "dan"))]
    # A solo anchor teams with the other solo against the pair (spread 40:
    # eve 1200, fay 1210, the pair 1240).
    mixed = [solo("eve", 1200, 0.0, DB), duo("cat", "dan", 1240, 1.0), solo("fay", 1210, 2.0, DB)]
    assert sides(pair(mixed, now=2.0)) == [(("eve", "fay"), ("cat", "dan"))]


def test_doubles_takes_the_smallest_spread() -> None:
    # now 0, windows 50.  ann 1200 with three of bob 1150, cat 1210, dan 1220,
    # eve 1240: bob is 50 from ann but 90 from eve; {cat, dan, eve} spreads 40
    # (1200-1240), {bob, cat, dan} 70 (and bob-dan is 70 > 50): cat, dan, eve.
    # Sides: ann (1200) + eve (1240) against cat + dan.
    queue = [
        solo("ann", 1200, 0.0, DB),
        solo("bob", 1150, 0.0, DB),
        solo("cat", 1210, 0.0, DB),
        solo("dan", 1220, 0.0, DB),
        solo("eve", 1240, 0.0, DB),
    ]
    [match] = pair(queue, now=0.0)
    assert (match.side_a, match.side_b) == (("ann", "eve"), ("cat", "dan"))
    assert match.spread == 40


def test_every_two_doubles_entries_must_fit_each_others_windows() -> None:
    # All 45 from ann, but bob and dan are 90 apart at windows of 50: no game.
    queue = [
        solo("ann", 1200, 0.0, DB),
        solo("bob", 1155, 0.0, DB),
        solo("cat", 1200, 0.0, DB),
        solo("dan", 1245, 0.0, DB),
    ]
    assert pair(queue, now=0.0) == []
    # 20 s later the windows are 90: it fits.
    assert sides(pair(queue, now=20.0)) == [(("ann", "cat"), ("bob", "dan"))]


def test_three_doubles_players_wait() -> None:
    queue = [duo("ann", "bob", 1200, 0.0), solo("cat", 1200, 0.0, DB)]
    assert pair(queue, now=100.0) == []


def test_a_long_doubles_queue_is_searched_among_the_nearest() -> None:
    # ann and 4 * NEAREST solos 1 point above her: equal spreads and waits, so
    # the smallest ids, p00-p02; ann (lowest) and p02 against p00 and p01.
    # Every 4 entries make a match; the NEAREST cap keeps each search small.
    near = [solo(f"p{i:02d}", 1201, 0.0, DB) for i in range(4 * NEAREST - 1)]
    matches = pair([solo("ann", 1200, 0.0, DB), *near], now=0.0)
    assert (matches[0].side_a, matches[0].side_b) == (("ann", "p02"), ("p00", "p01"))
    assert len(matches) == NEAREST
    assert sides(matches)[1] == (("p03", "p06"), ("p04", "p05"))


@pytest.mark.parametrize(
    ("queue", "now", "message"),
    [
        ([solo("ann", 1000, 0.0), solo("ann", 1000, 1.0)], 1.0, "ann is in the queue twice"),
        ([solo("ann", 1000, 0.0), solo("ann", 900, 0.0, DB)], 1.0, "ann is in the queue twice"),
        ([duo("ann", "bob", 1000, 0.0), solo("bob", 1000, 0.0, DB)], 1.0, "bob is in the queue"),
        ([solo("ann", 1000, 5.0)], 1.0, r"ann joined at 5.0, after now \(1.0\)"),
        ([solo("ann", 1000, 0.0)], math.nan, "now is a time in seconds, not nan"),
        (solo("ann", 1000, 0.0), 1.0, "the queue is a list of entries"),
        ([("ann", 1000)], 1.0, r"the queue holds entries, not \('ann', 1000\)"),
    ],
)
def test_a_bad_queue_is_refused(queue: object, now: float, message: str) -> None:
    with pytest.raises(RankingError, match=message):
        pair(queue, now)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((("ann", "bob"), S, 1000, 0.0), "a singles entry is one player, not 2"),
        ((("a", "b", "c"), DB, 1000, 0.0), "a doubles entry is one player or a pair, not 3"),
        (((), DB, 1000, 0.0), "a doubles entry is one player or a pair, not 0"),
        ((("ann", "ann"), DB, 1000, 0.0), "a pair is two different players"),
        (("ann", S, 1000, 0.0), "an entry's players are a list of ids, not 'ann'"),
        ((("",), S, 1000, 0.0), "a player id is a non-empty string"),
        (((7,), S, 1000, 0.0), "a player id is a non-empty string, not 7"),
        ((("ann",), "triples", 1000, 0.0), "a ladder is singles or doubles, not 'triples'"),
        ((("ann",), S, -1, 0.0), "a displayed rating is a whole number from 0, not -1"),
        ((("ann",), S, 1000.5, 0.0), "a displayed rating is a whole number from 0, not 1000.5"),
        ((("ann",), S, 1000, math.inf), "joined_at is a time in seconds, not inf"),
    ],
)
def test_a_bad_entry_is_refused(args: tuple[object, ...], message: str) -> None:
    with pytest.raises(RankingError, match=message):
        Entry(*args)  # type: ignore[arg-type]


def test_an_entry_normalises_its_values() -> None:
    entry = Entry(["ann"], "singles", 1000, 3)  # type: ignore[arg-type]
    assert entry == Entry(("ann",), S, 1000, 3.0)
    assert entry.window(now=13.0) == 70
