"""Ranked play: each account's rating per ladder, every change with its game, the queue.

``ratings`` holds one row per account and ladder: the belief (``mu``,
``sigma``), the displayed number it gives, and the games won, drawn and
lost.  ``rating_changes`` keeps every change with the game that caused it
(table and game number; no foreign key to ``tables``: the history outlives a
game's log), the side the player was on, the belief and the displayed number
before and after, and the outcome the player was rated as.
``ranked_queue`` holds who waits for a ranked game, and since when (server
seconds), so the queue survives a restart.

Revision ID: 0006
Revises: 0005
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def _account() -> sa.Column[int]:
    return sa.Column(
        "account_id",
        sa.Integer(),
        sa.ForeignKey("accounts.id", ondelete="CASCADE"),
        nullable=False,
    )


def upgrade() -> None:
    op.create_table(
        "ratings",
        _account(),
        sa.Column("ladder", sa.String(8), nullable=False),
        sa.Column("mu", sa.Double(), nullable=False),
        sa.Column("sigma", sa.Double(), nullable=False),
        sa.Column("rating", sa.Integer(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.Column("draws", sa.Integer(), nullable=False),
        sa.Column("losses", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("account_id", "ladder"),
    )
    op.create_index("ix_ratings_ladder_rating", "ratings", ["ladder", "rating"])
    op.create_table(
        "rating_changes",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        _account(),
        sa.Column("ladder", sa.String(8), nullable=False),
        sa.Column("table_id", sa.String(32), nullable=False),
        sa.Column("game_number", sa.Integer(), nullable=False),
        sa.Column("side", sa.Integer(), nullable=False),
        sa.Column("mu_before", sa.Double(), nullable=False),
        sa.Column("sigma_before", sa.Double(), nullable=False),
        sa.Column("mu_after", sa.Double(), nullable=False),
        sa.Column("sigma_after", sa.Double(), nullable=False),
        sa.Column("rating_before", sa.Integer(), nullable=False),
        sa.Column("rating_after", sa.Integer(), nullable=False),
        sa.Column("outcome", sa.String(8), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.UniqueConstraint("table_id", "game_number", "account_id", name="uq_rating_changes_game"),
    )
    op.create_index(
        "ix_rating_changes_account_ladder", "rating_changes", ["account_id", "ladder", "id"]
    )
    op.create_table(
        "ranked_queue",
        sa.Column(
            "account_id",
            sa.Integer(),
            sa.ForeignKey("accounts.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("ladder", sa.String(8), nullable=False),
        sa.Column("joined_at", sa.Double(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("ranked_queue")
    op.drop_index("ix_rating_changes_account_ladder", "rating_changes")
    op.drop_table("rating_changes")
    op.drop_index("ix_ratings_ladder_rating", "ratings")
    op.drop_table("ratings")
