"""Fair play in the store (migration 0009): sets with the server's hand, one daily entry,
ranked players' devices, no-shows; on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.config import Config

from crokinole.store import AlreadyPlayedError, Store, TableMember
from crokinole.store.database import MIGRATIONS

T0 = datetime(2026, 12, 1, 9, 0)
PHONE = "p" * 24
LAPTOP = "l" * 24
DAY = "2026-12-01"


#: drill_results as migration 0007 made it (a row kept before 0009).
OLD_DRILL_RESULTS = sa.table(
    "drill_results",
    *(sa.column(c) for c in ("device_token", "drill", "score", "attempts", "percent", "full",
                             "shots_json", "at")),
)  # fmt: skip


def _daily_set(store: Store, set_id: str, device: str, account: int | None) -> None:
    store.create_practice_set(
        set_id, kind="daily", drill="daily", day=DAY, device=device, account_id=account,
        seed=99, attempts=3,
    )  # fmt: skip


def test_a_set_keeps_its_seed_and_takes_each_attempt_once(store: Store) -> None:
    store.create_practice_set(
        "s" * 32, kind="drill", drill="open20", device=PHONE, account_id=None,
        seed=2**62 + 5, attempts=2,
    )  # fmt: skip
    kept = store.practice_set("s" * 32)
    assert kept is not None and kept.seed == 2**62 + 5 and kept.shots == () and not kept.finished
    shot = {"aimed": {"position": 0.0}, "played": {"position": 0.1}, "points": 1}
    assert store.add_practice_shot("s" * 32, 0, shot) is True
    assert store.add_practice_shot("s" * 32, 0, shot) is False  # attempt 1 is played already
    assert store.add_practice_shot("s" * 32, 1, {**shot, "points": 0}) is True
    assert store.add_practice_shot("s" * 32, 2, shot) is False  # no third attempt
    kept = store.practice_set("s" * 32)
    assert kept is not None and [s["points"] for s in kept.shots] == [1, 0]
    assert store.finish_practice_set("s" * 32) is True
    assert store.finish_practice_set("s" * 32) is False
    assert store.add_practice_shot("t" * 32, 0, shot) is False
    assert store.practice_set("t" * 32) is None


def test_one_daily_entry_per_account_and_per_guest_device(store: Store) -> None:
    ann = store.create_account("Ann", "ann", "h", T0).id
    _daily_set(store, "a1", PHONE, ann)
    with pytest.raises(AlreadyPlayedError, match="this account has entered"):
        _daily_set(store, "a2", LAPTOP, ann)  # another device, the same account
    with pytest.raises(AlreadyPlayedError, match="this device has entered"):
        _daily_set(store, "a3", PHONE, None)  # the same device as a guest
    _daily_set(store, "g1", LAPTOP, None)  # a guest on another device
    with pytest.raises(AlreadyPlayedError, match="this device has entered"):
        _daily_set(store, "g2", LAPTOP, None)
    store.create_practice_set(
        "n1", kind="daily", drill="daily", day="2026-12-02", device=PHONE, account_id=ann,
        seed=1, attempts=3,
    )  # fmt: skip


def test_accounts_and_guests_are_on_separate_boards_under_the_accounts_names(
    store: Store,
) -> None:
    ann = store.create_account("Ann", "ann", "h", T0).id
    store.add_daily_score(DAY, PHONE, ann, name="Ann", score=10, shots=[])
    assert store.add_daily_score(DAY, LAPTOP, None, name="ann", score=20, shots=[]) == 1
    assert [(e["name"], e["rank"]) for e in store.daily_leaderboard(DAY)] == [("Ann", 1)]
    assert [(e["name"], e["rank"]) for e in store.daily_leaderboard(DAY, guests=True)] == [
        ("ann", 1)
    ]
    assert store.daily_entry(DAY, PHONE, ann) == {
        "name": "Ann", "score": 10, "rank": 1, "at": store.daily_entry(DAY, PHONE, ann)["at"],  # type: ignore[index]
    }  # fmt: skip


def _ranked_table(store: Store, table_id: str, status: str) -> None:
    store.create_table(
        table_id, kind="ranked", code=None, events=[{"type": "created", "version": 1}],
        snapshot={}, members=[TableMember("m1", "account:7", "ann", False, ("south",))],
        deadline=None, status=status,
    )  # fmt: skip


def test_a_ranked_game_in_play_is_found_by_account_and_by_device(store: Store) -> None:
    _ranked_table(store, "r" * 32, "playing")
    assert store.ranked_game_in_play(None, 7) == "r" * 32
    assert store.ranked_game_in_play(PHONE, None) is None
    store.add_ranked_device("r" * 32, PHONE)
    store.add_ranked_device("r" * 32, PHONE)  # kept once
    assert store.ranked_game_in_play(PHONE, None) == "r" * 32
    assert store.ranked_game_in_play(LAPTOP, 8) is None
    store.append_table_events(
        "r" * 32, 1, [{"type": "end", "version": 2}], None, deadline=None, status="finished"
    )
    assert store.ranked_game_in_play(PHONE, 7) is None


def test_no_shows_are_kept_with_the_aborted_game(store: Store) -> None:
    ann = store.create_account("Ann", "ann", "h", T0).id
    _ranked_table(store, "q" * 32, "playing")
    store.append_table_events(
        "q" * 32, 1, [{"type": "aborted", "version": 2}], None, deadline=None,
        status="finished", no_shows=[ann], now=T0,
    )  # fmt: skip
    assert store.no_shows_since(ann, T0 - timedelta(hours=1)) == [T0]
    assert store.no_shows_since(ann, T0 + timedelta(seconds=1)) == []


def test_migration_0009_keeps_old_sets_but_counts_them_for_no_best(database: str) -> None:
    store = Store.open(database, migrate=False)
    try:
        store.migrate("0007")
        with store._engine.begin() as connection:
            connection.execute(sa.insert(OLD_DRILL_RESULTS).values(
                device_token=PHONE, drill="open20", score=10, attempts=10, percent=100.0,
                full=True, shots_json='[{"points": 1}]', at=T0,
            ))  # fmt: skip
        store.migrate()
        assert store.drill_bests(PHONE, None) == {}  # a steady-hand set
        assert store.drill_trend(PHONE, None) == []
        assert store.open_twenty_record(PHONE, None) is None
        assert store.add_drill_result(
            PHONE, None, "open20", score=3, attempts=10, percent=30.0, shots=[], set_id="x"
        )  # the first best under the human hand, though the old set had 100%
        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        with store._engine.begin() as connection:
            config.attributes["connection"] = connection
            command.downgrade(config, "0007")
        assert store.revision() == "0007"
        names = sa.inspect(store._engine).get_table_names()
        assert "practice_sets" not in names and "no_shows" not in names
        assert "drill_results" in names
    finally:
        store.close()
