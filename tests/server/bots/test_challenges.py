"""Challenges between people and bots, and the bots' ladder, over a real server."""

from __future__ import annotations

from typing import Any

import httpx

from tests.server.bots.conftest import Bot, Clock, make_bot, person

SCOPES = ("play", "challenge", "ladder")


def online_bot(url: str, name: str, scopes: tuple[str, ...] = SCOPES) -> tuple[Bot, Any]:
    token, client = make_bot(url, name, scopes)
    bot = Bot(url, token)
    bot.hello()
    return bot, client


def test_a_person_challenges_a_bot_it_accepts_and_both_sit_at_a_started_party(
    challenge_server: tuple[str, Clock],
) -> None:
    url, clock = challenge_server
    bot, client = online_bot(url, "marvin")
    ann = person(url, "ann")
    ann.send(type="challenge", opponent="Marvin", settings={"rounds": 1})
    sent = ann.until("challenge_sent")
    told = bot.until("challenge")
    assert told["id"] == sent["id"]
    assert told["from"] == {"username": "ann", "bot": False}
    assert told["settings"]["rounds"] == 1
    assert told["expires"] == sent["expires"] == clock.now + 60.0
    bot.send(type="challenge_answer", id=told["id"], accept=True)
    views = [bot.until("table")["view"], ann.until("table")["view"]]
    assert views[0]["table"] == views[1]["table"] and views[0]["kind"] == "party"
    assert views[1]["you"]["seats"] == ["south"] and views[0]["you"]["seats"] == ["north"]
    seats = {s["seat"]: s["occupant"] for s in views[0]["seats"]}
    assert (seats["south"]["name"], seats["south"]["bot"]) == ("ann", False)
    assert (seats["north"]["name"], seats["north"]["bot"]) == ("marvin", True)
    assert views[0]["stage"] == "playing" and views[0]["game"]["current_seat"] is not None
    # Answered once: a second answer finds nothing.
    bot.send(type="challenge_answer", id=told["id"], accept=True)
    assert bot.until("error")["code"] == "unknown_challenge"
    for one in (bot, ann):
        one.close()
    client.close()


def test_a_declined_an_expired_and_a_cancelled_challenge_tell_the_sender(
    challenge_server: tuple[str, Clock],
) -> None:
    url, clock = challenge_server
    bot, client = online_bot(url, "gort")
    other, other_client = online_bot(url, "robo")
    other.send(type="challenge", opponent="gort")  # a bot challenges a bot
    first = other.until("challenge_sent")["id"]
    assert bot.until("challenge")["from"] == {"username": "robo", "bot": True}
    bot.send(type="challenge_answer", id=first, accept=False)
    declined = other.until("challenge_declined")
    assert (declined["id"], declined["reason"]) == (first, "declined")
    other.send(type="challenge", opponent="gort")
    second = other.until("challenge_sent")["id"]
    bot.until("challenge")
    clock.now += 61.0  # past its 60 s
    expired = other.until("challenge_declined")
    assert (expired["id"], expired["reason"]) == (second, "expired")
    bot.send(type="challenge_answer", id=second, accept=True)
    assert bot.until("error")["code"] == "unknown_challenge"
    other.send(type="challenge", opponent="gort")
    third = other.until("challenge_sent")["id"]
    bot.until("challenge")
    other.send(type="challenge_cancel", id=third)
    assert other.until("challenge_declined")["reason"] == "cancelled"
    assert bot.until("challenge_declined") == {**bot_said(third), "reason": "cancelled"}
    bot.send(type="challenge_answer", id=third, accept=True)
    assert bot.until("error")["code"] == "unknown_challenge"
    for one in (bot, other):
        one.close()
    client.close()
    other_client.close()


def bot_said(challenge_id: str) -> dict[str, Any]:
    return {"type": "challenge_declined", "table": None, "event": 0, "id": challenge_id}


def test_a_challenge_is_refused_to_guests_and_for_people_or_absent_bots(
    challenge_server: tuple[str, Clock],
) -> None:
    url, _ = challenge_server
    guest = Bot(url, None)
    guest.send(type="hello", token="guest-device-token-1")
    guest.until("welcome")
    guest.send(type="challenge", opponent="nobody")
    assert guest.until("error")["code"] == "not_logged_in"
    ann = person(url, "ann")
    bob = person(url, "bob")
    for opponent, why in (("bob", "not a bot"), ("zed", "no player"), ("ann", "not a bot")):
        ann.send(type="challenge", opponent=opponent)
        refused = ann.until("error")
        assert refused["code"] == "bad_opponent" and why in refused["message"], refused
    _, client = make_bot(url, "sleepy")  # no socket open
    ann.send(type="challenge", opponent="sleepy")
    refused = ann.until("error")
    assert refused["code"] == "bad_opponent" and "not online" in refused["message"]
    bot, bot_client = online_bot(url, "awake")
    ann.send(type="challenge", opponent="awake", settings={"layout": "doubles"})
    assert ann.until("error")["code"] == "bad_settings"
    ann.send(type="challenge", opponent="awake", settings={"rounds": 9})
    assert ann.until("error")["code"] == "bad_settings"
    for one in (guest, ann, bob, bot):
        one.close()
    client.close()
    bot_client.close()


def play_ranked(bots: dict[str, Bot], view: dict[str, Any]) -> dict[str, Any]:
    """Shoot for whoever's turn it is until ``finished``; the watcher's ``finished``."""
    watcher = next(iter(bots.values()))
    game, placement, shot_for = view["game"], view["placement"], None
    while True:
        seat = game["current_seat"]
        turn = (game["round"], tuple(s["in_hand"] for s in game["seats"]))
        if game["phase"] == "playing" and seat in placement and turn != shot_for:
            lo, hi = placement[seat][0]
            bots[seat].send(type="shoot", table=view["table"], seat=seat,
                            position=(lo + hi) / 2, direction=0.0, power=26.0)  # fmt: skip
            shot_for = turn
        msg = watcher.recv(60)
        if msg["type"] == "error":
            raise AssertionError(msg)
        if msg["type"] == "finished":
            return msg
        game = msg.get("game") or game
        placement = msg.get("lobby", {}).get("placement", placement)


def test_two_bots_on_the_bots_ladder_are_rated_apart_from_people(
    challenge_server: tuple[str, Clock],
) -> None:
    url, _ = challenge_server
    first, first_client = online_bot(url, "deep_blue")
    second, second_client = online_bot(url, "alpha_go")
    first.send(type="queue", ladder="singles")
    refused = first.until("error")
    assert refused["code"] == "bad_ladder" and "bots ladder" in refused["message"]
    ann = person(url, "ann")
    ann.send(type="queue", ladder="bots")
    assert ann.until("error")["code"] == "bad_ladder"
    for bot in (first, second):
        bot.send(type="queue", ladder="bots")
        assert bot.until("queued")["ladder"] == "bots"
    matched = [bot.until("matched", timeout=30) for bot in (first, second)]
    assert matched[0]["table"] == matched[1]["table"] and matched[0]["ladder"] == "bots"
    assert {p["username"]: p["bot"] for p in matched[0]["players"]} == {
        "deep_blue": True,
        "alpha_go": True,
    }
    by_seat = {}
    for bot, msg in zip((first, second), matched, strict=True):
        bot.send(type="open", table=msg["table"])
        view = bot.until("table")["view"]
        by_seat[msg["seat"]] = bot
    finished = play_ranked(by_seat, view)
    ratings = {r["username"]: r for r in finished["ratings"]}
    assert set(ratings) == {"deep_blue", "alpha_go"}
    assert {r["ladder"] for r in ratings.values()} == {"bots"}
    with httpx.Client(base_url=url, timeout=30) as plain:
        board = plain.get("/api/leaderboard", params={"ladder": "bots", "min_games": "0"}).json()
        people = plain.get("/api/leaderboard", params={"ladder": "singles", "min_games": "0"})
        listed = {b["username"]: b for b in plain.get("/api/bots").json()["bots"]}
    assert {p["username"] for p in board["players"]} == {"deep_blue", "alpha_go"}
    assert all(p["bot"] and p["games"] == 1 for p in board["players"])
    assert people.json()["players"] == []
    assert listed["deep_blue"]["games"] == 1 and listed["deep_blue"]["online"] is True
    for one in (first, second, ann):
        one.close()
    first_client.close()
    second_client.close()
