"""The pure parts of an event's online tables: their settings, who sits where, the score.

Issue 23, "Play": for online players each pairing is a table created for them
at the round's start, with the event's clock and the abort on no-show of
ranked play; their results enter the event by themselves.
"""

from __future__ import annotations

import pytest

from crokinole.board import Seat
from crokinole.errors import EventError
from crokinole.events.model import (
    Entrant,
    EventSettings,
    Format,
    GameScore,
    Pairing,
    Person,
    Teams,
)
from crokinole.rules import Layout, Rules, Scoring, TieSetting
from crokinole.server.events.tables import game_score, opener, seating, table_settings
from crokinole.server.ranked import rated
from crokinole.table import (
    Connect,
    EventLink,
    GameAborted,
    GameFinished,
    Join,
    Kind,
    Leave,
    RankedPlayer,
    Resign,
    SeatRating,
    Stage,
    Table,
    TableError,
    TableSettings,
    Tick,
)
from tests.support.table import T0, shoot

SWISS = EventSettings(name="Tuesday league", format=Format.SWISS, rounds=2)


def singles(*names: str, accounts: bool = True) -> list[Entrant]:
    return [
        Entrant(f"e{n}", name, (Person(name, n if accounts else None),))
        for n, name in enumerate(names, 1)
    ]


def test_the_tables_play_the_events_rules_and_clock() -> None:
    """R2 options of the event, the event's clock (none, 30 or 60 s), online's human hand,
    never hints."""
    settings = EventSettings(
        name="Worlds",
        format=Format.SWISS,
        rounds=3,
        rules=Rules(discs_per_side=12, rounds=2, tie=TieSetting.EXTRA_ROUNDS),
        turn_seconds=60,
    )
    made = table_settings(settings)
    assert (made.layout, made.discs, made.rounds, made.tie) == (
        Layout.SINGLES,
        12,
        2,
        TieSetting.EXTRA_ROUNDS,
    )
    assert (made.turn_time, made.hand.value, made.hints, made.required_contact) == (
        60.0,
        "human",
        False,
        True,
    )
    assert made.rules().turn_time == 60
    untimed = table_settings(
        EventSettings(name="Slow", format=Format.SWISS, rounds=1, turn_seconds=None)
    )
    assert untimed.turn_time is None
    century = Rules(scoring=Scoring.TO_100)
    to_100 = table_settings(EventSettings(name="C", format=Format.SWISS, rounds=1, rules=century))
    assert (to_100.scoring, to_100.rounds) == (Scoring.TO_100, None)


def test_rules_a_table_cannot_play_are_refused_in_words() -> None:
    """A table plays at most four rounds (R2's four-round game), and games to 100 only."""
    long_game = EventSettings(name="Marathon", format=Format.SWISS, rounds=1, rules=Rules(rounds=6))
    with pytest.raises(EventError) as refused:
        table_settings(long_game)
    assert refused.value.code == "bad_event"
    assert "online tables cannot play it" in str(refused.value)
    to_200 = EventSettings(
        name="Long", format=Format.SWISS, rounds=1, rules=Rules(scoring=Scoring.TO_100, target=200)
    )
    with pytest.raises(EventError, match="games to 100, not to 200"):
        table_settings(to_200)


def test_the_first_shooter_alternates_game_by_game() -> None:
    """Issue 23: the pairing's first side opens game 1; a best-of-3 alternates the opener."""
    pairing = Pairing(round=3, table=1, sides=(("e1",), ("e2",)), first=0, best_of=3)
    assert [opener(pairing, g) for g in (1, 2, 3)] == [0, 1, 0]


def test_the_opening_side_sits_south() -> None:
    """Side 0 at south opens (R2: game 1 opens with the first seat); here the pairing's
    side 1 shoots first, so its player sits south, and in game 2 the other does."""
    ann, bob = singles("Ann", "Bob")
    pairing = Pairing(round=1, table=2, sides=(("e1",), ("e2",)), first=1, best_of=3)
    game1 = seating(SWISS, [ann, bob], pairing, 1)
    game2 = seating(SWISS, [ann, bob], pairing, 2)
    assert game1 is not None and game2 is not None
    assert [(s.seat, s.side, s.person.name) for s in game1] == [
        (Seat.SOUTH, 1, "Bob"),
        (Seat.NORTH, 0, "Ann"),
    ]
    assert [(s.seat, s.person.name) for s in game2] == [(Seat.SOUTH, "Ann"), (Seat.NORTH, "Bob")]


def test_doubles_partners_sit_opposite() -> None:
    """R2: doubles partners opposite (south-north, west-east), for fixed teams and for
    rotating partners alike."""
    fixed = EventSettings(
        name="Pairs", format=Format.SWISS, rounds=2, teams=Teams.FIXED, rules=Rules.doubles()
    )
    teams = [
        Entrant("e1", "Ann & Bo", (Person("Ann", 1), Person("Bo", 2))),
        Entrant("e2", "Cy & Di", (Person("Cy", 3), Person("Di", 4))),
    ]
    pairing = Pairing(round=1, table=1, sides=(("e1",), ("e2",)), first=0)
    seats = seating(fixed, teams, pairing, 1)
    assert seats is not None
    assert {s.seat: s.person.name for s in seats} == {
        Seat.SOUTH: "Ann",
        Seat.NORTH: "Bo",
        Seat.WEST: "Cy",
        Seat.EAST: "Di",
    }
    rotating = EventSettings(
        name="St. Jacobs", format=Format.SWISS, rounds=2, teams=Teams.ROTATING,
        rules=Rules.doubles(),
    )  # fmt: skip
    players = singles("Ann", "Bo", "Cy", "Di")
    pairing = Pairing(round=1, table=1, sides=(("e1", "e4"), ("e2", "e3")), first=1)
    seats = seating(rotating, players, pairing, 1)
    assert seats is not None
    assert {s.seat: (s.side, s.person.name) for s in seats} == {
        Seat.SOUTH: (1, "Bo"),
        Seat.NORTH: (1, "Cy"),
        Seat.WEST: (0, "Ann"),
        Seat.EAST: (0, "Di"),
    }


def test_a_pairing_with_a_player_without_an_account_gets_no_table() -> None:
    """A name without an account plays on a board (issue 23: online players get tables)."""
    ann = singles("Ann")[0]
    guest = Entrant("e2", "Gus", (Person("Gus"),))
    pairing = Pairing(round=1, table=1, sides=(("e1",), ("e2",)))
    assert seating(SWISS, [ann, guest], pairing, 1) is None


def event_table(first: int, settings: EventSettings = SWISS) -> Table:
    """An event's table of Ann (e1, account 1) against Bob (e2, account 2), one round a game;
    the pairing's side ``first`` opens (sits south)."""
    one_round = EventSettings(
        name=settings.name, format=settings.format, rounds=settings.rounds,
        rules=Rules(rounds=1), turn_seconds=30,
    )  # fmt: skip
    pairing = Pairing(round=1, table=1, sides=(("e1",), ("e2",)), first=first)
    seated = seating(one_round, singles("Ann", "Bob"), pairing, 1)
    assert seated is not None
    players = {
        s.seat: RankedPlayer(rated.identity(s.person.account_id or 0), s.person.name,
                             SeatRating(1000, True))
        for s in seated
    }  # fmt: skip
    link = EventLink("ev1", settings.name, "Round 1", round=1, table=1)
    table, _ = Table.create_ranked(
        id="e" * 32, players=players, settings=table_settings(one_round), seed=5, now=T0,
        event=link, code="WATCH2",
    )  # fmt: skip
    return table


def test_an_event_table_is_a_ranked_table_linked_to_its_event() -> None:
    table = event_table(0)
    assert table.kind is Kind.RANKED and table.stage is Stage.PLAYING
    assert table.event == EventLink("ev1", "Tuesday league", "Round 1", round=1, table=1)
    assert table.settings.rounds == 1 and table.settings.turn_time == 30.0
    assert Table.from_dict(table.to_dict()) == table


def test_ranked_tables_without_an_event_still_need_the_ranked_rules() -> None:
    settings = table_settings(SWISS)
    players = {
        Seat.SOUTH: RankedPlayer("account:1", "ann", SeatRating(1000, True)),
        Seat.NORTH: RankedPlayer("account:2", "bob", SeatRating(1000, True)),
    }
    with pytest.raises(TableError, match="the ranked rules"):
        Table.create_ranked(id="r" * 32, players=players, settings=settings, seed=1, now=T0)


def play_out(table: Table, now: float) -> Table:
    for who in ("account:1", "account:2"):
        table, _ = table.apply(Connect(who), now)
    while table.stage is Stage.PLAYING:
        now += 1
        table, _ = shoot(table, now)
    return table


@pytest.mark.parametrize("first", [0, 1])
def test_a_played_game_is_its_rounds_in_the_pairings_side_order(first: int) -> None:
    """R6: each round's totals and 20s, side by side as the pairing has them (side 0 is
    Ann's even when Bob opened at south); the event's scoring of those rounds gives the
    game points the table's game gave each player."""
    table = play_out(event_table(first), T0)
    game = table.game
    assert game is not None and game.is_over
    score = game_score(table, first)
    assert score is not None and score.forfeit is None
    ann_seat, bob_seat = (Seat.SOUTH, Seat.NORTH) if first == 0 else (Seat.NORTH, Seat.SOUTH)
    ann_side, bob_side = game.side_of(ann_seat), game.side_of(bob_seat)
    assert [r.totals for r in score.rounds] == [
        (r.totals[ann_side], r.totals[bob_side]) for r in game.history
    ]
    assert [r.twenties for r in score.rounds] == [
        (r.counts[ann_side].twenties, r.counts[bob_side].twenties) for r in game.history
    ]
    final = game.history[-1].scores_after
    assert score.game_points(Rules(rounds=1)) == (final[ann_side], final[bob_side])


def test_a_no_show_loses_by_forfeit() -> None:
    """Ranked play's abort on a no-show: Bob (south, he opens) never comes; at the end of
    his first turn's clock (30 s + grace) the game is aborted and he forfeits it."""
    table = event_table(1)
    table, _ = table.apply(Connect("account:1"), T0)
    deadline = table.next_deadline()
    assert deadline is not None and deadline.kind.value == "no_show"
    assert deadline.at == T0 + 30 + table.timings.turn_grace
    table, events = table.apply(Tick(), deadline.at)
    assert [type(e) for e in events] == [GameAborted, GameFinished]
    assert game_score(table, 1) == GameScore(forfeit=1)


def test_a_player_who_resigns_loses_by_forfeit() -> None:
    """A ranked player who resigns abandons the game: Ann (pairing side 0, north) resigns
    after the first shots and forfeits."""
    table = event_table(1)
    for who in ("account:1", "account:2"):
        table, _ = table.apply(Connect(who), T0)
    table, _ = shoot(table, T0 + 1)
    table, _ = shoot(table, T0 + 2)
    assert game_score(table, 1) is None  # still being played
    table, _ = table.apply(Resign("account:1"), T0 + 3)
    assert table.stage is Stage.FINISHED
    assert game_score(table, 1) == GameScore(forfeit=0)


def test_anyone_may_watch_an_events_table_and_go_without_ending_it() -> None:
    """Issue 23, "Watch": live tables, spectate any online game.  A spectator joins an
    event's table (a Join as a spectator; the table has a code for it), and leaving
    ends nothing; joining as a player is still refused, and a ranked table that is not
    an event's takes no spectator."""
    table = event_table(0)
    table, events = table.apply(Join("dev-eve", "Eve", spectator=True), T0 + 1)
    assert [e.TYPE for e in events] == ["member_joined"]
    assert table.spectators == 1 and table.stage is Stage.PLAYING
    table, events = table.apply(Leave("dev-eve"), T0 + 2)
    assert [e.TYPE for e in events] == ["member_left"]
    assert table.stage is Stage.PLAYING and table.spectators == 0
    with pytest.raises(TableError, match="only its players can join"):
        table.apply(Join("dev-fay", "Fay"), T0 + 3)
    ranked_players = {
        Seat.SOUTH: RankedPlayer("account:1", "ann", SeatRating(1000, True)),
        Seat.NORTH: RankedPlayer("account:2", "bob", SeatRating(1000, True)),
    }
    plain, _ = Table.create_ranked(
        id="r" * 32, players=ranked_players, settings=TableSettings.ranked("singles"), seed=1,
        now=T0,
    )  # fmt: skip
    assert plain.code is None
    with pytest.raises(TableError, match="only its players can join"):
        plain.apply(Join("dev-eve", "Eve", spectator=True), T0 + 1)
