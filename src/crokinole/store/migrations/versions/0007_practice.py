"""Practice: drill results per device or account, and the daily challenge's scores.

``drill_results`` keeps every set of a drill that the server verified by
replaying its shots: the drill, the score, the attempts, the percentage,
whether it was a full set (only a full set can be a personal best), and the
shots with each attempt's points (the open-20 record counts attempts from
them).  ``daily_scores`` keeps one verified score per device (and account)
and day of the daily challenge, with the name shown on its leaderboard.
Results outlive an account: its id is set to null when it goes.

Revision ID: 0007
Revises: 0006
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def _account() -> sa.Column[int]:
    return sa.Column(
        "account_id",
        sa.Integer(),
        sa.ForeignKey("accounts.id", ondelete="SET NULL"),
        nullable=True,
    )


def upgrade() -> None:
    op.create_table(
        "drill_results",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("device_token", sa.String(64), nullable=False),
        _account(),
        sa.Column("drill", sa.String(16), nullable=False),
        sa.Column("score", sa.Integer(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("percent", sa.Double(), nullable=False),
        sa.Column("full", sa.Boolean(), nullable=False),
        sa.Column("shots_json", sa.Text(), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_drill_results_device", "drill_results", ["device_token", "drill", "id"])
    op.create_index("ix_drill_results_account", "drill_results", ["account_id", "drill", "id"])
    op.create_table(
        "daily_scores",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("day", sa.String(10), nullable=False),
        sa.Column("device_token", sa.String(64), nullable=False),
        _account(),
        sa.Column("name", sa.String(32), nullable=False),
        sa.Column("score", sa.Integer(), nullable=False),
        sa.Column("shots_json", sa.Text(), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.UniqueConstraint("day", "device_token", name="uq_daily_scores_device"),
    )
    op.create_index("ix_daily_scores_day_score", "daily_scores", ["day", "score"])


def downgrade() -> None:
    op.drop_index("ix_daily_scores_day_score", "daily_scores")
    op.drop_table("daily_scores")
    op.drop_index("ix_drill_results_account", "drill_results")
    op.drop_index("ix_drill_results_device", "drill_results")
    op.drop_table("drill_results")
