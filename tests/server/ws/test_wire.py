"""Protocol version 2's messages without a server: parsing, and the views built from tables."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from crokinole.board import Seat, Shot
from crokinole.server import protocol
from crokinole.server.ws import messages as inbound
from crokinole.server.ws import views
from crokinole.table import (
    ERROR_CODES,
    React,
    Rename,
    Shoot,
    Table,
    TableError,
    TableSettings,
    Timings,
)

TABLE = "ab" * 16
HOST = "host-device-token-0001"
GUEST = "guest-device-token-0002"


def _error(payload: dict[str, Any] | str) -> protocol.WireError:
    text = payload if isinstance(payload, str) else json.dumps(payload)
    with pytest.raises(protocol.WireError) as info:
        inbound.parse_message(text)
    return info.value


@pytest.mark.parametrize(
    "payload",
    [
        {"type": "hello", "token": "t" * 16},
        {"type": "hello", "token": "t" * 16, "table": TABLE, "last_event": 3},
        {"type": "create", "kind": "solo", "settings": {"layout": "doubles"}, "name": "Ann",
         "seats": {"south": "me", "west": "easy", "north": "normal", "east": "hard"}},
        {"type": "create", "kind": "party", "settings": {}, "name": "Ann"},
        {"type": "join", "code": "abc234", "name": "Bob"},
        {"type": "join", "code": "ABC234", "name": "Bob", "spectator": True},
        {"type": "open", "table": TABLE},
        {"type": "open", "table": TABLE, "last_event": 0},
        {"type": "take_seat", "table": TABLE, "seat": "west"},
        {"type": "take_seat", "table": TABLE, "seat": None},
        {"type": "move", "table": TABLE, "member": "m2", "seat": "east"},
        {"type": "move", "table": TABLE, "member": "m2", "seat": None},
        {"type": "set_cpu", "table": TABLE, "seat": "north", "level": "expert"},
        {"type": "set_cpu", "table": TABLE, "seat": "north", "level": None},
        {"type": "remove", "table": TABLE, "member": "m3"},
        {"type": "settings", "table": TABLE, "settings": {"discs": 12}},
        {"type": "start", "table": TABLE},
        {"type": "shoot", "table": TABLE, "seat": "south", "position": 1.5, "direction": -2.0,
         "power": 40.0},
        {"type": "next_round", "table": TABLE},
        {"type": "rematch", "table": TABLE},
        {"type": "leave", "table": TABLE},
        {"type": "resign", "table": TABLE},
        {"type": "rename", "table": TABLE, "name": "Cleo"},
        {"type": "react", "table": TABLE, "reaction": "nice_shot"},
        {"type": "hint", "table": TABLE, "seat": "south"},
        {"type": "heatmap", "table": TABLE, "seat": "north", "position": -3.5},
        {"type": "heatmap", "table": TABLE, "seat": "north", "position": 0, "metric": "twenty",
         "accuracy": "mine"},
        {"type": "ping"},
    ],
)  # fmt: skip
def test_every_client_message_of_version_2_parses(payload: dict[str, Any]) -> None:
    parsed = inbound.parse_message(json.dumps(payload))
    assert parsed.type == payload["type"]
    assert payload["type"] in inbound.MESSAGE_TYPES


@pytest.mark.parametrize(
    ("payload", "code", "text"),
    [
        ("not json", "bad_json", "not valid JSON"),
        ("[1, 2]", "bad_message", "a JSON object"),
        ({"type": "dance"}, "bad_message", "unknown message type 'dance'"),
        # v1's messages are not v2's.
        ({"type": "new_game", "opponent": "easy"}, "bad_message", "unknown message type"),
        ({"type": "create", "kind": "solo", "name": "Ann"}, "bad_message",
         "create: settings: Field required"),
        ({"type": "create", "kind": "league", "settings": {}, "name": "A"}, "bad_message",
         "create: kind"),
        ({"type": "create", "kind": "solo", "settings": {}, "name": "A",
          "seats": {"south": "godlike"}}, "bad_message", "create: seats.south"),
        ({"type": "create", "kind": "solo", "settings": {}, "name": "A",
          "seats": {"up": "me"}}, "bad_message", "create: seats.up"),
        ({"type": "join", "name": "Bob"}, "bad_message", "join: code: Field required"),
        ({"type": "join", "code": "ABC234", "name": 7}, "bad_message", "join: name"),
        ({"type": "take_seat", "table": TABLE}, "bad_message", "take_seat: seat: Field required"),
        ({"type": "move", "table": TABLE, "member": "Ann", "seat": None}, "bad_message",
         "move: member"),
        ({"type": "set_cpu", "table": TABLE, "seat": "north", "level": "godlike"},
         "bad_message", "set_cpu: level"),
        ({"type": "shoot", "table": TABLE, "seat": "south", "position": "0",
          "direction": 0.0, "power": 30.0}, "bad_message", "shoot: position"),
        ({"type": "start", "table": "nope"}, "bad_message", "start: table"),
        ({"type": "start", "table": TABLE, "extra": 1}, "bad_message", "start: extra"),
        ({"type": "hello", "token": "short"}, "bad_message", "hello: token"),
        ("x" * 20000, "too_large", "limited to 16384 bytes"),
        ('{"type": "ping", "n": ' + "9" * 5000 + "}", "bad_message", "5000 characters"),
        ("[" * 2000 + "]" * 2000, "bad_message", "nested too deeply"),
        ('{"type": "shoot", "power": NaN}', "bad_message", "NaN"),
        ('{"type": "ping", "pad": "' + "é" * 9000 + '"}', "too_large", "16384 bytes"),
        ({"type": [1]}, "bad_message", "unknown message type [1]"),
    ],
)  # fmt: skip
def test_a_bad_message_is_refused_naming_the_field(
    payload: dict[str, Any] | str, code: str, text: str
) -> None:
    error = _error(payload)
    assert error.code == code and text in error.message, error.message


def test_a_party_code_is_read_in_any_case_with_spaces_or_dashes() -> None:
    assert inbound.normal_code("abc 234") == inbound.normal_code("ABC-234") == "ABC234"
    # The alphabet has no 0/O or 1/I/l to misread.
    assert not set("01OIl") & set(inbound.CODE_ALPHABET)


# ---------------------------------------------------------------- views


def _party(now: float = 1000.0) -> Table:
    settings = TableSettings.from_dict({"layout": "singles", "rounds": 1, "hand": "steady"})
    table, _ = Table.create(
        id=TABLE, kind="party", code="ABC234", host_device=HOST, host_name="Ann",
        settings=settings, timings=Timings(), seed=7, now=now,
    )  # fmt: skip
    return table


def test_the_view_never_carries_a_device_token() -> None:
    table = _party()
    text = json.dumps(views.view(table, HOST, 1000.0))
    assert HOST not in text
    view = views.view(table, HOST, 1000.0)
    assert view["invite"] == "/join/ABC234" and view["code"] == "ABC234"
    assert view["watch"] == "/watch/ABC234"
    assert view["you"]["host"] and view["you"]["member"] == view["host"]
    assert view["kind"] == "party" and view["stage"] == "lobby" and view["game"] is None
    assert [s["seat"] for s in view["seats"]] == ["south", "north"]
    assert view["reactions"] and view["server_time"] == 1000.0


def test_someone_who_is_not_a_member_is_nobody_at_the_table() -> None:
    view = views.view(_party(), GUEST, 1000.0)
    assert view["you"] == {"member": None, "seats": [], "spectator": False, "host": False}


def test_a_solo_table_shows_its_game_and_the_shooters_free_stretches_of_the_line() -> None:
    settings = TableSettings.from_dict({"layout": "singles", "hand": "steady"})
    table, _ = Table.create(
        id=TABLE, kind="solo", code=None, host_device=HOST, host_name="Ann",
        settings=settings, timings=Timings(), seed=7, now=5.0,
        seats={Seat.SOUTH: "me", Seat.NORTH: "hard"},
    )  # fmt: skip
    view = views.view(table, HOST, 5.0)
    assert view["invite"] is None and view["stage"] == "playing"
    assert view["you"]["seats"] == ["south"]
    north = next(s for s in view["seats"] if s["seat"] == "north")
    assert north["occupant"]["kind"] == "cpu" and north["occupant"]["name"] == "CPU Hard"
    game = view["game"]
    assert game["current_seat"] == "south"
    names = {s["seat"]: s["name"] for s in game["seats"]}
    assert names == {"south": "Ann", "north": "CPU Hard"}
    # An empty board: the whole quarter of the line is free (R3).
    limit = game["placement_limit"]
    assert view["placement"] == {"south": [[-limit, limit]]}


def test_a_shot_message_has_the_report_and_a_trajectory_ending_at_the_snapshot() -> None:
    settings = TableSettings.from_dict(
        {"layout": "singles", "hand": "steady", "required_contact": False}
    )
    before, _ = Table.create(
        id=TABLE, kind="solo", code=None, host_device=HOST, host_name="Ann",
        settings=settings, timings=Timings(), seed=7, now=5.0,
        seats={Seat.SOUTH: "me", Seat.NORTH: "me"},
    )  # fmt: skip
    after, events = before.apply(Shoot(HOST, Seat.SOUTH, Shot(5.0, 3.0, 22.0)), 6.0)
    messages = views.event_messages(before, after, events, HOST, 6.0)
    shots = [m for m in messages if m["type"] == "shot"]
    assert len(shots) == 1
    shot = shots[0]
    assert shot["event"] == after.version and shot["seat"] == "south"
    assert shot["played"] == {"position": 5.0, "direction": 3.0, "power": 22.0}
    assert shot["report"]["discs"][0]["shot"]
    (disc,) = shot["trajectory"]["discs"]
    _, x, y, vx, vy = disc["segments"][-1]
    speed = (vx * vx + vy * vy) ** 0.5
    a = shot["trajectory"]["deceleration"]
    s = speed * speed / (2 * a) if speed else 0.0
    final = (x + (vx / speed) * s, y + (vy / speed) * s) if speed else (x, y)
    (on_board,) = shot["game"]["discs"]
    assert final == pytest.approx((on_board["x"], on_board["y"]), abs=1e-9)
    # Hot-seat play: one device holds both seats, named after the seats.
    assert shot["lobby"]["you"]["seats"] == ["south", "north"]
    assert {s["name"] for s in shot["game"]["seats"]} == {"South", "North"}
    assert HOST not in json.dumps(messages)


# ---------------------------------------------------------------- the document


def _documented_codes() -> list[str]:
    doc = (Path(__file__).resolve().parents[3] / "docs" / "protocol.md").read_text()
    errors = doc.split("## Errors", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^\| `([a-z_]+)` \|", errors, flags=re.MULTILINE)


def test_the_protocol_document_names_every_error_code_once() -> None:
    codes = _documented_codes()
    assert len(codes) == len(set(codes))
    wire_codes = {
        "bad_json",
        "too_large",
        "bad_message",
        "hello_first",
        "rate_limited",
        "server_error",
        "unknown_table",
        "unknown_code",
        "busy",
        "unavailable",
        "no_accuracy",
        "no_shows",
        "too_many_messages",
    }  # fmt: skip  (no_shows: the ranked queue's, test_fair_play_protocol)
    assert set(codes) == set(ERROR_CODES) | wire_codes | set(RANKED_TESTS) - {"ranked_table"}


#: Ranked play's errors and the test of test_ranked_protocol.py that gets each.
RANKED_TESTS = {
    "not_logged_in": "test_queue_errors_and_leaving",
    "bad_ladder": "test_queue_errors_and_leaving",
    "already_queued": "test_queue_errors_and_leaving",
    "bad_partner": "test_two_players_queue_for_doubles_as_a_team",
    "in_ranked_game": "test_two_players_queue_are_matched_play_and_both_ratings_change",
    "ranked_table": "test_two_players_queue_are_matched_play_and_both_ratings_change",
}


def test_every_documented_error_has_its_protocol_test() -> None:
    here = Path(__file__).resolve().parents[1]  # tests/server
    tests = (here / "ws/test_party_protocol.py").read_text()
    tests += (here / "ws/test_hints.py").read_text()
    tests += (here / "ranked/test_fair_play_protocol.py").read_text()
    tests += (here / "ws/test_connections.py").read_text()
    ranked = (here / "ranked/test_ranked_protocol.py").read_text()
    untested = {"busy"}  # needs two owners of one table, which one process's hub never has
    missing = []
    for code in _documented_codes():
        if code in untested or f"def test_error_{code}" in tests:
            continue
        test = RANKED_TESTS.get(code)
        body = ranked.split(f"def {test}(", 1)[1].split("\ndef ", 1)[0] if test else ""
        if f'"{code}"' not in body:  # the test asserts this very code
            missing.append(code)
    assert missing == []


@pytest.mark.parametrize(
    ("payload", "code"),
    [
        ({"type": "join", "code": "ABC234", "name": "x" * 300}, "bad_name"),
        ({"type": "create", "kind": "party", "settings": {}, "name": "x" * 300}, "bad_name"),
        ({"type": "rename", "table": TABLE, "name": "x" * 300}, "bad_name"),
        ({"type": "react", "table": TABLE, "reaction": "y" * 300}, "unknown_reaction"),
    ],
)
def test_a_long_name_or_reaction_is_the_table_s_to_refuse(
    payload: dict[str, Any], code: str
) -> None:
    # docs/protocol.md: a name longer than 24 characters is bad_name, a
    # reaction not in the list unknown_reaction.  The wire carries them (the
    # 16 KiB message limit bounds them) for the table to refuse with its code.
    parsed = inbound.parse_message(json.dumps(payload))
    assert parsed.type == payload["type"]
    table = _party()
    command = (
        React(HOST, payload["reaction"]) if "reaction" in payload else Rename(HOST, payload["name"])
    )
    with pytest.raises(TableError) as info:
        table.apply(command, 1000.0)
    assert info.value.code == code
