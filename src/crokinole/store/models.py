"""Tables of the store (SQLAlchemy 2 declarative models).

The schema is created and upgraded only by the Alembic migrations in
``crokinole/store/migrations``; these models are how the code reads it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    DateTime,
    Double,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, MappedColumn, mapped_column


class Base(DeclarativeBase):
    """Declarative base of the store's tables."""


def _id_of(parent: str, *, ondelete: str = "CASCADE", **options: Any) -> MappedColumn[Any]:
    """A column holding the id of a row of ``parent`` (``rooms``, ``tables``, ``accounts``):
    a string id for a room or a table, a number for an account."""
    kind = Integer if parent == "accounts" else String(32)
    return mapped_column(kind, ForeignKey(f"{parent}.id", ondelete=ondelete), **options)


class RoomRow(Base):
    """A game room: its settings, the game record after the last action, its status."""

    __tablename__ = "rooms"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    device_token: Mapped[str] = mapped_column(String(64), index=True)
    opponent: Mapped[str] = mapped_column(String(16))  # easy/normal/hard/expert/local
    settings_json: Mapped[str] = mapped_column(Text)
    record_json: Mapped[str] = mapped_column(Text)
    event_number: Mapped[int] = mapped_column(Integer, default=0)
    status: Mapped[str] = mapped_column(String(16), default="playing", index=True)
    # playing/finished/abandoned
    result: Mapped[str | None] = mapped_column(String(8), nullable=True)  # win/draw/loss (vs CPU)
    scoring: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(DateTime)
    updated_at: Mapped[datetime] = mapped_column(DateTime)


class EventRow(Base):
    """A domain event of a room (a shot, a new round, the end), numbered from 1.

    The messages a reconnecting client is sent are rebuilt from these and the
    room's game record, so each row holds only the event.
    """

    __tablename__ = "events"

    room_id: Mapped[str] = _id_of("rooms", primary_key=True)
    number: Mapped[int] = mapped_column(Integer, primary_key=True)
    event_json: Mapped[str] = mapped_column(Text)


class SheetRow(Base):
    """A score sheet of the score keeper (the sheet itself as JSON)."""

    __tablename__ = "sheets"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    share_id: Mapped[str] = mapped_column(String(32), unique=True)
    device_token: Mapped[str] = mapped_column(String(64), index=True)
    data_json: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime)
    updated_at: Mapped[datetime] = mapped_column(DateTime)


# ------------------------------------------------------------------ tables (0004)
#
# A table (a party or a solo game) is an append-only log of domain events
# numbered from 1, with the latest snapshot beside it so a table loads in one
# read.  The store keeps JSON given by the server and knows no Table class.

#: What a stored table's ``status`` may be.
TABLE_STATUSES = ("lobby", "playing", "finished", "closed")


class TableRow(Base):
    """A table: its kind, its party code, the version and snapshot after its last event."""

    __tablename__ = "tables"
    __table_args__ = (
        # A code is unique among the tables that are not closed: a closed
        # party's code may be handed out again.
        Index(
            "ix_tables_open_code",
            "code",
            unique=True,
            sqlite_where=text("status != 'closed'"),
            postgresql_where=text("status != 'closed'"),
        ),
    )

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    kind: Mapped[str] = mapped_column(String(8))  # party/solo
    code: Mapped[str | None] = mapped_column(String(16), nullable=True)
    version: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16), index=True)  # TABLE_STATUSES
    snapshot_json: Mapped[str] = mapped_column(Text)
    deadline: Mapped[float | None] = mapped_column(Double, nullable=True, index=True)
    deadline_kind: Mapped[str | None] = mapped_column(String(16), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime)
    updated_at: Mapped[datetime] = mapped_column(DateTime)


class TableEventRow(Base):
    """A domain event of a table; the (table, version) key admits one writer per version."""

    __tablename__ = "table_events"

    table_id: Mapped[str] = _id_of("tables", primary_key=True)
    version: Mapped[int] = mapped_column(Integer, primary_key=True)
    event_json: Mapped[str] = mapped_column(Text)


class TableMemberRow(Base):
    """A member of a table: public id (``m1``...), device token (a secret), name, seats.

    ``seats`` holds the member's seats joined by commas ("" when none): in a
    party a member has at most one, in a solo game the one member has all its
    person seats.
    """

    __tablename__ = "table_members"

    table_id: Mapped[str] = _id_of("tables", primary_key=True)
    mid: Mapped[str] = mapped_column(String(16), primary_key=True)
    device_token: Mapped[str] = mapped_column(String(64), index=True)
    name: Mapped[str] = mapped_column(String(64))
    spectator: Mapped[bool] = mapped_column(Boolean)
    seats: Mapped[str] = mapped_column(String(64))


class TableResultRow(Base):
    """A device's result in a finished game of a table, for its record (``/api/record``).

    No foreign key to ``tables``: a device's record outlives the game's log.
    """

    __tablename__ = "table_results"

    table_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    game_number: Mapped[int] = mapped_column(Integer, primary_key=True)
    device_token: Mapped[str] = mapped_column(String(64), primary_key=True, index=True)
    opponent: Mapped[str] = mapped_column(String(16))  # a CPU level or "people"
    scoring: Mapped[str] = mapped_column(String(16))
    result: Mapped[str] = mapped_column(String(8))  # win/draw/loss
    finished_at: Mapped[datetime] = mapped_column(DateTime)


# ------------------------------------------------------------------ accounts (0005)


class AccountRow(Base):
    """An account: the username as typed, its lower-case key, the Argon2id hash of the password."""

    __tablename__ = "accounts"
    __mapper_args__ = {"eager_defaults": False}  # noqa: RUF012 - SQLAlchemy's own setting

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    username: Mapped[str] = mapped_column(String(32))
    username_key: Mapped[str] = mapped_column(String(32), unique=True)
    password_hash: Mapped[str] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(DateTime)
    password_changed_at: Mapped[datetime] = mapped_column(DateTime)
    # 0011: played by a program (set once, never unset).  No default of the code's, and
    # loaded only when a query asks (``undefer``): an account is written and read as before
    # on a schema older than 0011 (its migrations' tests).
    bot: Mapped[bool] = mapped_column(Boolean, server_default=text("false"), deferred=True)


class ApiTokenRow(Base):
    """An API token of a bot account (0011): the SHA-256 (hex) of the token, never the token.

    ``scopes`` joins the token's scopes by commas (``play,challenge``).
    """

    __tablename__ = "api_tokens"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    account_id: Mapped[int] = _id_of("accounts", index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    name: Mapped[str] = mapped_column(String(40))
    scopes: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime)
    last_used: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime, nullable=True)


class AccountSessionRow(Base):
    """A login session: the SHA-256 (hex) of the cookie's token, never the token itself."""

    __tablename__ = "account_sessions"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[int] = _id_of("accounts", index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime)
    expires_at: Mapped[datetime] = mapped_column(DateTime, index=True)


class LoginFailureRow(Base):
    """A failed login, counted under a key: a kind and a keyed hash (``account:<hmac>``).

    Since 0008 the key holds no name or address in clear, only the HMAC-SHA256
    (under the server's secret) of what the limit counts.
    """

    __tablename__ = "login_failures"
    __table_args__ = (Index("ix_login_failures_key_at", "key", "at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    key: Mapped[str] = mapped_column(String(96))
    at: Mapped[datetime] = mapped_column(DateTime)


class LoginDeviceRow(Base):
    """A browser that logged in to an account (0008): the SHA-256 of its device cookie's token.

    Such a browser is exempt from the per-account limit on failed logins, so
    that strangers' guesses cannot lock the account's owner out.
    """

    __tablename__ = "login_devices"

    device_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[int] = _id_of("accounts", primary_key=True, index=True)
    first_at: Mapped[datetime] = mapped_column(DateTime)
    last_at: Mapped[datetime] = mapped_column(DateTime)


class ServerSecretRow(Base):
    """A random secret of the server (0008), made once and shared by all its processes."""

    __tablename__ = "server_secrets"

    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    value: Mapped[str] = mapped_column(String(128))
    created_at: Mapped[datetime] = mapped_column(DateTime)


class AccountDeviceRow(Base):
    """A device whose guest games (``table_results`` by device token) count for an account."""

    __tablename__ = "account_devices"

    account_id: Mapped[int] = _id_of("accounts", primary_key=True)
    device_token: Mapped[str] = mapped_column(String(64), primary_key=True, index=True)
    attached_at: Mapped[datetime] = mapped_column(DateTime)


# ------------------------------------------------------------------ ranked play (0006)


class RatingRow(Base):
    """An account's rating on one ladder: the belief, its displayed number, and its games."""

    __tablename__ = "ratings"
    __table_args__ = (Index("ix_ratings_ladder_rating", "ladder", "rating"),)

    account_id: Mapped[int] = _id_of("accounts", primary_key=True)
    ladder: Mapped[str] = mapped_column(String(8), primary_key=True)
    mu: Mapped[float] = mapped_column(Double)
    sigma: Mapped[float] = mapped_column(Double)
    rating: Mapped[int] = mapped_column(Integer)
    games: Mapped[int] = mapped_column(Integer)
    wins: Mapped[int] = mapped_column(Integer)
    draws: Mapped[int] = mapped_column(Integer)
    losses: Mapped[int] = mapped_column(Integer)
    updated_at: Mapped[datetime] = mapped_column(DateTime)


class RatingChangeRow(Base):
    """One rating change and the game (table, game number) that caused it."""

    __tablename__ = "rating_changes"
    __table_args__ = (
        UniqueConstraint("table_id", "game_number", "account_id", name="uq_rating_changes_game"),
        Index("ix_rating_changes_account_ladder", "account_id", "ladder", "id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    account_id: Mapped[int] = _id_of("accounts")
    ladder: Mapped[str] = mapped_column(String(8))
    table_id: Mapped[str] = mapped_column(String(32))
    game_number: Mapped[int] = mapped_column(Integer)
    side: Mapped[int] = mapped_column(Integer)
    mu_before: Mapped[float] = mapped_column(Double)
    sigma_before: Mapped[float] = mapped_column(Double)
    mu_after: Mapped[float] = mapped_column(Double)
    sigma_after: Mapped[float] = mapped_column(Double)
    rating_before: Mapped[int] = mapped_column(Integer)
    rating_after: Mapped[int] = mapped_column(Integer)
    outcome: Mapped[str] = mapped_column(String(8))  # win/draw/loss
    at: Mapped[datetime] = mapped_column(DateTime)


class RankedQueueRow(Base):
    """An account waiting for a ranked game: its ladder, and since when (server seconds)."""

    __tablename__ = "ranked_queue"

    account_id: Mapped[int] = _id_of("accounts", primary_key=True)
    ladder: Mapped[str] = mapped_column(String(8))
    joined_at: Mapped[float] = mapped_column(Double)


# ------------------------------------------------------------------ practice (0007)


class DrillResultRow(Base):
    """A set of a drill the server verified by replaying its shots.

    ``shots_json`` holds the shots, each with its attempt's ``points``;
    ``full`` says whether the set had the drill's usual attempts (only a
    full set can be a personal best).
    """

    __tablename__ = "drill_results"
    __table_args__ = (
        Index("ix_drill_results_device", "device_token", "drill", "id"),
        Index("ix_drill_results_account", "account_id", "drill", "id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    device_token: Mapped[str] = mapped_column(String(64))
    account_id: Mapped[int | None] = _id_of("accounts", ondelete="SET NULL", nullable=True)
    drill: Mapped[str] = mapped_column(String(16))
    score: Mapped[int] = mapped_column(Integer)
    attempts: Mapped[int] = mapped_column(Integer)
    percent: Mapped[float] = mapped_column(Double)
    full: Mapped[bool] = mapped_column(Boolean)
    shots_json: Mapped[str] = mapped_column(Text)
    at: Mapped[datetime] = mapped_column(DateTime)
    # 0009: the hand the set was played with (sets kept before it: ``steady``;
    # only ``human`` sets count for bests, trends and the open-20 record), and
    # the server's set it was played in.
    hand: Mapped[str] = mapped_column(String(8), default="human", server_default="steady")
    set_id: Mapped[str | None] = mapped_column(String(32), nullable=True)


class DailyScoreRow(Base):
    """A device's verified score at one day's challenge (one per device and day)."""

    __tablename__ = "daily_scores"
    __table_args__ = (
        UniqueConstraint("day", "device_token", name="uq_daily_scores_device"),
        Index("ix_daily_scores_day_score", "day", "score"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    day: Mapped[str] = mapped_column(String(10))  # YYYY-MM-DD
    device_token: Mapped[str] = mapped_column(String(64))
    account_id: Mapped[int | None] = _id_of("accounts", ondelete="SET NULL", nullable=True)
    name: Mapped[str] = mapped_column(String(32))
    score: Mapped[int] = mapped_column(Integer)
    shots_json: Mapped[str] = mapped_column(Text)
    at: Mapped[datetime] = mapped_column(DateTime)


# ------------------------------------------------------------------ fair play (0009)


class PracticeSetRow(Base):
    """A set of a drill, or an entry at a day's challenge, played with the server's hand.

    The server draws each shot's noise from ``seed`` (never sent to a
    client): the shot played is the aimed shot and that noise.  ``shots_json``
    holds the attempts so far (aimed, played, points); ``played`` counts them
    (a shot is added only at the count it was played at).  ``entry_key``
    makes one daily entry per account (``DAY:account:ID``) or guest device
    (``DAY:device:TOKEN``); drill sets have none.
    """

    __tablename__ = "practice_sets"
    __table_args__ = (Index("ix_practice_sets_device", "device_token", "day"),)

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    kind: Mapped[str] = mapped_column(String(8))  # drill/daily
    drill: Mapped[str] = mapped_column(String(16))  # a drill id, or "daily"
    day: Mapped[str | None] = mapped_column(String(10), nullable=True)
    device_token: Mapped[str] = mapped_column(String(64))
    account_id: Mapped[int | None] = _id_of(
        "accounts", ondelete="SET NULL", nullable=True, index=True
    )
    seed: Mapped[int] = mapped_column(BigInteger)
    attempts: Mapped[int] = mapped_column(Integer)
    played: Mapped[int] = mapped_column(Integer)
    shots_json: Mapped[str] = mapped_column(Text)
    finished: Mapped[bool] = mapped_column(Boolean)
    entry_key: Mapped[str | None] = mapped_column(String(96), nullable=True, unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime)


class RankedDeviceRow(Base):
    """A device that a ranked table's player played from (engine help is refused to it
    while the game is played)."""

    __tablename__ = "ranked_devices"

    table_id: Mapped[str] = _id_of("tables", primary_key=True)
    device_token: Mapped[str] = mapped_column(String(64), primary_key=True, index=True)
    at: Mapped[datetime] = mapped_column(DateTime)


class NoShowRow(Base):
    """A ranked game aborted because this account never took a first shot."""

    __tablename__ = "no_shows"
    __table_args__ = (Index("ix_no_shows_account", "account_id", "at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    account_id: Mapped[int] = _id_of("accounts")
    table_id: Mapped[str] = mapped_column(String(32))
    at: Mapped[datetime] = mapped_column(DateTime)


# ------------------------------------------------------------------ events (0010)
#
# An event (a tournament, a league night) is an append-only log of entries
# numbered from 1, like a table; the store keeps the JSON the server gives it
# and knows no Event class.

#: What a stored event's ``status`` may be.
EVENT_STATUSES = ("open", "running", "finished")


class EventLogRow(Base):
    """An event: its join code, organiser, version (its last entry's), status and summary."""

    __tablename__ = "event_logs"
    __table_args__ = (Index("ix_event_logs_status", "status", "updated_at"),)

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    code: Mapped[str] = mapped_column(String(16), unique=True)
    organiser_id: Mapped[int] = mapped_column(Integer, index=True)
    version: Mapped[int] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16))  # EVENT_STATUSES
    summary_json: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime)
    updated_at: Mapped[datetime] = mapped_column(DateTime)


class EventEntryRow(Base):
    """A log entry of an event; the (event, version) key admits one writer per version."""

    __tablename__ = "event_entries"

    event_id: Mapped[str] = _id_of("event_logs", primary_key=True)
    version: Mapped[int] = mapped_column(Integer, primary_key=True)
    entry_json: Mapped[str] = mapped_column(Text)


class EventAccountRow(Base):
    """An account that plays in an event (to list an account's events)."""

    __tablename__ = "event_accounts"

    event_id: Mapped[str] = _id_of("event_logs", primary_key=True)
    account_id: Mapped[int] = mapped_column(Integer, primary_key=True, index=True)


class EventTableRow(Base):
    """An online table made for a game of an event's pairing."""

    __tablename__ = "event_tables"
    __table_args__ = (Index("ix_event_tables_event", "event_id", "round", "pairing"),)

    table_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    event_id: Mapped[str] = _id_of("event_logs")
    round: Mapped[int] = mapped_column(Integer)
    pairing: Mapped[int] = mapped_column(Integer)
    game: Mapped[int] = mapped_column(Integer)


class EventSheetRow(Base):
    """The score sheet of an event's hall pairing (one per pairing)."""

    __tablename__ = "event_sheets"
    __table_args__ = (
        UniqueConstraint("event_id", "round", "pairing", name="uq_event_sheets_pairing"),
    )

    sheet_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    event_id: Mapped[str] = _id_of("event_logs")
    round: Mapped[int] = mapped_column(Integer)
    pairing: Mapped[int] = mapped_column(Integer)
