"""Bot accounts and their API tokens.

``accounts.bot`` marks an account that programs play (set once, never
unset: a bot's games count only on the ``bots`` ladder).  ``api_tokens``
keeps each token a bot's owner made: its SHA-256 (the token itself is shown
once and never stored), a name, its scopes (``play``, ``challenge``,
``ladder``, joined by commas), when it was made, last used and revoked.

Revision ID: 0011
Revises: 0010
"""

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("accounts") as batch:
        batch.add_column(sa.Column("bot", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.create_table(
        "api_tokens",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column(
            "account_id",
            sa.Integer(),
            sa.ForeignKey("accounts.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("scopes", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("last_used", sa.DateTime(), nullable=True),
        sa.Column("revoked_at", sa.DateTime(), nullable=True),
    )
    op.create_index("ix_api_tokens_account", "api_tokens", ["account_id"])


def downgrade() -> None:
    op.drop_index("ix_api_tokens_account", "api_tokens")
    op.drop_table("api_tokens")
    with op.batch_alter_table("accounts") as batch:
        batch.drop_column("bot")
