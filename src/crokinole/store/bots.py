"""Bot accounts and their API tokens.

:class:`BotStore` marks an account as a bot's (once: it is never unset) and
keeps its API tokens under their SHA-256 (the token itself is shown to its
owner once, and never stored): a name, the scopes, when each was made, last
used and revoked.  A revoked token stays listed (with when it was revoked)
but logs nothing in.

>>> from datetime import datetime
>>> store = BotStore.open("sqlite://")
>>> ann = store.create_account("Ann", "ann", "h", datetime(2026, 1, 1))
>>> store.make_bot(ann.id).bot
True
>>> made = store.create_api_token(ann.id, "ab" * 32, "laptop", ("play",), datetime(2026, 1, 2))
>>> made.name, made.scopes, made.revoked_at
('laptop', ('play',), None)
>>> store.api_token_account("ab" * 32)[1].username
'Ann'
>>> store.revoke_api_token(ann.id, made.id, datetime(2026, 1, 3)).revoked_at
datetime.datetime(2026, 1, 3, 0, 0)
>>> store.api_token_account("ab" * 32) is None
True
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import undefer

from crokinole.store.accounts import AccountStore
from crokinole.store.database import StoreConflictError, StoreDataError
from crokinole.store.models import (
    AccountRow,
    ApiTokenRow,
    RatingChangeRow,
    RatingRow,
    TableMemberRow,
    TableRow,
)
from crokinole.store.values import SCOPES, AccountData, RatingData, from_row

__all__ = ["ApiTokenData", "BotStore"]

_SHA256_HEX = re.compile(r"^[0-9a-f]{64}$")
#: A token's ``last_used`` is written at most this often (not at every socket).
TOUCH_EVERY = timedelta(minutes=1)
#: A token's name is 1 to this many characters.
MAX_TOKEN_NAME = 40
#: The human ladders: a bot's games never count on them.
HUMAN_LADDERS = ("singles", "doubles")


@dataclass(frozen=True, slots=True)
class ApiTokenData:
    """An API token as stored (never the token itself: its hash only).

    Attributes:
        id: its number.
        account_id: the bot account it logs in.
        name: what its owner called it (1–40 characters).
        scopes: what it may do (of :data:`~crokinole.store.values.SCOPES`).
        created_at: when it was made (UTC, naive).
        last_used: when a socket last logged in with it, or None.
        revoked_at: when it was revoked, or None.
    """

    id: int
    account_id: int
    name: str
    scopes: tuple[str, ...]
    created_at: datetime
    last_used: datetime | None
    revoked_at: datetime | None


def _token(row: ApiTokenRow) -> ApiTokenData:
    scopes = tuple(s for s in row.scopes.split(",") if s)
    return from_row(ApiTokenData, row, scopes=scopes)


def _check_scopes(scopes: Sequence[str]) -> str:
    unknown = [s for s in scopes if s not in SCOPES]
    if unknown or not scopes:
        raise StoreDataError(f"a token's scopes are some of {', '.join(SCOPES)}, not {scopes!r}")
    return ",".join(s for s in SCOPES if s in scopes)


class BotStore(AccountStore):
    """Bot accounts and their API tokens (a part of the :class:`~crokinole.store.Store`)."""

    def make_bot(self, account_id: int) -> AccountData:
        """Mark the account a bot's (again: harmless); the account.

        Raises:
            StoreDataError: there is no such account.
        """
        with self._writing() as session:
            row = session.get(AccountRow, account_id, options=[undefer(AccountRow.bot)])
            if row is None:
                raise StoreDataError(f"there is no account {account_id}")
            row.bot = True
            session.flush()
            return from_row(AccountData, row)

    def rated_human_games(self, account_id: int) -> int:
        """How many games the account has had rated on the human ladders."""
        with self._session() as session:
            return int(
                session.scalar(
                    select(func.count())
                    .select_from(RatingChangeRow)
                    .where(
                        RatingChangeRow.account_id == account_id,
                        RatingChangeRow.ladder.in_(HUMAN_LADDERS),
                    )
                )
                or 0
            )

    def bot_accounts(self, account_ids: Sequence[int]) -> set[int]:
        """Those of ``account_ids`` that are bots'."""
        ids = sorted(set(account_ids))
        if not ids:
            return set()
        with self._session() as session:
            return set(
                session.scalars(
                    select(AccountRow.id).where(AccountRow.id.in_(ids), AccountRow.bot.is_(True))
                )
            )

    def list_bots(self, limit: int = 500) -> list[tuple[AccountData, RatingData | None]]:
        """The bot accounts (by username), each with its rating on the ``bots`` ladder."""
        with self._session() as session:
            rows = session.execute(
                select(AccountRow, RatingRow)
                .options(undefer(AccountRow.bot))
                .outerjoin(
                    RatingRow,
                    (RatingRow.account_id == AccountRow.id) & (RatingRow.ladder == "bots"),
                )
                .where(AccountRow.bot.is_(True))
                .order_by(AccountRow.username_key)
                .limit(limit)
            ).all()
            return [
                (
                    from_row(AccountData, account),
                    None
                    if rating is None
                    else from_row(RatingData, rating, username=account.username, bot=True),
                )
                for account, rating in rows
            ]

    def create_api_token(
        self, account_id: int, token_hash: str, name: str, scopes: Sequence[str], now: datetime
    ) -> ApiTokenData:
        """Store a new token of a bot account under the hash of its text.

        Raises:
            StoreDataError: not a SHA-256 in hex, a name not of 1–40
                characters, unknown scopes, no such account or not a bot's.
            StoreConflictError: a token with this hash exists.
        """
        if not _SHA256_HEX.match(token_hash):
            raise StoreDataError("a token is stored under a SHA-256 in hex (64 digits)")
        if not 1 <= len(name) <= MAX_TOKEN_NAME:
            raise StoreDataError(f"a token's name is 1–{MAX_TOKEN_NAME} characters")
        joined = _check_scopes(scopes)
        try:
            with self._writing() as session:
                account = session.get(AccountRow, account_id)
                if account is None or not account.bot:
                    raise StoreDataError(f"account {account_id} is not a bot's")
                row = ApiTokenRow(
                    account_id=account_id, token_hash=token_hash, name=name, scopes=joined,
                    created_at=now, last_used=None, revoked_at=None,
                )  # fmt: skip
                session.add(row)
                session.flush()
                return _token(row)
        except IntegrityError:
            raise StoreConflictError("a token with that hash exists already") from None

    def api_tokens(self, account_id: int) -> list[ApiTokenData]:
        """The account's tokens, revoked ones included, in the order they were made."""
        with self._session() as session:
            rows = session.scalars(
                select(ApiTokenRow)
                .where(ApiTokenRow.account_id == account_id)
                .order_by(ApiTokenRow.id)
            )
            return [_token(row) for row in rows]

    def api_token_account(
        self, token_hash: str, now: datetime | None = None
    ) -> tuple[ApiTokenData, AccountData] | None:
        """The token stored under ``token_hash`` and its account, unless revoked (or None).

        With ``now``, the token's ``last_used`` becomes ``now`` (written at
        most once a minute).
        """
        with self._session() as session:
            found = session.execute(
                select(ApiTokenRow, AccountRow)
                .options(undefer(AccountRow.bot))
                .join(AccountRow, AccountRow.id == ApiTokenRow.account_id)
                .where(ApiTokenRow.token_hash == token_hash, ApiTokenRow.revoked_at.is_(None))
            ).first()
            if found is None:
                return None
            row, account = found
            token, data = _token(row), from_row(AccountData, account)
        if now is not None and (token.last_used is None or now - token.last_used >= TOUCH_EVERY):
            with self._writing() as session:
                session.execute(
                    update(ApiTokenRow).where(ApiTokenRow.id == token.id).values(last_used=now)
                )
            token = ApiTokenData(
                token.id, token.account_id, token.name, token.scopes, token.created_at, now, None
            )
        return token, data

    def revoke_api_token(
        self, account_id: int, token_id: int, now: datetime
    ) -> ApiTokenData | None:
        """Revoke the account's token ``token_id`` (once: revoking again keeps the first time);
        None if the account has no such token."""
        with self._writing() as session:
            row = session.get(ApiTokenRow, token_id)
            if row is None or row.account_id != account_id:
                return None
            if row.revoked_at is None:
                row.revoked_at = now
            session.flush()
            return _token(row)

    def games_of_device(self, device_token: str) -> int:
        """How many tables the device (a bot's identity) is a member of that are in their
        lobby or being played (the games a bot plays at once)."""
        with self._session() as session:
            return int(
                session.scalar(
                    select(func.count())
                    .select_from(TableRow)
                    .join(TableMemberRow, TableMemberRow.table_id == TableRow.id)
                    .where(
                        TableMemberRow.device_token == device_token,
                        TableRow.status.in_(("lobby", "playing")),
                    )
                )
                or 0
            )

    def revoked_api_tokens(self, token_ids: Sequence[int]) -> set[int]:
        """Those of ``token_ids`` that are revoked or gone."""
        ids = sorted(set(token_ids))
        if not ids:
            return set()
        with self._session() as session:
            live = set(
                session.scalars(
                    select(ApiTokenRow.id).where(
                        ApiTokenRow.id.in_(ids), ApiTokenRow.revoked_at.is_(None)
                    )
                )
            )
        return set(ids) - live
