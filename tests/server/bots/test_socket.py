"""A bot on the game websocket of a real server: its token, scopes, revocation and limits."""

from __future__ import annotations

import pytest

from tests.server.bots.conftest import Bot, make_bot
from tests.support.server import Player

EXPERT_SOLO = {
    "kind": "solo",
    "name": "Bot",
    "settings": {},
    "seats": {"south": "me", "north": "cpu:expert"},
}


@pytest.mark.parametrize("in_hello", [False, True], ids=["bearer", "hello"])
def test_a_token_logs_the_bot_in_and_it_plays_as_its_account(server: str, in_hello: bool) -> None:
    token, client = make_bot(server, "walle")
    bot = Bot(server, token, in_hello=in_hello)
    welcome = bot.hello()
    assert welcome["protocol"] == 2
    bot.send(type="create", **EXPERT_SOLO)
    view = bot.until("table")["view"]
    assert view["you"]["seats"] == ["south"]
    south = next(s for s in view["seats"] if s["seat"] == "south")
    assert south["occupant"]["bot"] is True
    assert all(m["bot"] for m in view["members"])
    # A second socket of the same bot finds its table: the bot is its account, not a device.
    other = Bot(server, token)
    assert [t["table"] for t in other.hello()["tables"]] == [view["table"]]
    for one in (bot, other):
        one.close()
    client.close()


@pytest.mark.parametrize("in_hello", [False, True], ids=["bearer", "hello"])
def test_a_bad_token_is_closed_4401_with_a_reason(server: str, in_hello: bool) -> None:
    bot = Bot(server, "crk_" + "x" * 43, in_hello=in_hello)
    if in_hello:
        bot.send(type="hello", api_token=bot.token)
    code, reason = bot.closed()
    assert code == 4401 and reason is not None and "not valid" in reason
    basic = Bot(server, None)
    basic.ws.close()
    basic = Bot(server, None, headers={"Authorization": "Basic dXNlcjpwdw=="})
    code, reason = basic.closed()
    assert code == 4401 and reason is not None and "Bearer" in reason


def test_a_hello_without_a_device_token_or_api_token_is_refused(server: str) -> None:
    guest = Bot(server, None)
    guest.send(type="hello")
    error = guest.until("error")
    assert error["code"] == "bad_message" and "token" in error["message"]
    guest.close()


def test_each_scope_is_refused_without_it(server: str) -> None:
    token, client = make_bot(server, "eve1", ("challenge",))
    bot = Bot(server, token)
    bot.hello()
    bot.send(type="create", **EXPERT_SOLO)
    refused = bot.until("error")
    assert refused["code"] == "scope" and "'play'" in refused["message"]
    assert refused["message"].startswith("this token may not open tables")
    bot.send(type="queue", ladder="bots")
    refused = bot.until("error")
    assert refused["code"] == "scope" and "'ladder'" in refused["message"]
    bot.close()
    client.close()
    token, client = make_bot(server, "eve2", ("play",))
    bot = Bot(server, token)
    bot.hello()
    bot.send(type="challenge", opponent="eve1", settings={})
    refused = bot.until("error")
    assert refused["code"] == "scope" and "'challenge'" in refused["message"]
    bot.send(type="challenge_answer", id="a" * 32, accept=True)
    assert bot.until("error")["code"] == "scope"
    bot.send(type="ping")  # no scope needed
    assert bot.until("pong")["type"] == "pong"
    bot.close()
    client.close()


def test_revoking_a_token_closes_its_sockets_and_it_logs_in_no_more(server: str) -> None:
    token, client = make_bot(server, "hal9000")
    bot = Bot(server, token)
    bot.hello()
    token_id = client.get("/api/account/tokens").json()["tokens"][0]["id"]
    assert client.delete(f"/api/account/tokens/{token_id}").status_code == 200
    code, reason = bot.closed()
    assert code == 4401 and reason == "this API token was revoked"
    again = Bot(server, token)
    code, _ = again.closed()
    assert code == 4401
    client.close()


def test_a_token_has_two_sockets_at_most(server: str) -> None:
    token, client = make_bot(server, "dalek")
    first, second = Bot(server, token), Bot(server, token)
    first.hello()
    second.hello()
    third = Bot(server, token)
    code, reason = third.closed()
    assert code == 4429 and reason is not None and "2 sockets" in reason
    first.close()
    # One closed: a socket of the token is let in again (the server counts it out
    # as the close is handled; a few tries wait for that without a clock).
    for _ in range(50):
        fourth = Bot(server, token)
        fourth.send(type="hello")
        reply = fourth.recv()
        if reply["type"] == "welcome":
            break
    else:
        raise AssertionError("the token's socket was not let in again")
    for one in (second, fourth):
        one.close()
    client.close()


def test_a_bot_plays_four_games_at_once_at_most(server: str) -> None:
    token, client = make_bot(server, "bender")
    bot = Bot(server, token)
    bot.hello()
    tables = []
    for _ in range(4):
        bot.send(type="create", **EXPERT_SOLO)
        tables.append(bot.until("table")["view"]["table"])
    assert len(set(tables)) == 4  # a bot's solo games are not abandoned for a new one
    bot.send(type="create", **EXPERT_SOLO)
    refused = bot.until("error")
    assert refused["code"] == "too_many_games" and "4 games" in refused["message"]
    # One resigned (finished): a new one is let in.
    bot.send(type="resign", table=tables[0])
    bot.until("finished")
    bot.send(type="create", **EXPERT_SOLO)
    while (view := bot.until("table")["view"])["table"] in tables:
        pass  # (the tables opened again on the way)
    assert view["stage"] == "playing"
    bot.close()
    client.close()


def test_a_token_is_held_to_its_rate_and_its_socket_stays_open(server: str) -> None:
    token, client = make_bot(server, "robby")
    bot = Bot(server, token)
    bot.hello()
    for _ in range(80):  # at once: twice the burst of 40
        bot.send(type="ping")
    answers = [bot.recv() for _ in range(80)]
    limited = [a for a in answers if a["type"] == "error"]
    assert limited and all(a["code"] == "rate_limited" for a in limited)
    assert sum(a["type"] == "pong" for a in answers) >= 39  # the burst, but for the hello
    bot.send(type="ping")  # still open: answered (a pong, or limited while it refills)
    assert bot.recv()["type"] in ("pong", "error")
    bot.close()
    client.close()


def test_people_see_no_bot_mark_on_themselves(server: str) -> None:
    person = Player(server)
    person.hello()
    person.send({"type": "create", "kind": "party", "name": "Ann", "settings": {}})
    view = person.until("table")["view"]
    assert [m["bot"] for m in view["members"]] == [False]
    person.ws.close()
