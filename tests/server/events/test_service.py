"""The event service: an event folded from the store, its commands decided and appended at the
version they saw, decided again when another writer came first, and every change heard.

Two services on two stores of one database stand for two server processes
(issue 23: "the event's state in the store as its own event log (so it
survives restarts and runs on several processes like a table)").
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import anyio
import pytest
from starlette.requests import Request

from crokinole.errors import ErrorCode, EventError
from crokinole.events.event import Actor, Entry, Event, entry_from_dict
from crokinole.events.model import EventSettings, Format, Venue
from crokinole.events.view import event_view
from crokinole.server.cluster.hub import MemoryHub
from crokinole.server.events import service as service_module
from crokinole.server.events.live import EventStreams
from crokinole.server.events.service import RETRIES, EventService
from crokinole.store import Store, StoreConflictError

ORGANISER = 7
BOSS = Actor(account_id=ORGANISER, organiser=True)
SETTINGS = EventSettings(name="Tuesday league", format=Format.SWISS, rounds=3, venue=Venue.HALL)
NOW = 1_764_770_000.0


@pytest.fixture
def stores(tmp_path: Path) -> Iterator[Callable[[], Store]]:
    opened: list[Store] = []

    def open_one() -> Store:
        opened.append(Store.open(str(tmp_path / "events.db")))
        return opened[-1]

    yield open_one
    for store in opened:
        store.close()


def adding(name: str) -> Callable[[Event], Sequence[Entry]]:
    return lambda event: event.add(BOSS, name, now=NOW)


def names(event: Event) -> list[str]:
    return [e.name for e in event.entrants]


def stored(store: Store, event_id: str) -> Event:
    return Event.fold(entry_from_dict(d) for d in store.event_entries(event_id))


def test_a_new_event_is_stored_and_heard(stores: Callable[[], Store]) -> None:
    store = stores()
    heard: list[tuple[str, int]] = []
    service = EventService(store, MemoryHub(), clock=lambda: NOW)

    async def scenario() -> Event:
        service.on_change(lambda event_id, version: heard.append((event_id, version)))
        return await service.create(ORGANISER, SETTINGS)

    event = anyio.run(scenario)
    assert (event.organiser, event.settings, event.version) == (ORGANISER, SETTINGS, 1)
    assert store.event_by_code(event.code) == event.id
    data = store.event_data(event.id)
    assert data is not None and (data.status, data.summary["name"]) == ("open", "Tuesday league")
    assert heard == [(event.id, 1)]


def test_a_command_that_lost_the_race_is_decided_again(stores: Callable[[], Store]) -> None:
    """Process A decides on version 2; meanwhile process B appends version 3: A's append is
    refused by the store, and A decides again on the event as B left it."""
    here, there = stores(), stores()
    service = EventService(here, MemoryHub(), clock=lambda: NOW)
    heard: list[tuple[str, int]] = []
    calls: list[list[str]] = []

    def decide(event: Event) -> Sequence[Entry]:
        calls.append(names(event))
        if len(calls) == 1:  # another process comes first, once
            theirs = stored(there, event.id)
            made = theirs.add(BOSS, "Cy", now=NOW)
            there.append_event_entries(event.id, [e.to_dict() for e in made], theirs.version)
        return event.add(BOSS, "Bob", now=NOW)

    async def scenario() -> Event:
        service.on_change(lambda event_id, version: heard.append((event_id, version)))
        event = await service.create(ORGANISER, SETTINGS)
        await service.run(event.id, adding("Ann"))
        return await service.run(event.id, decide)

    event = anyio.run(scenario)
    assert calls == [["Ann"], ["Ann", "Cy"]]
    assert names(event) == ["Ann", "Cy", "Bob"] and event.version == 4
    assert names(stored(here, event.id)) == ["Ann", "Cy", "Bob"]
    assert heard == [(event.id, 1), (event.id, 2), (event.id, 4)]


def test_after_the_retries_the_conflict_is_the_callers(stores: Callable[[], Store]) -> None:
    here, there = stores(), stores()
    service = EventService(here, MemoryHub(), clock=lambda: NOW)
    calls = 0

    def always_late(event: Event) -> Sequence[Entry]:
        nonlocal calls
        calls += 1
        theirs = stored(there, event.id)
        made = theirs.add(BOSS, f"P{calls}", now=NOW)
        there.append_event_entries(event.id, [e.to_dict() for e in made], theirs.version)
        return event.add(BOSS, "Never", now=NOW)

    async def scenario() -> str:
        event = await service.create(ORGANISER, SETTINGS)
        with pytest.raises(StoreConflictError):
            await service.run(event.id, always_late)
        return event.id

    event_id = anyio.run(scenario)
    assert calls == RETRIES
    assert "Never" not in names(stored(here, event_id))


def test_a_refused_command_changes_nothing_and_is_not_heard(
    stores: Callable[[], Store],
) -> None:
    store = stores()
    service = EventService(store, MemoryHub(), clock=lambda: NOW)
    heard: list[tuple[str, int]] = []
    nobody = Actor(account_id=99)

    async def scenario() -> str:
        service.on_change(lambda event_id, version: heard.append((event_id, version)))
        event = await service.create(ORGANISER, SETTINGS)
        with pytest.raises(EventError) as refused:
            await service.run(event.id, lambda e: e.add(nobody, "Ann", now=NOW))
        assert refused.value.code is ErrorCode.NOT_ORGANISER
        # Nothing to do: nothing written, nothing heard.
        same = await service.run(event.id, lambda e: ())
        assert same.version == 1
        with pytest.raises(EventError) as missing:
            await service.run("0123456789abcdef", adding("Ann"))
        assert missing.value.code is ErrorCode.NOT_FOUND
        return event.id

    event_id = anyio.run(scenario)
    assert len(store.event_entries(event_id)) == 1
    assert heard == [(event_id, 1)]


def test_a_load_folds_what_another_process_appended(stores: Callable[[], Store]) -> None:
    here, there = stores(), stores()
    mine = EventService(here, MemoryHub(), clock=lambda: NOW)
    theirs = EventService(there, MemoryHub(), clock=lambda: NOW)

    async def scenario() -> tuple[Event | None, Event]:
        event = await mine.create(ORGANISER, SETTINGS)
        await mine.load(event.id)  # kept at version 1
        await theirs.run(event.id, adding("Ann"))
        await theirs.run(event.id, adding("Bob"))
        return await mine.load(event.id), await theirs.run(event.id, lambda e: ())

    loaded, expected = anyio.run(scenario)
    assert loaded is not None and loaded.version == 3 and names(loaded) == ["Ann", "Bob"]
    assert event_view(loaded) == event_view(expected) == event_view(stored(here, loaded.id))
    assert anyio.run(mine.load, "0123456789abcdef") is None


def test_a_taken_join_code_is_drawn_again(
    stores: Callable[[], Store], monkeypatch: pytest.MonkeyPatch
) -> None:
    service = EventService(stores(), MemoryHub(), clock=lambda: NOW)
    codes = iter(["AAAAAA", "AAAAAA", "BBBBBB"])
    monkeypatch.setattr(service_module, "new_code", lambda: next(codes))

    async def scenario() -> tuple[str, str]:
        first = await service.create(ORGANISER, SETTINGS)
        second = await service.create(ORGANISER, SETTINGS)
        return first.code, second.code

    assert anyio.run(scenario) == ("AAAAAA", "BBBBBB")


def test_a_stream_whose_client_left_before_its_first_frame_is_forgotten(
    stores: Callable[[], Store],
) -> None:
    """The client goes at once: Starlette cancels the response while it sends the headers,
    before the stream's generator ever runs; the watcher is forgotten all the same (else
    its address's streams would stay counted for ever)."""
    service = EventService(stores(), MemoryHub(), clock=lambda: NOW)
    streams = EventStreams(service)
    scope: dict[str, Any] = {
        "type": "http", "asgi": {"version": "3.0", "spec_version": "2.3"}, "http_version": "1.1",
        "method": "GET", "path": "/", "raw_path": b"/", "query_string": b"", "headers": [],
        "client": ("10.0.0.1", 5000), "server": ("127.0.0.1", 8000), "scheme": "http",
    }  # fmt: skip

    async def receive() -> dict[str, Any]:
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        await anyio.sleep(0.01)

    async def scenario() -> tuple[int, int]:
        event = await service.create(ORGANISER, SETTINGS)
        response = await streams.response(Request(scope), event.id)
        during = streams.streams
        await response(scope, receive, send)
        return during, streams.streams

    assert anyio.run(scenario) == (1, 0)
