"""Fair play: sets played with the server's hand, ranked players' devices, no-shows.

``practice_sets`` keeps each set of a drill and each entry at a day's
challenge that the server hands out: its secret seed (each shot's noise is
drawn from it, never sent), the attempts played so far and, for the daily
challenge, a key that lets an account (or a guest's device) enter once a
day.  ``drill_results`` says with which hand a set was played (``steady``
for the sets kept before: they count for no best) and in which set.
``ranked_devices`` keeps the devices a ranked table's players played from
(engine help is refused to them while that game is played), and
``no_shows`` the ranked games aborted because a player never took a first
shot (repeated no-shows keep an account out of the queue for a while).

Revision ID: 0009
Revises: 0008
"""

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("drill_results") as batch:
        batch.add_column(sa.Column("hand", sa.String(8), nullable=False, server_default="steady"))
        batch.add_column(sa.Column("set_id", sa.String(32), nullable=True))
    op.create_table(
        "practice_sets",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("drill", sa.String(16), nullable=False),
        sa.Column("day", sa.String(10), nullable=True),
        sa.Column("device_token", sa.String(64), nullable=False),
        sa.Column(
            "account_id",
            sa.Integer(),
            sa.ForeignKey("accounts.id", ondelete="SET NULL"),
            nullable=True,
        ),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("played", sa.Integer(), nullable=False),
        sa.Column("shots_json", sa.Text(), nullable=False),
        sa.Column("finished", sa.Boolean(), nullable=False),
        sa.Column("entry_key", sa.String(96), nullable=True, unique=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_practice_sets_device", "practice_sets", ["device_token", "day"])
    op.create_index("ix_practice_sets_account_id", "practice_sets", ["account_id"])
    op.create_table(
        "ranked_devices",
        sa.Column(
            "table_id",
            sa.String(32),
            sa.ForeignKey("tables.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("device_token", sa.String(64), primary_key=True),
        sa.Column("at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_ranked_devices_device_token", "ranked_devices", ["device_token"])
    op.create_table(
        "no_shows",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column(
            "account_id",
            sa.Integer(),
            sa.ForeignKey("accounts.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("table_id", sa.String(32), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_no_shows_account", "no_shows", ["account_id", "at"])


def downgrade() -> None:
    op.drop_index("ix_no_shows_account", "no_shows")
    op.drop_table("no_shows")
    op.drop_index("ix_ranked_devices_device_token", "ranked_devices")
    op.drop_table("ranked_devices")
    op.drop_index("ix_practice_sets_account_id", "practice_sets")
    op.drop_index("ix_practice_sets_device", "practice_sets")
    op.drop_table("practice_sets")
    with op.batch_alter_table("drill_results") as batch:
        batch.drop_column("set_id")
        batch.drop_column("hand")
