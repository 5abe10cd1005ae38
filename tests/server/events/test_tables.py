"""An online event over a real server: accounts, the events' HTTP routes, the game websocket.

Issue 23, "Play": for online players each pairing is a table created for them
at the round's start, with the event's clock (and the abort on no-show of
ranked play); their results enter the event by themselves.  Here an organiser
runs a 2-round online Swiss of 4 through the HTTP routes of docs/events.md;
the players open their tables by the game websocket (as ranked players do)
and play them out, resign, or never come.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from crokinole.server.limits import ServerSettings
from tests.server.bots.conftest import Bot
from tests.server.ranked.test_ranked_protocol import PASSWORD as RANKED_PASSWORD
from tests.server.ranked.test_ranked_protocol import Ranked, open_table, play_to_the_end, sign_up
from tests.support.server import Player, serving

#: The event's rules: one round a game, so that a played game is short (R2: 1-4 rounds).
QUICK = {"rounds": 1}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    """A real server with a short turn grace (the no-show's clock is 30 s + the grace)."""
    settings = ServerSettings(warm_up=False, signups_per_hour=1000, turn_grace=0.5)
    with serving(tmp_path / "crokinole.db", settings) as url:
        yield url


class Account:
    """A signed-up account: its HTTP client (session cookie) and its game socket."""

    def __init__(self, url: str, username: str) -> None:
        self.username = username
        self.cookie = sign_up(url, username)
        self.web = httpx.Client(
            base_url=url, timeout=30, cookies={"crokinole_session": self.cookie}
        )
        self.url = url
        self.socket: Ranked | None = None

    def post(self, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        answer = self.web.post(path, json=body or {})
        assert answer.status_code in (200, 201), answer.text
        data: dict[str, Any] = answer.json()
        return data

    def connect(self) -> Ranked:
        if self.socket is None:
            self.socket = Ranked(self.url, self.cookie)
            self.socket.hello()
        return self.socket

    def close(self) -> None:
        self.web.close()
        if self.socket is not None:
            self.socket.close()


def view_of(account: Account, event_id: str) -> dict[str, Any]:
    answer = account.web.get(f"/api/events/{event_id}")
    assert answer.status_code == 200, answer.text
    data: dict[str, Any] = answer.json()
    return data


def until(
    account: Account, event_id: str, ready: Callable[[dict[str, Any]], bool], what: str
) -> dict[str, Any]:
    """The event's view once ``ready`` says so (the tables and results come by themselves)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        view = view_of(account, event_id)
        if ready(view):
            return view
        time.sleep(0.05)
    raise AssertionError(f"{what}: not within a minute")


def with_tables(number: int) -> Callable[[dict[str, Any]], bool]:
    def ready(view: dict[str, Any]) -> bool:
        pairings = view["rounds"][number - 1]["pairings"]
        return all(p["bye"] or p["tables"] for p in pairings)

    return ready


def round_over(number: int) -> Callable[[dict[str, Any]], bool]:
    return lambda view: bool(view["rounds"][number - 1]["over"])


def online_event(
    url: str, names: list[str], **settings: Any
) -> tuple[Account, dict[str, Account], str]:
    """The organiser makes an online event; ``names`` sign up, join and check in.  The
    organiser, the players by entrant id, and the event's id."""
    organiser = Account(url, "org")
    body = {"name": "Tuesday league", "venue": "online", "rules": QUICK, "turn_seconds": 30}
    created = organiser.post("/api/events", {"settings": {**body, **settings}})
    event_id = str(created["id"])
    players = {}
    for name in names:
        player = Account(url, name)
        joined = player.post(f"/api/events/{event_id}/join", {"name": name})
        entrant = joined["you"]["entrant"]
        player.post(f"/api/events/{event_id}/entrants/{entrant}/check-in")
        players[entrant] = player
    return organiser, players, event_id


def seated(players: dict[str, Account], pairing: dict[str, Any], table_id: str) -> dict[str, Any]:
    """The pairing's players open their table; who sits where (seat → player), and the view."""
    by_seat: dict[str, Ranked] = {}
    view: dict[str, Any] = {}
    for side in pairing["sides"]:
        for entrant in side:
            socket = players[entrant].connect()
            socket.table = table_id
            view = open_table(socket)["view"]
            (seat,) = view["you"]["seats"]
            by_seat[seat] = socket
    return {"by_seat": by_seat, "view": view}


def names_at(view: dict[str, Any]) -> dict[str, str]:
    return {s["seat"]: s["username"] for s in view["seats"]}


def test_an_online_swiss_of_four_plays_its_rounds_at_tables_made_for_it(server: str) -> None:
    """Round 1: each pairing gets a table when the round starts, seated by the pairing
    (the side that shoots first at south), labelled with the event, round and table, at
    the event's clock; one is played out and in the other a player resigns.  Each result
    enters the event by itself, confirmed; the standings are what the games gave (a win
    2 match points, a draw 1; a resignation loses by forfeit)."""
    names = ["ann", "bob", "cat", "dan"]
    organiser, players, event_id = online_event(server, names, format="swiss", rounds=2)
    entrant_name = {e: p.username for e, p in players.items()}
    try:
        organiser.post(f"/api/events/{event_id}/rounds")
        organiser.post(f"/api/events/{event_id}/rounds/1/start")
        view = until(organiser, event_id, with_tables(1), "round 1's tables")
        pairings = view["rounds"][0]["pairings"]
        assert len(pairings) == 2 and all(len(p["tables"]) == 1 for p in pairings)
        assert all(p["state"] == "playing" for p in pairings)
        expected: dict[str, float] = {}
        for pairing in pairings:
            (table_id,) = pairing["tables"]
            at_table = seated(players, pairing, table_id)
            table_view = at_table["view"]
            first = pairing["sides"][pairing["first"]][0]
            second = pairing["sides"][1 - pairing["first"]][0]
            assert names_at(table_view) == {
                "south": entrant_name[first],
                "north": entrant_name[second],
            }
            assert table_view["event_link"]["label"] == (
                f"Tuesday league · Round 1 · Table {pairing['table']}"
            )
            assert table_view["event_link"]["page"] == f"/events/{event_id}"
            assert table_view["settings"]["turn_time"] == 30
            assert table_view["settings"]["rounds"] == 1 and table_view["ranked"]
            if pairing["table"] == 1:
                finished = play_to_the_end(at_table["by_seat"], table_view)
                winner = finished[0]["winner"]  # the table's side: 0 is south's
                for seat, entrant in (("south", first), ("north", second)):
                    side = 0 if seat == "south" else 1
                    expected[entrant] = 1.0 if winner is None else 2.0 if winner == side else 0.0
            else:
                at_table["by_seat"]["north"].act("resign")
                at_table["by_seat"]["south"].until("finished")
                expected[first], expected[second] = 2.0, 0.0
        view = until(organiser, event_id, round_over(1), "round 1's results")
        for pairing in view["rounds"][0]["pairings"]:
            assert pairing["state"] == "confirmed" and pairing["result"] is not None
        resigned = view["rounds"][0]["pairings"][1]
        assert resigned["result"]["games"][0]["forfeit"] == 1 - resigned["first"]
        standings = {s["id"]: s for s in view["standings"]}
        assert {e: s["values"]["match_points"] for e, s in standings.items()} == expected
        assert all(s["played"] == 1 for s in standings.values())
        # Round 2: paired by the results, no rematch, its tables made at its start.
        organiser.post(f"/api/events/{event_id}/rounds")
        organiser.post(f"/api/events/{event_id}/rounds/2/start")
        view = until(organiser, event_id, with_tables(2), "round 2's tables")
        met = {frozenset(p["sides"][0] + p["sides"][1]) for p in view["rounds"][0]["pairings"]}
        again = {frozenset(p["sides"][0] + p["sides"][1]) for p in view["rounds"][1]["pairings"]}
        assert not met & again
        assert len({t for p in view["rounds"][1]["pairings"] for t in p["tables"]}) == 2
        for pairing in view["rounds"][1]["pairings"]:
            at_table = seated(players, pairing, pairing["tables"][0])
            at_table["by_seat"]["south"].act("resign")
            at_table["by_seat"]["north"].until("finished")
        view = until(organiser, event_id, round_over(2), "round 2's results")
        assert view["status"] == "finished"  # both rounds played: the event is over
    finally:
        for account in (organiser, *players.values()):
            account.close()


@pytest.mark.slow
def test_a_player_who_never_comes_forfeits_their_game(server: str) -> None:
    """Ranked play's abort on no-show: nobody opens the table; at the opener's first
    turn's clock (30 s + the grace) the game is aborted, and the opener loses by forfeit."""
    organiser, players, event_id = online_event(server, ["ann", "bob"], format="swiss", rounds=1)
    try:
        organiser.post(f"/api/events/{event_id}/rounds")
        organiser.post(f"/api/events/{event_id}/rounds/1/start")
        view = until(organiser, event_id, with_tables(1), "the table")
        pairing = view["rounds"][0]["pairings"][0]
        view = until(organiser, event_id, round_over(1), "the no-show's forfeit")
        (game,) = view["rounds"][0]["pairings"][0]["result"]["games"]
        assert game == {"rounds": [], "forfeit": pairing["first"]}
        (winner,) = pairing["sides"][1 - pairing["first"]]
        top = view["standings"][0]
        assert (top["id"], top["wins"], top["values"]["match_points"]) == (winner, 1, 2)
    finally:
        for account in (organiser, *players.values()):
            account.close()


def test_a_best_of_three_final_opens_game_two_with_the_other_side_first(server: str) -> None:
    """Issue 23: playoff matches are best of 3.  A final of two: game 1's table opens with
    the pairing's first side at south; the other side resigns it, the match is not
    decided, so game 2's table opens with the other side at south (the opener
    alternates); the other side resigns again, and the match is decided 2-0: reported
    once, with both games, and no third table."""
    organiser, players, event_id = online_event(
        server, ["ann", "bob"], format="elimination", best_of=3,
        rules={"rounds": 1, "tie": "extra_rounds"},
    )  # fmt: skip
    entrant_name = {e: p.username for e, p in players.items()}
    try:
        organiser.post(f"/api/events/{event_id}/rounds")
        organiser.post(f"/api/events/{event_id}/rounds/1/start")
        view = until(organiser, event_id, with_tables(1), "game 1's table")
        pairing = view["rounds"][0]["pairings"][0]
        assert pairing["best_of"] == 3
        first = pairing["sides"][pairing["first"]][0]
        other = pairing["sides"][1 - pairing["first"]][0]
        game1 = seated(players, pairing, pairing["tables"][0])
        assert names_at(game1["view"])["south"] == entrant_name[first]
        assert game1["view"]["event_link"]["label"].endswith("Table 1 · Game 1 of 3")
        game1["by_seat"]["north"].act("resign")  # the other side loses game 1
        view = until(
            organiser,
            event_id,
            lambda v: len(v["rounds"][0]["pairings"][0]["tables"]) == 2,
            "game 2's table",
        )
        assert view["rounds"][0]["pairings"][0]["result"] is None  # not decided yet
        game2 = seated(players, pairing, view["rounds"][0]["pairings"][0]["tables"][1])
        assert names_at(game2["view"])["south"] == entrant_name[other]
        assert game2["view"]["event_link"]["label"].endswith("Game 2 of 3")
        game2["by_seat"]["south"].act("resign")  # the other side loses game 2 too
        view = until(organiser, event_id, round_over(1), "the match's result")
        decided = view["rounds"][0]["pairings"][0]
        assert decided["state"] == "confirmed"
        other_side = 1 - pairing["first"]
        assert [g["forfeit"] for g in decided["result"]["games"]] == [other_side, other_side]
        assert decided["winner"] == pairing["first"]  # the side that won
        assert len(decided["tables"]) == 2  # no third game
    finally:
        for account in (organiser, *players.values()):
            account.close()


def test_anyone_can_watch_an_event_game_live(server: str) -> None:
    """Issue 23, "Watch": live tables, spectate any online game.  The table's view gives
    its spectators' link (``watch``; no invite: nobody else can play there); a guest joins
    by its code as a spectator, sees the shots as they are played, and leaving ends
    nothing; the players' game goes on to its result."""
    organiser, players, event_id = online_event(server, ["ann", "bob"], format="swiss", rounds=1)
    guest = Player(server)
    try:
        organiser.post(f"/api/events/{event_id}/rounds")
        organiser.post(f"/api/events/{event_id}/rounds/1/start")
        view = until(organiser, event_id, with_tables(1), "the table")
        pairing = view["rounds"][0]["pairings"][0]
        at_table = seated(players, pairing, pairing["tables"][0])
        table_view = at_table["view"]
        assert table_view["invite"] is None and table_view["watch"].startswith("/watch/")
        code = table_view["watch"].removeprefix("/watch/")
        guest.hello()
        watching = guest.join(code, name="Eve", spectator=True)["view"]
        assert watching["you"]["spectator"] is True and watching["you"]["seats"] == []
        assert watching["event_link"] == table_view["event_link"]
        south = at_table["by_seat"]["south"]
        lo, hi = watching["placement"]["south"][0]
        south.shoot("south", position=(lo + hi) / 2, direction=0.0, power=26.0)
        assert guest.until("shot")["seat"] == "south"
        guest.act("leave")
        gone = south.until("member", lambda m: m["change"] == "left")
        assert gone["member"] == watching["you"]["member"]
        at_table["by_seat"]["north"].act("resign")
        south.until("finished")
        view = until(organiser, event_id, round_over(1), "the result")
        assert (
            view["rounds"][0]["pairings"][0]["result"]["games"][0]["forfeit"]
            == 1 - (pairing["first"])
        )
    finally:
        guest.close()
        for account in (organiser, *players.values()):
            account.close()


def test_opening_an_event_table_by_its_id_watches_it(server: str) -> None:
    """The event page links every live table by its id (``/?table=<id>``): anyone but its
    players who opens it there watches it, as a spectator named after their account (a
    guest: "Spectator"); its players open it as players."""
    organiser, players, event_id = online_event(server, ["ann", "bob"], format="swiss", rounds=1)
    guest = Player(server)
    try:
        organiser.post(f"/api/events/{event_id}/rounds")
        organiser.post(f"/api/events/{event_id}/rounds/1/start")
        view = until(organiser, event_id, with_tables(1), "the table")
        pairing = view["rounds"][0]["pairings"][0]
        (table_id,) = pairing["tables"]
        guest.hello()
        guest.table = table_id
        seen = open_table(guest)["view"]
        assert seen["you"]["spectator"] is True and seen["spectators"] == 1
        watcher = organiser.connect()
        watcher.table = table_id
        seen = open_table(watcher)["view"]
        assert seen["you"]["spectator"] is True and seen["spectators"] == 2
        names = {m["name"] for m in seen["members"] if m["spectator"]}
        assert names == {"Spectator", "org"}
        at_table = seated(players, pairing, table_id)
        assert at_table["view"]["you"]["spectator"] is False
        assert sorted(at_table["by_seat"]) == ["north", "south"]
    finally:
        guest.close()
        for account in (organiser, *players.values()):
            account.close()


def test_a_bot_in_an_online_event_is_told_its_table_and_plays_it(server: str) -> None:
    """Issue 24: a bot plays like a person; a person sees the event's page, a program has
    only its socket, so each new table of a bot entrant's is sent to the bot's sockets as
    ``event_table`` (docs/bots.md) and the bot opens it there."""
    organiser, players, event_id = online_event(
        server, ["ann"], format="swiss", rounds=1, rated=True
    )
    robo = Account(server, "robo")
    bot: Bot | None = None
    try:
        made = robo.web.post("/api/account/bot", json={"password": RANKED_PASSWORD})
        assert made.status_code == 200 and made.json()["bot"] is True, made.text
        token = robo.post("/api/account/tokens", {"name": "event", "scopes": ["play"]})["token"]
        joined = robo.post(f"/api/events/{event_id}/join", {"name": "Robo"})
        entrant = joined["you"]["entrant"]
        robo.post(f"/api/events/{event_id}/entrants/{entrant}/check-in")
        assert {e["name"]: e["bot"] for e in view_of(organiser, event_id)["entrants"]} == {
            "ann": False, "Robo": True,
        }  # fmt: skip
        bot = Bot(server, token)
        bot.hello()
        ann = next(iter(players.values())).connect()  # a person's socket, open meanwhile
        organiser.post(f"/api/events/{event_id}/rounds")
        organiser.post(f"/api/events/{event_id}/rounds/1/start")
        told = bot.until("event_table")
        (pairing,) = until(organiser, event_id, with_tables(1), "round 1's table")["rounds"][0][
            "pairings"
        ]
        assert [told["table"]] == pairing["tables"]
        assert {k: told[k] for k in ("event", "name", "stage", "round", "board", "game")} == {
            "event": event_id, "name": "Tuesday league", "stage": "Round 1", "round": 1,
            "board": pairing["table"], "game": 1,
        }  # fmt: skip
        bot.send(type="open", table=told["table"], last_event=None)
        view = bot.until("table")["view"]
        (seat,) = view["you"]["seats"]
        mine = next(s for s in view["seats"] if s["seat"] == seat)
        assert mine["username"] == "Robo" and mine["occupant"]["bot"] is True  # its entry name
        # The person is told nothing on the socket (the event's page shows the table).
        ann.send({"type": "ping"})
        heard = [ann.recv()]
        while heard[-1]["type"] != "pong":
            heard.append(ann.recv())
        assert "event_table" not in [m["type"] for m in heard]
        bot.send(type="resign", table=told["table"])
        bot.until("finished")
        view = until(organiser, event_id, round_over(1), "round 1's result")
        assert view["rounds"][0]["pairings"][0]["state"] == "confirmed"
        # A rated event, but a bot against a person counts on no ladder: nobody's rating
        # moved, neither on people's singles ladder nor on the bots'.
        for username, ladder in (("ann", "singles"), ("robo", "bots")):
            profile = organiser.web.get(f"/api/players/{username}").json()
            assert profile["ladders"][ladder]["games"] == 0 and profile["games"] == []
    finally:
        if bot is not None:
            bot.close()
        for account in (organiser, robo, *players.values()):
            account.close()
