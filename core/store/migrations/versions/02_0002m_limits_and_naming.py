"""Hop counts, the new-conversation rate index, and alias proposals

Revision ID: 0002m
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002m"
down_revision = "0001"
branch_labels = None
depends_on = None
phase = "expand"  # the release before it runs against the schema it leaves


def upgrade() -> None:
    with op.batch_alter_table("mails", schema=None) as batch_op:
        batch_op.add_column(sa.Column("hops", sa.Integer(), nullable=False, server_default="0"))
    with op.batch_alter_table("sessions", schema=None) as batch_op:
        batch_op.create_index(
            "ix_sessions_created_by_created_at", ["created_by", "created_at"], unique=False
        )
    op.create_table(
        "alias_proposals",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("session_id", sa.String(length=36), nullable=False),
        sa.Column("alias", sa.String(length=64), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("proposed_by", sa.String(length=64), nullable=False),
        sa.Column("mail_id", sa.String(length=36), nullable=True),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("decided_by", sa.String(length=64), nullable=True),
        sa.Column("decided_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["session_id"], ["sessions.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("alias_proposals", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_alias_proposals_session_id"), ["session_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("alias_proposals", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_alias_proposals_session_id"))
    op.drop_table("alias_proposals")
    with op.batch_alter_table("sessions", schema=None) as batch_op:
        batch_op.drop_index("ix_sessions_created_by_created_at")
    with op.batch_alter_table("mails", schema=None) as batch_op:
        batch_op.drop_column("hops")
