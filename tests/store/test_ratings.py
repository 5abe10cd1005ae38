"""Ratings, rating changes with their game, and the ranked queue (SQLite and PostgreSQL)."""

from __future__ import annotations

from datetime import datetime

import pytest
from alembic import command
from alembic.config import Config

from crokinole.store import (
    AlreadyQueuedError,
    RatingChange,
    Store,
    StoreConflictError,
    StoreDataError,
)
from crokinole.store.database import MIGRATIONS

T = datetime(2026, 1, 1)
TABLE = "a" * 32


def account(store: Store, name: str) -> int:
    return store.create_account(name, name.lower(), "$argon2id$x", T).id


def ranked_table(store: Store, table_id: str = TABLE) -> None:
    store.create_table(
        table_id, kind="ranked", code=None, events=[{"type": "created", "version": 1}],
        snapshot={}, members=[], deadline=None, status="playing",
    )  # fmt: skip


def change(
    who: int, side: int, outcome: str, before: int, after: int, game: int = 1
) -> RatingChange:
    return RatingChange(
        account_id=who, ladder="singles", game_number=game, side=side, mu_before=25.0,
        sigma_before=8.0, mu_after=25.0 + (after - before) / 40, sigma_after=7.5,
        rating_before=before, rating_after=after, outcome=outcome,
    )  # fmt: skip


def finish(store: Store, changes: list[RatingChange], version: int = 1) -> None:
    store.append_table_events(
        TABLE, version, [{"type": "game_finished", "version": version + 1}], None,
        deadline=None, status="finished", rating_changes=changes,
    )  # fmt: skip


def test_a_game_end_writes_the_events_the_ratings_and_the_changes_together(store: Store) -> None:
    ann, bob = account(store, "Ann"), account(store, "Bob")
    ranked_table(store)
    finish(store, [change(ann, 0, "win", 1000, 1138), change(bob, 1, "loss", 1000, 927)])
    ratings = store.ratings_of([ann, bob], "singles")
    assert (ratings[ann].rating, ratings[ann].games, ratings[ann].wins) == (1138, 1, 1)
    assert (ratings[bob].rating, ratings[bob].losses, ratings[bob].username) == (927, 1, "Bob")
    assert ratings[ann].mu == pytest.approx(25 + 138 / 40) and ratings[ann].sigma == 7.5
    changes = store.game_rating_changes(TABLE, 1)
    assert [(c.username, c.change.outcome, c.change.rating_after) for c in changes] == [
        ("Ann", "win", 1138),
        ("Bob", "loss", 927),
    ]
    assert store.table_events(TABLE, after=1) == [{"type": "game_finished", "version": 2}]
    assert store.ratings_of([ann], "doubles") == {}


def test_a_refused_write_changes_no_rating(store: Store) -> None:
    ann, bob = account(store, "Ann"), account(store, "Bob")
    ranked_table(store)
    with pytest.raises(StoreConflictError):
        finish(store, [change(ann, 0, "win", 1000, 1138)], version=7)  # a stale version
    with pytest.raises(StoreDataError, match="unknown outcome"):
        finish(store, [change(bob, 0, "won", 1000, 1138)])
    assert store.ratings_of([ann, bob], "singles") == {}
    assert store.table(TABLE).version == 1  # type: ignore[union-attr]


def test_a_game_is_rated_once(store: Store) -> None:
    ann = account(store, "Ann")
    ranked_table(store)
    finish(store, [change(ann, 0, "draw", 1000, 1050)])
    with pytest.raises(StoreConflictError, match="rating change of this game"):
        finish(store, [change(ann, 0, "draw", 1050, 1090)], version=2)
    assert store.ratings_of([ann], "singles")[ann].games == 1


def test_history_leaderboard_and_games(store: Store) -> None:
    ann, bob, cat = account(store, "Ann"), account(store, "Bob"), account(store, "cat")
    ranked_table(store)
    finish(store, [change(ann, 0, "win", 1000, 1138, 1), change(bob, 1, "loss", 1000, 927, 1)])
    ranked_table(store, "b" * 32)
    store.append_table_events(
        "b" * 32, 1, [{"type": "game_finished", "version": 2}], None, deadline=None,
        status="finished",
        rating_changes=[change(ann, 1, "draw", 1138, 1150), change(cat, 0, "draw", 1000, 1040)],
    )  # fmt: skip
    history = store.rating_changes(ann, "singles")
    assert [(h.table_id, h.change.rating_after) for h in history] == [
        (TABLE, 1138),
        ("b" * 32, 1150),
    ]
    board = store.leaderboard("singles", min_games=1)
    assert [(r.username, r.rating, r.games) for r in board] == [
        ("Ann", 1150, 2),
        ("cat", 1040, 1),
        ("Bob", 927, 1),
    ]
    assert [r.username for r in store.leaderboard("singles", min_games=2)] == ["Ann"]
    assert [r.username for r in store.leaderboard("singles", 0, limit=1)] == ["Ann"]
    games = store.ranked_games(ann)
    assert [[c.username for c in game] for game in games] == [["cat", "Ann"], ["Ann", "Bob"]]
    assert [r.ladder for r in store.account_ratings(ann)] == ["singles"]
    with pytest.raises(StoreDataError, match="singles or doubles"):
        store.leaderboard("triples", 0)


def test_the_queue_keeps_who_waits_and_since_when(store: Store) -> None:
    ann, bob = account(store, "Ann"), account(store, "Bob")
    entry = store.queue_add(ann, "singles", 100.5)
    assert (entry.username, entry.ladder, entry.joined_at) == ("Ann", "singles", 100.5)
    store.queue_add(bob, "doubles", 99.0)
    with pytest.raises(AlreadyQueuedError):
        store.queue_add(ann, "doubles", 101.0)
    assert [(e.username, e.ladder) for e in store.queue_entries()] == [
        ("Bob", "doubles"),
        ("Ann", "singles"),
    ]
    assert store.queue_remove([ann, 12345]) == 1
    assert [e.username for e in store.queue_entries()] == ["Bob"]
    with pytest.raises(StoreDataError, match="no account"):
        store.queue_add(777, "singles", 1.0)
    with pytest.raises(StoreDataError, match="singles or doubles"):
        store.queue_add(ann, "triples", 1.0)


def test_the_queue_outlives_the_store_being_opened_again(database: str) -> None:
    store = Store.open(database)
    ann = account(store, "Ann")
    store.queue_add(ann, "singles", 5.0)
    store.close()
    again = Store.open(database)
    try:
        assert [(e.account_id, e.joined_at) for e in again.queue_entries()] == [(ann, 5.0)]
    finally:
        again.close()


def test_migration_0006_goes_down_and_up_again(database: str) -> None:
    store = Store.open(database, migrate=False)
    try:
        store.migrate("0005")
        store.migrate("0006")
        assert store.revision() == "0006"
        ann = account(store, "Ann")
        store.queue_add(ann, "singles", 1.0)
        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        with store._engine.begin() as connection:
            config.attributes["connection"] = connection
            command.downgrade(config, "0005")
        assert store.revision() == "0005"
        store.migrate("0006")
        assert store.queue_entries() == []
        store.migrate()  # (an account is read on the newest schema)
        assert store.account(ann) is not None
    finally:
        store.close()
