"""Accounts: sign up, log in and out, change the password, attach a device's guest games.

Accounts are optional: guests play everything; an account is for ranked play
and a record that follows a person across devices.  The rules:

- a username is 3–20 letters, digits, ``_`` or ``-``, unique whatever its case
  (``Ann`` and ``ann`` are one account; it is shown as typed at sign up);
- a password is 8–128 characters and not the username;
- passwords are hashed with Argon2id (argon2-cffi), rehashed at the next login
  when the hasher's parameters change, and never logged, stored or repeated
  in an error;
- a login session is a random token in an HttpOnly cookie; the store keeps
  only its SHA-256; it ends after :data:`SESSION_IDLE_DAYS` days unused and
  :data:`SESSION_DAYS` days after the login at the latest; logging in always
  starts a new one (no session fixation) and ends the one the cookie had;
- a login and a change of password take the same work whether or not the
  username exists (one Argon2 verify each, against a dummy hash when it
  does not);
- failed logins and wrong current passwords are counted in the store (they
  survive restarts and hold across processes), in 15 minutes: at most 5 per
  account from one address, 20 per address, and 25 per account from
  anywhere (100 an hour: distributed guessing is capped).  A browser that has
  logged in to the account before (its device cookie says so) is exempt from
  the per-account limit, so strangers' guesses cannot lock the owner out;
- the counts are kept under an HMAC-SHA256 of the name and address, keyed
  with a random secret the server keeps in its database: never what was
  typed (a password typed into the username box is not stored).

Every method blocks (the database, Argon2 takes tens of milliseconds): the
HTTP routes call them from worker threads.  Time comes from ``clock``.

>>> from argon2 import PasswordHasher
>>> from crokinole.store import Store
>>> now = [datetime(2026, 1, 1, 12, 0)]
>>> accounts = Accounts(Store.open("sqlite://"), clock=lambda: now[0],
...                     hasher=PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1))
>>> ann, token = accounts.sign_up("Ann", "correct horse")
>>> accounts.account_for_token(token).username
'Ann'
>>> accounts.log_in("ann", "wrong horse", address="10.0.0.1")
Traceback (most recent call last):
...
crokinole.server.accounts.AccountError: wrong username or password
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import math
import re
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from crokinole.errors import CrokinoleError, ErrorCode
from crokinole.store import AccountData, AccountTakenError, DeviceClaimedError, Store

log = logging.getLogger("crokinole.accounts")

USERNAME_PATTERN = re.compile(r"^[A-Za-z0-9_-]{3,20}$")
MIN_PASSWORD = 8
MAX_PASSWORD = 128
#: A session ends this many days after its login, used or not ...
SESSION_DAYS = 30
#: ... and sooner when it is not used (an account request or a connection) for this many days.
SESSION_IDLE_DAYS = 7
#: Failed logins allowed in :data:`LOGIN_WINDOW` per account from one address, per
#: address, and per account from anywhere (browsers that logged in to it before exempt).
PAIR_LOGIN_LIMIT = 5
ADDRESS_LOGIN_LIMIT = 20
ACCOUNT_LOGIN_LIMIT = 25
LOGIN_WINDOW = timedelta(minutes=15)
#: A browser's device cookie lasts this many days from its last login (then it is forgotten).
DEVICE_DAYS = 365
#: The name of the server's secret that keys the failed logins' hashes.
LIMIT_SECRET = "login_limits"

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    """The time now, UTC, naive (as the store keeps times)."""
    return datetime.now(UTC).replace(tzinfo=None)


#: The session cookie of a logged-in browser (HttpOnly; the websocket's handshake carries it too).
COOKIE = "crokinole_session"


class AccountError(CrokinoleError, ValueError):
    """A request about accounts that is refused; nothing changed.

    Attributes:
        code: a stable id of the reason (``bad_username``, ``wrong_login``,
            ``too_many_attempts`` ...), which the HTTP routes send on.
        message: the reason in plain words (never holding a password).
        retry_after: for ``too_many_attempts``, seconds until a login may be
            tried again; else None.

    >>> str(AccountError(ErrorCode.TAKEN, "the username ann is taken"))
    'the username ann is taken'
    """

    def __init__(self, code: ErrorCode, message: str, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.retry_after = retry_after


@dataclass(frozen=True, slots=True)
class Account:
    """An account as the rest of the server sees it (no password hash).

    Attributes:
        id: its number in the store.
        username: as typed at sign up.
        created_at: when it signed up (UTC).
        bot: whether programs play it (docs/bots.md).
    """

    id: int
    username: str
    created_at: datetime
    bot: bool = False


def check_username(username: str) -> str:
    """The username's key (lower case) if it follows the rules.

    >>> check_username("Ann_B")
    'ann_b'
    >>> check_username("a b")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    crokinole.server.accounts.AccountError: a username is 3–20 letters, ... (not 'a b')

    Raises:
        AccountError: ``bad_username``.
    """
    if not USERNAME_PATTERN.fullmatch(username):
        shown = username if len(username) <= 40 else username[:40] + "…"
        raise AccountError(
            ErrorCode.BAD_USERNAME,
            f"a username is 3–20 letters, digits, '_' or '-' (not {shown!r})",
        )
    return username.lower()


def check_password(password: str, username: str) -> None:
    """Refuse a new password that breaks the rules (the message never repeats it).

    >>> check_password("short", "ann")
    Traceback (most recent call last):
    ...
    crokinole.server.accounts.AccountError: a password is at least 8 characters
    >>> check_password("Ann-1234", "ann-1234")
    Traceback (most recent call last):
    ...
    crokinole.server.accounts.AccountError: the password may not be the username

    Raises:
        AccountError: ``bad_password``.
    """
    if len(password) < MIN_PASSWORD:
        raise AccountError(
            ErrorCode.BAD_PASSWORD, f"a password is at least {MIN_PASSWORD} characters"
        )
    if len(password) > MAX_PASSWORD:
        raise AccountError(
            ErrorCode.BAD_PASSWORD, f"a password is at most {MAX_PASSWORD} characters"
        )
    if password.lower() == username.lower():
        raise AccountError(ErrorCode.BAD_PASSWORD, "the password may not be the username")


def token_hash(token: str) -> str:
    """The SHA-256 (hex) under which a session token is stored.

    >>> len(token_hash("abc")), token_hash("abc")[:8]
    (64, 'ba7816bf')
    """
    return hashlib.sha256(token.encode()).hexdigest()


def _public(data: AccountData) -> Account:
    return Account(data.id, data.username, data.created_at, data.bot)


class Accounts:
    """The accounts service on a store (see the module's docstring for the rules).

    Args:
        store: where accounts, sessions and failed logins are kept.
        clock: the time now (UTC, naive).
        hasher: the Argon2id hasher (its defaults unless a test wants a cheap one).
        pair_limit: failed logins per account from one address in ``window``.
        address_limit: failed logins per address in ``window``.
        account_limit: failed logins per account in ``window`` (browsers
            that logged in to it before are exempt).
        window: how long a failed login counts.
    """

    def __init__(
        self,
        store: Store,
        *,
        clock: Clock = utc_now,
        hasher: PasswordHasher | None = None,
        pair_limit: int = PAIR_LOGIN_LIMIT,
        address_limit: int = ADDRESS_LOGIN_LIMIT,
        account_limit: int = ACCOUNT_LOGIN_LIMIT,
        window: timedelta = LOGIN_WINDOW,
    ) -> None:
        self._store = store
        self._clock = clock
        self._hasher = hasher or PasswordHasher()
        self._pair_limit = pair_limit
        self._address_limit = address_limit
        self._account_limit = account_limit
        self._window = window
        self._secret: bytes | None = None
        # Checked against when the username is unknown, so that a login takes
        # as long whether or not the account exists.
        self._dummy_hash = self._hasher.hash(secrets.token_hex(16))

    # ------------------------------------------------------------ sessions

    def _new_session(self, account_id: int) -> str:
        token = secrets.token_urlsafe(32)
        now = self._clock()
        self._store.create_account_session(
            token_hash(token), account_id, now, now + timedelta(days=SESSION_IDLE_DAYS)
        )
        return token

    def account_for_token(self, token: str | None) -> Account | None:
        """The account logged in by a session cookie's token, or None (no session, ended, expired).

        A session found is renewed: it lasts :data:`SESSION_IDLE_DAYS` from
        now, up to :data:`SESSION_DAYS` after its login.  Tokens of the wrong
        shape are None without a database read.
        """
        if not token or len(token) > 128:
            return None
        data = self._store.session_account(
            token_hash(token),
            self._clock(),
            idle=timedelta(days=SESSION_IDLE_DAYS),
            lifetime=timedelta(days=SESSION_DAYS),
        )
        return None if data is None else _public(data)

    def ended_sessions(self, token_hashes: Sequence[str]) -> set[str]:
        """Those of the session ``token_hashes`` that have ended (logged out, expired ...)."""
        if not token_hashes:
            return set()
        return set(token_hashes) - self._store.live_account_sessions(token_hashes, self._clock())

    # ------------------------------------------------------------ limits

    def _key(self, kind: str, *parts: str) -> str:
        """The key under which failures are counted: ``kind:`` and a keyed hash of ``parts``."""
        if self._secret is None:
            made = self._store.server_secret(
                LIMIT_SECRET, lambda: secrets.token_hex(32), self._clock()
            )
            self._secret = made.encode()
        digest = hmac.new(self._secret, "\0".join(parts).encode(), hashlib.sha256).hexdigest()
        return f"{kind}:{digest}"

    def _limits(self, key: str, address: str, known: bool) -> list[tuple[str, int, str]]:
        """The counts a guess at the account ``key`` from ``address`` goes under, with their
        limits and whom they lock (the per-account one not for a browser ``known`` to it)."""
        limits = [
            (self._key("pair", key, address[:64]), self._pair_limit, "for this account"),
            (self._key("address", address[:64]), self._address_limit, "from this address"),
        ]
        if not known:
            limits.append((self._key("account", key), self._account_limit, "for this account"))
        return limits

    def _refused(self, key: str, limit: int, whom: str) -> None:
        now = self._clock()
        failures = self._store.login_failures(key, since=now - self._window)
        if len(failures) < limit:
            return
        # Free again when enough of the failures have aged out of the window.
        free_at = failures[len(failures) - limit] + self._window
        seconds = max(1, math.ceil((free_at - now).total_seconds()))
        minutes = math.ceil(seconds / 60)
        unit = "minute" if minutes == 1 else "minutes"
        raise AccountError(
            ErrorCode.TOO_MANY_ATTEMPTS,
            f"too many login attempts {whom}: try again in {minutes} {unit}",
            retry_after=seconds,
        )

    def _known(self, device: str | None, data: AccountData | None) -> bool:
        if data is None or not device or len(device) > 128:
            return False
        return self._store.login_device_known(token_hash(device), data.id)

    def _guess(
        self, key: str, data: AccountData | None, password: str, address: str, device: str | None
    ) -> bool:
        """Check one guess of the password of ``data`` (None: an unknown name, key ``key``):
        refused when a limit is reached, counted when wrong.  The same work either way: one
        Argon2 verify (against the dummy hash for an unknown name).

        Raises:
            AccountError: ``too_many_attempts``.
        """
        limits = self._limits(key, address, self._known(device, data))
        for count, limit, whom in limits:
            self._refused(count, limit, whom)
        right = self._verify(None if data is None else data.password_hash, password)
        if right and data is not None:
            self._store.clear_login_failures(limits[0][0])
            return True
        self._store.add_login_failure([count for count, _, _ in limits], self._clock())
        return False

    # ------------------------------------------------------------ actions

    def sign_up(self, username: str, password: str) -> tuple[Account, str]:
        """Create an account and log it in: the account and its session token.

        Raises:
            AccountError: ``bad_username``, ``bad_password``, or ``taken``
                (an account has this username, in any case).
        """
        key = check_username(username)
        check_password(password, username)
        password_hash = self._hasher.hash(password)
        try:
            data = self._store.create_account(username, key, password_hash, self._clock())
        except AccountTakenError:
            raise AccountError(ErrorCode.TAKEN, f"the username {username} is taken") from None
        log.info("account %s signed up", data.username)
        return _public(data), self._new_session(data.id)

    def log_in(
        self,
        username: str,
        password: str,
        *,
        address: str,
        old_token: str | None = None,
        device: str | None = None,
    ) -> tuple[Account, str]:
        """Check the password and start a new session: the account and the new token.

        The session of ``old_token`` (the cookie sent with the login), if any,
        ends: a session id is never carried across a login.  ``device`` is
        the browser's device cookie: after the login it is known to the
        account (see :meth:`remember_device`), exempt from its per-account limit.

        Raises:
            AccountError: ``too_many_attempts`` (5 failures for this account
                from this address, 20 from this address, or 25 for this
                account from browsers it does not know, in 15 minutes;
                ``retry_after`` says when), or ``wrong_login`` (the same for
                an unknown username and a wrong password).
        """
        key = username.lower()[:64]
        data = self._store.account_by_key(key) if USERNAME_PATTERN.fullmatch(username) else None
        if not self._guess(key, data, password, address, device) or data is None:
            # What was typed as an unknown username may be a password: never logged.
            whom = "an unknown username" if data is None else data.username
            log.info("failed login for %s from %s", whom, address)
            raise AccountError(ErrorCode.WRONG_LOGIN, "wrong username or password")
        if self._hasher.check_needs_rehash(data.password_hash):
            self._store.set_password_hash(
                data.id, self._hasher.hash(password), self._clock(), changed=False
            )
        if old_token:
            self._store.delete_account_session(token_hash(old_token))
        log.info("account %s logged in", data.username)
        return _public(data), self._new_session(data.id)

    def remember_device(self, account: Account, device: str) -> None:
        """Note that the browser whose device cookie is ``device`` logged in to ``account``."""
        self._store.remember_login_device(token_hash(device), account.id, self._clock())

    def _verify(self, password_hash: str | None, password: str) -> bool:
        try:
            return self._hasher.verify(password_hash or self._dummy_hash, password) and bool(
                password_hash
            )
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            return False

    def log_out(self, token: str | None) -> bool:
        """End the session of ``token``; False if it had none."""
        if not token or len(token) > 128:
            return False
        return self._store.delete_account_session(token_hash(token))

    def change_password(
        self,
        token: str | None,
        old_password: str,
        new_password: str,
        *,
        address: str = "?",
        device: str | None = None,
    ) -> tuple[Account, list[str]]:
        """Change the password of the session's account; its other sessions end.

        A wrong current password counts as a failed login of the account from
        ``address`` (``device``: the browser's device cookie), under the same
        limits.

        Returns:
            The account, and the token hashes of the sessions that ended.

        Raises:
            AccountError: ``not_logged_in``, ``too_many_attempts``,
                ``wrong_password`` (the old one), ``bad_password`` (the new one).
        """
        account = self.account_for_token(token)
        if account is None or token is None:
            raise AccountError(ErrorCode.NOT_LOGGED_IN, "not logged in")
        data = self._store.account(account.id)
        if data is None:
            raise AccountError(ErrorCode.NOT_LOGGED_IN, "not logged in")
        if not self._guess(data.username_key, data, old_password, address, device):
            log.info("wrong current password for %s from %s", data.username, address)
            raise AccountError(ErrorCode.WRONG_PASSWORD, "the current password is wrong")
        check_password(new_password, data.username)
        ended = self._store.set_password_hash(
            data.id,
            self._hasher.hash(new_password),
            self._clock(),
            changed=True,
            keep_session=token_hash(token),
        )
        log.info("account %s changed its password", data.username)
        return account, ended

    def confirm_password(
        self, token: str | None, password: str, *, address: str = "?", device: str | None = None
    ) -> Account:
        """The session's account once its password is typed again (to make it a bot's).

        A wrong password counts as a failed login of the account from
        ``address``, under the same limits.

        Raises:
            AccountError: ``not_logged_in``, ``too_many_attempts``,
                ``wrong_password``.
        """
        account = self.account_for_token(token)
        data = None if account is None else self._store.account(account.id)
        if account is None or data is None:
            raise AccountError(ErrorCode.NOT_LOGGED_IN, "not logged in")
        if not self._guess(data.username_key, data, password, address, device):
            log.info("wrong password typed again for %s from %s", data.username, address)
            raise AccountError(ErrorCode.WRONG_PASSWORD, "the password is wrong")
        return _public(data)

    def attach_device(self, token: str | None, device_token: str) -> int:
        """Count the device's guest games for the session's account: how many there are.

        Raises:
            AccountError: ``not_logged_in``, or ``device_claimed`` (the
                device's games count for another account).
        """
        account = self.account_for_token(token)
        if account is None:
            raise AccountError(ErrorCode.NOT_LOGGED_IN, "not logged in")
        try:
            return self._store.attach_device(account.id, device_token, self._clock())
        except DeviceClaimedError as error:
            raise AccountError(ErrorCode.DEVICE_CLAIMED, str(error)) from None

    def purge(self) -> int:
        """Delete expired sessions, failed logins too old to count and login devices unused
        for :data:`DEVICE_DAYS` (their cookie has expired); how many rows went."""
        now = self._clock()
        return self._store.purge_accounts_data(
            now, now - self._window, now - timedelta(days=DEVICE_DAYS)
        )
