"""The events' log on real SQLite and PostgreSQL (see conftest: each test runs on both).

What issue 23 asks of the store: "the event's state in the store as its own
event log (so it survives restarts and runs on several processes like a
table)": entries appended with an expected version, so two writers can never
both write entry n (the append fails loudly and writes nothing); the event
found by its join code; the lists of the events page (open, running,
finished lately; an account's); where each online table and each hall
score sheet belongs (a pairing's sheet is made once).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.config import Config

from crokinole.store import EventPlace, Store, StoreConflictError, StoreDataError
from crokinole.store.database import MIGRATIONS

T0 = datetime(2026, 12, 1, 18, 0, 0)


def _created(name: str = "Tuesday league") -> dict[str, Any]:
    return {"type": "created", "settings": {"name": name, "format": "swiss", "rounds": 4}}


def _joined(name: str) -> dict[str, Any]:
    return {"type": "joined", "name": name}


def _event(store: Store, event_id: str = "ev1", code: str = "K7QM2P", **kw: Any) -> None:
    fields: dict[str, Any] = {"summary": {"name": "Tuesday league"}, **kw}
    store.create_event(event_id, code, fields.pop("organiser", 7), _created(), **fields)


def test_a_new_event_has_its_first_entry_as_version_1(store: Store) -> None:
    _event(store, now=T0)
    data = store.event_data("ev1")
    assert data is not None
    assert (data.id, data.code, data.organiser_id, data.version, data.status) == (
        "ev1",
        "K7QM2P",
        7,
        1,
        "open",
    )
    assert data.summary == {"name": "Tuesday league"}
    assert data.created_at == data.updated_at == T0
    assert store.event_entries("ev1") == [_created()]


def test_an_event_imported_whole_is_stored_with_its_whole_log(store: Store) -> None:
    store.create_event(
        "ev1", "K7QM2P", 7, _created(), T0, status="finished",
        then=[_joined("Ann"), {"type": "finished"}],
    )  # fmt: skip
    assert store.event_entries("ev1") == [_created(), _joined("Ann"), {"type": "finished"}]
    data = store.event_data("ev1")
    assert data is not None and (data.version, data.status) == (3, "finished")
    assert store.append_event_entries("ev1", [_joined("Bob")], 3) == 4


def test_entries_appended_at_the_expected_version_read_back_in_order(store: Store) -> None:
    _event(store)
    assert store.append_event_entries("ev1", [_joined("Ann"), _joined("Bob")], 1) == 3
    assert store.append_event_entries("ev1", [_joined("Cy")], 3, status="running") == 4
    assert store.event_entries("ev1") == [
        _created(),
        _joined("Ann"),
        _joined("Bob"),
        _joined("Cy"),
    ]
    assert store.event_entries("ev1", after_version=2) == [_joined("Bob"), _joined("Cy")]
    assert store.event_entries("ev1", after_version=4) == []
    data = store.event_data("ev1")
    assert data is not None and (data.version, data.status) == (4, "running")


def test_an_append_at_a_version_that_moved_on_writes_nothing(store: Store) -> None:
    """Two writers that read version 1: the second finds it moved on (the store's conflict)."""
    _event(store)
    store.append_event_entries("ev1", [_joined("Ann")], 1)
    with pytest.raises(StoreConflictError, match="not at version 1"):
        store.append_event_entries(
            "ev1", [_joined("Bob")], 1, status="finished", summary={"x": 1}, accounts=[5]
        )
    assert store.event_entries("ev1") == [_created(), _joined("Ann")]
    data = store.event_data("ev1")
    assert data is not None and (data.version, data.status) == (2, "open")
    assert data.summary == {"name": "Tuesday league"}
    assert store.list_events(account_id=5) == []


def test_an_append_to_a_missing_event_is_a_conflict(store: Store) -> None:
    with pytest.raises(StoreConflictError, match="missing"):
        store.append_event_entries("nope", [_joined("Ann")], 0)


def test_racing_writers_of_one_version_one_wins(open_store: Callable[[], Store]) -> None:
    """Eight writers (eight engines, as eight processes) append at version 1 at once:
    exactly one entry 2 is written, and every other writer is told of the conflict."""
    first = open_store()
    _event(first)
    stores = [open_store() for _ in range(8)]
    barrier = threading.Barrier(len(stores))
    won: list[int] = []
    lost: list[int] = []

    def write(i: int, store: Store) -> None:
        barrier.wait()
        try:
            store.append_event_entries("ev1", [_joined(f"P{i}")], 1)
        except StoreConflictError:
            lost.append(i)
        else:
            won.append(i)

    threads = [threading.Thread(target=write, args=(i, s)) for i, s in enumerate(stores)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(won) == 1 and len(lost) == 7
    assert first.event_entries("ev1") == [_created(), _joined(f"P{won[0]}")]


def test_an_id_or_a_code_taken_is_a_conflict_and_writes_nothing(store: Store) -> None:
    _event(store)
    with pytest.raises(StoreConflictError, match="event ev1 exists already"):
        _event(store, code="OTHER2")
    with pytest.raises(StoreConflictError, match="has the code K7QM2P already"):
        _event(store, event_id="ev2")
    assert store.event_data("ev2") is None
    assert store.event_by_code("OTHER2") is None
    assert store.event_entries("ev2") == []


def test_data_the_store_will_not_keep_is_refused(store: Store) -> None:
    _event(store)
    with pytest.raises(StoreDataError, match="no entries"):
        store.append_event_entries("ev1", [], 1)
    with pytest.raises(StoreDataError, match="not JSON"):
        store.append_event_entries("ev1", [{"x": float("nan")}], 1)
    with pytest.raises(StoreDataError, match="unknown status"):
        store.append_event_entries("ev1", [_joined("Ann")], 1, status="paused")
    with pytest.raises(StoreDataError, match="unknown status"):
        _event(store, event_id="ev2", code="ABCDEF", status="closed")
    with pytest.raises(StoreDataError, match="account id is a number"):
        store.append_event_entries("ev1", [_joined("Ann")], 1, accounts=["7"])  # type: ignore[list-item]
    assert store.event_entries("ev1") == [_created()]
    assert store.event_data("ev2") is None


def test_an_event_is_found_by_its_code_exactly(store: Store) -> None:
    _event(store)
    assert store.event_by_code("K7QM2P") == "ev1"
    assert store.event_by_code("k7qm2p") is None  # the caller normalises what was typed
    assert store.event_by_code("ZZZZZZ") is None


def test_the_public_list_is_open_running_and_lately_finished(store: Store) -> None:
    now = T0 + timedelta(days=30)
    _event(store, "old", "AAAAAA", now=T0)  # finished 30 days ago: not listed
    store.append_event_entries("old", [{"type": "finished"}], 1, status="finished", now=T0)
    _event(store, "done", "BBBBBB", now=now - timedelta(days=20))
    store.append_event_entries(
        "done", [{"type": "finished"}], 1, status="finished", now=now - timedelta(days=3)
    )
    _event(store, "open", "CCCCCC", now=now - timedelta(days=2))
    _event(store, "running", "DDDDDD", now=now - timedelta(days=40))  # long, but running
    store.append_event_entries(
        "running", [{"type": "started"}], 1, status="running", now=now - timedelta(days=40)
    )
    listed = [e.id for e in store.list_events(now=now)]
    # The latest changed first.
    assert listed == ["open", "done", "running"]
    assert [e.id for e in store.list_events(now=now, recent_days=1)] == ["open", "running"]
    assert [e.id for e in store.list_events(now=now, limit=2)] == ["open", "done"]


def test_an_accounts_list_has_what_it_organises_and_plays_in(store: Store) -> None:
    _event(store, "mine", "AAAAAA", organiser=7, now=T0)
    _event(store, "played", "BBBBBB", organiser=8, now=T0 + timedelta(hours=1), accounts=[7])
    _event(store, "both", "CCCCCC", organiser=7, now=T0 + timedelta(hours=2))
    store.append_event_entries("both", [_joined("Ann")], 1, accounts=[7, 7, 9])
    _event(store, "other", "DDDDDD", organiser=8, now=T0 + timedelta(hours=3))
    store.append_event_entries("other", [_joined("Bob")], 1, accounts=[9])
    store.append_event_entries("other", [_joined("Cy")], 2, accounts=[9])  # listed once
    assert [e.id for e in store.list_events(account_id=7)] == ["both", "played", "mine"]
    assert sorted(e.id for e in store.list_events(account_id=9)) == ["both", "other"]
    assert store.list_events(account_id=10) == []


def test_the_log_outlives_its_process(open_store: Callable[[], Store]) -> None:
    """A store opened again (a restarted server) folds the same log."""
    first = open_store()
    _event(first)
    first.append_event_entries("ev1", [_joined("Ann")], 1)
    first.close()
    again = open_store()
    assert again.event_entries("ev1") == [_created(), _joined("Ann")]
    assert again.append_event_entries("ev1", [_joined("Bob")], 2) == 3


def test_an_online_table_knows_its_event_round_pairing_and_game(store: Store) -> None:
    _event(store)
    store.link_event_table("t-1", "ev1", 1, 2)
    store.link_event_table("t-2", "ev1", 2, 1, game=1)
    store.link_event_table("t-3", "ev1", 2, 1, game=2)  # best of 3: a table per game
    assert store.event_of_table("t-3") == EventPlace("ev1", 2, 1, 2)
    assert store.event_of_table("t-9") is None
    assert store.event_tables("ev1") == {
        "t-1": EventPlace("ev1", 1, 2, 1),
        "t-2": EventPlace("ev1", 2, 1, 1),
        "t-3": EventPlace("ev1", 2, 1, 2),
    }
    with pytest.raises(StoreConflictError, match="belongs to an event already"):
        store.link_event_table("t-1", "ev1", 3, 1)
    with pytest.raises(StoreConflictError):
        store.link_event_table("t-8", "no-such-event", 1, 1)
    with pytest.raises(StoreDataError, match="a round is a number from 1"):
        store.link_event_table("t-7", "ev1", 0, 1)
    assert store.event_of_table("t-8") is None and store.event_of_table("t-7") is None


def test_a_pairing_has_one_score_sheet(store: Store) -> None:
    _event(store)
    store.link_event_sheet("s" * 32, "ev1", 1, 3)
    assert store.event_sheet("ev1", 1, 3) == "s" * 32
    assert store.event_of_sheet("s" * 32) == EventPlace("ev1", 1, 3)
    with pytest.raises(StoreConflictError, match="has a score sheet already"):
        store.link_event_sheet("t" * 32, "ev1", 1, 3)
    assert store.event_sheet("ev1", 1, 3) == "s" * 32
    assert store.event_of_sheet("t" * 32) is None
    assert store.event_sheet("ev1", 1, 4) is None


def test_the_migration_goes_down_and_up_again(store: Store) -> None:
    _event(store)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with store._engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0009")
    assert store.revision() == "0009"
    assert "event_logs" not in sa.inspect(store._engine).get_table_names()
    store.migrate()
    assert store.revision() == Store.newest_revision()
    assert store.event_data("ev1") is None  # downgrading dropped the events
