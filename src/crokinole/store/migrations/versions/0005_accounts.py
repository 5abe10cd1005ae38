"""Accounts: people who sign up, their login sessions, failed logins, and their devices.

``accounts`` holds the username as typed and its lower-case key (unique:
``Ann`` and ``ann`` are one account) with the Argon2id hash of the password,
never the password.  ``account_sessions`` holds the SHA-256 of each session
cookie's random token, never the token, so a copy of the database logs no one
in.  ``login_failures`` counts failed logins per key (``account:ann``,
``address:1.2.3.4``) so the rate limit survives restarts and holds across
processes.  ``account_devices`` says which devices' guest games
(``table_results`` by device token) count for an account.

Revision ID: 0005
Revises: 0004
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("username", sa.String(32), nullable=False),
        sa.Column("username_key", sa.String(32), nullable=False, unique=True),
        sa.Column("password_hash", sa.String(255), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("password_changed_at", sa.DateTime(), nullable=False),
    )
    op.create_table(
        "account_sessions",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column(
            "account_id",
            sa.Integer(),
            sa.ForeignKey("accounts.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_account_sessions_account_id", "account_sessions", ["account_id"])
    op.create_index("ix_account_sessions_expires_at", "account_sessions", ["expires_at"])
    op.create_table(
        "login_failures",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("key", sa.String(96), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_login_failures_key_at", "login_failures", ["key", "at"])
    op.create_table(
        "account_devices",
        sa.Column(
            "account_id",
            sa.Integer(),
            sa.ForeignKey("accounts.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("device_token", sa.String(64), primary_key=True),
        sa.Column("attached_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_account_devices_device_token", "account_devices", ["device_token"])


def downgrade() -> None:
    op.drop_index("ix_account_devices_device_token", "account_devices")
    op.drop_table("account_devices")
    op.drop_index("ix_login_failures_key_at", "login_failures")
    op.drop_table("login_failures")
    op.drop_index("ix_account_sessions_expires_at", "account_sessions")
    op.drop_index("ix_account_sessions_account_id", "account_sessions")
    op.drop_table("account_sessions")
    op.drop_table("accounts")
