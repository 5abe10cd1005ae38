"""An event's online tables on the server's owner of the tables and the event service.

Issue 23, "Play": for online players each pairing is a table created for them
at the round's start, with the event's clock (and the abort on no-show of
ranked play); their results enter the event by themselves.  Here the owner
of the tables and the event service run on one store with a test clock, so
the no-show's clock is reached at once.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import anyio
import pytest

from crokinole.board import Seat
from crokinole.events.event import Actor, Event
from crokinole.events.model import EventSettings, Format, GameScore, MatchResult, Teams, Venue
from crokinole.rules import Layout, Rules, TieSetting
from crokinole.server.events.service import EventService
from crokinole.server.events.tables import EventTables, game_score, opener
from crokinole.server.owner.tables import Tables
from crokinole.store import Store
from crokinole.table import Connect, NextRound, Shoot, Stage, Table, Tick
from tests.support.table import T0, legal_shot


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store.open(str(tmp_path / "events.db"))
    yield opened
    opened.close()


@dataclass
class Site:
    """The server's parts an event's tables need, on one store and one clock."""

    store: Store
    clock: Clock
    tables: Tables
    events: EventService
    online: EventTables
    organiser: int

    def actor(self, event: Event) -> Actor:
        return self.events.actor(event, self.organiser)

    async def run(self, event_id: str, command: str, *args: Any, **kw: Any) -> Event:
        def decide(event: Event) -> Any:
            return getattr(event, command)(self.actor(event), *args, now=self.clock(), **kw)

        return await self.events.run(event_id, decide)


async def site(store: Store) -> Site:
    clock = Clock()
    tables = Tables(store, clock=clock)
    events = EventService(store, tables.hub, clock=clock)
    online = EventTables.installed(events, tables)
    online.listen()
    organiser = store.create_account("org", "org", "$argon2id$x", datetime(2026, 1, 1)).id
    return Site(store, clock, tables, events, online, organiser)


async def event_of(s: Site, names: list[str], **options: Any) -> tuple[str, dict[str, int]]:
    """An online event of ``names`` (each an account), checked in; its id, and the
    accounts by entrant id."""
    options.setdefault("rules", Rules(rounds=1))
    options.setdefault("turn_seconds", 30)
    settings = EventSettings(name="Tuesday league", **options)
    event = await s.events.create(s.organiser, settings, now=s.clock())
    accounts = {}
    for name in names:
        account = s.store.create_account(name, name, "$argon2id$x", datetime(2026, 1, 1)).id
        event = await s.run(event.id, "add", name, account_id=account)
        accounts[event.entrants[-1].id] = account
    for entrant in event.entrants:
        event = await s.run(event.id, "check_in", entrant.id)
    return event.id, accounts


async def opened(s: Site, event_id: str, round: int) -> tuple[str, ...]:
    """The round's tables once made: starting the round makes them by itself (the
    change is heard, and this process leads the making)."""
    for _ in range(400):
        event = await s.events.load(event_id)
        assert event is not None
        state = event.rounds[round - 1]
        if all(p.bye or state.tables.get(p.table) for p in state.pairings):
            return tuple(t for p in state.pairings for t in state.tables.get(p.table, ()))
        await anyio.sleep(0.01)
    raise AssertionError(f"round {round}'s tables were not made")


async def settled(s: Site, event_id: str, round: int, table: int) -> Event:
    """The event once the pairing's result is in (the owner's hook runs as a task)."""
    for _ in range(400):
        event = await s.events.load(event_id)
        assert event is not None
        result = event.rounds[round - 1].results.get(table)
        if result is not None:
            return event
        await anyio.sleep(0.01)
    raise AssertionError(f"no result for table {table} of round {round}")


async def play_out(s: Site, table_id: str) -> Table:
    """Every player connects and shoots a legal shot in turn (Next after each round)."""
    table = await s.tables.get(table_id)
    assert table is not None
    devices = [m.device for m in table.members]
    for device in devices:
        await s.tables.command(table_id, Connect(device))
    while True:
        table = s.tables.held(table_id)
        assert table is not None and table.game is not None
        if table.stage is not Stage.PLAYING:
            return table
        seat = table.game.current_seat
        s.clock.now += 1
        if seat is None:
            for device in devices:
                await s.tables.command(table_id, NextRound(device))
            continue
        occupant = table.seats[seat]
        member = table.member(getattr(occupant, "mid", ""))
        assert member is not None
        shot = legal_shot(table.game, seat)
        await s.tables.command(table_id, Shoot(member.device, seat, shot))


def winner_of(table: Table, first: int) -> int | None:
    """The pairing side that won the table's game, by the engine's outcome (R2)."""
    assert table.game is not None and table.game.outcome is not None
    winner = table.game.outcome.winner
    return None if winner is None else (first if winner == 0 else 1 - first)


def test_a_round_of_a_swiss_gets_its_tables_and_their_results_count(store: Store) -> None:
    """Issue 23: a 2-round online Swiss of 4; round 1's two pairings each get a table
    seated by the pairing (the first side at south), played at the event's rules (one
    round) and clock (30 s); each game's result enters the event by itself, confirmed,
    and the standings are what the games gave: a win 2 match points, a draw 1 (the
    default points), the 20s as the tables counted them."""

    async def scenario() -> None:
        s = await site(store)
        event_id, accounts = await event_of(
            s, ["ann", "bob", "cat", "dan"], format=Format.SWISS, rounds=2
        )
        event = await s.run(event_id, "pair_next")
        event = await s.run(event_id, "start_round", 1)
        made = await opened(s, event_id, 1)
        assert len(made) == 2
        loaded = await s.events.load(event_id)
        assert loaded is not None
        event = loaded
        state = event.rounds[0]
        points: dict[str, int] = {}
        twenties: dict[str, int] = {}
        for pairing in state.pairings:
            (table_id,) = state.tables[pairing.table]
            table = await s.tables.get(table_id)
            assert table is not None and table.event is not None
            assert table.event.label == f"Tuesday league · Round 1 · Table {pairing.table}"
            assert table.settings.turn_time == 30.0 and table.settings.rounds == 1
            south = accounts[pairing.sides[pairing.first][0]]
            north = accounts[pairing.sides[1 - pairing.first][0]]
            assert table.member_of(f"account:{south}") is not None
            assert [m.device for m in table.members] == [f"account:{south}", f"account:{north}"]
            assert table.seats_of(table.members[0].mid) == (Seat.SOUTH,)
            done = await play_out(s, table_id)
            event = await settled(s, event_id, 1, pairing.table)
            result = event.rounds[0].results[pairing.table]
            assert result.confirmed and result.reported_by is None
            won = winner_of(done, pairing.first)
            for side in (0, 1):
                (entrant,) = pairing.sides[side]
                points[entrant] = 1 if won is None else 2 if won == side else 0
                table_side = 0 if side == pairing.first else 1
                assert done.game is not None
                twenties[entrant] = sum(r.counts[table_side].twenties for r in done.game.history)
        assert event.rounds[0].over
        standings = {st.id: st for st in event.standings()}
        assert {i: st.tally.match_points for i, st in standings.items()} == points
        assert {i: st.tally.twenties for i, st in standings.items()} == twenties
        # Unrated: nobody's ladder rating moved.
        assert store.ratings_of(list(accounts.values()), "singles") == {}
        # The store knows each table's pairing.
        linked = store.event_tables(event_id)
        assert sorted((p.round, p.table) for p in linked.values()) == [(1, 1), (1, 2)]
        await s.tables.close()

    anyio.run(scenario)


def test_a_player_who_never_comes_forfeits(store: Store) -> None:
    """Ranked play's no-show abort at an event's table: nobody of table 1 comes; at the
    end of the opener's first turn (30 s + the turn grace) the game is aborted and the
    opener's side loses by forfeit, confirmed; the standings give the other a win."""

    async def scenario() -> None:
        s = await site(store)
        event_id, _ = await event_of(s, ["ann", "bob"], format=Format.SWISS, rounds=1)
        await s.run(event_id, "pair_next")
        await s.run(event_id, "start_round", 1)
        (table_id,) = await opened(s, event_id, 1)
        table = await s.tables.get(table_id)
        assert table is not None
        deadline = table.next_deadline()
        assert deadline is not None and deadline.kind.value == "no_show"
        assert deadline.at == T0 + 30 + table.timings.turn_grace
        s.clock.now = deadline.at
        await s.tables.command(table_id, Tick())
        event = await settled(s, event_id, 1, 1)
        pairing = event.rounds[0].pairings[0]
        result = event.rounds[0].results[1]
        assert result.confirmed
        assert result.result == MatchResult((GameScore(forfeit=pairing.first),))
        (winner,) = pairing.sides[1 - pairing.first]
        top = event.standings()[0]
        assert (top.id, top.tally.wins, top.tally.match_points) == (winner, 1, 2)
        await s.tables.close()

    anyio.run(scenario)


def test_a_result_is_reported_once(store: Store) -> None:
    """Several processes, one owner: a second report of the same game (settle after the
    hook) makes nothing more; the event's log does not grow."""

    async def scenario() -> None:
        s = await site(store)
        event_id, _ = await event_of(s, ["ann", "bob"], format=Format.SWISS, rounds=1)
        await s.run(event_id, "pair_next")
        await s.run(event_id, "start_round", 1)
        (table_id,) = await opened(s, event_id, 1)
        assert await s.online.open_round_tables(event_id, 1) == ()  # made once
        await play_out(s, table_id)
        event = await settled(s, event_id, 1, 1)
        version = event.version
        table = s.tables.held(table_id)
        assert table is not None
        await s.online.game_ended(table)
        await s.online.settle(event_id)
        again = await s.events.load(event_id)
        assert again is not None and again.version == version
        await s.tables.close()

    anyio.run(scenario)


def test_a_rated_event_moves_the_ladder_and_an_unrated_one_does_not(store: Store) -> None:
    """Issue 23: online event games may be rated (the organiser chooses), on the ranked
    ladder: a rated event's game changes both players' singles ratings."""

    async def scenario() -> None:
        s = await site(store)
        event_id, accounts = await event_of(
            s, ["ann", "bob"], format=Format.SWISS, rounds=1, rated=True
        )
        await s.run(event_id, "pair_next")
        await s.run(event_id, "start_round", 1)
        (table_id,) = await opened(s, event_id, 1)
        table = await s.tables.get(table_id)
        assert table is not None and table.event is not None and table.event.rated
        await play_out(s, table_id)
        await settled(s, event_id, 1, 1)
        ratings = store.ratings_of(list(accounts.values()), "singles")
        assert sorted(ratings) == sorted(accounts.values())
        assert all(r.games == 1 for r in ratings.values())
        await s.tables.close()

    anyio.run(scenario)


def test_a_best_of_three_opens_the_next_game_until_it_is_decided(store: Store) -> None:
    """Issue 23: playoff matches are best of 3 (a single-elimination final of two here).
    Game 1 opens with the pairing's first side at south; after it, the match is not
    decided, so game 2's table opens with the other side at south; the match is reported
    once a side has won two games, and its games are the tables' games in order."""

    async def scenario() -> None:
        s = await site(store)
        event_id, _ = await event_of(
            s, ["ann", "bob"], format=Format.ELIMINATION, best_of=3,
            rules=Rules(rounds=1, tie=TieSetting.EXTRA_ROUNDS),
        )  # fmt: skip
        await s.run(event_id, "pair_next")
        await s.run(event_id, "start_round", 1)
        (first_table,) = await opened(s, event_id, 1)
        event = await s.events.load(event_id)
        assert event is not None
        pairing = event.rounds[0].pairings[0]
        assert pairing.best_of == 3
        games: list[GameScore] = []
        played = 0
        table_id = first_table
        while True:
            played += 1
            done = await play_out(s, table_id)
            score = game_score(done, opener(pairing, played))
            assert score is not None
            games.append(score)
            for _ in range(400):
                event = await s.events.load(event_id)
                assert event is not None
                ids = event.rounds[0].tables.get(1, ())
                if len(ids) > played or 1 in event.rounds[0].results:
                    break
                await anyio.sleep(0.01)
            if 1 in event.rounds[0].results:
                break
            table_id = ids[played]
            nxt = await s.tables.get(table_id)
            assert nxt is not None and nxt.event is not None
            assert (nxt.event.game, nxt.event.best_of) == (played + 1, 3)
            opening = pairing.sides[opener(pairing, played + 1)][0]
            south = nxt.member(getattr(nxt.seats[Seat.SOUTH], "mid", ""))
            assert south is not None
            assert south.name == event.entrants[int(opening[1:]) - 1].name
        winners = [g.outcome(event.settings.rules) for g in games]
        wins = [sum(1 for w in winners if w is not None and w.winner == side) for side in (0, 1)]
        assert played >= 2 and max(wins) == 2
        result = event.rounds[0].results[1]
        assert result.confirmed and result.result == MatchResult(tuple(games))
        await s.tables.close()

    anyio.run(scenario)


def test_a_game_that_ended_unreported_is_reported_at_startup(store: Store) -> None:
    """A game that ended while no process was there to report it (the owner went down
    between storing the game's end and reporting it) is reported when a server starts."""

    async def scenario() -> None:
        s = await site(store)
        event_id, _ = await event_of(s, ["ann", "bob"], format=Format.SWISS, rounds=1)
        await s.run(event_id, "pair_next")
        await s.run(event_id, "start_round", 1)
        (table_id,) = await opened(s, event_id, 1)
        s.tables.on_event_game = None  # nobody hears the game's end
        done = await play_out(s, table_id)
        await anyio.sleep(0.1)
        event = await s.events.load(event_id)
        assert event is not None and 1 not in event.rounds[0].results
        await s.online.startup()
        event = await settled(s, event_id, 1, 1)
        pairing = event.rounds[0].pairings[0]
        expected = game_score(done, opener(pairing, 1))
        assert expected is not None
        result = event.rounds[0].results[1]
        assert result.confirmed and result.result == MatchResult((expected,))
        await s.tables.close()

    anyio.run(scenario)


def test_rotating_doubles_seat_partners_opposite_at_one_table(store: Store) -> None:
    """R2 doubles, St. Jacobs style (issue 23): four players, each scored alone; round 1's
    one pairing gets one table of four accounts, partners opposite (south-north against
    west-east), the first side at south and north."""

    async def scenario() -> None:
        s = await site(store)
        event_id, accounts = await event_of(
            s, ["ann", "bob", "cat", "dan"], format=Format.SWISS, rounds=1,
            teams=Teams.ROTATING, rules=Rules.doubles(),
        )  # fmt: skip
        await s.run(event_id, "pair_next")
        await s.run(event_id, "start_round", 1)
        (table_id,) = await opened(s, event_id, 1)
        event = await s.events.load(event_id)
        table = await s.tables.get(table_id)
        assert event is not None and table is not None
        (pairing,) = event.rounds[0].pairings
        first, other = pairing.sides[pairing.first], pairing.sides[1 - pairing.first]
        at = {seat: table.member(getattr(o, "mid", "")) for seat, o in table.seats.items()}
        devices = {seat: m.device for seat, m in at.items() if m is not None}
        assert {devices[Seat.SOUTH], devices[Seat.NORTH]} == {
            f"account:{accounts[e]}" for e in first
        }
        assert {devices[Seat.WEST], devices[Seat.EAST]} == {f"account:{accounts[e]}" for e in other}
        assert table.settings.layout is Layout.DOUBLES and table.settings.discs == 12
        await s.tables.close()

    anyio.run(scenario)


def test_both_venues_seat_only_the_pairings_of_accounts(store: Store) -> None:
    """An event played online and on boards (issue 23: "or both"): a pairing with a player
    who has no account (a name, in the hall) gets no table; the others get theirs."""

    async def scenario() -> None:
        s = await site(store)
        event_id, accounts = await event_of(
            s, ["ann", "bob", "cat"], format=Format.SWISS, rounds=1, venue=Venue.BOTH
        )
        event = await s.run(event_id, "add", "Gus")  # a name only: a board in the hall
        event = await s.run(event_id, "check_in", event.entrants[-1].id)
        await s.run(event_id, "pair_next")
        await s.run(event_id, "start_round", 1)
        for _ in range(100):
            event = await s.events.load(event_id) or event
            if any(event.rounds[0].tables.values()):
                break
            await anyio.sleep(0.01)
        await anyio.sleep(0.2)
        event = await s.events.load(event_id) or event
        state = event.rounds[0]
        for pairing in state.pairings:
            online = all(e in accounts for e in pairing.entrants)
            assert bool(state.tables.get(pairing.table)) == online, pairing
        assert sum(1 for p in state.pairings if state.tables.get(p.table)) == 1
        assert await s.online.open_round_tables(event_id, 1) == ()
        await s.tables.close()

    anyio.run(scenario)
