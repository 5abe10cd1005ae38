"""Bot accounts and their API tokens: the service behind ``/api/account/bot`` and the tokens.

A logged-in person makes an account of theirs a bot's (the password typed
again; never undone; refused once it has games rated on the human ladders)
and makes API tokens for it.  A token is ``crk_`` and 43 URL-safe characters
(:func:`new_token`, 256 random bits), shown once: the store keeps only its
SHA-256.  Each has a name and scopes (:data:`SCOPES`): ``play`` (open tables
and shoot at its seats), ``challenge`` (send and answer challenges),
``ladder`` (queue on the bots' ladder).  A program logs in with one on the
game websocket (docs/bots.md).

Every method blocks (the database, Argon2): the routes call them from worker
threads.

>>> from argon2 import PasswordHasher
>>> from crokinole.store import Store
>>> store = Store.open("sqlite://")
>>> accounts = Accounts(store, hasher=PasswordHasher(time_cost=1, memory_cost=1024,
...                                                  parallelism=1))
>>> _, cookie = accounts.sign_up("R2-D2", "correct horse")
>>> bots = Bots(store, accounts)
>>> bots.make_bot(cookie, "correct horse").bot
True
>>> made, text = bots.create_token(cookie, "laptop", ["play"])
>>> TOKEN_PATTERN.fullmatch(text) is not None, bots.login(text).account.username
(True, 'R2-D2')
>>> bots.revoke(cookie, made.id).revoked_at is not None, bots.login(text)
(True, None)
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from crokinole.errors import ErrorCode
from crokinole.server.accounts import Account, AccountError, Accounts, Clock, token_hash, utc_now
from crokinole.store import ApiTokenData, RatingData, Store
from crokinole.store.database import iso_utc
from crokinole.store.values import SCOPES

__all__ = [
    "EVENT_TABLE",
    "GAMES_AT_ONCE",
    "MAX_TOKENS",
    "MESSAGES_PER_SECOND",
    "MESSAGE_BURST",
    "REVOKED",
    "SCOPES",
    "SOCKETS_PER_TOKEN",
    "TOKEN_PATTERN",
    "BotLogin",
    "Bots",
    "new_token",
    "token_payload",
]

#: A token's text: ``crk_`` and 43 URL-safe characters (``secrets.token_urlsafe(32)``).
TOKEN_PATTERN = re.compile(r"^crk_[A-Za-z0-9_-]{43}$")
#: Tokens an account may have that are not revoked.
MAX_TOKENS = 20
#: Websockets open at once per token (one more is closed with 4429).
SOCKETS_PER_TOKEN = 2
#: Games a bot plays at once (tables it sits at that are not finished).
GAMES_AT_ONCE = 4
#: Messages a second per token (its sockets together, on average), and at once.
MESSAGES_PER_SECOND = 20
MESSAGE_BURST = 40
#: The hub's topic on which revoked tokens are broadcast (their sockets close everywhere).
REVOKED = "bots.revoked"
#: The hub's topic on which an event's new online table is broadcast: each process tells
#: the sockets of the bots seated there (``event_table``), which have no event page open.
EVENT_TABLE = "bots.event_table"


def new_token() -> str:
    """A new token's text.

    >>> token = new_token()
    >>> token.startswith("crk_"), len(token)
    (True, 47)
    """
    return "crk_" + secrets.token_urlsafe(32)


@dataclass(frozen=True, slots=True)
class BotLogin:
    """Who a websocket's token logs in: the token's id and scopes, its bot account.

    Attributes:
        token_id: the token's number (its revocation closes the socket).
        account: the bot account.
        scopes: what the token may do.
    """

    token_id: int
    account: Account
    scopes: frozenset[str]


def token_payload(token: ApiTokenData) -> dict[str, Any]:
    """A token as the HTTP API shows it (never its text)."""
    return {
        "id": token.id,
        "name": token.name,
        "scopes": list(token.scopes),
        "created": iso_utc(token.created_at),
        "last_used": None if token.last_used is None else iso_utc(token.last_used),
        "revoked": None if token.revoked_at is None else iso_utc(token.revoked_at),
    }


def _account(data: Any) -> Account:
    return Account(data.id, data.username, data.created_at, data.bot)


class Bots:
    """The bot accounts' service on a store and the accounts service (see the module)."""

    def __init__(self, store: Store, accounts: Accounts, *, clock: Clock = utc_now) -> None:
        self._store = store
        self._accounts = accounts
        self._clock = clock

    def _logged_in(self, session_token: str | None) -> Account:
        account = self._accounts.account_for_token(session_token)
        if account is None:
            raise AccountError(ErrorCode.NOT_LOGGED_IN, "not logged in")
        return account

    def _bot(self, session_token: str | None) -> Account:
        account = self._logged_in(session_token)
        if not account.bot:
            raise AccountError(
                ErrorCode.NOT_A_BOT, "only a bot account has API tokens: make this account a bot"
            )
        return account

    def make_bot(
        self,
        session_token: str | None,
        password: str,
        *,
        address: str = "?",
        device: str | None = None,
    ) -> Account:
        """Make the session's account a bot's, its password typed again (again: harmless).

        Raises:
            AccountError: ``not_logged_in``, ``too_many_attempts``,
                ``wrong_password``, ``has_games`` (it has games rated on the
                human ladders: they would count for a program).
        """
        account = self._accounts.confirm_password(
            session_token, password, address=address, device=device
        )
        if account.bot:
            return account
        games = self._store.rated_human_games(account.id)
        if games:
            raise AccountError(
                ErrorCode.HAS_GAMES,
                f"{account.username} has {games} rated game{'s' if games != 1 else ''} as a "
                "person: a bot needs an account of its own",
            )
        return _account(self._store.make_bot(account.id))

    def create_token(
        self, session_token: str | None, name: str, scopes: Sequence[str]
    ) -> tuple[ApiTokenData, str]:
        """A new token of the session's bot account: as stored, and its text (shown once).

        Raises:
            AccountError: ``not_logged_in``, ``not_a_bot``, ``conflict``
                (:data:`MAX_TOKENS` tokens not revoked already).
        """
        account = self._bot(session_token)
        live = [t for t in self._store.api_tokens(account.id) if t.revoked_at is None]
        if len(live) >= MAX_TOKENS:
            raise AccountError(
                ErrorCode.CONFLICT, f"at most {MAX_TOKENS} tokens at once: revoke one first"
            )
        text = new_token()
        made = self._store.create_api_token(
            account.id, token_hash(text), name, list(scopes), self._clock()
        )
        return made, text

    def tokens(self, session_token: str | None) -> list[ApiTokenData]:
        """The session's bot account's tokens (revoked ones too), oldest first."""
        return self._store.api_tokens(self._bot(session_token).id)

    def revoke(self, session_token: str | None, token_id: int) -> ApiTokenData:
        """Revoke a token of the session's bot account.

        Raises:
            AccountError: ``not_logged_in``, ``not_a_bot``, ``not_found``.
        """
        account = self._bot(session_token)
        revoked = self._store.revoke_api_token(account.id, token_id, self._clock())
        if revoked is None:
            raise AccountError(ErrorCode.NOT_FOUND, f"this account has no token {token_id}")
        return revoked

    def login(self, text: str | None) -> BotLogin | None:
        """Who the token ``text`` logs in, or None (malformed, unknown, revoked, not a bot's).

        Its ``last_used`` is noted (at most once a minute).  A token of the
        wrong shape is None without a database read.
        """
        if not text or TOKEN_PATTERN.fullmatch(text) is None:
            return None
        found = self._store.api_token_account(token_hash(text), self._clock())
        if found is None or not found[1].bot:
            return None
        token, data = found
        return BotLogin(token.id, _account(data), frozenset(token.scopes))

    def revoked(self, token_ids: Sequence[int]) -> set[int]:
        """Those of ``token_ids`` revoked (or gone) since."""
        return self._store.revoked_api_tokens(token_ids)

    def bots(self) -> list[tuple[Account, RatingData | None]]:
        """Every bot account, with its rating on the bots' ladder (None: no game yet)."""
        return [(_account(a), r) for a, r in self._store.list_bots()]
