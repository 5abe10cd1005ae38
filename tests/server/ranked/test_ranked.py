"""The ranked queue service and the rating of a ranked game's end, without websockets."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import pytest

from crokinole.board import Seat
from crokinole.ranking import INITIAL, Outcome, display, rate, rate_verdict, result_of
from crokinole.ranking import SideResult as Side
from crokinole.server.owner.tables import Tables, results_of
from crokinole.server.protocol import WireError
from crokinole.server.ranked import fair_play, rated
from crokinole.server.ranked.queue import RETURN_WITHIN_S, RankedQueue
from crokinole.store import Store
from crokinole.table import (
    Connect,
    Disconnect,
    GameAborted,
    GameFinished,
    RankedPlayer,
    Resign,
    SeatRating,
    Shoot,
    Stage,
    Table,
    TableSettings,
    Tick,
    Timings,
)
from tests.support.table import legal_shot, shoot

T0 = 1000.0


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = Store.open(str(tmp_path / "ranked.db"))
    yield opened
    opened.close()


def accounts(store: Store, *names: str) -> list[int]:
    return [store.create_account(n, n, "$argon2id$x", datetime(2026, 1, 1)).id for n in names]


def ranked_table(store: Store, ids: list[int], layout: str = "singles") -> Table:
    settings = TableSettings.ranked(layout, 1)
    players = {
        seat: RankedPlayer(rated.identity(a), f"p{a}", SeatRating(1000, True))
        for seat, a in zip(settings.seats, ids, strict=True)
    }
    table, _ = Table.create_ranked(
        id="c" * 32, players=players, settings=settings, timings=Timings(standin_grace=5), seed=3,
        now=T0,
    )  # fmt: skip
    return table


def play_out(table: Table, now: float) -> tuple[Table, Table, list[Any]]:
    """Shoot (a person's shot, or the server's for a stand-in) until the game ends; the table
    before the last shot, after it, and its events."""
    while True:
        game = table.game
        assert game is not None
        if game.current_seat is None:  # a level round: the next starts after its countdown
            now += table.timings.round_countdown
            table, _ = table.apply(Tick(), now)
            continue
        seat = game.current_seat
        member = table.member(table.seats[seat].mid)  # type: ignore[union-attr]
        deadline = table.next_deadline()
        if member is not None and not member.connected and seat not in table.standing_in:
            assert deadline is not None  # the stand-in comes after its grace
            now = deadline.at
            table, _ = table.apply(Tick(), now)
            continue
        shot = legal_shot(game, seat)
        if table.cpu_turn() is not None:
            command = Shoot(None, seat, shot, cpu=True)
        else:
            assert member is not None
            command = Shoot(member.device, seat, shot)
        now += 1
        after, events = table.apply(command, now)
        if after.stage is Stage.FINISHED:
            return table, after, events
        table = after


def test_a_side_the_cpu_stood_in_for_most_of_the_game_loses_whatever_the_score(
    store: Store,
) -> None:
    ann, bob = accounts(store, "ann", "bob")
    table = ranked_table(store, [ann, bob])
    for who in (ann, bob):
        table, _ = table.apply(Connect(rated.identity(who)), T0)
    table, _ = shoot(table, T0 + 1)  # ann's first disc
    table, _ = shoot(table, T0 + 2)  # bob shows for his first, then goes
    table, _ = table.apply(Disconnect(rated.identity(bob)), T0 + 3)
    before, after, events = play_out(table, T0 + 3)
    assert after.standin_share(Seat.NORTH) == 7 / 8 and after.standin_share(Seat.SOUTH) == 0.0
    changes = rated.rating_changes(store, before, after, events)
    assert [(c.account_id, c.side, c.outcome) for c in changes] == [
        (ann, 0, "win"),
        (bob, 1, "loss"),
    ]
    (ann_after,), (bob_after,) = rate([INITIAL], [INITIAL], Outcome.WIN)
    assert [c.rating_after for c in changes] == [display(ann_after), display(bob_after)]
    assert all(c.rating_before == 1000 and c.game_number == 1 for c in changes)


def test_a_no_show_aborts_the_game_rates_nobody_and_is_kept(store: Store) -> None:
    """Bob never comes: before, a stand-in played his whole game and he was rated as beaten;
    now his first turn's clock aborts it, and it counts in no rating and no record."""
    ann, bob = accounts(store, "ann", "bob")
    table = ranked_table(store, [ann, bob])
    table, _ = table.apply(Connect(rated.identity(ann)), T0)
    table, _ = shoot(table, T0 + 1)
    deadline = table.next_deadline()
    assert deadline is not None and deadline.kind.value == "no_show"
    before = table
    after, events = table.apply(Tick(), deadline.at)
    assert [type(e) for e in events] == [GameAborted, GameFinished]
    assert after.stage is Stage.FINISHED and after.standin_turns == {}
    assert rated.rating_changes(store, before, after, events) == []
    assert results_of(after, events, before=before) == []
    assert rated.no_shows(before, events) == [bob]


def test_repeated_no_shows_keep_an_account_out_of_the_queue_for_a_while(store: Store) -> None:
    ann, bob = accounts(store, "ann", "bob")
    now = datetime.now(UTC).replace(tzinfo=None)
    clock = Clock()

    def no_show(table_id: str, at: datetime) -> None:
        store.create_table(
            table_id, kind="ranked", code=None, events=[{"type": "created", "version": 1}],
            snapshot={}, members=[], deadline=None, status="playing",
        )  # fmt: skip
        store.append_table_events(
            table_id, 1, [{"type": "aborted", "version": 2}], None, deadline=None,
            status="finished", no_shows=[bob], now=at,
        )  # fmt: skip

    async def codes() -> list[str]:
        tables = Tables(store, clock=clock)
        queue = RankedQueue(store, tables)
        found = []
        for account in (bob, ann):
            client = Client(account)
            try:
                await queue.queue(client, "singles")
                found.append(client.sent[-1]["type"])
                await queue.leave(client)
            except WireError as exc:
                found.append(f"{exc.code}: {exc.message}")
        await tables.close()
        return found

    no_show("a" * 32, now - timedelta(hours=3))
    assert anyio.run(codes) == ["queued", "queued"]  # one no-show: a slip
    no_show("b" * 32, now - timedelta(minutes=5))
    until = now - timedelta(minutes=5) + fair_play.NO_SHOW_BAR
    assert anyio.run(codes) == [
        "no_shows: you did not take your first shot in 2 ranked games lately: you can queue "
        f"again at {until:%H:%M} UTC",
        "queued",  # ann is not barred
    ]
    assert fair_play.queue_barred_until(store, bob, until + timedelta(seconds=1)) is None
    assert fair_play.queue_barred_until(store, bob, now + timedelta(days=2)) is None


def test_a_played_game_is_rated_by_its_score_from_the_stored_ratings(store: Store) -> None:
    ann, bob = accounts(store, "ann", "bob")
    table = ranked_table(store, [ann, bob])
    for who in (ann, bob):
        table, _ = table.apply(Connect(rated.identity(who)), T0)
    before, after, events = play_out(table, T0)
    end = events[-1]
    assert isinstance(end, GameFinished)
    score = {0: Outcome.WIN, 1: Outcome.LOSS}.get(end.winner, Outcome.DRAW)  # type: ignore[arg-type]
    changes = rated.rating_changes(store, before, after, events)
    (a,), (b,) = rate_verdict([INITIAL], [INITIAL], result_of(score, Side(), Side()))
    assert [(c.mu_after, c.sigma_after) for c in changes] == [(a.mu, a.sigma), (b.mu, b.sigma)]
    # Not a ranked end: nothing to rate.
    assert rated.rating_changes(store, table, table, []) == []


def test_doubles_sides_are_the_partners(store: Store) -> None:
    ids = accounts(store, "ann", "bob", "cat", "dan")
    table = ranked_table(store, ids, "doubles")
    for who in ids:
        table, _ = table.apply(Connect(rated.identity(who)), T0)
    before = table
    assert [table.seats_of(f"m{n}") for n in (1, 2, 3, 4)] == [
        (Seat.SOUTH,), (Seat.WEST,), (Seat.NORTH,), (Seat.EAST,)
    ]  # fmt: skip
    after, events = table.apply(Resign(rated.identity(ids[1])), T0 + 1)  # west leaves
    changes = rated.rating_changes(store, before, after, events)
    # South and north (ann, cat) are side A; west and east (bob, dan) abandoned.
    assert [(c.account_id, c.side, c.outcome) for c in changes] == [
        (ids[0], 0, "win"),
        (ids[2], 0, "win"),
        (ids[1], 1, "loss"),
        (ids[3], 1, "loss"),
    ]


class Client:
    """A connection as the queue sees it."""

    def __init__(self, account_id: int | None) -> None:
        self.account_id = account_id
        self.sent: list[dict[str, Any]] = []

    def send(self, payload: dict[str, Any]) -> None:
        self.sent.append(payload)


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> float:
        return self.now


def test_four_solo_players_make_a_doubles_table(store: Store) -> None:
    ids = accounts(store, "ann", "bob", "cat", "dan")
    clock = Clock()

    async def scenario() -> tuple[list[Table], list[Client]]:
        tables = Tables(store, clock=clock)
        queue = RankedQueue(store, tables, rounds=1)
        clients = [Client(a) for a in ids]
        for client in clients:
            await queue.queue(client, "doubles")
            clock.now += 1
        made = await queue.pair_now()
        await tables.close()
        return made, clients

    made, clients = anyio.run(scenario)
    (table,) = made
    assert table.settings == TableSettings.ranked("doubles", 1)
    matched = [c.sent[-1] for c in clients]
    assert all(m["type"] == "matched" and m["table"] == table.id for m in matched)
    assert sorted(m["seat"] for m in matched) == ["east", "north", "south", "west"]
    assert [p["seat"] for p in matched[0]["players"]] == ["south", "west", "north", "east"]
    # The longest waiting (ann) anchors side A, south and north.
    assert {m["seat"] for c, m in zip(clients, matched, strict=True) if c.account_id == ids[0]} == {
        "south"
    }
    assert store.queue_entries() == []


def test_an_away_entry_is_dropped_after_60_s_and_a_guest_cannot_queue(store: Store) -> None:
    (ann,) = accounts(store, "ann")
    clock = Clock()

    async def scenario() -> tuple[dict[int, str], dict[int, str], list[str]]:
        tables = Tables(store, clock=clock)
        queue = RankedQueue(store, tables)
        codes = []
        for client, ladder in ((Client(None), "singles"), (Client(ann), "pairs")):
            try:
                await queue.queue(client, ladder)
            except WireError as exc:
                codes.append(exc.code)
        client = Client(ann)
        await queue.queue(client, "singles")
        queue.disconnected(client)
        clock.now += RETURN_WITHIN_S - 1
        await queue.pair_now()
        kept = queue.waiting()
        clock.now += 1
        await queue.pair_now()
        await tables.close()
        return kept, queue.waiting(), codes

    kept, dropped, codes = anyio.run(scenario)
    assert kept == {ann: "singles"} and dropped == {}
    assert codes == ["not_logged_in", "bad_ladder"]
    assert store.queue_entries() == []


def test_the_test_option_sets_the_rounds_of_ranked_games() -> None:
    from crokinole.cli.main import build_parser  # noqa: PLC0415

    parser = build_parser()
    assert parser.parse_args(["serve", "--test-ranked-rounds", "1"]).test_ranked_rounds == 1
    assert parser.parse_args(["serve"]).test_ranked_rounds is None
    with pytest.raises(SystemExit):
        parser.parse_args(["serve", "--test-ranked-rounds", "5"])
