"""Login limits that a stranger cannot turn against an account's owner.

``login_devices`` remembers the browsers that logged in to an account (the
SHA-256 of a random token in their device cookie, never the token): they are
exempt from the per-account limit on failed logins.  ``server_secrets`` holds
random secrets made once by the server and shared by its processes: the key
of the HMAC-SHA256 under which ``login_failures`` now counts names and
addresses.  The failures counted before this revision kept what was typed as
a username in clear (sometimes a password): they are deleted (they count for
15 minutes only).

Revision ID: 0008
Revises: 0007
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "login_devices",
        sa.Column("device_hash", sa.String(64), primary_key=True),
        sa.Column(
            "account_id",
            sa.Integer(),
            sa.ForeignKey("accounts.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("first_at", sa.DateTime(), nullable=False),
        sa.Column("last_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_login_devices_account_id", "login_devices", ["account_id"])
    op.create_table(
        "server_secrets",
        sa.Column("name", sa.String(32), primary_key=True),
        sa.Column("value", sa.String(128), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.execute("DELETE FROM login_failures")


def downgrade() -> None:
    op.execute("DELETE FROM login_failures")
    op.drop_table("server_secrets")
    op.drop_index("ix_login_devices_account_id", "login_devices")
    op.drop_table("login_devices")
