"""The tables' event log on real SQLite and PostgreSQL (see conftest: each test runs on both).

What the issue asks of the log: events appended with an expected version, so
two writers can never both write event n (the append fails loudly and writes
nothing); members and deadlines beside the log; deadlines found again after a
restart; finished games counted in the device's record.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from sqlalchemy.engine import make_url

from crokinole import metrics
from crokinole.store import (
    Store,
    StoreConflictError,
    StoreDataError,
    TableDeadline,
    TableMember,
    TableResult,
)
from crokinole.store.database import MIGRATIONS
from tests.store.conftest import POSTGRES_URL
from tests.support.store_rooms import add_room

T0 = datetime(2026, 1, 1, 12, 0, 0)
ANN = TableMember("m1", "tok-ann", "Ann", seats=("south",))
BOB = TableMember("m2", "tok-bob", "Bob", seats=("north",))
EVE = TableMember("m3", "tok-eve", "Eve", spectator=True)
LEVELS = ("easy", "normal", "hard", "expert")


def _event(version: int, kind: str = "shot", **fields: Any) -> dict[str, Any]:
    return {"type": kind, "version": version, "at": 1_767_268_800.0 + version, **fields}


def _snapshot(version: int, size: int = 0) -> dict[str, Any]:
    # A real snapshot holds the game (discs, actions): tens of KB of floats.
    return {
        "version": version,
        "game": {"actions": [[i / 7, -i / 3, 0.1 + i] for i in range(size)]},
    }


def _party(store: Store, table_id: str = "t1", code: str | None = "ABC234", **kw: Any) -> None:
    fields: dict[str, Any] = {
        "kind": "party",
        "code": code,
        "events": [_event(1, "created"), _event(2, "joined")],
        "snapshot": _snapshot(2),
        "members": [ANN],
        "deadline": None,
        "status": "lobby",
        "now": T0,
    }
    store.create_table(table_id, **(fields | kw))


def _engine(database: str) -> sa.Engine:
    return sa.create_engine(database if "://" in database else f"sqlite:///{database}")


def _state(store: Store, table_id: str = "t1") -> tuple[Any, ...]:
    """Everything the store holds about a table (to show that a failed write changed nothing)."""
    return (
        store.table(table_id),
        store.table_events(table_id),
        store.table_members(table_id),
        store.open_tables_of_device(ANN.device_token),
        store.armed_tables(),
        store.device_record(ANN.device_token, (*LEVELS, "people")),
    )


def test_a_table_is_stored_with_its_first_events_and_read_back(store: Store) -> None:
    snapshot = _snapshot(2, size=2000)
    _party(
        store,
        snapshot=snapshot,
        members=[ANN, EVE],
        deadline=TableDeadline(1_767_268_801.123456, "turn"),
    )
    table = store.table("t1")
    assert table is not None
    assert (table.id, table.kind, table.code, table.version, table.status) == (
        "t1",
        "party",
        "ABC234",
        2,
        "lobby",
    )
    assert len(table.snapshot["game"]["actions"]) == 2000 and table.snapshot == snapshot
    # A deadline comes back to the microsecond: it is a double on both databases.
    assert table.deadline == TableDeadline(1_767_268_801.123456, "turn")
    assert (table.created_at, table.updated_at) == (T0, T0)
    assert store.table_events("t1") == [_event(1, "created"), _event(2, "joined")]
    assert store.table_events("t1", after=1) == [_event(2, "joined")]
    assert store.table_events("t1", 0, 1) == [_event(1, "created")]
    assert store.table_events("t1", after=2) == []
    assert store.table_members("t1") == [ANN, EVE]
    assert store.table_by_code("ABC234") == "t1"
    assert store.table_by_code("abc234") is None  # the server normalises what players type
    assert store.table("nope") is None and store.table_events("nope") == []


def test_appends_continue_the_log_and_replace_the_tables_state(store: Store) -> None:
    _party(store)
    store.append_table_events(
        "t1",
        2,
        [_event(3, "joined"), _event(4, "game_started")],
        _snapshot(4),
        members=[ANN, BOB],
        deadline=TableDeadline(100.0, "turn"),
        status="playing",
        now=T0 + timedelta(seconds=1),
    )
    # Members left as they are (None): a shot changes none.
    store.append_table_events(
        "t1",
        4,
        [_event(5)],
        _snapshot(5),
        deadline=TableDeadline(130.5, "standin"),
        status="playing",
    )
    assert store.table_members("t1") == [ANN, BOB]
    # Bob leaves, Ann stands up, a spectator comes: the member rows follow.
    ann_unseated = TableMember("m1", "tok-ann", "Ann (away)")
    store.append_table_events(
        "t1",
        5,
        [_event(6, "left"), _event(7, "joined")],
        _snapshot(7),
        members=[ann_unseated, EVE],
        deadline=None,
        status="finished",
    )
    table = store.table("t1")
    assert table is not None
    assert (table.version, table.status, table.deadline, table.snapshot) == (
        7,
        "finished",
        None,
        _snapshot(7),
    )
    assert [e["version"] for e in store.table_events("t1")] == [1, 2, 3, 4, 5, 6, 7]
    assert store.table_members("t1") == [ann_unseated, EVE]
    assert store.open_tables_of_device(BOB.device_token) == []
    assert store.open_tables_of_device(EVE.device_token) == ["t1"]


def test_an_append_without_a_snapshot_keeps_the_stored_one(store: Store) -> None:
    _party(store)
    store.append_table_events(
        "t1", 2, [_event(3)], None, deadline=TableDeadline(5.0, "turn"), status="playing"
    )
    table = store.table("t1")
    assert table is not None
    # The log and the table's version moved on; the snapshot is still version 2's.
    assert (table.version, table.status, table.snapshot) == (3, "playing", _snapshot(2))
    assert table.deadline == TableDeadline(5.0, "turn")
    assert [e["version"] for e in store.table_events("t1", after=2)] == [3]


def test_a_solo_member_holds_every_person_seat(store: Store) -> None:
    me = TableMember("m1", "tok-ann", "Ann", seats=("south", "east", "north"))
    store.create_table(
        "s1",
        kind="solo",
        code=None,
        events=[_event(1, "created")],
        snapshot={},
        members=[me],
        deadline=None,
        status="playing",
    )
    assert store.table_members("s1") == [me]
    # Solo tables have no code: any number of them may be open.
    store.create_table(
        "s2",
        kind="solo",
        code=None,
        events=[_event(1, "created")],
        snapshot={},
        members=[me],
        deadline=None,
        status="playing",
    )
    assert sorted(store.open_tables_of_device("tok-ann")) == ["s1", "s2"]


def test_members_results_and_deadlines_may_come_as_plain_data(store: Store) -> None:
    # The server may hand over JSON dicts and (at, kind) pairs instead of the store's values.
    members = [
        {
            "mid": "m1",
            "device_token": "tok-ann",
            "name": "Ann",
            "spectator": False,
            "seat": "south",
        },
        {"mid": "m3", "device_token": "tok-eve", "name": "Eve", "spectator": True, "seat": None},
    ]
    _party(store, members=members, deadline=(12.5, "turn"))
    table = store.table("t1")
    assert table is not None and table.deadline == TableDeadline(12.5, "turn")
    assert store.table_members("t1") == [ANN, EVE]
    before = _state(store)
    with pytest.raises(StoreDataError, match="a member without 'device_token'"):
        store.append_table_events(
            "t1", 2, [_event(3)], {}, members=[{"mid": "m1", "name": "Ann"}], deadline=None,
            status="playing",
        )  # fmt: skip
    with pytest.raises(StoreDataError, match="a deadline at nan is not a time"):
        store.append_table_events(
            "t1", 2, [_event(3)], {}, deadline=(float("nan"), "turn"), status="playing"
        )
    assert _state(store) == before
    hot_seat = {"mid": "m1", "device_token": "tok-ann", "name": "Ann", "seats": ["south", "east"]}
    win = {"game_number": 1, "device_token": "tok-ann", "opponent": "easy", "scoring": "to_100",
           "result": "win"}  # fmt: skip
    store.append_table_events(
        "t1", 2, [_event(3)], {}, members=[hot_seat], deadline=None, status="finished",
        results=[win],
    )  # fmt: skip
    assert store.table_members("t1") == [
        TableMember("m1", "tok-ann", "Ann", False, ("south", "east"))
    ]
    assert store.device_record("tok-ann", LEVELS)["easy"]["to_100"]["wins"] == 1


def test_a_stale_append_is_refused_loudly_and_writes_nothing(store: Store) -> None:
    _party(store, deadline=TableDeadline(50.0, "round"))
    before = _state(store)
    for expected in (1, 3, 0):
        with pytest.raises(
            StoreConflictError,
            match=rf"table t1 is not at version {expected} \(it is lobby at version 2\)",
        ):
            store.append_table_events(
                "t1",
                expected,
                [_event(expected + 1)],
                _snapshot(9),
                members=[BOB],
                deadline=None,
                status="playing",
                results=[TableResult(1, "tok-ann", "easy", "to_100", "win")],
            )
    assert _state(store) == before
    with pytest.raises(StoreConflictError, match=r"table nope is not at version 0 \(it is missing"):
        store.append_table_events("nope", 0, [_event(1)], {}, deadline=None, status="lobby")


def test_two_stores_on_one_database_cannot_both_write_a_version(
    open_store: Callable[[], Store],
) -> None:
    # Two server processes, each with its own connections, both at version 2.
    first, second = open_store(), open_store()
    _party(first)
    first_table, second_table = first.table("t1"), second.table("t1")
    assert first_table is not None and second_table is not None
    assert first_table.version == second_table.version == 2
    first.append_table_events(
        "t1",
        2,
        [_event(3, by="first")],
        _snapshot(3),
        deadline=TableDeadline(1.0, "turn"),
        status="playing",
    )
    with pytest.raises(StoreConflictError, match=r"not at version 2 \(it is playing at version 3"):
        second.append_table_events(
            "t1",
            2,
            [_event(3, by="second"), _event(4, by="second")],
            _snapshot(4),
            members=[BOB],
            deadline=None,
            status="closed",
        )
    for store in (first, second):
        assert store.table_events("t1", after=2) == [_event(3, by="first")]
        table = store.table("t1")
        assert table is not None
        assert (table.version, table.status, table.snapshot) == (3, "playing", _snapshot(3))
        assert table.deadline == TableDeadline(1.0, "turn")
        assert store.table_members("t1") == [ANN]


def test_writers_racing_for_one_version_exactly_one_wins(open_store: Callable[[], Store]) -> None:
    stores = [open_store() for _ in range(2)]
    _party(stores[0])
    writers = 6
    start = threading.Barrier(writers)
    outcomes: dict[int, str] = {}

    def write(n: int) -> None:
        start.wait()
        try:
            stores[n % 2].append_table_events(
                "t1",
                2,
                [_event(3, by=n), _event(4, by=n)],
                _snapshot(4) | {"by": n},
                members=[ANN, TableMember(f"m{n + 2}", f"tok-{n}", f"Writer {n}")],
                deadline=TableDeadline(float(n), "turn"),
                status="playing",
            )
            outcomes[n] = "won"
        except StoreConflictError:
            outcomes[n] = "conflict"

    threads = [threading.Thread(target=write, args=(n,)) for n in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(outcomes.values()) == ["conflict"] * (writers - 1) + ["won"]
    (winner,) = [n for n, outcome in outcomes.items() if outcome == "won"]
    # The whole of the winner's write is there, and nothing of any other.
    assert stores[1].table_events("t1", after=2) == [_event(3, by=winner), _event(4, by=winner)]
    table = stores[1].table("t1")
    assert table is not None and table.snapshot["by"] == winner and table.version == 4
    assert table.deadline == TableDeadline(float(winner), "turn")
    assert [m.mid for m in stores[1].table_members("t1")] == ["m1", f"m{winner + 2}"]


@pytest.mark.parametrize("members", [None, [BOB]], ids=["a shot", "with the members"])
def test_the_event_key_admits_one_writer_of_a_version_even_past_the_check(
    store: Store, database: str, members: list[TableMember] | None
) -> None:
    # A row at version 3 that the table does not know of (as if a writer got
    # past the version check): the (table, version) key still refuses a second
    # event 3, and the whole append goes (a shot's, on the driver's own
    # connection, as well as one that writes the members too).
    _party(store)
    before = _state(store)
    engine = _engine(database)
    with engine.begin() as connection:
        connection.execute(
            sa.text("INSERT INTO table_events VALUES ('t1', 3, :e)"), {"e": '{"type":"ghost"}'}
        )
    engine.dispose()
    with pytest.raises(StoreConflictError, match="an event of versions 3–4 exists already"):
        store.append_table_events(
            "t1",
            2,
            [_event(3), _event(4)],
            _snapshot(4),
            members=members,
            deadline=TableDeadline(9.0, "turn"),
            status="playing",
        )
    after = _state(store)
    assert after[0] == before[0] and after[2:] == before[2:]
    assert after[1] == [*before[1], {"type": "ghost"}]


@pytest.mark.parametrize(
    ("events", "change", "error", "message"),
    [
        (
            [_event(3), {"type": "shot", "version": 4, "at": object()}],
            {},
            StoreDataError,
            "event 4 of table t1 is not JSON",
        ),
        (
            [_event(3), _event(5)],
            {},
            StoreDataError,
            "the event 'shot' has version 5 where version 4 comes",
        ),
        ([{"type": "shot"}], {}, StoreDataError, "has version None where version 3 comes"),
        ([], {}, StoreDataError, "no events to append"),
        (
            [_event(3)],
            {"snapshot": {"x": float("nan")}},
            StoreDataError,
            "the snapshot of table t1 is not JSON",
        ),
        ([_event(3)], {"status": "paused"}, StoreDataError, "unknown status 'paused'"),
        ([_event(3)], {"members": [ANN, ANN]}, StoreDataError, "a member is listed twice"),
        (
            [_event(3)],
            {"results": [TableResult(1, "tok-ann", "easy", "four_rounds", "lost")]},
            StoreDataError,
            "unknown result 'lost'",
        ),
    ],
)
def test_a_failed_append_leaves_the_table_as_it_was(
    store: Store,
    events: list[dict[str, Any]],
    change: dict[str, Any],
    error: type[Exception],
    message: str,
) -> None:
    _party(store, deadline=TableDeadline(5.0, "turn"))
    before = _state(store)
    fields: dict[str, Any] = {
        "snapshot": _snapshot(4),
        "members": [ANN, BOB],
        "deadline": None,
        "status": "playing",
    }
    fields |= change
    snapshot = fields.pop("snapshot")
    with pytest.raises(error, match=message):
        store.append_table_events("t1", 2, events, snapshot, **fields)
    assert _state(store) == before
    # The table takes the next write as if nothing had happened.
    store.append_table_events("t1", 2, [_event(3)], _snapshot(3), deadline=None, status="playing")


def test_a_result_stored_twice_refuses_the_whole_append(store: Store) -> None:
    _party(store)
    win = TableResult(1, "tok-ann", "easy", "four_rounds", "win")
    store.append_table_events(
        "t1",
        2,
        [_event(3, "finished")],
        _snapshot(3),
        deadline=None,
        status="finished",
        results=[win],
    )
    before = _state(store)
    with pytest.raises(StoreConflictError, match="a result of this game is stored already"):
        store.append_table_events(
            "t1",
            3,
            [_event(4, "finished")],
            _snapshot(4),
            deadline=None,
            status="finished",
            results=[win],
        )
    assert _state(store) == before


def test_a_closed_table_takes_no_events_and_frees_its_code(store: Store) -> None:
    _party(store, members=[ANN, BOB], deadline=TableDeadline(10.0, "round"))
    store.append_table_events(
        "t1", 2, [_event(3, "closed")], _snapshot(3), deadline=None, status="closed"
    )
    with pytest.raises(StoreConflictError, match=r"it is closed at version 3"):
        store.append_table_events("t1", 3, [_event(4)], {}, deadline=None, status="playing")
    assert store.table_by_code("ABC234") is None
    assert store.open_tables_of_device("tok-ann") == []
    assert store.armed_tables() == []
    # The code may be handed out again; the closed table's log stays readable.
    _party(store, "t2")
    assert store.table_by_code("ABC234") == "t2"
    assert len(store.table_events("t1")) == 3


def test_a_taken_id_or_open_code_refuses_the_new_table(store: Store) -> None:
    _party(store)
    before = _state(store)
    carl = TableMember("m1", "tok-carl", "Carl")
    with pytest.raises(StoreConflictError, match="an open table has the code ABC234 already"):
        _party(store, "t2", members=[carl])
    with pytest.raises(StoreConflictError, match="table t1 exists already"):
        _party(store, "t1", code="XYZ789", members=[carl])
    assert store.table("t2") is None and store.table_by_code("XYZ789") is None
    assert store.open_tables_of_device("tok-carl") == []
    assert _state(store) == before
    with pytest.raises(StoreDataError, match="unknown kind 'duel'"):
        _party(store, "t3", kind="duel")
    with pytest.raises(StoreDataError, match="has version 2 where version 1 comes"):
        _party(store, "t3", code=None, events=[_event(2)])
    assert store.table("t3") is None


def test_a_devices_open_tables_come_latest_first(store: Store) -> None:
    for n, table_id in enumerate(["a", "b", "c"]):
        _party(store, table_id, code=f"CODE{n}", now=T0 + timedelta(minutes=n))
    store.append_table_events(
        "a", 2, [_event(3)], {}, deadline=None, status="playing", now=T0 + timedelta(minutes=5)
    )
    store.append_table_events("b", 2, [_event(3)], {}, deadline=None, status="closed")
    assert store.open_tables_of_device("tok-ann") == ["a", "c"]
    assert store.open_tables_of_device("tok-nobody") == []


def test_armed_tables_are_found_again_after_a_restart(open_store: Callable[[], Store]) -> None:
    store = open_store()
    _party(store, "t1", code="AAAAAA", deadline=TableDeadline(300.0, "round"))
    _party(store, "t2", code="BBBBBB", deadline=TableDeadline(200.0, "turn"))
    _party(store, "t3", code="CCCCCC")
    store.append_table_events(
        "t1", 2, [_event(3)], {}, deadline=TableDeadline(100.25, "standin"), status="playing"
    )
    store.close()
    restarted = open_store()  # a new process on the same database
    assert restarted.armed_tables() == [("t1", 100.25), ("t2", 200.0)]
    table = restarted.table("t1")
    assert table is not None and table.deadline == TableDeadline(100.25, "standin")


def test_the_device_record_counts_table_results_beside_the_rooms(store: Store) -> None:
    add_room(store, "r1", "tok-ann", "easy", status="finished", result="win",
             events=[{"type": "finished"}], scoring="to_100")  # fmt: skip
    _party(store, members=[ANN, BOB])
    store.append_table_events(
        "t1",
        2,
        [_event(3, "finished")],
        _snapshot(3),
        deadline=None,
        status="finished",
        results=[
            TableResult(1, "tok-ann", "people", "four_rounds", "loss"),
            TableResult(1, "tok-bob", "people", "four_rounds", "win"),
        ],
    )
    store.create_table(
        "s1",
        kind="solo",
        code=None,
        events=[_event(1, "created")],
        snapshot={},
        members=[ANN],
        deadline=None,
        status="playing",
    )
    store.append_table_events(
        "s1",
        1,
        [_event(2, "finished"), _event(3, "rematch"), _event(4, "finished")],
        {},
        deadline=None,
        status="finished",
        results=[
            TableResult(1, "tok-ann", "easy", "to_100", "draw"),
            TableResult(2, "tok-ann", "easy", "to_100", "win"),
        ],
    )
    record = store.device_record("tok-ann", (*LEVELS, "people"))
    assert record["easy"]["to_100"] == {"wins": 2, "draws": 1, "losses": 0}
    assert record["people"]["four_rounds"] == {"wins": 0, "draws": 0, "losses": 1}
    assert record["hard"]["to_100"] == {"wins": 0, "draws": 0, "losses": 0}
    # Games against people count only for a caller that asks for them.
    assert "people" not in store.device_record("tok-ann", LEVELS)
    assert store.device_record("tok-bob", ("people",))["people"]["four_rounds"]["wins"] == 1


def test_migration_0004_adds_the_tables_and_keeps_the_rooms(database: str) -> None:
    engine = _engine(database)
    Store(engine).migrate("0003")
    add_room(engine, "r1", "tok-ann", "easy", settings={"a": 1}, record_json='{"b": 2}',
             events=[{"type": "shot"}], scoring="to_100")  # fmt: skip
    engine.dispose()
    store = Store.open(database)  # to the newest revision
    room = store.room("r1")
    assert room is not None and (room.settings, room.record_json, room.event_number) == (
        {"a": 1},
        '{"b": 2}',
        1,
    )
    assert store.events_after("r1", 0, limit=5) == [(1, {"type": "shot"})]
    _party(store)
    store.close()
    # Down to 0003 the tables go and the rooms stay; up again, they are back, empty.
    engine = _engine(database)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, "0003")
    assert not {"tables", "table_events", "table_members", "table_results"} & set(
        sa.inspect(engine).get_table_names()
    )
    engine.dispose()
    store = Store.open(database)
    assert store.table("t1") is None and store.room("r1") is not None
    _party(store)
    store.close()


@pytest.mark.postgres
def test_a_dropped_database_connection_is_replaced(postgres_database: str) -> None:
    # PostgreSQL restarted or a connection cut: the store's next call works.
    store = Store.open(postgres_database)
    _party(store)
    schema = make_url(postgres_database).query["application_name"]
    admin = _engine(POSTGRES_URL)
    with admin.begin() as connection:
        cut = connection.execute(
            sa.text(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                "WHERE application_name = :schema"
            ),
            {"schema": schema},
        ).scalar()
    # pg_terminate_backend only signals the backend; wait until it has gone
    # (its goodbye is on the socket), as after a restart.  A call in the
    # moment between gets StoreUnavailableError and the next one works.
    for _ in range(100):
        with admin.connect() as connection:  # a new snapshot of the statistics each time
            left = connection.execute(
                sa.text("SELECT count(*) FROM pg_stat_activity WHERE application_name = :schema"),
                {"schema": schema},
            ).scalar()
        if left == 0:
            break
        time.sleep(0.05)
    admin.dispose()
    assert cut == 1  # the store's idle pooled connection
    assert left == 0
    assert store.table_events("t1", after=1) == [_event(2, "joined")]
    store.append_table_events("t1", 2, [_event(3)], {}, deadline=None, status="playing")
    store.close()


def test_many_threads_appending_to_many_tables_all_land(store: Store) -> None:
    """A crowded server: forty worker threads each write a shot of their own table at once.

    On SQLite they queue for its single writer (none fails with "database is
    locked", whatever the wait); on PostgreSQL they run side by side.
    """
    tables, shots = 40, 6
    for n in range(tables):
        _party(store, f"t{n}", code=None)
    start = threading.Barrier(tables)
    failures: list[BaseException] = []

    def play(n: int) -> None:
        start.wait()
        try:
            for shot in range(shots):
                version = 2 + shot
                store.append_table_events(
                    f"t{n}",
                    version,
                    [_event(version + 1, by=n)],
                    _snapshot(version + 1, size=2000),
                    deadline=TableDeadline(float(version), "turn"),
                    status="playing",
                )
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=play, args=(n,)) for n in range(tables)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert failures == []
    for n in range(tables):
        table = store.table(f"t{n}")
        assert table is not None and table.version == 2 + shots
        versions = [e["version"] for e in store.table_events(f"t{n}", after=2)]
        assert versions == list(range(3, 3 + shots))


@pytest.mark.parametrize("members", [None, [BOB]], ids=["a shot", "with the members"])
def test_an_append_is_one_commit(store: Store, members: list[TableMember] | None) -> None:
    # What the metrics count (GET /metrics, the load benchmark): a shot's
    # append on the driver's own connection is a commit as much as a session's.
    _party(store)
    before = metrics.counts().get(metrics.DB_COMMITS, 0)
    store.append_table_events(
        "t1", 2, [_event(3)], None, members=members, deadline=None, status="playing"
    )
    assert metrics.counts().get(metrics.DB_COMMITS, 0) - before == 1


def test_the_pool_keeps_its_connections_under_a_crowd(store: Store) -> None:
    # Twelve calls at once (a crowded server's worker threads), twice: the
    # connections opened for the first crowd serve the second; none is closed
    # and opened again.
    def crowd() -> None:
        connections = [store._engine.raw_connection() for _ in range(12)]
        for connection in connections:
            connection.close()

    crowd()
    opened = metrics.counts().get(metrics.DB_CONNECTIONS, 0)
    crowd()
    assert metrics.counts().get(metrics.DB_CONNECTIONS, 0) == opened
