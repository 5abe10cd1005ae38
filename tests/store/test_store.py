"""The store's rooms on real SQLite and PostgreSQL: events, conflicts, records, retention."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from crokinole.store import Store, StoreConflictError

LEVELS = ("easy", "normal", "hard", "expert")
T0 = datetime(2026, 1, 1, 12, 0, 0)


def _room(store: Store, room: str, token: str = "tok", opponent: str = "easy", **kw: Any) -> None:
    store.create_room(
        room, token, opponent, settings={"opponent": opponent}, record_json="{}",
        scoring="four_rounds", **kw,
    )  # fmt: skip


def test_events_are_appended_in_order_and_read_back_with_their_numbers(store: Store) -> None:
    _room(store, "r1")
    store.append_events("r1", 0, [{"type": "shot", "seat": "south"}], '{"a": 1}')
    store.append_events("r1", 1, [{"type": "shot", "seat": "north"}, {"type": "round"}], "{}")
    assert store.events_after("r1", 0, limit=10) == [
        (1, {"type": "shot", "seat": "south"}),
        (2, {"type": "shot", "seat": "north"}),
        (3, {"type": "round"}),
    ]
    assert store.events_after("r1", 1, limit=1) == [(2, {"type": "shot", "seat": "north"})]
    assert store.events_after("r1", 3, limit=10) == []
    room = store.room("r1")
    assert room is not None and (room.event_number, room.status, room.record_json) == (
        3, "playing", "{}",
    )  # fmt: skip


def test_a_stale_or_closed_write_is_refused_and_writes_nothing(store: Store) -> None:
    _room(store, "r1")
    store.append_events("r1", 0, [{"type": "shot"}], "after-1")
    # Two writers expected event 0: the second loses, loudly.
    with pytest.raises(
        StoreConflictError, match=re.escape("not playing at event 0 (it is playing at event 1)")
    ):
        store.append_events("r1", 0, [{"type": "shot"}], "stale")
    assert store.abandon("r1", "loss")
    with pytest.raises(StoreConflictError, match="it is abandoned at event 1"):
        store.append_events("r1", 1, [{"type": "shot"}], "too-late")
    with pytest.raises(StoreConflictError, match="it is missing"):
        store.append_events("nope", 0, [{"type": "shot"}], "{}")
    room = store.room("r1")
    assert room is not None and (room.event_number, room.record_json) == (1, "after-1")
    assert [n for n, _ in store.events_after("r1", 0, limit=10)] == [1]
    assert not store.abandon("r1", "loss")  # already abandoned: nothing changes


def test_the_last_shot_and_the_end_are_written_together_or_not_at_all(store: Store) -> None:
    _room(store, "r1")
    store.append_events(
        "r1", 0, [{"type": "shot"}, {"type": "finished"}], "end", status="finished", result="win"
    )
    room = store.room("r1")
    assert room is not None and (room.status, room.result, room.event_number) == (
        "finished", "win", 2,
    )  # fmt: skip
    # A batch that fails half-way (an event that is not JSON) leaves no trace.
    _room(store, "r2", token="other")
    with pytest.raises(TypeError):
        store.append_events(
            "r2", 0, [{"type": "shot"}, {"type": object()}], "x", status="finished", result="win"
        )
    room = store.room("r2")
    assert room is not None and (room.status, room.event_number, room.record_json) == (
        "playing", 0, "{}",
    )  # fmt: skip
    assert store.events_after("r2", 0, limit=10) == []
    assert not store.abandon("r1", "loss")  # a finished game cannot be abandoned


def test_the_device_record_counts_results_per_level_and_format(store: Store) -> None:
    for room, opponent, result in [("a", "easy", "win"), ("b", "easy", "loss"),
                                   ("c", "hard", "draw"), ("d", "local", None)]:  # fmt: skip
        _room(store, room, opponent=opponent)
        store.append_events(room, 0, [{"type": "finished"}], "{}", status="finished",
                            result=result)  # fmt: skip
    _room(store, "e", token="someone-else")
    store.append_events("e", 0, [{"type": "finished"}], "{}", status="finished", result="win")
    record = store.device_record("tok", LEVELS)
    assert list(record) == list(LEVELS)
    assert record["easy"]["four_rounds"] == {"wins": 1, "draws": 0, "losses": 1}
    assert record["hard"]["four_rounds"] == {"wins": 0, "draws": 1, "losses": 0}
    assert record["expert"]["to_100"] == {"wins": 0, "draws": 0, "losses": 0}
    # The levels are the caller's: the store keeps no list of its own.
    assert list(store.device_record("tok", ("easy",))) == ["easy"]


def test_a_new_game_abandons_the_unfinished_one_and_a_cpu_game_counts_lost(store: Store) -> None:
    _room(store, "cpu", opponent="normal")
    assert store.create_room("next", "tok", "local", settings={}, record_json="{}",
                             scoring="four_rounds") == ["cpu"]  # fmt: skip
    assert store.create_room("third", "tok", "easy", settings={}, record_json="{}",
                             scoring="four_rounds") == ["next"]  # fmt: skip
    cpu, local = store.room("cpu"), store.room("next")
    assert cpu is not None and (cpu.status, cpu.result) == ("abandoned", "loss")
    assert local is not None and (local.status, local.result) == ("abandoned", None)
    assert store.unfinished_room("tok") == "third"
    assert store.device_record("tok", LEVELS)["normal"]["four_rounds"]["losses"] == 1


def test_abandoned_games_are_compacted_after_the_retention_period(store: Store) -> None:
    for room, opponent in [("old-cpu", "easy"), ("old-local", "local"), ("new-cpu", "hard")]:
        _room(store, room, token=room, opponent=opponent, now=T0)
        store.append_events(room, 0, [{"type": "shot"}], '{"actions": []}', now=T0)
    _room(store, "old-finished", token="f", now=T0)
    store.append_events("old-finished", 0, [{"type": "finished"}], "{}", status="finished",
                        result="win", now=T0)  # fmt: skip
    _room(store, "old-playing", token="p", now=T0)
    store.abandon("old-cpu", "loss", now=T0)
    store.abandon("old-local", None, now=T0)
    store.abandon("new-cpu", "loss", now=T0 + timedelta(days=29))
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
