"""The in-memory hub: fan-out of each table's events to its subscribers, and ownership."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from typing import Any

import anyio
import pytest

from crokinole.server.cluster.hub import Hub, MemoryHub, in_thread_to_the_end, stop_tasks

#: Upper bound on any wait of these tests (a safety net against a hang, not a measurement).
PATIENCE = 20.0


class Inbox:
    """A subscriber that keeps what it is delivered."""

    def __init__(self) -> None:
        self.got: list[tuple[Any, list[Any]]] = []

    def deliver(self, table: Any, events: Sequence[Any]) -> None:
        self.got.append((table, list(events)))


class Broken:
    """A subscriber whose delivery fails (a bug in one connection)."""

    def deliver(self, table: Any, events: Sequence[Any]) -> None:
        raise RuntimeError("this connection is broken")


def _publish(hub: MemoryHub, table_id: str, table: Any, events: list[Any]) -> None:
    anyio.run(hub.publish, table_id, table, events)


def test_memory_hub_is_a_hub() -> None:
    hub: Hub = MemoryHub()  # mypy checks the protocol
    assert hub is not None


def test_publish_reaches_every_subscriber_of_that_table_only() -> None:
    hub = MemoryHub()
    a, b, other = Inbox(), Inbox(), Inbox()
    hub.subscribe("t1", a)
    hub.subscribe("t1", b)
    hub.subscribe("t2", other)
    _publish(hub, "t1", "table v2", ["e1", "e2"])
    assert a.got == [("table v2", ["e1", "e2"])]
    assert b.got == [("table v2", ["e1", "e2"])]
    assert other.got == []


def test_events_arrive_in_the_order_published() -> None:
    hub = MemoryHub()
    inbox = Inbox()
    hub.subscribe("t1", inbox)
    for version in range(1, 6):
        _publish(hub, "t1", f"table v{version}", [f"e{version}"])
    assert [events for _, events in inbox.got] == [[f"e{v}"] for v in range(1, 6)]


def test_unsubscribed_gets_nothing_more_and_unknown_unsubscribe_is_ignored() -> None:
    hub = MemoryHub()
    inbox = Inbox()
    hub.subscribe("t1", inbox)
    _publish(hub, "t1", "v1", ["e1"])
    hub.unsubscribe("t1", inbox)
    hub.unsubscribe("t1", inbox)  # twice: no error
    hub.unsubscribe("never", Inbox())
    _publish(hub, "t1", "v2", ["e2"])
    assert inbox.got == [("v1", ["e1"])]
    assert hub.subscribers("t1") == 0


def test_subscribing_twice_delivers_once() -> None:
    hub = MemoryHub()
    inbox = Inbox()
    hub.subscribe("t1", inbox)
    hub.subscribe("t1", inbox)
    _publish(hub, "t1", "v1", ["e1"])
    assert inbox.got == [("v1", ["e1"])]


def test_a_failing_subscriber_does_not_keep_the_others_from_their_events(
    caplog: pytest.LogCaptureFixture,
) -> None:
    hub = MemoryHub()
    before, after = Inbox(), Inbox()
    hub.subscribe("t1", before)
    hub.subscribe("t1", Broken())
    hub.subscribe("t1", after)
    _publish(hub, "t1", "v1", ["e1"])
    assert before.got == after.got == [("v1", ["e1"])]
    assert "failed to take its events" in caplog.text


def test_a_subscriber_may_unsubscribe_while_being_delivered() -> None:
    hub = MemoryHub()

    class Once(Inbox):
        def deliver(self, table: Any, events: Sequence[Any]) -> None:
            super().deliver(table, events)
            hub.unsubscribe("t1", self)

    once, other = Once(), Inbox()
    hub.subscribe("t1", once)
    hub.subscribe("t1", other)
    _publish(hub, "t1", "v1", ["e1"])
    _publish(hub, "t1", "v2", ["e2"])
    assert len(once.got) == 1
    assert len(other.got) == 2


def test_one_owner_per_table() -> None:
    hub = MemoryHub()

    async def scenario() -> list[bool]:
        return [
            await hub.claim("t1", "a"),
            await hub.claim("t1", "a"),  # claiming again what one holds
            await hub.claim("t1", "b"),
            await hub.claim("t2", "b"),  # another table: free
        ]

    assert anyio.run(scenario) == [True, True, False, True]


def test_release_frees_a_table_only_for_its_owner() -> None:
    hub = MemoryHub()

    async def scenario() -> list[bool]:
        await hub.claim("t1", "a")
        await hub.release("t1", "b")  # not b's to give up
        taken = await hub.claim("t1", "b")
        await hub.release("t1", "a")
        return [taken, await hub.claim("t1", "b")]

    assert anyio.run(scenario) == [False, True]


def test_a_task_stopped_in_a_thread_call_ends_after_the_thread_not_before() -> None:
    """``stop_tasks`` cancels with ``Task.cancel()``, which a plain ``anyio.to_thread`` call
    does not wait for: its thread would run on after the task (and whatever closed next)."""
    running, release = threading.Event(), threading.Event()
    order: list[str] = []

    def work() -> str:
        running.set()
        release.wait(PATIENCE)
        order.append("thread over")
        return "done"

    async def scenario() -> bool:
        task = asyncio.ensure_future(in_thread_to_the_end(work))
        await anyio.to_thread.run_sync(running.wait, PATIENCE)
        stopping = asyncio.ensure_future(stop_tasks([task]))
        stopping.add_done_callback(lambda _: order.append("task stopped"))
        # Past stop_tasks' second cancellation (0.5 s): the thread still holds the task.
        await asyncio.wait({stopping}, timeout=1.0)
        release.set()
        await stopping
        return task.cancelled()

    assert anyio.run(scenario) is True
    assert order == ["thread over", "task stopped"]


def test_a_thread_call_to_the_end_gives_its_result_or_its_error() -> None:
    def fails() -> None:
        raise LookupError("no such table")

    async def scenario() -> str:
        with pytest.raises(LookupError, match="no such table"):
            await in_thread_to_the_end(fails)
        return await in_thread_to_the_end(lambda: "read")

    assert anyio.run(scenario) == "read"
