"""Protocol v2: a server killed mid-party (SIGKILL) and restarted; the game goes on."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.server.helpers import Player
from tests.server_process import running_server

SINGLES = {"layout": "singles", "rounds": 1, "hand": "steady", "tie": "draw"}


@pytest.fixture
def players() -> Iterator[list[Player]]:
    opened: list[Player] = []
    yield opened
    for p in opened:
        p.close()


def _player(url: str, opened: list[Player], token: str | None = None) -> Player:
    p = Player(url, token)
    opened.append(p)
    return p


def test_a_party_killed_mid_game_goes_on_with_its_clock_after_a_restart(
    tmp_path: Path, players: list[Player]
) -> None:
    db = tmp_path / "killed.db"
    with running_server(db, "--no-warm-up") as url:
        ann = _player(url, players)
        ann.hello()
        code = ann.create("party", "Ann", turn_time=30, **SINGLES)["view"]["code"]
        bob = _player(url, players)
        bob.hello()
        bob.join(code, "Bob")
        ann.act("start")
        ann.until("game_started")
        ann.shoot("south")
        shot: dict[str, Any] = bob.until("shot")
        clock = shot["lobby"]["deadline"]
        assert clock["kind"] == "turn"  # north's clock runs
        url.proc.kill()  # SIGKILL: no shutdown of any kind
        url.proc.wait(timeout=30)
    with running_server(db, "--no-warm-up") as url:
        ann = _player(url, players, ann.token)
        ann.hello(table=shot["table"])
        ann.table = shot["table"]
        assert ann.until("table")["view"]["game"] == shot["game"]  # nothing seen was lost
        bob = _player(url, players, bob.token)
        welcome = bob.hello(table=shot["table"])
        assert {"table": shot["table"], "kind": "party", "stage": "playing"} in welcome["tables"]
        view = bob.until("table")["view"]
        bob.table = view["table"]
        assert view["you"]["seats"] == ["north"] and view["game"] == shot["game"]
        back = bob.until("presence", lambda m: m["member"] == "m2" and m["connected"])
        # The clock was re-armed where it stood (absolute server time), not restarted.
        assert back["lobby"]["deadline"] == clock
        bob.shoot("north")
        assert ann.until("shot")["seat"] == "north"
