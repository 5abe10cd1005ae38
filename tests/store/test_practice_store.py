"""Drill results, personal bests, the open-20 record and the daily challenge's scores
(migration 0007), on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.config import Config

from crokinole.store import AlreadyPlayedError, Store, StoreDataError
from crokinole.store.database import MIGRATIONS

T0 = datetime(2026, 12, 1, 9, 0)
ANN_PHONE = "a" * 24
ANN_LAPTOP = "b" * 24
BOB_PHONE = "c" * 24
DAY = "2026-12-01"


#: drill_results as migration 0007 made it (a row kept before 0009).
OLD_DRILL_RESULTS = sa.table(
    "drill_results",
    *(sa.column(c) for c in ("device_token", "drill", "score", "attempts", "percent", "full",
                             "shots_json", "at")),
)  # fmt: skip


def _set(
    store: Store,
    device: str,
    drill: str,
    points: list[int],
    *,
    account: int | None = None,
    full: bool = True,
    at: datetime = T0,
    per_attempt: int = 1,
) -> bool:
    shots: list[dict[str, Any]] = [
        {"position": 0.0, "direction": 0.0, "power": 28.0, "points": p} for p in points
    ]
    score = sum(points)
    return store.add_drill_result(
        device, account, drill, score=score, attempts=len(points),
        percent=round(100.0 * score / (per_attempt * len(points)), 2), shots=shots,
        full=full, now=at,
    )  # fmt: skip


def test_a_better_full_set_is_a_personal_best(store: Store) -> None:
    assert _set(store, ANN_PHONE, "open20", [1] * 6 + [0] * 4) is True  # the first: 60%
    assert _set(store, ANN_PHONE, "open20", [1] * 5 + [0] * 5) is False  # 50%
    assert _set(store, ANN_PHONE, "open20", [1] * 6 + [0] * 4) is False  # equal is no new best
    assert _set(store, ANN_PHONE, "open20", [1, 1], full=False) is False  # 100%, but 2 attempts
    assert _set(store, ANN_PHONE, "open20", [1] * 7 + [0] * 3, at=T0 + timedelta(1)) is True
    assert _set(store, ANN_PHONE, "far_side", [2, 0, 1], per_attempt=2) is True  # its own drill
    bests = store.drill_bests(ANN_PHONE, None)
    assert bests == {
        "open20": {"score": 7, "attempts": 10, "percent": 70.0, "at": "2026-12-02T09:00:00Z"},
        "far_side": {"score": 3, "attempts": 3, "percent": 50.0, "at": "2026-12-01T09:00:00Z"},
    }
    assert store.drill_bests(BOB_PHONE, None) == {}


def test_an_account_sees_the_sets_of_all_its_devices(store: Store) -> None:
    ann = store.create_account("Ann", "ann", "h", T0).id
    _set(store, ANN_PHONE, "open20", [1] * 8 + [0] * 2, account=ann)
    # On the laptop, logged in: the phone's 80% is the best to beat.
    assert _set(store, ANN_LAPTOP, "open20", [1] * 7 + [0] * 3, account=ann) is False
    assert store.drill_bests(ANN_LAPTOP, ann)["open20"]["percent"] == 80.0
    # The laptop as a guest sees only its own sets.
    assert store.drill_bests(ANN_LAPTOP, None)["open20"]["percent"] == 70.0
    assert [t["percent"] for t in store.drill_trend(ANN_LAPTOP, ann)] == [80.0, 70.0]


def test_trend_is_the_latest_sets_oldest_first(store: Store) -> None:
    for k in range(6):
        _set(store, ANN_PHONE, "open20", [1] * k + [0] * (10 - k), at=T0 + timedelta(hours=k))
    _set(store, ANN_PHONE, "near_side", [2, 2], per_attempt=2)
    trend = store.drill_trend(ANN_PHONE, None, "open20", limit=3)
    assert [t["percent"] for t in trend] == [30.0, 40.0, 50.0]
    assert trend[0] == {"at": "2026-12-01T12:00:00Z", "percent": 30.0, "score": 3, "attempts": 10}
    assert store.drill_trend(BOB_PHONE, None) == []


def test_open_twenty_record_counts_the_last_hundred_attempts(store: Store) -> None:
    assert store.open_twenty_record(ANN_PHONE, None) is None
    # Twelve sets of ten, oldest first: the first two made all ten, the others five.
    for k in range(12):
        _set(store, ANN_PHONE, "open20", [1] * 10 if k < 2 else [1, 0] * 5)
    # The last 100 attempts are the last ten sets: 50 made.
    assert store.open_twenty_record(ANN_PHONE, None) == (50, 100)
    # A set of 15 more: the last 100 are those 15 and the latest 85 before them.
    _set(store, ANN_PHONE, "open20", [1] * 15, full=False)
    assert store.open_twenty_record(ANN_PHONE, None) == (15 + 42, 100)
    assert store.open_twenty_record(ANN_PHONE, None, last=20) == (15 + 2, 20)
    # Other drills do not count.
    _set(store, BOB_PHONE, "hanger20", [2, 2], per_attempt=2)
    assert store.open_twenty_record(BOB_PHONE, None) is None


def test_bad_results_are_refused_and_nothing_is_kept(store: Store) -> None:
    for bad in (
        {"score": 1.5},
        {"attempts": 0},
        {"percent": 101.0},
        {"shots": [{"power": float("nan")}]},
    ):
        values: dict[str, Any] = {"score": 1, "attempts": 1, "percent": 100.0, "shots": []}
        values.update(bad)
        with pytest.raises(StoreDataError):
            store.add_drill_result(ANN_PHONE, None, "open20", **values)
    with pytest.raises(StoreDataError, match="drill id"):
        store.add_drill_result(
            ANN_PHONE, None, "x" * 17, score=1, attempts=1, percent=100.0, shots=[]
        )
    assert store.drill_trend(ANN_PHONE, None) == []


def _daily(store: Store, device: str, name: str, score: int, **more: Any) -> int:
    return store.add_daily_score(DAY, device, more.get("account"), name=name, score=score,
                                 shots=[{"points": score}], now=more.get("at", T0))  # fmt: skip


def test_daily_leaderboard_best_first_then_earliest(store: Store) -> None:
    assert _daily(store, ANN_PHONE, "Ann", 15, at=T0) == 1
    assert _daily(store, BOB_PHONE, "Bob", 20, at=T0 + timedelta(minutes=5)) == 1
    assert _daily(store, "d" * 24, "Cy", 15, at=T0 + timedelta(minutes=1)) == 3
    assert _daily(store, "e" * 24, "Di", -5, at=T0) == 4
    board = store.daily_leaderboard(DAY, guests=True)
    assert store.daily_leaderboard(DAY) == []  # no account's entry: guests are shown apart
    assert [(e["rank"], e["name"], e["score"]) for e in board] == [
        (1, "Bob", 20), (2, "Ann", 15), (3, "Cy", 15), (4, "Di", -5),
    ]  # fmt: skip
    assert [e["name"] for e in store.daily_leaderboard(DAY, limit=2, guests=True)] == [
        "Bob",
        "Ann",
    ]
    assert store.daily_leaderboard("2026-12-02") == []
    assert store.daily_entry(DAY, "d" * 24, None) == {
        "name": "Cy", "score": 15, "rank": 3, "at": "2026-12-01T09:01:00Z",
    }  # fmt: skip
    assert store.daily_entry(DAY, "f" * 24, None) is None


def test_one_daily_score_per_device_and_account(store: Store) -> None:
    ann = store.create_account("Ann", "ann", "h", T0).id
    _daily(store, ANN_PHONE, "Ann", 10, account=ann)
    with pytest.raises(AlreadyPlayedError, match=r"this device has played .* already"):
        _daily(store, ANN_PHONE, "Ann", 30)
    with pytest.raises(AlreadyPlayedError, match="this account has played"):
        _daily(store, ANN_LAPTOP, "Ann", 30, account=ann)
    assert [e["score"] for e in store.daily_leaderboard(DAY)] == [10]
    # The next day is a new challenge.
    assert store.add_daily_score("2026-12-02", ANN_PHONE, ann, name="Ann", score=5, shots=[]) == 1
    assert store.daily_entry(DAY, ANN_LAPTOP, ann) is not None  # the account's, on the laptop
    with pytest.raises(StoreDataError, match="YYYY-MM-DD"):
        store.add_daily_score("1/12/2026", BOB_PHONE, None, name="Bob", score=1, shots=[])
    with pytest.raises(StoreDataError, match="1 to 32 characters"):
        store.add_daily_score(DAY, BOB_PHONE, None, name="", score=1, shots=[])
    assert len(store.daily_leaderboard(DAY)) == 1


def test_results_outlive_their_account(store: Store, database: str) -> None:
    ann = store.create_account("Ann", "ann", "h", T0).id
    _set(store, ANN_PHONE, "open20", [1] * 10, account=ann)
    _daily(store, ANN_PHONE, "Ann", 20, account=ann)
    url = database if "://" in database else f"sqlite:///{database}"
    engine = sa.create_engine(url)
    try:
        with engine.begin() as connection:
            if engine.dialect.name == "sqlite":
                connection.execute(sa.text("PRAGMA foreign_keys=ON"))
            connection.execute(sa.text("DELETE FROM accounts WHERE id = :id"), {"id": ann})
    finally:
        engine.dispose()
    assert store.drill_bests(ANN_PHONE, None)["open20"]["percent"] == 100.0
    assert store.daily_leaderboard(DAY, guests=True)[0]["name"] == "Ann"


def test_migration_0007_goes_down_and_up_again(database: str) -> None:
    store = Store.open(database, migrate=False)
    try:
        store.migrate("0006")
        store.migrate("0007")
        assert store.revision() == "0007"
        with store._engine.begin() as connection:
            connection.execute(sa.insert(OLD_DRILL_RESULTS).values(
                device_token=ANN_PHONE, drill="open20", score=1, attempts=1, percent=100.0,
                full=True, shots_json="[]", at=T0,
            ))  # fmt: skip
        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        with store._engine.begin() as connection:
            config.attributes["connection"] = connection
            command.downgrade(config, "0006")
        assert store.revision() == "0006"
        names = sa.inspect(store._engine).get_table_names()
        assert "drill_results" not in names and "daily_scores" not in names
        assert "ratings" in names
        store.migrate()
        assert store.drill_trend(ANN_PHONE, None) == []  # the data went with the tables
    finally:
        store.close()
