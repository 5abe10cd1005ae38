"""What the server stores: a party killed mid-game (SIGKILL) goes on; the log holds events."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from tests.support.server import Player, serving
from tests.support.server_database import server_database
from tests.support.server_process import running_server

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


def test_each_event_row_holds_the_event_not_a_copy_of_the_game(
    tmp_path: Path, players: list[Player]
) -> None:
    # A 16-shot game took 64 KB of events when each row held the message sent
    # (a whole snapshot, trajectory and report); a row is the event itself.
    db = tmp_path / "size.db"
    with serving(db) as url:
        me = _player(url, players)
        me.hello()
        me.create("solo", "Ann", seats={"south": "me", "north": "me"}, **SINGLES)
        turn = "south"
        for _ in range(16):  # R2: singles, 8 discs each, one round
            me.shoot(turn, power=0.0)
            turn = me.until("shot")["game"]["current_seat"] or turn
        finished = me.until("finished")
        assert finished["game"]["phase"] == "game_over"
    url = server_database(db)
    engine = sa.create_engine(url if "://" in url else f"sqlite:///{url}")
    try:
        with engine.connect() as connection:
            rows = connection.execute(
                sa.text(
                    "SELECT version, event_json FROM table_events WHERE table_id = :t "
                    "ORDER BY version"
                ),
                {"t": me.table},
            ).all()
    finally:
        engine.dispose()
    events = [json.loads(text) for _, text in rows]
    assert [version for version, _ in rows] == list(range(1, len(rows) + 1))  # no gaps
    shots = [(e, text) for e, (_, text) in zip(events, rows, strict=True)
             if e["type"] == "shot_played"]  # fmt: skip
    assert len(shots) == 16
    for event, text in shots:  # a shot: seat, the shot aimed and played, who played it
        assert len(text) < 300 and not {"game", "report", "trajectory"} & set(event)
    total = sum(len(text) for _, text in rows)
    assert total < 8000
    print(f"events of a 16-shot game: {total} bytes")
