"""The owner of the tables: real store (SQLite file), real tables, real CPU; no sockets.

Timers run on the event loop with shortened timings (a test setting); what
is checked is what happened and in which order, and the server times the
events carry, never how long anything took.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import threading
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from pathlib import Path
from types import FrameType
from typing import Any, TypeVar

import anyio
import anyio.to_thread
import numpy as np
import pytest
from sqlalchemy.exc import OperationalError

from crokinole.ai import make_player
from crokinole.board import Seat, Shot
from crokinole.rules import Phase
from crokinole.server.limits import ServerSettings
from crokinole.server.owner.cpu import CpuPool, think
from crokinole.server.owner.tables import SNAPSHOT_EVERY, Tables, new_code, stored_table
from crokinole.store import Store
from crokinole.table import (
    Connect,
    Disconnect,
    Event,
    GameFinished,
    GameStarted,
    Join,
    Leave,
    NextRound,
    Presence,
    Remove,
    Rename,
    Resign,
    RoundStarted,
    Shoot,
    ShotPlayed,
    StandInOff,
    StandInOn,
    Start,
    Table,
    TableError,
    Timings,
    TurnTimedOut,
    event_from_dict,
)

T = TypeVar("T")

#: Upper bound on any wait of these tests (a safety net against a hang, not a measurement).
PATIENCE = 60.0

#: A short turn clock and grace (the server's test setting).
QUICK = Timings(turn_grace=0.05, standin_grace=0.1, round_countdown=0.1, reaction_gap=0.0)


class Recorder:
    """A subscriber that keeps every event it is delivered, and the table after them."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.table: Table | None = None
        self._changed = asyncio.Event()

    def deliver(self, table: Table, events: Sequence[Event]) -> None:
        self.table = table
        self.events.extend(events)
        self._changed.set()

    async def past(self, version: int) -> None:
        """Wait until the table moved past ``version``."""
        await self.until(lambda: self.table is not None and self.table.version > version)

    def of(self, kind: type[T]) -> list[T]:
        return [e for e in self.events if isinstance(e, kind)]

    async def until(self, done: Callable[[], bool]) -> None:
        """Wait for deliveries until ``done()``."""
        with anyio.fail_after(PATIENCE):
            while not done():
                self._changed.clear()
                await self._changed.wait()


def run(scenario: Callable[[], Awaitable[T]]) -> T:
    return anyio.run(scenario)


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "tables.db"


@pytest.fixture
def store(db: Path) -> Iterator[Store]:
    opened = Store.open(str(db))
    yield opened
    opened.close()


def stored_events(store: Store, table_id: str) -> list[Event]:
    return [event_from_dict(d) for d in store.table_events(table_id)]


def assert_log_is_the_table(store: Store, table: Table) -> None:
    """Versions 1, 2, 3… with no gap, and the log replays to the table."""
    log = stored_events(store, table.id)
    assert [e.version for e in log] == list(range(1, table.version + 1))
    assert Table.replay(log) == table
    assert store.table(table.id).version == table.version  # type: ignore[union-attr]


async def party_of_two(
    tables: Tables, *, settings: dict[str, Any], recorder: Recorder | None = None
) -> Table:
    """Ann's party, joined by Bob with its code, started: Ann (south) to shoot."""
    table = await tables.create(
        kind="party", device="dev-ann", name="Ann", settings=settings, subscriber=recorder
    )
    assert table.code is not None
    joined, _ = await tables.join_by_code(table.code.lower(), device="dev-bob", name="Bob")
    assert joined.seats[Seat.NORTH] is not None
    await tables.command(table.id, Start("dev-ann"))
    started = tables.held(table.id)
    assert started is not None and started.game is not None
    assert started.game.current_seat is Seat.SOUTH
    return started


def easy_shot(table: Table, seed: int) -> Shot:
    """A person's shot: what CPU Easy would play (chosen here, not on the CPU's pool)."""
    assert table.game is not None
    return make_player("easy").choose_shot(table.game.copy(), np.random.default_rng(seed))


# ---------------------------------------------------------------- a whole game


def test_a_solo_game_against_the_cpu_plays_itself_to_the_end_with_the_cpu_on_its_pool(
    store: Store,
) -> None:
    thinkers: set[str] = set()

    def profile(frame: FrameType, event: str, _: Any) -> None:
        if event == "call" and frame.f_code is think.__code__:
            thinkers.add(threading.current_thread().name)

    async def scenario() -> tuple[Table, Recorder]:
        recorder = Recorder()
        tables = Tables(store, cpu=1)
        table = await tables.create(
            kind="solo",
            device="dev-me",
            name="Me",
            settings={"rounds": 1, "discs": 8},
            seats={Seat.SOUTH: "me", Seat.NORTH: "easy"},
            subscriber=recorder,
        )
        shots = 0
        while True:
            now = tables.held(table.id)
            assert now is not None
            if now.game is not None and now.game.current_seat is Seat.SOUTH:
                shot = await anyio.to_thread.run_sync(easy_shot, now, shots)
                await tables.command(table.id, Shoot("dev-me", Seat.SOUTH, shot))
                shots += 1
                continue
            if recorder.of(GameFinished):
                break
            await recorder.past(now.version)
        final = tables.held(table.id) or await tables.get(table.id)
        await tables.close()
        assert final is not None
        return final, recorder

    threading.setprofile(profile)  # threads started from now on: the CPU pool's
    try:
        final, recorder = run(scenario)
    finally:
        threading.setprofile(None)
    # R2: one round of 8 discs each: every disc shot (or lost to the ditch), then the end.
    turns = [e for e in recorder.events if isinstance(e, ShotPlayed | TurnTimedOut)]
    assert sum(1 for e in turns if e.seat is Seat.SOUTH) == 8
    assert sum(1 for e in turns if e.seat is Seat.NORTH) == 8
    assert {e.by for e in recorder.of(ShotPlayed) if e.seat is Seat.NORTH} == {"cpu"}
    assert {e.by for e in recorder.of(ShotPlayed) if e.seat is Seat.SOUTH} == {"person"}
    assert final.stage == "finished" and final.game is not None and final.game.is_over
    assert_log_is_the_table(store, final)
    # The CPU thought on its own pool's thread, never on the event loop's.
    assert thinkers and all(name.startswith("crokinole-cpu") for name in thinkers)
    # The device's record counts the game against CPU Easy.
    outcome = final.game.outcome
    assert outcome is not None
    expected = "draw" if outcome.winner is None else ("win" if outcome.winner == 0 else "loss")
    record = store.device_record("dev-me", ["easy"])["easy"]["four_rounds"]
    assert record == {
        "wins": int(expected == "win"),
        "draws": int(expected == "draw"),
        "losses": int(expected == "loss"),
    }


def test_a_cpu_that_moves_first_starts_at_once_and_cpus_alone_finish(store: Store) -> None:
    # You and a CPU partner against two CPUs (doubles), the CPU opening the game:
    # the person's turns are taken by their own shots, the rest by the pool.
    async def scenario() -> tuple[Table, list[Event]]:
        recorder = Recorder()
        tables = Tables(store)
        table = await tables.create(
            kind="solo",
            device="dev-me",
            name="Me",
            settings={"layout": "doubles", "rounds": 1},
            seats={Seat.SOUTH: "easy", Seat.WEST: "easy", Seat.NORTH: "me", Seat.EAST: "easy"},
            subscriber=recorder,
        )
        shots = 0
        while not recorder.of(GameFinished):
            now = tables.held(table.id)
            assert now is not None and now.game is not None
            if now.game.current_seat is Seat.NORTH:
                shot = await anyio.to_thread.run_sync(easy_shot, now, shots)
                await tables.command(table.id, Shoot("dev-me", Seat.NORTH, shot))
                shots += 1
                continue
            await recorder.past(now.version)
        final = tables.held(table.id)
        await tables.close()
        assert final is not None
        return final, stored_events(store, table.id)

    final, log = run(scenario)
    first_shot = next(e for e in log if isinstance(e, ShotPlayed))
    assert first_shot.seat is Seat.SOUTH and first_shot.by == "cpu"
    played = [e for e in log if isinstance(e, ShotPlayed | TurnTimedOut)]
    assert len(played) == 24  # R2: doubles, 12 discs a side, 6 a player
    assert_log_is_the_table(store, final)


def test_a_cpu_whose_table_moved_while_it_thought_thinks_again(store: Store) -> None:
    async def scenario() -> tuple[list[Event], Table]:
        recorder = Recorder()
        tables = Tables(store)
        table = await tables.create(
            kind="solo",
            device="dev-me",
            name="Me",
            settings={},
            seats={Seat.SOUTH: "easy", Seat.NORTH: "me"},
            subscriber=recorder,
        )
        # The CPU (south) starts thinking at the table's version; the table moves on first.
        await tables.command(table.id, Disconnect("dev-me"))
        await recorder.until(lambda: bool(recorder.of(ShotPlayed)))
        final = tables.held(table.id)
        await tables.close()
        assert final is not None
        return recorder.events, final

    events, final = run(scenario)
    gone, shot = events
    assert isinstance(gone, Presence) and isinstance(shot, ShotPlayed)
    assert (shot.seat, shot.by, shot.version) == (Seat.SOUTH, "cpu", gone.version + 1)
    assert_log_is_the_table(store, final)


def test_a_cpu_pool_has_at_least_one_thread() -> None:
    with pytest.raises(ValueError, match="at least one worker"):
        CpuPool(0)


def test_a_server_s_settings_make_its_tables_timings(store: Store) -> None:
    settings = ServerSettings(cpu_workers=3, turn_grace=0.5, standin_grace=1.0, short_clocks=True)

    async def scenario() -> tuple[int, Timings]:
        tables = Tables.from_settings(store, settings)
        table = await tables.create(
            kind="party", device="dev-ann", name="Ann", settings={"turn_time": 5}
        )
        await tables.close()
        return tables.cpu.workers, table.timings

    workers, timings = run(scenario)
    assert workers == 3
    assert timings == Timings(turn_grace=0.5, standin_grace=1.0)
    # The server's defaults are the table's.
    defaults = ServerSettings()
    assert Timings() == Timings(
        turn_grace=defaults.turn_grace,
        standin_grace=defaults.standin_grace,
        round_countdown=defaults.round_countdown,
        reaction_gap=defaults.reaction_gap,
    )


# ---------------------------------------------------------------- clocks


def test_a_turn_clock_runs_out_and_the_disc_goes_to_the_ditch_once(store: Store) -> None:
    day = 86400.0

    def server_time() -> float:
        """The server's clock, injected: here a day behind the machine's."""
        return time.time() - day

    async def scenario() -> tuple[list[Event], Table]:
        recorder = Recorder()
        tables = Tables(store, timings=QUICK, allow_short_clock=True, clock=server_time)
        started = await party_of_two(
            tables, settings={"turn_time": 1.0, "hand": "steady"}, recorder=recorder
        )
        # Nobody shoots: Ann's clock runs out, then Bob's.
        await recorder.until(lambda: len(recorder.of(TurnTimedOut)) >= 2)
        final = tables.held(started.id)
        await tables.close()
        assert final is not None
        return recorder.events, final

    events, final = run(scenario)
    start = next(e for e in events if isinstance(e, GameStarted))
    first, second = [e for e in events if isinstance(e, TurnTimedOut)][:2]
    # R3: each disc goes to the ditch unplayed, once; then the clock is the next player's.
    assert (first.seat, first.reason) == (Seat.SOUTH, "clock")
    assert (second.seat, second.reason) == (Seat.NORTH, "clock")
    assert first.at >= start.at + 1.0 + QUICK.turn_grace  # never before the deadline
    assert second.at >= first.at + 1.0 + QUICK.turn_grace
    assert final.game is not None and final.game.discs == ()
    assert len(final.game.upcoming) == 16 - 2  # two turns of the round are gone
    assert start.at < time.time() - day / 2  # every time is the injected clock's
    assert_log_is_the_table(store, final)


def test_a_timer_that_wakes_a_moment_early_fires_the_deadline_without_a_retry(
    store: Store, caplog: pytest.LogCaptureFixture
) -> None:
    """The event loop's timer is not the server's clock: it may wake a moment before the
    deadline, and the clock may pass the deadline while the Tick is being made. The
    deadline then fires at once (seen under load as a warning that a due deadline "fired
    nothing", and a retry a second late)."""
    script: list[float] = []

    def server_time() -> float:
        return script.pop(0) if script else time.time()

    async def scenario() -> list[Event]:
        recorder = Recorder()
        tables = Tables(store, timings=QUICK, allow_short_clock=True, clock=server_time)
        started = await party_of_two(
            tables, settings={"turn_time": 1.0, "hand": "steady"}, recorder=recorder
        )
        deadline = started.next_deadline()
        assert deadline is not None
        # When the timer wakes, the clock reads just before the deadline; a moment
        # later, when the Tick is made, just after it.
        script.extend([deadline.at - 0.001, deadline.at + 0.001])
        await recorder.until(lambda: bool(recorder.of(TurnTimedOut)))
        await tables.close()
        return recorder.events

    with caplog.at_level(logging.INFO, logger="crokinole.server"):
        events = run(scenario)
    (timeout,) = [e for e in events if isinstance(e, TurnTimedOut)][:1]
    assert (timeout.seat, timeout.reason) == (Seat.SOUTH, "clock")
    assert [r.getMessage() for r in caplog.records if "fired nothing" in r.getMessage()] == []


def test_a_shot_in_time_stops_the_clock(store: Store) -> None:
    async def scenario() -> tuple[list[Event], Table]:
        recorder = Recorder()
        tables = Tables(store, timings=QUICK, allow_short_clock=True)
        started = await party_of_two(
            tables, settings={"turn_time": 1.0, "hand": "steady"}, recorder=recorder
        )
        shot = await anyio.to_thread.run_sync(easy_shot, started, 1)
        await tables.command(started.id, Shoot("dev-ann", Seat.SOUTH, shot))
        # Bob never shoots: his clock (re-armed from his turn's start) runs out.
        await recorder.until(lambda: bool(recorder.of(TurnTimedOut)))
        final = tables.held(started.id)
        await tables.close()
        assert final is not None
        return recorder.events, final

    events, final = run(scenario)
    timeouts = [e for e in events if isinstance(e, TurnTimedOut)]
    assert [(e.seat, e.reason) for e in timeouts][:1] == [(Seat.NORTH, "clock")]
    shot = next(e for e in events if isinstance(e, ShotPlayed))
    assert timeouts[0].at >= shot.at + 1.0 + QUICK.turn_grace
    assert_log_is_the_table(store, final)


def test_the_round_countdown_starts_the_next_round_once(store: Store) -> None:
    async def scenario() -> tuple[Table, list[Event], Table]:
        recorder = Recorder()
        tables = Tables(store, timings=QUICK)
        started = await party_of_two(
            tables, settings={"rounds": 2, "hand": "steady"}, recorder=recorder
        )
        devices = {Seat.SOUTH: "dev-ann", Seat.NORTH: "dev-bob"}
        shots = 0
        while True:  # the first round, shot by shot
            now = tables.held(started.id)
            assert now is not None and now.game is not None
            seat = now.game.current_seat
            if seat is None:
                break
            shot = await anyio.to_thread.run_sync(easy_shot, now, 100 + shots)
            await tables.command(started.id, Shoot(devices[seat], seat, shot))
            shots += 1
        round_over = tables.held(started.id)
        assert round_over is not None
        # Nobody presses Next: the countdown starts round 2.
        await recorder.until(lambda: bool(recorder.of(RoundStarted)))
        final = tables.held(started.id)
        await tables.close()
        assert final is not None
        return round_over, recorder.events, final

    round_over, events, final = run(scenario)
    assert round_over.game is not None and round_over.game.phase is Phase.ROUND_OVER
    deadline = round_over.next_deadline()
    assert deadline is not None and deadline.kind == "round"
    started = [e for e in events if isinstance(e, RoundStarted)]
    assert [e.round for e in started] == [2]
    assert started[0].at >= deadline.at
    assert final.game is not None and final.game.round_number == 2
    assert final.game.current_seat is not None  # round 2 is being played
    assert_log_is_the_table(store, final)


def test_a_standin_takes_a_missing_players_turn_and_gives_the_seat_back(store: Store) -> None:
    async def scenario() -> tuple[list[Event], Table, Table]:
        recorder = Recorder()
        tables = Tables(store, timings=QUICK)
        started = await party_of_two(
            tables, settings={"standin_level": "easy", "hand": "steady"}, recorder=recorder
        )
        await tables.command(started.id, Disconnect("dev-ann"))
        # After the grace the stand-in plays Ann's turn.
        await recorder.until(
            lambda: any(e.by == "standin" for e in recorder.of(ShotPlayed)),
        )
        await tables.command(started.id, Connect("dev-ann"))
        now = tables.held(started.id)
        assert now is not None and now.game is not None
        assert now.game.current_seat is Seat.NORTH
        shot = await anyio.to_thread.run_sync(easy_shot, now, 2)
        await tables.command(started.id, Shoot("dev-bob", Seat.NORTH, shot))
        waiting = tables.held(started.id)
        assert waiting is not None
        # Ann's turn is hers again: she shoots it herself.
        shot = await anyio.to_thread.run_sync(easy_shot, waiting, 3)
        await tables.command(started.id, Shoot("dev-ann", Seat.SOUTH, shot))
        final = tables.held(started.id)
        await tables.close()
        assert final is not None
        return recorder.events, waiting, final

    events, waiting, final = run(scenario)
    kinds = [
        (type(e).__name__, getattr(e, "seat", None), getattr(e, "by", None))
        for e in events
        if isinstance(e, StandInOn | StandInOff | ShotPlayed | Presence)
    ]
    assert kinds == [
        ("Presence", None, None),  # Ann gone
        ("StandInOn", Seat.SOUTH, None),
        ("ShotPlayed", Seat.SOUTH, "standin"),
        ("Presence", None, None),  # Ann back
        ("ShotPlayed", Seat.NORTH, "person"),
        ("StandInOff", Seat.SOUTH, None),  # at her next turn
        ("ShotPlayed", Seat.SOUTH, "person"),
    ]
    on = next(e for e in events if isinstance(e, StandInOn))
    gone = next(e for e in events if isinstance(e, Presence))
    assert on.at >= gone.at + QUICK.standin_grace
    assert waiting.cpu_turn() is None and waiting.next_deadline() is None
    assert_log_is_the_table(store, final)


# ---------------------------------------------------------------- restarts


def test_a_restarted_server_re_arms_the_clock_and_the_game_goes_on(store: Store) -> None:
    timings = Timings(turn_grace=0.05, standin_grace=600.0, round_countdown=0.1)

    async def scenario() -> tuple[Table, Table, list[Event]]:
        first = Tables(store, timings=timings, allow_short_clock=True)
        started = await party_of_two(first, settings={"turn_time": 1.0, "hand": "steady"})
        await first.close()  # the process dies: nothing more is written
        assert store.armed_tables() == [(started.id, started.next_deadline().at)]  # type: ignore[union-attr]

        recorder = Recorder()
        second = Tables(store, timings=timings, allow_short_clock=True)
        await second.startup()
        again = await second.get(started.id, subscriber=recorder)
        assert again is not None
        await recorder.until(lambda: bool(recorder.of(TurnTimedOut)))
        now = second.held(started.id)
        assert now is not None and now.game is not None
        assert now.game.current_seat is Seat.NORTH
        shot = await anyio.to_thread.run_sync(easy_shot, now, 4)
        await second.command(started.id, Connect("dev-bob"))
        await second.command(started.id, Shoot("dev-bob", Seat.NORTH, shot))
        final = second.held(started.id)
        await second.close()
        assert final is not None
        return started, final, recorder.events

    started, final, events = run(scenario)
    timeout = next(e for e in events if isinstance(e, TurnTimedOut))
    assert (timeout.seat, timeout.reason) == (Seat.SOUTH, "clock")
    assert timeout.at >= started.next_deadline().at  # type: ignore[union-attr]
    # Nobody is connected to a restarted server until they come back.
    after_restart = [e for e in stored_events(store, final.id) if e.version > started.version]
    gone = [e.mid for e in after_restart if isinstance(e, Presence) and not e.connected]
    assert sorted(gone) == ["m1", "m2"]
    assert any(isinstance(e, ShotPlayed) and e.seat is Seat.NORTH for e in after_restart)
    assert_log_is_the_table(store, final)


def test_a_table_loaded_from_the_store_is_the_stored_one_with_nobody_connected(
    store: Store,
) -> None:
    async def scenario() -> tuple[Table, Table | None, Table | None]:
        first = Tables(store)
        started = await party_of_two(first, settings={"hand": "human"})
        await first.close()
        second = Tables(store)
        loaded = await second.get(started.id)
        missing = await second.get("0" * 32)
        await second.close()
        return started, loaded, missing

    started, loaded, missing = run(scenario)
    assert missing is None
    assert loaded is not None
    # The stored table, and then the one thing a new process knows: nobody is here yet.
    log = stored_events(store, started.id)
    assert Table.replay(log[: started.version]) == started
    assert [(type(e), e.mid, e.connected) for e in log[started.version :]] == [  # type: ignore[attr-defined]
        (Presence, "m1", False),
        (Presence, "m2", False),
    ]
    assert all(not m.connected for m in loaded.members)
    assert_log_is_the_table(store, loaded)


@pytest.mark.parametrize("shots", [SNAPSHOT_EVERY - 3, SNAPSHOT_EVERY + 5])
def test_a_table_whose_snapshot_is_older_than_its_log_loads_whole(store: Store, shots: int) -> None:
    """A shot writes its events, not the whole table: loading folds the log past the snapshot."""
    devices = {Seat.SOUTH: "dev-ann", Seat.NORTH: "dev-bob"}

    async def play(tables: Tables, table_id: str, count: int, seed: int) -> Table:
        for n in range(count):
            now = tables.held(table_id)
            assert now is not None and now.game is not None
            if now.game.phase is Phase.ROUND_OVER:
                for device in devices.values():
                    await tables.command(table_id, NextRound(device))
                now = tables.held(table_id)
                assert now is not None and now.game is not None
            seat = now.game.current_seat
            shot = await anyio.to_thread.run_sync(easy_shot, now, seed + n)
            await tables.command(table_id, Shoot(devices[seat], seat, shot))
        final = tables.held(table_id)
        assert final is not None
        return final

    async def scenario() -> tuple[Table, int, Table, Table]:
        first = Tables(store)
        started = await party_of_two(first, settings={"hand": "human", "rounds": 4})
        played = await play(first, started.id, shots, seed=100)
        await first.close()
        stored = store.table(started.id)
        assert stored is not None
        second = Tables(store)
        loaded = await second.get(started.id)
        assert loaded is not None
        for device in devices.values():
            await second.command(started.id, Connect(device))
        going_on = await play(second, started.id, 1, seed=500)
        await second.close()
        return played, stored.snapshot["version"], loaded, going_on

    played, snapshot_version, loaded, going_on = run(scenario)
    # The stored snapshot lags the log by fewer than SNAPSHOT_EVERY events...
    assert played.version - SNAPSHOT_EVERY < snapshot_version <= played.version
    if shots > SNAPSHOT_EVERY:
        assert snapshot_version > 6  # ...and was written again during the game
    # ...and the loaded table is the whole log's, to the last shot.
    log = stored_events(store, played.id)
    assert Table.replay(log[: played.version]) == played
    assert loaded.game is not None and played.game is not None
    assert loaded.game.to_json() == Table.replay(log[: loaded.version]).game.to_json()  # type: ignore[union-attr]
    assert len(loaded.game.to_json()) >= len(played.game.to_json())
    assert_log_is_the_table(store, going_on)
    reread = stored_table(store, played.id)
    assert reread is not None and reread[0] == going_on


def test_idle_tables_are_forgotten_and_come_back_when_asked_for(store: Store) -> None:
    async def scenario() -> tuple[list[int], Table, Table | None, Table | None]:
        recorder = Recorder()
        tables = Tables(store)
        lobby = await tables.create(
            kind="party", device="dev-ann", name="Ann", settings={}, subscriber=recorder
        )
        swept = [await tables.sweep()]  # followed by a connection: kept
        tables.hub.unsubscribe(lobby.id, recorder)
        await tables.command(lobby.id, Disconnect("dev-ann"))
        swept.append(await tables.sweep())  # nobody follows it, nothing due: forgotten
        forgotten = tables.held(lobby.id)
        again = await tables.get(lobby.id)
        await tables.close()
        kept = tables.held(lobby.id)
        return swept, lobby, forgotten, again if kept is None else None

    swept, lobby, forgotten, again = run(scenario)
    assert swept == [0, 1]
    assert forgotten is None
    assert again is not None and again.version == lobby.version + 1  # + Ann's Disconnect
    assert_log_is_the_table(store, again)


def test_a_table_with_a_clock_running_is_not_forgotten(store: Store) -> None:
    async def scenario() -> tuple[int, Table | None]:
        tables = Tables(store, timings=Timings(turn_grace=600.0), allow_short_clock=True)
        started = await party_of_two(tables, settings={"turn_time": 1.0})
        for device in ("dev-ann", "dev-bob"):
            await tables.command(started.id, Disconnect(device))
        swept = await tables.sweep()  # nobody follows it, but Ann's clock runs
        held = tables.held(started.id)
        await tables.close()
        return swept, held

    swept, held = run(scenario)
    assert swept == 0
    assert held is not None and held.next_deadline() is not None


# ---------------------------------------------------------------- one at a time


def test_two_commands_racing_for_one_table_are_applied_one_at_a_time(store: Store) -> None:
    async def scenario() -> tuple[list[object], list[object], Table, list[Event]]:
        recorder = Recorder()
        tables = Tables(store)
        started = await party_of_two(tables, settings={"hand": "steady"}, recorder=recorder)
        shot = await anyio.to_thread.run_sync(easy_shot, started, 5)
        same = Shoot("dev-ann", Seat.SOUTH, shot, expected_version=started.version)
        # The same shot sent twice at once (two tabs): applied once.
        twice = await asyncio.gather(
            tables.command(started.id, same),
            tables.command(started.id, same),
            return_exceptions=True,
        )
        # A shot and a rename at once: both, one after the other.
        now = tables.held(started.id)
        assert now is not None
        shot = await anyio.to_thread.run_sync(easy_shot, now, 6)
        both = await asyncio.gather(
            tables.command(started.id, Shoot("dev-bob", Seat.NORTH, shot)),
            tables.command(started.id, Rename("dev-bob", "Robert")),
            return_exceptions=True,
        )
        final = tables.held(started.id)
        await tables.close()
        assert final is not None
        return list(twice), list(both), final, recorder.events

    twice, both, final, published = run(scenario)
    applied = [r for r in twice if isinstance(r, list)]
    refused = [r for r in twice if isinstance(r, TableError)]
    assert len(applied) == 1 and len(refused) == 1
    assert refused[0].code == "stale"
    assert all(isinstance(r, list) and r for r in both)
    shots = [e for e in published if isinstance(e, ShotPlayed)]
    assert [e.seat for e in shots] == [Seat.SOUTH, Seat.NORTH]
    # Published in order, each version once: the log and the fan-out agree.
    versions = [e.version for e in published]
    assert versions == sorted(set(versions))
    assert [e.version for e in stored_events(store, final.id)][-len(versions) :] == versions
    assert final.member("m2").name == "Robert"  # type: ignore[union-attr]
    assert_log_is_the_table(store, final)


# ---------------------------------------------------------------- failures


def test_a_failed_store_write_leaves_the_table_unchanged(store: Store, db: Path) -> None:
    async def scenario() -> tuple[Table, Table | None, list[Event], BaseException, Table]:
        recorder = Recorder()
        tables = Tables(store)
        started = await party_of_two(tables, settings={"hand": "steady"}, recorder=recorder)
        seen = len(recorder.events)
        shot = await anyio.to_thread.run_sync(easy_shot, started, 7)
        # The database refuses the write (its event log is out of reach).
        with sqlite3.connect(db) as raw:
            raw.execute("ALTER TABLE table_events RENAME TO table_events_away")
        try:
            with pytest.raises(OperationalError) as failed:
                await tables.command(started.id, Shoot("dev-ann", Seat.SOUTH, shot))
        finally:
            with sqlite3.connect(db) as raw:
                raw.execute("ALTER TABLE table_events_away RENAME TO table_events")
        after_failure = tables.held(started.id)
        missed = recorder.events[seen:]
        # The database is back: the same shot is played, as the next version.
        await tables.command(started.id, Shoot("dev-ann", Seat.SOUTH, shot))
        final = tables.held(started.id)
        await tables.close()
        assert final is not None
        return started, after_failure, missed, failed.value, final

    started, after_failure, missed, error, final = run(scenario)
    assert after_failure is started  # not a copy: the very table, unchanged
    assert missed == []  # nobody was told of a shot that was not stored
    assert "table_events" in str(error)
    first_new = stored_events(store, final.id)[started.version]
    assert first_new.version == started.version + 1 and isinstance(first_new, ShotPlayed)
    assert_log_is_the_table(store, final)


def test_a_deadline_that_could_not_be_stored_fires_once_the_database_is_back(
    store: Store, db: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async def scenario() -> tuple[Table, list[Event], Table]:
        recorder = Recorder()
        tables = Tables(store, timings=QUICK, allow_short_clock=True)
        started = await party_of_two(
            tables, settings={"turn_time": 1.0, "hand": "steady"}, recorder=recorder
        )
        with sqlite3.connect(db) as raw:
            raw.execute("ALTER TABLE table_events RENAME TO table_events_away")
        try:
            with anyio.fail_after(PATIENCE):
                while "firing the deadline" not in caplog.text:
                    await asyncio.sleep(0.05)
            assert not recorder.of(TurnTimedOut)  # not told: not stored
        finally:
            with sqlite3.connect(db) as raw:
                raw.execute("ALTER TABLE table_events_away RENAME TO table_events")
        await recorder.until(lambda: bool(recorder.of(TurnTimedOut)))
        final = tables.held(started.id)
        await tables.close()
        assert final is not None
        return started, recorder.events, final

    started, events, final = run(scenario)
    timeouts = [e for e in events if isinstance(e, TurnTimedOut)]
    assert [(e.seat, e.reason) for e in timeouts][:1] == [(Seat.SOUTH, "clock")]
    deadline = started.next_deadline()
    assert deadline is not None and timeouts[0].at >= deadline.at
    assert_log_is_the_table(store, final)


def test_a_write_that_lost_to_another_owner_is_refused_and_the_table_reloaded(
    store: Store,
) -> None:
    async def scenario() -> tuple[Table, Table | None, TableError, Table | None]:
        tables = Tables(store)
        started = await party_of_two(tables, settings={"hand": "steady"})
        # Another owner (a stale process, issue 12) stored the next event first.
        renamed, events = started.apply(Rename("dev-bob", "Robert"), now=started.created_at + 5)
        store.append_table_events(
            started.id,
            started.version,
            [e.to_dict() for e in events],
            renamed.to_dict(),
            deadline=None,
            status=renamed.stage,
        )
        shot = await anyio.to_thread.run_sync(easy_shot, started, 8)
        with pytest.raises(TableError) as refused:
            await tables.command(started.id, Shoot("dev-ann", Seat.SOUTH, shot))
        held = tables.held(started.id)
        reloaded = await tables.get(started.id)
        await tables.close()
        return renamed, held, refused.value, reloaded

    renamed, held, refused, reloaded = run(scenario)
    assert refused.code == "stale"
    assert held is None  # given up: the store has the table, not this owner's copy
    # The other owner's event, and no forked shot (then nobody is connected yet).
    assert reloaded is not None
    log = stored_events(store, renamed.id)
    assert Table.replay(log[: renamed.version]) == renamed
    assert not any(isinstance(e, ShotPlayed) for e in log)
    assert_log_is_the_table(store, reloaded)


def test_a_refused_command_changes_nothing_and_publishes_nothing(store: Store) -> None:
    async def scenario() -> tuple[Table, Table | None, list[Event], TableError]:
        recorder = Recorder()
        tables = Tables(store)
        started = await party_of_two(tables, settings={"hand": "steady"}, recorder=recorder)
        seen = len(recorder.events)
        shot = await anyio.to_thread.run_sync(easy_shot, started, 9)
        with pytest.raises(TableError) as refused:
            await tables.command(started.id, Shoot("dev-bob", Seat.NORTH, shot))
        held = tables.held(started.id)
        await tables.close()
        return started, held, recorder.events[seen:], refused.value

    started, held, missed, refused = run(scenario)
    assert refused.code == "not_your_turn"
    assert held is started and missed == []
    assert_log_is_the_table(store, started)


def test_unknown_tables_and_codes(store: Store) -> None:
    async def scenario() -> list[str]:
        tables = Tables(store)
        codes = []
        for attempt in (
            tables.command("f" * 32, Start("dev-ann")),
            tables.join_by_code("ZZZZZZ", device="dev-bob", name="Bob"),
        ):
            try:
                await attempt
            except TableError as exc:
                codes.append(exc.code)
        await tables.close()
        return codes

    assert run(scenario) == ["unknown_table", "unknown_code"]


def test_joining_a_solo_table_by_its_id_is_refused(store: Store) -> None:
    async def scenario() -> str:
        tables = Tables(store)
        table = await tables.create(
            kind="solo",
            device="dev-me",
            name="Me",
            settings={},
            seats={Seat.SOUTH: "me", Seat.NORTH: "easy"},
        )
        try:
            await tables.command(table.id, Join("dev-bob", "Bob"))
        except TableError as exc:
            return exc.code
        finally:
            await tables.close()
        return "joined"

    assert run(scenario) == "solo_table"


def test_a_party_code_taken_by_an_open_party_is_not_given_twice(store: Store) -> None:
    codes = iter(["AAAAAA", "AAAAAA", "BBBBBB"])

    async def scenario() -> list[str | None]:
        tables = Tables(store, codes=codes.__next__)
        made = [
            await tables.create(kind="party", device=f"dev-{n}", name="Ann", settings={})
            for n in range(2)
        ]
        await tables.close()
        return [table.code for table in made]

    assert run(scenario) == ["AAAAAA", "BBBBBB"]
    assert store.table_by_code("BBBBBB") is not None


def test_party_codes_are_read_aloud_easily() -> None:
    for _ in range(200):
        code = new_code()
        assert len(code) == 6
        assert not set(code) & set("01OIL")


def test_a_resigned_game_is_a_loss_against_the_cpu_and_hot_seat_games_count_for_nobody(
    store: Store,
) -> None:
    async def scenario() -> list[str]:
        tables = Tables(store)
        stages = []
        for seats in (
            {Seat.SOUTH: "me", Seat.NORTH: "hard"},
            {Seat.SOUTH: "me", Seat.NORTH: "me"},  # two people on one device
        ):
            table = await tables.create(
                kind="solo", device="dev-me", name="Me", settings={}, seats=seats
            )
            await tables.command(table.id, Resign("dev-me"))
            loaded = await tables.get(table.id)
            assert loaded is not None
            stages.append(loaded.stage.value)
        await tables.close()
        return stages

    assert run(scenario) == ["closed", "closed"]
    record = store.device_record("dev-me", ["hard", "people"])
    assert record["hard"]["four_rounds"] == {"wins": 0, "draws": 0, "losses": 1}
    assert record["people"]["four_rounds"] == {"wins": 0, "draws": 0, "losses": 0}


def test_leaving_a_party_mid_game_is_a_loss_for_the_one_who_left(store: Store) -> None:
    # docs/protocol.md: an abandoned game is a loss for whoever abandoned it.
    # Bob, losing, leaves mid-game (the stand-in plays his seat to the end):
    # his record shows the loss against people, as resigning a game against
    # the CPU does; a player the host removed abandoned nothing.
    async def scenario() -> None:
        tables = Tables(store)
        table = await party_of_two(tables, settings={"hand": "steady"})
        await tables.command(table.id, Leave("dev-bob"))
        await tables.close()

        tables = Tables(store)
        other = await party_of_two(tables, settings={"hand": "steady"})
        await tables.command(other.id, Remove("dev-ann", "m2"))
        await tables.close()

    run(scenario)
    record = store.device_record("dev-bob", ["normal", "people"])
    assert record["people"]["four_rounds"] == {"wins": 0, "draws": 0, "losses": 1}
    assert record["normal"]["four_rounds"] == {"wins": 0, "draws": 0, "losses": 0}
    ann = store.device_record("dev-ann", ["normal", "people"])
    assert ann["people"]["four_rounds"] == {"wins": 0, "draws": 0, "losses": 0}


def test_a_game_against_a_person_who_left_counts_against_people(store: Store) -> None:
    # The record counts a game against a CPU level only when every opposing
    # seat was that CPU (docs/protocol.md).  Bob leaves after the first shot;
    # the stand-in plays his seat to the end, but Ann played a person: her
    # result is against people, not against CPU Normal.
    async def scenario() -> None:
        tables = Tables(store)
        table = await party_of_two(tables, settings={"hand": "steady", "rounds": 1})
        await tables.command(table.id, Leave("dev-bob"))
        while (held := tables.held(table.id)) is not None and held.stage.value == "playing":
            assert held.game is not None
            if held.cpu_turn() is None and held.game.current_seat is Seat.SOUTH:
                shot = await anyio.to_thread.run_sync(easy_shot, held, held.version)
                await tables.command(table.id, Shoot("dev-ann", Seat.SOUTH, shot))
            else:
                await anyio.sleep(0.01)
        await tables.close()

    run(scenario)
    ann = store.device_record("dev-ann", ["normal", "people"])
    assert sum(ann["normal"]["four_rounds"].values()) == 0
    assert sum(ann["people"]["four_rounds"].values()) == 1


def test_a_deadline_whose_write_was_stored_but_reported_failed_goes_on(store: Store) -> None:
    # A write can reach the database and still fail on its way back (the
    # connection drops after the commit).  The owner then retries the tick,
    # finds the stored table one version ahead (a conflict) and gives its copy
    # up: it must take the table up again from the store, or nobody fires
    # its next deadline (North's clock here) while everyone waits.
    timings = Timings(turn_grace=0.05, standin_grace=600.0, round_countdown=0.1)

    async def scenario() -> list[Event]:
        tables = Tables(store, timings=timings, allow_short_clock=True)
        real = store.append_table_events
        lost: list[int] = []

        def flaky(table_id: str, expected: int, events: Any, *args: Any, **kw: Any) -> None:
            real(table_id, expected, events, *args, **kw)
            if not lost and any(e["type"] == "turn_timed_out" for e in events):
                lost.append(expected)
                raise OperationalError("COMMIT", {}, Exception("connection lost after commit"))

        store.append_table_events = flaky  # type: ignore[method-assign]
        try:
            started = await party_of_two(tables, settings={"turn_time": 1.0, "hand": "steady"})
            with anyio.fail_after(20):
                while not any(
                    isinstance(e, TurnTimedOut) and e.seat is Seat.NORTH
                    for e in stored_events(store, started.id)
                ):
                    await asyncio.sleep(0.05)
        finally:
            store.append_table_events = real  # type: ignore[method-assign]
            await tables.close()
        return stored_events(store, started.id)

    log = run(scenario)
    timeouts = [(e.seat, e.reason) for e in log if isinstance(e, TurnTimedOut)]
    assert timeouts[:2] == [(Seat.SOUTH, "clock"), (Seat.NORTH, "clock")]
    assert [e.version for e in log] == list(range(1, len(log) + 1))
