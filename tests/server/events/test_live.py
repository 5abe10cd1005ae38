"""The live event page: ``GET /api/events/{id}/stream`` as real Server-Sent Events.

Issue 23: "every screen updates within a second of a result" and "the
event's state in the store as its own event log (so it … runs on several
processes like a table)".  What is checked here is the order and the
content of what a watcher is sent (never the time it took: the benchmark
``benchmarks/events_watchers.py`` measures that): the view at once, then
the new view after each change made by another client; one rendering of
each change for every watcher; heartbeats; the limits; streams that end
when the server shuts down or the client goes; and a change made by
another process reaching this one's watchers, through Redis or, when a
broadcast is lost, by the store.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from crokinole.server.events.service import CHANGED
from tests.server.conftest import REDIS_URL
from tests.server.events.conftest import (
    PATIENCE,
    WON_BY_FIRST,
    Served,
    User,
    Watcher,
    event_of,
    eventually,
    new_app,
    running,
    swiss,
    without_you,
)

Users = Callable[..., User]


@pytest.fixture
def watchers(served: Served) -> Iterator[Callable[[str], Watcher]]:
    opened: list[Watcher] = []

    def watch(event_id: str) -> Watcher:
        opened.append(Watcher(served.url, event_id))
        return opened[-1]

    yield watch
    for watcher in opened:
        watcher.close()


def test_a_watcher_gets_the_view_at_once_then_each_change_in_order(
    users: Users, watchers: Callable[[str], Watcher]
) -> None:
    # On real boards: an online event's start also opens its tables (one change more).
    event = event_of(users, ["ann", "bob"], venue="hall")
    event.organiser.ok("post", event.path("/rounds"))
    started = event.organiser.ok("post", event.path("/rounds/1/start"))
    watcher = watchers(event.id)
    assert watcher.response.headers["content-type"].startswith("text/event-stream")
    assert watcher.next() == {"retry": "2000"}
    first = watcher.next_view()
    assert first["data"] == without_you(started)
    assert first["id"] == str(started["version"])
    # Another client reports: the next view is the reported result.
    reported = event.side(1, 1, 0).ok("post", event.path("/rounds/1/tables/1/result"), WON_BY_FIRST)
    second = watcher.next_view()
    assert second["data"] == without_you(reported)
    assert int(second["id"]) == reported["version"] > int(first["id"])
    assert second["data"]["rounds"][0]["pairings"][0]["state"] == "reported"
    # The other side confirms: the next view counts it.
    confirmed = event.side(1, 1, 1).ok("post", event.path("/rounds/1/tables/1/confirm"))
    third = watcher.next_view()
    assert third["data"] == without_you(confirmed)
    assert third["data"]["rounds"][0]["pairings"][0]["state"] == "confirmed"
    assert third["data"]["standings"][0]["values"]["match_points"] == 2


def test_each_change_is_rendered_once_for_every_watcher(
    users: Users, served: Served, watchers: Callable[[str], Watcher]
) -> None:
    event = event_of(users, ["ann", "bob"], venue="both")
    opened = [watchers(event.id) for _ in range(5)]
    firsts = [w.next_view() for w in opened]
    assert all(f == firsts[0] for f in firsts)
    streams = served.events.streams
    assert streams.watchers(event.id) == 5
    before = streams.renders
    event.organiser.ok("post", event.path("/entrants"), {"name": "Cy"})
    views = [w.next_view() for w in opened]
    assert all(v == views[0] for v in views)
    assert [e["name"] for e in views[0]["data"]["entrants"]] == ["Ann", "Bob", "Cy"]
    assert streams.renders == before + 1


def test_a_quiet_stream_sends_heartbeats(
    users: Users, served: Served, watchers: Callable[[str], Watcher]
) -> None:
    view = users("organiser").ok("post", "/api/events", swiss(), status=201)
    served.events.streams.heartbeat_s = 0.05
    watcher = watchers(view["id"])
    watcher.next_view()
    assert watcher.next() == {"comment": "ping"}
    assert watcher.next() == {"comment": "ping"}


def test_streams_are_limited_per_address_and_given_back_when_closed(
    users: Users, served: Served, watchers: Callable[[str], Watcher]
) -> None:
    view = users("organiser").ok("post", "/api/events", swiss(), status=201)
    streams = served.events.streams
    streams.per_address = 2
    first, _ = watchers(view["id"]), watchers(view["id"])
    first.next_view()
    refused = users().get(f"/api/events/{view['id']}/stream")
    assert (refused.status_code, refused.json()["code"]) == (429, "rate_limited")
    # A client that goes is noticed, and its place given back.
    first.close()
    eventually(lambda: streams.streams == 1, "the closed stream was forgotten")
    third = watchers(view["id"])
    assert third.next_view()["data"]["id"] == view["id"]


def test_the_streams_end_when_the_server_shuts_down(tmp_path: Path) -> None:
    """uvicorn waits for open responses before shutting down: the streams must end first."""
    ended = threading.Event()
    views: list[dict[str, object]] = []
    with running(new_app(tmp_path / "events.db")) as served:
        organiser = User(served.url).sign_up("organiser")
        view = organiser.ok("post", "/api/events", swiss(), status=201)
        watcher = Watcher(served.url, view["id"])

        def reading() -> None:
            try:
                while True:
                    message = watcher.next()
                    if "data" in message:
                        views.append(message)
            except StopIteration:  # the response ended as a response does
                ended.set()

        reader = threading.Thread(target=reading, daemon=True)
        reader.start()
        eventually(lambda: bool(views), "the first view came")
        organiser.close()
    # The server stopped (uvicorn would wait for the open stream for ever), and the stream ended.
    assert not served.thread.is_alive()
    assert ended.wait(PATIENCE)
    assert len(views) == 1
    watcher.close()


def test_a_change_through_another_process_reaches_the_watchers_by_the_store(
    tmp_path: Path,
) -> None:
    """Two processes on one store whose broadcasts never meet (two memory hubs): the watched
    event's version is read from the store, so the change still arrives."""
    db = tmp_path / "shared.db"
    here, there = new_app(db, memory_hub=True), new_app(db, memory_hub=True)
    here.state.events.streams.poll_s = 0.05
    with running(here) as served_here, running(there) as served_there:
        organiser = User(served_there.url).sign_up("organiser")
        view = organiser.ok("post", "/api/events", swiss(venue="both"), status=201)
        watcher = Watcher(served_here.url, view["id"])
        try:
            assert watcher.next_view()["data"]["entrants"] == []
            added = organiser.ok("post", f"/api/events/{view['id']}/entrants", {"name": "Ann"})
            got = watcher.next_view()
            assert got["data"] == without_you(added)
        finally:
            watcher.close()
            organiser.close()


def test_a_change_through_another_process_reaches_the_watchers_through_redis(
    tmp_path: Path, prefix: str
) -> None:
    """Two processes on one store and one Redis, a watcher on each: the change made on one
    is broadcast on the hub (``events.changed``) and each process renders it for its own
    watchers.  The store polls are off, so only Redis can bring it to the other."""
    db = tmp_path / "shared.db"
    here = new_app(db, redis=REDIS_URL, redis_prefix=prefix)
    there = new_app(db, redis=REDIS_URL, redis_prefix=prefix)
    for app in (here, there):
        app.state.events.streams.poll_s = 3600.0
    with running(here) as served_here, running(there) as served_there:
        for app in (here, there):
            hub = app.state.tables.hub
            channel = hub.topic(CHANGED).encode()
            eventually(
                lambda hub=hub, channel=channel: (
                    hub._pubsub is not None and channel in hub._pubsub.channels
                ),
                "each process listens to the events' changes on Redis",
            )
        organiser = User(served_there.url).sign_up("organiser")
        view = organiser.ok("post", "/api/events", swiss(venue="both"), status=201)
        watching = [Watcher(served_here.url, view["id"]), Watcher(served_there.url, view["id"])]
        try:
            assert [w.next_view()["data"]["version"] for w in watching] == [1, 1]
            added = organiser.ok("post", f"/api/events/{view['id']}/entrants", {"name": "Ann"})
            assert [w.next_view()["data"] for w in watching] == [without_you(added)] * 2
            # And the other way: a change made here reaches there.
            again = User(served_here.url)
            again.http.cookies = organiser.http.cookies
            try:
                more = again.ok("post", f"/api/events/{view['id']}/entrants", {"name": "Bob"})
            finally:
                again.close()
            assert [w.next_view()["data"] for w in watching] == [without_you(more)] * 2
        finally:
            for watcher in watching:
                watcher.close()
            organiser.close()
