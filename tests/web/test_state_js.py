"""The browser client's pure state module (``static/lib/state.js``), tested in node.

The JavaScript tests live in ``tests/web/js/*.test.mjs`` and run with ``node --test``
(node 20 or newer); without node they are skipped with the reason.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from crokinole.board import Seat, Shot
from crokinole.server.ws import views
from crokinole.table import Join, NextRound, Shoot, Start, Table, TableSettings, TakeSeat

JS_TESTS = Path(__file__).parent / "js"


def test_state_module_in_node() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the tests of static/lib/state.js need node 20 or newer")
    files = sorted(str(p) for p in JS_TESTS.glob("*.test.mjs"))
    assert files, f"no JavaScript tests in {JS_TESTS}"
    done = subprocess.run(
        [node, "--test", *files], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]


def _replay(node: str, messages: list[dict[str, Any]], tmp_path: Path) -> dict[str, Any]:
    stream = tmp_path / "messages.json"
    stream.write_text(json.dumps(messages), encoding="utf-8")
    done = subprocess.run(
        [node, str(JS_TESTS / "replay.mjs"), str(stream)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_the_state_follows_the_servers_messages_to_the_same_view(tmp_path: Path) -> None:
    """The server's own messages (protocol v2, built by ``views``) of a party played to the
    end, reduced by state.js for one viewer, give that viewer's view of the final table."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the tests of static/lib/state.js need node 20 or newer")
    ann, bob = "a" * 32, "b" * 32
    settings = TableSettings.from_dict({"layout": "singles", "rounds": 1, "turn_time": 30})
    now = 1000.0
    table, _ = Table.create(
        id="c" * 32, kind="party", code="ABC234", host_device=ann, host_name="Ann",
        settings=settings, seed=7, now=now,
    )  # fmt: skip
    messages: list[dict[str, Any]] = []

    def act(command: Any) -> None:
        nonlocal table, now
        now += 1.5
        before = table
        table, events = table.apply(command, now)
        messages.extend(views.event_messages(before, table, events, bob, now))

    table, _ = table.apply(Join(bob, "Bob"), now)
    messages.append(views.table_message(table, bob, now))  # Bob's first view
    if "north" not in views.you_payload(table, bob)["seats"]:
        act(TakeSeat(bob, Seat.NORTH))
    act(Start(ann))
    shots = 0
    while table.game is not None and table.stage == "playing":
        game = table.game
        if game.current_seat is None:
            act(NextRound(ann))
            act(NextRound(bob))
            continue
        seat = game.current_seat
        lo, hi = game.placement_intervals(seat)[0]
        device = ann if seat is Seat.SOUTH else bob
        act(Shoot(device, seat, Shot((lo + hi) / 2, 0.0, 24.0)))
        shots += 1
        assert shots < 100
    final = _replay(node, messages, tmp_path)
    expected = views.view(table, bob, now)
    assert final["table"] == table.id
    assert final["event"] == table.version
    assert final["stage"] == expected["stage"] == "finished"
    for key in ("you", "seats", "members", "settings", "game", "deadline", "placement"):
        assert final[key] == expected[key], key
    assert final["shooter"] is None  # the game is over: nobody shoots
    assert final["log"] >= 1
