"""A follower process folds the owner's shots from the outcome published with them.

Two hubs on the real Redis stand for two processes (see test_redis_hub.py).
The owner publishes each shot's simulated outcome with its events; the
follower's copy is judged from it (no physics there) and ends where the
owner's table is; an outcome that is not the shot's makes the follower read
the table from the store.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import anyio
import numpy as np
import pytest
from redis.asyncio import Redis

from crokinole.board import Shot
from crokinole.physics import ShotResult
from crokinole.server.cluster import fanout
from crokinole.server.cluster.redis_hub import RedisHub
from crokinole.server.owner.tables import Tables
from crokinole.server.table_log import stored_table
from crokinole.store import Store
from crokinole.table import Join, Shoot, ShotPlayed, Start, Table
from crokinole.table.state import Played
from tests.server.cluster.test_redis_hub import (
    PATIENCE,
    Recorder,
    _party,
    easy_shot,
    hub_on,
    run,
)
from tests.server.conftest import REDIS_URL


def _still(real: ShotResult) -> ShotResult:
    """An outcome of the same shot where no disc moves (the physics would move the shot disc)."""
    return ShotResult(
        duration=0.0,
        deceleration=real.deceleration,
        start_array=real.start_array,
        final_array=real.start_array.copy(),
        status_array=np.zeros_like(real.status_array),
        flag_array=np.zeros_like(real.flag_array),
        event_floats=np.zeros((0, 5)),
        event_ints=np.zeros((0, 4), dtype=real.event_ints.dtype),
    )


async def _started(tables: Tables) -> Table:
    """A started party whose hand is steady (a shot goes where it is aimed)."""
    table = await tables.create(
        kind="party", device="dev-ann", name="Ann", settings={"hand": "steady"}
    )
    await tables.command(table.id, Join("dev-bob", "Bob"))
    await tables.command(table.id, Start("dev-ann"))
    held = tables.held(table.id)
    assert held is not None and held.game is not None
    return held


def test_the_follower_copy_is_judged_from_the_published_outcome_not_simulated(
    open_store: Callable[[], Store], prefix: str
) -> None:
    # The owner publishes a shot with an outcome its physics would never give
    # (nothing moves): the follower's copy ends with that outcome, so it ran no
    # physics of its own; folded from the real outcome, it ends as the owner's table.
    async def scenario() -> tuple[Table, Table, Table]:
        store_a = open_store()
        a, b = hub_on(store_a, prefix), hub_on(open_store(), prefix)
        tables = Tables(store_a, hub=a, cpu=1)
        try:
            before = await _started(tables)
            remote = Recorder()
            b.subscribe(before.id, remote)
            await b.following(before.id)
            assert before.game is not None
            seat = before.game.current_seat
            assert seat is not None
            # An open 20 (into the hole): where nothing moves, the disc stays on the line.
            shoot = Shoot("dev-ann", seat, Shot(0.0, 0.0, 28.0))
            after, events = before.apply(shoot, before.turn_started or 0.0)
            (shot,) = [e for e in events if isinstance(e, ShotPlayed)]
            played = after.report_of(shot.version)
            assert played is not None and played.report.physics is not None
            still = _still(played.report.physics)
            report = replace(played.report, physics=still)
            staged = replace(
                after, shot_reports={shot.version: Played(report, played.before, played.after)}
            )
            await a.publish(before.id, staged, events)
            judged = await remote.at(after.version)
            expected = before
            for event in events:
                expected = expected.fold(event, still if event is shot else None)
            return after, judged, expected
        finally:
            await tables.close()
            await a.close()
            await b.close()

    after, judged, expected = run(scenario)
    assert judged == expected and judged.to_dict() == expected.to_dict()
    assert judged != after  # the physics put the disc in the hole
    assert after.game is not None and judged.game is not None
    assert after.game.twenties != judged.game.twenties
    report = judged.report_of(after.version)
    assert report is not None and report.report.physics is not None
    assert report.report.physics.duration == 0.0


def test_a_shot_published_with_an_outcome_that_is_not_its_own_is_read_from_the_store(
    open_store: Callable[[], Store], prefix: str, monkeypatch: pytest.MonkeyPatch, caplog: Any
) -> None:
    caplog.set_level(logging.INFO, logger="crokinole.server")

    async def scenario() -> tuple[Table, Recorder, list[int]]:
        store_a = open_store()
        client = Redis.from_url(REDIS_URL)
        a = RedisHub(client, store_a, prefix=prefix, owns_client=True)
        b = hub_on(open_store(), prefix)
        tables = Tables(store_a, hub=a, cpu=1)
        spoiled: list[int] = []
        publish = client.publish

        async def spoiling(channel: str, message: str) -> int:
            body = json.loads(message)
            for version, outcome in body.get("outcomes", {}).items():
                outcome["start_array"]["data"] = outcome["final_array"]["data"]
                spoiled.append(int(version))
            return await publish(channel, json.dumps(body))

        try:
            before = await _started(tables)
            remote = Recorder()
            b.subscribe(before.id, remote)
            await b.following(before.id)
            monkeypatch.setattr(client, "publish", spoiling)
            assert before.game is not None and before.game.current_seat is not None
            seat = before.game.current_seat
            await tables.command(before.id, Shoot("dev-ann", seat, easy_shot(before, 2)))
            held = tables.held(before.id)
            assert held is not None
            await remote.at(held.version)
            return held, remote, spoiled
        finally:
            await tables.close()
            await a.close()
            await b.close()

    held, remote, spoiled = run(scenario)
    assert spoiled == [held.version]
    assert remote.table == held  # read from the store, the shot delivered from its log
    assert remote.versions()[-1] == held.version
    assert "reading it again from the store" in caplog.text


def test_a_table_slow_to_read_holds_up_neither_the_other_tables_nor_the_requests(
    open_store: Callable[[], Store], prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The follower copy of table X takes long to read from the store (a slow
    # database): X's messages wait for it, in order, while table Y's are folded
    # and delivered, and a request to the follower's process is answered.
    gate = threading.Event()
    slow: set[str] = set()

    def stored(store: Store, table_id: str) -> tuple[Table, int] | None:
        if table_id in slow:
            gate.wait(PATIENCE)
        return stored_table(store, table_id)

    monkeypatch.setattr(fanout, "stored_table", stored)

    async def scenario() -> tuple[list[int], list[int], dict[str, Any], Table | None, Table]:
        store_a = open_store()
        a, b = hub_on(store_a, prefix), hub_on(open_store(), prefix)
        tables = Tables(store_a, hub=a, cpu=1)

        async def echo(body: dict[str, Any]) -> dict[str, Any]:
            return {"echo": body}

        try:
            x, y = await _party(tables, Recorder()), await _party(tables, Recorder())
            slow.add(x.id)
            on_x, on_y = Recorder(), Recorder()
            await b.serve(echo)
            b.subscribe(x.id, on_x)  # its copy is being read (slowly)
            b.subscribe(y.id, on_y)
            await b.following(y.id)
            await tables.command(x.id, Join("dev-bob", "Bob"))  # published first
            await tables.command(y.id, Join("dev-bob", "Bob"))
            held_x, held_y = tables.held(x.id), tables.held(y.id)
            assert held_x is not None and held_y is not None
            with anyio.fail_after(5):
                await on_y.at(held_y.version)
                answer = await a.request(b.origin, {"ping": 1}, timeout=5)
            x_meanwhile = on_x.versions()
            gate.set()
            await b.following(x.id)
            return x_meanwhile, on_y.versions(), answer, b.follower(x.id), held_x
        finally:
            gate.set()
            await tables.close()
            await a.close()
            await b.close()

    x_meanwhile, y_versions, answer, x_copy, held_x = run(scenario)
    assert x_meanwhile == []  # X waited for its copy
    assert y_versions and answer == {"echo": {"ping": 1}}  # the others did not
    assert x_copy == held_x  # then X's copy was read, at its last version


def test_a_shot_published_without_its_outcome_is_simulated_by_the_follower(
    open_store: Callable[[], Store], prefix: str
) -> None:
    # An owner that keeps no report of the shot (one of an older version sends
    # none): the follower simulates it and still ends as the owner's table.
    async def scenario() -> tuple[Table, Table]:
        store_a = open_store()
        a, b = hub_on(store_a, prefix), hub_on(open_store(), prefix)
        tables = Tables(store_a, hub=a, cpu=1)
        try:
            before = await _started(tables)
            remote = Recorder()
            b.subscribe(before.id, remote)
            await b.following(before.id)
            assert before.game is not None and before.game.current_seat is not None
            shoot = Shoot("dev-ann", before.game.current_seat, easy_shot(before, 3))
            after, events = before.apply(shoot, before.turn_started or 0.0)
            await a.publish(before.id, replace(after, shot_reports={}), events)
            return after, await remote.at(after.version)
        finally:
            await tables.close()
            await a.close()
            await b.close()

    after, copy = run(scenario)
    assert copy == after and copy.to_dict() == after.to_dict()
    played = copy.report_of(after.version)
    assert played is not None and played.report.physics is not None  # simulated here
