"""Tables of the store (SQLAlchemy 2 declarative models).

The schema is created and upgraded only by the Alembic migrations in
``crokinole/store/migrations``; these models are how the code reads it.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, Integer, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    """Declarative base of the store's tables."""


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

    room_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("rooms.id", ondelete="CASCADE"), primary_key=True
    )
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
