"""Events (tournaments and league nights): an append-only log per event, and where games are.

An event is stored as its log entries numbered from 1 (``event_entries``,
one row per version: the primary key admits one writer of each version)
beside its row (``event_logs``: its join code, organiser, version, status
and a small summary for the lists); the accounts playing in it
(``event_accounts``, to list an account's events); the online tables made
for its pairings (``event_tables``) and the score sheets of its hall
pairings (``event_sheets``, one per pairing), each with the round and the
pairing's number they belong to.  (The table name ``events`` belongs to the
old rooms' events of 0001.)

Revision ID: 0010
Revises: 0009
"""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "event_logs",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("code", sa.String(16), nullable=False, unique=True),
        sa.Column("organiser_id", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("summary_json", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_event_logs_organiser", "event_logs", ["organiser_id"])
    op.create_index("ix_event_logs_status", "event_logs", ["status", "updated_at"])
    op.create_table(
        "event_entries",
        sa.Column(
            "event_id",
            sa.String(32),
            sa.ForeignKey("event_logs.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("version", sa.Integer(), primary_key=True),
        sa.Column("entry_json", sa.Text(), nullable=False),
    )
    op.create_table(
        "event_accounts",
        sa.Column(
            "event_id",
            sa.String(32),
            sa.ForeignKey("event_logs.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("account_id", sa.Integer(), primary_key=True),
    )
    op.create_index("ix_event_accounts_account", "event_accounts", ["account_id"])
    op.create_table(
        "event_tables",
        sa.Column("table_id", sa.String(32), primary_key=True),
        sa.Column(
            "event_id",
            sa.String(32),
            sa.ForeignKey("event_logs.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("pairing", sa.Integer(), nullable=False),
        sa.Column("game", sa.Integer(), nullable=False),
    )
    op.create_index("ix_event_tables_event", "event_tables", ["event_id", "round", "pairing"])
    op.create_table(
        "event_sheets",
        sa.Column("sheet_id", sa.String(32), primary_key=True),
        sa.Column(
            "event_id",
            sa.String(32),
            sa.ForeignKey("event_logs.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("pairing", sa.Integer(), nullable=False),
        sa.UniqueConstraint("event_id", "round", "pairing", name="uq_event_sheets_pairing"),
    )


def downgrade() -> None:
    op.drop_table("event_sheets")
    op.drop_index("ix_event_tables_event", "event_tables")
    op.drop_table("event_tables")
    op.drop_index("ix_event_accounts_account", "event_accounts")
    op.drop_table("event_accounts")
    op.drop_table("event_entries")
    op.drop_index("ix_event_logs_status", "event_logs")
    op.drop_index("ix_event_logs_organiser", "event_logs")
    op.drop_table("event_logs")
