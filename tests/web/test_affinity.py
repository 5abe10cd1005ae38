"""The page names its party, or else its table, in the websocket's address (real Chromium).

For a load balancer to send one game's players to one process
(docs/deploy.md, *Affinity*): a page at no table opens ``/ws/v2``; one
that follows a party's link, or comes back to its party, opens
``/ws/v2?party=CODE``.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.web.test_party import connected, create_party, join_by_link, people

__all__ = ["people"]  # the fixture, used by name

pytestmark = pytest.mark.browser

sync_api = pytest.importorskip("playwright.sync_api")


def sockets_of(page: Any) -> list[str]:
    """The addresses of the websockets ``page`` opens from now on."""
    opened: list[str] = []
    page.on("websocket", lambda ws: opened.append(ws.url))
    return opened


def test_the_page_names_its_party_in_the_websocket_address(server_url: str, people: Any) -> None:
    ann = people()
    ann_sockets = sockets_of(ann)
    code = create_party(ann, server_url, "singles", "Ann")
    assert ann_sockets[0].endswith("/ws/v2"), ann_sockets  # at no table yet
    bob = people()
    bob_sockets = sockets_of(bob)
    join_by_link(bob, server_url, code, "Bob")
    assert bob_sockets[0].endswith(f"/ws/v2?party={code}"), bob_sockets  # from the link
    ann.reload()  # back to her party
    connected(ann)
    assert ann_sockets[-1].endswith(f"/ws/v2?party={code}"), ann_sockets
    ann.wait_for_function("() => window.crokinole.screen === 'lobby'")
