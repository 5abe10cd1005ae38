"""Standings and tie-breaks (issue 23, docs/events.md *Standings*), worked by hand.

Results are built with :func:`standings_support.game`: a four-round game decided by its
first round (a, b), rounds 2–4 tied 10–10, so (R6) the winner has 5 game points and the
loser 3 (4–4 a draw), the differential is a − b and each side's round totals are its
first-round total + 30.
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings

from crokinole.errors import ErrorCode, EventError
from crokinole.events.model import (
    Entrant,
    EntrantStatus,
    EventSettings,
    GameScore,
    MatchResult,
    Pairing,
    Person,
    Points,
    RoundScore,
    TieBreak,
)
from crokinole.events.standings import Standing, standings, tallies
from tests.events.standings_support import (
    doubles,
    events,
    forfeit,
    game,
    one,
    pair,
    people,
    swiss,
)

MP, TW, H2H, DIFF = (
    TieBreak.MATCH_POINTS,
    TieBreak.TWENTIES,
    TieBreak.HEAD_TO_HEAD,
    TieBreak.DIFFERENTIAL,
)


def _by_id(rows: tuple[Standing, ...]) -> dict[str, Standing]:
    return {row.id: row for row in rows}


# --- six players, three rounds ----------------------------------------------------------
#
# R1: A–B 30–20 (A), C–D 40–10 (C), E–F 25–25 (drawn)
# R2: A–D 10–30 (D), B–E 50–10 (B), C–F 20–15 (C)
# R3: C–E 15–35 (E), A–F 35–10 (A), B–D 30–25 (B)
#
# Match points (2/1/0): A 4, B 4, C 4, E 3 (draw + win), D 2, F 1 (draw).
# No 20s anywhere: A, B and C stay level after MP and 20s.
# Head-to-head among {A, B, C}: only A–B was played: A 2, B 0, C 0 -> A first of the three.
# B and C (level on 0) go on to the differential:
#   A: +10 −20 +25 = +15   B: −10 +40 +5 = +35   C: +30 +5 −20 = +15
#   D: −30 +20 −5 = −15    E: 0 −40 +20 = −20    F: 0 −5 −25 = −30
# so B (+35) before C (+15), though A's differential is below B's.
# Ranks: A 1 (head-to-head), B 2, C 3 (differential), E 4, D 5, F 6 (match points).

SIX = people("ABCDEF", ratings=[1400, 1500, 1450, 1300, 1350, 1200])
SIX_MATCHES = [
    (pair(1, 1, "A", "B"), one(30, 20)),
    (pair(1, 2, "C", "D"), one(40, 10)),
    (pair(1, 3, "E", "F"), one(25, 25)),
    (pair(2, 1, "A", "D"), one(10, 30)),
    (pair(2, 2, "B", "E"), one(50, 10)),
    (pair(2, 3, "C", "F"), one(20, 15)),
    (pair(3, 1, "C", "E"), one(15, 35)),
    (pair(3, 2, "A", "F"), one(35, 10)),
    (pair(3, 3, "B", "D"), one(30, 25)),
]


def test_head_to_head_splits_one_of_three_and_the_other_two_go_on_to_differential() -> None:
    """Issue 23: default tie-breaks (MP, 20s, head-to-head, differential); head-to-head only
    among the entrants still level, the rest continuing with the next tie-break."""
    rows = standings(swiss(), SIX, SIX_MATCHES)
    assert [(r.rank, r.id) for r in rows] == [
        (1, "A"),
        (2, "B"),
        (3, "C"),
        (4, "E"),
        (5, "D"),
        (6, "F"),
    ]
    assert [r.decided_by for r in rows] == [H2H, DIFF, DIFF, MP, MP, MP]
    by = _by_id(rows)
    assert dict(by["A"].values) == {MP: 4, TW: 0, H2H: 2, DIFF: 15}
    assert dict(by["B"].values) == {MP: 4, TW: 0, H2H: 0, DIFF: 35}
    assert dict(by["C"].values) == {MP: 4, TW: 0, H2H: 0, DIFF: 15}
    # alone after match points: no group left for head-to-head
    assert dict(by["E"].values) == {MP: 3, TW: 0, H2H: 0, DIFF: -20}
    assert list(by["A"].values) == [MP, TW, H2H, DIFF]  # the settings' order


def test_tallies_of_the_six_player_event() -> None:
    """R6 game points (5–3 a win, 4–4 a draw), round totals, a drawn game, opponents."""
    table = tallies(swiss(), SIX_MATCHES)
    a, e, f = table["A"], table["E"], table["F"]
    assert (a.played, a.wins, a.draws, a.losses, a.byes) == (3, 2, 0, 1, 0)
    assert a.game_points == 5 + 3 + 5
    # A scored 30, 10, 35 in first rounds, + 30 each game; conceded 20, 30, 10, + 30 each
    assert (a.points_for, a.points_against) == (165, 150)
    assert a.opponents == ("B", "D", "F")
    assert a.partners == ()
    assert (e.wins, e.draws, e.losses, e.match_points, e.game_points) == (1, 1, 1, 3, 4 + 3 + 5)
    assert (f.draws, f.losses, f.match_points) == (1, 2, 1)
    # singles, best of 1, first = 0 every time: A shot first in all three
    assert (a.firsts, a.last_first) == (3, True)
    assert (table["B"].firsts, table["B"].last_first) == (1, True)  # 2nd, 1st, 1st


def test_custom_order_wins_then_buchholz() -> None:
    """Issue 23: tie-breaks configurable, in order.  Buchholz = the opponents' match points:
    A: B 4 + D 2 + F 1 = 7; B: A 4 + E 3 + D 2 = 9; C: D 2 + F 1 + E 3 = 6;
    D: C 4 + A 4 + B 4 = 12; E: F 1 + B 4 + C 4 = 9.  Wins: A, B, C 2; D, E 1; F 0."""
    rows = standings(swiss([TieBreak.WINS, TieBreak.BUCHHOLZ]), SIX, SIX_MATCHES)
    assert [r.id for r in rows] == ["B", "A", "C", "D", "E", "F"]
    assert [r.rank for r in rows] == [1, 2, 3, 4, 5, 6]
    assert [r.decided_by for r in rows] == [TieBreak.BUCHHOLZ] * 5 + [TieBreak.WINS]
    assert [r.values[TieBreak.BUCHHOLZ] for r in rows] == [9, 7, 6, 12, 9, 3 + 4 + 4]


def test_custom_order_game_points_then_rating() -> None:
    """Game points (R2): A 5+3+5, B 3+5+5, C 5+5+3 = 13 each; E 4+3+5 = 12, D 3+5+3 = 11,
    F 4+3+3 = 10.  Ratings then part A (1400), B (1500), C (1450)."""
    rows = standings(swiss([TieBreak.GAME_POINTS, TieBreak.RATING]), SIX, SIX_MATCHES)
    assert [r.id for r in rows] == ["B", "C", "A", "E", "D", "F"]
    assert [r.decided_by for r in rows] == [TieBreak.RATING] * 3 + [TieBreak.GAME_POINTS] * 3
    assert [r.values[TieBreak.GAME_POINTS] for r in rows] == [13, 13, 13, 12, 11, 10]


def test_head_to_head_first_is_match_points_among_everyone_and_is_not_worked_out_again() -> None:
    """With head-to-head first, the group is every entrant, so it equals the match points;
    A, B and C stay level on it and on match points: the documented rule works
    head-to-head out once per group, so they share rank 1."""
    rows = standings(swiss([H2H, MP]), SIX, SIX_MATCHES)
    assert [r.rank for r in rows] == [1, 1, 1, 4, 5, 6]
    # shared rank: listed by rating (B 1500, C 1450, A 1400)
    assert [r.id for r in rows[:3]] == ["B", "C", "A"]
    assert [r.decided_by for r in rows] == [None, None, None, H2H, H2H, H2H]
    assert [r.values[H2H] for r in rows] == [4, 4, 4, 3, 2, 1]


# --- five players, two rounds: 20s, a bye, a forfeit, a shared rank ---------------------
#
# R1: P–Q 40–20 with P's two 20s (P), R–S: S forfeits (R wins, 0–0 points), T has a bye
# R2: T–R 30–10 with T's one 20 (T), P–S 25–20 (P), Q has a bye
#
# MP: P 4, T 4 (bye + win), Q 2 (bye), R 2 (forfeit win), S 0.
# P and T: 20s 2 against 1 -> P first, both decided by 20s.
# Q and R: 0 20s, never met (head-to-head 0–0), differential Q −20 (R1) + 0 (bye),
#   R 0 (forfeit) − 20 (R2) = −20: level on all, rank 3 shared; R (1600) listed before Q (1500).

FIVE = people("PQRST", ratings=[0, 1500, 1600, 0, 0])
FIVE_MATCHES = [
    (pair(1, 1, "P", "Q"), one(40, 20, 2, 0)),
    (pair(1, 2, "R", "S"), forfeit(1)),
    (pair(1, 3, "T", None), None),
    (pair(2, 1, "T", "R"), one(30, 10, 1, 0)),
    (pair(2, 2, "P", "S"), one(25, 20)),
    (pair(2, 3, "Q", None), None),
]


def test_twenties_a_bye_a_forfeit_and_a_shared_rank() -> None:
    """Issue 23: a bye counts as a win; default tie-breaks; level on all -> shared rank."""
    rows = standings(swiss(), FIVE, FIVE_MATCHES)
    assert [(r.rank, r.id, r.decided_by) for r in rows] == [
        (1, "P", TW),
        (2, "T", TW),
        (3, "R", None),
        (3, "Q", None),
        (5, "S", MP),
    ]
    by = _by_id(rows)
    assert dict(by["Q"].values) == dict(by["R"].values) == {MP: 2, TW: 0, H2H: 0, DIFF: -20}
    assert dict(by["T"].values) == {MP: 4, TW: 1, H2H: 0, DIFF: 20}


def test_a_bye_is_a_win_with_no_points_and_a_forfeit_counts_nothing() -> None:
    """Issue 23: a bye = a win (Points.bye), no 20s, differential 0; a forfeit game
    counts 0–0 for points, 20s and game points, won and lost like any game."""
    table = tallies(swiss(), FIVE_MATCHES)
    t, r, s = table["T"], table["R"], table["S"]
    assert (t.played, t.wins, t.byes, t.match_points) == (1, 1, 1, 4)
    assert (t.points_for, t.points_against, t.twenties) == (60, 40, 1)
    assert t.opponents == ("R",)
    assert (r.played, r.wins, r.losses, r.match_points, r.game_points) == (2, 1, 1, 2, 3)
    assert (r.points_for, r.points_against) == (40, 60)
    assert (s.played, s.losses, s.match_points, s.game_points) == (2, 2, 0, 3)
    # nobody shot in the forfeit: it counts neither way for first shots
    assert (r.firsts, s.firsts) == (-1, -1)
    assert table["Q"].last_first is False
    rows = standings(swiss([TieBreak.WINS]), FIVE, FIVE_MATCHES)
    assert {r.id: r.values[TieBreak.WINS] for r in rows} == {"P": 2, "T": 2, "Q": 1, "R": 1, "S": 0}


def test_a_forfeit_after_rounds_were_played_still_counts_zero_points() -> None:
    """A game aborted after a round: the forfeiting side loses; its rounds count 0–0."""
    result = forfeit(0, RoundScore((60, 0), (3, 0)))
    table = tallies(swiss(), [(pair(1, 1, "P", "Q"), result)])
    p, q = table["P"], table["Q"]
    assert (p.losses, q.wins, q.match_points) == (1, 1, 2)
    assert (p.twenties, p.points_for, p.game_points, q.points_against) == (0, 0, 0, 0)
    assert (p.firsts, p.last_first, q.firsts) == (1, True, -1)  # a round was shot


def test_custom_points_three_one_zero() -> None:
    """settings.points: 3 a win, 1 a draw, a bye as a win (3)."""
    table = tallies(swiss(points=Points(3, 1, 0)), FIVE_MATCHES + SIX_MATCHES[2:3])
    assert table["T"].match_points == 6
    assert table["E"].match_points == table["F"].match_points == 1


# --- best of 3 ----------------------------------------------------------------------------


def test_best_of_three_one_match_and_first_shots_alternate() -> None:
    """A playoff match best of 3 (issue 23): side 1 wins games 1 and 3, side 0 game 2;
    it is ONE match won.  first=1: side 1 shoots first in games 1 and 3, side 0 in 2."""
    result = MatchResult((game(10, 30, 0, 1), game(40, 20, 2, 0), game(15, 25, 0, 1)))
    pairing = Pairing(1, 1, (("A",), ("B",)), first=1, best_of=3, stage="Final", slot=(1, 1))
    table = tallies(swiss(), [(pairing, result)])
    a, b = table["A"], table["B"]
    assert (b.played, b.wins, b.match_points, a.losses, a.match_points) == (1, 1, 2, 1, 0)
    assert (a.twenties, b.twenties) == (2, 2)
    assert (a.points_for, b.points_for) == (10 + 40 + 15 + 90, 30 + 20 + 25 + 90)
    assert (a.game_points, b.game_points) == (3 + 5 + 3, 5 + 3 + 5)
    assert (b.firsts, b.last_first, a.firsts, a.last_first) == (1, True, -1, False)


def test_best_of_three_undecided_or_with_a_game_too_many_is_refused() -> None:
    pairing = Pairing(2, 4, (("A",), ("B",)), best_of=3)
    undecided = MatchResult((game(30, 20), game(20, 30)))
    with pytest.raises(EventError, match="round 2, table 4: best of 3") as info:
        tallies(swiss(), [(pairing, undecided)])
    assert info.value.code is ErrorCode.BAD_RESULT
    too_many = MatchResult((game(30, 20), game(30, 20), game(20, 30)))
    with pytest.raises(EventError, match="won after game 2"):
        tallies(swiss(), [(pairing, too_many)])


# --- rotating doubles -----------------------------------------------------------------------
#
# R1: (a, b) beat (c, d) 40–20 with one 20 for (a, b);  R2: (b, d) beat (a, c) 30–15.
# Each player is credited their side's result: a 2, b 4, c 0, d 2 match points.
# a and d level on MP; 20s a 1, d 0 -> a before d.


def test_rotating_doubles_credit_each_player_their_sides_result() -> None:
    """Issue 23: St. Jacobs doubles, each player scored alone."""
    settings_ = doubles()
    players = people("abcd")
    matches = [
        (Pairing(1, 1, (("a", "b"), ("c", "d"))), one(40, 20, 1, 0)),
        (Pairing(2, 1, (("a", "c"), ("b", "d"))), one(15, 30)),
    ]
    table = tallies(settings_, matches)
    a, b, d = table["a"], table["b"], table["d"]
    assert (a.match_points, b.match_points, table["c"].match_points, d.match_points) == (2, 4, 0, 2)
    assert a.opponents == ("c", "d", "b", "d")
    assert a.partners == ("b", "c")
    assert (a.twenties, b.twenties, d.twenties) == (1, 1, 0)
    assert (a.points_for, a.points_against) == (70 + 45, 50 + 60)
    rows = standings(settings_, players, matches)
    assert [(r.rank, r.id, r.decided_by) for r in rows] == [
        (1, "b", MP),
        (2, "a", TW),
        (3, "d", TW),
        (4, "c", MP),
    ]
    with_buchholz = standings(
        doubles([TieBreak.BUCHHOLZ]),
        players,
        matches,
    )
    # a: c 0 + d 2 + b 4 + d 2 = 8; b: 0 + 2 + 2 + 0 = 4
    # c: 2 + 4 + 4 + 2 = 12;        d: 2 + 4 + 2 + 0 = 8
    assert {r.id: r.values[TieBreak.BUCHHOLZ] for r in with_buchholz} == {
        "a": 8,
        "b": 4,
        "c": 12,
        "d": 8,
    }


def test_head_to_head_in_doubles_counts_matches_against_a_group_member() -> None:
    """Doubles: a match counts for a player's head-to-head when one of its opponents is in
    the group (the module's documented reading)."""
    settings_ = doubles()
    # R1: (a, b) beat (c, d): a faced d and won (2).  R2: (b, d) beat (a, c): d faced a, won (2).
    # Group {a, d} after MP (2 each) and 20s (0 each, no 20s here): head-to-head a 2, d 2;
    # differential a +20 − 15 = +5, d −20 + 15 = −5 -> a before d, by differential.
    matches = [
        (Pairing(1, 1, (("a", "b"), ("c", "d"))), one(40, 20)),
        (Pairing(2, 1, (("a", "c"), ("b", "d"))), one(15, 30)),
    ]
    rows = _by_id(standings(settings_, people("abcd"), matches))
    assert rows["a"].values[H2H] == rows["d"].values[H2H] == 2
    assert (rows["a"].rank, rows["d"].rank) == (2, 3)
    assert rows["a"].decided_by is rows["d"].decided_by is DIFF


# --- entrants, statuses, errors ------------------------------------------------------------


def test_everyone_appears_dropped_and_unplayed_included() -> None:
    """Dropped entrants stay in the standings with their games; an entrant with no match
    has an empty tally."""
    entrants = [*people("PQRST"), Entrant("U", "Uma", (Person("Uma"),))]
    entrants[4] = Entrant("T", "T", (Person("T"),), status=EntrantStatus.DROPPED)
    rows = _by_id(standings(swiss(), entrants, FIVE_MATCHES))
    assert rows["T"].tally.match_points == 4
    # U and S: 0 MP, no 20s, never met; differential U 0 > S −5
    assert rows["U"].tally.played == 0
    assert (rows["U"].rank, rows["S"].rank) == (5, 6)
    assert rows["U"].decided_by is DIFF and rows["S"].decided_by is DIFF


def test_one_entrant_and_no_matches() -> None:
    rows = standings(swiss(), people("A"), [])
    assert [(r.rank, r.decided_by, r.tally.played) for r in rows] == [(1, None, 0)]
    assert standings(swiss(), [], []) == ()


@pytest.mark.parametrize(
    ("matches", "code", "words"),
    [
        ([(pair(1, 1, "A", "Z"), one(20, 10))], ErrorCode.UNKNOWN_ENTRANT, "'Z' is not an entrant"),
        ([(pair(1, 1, "A", None), one(20, 10))], ErrorCode.BAD_RESULT, "a bye has no result"),
        ([(pair(1, 1, "A", "B"), None)], ErrorCode.BAD_RESULT, "the match has no result"),
        ([(pair(1, 1, "A", "B"), MatchResult(()))], ErrorCode.BAD_RESULT, "at least one game"),
        (
            [(pair(1, 1, "A", "B"), MatchResult((GameScore((RoundScore((20, 10)),)),)))],
            ErrorCode.BAD_RESULT,
            "game 1 is not finished",
        ),
        (
            [(pair(1, 1, "A", "B"), MatchResult((game(20, 10), game(20, 10))))],
            ErrorCode.BAD_RESULT,
            "a single-game match has one game",
        ),
        (
            [(Pairing(1, 1, (("A", "B"), ("C",))), one(20, 10))],
            ErrorCode.BAD_EVENT,
            "each side of a match here has 1",
        ),
        ([(pair(1, 1, "A", "A"), one(20, 10))], ErrorCode.BAD_EVENT, "appears twice"),
        ([(pair(1, 1, "A", "B", first=2), one(20, 10))], ErrorCode.BAD_EVENT, "0 or 1, not 2"),
        ([(pair(1, 1, "A", "B", best_of=2), one(20, 10))], ErrorCode.BAD_EVENT, "1, 3 or 5"),
        ([(Pairing(1, 1, ((), ())), None)], ErrorCode.BAD_EVENT, "a bye has its entrant"),
        ([("not a match",)], ErrorCode.BAD_EVENT, "a match is a (pairing, result) pair"),
    ],
)
def test_bad_matches_are_refused_in_plain_words(
    matches: list[tuple[Pairing, MatchResult | None]], code: ErrorCode, words: str
) -> None:
    with pytest.raises(EventError) as info:
        standings(swiss(), people("ABC"), matches)
    assert info.value.code is code
    assert words in info.value.message


def test_two_entrants_with_one_id_are_refused() -> None:
    with pytest.raises(EventError, match="two entrants have the id 'A'") as info:
        standings(swiss(), people("AA"), [])
    assert info.value.code is ErrorCode.BAD_EVENT


def test_rotating_doubles_need_two_a_side() -> None:
    settings_ = doubles()
    with pytest.raises(EventError, match="has 2 entrant"):
        tallies(settings_, [(pair(1, 1, "a", "b"), one(20, 10))])


# --- properties --------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(events())
def test_standings_are_a_ranking_of_every_entrant(event: tuple[EventSettings, list, list]) -> None:
    """A permutation of the entrants; ranks non-decreasing, each rank is 1 + the entrants
    strictly ahead; the same rank exactly when level on every value; the match points
    add up to what the results give (win + loss or 2 draws a match, a win a bye)."""
    settings_, entrants, matches = event
    rows = standings(settings_, entrants, matches)
    assert Counter(r.id for r in rows) == Counter(e.id for e in entrants)
    assert all(list(r.values) == list(settings_.tie_breaks) for r in rows)
    for index, row in enumerate(rows):
        if index and rows[index - 1].rank == row.rank:
            assert dict(rows[index - 1].values) == dict(row.values)
            assert row.decided_by is None
        else:
            assert row.rank == index + 1
            if index:
                assert dict(rows[index - 1].values) != dict(row.values)
            unique = index + 1 == len(rows) or rows[index + 1].rank != row.rank
            if unique and len(rows) > 1:
                assert row.decided_by is not None
        if index:
            assert rows[index - 1].rank <= row.rank
    points = settings_.points
    expected = 0
    for pairing, result in matches:
        size = len(pairing.sides[0])
        if result is None:
            expected += points.win * size
        elif result.winner(settings_.rules, pairing.best_of) is None:
            expected += 2 * points.draw * size
        else:
            expected += (points.win + points.loss) * size
    assert sum(r.tally.match_points for r in rows) == expected
    assert sum(r.tally.points_for for r in rows) == sum(r.tally.points_against for r in rows)
    assert sum(r.tally.firsts for r in rows) == 0
