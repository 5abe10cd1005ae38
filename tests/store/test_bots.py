"""Bot accounts and API tokens in the store, on real SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from crokinole.store import RatingChange, Store, StoreConflictError, StoreDataError

T0 = datetime(2026, 1, 1, 12, 0, 0)
HASH_A = "a" * 64
HASH_B = "b" * 64


def test_an_account_is_no_bot_until_made_one_and_stays_one(store: Store) -> None:
    ann = store.create_account("Ann", "ann", "h", T0)
    assert ann.bot is False
    assert store.account(ann.id).bot is False  # type: ignore[union-attr]
    assert store.make_bot(ann.id).bot is True
    assert store.make_bot(ann.id).bot is True  # again: harmless
    assert store.account_by_key("ann").bot is True  # type: ignore[union-attr]
    bob = store.create_account("Bob", "bob", "h", T0)
    assert store.bot_accounts([ann.id, bob.id, 999]) == {ann.id}
    with pytest.raises(StoreDataError, match="no account 999"):
        store.make_bot(999)


def test_tokens_are_kept_by_hash_with_name_and_scopes_and_log_in_until_revoked(
    store: Store,
) -> None:
    ann = store.make_bot(store.create_account("Ann", "ann", "h", T0).id)
    made = store.create_api_token(ann.id, HASH_A, "laptop", ["ladder", "play"], T0)
    assert (made.name, made.scopes, made.created_at) == ("laptop", ("play", "ladder"), T0)
    assert (made.last_used, made.revoked_at) == (None, None)
    found = store.api_token_account(HASH_A, T0 + timedelta(seconds=5))
    assert found is not None
    token, account = found
    assert (token.id, account.id, account.username, token.last_used) == (
        made.id,
        ann.id,
        "Ann",
        T0 + timedelta(seconds=5),
    )
    # last_used is written at most once a minute.
    store.api_token_account(HASH_A, T0 + timedelta(seconds=30))
    assert store.api_tokens(ann.id)[0].last_used == T0 + timedelta(seconds=5)
    store.api_token_account(HASH_A, T0 + timedelta(minutes=2))
    assert store.api_tokens(ann.id)[0].last_used == T0 + timedelta(minutes=2)
    assert store.api_token_account(HASH_B) is None
    second = store.create_api_token(ann.id, HASH_B, "server", ["challenge"], T0)
    assert [t.id for t in store.api_tokens(ann.id)] == [made.id, second.id]
    revoked = store.revoke_api_token(ann.id, made.id, T0 + timedelta(hours=1))
    assert revoked is not None and revoked.revoked_at == T0 + timedelta(hours=1)
    # Revoking again keeps the first time; the token logs nobody in.
    again = store.revoke_api_token(ann.id, made.id, T0 + timedelta(hours=2))
    assert again is not None and again.revoked_at == T0 + timedelta(hours=1)
    assert store.api_token_account(HASH_A) is None
    assert store.api_token_account(HASH_B) is not None
    assert store.revoked_api_tokens([made.id, second.id, 12345]) == {made.id, 12345}


def test_tokens_belong_to_bots_only_and_are_refused_when_malformed(store: Store) -> None:
    ann = store.create_account("Ann", "ann", "h", T0)
    with pytest.raises(StoreDataError, match="not a bot's"):
        store.create_api_token(ann.id, HASH_A, "x", ["play"], T0)
    store.make_bot(ann.id)
    with pytest.raises(StoreDataError, match="SHA-256"):
        store.create_api_token(ann.id, "crk_the-token-itself", "x", ["play"], T0)
    with pytest.raises(StoreDataError, match="1–40"):
        store.create_api_token(ann.id, HASH_A, "", ["play"], T0)
    with pytest.raises(StoreDataError, match="1–40"):
        store.create_api_token(ann.id, HASH_A, "x" * 41, ["play"], T0)
    with pytest.raises(StoreDataError, match="scopes"):
        store.create_api_token(ann.id, HASH_A, "x", ["admin"], T0)
    with pytest.raises(StoreDataError, match="scopes"):
        store.create_api_token(ann.id, HASH_A, "x", [], T0)
    assert store.api_tokens(ann.id) == []
    store.create_api_token(ann.id, HASH_A, "x", ["play"], T0)
    with pytest.raises(StoreConflictError):
        store.create_api_token(ann.id, HASH_A, "y", ["play"], T0)


def test_a_token_is_revoked_only_by_its_own_account(store: Store) -> None:
    ann = store.make_bot(store.create_account("Ann", "ann", "h", T0).id)
    bob = store.make_bot(store.create_account("Bob", "bob", "h", T0).id)
    made = store.create_api_token(ann.id, HASH_A, "x", ["play"], T0)
    assert store.revoke_api_token(bob.id, made.id, T0) is None
    assert store.revoke_api_token(ann.id, made.id + 100, T0) is None
    assert store.api_token_account(HASH_A) is not None


def _rated(store: Store, table: str, ladder: str, winner: int, loser: int) -> None:
    """A ranked game ``winner`` won over ``loser`` on ``ladder``, as the owner writes it."""
    changes = [
        RatingChange(
            account_id=account,
            ladder=ladder,
            game_number=1,
            side=side,
            mu_before=25.0,
            sigma_before=8.0,
            mu_after=25.0 + (1 if side == 0 else -1),
            sigma_after=7.5,
            rating_before=1000,
            rating_after=1100 if side == 0 else 900,
            outcome="win" if side == 0 else "loss",
        )
        for side, account in ((0, winner), (1, loser))
    ]
    store.create_table(
        table, kind="ranked", code=None, events=[{"type": "created", "version": 1}],
        snapshot={}, members=[], deadline=None, status="playing",
    )  # fmt: skip
    store.append_table_events(
        table,
        1,
        [{"type": "finished", "version": 2}],
        {},
        deadline=None,
        status="finished",
        rating_changes=changes,
    )


def test_human_games_and_the_bots_ladder_are_counted_apart(store: Store) -> None:
    ann = store.create_account("Ann", "ann", "h", T0)
    bob = store.create_account("Bob", "bob", "h", T0)
    assert store.rated_human_games(ann.id) == 0
    _rated(store, "t" * 32, "singles", ann.id, bob.id)
    assert store.rated_human_games(ann.id) == 1
    r2 = store.make_bot(store.create_account("R2", "r2", "h", T0).id)
    c3 = store.make_bot(store.create_account("C3", "c3", "h", T0).id)
    _rated(store, "u" * 32, "bots", r2.id, c3.id)
    assert store.rated_human_games(r2.id) == 0
    board = store.leaderboard("bots", 0)
    assert [(row.username, row.rating, row.bot) for row in board] == [
        ("R2", 1100, True),
        ("C3", 900, True),
    ]
    assert [row.username for row in store.leaderboard("singles", 0)] == ["Ann", "Bob"]
    assert not any(row.bot for row in store.leaderboard("singles", 0))
    listed = store.list_bots()
    assert [(a.username, r.rating if r else None) for a, r in listed] == [
        ("C3", 900),
        ("R2", 1100),
    ]
