"""The page notices a dead connection (Chromium through a TCP proxy that stops forwarding).

A phone that changes network, or a proxy that holds bytes, leaves a socket
the browser still calls open.  The page pings when it has heard nothing for
a moment and takes a ping left unanswered for a dead socket: it shows
"reconnecting" and opens a new one.  ``online`` and ``visibilitychange``
open a new socket whatever the old one's state says.

The proxy here is a small asyncio TCP relay in a thread.  ``hang()`` makes it
stop forwarding on every connection it has (both ways) while keeping them
open: a "hung" fault, not a cut one.  New connections are relayed as usual.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.web.test_browser import (
    in_hand,
    last_event,
    new_page,
    shoot_from_a_free_place,
    start_game,
    state,
    wait_my_turn,
)
from tests.web.test_party import create_party, join_by_link, people, play_to_the_end, sit

__all__ = ["new_page", "people"]  # the fixtures, used by name

sync_api = pytest.importorskip("playwright.sync_api")


class HangingProxy:
    """A TCP relay to ``target`` on a port of its own, which can be told to hang."""

    def __init__(self, target: str) -> None:
        parts = urlsplit(target)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.loop = asyncio.new_event_loop()
        self.connections = 0
        self._hung: list[asyncio.Event] = []
        self._writers: list[asyncio.StreamWriter] = []
        self._tasks: set[asyncio.Task[None]] = set()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        self._ready.wait(10)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.listen_port}"

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.server = self.loop.run_until_complete(
            asyncio.start_server(self._relay, "127.0.0.1", 0)
        )
        self.listen_port = self.server.sockets[0].getsockname()[1]
        self._ready.set()
        self.loop.run_forever()

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        hung = asyncio.Event()
        self._hung.append(hung)
        self._writers.append(writer)
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            up_reader, up_writer = await asyncio.open_connection(self.host, self.port)
        except OSError:
            writer.close()
            return
        self._writers.append(up_writer)

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            try:
                while data := await src.read(65536):
                    if hung.is_set():
                        await asyncio.Event().wait()  # hold the bytes, keep the socket open
                    dst.write(data)
                    await dst.drain()
            except (OSError, asyncio.CancelledError):
                pass
            finally:
                if not hung.is_set():
                    dst.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

    def hang(self) -> None:
        """Stop forwarding on every connection open now (they stay open)."""
        self.loop.call_soon_threadsafe(lambda: [h.set() for h in self._hung])

    def close(self) -> None:
        async def shut() -> None:
            self.server.close()
            for writer in self._writers:
                writer.close()
            for task in self._tasks:
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)
            await self.server.wait_closed()

        asyncio.run_coroutine_threadsafe(shut(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(5)
        self.loop.close()


@pytest.fixture
def proxy(server_url: str) -> Iterator[HangingProxy]:
    relay = HangingProxy(server_url)
    yield relay
    relay.close()


def _sockets(page: Any) -> int:
    """How many websockets the page has opened (counted by the page's own WebSocket)."""
    return int(page.evaluate("() => window.__sockets"))


COUNT_SOCKETS = """
(() => {
  const Native = window.WebSocket;
  window.__sockets = 0;
  window.WebSocket = class extends Native {
    constructor(...args) { super(...args); window.__sockets += 1; }
  };
})();
"""


def test_a_hung_connection_shows_reconnecting_and_is_replaced(
    proxy: HangingProxy, new_page: Any
) -> None:
    page = new_page()
    page.add_init_script(COUNT_SOCKETS)
    start_game(page, proxy.url, "easy")
    wait_my_turn(page)
    before = state(page)
    event = last_event(page)
    opened = _sockets(page)
    proxy.hang()  # the socket stays open, and nothing gets through any more
    indicator = page.get_by_test_id("connection")
    sync_api.expect(indicator).to_contain_text("reconnecting", timeout=12_000)
    # A new socket (through the proxy, which relays new connections) and the game goes on.
    page.wait_for_function("() => window.crokinole.connected", timeout=12_000)
    sync_api.expect(indicator).to_be_hidden()
    assert _sockets(page) == opened + 1
    wait_my_turn(page)
    shoot_from_a_free_place(page)
    page.wait_for_function(f"() => window.crokinole.lastEvent > {event}", timeout=20_000)
    wait_my_turn(page)
    assert in_hand(state(page), "south") == in_hand(before, "south") - 1


def test_online_and_visibilitychange_open_a_new_socket_whatever_the_old_says(
    proxy: HangingProxy, new_page: Any
) -> None:
    page = new_page()
    page.add_init_script(COUNT_SOCKETS)
    start_game(page, proxy.url, "easy")
    wait_my_turn(page)
    opened = _sockets(page)
    assert page.evaluate("() => window.crokinole.connected")  # the socket says it is open
    page.evaluate("() => window.dispatchEvent(new Event('online'))")
    page.wait_for_function(f"() => window.__sockets === {opened + 1}")
    page.wait_for_function("() => window.crokinole.connected")
    page.evaluate(
        """() => {
          const visible = {value: 'visible', configurable: true};
          Object.defineProperty(document, 'visibilityState', visible);
          document.dispatchEvent(new Event('visibilitychange'));
        }"""
    )
    page.wait_for_function(f"() => window.__sockets === {opened + 2}")
    page.wait_for_function("() => window.crokinole.connected")
    wait_my_turn(page)


def test_a_rematch_is_offered_then_declined_or_accepted_on_the_result_screen(
    server_url: str, people: Any
) -> None:
    ann = people()
    code = create_party(ann, server_url, "singles", "Ann", query="?rounds=1")
    sit(ann, "south")
    bob = people()
    join_by_link(bob, server_url, code, "Bob")
    sit(bob, "north")
    ann.wait_for_function("() => window.crokinole.view.seats.every((s) => s.occupant)")
    ann.get_by_test_id("party-start-button").click()
    for p in (ann, bob):
        p.wait_for_function("() => window.crokinole.screen === 'game'")
    play_to_the_end([ann, bob])
    sync_api.expect(bob.get_by_test_id("decline-button")).to_be_hidden()  # nothing offered yet
    ann.get_by_test_id("rematch-button").click()
    # Bob is offered it: Accept or Decline.
    accept = bob.get_by_test_id("rematch-button")
    sync_api.expect(accept).to_have_text("Accept the rematch (1 of 2 agree)")
    sync_api.expect(bob.get_by_test_id("decline-button")).to_have_text("Decline")
    sync_api.expect(ann.get_by_test_id("rematch-button")).to_have_text(
        "Waiting for the others (1 of 2)"
    )
    bob.get_by_test_id("decline-button").click()
    # Withdrawn on both screens; a new offer may be made.
    for p in (ann, bob):
        sync_api.expect(p.get_by_test_id("rematch-button")).to_have_text("Rematch")
        sync_api.expect(p.get_by_test_id("decline-button")).to_be_hidden()
    bob.get_by_test_id("rematch-button").click()
    sync_api.expect(ann.get_by_test_id("rematch-button")).to_have_text(
        "Accept the rematch (1 of 2 agree)"
    )
    ann.get_by_test_id("rematch-button").click()
    for p in (ann, bob):
        p.wait_for_function("() => window.crokinole.state.phase === 'playing'")
        sync_api.expect(p.get_by_test_id("game-result")).to_be_hidden()
