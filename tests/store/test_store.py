"""What protocol-1 rooms left, on real SQLite and PostgreSQL: records, retention, migration."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import sqlalchemy as sa

from crokinole.store import Store
from tests.support.store_rooms import T0, add_room

LEVELS = ("easy", "normal", "hard", "expert")


def test_the_device_record_counts_results_per_level_and_format(store: Store) -> None:
    for room, opponent, result in [("a", "easy", "win"), ("b", "easy", "loss"),
                                   ("c", "hard", "draw"), ("d", "local", None)]:  # fmt: skip
        add_room(store, room, opponent=opponent, status="finished", result=result,
                 events=[{"type": "finished"}])  # fmt: skip
    add_room(store, "e", "someone-else", status="finished", result="win",
             events=[{"type": "finished"}])  # fmt: skip
    record = store.device_record("tok", LEVELS)
    assert list(record) == list(LEVELS)
    assert record["easy"]["four_rounds"] == {"wins": 1, "draws": 0, "losses": 1}
    assert record["hard"]["four_rounds"] == {"wins": 0, "draws": 1, "losses": 0}
    assert record["expert"]["to_100"] == {"wins": 0, "draws": 0, "losses": 0}
    # The levels are the caller's: the store keeps no list of its own.
    assert list(store.device_record("tok", ("easy",))) == ["easy"]


def test_abandoned_games_are_compacted_after_the_retention_period(store: Store) -> None:
    later = T0 + timedelta(days=29)
    for room, opponent, result, at in [("old-cpu", "easy", "loss", T0),
                                       ("old-local", "local", None, T0),
                                       ("new-cpu", "hard", "loss", later)]:  # fmt: skip
        add_room(store, room, room, opponent, status="abandoned", result=result,
                 events=[{"type": "shot"}], record_json='{"actions": []}', now=at)  # fmt: skip
    add_room(store, "old-finished", "f", status="finished", result="win",
             events=[{"type": "finished"}], now=T0)  # fmt: skip
    add_room(store, "old-playing", "p", now=T0)
    # The cutoff (now minus the retention period) falls a minute after T0.
    assert store.purge_abandoned(T0 + timedelta(minutes=1)) == 2
    assert store.room("old-local") is None  # a two-player game goes entirely
    old = store.room("old-cpu")
    assert old is not None and old.record_json == "" and old.result == "loss"
    assert store.events_after("old-cpu", 0, limit=10) == []
    assert store.device_record("old-cpu", LEVELS)["easy"]["four_rounds"]["losses"] == 1
    for kept in ("new-cpu", "old-finished", "old-playing"):  # within retention, or not abandoned
        data = store.room(kept)
        assert data is not None and data.record_json != ""
        assert len(store.events_after(kept, 0, limit=10)) == (0 if kept == "old-playing" else 1)
    assert store.purge_abandoned(T0 + timedelta(minutes=1)) == 0  # nothing left to do


def test_migration_0003_turns_stored_messages_into_events(tmp_path: Path) -> None:
    # A database as 0002 left it: each event row holds the whole message sent.
    db = tmp_path / "old.db"
    engine = sa.create_engine(f"sqlite:///{db}")
    Store(engine).migrate("0002")
    shot = {"type": "shot", "room": "r1", "event": 1, "seat": "south",
            "shot": {"position": 0.0, "direction": 0.0, "power": 30.0},
            "report": {"explanation": "20 for South."}, "trajectory": {"discs": []},
            "game": {"discs": [], "board": {"pegs": [[0.0, 0.0]] * 8}}, "cpu": False}  # fmt: skip
    unplayed = {**shot, "event": 2, "seat": "north", "shot": None, "cpu": True}
    with engine.begin() as connection:
        connection.execute(sa.text(
            "INSERT INTO rooms VALUES ('r1', 'tok', 'easy', '{}', '{}', 3, 'playing', NULL, "
            "'four_rounds', '2026-01-01 00:00:00', '2026-01-01 00:00:00')"
        ))  # fmt: skip
        for number, payload in [(1, shot), (2, unplayed), (3, {"type": "round", "game": {}})]:
            connection.execute(
                sa.text("INSERT INTO events VALUES ('r1', :n, :p)"),
                {"n": number, "p": json.dumps(payload)},
            )
    engine.dispose()
    store = Store.open(str(db))  # migrates to the newest revision
    assert store.events_after("r1", 0, limit=10) == [
        (1, {"type": "shot", "seat": "south",
             "shot": {"position": 0.0, "direction": 0.0, "power": 30.0}, "cpu": False}),
        (2, {"type": "shot", "seat": "north", "shot": None, "cpu": True}),
        (3, {"type": "round"}),
    ]  # fmt: skip
    with sa.create_engine(f"sqlite:///{db}").connect() as connection:
        columns = [row[1] for row in connection.execute(sa.text("PRAGMA table_info(events)"))]
        assert columns == ["room_id", "number", "event_json"]
        version = connection.execute(sa.text("SELECT version_num FROM alembic_version")).scalar()
        assert version == Store.newest_revision()
    store.close()
