"""Protocol version 2 over real websockets: parties, seats, games, reconnection, every error.

Each error code of docs/protocol.md has its test here (``test_error_<code>``),
sent the way a client would cause it; the refusal changes nothing.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import sqlite3
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crokinole.ai import Level
from crokinole.server.limits import ServerSettings
from crokinole.store import Store, StoreUnavailableError
from crokinole.table import REACTIONS
from tests.support.server import Player, serving
from tests.support.server_database import on_postgres, on_redis

#: A one-round singles party played exactly as aimed (quick test options, same rules).
SINGLES = {"layout": "singles", "rounds": 1, "hand": "steady", "tie": "draw"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db: Path = tmp_path_factory.mktemp("db") / "crokinole.db"
    with serving(db, ServerSettings(warm_up=False, rooms_per_minute=20)) as url:
        yield url


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server with short grace periods (test settings, never rules)."""
    db: Path = tmp_path_factory.mktemp("db") / "crokinole.db"
    settings = ServerSettings(
        warm_up=False, standin_grace=0.3, turn_grace=0.1, round_countdown=0.3, short_clocks=True
    )
    with serving(db, settings) as url:
        yield url


_OPEN: list[Player] = []


@pytest.fixture(autouse=True)
def _close_players() -> Iterator[None]:
    """Every test client a test opened is closed after it."""
    yield
    while _OPEN:
        _OPEN.pop().close()


def _connect(url: str, token: str | None = None) -> Player:
    p = Player(url, token)
    _OPEN.append(p)
    return p


def _player(url: str) -> Player:
    p = _connect(url)
    p.hello()
    return p


def _party(url: str, **settings: Any) -> tuple[Player, Player, dict[str, Any]]:
    """Ann's singles party, joined by Bob (by its code in lower case); Bob's table view."""
    ann = _player(url)
    created = ann.create("party", "Ann", **{**SINGLES, **settings})
    bob = _player(url)
    joined = bob.join(created["view"]["code"].lower(), "Bob")
    return ann, bob, joined["view"]


def _started(url: str, **settings: Any) -> tuple[Player, Player]:
    ann, bob, _ = _party(url, **settings)
    ann.act("start")
    ann.until("game_started")
    bob.until("game_started")
    return ann, bob


def _close(*players: Player) -> None:
    for p in players:
        p.close()


# ---------------------------------------------------------------- parties


def test_hello_is_answered_with_welcome(server: str) -> None:
    p = _connect(server)
    welcome = p.hello()
    assert (welcome["table"], welcome["event"], welcome["protocol"]) == (None, 0, 2)
    assert welcome["token"] == p.token and welcome["tables"] == []
    # The levels come from crokinole.ai.Level, weakest first, with names.
    assert [level["id"] for level in welcome["levels"]] == [lv.value for lv in Level]
    assert welcome["levels"][0] == {"id": "easy", "name": "Easy"}
    assert welcome["reactions"] == list(REACTIONS)
    assert set(welcome["record"]) == {*(lv.value for lv in Level), "people"}
    assert welcome["record"]["hard"]["four_rounds"] == {"wins": 0, "draws": 0, "losses": 0}
    assert isinstance(welcome["server_time"], float)


def test_a_party_is_created_and_joined_by_its_code_and_both_see_the_same_lobby(
    server: str,
) -> None:
    ann = _player(server)
    created = ann.create("party", "Ann", **SINGLES)
    view = created["view"]
    code = view["code"]
    assert len(code) == 6 and set(code) <= set("23456789ABCDEFGHJKMNPQRSTUVWXYZ")
    assert view["invite"] == f"/join/{code}" and view["stage"] == "lobby"
    assert view["you"] == {"member": "m1", "seats": ["south"], "spectator": False, "host": True}
    bob = _player(server)
    answer = bob.join(f" {code.lower()} ", "Bob")
    joined = answer["view"]
    assert joined["you"] == {"member": "m2", "seats": ["north"], "spectator": False, "host": False}
    # Ann is told, with the fresh lobby.
    member = ann.until("member")
    assert (member["change"], member["member"], member["name"]) == ("joined", "m2", "Bob")
    seat = ann.until("seat")
    assert seat["event"] == answer["event"]  # Bob's view is at the version of his seat
    assert seat["lobby"]["seats"] == joined["seats"]
    assert seat["lobby"]["you"]["member"] == "m1"
    # No message ever carries a device token but the device's own welcome.
    for text in (json.dumps(created), json.dumps(joined), json.dumps(seat)):
        assert ann.token not in text and bob.token not in text
    _close(ann, bob)


def test_the_host_starts_and_every_screen_sees_the_same_shot(server: str) -> None:
    ann, bob, _ = _party(server)
    ann.act("start")
    started = ann.until("game_started")
    assert started["view"]["stage"] == "playing"
    assert started["view"]["game"]["current_seat"] == "south"
    assert started["view"]["placement"]["south"]
    bob.until("game_started")
    ann.shoot("south", power=28.0)
    mine, theirs = ann.until("shot"), bob.until("shot")
    assert mine == {**theirs, "lobby": mine["lobby"], "server_time": mine["server_time"]}
    assert mine["by"] == "person" and mine["aimed"] is None
    assert mine["report"]["seat"] == "south"
    assert mine["game"]["current_seat"] == "north"
    assert theirs["lobby"]["placement"] == mine["lobby"]["placement"]
    assert list(theirs["lobby"]["placement"]) == ["north"]
    _close(ann, bob)


def test_four_devices_play_doubles_each_for_its_own_seat(server: str) -> None:
    ann = _player(server)
    code = ann.create("party", "Ann", layout="doubles", rounds=1)["view"]["code"]
    others = []
    for name in ("Bob", "Cleo", "Dan"):
        p = _player(server)
        p.join(code, name)
        others.append(p)
    everyone = [ann, *others]
    ann.act("start")
    views = [p.until("game_started")["view"] for p in everyone]
    seat_of = {v["you"]["member"]: v["you"]["seats"] for v in views}
    # Joiners sit at the next free seat clockwise.
    assert seat_of == {"m1": ["south"], "m2": ["west"], "m3": ["north"], "m4": ["east"]}
    assert {v["settings"]["hand"] for v in views} == {"human"}  # a party's default hand
    by_seat = {v["you"]["seats"][0]: p for v, p in zip(views, everyone, strict=True)}
    for seat in ("south", "west", "north", "east"):  # doubles order from south (R2)
        by_seat[seat].shoot(seat, power=0.0)
        shots = [p.until("shot") for p in everyone]
        assert {s["seat"] for s in shots} == {seat}
        assert all(s["game"] == shots[0]["game"] for s in shots)  # every screen agrees
        assert shots[0]["aimed"] == {"position": 0.0, "direction": 0.0, "power": 0.0}


def test_a_spectator_joins_by_the_code_and_sees_the_same_shots(server: str) -> None:
    ann, bob, view = _party(server)
    spectator = _player(server)
    watching = spectator.join(view["code"], "Cleo", spectator=True)["view"]
    assert watching["you"]["spectator"] and watching["you"]["seats"] == []
    assert watching["spectators"] == 1
    ann.act("start")
    spectator.until("game_started")
    ann.shoot("south")
    seen, played = spectator.until("shot"), ann.until("shot")
    assert seen["report"] == played["report"] and seen["trajectory"] == played["trajectory"]
    _close(ann, bob, spectator)


def test_a_game_is_played_to_its_end_then_a_rematch_opens_with_the_other_seat(
    server: str,
) -> None:
    ann, bob = _started(server)
    seats = {"south": ann, "north": bob}
    turn = "south"
    finished: dict[str, Any] | None = None
    for _ in range(16):  # R2: 8 discs a side, one round
        seats[turn].shoot(turn, power=0.0)  # stays on the line: out, fast
        shot = ann.until("shot")
        assert bob.until("shot")["event"] == shot["event"]
        turn = shot["game"]["current_seat"] or turn
    finished = ann.until("finished")
    theirs = bob.until("finished")
    assert finished["game"] == theirs["game"] and not finished["abandoned"]
    assert finished["game"]["phase"] == "game_over"
    # A 0-0 round: the game is drawn; each device's record counts it (against people).
    assert finished["winner"] is None and finished["drawn"] == [0, 1]
    assert finished["record"]["people"]["four_rounds"]["draws"] == 1
    assert finished["lobby"]["stage"] == "finished"
    ann.act("rematch")
    offer = bob.until("rematch_offer")
    assert offer["member"] == "m1" and offer["lobby"]["rematch_votes"] == ["m1"]
    assert offer["lobby"]["deadline"] == {"kind": "rematch", "at": offer["until"]}
    bob.act("rematch")
    again = ann.until("game_started")
    assert again["view"]["game_number"] == 2
    assert again["view"]["game"]["current_seat"] == "north"
    _close(ann, bob)


def test_a_player_who_closes_the_page_comes_back_to_the_same_seat(server: str) -> None:
    ann, bob = _started(server)
    ann.shoot("south")
    shot = ann.until("shot")
    bob.close()
    gone = ann.until("presence")
    assert (gone["member"], gone["connected"]) == ("m2", False)
    back = _connect(server, bob.token)
    welcome = back.hello(table=ann.table)
    assert {"table": ann.table, "kind": "party", "stage": "playing"} in welcome["tables"]
    view = back.until("table")["view"]
    assert view["you"]["seats"] == ["north"] and view["game"]["current_seat"] == "north"
    assert view["game"] == shot["game"]  # up to date: the shot it missed is on the board
    assert ann.until("presence")["connected"] is True
    back.table = ann.table
    back.shoot("north")
    assert ann.until("shot")["seat"] == "north"
    _close(ann, back)


def test_a_player_who_missed_a_few_events_is_sent_them_as_they_were_sent(
    server: str,
) -> None:
    ann, bob = _started(server)
    ann.shoot("south", position=-20.0, power=30.0)
    seen = bob.until("shot")
    bob.close()
    ann.until("presence")
    bob_turn = _connect(server, bob.token)
    bob_turn.hello(table=ann.table, last_event=seen["event"] - 1)  # the shot was not finished
    again = bob_turn.until("shot")
    assert again["event"] == seen["event"]
    for key in ("seat", "report", "trajectory", "game", "played"):
        assert again[key] == seen[key]  # animated again, as first sent
    gone = bob_turn.recv()
    assert (gone["type"], gone["member"], gone["connected"]) == ("presence", "m2", False)
    back = bob_turn.recv()
    assert (back["type"], back["member"], back["connected"]) == ("presence", "m2", True)
    assert back["event"] == gone["event"] + 1 == seen["event"] + 2
    bob_turn.table = ann.table
    bob_turn.shoot("north")
    assert ann.until("shot")["seat"] == "north"


def test_a_second_tab_of_the_same_device_does_not_make_it_flicker(server: str) -> None:
    ann, bob = _started(server)
    second = _connect(server, bob.token)
    second.hello(table=bob.table)
    second.until("table")
    second.close()
    ann.shoot("south")
    messages = ann.quiet(0.5)
    assert not [m for m in messages if m["type"] == "presence"], messages
    _close(ann, bob)


def test_the_host_who_leaves_the_lobby_passes_the_host_role_on(server: str) -> None:
    ann, bob, _ = _party(server)
    ann.act("leave")
    host = bob.until("member", lambda m: m["change"] == "host")
    assert host["member"] == "m2" and host["lobby"]["you"]["host"]
    assert [m["member"] for m in host["lobby"]["members"]] == ["m2"]
    _close(ann, bob)


def test_the_host_fills_a_seat_with_a_cpu_and_the_cpu_plays_it(server: str) -> None:
    ann = _player(server)
    ann.create("party", "Ann", **SINGLES)
    ann.act("set_cpu", seat="north", level="easy")
    seat = ann.until("seat")
    north = seat["lobby"]["seats"][1]["occupant"]
    assert north == {"kind": "cpu", "name": "CPU Easy", "level": "easy", "stand_in": False}
    ann.act("start")
    ann.until("game_started")
    ann.shoot("south")
    ann.until("shot", lambda m: m["seat"] == "south")
    cpu = ann.until("shot", lambda m: m["seat"] == "north")
    assert cpu["by"] == "cpu"
    ann.close()


def test_solo_hot_seat_doubles_on_one_device(server: str) -> None:
    me = _player(server)
    view = me.create(
        "solo", "Ann", seats={"south": "me", "west": "me", "north": "me", "east": "me"},
        layout="doubles",
    )["view"]  # fmt: skip
    assert view["kind"] == "solo" and view["code"] is None and view["stage"] == "playing"
    assert view["you"]["seats"] == ["south", "north", "west", "east"]
    assert view["settings"]["hand"] == "steady"
    order = []
    seat = view["game"]["current_seat"]
    for _ in range(4):
        me.shoot(seat, power=0.0)
        shot = me.until("shot")
        order.append(shot["seat"])
        seat = shot["game"]["current_seat"]
    assert order == ["south", "west", "north", "east"]  # doubles turn order from south
    me.close()


def test_reactions_reach_everyone(server: str) -> None:
    ann, bob, _ = _party(server)
    bob.act("react", reaction="good_luck")
    seen = ann.until("reaction")
    assert (seen["member"], seen["reaction"]) == ("m2", "good_luck")
    _close(ann, bob)


def test_ping_is_answered_with_the_server_time(server: str) -> None:
    p = _connect(server)
    p.send({"type": "ping"})
    pong = p.until("pong")
    assert isinstance(pong["server_time"], float) and pong["table"] is None
    p.close()


def _play_round(ann: Player, bob: Player) -> dict[str, Any]:
    """Both players shoot every disc of a round (power 0: out at once); the last shot."""
    seats = {"south": ann, "north": bob}
    turn = "south"
    for _ in range(16):  # R2: 8 discs a side
        seats[turn].shoot(turn, power=0.0)
        shot = ann.until("shot")
        bob.until("shot")
        turn = shot["game"]["current_seat"] or turn
    return shot


def test_the_next_round_starts_when_every_player_pressed_next(server: str) -> None:
    ann, bob = _started(server, rounds=2)
    last = _play_round(ann, bob)
    assert last["game"]["phase"] == "round_over"
    assert last["lobby"]["deadline"]["kind"] == "round"  # the countdown runs (R6)
    ann.act("next_round")
    pressed = bob.until("next_pressed")
    assert pressed["member"] == "m1" and pressed["lobby"]["next_pressed"] == ["m1"]
    bob.act("next_round")
    started = ann.until("round")
    assert started["round"] == 2 and started["game"]["phase"] == "playing"
    assert started["game"]["current_seat"] == "north"  # the next round opens with the next seat


# ---------------------------------------------------------------- clocks (short test settings)


def test_a_missing_player_is_stood_in_for_by_the_cpu_and_takes_the_seat_back(quick: str) -> None:
    ann, bob = _started(quick)
    bob_token = bob.token
    bob.close()
    ann.until("presence")
    ann.shoot("south")
    ann.until("shot", lambda m: m["seat"] == "south")
    on = ann.until("stand_in")
    assert on["seat"] == "north" and on["on"]
    occupant = on["lobby"]["seats"][1]["occupant"]
    assert occupant["stand_in"] and occupant["level"] == "normal" and occupant["name"] == "Bob"
    standin = ann.until("shot", lambda m: m["seat"] == "north")
    assert standin["by"] == "standin"
    back = _connect(quick, bob_token)
    back.hello(table=ann.table)
    back.table = ann.table
    view = back.until("table")["view"]
    assert view["you"]["seats"] == ["north"]
    ann.shoot("south")
    off = back.until("stand_in")
    assert off["seat"] == "north" and not off["on"]
    back.shoot("north")
    assert ann.until("shot", lambda m: m["seat"] == "north")["by"] == "person"
    _close(ann, back)


def test_the_round_countdown_starts_the_next_round_when_nobody_presses(quick: str) -> None:
    ann, bob = _started(quick, rounds=2)
    _play_round(ann, bob)
    started = bob.until("round")
    assert started["round"] == 2 and started["lobby"]["next_pressed"] == []


def test_the_turn_clock_runs_out_and_the_disc_goes_to_the_ditch(quick: str) -> None:
    ann, bob = _started(quick, turn_time=1)
    assert ann.quiet(0.0) == []
    timeout = ann.until("timeout")
    assert (timeout["seat"], timeout["reason"]) == ("south", "clock")  # R3
    assert timeout["report"]["unplayed"] and timeout["report"]["foul"] == "timeout"
    assert timeout["game"]["sides"][0]["ditch"] == 1
    assert bob.until("timeout")["event"] == timeout["event"]
    _close(ann, bob)


# ---------------------------------------------------------------- errors, one per code


def test_error_bad_json(server: str) -> None:
    assert _player(server).error("{oops")["code"] == "bad_json"


def test_error_too_large(server: str) -> None:
    error = _player(server).error("x" * 20000)
    assert error["code"] == "too_large" and "16384" in error["message"]


def test_error_bad_message_names_the_field(server: str) -> None:
    p = _player(server)
    error = p.error({"type": "take_seat", "table": "ab" * 16})
    assert error["code"] == "bad_message" and error["message"] == (
        "take_seat: seat: Field required"
    )


def test_error_hello_first(server: str) -> None:
    p = _connect(server)
    error = p.error({"type": "create", "kind": "party", "settings": {}, "name": "Ann"})
    assert error["code"] == "hello_first"
    p.close()


def test_error_unknown_table(server: str) -> None:
    error = _player(server).error({"type": "open", "table": "0" * 32})
    assert error["code"] == "unknown_table"


def test_error_unknown_code(server: str) -> None:
    error = _player(server).error({"type": "join", "code": "ABC234", "name": "Bob"})
    assert error["code"] == "unknown_code"
    assert error["message"] == "no party has the code ABC234: check it, or ask for a new link"


def test_error_unknown_code_for_a_closed_party(server: str) -> None:
    ann = _player(server)
    code = ann.create("party", "Ann", **SINGLES)["view"]["code"]
    ann.act("leave")  # the last player leaves: the party closes, its link expires
    ann.quiet()
    error = _player(server).error({"type": "join", "code": code, "name": "Bob"})
    assert error["code"] == "unknown_code"


def test_error_rate_limited(server: str) -> None:
    p = _player(server)
    for _ in range(20):
        p.create("party", "Ann", **SINGLES)
    error = p.error({"type": "create", "kind": "party", "settings": SINGLES, "name": "Ann"})
    assert error["code"] == "rate_limited"


def test_error_not_a_member(server: str) -> None:
    ann, bob, _ = _party(server)
    stranger = _player(server)
    error = stranger.error({"type": "start", "table": ann.table})
    assert error["code"] == "not_a_member"
    # Nor can a stranger open it, or come back to it with hello.
    assert stranger.error({"type": "open", "table": ann.table})["code"] == "not_a_member"
    other = _connect(server)
    other.send({"type": "hello", "token": other.token, "table": ann.table})
    assert other.recv()["type"] == "welcome"
    assert other.recv()["code"] == "not_a_member"
    _close(ann, bob, stranger)


def test_error_not_host_when_a_guest_starts(server: str) -> None:
    ann, bob, _ = _party(server)
    bob.act("start")
    error = bob.until("error")
    assert error["code"] == "not_host" and "Ann" in error["message"]
    _close(ann, bob)


def test_error_party_full(server: str) -> None:
    ann, bob, view = _party(server)
    third = _player(server)
    error = third.error({"type": "join", "code": view["code"], "name": "Cleo"})
    assert error["code"] == "party_full" and "spectator" in error["message"]
    _close(ann, bob, third)


def test_error_seat_taken(server: str) -> None:
    ann, bob, _ = _party(server)
    bob.act("take_seat", seat="south")
    assert bob.until("error")["code"] == "seat_taken"
    _close(ann, bob)


def test_error_not_a_seat(server: str) -> None:
    ann, bob, _ = _party(server)
    bob.act("take_seat", seat="east")  # singles: south and north only
    assert bob.until("error")["code"] == "not_a_seat"
    _close(ann, bob)


def test_error_seats_empty(server: str) -> None:
    ann = _player(server)
    ann.create("party", "Ann", **SINGLES)
    ann.act("start")
    error = ann.until("error")
    assert error["code"] == "seats_empty" and "north" in error["message"]
    ann.close()


def test_error_in_game(server: str) -> None:
    ann, bob = _started(server)
    bob.act("take_seat", seat=None)
    assert bob.until("error")["code"] == "in_game"
    _close(ann, bob)


def test_error_not_your_seat_when_acting_for_anothers_seat(server: str) -> None:
    ann, bob = _started(server)
    bob.shoot("south")
    error = bob.until("error")
    assert error["code"] == "not_your_seat" and error["message"] == "south is not your seat"
    _close(ann, bob)


def test_error_not_your_turn(server: str) -> None:
    ann, bob = _started(server)
    bob.shoot("north")
    assert bob.until("error")["code"] == "not_your_turn"
    _close(ann, bob)


def test_error_illegal_placement(server: str) -> None:
    ann, bob = _started(server, required_contact=False)
    ann.shoot("south", power=8.0)  # stops just inside south's line (y ≈ -11)
    bob.until("shot")
    bob.shoot("north", power=0.0)
    shot = ann.until("shot", lambda m: m["seat"] == "north")
    free = shot["lobby"]["placement"]["south"]
    assert not any(lo <= 0.0 <= hi for lo, hi in free)  # R3: position 0 is blocked
    ann.shoot("south", position=0.0)
    assert ann.until("error")["code"] == "illegal_placement"
    _close(ann, bob)


def test_error_illegal_shot(server: str) -> None:
    ann, bob = _started(server)
    ann.shoot("south", power=150.0)
    assert ann.until("error")["code"] == "illegal_shot"
    _close(ann, bob)


def test_error_illegal_action(server: str) -> None:
    ann, bob = _started(server)
    ann.act("next_round")  # no round result to leave
    assert ann.until("error")["code"] == "illegal_action"
    _close(ann, bob)


def test_error_game_over(server: str) -> None:
    me = _player(server)
    me.create("solo", "Ann", seats={"south": "me", "north": "me"}, layout="singles", rounds=1)
    turn = "south"
    for _ in range(16):
        me.shoot(turn, power=0.0)
        turn = me.until("shot")["game"]["current_seat"] or turn
    me.until("finished")
    me.shoot("south")
    assert me.until("error")["code"] == "game_over"
    me.close()


def test_error_bad_settings(server: str) -> None:
    p = _player(server)
    error = p.error(
        {"type": "create", "kind": "party", "settings": {"layout": "singles", "discs": 7},
         "name": "Ann"}
    )  # fmt: skip
    assert error["code"] == "bad_settings" and "7" in error["message"]


def test_error_bad_name(server: str) -> None:
    p = _player(server)
    error = p.error({"type": "create", "kind": "party", "settings": {}, "name": "   "})
    assert error["code"] == "bad_name"


def test_error_unknown_reaction(server: str) -> None:
    ann, bob, _ = _party(server)
    bob.act("react", reaction="boo")
    assert bob.until("error")["code"] == "unknown_reaction"
    _close(ann, bob)


def test_error_too_many_reactions(server: str) -> None:
    ann, bob, _ = _party(server)
    bob.act("react", reaction="thanks")
    bob.until("reaction")
    bob.act("react", reaction="thanks")  # within the 2 s gap
    assert bob.until("error")["code"] == "too_many_reactions"
    _close(ann, bob)


def test_error_spectator(server: str) -> None:
    ann, bob, view = _party(server)
    watcher = _player(server)
    watcher.join(view["code"], "Cleo", spectator=True)
    watcher.act("react", reaction="thanks")
    assert watcher.until("error")["code"] == "spectator"
    _close(ann, bob, watcher)


def test_error_closed(server: str) -> None:
    me = _player(server)
    me.create("solo", "Ann", seats={"south": "me", "north": "easy"})
    me.act("resign")
    finished = me.until("finished")
    assert finished["abandoned"]
    assert me.until("closed")["reason"] == "resigned"
    # Against the CPU, resigning counts as a loss (R: abandoned = loss).
    assert finished["record"]["easy"]["four_rounds"]["losses"] == 1
    error = me.error({"type": "rematch", "table": me.table})
    assert error["code"] == "closed"
    me.close()


def test_error_solo_table(server: str) -> None:
    me = _player(server)
    me.create("solo", "Ann", seats={"south": "me", "north": "easy"})
    me.act("remove", member="m1")
    assert me.until("error")["code"] == "solo_table"
    me.close()


# ---------------------------------------------------------------- HTTP


def test_invite_and_watch_links_serve_the_game_page(server: str) -> None:
    for path in ("/join/ABC234", "/watch/ABC234"):
        with urllib.request.urlopen(server + path) as answer:
            assert answer.status == 200 and b"<html" in answer.read().lower()


def test_a_tables_game_record_is_served(server: str) -> None:
    me = _player(server)
    me.create("solo", "Ann", seats={"south": "me", "north": "me"})
    me.shoot("south")
    me.until("shot")
    with urllib.request.urlopen(f"{server}/api/tables/{me.table}/record.json") as answer:
        record = json.loads(answer.read())
    assert record["rules"]["layout"] == "singles" and len(record["actions"]) == 1
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(f"{server}/api/tables/{secrets.token_hex(16)}/record.json")
    assert info.value.code == 404
    info.value.close()
    me.close()


# ---------------------------------------------------------------- restart


def test_a_party_goes_on_after_the_server_restarts_with_its_clocks(tmp_path: Path) -> None:
    db = tmp_path / "restart.db"
    settings = ServerSettings(warm_up=False, standin_grace=600.0, turn_grace=0.1, short_clocks=True)
    with serving(db, settings) as url:
        ann, bob = _started(url, turn_time=2)
        ann.shoot("south", power=0.0)
        shot = ann.until("shot")
        bob.until("shot")
        table = ann.table
        ann.close()
        bob.close()
    # Every event was stored before it was sent: a new server process has the
    # party, and re-arms north's turn clock, which runs out while nobody is there.
    with serving(db, settings) as url:
        back = _connect(url, bob.token)
        back.hello(table=table)
        view = back.until("table")["view"]
        if view["game"]["current_seat"] == "north":
            timeout = back.until("timeout")
            assert (timeout["seat"], timeout["reason"]) == ("north", "clock")  # R3
            game = timeout["game"]
        else:
            game = view["game"]
        assert game["sides"][1]["ditch"] == 1 and game["current_seat"] == "south"
        assert game["sides"][0] == shot["game"]["sides"][0]
        again = _connect(url, ann.token)
        again.hello(table=table)
        again.table = table
        assert again.until("table")["view"]["you"]["seats"] == ["south"]
        again.shoot("south", power=0.0)
        assert back.until("shot")["seat"] == "south"


def test_tabs_opening_a_table_together_after_a_restart_share_it(tmp_path: Path) -> None:
    # Several tabs of one device open a table that is not in memory (after a
    # restart) at once: it is loaded once, and every tab sees every event.
    db = tmp_path / "tabs.db"
    with serving(db) as url:
        me = _player(url)
        me.create("solo", "Ann", seats={"south": "me", "north": "me"}, **SINGLES)
        table = me.table
        me.close()
    with serving(db) as url:
        tabs = [_connect(url, me.token) for _ in range(6)]
        for tab in tabs:
            tab.send({"type": "hello", "token": me.token, "table": table, "last_event": None})
        for tab in tabs:
            tab.until("welcome")
            assert tab.until("table")["view"]["you"]["seats"] == ["south", "north"]
            tab.table = table
        tabs[0].shoot("south")
        shots = [tab.until("shot") for tab in tabs]
        assert {(s["seat"], s["event"]) for s in shots} == {("south", shots[0]["event"])}


# ---------------------------------------------------------------- host controls


def test_the_host_moves_a_player_changes_the_rules_and_removes_a_player(server: str) -> None:
    ann = _player(server)
    view = ann.create("party", "Ann", layout="doubles", rounds=1)["view"]
    assert [s["seat"] for s in view["seats"]] == ["south", "north", "west", "east"]
    bob = _player(server)
    bob.join(view["code"], "Bob")
    ann.act("move", member="m2", seat="east")
    moved = bob.until("seat", lambda m: m["seat"] == "east")
    assert moved["lobby"]["you"]["seats"] == ["east"]
    ann.act("settings", settings={"layout": "singles", "rounds": 1})
    changed = bob.until("settings")
    assert changed["settings"]["layout"] == "singles"
    # East is not a seat of singles: Bob stays, unseated (R2's layouts).
    assert changed["lobby"]["you"] == {"member": "m2", "seats": [], "spectator": False,
                                       "host": False}  # fmt: skip
    assert [s["seat"] for s in changed["lobby"]["seats"]] == ["south", "north"]
    bob.act("rename", name="Robert")
    renamed = ann.until("member", lambda m: m["change"] == "renamed")
    assert (renamed["member"], renamed["name"]) == ("m2", "Robert")
    ann.act("remove", member="m2")
    removed = bob.until("member", lambda m: m["change"] == "removed")
    assert removed["member"] == "m2" and removed["lobby"]["you"]["member"] is None
    # Removed, Bob's connection no longer follows the party.
    ann.act("set_cpu", seat="north", level="hard")
    ann.until("seat")
    assert [m for m in bob.quiet(0.3) if m["type"] == "seat"] == []


# ---------------------------------------------------------------- faults


@pytest.mark.skipif(on_postgres(), reason="breaks the SQLite file behind the server's back")
def test_error_server_error_when_the_store_fails_and_nothing_changes(tmp_path: Path) -> None:
    db = tmp_path / "broken.db"
    with serving(db, ServerSettings(warm_up=False)) as url:
        ann = _player(url)
        created = ann.create("party", "Ann", **SINGLES)
        # The database loses its event log behind the server's back.
        with contextlib.closing(sqlite3.connect(db)) as broken:
            broken.execute("ALTER TABLE table_events RENAME TO lost_events")
            broken.commit()
        ann.act("set_cpu", seat="north", level="easy")
        error = ann.until("error")
        assert error["code"] == "server_error" and "unchanged" in error["message"]
        assert error["event"] == created["event"]
        with contextlib.closing(sqlite3.connect(db)) as mended:
            mended.execute("ALTER TABLE lost_events RENAME TO table_events")
            mended.commit()
        ann.act("open")
        again = ann.until("table")
        assert again["view"]["seats"][1]["occupant"] is None  # the refused change is not there


@pytest.mark.skipif(
    on_redis(),
    reason="two servers on one Redis share the table, so neither writes it stale "
    "(tests/cluster: commands through two processes apply exactly once)",
)
def test_error_stale_when_another_server_wrote_the_table_meanwhile(tmp_path: Path) -> None:
    db = tmp_path / "two.db"
    settings = ServerSettings(warm_up=False)
    with serving(db, settings) as first, serving(db, settings) as second:
        ann = _player(first)
        ann.create("party", "Ann", **SINGLES)
        # The same device opens the party on another server process (no shared
        # hub, a misconfiguration): that process writes the table too.
        other = _connect(second, ann.token)
        other.hello(table=ann.table)
        other.until("table")
        ann.act("set_cpu", seat="north", level="easy")
        error = ann.until("error")
        assert error["code"] == "stale" and "try again" in error["message"]
        # Sent again, it is applied on the table as stored; the owner that
        # loaded it again marked Ann absent, and her connection, still here,
        # says so: she is connected.
        answer: dict[str, Any] = {}
        for _ in range(5):  # the other process may still be writing: try again
            ann.act("set_cpu", seat="north", level="easy")
            answer = ann.recv()
            while answer["type"] not in ("seat", "error"):
                answer = ann.recv()
            if answer["type"] == "seat":
                break
            assert answer["code"] == "stale"
        assert answer["lobby"]["seats"][1]["occupant"]["level"] == "easy"
        back = ann.until("presence", lambda m: m["connected"])
        assert (back["member"], back["connected"]) == ("m1", True)


def test_error_unavailable_when_the_database_cannot_be_reached_and_nothing_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "down.db"
    with serving(db, ServerSettings(warm_up=False)) as url:
        ann = _player(url)
        created = ann.create("party", "Ann", **SINGLES)

        # The database goes away: the server (in this process) fails to store
        # as it does when PostgreSQL cannot be reached.
        def down(*_: Any, **__: Any) -> None:
            raise StoreUnavailableError("the database cannot be reached (test)")

        monkeypatch.setattr(Store, "append_table_events", down)
        ann.act("set_cpu", seat="north", level="easy")
        error = ann.until("error")
        assert error["code"] == "unavailable"
        assert error["message"] == "the game service is reconnecting: try again in a moment"
        assert error["event"] == created["event"]
        # It is back: the refused change is not there, and sent again it is made.
        monkeypatch.undo()
        ann.act("open")
        assert ann.until("table")["view"]["seats"][1]["occupant"] is None
        ann.act("set_cpu", seat="north", level="easy")
        seat = ann.until("seat")
        assert seat["lobby"]["seats"][1]["occupant"]["level"] == "easy"


# ---------------------------------------------------------------- races


@pytest.mark.parametrize("first", ["shoot", "resign"])
def test_a_shot_racing_a_resign_from_another_tab_is_applied_before_it_or_refused(
    server: str, first: str
) -> None:
    one = _player(server)
    one.create("solo", "Ann", seats={"south": "me", "north": "me"}, **SINGLES)
    two = _connect(server, one.token)
    two.hello(table=one.table)
    two.until("table")
    two.table = one.table
    shoot = {"type": "shoot", "table": one.table, "seat": "south", "position": 0.0,
             "direction": 0.0, "power": 28.0}  # fmt: skip
    resign = {"type": "resign", "table": one.table}
    # Both leave at once, from two sockets; the table takes them one at a time.
    one.send(shoot if first == "shoot" else resign)
    two.send(resign if first == "shoot" else shoot)
    shooter = one if first == "shoot" else two
    seen = shooter.quiet(1.0)
    kinds = [m["type"] for m in seen]
    assert "finished" in kinds and "closed" in kinds
    ended = kinds.index("finished")
    assert "shot" not in kinds[ended:]  # nothing is played after the end
    refused = [m for m in seen if m["type"] == "error"]
    if "shot" in kinds:
        assert refused == []
    else:
        assert [m["code"] for m in refused] == ["closed"]


def test_the_device_record_route_lists_the_devices_open_tables(server: str) -> None:
    me = _player(server)
    me.create("solo", "Ann", seats={"south": "me", "north": "easy"})
    asked = urllib.request.Request(f"{server}/api/record", headers={"X-Device-Token": me.token})
    with urllib.request.urlopen(asked) as answer:
        body = json.loads(answer.read())
    assert body["tables"] == [me.table]
    assert body["record"]["easy"]["four_rounds"] == {"wins": 0, "draws": 0, "losses": 0}


# ---------------------------------------------------------------- shot reports


def _zone_of(disc: dict[str, Any], board: dict[str, Any]) -> int | None:
    """R6 from the snapshot's board: the zone a disc's rim lies in (lines count low)."""
    rim = (disc["x"] ** 2 + disc["y"] ** 2) ** 0.5 + board["disc_radius"]
    half = board["line_width"] / 2
    for radius, value in ((board["fifteen_radius"], 15), (board["ten_radius"], 10),
                          (board["shooting_line_radius"], 5)):  # fmt: skip
        if rim < radius - half:
            return value
    return None


def _check_report(before: dict[str, Any], shot: dict[str, Any]) -> None:
    """A shot's report agrees with the snapshots before and after it."""
    board = shot["game"]["board"]
    was = {d["id"]: d for d in before["discs"]}
    now = {d["id"]: d for d in shot["game"]["discs"]}
    for disc in shot["report"]["discs"]:
        old = was.get(disc["id"])
        assert disc["from_zone"] == (None if old is None else _zone_of(old, board))
        assert disc["shot"] == (old is None)
        if disc["result"] == "board":
            assert disc["zone"] == _zone_of(now[disc["id"]], board) and disc["reason"] is None
        else:
            assert disc["id"] not in now
            assert disc["zone"] == (20 if disc["result"] == "hole" else None)
    gone = [d for d in shot["report"]["discs"] if d["result"] == "ditch"]
    for side in (0, 1):
        added = shot["game"]["sides"][side]["ditch"] - before["sides"][side]["ditch"]
        assert added == sum(1 for d in gone if d["side"] == side)
    listed = {d["id"] for d in shot["report"]["discs"]}
    for disc_id, disc in now.items():  # an unlisted disc did not move
        if disc_id not in listed:
            assert (disc["x"], disc["y"]) == (was[disc_id]["x"], was[disc_id]["y"])


def test_shot_reports_say_what_happened_to_each_disc(server: str) -> None:
    # Structured facts (whose disc, from which zone, what became of it, why);
    # the client words them.
    me = _player(server)
    game = me.create("solo", "Ann", seats={"south": "me", "north": "me"})["view"]["game"]

    def play(seat: str, position: float, direction: float, power: float) -> dict[str, Any]:
        nonlocal game
        me.shoot(seat, position, direction, power)
        shot = me.until("shot")
        _check_report(game, shot)
        game = shot["game"]
        assert shot["report"]["seat"] == seat and shot["report"]["unplayed"] is False
        return shot["report"]  # type: ignore[no-any-return]

    def disc(id_: int, owner: str, **fields: Any) -> dict[str, Any]:
        side = 0 if owner == "south" else 1
        return {"id": id_, "owner": owner, "side": side, "shot": False, "from_zone": None,
                "result": "board", "zone": None, "reason": None, "cancelled_twenty": False,
                **fields}  # fmt: skip

    # An open 20 (R4 on an empty board: it reached the 15 circle).
    report = play("south", 0.0, 0.0, 30.0)
    assert (report["valid"], report["foul"], report["hit"]) == (True, None, [])
    assert report["discs"] == [disc(0, "south", shot=True, result="hole", zone=20)]
    report = play("north", 0.0, 4.0, 28.0)
    assert report["discs"] == [disc(1, "north", shot=True, zone=15)]
    # South knocks North's disc from the 15 into the ditch and stays in the 15.
    report = play("south", 0.0, -2.0, 50.0)
    assert report["valid"] and report["hit"] == [1]
    assert report["discs"] == [
        disc(2, "south", shot=True, zone=15),
        disc(1, "north", from_zone=15, result="ditch", reason="off_board"),
    ]
    # North misses South's disc: a foul (R4), the shot disc goes to the ditch.
    report = play("north", 40.0, 0.0, 20.0)
    assert (report["valid"], report["foul"], report["hit"]) == (False, "no_contact", [])
    assert report["discs"] == [disc(3, "north", shot=True, result="ditch", reason="foul")]


def test_a_seat_with_no_room_to_place_loses_its_disc_at_once(server: str) -> None:
    # R3: South lines its quarter with nine discs (each left just inside the
    # line); at its tenth turn no disc fits, and the table sends the disc to
    # the ditch unplayed right after North's shot, without waiting.
    me = _player(server)
    view = me.create(
        "solo", "Ann", seats={"south": "me", "north": "me"}, discs=12, required_contact=False
    )["view"]
    for k in range(-4, 5):
        for seat in ("south", "north"):
            me.shoot(seat, position=9.3 * k, power=7.0)
            shot = me.until("shot")
            assert shot["seat"] == seat
    # Both quarters are lined: each of the six discs left goes to the ditch
    # unplayed, one event each, in the same batch as North's last shot.
    assert shot["game"]["current_seat"] == "south"  # the shot's own snapshot
    timeouts = [me.until("timeout") for _ in range(6)]
    assert [t["seat"] for t in timeouts] == ["south", "north"] * 3
    assert {t["reason"] for t in timeouts} == {"no_room"}
    assert [t["event"] for t in timeouts] == list(range(shot["event"] + 1, shot["event"] + 7))
    # Each message has its own event's snapshot, not the batch's last one.
    assert [t["game"]["current_seat"] for t in timeouts] == ["north", "south"] * 2 + [
        "north", None]  # fmt: skip
    ditches = [t["game"]["sides"][0]["ditch"] + t["game"]["sides"][1]["ditch"] for t in timeouts]
    assert ditches == [k + 1 + ditches[0] - 1 for k in range(6)]
    report = timeouts[0]["report"]
    assert (report["unplayed"], report["foul"], report["valid"]) == (True, "timeout", False)
    assert report["discs"] == [
        {"id": 18, "owner": "south", "side": 0, "shot": True, "from_zone": None,
         "result": "ditch", "zone": None, "reason": "timeout", "cancelled_twenty": False}
    ]  # fmt: skip
    assert timeouts[-1]["game"]["phase"] == "round_over"
    assert view["game"]["sides"][0]["ditch"] == 0


def test_a_new_game_on_ones_own_abandons_the_unfinished_one_as_a_loss(server: str) -> None:
    me = _player(server)
    cy = _player(server)
    code = cy.create("party", "Cy", **SINGLES)["view"]["code"]
    party = me.join(code, "Ann")["table"]  # a party the device is in is left alone
    me.create("solo", "Ann", seats={"south": "me", "north": "hard"})
    first = me.table
    other_tab = _connect(server, me.token)
    other_tab.hello(first)
    other_tab.until("table")
    me.create("solo", "Ann", seats={"south": "me", "north": "easy"})
    assert me.table != first
    # The unfinished game's other tab is told it ended, abandoned, as a loss vs Hard.
    finished = other_tab.until("finished")
    assert finished["abandoned"]
    assert finished["record"]["hard"]["four_rounds"]["losses"] == 1
    asked = urllib.request.Request(f"{server}/api/record", headers={"X-Device-Token": me.token})
    with urllib.request.urlopen(asked) as answer:
        body = json.loads(answer.read())
    assert sorted(body["tables"]) == sorted([me.table, party])
