"""Two owners on one Redis and one store: commands sent anywhere, one owner, takeovers.

Each :class:`~crokinole.server.owner.tables.Tables` here has its own
:class:`~crokinole.server.cluster.redis_hub.RedisHub` and its own store on one
SQLite file: two server processes in one test.  The fixtures (a key prefix of
the test's own, skipped without Redis and failing under CI) are
in ``tests/server/conftest.py``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import anyio
import pytest
from redis.asyncio import Redis

from crokinole.board import Seat, Shot
from crokinole.rules import Game, Rules
from crokinole.server.cluster.redis_hub import RedisHub
from crokinole.server.owner.tables import Tables
from crokinole.store import Store
from crokinole.table import (
    Join,
    MemberJoined,
    Rename,
    Shoot,
    ShotPlayed,
    Start,
    Table,
    TableError,
    event_from_dict,
)
from tests.server.cluster import test_redis_hub as rh
from tests.server.cluster.test_redis_hub import run
from tests.server.conftest import REDIS_URL

#: Short enough for takeovers within a test, long enough for a busy 2-core machine.
SHORT_LEASE_MS = 1000


@pytest.fixture(scope="module", autouse=True)
def compiled() -> None:
    """The simulator compiled first: compiling holds the event loop back for seconds,
    longer than a short lease (a server compiles at startup, before it claims anything)."""
    game = Game(Rules())
    game.shoot(Seat.SOUTH, Shot(0.0, 4.0, 28.0))


class Process:
    """One "server process": its store, hub and tables."""

    def __init__(self, store: Store, prefix: str, *, lease_ms: int = 10_000) -> None:
        self.hub = RedisHub.from_url(REDIS_URL, store, prefix=prefix, lease_ms=lease_ms)
        self.tables = Tables(store, hub=self.hub, cpu=1)
        self.hub.on_lost = self.tables.lost

    async def start(self) -> Process:
        await self.tables.startup()
        return self

    async def close(self) -> None:
        await self.tables.close()
        await self.hub.close()

    async def die(self) -> None:
        """Stop as a killed process would: nothing released, nothing answered any more."""
        for task in (self.hub._renewer, self.hub._reader, self.hub._inbox_reader):
            if task is not None:
                task.cancel()
        for pubsub in (self.hub._pubsub, self.hub._inbox_pubsub):
            if pubsub is not None:
                await pubsub.aclose()  # type: ignore[no-untyped-call]
        self.hub._leases.clear()
        self.hub._closed = True

        async def kept(table_id: str, owner: str) -> None:
            """A dead process releases nothing: its leases expire."""

        self.hub.release = kept  # type: ignore[method-assign]
        await self.tables.close()  # its timers and CPU stop


def _stored_versions(store: Store, table_id: str) -> list[int]:
    return [event_from_dict(e).version for e in store.table_events(table_id, after=0)]


async def _party(owner: Process) -> Table:
    return await owner.tables.create(kind="party", device="dev-ann", name="Ann", settings={})


def test_a_command_sent_to_another_process_is_applied_by_the_owner_and_comes_back(
    open_store: Callable[[], Store], prefix: str
) -> None:
    async def scenario() -> tuple[Table, list[str], Table | None, rh.Recorder, list[int]]:
        a = await Process(open_store(), prefix).start()
        b = await Process(open_store(), prefix).start()
        try:
            table = await _party(a)
            seen_on_b = rh.Recorder()
            copy = await b.tables.get(table.id, subscriber=seen_on_b)
            assert copy is not None and copy.version == table.version
            events = await b.tables.command(table.id, Join("dev-bob", "Bob"))
            owner_table = a.tables.held(table.id)
            assert owner_table is not None
            await seen_on_b.at(owner_table.version)
            return (
                table,
                [e.TYPE for e in events],
                b.tables.held(table.id),
                seen_on_b,
                _stored_versions(a.tables.store, table.id),
            )
        finally:
            await b.close()
            await a.close()

    table, types, held_on_b, seen_on_b, stored = run(scenario)
    assert types == ["member_joined", "seat_changed"]
    assert held_on_b is None  # b never owned it: a applied the command
    assert isinstance(seen_on_b.events[0], MemberJoined)
    assert seen_on_b.table is not None and seen_on_b.table.member_of("dev-bob") is not None
    assert stored == list(range(1, table.version + 3))


def test_a_refusal_from_the_owner_reaches_the_sender_with_its_code(
    open_store: Callable[[], Store], prefix: str
) -> None:
    async def scenario() -> TableError:
        a = await Process(open_store(), prefix).start()
        b = await Process(open_store(), prefix).start()
        try:
            table = await _party(a)
            with pytest.raises(TableError) as refused:
                await b.tables.command(table.id, Start("dev-bob"))  # not a member
            held = a.tables.held(table.id)
            assert held is not None and held.version == table.version  # nothing changed
            return refused.value
        finally:
            await b.close()
            await a.close()

    error = run(scenario)
    assert error.code == "not_a_member"


def test_commands_sent_through_both_processes_at_once_are_each_applied_exactly_once(
    open_store: Callable[[], Store], prefix: str
) -> None:
    """Racing renames from both processes: every one applied once, versions without a gap."""

    async def scenario() -> tuple[Table, list[int], int]:
        a = await Process(open_store(), prefix).start()
        b = await Process(open_store(), prefix).start()
        try:
            table = await _party(a)
            await a.tables.command(table.id, Join("dev-bob", "Bob"))
            applied = 0

            async def rename(tables: Tables, device: str, n: int) -> None:
                nonlocal applied
                events = await tables.command(table.id, Rename(device, f"{device[4:]}{n}"))
                applied += len(events)

            async with anyio.create_task_group() as tasks:
                for n in range(10):
                    tasks.start_soon(rename, a.tables, "dev-ann", n)
                    tasks.start_soon(rename, b.tables, "dev-bob", n)
            held = a.tables.held(table.id)
            assert held is not None
            return held, _stored_versions(a.tables.store, table.id), applied
        finally:
            await b.close()
            await a.close()

    held, stored, applied = run(scenario)
    assert applied == 20  # one event per rename
    assert stored == list(range(1, held.version + 1))  # no version repeated or skipped


def test_a_dead_owners_game_is_taken_over_after_its_lease_and_its_clock_keeps_running(
    open_store: Callable[[], Store], prefix: str
) -> None:
    async def scenario() -> tuple[Table, Table, list[int], str | None]:
        a = await Process(open_store(), prefix, lease_ms=SHORT_LEASE_MS).start()
        b = await Process(open_store(), prefix, lease_ms=SHORT_LEASE_MS).start()
        try:
            table = await _party(a)
            await b.tables.command(table.id, Join("dev-bob", "Bob"))
            await b.tables.command(table.id, Start("dev-ann"))
            before = a.tables.held(table.id)
            assert before is not None and before.game is not None
            await a.die()
            # A command on b waits for the dead owner's lease, then b takes the table.
            seat = before.game.current_seat
            device = "dev-ann" if seat is Seat.SOUTH else "dev-bob"
            events = await b.tables.command(table.id, Shoot(device, seat, rh.easy_shot(before, 1)))
            assert any(isinstance(e, ShotPlayed) for e in events)
            after = b.tables.held(table.id)
            assert after is not None
            async with Redis.from_url(REDIS_URL) as client:
                holder = await client.get(b.hub.lease_key(table.id))
            return (
                before,
                after,
                _stored_versions(b.tables.store, table.id),
                (holder.decode() if holder is not None else None),
            )
        finally:
            await b.close()
            await a.close()

    before, after, stored, holder = run(scenario)
    assert holder is not None and holder.count(":") >= 2  # b's origin: host:pid:hex
    assert after.version > before.version
    assert stored == list(range(1, after.version + 1))


def test_a_table_with_a_deadline_is_taken_over_without_any_command(
    open_store: Callable[[], Store], prefix: str
) -> None:
    """Nobody sends anything: the survivor finds the table nobody holds and arms its clock."""

    async def scenario() -> tuple[int, Table | None]:
        a = await Process(open_store(), prefix, lease_ms=SHORT_LEASE_MS).start()
        b = await Process(open_store(), prefix, lease_ms=SHORT_LEASE_MS).start()
        try:
            table = await a.tables.create(
                kind="party", device="dev-ann", name="Ann", settings={"turn_time": 60}
            )
            await a.tables.command(table.id, Join("dev-bob", "Bob"))
            await a.tables.command(table.id, Start("dev-ann"))
            held = a.tables.held(table.id)
            assert held is not None and held.next_deadline() is not None  # the turn clock
            await a.die()
            with anyio.fail_after(rh.PATIENCE):
                while b.tables.held(table.id) is None:
                    await asyncio.sleep(0.05)
            return held.version, b.tables.held(table.id)
        finally:
            await b.close()
            await a.close()

    version, taken = run(scenario)
    assert taken is not None and taken.version >= version
    assert taken.next_deadline() is not None


def test_a_lost_lease_makes_the_owner_give_the_table_up(
    open_store: Callable[[], Store], prefix: str
) -> None:
    async def scenario() -> tuple[Table | None, Table | None]:
        a = await Process(open_store(), prefix, lease_ms=SHORT_LEASE_MS).start()
        try:
            table = await _party(a)
            async with Redis.from_url(REDIS_URL) as client:
                await client.set(a.hub.lease_key(table.id), "someone-else", px=60_000)
            with anyio.fail_after(rh.PATIENCE):
                while a.tables.held(table.id) is not None:
                    await asyncio.sleep(0.05)
            # Its commands now go to "someone-else", who does not answer.
            return a.tables.held(table.id), await a.tables.get(table.id)
        finally:
            await a.close()

    held, seen = run(scenario)
    assert held is None
    assert seen is not None  # read from the store: still there
