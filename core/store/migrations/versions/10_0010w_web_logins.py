"""web logins: the user agent that opened one and when it was last used

Revision ID: 0010w
Revises: 0010r
Create Date: 2026-12-01

A user lists their web logins (`GET /me/logins`) to recognise and revoke the
ones that are not theirs; the browser's user agent and the last use tell
them apart. The last use is written at most once a minute per login.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010w"
down_revision = "0010r"
branch_labels = None
depends_on = None
phase = "expand"  # the release before it runs against the schema it leaves


def upgrade() -> None:
    with op.batch_alter_table("keys") as batch:
        batch.add_column(sa.Column("user_agent", sa.String(200), server_default="", nullable=False))
        batch.add_column(sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("keys") as batch:
        batch.drop_column("last_used_at")
        batch.drop_column("user_agent")
