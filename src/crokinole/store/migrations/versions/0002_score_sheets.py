"""Score sheets of the score keeper.

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sheets",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("share_id", sa.String(32), nullable=False, unique=True),
        sa.Column("device_token", sa.String(64), nullable=False),
        sa.Column("data_json", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_sheets_device_token", "sheets", ["device_token"])


def downgrade() -> None:
    op.drop_index("ix_sheets_device_token", "sheets")
    op.drop_table("sheets")
