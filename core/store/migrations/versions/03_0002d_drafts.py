"""drafts: a human's unsent mails

Revision ID: 0002d
Revises: 0002m
Create Date: 2026-12-01 09:00:00.000000
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002d"
down_revision = "0002m"
branch_labels = None
depends_on = None
phase = "expand"  # the release before it runs against the schema it leaves


def upgrade() -> None:
    op.create_table(
        "drafts",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("owner", sa.String(length=64), nullable=False),
        sa.Column("to", sa.String(length=1200), nullable=True),
        sa.Column("cc", sa.JSON(), nullable=False),
        sa.Column("subject", sa.String(length=998), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("reply_to", sa.String(length=64), nullable=True),
        sa.Column("session_alias", sa.String(length=64), nullable=True),
        sa.Column("budget", sa.String(length=16), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("drafts", schema=None) as batch_op:
        batch_op.create_index("ix_drafts_owner_updated", ["owner", "updated_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("drafts", schema=None) as batch_op:
        batch_op.drop_index("ix_drafts_owner_updated")

    op.drop_table("drafts")
