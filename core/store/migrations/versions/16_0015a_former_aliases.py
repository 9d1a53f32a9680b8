"""former aliases: the aliases a conversation held before a rename, still its own

Revision ID: 0015a
Revises: 0014s
Create Date: 2026-12-03

A mail client that synced a mail before a conversation was renamed replies to the
old alias; the alias keeps routing its participants' mail to the conversation and
is never given to another one.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015a"
down_revision = "0014s"
branch_labels = None
depends_on = None
phase = "expand"  # the release before it runs against the schema it leaves


def upgrade() -> None:
    op.create_table(
        "session_former_aliases",
        sa.Column("alias", sa.String(length=64), nullable=False),
        sa.Column("session_id", sa.String(length=36), nullable=False),
        sa.Column("retired_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["session_id"], ["sessions.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("alias"),
    )
    with op.batch_alter_table("session_former_aliases", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_session_former_aliases_session_id"), ["session_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("session_former_aliases", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_session_former_aliases_session_id"))
    op.drop_table("session_former_aliases")
