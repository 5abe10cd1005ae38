"""Accounts and what hangs on them: login sessions, failed logins, known browsers, devices.

:class:`AccountStore` keeps accounts (the username, its lower-case key, the
password's Argon2id hash: never the password), login sessions under the
SHA-256 of their token (renewed on use, ended by a new password), the failed
logins the limits count, the browsers that logged in before, the server's
shared secrets, and the devices whose guest games count for an account.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import (
    delete,
    func,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import undefer

from crokinole.store.database import (
    AccountTakenError,
    Database,
    DeviceClaimedError,
    StoreConflictError,
    StoreDataError,
)
from crokinole.store.legacy_rooms import room_results
from crokinole.store.models import (
    AccountDeviceRow,
    AccountRow,
    AccountSessionRow,
    LoginDeviceRow,
    LoginFailureRow,
    ServerSecretRow,
    TableResultRow,
)
from crokinole.store.values import (
    AccountData,
    from_row,
)

_SHA256_HEX = re.compile(r"^[0-9a-f]{64}$")


class AccountStore(Database):
    """Accounts, their sessions, failed logins, login devices, server secrets and devices."""

    def create_account(
        self, username: str, username_key: str, password_hash: str, now: datetime
    ) -> AccountData:
        """Store a new account; the username's key (lower case) must be free.

        The store keeps what it is given: the service checks the username's
        rules and hashes the password (the store never sees the password).

        >>> store = AccountStore.open("sqlite://")
        >>> ann = store.create_account("Ann", "ann", "$argon2id$...", datetime(2026, 1, 1))
        >>> (ann.id, ann.username, store.account_by_key("ann") == ann)
        (1, 'Ann', True)
        >>> store.create_account("ANN", "ann", "$argon2id$...", datetime(2026, 1, 1))
        Traceback (most recent call last):
        ...
        crokinole.store.database.AccountTakenError: the username ANN is taken

        Raises:
            AccountTakenError: an account has that key; nothing was written.
        """
        row = AccountRow(
            username=username, username_key=username_key, password_hash=password_hash,
            created_at=now, password_changed_at=now,
        )  # fmt: skip
        try:
            with self._writing() as session:
                session.add(row)
                session.flush()
                return from_row(AccountData, row, bot=False)
        except IntegrityError:
            raise AccountTakenError(f"the username {username} is taken") from None

    def account_by_key(self, username_key: str) -> AccountData | None:
        """The account whose username's key (lower case) is ``username_key``, or None."""
        with self._session() as session:
            row = session.scalars(
                select(AccountRow)
                .options(undefer(AccountRow.bot))
                .where(AccountRow.username_key == username_key)
            ).first()
            return None if row is None else from_row(AccountData, row)

    def account(self, account_id: int) -> AccountData | None:
        """The account with the id, or None."""
        with self._session() as session:
            row = session.get(AccountRow, account_id, options=[undefer(AccountRow.bot)])
            return None if row is None else from_row(AccountData, row)

    def set_password_hash(
        self,
        account_id: int,
        password_hash: str,
        now: datetime,
        *,
        changed: bool,
        keep_session: str | None = None,
    ) -> list[str]:
        """Replace the account's password hash; the token hashes of the sessions it ended.

        A new password (``changed``) ends every session of the account but
        ``keep_session`` (a token hash) and stamps ``password_changed_at``; a
        rehash of the same password with new parameters changes the hash only.

        Raises:
            StoreDataError: there is no such account; nothing was written.
        """
        values: dict[str, Any] = {"password_hash": password_hash}
        if changed:
            values["password_changed_at"] = now
        with self._writing() as session:
            done = session.execute(
                update(AccountRow).where(AccountRow.id == account_id).values(**values)
            )
            if done.rowcount != 1:  # type: ignore[attr-defined]
                raise StoreDataError(f"there is no account {account_id}")
            if not changed:
                return []
            others = (
                AccountSessionRow.account_id == account_id,
                AccountSessionRow.token_hash != (keep_session or ""),
            )
            ended = list(session.scalars(select(AccountSessionRow.token_hash).where(*others)))
            session.execute(delete(AccountSessionRow).where(*others))
            return ended

    def create_account_session(
        self, token_hash: str, account_id: int, now: datetime, expires_at: datetime
    ) -> None:
        """Store a login session under the hash of its token (the token itself is never stored).

        Raises:
            StoreDataError: the hash is not 64 hexadecimal digits, or there is
                no such account; nothing was written.
            StoreConflictError: a session has this hash already.
        """
        if not _SHA256_HEX.match(token_hash):
            raise StoreDataError("a session is stored under a SHA-256 in hex (64 digits)")
        try:
            with self._writing() as session:
                if session.get(AccountRow, account_id) is None:
                    raise StoreDataError(f"there is no account {account_id}")
                session.add(
                    AccountSessionRow(
                        token_hash=token_hash,
                        account_id=account_id,
                        created_at=now,
                        expires_at=expires_at,
                    )
                )
        except IntegrityError:
            raise StoreConflictError("a session with that token exists already") from None

    def session_account(
        self,
        token_hash: str,
        now: datetime,
        *,
        idle: timedelta | None = None,
        lifetime: timedelta | None = None,
    ) -> AccountData | None:
        """The account of the session stored under ``token_hash`` if it has not expired at ``now``.

        With ``idle`` and ``lifetime``, a session used at ``now`` is renewed:
        it expires ``idle`` after its last use, but never later than
        ``lifetime`` after it began (it is written at most once a minute).

        >>> store = AccountStore.open("sqlite://")
        >>> ann = store.create_account("Ann", "ann", "h", datetime(2026, 1, 1))
        >>> store.create_account_session("ab" * 32, ann.id, datetime(2026, 1, 1),
        ...                              datetime(2026, 1, 8))
        >>> week, month = timedelta(days=7), timedelta(days=30)
        >>> store.session_account("ab" * 32, datetime(2026, 1, 7), idle=week,
        ...                       lifetime=month).username
        'Ann'
        >>> store.session_account("ab" * 32, datetime(2026, 1, 13)).username  # renewed
        'Ann'
        >>> store.session_account("ab" * 32, datetime(2026, 1, 14)) is None  # idle a week
        True
        """
        with self._session() as session:
            found = session.execute(
                select(AccountRow, AccountSessionRow.created_at, AccountSessionRow.expires_at)
                .options(undefer(AccountRow.bot))
                .join(AccountSessionRow, AccountSessionRow.account_id == AccountRow.id)
                .where(
                    AccountSessionRow.token_hash == token_hash, AccountSessionRow.expires_at > now
                )
            ).first()
            if found is None:
                return None
            row, created_at, expires_at = found
            account = from_row(AccountData, row)
        if idle is not None and lifetime is not None:
            renewed = min(created_at + lifetime, now + idle)
            if renewed - expires_at >= timedelta(minutes=1):
                with self._writing() as session:
                    session.execute(
                        update(AccountSessionRow)
                        .where(
                            AccountSessionRow.token_hash == token_hash,
                            AccountSessionRow.expires_at < renewed,
                        )
                        .values(expires_at=renewed)
                    )
        return account

    def live_account_sessions(self, token_hashes: Sequence[str], now: datetime) -> set[str]:
        """Those of ``token_hashes`` whose sessions are stored and have not expired at ``now``.

        >>> store = AccountStore.open("sqlite://")
        >>> ann = store.create_account("Ann", "ann", "h", datetime(2026, 1, 1))
        >>> store.create_account_session("ab" * 32, ann.id, datetime(2026, 1, 1),
        ...                              datetime(2026, 1, 8))
        >>> store.live_account_sessions(["ab" * 32, "cd" * 32], datetime(2026, 1, 2)) == {"ab" * 32}
        True
        """
        live: set[str] = set()
        hashes = sorted(set(token_hashes))
        with self._session() as session:
            for start in range(0, len(hashes), 500):
                live.update(
                    session.scalars(
                        select(AccountSessionRow.token_hash).where(
                            AccountSessionRow.token_hash.in_(hashes[start : start + 500]),
                            AccountSessionRow.expires_at > now,
                        )
                    )
                )
        return live

    def delete_account_session(self, token_hash: str) -> bool:
        """End a session; False if there was none."""
        with self._writing() as session:
            done = session.execute(
                delete(AccountSessionRow).where(AccountSessionRow.token_hash == token_hash)
            )
            return bool(done.rowcount == 1)  # type: ignore[attr-defined]

    def account_session_count(self, account_id: int) -> int:
        """How many sessions of the account are stored (expired ones included until purged)."""
        with self._session() as session:
            return int(
                session.scalar(
                    select(func.count())
                    .select_from(AccountSessionRow)
                    .where(AccountSessionRow.account_id == account_id)
                )
                or 0
            )

    def add_login_failure(self, keys: Sequence[str], at: datetime) -> None:
        """Count a failed login at ``at`` under each key (``account:ann``, ``address:1.2.3.4``)."""
        with self._writing() as session:
            session.add_all([LoginFailureRow(key=key, at=at) for key in keys])

    def login_failures(self, key: str, since: datetime) -> list[datetime]:
        """The times of the failed logins under ``key`` after ``since``, earliest first.

        >>> store = AccountStore.open("sqlite://")
        >>> store.add_login_failure(["account:ann", "address:10.0.0.1"], datetime(2026, 1, 1, 12))
        >>> store.login_failures("account:ann", since=datetime(2026, 1, 1, 11, 50))
        [datetime.datetime(2026, 1, 1, 12, 0)]
        >>> store.login_failures("account:ann", since=datetime(2026, 1, 1, 12))
        []
        """
        with self._session() as session:
            return list(
                session.scalars(
                    select(LoginFailureRow.at)
                    .where(LoginFailureRow.key == key, LoginFailureRow.at > since)
                    .order_by(LoginFailureRow.at)
                ).all()
            )

    def clear_login_failures(self, key: str) -> None:
        """Forget the failed logins under ``key`` (after a successful login)."""
        with self._writing() as session:
            session.execute(delete(LoginFailureRow).where(LoginFailureRow.key == key))

    def purge_accounts_data(
        self, now: datetime, failures_before: datetime, devices_before: datetime | None = None
    ) -> int:
        """Delete the sessions expired at ``now``, the failed logins before ``failures_before``
        and the login devices last used before ``devices_before`` (if given).

        Returns:
            The number of rows deleted.
        """
        with self._writing() as session:
            sessions = session.execute(
                delete(AccountSessionRow).where(AccountSessionRow.expires_at <= now)
            )
            failures = session.execute(
                delete(LoginFailureRow).where(LoginFailureRow.at < failures_before)
            )
            deleted = int(sessions.rowcount + failures.rowcount)  # type: ignore[attr-defined]
            if devices_before is not None:
                devices = session.execute(
                    delete(LoginDeviceRow).where(LoginDeviceRow.last_at < devices_before)
                )
                deleted += int(devices.rowcount)  # type: ignore[attr-defined]
            return deleted

    def remember_login_device(self, device_hash: str, account_id: int, now: datetime) -> None:
        """Note that the browser whose device cookie hashes to ``device_hash`` logged in to the
        account at ``now`` (the SHA-256 in hex of the cookie's token; the token is never stored).

        Raises:
            StoreDataError: the hash is not 64 hexadecimal digits; nothing was written.
        """
        if not _SHA256_HEX.match(device_hash):
            raise StoreDataError("a device is stored under a SHA-256 in hex (64 digits)")
        key = {"device_hash": device_hash, "account_id": account_id}
        # (suppressed: the same browser remembered at once by another login)
        with contextlib.suppress(IntegrityError), self._writing() as session:
            row = session.get(LoginDeviceRow, key)
            if row is None:
                session.add(LoginDeviceRow(**key, first_at=now, last_at=now))
            else:
                row.last_at = now

    def login_device_known(self, device_hash: str, account_id: int) -> bool:
        """Whether the browser of ``device_hash`` has logged in to the account before.

        >>> store = AccountStore.open("sqlite://")
        >>> ann = store.create_account("Ann", "ann", "h", datetime(2026, 1, 1))
        >>> store.remember_login_device("cd" * 32, ann.id, datetime(2026, 1, 2))
        >>> store.login_device_known("cd" * 32, ann.id), store.login_device_known("ef" * 32, ann.id)
        (True, False)
        """
        with self._session() as session:
            key = {"device_hash": device_hash, "account_id": account_id}
            return session.get(LoginDeviceRow, key) is not None

    def server_secret(self, name: str, make: Callable[[], str], now: datetime) -> str:
        """The server's secret called ``name``: made by ``make`` and stored the first time.

        Every process on the database gets the same one (the first stored wins).

        >>> store = AccountStore.open("sqlite://")
        >>> first = store.server_secret("login", lambda: "s1", datetime(2026, 1, 1))
        >>> first, store.server_secret("login", lambda: "s2", datetime(2026, 1, 2))
        ('s1', 's1')
        """
        for _ in range(3):
            with self._session() as session:
                row = session.get(ServerSecretRow, name)
                if row is not None:
                    return row.value
            # (suppressed: another process made it first; it is read again)
            with contextlib.suppress(IntegrityError), self._writing() as session:
                session.add(ServerSecretRow(name=name, value=make(), created_at=now))
        raise StoreDataError(f"the server secret {name} could not be stored")

    def attach_device(self, account_id: int, device_token: str, now: datetime) -> int:
        """Count the device's guest games for the account; the number of its finished games.

        Attaching again is harmless (the count is returned again).  A device's
        games count for one account only.

        >>> store = AccountStore.open("sqlite://")
        >>> ann = store.create_account("Ann", "ann", "h", datetime(2026, 1, 1))
        >>> bob = store.create_account("Bob", "bob", "h", datetime(2026, 1, 1))
        >>> store.attach_device(ann.id, "tok" * 6, datetime(2026, 1, 2))
        0
        >>> store.account_devices(ann.id)
        ['toktoktoktoktoktok']
        >>> store.attach_device(bob.id, "tok" * 6, datetime(2026, 1, 2))
        Traceback (most recent call last):
        ...
        crokinole.store.database.DeviceClaimedError: this device's games count for another account

        Raises:
            DeviceClaimedError: another account has the device; nothing was written.
            StoreDataError: there is no such account.
        """
        with self._writing() as session:
            if session.get(AccountRow, account_id) is None:
                raise StoreDataError(f"there is no account {account_id}")
            owners = set(
                session.scalars(
                    select(AccountDeviceRow.account_id).where(
                        AccountDeviceRow.device_token == device_token
                    )
                )
            )
            if owners - {account_id}:
                raise DeviceClaimedError("this device's games count for another account")
            if not owners:
                session.add(
                    AccountDeviceRow(
                        account_id=account_id, device_token=device_token, attached_at=now
                    )
                )
            rooms = select(func.count()).select_from(room_results([device_token]).subquery())
            tables = (
                select(func.count())
                .select_from(TableResultRow)
                .where(TableResultRow.device_token == device_token)
            )
            return int(session.scalar(rooms) or 0) + int(session.scalar(tables) or 0)

    def account_devices(self, account_id: int) -> list[str]:
        """The device tokens attached to the account, in the order they were attached."""
        with self._session() as session:
            return list(
                session.scalars(
                    select(AccountDeviceRow.device_token)
                    .where(AccountDeviceRow.account_id == account_id)
                    .order_by(AccountDeviceRow.attached_at, AccountDeviceRow.device_token)
                ).all()
            )
