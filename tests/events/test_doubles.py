"""Rotating-partner doubles (crokinole.events.doubles): issue 23's "each round new partners
and opponents, drawn to minimise repeats, each player scored alone", and its figure: 16
players over 7 rounds, no partner twice and at most one repeat opponent pair per player."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crokinole.errors import EventError
from crokinole.events import DoublesPlayer, Pairing, pair_rotating


class Doubles:
    """A rotating-doubles event's record, kept by hand from the pairings (random results)."""

    def __init__(self, count: int, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.ids = [f"p{i}" for i in range(1, count + 1)]
        self.score = dict.fromkeys(self.ids, 0.0)
        self.rating = {i: float(self.rng.integers(1000, 2000)) for i in self.ids}
        self.partners: dict[str, Counter[str]] = {i: Counter() for i in self.ids}
        self.opponents: dict[str, Counter[str]] = {i: Counter() for i in self.ids}
        self.byes: Counter[str] = Counter()

    def players(self) -> list[DoublesPlayer]:
        return [
            DoublesPlayer(
                i,
                self.score[i],
                self.rating[i],
                dict(self.partners[i]),
                dict(self.opponents[i]),
                self.byes[i],
            )
            for i in self.ids
        ]

    def play(self, pairings: Sequence[Pairing]) -> None:
        for p in pairings:
            if p.bye:
                (sitter,) = p.sides[0]
                self.byes[sitter] += 1
                self.score[sitter] += 2
                continue
            won = int(self.rng.integers(2))
            for side, team in enumerate(p.sides):
                a, b = team
                self.partners[a][b] += 1
                self.partners[b][a] += 1
                for me in team:
                    self.score[me] += 2 if side == won else 0
                    for them in p.sides[1 - side]:
                        self.opponents[me][them] += 1

    def most_partnered(self) -> int:
        return max((max(c.values(), default=0) for c in self.partners.values()), default=0)

    def repeat_opponents(self, player: str) -> int:
        """Meetings with the same opponent beyond the first."""
        return sum(t - 1 for t in self.opponents[player].values() if t > 1)


def check_round(players: Sequence[DoublesPlayer], pairings: Sequence[Pairing], round: int) -> None:
    """Everyone at one table or on a bye; tables of two against two; byes N mod 4."""
    assert sorted(i for p in pairings for i in p.entrants) == sorted(p.id for p in players)
    games = [p for p in pairings if not p.bye]
    assert all(len(p.sides[0]) == 2 and len(p.sides[1]) == 2 for p in games)
    assert len(pairings) - len(games) == len(players) % 4
    assert all(len(p.sides[0]) == 1 for p in pairings if p.bye)
    assert [p.table for p in pairings] == list(range(1, len(pairings) + 1))
    assert all(p.round == round and p.stage == f"Round {round}" for p in pairings)


def test_round_one_seats_neighbours_in_the_ranking_together() -> None:
    """Partners of similar scores: 1 and 2 against 3 and 4, then 5 and 6 against 7 and 8."""
    players = [DoublesPlayer(f"p{i}", 0.0, 2000.0 - i) for i in range(8, 0, -1)]
    assert [p.sides for p in pair_rotating(players, 1)] == [
        (("p1", "p2"), ("p3", "p4")),
        (("p5", "p6"), ("p7", "p8")),
    ]


def test_byes_go_to_the_fewest_byes_then_the_lowest_ranked() -> None:
    """10 players: 2 byes; p9 and p10 (the lowest) have had one, so p7 and p8 sit out."""
    players = [DoublesPlayer(f"p{i}", 10.0 - i, 0.0, byes=int(i >= 9)) for i in range(1, 11)]
    pairings = pair_rotating(players, 4)
    assert [p.sides for p in pairings if p.bye] == [(("p7",), ()), (("p8",), ())]
    assert [p.table for p in pairings if p.bye] == [3, 4]


def test_a_repeat_partner_is_refused_while_another_draw_exists() -> None:
    """p1 and p2 have partnered: round 2 seats them apart, as opponents at most."""
    played = {"p1": {"p2": 1}, "p2": {"p1": 1}, "p3": {"p4": 1}, "p4": {"p3": 1}}
    players = [DoublesPlayer(f"p{i}", 0.0, 10.0 - i, played[f"p{i}"]) for i in range(1, 5)]
    ((team_one, team_two),) = [p.sides for p in pair_rotating(players, 2)]
    assert {frozenset(team_one), frozenset(team_two)} & {
        frozenset({"p1", "p2"}),
        frozenset({"p3", "p4"}),
    } == set()


@pytest.mark.parametrize(
    ("players", "round", "message"),
    [
        ([DoublesPlayer(f"p{i}", 0, 0) for i in range(3)], 1, "at least 4 players"),
        ([DoublesPlayer("p", 0, 0)] * 4, 1, "distinct"),
        ([DoublesPlayer(f"p{i}", 0, 0) for i in range(4)], 0, "numbered from 1"),
    ],
)
def test_bad_input_is_refused_in_plain_words(
    players: list[DoublesPlayer], round: int, message: str
) -> None:
    with pytest.raises(EventError, match=message):
        pair_rotating(players, round)


def partner_free_draw_exists(ids: list[str], partnered: dict[str, Counter[str]]) -> bool:
    """Whether the players can all be partnered anew (plain recursion)."""
    if not ids:
        return True
    head, rest = ids[0], ids[1:]
    return any(
        not partnered[head][other] and partner_free_draw_exists(rest[:k] + rest[k + 1 :], partnered)
        for k, other in enumerate(rest)
    )


@settings(max_examples=20, deadline=None)
@given(st.integers(4, 11), st.integers(1, 6), st.integers(0, 2**32 - 1))
def test_everyone_plays_or_sits_out_once_and_partners_are_new_while_they_can_be(
    count: int, rounds: int, seed: int
) -> None:
    """Every round: everyone once; a repeat partner only if no draw avoids one (brute force);
    byes at most one each while someone has none (issue 23, rotating doubles)."""
    event = Doubles(count, seed)
    for number in range(1, rounds + 1):
        players = event.players()
        pairings = pair_rotating(players, number)
        check_round(players, pairings, number)
        sitting = {p.sides[0][0] for p in pairings if p.bye}
        if sitting:
            others = [event.byes[i] for i in event.ids if i not in sitting]
            assert max(event.byes[i] for i in sitting) <= min(others)
        repeated = [p for p in pairings if not p.bye for a, b in p.sides if event.partners[a][b]]
        if repeated:
            playing = [i for i in event.ids if i not in sitting]
            assert not partner_free_draw_exists(playing, event.partners)
        event.play(pairings)
    if rounds * (count % 4) <= count:
        assert max(event.byes.values(), default=0) <= 1


def sixteen_over_seven(seed: int) -> None:
    event = Doubles(16, seed)
    for number in range(1, 8):
        event.play(pair_rotating(event.players(), number))
    assert event.most_partnered() == 1
    assert max(event.repeat_opponents(i) for i in event.ids) <= 1


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_sixteen_players_over_seven_rounds(seed: int) -> None:
    """The issue's figure: 16 players, 7 rounds of random results: no partner twice and at
    most one repeat opponent pair per player."""
    sixteen_over_seven(seed)


@pytest.mark.slow
def test_sixteen_players_over_seven_rounds_many_seeds() -> None:
    """The figure over 30 more events."""
    for seed in range(100, 130):
        sixteen_over_seven(seed)
