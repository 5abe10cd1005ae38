"""Bot accounts and API tokens through the HTTP API of a real server (SQLite)."""

from __future__ import annotations

import hashlib
import re
from datetime import datetime
from pathlib import Path

import httpx
import pytest

from crokinole.store import RatingChange, Store
from tests.server.bots.conftest import PASSWORD, make_bot, sign_up, web
from tests.support.server_database import server_database

TOKEN = re.compile(r"^crk_[A-Za-z0-9_-]{43}$")


def test_an_account_becomes_a_bot_with_its_password_typed_again(server: str) -> None:
    with web(server) as client:
        sign_up(client, "r2d2")
        assert client.get("/api/account").json()["bot"] is False
        wrong = client.post("/api/account/bot", json={"password": "not the password"})
        assert (wrong.status_code, wrong.json()["code"]) == (403, "bad_password")
        assert client.get("/api/account").json()["bot"] is False
        made = client.post("/api/account/bot", json={"password": PASSWORD})
        assert made.status_code == 200
        assert made.json()["username"] == "r2d2" and made.json()["bot"] is True
        assert made.headers["cache-control"] == "no-store"
        assert client.get("/api/account").json()["bot"] is True
        # Again: harmless (a bot stays a bot; nothing unsets it).
        assert client.post("/api/account/bot", json={"password": PASSWORD}).json()["bot"] is True


def test_making_a_bot_needs_a_login_json_and_the_sites_own_origin(server: str) -> None:
    with httpx.Client(base_url=server, timeout=30) as guest:
        answer = guest.post(
            "/api/account/bot", json={"password": PASSWORD}, headers={"Origin": server}
        )
        assert (answer.status_code, answer.json()["code"]) == (401, "not_logged_in")
    with web(server) as client:
        sign_up(client, "r3po")
        other = client.post(
            "/api/account/bot",
            json={"password": PASSWORD},
            headers={"Origin": "https://evil.example"},
        )
        assert (other.status_code, other.json()["code"]) == (403, "bad_origin")
        text = client.post(
            "/api/account/bot",
            content=b'{"password": "x"}',
            headers={"Content-Type": "text/plain"},
        )
        assert text.status_code == 415
        extra = client.post("/api/account/bot", json={"password": PASSWORD, "admin": True})
        assert extra.status_code == 400 and "admin" in extra.json()["message"]
        missing = client.post("/api/account/bot", json={})
        assert missing.status_code == 400 and "password" in missing.json()["message"]
        assert client.get("/api/account").json()["bot"] is False


def test_an_account_with_rated_games_as_a_person_cannot_become_a_bot(
    server: str, tmp_path: Path
) -> None:
    with web(server) as client:
        sign_up(client, "ann")
        with web(server) as bob_web:
            sign_up(bob_web, "bob")
        store = Store.open(server_database(tmp_path / "crokinole.db"))
        try:
            ann, bob = store.account_by_key("ann"), store.account_by_key("bob")
            assert ann is not None and bob is not None
            store.create_table(
                "a" * 32, kind="ranked", code=None, events=[{"type": "created", "version": 1}],
                snapshot={}, members=[], deadline=None, status="playing",
            )  # fmt: skip
            changes = [
                RatingChange(
                    account_id=who,
                    ladder="singles",
                    game_number=1,
                    side=side,
                    mu_before=25.0,
                    sigma_before=8.0,
                    mu_after=26.0,
                    sigma_after=7.0,
                    rating_before=1000,
                    rating_after=1100,
                    outcome="win" if side == 0 else "loss",
                )
                for side, who in ((0, ann.id), (1, bob.id))
            ]
            store.append_table_events(
                "a" * 32, 1, [{"type": "x", "version": 2}], {}, deadline=None,
                status="finished", rating_changes=changes, now=datetime(2026, 1, 1),
            )  # fmt: skip
        finally:
            store.close()
        refused = client.post("/api/account/bot", json={"password": PASSWORD})
        assert (refused.status_code, refused.json()["code"]) == (409, "has_games")
        assert "1 rated game" in refused.json()["message"]
        assert client.get("/api/account").json()["bot"] is False


def test_tokens_are_shown_once_listed_without_their_text_and_revoked(
    server: str, tmp_path: Path
) -> None:
    token, client = make_bot(server, "c3po", ("play", "ladder"))
    assert TOKEN.fullmatch(token)
    made = client.post("/api/account/tokens", json={"name": "laptop", "scopes": ["challenge"]})
    assert made.status_code == 201
    shown = made.json()
    assert set(shown) == {"id", "name", "scopes", "created", "last_used", "revoked", "token"}
    assert (shown["name"], shown["scopes"], shown["last_used"], shown["revoked"]) == (
        "laptop", ["challenge"], None, None,
    )  # fmt: skip
    assert TOKEN.fullmatch(shown["token"]) and shown["token"] != token
    listed = client.get("/api/account/tokens")
    assert listed.headers["cache-control"] == "no-store"
    tokens = listed.json()["tokens"]
    assert [(t["name"], t["scopes"]) for t in tokens] == [
        ("test", ["play", "ladder"]),
        ("laptop", ["challenge"]),
    ]
    assert all("token" not in t for t in tokens)
    # The store keeps the SHA-256 only: the token's text is nowhere in the database.
    store = Store.open(server_database(tmp_path / "crokinole.db"))
    try:
        assert store.api_token_account(hashlib.sha256(token.encode()).hexdigest()) is not None
    finally:
        store.close()
    for path in tmp_path.glob("crokinole.db*"):
        assert token.encode() not in path.read_bytes()
    revoked = client.delete(f"/api/account/tokens/{shown['id']}")
    assert revoked.status_code == 200 and revoked.json() == {"revoked": shown["id"]}
    again = client.get("/api/account/tokens").json()["tokens"]
    assert again[1]["revoked"] is not None and again[0]["revoked"] is None
    assert client.delete("/api/account/tokens/999").json()["code"] == "not_found"
    assert client.delete("/api/account/tokens/abc").status_code == 400
    other = client.delete(
        f"/api/account/tokens/{shown['id']}", headers={"Origin": "https://evil.example"}
    )
    assert other.status_code == 403
    client.close()


@pytest.mark.parametrize(
    ("body", "why"),
    [
        ({"name": "", "scopes": ["play"]}, "name"),
        ({"name": "x" * 41, "scopes": ["play"]}, "name"),
        ({"name": "bad\nname", "scopes": ["play"]}, "name"),
        ({"name": "   ", "scopes": ["play"]}, "name"),
        ({"name": "ok", "scopes": []}, "scopes"),
        ({"name": "ok", "scopes": ["admin"]}, "scopes"),
        ({"name": "ok", "scopes": ["play", "play"]}, "scopes"),
        ({"name": "ok", "scopes": "play"}, "scopes"),
        ({"name": "ok"}, "scopes"),
        ({"name": "ok", "scopes": ["play"], "extra": 1}, "extra"),
    ],
)
def test_a_token_is_refused_a_bad_name_or_scopes(
    server: str, body: dict[str, object], why: str
) -> None:
    _, client = make_bot(server, "k9k9")
    answer = client.post("/api/account/tokens", json=body)
    assert answer.status_code == 400, answer.text
    assert answer.json()["code"] == "bad_request" and why in answer.json()["message"]
    assert len(client.get("/api/account/tokens").json()["tokens"]) == 1  # the fixture's only
    client.close()


def test_only_a_bot_account_has_tokens(server: str) -> None:
    with web(server) as client:
        sign_up(client, "person")
        made = client.post("/api/account/tokens", json={"name": "x", "scopes": ["play"]})
        assert (made.status_code, made.json()["code"]) == (403, "not_a_bot")
        assert client.get("/api/account/tokens").json()["code"] == "not_a_bot"
    with httpx.Client(base_url=server, timeout=30) as guest:
        assert guest.get("/api/account/tokens").status_code == 401


def test_bots_are_listed_and_marked_in_player_rows(server: str) -> None:
    _, r2 = make_bot(server, "r2d2")
    with web(server) as person:
        sign_up(person, "ann")
    with httpx.Client(base_url=server, timeout=30) as plain:
        assert plain.get("/api/bots").json() == {
            "bots": [{"username": "r2d2", "bot": True, "online": False, "rating": 1000, "games": 0}]
        }
        profile = plain.get("/api/players/r2d2").json()
        assert profile["bot"] is True and set(profile["ladders"]) == {"bots"}
        human = plain.get("/api/players/ann").json()
        assert human["bot"] is False and set(human["ladders"]) == {"singles", "doubles"}
        board = plain.get("/api/leaderboard", params={"ladder": "bots", "min_games": "0"})
        assert board.status_code == 200 and board.json()["ladder"] == "bots"
        bad = plain.get("/api/leaderboard", params={"ladder": "robots"})
        assert bad.status_code == 400 and bad.json()["code"] == "bad_ladder"
    r2.close()
