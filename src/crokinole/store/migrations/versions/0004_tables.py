"""Tables: an append-only log of domain events per table, its members and results.

A table (a party of 2–4 devices, or a solo game on one device) is stored as
its events numbered from 1 (``table_events``, one row per version: the
primary key admits one writer of each version), the snapshot after the last
one and its next deadline (``tables``, so a table loads in one read and the
deadlines are re-armed after a restart), its members (``table_members``, to
find a device's tables) and the devices' results of finished games
(``table_results``, for the record).  The old ``rooms`` and ``events`` stay
until the server has moved over.

Revision ID: 0004
Revises: 0003
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

OPEN = "status != 'closed'"


def upgrade() -> None:
    op.create_table(
        "tables",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("code", sa.String(16), nullable=True),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("snapshot_json", sa.Text(), nullable=False),
        sa.Column("deadline", sa.Double(), nullable=True),
        sa.Column("deadline_kind", sa.String(16), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_tables_status", "tables", ["status"])
    op.create_index("ix_tables_deadline", "tables", ["deadline"])
    # A code is unique among open tables only: a closed party's code may return.
    op.create_index(
        "ix_tables_open_code",
        "tables",
        ["code"],
        unique=True,
        sqlite_where=sa.text(OPEN),
        postgresql_where=sa.text(OPEN),
    )
    op.create_table(
        "table_events",
        sa.Column(
            "table_id",
            sa.String(32),
            sa.ForeignKey("tables.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("version", sa.Integer(), primary_key=True),
        sa.Column("event_json", sa.Text(), nullable=False),
    )
    op.create_table(
        "table_members",
        sa.Column(
            "table_id",
            sa.String(32),
            sa.ForeignKey("tables.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("mid", sa.String(16), primary_key=True),
        sa.Column("device_token", sa.String(64), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("spectator", sa.Boolean(), nullable=False),
        sa.Column("seats", sa.String(64), nullable=False),
    )
    op.create_index("ix_table_members_device_token", "table_members", ["device_token"])
    op.create_table(
        "table_results",
        sa.Column("table_id", sa.String(32), primary_key=True),
        sa.Column("game_number", sa.Integer(), primary_key=True),
        sa.Column("device_token", sa.String(64), primary_key=True),
        sa.Column("opponent", sa.String(16), nullable=False),
        sa.Column("scoring", sa.String(16), nullable=False),
        sa.Column("result", sa.String(8), nullable=False),
        sa.Column("finished_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_table_results_device_token", "table_results", ["device_token"])


def downgrade() -> None:
    op.drop_index("ix_table_results_device_token", "table_results")
    op.drop_table("table_results")
    op.drop_index("ix_table_members_device_token", "table_members")
    op.drop_table("table_members")
    op.drop_table("table_events")
    op.drop_index("ix_tables_open_code", "tables")
    op.drop_index("ix_tables_deadline", "tables")
    op.drop_index("ix_tables_status", "tables")
    op.drop_table("tables")
