"""Replays over HTTP: real games played with the real tables service into a SQLite file,
then the real app (uvicorn) serving their replays.

The replay's numbers are checked against the stored game itself: each step's
board against the result the record stored for that action (R9), the round
scores and the end against the record's state, and the record against the
engine's own replay (``crokinole.rules.replay``).
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import numpy as np
import pytest

from crokinole.ai import make_player
from crokinole.board import Seat, Shot
from crokinole.rules import Game, replay
from crokinole.server.limits import ServerSettings
from crokinole.server.owner.tables import Tables
from crokinole.store import Store
from crokinole.table import NextRound, Rematch, Resign, Shoot, Start, Table, Timings
from tests.support.server import serving
from tests.support.server_database import server_database

#: Long waits (no countdown or clock fires while the test plays).
SLOW = Timings(turn_grace=600.0, standin_grace=600.0, round_countdown=600.0, reaction_gap=0.0)


def easy_shot(table: Table, seed: int) -> Shot:
    """A person's shot: what CPU Easy would play."""
    assert table.game is not None
    return make_player("easy").choose_shot(table.game.copy(), np.random.default_rng(seed))


@dataclass
class Games:
    url: str
    solo: str  # a finished game against CPU Easy, one round
    party: str  # Ann and Bob, two rounds, then a rematch under way (game 2)
    resigned: str  # a game against the CPU given up after two shots
    playing: str  # a game against the CPU under way
    party_first: str  # the record of the party's first game, as the live table held it


async def _shoot_until(tables: Tables, table_id: str, devices: dict[Seat, str], stop: Any) -> None:
    shots = 0
    while True:
        now = tables.held(table_id)
        assert now is not None and now.game is not None
        if stop(now):
            return
        seat = now.game.current_seat
        if seat is None or seat not in devices:
            await anyio.sleep(0.02)  # the CPU's turn: it plays on its pool
            continue
        shot = await anyio.to_thread.run_sync(easy_shot, now, 7 + shots)
        await tables.command(table_id, Shoot(devices[seat], seat, shot))
        shots += 1


async def _play(store: Store) -> tuple[str, str, str, str, str]:
    tables = Tables(store, timings=SLOW)
    # Against CPU Easy, one round of 8 discs each.
    solo = await tables.create(
        kind="solo", device="dev-me", name="Me", settings={"rounds": 1, "discs": 8},
        seats={Seat.SOUTH: "me", Seat.NORTH: "easy"},
    )  # fmt: skip
    await _shoot_until(tables, solo.id, {Seat.SOUTH: "dev-me"}, lambda t: t.stage != "playing")
    # A party of two, two rounds, Next pressed by both; then a rematch, two shots into it.
    party = await tables.create(
        kind="party", device="dev-ann", name="Ann", settings={"rounds": 2, "hand": "steady"}
    )
    assert party.code is not None
    await tables.join_by_code(party.code, device="dev-bob", name="Bob")
    await tables.command(party.id, Start("dev-ann"))
    devices = {Seat.SOUTH: "dev-ann", Seat.NORTH: "dev-bob"}
    while True:  # two rounds, and extra rounds after a tie
        await _shoot_until(
            tables, party.id, devices, lambda t: t.game is not None and t.game.current_seat is None
        )
        held = tables.held(party.id)
        assert held is not None and held.game is not None
        if held.game.is_over:
            break
        await tables.command(party.id, NextRound("dev-ann"))
        await tables.command(party.id, NextRound("dev-bob"))
    first = tables.held(party.id)
    assert first is not None and first.game is not None and first.stage == "finished"
    party_first = first.game.to_json()
    await tables.command(party.id, Rematch("dev-ann"))
    await tables.command(party.id, Rematch("dev-bob"))
    await _shoot_until(
        tables, party.id, devices, lambda t: t.game is not None and t.game.turn_index >= 2
    )
    # Given up after two shots; and one under way.
    resigned = await tables.create(
        kind="solo", device="dev-me", name="Me", settings={"rounds": 1},
        seats={Seat.SOUTH: "me", Seat.NORTH: "easy"},
    )  # fmt: skip
    await _shoot_until(
        tables, resigned.id, {Seat.SOUTH: "dev-me"}, lambda t: t.game.turn_index >= 2
    )
    await tables.command(resigned.id, Resign("dev-me"))
    playing = await tables.create(
        kind="solo", device="dev-me", name="Me", settings={"rounds": 1},
        seats={Seat.SOUTH: "me", Seat.NORTH: "easy"},
    )  # fmt: skip
    await tables.close()
    return solo.id, party.id, resigned.id, playing.id, party_first


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Games]:
    db: Path = tmp_path_factory.mktemp("replays") / "crokinole.db"
    store = Store.open(server_database(db))
    try:
        ids = anyio.run(_play, store)
    finally:
        store.close()
    with serving(db, ServerSettings(warm_up=False)) as url:
        yield Games(url, *ids)


def get(url: str) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(url) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        with exc:
            return exc.code, json.loads(exc.read())


def replay_of(games: Games, table_id: str, query: str = "") -> dict[str, Any]:
    status, body = get(f"{games.url}/api/tables/{table_id}/replay.json{query}")
    assert status == 200, body
    return body  # type: ignore[no-any-return]


def record_of(games: Games, table_id: str) -> str:
    with urllib.request.urlopen(f"{games.url}/api/tables/{table_id}/record.json") as answer:
        return answer.read().decode()


def check_against_record(replayed: dict[str, Any], record_text: str) -> Game:
    """Every step's numbers are the record's: boards, scores after each round, the end (R9)."""
    stored = Game.from_json(record_text)
    assert replay(record_text) == stored  # the engine's own replay reaches the stored game
    actions = json.loads(record_text)["actions"]
    steps = replayed["steps"]
    assert [s["type"] for s in steps] == [
        {"shoot": "shot", "timeout": "timeout"}.get(a["type"], "next_round") for a in actions
    ]
    board = replayed["start"]
    assert board["discs"] == [] and [s["score"] for s in board["sides"]] == [0, 0]
    for step, action in zip(steps, actions, strict=True):
        game = step["game"]
        if action["type"] == "next_round":
            assert game["discs"] == [] and game["phase"] == "playing"
            continue
        assert step["seat"] == action["seat"]
        assert step["report"]["seat"] == action["seat"]
        result = action["result"]
        assert [[d["id"], d["owner"], d["x"], d["y"]] for d in game["discs"]] == result["board"]
        assert step["report"]["foul"] == result["foul"]
        discs = step["report"]["discs"]
        assert sorted(d["id"] for d in discs if d["result"] == "hole") == result["twenties"]
        assert sorted(d["id"] for d in discs if d["cancelled_twenty"]) == result["cancelled"]
        ditched = sorted([d["id"], d["reason"]] for d in discs if d["result"] == "ditch")
        assert ditched == sorted(result["removed"])
        if action["type"] == "shoot":
            assert step["played"] == {k: action[k] for k in ("position", "direction", "power")}
            # A disc launched with no power does not move (a CPU's noise may clamp it to 0).
            assert (step["trajectory"]["duration"] > 0) == (action["power"] > 0)
        else:
            assert step["played"] is None and step["trajectory"] is None
    # Scores after each round are the stored game's, and the end is its end.
    history = [
        {
            "number": r.number,
            "totals": list(r.totals),
            "points": list(r.points),
            "scores_after": list(r.scores_after),
        }
        for r in stored.history
    ]
    ends = [s["game"]["history"][-1] for s in steps if s["game"]["phase"] != "playing"]
    assert [{k: h[k] for k in history[0]} for h in ends] == history
    last = steps[-1]["game"]
    assert [s["score"] for s in last["sides"]] == list(stored.scores)
    assert [d["id"] for d in last["discs"]] == [d.id for d in stored.discs]
    outcome = stored.outcome
    expected = None if outcome is None else {"winner": outcome.winner, "drawn": list(outcome.drawn)}
    assert last["outcome"] == expected == replayed["outcome"]
    return stored


def test_a_finished_game_against_the_cpu_replays_to_the_stored_game(games: Games) -> None:
    replayed = replay_of(games, games.solo)
    stored = check_against_record(replayed, record_of(games, games.solo))
    assert stored.is_over and replayed["end"] == "over"
    assert replayed["kind"] == "solo" and replayed["game_number"] == 1
    assert replayed["rounds"] == [{"number": 1, "step": 0, "first": "south"}]
    assert replayed["record"] == f"/api/tables/{games.solo}/record.json"
    assert replayed["link"] == f"/replay/{games.solo}?game=1"
    shots = [s for s in replayed["steps"] if s["type"] != "next_round"]
    assert len(shots) == 16  # R2: 8 discs a side
    # Who shot comes from the table's log: the person's own shots, the CPU's.
    assert {s["by"] for s in shots if s["seat"] == "south" and s["type"] == "shot"} == {"person"}
    assert {s["by"] for s in shots if s["seat"] == "north" and s["type"] == "shot"} == {"cpu"}
    names = {x["seat"]: x["name"] for x in replayed["start"]["seats"]}
    assert names == {"south": "Me", "north": "CPU Easy"}
    # The replay names the players once for all, as its snapshots and the review do.
    assert replayed["names"] == names


def test_a_party_game_of_two_rounds_replays_round_by_round(games: Games) -> None:
    # The table has gone on to a rematch: its first game is asked for by number.
    replayed = replay_of(games, games.party, "?game=1")
    stored = check_against_record(replayed, games.party_first)
    assert stored.is_over and len(stored.history) >= 2
    rounds = replayed["rounds"]
    assert [r["number"] for r in rounds] == [h.number for h in stored.history]
    assert [r["first"] for r in rounds[:2]] == ["south", "north"]  # R2: the opener moves round
    # Round 2 begins after the Next of round 1: that step holds its fresh board.
    begin = replayed["steps"][rounds[1]["step"] - 1]
    assert begin["type"] == "next_round" and begin["round"] == 2
    assert all(s["round"] == 1 for s in replayed["steps"][: rounds[1]["step"] - 1])
    end = rounds[2]["step"] - 1 if len(rounds) > 2 else len(replayed["steps"])
    assert all(s["round"] == 2 for s in replayed["steps"][rounds[1]["step"] : end])
    assert {x["name"] for x in replayed["start"]["seats"]} == {"Ann", "Bob"}
    assert replayed["names"] == {x["seat"]: x["name"] for x in replayed["start"]["seats"]}
    assert all(s["by"] == "person" for s in replayed["steps"] if s["type"] == "shot")


def test_the_last_game_of_a_table_is_replayed_unless_it_is_under_way(games: Games) -> None:
    # The party's rematch is being played; the solo game under way too.
    for table_id in (games.party, games.playing):
        assert get(f"{games.url}/api/tables/{table_id}/replay.json") == (
            409,
            {"code": "not_finished", "message": "this game is not finished yet"},
        )
    assert get(f"{games.url}/api/tables/{games.party}/replay.json?game=2")[0] == 409
    assert get(f"{games.url}/api/tables/{games.party}/replay.json?game=3") == (
        404,
        {"code": "not_found", "message": f"table {games.party} has no game 3"},
    )


def test_an_abandoned_game_is_replayed_as_far_as_it_went(games: Games) -> None:
    replayed = replay_of(games, games.resigned)
    stored = check_against_record(replayed, record_of(games, games.resigned))
    assert not stored.is_over and replayed["end"] == "abandoned" and replayed["outcome"] is None
    assert len(replayed["steps"]) == stored.turn_index >= 2


@pytest.mark.parametrize(
    ("path", "status", "error"),
    [
        ("nothex/replay.json", 400, "a table id is 32 hexadecimal digits"),
        ("A" * 32 + "/replay.json", 400, "a table id is 32 hexadecimal digits"),
        ("0" * 32 + "/replay.json", 404, f"table {'0' * 32} has no game"),
    ],
)
def test_bad_or_unknown_tables_are_refused_plainly(
    games: Games, path: str, status: int, error: str
) -> None:
    answer = get(f"{games.url}/api/tables/{path}")
    assert (answer[0], answer[1]["message"]) == (status, error)


@pytest.mark.parametrize("game", ["0", "-1", "x", "1.5", "9999999", ""])
def test_a_bad_game_number_is_refused_plainly(games: Games, game: str) -> None:
    status, body = get(f"{games.url}/api/tables/{games.solo}/replay.json?game={game}")
    assert status == 400
    assert body["message"].startswith("game is a game number from 1, got ")


def test_the_viewer_page_is_served_at_the_replay_link(games: Games) -> None:
    with urllib.request.urlopen(f"{games.url}/replay/{games.solo}?game=1") as answer:
        assert answer.status == 200
        page = answer.read().decode()
        assert answer.headers["Content-Security-Policy"].startswith("default-src 'self'")
    assert '<script type="module" src="/static/pages/replay.js">' in page
